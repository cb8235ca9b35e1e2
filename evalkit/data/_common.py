"""Pieces shared by the data loaders: the ``Dataset`` tuple, canonical dtypes, item parsing."""

from __future__ import annotations

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
_TITLE_YEAR = r"^(?P<title>.*?)\s*\((?P<year>\d{4})(?:\s*[-\u2013]\s*\d{4})?\)\s*$"


class Dataset(NamedTuple):
    """A loaded data set: ratings, the item table and a short name.

    Attributes
    ----------
    ratings : pandas.DataFrame
        Columns ``user_id`` (int64), ``item_id`` (int64), ``rating`` (float64) and
        ``timestamp`` (int64, seconds since the Unix epoch).
    items : pandas.DataFrame
        Columns ``item_id`` (int64), ``title`` (str, without the trailing "(year)"),
        ``year`` (nullable Int64) and ``genres`` (list of str, empty when none are listed).
    name : str
        The release name (e.g. ``"ml-1m"``) or the name of the folder it was read from.
    """

    ratings: pd.DataFrame
    items: pd.DataFrame
    name: str


def decode_text(data: bytes) -> str:
    """Decode ``data`` as UTF-8, falling back to Latin-1 when it is not valid UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
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


def items_frame(item_ids: np.ndarray, titles: pd.Series, genres: pd.Series) -> pd.DataFrame:
    """Assemble the canonical item table from ids, raw titles and genre lists."""
    title, year = split_title_year(titles.reset_index(drop=True))
    return pd.DataFrame(
        {
            "item_id": np.asarray(item_ids, dtype=np.int64),
            "title": title,
            "year": year,
            "genres": genres.reset_index(drop=True),
        }
    )
