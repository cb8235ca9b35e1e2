"""Tests for evalkit.metrics.correlation: Spearman, Kendall tau-b and FCP."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.metrics.correlation import fcp, fcp_global, kendall, spearman


def random_data(seed: int, n_users: int = 25, max_items: int = 12):
    """Integer ratings and coarse predictions, so both sides have many ties."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_items + 1, n_users)
    users = np.repeat(np.arange(n_users) * 7 + 3, sizes)
    items = np.concatenate([rng.permutation(50)[:s] for s in sizes])
    truth = pd.DataFrame(
        {"user_id": users, "item_id": items, "rating": rng.integers(1, 6, users.size) * 1.0}
    )
    predictions = truth[["user_id", "item_id"]].assign(
        prediction=np.round(rng.normal(3, 1, users.size) * 2) / 2
    )
    order = rng.permutation(len(truth))
    return truth.iloc[order].reset_index(drop=True), predictions


def per_user_groups(truth, predictions):
    merged = truth.merge(predictions, on=["user_id", "item_id"])
    for user, rows in merged.groupby("user_id"):
        yield user, rows["rating"].to_numpy(), rows["prediction"].to_numpy()


def naive_pairs(x, y):
    """Concordant and discordant pairs among pairs with different true ratings."""
    conc = disc = 0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            if x[i] == x[j] or y[i] == y[j]:
                continue
            if (x[i] - x[j]) * (y[i] - y[j]) > 0:
                conc += 1
            else:
                disc += 1
    return conc, disc


# ------------------------------------------------------------------- independent implementations


@pytest.mark.parametrize("seed", range(6))
def test_spearman_and_kendall_match_scipy(seed):
    truth, predictions = random_data(seed)
    rho = spearman(truth, predictions, empty="nan")
    tau = kendall(truth, predictions, empty="nan")
    n_checked = 0
    for user, x, y in per_user_groups(truth, predictions):
        if len(np.unique(x)) < 2 or len(np.unique(y)) < 2:
            assert np.isnan(rho.loc[user]) and np.isnan(tau.loc[user])
            continue
        assert rho.loc[user] == pytest.approx(scipy.stats.spearmanr(x, y).statistic, abs=1e-12)
        assert tau.loc[user] == pytest.approx(
            scipy.stats.kendalltau(x, y, variant="b").statistic, abs=1e-12
        )
        n_checked += 1
    assert n_checked > 10


@pytest.mark.parametrize("seed", range(6))
def test_fcp_matches_naive_loop(seed):
    truth, predictions = random_data(seed)
    got = fcp(truth, predictions, empty="nan")
    total_c = total_d = 0
    for user, x, y in per_user_groups(truth, predictions):
        c, d = naive_pairs(x, y)
        total_c, total_d = total_c + c, total_d + d
        if c + d == 0:
            assert np.isnan(got.loc[user])
        else:
            assert got.loc[user] == pytest.approx(c / (c + d), abs=1e-15)
    assert fcp_global(truth, predictions) == pytest.approx(total_c / (total_c + total_d))


def test_chunks_of_users_give_the_same_result(monkeypatch):
    from evalkit.metrics import _kernels

    truth, predictions = random_data(0, n_users=10, max_items=30)
    expected_tau = kendall(truth, predictions, empty="nan")
    expected_fcp = fcp(truth, predictions, empty="nan")
    monkeypatch.setattr(_kernels, "CHUNK_USERS", 3)
    pd.testing.assert_series_equal(kendall(truth, predictions, empty="nan"), expected_tau)
    pd.testing.assert_series_equal(fcp(truth, predictions, empty="nan"), expected_fcp)


# ---------------------------------------------------------------------------------- hand cases


def hand_case():
    truth = pd.DataFrame(
        {
            "user_id": [1, 1, 1, 1, 2, 2, 3, 4, 4],
            "item_id": [1, 2, 3, 4, 1, 2, 1, 1, 2],
            "rating": [5.0, 3.0, 1.0, 1.0, 4.0, 4.0, 5.0, 5.0, 2.0],
        }
    )
    predictions = truth[["user_id", "item_id"]].assign(
        prediction=[4.0, 4.5, 2.0, 4.0, 1.0, 2.0, 3.0, 3.0, 3.0]
    )
    return truth, predictions


def test_hand_example():
    truth, predictions = hand_case()
    # user 1: pairs (1,2) discordant, (1,3) concordant, (1,4) tied prediction, (2,3) and (2,4)
    # concordant, (3,4) tied rating. user 2: ratings tied; user 3: one item; user 4: predictions
    # tied. Only user 1 is defined.
    got = fcp(truth, predictions)
    assert got.to_dict() == {1: 0.75}
    assert got.dropped == {"undefined": 3}
    assert got.n_users == 1
    # tau-b for user 1: n0 = 6, n1 = 1 (rating tie), n2 = 1 (prediction tie), nc - nd = 2
    assert kendall(truth, predictions).loc[1] == pytest.approx(2 / 5)
    assert fcp_global(truth, predictions) == 0.75


def test_empty_policies():
    truth, predictions = hand_case()
    for func in (spearman, kendall, fcp):
        dropped = func(truth, predictions, empty="drop")
        zero = func(truth, predictions, empty="zero")
        nan = func(truth, predictions, empty="nan")
        assert list(dropped.index) == [1]
        assert list(zero.index) == [1, 2, 3, 4]
        assert zero.loc[[2, 3, 4]].tolist() == [0.0, 0.0, 0.0]
        assert nan.loc[[2, 3, 4]].isna().all()
        assert nan.n_users == 1 and zero.n_users == 4
        assert dropped.name == func.__name__


def test_perfect_and_reversed_predictions():
    truth, _ = random_data(1)
    exact = truth.rename(columns={"rating": "prediction"})
    reverse = exact.assign(prediction=-exact["prediction"])
    for func in (spearman, kendall, fcp):
        assert np.allclose(func(truth, exact), 1.0)
    assert np.allclose(spearman(truth, reverse), -1.0)
    assert np.allclose(kendall(truth, reverse), -1.0)
    assert np.allclose(fcp(truth, reverse), 0.0)
    assert fcp_global(truth, exact) == 1.0


def test_all_undefined_fcp_global_is_nan_with_warning():
    truth, predictions = hand_case()
    truth = truth[truth["user_id"] != 1]
    predictions = predictions[predictions["user_id"] != 1]
    with pytest.warns(RuntimeWarning, match="returning NaN"):
        assert np.isnan(fcp_global(truth, predictions))


def test_score_column_is_accepted():
    truth, predictions = random_data(2)
    recs = predictions.rename(columns={"prediction": "score"})
    recs["rank"] = recs.groupby("user_id").cumcount() + 1
    pd.testing.assert_series_equal(spearman(truth, recs), spearman(truth, predictions))
    assert fcp_global(truth, recs) == fcp_global(truth, predictions)


def test_missing_predictions():
    truth, predictions = hand_case()
    with pytest.raises(ValueError, match=r"kendall: 1 of 9 test rating\(s\) have no prediction"):
        kendall(truth, predictions.iloc[1:])
    with pytest.warns(UserWarning, match="dropped 2 of 9"):
        got = fcp(truth, predictions[predictions["user_id"] != 4], missing="drop")
    assert got.dropped == {"no_prediction": 1, "undefined": 2}


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_properties(seed):
    truth, predictions = random_data(seed, n_users=6, max_items=8)
    copies = truth.copy(deep=True), predictions.copy(deep=True)
    rho, tau, frac = spearman(truth, predictions), kendall(truth, predictions), fcp(
        truth, predictions
    )
    assert ((rho >= -1) & (rho <= 1)).all()
    assert ((tau >= -1) & (tau <= 1)).all()
    assert ((frac >= 0) & (frac <= 1)).all()
    # tau-b and FCP agree in sign: both compare concordant with discordant pairs
    common = tau.index.intersection(frac.index)
    assert (np.sign(tau[common]) == np.sign(frac[common] - 0.5)).all()
    # invariant to row order and to a monotone transform of the predictions
    shuffled = predictions.iloc[::-1].assign(prediction=np.exp(predictions["prediction"][::-1]))
    pd.testing.assert_series_equal(spearman(truth, shuffled), rho)
    pd.testing.assert_series_equal(kendall(truth, shuffled), tau)
    pd.testing.assert_series_equal(fcp(truth, shuffled), frac)
    pd.testing.assert_frame_equal(truth, copies[0])
    pd.testing.assert_frame_equal(predictions, copies[1])


# ---------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("func", [spearman, kendall, fcp, fcp_global])
def test_bad_input(func):
    truth, predictions = hand_case()
    with pytest.raises(ValueError, match="'predictions' needs a 'prediction' or a 'score'"):
        func(truth, predictions.drop(columns="prediction"))
    with pytest.raises(ValueError, match="'predictions' is missing column"):
        func(truth, predictions.drop(columns="item_id"))
    with pytest.raises(ValueError, match="'truth' is missing column"):
        func(truth.drop(columns="rating"), predictions)
    for bad in (np.nan, np.inf):
        with pytest.raises(ValueError, match="column 'prediction'"):
            func(truth, predictions.assign(prediction=[bad] + [1.0] * 8))
    with pytest.raises(ValueError, match="'rating' has 1 NaN"):
        func(truth.assign(rating=[np.nan] + [1.0] * 8), predictions)
    with pytest.raises(TypeError, match="'user_id' holds integer ids in 'truth' but string"):
        func(truth, predictions.astype({"user_id": str}))
    with pytest.raises(ValueError, match="unknown missing 'no'"):
        func(truth, predictions, missing="no")


@pytest.mark.parametrize("func", [spearman, kendall, fcp])
def test_unknown_empty_policy(func):
    truth, predictions = hand_case()
    with pytest.raises(ValueError, match="unknown empty 'skip'; valid values are 'drop', 'zero', "
                                         "'nan'"):
        func(truth, predictions, empty="skip")


@pytest.mark.slow
def test_real_data_matches_scipy(ml_latest_small_dir):
    """Noisy predictions for the real MovieLens ratings (half-star ties) of 60 users."""
    ratings = pd.read_csv(ml_latest_small_dir / "ratings.csv").rename(
        columns={"userId": "user_id", "movieId": "item_id"}
    )
    truth = ratings.loc[ratings["user_id"] <= 60, ["user_id", "item_id", "rating"]]
    rng = np.random.default_rng(7)
    predictions = truth[["user_id", "item_id"]].assign(
        prediction=np.round(truth["rating"] + rng.normal(0, 1, len(truth)), 1)
    )
    rho, tau, frac = (f(truth, predictions) for f in (spearman, kendall, fcp))
    varied = truth.groupby("user_id")["rating"].nunique() > 1  # user 53 rated everything 5
    assert 50 < varied.sum() < 60
    for got in (rho, tau, frac):
        assert list(got.index) == list(varied.index[varied])
    for user, x, y in per_user_groups(truth, predictions):
        if not varied[user]:
            continue
        assert rho.loc[user] == pytest.approx(scipy.stats.spearmanr(x, y).statistic, abs=1e-12)
        assert tau.loc[user] == pytest.approx(scipy.stats.kendalltau(x, y).statistic, abs=1e-12)
        if len(x) <= 300:  # the naive pair loop is slow for the heaviest raters
            c, d = naive_pairs(x, y)
            assert frac.loc[user] == pytest.approx(c / (c + d), abs=1e-15)
