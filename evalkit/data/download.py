"""Download MovieLens archives from GroupLens into a local cache, verified and atomic."""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import os
import re
import tempfile
import urllib.error
import urllib.request
from pathlib import Path
from typing import BinaryIO

from tqdm import tqdm

from evalkit._checks import check_choice

__all__ = [
    "MOVIELENS_NAMES",
    "DownloadError",
    "cache_dir_path",
    "cached_path",
    "download_movielens",
]

#: The MovieLens releases that can be loaded or downloaded by name.
MOVIELENS_NAMES: tuple[str, ...] = (
    "ml-100k",
    "ml-1m",
    "ml-10m",
    "ml-20m",
    "ml-25m",
    "ml-32m",
    "ml-latest-small",
    "ml-latest",
)

GROUPLENS_URL = "https://files.grouplens.org/datasets/movielens/"
_CHUNK = 1 << 20
_MD5_BSD = re.compile(r"^\s*MD5\s*\((?P<file>.+)\)\s*=\s*(?P<md5>[0-9a-fA-F]{32})\s*$")
_MD5_GNU = re.compile(r"^\s*(?P<md5>[0-9a-fA-F]{32})(?:\s+\*?(?P<file>\S.*?))?\s*$")


class DownloadError(OSError):
    """A download failed: network error, short transfer, bad or missing checksum."""


def cache_dir_path(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """The cache directory: the argument, else ``$EVALKIT_DATA``, else the XDG cache.

    The XDG cache is ``$XDG_CACHE_HOME/evalkit``, or ``~/.cache/evalkit`` when
    ``XDG_CACHE_HOME`` is unset.
    """
    if cache_dir is not None:
        return Path(cache_dir).expanduser()
    if os.environ.get("EVALKIT_DATA"):
        return Path(os.environ["EVALKIT_DATA"]).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "evalkit"


def cached_path(name: str, *, cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """Where the archive of release ``name`` is (or would be) cached."""
    return cache_dir_path(cache_dir) / f"{name}.zip"


def parse_md5(text: str) -> str:
    """Extract the hex digest from ``MD5 (file) = <hex>`` or ``<hex>  <file>``."""
    for line in text.splitlines():
        match = _MD5_BSD.match(line) or _MD5_GNU.match(line)
        if match:
            return match.group("md5").lower()
    raise ValueError(f"unrecognised checksum file content {text[:80]!r}")


def _fetch_md5(url: str, timeout: float) -> str:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310
            text = response.read(4096).decode("ascii", errors="replace")
    except urllib.error.HTTPError as exc:
        raise DownloadError(
            f"download_movielens: could not fetch the checksum {url}: HTTP {exc.code} "
            f"{exc.reason}; nothing was downloaded."
        ) from None
    except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
        raise DownloadError(
            f"download_movielens: could not fetch the checksum {url}: {exc}; nothing was "
            "downloaded."
        ) from None
    try:
        return parse_md5(text)
    except ValueError as exc:
        raise DownloadError(f"download_movielens: bad checksum file {url}: {exc}.") from None


def _stream(
    url: str, out: BinaryIO, *, timeout: float, progress: bool, desc: str
) -> tuple[int, int | None, str]:
    """Copy ``url`` into the open binary file ``out``; return (received, expected, md5)."""
    digest = hashlib.md5()  # noqa: S324 - GroupLens publishes MD5 sums
    received = 0
    with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310
        length = response.headers.get("Content-Length")
        expected = int(length) if length and length.strip().isdigit() else None
        with tqdm(
            total=expected, unit="B", unit_scale=True, unit_divisor=1024, desc=desc,
            disable=not progress, leave=False,
        ) as bar:  # fmt: skip
            while True:
                try:
                    chunk = response.read(_CHUNK)
                except http.client.IncompleteRead as exc:
                    chunk = exc.partial
                    digest.update(chunk)
                    received += len(chunk)
                    bar.update(len(chunk))
                    out.write(chunk)
                    break
                if not chunk:
                    break
                digest.update(chunk)
                received += len(chunk)
                bar.update(len(chunk))
                out.write(chunk)
    return received, expected, digest.hexdigest()


def download_movielens(
    name: str,
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    base_url: str = GROUPLENS_URL,
    progress: bool = True,
    timeout: float = 60.0,
) -> Path:
    """Download the archive of a MovieLens release into the cache and return its path.

    Parameters
    ----------
    name : str
        One of ``ml-100k``, ``ml-1m``, ``ml-10m``, ``ml-20m``, ``ml-25m``, ``ml-32m``,
        ``ml-latest-small``, ``ml-latest``.
    cache_dir : str or path-like, optional
        Where to keep ``<name>.zip``. Default: ``$EVALKIT_DATA`` if set, else
        ``$XDG_CACHE_HOME/evalkit``, else ``~/.cache/evalkit``. Created when missing.
    base_url : str, default "https://files.grouplens.org/datasets/movielens/"
        Location of ``<name>.zip`` and of its checksum ``<name>.zip.md5``.
    progress : bool, default True
        Show a progress bar while downloading.
    timeout : float, default 60.0
        Seconds to wait for the server at each step (connection and every read).

    Returns
    -------
    pathlib.Path
        The cached archive ``<cache_dir>/<name>.zip``.

    Raises
    ------
    ValueError
        For an unknown release name (the message lists the valid ones).
    DownloadError
        When the checksum cannot be fetched or read, the transfer fails or stops short of its
        ``Content-Length``, or the MD5 of the received bytes differs from the published one. The
        message says what was expected and what was received; no file is left behind.

    Notes
    -----
    An archive already in the cache is returned at once, without any network access (it was
    verified when it was downloaded). Otherwise the checksum ``<name>.zip.md5`` is fetched
    first (GroupLens writes ``MD5 (<name>.zip) = <hex>``; ``<hex>  <file>`` is accepted too),
    then the archive is streamed into a temporary file in the cache directory, its length and
    MD5 are checked, and it is moved into place with ``os.replace``, so the cache never holds a
    partial or corrupt archive, even when several processes download at once.

    Examples
    --------
    ``download_movielens("ml-1m")`` fetches ``ml-1m.zip`` into the default cache. An archive
    that is already cached is returned without touching the network:

    >>> import pathlib, tempfile
    >>> cache = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (cache / "ml-100k.zip").write_bytes(b"PK\x05\x06" + bytes(18))  # an empty zip
    >>> download_movielens("ml-100k", cache_dir=cache, base_url="http://127.0.0.1:9/").name
    'ml-100k.zip'
    """
    check_choice(name, func="download_movielens", arg="release name", choices=MOVIELENS_NAMES)
    target = cached_path(name, cache_dir=cache_dir)
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    base = base_url if base_url.endswith("/") else base_url + "/"
    url = f"{base}{name}.zip"
    expected_md5 = _fetch_md5(url + ".md5", timeout)

    handle, temp_name = tempfile.mkstemp(prefix=f".{name}.zip.", suffix=".part", dir=target.parent)
    temp = Path(temp_name)
    done = False
    try:
        with os.fdopen(handle, "wb") as out:
            try:
                received, expected, actual_md5 = _stream(
                    url, out, timeout=timeout, progress=progress, desc=f"{name}.zip"
                )
            except urllib.error.HTTPError as exc:
                raise DownloadError(
                    f"download_movielens: could not download {url}: HTTP {exc.code} {exc.reason}."
                ) from None
            except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
                raise DownloadError(
                    f"download_movielens: the download of {url} failed: {exc}."
                ) from None
        if expected is not None and received != expected:
            raise DownloadError(
                f"download_movielens: the transfer of {url} was cut short: expected "
                f"{expected} bytes, received {received}."
            )
        if actual_md5 != expected_md5:
            raise DownloadError(
                f"download_movielens: checksum mismatch for {url}: expected md5 {expected_md5}, "
                f"got {actual_md5} ({received} bytes received)."
            )
        os.replace(temp, target)
        done = True
    finally:
        if not done:
            with contextlib.suppress(FileNotFoundError):
                temp.unlink()
    return target
