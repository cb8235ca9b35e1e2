"""Readers for the three MovieLens file formats, checked against the shape of each release.

========================  ==============================  =====================================
release                   ratings                         items
========================  ==============================  =====================================
ml-100k                   ``u.data`` (tab, no header)     ``u.item`` (``|``, 19 genre flags)
ml-1m, ml-10m             ``ratings.dat`` (``::``)        ``movies.dat`` (``::``)
ml-20m and later, latest  ``ratings.csv`` (header)        ``movies.csv`` (header, quoted)
========================  ==============================  =====================================

Ratings are parsed by pandas' C parser with explicit dtypes. ``::`` files are turned into
tab-separated bytes first (the C parser only takes single-character separators). When the fast
parse fails, a second pass over the lines finds the first malformed one, so the error names the
file and the line.

What every file must look like (anything else is refused, naming the file, the line and the
field):

* exactly 4 fields per ratings line (``user_id, item_id, rating, timestamp``), 3 per
  ``movies.dat`` / ``movies.csv`` line, 24 per ``u.item`` line; the CSV headers exactly
  ``userId,movieId,rating,timestamp`` and ``movieId,title,genres``;
* ids are positive integers (int64; uint64 when an id is 2**63 or more); movie ids are unique
  in the item file; timestamps are non-negative whole seconds; genre flags are 0 or 1;
* ratings are on the release's scale (:data:`RELEASE_SCALES`): whole stars 1-5 for ml-100k and
  ml-1m, half stars 0.5-5 for the others. A folder or archive whose name is not a release is
  held to its format's scale (:data:`FORMAT_SCALES`);
* CSV files are UTF-8; ``.dat`` and ``u.item`` files are UTF-8 or Latin-1 (as the releases
  were published), never a mix of both. A UTF-8 byte order mark is accepted anywhere.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable
from pathlib import PurePosixPath

import numpy as np
import pandas as pd

from evalkit.data._archive import Source, open_bytes
from evalkit.data._common import (
    RATING_COLUMNS,
    RATING_DTYPES,
    decode_text,
    genres_from_flags,
    genres_from_strings,
    items_frame,
)

__all__ = ["FORMAT_SCALES", "RATINGS_FILES", "RELEASE_SCALES", "Source", "read_items",
           "read_ratings"]  # fmt: skip

#: Ratings file names in order of preference, with the item file expected beside each.
RATINGS_FILES: dict[str, str] = {
    "u.data": "u.item",
    "ratings.dat": "movies.dat",
    "ratings.csv": "movies.csv",
}

_WHOLE = (1.0, 5.0, 1.0)
_HALF = (0.5, 5.0, 0.5)
#: Rating scale of each release: (lowest, highest, step).
RELEASE_SCALES: dict[str, tuple[float, float, float]] = {
    "ml-100k": _WHOLE, "ml-1m": _WHOLE, "ml-10m": _HALF, "ml-20m": _HALF, "ml-25m": _HALF,
    "ml-32m": _HALF, "ml-latest-small": _HALF, "ml-latest": _HALF,
}  # fmt: skip
#: Rating scale of a ratings file by format, when the release is not known by name.
FORMAT_SCALES: dict[str, tuple[float, float, float]] = {
    "u.data": _WHOLE, "ratings.dat": _HALF, "ratings.csv": _HALF,
}  # fmt: skip

#: Genre flag columns of ml-100k's u.item, in the order of u.genre.
ML100K_GENRES: list[str] = [
    "unknown", "Action", "Adventure", "Animation", "Children's", "Comedy", "Crime",
    "Documentary", "Drama", "Fantasy", "Film-Noir", "Horror", "Musical", "Mystery", "Romance",
    "Sci-Fi", "Thriller", "War", "Western",
]  # fmt: skip

_CSV_HEADER = ["userId", "movieId", "rating", "timestamp"]
_MOVIES_HEADER = ["movieId", "title", "genres"]
_INT = r"[ ]*[-+]?\d+[ ]*"
_NUM = r"[ ]*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?[ ]*"
_FIELD_RULES = (("user_id", _INT), ("item_id", _INT), ("rating", _NUM), ("timestamp", _INT))
_ID = r"\+?\d+"
_UINT64_FROM = 2**63
_FUNC = "load_movielens"


def _first_bad_line(lines: pd.Series, pattern: str) -> int | None:
    """0-based index of the first non-blank line not matching ``pattern``, or None."""
    stripped = lines.str.strip()
    bad = ~lines.str.fullmatch(pattern) & (stripped != "")
    hits = np.flatnonzero(bad.to_numpy(dtype=bool))
    return int(hits[0]) if hits.size else None


def _malformed(label: str, line_no: int, line: str, sep: str, n_fields: int) -> ValueError:
    fields = line.split(sep)
    shown = line if len(line) <= 80 else line[:77] + "..."
    if len(fields) != n_fields:
        detail = f"expected {n_fields} fields separated by {sep!r}, found {len(fields)}"
    else:
        detail = "expected a number in every field"
        for (column, rule), value in zip(_FIELD_RULES, fields):
            if not re.fullmatch(rule, value):
                kind = "a number" if column == "rating" else "an integer"
                detail = f"field '{column}' must be {kind}; got {value!r}"
                break
    return ValueError(
        f"{_FUNC}: malformed line {line_no} in '{label}': {detail} (line: {shown!r})."
    )


def _lines(data: bytes | bytearray | str) -> pd.Series:
    text = data if isinstance(data, str) else bytes(data).decode("latin-1")
    # split on "\n" only: str.splitlines would also split on characters such as U+0085
    return pd.Series(text.split("\n"), dtype="str").str.rstrip("\r")


def _diagnose(
    data: bytes | bytearray, *, label: str, sep: str, skip: int, exc: Exception
) -> ValueError:
    """Find the first malformed line of a ratings file after the fast parser failed."""
    lines = _lines(data)[skip:]
    pattern = re.escape(sep).join(rule for _, rule in _FIELD_RULES)
    index = _first_bad_line(lines, pattern)
    if index is not None:
        return _malformed(label, index + skip + 1, lines.iloc[index], sep, len(_FIELD_RULES))
    # Every line has the right shape: an integer too large for its column?
    limits = {"user_id": 2**64, "item_id": 2**64, "timestamp": 2**63}
    big = np.flatnonzero(lines.str.contains(r"\d{19}").to_numpy(dtype=bool))
    for row in big:  # error path only
        for (column, _), value in zip(_FIELD_RULES, lines.iloc[row].split(sep)):
            limit = limits.get(column)
            if limit and re.fullmatch(_INT, value) and not -limit < int(value) < limit:
                bits = "64 bits" if column != "timestamp" else "int64"
                return ValueError(
                    f"{_FUNC}: malformed line {row + skip + 1} in '{label}': field '{column}' "
                    f"must fit {bits} (below 2**{limit.bit_length() - 1}); got "
                    f"{value.strip()!r}."
                )
    return ValueError(f"{_FUNC}: could not parse '{label}': {exc}")


def _line_number(data: bytes | bytearray | str, skip: int, row: int) -> int:
    """1-based line of the ``row``-th record (0-based) after ``skip`` lines, blank lines skipped."""
    blank = ("\n\n", "\n\r\n") if isinstance(data, str) else (b"\n\n", b"\n\r\n")
    if not any(b in data for b in blank) and data[:1] not in ("\n", "\r", b"\n", b"\r"):
        return row + skip + 1  # no blank line: records are lines
    nonblank = np.flatnonzero((_lines(data).to_numpy()[skip:] != "")) + skip
    return int(nonblank[row]) + 1


def _empty(label: str, what: str) -> ValueError:
    return ValueError(f"{_FUNC}: '{label}' is empty; expected {what}.")


def _parse_ratings(
    data: bytes | bytearray, sep: str, skip: int, id_dtype: str
) -> pd.DataFrame:
    dtypes = {**RATING_DTYPES, "user_id": id_dtype, "item_id": id_dtype}
    with np.errstate(invalid="ignore", over="ignore"):  # a failed cast is diagnosed after
        return pd.read_csv(
            open_bytes(data),
            sep=sep,
            header=None,
            skiprows=skip,
            names=list(RATING_COLUMNS),
            dtype=dtypes,
            engine="c",
            na_filter=False,
            quoting=csv.QUOTE_NONE,
        )


def _narrow_ids(frame: pd.DataFrame, columns: tuple[str, ...]) -> pd.DataFrame:
    """uint64 id columns whose ids all fit int64 become int64 (the canonical dtype)."""
    for column in columns:
        values = frame[column].to_numpy()
        if values.dtype == np.uint64 and (values.size == 0 or values.max() < _UINT64_FROM):
            frame[column] = values.astype(np.int64)
    return frame


def _scale_text(scale: tuple[float, float, float], release: str) -> str:
    low, high, step = scale
    kind = "whole stars" if step == 1.0 else "half stars"
    return f"{kind} from {low:g} to {high:g} (the {release} scale)"


def _check_ratings(
    ratings: pd.DataFrame, data: bytes | bytearray, *, label: str, skip: int,
    scale: tuple[float, float, float], scale_of: str,
) -> None:  # fmt: skip
    """Ids positive, ratings on the scale, timestamps non-negative: vectorized, first failure."""
    low, high, step = scale
    rating = ratings["rating"].to_numpy()
    steps = rating / step
    rules = [
        ("user_id", ratings["user_id"].to_numpy() < 1, "must be a positive integer"),
        ("item_id", ratings["item_id"].to_numpy() < 1, "must be a positive integer"),
        (
            "rating",
            ~((rating >= low) & (rating <= high) & (steps == np.round(steps))),
            f"must be in {_scale_text(scale, scale_of)}",
        ),
        ("timestamp", ratings["timestamp"].to_numpy() < 0, "must be non-negative seconds"),
    ]
    for column, bad, rule in rules:
        if bad.any():
            rows = np.flatnonzero(bad)
            row = int(rows[0])
            value = ratings[column].iloc[row]
            line = _line_number(data, skip, row)
            raise ValueError(
                f"{_FUNC}: malformed line {line} in '{label}': field '{column}' {rule}; got "
                f"{value.item()!r} ({rows.size} line(s) break this rule)."
            )


def read_ratings(source: Source, member: str, release: str | None = None) -> pd.DataFrame:
    """Read a ratings file of any of the three formats into the canonical frame.

    ``release`` (a release name, or None when unknown) selects the rating scale.
    """
    label = source.label(member)
    data = source.read_bytes(member)
    kind = PurePosixPath(member).name
    if not data or data.isspace():
        raise _empty(label, "one rating per line")
    if kind == "ratings.csv":
        end = data.find(b"\n")
        header = bytes(data[: end if end >= 0 else len(data)]).decode("latin-1").strip()
        if [h.strip().strip('"') for h in header.split(",")] != _CSV_HEADER:
            raise ValueError(
                f"{_FUNC}: '{label}' must start with the header {','.join(_CSV_HEADER)}; "
                f"got {header!r}."
            )
        parsed, sep, skip, shown_sep = data, ",", 1, ","
    elif kind == "ratings.dat":
        parsed, sep, skip, shown_sep = data.replace(b"::", b"\t"), "\t", 0, "::"
    else:
        parsed, sep, skip, shown_sep = data, "\t", 0, "\t"
    try:
        try:
            ratings = _parse_ratings(parsed, sep, skip, "int64")
        except (ValueError, TypeError, OverflowError):  # perhaps ids of 2**63 or more
            ratings = _narrow_ids(_parse_ratings(parsed, sep, skip, "uint64"),
                                  ("user_id", "item_id"))  # fmt: skip
    except (ValueError, TypeError, OverflowError) as exc:  # ParserError is a ValueError
        raise _diagnose(data, label=label, sep=shown_sep, skip=skip, exc=exc) from None
    if not isinstance(ratings.index, pd.RangeIndex):  # an extra field on every line
        raise _diagnose(
            data, label=label, sep=shown_sep, skip=skip, exc=ValueError("extra fields")
        )
    if not np.isfinite(ratings["rating"].to_numpy()).all():
        raise _diagnose(
            data, label=label, sep=shown_sep, skip=skip, exc=ValueError("non-finite rating")
        )
    if ratings.empty:
        raise ValueError(f"{_FUNC}: '{label}' holds no ratings.")
    scale_of = release if release in RELEASE_SCALES else f"{kind} format"
    scale = RELEASE_SCALES.get(release or "", FORMAT_SCALES[kind])
    _check_ratings(ratings, data, label=label, skip=skip, scale=scale, scale_of=scale_of)
    return ratings


# --- items ---------------------------------------------------------------------------------


def _pandas_fields_error(exc: Exception, label: str, sep: str, n_fields: int) -> ValueError:
    """Restate pandas' "Expected 3 fields in line 5, saw 4" in the house style."""
    found = re.search(r"line (\d+), saw (\d+)", str(exc))
    if found is None:
        return ValueError(f"{_FUNC}: could not parse '{label}': {exc}")
    return ValueError(
        f"{_FUNC}: malformed line {found[1]} in '{label}': expected {n_fields} fields "
        f"separated by {sep!r}, found {found[2]}."
    )


def _item_ids(
    text: pd.Series, line_of: Callable[[int], int], label: str, field: str
) -> np.ndarray:
    """Parse movie ids (positive, unique; uint64 where needed) or name the first bad line.

    ``line_of(row)`` gives the file line of a 0-based row (computed only for a message).
    """
    values = pd.to_numeric(text, errors="coerce")
    if values.dtype.kind in "iu":  # every id an integer literal within 64 bits
        ok = values.to_numpy() >= 1
    else:  # error path: find the first id that is not a positive integer below 2**64
        stripped = text.str.strip()
        ok = np.array(stripped.str.fullmatch(_ID).to_numpy(dtype=bool))
        ok[ok] = [0 < int(v) < 2**64 for v in stripped[ok]]
    if not ok.all():
        row = int(np.flatnonzero(~ok)[0])
        raise ValueError(
            f"{_FUNC}: malformed line {line_of(row)} in '{label}': field '{field}' must be a "
            f"positive integer below 2**64; got {text.iloc[row]!r}."
        )
    ids = values.to_numpy()
    if ids.dtype == np.uint64 and ids.max() < _UINT64_FROM:
        ids = ids.astype(np.int64)
    duplicated = pd.Index(ids).duplicated(keep=False)
    if duplicated.any():
        rows = np.flatnonzero(duplicated)
        same = rows[ids[rows] == ids[rows[0]]]
        raise ValueError(
            f"{_FUNC}: '{label}' lists movie {ids[rows[0]].item()} more than once (lines "
            f"{', '.join(str(line_of(r)) for r in same[:5])}); movie ids must be unique."
        )
    return ids


def _record_lines(text: str, skip: int) -> Callable[[int], int]:
    """``line_of(row)`` for a text file whose records are its non-blank lines after ``skip``."""
    return lambda row: _line_number(text, skip, row)


def _read_u_item(text: str, label: str) -> pd.DataFrame:
    n_fields = 5 + len(ML100K_GENRES)
    try:
        frame = pd.read_csv(
            io.StringIO(text), sep="|", header=None, dtype="str", na_filter=False,
            quoting=csv.QUOTE_NONE,
        )  # fmt: skip
    except (ValueError, TypeError) as exc:
        raise _pandas_fields_error(exc, label, "|", n_fields) from None
    if frame.shape[1] != n_fields or not isinstance(frame.index, pd.RangeIndex):
        found = frame.shape[1] + (not isinstance(frame.index, pd.RangeIndex))
        raise ValueError(
            f"{_FUNC}: malformed line {_line_number(text, 0, 0)} in '{label}': expected "
            f"{n_fields} '|'-separated fields per line (id, title, release date, video release "
            f"date, URL, 19 genre flags); found {found}."
        )
    line_of = _record_lines(text, 0)
    ids = _item_ids(frame[0], line_of, label, "movie id")
    flags = frame.iloc[:, 5:]
    good = flags.isin(["0", "1"]).all(axis=1).to_numpy()
    if not good.all():
        row = int(np.flatnonzero(~good)[0])
        raise ValueError(
            f"{_FUNC}: malformed line {line_of(row)} in '{label}': the 19 genre flags must each "
            f"be 0 or 1; got {'|'.join(flags.iloc[row])!r}."
        )
    # "unknown" marks a movie without genre information: like "(no genres listed)", it
    # becomes an empty list.
    genres = genres_from_flags((flags.to_numpy() == "1")[:, 1:], ML100K_GENRES[1:])
    items = items_frame(ids, frame[1], genres)
    # A few ml-100k titles carry no "(year)": take the year of the release date instead.
    released = pd.to_numeric(frame[2].str.extract(r"(\d{4})\s*$")[0], errors="coerce")
    items["year"] = items["year"].fillna(released.astype("Int64"))
    return items


def _read_movies_dat(text: str, label: str) -> pd.DataFrame:
    lines = _lines(text)
    # A title may hold ":" but not "::" (that would be a fourth field).
    pattern = r"\s*([^:\s]+)::((?:(?!::).)*)::([^:]*?)\s*"
    index = _first_bad_line(lines, pattern)
    if index is not None:
        line = lines.iloc[index]
        raise ValueError(
            f"{_FUNC}: malformed line {index + 1} in '{label}': expected 3 fields separated "
            f"by '::' (movie id::title::genres), found {len(line.split('::'))} "
            f"(line: {line[:80]!r})."
        )
    nonblank = lines.str.strip() != ""
    parts = lines[nonblank].str.extract("^" + pattern + "$")
    numbers = np.flatnonzero(nonblank.to_numpy()) + 1
    ids = _item_ids(parts[0].reset_index(drop=True), lambda row: int(numbers[row]), label,
                    "movie id")  # fmt: skip
    return items_frame(ids, parts[1], genres_from_strings(parts[2]))


def _read_movies_csv(text: str, label: str) -> pd.DataFrame:
    header = text[: text.find("\n")] if "\n" in text else text
    try:
        frame = pd.read_csv(
            io.StringIO(text), dtype="str", keep_default_na=False, na_values=[""]
        )
    except (ValueError, TypeError) as exc:
        raise _pandas_fields_error(exc, label, ",", len(_MOVIES_HEADER)) from None
    if list(frame.columns) != _MOVIES_HEADER:
        raise ValueError(
            f"{_FUNC}: '{label}' must start with the header {','.join(_MOVIES_HEADER)}; got "
            f"{header.strip()!r}."
        )
    line_of = _record_lines(text, 1)
    if not isinstance(frame.index, pd.RangeIndex):  # every line has a fourth field
        raise ValueError(
            f"{_FUNC}: malformed line {line_of(0)} in '{label}': expected "
            f"3 fields separated by ',', found 4 or more."
        )
    missing = frame.isna().to_numpy()
    if missing.any():
        row, col = (int(v[0]) for v in np.nonzero(missing))
        raise ValueError(
            f"{_FUNC}: malformed line {line_of(row)} in '{label}': field "
            f"'{_MOVIES_HEADER[col]}' is empty or missing (movies without genres say "
            "'(no genres listed)')."
        )
    ids = _item_ids(frame["movieId"], line_of, label, "movieId")
    return items_frame(ids, frame["title"], genres_from_strings(frame["genres"]))


def read_items(source: Source, member: str) -> pd.DataFrame:
    """Read an item file (u.item, movies.dat or movies.csv) into the canonical item table."""
    label = source.label(member)
    kind = PurePosixPath(member).name
    data = source.read_bytes(member)
    if not data or data.isspace():
        raise _empty(label, "one movie per line")
    text = decode_text(data, label=label, func=_FUNC, latin1=kind != "movies.csv")
    if kind == "u.item":
        items = _read_u_item(text, label)
    elif kind == "movies.dat":
        items = _read_movies_dat(text, label)
    else:
        items = _read_movies_csv(text, label)
    if items.empty:
        raise ValueError(f"{_FUNC}: '{label}' holds no movies.")
    return items


#: The user files of the releases that have them, beside their ratings file.
USER_FILES = {"u.data": "u.user", "ratings.dat": "users.dat"}

#: ml-1m's age codes (its README) and occupation codes.
_ML1M_AGES = {1: "Under 18", 18: "18-24", 25: "25-34", 35: "35-44", 45: "45-49", 50: "50-55",
              56: "56+"}
_ML1M_OCCUPATIONS = [
    "other", "academic/educator", "artist", "clerical/admin", "college/grad student",
    "customer service", "doctor/health care", "executive/managerial", "farmer", "homemaker",
    "K-12 student", "lawyer", "programmer", "retired", "sales/marketing", "scientist",
    "self-employed", "technician/engineer", "tradesman/craftsman", "unemployed", "writer"]


def read_users(source: Source, member: str) -> pd.DataFrame:
    """Read ml-100k's ``u.user`` (``id|age|gender|occupation|zip``) or ml-1m's ``users.dat``
    (``id::gender::age code::occupation code::zip``) into ``user_id, gender, age,
    occupation, zip``."""
    label = source.label(member)
    data = source.read_bytes(member)
    if not data or data.isspace():
        raise _empty(label, "one user per line")
    text = decode_text(data, label=label, func=_FUNC, latin1=True)
    lines = [line for line in text.splitlines() if line.strip()]
    if PurePosixPath(member).name == "u.user":
        fields = [line.split("|") for line in lines]
        bad = next((i for i, f in enumerate(fields) if len(f) != 5), None)
        if bad is not None:
            raise _malformed(label, bad + 1, lines[bad], "|", 5)
        frame = pd.DataFrame(fields, columns=["user_id", "age", "gender", "occupation", "zip"])
        frame["age"] = pd.to_numeric(frame["age"], errors="raise").astype("Int64")
    else:
        fields = [line.split("::") for line in lines]
        bad = next((i for i, f in enumerate(fields) if len(f) != 5), None)
        if bad is not None:
            raise _malformed(label, bad + 1, lines[bad], "::", 5)
        frame = pd.DataFrame(fields, columns=["user_id", "gender", "age", "occupation", "zip"])
        frame["age"] = frame["age"].astype(int).map(_ML1M_AGES)
        frame["occupation"] = frame["occupation"].astype(int).map(
            dict(enumerate(_ML1M_OCCUPATIONS)))
    frame["user_id"] = frame["user_id"].astype(np.int64)
    return frame[["user_id", "gender", "age", "occupation", "zip"]]
