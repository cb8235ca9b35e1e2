"""Load any MovieLens release (by name, from a directory or from a zip) into canonical frames."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path, PurePosixPath

from evalkit._errors import InvalidParameterError
from evalkit.data._archive import CorruptArchiveError, Source
from evalkit.data._common import Dataset
from evalkit.data._formats import RATINGS_FILES, USER_FILES, read_items, read_ratings, read_users
from evalkit.data.download import MOVIELENS_NAMES, cached_path, download_movielens

__all__ = ["load_movielens"]


def _resolve(name_or_path: str | os.PathLike[str]) -> tuple[str | None, Path | None]:
    """Return (release name, None) or (None, path) for the argument of ``load_movielens``.

    A ``str`` equal to a release name is that release, whatever the working directory holds;
    anything else is a path.
    """
    if isinstance(name_or_path, str) and name_or_path in MOVIELENS_NAMES:
        return name_or_path, None
    if not isinstance(name_or_path, (str, os.PathLike)):
        raise InvalidParameterError(
            "load_movielens: 'name_or_path' must be a release name or a path; got "
            f"{type(name_or_path).__name__}."
        )
    path = Path(name_or_path).expanduser()
    if path.is_dir() or (path.is_file() and zipfile.is_zipfile(path)):
        return None, path
    valid = ", ".join(MOVIELENS_NAMES)
    if path.is_file():
        raise ValueError(
            f"load_movielens: 'name_or_path' must be a directory or a .zip archive; "
            f"'{path}' is a file that is not a zip archive."
        )
    close = [n for n in MOVIELENS_NAMES if n == str(name_or_path).strip().lower()]
    hint = f" Did you mean the release {close[0]!r}?" if close else ""
    raise ValueError(
        f"load_movielens: 'name_or_path' must be a release name ({valid}) or an existing "
        f"directory or .zip file; got {str(name_or_path)!r}.{hint}"
    )


def _load_path(path: Path, name: str | None) -> Dataset:
    source = Source(path)
    found = {f: m for f in RATINGS_FILES if (m := source.find(f)) is not None}
    if not found:
        expected = ", ".join(RATINGS_FILES)
        raise ValueError(
            f"load_movielens: no ratings file in '{path}'; expected one of {expected}."
        )
    depth = min(m.count("/") for m in found.values())
    shallowest = {f: m for f, m in found.items() if m.count("/") == depth}
    if len(shallowest) > 1:
        raise ValueError(
            f"load_movielens: '{path}' holds several releases ({', '.join(shallowest.values())}); "
            "pass the folder of the one to load."
        )
    ((ratings_file, member),) = shallowest.items()
    items_file = RATINGS_FILES[ratings_file]
    folder = PurePosixPath(member).parent
    items_member = (folder / items_file).as_posix()
    if items_member not in source.members:
        raise ValueError(
            f"load_movielens: '{source.label(member)}' has no {items_file} beside it; "
            f"expected '{source.label(items_member)}'."
        )
    if name is None:
        name = folder.name or (path.stem if source.is_zip else path.name)
    release = name if name in MOVIELENS_NAMES else None  # its rating scale is checked
    ratings = read_ratings(source, member, release)
    items = read_items(source, items_member)
    users = None
    users_file = USER_FILES.get(ratings_file)
    if users_file is not None and (folder / users_file).as_posix() in source.members:
        users = read_users(source, (folder / users_file).as_posix())
    return Dataset(ratings=ratings, items=items, name=name, users=users)


def load_movielens(
    name_or_path: str | os.PathLike[str],
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    download: bool = True,
) -> Dataset:
    """Load a MovieLens release into canonical ratings and item tables.

    Parameters
    ----------
    name_or_path : str or path-like
        A release name (``ml-100k``, ``ml-1m``, ``ml-10m``, ``ml-20m``, ``ml-25m``, ``ml-32m``,
        ``ml-latest-small``, ``ml-latest``), read from the cache (see `download_movielens`),
        or the path of a directory or ``.zip`` archive holding any release. The files may sit in
        one top folder (``ml-1m/ratings.dat``) as in the official archives. The rule: a ``str``
        exactly equal to a release name always means that release (from the cache, downloaded
        when missing), never a folder of that name in the working directory; anything else (a
        ``Path``, a string with a path separator such as ``"./ml-latest-small"``, any other
        string) is a path.
    cache_dir : str or path-like, optional
        Cache directory for named releases; see `download_movielens` for the default.
    download : bool, default True
        Download a named release that is not in the cache. With ``False`` a missing release is
        an error.

    Returns
    -------
    Dataset
        ``ratings`` with columns ``user_id`` (int64), ``item_id`` (int64), ``rating``
        (float64), ``timestamp`` (int64 seconds), in file order; ``items`` with ``item_id``
        (int64), ``title`` (without the trailing "(year)"), ``year`` (Int64, ``<NA>`` when the
        title has none) and ``genres`` (list of str); and ``name``. An id column holding an id
        of 2**63 or more is uint64 instead of int64, so such ids stay exact.

    Raises
    ------
    ValueError
        For an unknown name (the message lists the valid ones), a path without a ratings file,
        a missing item file, an empty file, a file that does not have its format's shape (the
        message names the file, the line and the field; see Notes), an archive member larger
        than the decompression cap, or a damaged zip archive (``CorruptArchiveError``, a
        ``ValueError``, naming the archive).
    FileNotFoundError
        For a named release missing from the cache when ``download=False``.
    DownloadError
        When the download of a missing release fails.
    OSError
        When a file cannot be read (e.g. ``PermissionError``); the message names the file.

    Notes
    -----
    The format is detected from the file names: ``u.data`` + ``u.item`` (ml-100k: tab-separated
    ratings, ``|``-separated Latin-1 items with 19 genre flags), ``ratings.dat`` +
    ``movies.dat`` (ml-1m, ml-10m: ``::``-separated) or ``ratings.csv`` + ``movies.csv``
    (ml-20m and later, with a header). ``"(no genres listed)"`` and ml-100k's ``unknown`` genre
    become an empty list. A year range such as ``(2006-2007)`` gives its first year; ml-100k
    titles without a year take the year of the release date.

    Every file is checked against its format, and anything that does not fit is refused rather
    than read shifted or garbled: exactly 4 fields per ratings line (3 per ``movies.dat`` /
    ``movies.csv`` line, 24 per ``u.item`` line), the exact CSV headers, positive integer ids,
    unique movie ids, non-negative whole-second timestamps, and ratings on the release's scale:
    whole stars 1-5 for ml-100k and ml-1m, half stars 0.5-5 for the others (a folder or archive
    not named after a release: whole stars for ``u.data``, half stars otherwise). CSV files must
    be UTF-8; ``.dat`` and ``u.item`` files may be UTF-8 or Latin-1, but not a mix. A UTF-8
    byte order mark is accepted.

    Zip members are streamed and capped (see ``evalkit.data._archive.MAX_MEMBER_BYTES`` and
    ``MAX_MEMBER_RATIO``), so a small hostile archive cannot expand into gigabytes. A cached
    archive that turns out damaged is checked against the published checksum and downloaded
    again when it differs (with ``download=True``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "ratings.csv").write_text(
    ...     "userId,movieId,rating,timestamp\\n1,10,4.5,964982703\\n2,10,3.0,964982931\\n")
    >>> _ = (folder / "movies.csv").write_text(
    ...     'movieId,title,genres\\n10,"Silent River, The (1994)",Drama|Romance\\n')
    >>> data = load_movielens(folder)
    >>> data.ratings
       user_id  item_id  rating  timestamp
    0        1       10     4.5  964982703
    1        2       10     3.0  964982931
    >>> data.items.loc[0, "title"], int(data.items.loc[0, "year"]), data.items.loc[0, "genres"]
    ('Silent River, The', 1994, ['Drama', 'Romance'])
    """
    name, path = _resolve(name_or_path)
    if name is None:
        return _load_path(path, None)  # type: ignore[arg-type]
    archive = cached_path(name, cache_dir=cache_dir)
    fresh = False
    if not archive.is_file():
        if not download:
            raise FileNotFoundError(
                f"load_movielens: {name} is not in the cache (looked for '{archive}') and "
                f"download=False; call download_movielens({name!r}) or pass download=True."
            )
        archive, fresh = download_movielens(name, cache_dir=cache_dir), True
    try:
        return _load_path(archive, name)
    except CorruptArchiveError as exc:
        if fresh:
            raise
        if not download:
            raise CorruptArchiveError(
                f"{exc} It is the cached copy of {name}; pass download=True to check it against "
                "the published checksum and fetch it again, or delete it."
            ) from None
    # A damaged cached copy: compare it with the published checksum, fetch it again if it
    # differs, and read it once more (a copy that matches the checksum fails as before).
    archive = download_movielens(name, cache_dir=cache_dir, verify=True)
    return _load_path(archive, name)
