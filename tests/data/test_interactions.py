"""load_interactions on CSV, TSV and Parquet files, and the ratings fingerprint."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.data import fingerprint, load_interactions

RAW = pd.DataFrame(
    {
        "userId": [3, 1, 2, 1],
        "movieId": [10, 20, 10, 30],
        "rating": [4.0, 3.5, 5.0, 1.0],
        "timestamp": [300, 100, 200, 150],
    }
)


def expected() -> pd.DataFrame:
    return RAW.rename(columns={"userId": "user_id", "movieId": "item_id"})


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".parquet", ".pq", ".csv.gz"])
def test_formats_with_aliases(tmp_path: Path, suffix: str) -> None:
    file = tmp_path / f"log{suffix}"
    if suffix in (".parquet", ".pq"):
        RAW.to_parquet(file)
    else:
        RAW.to_csv(file, index=False, sep="\t" if suffix == ".tsv" else ",")
    pd.testing.assert_frame_equal(load_interactions(file), expected())


def test_explicit_mapping_and_extra_columns(tmp_path: Path) -> None:
    file = tmp_path / "log.csv"
    file.write_text("who,what,stars,when,source\n7,b,4,1000,web\n8,a,2.5,2000,app\n")
    out = load_interactions(
        file, columns={"who": "user_id", "what": "item_id", "stars": "rating", "when": "timestamp"}
    )
    assert list(out.columns) == ["user_id", "item_id", "rating", "timestamp", "source"]
    assert out["user_id"].tolist() == [7, 8] and out["user_id"].dtype == np.int64
    assert out["item_id"].tolist() == ["b", "a"]  # string ids are kept
    assert out["rating"].tolist() == [4.0, 2.5] and out["rating"].dtype == np.float64
    assert out["timestamp"].tolist() == [1000, 2000] and out["timestamp"].dtype == np.int64


def test_other_aliases_and_optional_columns(tmp_path: Path) -> None:
    file = tmp_path / "log.csv"
    file.write_text("user,item,ts\n1,2,5\n")
    out = load_interactions(file)
    assert list(out.columns) == ["user_id", "item_id", "timestamp"]
    file.write_text("userID,itemID\n1,2\n")
    assert list(load_interactions(file).columns) == ["user_id", "item_id"]


def test_parquet_datetimes_become_seconds(tmp_path: Path) -> None:
    frame = pd.DataFrame(
        {"user": [1, 2], "item": [3, 4], "timestamp": pd.to_datetime(["1970-01-02", "2000-01-01"])}
    )
    file = tmp_path / "log.parquet"
    frame.to_parquet(file)
    assert load_interactions(file)["timestamp"].tolist() == [86400, 946684800]


def test_missing_required_column(tmp_path: Path) -> None:
    file = tmp_path / "log.csv"
    file.write_text("userId,rating\n1,4\n")
    with pytest.raises(ValueError, match="missing column.*item_id"):
        load_interactions(file)


def test_nan_ids(tmp_path: Path) -> None:
    file = tmp_path / "log.csv"
    file.write_text("userId,movieId\n1,2\n,3\n")
    with pytest.raises(ValueError, match="'user_id' has 1 missing"):
        load_interactions(file)


def test_non_numeric_rating(tmp_path: Path) -> None:
    file = tmp_path / "log.csv"
    file.write_text("userId,movieId,rating\n1,2,4\n1,3,good\n")
    with pytest.raises(ValueError, match=r"'rating' must hold finite numbers.*row 1: 'good'"):
        load_interactions(file)


def test_bad_mapping(tmp_path: Path) -> None:
    file = tmp_path / "log.csv"
    file.write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match="unknown column 'users'; valid targets"):
        load_interactions(file, columns={"a": "users"})
    with pytest.raises(ValueError, match="names 'c', which the file does not have"):
        load_interactions(file, columns={"c": "user_id"})
    with pytest.raises(TypeError, match="must be a mapping"):
        load_interactions(file, columns=[("a", "user_id")])  # type: ignore[arg-type]


def test_ambiguous_aliases(tmp_path: Path) -> None:
    file = tmp_path / "log.csv"
    file.write_text("user,userId,item\n1,1,2\n")
    with pytest.raises(ValueError, match="several columns"):
        load_interactions(file)
    out = load_interactions(file, columns={"userId": "user_id"})
    assert list(out.columns) == ["user_id", "item_id", "user"]


def test_unsupported_suffix_and_missing_file(tmp_path: Path) -> None:
    file = tmp_path / "log.json"
    file.write_text("{}")
    with pytest.raises(ValueError, match=r"\.csv, \.tsv, \.parquet or \.pq"):
        load_interactions(file)
    with pytest.raises(ValueError, match="existing file"):
        load_interactions(tmp_path / "absent.csv")


def test_input_file_unchanged(tmp_path: Path) -> None:
    file = tmp_path / "log.csv"
    RAW.to_csv(file, index=False)
    before = file.read_bytes()
    load_interactions(file, columns={"userId": "user_id"})
    assert file.read_bytes() == before


# --- fingerprint ---------------------------------------------------------------------------


def naive_fingerprint(frame: pd.DataFrame) -> str:
    """Row-by-row restatement of the documented serialization."""
    rows = sorted(
        zip(frame["user_id"], frame["item_id"], frame["timestamp"], frame["rating"]),
        key=lambda r: (r[0], r[1], r[2], r[3]),
    )
    digest = hashlib.sha256()
    for name, position, fmt in [("user_id", 0, "<i8"), ("item_id", 1, "<i8"),
                                ("rating", 3, "<f8"), ("timestamp", 2, "<i8")]:  # fmt: skip
        digest.update(name.encode() + b"\x00")
        for row in rows:
            digest.update(np.array(row[position], dtype=fmt).tobytes())
    return digest.hexdigest()


def test_fingerprint_matches_the_documented_serialization() -> None:
    frame = expected()
    result = fingerprint(frame)
    assert result == {"sha256": naive_fingerprint(frame), "rows": 4, "users": 3, "items": 3}


def test_fingerprint_sensitive_to_content() -> None:
    frame = expected()
    changed = frame.assign(rating=frame["rating"].where(frame.index != 0, 4.5))
    assert fingerprint(changed)["sha256"] != fingerprint(frame)["sha256"]
    assert fingerprint(frame.iloc[:3])["sha256"] != fingerprint(frame)["sha256"]


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(1, 5), st.integers(1, 5), st.sampled_from([0.5, 3.0, 5.0]),
            st.integers(0, 3),
        ),
        min_size=1,
        max_size=30,
    ),
    st.randoms(use_true_random=False),
)
def test_fingerprint_properties(rows: list[tuple[int, int, float, int]], rand) -> None:
    frame = pd.DataFrame(rows, columns=["user_id", "item_id", "rating", "timestamp"])
    copy = frame.copy()
    shuffled = frame.iloc[rand.sample(range(len(frame)), len(frame))]
    result = fingerprint(frame)
    pd.testing.assert_frame_equal(frame, copy)  # input unchanged
    # rows are sorted by every hashed column, so the row order never matters
    assert result["sha256"] == naive_fingerprint(frame)
    assert fingerprint(shuffled)["sha256"] == result["sha256"]
    assert result["rows"] == len(rows)
    assert result["users"] == len({r[0] for r in rows})
    assert result["items"] == len({r[1] for r in rows})


def test_fingerprint_of_the_real_data_is_stable(ml_latest_small_dir: Path) -> None:
    raw = pd.read_csv(ml_latest_small_dir / "ratings.csv")
    frame = raw.rename(columns={"userId": "user_id", "movieId": "item_id"})
    reversed_rows = frame.iloc[::-1]
    assert fingerprint(frame) == fingerprint(reversed_rows)
    assert fingerprint(frame)["rows"] == 100_836
