"""Tests for evalkit.metrics.beyond: coverage, Gini, novelty, diversity, serendipity."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.metrics.beyond import (
    catalog_coverage,
    gini_index,
    intra_list_diversity,
    novelty,
    serendipity,
    user_coverage,
)

GENRES = ["Action", "Comedy", "Drama", "Horror", "Romance"]


def random_world(seed: int, n_users: int = 8, n_items: int = 15, max_len: int = 8):
    """Train, test truth, recommendations (by rank) and an items frame."""
    rng = np.random.default_rng(seed)
    pairs = pd.DataFrame(
        [(u, i) for u in range(n_users) for i in range(n_items) if rng.random() < 0.35],
        columns=["user_id", "item_id"],
    )
    in_test = rng.random(len(pairs)) < 0.3
    train = pairs[~in_test].reset_index(drop=True)
    truth = pairs[in_test].reset_index(drop=True)
    truth["rating"] = rng.integers(1, 6, len(truth)).astype(float)
    rows = []
    for u in range(n_users + 2):  # two users only in the recommendations
        for rank, item in enumerate(rng.permutation(n_items + 3)[: rng.integers(0, max_len)], 1):
            rows.append((u, int(item), rank))
    recs = pd.DataFrame(rows, columns=["user_id", "item_id", "rank"])
    items = pd.DataFrame(
        {
            "item_id": np.arange(n_items),
            "genres": [list(rng.choice(GENRES, rng.integers(0, 4), replace=False))
                       for _ in range(n_items)],
        }
    )
    return train, truth, recs, items


def top_lists(recs, k):
    """User -> list of items in rank order, top k (readable reference)."""
    out = {}
    for row in recs.sort_values(["user_id", "rank"]).itertuples():
        if row.rank <= k:
            out.setdefault(row.user_id, []).append(row.item_id)
    return out


def frames_unchanged(*frames):
    copies = [f.copy(deep=True) for f in frames]

    def check():
        for f, c in zip(frames, copies):
            pd.testing.assert_frame_equal(f, c)

    return check


# ------------------------------------------------------------------------------------ coverage


def test_catalog_coverage_hand():
    recs = pd.DataFrame(
        {"user_id": [1, 1, 1, 2, 2], "item_id": [10, 11, 12, 10, 13], "rank": [1, 2, 3, 1, 2]}
    )
    train = pd.DataFrame({"user_id": [5, 5, 6, 6], "item_id": [10, 11, 13, 14]})
    assert catalog_coverage(recs, k=1, catalog=train) == 1 / 4  # {10}
    assert catalog_coverage(recs, k=2, catalog=[10, 11, 13, 14]) == 3 / 4  # {10, 11, 13}
    with pytest.warns(UserWarning, match="1 recommended item"):  # 12 is not in the catalog
        assert catalog_coverage(recs, k=3, catalog=np.array([10, 11, 13, 14])) == 3 / 4


def test_user_coverage_hand():
    truth = pd.DataFrame({"user_id": [1, 2, 3, 4], "item_id": 1, "rating": 4.0})
    recs = pd.DataFrame({"user_id": [1, 1, 3, 9], "item_id": [1, 2, 1, 1], "rank": [1, 5, 3, 1]})
    assert user_coverage(truth, recs, k=10) == 0.5
    assert user_coverage(truth, recs, k=2) == 0.25  # user 3's only item is at rank 3
    with pytest.warns(RuntimeWarning, match="no users"):
        assert np.isnan(user_coverage(truth.iloc[:0], recs))


def naive_gini(counts):
    x = np.asarray(counts, dtype=float)
    n = len(x)
    diffs = sum(abs(a - b) for a in x for b in x)
    return diffs / (2 * n * n * x.mean())


def test_gini_hand():
    recs = pd.DataFrame({"user_id": [1, 2, 3], "item_id": [7, 8, 9], "rank": 1})
    assert gini_index(recs, k=1) == 0.0  # equal exposure
    assert gini_index(recs, k=1, catalog=[7, 8, 9, 10]) == pytest.approx(naive_gini([1, 1, 1, 0]))
    monopoly = pd.DataFrame({"user_id": [1, 2, 3], "item_id": 7, "rank": 1})
    assert gini_index(monopoly, k=1, catalog=range(7, 12)) == pytest.approx(4 / 5)
    with pytest.warns(RuntimeWarning, match="no item is recommended"):
        assert np.isnan(gini_index(recs.iloc[:0], k=1))


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(1, 6))
def test_gini_matches_naive(seed, k):
    _, _, recs, _ = random_world(seed)
    lists = top_lists(recs, k)
    counts = pd.Series([i for items in lists.values() for i in items]).value_counts()
    catalog = np.arange(20)
    if counts.sum() == 0:
        return
    assert gini_index(recs, k=k) == pytest.approx(naive_gini(counts.to_numpy()), abs=1e-12)
    with_zeros = counts.reindex(catalog, fill_value=0)
    expected = naive_gini(with_zeros.to_numpy())
    assert gini_index(recs, k=k, catalog=catalog) == pytest.approx(expected, abs=1e-12)
    assert 0.0 <= expected <= (len(catalog) - 1) / len(catalog)


# ------------------------------------------------------------------------------------- novelty


def test_novelty_hand():
    train = pd.DataFrame({"user_id": [1, 2, 3, 4, 1, 1], "item_id": [10, 10, 10, 10, 11, 11]})
    recs = pd.DataFrame(
        {"user_id": [5, 5, 6, 6], "item_id": [10, 11, 12, 10], "score": [0.9, 0.1, 1.0, 0.0]}
    )
    got = novelty(recs, train, k=1)
    # user 5: item 10, seen by all 4 users -> 0; user 6: item 12 unseen -> -log2(1/5)
    assert got.to_dict() == pytest.approx({5: 0.0, 6: math.log2(5)})
    got = novelty(recs, train, k=2)
    # item 11 seen by one of 4 users (twice, counted once) -> 2 bits
    assert got.to_dict() == pytest.approx({5: 1.0, 6: math.log2(5) / 2})
    assert got.name == "novelty"


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(1, 6))
def test_novelty_matches_naive_and_bounds(seed, k):
    train, _, recs, _ = random_world(seed)
    check = frames_unchanged(train, recs)
    got = novelty(recs, train, k=k)
    n = train["user_id"].nunique()
    expected = {}
    for user, items in top_lists(recs, k).items():
        bits = []
        for item in items:
            users = set(train.loc[train["item_id"] == item, "user_id"])
            pop = len(users) / n if users else 1 / (n + 1)
            bits.append(-math.log2(pop))
        expected[user] = sum(bits) / len(bits)
    assert got.to_dict() == pytest.approx(expected)
    assert ((got >= 0) & (got <= math.log2(n + 1) + 1e-12)).all()
    check()


# ----------------------------------------------------------------------- intra-list diversity


def naive_ild(items_in_list, genres):
    def vector(item):
        return np.array([g in genres.get(item, []) for g in GENRES], dtype=float)

    sims = []
    for a, b in itertools.combinations(items_in_list, 2):
        va, vb = vector(a), vector(b)
        norm = np.linalg.norm(va) * np.linalg.norm(vb)
        sims.append(float(va @ vb) / norm if norm else 0.0)
    return 1.0 - sum(sims) / len(sims)


def test_ild_hand():
    items = pd.DataFrame(
        {
            "item_id": [1, 2, 3, 4],
            "genres": [["Drama"], ["Drama", "Comedy"], ["Horror"], []],
        }
    )
    recs = pd.DataFrame(
        {"user_id": [7, 7, 7, 8, 8, 9], "item_id": [1, 2, 3, 1, 4, 1], "rank": [1, 2, 3, 1, 2, 1]}
    )
    got = intra_list_diversity(recs, items, k=3)
    # user 7: cos(1,2) = 1/sqrt(2), others 0 -> 1 - (1/sqrt(2))/3; user 8: item 4 has no
    # genres -> similarity 0 -> 1; user 9: one item, undefined
    assert got.to_dict() == pytest.approx({7: 1 - 1 / math.sqrt(2) / 3, 8: 1.0})
    assert got.dropped == {"undefined": 1}
    assert intra_list_diversity(recs, items, k=3, empty="zero").loc[9] == 0.0
    assert np.isnan(intra_list_diversity(recs, items, k=3, empty="nan").loc[9])
    same = pd.DataFrame({"user_id": 1, "item_id": [1, 1 + 10], "rank": [1, 2]})
    twin = pd.concat([items, pd.DataFrame({"item_id": [11], "genres": [["Drama"]]})])
    assert intra_list_diversity(same, twin).loc[1] == pytest.approx(0.0, abs=1e-12)


def test_ild_unknown_items_warn():
    items = pd.DataFrame({"item_id": [1, 2], "genres": [["Drama"], ["Drama"]]})
    recs = pd.DataFrame({"user_id": 1, "item_id": [1, 2, 3], "rank": [1, 2, 3]})
    with pytest.warns(UserWarning, match="1 recommended item"):
        got = intra_list_diversity(recs, items)
    assert got.loc[1] == pytest.approx(1 - 1 / 3)  # pairs: (1,2) = 1, (1,3) = (2,3) = 0


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(1, 8))
def test_ild_matches_naive_and_bounds(seed, k):
    _, _, recs, items = random_world(seed, n_items=15)
    items = items[items["item_id"] < 15]
    recs = recs[recs["item_id"] < 15]
    check = frames_unchanged(recs, items)
    got = intra_list_diversity(recs, items, k=k, empty="nan")
    genres = dict(zip(items["item_id"], items["genres"]))
    for user, lst in top_lists(recs, k).items():
        if len(lst) < 2:
            assert np.isnan(got.loc[user])
        else:
            assert got.loc[user] == pytest.approx(naive_ild(lst, genres), abs=1e-12)
    defined = got.dropna()
    assert ((defined >= 0) & (defined <= 1)).all()
    check()


# --------------------------------------------------------------------------------- serendipity


def naive_serendipity(truth, recs, train, k, threshold):
    """Readable reference: popularity list per user, skipping the user's train items."""
    pop = train.drop_duplicates().groupby("item_id")["user_id"].nunique()
    ranking = sorted(pop.index, key=lambda i: (-pop[i], i))
    lists = top_lists(recs, k)
    out = {}
    for user in sorted(truth["user_id"].unique()):
        seen = set(train.loc[train["user_id"] == user, "item_id"])
        baseline = [i for i in ranking if i not in seen][:k]
        rows = truth[truth["user_id"] == user]
        relevant = set(rows.loc[rows["rating"] >= threshold, "item_id"])
        hits = [i for i in lists.get(user, []) if i in relevant and i not in baseline]
        out[user] = len(hits) / k
    return out


def test_serendipity_hand():
    train = pd.DataFrame({"user_id": [2, 3, 3, 4, 1], "item_id": [10, 10, 11, 12, 11]})
    truth = pd.DataFrame(
        {
            "user_id": [1, 1, 1, 1, 5],
            "item_id": [10, 12, 13, 14, 10],
            "rating": [5.0, 4.0, 2.0, 5.0, 5.0],
        }
    )
    recs = pd.DataFrame(
        {"user_id": [1, 1, 1, 1, 9], "item_id": [10, 12, 13, 14, 10], "rank": [1, 2, 3, 4, 1]}
    )
    # popularity: 10 (2 users), then 11 and 12 (1 user each; 11 first by id). User 1 has 11
    # in train, so their baseline is 10, 12: at k = 2 nothing relevant is unexpected.
    got = serendipity(truth, recs, train, k=2)
    assert got.to_dict() == {1: 0.0, 5: 0.0}  # user 5 has no recommendations: 0
    assert got.dropped == {"recs_only": 1}
    # at k = 4, 14 is relevant and never seen in train, so not in the baseline
    assert serendipity(truth, recs, train, k=4).loc[1] == 0.25
    # threshold None: every test item is relevant, 13 counts too
    assert serendipity(truth, recs, train, k=4, threshold=None).loc[1] == 0.5
    # a given baseline frame replaces the popularity lists
    baseline = pd.DataFrame({"user_id": [1], "item_id": [12], "score": [1.0]})
    assert serendipity(truth, recs, train, k=2, baseline=baseline).loc[1] == 0.5


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(1, 6))
def test_serendipity_matches_naive_and_bounds(seed, k):
    train, truth, recs, _ = random_world(seed)
    if truth.empty:
        return
    check = frames_unchanged(train, truth, recs)
    got = serendipity(truth, recs, train, k=k)
    assert got.to_dict() == pytest.approx(naive_serendipity(truth, recs, train, k, 4.0))
    assert ((got >= 0) & (got <= 1)).all()
    assert list(got.index) == sorted(truth["user_id"].unique())
    check()


# ---------------------------------------------------------------------------- ranks from score


def test_scores_rank_descending_ties_by_item_id():
    recs = pd.DataFrame({"user_id": 1, "item_id": [3, 1, 2], "score": [0.5, 0.5, 0.9]})
    # order 2, 1, 3
    assert catalog_coverage(recs, k=2, catalog=[1, 2, 3]) == pytest.approx(2 / 3)
    with pytest.warns(UserWarning):
        assert catalog_coverage(recs, k=1, catalog=[1, 3]) == 0.0
    with pytest.warns(UserWarning, match="1 recommended item"):
        assert catalog_coverage(recs, k=2, catalog=[1]) == 1.0


# ---------------------------------------------------------------------------------- bad input


def small():
    recs = pd.DataFrame({"user_id": [1, 1], "item_id": [1, 2], "rank": [1, 2]})
    truth = pd.DataFrame({"user_id": [1], "item_id": [1], "rating": [5.0]})
    train = pd.DataFrame({"user_id": [2, 2], "item_id": [1, 2]})
    items = pd.DataFrame({"item_id": [1, 2], "genres": [["Drama"], ["Comedy"]]})
    return recs, truth, train, items


CALLS = {
    "catalog_coverage": lambda recs, truth, train, items, k: catalog_coverage(
        recs, k=k, catalog=train
    ),
    "user_coverage": lambda recs, truth, train, items, k: user_coverage(truth, recs, k=k),
    "gini_index": lambda recs, truth, train, items, k: gini_index(recs, k=k, catalog=train),
    "novelty": lambda recs, truth, train, items, k: novelty(recs, train, k=k),
    "intra_list_diversity": lambda recs, truth, train, items, k: intra_list_diversity(
        recs, items, k=k
    ),
    "serendipity": lambda recs, truth, train, items, k: serendipity(truth, recs, train, k=k),
}


@pytest.mark.parametrize("name", list(CALLS))
@pytest.mark.parametrize("k", [0, -3, 1.5, None])
def test_bad_k(name, k):
    with pytest.raises(ValueError, match=f"{name}: 'k' must be a positive integer"):
        CALLS[name](*small(), k)


@pytest.mark.parametrize("name", list(CALLS))
def test_bad_recs(name):
    recs, truth, train, items = small()
    with pytest.raises(ValueError, match="needs a 'rank' or a 'score' column"):
        CALLS[name](recs.drop(columns="rank"), truth, train, items, 2)
    with pytest.raises(ValueError, match="'recs' is missing column"):
        CALLS[name](recs.drop(columns="item_id"), truth, train, items, 2)
    with pytest.raises(ValueError, match="'score' has 1 infinite"):
        CALLS[name](recs.assign(score=[np.inf, 1.0]).drop(columns="rank"), truth, train, items, 2)
    column = "user_id" if name == "user_coverage" else "item_id"
    with pytest.raises(TypeError, match=f"'{column}' holds (string|integer) ids in"):
        CALLS[name](recs.astype({column: str}), truth, train, items, 2)


@pytest.mark.parametrize("name", list(CALLS))
def test_inputs_unchanged(name):
    frames = small()
    check = frames_unchanged(*frames)
    CALLS[name](*frames, 2)
    check()


def test_other_bad_inputs():
    recs, truth, train, items = small()
    with pytest.raises(ValueError, match="'catalog' must hold at least one item"):
        catalog_coverage(recs, catalog=[])
    with pytest.raises(TypeError, match="'catalog' must be a DataFrame"):
        catalog_coverage(recs, catalog=5)
    with pytest.raises(ValueError, match="'catalog' is missing column"):
        gini_index(recs, catalog=truth.drop(columns="item_id"))
    with pytest.raises(ValueError, match="'train' must hold at least one interaction"):
        novelty(recs, train.iloc[:0])
    with pytest.raises(ValueError, match="'truth' column 'rating' has 1 NaN"):
        serendipity(truth.assign(rating=np.nan), recs, train)
    with pytest.raises(TypeError, match="'threshold' must be a number"):
        serendipity(truth, recs, train, threshold="4")
    with pytest.raises(ValueError, match="unknown empty 'none'; valid values are 'drop', 'zero'"):
        intra_list_diversity(recs, items, empty="none")
    with pytest.raises(TypeError, match="'genres' must hold a list"):
        intra_list_diversity(recs, items.assign(genres=["Drama|Comedy", "Drama"]))
    with pytest.raises(ValueError, match="duplicate item ids"):
        intra_list_diversity(recs, pd.concat([items, items]))
    with pytest.raises(ValueError, match="'baseline' needs a 'rank' or a 'score'"):
        serendipity(truth, recs, train, baseline=recs.drop(columns="rank"))
