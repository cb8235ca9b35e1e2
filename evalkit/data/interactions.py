"""Read interactions from any CSV or Parquet file, and fingerprint a ratings table."""

from __future__ import annotations

import hashlib
import lzma
import os
import re
import zipfile
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from evalkit._canonical import lexsort, sort_key
from evalkit._checks import COLUMN_ALIASES, as_dataframe, check_columns, check_ids
from evalkit._errors import InvalidParameterError
from evalkit.data._archive import os_error

__all__ = ["fingerprint", "load_interactions"]

_CANONICAL = ("user_id", "item_id", "rating", "timestamp")
#: Column names recognised without a mapping, and the canonical name each stands for.
ALIASES: dict[str, str] = COLUMN_ALIASES
_COMPRESSION = {".gz", ".bz2", ".zip", ".xz", ".zst"}
_FUNC = "load_interactions"
_UINT64_FROM = 2**63
_INT64_MAX = 2**63 - 1


_COMPRESSION_NAMES = {".gz": "gzip", ".bz2": "bzip2", ".zip": "zip", ".xz": "xz",
                      ".zst": "zstandard"}  # fmt: skip
# What the decompressors raise on data that is not what the suffix says.
_DECOMPRESSION_ERRORS = (EOFError, zlib.error, lzma.LZMAError, zipfile.BadZipFile)
# Other separators a CSV or TSV may have been written with by mistake.
_OTHER_SEPARATORS = {",": ("\t", ";", "|"), "\t": (",", ";", "|")}
_SEPARATOR_NAMES = {",": "comma", "\t": "tab", ";": "semicolon", "|": "pipe"}


def _read(path: Path, *, func: str = _FUNC) -> pd.DataFrame:
    """Read a CSV, TSV or Parquet file; every failure names ``func``, 'path' and the file."""
    return read_table(path, func=func)[0]


def read_table(path: Path, *, func: str = _FUNC) -> tuple[pd.DataFrame, str]:
    """Read a CSV, TSV or Parquet file into a frame and say which ("CSV", "TSV", "Parquet").

    Every failure is a ``ValueError`` (or, for the file system, the same ``OSError``) whose
    message names ``func``, the argument 'path', the file and what was wrong: empty, not
    UTF-8, not the compression its suffix says, not Parquet, a repeated column name, or a
    CSV/TSV written with another separator. A UTF-8 byte order mark is accepted.
    """
    suffixes = [s.lower() for s in path.suffixes]
    compression = None
    if suffixes and suffixes[-1] in _COMPRESSION:
        compression = _COMPRESSION_NAMES[suffixes[-1]]
        suffixes = suffixes[:-1]
    suffix = suffixes[-1] if suffixes else ""
    if suffix not in (".parquet", ".pq", ".csv", ".tsv"):
        raise ValueError(
            f"{func}: 'path' must end in .csv, .tsv, .parquet or .pq (optionally compressed); "
            f"got '{path.name}'."
        )
    kind = "Parquet" if suffix in (".parquet", ".pq") else suffix[1:].upper()
    sep = "\t" if suffix == ".tsv" else ","
    where = f"{func}: 'path' file '{path}'"
    try:
        if kind == "Parquet":
            frame = pd.read_parquet(path)
        else:
            frame = pd.read_csv(path, sep=sep, encoding="utf-8-sig")
    except pd.errors.EmptyDataError:
        raise ValueError(
            f"{where} is empty; expected a header line and one interaction per line."
        ) from None
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{where} is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset "
            f"{exc.start} of the decoded data); re-save it as UTF-8."
        ) from None
    except _DECOMPRESSION_ERRORS as exc:
        raise ValueError(f"{where} is not valid {compression} data ({exc}).") from None
    except OSError as exc:
        if exc.errno is not None:  # the file system, not the content
            raise os_error(exc, f"{where} cannot be read: {exc.strerror}.") from None
        what = f"valid {compression} data" if compression else f"a readable {kind} file"
        raise ValueError(f"{where} is not {what} ({exc}).") from None
    except ValueError as exc:  # pandas' ParserError, pyarrow's ArrowInvalid
        if kind == "Parquet":
            _check_header(pd.DataFrame(columns=_parquet_names(path)), path, kind=kind, sep=sep,
                          compression=compression, where=where)  # fmt: skip
        detail = " ".join(str(exc).split())
        raise ValueError(f"{where} could not be read as {kind}: {detail}") from None
    _check_header(frame, path, kind=kind, sep=sep, compression=compression, where=where)
    if kind != "Parquet" and not frame.index.equals(pd.RangeIndex(len(frame))):
        # pandas takes the leading fields as the index when every line has more fields than
        # the header has names, which would shift every value into the wrong column
        extra = frame.index.nlevels
        raise ValueError(
            f"{where} has {extra} more field(s) on its lines than names in its header "
            f"({len(frame.columns)}); add the missing column name(s) to the header."
        )
    return frame, kind


def read_header(path: Path, *, func: str = _FUNC) -> list[str]:
    """The column names of a CSV, TSV or Parquet file, read from its header (CSV/TSV) or
    schema (Parquet) without reading its rows; failures as :func:`read_table`'s."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in _COMPRESSION:
        suffixes = suffixes[:-1]
    suffix = suffixes[-1] if suffixes else ""
    if suffix in (".parquet", ".pq"):
        names = _parquet_names(path)
        if names:
            return names
        return [str(c) for c in read_table(path, func=func)[0].columns]  # its error message
    if suffix not in (".csv", ".tsv"):
        read_table(path, func=func)  # raises, naming the suffixes it takes
    sep = "\t" if suffix == ".tsv" else ","
    try:
        frame = pd.read_csv(path, sep=sep, encoding="utf-8-sig", nrows=0)
    except (ValueError, OSError, EOFError, zlib.error, lzma.LZMAError, zipfile.BadZipFile):
        return [str(c) for c in read_table(path, func=func)[0].columns]  # its error message
    _check_header(frame, path, kind=suffix[1:].upper(), sep=sep, compression=None,
                  where=f"{func}: 'path' file '{path}'")
    return [str(c) for c in frame.columns]


def _parquet_names(path: Path) -> list[str]:
    """The column names a Parquet file declares (none when its schema cannot be read)."""
    try:
        import pyarrow.parquet as pq

        return list(pq.read_schema(path).names)
    except (ImportError, ValueError, OSError):
        return []


def _check_header(
    frame: pd.DataFrame, path: Path, *, kind: str, sep: str, compression: str | None,
    where: str,
) -> None:  # fmt: skip
    """Refuse a repeated column name and a CSV/TSV written with another separator."""
    names = [str(c) for c in frame.columns]
    if kind != "Parquet":
        if len(names) == 1:
            for other in _OTHER_SEPARATORS[sep]:
                if other in names[0]:
                    raise ValueError(
                        f"{where} has a single column {names[0]!r} when read as "
                        f"{_SEPARATOR_NAMES[sep]}-separated {kind}: it looks "
                        f"{_SEPARATOR_NAMES[other]}-separated. Use the suffix that matches "
                        "the separator (.csv for commas, .tsv for tabs), or convert the file."
                    )
        # pandas renames a repeated header name "a" to "a.1": read the header as it is.
        if any(re.fullmatch(r".+\.\d+", n) for n in names):
            raw = pd.read_csv(path, sep=sep, encoding="utf-8-sig", header=None, nrows=1,
                              dtype="str", compression="infer")  # fmt: skip
            names = [str(v) for v in raw.iloc[0]] if len(raw) else names
    seen: dict[str, int] = {}
    for position, name in enumerate(names):
        if name in seen:
            raise ValueError(
                f"{where} has the column {name!r} twice (columns {seen[name] + 1} and "
                f"{position + 1}); column names must be unique."
            )
        seen[name] = position


def normalize_ids(series: pd.Series, column: str, *, where: str, text: bool) -> pd.Series:
    """Integer ids as int64, or uint64 when an id is 2**63 or more; other ids unchanged.

    ``text``: the ids come from a CSV/TSV, where pandas keeps integers as text only when they
    do not fit 64 bits (such ids are refused rather than silently kept as strings).
    """
    values = series.to_numpy()
    if isinstance(values, np.ndarray) and values.dtype.kind in "iu":
        if values.dtype == np.uint64 and values.size and values.max() >= _UINT64_FROM:
            return pd.Series(values, index=series.index, name=column)
        return pd.Series(values.astype(np.int64), index=series.index, name=column)
    if pd.api.types.is_integer_dtype(series.dtype):  # nullable Int64 / UInt64 (no NA here)
        if str(series.dtype) == "UInt64" and series.max() >= _UINT64_FROM:
            return series.astype(np.uint64)
        return series.astype(np.int64)
    if text and len(series) and (
        pd.api.types.is_string_dtype(series.dtype) or pd.api.types.is_object_dtype(series.dtype)
    ):
        first = series.iloc[0]
        looks_integer = isinstance(first, int) or (
            isinstance(first, str) and re.fullmatch(r"[-+]?\d+", first) is not None
        )
        if looks_integer:
            text = series.astype("str")
            if text.str.fullmatch(r"[-+]?\d+").all():
                # pandas keeps integers as text (CSV) or objects only when they do not fit
                numbers = pd.to_numeric(text, errors="coerce")
                if numbers.dtype.kind in "iu":
                    return normalize_ids(numbers, column, where=where, text=False)
                raise ValueError(
                    f"{where}: column '{column}' holds integer ids outside the 64-bit range "
                    f"(from {text.iloc[0]!r}; ids must fit int64, or uint64 when none is "
                    "negative). Quote them as strings in a Parquet file to keep them as labels."
                )
    return series


def column_renaming(
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
            raise InvalidParameterError(
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
    """Whole seconds as int64; datetimes converted; NaN, infinite, fractional or values beyond
    int64 (such as 1e30, which a cast would turn into the smallest int64) refused."""
    if pd.api.types.is_datetime64_any_dtype(series.dtype):
        if series.isna().any():
            n = int(series.isna().sum())
            raise ValueError(f"{_FUNC}: column 'timestamp' has {n} missing value(s).")
        seconds = series.to_numpy().astype("datetime64[s]").astype(np.int64)
        return pd.Series(seconds, index=series.index)
    values = pd.to_numeric(series, errors="coerce")
    if isinstance(values.dtype, np.dtype) and values.dtype.kind in "iu":
        array = values.to_numpy()
        if array.dtype == np.uint64 and array.size and array.max() > _INT64_MAX:
            _timestamp_error(series, array > _INT64_MAX, "beyond the int64 range of seconds")
        return pd.Series(array.astype(np.int64), index=series.index)
    array = values.to_numpy(dtype=np.float64, na_value=np.nan)
    for bad, what in (
        (np.isnan(array), "missing or not numeric"),
        (np.isinf(array), "infinite"),
        # 2**63 is exact in float64; anything at or past it overflows int64
        (np.abs(array) >= 2.0**63, "beyond the int64 range of seconds"),
        (array != np.floor(array), "not whole seconds"),
    ):
        if bad.any():
            _timestamp_error(series, bad, what)
    return pd.Series(array.astype(np.int64), index=series.index)


def _timestamp_error(series: pd.Series, bad: np.ndarray, what: str) -> None:
    row = int(np.flatnonzero(bad)[0])
    raise ValueError(
        f"{_FUNC}: column 'timestamp' must hold whole seconds within int64; "
        f"{int(bad.sum())} value(s) are {what} (first at row {row}: {series.iloc[row]!r})."
    )


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
        ``user_id`` and ``item_id`` (ids keep their type: integers as int64, or uint64 when an
        id is 2**63 or more, so 64-bit hash ids stay exact; strings as str), then ``rating``
        (float64) and ``timestamp`` (int64 seconds; datetimes are converted) when present, then
        any other columns of the file, unchanged.

    Raises
    ------
    ValueError
        For an unsupported suffix, an empty file, a file that is not what its suffix says
        (not UTF-8, not gzip/bzip2/xz/zip data, not Parquet), a CSV/TSV that looks written with
        another separator, a column name that appears twice, a mapping naming a missing
        column, two columns standing for the same canonical one, missing ``user_id`` /
        ``item_id``, missing (NaN) ids, integer ids beyond 64 bits, ratings that are not finite
        numbers, or timestamps that are not whole seconds within int64 (e.g. 1e30 or inf).
        Each message names the function, the argument 'path', the file and what was wrong.
    OSError
        When the file system refuses the read (e.g. ``PermissionError``); the message names the
        file.
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
    frame, kind = read_table(file)
    mapping = column_renaming(frame, columns)
    frame = frame.rename(columns=mapping)
    check_columns(frame, func=_FUNC, arg="path", required=["user_id", "item_id"])
    check_ids(frame, func=_FUNC, arg="path")
    where = f"{_FUNC}: 'path' file '{file}'"
    out = {
        column: normalize_ids(frame[column], column, where=where, text=kind != "Parquet")
        for column in ("user_id", "item_id")
    }
    if "rating" in frame.columns:
        out["rating"] = _ratings(frame["rating"])
    if "timestamp" in frame.columns:
        out["timestamp"] = _timestamps(frame["timestamp"])
    rest = {c: frame[c] for c in frame.columns if c not in _CANONICAL}
    return pd.DataFrame({**out, **rest}).reset_index(drop=True)


def _column_bytes(values: pd.Series, dtype: str) -> bytes:
    if dtype == "<f8" or (dtype == "<i8" and pd.api.types.is_integer_dtype(values.dtype)):
        return np.ascontiguousarray(values.to_numpy(), dtype=dtype).tobytes()
    return "\x00".join(values.astype("str").tolist()).encode("utf-8")


def _canonical_order(ratings: pd.DataFrame, others: list[str]) -> np.ndarray:
    """The row order by (``user_id``, ``item_id``, then ``others`` last to first), with the
    keys packed together where their ranges allow (:func:`evalkit._canonical.lexsort`). Rows
    equal in all of them are equal in every hashed column, so any input order gives the same
    sorted columns."""
    keys = [sort_key(ratings[c]) for c in ("user_id", "item_id", *others[::-1])]
    return lexsort(keys)


def fingerprint(ratings: pd.DataFrame, *, columns: Sequence[str] | None = None
                ) -> dict[str, str | int]:
    """A content hash and size summary of a ratings table, for reports, caches and saved
    evaluations.

    Parameters
    ----------
    ratings : pandas.DataFrame
        Interactions with ``user_id`` and ``item_id``, and optionally ``rating`` and
        ``timestamp``. Other columns and the row order do not enter the hash.
    columns : sequence of str, optional
        The columns to hash besides ``user_id`` and ``item_id``, those of them the frame has
        (default: ``rating`` and ``timestamp``); a saved evaluation hashes its
        recommendations' ``rank`` and ``score`` so.

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
    The rows are sorted by (``user_id``, ``item_id``, ``timestamp``, ``rating``), or by the
    ids and then ``columns`` last to first. Then, for each of ``user_id``, ``item_id``,
    ``rating``, ``timestamp`` (or the ids and ``columns``) that is present, in that order, the
    hash takes the column name in UTF-8, a zero byte, and the whole column as little-endian
    bytes: int64 for integer ids and timestamps, float64 for ratings and other numbers (so
    rank 1 and rank 1.0 hash alike), UTF-8 text joined by zero bytes for string ids and
    other text. The same interactions in any row order give the same digest.

    Examples
    --------
    >>> import pandas as pd
    >>> r = pd.DataFrame({"user_id": [2, 1], "item_id": [5, 5], "rating": [4.0, 3.5],
    ...                   "timestamp": [20, 10]})
    >>> fp = fingerprint(r)
    >>> fp["rows"], fp["users"], fp["items"], fp["sha256"] == fingerprint(r[::-1])["sha256"]
    (2, 2, 1, True)
    """
    ratings = as_dataframe(ratings)
    check_columns(ratings, func="fingerprint", arg="ratings", required=["user_id", "item_id"])
    check_ids(ratings, func="fingerprint", arg="ratings")
    if columns is None:
        columns, others = ["rating", "timestamp"], ["rating", "timestamp"]
    else:
        columns = [c for c in columns if c not in ("user_id", "item_id")]
        others = columns[::-1]
    columns = [c for c in columns if c in ratings.columns]
    order = _canonical_order(ratings, [c for c in others if c in ratings.columns])
    digest = hashlib.sha256()
    for column in ["user_id", "item_id", *columns]:
        values = ratings[column]
        dtype = {"user_id": "<i8", "item_id": "<i8", "timestamp": "<i8"}.get(column, "<f8")
        if dtype == "<f8" and not (pd.api.types.is_numeric_dtype(values.dtype)
                                   and not pd.api.types.is_bool_dtype(values.dtype)):
            dtype = "text"
        digest.update(column.encode("utf-8") + b"\x00")
        digest.update(_column_bytes(values.iloc[order], dtype))
    return {
        "sha256": digest.hexdigest(),
        "rows": len(ratings),
        "users": int(ratings["user_id"].nunique()),
        "items": int(ratings["item_id"].nunique()),
    }
