"""Load any MovieLens release (by name, from a directory or from a zip) into canonical frames."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path, PurePosixPath

from evalkit.data._common import Dataset
from evalkit.data._formats import RATINGS_FILES, Source, read_items, read_ratings
from evalkit.data.download import MOVIELENS_NAMES, cached_path, download_movielens

__all__ = ["load_movielens"]


def _resolve(name_or_path: str | os.PathLike[str]) -> tuple[str | None, Path | None]:
    """Return (release name, None) or (None, path) for the argument of ``load_movielens``."""
    if isinstance(name_or_path, str) and name_or_path in MOVIELENS_NAMES:
        return name_or_path, None
    if not isinstance(name_or_path, (str, os.PathLike)):
        raise TypeError(
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
    raise ValueError(
        f"load_movielens: 'name_or_path' must be a release name ({valid}) or an existing "
        f"directory or .zip file; got {str(name_or_path)!r}."
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
    ratings = read_ratings(source, member)
    items = read_items(source, items_member)
    if name is None:
        name = folder.name or (path.stem if source.is_zip else path.name)
    return Dataset(ratings=ratings, items=items, name=name)


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
        one top folder (``ml-1m/ratings.dat``) as in the official archives. A string that is a
        release name is always taken as a name; pass a ``Path`` to read a folder of that name.
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
        title has none) and ``genres`` (list of str); and ``name``.

    Raises
    ------
    ValueError
        For an unknown name (the message lists the valid ones), a path without a ratings file,
        a missing item file, or a malformed line (the message names the file and the line).
    FileNotFoundError
        For a named release missing from the cache when ``download=False``.
    DownloadError
        When the download of a missing release fails.

    Notes
    -----
    The format is detected from the file names: ``u.data`` + ``u.item`` (ml-100k: tab-separated
    ratings, ``|``-separated Latin-1 items with 19 genre flags), ``ratings.dat`` +
    ``movies.dat`` (ml-1m, ml-10m: ``::``-separated) or ``ratings.csv`` + ``movies.csv``
    (ml-20m and later, with a header). Text is decoded as UTF-8, or Latin-1 where it is not valid
    UTF-8. ``"(no genres listed)"`` and ml-100k's ``unknown`` genre become an empty list. A year
    range such as ``(2006-2007)`` gives its first year; ml-100k titles without a year take the
    year of the release date.

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
    if not archive.is_file():
        if not download:
            raise FileNotFoundError(
                f"load_movielens: {name} is not in the cache (looked for '{archive}') and "
                f"download=False; call download_movielens({name!r}) or pass download=True."
            )
        archive = download_movielens(name, cache_dir=cache_dir)
    return _load_path(archive, name)
