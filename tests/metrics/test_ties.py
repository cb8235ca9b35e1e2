"""Tied scores: the four policies against brute-force enumeration of
every order of every tie group, the deterministic order, and the TieWarning."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalkit.metrics import RANKING_METRICS, TieWarning, average_precision_at_k, ranking_curves
from tests.metrics.naive import (
    cases,
    expected_ap_exact,
    is_undefined,
    order_value,
    orders,
    random_frames,
    user_data,
)

NAMES = list(RANKING_METRICS)
TOL = 1e-12
DEFAULTS = dict(threshold=4.0, gain="linear", discount="log", log_base=2.0,
                ap_denominator="min", neutral=3.0, half_life=5.0)

# E[metric] over random tie orders is exact (linear in the hit vector, or, for HR and
# RR, computed from the exact distribution of the first relevant position).
EXACT_UNDER_EXPECTED = ("precision", "recall", "f1", "hit_rate", "r_precision", "mrr", "dcg",
                        "ndcg", "half_life_utility")


def run(name: str, truth: pd.DataFrame, recs: pd.DataFrame, *, k: int, ties: str,
        **options: object) -> pd.Series:
    metric = RANKING_METRICS[name]
    kw = {"empty": "nan", "ties": ties, **options}
    if metric.at_k:
        kw["k"] = k
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TieWarning)
        return metric.func(truth, recs, **kw)


def brute_force(name: str, truth: pd.DataFrame, recs: pd.DataFrame, *, k: int,
                **options: object) -> pd.DataFrame:
    """Per user: min, mean and max of the metric over every order of the tie groups."""
    o = {**DEFAULTS, **options}
    if name == "half_life_utility":
        o["threshold"] = None
    rows = {}
    for user, data in user_data(truth, recs).items():
        if is_undefined(name, data, k, o):
            rows[user] = (np.nan, np.nan, np.nan)
            continue
        rel = [r for r in data.ratings.values() if o["threshold"] is None or r >= o["threshold"]]
        cutoff = len(rel) if name == "r_precision" else k
        values = [order_value(name, order, data, k, o)
                  for order in orders(data, ties="expected", threshold=o["threshold"],
                                      cutoff=cutoff)]
        rows[user] = (min(values), float(np.mean(values)), max(values))
    return pd.DataFrame.from_dict(rows, orient="index", columns=["min", "mean", "max"])


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames=cases(order="score", max_list=6, max_score=2), k=st.sampled_from([1, 2, 3, 5]),
       gain=st.sampled_from(["linear", "exponential", "binary"]),
       threshold=st.sampled_from([4.0, None, 2.5]))
def test_policies_against_every_order(name: str, frames, k: int, gain: str,
                                      threshold: float | None) -> None:
    # optimistic is the best order of each tie group and pessimistic the worst, whatever the
    # metric; expected is the mean over all orders for every metric except AP (see below).
    truth, recs = frames
    options = {}
    if name in ("dcg", "ndcg"):
        options["gain"] = gain
    if name != "half_life_utility":
        options["threshold"] = threshold
    metric = RANKING_METRICS[name]
    bf = brute_force(name, truth, recs, k=k, **options)
    policies = ("optimistic", "expected", "pessimistic") if metric.expected_ties else \
        ("optimistic", "pessimistic")
    got = {t: run(name, truth, recs, k=k, ties=t, **options) for t in policies}
    defined = got["pessimistic"].notna()
    bf = bf.loc[got["pessimistic"].index[defined]]
    # the best order is the largest value, or the smallest for a lower-is-better metric
    best, worst = ("max", "min") if metric.higher_is_better else ("min", "max")
    np.testing.assert_allclose(got["optimistic"][defined], bf[best], rtol=TOL, atol=TOL)
    np.testing.assert_allclose(got["pessimistic"][defined], bf[worst], rtol=TOL, atol=TOL)
    if name in EXACT_UNDER_EXPECTED:
        np.testing.assert_allclose(got["expected"][defined], bf["mean"], rtol=TOL, atol=TOL)


@pytest.mark.parametrize("name", NAMES)
def test_optimistic_expected_pessimistic_are_ordered(name: str) -> None:
    truth, recs = random_frames(np.random.default_rng(11), n_users=60, order="score",
                                max_score=2)
    metric = RANKING_METRICS[name]
    for k in (2, 5):
        o, p = (run(name, truth, recs, k=k, ties=t) for t in ("optimistic", "pessimistic"))
        # see test_expected_average_precision_lies_between_the_bounds for AP
        e = run(name, truth, recs, k=k, ties="expected") \
            if metric.expected_ties and name != "map" else p
        if not metric.higher_is_better:  # the best order is the smallest value
            o, e, p = -o, -e, -p
        assert o.isna().equals(p.isna()) and e.isna().equals(p.isna())
        o, e, p = o.dropna(), e.dropna(), p.dropna()
        assert (o >= e - TOL).all() and (e >= p - TOL).all(), k
        assert (o > p).any()  # the data has ties that matter


# The smallest case where the engine's "expected" AP leaves the range of possible values:
# item 0 scores 1, items 1 and 2 tie at 0, only item 2 is relevant, k = 3. The two orders give
# AP 1/2 and 1/3, so E[AP] = 5/12; AP of the expected hit vector (0, 1/2, 1/2) is 7/24, below
# even the pessimistic 1/3.
AP_TRUTH = pd.DataFrame({"user_id": [1], "item_id": [2], "rating": [5.0]})
AP_RECS = pd.DataFrame({"user_id": 1, "item_id": [0, 1, 2], "score": [1.0, 0.0, 0.0]})


def test_ap_brute_force_example() -> None:
    # The reference numbers of the example above, independently of the engine.
    assert expected_ap_exact([[0], [0, 1]], n_rel=1, k=3) == pytest.approx(5 / 12)
    assert average_precision_at_k(AP_TRUTH, AP_RECS, k=3, ties="optimistic").iloc[0] == 0.5
    assert average_precision_at_k(AP_TRUTH, AP_RECS, k=3, ties="pessimistic").iloc[0] \
        == pytest.approx(1 / 3)


def test_expected_average_precision_lies_between_the_bounds() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TieWarning)
        e = average_precision_at_k(AP_TRUTH, AP_RECS, k=3, ties="expected").iloc[0]
    assert 1 / 3 <= e <= 1 / 2
    assert e == pytest.approx(5 / 12, abs=TOL)


@pytest.mark.parametrize("ap_denominator", ["min", "relevant"])
def test_expected_average_precision_is_the_mean_over_orders(ap_denominator: str) -> None:
    truth, recs = random_frames(np.random.default_rng(12), n_users=30, order="score",
                                max_score=2, max_list=6)
    got = run("map", truth, recs, k=4, ties="expected", ap_denominator=ap_denominator)
    bf = brute_force("map", truth, recs, k=4, ap_denominator=ap_denominator)
    defined = got.dropna()
    np.testing.assert_allclose(defined, bf.loc[defined.index, "mean"], rtol=TOL, atol=TOL)


def test_optimistic_is_not_the_best_order_for_ap_over_hits() -> None:
    # A property of the definition, not of the engine: with D = number of hits, AP is the mean
    # precision at the hits, so an extra late hit can lower it. Relevant first within a tie
    # group is then not the best order. Items 0..4, relevant 0 and 3, items 3 and 4 tied at
    # positions 4-5, k = 4: relevant-first gives (1 + 2/4) / 2 = 0.75, relevant-last 1.
    truth = pd.DataFrame({"user_id": 1, "item_id": [0, 3], "rating": 5.0})
    recs = pd.DataFrame({"user_id": 1, "item_id": range(5), "score": [4.0, 3, 2, 1, 1]})
    opt, pess = (run("map", truth, recs, k=4, ties=t, ap_denominator="hits").iloc[0]
                 for t in ("optimistic", "pessimistic"))
    assert (opt, pess) == (pytest.approx(0.75), pytest.approx(1.0))


@pytest.mark.parametrize("ids", ["int", "str"])
@pytest.mark.parametrize("name", NAMES)
def test_deterministic_is_item_id_order(name: str, ids: str) -> None:
    # The same lists given as explicit ranks: sorted by descending score, then item_id
    # ascending (for string ids lexicographic, so "i10" comes before "i2").
    truth, recs = random_frames(np.random.default_rng(3), n_users=40, order="score", ids=ids,
                                max_score=2, n_items=25)
    ranked = recs.sort_values(["user_id", "score", "item_id"], ascending=[True, False, True])
    ranked = ranked.assign(rank=ranked.groupby("user_id").cumcount() + 1).drop(columns="score")
    for k in (1, 3, 6):
        got = run(name, truth, recs, k=k, ties="deterministic")
        want = run(name, truth, ranked, k=k, ties="deterministic")
        pd.testing.assert_series_equal(got, want, check_exact=False, rtol=TOL, atol=TOL)


def _straddling(recs: pd.DataFrame, k: int) -> int:
    """Users with a run of equal scores covering positions k and k + 1 (loop: reference)."""
    n = 0
    for _, group in recs.groupby("user_id"):
        s = sorted(group["score"].tolist(), reverse=True)
        if len(s) > k and s[k - 1] == s[k]:
            n += 1
    return n


def test_tie_warning_names_the_number_of_straddling_users() -> None:
    recs = pd.DataFrame({
        "user_id": [1] * 3 + [2] * 3 + [3] * 4 + [4] * 2 + [5] * 3,
        "item_id": [1, 2, 3, 1, 2, 3, 1, 2, 3, 4, 1, 2, 1, 2, 3],
        "score": [3.0, 2, 2,   # straddles k = 2
                  2, 2, 1,     # tie inside the top 2 only
                  3, 2, 1, 1,  # tie below the cutoff only
                  5, 5,        # tie, but the list ends at k
                  1, 1, 1],    # straddles
    })
    truth = pd.DataFrame({"user_id": [1, 2, 3, 4, 5], "item_id": 1, "rating": 5.0})
    assert _straddling(recs, 2) == 2
    for name in NAMES:
        metric = RANKING_METRICS[name]
        if not metric.at_k:
            continue
        for ties in ("deterministic", "optimistic", "pessimistic"):
            with pytest.warns(TieWarning) as record:
                metric.func(truth, recs, k=2, ties=ties)
            assert len(record) == 1
            message = str(record[0].message)
            assert message.startswith(f"{metric.func.__name__}: 2 user(s)"), message
            assert "k=2" in message


def test_tie_warning_points_at_the_caller() -> None:
    truth = pd.DataFrame({"user_id": [1], "item_id": [2], "rating": [5.0]})
    recs = pd.DataFrame({"user_id": 1, "item_id": [1, 2], "score": [1.0, 1.0]})
    with pytest.warns(TieWarning) as record:
        RANKING_METRICS["precision"].func(truth, recs, k=1)
    assert record[0].filename == __file__


@settings(max_examples=15, deadline=None)
@given(frames=cases(order="score", max_list=6, max_score=2), k=st.integers(1, 6))
def test_tie_warning_count_on_random_data(frames, k: int) -> None:
    truth, recs = frames
    recs = recs[recs["user_id"].isin(truth["user_id"])]  # users only in recs are ignored
    want = _straddling(recs, k)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        series = RANKING_METRICS["precision"].func(truth, recs, k=k)
    ties = [w for w in record if issubclass(w.category, TieWarning)]
    if want:
        assert len(ties) == 1
        assert int(re.search(r": (\d+) user", str(ties[0].message)).group(1)) == want
    else:
        assert not ties
    assert series.tied_users == want


def test_no_tie_warning_with_ranks() -> None:
    # Ranks decide the order; scores (even tied ones) are ignored, and nothing is tied.
    truth = pd.DataFrame({"user_id": [1], "item_id": [2], "rating": [5.0]})
    recs = pd.DataFrame({"user_id": 1, "item_id": [1, 2, 3], "rank": [1, 2, 3],
                         "score": [1.0, 1.0, 1.0]})
    for name, metric in RANKING_METRICS.items():
        with warnings.catch_warnings():
            warnings.simplefilter("error", TieWarning)
            kw = {"k": 1} if metric.at_k else {}
            for ties in ("deterministic", "optimistic", "pessimistic", "expected"):
                value = metric.func(truth, recs, ties=ties, **kw)
            # item 2 is at rank 2 whatever the tie policy
        if name == "r_precision":
            assert value.iloc[0] == 0.0


def test_no_tie_warning_under_expected_nor_from_curves() -> None:
    # "expected" averages over the tie orders, so nothing is left to chance; ranking_curves
    # documents that it never warns (every tie group straddles some cutoff).
    truth = pd.DataFrame({"user_id": [1], "item_id": [2], "rating": [5.0]})
    recs = pd.DataFrame({"user_id": 1, "item_id": [1, 2, 3], "score": [1.0, 1.0, 1.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("error", TieWarning)
        value = RANKING_METRICS["precision"].func(truth, recs, k=1, ties="expected")
        ranking_curves(truth, recs, k_max=3)
    assert value.iloc[0] == pytest.approx(1 / 3)
    assert value.tied_users == 1


@pytest.mark.parametrize(
    ("name", "k", "want"),
    [
        # one relevant item among 4 tied: E[P@2] = 2 * 1/4 / 2, E[HR@2] = 1/2,
        # E[RR@4] = (1 + 1/2 + 1/3 + 1/4) / 4, E[DCG@4] with gain 5 = 5/4 * sum 1/log2(i+1)
        ("precision", 2, 0.25),
        ("hit_rate", 2, 0.5),
        ("mrr", 4, (1 + 1 / 2 + 1 / 3 + 1 / 4) / 4),
        ("recall", 3, 0.75),
        ("dcg", 4, 5 / 4 * sum(1 / np.log2(i + 1) for i in range(1, 5))),
    ],
)
def test_expected_hand_computed(name: str, k: int, want: float) -> None:
    truth = pd.DataFrame({"user_id": [7], "item_id": ["c"], "rating": [5.0]})
    recs = pd.DataFrame({"user_id": 7, "item_id": list("abcd"), "score": 0.5})
    assert run(name, truth, recs, k=k, ties="expected").iloc[0] == pytest.approx(want, abs=TOL)


def test_expected_mrr_two_relevant_in_a_group() -> None:
    # 5 tied items, 2 relevant: P(first relevant at t) = C(4 - t, 1) / C(5, 2) for t = 0..3,
    # i.e. 4/10, 3/10, 2/10, 1/10; E[RR] = 0.4 + 0.15 + 0.2/3 + 0.025.
    truth = pd.DataFrame({"user_id": 1, "item_id": [3, 5], "rating": 4.0})
    recs = pd.DataFrame({"user_id": 1, "item_id": [1, 2, 3, 4, 5], "score": 0.0})
    want = 0.4 + 0.3 / 2 + 0.2 / 3 + 0.1 / 4
    assert run("mrr", truth, recs, k=5, ties="expected").iloc[0] == pytest.approx(want, abs=TOL)
    assert run("mrr", truth, recs, k=2, ties="expected").iloc[0] == pytest.approx(0.55, abs=TOL)
    assert run("hit_rate", truth, recs, k=2, ties="expected").iloc[0] == pytest.approx(0.7)
