"""Pieces shared by the data loaders: the ``Dataset`` tuple, canonical dtypes, item parsing."""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np
import pandas as pd

__all__ = [
    "RATING_COLUMNS",
    "RATING_DTYPES",
    "Dataset",
    "decode_text",
    "genres_from_flags",
    "genres_from_strings",
    "items_frame",
    "split_title_year",
]

RATING_COLUMNS: tuple[str, ...] = ("user_id", "item_id", "rating", "timestamp")
RATING_DTYPES: dict[str, str] = {
    "user_id": "int64",
    "item_id": "int64",
    "rating": "float64",
    "timestamp": "int64",
}

#: Marker MovieLens uses for a movie without genres (it becomes an empty list).
NO_GENRES = "(no genres listed)"

# A trailing "(1995)" or "(2006-2007)" / "(2006–2007)" (en dash) after the title.
# A UTF-8 multi-byte sequence (a lead byte and its continuation bytes).
_UTF8_SEQUENCE = re.compile(
    rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}"
)
_TITLE_YEAR = r"^(?P<title>.*?)\s*\((?P<year>\d{4})(?:\s*[-\u2013]\s*\d{4})?\)\s*$"


class Dataset(NamedTuple):
    """A loaded data set: ratings, the item table and a short name.

    Attributes
    ----------
    ratings : pandas.DataFrame
        Columns ``user_id`` (int64), ``item_id`` (int64), ``rating`` (float64) and
        ``timestamp`` (int64, seconds since the Unix epoch). An id column holding an id of
        2**63 or more is uint64 instead, so 64-bit hash ids stay exact.
    items : pandas.DataFrame
        Columns ``item_id`` (int64, or uint64 as above), ``title`` (str, without the trailing
        "(year)"),
        ``year`` (nullable Int64) and ``genres`` (list of str, empty when none are listed).
    name : str
        The release name (e.g. ``"ml-1m"``) or the name of the folder it was read from.
    users : pandas.DataFrame or None
        User attributes where the release has them (ml-100k's ``u.user``, ml-1m's
        ``users.dat``): ``user_id``, ``gender`` ("F"/"M"), ``age`` (ml-100k: years; ml-1m:
        its age band, "18-24", ...), ``occupation`` (a name), ``zip``; the sample's are
        synthetic. None otherwise.
    """

    ratings: pd.DataFrame
    items: pd.DataFrame
    name: str
    users: pd.DataFrame | None = None


def _line_at(data: bytes | bytearray, offset: int) -> tuple[int, str]:
    """1-based line number of byte ``offset`` and that line's text (shortened), for messages."""
    start = data.rfind(b"\n", 0, offset) + 1
    end = data.find(b"\n", offset)
    text = bytes(data[start : end if end >= 0 else len(data)]).decode("utf-8", "replace")
    return data.count(b"\n", 0, offset) + 1, text.rstrip("\r")[:60]


def decode_text(
    data: bytes | bytearray, *, label: str, func: str, latin1: bool = True
) -> str:
    """Decode ``data`` as UTF-8; where it is not valid UTF-8, as Latin-1 if ``latin1``.

    A file that is not valid UTF-8 but holds UTF-8 multi-byte sequences mixes the two
    encodings: decoding it either way would garble some lines, so it is refused, naming one
    line of each kind. (Latin-1 text practically never holds such sequences: they need a
    letter such as "Ã" followed by a symbol from U+0080-U+00BF.)
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, _ = _line_at(data, exc.start)
        bad = f"line {line} is not valid UTF-8 (byte 0x{data[exc.start]:02x})"
    if not latin1:
        raise ValueError(f"{func}: '{label}' must be UTF-8 text; {bad}. Re-save it as UTF-8.")
    utf8 = _UTF8_SEQUENCE.search(data)
    if utf8 is not None:
        other, text = _line_at(data, utf8.start())
        raise ValueError(
            f"{func}: '{label}' mixes text encodings: line {other} is UTF-8 ({text!r}) but "
            f"{bad}; re-save the file in one encoding."
        )
    return data.decode("latin-1")


def split_title_year(titles: pd.Series) -> tuple[pd.Series, pd.Series]:
    """Split ``"Title (1995)"`` into the title and a nullable Int64 year.

    A title without a trailing year keeps its text (stripped) and gets ``<NA>``. A year range
    such as ``"(2006-2007)"`` gives the first year.
    """
    text = titles.astype("str")
    parts = text.str.extract(_TITLE_YEAR)
    has_year = parts["year"].notna()
    title = text.str.strip().where(~has_year, parts["title"].str.strip())
    year = pd.to_numeric(parts["year"], errors="raise").astype("Int64")
    return title.astype("str"), year


def genres_from_strings(genres: pd.Series) -> pd.Series:
    """Parse pipe-separated genre strings to lists; ``"(no genres listed)"`` and ``""`` give []."""
    text = genres.astype("str").str.strip()
    text = text.where(text != NO_GENRES, "")
    lists = text.str.findall(r"[^|]+").astype(object)
    return lists


def genres_from_flags(flags: np.ndarray, names: list[str]) -> pd.Series:
    """Turn a 0/1 matrix (items x genres) into a Series of genre lists, in column order."""
    flags = np.asarray(flags, dtype=bool)
    joined = np.full(flags.shape[0], "", dtype=object)
    for j, name in enumerate(names):  # a loop over the genre columns, vectorized over items
        joined = joined + np.where(flags[:, j], name + "|", "")
    return genres_from_strings(pd.Series(joined, dtype="str"))


def _id_array(ids: np.ndarray) -> np.ndarray:
    """Integer ids as int64, or as uint64 when they need it (an id of 2**63 or more)."""
    ids = np.asarray(ids)
    return ids if ids.dtype == np.uint64 else ids.astype(np.int64)


def items_frame(item_ids: np.ndarray, titles: pd.Series, genres: pd.Series) -> pd.DataFrame:
    """Assemble the canonical item table from ids, raw titles and genre lists."""
    title, year = split_title_year(titles.reset_index(drop=True))
    return pd.DataFrame(
        {
            "item_id": _id_array(item_ids),
            "title": title,
            "year": year,
            "genres": genres.reset_index(drop=True),
        }
    )
