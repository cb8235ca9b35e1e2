"""Hostile and careless input to the data layer, table-driven.

Each case is (files written under ``tmp_path``, the call, the expected outcome): either the
exact error type with the fragments its message must hold (the function, the file or argument,
what was wrong), or a correct result checked against values computed here. Every case also
checks that no file that existed before the call was changed. The network cases talk to a
server on 127.0.0.1 only, and every one is bounded in time.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import hashlib
import http.server
import io
import lzma
import os
import threading
import time
import tracemalloc
import warnings
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from evalkit import InvalidParameterError
from evalkit.data import (
    DownloadError,
    _archive,
    download_movielens,
    fingerprint,
    load_interactions,
    load_movielens,
)
from evalkit.data._archive import CorruptArchiveError
from evalkit.recs import read_recommendations

U63, U64 = 2**63, 2**64 - 1

# --- building blocks -----------------------------------------------------------------------

R_CSV = ["1,10,4.0,881250949", "1,20,3.0,881250950", "2,10,5.0,891717742", "3,30,1.0,878887116"]
M_CSV = ["10,Heat (1995),Action|Crime", "20,Toy Story (1995),Comedy", "30,Babylon 5,Sci-Fi"]
R_HEAD, M_HEAD = "userId,movieId,rating,timestamp", "movieId,title,genres"
EXPECTED = pd.DataFrame(
    {"user_id": [1, 1, 2, 3], "item_id": [10, 20, 10, 30], "rating": [4.0, 3.0, 5.0, 1.0],
     "timestamp": [881250949, 881250950, 891717742, 878887116]}
)  # fmt: skip
BOM = b"\xef\xbb\xbf"


def text(lines: list[str], head: str | None = None, *, encoding: str = "utf-8") -> bytes:
    rows = ([head] if head is not None else []) + lines
    return ("\n".join(rows) + "\n").encode(encoding)


def ml_csv(ratings: list[str] = R_CSV, movies: list[str] = M_CSV, *, folder: str = "ml",
           r_head: str = R_HEAD, m_head: str = M_HEAD) -> dict[str, bytes]:  # fmt: skip
    return {f"{folder}/ratings.csv": text(ratings, r_head),
            f"{folder}/movies.csv": text(movies, m_head)}  # fmt: skip


def dat(line: str) -> str:
    return line.replace(",", "::")


R_DAT = [dat(r).replace(".0", "") for r in R_CSV]
M_DAT = ["10::Heat (1995)::Action|Crime", "20::Amélie (2001)::Comedy|Romance",
         "30::Babylon 5::Sci-Fi"]  # fmt: skip


def ml_dat(ratings: list[str] = R_DAT, movies: bytes | None = None, *,
           folder: str = "ml-1m") -> dict[str, bytes]:  # fmt: skip
    return {f"{folder}/ratings.dat": text(ratings),
            f"{folder}/movies.dat": movies if movies is not None else text(M_DAT)}  # fmt: skip


R_100K = [r.replace("::", "\t") for r in R_DAT]
FLAGS = "|".join(["0"] * 19)


def item_line(movie: int, title: str = "Heat (1995)", flags: str = FLAGS) -> str:
    return f"{movie}|{title}|01-Jan-1995||http://x|{flags}"


M_100K = [item_line(10), item_line(20, "Toy Story (1995)"), item_line(30, "Babylon 5")]


def ml_100k(ratings: list[str] = R_100K, items: bytes | None = None, *,
            folder: str = "ml-100k") -> dict[str, bytes]:  # fmt: skip
    return {f"{folder}/u.data": text(ratings),
            f"{folder}/u.item": items if items is not None else text(M_100K, encoding="latin-1")}


def zipped(files: dict[str, bytes], **options: object) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, **options) as out:
        for name, data in files.items():
            out.writestr(name, data)
    return buffer.getvalue()


def parquet(table: pa.Table) -> bytes:
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def frame_bytes(frame: pd.DataFrame) -> bytes:
    sink = io.BytesIO()
    frame.to_parquet(sink)
    return sink.getvalue()


# --- the table -----------------------------------------------------------------------------


@dataclass
class Case:
    """files: relative path -> bytes; call(root) runs the entry point; then either ``error``
    (type) with ``says`` (message fragments; "{root}" is the case's folder), or ``check``."""

    id: str
    files: dict[str, bytes]
    call: Callable[[Path], object]
    error: type[BaseException] | None = None
    says: tuple[str, ...] = ()
    check: Callable[[object], None] | None = None
    func: str = "load_movielens"
    marks: tuple = field(default_factory=tuple)


def movielens(folder: str = "ml") -> Callable[[Path], object]:
    return lambda root: load_movielens(root / folder)


def interactions(name: str, **kw: object) -> Callable[[Path], object]:
    return lambda root: load_interactions(root / name, **kw)


def recs(name: str) -> Callable[[Path], object]:
    return lambda root: read_recommendations(root / name)


def ratings_equal(expected: pd.DataFrame) -> Callable[[object], None]:
    def check(result: object) -> None:
        pd.testing.assert_frame_equal(result.ratings, expected)  # type: ignore[attr-defined]

    return check


def ids_are(column: str, values: list[int], dtype: str, attr: str | None = None):
    def check(result: object) -> None:
        frame = getattr(result, attr) if attr else result
        assert str(frame[column].dtype) == dtype
        assert [int(v) for v in frame[column]] == values  # exact, no wrap-around

    return check


def replace_line(lines: list[str], index: int, new: str) -> list[str]:
    out = list(lines)
    out[index] = new
    return out


F = "{root}/ml/ratings.csv"
MV = "{root}/ml/movies.csv"

ML_CASES = [
    # ratings.csv: field counts
    Case("csv-extra-field-every-line", ml_csv([r + ",7" for r in R_CSV]), movielens(),
         ValueError, ("malformed line 2 in", F, "expected 4 fields separated by ',', found 5")),
    Case("csv-extra-field-one-line", ml_csv(replace_line(R_CSV, 1, R_CSV[1] + ",7")),
         movielens(), ValueError, ("malformed line 3 in", F, "found 5")),
    Case("csv-missing-field-every-line", ml_csv([r.rsplit(",", 1)[0] for r in R_CSV]),
         movielens(), ValueError, ("malformed line 2 in", F, "found 3")),
    Case("csv-quoted-fields", ml_csv(['"1","10","4.0","881250949"'] + R_CSV[1:]), movielens(),
         ValueError, ("malformed line 2 in", F, "field 'user_id' must be an integer")),
    # ratings.csv: header
    Case("csv-header-extra-column", ml_csv(r_head=R_HEAD + ",tag"), movielens(), ValueError,
         (F, "must start with the header userId,movieId,rating,timestamp", ",tag")),
    Case("csv-header-renamed", ml_csv(r_head="user,item,rating,timestamp"), movielens(),
         ValueError, (F, "must start with the header", "user,item")),
    Case("csv-header-duplicate-name", ml_csv(r_head="userId,movieId,movieId,timestamp"),
         movielens(), ValueError, (F, "must start with the header")),
    Case("csv-header-missing", ml_csv(r_head=None), movielens(), ValueError,  # type: ignore[arg-type]
         (F, "must start with the header", "1,10,4.0,881250949")),
    Case("csv-bom-ratings", {**ml_csv(), "ml/ratings.csv": BOM + text(R_CSV, R_HEAD)},
         movielens(), check=ratings_equal(EXPECTED)),
    Case("csv-bom-movies", {**ml_csv(), "ml/movies.csv": BOM + text(M_CSV, M_HEAD)},
         movielens(), check=lambda d: d.items["item_id"].tolist() == [10, 20, 30]),
    Case("csv-empty-ratings", {**ml_csv(), "ml/ratings.csv": b""}, movielens(), ValueError,
         (F, "is empty")),
    Case("csv-blank-ratings", {**ml_csv(), "ml/ratings.csv": b"\n \n"}, movielens(),
         ValueError, (F, "is empty")),
    Case("csv-header-only", ml_csv([]), movielens(), ValueError, (F, "holds no ratings")),
    # ratings.csv: ranges (a folder not named after a release: the csv format's half stars)
    Case("csv-rating-7", ml_csv(replace_line(R_CSV, 0, "1,10,7,881250949")), movielens(),
         ValueError, ("malformed line 2 in", F, "field 'rating' must be in half stars from 0.5 "
                      "to 5", "got 7.0")),
    Case("csv-rating-0", ml_csv(replace_line(R_CSV, 2, "2,10,0,891717742")), movielens(),
         ValueError, ("malformed line 4 in", F, "field 'rating'", "got 0.0")),
    Case("csv-rating-quarter", ml_csv(replace_line(R_CSV, 1, "1,20,3.25,881250950")),
         movielens(), ValueError, ("malformed line 3", F, "field 'rating'", "got 3.25")),
    Case("csv-rating-negative", ml_csv(replace_line(R_CSV, 0, "1,10,-1,881250949")),
         movielens(), ValueError, ("malformed line 2", F, "field 'rating'", "got -1.0")),
    Case("csv-rating-nan", ml_csv(replace_line(R_CSV, 0, "1,10,nan,881250949")), movielens(),
         ValueError, ("malformed line 2", F, "field 'rating' must be a number; got 'nan'")),
    Case("csv-rating-inf", ml_csv(replace_line(R_CSV, 0, "1,10,inf,881250949")), movielens(),
         ValueError, ("malformed line 2", F, "field 'rating' must be a number; got 'inf'")),
    Case("csv-rating-on-line-after-blank-lines",
         {**ml_csv(), "ml/ratings.csv": text(["", R_CSV[0], "", "1,20,9,881250950"], R_HEAD)},
         movielens(), ValueError, ("malformed line 5 in", F, "field 'rating'")),
    Case("csv-user-0", ml_csv(replace_line(R_CSV, 0, "0,10,4,881250949")), movielens(),
         ValueError, ("malformed line 2", F, "field 'user_id' must be a positive integer")),
    Case("csv-user-negative", ml_csv(replace_line(R_CSV, 3, "-3,30,1,878887116")), movielens(),
         ValueError, ("malformed line 5", F, "field 'user_id' must be a positive", "got -3")),
    Case("csv-item-0", ml_csv(replace_line(R_CSV, 0, "1,0,4,881250949")), movielens(),
         ValueError, ("malformed line 2", F, "field 'item_id' must be a positive integer")),
    Case("csv-timestamp-negative", ml_csv(replace_line(R_CSV, 0, "1,10,4,-5")), movielens(),
         ValueError, ("malformed line 2", F, "field 'timestamp' must be non-negative")),
    Case("csv-timestamp-1e30", ml_csv(replace_line(R_CSV, 0, "1,10,4,1e30")), movielens(),
         ValueError, ("malformed line 2", F, "field 'timestamp' must be an integer; got '1e30'")),
    Case("csv-timestamp-inf", ml_csv(replace_line(R_CSV, 0, "1,10,4,inf")), movielens(),
         ValueError, ("malformed line 2", F, "field 'timestamp' must be an integer; got 'inf'")),
    Case("csv-timestamp-fraction", ml_csv(replace_line(R_CSV, 0, "1,10,4,88.5")), movielens(),
         ValueError, ("malformed line 2", F, "field 'timestamp' must be an integer")),
    Case("csv-timestamp-beyond-int64", ml_csv(replace_line(R_CSV, 0, f"1,10,4,{U64}")),
         movielens(), ValueError, ("line 2", F, "timestamp")),
    # ratings.csv: 64-bit ids
    Case("csv-user-2**64-1", ml_csv(replace_line(R_CSV, 0, f"{U64},10,4.0,881250949")),
         movielens(), check=ids_are("user_id", [U64, 1, 2, 3], "uint64", "ratings")),
    Case("csv-item-2**63", ml_csv(replace_line(R_CSV, 0, f"1,{U63},4.0,881250949")),
         movielens(), check=lambda d: (ids_are("item_id", [U63, 20, 10, 30], "uint64",
                                               "ratings")(d),
                                       ids_are("user_id", [1, 1, 2, 3], "int64", "ratings")(d))
         and None),
    Case("csv-user-2**64", ml_csv(replace_line(R_CSV, 0, f"{2**64},10,4.0,881250949")),
         movielens(), ValueError, ("malformed line 2", F, "field 'user_id' must fit 64 bits")),
    # movies.csv
    Case("movies-duplicate-id", ml_csv(movies=M_CSV + ["10,Heat again (1995),Drama"]), movielens(),
         ValueError, (MV, "lists movie 10 more than once (lines 2, 5)")),
    Case("movies-extra-field-one-line", ml_csv(movies=replace_line(M_CSV, 1, M_CSV[1] + ",x")),
         movielens(), ValueError, ("malformed line 3 in", MV, "expected 3 fields", "found 4")),
    Case("movies-extra-field-every-line", ml_csv(movies=[m + ",x" for m in M_CSV]), movielens(),
         ValueError, ("malformed line 2 in", MV, "expected 3 fields")),
    Case("movies-missing-genres", ml_csv(movies=replace_line(M_CSV, 2, "30,Babylon 5")),
         movielens(), ValueError,
         ("malformed line 4 in", MV, "field 'genres' is empty or missing")),
    Case("movies-empty-title", ml_csv(movies=replace_line(M_CSV, 0, "10,,Drama")), movielens(),
         ValueError, ("malformed line 2 in", MV, "field 'title' is empty or missing")),
    Case("movies-id-not-integer", ml_csv(movies=replace_line(M_CSV, 1, "twenty,Toy Story,Comedy")),
         movielens(), ValueError, ("malformed line 3 in", MV, "field 'movieId' must be a "
                                   "positive integer", "'twenty'")),
    Case("movies-id-0", ml_csv(movies=replace_line(M_CSV, 1, "0,Toy Story,Comedy")), movielens(),
         ValueError, ("malformed line 3 in", MV, "field 'movieId' must be a positive")),
    Case("movies-id-2**63", ml_csv(movies=replace_line(M_CSV, 0, f"{U63},Heat (1995),Action")),
         movielens(), check=ids_are("item_id", [U63, 20, 30], "uint64", "items")),
    Case("movies-header-short", ml_csv(m_head="movieId,title"), movielens(), ValueError,
         (MV, "must start with the header movieId,title,genres")),
    Case("movies-header-extra", ml_csv(m_head=M_HEAD + ",year"), movielens(), ValueError,
         (MV, "must start with the header movieId,title,genres", "year")),
    Case("movies-latin-1", {**ml_csv(), "ml/movies.csv": text(
        replace_line(M_CSV, 1, "20,Death Note: Desu nôto (2006),Anime"), M_HEAD,
        encoding="latin-1")}, movielens(), ValueError,
         (MV, "must be UTF-8 text; line 3 is not valid UTF-8 (byte 0xf4)")),
    Case("movies-empty", {**ml_csv(), "ml/movies.csv": b""}, movielens(), ValueError,
         (MV, "is empty")),
    Case("movies-header-only", ml_csv(movies=[]), movielens(), ValueError,
         (MV, "holds no movies")),
    # ratings.dat / movies.dat
    Case("dat-extra-field-every-line", ml_dat([r + "::7" for r in R_DAT]),
         movielens("ml-1m"), ValueError,
         ("malformed line 1 in", "{root}/ml-1m/ratings.dat", "separated by '::', found 5")),
    Case("dat-single-colons", ml_dat(replace_line(R_DAT, 2, "2:10:5:891717742")),
         movielens("ml-1m"), ValueError, ("malformed line 3 in", "ratings.dat", "found 1")),
    Case("dat-ml-1m-half-star", ml_dat(replace_line(R_DAT, 0, "1::10::3.5::881250949")),
         movielens("ml-1m"), ValueError,
         ("malformed line 1", "{root}/ml-1m/ratings.dat",
          "field 'rating' must be in whole stars from 1 to 5 (the ml-1m scale); got 3.5")),
    Case("dat-ml-10m-half-star", ml_dat(replace_line(R_DAT, 0, "1::10::3.5::881250949"),
                                        folder="ml-10m"), movielens("ml-10m"),
         check=lambda d: d.ratings["rating"].tolist() == [3.5, 3.0, 5.0, 1.0]),
    Case("dat-unnamed-folder-half-star", ml_dat(replace_line(R_DAT, 0, "1::10::3.5::88"),
                                                folder="mine"), movielens("mine"),
         check=lambda d: d.ratings["rating"].iloc[0] == 3.5),
    Case("dat-ml-10m-rating-6", ml_dat(replace_line(R_DAT, 0, "1::10::6::881250949"),
                                       folder="ml-10m"), movielens("ml-10m"), ValueError,
         ("malformed line 1", "field 'rating' must be in half stars from 0.5 to 5 (the ml-10m "
          "scale)")),
    Case("dat-ids-2**64-1", ml_dat(replace_line(R_DAT, 0, f"{U64}::10::4::881250949")),
         movielens("ml-1m"), check=ids_are("user_id", [U64, 1, 2, 3], "uint64", "ratings")),
    Case("dat-mixed-encodings", ml_dat(movies="\n".join(M_DAT).encode("utf-8")
                                       + "\n40::Señorita (2001)::Drama\n".encode("latin-1")),
         movielens("ml-1m"), ValueError,
         ("{root}/ml-1m/movies.dat", "mixes text encodings", "line 2 is UTF-8",
          "line 4 is not valid UTF-8 (byte 0xf1)")),
    Case("dat-latin-1-only", ml_dat(movies=text(M_DAT, encoding="latin-1")),
         movielens("ml-1m"), check=lambda d: d.items["title"].tolist()[1] == "Amélie"),
    Case("dat-bom-movies", ml_dat(movies=BOM + text(M_DAT)), movielens("ml-1m"),
         check=lambda d: d.items["item_id"].tolist() == [10, 20, 30]),
    Case("dat-title-with-field-separator",
         ml_dat(movies=text(replace_line(M_DAT, 2, "30::Babylon::5::Sci-Fi"))),
         movielens("ml-1m"), ValueError,
         ("malformed line 3 in", "movies.dat", "expected 3 fields separated by '::'",
          "found 4")),
    Case("dat-duplicate-movie", ml_dat(movies=text(M_DAT + ["20::Again (2001)::Drama"])),
         movielens("ml-1m"), ValueError, ("movies.dat", "lists movie 20 more than once (lines "
                                          "2, 4)")),
    Case("dat-movie-id-not-integer", ml_dat(movies=text(replace_line(M_DAT, 0, "x::A::B"))),
         movielens("ml-1m"), ValueError,
         ("malformed line 1 in", "movies.dat", "field 'movie id' must be a positive integer")),
    # ml-100k
    Case("u-data-extra-field-every-line", ml_100k([r + "\t7" for r in R_100K]),
         movielens("ml-100k"), ValueError,
         ("malformed line 1 in", "{root}/ml-100k/u.data", "expected 4 fields", "found 5")),
    Case("u-data-comma-separated", ml_100k([r.replace("\t", ",") for r in R_100K]),
         movielens("ml-100k"), ValueError,
         ("malformed line 1 in", "u.data", "separated by '\\t', found 1")),
    Case("u-data-half-star", ml_100k(replace_line(R_100K, 1, "1\t20\t3.5\t881250950")),
         movielens("ml-100k"), ValueError,
         ("malformed line 2", "u.data", "whole stars from 1 to 5 (the ml-100k scale)")),
    Case("u-data-half-star-unnamed-folder",
         ml_100k(replace_line(R_100K, 1, "1\t20\t3.5\t881250950"), folder="mine"),
         movielens("mine"), ValueError,
         ("malformed line 2", "u.data", "whole stars from 1 to 5 (the u.data format scale)")),
    Case("u-data-rating-6", ml_100k(replace_line(R_100K, 0, "1\t10\t6\t881250949")),
         movielens("ml-100k"), ValueError, ("malformed line 1", "u.data", "field 'rating'")),
    Case("u-item-extra-field-one-line",
         ml_100k(items=text(replace_line(M_100K, 1, M_100K[1] + "|0"))),
         movielens("ml-100k"), ValueError,
         ("malformed line 2 in", "{root}/ml-100k/u.item", "expected 24 fields separated by "
          "'|', found 25")),
    Case("u-item-extra-field-every-line", ml_100k(items=text([m + "|0" for m in M_100K])),
         movielens("ml-100k"), ValueError, ("malformed line 1 in", "u.item", "found 25")),
    Case("u-item-flag-2", ml_100k(items=text(replace_line(
        M_100K, 2, item_line(30, flags="|".join(["0"] * 18 + ["2"]))))),
         movielens("ml-100k"), ValueError,
         ("malformed line 3 in", "u.item", "genre flags must each be 0 or 1")),
    Case("u-item-duplicate-id", ml_100k(items=text(M_100K + [item_line(10, "Heat 2")])),
         movielens("ml-100k"), ValueError, ("u.item", "lists movie 10 more than once")),
    Case("u-item-mixed-encodings", ml_100k(items=text(M_100K[:1] + [item_line(20, "Café")],
                                                      encoding="utf-8")
                                           + text([item_line(30, "Señor")], encoding="latin-1")),
         movielens("ml-100k"), ValueError, ("u.item", "mixes text encodings")),
]


def bomb(size: int) -> bytes:
    """A zip whose ratings.csv expands from a few hundred KB to ``size`` bytes."""
    line = b"1,10,4.0,881250949\n"
    body = text([], R_HEAD) + line * (size // len(line))
    return zipped({"ml/ratings.csv": body, "ml/movies.csv": text(M_CSV, M_HEAD)},
                  compresslevel=9)  # fmt: skip


def damaged(archive: bytes) -> bytes:
    """Flip bytes inside the first member's compressed data (the CRC then fails)."""
    data = bytearray(archive)
    start = 30 + len("ml/ratings.csv") + 10
    data[start : start + 8] = bytes(8)
    return bytes(data)


def unsupported_method(archive: bytes) -> bytes:
    """Mark every member as compressed with method 99 (AES), which zipfile cannot read."""
    data = bytearray(archive)
    for sig, offset in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):
        at = data.find(sig)
        while at >= 0:
            data[at + offset : at + offset + 2] = (99).to_bytes(2, "little")
            at = data.find(sig, at + 4)
    return bytes(data)


GOOD_ZIP = zipped(ml_csv())

ZIP_CASES = [
    Case("zip-damaged-member", {"ml.zip": damaged(GOOD_ZIP)},
         lambda r: load_movielens(r / "ml.zip"),
         CorruptArchiveError, ("{root}/ml.zip:ml/ratings.csv", "zip archive", "damaged")),
    Case("zip-truncated", {"ml.zip": GOOD_ZIP[: len(GOOD_ZIP) // 2]},
         lambda r: load_movielens(r / "ml.zip"), ValueError,
         ("'name_or_path'", "{root}/ml.zip", "not a zip archive")),
    Case("zip-bad-central-directory", {"ml.zip": b"PK\x05\x06" + bytes(10) + b"\xff" * 8
                                       + bytes(2)}, lambda r: load_movielens(r / "ml.zip"),
         CorruptArchiveError, ("{root}/ml.zip", "not a readable zip archive")),
    Case("zip-unsupported-method", {"ml.zip": unsupported_method(GOOD_ZIP)},
         lambda r: load_movielens(r / "ml.zip"), CorruptArchiveError,
         ("{root}/ml.zip", "damaged")),
    Case("zip-bom-members", {"ml.zip": zipped({"ml/ratings.csv": BOM + text(R_CSV, R_HEAD),
                                              "ml/movies.csv": BOM + text(M_CSV, M_HEAD)})},
         lambda r: load_movielens(r / "ml.zip"), check=ratings_equal(EXPECTED)),
    Case("zip-extra-field-every-line", {"ml.zip": zipped(ml_csv([r + ",1" for r in R_CSV]))},
         lambda r: load_movielens(r / "ml.zip"), ValueError,
         ("malformed line 2 in", "{root}/ml.zip:ml/ratings.csv", "found 5")),
]


def chdir_case(call: Callable[[], object]) -> Callable[[Path], object]:
    def run(root: Path) -> object:
        old = Path.cwd()
        os.chdir(root)
        try:
            return call()
        finally:
            os.chdir(old)

    return run


NAME_CASES = [
    # a folder named like a release in the working directory is not the release
    Case("name-means-release-not-folder", ml_csv(folder="ml-latest-small"),
         chdir_case(lambda: load_movielens("ml-latest-small", cache_dir="cache",
                                           download=False)),
         FileNotFoundError, ("ml-latest-small is not in the cache", "cache/ml-latest-small.zip",
                             "download=False")),
    Case("dot-slash-is-a-path", ml_csv(folder="ml-latest-small"),
         chdir_case(lambda: load_movielens("./ml-latest-small")), check=ratings_equal(EXPECTED)),
    Case("path-object-is-a-path", ml_csv(folder="ml-latest-small"),
         chdir_case(lambda: load_movielens(Path("ml-latest-small"))),
         check=ratings_equal(EXPECTED)),
    Case("miscased-name", {}, lambda r: load_movielens("ML-1M"), ValueError,
         ("'name_or_path' must be a release name", "'ML-1M'", "Did you mean the release "
          "'ml-1m'?")),
    Case("name-not-a-string", {}, lambda r: load_movielens(123), InvalidParameterError,  # type: ignore[arg-type]
         ("'name_or_path' must be a release name or a path; got int",)),
    Case("cached-archive-damaged-no-download", {"cache/ml-latest-small.zip": damaged(GOOD_ZIP)},
         lambda r: load_movielens("ml-latest-small", cache_dir=r / "cache", download=False),
         CorruptArchiveError, ("{root}/cache/ml-latest-small.zip", "damaged", "cached copy of "
                               "ml-latest-small", "download=True")),
]

# --- load_interactions, read_recommendations ------------------------------------------------

LOG = b"user_id,item_id,rating,timestamp\n1,10,4.0,100\n2,20,3.5,200\n"
LOG_FRAME = pd.DataFrame({"user_id": [1, 2], "item_id": [10, 20], "rating": [4.0, 3.5],
                          "timestamp": [100, 200]})  # fmt: skip


def frame_equal(expected: pd.DataFrame) -> Callable[[object], None]:
    return lambda result: pd.testing.assert_frame_equal(result, expected)  # type: ignore[arg-type]


def log_cases(func: str, call: Callable[[str], Callable[[Path], object]]) -> list[Case]:
    """Cases shared by load_interactions and read_recommendations (same reader)."""
    li = func == "load_interactions"
    head = b"user_id,item_id,rating,timestamp" if li else b"user_id,item_id,score,rank"
    body = head + b"\n1,10,4.0,1\n2,20,3.5,1\n"
    where = f"{func}: 'path' file '{{root}}/"
    return [
        Case(f"{func}-bom-csv", {"log.csv": BOM + body}, call("log.csv"),
             check=lambda f: list(f.columns)[:2] == ["user_id", "item_id"], func=func),
        Case(f"{func}-bom-tsv", {"log.tsv": BOM + body.replace(b",", b"\t")}, call("log.tsv"),
             check=lambda f: f["item_id"].tolist() == [10, 20], func=func),
        Case(f"{func}-comma-tsv", {"log.tsv": body}, call("log.tsv"), ValueError,
             (where + "log.tsv'", "single column", "tab-separated TSV",
              "looks comma-separated"), func=func),
        Case(f"{func}-tab-csv", {"log.csv": body.replace(b",", b"\t")}, call("log.csv"),
             ValueError, (where + "log.csv'", "looks tab-separated"), func=func),
        Case(f"{func}-semicolon-csv", {"log.csv": body.replace(b",", b";")}, call("log.csv"),
             ValueError, (where + "log.csv'", "looks semicolon-separated"), func=func),
        Case(f"{func}-empty-csv", {"log.csv": b""}, call("log.csv"), ValueError,
             (where + "log.csv'", "is empty"), func=func),
        Case(f"{func}-empty-gzip", {"log.csv.gz": gzip.compress(b"")}, call("log.csv.gz"),
             ValueError, (where + "log.csv.gz'", "is empty"), func=func),
        Case(f"{func}-fake-gzip", {"log.csv.gz": body}, call("log.csv.gz"), ValueError,
             (where + "log.csv.gz'", "is not valid gzip data"), func=func),
        Case(f"{func}-truncated-gzip", {"log.csv.gz": gzip.compress(body * 50)[:-12]},
             call("log.csv.gz"), ValueError, (where + "log.csv.gz'", "is not valid gzip data"),
             func=func),
        Case(f"{func}-fake-bz2", {"log.csv.bz2": body}, call("log.csv.bz2"), ValueError,
             (where + "log.csv.bz2'", "is not valid bzip2 data"), func=func),
        Case(f"{func}-fake-xz", {"log.csv.xz": body}, call("log.csv.xz"), ValueError,
             (where + "log.csv.xz'", "is not valid xz data"), func=func),
        Case(f"{func}-fake-zip", {"log.csv.zip": body}, call("log.csv.zip"), ValueError,
             (where + "log.csv.zip'", "is not valid zip data"), func=func),
        Case(f"{func}-real-gzip", {"log.csv.gz": gzip.compress(body)}, call("log.csv.gz"),
             check=lambda f: len(f) == 2, func=func),
        Case(f"{func}-real-bz2-and-xz", {"log.tsv.bz2": bz2.compress(body.replace(b",", b"\t")),
                                         "log.csv.xz": lzma.compress(body)},
             call("log.tsv.bz2"), check=lambda f: len(f) == 2, func=func),
        Case(f"{func}-garbage-parquet", {"log.parquet": b"not parquet at all" * 10},
             call("log.parquet"), ValueError,
             (where + "log.parquet'", "could not be read as Parquet"), func=func),
        Case(f"{func}-empty-parquet", {"log.pq": b""}, call("log.pq"), ValueError,
             (where + "log.pq'", "could not be read as Parquet"), func=func),
        Case(f"{func}-parquet-named-csv", {"log.csv": frame_bytes(LOG_FRAME)}, call("log.csv"),
             ValueError, (where + "log.csv'", "is not UTF-8 text"), func=func),
        Case(f"{func}-latin-1-csv", {"log.csv": head + b",tag\n1,10,4,1,caf\xe9\n"},
             call("log.csv"), ValueError, (where + "log.csv'", "is not UTF-8 text",
                                           "byte 0xe9"), func=func),
        Case(f"{func}-duplicate-header", {"log.csv": b"user_id,item_id,item_id,"
                                          + head.split(b",", 2)[2] + b"\n1,10,11,4,1\n"},
             call("log.csv"), ValueError,
             (where + "log.csv'", "has the column 'item_id' twice (columns 2 and 3)"),
             func=func),
        Case(f"{func}-duplicate-header-parquet",
             {"log.parquet": parquet(pa.table([[1], [10], [11], [1.0], [1]],
                                              names=["user_id", "item_id", "item_id",
                                                     head.decode().split(",")[2],
                                                     head.decode().split(",")[3]]))},
             call("log.parquet"), ValueError,
             (where + "log.parquet'", "has the column 'item_id' twice"), func=func),
        Case(f"{func}-alias-and-canonical", {"log.csv": b"user_id,movieId,item_id,"
                                             + head.split(b",", 2)[2] + b"\n1,10,11,4,1\n"},
             call("log.csv"), ValueError,
             (f"{func}: several columns (movieId, item_id) stand for item_id",), func=func),
        Case(f"{func}-uint64-ids", {"log.csv": head + f"\n{U64},{U63},4,1\n1,2,3,2\n".encode()},
             call("log.csv"), check=lambda f: (ids_are("user_id", [U64, 1], "uint64")(f),
                                                ids_are("item_id", [U63, 2], "uint64")(f))
             and None, func=func),
        Case(f"{func}-uint64-parquet", {"log.parquet": parquet(pa.table(
            {"user_id": pa.array([U64, 1], pa.uint64()), "item_id": pa.array([5, 6], pa.uint64()),
             head.decode().split(",")[2]: [1.0, 2.0], head.decode().split(",")[3]: [1, 2]}))},
             call("log.parquet"), check=lambda f: (ids_are("user_id", [U64, 1], "uint64")(f),
                                                    ids_are("item_id", [5, 6], "int64")(f))
             and None, func=func),
        Case(f"{func}-ids-beyond-64-bits", {"log.csv": head + f"\n{2**64},1,4,1\n".encode()},
             call("log.csv"), ValueError,
             (where + "log.csv'", "column 'user_id' holds integer ids outside the 64-bit range",
              str(2**64)), func=func),
        Case(f"{func}-ids-negative-and-huge", {"log.csv": head + f"\n-1,1,4,1\n{U64},1,4,2\n"
                                               .encode()}, call("log.csv"), ValueError,
             (where + "log.csv'", "'user_id' holds integer ids outside the 64-bit range"),
             func=func),
        Case(f"{func}-missing-file", {}, call("absent.csv"), ValueError,
             (f"{func}: 'path' must be an existing file", "absent.csv"), func=func),
        Case(f"{func}-directory", {"dir.csv/x": b""}, call("dir.csv"), ValueError,
             (f"{func}: 'path' must be an existing file", "dir.csv"), func=func),
    ]


TS = b"user_id,item_id,timestamp\n"
INTERACTION_CASES = log_cases("load_interactions", interactions) + [
    Case("timestamp-1e30", {"t.csv": TS + b"1,2,1e30\n"}, interactions("t.csv"), ValueError,
         ("load_interactions: column 'timestamp'", "beyond the int64 range", "1e+30"),
         func="load_interactions"),
    Case("timestamp-inf", {"t.csv": TS + b"1,2,5\n1,3,inf\n"}, interactions("t.csv"),
         ValueError, ("column 'timestamp'", "1 value(s) are infinite", "row 1"),
         func="load_interactions"),
    Case("timestamp-minus-inf", {"t.csv": TS + b"1,2,-inf\n"}, interactions("t.csv"),
         ValueError, ("column 'timestamp'", "infinite"), func="load_interactions"),
    Case("timestamp-2**63", {"t.csv": TS + f"1,2,{U63}\n".encode()}, interactions("t.csv"),
         ValueError, ("column 'timestamp'", "beyond the int64 range"), func="load_interactions"),
    Case("timestamp-fraction", {"t.csv": TS + b"1,2,1.5\n"}, interactions("t.csv"), ValueError,
         ("column 'timestamp'", "not whole seconds"), func="load_interactions"),
    Case("timestamp-missing", {"t.csv": TS + b"1,2,\n1,3,4\n"}, interactions("t.csv"),
         ValueError, ("column 'timestamp'", "missing or not numeric", "row 0"),
         func="load_interactions"),
    Case("timestamp-text", {"t.csv": TS + b"1,2,yesterday\n"}, interactions("t.csv"),
         ValueError, ("column 'timestamp'", "missing or not numeric", "'yesterday'"),
         func="load_interactions"),
    Case("timestamp-parquet-1e30", {"t.parquet": frame_bytes(pd.DataFrame(
        {"user_id": [1], "item_id": [2], "timestamp": [1e30]}))}, interactions("t.parquet"),
         ValueError, ("column 'timestamp'", "beyond the int64 range"), func="load_interactions"),
    Case("timestamp-int64-max-kept", {"t.csv": TS + f"1,2,{2**63 - 1}\n".encode()},
         interactions("t.csv"),
         check=lambda f: f["timestamp"].tolist() == [2**63 - 1], func="load_interactions"),
    Case("literal-dotted-name-kept", {"t.csv": b"user_id,item_id,item_id.1\n1,2,3\n"},
         interactions("t.csv"), check=lambda f: list(f.columns) == ["user_id", "item_id",
                                                                    "item_id.1"],
         func="load_interactions"),
    Case("plain-log", {"log.csv": LOG}, interactions("log.csv"), check=frame_equal(LOG_FRAME),
         func="load_interactions"),
]
RECS_CASES = log_cases("read_recommendations", recs)

CASES = ML_CASES + ZIP_CASES + NAME_CASES + INTERACTION_CASES + RECS_CASES


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {
        p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def write(root: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_input(case: Case, tmp_path: Path) -> None:
    write(tmp_path, case.files)
    before = snapshot(tmp_path)
    if case.error is None:
        result = case.call(tmp_path)
        assert case.check is not None
        outcome = case.check(result)  # a check asserts (None) or returns a bool
        assert outcome is None or bool(outcome) is True
    else:
        with pytest.raises(case.error) as info:
            case.call(tmp_path)
        assert type(info.value) is case.error  # the exact type, not a subclass
        message = str(info.value)
        assert message.startswith(f"{case.func}: "), message
        for fragment in case.says:
            assert fragment.format(root=tmp_path) in message, (fragment, message)
        assert "Traceback" not in message
    assert snapshot(tmp_path) == before  # no pre-existing file changed, none added


def test_there_are_enough_cases() -> None:
    assert len(CASES) >= 80
    assert len({c.id for c in CASES}) == len(CASES)


# --- resources: zip bombs -------------------------------------------------------------------

BOMB = bomb(120 * 2**20)  # 120 MB of ratings in a few hundred KB


def test_zip_bomb_is_refused_without_inflating(tmp_path: Path) -> None:
    assert len(BOMB) < 400_000
    (tmp_path / "bomb.zip").write_bytes(BOMB)
    tracemalloc.start()
    try:
        with pytest.raises(ValueError) as info:
            load_movielens(tmp_path / "bomb.zip")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    message = str(info.value)
    assert message.startswith("load_movielens: ")
    assert f"{tmp_path / 'bomb.zip'}:ml/ratings.csv" in message
    assert "likely zip bomb" in message and "MAX_MEMBER_RATIO" in message
    assert peak < 40 * 2**20  # far below the 120 MB the member would expand to


def test_member_cap_is_a_patchable_constant(tmp_path: Path, monkeypatch) -> None:
    archive = tmp_path / "ml.zip"
    archive.write_bytes(GOOD_ZIP)
    assert load_movielens(archive).ratings.shape == (4, 4)
    monkeypatch.setattr(_archive, "MAX_MEMBER_BYTES", 50)
    with pytest.raises(ValueError, match=r"ml\.zip:ml/ratings\.csv' declares \d+ bytes"):
        load_movielens(archive)


def test_member_lying_about_its_size_is_capped_while_streaming(
    tmp_path: Path, monkeypatch
) -> None:
    """A member whose header understates its size is stopped by the running count (zipfile
    itself also stops at the declared size and then fails the CRC)."""
    archive = tmp_path / "ml.zip"
    archive.write_bytes(GOOD_ZIP)
    monkeypatch.setattr(_archive, "member_limit", lambda compressed: 10**6)
    real_open = zipfile.ZipFile.open

    def chunky_open(self, info, *args, **kw):  # type: ignore[no-untyped-def]
        stream = real_open(self, info, *args, **kw)
        if getattr(info, "filename", info) == "ml/ratings.csv":
            stream.read = lambda n=-1: b"1,10,4.0,1\n" * 20_000  # endless data
        return stream

    monkeypatch.setattr(zipfile.ZipFile, "open", chunky_open)
    with pytest.raises(ValueError, match=r"expands past 1000000 bytes"):
        load_movielens(archive)


# --- resources: downloads -------------------------------------------------------------------


def _md5(data: bytes) -> str:
    return hashlib.md5(data).hexdigest()  # noqa: S324


class SlowServer:
    """path -> (body, seconds between chunks, chunk size, drip the headers too)."""

    def __init__(self) -> None:
        self.routes: dict[str, tuple[bytes, float, int, bool]] = {}
        self.requests: list[str] = []
        self.stop = threading.Event()
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                server.requests.append(self.path)
                body, delay, size, slow_headers = server.routes.get(
                    self.path, (b"not found", 0.0, 1 << 20, False))
                head = (f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\n"
                        "Connection: close\r\n\r\n").encode()  # fmt: skip
                with contextlib.suppress(OSError):
                    for data in ([head[i : i + 1] for i in range(len(head))] if slow_headers
                                 else [head]):  # fmt: skip
                        self.wfile.write(data)
                        self.wfile.flush()
                        if slow_headers and server.stop.wait(delay):
                            return
                    for at in range(0, len(body), size):
                        self.wfile.write(body[at : at + size])
                        self.wfile.flush()
                        if delay and server.stop.wait(delay):
                            return

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True)

    def add(self, name: str, body: bytes, *, delay: float = 0.0, size: int = 1 << 20,
            slow_headers: bool = False, md5: str | None = None) -> None:  # fmt: skip
        self.routes[f"/{name}.zip"] = (body, delay, size, slow_headers)
        self.routes[f"/{name}.zip.md5"] = ((md5 or _md5(body)).encode(), 0.0, 1 << 20, False)


@pytest.fixture
def slow() -> Iterator[SlowServer]:
    srv = SlowServer()
    srv.thread.start()
    try:
        yield srv
    finally:
        srv.stop.set()
        srv.httpd.shutdown()
        srv.httpd.server_close()


def _download(srv: SlowServer, root: Path, **kw: object) -> tuple[BaseException | Path, float]:
    start = time.monotonic()
    try:
        result: BaseException | Path = download_movielens(
            "ml-latest-small", cache_dir=root, base_url=srv.url, progress=False, **kw
        )
    except BaseException as exc:  # noqa: BLE001 - returned to the test
        result = exc
    return result, time.monotonic() - start


def test_slow_drip_stalls(slow: SlowServer, tmp_path: Path) -> None:
    # one byte every 0.05 s: every read returns well within the 5 s per-read timeout
    slow.add("ml-latest-small", GOOD_ZIP, delay=0.05, size=1)
    result, elapsed = _download(slow, tmp_path, timeout=5, stall_timeout=1.0)
    assert isinstance(result, DownloadError), result
    message = str(result)
    assert message.startswith("download_movielens: the transfer of ")
    assert "stalled" in message and "stall_timeout=1" in message
    assert elapsed < 4
    assert list(tmp_path.iterdir()) == []


def test_total_time_bound(slow: SlowServer, tmp_path: Path) -> None:
    # 2 KB every 0.05 s never stalls, but the whole archive would take far longer than 1 s
    slow.add("ml-latest-small", GOOD_ZIP * 400, delay=0.05, size=2048)
    result, elapsed = _download(slow, tmp_path, timeout=5, stall_timeout=30, max_time=1.0)
    assert isinstance(result, DownloadError), result
    assert "took longer than max_time=1 seconds" in str(result)
    assert elapsed < 3
    assert list(tmp_path.iterdir()) == []


def test_dripping_headers_are_bounded(slow: SlowServer, tmp_path: Path) -> None:
    slow.add("ml-latest-small", GOOD_ZIP, delay=0.1, slow_headers=True)
    result, elapsed = _download(slow, tmp_path, timeout=5, stall_timeout=30, max_time=1.0)
    assert isinstance(result, DownloadError), result
    assert "max_time=1" in str(result)
    assert elapsed < 3
    assert list(tmp_path.iterdir()) == []


def test_dripping_checksum_is_bounded(slow: SlowServer, tmp_path: Path) -> None:
    slow.add("ml-latest-small", GOOD_ZIP)
    slow.routes["/ml-latest-small.zip.md5"] = (_md5(GOOD_ZIP).encode() * 100, 0.05, 1, False)
    result, elapsed = _download(slow, tmp_path, timeout=5, stall_timeout=30, max_time=1.0)
    assert isinstance(result, DownloadError), result
    assert "max_time=1" in str(result) and "checksum" in str(result)
    assert elapsed < 3


@pytest.mark.parametrize(("arg", "value"), [("timeout", 0), ("stall_timeout", -1.0),
                                            ("max_time", float("nan")), ("timeout", "5")])
def test_bad_time_bounds(tmp_path: Path, arg: str, value: object) -> None:
    with pytest.raises(ValueError, match=rf"download_movielens: '{arg}' must be a positive"):
        download_movielens("ml-1m", cache_dir=tmp_path, **{arg: value})  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []


def test_damaged_cached_archive_is_fetched_again(slow: SlowServer, tmp_path: Path,
                                                 monkeypatch) -> None:  # fmt: skip
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "ml-latest-small.zip").write_bytes(damaged(GOOD_ZIP))
    slow.add("ml-latest-small", GOOD_ZIP)
    monkeypatch.setattr("evalkit.data.movielens.download_movielens",
                        _local_download(slow.url))  # fmt: skip
    data = load_movielens("ml-latest-small", cache_dir=cache)
    pd.testing.assert_frame_equal(data.ratings, EXPECTED)
    assert (cache / "ml-latest-small.zip").read_bytes() == GOOD_ZIP
    assert slow.requests == ["/ml-latest-small.zip.md5", "/ml-latest-small.zip"]
    assert sorted(p.name for p in cache.iterdir()) == ["ml-latest-small.zip"]


def test_damaged_archive_matching_its_checksum_fails_once(slow: SlowServer, tmp_path: Path,
                                                          monkeypatch) -> None:  # fmt: skip
    bad = damaged(GOOD_ZIP)
    (tmp_path / "ml-latest-small.zip").write_bytes(bad)
    slow.add("ml-latest-small", bad)  # the published archive itself is damaged
    monkeypatch.setattr("evalkit.data.movielens.download_movielens",
                        _local_download(slow.url))  # fmt: skip
    with pytest.raises(CorruptArchiveError, match="damaged"):
        load_movielens("ml-latest-small", cache_dir=tmp_path)
    assert slow.requests == ["/ml-latest-small.zip.md5"]  # verified, not downloaded again
    assert (tmp_path / "ml-latest-small.zip").read_bytes() == bad


def test_verify_keeps_a_good_cached_archive(slow: SlowServer, tmp_path: Path) -> None:
    (tmp_path / "ml-latest-small.zip").write_bytes(GOOD_ZIP)
    slow.add("ml-latest-small", GOOD_ZIP)
    result, _ = _download(slow, tmp_path, verify=True)
    assert result == tmp_path / "ml-latest-small.zip"
    assert slow.requests == ["/ml-latest-small.zip.md5"]


def _local_download(url: str):  # type: ignore[no-untyped-def]
    def call(name: str, **kw: object) -> Path:
        return download_movielens(name, base_url=url, progress=False, timeout=5, **kw)

    return call


# --- frames from other libraries ------------------------------------------------------------


class ToPandas:
    """Any object with ``to_pandas()`` (as polars and pyarrow have)."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame

    def to_pandas(self) -> pd.DataFrame:
        return self.frame.copy()


def _polars_frame() -> object:
    polars = pytest.importorskip("polars")
    return polars.from_pandas(LOG_FRAME)


@pytest.mark.parametrize(
    "make",
    [lambda: pa.Table.from_pandas(LOG_FRAME, preserve_index=False), lambda: ToPandas(LOG_FRAME),
     _polars_frame],
    ids=["pyarrow-table", "to_pandas-object", "polars"],
)
def test_fingerprint_accepts_other_frames(make: Callable[[], object]) -> None:
    assert fingerprint(make()) == fingerprint(LOG_FRAME)  # type: ignore[arg-type]


def test_fingerprint_refuses_a_list() -> None:
    with pytest.raises(TypeError, match="fingerprint: 'ratings' must be a pandas DataFrame"):
        fingerprint([[1, 2]])  # type: ignore[arg-type]


# --- real data ------------------------------------------------------------------------------


def test_real_ml_latest_small_loads_exactly(ml_latest_small_dir: Path) -> None:
    before = {p.name: p.stat().st_mtime_ns for p in ml_latest_small_dir.iterdir()}
    data = load_movielens(ml_latest_small_dir)
    raw = pd.read_csv(ml_latest_small_dir / "ratings.csv")
    expected = raw.set_axis(["user_id", "item_id", "rating", "timestamp"], axis=1)
    pd.testing.assert_frame_equal(data.ratings, expected)
    movies = pd.read_csv(ml_latest_small_dir / "movies.csv")
    np.testing.assert_array_equal(data.items["item_id"].to_numpy(), movies["movieId"].to_numpy())
    assert {p.name: p.stat().st_mtime_ns for p in ml_latest_small_dir.iterdir()} == before


# -- ids that differ only in format --------------------------------------------------------------

def test_ids_that_match_only_after_normalization_are_reported() -> None:
    import evalkit as ek

    truth = pd.DataFrame({"user_id": ["10", "11", "12"], "item_id": ["a1", "b2", "c3"],
                          "rating": 5.0})
    padded = pd.DataFrame({"user_id": ["0010", "0011", "12"], "item_id": ["a1", "b2", "c3"],
                           "rank": 1})
    with pytest.warns(UserWarning, match=r"2 'user_id' value\(s\) of 'recs' match 'truth' only "
                                         r"after removing spaces, case or leading zeros"):
        ek.evaluate(truth, padded, k=1, n_resamples=0)
    upper = pd.DataFrame({"user_id": ["10", "11", "12"], "item_id": ["A1", "B2", "c3"],
                          "rank": 1})
    with pytest.warns(UserWarning, match=r"'item_id' value\(s\).*e.g. 'A1'"):
        ek.metrics.precision_at_k(truth, upper, k=1)
    # identical ids, or items that simply are not test items: no warning
    other = pd.DataFrame({"user_id": ["10", "11", "12"], "item_id": ["a1", "zz", "C3"],
                          "rank": 1})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ek.evaluate(truth, other, k=1, n_resamples=0)
