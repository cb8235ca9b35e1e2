"""The report's interval tables for rating errors and classification scores."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalkit import report as rp
from evalkit.metrics import classification_scores, rating_errors


def _case():
    gen = np.random.default_rng(0)
    n = 400
    test = pd.DataFrame({"user_id": gen.integers(0, 40, n), "item_id": np.arange(n),
                         "rating": gen.integers(1, 6, n).astype(float)})
    good = test[["user_id", "item_id"]].assign(prediction=test["rating"] + gen.normal(0, .5, n))
    bad = test[["user_id", "item_id"]].assign(prediction=test["rating"] + gen.normal(0, 2., n))
    return test, {"bad": bad, "good": good}


def test_rating_error_summary_marks_the_lowest_error_and_shows_counts_once() -> None:
    test, predictions = _case()
    table = rp.rating_error_summary(test, predictions, seed=3)
    assert list(table.columns) == ["bad", "good", "users", "ratings"]
    assert table["good"].str.endswith(" *").all() and not table["bad"].str.contains(r"\*").any()
    want = rating_errors(test, predictions["good"], rng=3).loc["RMSE"]
    assert table.loc["RMSE", "good"] == (f"{want['value']:.3f} [{want['ci_low']:.3f}, "
                                         f"{want['ci_high']:.3f}] *")
    assert (table["users"] == "40").all() and (table["ratings"] == "400").all()
    # a system that predicts fewer ratings: both counts shown
    fewer = {"bad": predictions["bad"].iloc[:300], "good": predictions["good"]}
    assert rp.rating_error_summary(test, fewer).loc["MAE", "ratings"] == "300 / 400"
    assert rp.rating_error_summary(test, {}).empty


def test_classification_summary_marks_the_highest_and_leaves_zero_over_zero_empty() -> None:
    test, predictions = _case()
    never = predictions["good"].assign(prediction=0.0)  # nothing predicted relevant
    table = rp.classification_summary(test, {"never": never, **predictions}, threshold=4.0)
    assert table.loc["precision", "never"] == ""
    assert table.loc["f1", "good"].endswith(" *")
    want = classification_scores(test, predictions["good"], threshold=4.0).loc["f1"]
    assert table.loc["f1", "good"].startswith(f"{want['value']:.3f} [{want['ci_low']:.3f}, ")


def test_beyond_summary_shows_the_per_user_means_with_intervals_and_marks_nothing() -> None:
    from evalkit.metrics.tables import beyond_intervals

    inputs = rp.load_inputs("sample", split="user_ratio", test_fraction=0.2, seed=0)
    systems = rp.load_systems(inputs, recs={}, baselines=["Random", "MostPopular"], k=5,
                              seed=0)
    table = rp.beyond_summary(inputs, systems, k=5, threshold=4.0, seed=2)
    assert list(table.columns) == ["Random", "MostPopular", "users"]
    assert not table[["Random", "MostPopular"]].stack().str.contains(r"\*").any()
    want = beyond_intervals(inputs.test, systems["Random"], train=inputs.train,
                            items=inputs.items, k=5, rng=2).loc["novelty"]
    assert table.loc["novelty", "Random"] == (f"{want['mean']:.3f} [{want['ci_low']:.3f}, "
                                              f"{want['ci_high']:.3f}]")


def test_the_beyond_findings_and_summary_share_each_systems_intervals(monkeypatch) -> None:
    from evalkit.report import _beyond

    inputs = rp.load_inputs("sample", split="user_ratio", test_fraction=0.2, seed=0)
    systems = rp.load_systems(inputs, recs={}, baselines=["Random", "MostPopular"], k=5,
                              seed=0)
    alone = rp.beyond_summary(rp.load_inputs("sample", split="user_ratio", test_fraction=0.2,
                                             seed=0), systems, k=5, threshold=4.0, seed=2)
    calls = []
    real = _beyond.beyond_intervals
    monkeypatch.setattr(_beyond, "beyond_intervals",
                        lambda *a, **kw: calls.append(kw["k"]) or real(*a, **kw))
    beyond = rp.beyond_table(inputs, systems, k=5, threshold=4.0)
    rp.beyond_findings(inputs, systems, beyond, k=5, threshold=4.0, seed=2)
    pd.testing.assert_frame_equal(rp.beyond_summary(inputs, systems, k=5, threshold=4.0,
                                                    seed=2), alone)
    assert calls == [5, 5]  # once per system
    rp.beyond_summary(inputs, systems, k=4, threshold=4.0, seed=2)  # another cutoff: computed
    rp.beyond_summary(inputs, {"Random": systems["Random"].copy()}, k=5, threshold=4.0,
                      seed=2)  # other lists: computed
    assert calls == [5, 5, 4, 4, 5]


def test_tradeoff_points_and_the_zero_note_follow_the_data() -> None:
    import evalkit as ek

    truth = pd.DataFrame({"user_id": [1, 1, 2, 2, 3], "item_id": [1, 2, 1, 3, 4],
                          "rating": 5.0})
    hits = pd.DataFrame({"user_id": [1, 2, 3], "item_id": [1, 3, 9], "rank": 1})
    misses = pd.DataFrame({"user_id": [1, 2, 3], "item_id": [7, 8, 9], "rank": 1})
    evaluations = {n: ek.evaluate(truth, r, k=1, metrics=["ndcg"], n_resamples=50)
                   for n, r in (("hits", hits), ("misses", misses))}
    beyond = pd.DataFrame({"catalog_coverage": [0.5, 0.2]}, index=["hits", "misses"])
    points = rp.tradeoff_points(evaluations, beyond, column="ndcg@1")
    assert points.loc["hits", "ndcg@1"] == pytest.approx(2 / 3)
    assert points.loc["misses", "ndcg@1"] == 0.0
    assert points.loc["misses", "catalog_coverage"] == 0.2
    assert {"ndcg@1_low", "ndcg@1_high"} <= set(points.columns)
    note = rp.zero_note(evaluations, "ndcg@1")
    assert "hits 33% of 3; misses 100% of 3" in note and "NDCG@1 = 0" in note


def test_sample_lists_mark_hits_by_the_users_test_items_and_search_offline() -> None:
    test = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [10, 11, 10, 12],
                         "rating": [5.0, 2.0, 4.0, 5.0]})
    items = pd.DataFrame({"item_id": [10, 11, 12, 13], "title": ["Ten", "Eleven", "<Twelve>",
                                                                 "Thirteen"]})

    class Inputs:
        pass

    inputs = Inputs()
    inputs.test, inputs.items = test, items
    recs = pd.DataFrame({"user_id": [1, 1, 1, 2, 2], "item_id": [13, 11, 10, 12, 13],
                         "rank": [1, 2, 3, 1, 2]})
    table = rp.sample_lists(inputs, {"s": recs}, k=3, users=2)
    frame = table.frame.set_index("user")
    assert frame.loc[1, "list"] == "Thirteen; Eleven ·; Ten ✓" and frame.loc[1, "hits"] == 1
    assert frame.loc[2, "list"] == "<Twelve> ✓; Thirteen" and frame.loc[2, "hits"] == 1
    assert frame.loc[1, "test items"] == "Eleven (2); Ten (5)"
    page = table._repr_html_()
    assert "&lt;Twelve&gt;" in page and "<Twelve>" not in page  # titles escaped
    assert "<input" in page and "src=" not in page and "http" not in page  # nothing fetched
    implicit = rp.sample_lists(inputs, {"s": recs}, k=3, users=2, threshold=None)
    assert implicit.frame.set_index("user").loc[1, "list"] == "Thirteen; Eleven ✓; Ten ✓"
    assert "·" not in repr(implicit).splitlines()[0]


def test_cv_split_table_puts_each_fold_mean_beside_the_split_mean() -> None:
    import evalkit as ek

    truth = pd.DataFrame({"user_id": [1, 2, 3], "item_id": 1, "rating": 5.0})
    recs = pd.DataFrame({"user_id": [1, 2, 3], "item_id": [1, 1, 2], "rank": 1})
    evaluations = {"A": ek.evaluate(truth, recs, k=1, metrics=["precision"], n_resamples=50)}
    cv = pd.DataFrame({"mean": [0.5, 0.9], "ci_low": [0.4, 0.8], "ci_high": [0.6, 1.0]},
                      index=pd.MultiIndex.from_tuples([("A", "precision@1"), ("B", "precision@1")],
                                                      names=["system", "column"]))
    table = rp.cv_split_table(cv, evaluations)
    assert list(table.index) == [("A", "precision@1")]  # B has no split evaluation
    split = evaluations["A"].summary.loc["precision@1"]
    assert table.loc[("A", "precision@1"), "split"].startswith(f"{split['mean']:.3f} [")
    assert table.loc[("A", "precision@1"), "folds"] == "0.500 [0.400, 0.600]"
    assert table.loc[("A", "precision@1"), "folds - split"] == f"{0.5 - split['mean']:+.3f}"
    assert rp.cv_split_table(pd.DataFrame(), evaluations).empty


def test_the_beyond_page_finds_the_training_pairs_once(monkeypatch) -> None:
    from evalkit.metrics import _topk

    inputs = rp.load_inputs("sample", split="user_ratio", test_fraction=0.2, seed=0)
    systems = rp.load_systems(inputs, recs={}, baselines=["Random", "MostPopular"], k=5,
                              seed=0)
    fresh = rp.load_inputs("sample", split="user_ratio", test_fraction=0.2, seed=0)
    alone = (rp.beyond_table(fresh, systems, k=5, threshold=4.0),
             rp.beyond_summary(fresh, systems, k=5, threshold=4.0, seed=2))
    found = []
    real = _topk._find_distinct_pairs
    monkeypatch.setattr(_topk, "_find_distinct_pairs",
                        lambda frame: found.append(len(frame)) or real(frame))
    beyond = rp.beyond_table(inputs, systems, k=5, threshold=4.0)
    rp.beyond_findings(inputs, systems, beyond, k=5, threshold=4.0, seed=2)
    summary = rp.beyond_summary(inputs, systems, k=5, threshold=4.0, seed=2)
    pd.testing.assert_frame_equal(beyond, alone[0])
    pd.testing.assert_frame_equal(summary, alone[1])
    assert found == [len(inputs.train)]  # once for the page's tables of both systems
