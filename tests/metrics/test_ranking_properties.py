"""Properties every ranking metric must have, driven by the registry: adding a metric to
``RANKING_METRICS`` covers it here.

Which metrics reach their maximum on a perfect list (the user's test items sorted by rating,
so relevant items first), with |R_u| relevant items and cutoff k:

- NDCG, R-precision, RR, half-life utility and AP with D = min(k, |R_u|): 1, always.
- HR, and AP with D = hits: 1 as soon as |R_u| >= 1.
- P@k: 1 only when k <= |R_u| (otherwise |R_u| / k).
- R@k, R-precision cut at k and AP with D = |R_u|: 1 only when k >= |R_u| (otherwise
  k / |R_u|).
- F1@k: 1 only when k = |R_u|.
- DCG: unbounded; the perfect list attains IDCG, the largest DCG of any order.
"""

from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalkit.metrics import RANKING_METRICS, TieWarning, ranking_curves
from tests.metrics.naive import RATINGS, cases, naive_metric, random_frames

NAMES = list(RANKING_METRICS)
TOL = 1e-12
SETTINGS = settings(max_examples=10, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def call(name: str, truth: pd.DataFrame, recs: pd.DataFrame, k: int = 5,
         **options: object) -> pd.Series:
    metric = RANKING_METRICS[name]
    kw = dict(options)
    if metric.at_k:
        kw["k"] = k
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TieWarning)
        return metric.func(truth, recs, **kw)


def relevant_count(truth: pd.DataFrame, name: str, threshold: float | None = 4.0) -> pd.Series:
    if name == "half_life_utility":
        threshold = None
    rel = truth["rating"] >= threshold if threshold is not None else truth["rating"] >= -np.inf
    return rel.groupby(truth["user_id"]).sum()


@pytest.mark.parametrize("name", NAMES)
def test_registry_entry(name: str) -> None:
    # What the family-wide tests read from a declaration is there and consistent.
    metric = RANKING_METRICS[name]
    assert metric.name == name and metric.family == "ranking"
    lo, hi = metric.bounds
    assert np.isfinite(lo) and lo < hi
    assert metric.label and metric.long_label and len(metric.formula) > 20
    assert (metric.kernel is not None) != (metric.per_user is not None)
    assert metric.expected_ties == (metric.kernel is not None)


def refused_ties(name: str, ties: str) -> bool:
    """Whether the metric refuses this tie policy (a metric from hits has no expectation
    over tie orders): checked here, and the caller's test stops."""
    if ties != "expected" or RANKING_METRICS[name].expected_ties:
        return False
    with pytest.raises(ValueError, match="ties='expected'"):
        call(name, *random_frames(np.random.default_rng(0), n_users=3), 3, ties=ties)
    return True


@pytest.mark.parametrize("name", NAMES)
@SETTINGS
@given(frames=cases(), k=st.sampled_from([1, 2, 4, 10]),
       ties=st.sampled_from(["deterministic", "optimistic", "pessimistic", "expected"]),
       empty=st.sampled_from(["drop", "zero", "nan"]))
def test_values_within_bounds_and_index_is_the_truth_users(name: str, frames, k: int,
                                                           ties: str, empty: str) -> None:
    truth, recs = frames
    if refused_ties(name, ties):
        return
    lo, hi = RANKING_METRICS[name].bounds
    if empty == "zero" and not lo <= 0 <= hi:  # 0 is no value of the metric: refused
        with pytest.raises(ValueError, match="empty='zero' would score"):
            call(name, truth, recs, k, ties=ties, empty=empty)
        return
    before = (truth.copy(deep=True), recs.copy(deep=True))
    got = call(name, truth, recs, k, ties=ties, empty=empty)
    # inputs unchanged: values, dtypes, index and columns
    for frame, copy in zip((truth, recs), before):
        assert frame.equals(copy) and list(frame.columns) == list(copy.columns)
        assert (frame.dtypes == copy.dtypes).all()
    values = got.dropna()
    assert ((values >= lo - TOL) & (values <= hi + TOL)).all()
    # the index: every truth user, in sorted order, minus the undefined ones under "drop"
    users = sorted(set(truth["user_id"].tolist()))
    undefined = call(name, truth, recs, k, ties=ties, empty="nan").isna()
    dropped = got.dropped
    if empty == "drop":
        assert got.index.tolist() == [u for u in users if not undefined[u]]
        assert dropped.get("undefined", 0) == int(undefined.sum())
        assert not got.isna().any()
    else:
        assert got.index.tolist() == users
        assert "undefined" not in dropped
        assert got.isna().sum() == (undefined.sum() if empty == "nan" else 0)
    recs_only = set(recs["user_id"].tolist()) - set(users)
    assert dropped.get("recs_only", 0) == len(recs_only)
    assert got.index.name == "user_id" and got.name == name
    assert got.n_users == int(got.notna().sum())


def varied_truth(rng: np.random.Generator, n_users: int = 60) -> pd.DataFrame:
    """Users with 1..14 test items, each relevant (rating >= 4) with probability 0.6."""
    sizes = np.arange(n_users) % 14 + 1
    user = np.repeat(np.arange(n_users), sizes)
    item = np.concatenate([rng.choice(50, size=n, replace=False) for n in sizes])
    rating = np.where(rng.random(user.size) < 0.6, rng.choice([4.0, 4.5, 5.0], user.size),
                      rng.choice([0.5, 1.0, 2.0, 3.0, 3.5], user.size))
    return pd.DataFrame({"user_id": user, "item_id": item, "rating": rating})


def perfect(truth: pd.DataFrame) -> pd.DataFrame:
    """Each user's test items by rating, best first: the ideal list."""
    ordered = truth.sort_values(["user_id", "rating"], ascending=[True, False])
    return ordered[["user_id", "item_id"]].assign(rank=ordered.groupby("user_id").cumcount() + 1)


def perfect_value(name: str, n_rel: pd.Series, k: int, ap_denominator: str) -> pd.Series:
    """The value of the perfect list, from the table in the module docstring."""
    one = pd.Series(1.0, index=n_rel.index)
    if name == "hit_rate":
        return (n_rel > 0).astype(float)  # always defined: 0 without relevant items
    if name == "precision":
        return np.minimum(n_rel, k) / k
    if name in ("recall", "r_precision_at_k"):
        return np.minimum(n_rel, k) / n_rel
    if name == "f1":
        p, r = np.minimum(n_rel, k) / k, np.minimum(n_rel, k) / n_rel
        return 2 * p * r / (p + r)
    if name == "map" and ap_denominator == "relevant":
        return np.minimum(n_rel, k) / n_rel
    return one


PERFECT_CASES = [(n, d) for n in NAMES if n != "dcg"
                 for d in (("min", "relevant", "hits") if n == "map" else ("min",))]


@pytest.mark.parametrize(("name", "ap_denominator"), PERFECT_CASES)
@pytest.mark.parametrize("k", [1, 3, 8])
def test_perfect_ranking(name: str, ap_denominator: str, k: int) -> None:
    truth = varied_truth(np.random.default_rng(5))
    options = {"ap_denominator": ap_denominator} if name == "map" else {}
    got = call(name, truth, perfect(truth), k, empty="drop", **options)
    n_rel = relevant_count(truth, name).loc[got.index]
    want = perfect_value(name, n_rel, k, ap_denominator)
    np.testing.assert_allclose(got, want, rtol=TOL, atol=TOL)
    assert (want == 1).any()  # the data reach the maximum ...
    if name in ("precision", "recall", "f1", "r_precision_at_k") or (
            name == "map" and ap_denominator == "relevant"):
        assert k == 1 or (want < 1).any()  # ... and the conditional cases fall short of it


@pytest.mark.parametrize("gain", ["linear", "exponential", "binary"])
@pytest.mark.parametrize("threshold", [4.0, None])
def test_perfect_ranking_ndcg_every_gain_and_dcg_is_largest(gain: str, threshold) -> None:
    rng = np.random.default_rng(9)
    truth = varied_truth(rng)
    best = perfect(truth)
    ndcg = call("ndcg", truth, best, 6, gain=gain, threshold=threshold)
    np.testing.assert_allclose(ndcg, 1.0, rtol=TOL)
    top = call("dcg", truth, best, 6, gain=gain, threshold=threshold)
    shuffled = best.assign(rank=best.groupby("user_id")["rank"].transform(
        lambda r: rng.permutation(r.to_numpy())))
    other = call("dcg", truth, shuffled, 6, gain=gain, threshold=threshold)
    assert (top >= other - TOL).all()
    if not (gain == "binary" and threshold is None):  # then every order has the same DCG
        assert (top > other + 1e-9).any()


@pytest.mark.parametrize("name", NAMES)
def test_no_hits_scores_zero(name: str) -> None:
    # Lists of items outside the test sets; and users without any recommendation.
    truth, _ = random_frames(np.random.default_rng(8), n_users=30, n_items=20)
    users = truth["user_id"].unique()
    recs = pd.DataFrame({"user_id": np.repeat(users[:20], 5),
                         "item_id": np.tile(np.arange(100, 105), 20),
                         "rank": np.tile(np.arange(1, 6), 20)})
    metric = RANKING_METRICS[name]
    for ties in ("deterministic", "expected"):
        if refused_ties(name, ties):
            continue
        if metric.higher_is_better:
            got = call(name, truth, recs, 5, empty="zero", ties=ties)
            assert (got == 0).all()
        else:  # the worst value where defined: the reference's (k + 1 for the first rank)
            got = call(name, truth, recs, 5, empty="nan", ties=ties)
            want = naive_metric(name, truth, recs, k=5, empty="nan", ties=ties)
            np.testing.assert_array_equal(got.to_numpy(), want.to_numpy())
            assert (got.dropna() == 6).all() and got.notna().any()
        assert got.index.tolist() == sorted(users.tolist())
        assert got.users_without_recs == 10 if metric.at_k else True


@pytest.mark.parametrize("name", NAMES)
def test_user_without_recs_scores_zero_and_is_never_dropped(name: str) -> None:
    truth = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [1, 2, 1], "rating": [5.0, 4.0, 5.0]})
    recs = pd.DataFrame({"user_id": [1, 3], "item_id": [1, 1], "rank": [1, 1]})
    got = call(name, truth, recs, 2, empty="drop")
    assert got.index.tolist() == [1, 2]
    if RANKING_METRICS[name].higher_is_better:
        assert got.loc[2] == 0.0 and got.loc[1] > 0
    else:  # user 2 gets the worst value, k + 1
        assert got.loc[2] == 3.0 and got.loc[1] == 1.0
    assert got.dropped == {"recs_only": 1}


@pytest.mark.parametrize("name", NAMES)
@settings(SETTINGS, max_examples=6)
@given(frames=cases(order="score"), k=st.sampled_from([1, 3, 10]), data=st.data(),
       ties=st.sampled_from(["deterministic", "expected"]))
def test_row_order_and_user_labels_do_not_matter(name: str, frames, k: int, ties: str,
                                                 data: st.DataObject) -> None:
    truth, recs = frames
    if refused_ties(name, ties):
        return
    want = call(name, truth, recs, k, ties=ties, empty="nan")
    # rows shuffled
    t_perm = data.draw(st.permutations(range(len(truth))))
    r_perm = data.draw(st.permutations(range(len(recs))))
    got = call(name, truth.iloc[t_perm], recs.iloc[r_perm], k, ties=ties, empty="nan")
    pd.testing.assert_series_equal(got, want, check_exact=False, rtol=TOL, atol=TOL)
    # users relabelled with a random injective map of a different order and kind
    users = sorted(set(truth["user_id"].tolist()) | set(recs["user_id"].tolist()))
    labels = data.draw(st.permutations(range(len(users))))
    as_str = data.draw(st.booleans())
    new = {u: (f"user{-j}" if as_str else 10_000 - 37 * j) for u, j in zip(users, labels)}
    relabel = {c: lambda f: f["user_id"].map(new) for c in ("user_id",)}
    got = call(name, truth.assign(**relabel), recs.assign(**relabel), k, ties=ties, empty="nan")
    back = {v: u for u, v in new.items()}
    got.index = got.index.map(back)
    pd.testing.assert_series_equal(got.sort_index(), want, check_exact=False, rtol=TOL,
                                   atol=TOL, check_index_type=False,
                                   check_series_type=False)  # a sorted result is a Series


def test_curves_inputs_unchanged_and_monotone() -> None:
    truth, recs = random_frames(np.random.default_rng(4), n_users=50, order="score")
    before = truth.copy(deep=True), recs.copy(deep=True)
    curves = ranking_curves(truth, recs, k_max=8, empty="zero")
    assert truth.equals(before[0]) and recs.equals(before[1])
    assert list(recs.columns) == list(before[1].columns)
    # cumulative quantities never decrease with k
    for col in ("recall", "hit_rate", "mrr"):
        assert (curves[col].diff().dropna() >= -TOL).all(), col
    assert ((curves["precision"] * curves.index).diff().dropna() >= -TOL).all()
    assert curves["precision"].iloc[0] == curves["hit_rate"].iloc[0]


@pytest.mark.parametrize("name", NAMES)
def test_string_categorical_and_object_ids_agree_with_integers(name: str) -> None:
    truth, recs = random_frames(np.random.default_rng(2), n_users=30, order="score")
    want = call(name, truth, recs, 4, empty="nan")

    def to(kind: str, frame: pd.DataFrame) -> pd.DataFrame:
        out = frame.copy()
        for col in ("user_id", "item_id"):
            # zero-padded so that the string order is the integer order
            text = out[col].map(lambda v: f"{v:04d}")
            out[col] = {"str": text, "object": text.astype(object),
                        "category": text.astype("category")}[kind]
        return out

    for kind in ("str", "object", "category"):
        got = call(name, to(kind, truth), to(kind, recs), 4, empty="nan")
        assert got.index.tolist() == [f"{u:04d}" for u in want.index], kind
        np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=TOL, atol=TOL,
                                   equal_nan=True, err_msg=kind)


def test_ratings_table_is_what_the_generators_use() -> None:
    # The random data mix relevant and non-relevant ratings around the default threshold.
    assert min(RATINGS) == 0.0 and any(r >= 4.0 for r in RATINGS)


def _peak_bytes(func, *args, **kwargs) -> int:
    tracemalloc.start()
    try:
        func(*args, **kwargs)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


TINY_TRUTH = pd.DataFrame({"user_id": [1, 2], "item_id": [1, 1], "rating": [5.0, 4.0]})
TINY_RECS = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [1, 2, 3], "rank": [1, 2, 1]})


@pytest.mark.parametrize("name", [n for n, m in RANKING_METRICS.items() if m.at_k])
def test_cutoff_beyond_the_lists(name: str) -> None:
    # k far beyond every list: the values are those at the list length (P@k divides by k).
    small = call(name, TINY_TRUTH, TINY_RECS, 2)
    large = call(name, TINY_TRUTH, TINY_RECS, 10**5)
    want = small * 2 / 10**5 if name in ("precision", "f1") else small
    if name == "first_relevant_rank":  # a user without a hit in the top k is at k + 1
        want = small.where(small <= 2, 10**5 + 1)
    if name == "f1":  # P = 1e-5, R = 1 for user 1
        want = pd.Series([2e-5 / (1e-5 + 1), 0.0], index=small.index, name="f1")
    np.testing.assert_allclose(large, want, rtol=TOL, atol=TOL)


@pytest.mark.parametrize("name", ["precision", "map", "ndcg"])
def test_memory_does_not_grow_with_k(name: str) -> None:
    func = RANKING_METRICS[name].func
    func(TINY_TRUTH, TINY_RECS, k=10)  # warm up imports and caches
    base = _peak_bytes(func, TINY_TRUTH, TINY_RECS, k=10)
    large = _peak_bytes(func, TINY_TRUTH, TINY_RECS, k=10**6)
    assert large - base < 4 << 20, (base, large)


def test_tiny_input_needs_little_memory() -> None:
    func = RANKING_METRICS["ndcg"].func
    func(TINY_TRUTH, TINY_RECS, k=10)
    assert _peak_bytes(func, TINY_TRUTH, TINY_RECS, k=10) < 4 << 20
