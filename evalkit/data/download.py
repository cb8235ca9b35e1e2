"""Download MovieLens archives from GroupLens into a local cache, verified and atomic."""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import os
import re
import socket
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import BinaryIO

from tqdm import tqdm

from evalkit._checks import InvalidParameterError, check_choice, describe
from evalkit._constraints import BOOL, Constraint, constrained, optional


def _check_seconds(value: object, *, func: str, arg: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise InvalidParameterError(
            f"{func}: '{arg}' must be a positive number of seconds; got {describe(value)}.")
    return float(value)


#: A number of seconds to wait (infinity waits for ever; NaN is refused): a constraint of its
#: own because ``real()`` takes finite numbers only.
SECONDS = Constraint(_check_seconds, (0, -1.0, float("nan"), "5", True, None))

__all__ = [
    "MOVIELENS_NAMES",
    "STALL_MIN_BYTES",
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
#: A transfer that receives fewer bytes than this in ``stall_timeout`` seconds has stalled.
STALL_MIN_BYTES: int = 1024
_CHUNK = 1 << 20
_MD5_MAX = 4096
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


class _Watchdog:
    """Bounds the total time of a transfer: when it is up, every socket of the transfer is shut
    down, which wakes a read blocked on it (a slow server cannot hold the transfer open)."""

    def __init__(self, seconds: float | None) -> None:
        self.expired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = None if seconds is None else threading.Timer(seconds, self._expire)
        if self._timer is not None:
            self._timer.daemon = True
            self._timer.start()

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def register(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            if self.expired:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()

    def opener(self) -> urllib.request.OpenerDirector:
        """A urllib opener whose HTTP(S) connections register their sockets here."""
        watchdog = self

        class _HTTP(http.client.HTTPConnection):
            def connect(self) -> None:
                super().connect()
                watchdog.register(self.sock)

        class _HTTPS(http.client.HTTPSConnection):
            def connect(self) -> None:
                super().connect()
                watchdog.register(self.sock)

        class _HTTPHandler(urllib.request.HTTPHandler):
            def http_open(self, req):  # type: ignore[no-untyped-def]
                return self.do_open(_HTTP, req)

        class _HTTPSHandler(urllib.request.HTTPSHandler):
            def https_open(self, req):  # type: ignore[no-untyped-def]
                return self.do_open(_HTTPS, req)

        return urllib.request.build_opener(_HTTPHandler, _HTTPSHandler)


class _Limits:
    """The time bounds of one transfer: per read (``timeout``), stall and total."""

    def __init__(self, timeout: float, stall_timeout: float, max_time: float | None) -> None:
        self.timeout, self.stall_timeout, self.max_time = timeout, stall_timeout, max_time
        self.start = time.monotonic()
        self.watchdog = _Watchdog(max_time)

    def check(self, url: str, received: int, mark: list[float]) -> None:
        """Raise when the total time is up or the last ``stall_timeout`` seconds brought fewer
        than ``STALL_MIN_BYTES``; ``mark`` holds the (time, bytes) where the window started."""
        now = time.monotonic()
        if self.watchdog.expired or (self.max_time is not None and
                                     now - self.start > self.max_time):  # fmt: skip
            raise DownloadError(
                f"download_movielens: {url} took longer than max_time={self.max_time:g} seconds "
                f"({received} bytes received); nothing was kept."
            )
        if now - mark[0] >= self.stall_timeout:
            if received - mark[1] < STALL_MIN_BYTES:
                raise DownloadError(
                    f"download_movielens: the transfer of {url} stalled: "
                    f"{received - mark[1]} bytes in the last {now - mark[0]:.1f} seconds "
                    f"(stall_timeout={self.stall_timeout:g} needs at least {STALL_MIN_BYTES}); "
                    "nothing was kept."
                )
            mark[:] = [now, received]


def _read_chunks(  # type: ignore[no-untyped-def]
    response, url: str, limits: _Limits, limit: int | None = None
):
    """Yield the body of ``response`` as it arrives, checking the time bounds between reads."""
    received = 0
    mark = [time.monotonic(), 0.0]
    while limit is None or received < limit:
        try:
            chunk = response.read1(_CHUNK if limit is None else limit - received)
        except http.client.IncompleteRead as exc:
            chunk = exc.partial
            if chunk:
                yield chunk
            return
        except OSError:
            limits.check(url, received, mark)  # a shut-down socket: say why
            raise
        if not chunk:
            limits.check(url, received, [time.monotonic(), received])  # woken by the watchdog?
            return
        received += len(chunk)
        yield chunk
        limits.check(url, received, mark)


def _fetch_md5(url: str, limits: _Limits) -> str:
    try:
        with limits.watchdog.opener().open(url, timeout=limits.timeout) as response:
            body = b"".join(_read_chunks(response, url, limits, _MD5_MAX))
            text = body.decode("ascii", errors="replace")
    except DownloadError as exc:
        raise DownloadError(f"{exc} (while fetching the checksum)") from None
    except urllib.error.HTTPError as exc:
        raise DownloadError(
            f"download_movielens: could not fetch the checksum {url}: HTTP {exc.code} "
            f"{exc.reason}; nothing was downloaded."
        ) from None
    except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
        limits.check(url, 0, [time.monotonic(), 0])
        raise DownloadError(
            f"download_movielens: could not fetch the checksum {url}: {exc}; nothing was "
            "downloaded."
        ) from None
    try:
        return parse_md5(text)
    except ValueError as exc:
        raise DownloadError(f"download_movielens: bad checksum file {url}: {exc}.") from None


def _stream(
    url: str, out: BinaryIO, *, limits: _Limits, progress: bool, desc: str
) -> tuple[int, int | None, str]:
    """Copy ``url`` into the open binary file ``out``; return (received, expected, md5)."""
    digest = hashlib.md5()  # noqa: S324 - GroupLens publishes MD5 sums
    received = 0
    with limits.watchdog.opener().open(url, timeout=limits.timeout) as response:
        length = response.headers.get("Content-Length")
        expected = int(length) if length and length.strip().isdigit() else None
        with tqdm(
            total=expected, unit="B", unit_scale=True, unit_divisor=1024, desc=desc,
            disable=not progress, leave=False,
        ) as bar:  # fmt: skip
            for chunk in _read_chunks(response, url, limits):
                digest.update(chunk)
                received += len(chunk)
                bar.update(len(chunk))
                out.write(chunk)
    return received, expected, digest.hexdigest()


def _file_md5(path: Path) -> str:
    digest = hashlib.md5()  # noqa: S324 - GroupLens publishes MD5 sums
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


@constrained(progress=BOOL, timeout=SECONDS, stall_timeout=SECONDS, max_time=optional(SECONDS),
             verify=BOOL)
def download_movielens(
    name: str,
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    base_url: str = GROUPLENS_URL,
    progress: bool = True,
    timeout: float = 60.0,
    stall_timeout: float = 120.0,
    max_time: float | None = 7200.0,
    verify: bool = False,
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
    stall_timeout : float, default 120.0
        The transfer fails when fewer than ``STALL_MIN_BYTES`` (1024) bytes arrive in this many
        seconds, even if each read returns in time (a server sending a byte now and then).
    max_time : float or None, default 7200.0
        Seconds the whole download (checksum and archive) may take; ``None`` for no bound. When
        it is up, the connection is closed, wherever the transfer is.
    verify : bool, default False
        With an archive already in the cache: fetch the published checksum, compare it with the
        cached archive's MD5, and download the archive again when they differ (`load_movielens`
        does this when it finds a cached archive damaged).

    Returns
    -------
    pathlib.Path
        The cached archive ``<cache_dir>/<name>.zip``.

    Raises
    ------
    ValueError
        For an unknown release name (the message lists the valid ones), or a ``timeout``,
        ``stall_timeout`` or ``max_time`` that is not a positive number.
    DownloadError
        When the checksum cannot be fetched or read, the transfer fails, stalls, takes longer
        than ``max_time`` or stops short of its ``Content-Length``, or the MD5 of the received
        bytes differs from the published one. The message says what was expected and what was
        received; no file is left behind.

    Notes
    -----
    An archive already in the cache is returned at once, without any network access (it was
    verified when it was downloaded), unless ``verify=True``. Otherwise the checksum
    ``<name>.zip.md5`` is fetched first (GroupLens writes ``MD5 (<name>.zip) = <hex>``;
    ``<hex>  <file>`` is accepted too), then the archive is streamed into a temporary file in
    the cache directory, its length and MD5 are checked, and it is moved into place with
    ``os.replace``, so the cache never holds a partial or corrupt archive, even when several
    processes download at once.

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
    if not isinstance(base_url, str) or not base_url.strip():
        raise InvalidParameterError(
            "download_movielens: 'base_url' must be the address of a folder of MovieLens "
            f"archives (default {GROUPLENS_URL!r}); got {describe(base_url)}.")
    target = cached_path(name, cache_dir=cache_dir)
    if target.is_file() and not verify:
        return target
    if target.parent.exists() and not target.parent.is_dir():
        raise InvalidParameterError(
            f"download_movielens: 'cache_dir' must be a folder (made if missing); "
            f"'{target.parent}' is a file.")
    target.parent.mkdir(parents=True, exist_ok=True)
    base = base_url if base_url.endswith("/") else base_url + "/"
    url = f"{base}{name}.zip"
    limits = _Limits(timeout, stall_timeout, max_time)
    try:
        expected_md5 = _fetch_md5(url + ".md5", limits)
        if target.is_file() and _file_md5(target) == expected_md5:
            return target  # verified: the cached archive is the published one
        _download(url, target, expected_md5, limits=limits, progress=progress, name=name)
    finally:
        limits.watchdog.cancel()
    return target


def _download(
    url: str, target: Path, expected_md5: str, *, limits: _Limits, progress: bool, name: str
) -> None:
    handle, temp_name = tempfile.mkstemp(prefix=f".{name}.zip.", suffix=".part", dir=target.parent)
    temp = Path(temp_name)
    done = False
    try:
        with os.fdopen(handle, "wb") as out:
            try:
                received, expected, actual_md5 = _stream(
                    url, out, limits=limits, progress=progress, desc=f"{name}.zip"
                )
            except DownloadError:
                raise
            except urllib.error.HTTPError as exc:
                raise DownloadError(
                    f"download_movielens: could not download {url}: HTTP {exc.code} {exc.reason}."
                ) from None
            except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
                limits.check(url, 0, [time.monotonic(), 0])  # the time bound, if it closed it
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
