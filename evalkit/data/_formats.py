"""Readers for the three MovieLens file formats, from a directory or a zip archive.

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
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from pathlib import Path, PurePosixPath

import numpy as np
import pandas as pd

from evalkit.data._common import (
    RATING_COLUMNS,
    RATING_DTYPES,
    decode_text,
    genres_from_flags,
    genres_from_strings,
    items_frame,
)

__all__ = ["RATINGS_FILES", "Source", "read_items", "read_ratings"]

#: Ratings file names in order of preference, with the item file expected beside each.
RATINGS_FILES: dict[str, str] = {
    "u.data": "u.item",
    "ratings.dat": "movies.dat",
    "ratings.csv": "movies.csv",
}

#: Genre flag columns of ml-100k's u.item, in the order of u.genre.
ML100K_GENRES: list[str] = [
    "unknown", "Action", "Adventure", "Animation", "Children's", "Comedy", "Crime",
    "Documentary", "Drama", "Fantasy", "Film-Noir", "Horror", "Musical", "Mystery", "Romance",
    "Sci-Fi", "Thriller", "War", "Western",
]  # fmt: skip

_CSV_HEADER = ["userId", "movieId", "rating", "timestamp"]
_INT = r"[ ]*[-+]?\d+[ ]*"
_NUM = r"[ ]*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?[ ]*"
_FIELD_RULES = (("user_id", _INT), ("item_id", _INT), ("rating", _NUM), ("timestamp", _INT))
_FUNC = "load_movielens"


class Source:
    """Files of one release, in a directory or a zip archive, addressed by relative path."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.is_zip = path.is_file()
        if self.is_zip:
            with zipfile.ZipFile(path) as archive:
                names = archive.namelist()
            self.members = [
                n
                for n in names
                if not n.endswith("/")
                and not n.startswith("__MACOSX/")
                and not PurePosixPath(n).name.startswith("._")
            ]
        else:
            self.members = [
                p.relative_to(path).as_posix()
                for pattern in ("*", "*/*")
                for p in sorted(path.glob(pattern))
                if p.is_file()
            ]

    def find(self, filename: str) -> str | None:
        """The shallowest member named ``filename``; ambiguity at that depth is an error."""
        hits = [m for m in self.members if PurePosixPath(m).name == filename]
        if not hits:
            return None
        depth = min(m.count("/") for m in hits)
        shallowest = sorted(m for m in hits if m.count("/") == depth)
        if len(shallowest) > 1:
            raise ValueError(
                f"{_FUNC}: '{self.path}' holds several releases ({', '.join(shallowest)}); "
                "pass the folder of the one to load."
            )
        return shallowest[0]

    def read_bytes(self, member: str) -> bytes:
        if self.is_zip:
            with zipfile.ZipFile(self.path) as archive:
                return archive.read(member)
        return (self.path / member).read_bytes()

    def label(self, member: str) -> str:
        """How a member is named in messages: a path, or ``archive.zip:member``."""
        return f"{self.path}:{member}" if self.is_zip else str(self.path / member)


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


def _diagnose(data: bytes, *, label: str, sep: str, skip: int, exc: Exception) -> ValueError:
    """Find the first malformed line of a ratings file after the fast parser failed."""
    # split on "\n" only: str.splitlines would also split on characters such as U+0085
    lines = pd.Series(data.decode("latin-1").split("\n")[skip:], dtype="str").str.rstrip("\r")
    pattern = re.escape(sep).join(rule for _, rule in _FIELD_RULES)
    index = _first_bad_line(lines, pattern)
    if index is None:
        return ValueError(f"{_FUNC}: could not parse '{label}': {exc}")
    return _malformed(label, index + skip + 1, lines.iloc[index], sep, len(_FIELD_RULES))


def read_ratings(source: Source, member: str) -> pd.DataFrame:
    """Read a ratings file of any of the three formats into the canonical frame."""
    label = source.label(member)
    data = source.read_bytes(member)
    kind = PurePosixPath(member).name
    if kind == "ratings.csv":
        end = data.find(b"\n")
        header = data[: end if end >= 0 else len(data)].decode("latin-1").strip().split(",")
        if [h.strip().strip('"') for h in header] != _CSV_HEADER:
            raise ValueError(
                f"{_FUNC}: '{label}' must start with the header {','.join(_CSV_HEADER)}; "
                f"got {','.join(header)!r}."
            )
        buffer, sep, skip, shown_sep = io.BytesIO(data), ",", 1, ","
    elif kind == "ratings.dat":
        buffer, sep, skip, shown_sep = io.BytesIO(data.replace(b"::", b"\t")), "\t", 0, "::"
    else:
        buffer, sep, skip, shown_sep = io.BytesIO(data), "\t", 0, "\t"
    try:
        ratings = pd.read_csv(
            buffer,
            sep=sep,
            header=None,
            skiprows=skip,
            names=list(RATING_COLUMNS),
            dtype=RATING_DTYPES,
            engine="c",
            na_filter=False,
            quoting=csv.QUOTE_NONE,
        )
    except (ValueError, TypeError, OverflowError) as exc:  # ParserError is a ValueError
        raise _diagnose(data, label=label, sep=shown_sep, skip=skip, exc=exc) from None
    if not np.isfinite(ratings["rating"].to_numpy()).all():
        raise _diagnose(
            data, label=label, sep=shown_sep, skip=skip, exc=ValueError("non-finite rating")
        )
    return ratings


def _read_u_item(text: str, label: str) -> pd.DataFrame:
    frame = pd.read_csv(
        io.StringIO(text),
        sep="|",
        header=None,
        dtype="str",
        na_filter=False,
        quoting=csv.QUOTE_NONE,
    )
    if frame.shape[1] != 5 + len(ML100K_GENRES):
        raise ValueError(
            f"{_FUNC}: '{label}' must have {5 + len(ML100K_GENRES)} '|'-separated fields per "
            f"line (id, title, release date, video release date, URL, 19 genre flags); "
            f"found {frame.shape[1]}."
        )
    ids = pd.to_numeric(frame[0], errors="coerce")
    flags = frame.iloc[:, 5:].apply(pd.to_numeric, errors="coerce")
    bad = ids.isna().to_numpy() | flags.isna().any(axis=1).to_numpy()
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{_FUNC}: malformed line {row + 1} in '{label}': the movie id and the 19 genre "
            "flags must be integers."
        )
    # "unknown" marks a movie without genre information: like "(no genres listed)", it
    # becomes an empty list.
    genres = genres_from_flags(flags.to_numpy()[:, 1:], ML100K_GENRES[1:])
    items = items_frame(ids.to_numpy(), frame[1], genres)
    # A few ml-100k titles carry no "(year)": take the year of the release date instead.
    released = pd.to_numeric(frame[2].str.extract(r"(\d{4})\s*$")[0], errors="coerce")
    items["year"] = items["year"].fillna(released.astype("Int64"))
    return items


def _read_movies_dat(text: str, label: str) -> pd.DataFrame:
    lines = pd.Series(text.split("\n"), dtype="str").str.rstrip("\r")
    pattern = r"\s*(\d+)::(.*)::([^:]*?)\s*"
    index = _first_bad_line(lines, pattern)
    if index is not None:
        raise ValueError(
            f"{_FUNC}: malformed line {index + 1} in '{label}': expected "
            f"movie id::title::genres; got {lines.iloc[index]!r}."
        )
    lines = lines[lines.str.strip() != ""]
    parts = lines.str.extract("^" + pattern + "$")
    return items_frame(parts[0].astype("int64").to_numpy(), parts[1], genres_from_strings(parts[2]))


def _read_movies_csv(text: str, label: str) -> pd.DataFrame:
    try:
        frame = pd.read_csv(
            io.StringIO(text), dtype={"movieId": "int64", "title": "str", "genres": "str"},
            na_filter=False,
        )  # fmt: skip
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{_FUNC}: could not parse '{label}': {exc}") from None
    missing = [c for c in ("movieId", "title", "genres") if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{_FUNC}: '{label}' must have the columns movieId,title,genres; it has "
            f"{','.join(map(str, frame.columns))}."
        )
    return items_frame(
        frame["movieId"].to_numpy(), frame["title"], genres_from_strings(frame["genres"])
    )


def read_items(source: Source, member: str) -> pd.DataFrame:
    """Read an item file (u.item, movies.dat or movies.csv) into the canonical item table."""
    label = source.label(member)
    text = decode_text(source.read_bytes(member))
    kind = PurePosixPath(member).name
    if kind == "u.item":
        return _read_u_item(text, label)
    if kind == "movies.dat":
        return _read_movies_dat(text, label)
    return _read_movies_csv(text, label)
