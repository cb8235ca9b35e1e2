"""read_recommendations: formats, column mapping, validation."""

from __future__ import annotations

import pandas as pd
import pytest

from evalkit.recs import read_recommendations


def test_csv_with_aliases(tmp_path) -> None:
    path = tmp_path / "recs.csv"
    path.write_text("userId,movieId,prediction,position,extra\n1,10,0.9,1,x\n1,11,0.4,2,y\n")
    recs = read_recommendations(path)
    assert list(recs.columns) == ["user_id", "item_id", "score", "rank"]
    assert recs["rank"].dtype == "int64"
    assert recs["item_id"].tolist() == [10, 11]


def test_parquet_with_explicit_mapping(tmp_path) -> None:
    path = tmp_path / "recs.parquet"
    pd.DataFrame({"uid": ["a", "a"], "sku": ["x", "y"], "r": [1.0, 2.0]}).to_parquet(path)
    recs = read_recommendations(path, columns={"uid": "user_id", "sku": "item_id", "r": "rank"})
    assert recs["rank"].tolist() == [1, 2]
    assert recs["user_id"].tolist() == ["a", "a"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("user_id,item_id\n1,2\n", "needs a 'rank' or a 'score'"),
        ("user_id,item_id,score\n1,2,0.5\n1,2,0.4\n", "duplicate (user_id, item_id)"),
        ("user_id,item_id,rank\n1,2,1\n1,3,1\n", "duplicate rank"),
        ("user_id,item_id,rank\n1,2,0\n", "1-based positive"),
        ("user_id,item_id,score\n1,2,nan\n", "NaN"),
        ("user,score\n1,0.5\n", "missing column(s) item_id"),
    ],
)
def test_bad_recommendations_are_refused(tmp_path, text: str, message: str) -> None:
    path = tmp_path / "recs.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match="read_recommendations: ") as info:
        read_recommendations(path)
    assert message in str(info.value)


def test_unknown_suffix_and_missing_file(tmp_path) -> None:
    with pytest.raises(ValueError, match="read_recommendations: 'path' must be an existing file"):
        read_recommendations(tmp_path / "none.csv")
    path = tmp_path / "recs.json"
    path.write_text("{}")
    with pytest.raises(ValueError, match=r"read_recommendations: 'path' must end in \.csv"):
        read_recommendations(path)
