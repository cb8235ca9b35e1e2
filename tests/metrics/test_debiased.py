"""Popularity-debiased metrics (evalkit.metrics.debiased): a constant propensity gives the
ordinary metric exactly, IPS is unbiased when observation is missing not at random with the
true propensities (a simulation), and what does not decompose is refused with the reason."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalkit.metrics import dcg_at_k, recall_at_k
from evalkit.metrics import debiased as D


def _data(seed: int = 0, n_users: int = 120, n_items: int = 60):
    rng = np.random.default_rng(seed)
    popularity = rng.zipf(1.6, n_items).clip(1, 200)
    train = pd.DataFrame({"user_id": rng.integers(1, n_users + 1, 3000),
                          "item_id": rng.choice(n_items, 3000, p=popularity / popularity.sum())})
    train = train.drop_duplicates()
    truth = pd.DataFrame({"user_id": rng.integers(1, n_users + 1, 900),
                          "item_id": rng.integers(0, n_items, 900),
                          "rating": rng.choice([2.0, 4.0, 5.0], 900)})
    truth = truth.drop_duplicates(["user_id", "item_id"]).reset_index(drop=True)
    scores = rng.random((n_users, n_items))
    top = np.argsort(-scores, axis=1)[:, :10]
    recs = pd.DataFrame({"user_id": np.repeat(np.arange(1, n_users + 1), 10),
                         "item_id": top.ravel(), "rank": np.tile(np.arange(1, 11), n_users)})
    return truth, train, recs


def test_a_constant_propensity_gives_the_ordinary_metric() -> None:
    truth, train, recs = _data()
    flat = D.popularity_propensity(train, gamma=-1.0, items=np.arange(60))
    assert (flat == 1.0).all()
    for estimator in ("snips", "ips"):
        got = D.ips_metric(truth, recs, flat, metric="recall", k=10, estimator=estimator)
        want = recall_at_k(truth, recs, k=10)
        pd.testing.assert_series_equal(got.sort_index(), want.dropna().sort_index(),
                                       check_names=False, rtol=1e-12)
    half = flat * 0.5  # SNIPS does not depend on a constant
    got = D.ips_metric(truth, recs, half, metric="dcg", k=5)
    want = dcg_at_k(truth, recs, k=5, gain="binary")
    pd.testing.assert_series_equal(got.sort_index(), want.loc[got.index].sort_index(),
                                   check_names=False, rtol=1e-12)
    assert D.stratified_recall(truth, recs, train, beta=0.0, k=10).equals(
        D.ips_metric(truth, recs, flat, metric="recall", k=10).rename("stratified_recall"))


def test_ips_with_the_true_propensities_is_unbiased_when_observation_is_not_random() -> None:
    rng = np.random.default_rng(7)
    n_users, n_items, k = 200, 80, 10
    propensity = pd.Series(np.linspace(0.1, 0.9, n_items), index=pd.Index(np.arange(n_items),
                                                                           name="item_id"))
    # every user's true relevant items (a third of the catalogue), and fixed lists that favour
    # the items most often observed
    relevant = rng.random((n_users, n_items)) < 0.33
    scores = rng.random((n_users, n_items)) + propensity.to_numpy()
    top = np.argsort(-scores, axis=1)[:, :k]
    recs = pd.DataFrame({"user_id": np.repeat(np.arange(n_users), k), "item_id": top.ravel(),
                         "rank": np.tile(np.arange(1, k + 1), n_users)})
    position = np.full((n_users, n_items), np.inf)
    np.put_along_axis(position, top, np.arange(1, k + 1, dtype=float)[None, :], axis=1)
    true_dcg = np.where(relevant & (position <= k), 1 / np.log2(position + 1), 0.0).sum(axis=1)
    draws, naive = [], []
    for _ in range(120):  # each draw observes a relevant item with its propensity
        seen = relevant & (rng.random((n_users, n_items)) < propensity.to_numpy()[None, :])
        u, i = np.nonzero(seen)
        truth = pd.DataFrame({"user_id": u, "item_id": i, "rating": 5.0})
        got = D.ips_metric(truth, recs, propensity, metric="dcg", k=k, estimator="ips")
        full = pd.Series(0.0, index=pd.RangeIndex(n_users))  # users without one: 0
        full[got.index] = got.to_numpy()
        draws.append(full.mean())
        naive.append(dcg_at_k(truth, recs, k=k, gain="binary").reindex(
            range(n_users)).fillna(0).mean())
    error = np.std(draws) / np.sqrt(len(draws))
    assert abs(np.mean(draws) - true_dcg.mean()) < 4 * error
    assert np.mean(naive) < true_dcg.mean() - 10 * error  # observed data alone: biased


def test_what_does_not_decompose_is_refused_with_the_reason() -> None:
    truth, train, recs = _data()
    flat = D.popularity_propensity(train, gamma=0.0, items=np.arange(60))
    with pytest.raises(ValueError, match="counts list slots"):
        D.ips_metric(truth, recs, flat, metric="precision")
    with pytest.raises(ValueError, match="does not sum over relevant items when a user has"):
        D.ips_metric(truth, recs, flat, metric="hit_rate")
    with pytest.raises(ValueError, match="no positive propensity"):
        D.ips_metric(truth, recs, flat.iloc[:10])
    with pytest.raises(ValueError, match="'gamma'"):
        D.popularity_propensity(train, gamma=float("nan"))
    one = truth.drop_duplicates("user_id")
    assert (D.ips_metric(one, recs, flat, metric="hit_rate", threshold=None)
            == D.ips_metric(one, recs, flat, metric="recall", threshold=None)).all()


def test_propensities_follow_the_popularity_power() -> None:
    train = pd.DataFrame({"user_id": range(7), "item_id": [1, 1, 1, 2, 3, 3, 3]})
    p = D.popularity_propensity(train, gamma=1.0, items=[1, 2, 3, 4], smoothing=0.0,
                                clip=0.1)
    assert p.loc[1] == 1.0 and p.loc[3] == 1.0
    assert p.loc[2] == pytest.approx(1 / 3)  # (1 / 3) ** ((1 + 1) / 2)
    assert p.loc[4] == 0.1  # no interaction: clipped up from 0


def test_gamma_sensitivity_ranks_the_systems_at_each_bias() -> None:
    truth, train, recs = _data()
    other = recs.assign(item_id=(recs["item_id"] + 7) % 60)
    table = D.gamma_sensitivity({"a": recs, "b": other}, truth, train, gammas=(-1.0, 2.0),
                                n_resamples=50)
    assert list(table.columns) == ["gamma", "system", "value", "ci_low", "ci_high", "rank",
                                   "best"]
    plain = table[table["gamma"] == -1.0].set_index("system")["value"]
    assert plain["a"] == pytest.approx(recall_at_k(truth, recs, k=10).mean())
    assert plain["b"] == pytest.approx(recall_at_k(truth, other, k=10).mean())
    for _, rows in table.groupby("gamma"):
        assert sorted(rows["rank"]) == [1, 2]
        assert rows["best"].nunique() == 1
        assert (rows["ci_low"] <= rows["value"]).all() and (rows["value"]
                                                            <= rows["ci_high"]).all()
