"""Read interactions from any CSV or Parquet file, and fingerprint a ratings table."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from evalkit._checks import check_columns, check_ids

__all__ = ["fingerprint", "load_interactions"]

_CANONICAL = ("user_id", "item_id", "rating", "timestamp")
#: Column names recognised without a mapping, and the canonical name each stands for.
ALIASES: dict[str, str] = {
    "user_id": "user_id", "userId": "user_id", "userID": "user_id", "user": "user_id",
    "item_id": "item_id", "movieId": "item_id", "itemId": "item_id", "itemID": "item_id",
    "item": "item_id", "movie_id": "item_id",
    "rating": "rating",
    "timestamp": "timestamp", "ts": "timestamp",
}  # fmt: skip
_COMPRESSION = {".gz", ".bz2", ".zip", ".xz", ".zst"}
_FUNC = "load_interactions"


def _read(path: Path, *, func: str = _FUNC) -> pd.DataFrame:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in _COMPRESSION:
        suffixes = suffixes[:-1]
    suffix = suffixes[-1] if suffixes else ""
    if suffix in (".parquet", ".pq"):
        return pd.read_parquet(path)
    if suffix in (".csv", ".tsv"):
        return pd.read_csv(path, sep="\t" if suffix == ".tsv" else ",")
    raise ValueError(
        f"{func}: 'path' must end in .csv, .tsv, .parquet or .pq (optionally compressed); "
        f"got '{path.name}'."
    )


def _renaming(
    frame: pd.DataFrame,
    columns: Mapping[str, str] | None,
    *,
    func: str = _FUNC,
    canonical: tuple[str, ...] = _CANONICAL,
    aliases: Mapping[str, str] = ALIASES,
) -> dict[str, str]:
    """Map file columns to canonical names: the explicit mapping first, then the aliases."""
    mapping: dict[str, str] = {}
    if columns is not None:
        if not isinstance(columns, Mapping):
            raise TypeError(
                f"{func}: 'columns' must be a mapping of file column to canonical name; got "
                f"{type(columns).__name__}."
            )
        for source, target in columns.items():
            if target not in canonical:
                raise ValueError(
                    f"{func}: 'columns' maps {source!r} to unknown column {target!r}; valid "
                    f"targets are {', '.join(canonical)}."
                )
            if source not in frame.columns:
                raise ValueError(
                    f"{func}: 'columns' names {source!r}, which the file does not have; it has "
                    f"{', '.join(map(str, frame.columns))}."
                )
            mapping[source] = target
    taken = set(mapping.values())
    for column in frame.columns:
        target = aliases.get(column) if isinstance(column, str) else None
        if column in mapping or target is None or target in taken:
            continue
        mapping[column] = target
    targets = list(mapping.values())
    clash = sorted({t for t in targets if targets.count(t) > 1})
    if clash:
        sources = [s for s, t in mapping.items() if t in clash]
        raise ValueError(
            f"{func}: several columns ({', '.join(sources)}) stand for {', '.join(clash)}; "
            "pass 'columns' to say which one to use."
        )
    # A file column that already has a canonical name but is not the one chosen would be
    # shadowed by the rename.
    for column in frame.columns:
        if column in canonical and column not in mapping and column in targets:
            raise ValueError(
                f"{func}: column {column!r} would be replaced by the column mapped to it; "
                "rename or drop one of them."
            )
    return mapping


def _timestamps(series: pd.Series) -> pd.Series:
    if pd.api.types.is_datetime64_any_dtype(series.dtype):
        if series.isna().any():
            n = int(series.isna().sum())
            raise ValueError(f"{_FUNC}: column 'timestamp' has {n} missing value(s).")
        seconds = series.to_numpy().astype("datetime64[s]").astype(np.int64)
        return pd.Series(seconds, index=series.index)
    values = pd.to_numeric(series, errors="coerce")
    bad = values.isna() | ~np.isfinite(values.to_numpy(dtype=np.float64, na_value=np.nan))
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise ValueError(
            f"{_FUNC}: column 'timestamp' must hold numbers (seconds); {int(bad.sum())} value(s) "
            f"are missing or not numeric (first at row {row}: {series.iloc[row]!r})."
        )
    array = values.to_numpy(dtype=np.float64)
    if not np.array_equal(array, np.floor(array)):
        raise ValueError(f"{_FUNC}: column 'timestamp' must hold whole seconds.")
    return values.astype(np.int64)


def _ratings(series: pd.Series) -> pd.Series:
    values = pd.to_numeric(series, errors="coerce")
    array = values.to_numpy(dtype=np.float64, na_value=np.nan)
    bad = ~np.isfinite(array)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{_FUNC}: column 'rating' must hold finite numbers; {int(bad.sum())} value(s) are "
            f"missing or not numeric (first at row {row}: {series.iloc[row]!r})."
        )
    return pd.Series(array, index=series.index, name="rating")


def load_interactions(
    path: str | os.PathLike[str],
    *,
    columns: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Read user-item interactions from a CSV, TSV or Parquet file into canonical columns.

    Parameters
    ----------
    path : str or path-like
        A ``.csv``, ``.tsv`` (optionally ``.gz``, ``.bz2``, ``.zip``, ``.xz``, ``.zst``
        compressed), ``.parquet`` or ``.pq`` file with a header.
    columns : mapping, optional
        File column name -> canonical name (``user_id``, ``item_id``, ``rating``,
        ``timestamp``), e.g. ``{"userId": "user_id", "movieId": "item_id"}``. Without it the
        usual names are recognised: ``userId``, ``userID``, ``user`` for ``user_id``; ``movieId``,
        ``movie_id``, ``itemId``, ``itemID``, ``item`` for ``item_id``; ``ts`` for ``timestamp``.

    Returns
    -------
    pandas.DataFrame
        ``user_id`` and ``item_id`` (ids keep their type: integers as int64, strings as str),
        then ``rating`` (float64) and ``timestamp`` (int64 seconds; datetimes are converted)
        when present, then any other columns of the file, unchanged.

    Raises
    ------
    ValueError
        For an unsupported suffix, a mapping naming a missing column, two columns standing for
        the same canonical one, missing ``user_id`` / ``item_id``, missing (NaN) ids, or ratings
        or timestamps that are not numbers.
    TypeError
        For float ids, or a ``columns`` that is not a mapping.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> file = pathlib.Path(tempfile.mkdtemp()) / "log.csv"
    >>> _ = file.write_text("user,movieId,stars\\n1,10,4\\n2,10,3.5\\n")
    >>> load_interactions(file, columns={"stars": "rating"})
       user_id  item_id  rating
    0        1       10     4.0
    1        2       10     3.5
    """
    file = Path(path)
    if not file.is_file():
        raise ValueError(f"{_FUNC}: 'path' must be an existing file; got '{file}'.")
    frame = _read(file)
    mapping = _renaming(frame, columns)
    frame = frame.rename(columns=mapping)
    check_columns(frame, func=_FUNC, arg="path", required=["user_id", "item_id"])
    check_ids(frame, func=_FUNC, arg="path")
    out = {"user_id": frame["user_id"], "item_id": frame["item_id"]}
    for column in ("user_id", "item_id"):
        if pd.api.types.is_integer_dtype(out[column].dtype):
            out[column] = out[column].astype(np.int64)
    if "rating" in frame.columns:
        out["rating"] = _ratings(frame["rating"])
    if "timestamp" in frame.columns:
        out["timestamp"] = _timestamps(frame["timestamp"])
    rest = {c: frame[c] for c in frame.columns if c not in _CANONICAL}
    return pd.DataFrame({**out, **rest}).reset_index(drop=True)


def _column_bytes(values: pd.Series, dtype: str) -> bytes:
    if dtype == "<f8" or pd.api.types.is_integer_dtype(values.dtype):
        return np.ascontiguousarray(values.to_numpy(), dtype=dtype).tobytes()
    return "\x00".join(values.astype("str").tolist()).encode("utf-8")


def fingerprint(ratings: pd.DataFrame) -> dict[str, str | int]:
    """A content hash and size summary of a ratings table, for reports and caches.

    Parameters
    ----------
    ratings : pandas.DataFrame
        Interactions with ``user_id`` and ``item_id``, and optionally ``rating`` and
        ``timestamp``. Other columns and the row order do not enter the hash.

    Returns
    -------
    dict
        ``sha256`` (hex digest), ``rows``, ``users`` (distinct user ids), ``items`` (distinct
        item ids).

    Raises
    ------
    TypeError, ValueError
        When ``ratings`` is not a DataFrame with ``user_id`` and ``item_id`` (no missing ids).

    Notes
    -----
    The rows are sorted by (``user_id``, ``item_id``, ``timestamp``), stably. Then, for each of
    ``user_id``, ``item_id``, ``rating``, ``timestamp`` that is present, in that order, the hash
    takes the column name in UTF-8, a zero byte, and the whole column as little-endian bytes:
    int64 for integer ids and timestamps, float64 for ratings (string ids: UTF-8 text joined by
    zero bytes). The same interactions in any row order give the same digest.

    Examples
    --------
    >>> import pandas as pd
    >>> r = pd.DataFrame({"user_id": [2, 1], "item_id": [5, 5], "rating": [4.0, 3.5],
    ...                   "timestamp": [20, 10]})
    >>> fp = fingerprint(r)
    >>> fp["rows"], fp["users"], fp["items"], fp["sha256"] == fingerprint(r[::-1])["sha256"]
    (2, 2, 1, True)
    """
    check_columns(ratings, func="fingerprint", arg="ratings", required=["user_id", "item_id"])
    check_ids(ratings, func="fingerprint", arg="ratings")
    keys = [ratings[c] for c in ("user_id", "item_id", "timestamp") if c in ratings.columns]
    codes = [pd.factorize(k, sort=True)[0] for k in keys]
    order = np.lexsort(codes[::-1])
    digest = hashlib.sha256()
    dtypes = {"user_id": "<i8", "item_id": "<i8", "rating": "<f8", "timestamp": "<i8"}
    for column, dtype in dtypes.items():
        if column in ratings.columns:
            digest.update(column.encode("utf-8") + b"\x00")
            digest.update(_column_bytes(ratings[column].iloc[order], dtype))
    return {
        "sha256": digest.hexdigest(),
        "rows": len(ratings),
        "users": int(ratings["user_id"].nunique()),
        "items": int(ratings["item_id"].nunique()),
    }
