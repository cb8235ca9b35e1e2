"""Other libraries' conventions in evalkit.metrics.beyond (``gini_scale``, ``diversity_norm``,
``novelty_norm``, ``popularity``, ``coverage_unit``) and the metrics added with them
(personalization, average recommended popularity, exposure entropy, exposure Gini, mean
popularity rank): hand-computed values, naive per-user and per-pair references written as
plain loops, and properties. The libraries' own numbers are in test_beyond_references.py.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.metrics import beyond
from evalkit.metrics.beyond import (
    average_recommended_popularity,
    catalog_coverage,
    exposure_entropy,
    exposure_gini,
    gini_index,
    intra_list_diversity,
    mean_pop_rank,
    novelty,
    personalization,
)
from tests.metrics.test_beyond import (
    GENRES,
    frames_unchanged,
    naive_gini,
    random_world,
    top_lists,
)

SETTINGS = settings(max_examples=40, deadline=None)


def with_duplicates(train: pd.DataFrame, seed: int) -> pd.DataFrame:
    """``train`` with a few rows repeated, so that users and interactions differ."""
    rng = np.random.default_rng(seed)
    extra = train.sample(n=min(len(train), 3), random_state=int(rng.integers(1 << 30)))
    return pd.concat([train, extra], ignore_index=True)


# ------------------------------------------------------------------------------ naive versions


def naive_personalization(lists: dict) -> float:
    """1 - mean over pairs of users of the cosine of their binary item vectors."""
    sims = [len(set(a) & set(b)) / math.sqrt(len(a) * len(b))
            for a, b in itertools.combinations(lists.values(), 2)]
    return 1.0 - sum(sims) / len(sims)


def naive_popularity(train: pd.DataFrame, unit: str) -> tuple[dict, int]:
    """Item -> count (distinct users or rows), and the denominator."""
    if unit == "users":
        users = {}
        for row in train.itertuples():
            users.setdefault(row.item_id, set()).add(row.user_id)
        return {i: len(u) for i, u in users.items()}, len(set(train["user_id"]))
    counts = {}
    for item in train["item_id"]:
        counts[item] = counts.get(item, 0) + 1
    return counts, len(train)


def naive_novelty(lists, train, unit, norm) -> dict:
    counts, total = naive_popularity(train, unit)
    n_users = len(set(train["user_id"]))
    out = {}
    for user, items in lists.items():
        bits = [-math.log2(counts[i] / total if i in counts else 1 / (total + 1)) for i in items]
        value = sum(bits) / len(bits)
        out[user] = value / math.log2(n_users) if norm == "log2_users" else value
    return out


def naive_arp(lists, train, unit) -> dict:
    counts, total = naive_popularity(train, unit)
    scale = total if unit == "users" else 1
    return {u: sum(counts.get(i, 0) / scale for i in items) / len(items)
            for u, items in lists.items()}


def naive_entropy(lists) -> float:
    counts = {}
    for items in lists.values():
        for i in items:
            counts[i] = counts.get(i, 0) + 1
    total = sum(counts.values())
    return -sum(c / total * math.log2(c / total) for c in counts.values())


def naive_exposure(lists, weight, patience=0.85) -> dict:
    exposure = {}
    for items in lists.values():
        for rank, item in enumerate(items, 1):
            if weight == "geometric":
                w = patience ** (rank - 1)
            elif weight == "log":
                w = 1 / math.log2(max(rank, 2))
            else:
                w = 1.0
            exposure[item] = exposure.get(item, 0.0) + w
    return exposure


def naive_mean_pop_rank(lists, train, unit) -> dict:
    counts, _ = naive_popularity(train, unit)
    m = len(counts)
    quantile = {}
    for item, c in counts.items():
        below = sum(1 for x in counts.values() if x < c)
        ties = sum(1 for x in counts.values() if x == c)
        quantile[item] = (below + (ties + 1) / 2) / m  # average rank, ascending, over m
    return {u: sum(quantile.get(i, 0.0) for i in items) / len(items)
            for u, items in lists.items()}


# -------------------------------------------------------------------------- hand-made values


def test_gini_scale_hand():
    recs = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [10, 11, 10, 12],
                         "rank": [1, 2, 1, 2]})
    # exposures 1, 1, 2: G = (-2*1 + 0*1 + 2*2) / (3 * 4) = 1/6; unbiased 1/6 * 3/2 = 1/4
    assert gini_index(recs, k=2) == pytest.approx(1 / 6)
    assert gini_index(recs, k=2, gini_scale="unbiased") == pytest.approx(1 / 4)
    # with a catalog the unexposed item is part of n: G = 3/8, unbiased 3/8 * 4/3
    assert gini_index(recs, k=2, catalog=[10, 11, 12, 13], gini_scale="unbiased") == 0.5
    monopoly = pd.DataFrame({"user_id": [1, 2, 3], "item_id": 7, "rank": 1})
    assert gini_index(monopoly, k=1, catalog=range(7, 12), gini_scale="unbiased") == 1.0
    with pytest.warns(RuntimeWarning, match="one item only"):
        assert np.isnan(gini_index(monopoly, k=1, gini_scale="unbiased"))
    assert gini_index(monopoly, k=1) == 0.0  # standard: one item, no inequality


def test_diversity_norm_hand():
    items = pd.DataFrame({"item_id": [1, 2, 3, 4],
                          "genres": [["Drama"], ["Drama", "Comedy"], ["Horror"], []]})
    recs = pd.DataFrame({"user_id": [7, 7, 7, 9], "item_id": [1, 2, 3, 1], "rank": [1, 2, 3, 1]})
    # pairs: (1,2) distance 1 - 1/sqrt(2), (1,3) and (2,3) distance 1; sum over 3 items
    got = intra_list_diversity(recs, items, k=3, diversity_norm="length", empty="zero")
    assert got.to_dict() == pytest.approx({7: (3 - 1 / math.sqrt(2)) / 3, 9: 0.0})
    pairs = intra_list_diversity(recs, items, k=3)
    assert got.loc[7] == pytest.approx(pairs.loc[7] * (3 - 1) / 2)
    # a longer list of unrelated items leaves [0, 1] under "length", as Evidently's does
    many = pd.DataFrame({"user_id": 1, "item_id": [1, 3, 4, 5, 6], "rank": range(1, 6)})
    more = pd.concat([items, pd.DataFrame({"item_id": [5, 6], "genres": [["War"], ["Noir"]]})])
    assert intra_list_diversity(many, more, k=5, diversity_norm="length").loc[1] == 2.0


def test_novelty_options_hand():
    # 4 users; item 10 seen by all, 11 by user 1 (three rows), 12 never
    train = pd.DataFrame({"user_id": [1, 2, 3, 4, 1, 1, 1],
                          "item_id": [10, 10, 10, 10, 11, 11, 11]})
    recs = pd.DataFrame({"user_id": [5, 5, 6], "item_id": [10, 11, 12], "rank": [1, 2, 1]})
    assert novelty(recs, train).to_dict() == pytest.approx({5: 1.0, 6: math.log2(5)})
    assert novelty(recs, train, novelty_norm="log2_users").to_dict() == pytest.approx(
        {5: 0.5, 6: math.log2(5) / 2})
    # interactions: 7 rows, item 10 has 4, item 11 three, unseen 1 / 8
    got = novelty(recs, train, popularity="interactions")
    assert got.to_dict() == pytest.approx(
        {5: (math.log2(7 / 4) + math.log2(7 / 3)) / 2, 6: 3.0})
    one_user = pd.DataFrame({"user_id": [1, 1], "item_id": [10, 11]})
    with pytest.raises(ValueError, match="must be at least 2; got 1"):
        novelty(recs, one_user, novelty_norm="log2_users")


def test_coverage_unit_hand():
    recs = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [10, 11, 10, 12],
                         "rank": [1, 2, 1, 2]})
    assert catalog_coverage(recs, k=2, catalog=[10, 11, 12, 13], coverage_unit="count") == 3.0
    with pytest.warns(UserWarning, match="1 recommended item"):
        assert catalog_coverage(recs, k=2, catalog=[10, 11], coverage_unit="count") == 2.0


def test_personalization_hand():
    same = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [5, 6, 6, 5], "rank": [1, 2, 1, 2]})
    assert personalization(same, k=2) == pytest.approx(0.0, abs=1e-12)
    apart = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [5, 6, 7, 8], "rank": [1, 2, 1, 2]})
    assert personalization(apart, k=2) == 1.0
    # unequal lengths: |{5}| / sqrt(1 * 3)
    ragged = pd.DataFrame({"user_id": [1, 2, 2, 2], "item_id": [5, 5, 7, 8],
                           "rank": [1, 1, 2, 3]})
    assert personalization(ragged, k=3) == pytest.approx(1 - 1 / math.sqrt(3))
    with pytest.warns(RuntimeWarning, match="1 user"):
        assert np.isnan(personalization(same[same["user_id"] == 1], k=2))


def test_arp_hand():
    train = pd.DataFrame({"user_id": [1, 2, 3, 1, 1], "item_id": [10, 10, 10, 11, 11]})
    recs = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [10, 11, 12], "rank": [1, 2, 1]})
    got = average_recommended_popularity(recs, train)
    assert got.to_dict() == {1: 2.5, 2: 0.0}  # rows: 3 and 2; unseen 0
    assert got.name == "average_recommended_popularity"
    users = average_recommended_popularity(recs, train, popularity="users")
    assert users.to_dict() == pytest.approx({1: (1 + 1 / 3) / 2, 2: 0.0})


def test_exposure_entropy_hand():
    recs = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [10, 11, 12, 13],
                         "rank": [1, 2, 1, 2]})
    assert exposure_entropy(recs, k=2) == pytest.approx(2.0)  # four items, once each
    assert exposure_entropy(recs, k=1) == pytest.approx(1.0)
    one = pd.DataFrame({"user_id": [1, 2], "item_id": [10, 10], "rank": [1, 1]})
    assert exposure_entropy(one, k=1) == 0.0
    with pytest.warns(RuntimeWarning, match="no item is recommended"):
        assert np.isnan(exposure_entropy(recs.iloc[:0], k=1))


def test_exposure_gini_hand():
    recs = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [10, 11, 10, 12],
                         "rank": [1, 2, 1, 2]})
    # patience 0.5: exposures 2, 0.5, 0.5 -> (-2 * .5 + 0 + 2 * 2) / (3 * 3)
    assert exposure_gini(recs, k=2, patience=0.5) == pytest.approx(1 / 3)
    # log weight: ranks 1 and 2 both weigh 1 (log2 max(r, 2)), so it is the Gini of counts
    assert exposure_gini(recs, k=2, weight="log") == pytest.approx(gini_index(recs, k=2))
    assert exposure_gini(recs, k=2, weight="uniform", catalog=[10, 11, 12, 13]) == 0.375
    # rank gaps count: an item at rank 3 weighs patience ** 2
    gap = pd.DataFrame({"user_id": [1, 1], "item_id": [10, 11], "rank": [1, 3]})
    assert exposure_gini(gap, k=3, patience=0.5) == pytest.approx(
        naive_gini([1.0, 0.25]))


def test_mean_pop_rank_hand():
    train = pd.DataFrame({"user_id": [1, 2, 3, 1, 2, 1, 1],
                          "item_id": [10, 10, 10, 11, 12, 12, 12]})
    recs = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [10, 11, 13], "rank": [1, 2, 1]})
    # users: 10 -> 3, 11 -> 1, 12 -> 2: quantiles 1, 1/3, 2/3; 13 unseen -> 0
    assert mean_pop_rank(recs, train).to_dict() == pytest.approx({1: 2 / 3, 2: 0.0})
    # interactions: 10 -> 3, 11 -> 1, 12 -> 3 rows: 10 and 12 tie at average rank 2.5
    got = mean_pop_rank(recs, train, popularity="interactions")
    assert got.to_dict() == pytest.approx({1: (2.5 / 3 + 1 / 3) / 2, 2: 0.0})
    assert got.name == "mean_pop_rank"


# ------------------------------------------------------------------- against naive references


@SETTINGS
@given(seed=st.integers(0, 10_000), k=st.integers(1, 6))
def test_gini_scale_matches_naive(seed, k):
    _, _, recs, _ = random_world(seed)
    counts = pd.Series([i for items in top_lists(recs, k).values() for i in items]).value_counts()
    if len(counts) < 2:
        return
    n = len(counts)
    got = gini_index(recs, k=k, gini_scale="unbiased")
    assert got == pytest.approx(naive_gini(counts.to_numpy()) * n / (n - 1), abs=1e-12)
    assert 0.0 <= got <= 1.0 + 1e-12
    catalog = np.arange(20)
    zeros = counts.reindex(catalog, fill_value=0).to_numpy()
    got = gini_index(recs, k=k, catalog=catalog, gini_scale="unbiased")
    assert got == pytest.approx(naive_gini(zeros) * 20 / 19, abs=1e-12)


@SETTINGS
@given(seed=st.integers(0, 10_000), k=st.integers(1, 8))
def test_diversity_norm_matches_naive(seed, k):
    _, _, recs, items = random_world(seed)
    items = items[items["item_id"] < 15]
    recs = recs[recs["item_id"] < 15]
    got = intra_list_diversity(recs, items, k=k, diversity_norm="length", empty="nan")
    genres = dict(zip(items["item_id"], items["genres"]))
    for user, lst in top_lists(recs, k).items():
        if len(lst) < 2:
            assert np.isnan(got.loc[user])
            continue
        distance = sum(
            1.0 - (lambda va, vb: float(va @ vb) / (np.linalg.norm(va) * np.linalg.norm(vb))
                   if np.linalg.norm(va) * np.linalg.norm(vb) else 0.0)(
                np.array([g in genres[a] for g in GENRES], dtype=float),
                np.array([g in genres[b] for g in GENRES], dtype=float))
            for a, b in itertools.combinations(lst, 2)
        )
        assert got.loc[user] == pytest.approx(distance / len(lst), abs=1e-12)
        assert -1e-12 <= got.loc[user] <= (len(lst) - 1) / 2 + 1e-12


@SETTINGS
@given(seed=st.integers(0, 10_000), k=st.integers(1, 6),
       unit=st.sampled_from(["users", "interactions"]),
       norm=st.sampled_from(["none", "log2_users"]))
def test_novelty_options_match_naive(seed, k, unit, norm):
    train, _, recs, _ = random_world(seed)
    train = with_duplicates(train, seed)
    if train["user_id"].nunique() < 2:
        return
    check = frames_unchanged(train, recs)
    got = novelty(recs, train, k=k, novelty_norm=norm, popularity=unit)
    assert got.to_dict() == pytest.approx(naive_novelty(top_lists(recs, k), train, unit, norm))
    assert (got >= 0).all()
    check()


@SETTINGS
@given(seed=st.integers(0, 10_000), k=st.integers(1, 6))
def test_personalization_matches_naive(seed, k):
    _, _, recs, _ = random_world(seed, max_len=6)
    lists = top_lists(recs, k)
    check = frames_unchanged(recs)
    if len(lists) < 2:
        return
    got = personalization(recs, k=k)
    assert got == pytest.approx(naive_personalization(lists), abs=1e-12)
    assert 0.0 <= got <= 1.0
    # order of rows and of users does not matter
    shuffled = recs.sample(frac=1.0, random_state=seed)
    assert personalization(shuffled, k=k) == pytest.approx(got, abs=1e-12)
    check()


@SETTINGS
@given(seed=st.integers(0, 10_000), k=st.integers(1, 6))
def test_personalization_equal_lengths_is_the_count_formula(seed, k):
    """With k items per list: 1 - (sum c_i^2 - m k) / (k m (m - 1)), Evidently's formula."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 9))
    rows = [(u, int(i), r) for u in range(m)
            for r, i in enumerate(rng.choice(12, size=k, replace=False), 1)]
    recs = pd.DataFrame(rows, columns=["user_id", "item_id", "rank"])
    c = recs["item_id"].value_counts().to_numpy(dtype=float)
    expected = 1 - (np.sum(c**2) - m * k) / (k * m * (m - 1))
    assert personalization(recs, k=k) == pytest.approx(expected, abs=1e-12)


@SETTINGS
@given(seed=st.integers(0, 10_000), k=st.integers(1, 6),
       unit=st.sampled_from(["users", "interactions"]))
def test_arp_matches_naive(seed, k, unit):
    train, _, recs, _ = random_world(seed)
    train = with_duplicates(train, seed)
    check = frames_unchanged(train, recs)
    got = average_recommended_popularity(recs, train, k=k, popularity=unit)
    assert got.to_dict() == pytest.approx(naive_arp(top_lists(recs, k), train, unit))
    assert (got >= 0).all()
    if unit == "users":
        assert (got <= 1).all()
    check()


@SETTINGS
@given(seed=st.integers(0, 10_000), k=st.integers(1, 6))
def test_exposure_entropy_matches_naive(seed, k):
    _, _, recs, _ = random_world(seed)
    lists = top_lists(recs, k)
    if not lists:
        return
    got = exposure_entropy(recs, k=k)
    assert got == pytest.approx(naive_entropy(lists), abs=1e-12)
    n_items = len({i for items in lists.values() for i in items})
    assert 0.0 <= got <= math.log2(n_items) + 1e-12


@SETTINGS
@given(seed=st.integers(0, 10_000), k=st.integers(1, 6),
       weight=st.sampled_from(["geometric", "log", "uniform"]),
       patience=st.floats(0.05, 0.95))
def test_exposure_gini_matches_naive(seed, k, weight, patience):
    _, _, recs, _ = random_world(seed)
    lists = top_lists(recs, k)
    if not lists:
        return
    exposure = naive_exposure(lists, weight, patience)
    got = exposure_gini(recs, k=k, weight=weight, patience=patience)
    assert got == pytest.approx(naive_gini(list(exposure.values())), abs=1e-12)
    catalog = np.arange(20)
    with_zeros = [exposure.get(i, 0.0) for i in catalog]
    got = exposure_gini(recs, k=k, weight=weight, patience=patience, catalog=catalog)
    assert got == pytest.approx(naive_gini(with_zeros), abs=1e-12)
    assert 0.0 <= got <= 19 / 20
    if weight == "uniform":
        assert got == pytest.approx(gini_index(recs, k=k, catalog=catalog), abs=1e-12)


@SETTINGS
@given(seed=st.integers(0, 10_000), k=st.integers(1, 6),
       unit=st.sampled_from(["users", "interactions"]))
def test_mean_pop_rank_matches_naive(seed, k, unit):
    train, _, recs, _ = random_world(seed)
    train = with_duplicates(train, seed)
    check = frames_unchanged(train, recs)
    got = mean_pop_rank(recs, train, k=k, popularity=unit)
    assert got.to_dict() == pytest.approx(naive_mean_pop_rank(top_lists(recs, k), train, unit))
    assert ((got >= 0) & (got <= 1)).all()
    check()


# ----------------------------------------------------------- ranks from scores, bad arguments


def test_scores_rank_descending_ties_by_item_id():
    recs = pd.DataFrame({"user_id": [1, 1, 1, 2, 2], "item_id": [3, 1, 2, 1, 4],
                         "score": [0.5, 0.5, 0.9, 0.2, 0.2]})
    # user 1: 2, 1, 3; user 2: 1, 4 -> top 1: {2}, {1}
    as_ranks = pd.DataFrame({"user_id": [1, 1, 1, 2, 2], "item_id": [2, 1, 3, 1, 4],
                             "rank": [1, 2, 3, 1, 2]})
    train = pd.DataFrame({"user_id": [5, 5, 6], "item_id": [1, 2, 1]})
    for k in (1, 2, 3):
        assert personalization(recs, k=k) == personalization(as_ranks, k=k)
        assert exposure_entropy(recs, k=k) == exposure_entropy(as_ranks, k=k)
        assert exposure_gini(recs, k=k) == exposure_gini(as_ranks, k=k)
        pd.testing.assert_series_equal(average_recommended_popularity(recs, train, k=k),
                                       average_recommended_popularity(as_ranks, train, k=k))
        pd.testing.assert_series_equal(mean_pop_rank(recs, train, k=k),
                                       mean_pop_rank(as_ranks, train, k=k))


def small():
    recs = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [1, 2, 1], "rank": [1, 2, 1]})
    train = pd.DataFrame({"user_id": [2, 2, 3], "item_id": [1, 2, 1]})
    items = pd.DataFrame({"item_id": [1, 2], "genres": [["Drama"], ["Comedy"]]})
    return recs, train, items


CALLS = {
    "personalization": lambda recs, train, items, k: personalization(recs, k=k),
    "average_recommended_popularity": lambda recs, train, items, k:
        average_recommended_popularity(recs, train, k=k),
    "exposure_entropy": lambda recs, train, items, k: exposure_entropy(recs, k=k),
    "exposure_gini": lambda recs, train, items, k: exposure_gini(recs, k=k, catalog=train),
    "mean_pop_rank": lambda recs, train, items, k: mean_pop_rank(recs, train, k=k),
}
OPTIONS = [
    ("gini_index", "gini_scale", lambda v: gini_index(small()[0], gini_scale=v)),
    ("intra_list_diversity", "diversity_norm",
     lambda v: intra_list_diversity(small()[0], small()[2], diversity_norm=v)),
    ("novelty", "novelty_norm", lambda v: novelty(small()[0], small()[1], novelty_norm=v)),
    ("novelty", "popularity", lambda v: novelty(small()[0], small()[1], popularity=v)),
    ("catalog_coverage", "coverage_unit",
     lambda v: catalog_coverage(small()[0], catalog=[1, 2], coverage_unit=v)),
    ("average_recommended_popularity", "popularity",
     lambda v: average_recommended_popularity(small()[0], small()[1], popularity=v)),
    ("mean_pop_rank", "popularity", lambda v: mean_pop_rank(small()[0], small()[1], popularity=v)),
    ("exposure_gini", "weight", lambda v: exposure_gini(small()[0], weight=v)),
]


@pytest.mark.parametrize("name", list(CALLS))
@pytest.mark.parametrize("k", [0, -3, 1.5, None])
def test_bad_k(name, k):
    with pytest.raises(ValueError, match=f"{name}: 'k' must be a positive integer"):
        CALLS[name](*small(), k)


@pytest.mark.parametrize("name", list(CALLS))
def test_bad_recs(name):
    recs, train, items = small()
    with pytest.raises(ValueError, match="needs a 'rank' or a 'score' column"):
        CALLS[name](recs.drop(columns="rank"), train, items, 2)
    with pytest.raises(ValueError, match="'recs' is missing column"):
        CALLS[name](recs.drop(columns="item_id"), train, items, 2)


@pytest.mark.parametrize("name", ["average_recommended_popularity", "mean_pop_rank",
                                  "exposure_gini"])
def test_id_kinds(name):
    recs, train, items = small()
    with pytest.raises(TypeError, match="'item_id' holds (string|integer) ids in"):
        CALLS[name](recs.astype({"item_id": str}), train, items, 2)


@pytest.mark.parametrize("name", list(CALLS))
def test_inputs_unchanged(name):
    frames = small()
    check = frames_unchanged(*frames)
    CALLS[name](*frames, 2)
    check()


@pytest.mark.parametrize(("func", "arg", "call"), OPTIONS)
def test_unknown_option_names_the_valid_ones(func, arg, call):
    with pytest.raises(ValueError, match=f"^{func}: unknown {arg} 'nope'; valid values are '"):
        call("nope")


def test_option_constants_are_the_valid_values():
    assert beyond.GINI_SCALES == ("standard", "unbiased")
    assert beyond.DIVERSITY_NORMS == ("pairs", "length")
    assert beyond.NOVELTY_NORMS == ("none", "log2_users")
    assert beyond.POPULARITY_UNITS == ("users", "interactions")
    assert beyond.COVERAGE_UNITS == ("share", "count")
    assert beyond.EXPOSURE_WEIGHTS == ("geometric", "log", "uniform")


@pytest.mark.parametrize("patience", [0.0, 1.0, -0.5, 2])
def test_bad_patience(patience):
    with pytest.raises(ValueError, match="exposure_gini: 'patience' must be in the open"):
        exposure_gini(small()[0], patience=patience)
    with pytest.raises(TypeError, match="exposure_gini: 'patience' must be a number"):
        exposure_gini(small()[0], patience="0.5")


def test_empty_train():
    recs, train, _ = small()
    for func in (average_recommended_popularity, mean_pop_rank, novelty):
        with pytest.raises(ValueError, match="'train' must hold at least one interaction"):
            func(recs, train.iloc[:0])
