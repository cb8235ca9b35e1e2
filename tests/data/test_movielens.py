"""Reading the three MovieLens formats from directories and zip archives."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalkit.data import MOVIELENS_NAMES, Dataset, fingerprint, load_movielens

# Four ratings shared by every fixture, as (user, item, rating, timestamp).
RATINGS = [(1, 10, 4.0, 881250949), (1, 20, 3.0, 881250950), (2, 10, 5.0, 891717742),
           (3, 30, 1.0, 878887116)]  # fmt: skip


def _expected_ratings() -> pd.DataFrame:
    frame = pd.DataFrame(RATINGS, columns=["user_id", "item_id", "rating", "timestamp"])
    return frame.astype({"user_id": "int64", "item_id": "int64", "rating": "float64",
                         "timestamp": "int64"})  # fmt: skip


def write_ml100k(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    lines = [f"{u}\t{i}\t{int(r)}\t{t}" for u, i, r, t in RATINGS]
    (folder / "u.data").write_text("\n".join(lines) + "\n")
    flags = {
        10: [0, 1, 1] + [0] * 16,  # Action, Adventure
        20: [0] * 4 + [1, 1] + [0] * 13,  # Children's, Comedy
        30: [1] + [0] * 18,  # unknown
    }
    rows = [
        "10|Café Society (1995)|01-Jan-1995||http://x|",
        "20|Toy Story (1995)|01-Jan-1995||http://y|",
        "30|unknown|01-Jan-1997||http://z|",
    ]
    text = "\n".join(row + "|".join(map(str, flags[int(row.split("|")[0])])) for row in rows)
    (folder / "u.item").write_bytes((text + "\n").encode("latin-1"))
    return folder


def write_dat(folder: Path, encoding: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    lines = [f"{u}::{i}::{int(r)}::{t}" for u, i, r, t in RATINGS]
    (folder / "ratings.dat").write_text("\n".join(lines) + "\n")
    movies = [
        "10::Amélie (Fabuleux destin d'Amélie Poulain, Le) (2001)::Comedy|Romance",
        "20::Star Wars: Episode IV - A New Hope (1977)::Action|Adventure|Sci-Fi",
        "30::Señorita Extraviada (2001)::(no genres listed)",
    ]
    (folder / "movies.dat").write_bytes(("\n".join(movies) + "\n").encode(encoding))
    return folder


def write_csv(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    lines = ["userId,movieId,rating,timestamp"] + [f"{u},{i},{r},{t}" for u, i, r, t in RATINGS]
    (folder / "ratings.csv").write_bytes(("\r\n".join(lines) + "\r\n").encode())
    movies = [
        "movieId,title,genres",
        '10,"Good, the Bad and the Ugly, The (Buono, il brutto, il cattivo, Il) (1966)",'
        "Action|Adventure|Western",
        "20,Death Note: Desu nôto (2006–2007),(no genres listed)",
        "30,Babylon 5,Sci-Fi",
    ]
    (folder / "movies.csv").write_bytes(("\r\n".join(movies) + "\r\n").encode("utf-8"))
    return folder


def zip_folder(folder: Path, archive: Path, top: str | None) -> Path:
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as out:
        for file in sorted(folder.iterdir()):
            out.write(file, f"{top}/{file.name}" if top else file.name)
        if top:
            out.writestr("__MACOSX/._ratings.csv", b"\x00junk")
    return archive


def items_by_id(data: Dataset) -> dict[int, tuple[str, object, list[str]]]:
    items = data.items
    return {
        int(i): (t, None if pd.isna(y) else int(y), g)
        for i, t, y, g in zip(items["item_id"], items["title"], items["year"], items["genres"])
    }


def check_canonical(data: Dataset) -> None:
    assert list(data.ratings.columns) == ["user_id", "item_id", "rating", "timestamp"]
    assert list(data.ratings.dtypes.astype(str)) == ["int64", "int64", "float64", "int64"]
    assert list(data.items.columns) == ["item_id", "title", "year", "genres"]
    assert data.items["item_id"].dtype == np.int64
    assert str(data.items["year"].dtype) == "Int64"
    assert all(isinstance(g, list) for g in data.items["genres"])


def test_ml100k_directory(tmp_path: Path) -> None:
    data = load_movielens(write_ml100k(tmp_path / "ml-100k"))
    check_canonical(data)
    pd.testing.assert_frame_equal(data.ratings, _expected_ratings())
    assert data.name == "ml-100k"
    assert items_by_id(data) == {
        10: ("Café Society", 1995, ["Action", "Adventure"]),
        20: ("Toy Story", 1995, ["Children's", "Comedy"]),
        30: ("unknown", 1997, []),  # no year in the title: taken from the release date
    }


@pytest.mark.parametrize("encoding", ["latin-1", "utf-8"])
def test_dat_format_in_either_encoding(tmp_path: Path, encoding: str) -> None:
    data = load_movielens(write_dat(tmp_path / "ml-1m", encoding))
    check_canonical(data)
    pd.testing.assert_frame_equal(data.ratings, _expected_ratings())
    assert items_by_id(data) == {
        10: ("Amélie (Fabuleux destin d'Amélie Poulain, Le)", 2001, ["Comedy", "Romance"]),
        20: ("Star Wars: Episode IV - A New Hope", 1977, ["Action", "Adventure", "Sci-Fi"]),
        30: ("Señorita Extraviada", 2001, []),
    }


def test_csv_format_with_crlf_and_quoted_commas(tmp_path: Path) -> None:
    data = load_movielens(write_csv(tmp_path / "ml-latest-small"))
    check_canonical(data)
    pd.testing.assert_frame_equal(data.ratings, _expected_ratings())
    assert items_by_id(data) == {
        10: (
            "Good, the Bad and the Ugly, The (Buono, il brutto, il cattivo, Il)",
            1966,
            ["Action", "Adventure", "Western"],
        ),
        20: ("Death Note: Desu nôto", 2006, []),
        30: ("Babylon 5", None, ["Sci-Fi"]),
    }


@pytest.mark.parametrize("top", ["ml-test", None])
@pytest.mark.parametrize("writer", ["100k", "dat", "csv"])
def test_zip_archives_match_directories(tmp_path: Path, top: str | None, writer: str) -> None:
    folder = tmp_path / "src"
    {"100k": write_ml100k, "dat": lambda f: write_dat(f, "latin-1"), "csv": write_csv}[writer](
        folder
    )
    archive = zip_folder(folder, tmp_path / "release.zip", top)
    from_zip = load_movielens(archive)
    from_dir = load_movielens(folder)
    pd.testing.assert_frame_equal(from_zip.ratings, from_dir.ratings)
    pd.testing.assert_frame_equal(from_zip.items, from_dir.items)
    assert from_zip.name == (top or "release")


def test_directory_with_release_in_subfolder(tmp_path: Path) -> None:
    write_csv(tmp_path / "download" / "ml-latest-small")
    data = load_movielens(tmp_path / "download")
    assert data.name == "ml-latest-small"
    assert len(data.ratings) == len(RATINGS)


def test_several_releases_are_ambiguous(tmp_path: Path) -> None:
    write_csv(tmp_path / "ml-latest-small")
    write_ml100k(tmp_path / "ml-100k")
    with pytest.raises(ValueError, match="holds several releases"):
        load_movielens(tmp_path)
    assert load_movielens(tmp_path / "ml-100k").name == "ml-100k"


def test_real_ml_latest_small(ml_latest_small_dir: Path) -> None:
    data = load_movielens(ml_latest_small_dir)
    check_canonical(data)
    ratings, items = data.ratings, data.items
    assert len(ratings) == 100_836
    assert ratings["user_id"].nunique() == 610
    assert len(items) == 9_742
    assert ratings["rating"].mean() == pytest.approx(3.501557, abs=1e-6)
    # Independent read with the csv module's defaults.
    raw = pd.read_csv(ml_latest_small_dir / "movies.csv")
    no_genres = (raw["genres"] == "(no genres listed)").to_numpy()
    lengths = items["genres"].str.len().to_numpy()
    assert no_genres.sum() == 34
    assert (lengths[no_genres] == 0).all()
    pipes = raw["genres"].str.count(r"\|").to_numpy()
    np.testing.assert_array_equal(lengths[~no_genres], pipes[~no_genres] + 1)
    toy = items.loc[items["item_id"] == 1].iloc[0]
    assert (toy["title"], toy["year"]) == ("Toy Story", 1995)
    assert toy["genres"] == ["Adventure", "Animation", "Children", "Comedy", "Fantasy"]
    assert not items["title"].str.contains(r"\(\d{4}\)\s*$").any()
    assert items["year"].isna().sum() == 12  # titles that carry no year at all
    assert ratings["timestamp"].min() == 828124615


def test_unknown_name_lists_valid_ones() -> None:
    with pytest.raises(ValueError) as err:
        load_movielens("ml-2m")
    for name in MOVIELENS_NAMES:
        assert name in str(err.value)


def test_path_without_ratings_file(tmp_path: Path) -> None:
    (tmp_path / "README.txt").write_text("nothing here")
    with pytest.raises(ValueError, match=r"no ratings file in .*expected one of u\.data, "
                       r"ratings\.dat, ratings\.csv\."):  # fmt: skip
        load_movielens(tmp_path)


def test_missing_item_file(tmp_path: Path) -> None:
    folder = write_csv(tmp_path / "ml")
    (folder / "movies.csv").unlink()
    with pytest.raises(ValueError, match=r"movies\.csv"):
        load_movielens(folder)


def test_non_zip_file_is_rejected(tmp_path: Path) -> None:
    file = tmp_path / "ratings.csv"
    file.write_text("userId,movieId,rating,timestamp\n")
    with pytest.raises(ValueError, match="not a zip archive"):
        load_movielens(file)


CORRUPT = [
    # (format, line content, line number, fragment of the message)
    ("csv", "1,10,4.0", 3, "expected 4 fields separated by ',', found 3"),
    ("csv", "1,10,4.0,5,7", 3, "found 5"),
    ("csv", "1,10,four,881250950", 3, "field 'rating' must be a number; got 'four'"),
    ("csv", "1,ten,4.0,881250950", 3, "field 'item_id' must be an integer"),
    ("csv", "1,10,,881250950", 3, "field 'rating'"),
    ("dat", "1::10:4::881250950", 2, "found 3"),
    ("dat", "1::10::x::881250950", 2, "field 'rating' must be a number; got 'x'"),
    ("100k", "1\t10\t4", 2, "expected 4 fields"),
    ("100k", "1\t10.5\t4\t881250950", 2, "field 'item_id' must be an integer; got '10.5'"),
]


@pytest.mark.parametrize(("kind", "bad", "line_no", "fragment"), CORRUPT)
def test_corrupt_ratings_name_file_and_line(
    tmp_path: Path, kind: str, bad: str, line_no: int, fragment: str
) -> None:
    folder = {"csv": write_csv, "dat": lambda f: write_dat(f, "utf-8"), "100k": write_ml100k}[
        kind
    ](tmp_path / "ml")
    name = {"csv": "ratings.csv", "dat": "ratings.dat", "100k": "u.data"}[kind]
    lines = (folder / name).read_text().splitlines()
    lines[line_no - 1] = bad
    (folder / name).write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError) as err:
        load_movielens(folder)
    message = str(err.value)
    assert message.startswith("load_movielens: malformed line")
    assert f"line {line_no} " in message
    assert str(folder / name) in message
    assert fragment in message


def test_corrupt_line_inside_zip_is_named(tmp_path: Path) -> None:
    folder = write_csv(tmp_path / "src")
    with (folder / "ratings.csv").open("a") as out:
        out.write("4,40,3.5,abc\n")
    archive = zip_folder(folder, tmp_path / "ml.zip", "ml")
    with pytest.raises(ValueError, match=r"malformed line 6 in '.*ml\.zip:ml/ratings\.csv'"):
        load_movielens(archive)


def test_line_numbers_count_blank_lines_and_odd_characters(tmp_path: Path) -> None:
    folder = write_dat(tmp_path / "ml", "latin-1")
    movies = (folder / "movies.dat").read_bytes().replace(b"Le)", b"Le\x85)")
    (folder / "movies.dat").write_bytes(b"\n" + movies + b"40::No genres field\n")
    with pytest.raises(ValueError, match=r"malformed line 5 in .*movies\.dat"):
        load_movielens(folder)
    (folder / "movies.dat").write_bytes(b"\n" + movies)
    items = load_movielens(folder).items
    assert items["title"].tolist()[0] == "Amélie (Fabuleux destin d'Amélie Poulain, Le\x85)"


def test_wrong_csv_header(tmp_path: Path) -> None:
    folder = write_csv(tmp_path / "ml")
    text = (folder / "ratings.csv").read_text().replace("userId,movieId", "user,item")
    (folder / "ratings.csv").write_text(text)
    with pytest.raises(ValueError, match="must start with the header"):
        load_movielens(folder)


def test_download_false_says_where_it_looked(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as err:
        load_movielens("ml-100k", cache_dir=tmp_path, download=False)
    assert str(tmp_path / "ml-100k.zip") in str(err.value)
    assert list(tmp_path.iterdir()) == []


def test_named_release_is_read_from_cache(tmp_path: Path) -> None:
    folder = write_dat(tmp_path / "src", "latin-1")
    (tmp_path / "cache").mkdir()
    zip_folder(folder, tmp_path / "cache" / "ml-1m.zip", "ml-1m")
    data = load_movielens("ml-1m", cache_dir=tmp_path / "cache", download=False)
    assert data.name == "ml-1m"
    pd.testing.assert_frame_equal(data.ratings, _expected_ratings())


def test_files_are_unchanged(tmp_path: Path) -> None:
    folder = write_csv(tmp_path / "ml")
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    load_movielens(folder)
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


def test_fingerprint_of_loaded_ratings_is_format_independent(tmp_path: Path) -> None:
    prints = [
        fingerprint(load_movielens(writer(tmp_path / name)).ratings)
        for name, writer in [
            ("a", write_ml100k),
            ("b", lambda f: write_dat(f, "latin-1")),
            ("c", write_csv),
        ]
    ]
    assert prints[0] == prints[1] == prints[2]
    assert prints[0]["rows"] == 4 and prints[0]["users"] == 3 and prints[0]["items"] == 3


def test_user_attributes_are_read_where_the_release_has_them(tmp_path: Path) -> None:
    hundred = write_ml100k(tmp_path / "ml-100k")
    (hundred / "u.user").write_text("1|24|M|technician|85711\n2|53|F|other|94043\n"
                                    "3|23|M|writer|32067\n")
    users = load_movielens(hundred).users
    assert list(users.columns) == ["user_id", "gender", "age", "occupation", "zip"]
    assert users["user_id"].tolist() == [1, 2, 3] and users["age"].tolist() == [24, 53, 23]
    assert users["gender"].tolist() == ["M", "F", "M"]
    one_m = write_dat(tmp_path / "ml-1m", "latin-1")
    (one_m / "users.dat").write_text("1::F::1::10::48067\n2::M::56::16::70072\n"
                                     "3::M::25::15::55117\n")
    users = load_movielens(one_m).users
    assert users["age"].tolist() == ["Under 18", "56+", "25-34"]
    assert users["occupation"].tolist() == ["K-12 student", "self-employed", "scientist"]
    assert load_movielens(write_csv(tmp_path / "csv")).users is None
    (hundred / "u.user").write_text("1|24|M|technician\n")
    with pytest.raises(ValueError, match="u.user"):
        load_movielens(hundred)
