"""beyond_intervals: the per-user beyond-accuracy means of beyond_accuracy, with intervals that
resample users."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalkit.metrics import novelty
from evalkit.metrics.tables import PER_USER_BEYOND, beyond_accuracy, beyond_intervals


def _case(seed: int = 0):
    gen = np.random.default_rng(seed)
    train = pd.DataFrame({"user_id": gen.integers(0, 300, 6000),
                          "item_id": (gen.pareto(1.2, 6000) * 5).astype(int) % 200,
                          "rating": 4.0}).drop_duplicates(["user_id", "item_id"])
    test = pd.DataFrame({"user_id": np.repeat(np.arange(300), 3),
                         "item_id": gen.integers(0, 200, 900), "rating": 5.0}
                        ).drop_duplicates(["user_id", "item_id"])
    recs = pd.DataFrame({"user_id": np.repeat(np.arange(300), 10),
                         "item_id": np.concatenate([gen.choice(200, 10, replace=False)
                                                    for _ in range(300)]),
                         "rank": np.tile(np.arange(1, 11), 300)})
    items = pd.DataFrame({"item_id": np.arange(200),
                          "genres": [["a", "b", "c"][i % 3:i % 3 + 2] for i in range(200)]})
    return train, test, recs, items


def test_means_are_beyond_accuracys_and_intervals_cover_them() -> None:
    train, test, recs, items = _case()
    table = beyond_intervals(test, recs, train=train, items=items, k=10, rng=1)
    whole = beyond_accuracy(test, recs, train=train, items=items, k=10)
    assert list(table.index) == list(PER_USER_BEYOND)
    np.testing.assert_allclose(table["mean"], whole[list(PER_USER_BEYOND)], rtol=1e-12)
    assert ((table["ci_low"] <= table["mean"]) & (table["mean"] <= table["ci_high"])).all()
    assert (table["n"] == 300).all()
    without = beyond_intervals(test, recs, train=train, k=10)
    assert "intra_list_diversity" not in without.index


def test_novelty_interval_is_a_user_bootstrap() -> None:
    train, test, recs, _ = _case(2)
    table = beyond_intervals(test, recs, train=train, k=10, n_resamples=4000, rng=5)
    values = novelty(recs, train, k=10).to_numpy()
    draws = np.random.default_rng(0).integers(0, len(values), size=(4000, len(values)))
    low, high = np.quantile(values[draws].mean(1), [0.025, 0.975])
    width = high - low
    assert table.loc["novelty", "ci_low"] == pytest.approx(low, abs=0.1 * width)
    assert table.loc["novelty", "ci_high"] == pytest.approx(high, abs=0.1 * width)


# -- the metrics of the whole set of lists ------------------------------------------------------
from evalkit.metrics import (  # noqa: E402
    catalog_coverage,
    exposure_entropy,
    gini_index,
    personalization,
)
from evalkit.metrics.tables import (  # noqa: E402
    LIST_BEYOND,
    _personalization_replicates,
    list_intervals,
)


def _ragged(seed: int):
    """Lists of 1..6 items from 40."""
    gen = np.random.default_rng(seed)
    rows = []
    for u in range(25):
        items = gen.choice(40, size=int(gen.integers(1, 7)), replace=False)
        rows += [(u, int(i), r + 1) for r, i in enumerate(items)]
    return pd.DataFrame(rows, columns=["user_id", "item_id", "rank"])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_personalization_replicates_weigh_the_pairs_of_distinct_users(seed) -> None:
    """Replicate b against the weighted mean of the cosine similarity matrix off its
    diagonal; all-ones weights give personalization itself."""
    recs = _ragged(seed)
    user_code, users = pd.factorize(recs["user_id"])
    item_code, items = pd.factorize(recs["item_id"])
    gen = np.random.default_rng(seed + 10)
    weights = np.column_stack([np.ones(len(users)), gen.poisson(1.0, (len(users), 6))])
    weights[:, 2] = 0
    weights[3, 2] = 2  # one user drawn twice and nobody else: no pair of distinct users
    got = _personalization_replicates(user_code, item_code, len(items), [(0, weights)])
    split = _personalization_replicates(user_code, item_code, len(items),
                                        [(0, weights[:7]), (7, weights[7:])])
    np.testing.assert_allclose(split, got, rtol=1e-12, equal_nan=True)  # chunks add up
    shown = np.zeros((len(users), len(items)))
    shown[user_code, item_code] = 1.0
    norms = np.sqrt(shown.sum(axis=1))
    cosine = (shown @ shown.T) / np.outer(norms, norms)
    off = ~np.eye(len(users), dtype=bool)
    want = []
    for b in range(weights.shape[1]):  # one step per replicate
        pair = np.outer(weights[:, b], weights[:, b])[off]
        want.append(1.0 - (pair * cosine[off]).sum() / pair.sum() if pair.sum() else np.nan)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12, equal_nan=True)
    assert got[0] == pytest.approx(personalization(recs, k=6), abs=1e-12)


def _long_tail(n_users: int, seed: int = 3):
    """Top-10 lists drawn by a long-tailed popularity from a catalog of 2,000 items, so that
    no replicate covers the whole catalog."""
    gen = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, 2001) ** 0.8
    lists = [gen.choice(2000, 10, replace=False, p=weights / weights.sum())
             for _ in range(n_users)]
    recs = pd.DataFrame({"user_id": np.repeat(np.arange(n_users), 10),
                         "item_id": np.concatenate(lists),
                         "rank": np.tile(np.arange(1, 11), n_users)})
    train = pd.DataFrame({"user_id": 0, "item_id": np.arange(2000)})
    test = recs[["user_id", "item_id"]].iloc[::10].assign(rating=5.0)
    return train, test, recs


def test_list_intervals_are_bootstrap_intervals_around_the_metrics() -> None:
    train, _, recs = _long_tail(300)
    table = list_intervals(recs, train=train, k=10, rng=4)
    whole = [catalog_coverage(recs, k=10, catalog=train), gini_index(recs, k=10, catalog=train),
             personalization(recs, k=10), exposure_entropy(recs, k=10)]
    assert list(table.index) == list(LIST_BEYOND)
    np.testing.assert_allclose(table["mean"], whole, rtol=1e-12)
    # personalization only: the others' resamples show fewer distinct items than the lists
    assert table[["ci_low", "ci_high"]].notna().all(axis=1).tolist() == [False, False, True, False]
    low, high = table.loc["personalization", ["ci_low", "ci_high"]]
    assert low < table.loc["personalization", "mean"] < high
    assert (table["n"] == 300).all()
    again = list_intervals(recs, train=train, k=10, rng=4)
    pd.testing.assert_frame_equal(table, again)
    other = list_intervals(recs, train=train, k=10, rng=5)
    assert other.loc["personalization", "ci_low"] != table.loc["personalization", "ci_low"]
    none = list_intervals(recs, train=train, k=10, n_resamples=0)
    assert none[["ci_low", "ci_high"]].isna().all().all()
    # the intervals narrow as users are added
    _, _, many = _long_tail(1200, seed=4)
    wide = table["ci_high"] - table["ci_low"]
    narrow = list_intervals(many, train=train, k=10, rng=4)
    narrow = narrow["ci_high"] - narrow["ci_low"]
    assert narrow["personalization"] < wide["personalization"]
