"""evaluate(): agreement with the individual metric functions, the summary, JSON, errors."""

from __future__ import annotations

import inspect
import json

import numpy as np
import pandas as pd
import pytest

from evalkit import evaluate
from evalkit.metrics import RANKING_METRICS
from evalkit.stats import bootstrap_ci

# random_case() adds a user found only in the recommendations, on purpose
pytestmark = pytest.mark.filterwarnings("ignore:evaluate. 1 user.s. appear only in 'recs'")


def random_case(seed: int, n_users: int = 60, n_items: int = 40):
    rng = np.random.default_rng(seed)
    truth = []
    recs = []
    for u in range(n_users):
        items = rng.choice(n_items, size=rng.integers(1, 8), replace=False)
        truth.append(pd.DataFrame({"user_id": u, "item_id": items,
                                   "rating": rng.integers(1, 11, items.size) / 2}))
        if u % 7 == 3:
            continue  # some users without recommendations
        listed = rng.choice(n_items, size=rng.integers(1, 15), replace=False)
        recs.append(pd.DataFrame({"user_id": u, "item_id": listed,
                                  "score": rng.integers(0, 6, listed.size).astype(float)}))
    recs.append(pd.DataFrame({"user_id": [999], "item_id": [1], "score": [1.0]}))  # recs-only
    return pd.concat(truth, ignore_index=True), pd.concat(recs, ignore_index=True)


OPTIONS = [
    {},
    {"empty": "zero", "gain": "exponential"},
    {"threshold": None, "ap_denominator": "relevant", "ties": "expected"},
    {"ties": "optimistic", "discount": "breese", "log_base": 3.0},
]


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.filterwarnings("ignore::evalkit.metrics.TieWarning")
def test_evaluate_agrees_with_each_metric_function(options: dict) -> None:
    truth, recs = random_case(1)
    every = [name for name, m in RANKING_METRICS.items()
             if (m.expected_ties or options.get("ties") != "expected")
             and (m.bounds[0] <= 0 or options.get("empty") != "zero")]
    result = evaluate(truth, recs, k=[3, 10], metrics=every, **options)
    assert len(every) >= 11
    for name in every:
        metric = RANKING_METRICS[name]
        kwargs = {key: value for key, value in options.items()
                  if key in inspect.signature(metric.func).parameters}
        for k in ([3, 10] if metric.at_k else [None]):
            column = name if k is None else f"{name}@{k}"
            if k is not None:
                kwargs["k"] = k
            expected = metric.func(truth, recs, **kwargs)
            got = result.per_user[column]
            # evaluate keeps every user (NaN where undefined); the function drops under "drop"
            pd.testing.assert_series_equal(
                got.dropna(), expected.dropna().rename(column), check_names=True, atol=1e-12
            )
            assert result.mean(name, k) == pytest.approx(expected.mean(), abs=1e-12)
            assert result.summary.loc[column, "n_users"] == expected.notna().sum()


def test_summary_ci_is_the_seeded_bootstrap_of_the_per_user_values() -> None:
    truth, recs = random_case(2)
    a = evaluate(truth, recs, k=5, metrics=["ndcg"], ties="expected", rng=7)
    b = evaluate(truth, recs, k=5, metrics=["ndcg"], ties="expected", rng=7)
    pd.testing.assert_frame_equal(a.summary, b.summary)
    values = a.per_user["ndcg@5"].dropna().to_numpy()
    low, high = bootstrap_ci(values, rng=7)
    assert a.summary.loc["ndcg@5", "ci_low"] == pytest.approx(low)
    assert a.summary.loc["ndcg@5", "ci_high"] == pytest.approx(high)
    assert low <= values.mean() <= high


def test_counts_and_definitions_are_reported() -> None:
    truth, recs = random_case(3)
    with pytest.warns(UserWarning, match=r"evaluate: 1 user\(s\) appear only in 'recs'"):
        result = evaluate(truth, recs, k=5, metrics=["recall"], ties="expected")
    assert result.counts["users"] == truth["user_id"].nunique()
    assert result.counts["recs_only_users"] == 1
    assert result.counts["users_without_recs"] == len({u for u in range(60) if u % 7 == 3})
    no_relevant = (
        truth.assign(rel=truth["rating"] >= 4).groupby("user_id")["rel"].sum() == 0).sum()
    assert result.summary.loc["recall@5", "dropped_undefined"] == no_relevant
    assert result.definitions.ties == "expected" and result.definitions.threshold == 4.0
    for key in ("threshold", "gain", "discount", "ap_denominator", "ties", "empty"):
        assert key in result.definitions.as_dict() and key in result.settings()


def test_to_json_round_trips(tmp_path) -> None:
    truth, recs = random_case(4)
    result = evaluate(truth, recs, k=[1, 5], metrics=["precision", "ndcg"], ties="expected")
    path = tmp_path / "out" / "result.json"
    text = result.to_json(path)
    loaded = json.loads(path.read_text())
    assert loaded == json.loads(text)
    rows = {row["column"]: row for row in loaded["summary"]}
    assert set(rows) == {"precision@1", "precision@5", "ndcg@1", "ndcg@5"}
    assert rows["ndcg@5"]["mean"] == pytest.approx(result.mean("ndcg", 5), abs=1e-12)
    assert loaded["definitions"]["ties"] == "expected"
    assert "<table" in result._repr_html_()


def test_inputs_are_not_mutated() -> None:
    truth, recs = random_case(5)
    before = truth.copy(), recs.copy()
    evaluate(truth, recs, k=[2, 4], ties="expected")
    pd.testing.assert_frame_equal(truth, before[0])
    pd.testing.assert_frame_equal(recs, before[1])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"metrics": ["ndgc"]}, "unknown metric 'ndgc'; valid metrics are precision"),
        ({"k": 0}, "'k' must be a positive integer"),
        ({"k": []}, "'k' must be a positive integer or a non-empty list"),
        ({"gain": "cubic"}, "unknown gain 'cubic'"),
        ({"confidence": 1.5}, "'confidence'"),
    ],
)
def test_bad_options_are_named(kwargs: dict, message: str) -> None:
    truth, recs = random_case(6)
    with pytest.raises(ValueError, match="evaluate: ") as info:
        evaluate(truth, recs, ties="expected", **kwargs)
    assert message in str(info.value)


def test_empty_truth_is_an_error() -> None:
    truth, recs = random_case(6)
    with pytest.raises(ValueError, match="evaluate: 'truth' is empty"):
        evaluate(truth.iloc[:0], recs)


def test_string_user_ids_against_integer_recs_are_refused() -> None:
    truth, recs = random_case(6)
    with pytest.raises(TypeError, match="evaluate: 'user_id' holds string ids"):
        evaluate(truth.assign(user_id=truth["user_id"].astype(str)), recs)


def test_tie_warning_points_at_the_caller() -> None:
    from evalkit.metrics import TieWarning

    truth = pd.DataFrame({"user_id": [1], "item_id": [2], "rating": [5.0]})
    recs = pd.DataFrame({"user_id": 1, "item_id": [1, 2], "score": [1.0, 1.0]})
    with pytest.warns(TieWarning) as record:
        evaluate(truth, recs, k=1, metrics=["precision"])
    assert record[0].filename == __file__


@pytest.mark.filterwarnings("ignore:.*tied scores straddling")
@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "defaults")
@pytest.mark.parametrize("k_curves", [3, 12])
def test_curves_from_the_same_hit_table_equal_ranking_curves(options: dict, k_curves: int) -> None:
    from evalkit.metrics import ranking_curves

    truth, recs = random_case(11)
    result = evaluate(truth, recs, k=[2, 5], n_resamples=20, curves=k_curves, **options)
    curve_options = {key: value for key, value in options.items()
                     if key not in ("neutral", "half_life")}
    want = ranking_curves(truth, recs, k_max=k_curves, **curve_options)
    pd.testing.assert_frame_equal(result.curves, want, check_exact=False, rtol=1e-12, atol=1e-12)
    # the summary does not depend on whether curves were asked for
    plain = evaluate(truth, recs, k=[2, 5], n_resamples=20, **options)
    assert plain.curves is None
    pd.testing.assert_frame_equal(result.summary, plain.summary, check_exact=False, rtol=1e-12)
    rows = json.loads(result.to_json())["curves"]
    assert [row["k"] for row in rows] == list(range(1, k_curves + 1))
    assert rows[-1]["ndcg"] == pytest.approx(want["ndcg"].iloc[-1], rel=1e-12)
    assert "curves" not in json.loads(plain.to_json())


@pytest.mark.parametrize("bad", [0, -1, 2.5, "10"])
def test_bad_curves_cutoff_is_named(bad: object) -> None:
    truth, recs = random_case(1)
    with pytest.raises((ValueError, TypeError), match=r"evaluate: 'curves'"):
        evaluate(truth, recs, curves=bad)
