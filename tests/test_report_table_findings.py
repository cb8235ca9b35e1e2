"""Findings of the rating, classification and beyond-accuracy reports: each statement follows
the numbers and flips when they do."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalkit import report as rp


def _table(rows: dict[str, tuple[float, float, float]]) -> pd.DataFrame:
    return pd.DataFrame(rows, index=["value", "ci_low", "ci_high"]).T


def test_the_best_follows_the_direction_and_overlaps_become_caveats() -> None:
    a = _table({"MAE": (0.70, 0.68, 0.72), "RMSE": (0.90, 0.85, 0.95)})
    b = _table({"MAE": (0.80, 0.78, 0.82), "RMSE": (0.92, 0.88, 0.96)})
    text = rp.table_findings({"a": a, "b": b}, better={"MAE": "lower", "RMSE": "lower"})
    assert "**a** has the lowest MAE: 0.700 [0.680, 0.720]." in text
    assert "**a** has the lowest RMSE" in text
    assert "On RMSE, the interval of **a** overlaps that of **b**" in text
    assert "On MAE" not in text
    flipped = rp.table_findings({"a": a, "b": b}, better={"MAE": "higher"})
    assert "**b** has the highest MAE" in flipped and "Caveats" not in flipped
    tied = rp.table_findings({"a": a, "b": a}, better={"MAE": "lower"})
    assert "**a** and **b** share the lowest MAE (0.700)." in tied


def test_ranges_left_out_counts_and_undefined_values_are_stated_only_when_true() -> None:
    a = _table({"novelty": (2.0, 1.9, 2.1), "precision": (np.nan, np.nan, np.nan)})
    b = _table({"novelty": (5.0, 4.8, 5.2), "precision": (0.5, 0.4, 0.6)})
    text = rp.table_findings({"a": a, "b": b}, better={"novelty": None, "precision": "higher"},
                             left_out={"a": 3, "b": 0})
    assert "Novelty ranges from 2.000 (**a**) to 5.000 (**b**)." in text
    assert "Precision is undefined for **a**" in text
    assert "Precision of **b**: 0.500 [0.400, 0.600]." in text
    assert "**a** leaves out 3 test ratings" in text and "**b** leaves out" not in text
    none = rp.table_findings({"a": a}, better={"precision": "higher"})
    assert "precision is undefined for every system here" in none


def test_the_report_findings_on_real_tables() -> None:
    test = pd.DataFrame({"user_id": np.repeat(np.arange(30), 4),
                         "item_id": np.tile([1, 2, 3, 4], 30),
                         "rating": np.tile([5.0, 4.0, 2.0, 1.0], 30)})
    good = test[["user_id", "item_id"]].assign(prediction=test["rating"] + 0.1)
    bad = test[["user_id", "item_id"]].assign(prediction=6.0 - test["rating"])
    text = rp.rating_findings(test, {"bad": bad, "good": good.iloc[:-2]})
    assert "**good** has the lowest MAE: 0.100 [0.100, 0.100]." in text
    assert "**good** leaves out 2 test ratings" in text
    text = rp.classification_findings(test, {"bad": bad, "good": good}, threshold=4.0)
    assert "**good** has the highest F1: 1.000" in text
    assert "No system predicts" in rp.rating_findings(test, {})


def test_data_findings_compute_every_number_and_the_random_list_chance() -> None:
    ratings = pd.DataFrame({"user_id": [1, 1, 1, 2, 2, 3], "item_id": [1, 2, 3, 1, 4, 1],
                            "rating": [5.0, 4.0, 1.0, 2.0, 5.0, 4.0]})
    text = rp.data_findings(ratings, threshold=4.0)
    assert "6 interactions of 3 users on 4 items: 50.0% of the user-item matrix" in text
    assert "66.7% of the interactions are rated at least 4" in text
    # relevant items per user: 2, 1, 1 -> mean 4/3 of 4 items
    assert "with probability 33.3% on average" in text
    assert "3 items occur only once" in text
    implicit = rp.data_findings(ratings.drop(columns="rating"), threshold=None)
    assert "Every interaction counts as relevant" in implicit


def test_split_findings_name_leaks_only_where_the_audit_finds_them() -> None:
    from evalkit.split import Split

    train = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [1, 2, 1, 3], "rating": 4.0,
                          "timestamp": [1, 2, 1, 2]})
    clean = Split(train=train, test=pd.DataFrame({"user_id": [1, 2], "item_id": [3, 2],
                                                   "rating": 5.0, "timestamp": [3, 3]}),
                  info={"strategy": "given"})
    leaky = Split(train=train, test=pd.DataFrame({"user_id": [1, 2], "item_id": [1, 2],
                                                   "rating": 5.0, "timestamp": [3, 3]}),
                  info={"strategy": "given"})
    text = rp.split_findings({"clean": clean, "leaky": leaky})
    assert "**clean**: 33.3% of 6 rows held out; no leak;" in text
    assert "**leaky**: 33.3% of 6 rows held out; LEAK: 1 test row (50.0%) repeat" in text
    assert "**leaky** leak test answers into training" in text
    assert "Caveats" not in rp.split_findings({"clean": clean})


def test_beyond_max_rows_the_strategies_split_a_sample_of_users_and_say_so(monkeypatch) -> None:
    import evalkit.report._splitting as tables  # where the splitting page's audits are made

    inputs = rp.load_inputs("sample", split=None)
    ratings = inputs.ratings
    whole = rp.make_splits(inputs, ["random", "user_ratio"])
    assert whole.sample is None and "sample of" not in rp.split_findings(whole)
    calls = []
    monkeypatch.setattr(tables, "audit", lambda s, _a=tables.audit: (calls.append(s), _a(s))[1])
    splits = rp.make_splits(inputs, ["random", "user_ratio"], max_rows=len(ratings) // 4)
    sample = splits.sample
    users = np.union1d(splits["random"].train["user_id"], splits["random"].test["user_id"])
    assert sample["users"] == len(users) == round(ratings["user_id"].nunique() / 4)
    assert sample["of_users"] == ratings["user_id"].nunique()
    assert sample["rows"] == len(splits["random"].train) + len(splits["random"].test)
    # every interaction of each user drawn, and the same users for every strategy
    assert sample["rows"] == ratings["user_id"].isin(users).sum()
    ratio_users = np.union1d(splits["user_ratio"].train["user_id"],
                             splits["user_ratio"].test["user_id"])
    np.testing.assert_array_equal(ratio_users, users)
    text = rp.split_findings(splits)
    assert (f"**random** and **user_ratio** split a seeded sample of {sample['users']:,} of "
            f"the {sample['of_users']:,} users ({sample['rows']:,} of {len(ratings):,} "
            "interactions") in text
    table = splits.audit_table()
    assert len(calls) == 2 and list(table.columns) == ["random", "user_ratio"]
    again = rp.make_splits(inputs, ["random", "user_ratio"], max_rows=len(ratings) // 4)
    pd.testing.assert_frame_equal(again["random"].test, splits["random"].test)
    given = rp.make_splits(rp.load_inputs("sample"), ["random"], max_rows=len(ratings) // 4)
    assert len(given["given"].train) + len(given["given"].test) == len(ratings)
    assert "your own split is audited whole" in rp.split_findings(given)
    with pytest.raises(ValueError, match=r"make_splits.*max_rows"):
        rp.make_splits(inputs, ["random"], max_rows=0)
