"""Tests for evalkit.metrics.rating: MAE and RMSE."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import mean_absolute_error, mean_squared_error

from evalkit.metrics.rating import mae, mae_per_user, rating_errors, rmse, rmse_per_user


def lecture_table() -> tuple[pd.DataFrame, pd.DataFrame]:
    """The MAE/RMSE table of Sacharidis' lecture notes (*Evaluation: System Accuracy*):
    sums 5.6 and 7.6 over 10 ratings."""
    truth = pd.DataFrame(
        {
            "user_id": [1, 1, 1, 2, 2, 3, 3, 3, 4, 4],
            "item_id": [1, 2, 3, 1, 4, 5, 4, 2, 5, 6],
            "rating": [5.0, 4, 5, 3, 5, 4, 4, 3, 4, 5],
        }
    )
    predictions = truth[["user_id", "item_id"]].assign(
        prediction=[3.5, 5, 5, 5, 4.5, 4.1, 3.9, 3, 4.2, 4.8]
    )
    return truth, predictions


def random_data(seed: int, n_users: int = 20, n_items: int = 30):
    rng = np.random.default_rng(seed)
    pairs = [(u, i) for u in range(n_users) for i in range(n_items) if rng.random() < 0.3]
    truth = pd.DataFrame(pairs, columns=["user_id", "item_id"]).astype("int64")
    truth["rating"] = rng.integers(1, 6, len(truth)).astype(float)
    predictions = truth[["user_id", "item_id"]].assign(prediction=rng.uniform(0.5, 5.5, len(truth)))
    return truth, predictions.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def naive_per_user(truth, predictions, squared):
    merged = truth.merge(predictions, on=["user_id", "item_id"])
    out = {}
    for user in sorted(merged["user_id"].unique()):
        rows = merged[merged["user_id"] == user]
        errs = [r - p for r, p in zip(rows["rating"], rows["prediction"])]
        if squared:
            out[user] = math.sqrt(sum(e * e for e in errs) / len(errs))
        else:
            out[user] = sum(abs(e) for e in errs) / len(errs)
    return out


# ------------------------------------------------------------------------------ worked example


def test_lecture_table_micro():
    truth, predictions = lecture_table()
    assert mae(truth, predictions) == pytest.approx(0.56, abs=1e-12)
    assert rmse(truth, predictions) == pytest.approx(math.sqrt(0.76), abs=1e-12)
    assert round(rmse(truth, predictions), 3) == 0.872


def test_lecture_table_per_user():
    truth, predictions = lecture_table()
    # user 1: |1.5|, 1, 0; user 2: 2, 0.5; user 3: 0.1, 0.1, 0; user 4: 0.2, 0.2
    expected_mae = {1: 2.5 / 3, 2: 1.25, 3: 0.2 / 3, 4: 0.2}
    expected_rmse = {1: math.sqrt(3.25 / 3), 2: math.sqrt(4.25 / 2), 3: math.sqrt(0.02 / 3),
                     4: 0.2}
    per_user = mae_per_user(truth, predictions)
    assert per_user.name == "mae"
    assert per_user.index.name == "user_id"
    assert per_user.to_dict() == pytest.approx(expected_mae)
    assert rmse_per_user(truth, predictions).to_dict() == pytest.approx(expected_rmse)
    assert mae(truth, predictions, average="user") == pytest.approx(
        np.mean(list(expected_mae.values()))
    )
    assert rmse(truth, predictions, average="user") == pytest.approx(
        np.mean(list(expected_rmse.values()))
    )
    assert per_user.n_users == 4
    assert per_user.dropped == {}


# ------------------------------------------------------------------- independent implementations


@pytest.mark.parametrize("seed", range(5))
def test_micro_matches_sklearn(seed):
    truth, predictions = random_data(seed)
    merged = truth.merge(predictions, on=["user_id", "item_id"])
    assert mae(truth, predictions) == pytest.approx(
        mean_absolute_error(merged["rating"], merged["prediction"]), rel=1e-12
    )
    assert rmse(truth, predictions) == pytest.approx(
        math.sqrt(mean_squared_error(merged["rating"], merged["prediction"])), rel=1e-12
    )


@pytest.mark.parametrize("seed", range(3))
def test_per_user_matches_naive_loop(seed):
    truth, predictions = random_data(seed)
    assert mae_per_user(truth, predictions).to_dict() == pytest.approx(
        naive_per_user(truth, predictions, squared=False), rel=1e-12
    )
    assert rmse_per_user(truth, predictions).to_dict() == pytest.approx(
        naive_per_user(truth, predictions, squared=True), rel=1e-12
    )


@settings(max_examples=50, deadline=None)
@given(
    ratings=st.lists(st.floats(0.5, 5.0), min_size=1, max_size=30),
    data=st.data(),
)
def test_properties(ratings, data):
    n = len(ratings)
    preds = data.draw(st.lists(st.floats(-10, 10), min_size=n, max_size=n))
    users = data.draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    truth = pd.DataFrame({"user_id": users, "item_id": np.arange(n), "rating": ratings})
    predictions = pd.DataFrame({"user_id": users, "item_id": np.arange(n), "prediction": preds})
    truth_copy, pred_copy = truth.copy(deep=True), predictions.copy(deep=True)
    m, r = mae(truth, predictions), rmse(truth, predictions)
    assert 0.0 <= m <= r + 1e-9  # RMSE >= MAE (Jensen)
    assert mae(truth, predictions, average="user") >= 0.0
    # row order does not matter
    shuffled = predictions.iloc[::-1]
    assert mae(truth.iloc[::-1], shuffled) == pytest.approx(m)
    # perfect predictions give 0
    exact = truth.rename(columns={"rating": "prediction"})
    assert rmse(truth, exact) == 0.0
    pd.testing.assert_frame_equal(truth, truth_copy)
    pd.testing.assert_frame_equal(predictions, pred_copy)


def test_string_ids():
    truth, predictions = lecture_table()
    truth = truth.astype({"user_id": str, "item_id": str})
    predictions = predictions.astype({"user_id": str, "item_id": str})
    assert mae(truth, predictions) == pytest.approx(0.56)
    assert list(mae_per_user(truth, predictions).index) == ["1", "2", "3", "4"]


# ------------------------------------------------------------------------ missing predictions


def test_missing_prediction_is_an_error_naming_count_and_first_pair():
    truth, predictions = lecture_table()
    partial = predictions.iloc[[0, 2, 4, 5, 6, 7, 8, 9]]  # drop (1, 2) and (2, 1)
    with pytest.raises(ValueError, match=r"mae: 2 of 10 test rating\(s\) have no prediction.*"
                                         r"\(1, 2\)"):
        mae(truth, partial)
    with pytest.raises(ValueError, match="missing='drop'"):
        rmse_per_user(truth, partial)


def test_missing_drop_warns_and_uses_the_rest():
    truth, predictions = lecture_table()
    partial = predictions.iloc[[0, 2, 4, 5, 6, 7, 8, 9]]
    with pytest.warns(UserWarning, match="dropped 2 of 10"):
        value = mae(truth, partial, missing="drop")
    assert value == pytest.approx((1.5 + 0 + 0.5 + 0.1 + 0.1 + 0 + 0.2 + 0.2) / 8)


def test_missing_drop_counts_users_without_any_prediction():
    truth, predictions = lecture_table()
    partial = predictions[predictions["user_id"] != 2]
    with pytest.warns(UserWarning, match="dropped 2"):
        per_user = mae_per_user(truth, partial, missing="drop")
    assert list(per_user.index) == [1, 3, 4]
    assert per_user.dropped == {"no_prediction": 1}


def test_extra_predictions_are_ignored_and_their_users_counted():
    truth, predictions = lecture_table()
    extra = pd.DataFrame({"user_id": [1, 9], "item_id": [99, 1], "prediction": [1.0, 1.0]})
    both = pd.concat([predictions, extra], ignore_index=True)
    assert mae(truth, both) == pytest.approx(0.56)
    assert mae_per_user(truth, both).dropped == {"recs_only": 1}


# ---------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("func", [mae, rmse, mae_per_user, rmse_per_user])
def test_missing_columns(func):
    truth, predictions = lecture_table()
    with pytest.raises(ValueError, match="'predictions' is missing column"):
        func(truth, predictions.drop(columns="prediction"))
    with pytest.raises(ValueError, match="'truth' is missing column"):
        func(truth.drop(columns="rating"), predictions)
    with pytest.raises(TypeError, match="must be a pandas DataFrame"):
        func(truth, predictions.to_numpy())


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_predictions(bad):
    truth, predictions = lecture_table()
    predictions.loc[3, "prediction"] = bad
    with pytest.raises(ValueError, match="rmse: 'predictions' column 'prediction'"):
        rmse(truth, predictions)


def test_nan_rating():
    truth, predictions = lecture_table()
    truth.loc[0, "rating"] = np.nan
    with pytest.raises(ValueError, match="'truth' column 'rating' has 1 NaN"):
        mae(truth, predictions)


def test_id_dtype_mismatch():
    truth, predictions = lecture_table()
    predictions = predictions.astype({"item_id": str})
    with pytest.raises(TypeError, match="'item_id' holds integer ids in 'truth' but string"):
        mae(truth, predictions)


def test_unknown_policies_list_valid_values():
    truth, predictions = lecture_table()
    with pytest.raises(ValueError, match="unknown average 'macro'; valid values are 'micro'"):
        mae(truth, predictions, average="macro")
    with pytest.raises(ValueError, match="unknown missing 'skip'; valid values are 'error'"):
        rmse(truth, predictions, missing="skip")


def test_duplicate_pairs():
    truth, predictions = lecture_table()
    with pytest.raises(ValueError, match="duplicate"):
        mae(truth, pd.concat([predictions, predictions.iloc[:1]]))


def test_empty_truth_is_an_error():
    truth, predictions = lecture_table()
    with pytest.raises(ValueError, match="no test rating to evaluate"):
        mae(truth.iloc[:0], predictions)


# ------------------------------------------------------------------------------ intervals


def test_rating_errors_values_are_the_four_averages_of_the_lecture_table() -> None:
    truth, predictions = lecture_table()
    table = rating_errors(truth, predictions)
    want = [mae(truth, predictions), rmse(truth, predictions),
            mae(truth, predictions, average="user"), rmse(truth, predictions, average="user")]
    np.testing.assert_allclose(table["value"], want, rtol=1e-12)
    assert table["value"].round(3).tolist()[:2] == [0.56, 0.872]  # the notes' MAE and RMSE
    assert (table["n_users"] == 4).all() and (table["n_ratings"] == 10).all()
    assert (table["ci_low"] <= table["value"]).all() and (table["value"] <= table["ci_high"]).all()


def test_rating_errors_per_user_intervals_are_the_bootstrap_of_the_per_user_values() -> None:
    from evalkit.stats import bootstrap_ci_frame

    truth, predictions = random_data(3, n_users=60)
    table = rating_errors(truth, predictions, n_resamples=700, rng=9, confidence=0.9)
    per_user = pd.DataFrame({"MAE per user": mae_per_user(truth, predictions),
                             "RMSE per user": rmse_per_user(truth, predictions)})
    want = bootstrap_ci_frame(per_user, n_resamples=700, rng=9, confidence=0.9)
    for row in want.index:
        assert table.loc[row, "ci_low"] == pytest.approx(want.loc[row, "ci_low"], rel=1e-12)
        assert table.loc[row, "ci_high"] == pytest.approx(want.loc[row, "ci_high"], rel=1e-12)


def test_rating_errors_micro_intervals_resample_users_not_ratings() -> None:
    # users of very different error levels and sizes: a plain bootstrap over users (with
    # replacement, NumPy's generator) gives the same interval within Monte-Carlo error
    gen = np.random.default_rng(4)
    rows = []
    for u in range(150):
        size, scale = gen.integers(1, 40), gen.choice([0.2, 1.5])
        for i in range(size):
            rows.append((u, i, 3.0, 3.0 + gen.normal(0, scale)))
    frame = pd.DataFrame(rows, columns=["user_id", "item_id", "rating", "prediction"])
    truth, predictions = frame.drop(columns="prediction"), frame.drop(columns="rating")
    table = rating_errors(truth, predictions, n_resamples=4000, rng=1)
    err = (frame["prediction"] - frame["rating"]).to_numpy()
    codes = frame["user_id"].to_numpy()
    s1 = np.bincount(codes, np.abs(err))
    s2 = np.bincount(codes, err * err)
    n = np.bincount(codes).astype(float)
    draws = gen.integers(0, 150, size=(4000, 150))
    for row, stat in (("MAE", s1[draws].sum(1) / n[draws].sum(1)),
                      ("RMSE", np.sqrt(s2[draws].sum(1) / n[draws].sum(1)))):
        low, high = np.quantile(stat, [0.025, 0.975])
        width = high - low
        assert table.loc[row, "ci_low"] == pytest.approx(low, abs=0.1 * width)
        assert table.loc[row, "ci_high"] == pytest.approx(high, abs=0.1 * width)
    # resampling ratings instead would give a much narrower (wrong) interval
    flat = np.abs(err)[gen.integers(0, len(err), size=(4000, len(err)))].mean(1)
    assert np.subtract(*np.quantile(flat, [0.975, 0.025])) < 0.8 * (
        table.loc["MAE", "ci_high"] - table.loc["MAE", "ci_low"])


def test_rating_errors_options_and_errors() -> None:
    truth, predictions = lecture_table()
    bare = rating_errors(truth, predictions, n_resamples=0)
    assert bare[["ci_low", "ci_high"]].isna().all().all()
    with pytest.raises(ValueError, match="rating_errors: 'n_resamples' must be"):
        rating_errors(truth, predictions, n_resamples=-1)
    with pytest.raises(ValueError, match="rating_errors: 1 of 10 test rating"):
        rating_errors(truth, predictions.iloc[1:])
    with pytest.warns(UserWarning, match="rating_errors: dropped 1 of 10"):
        dropped = rating_errors(truth, predictions.iloc[1:], missing="drop")
    assert (dropped["n_ratings"] == 9).all()


_ID_KINDS = ["int64", "int32", "uint16", "negative", "wide", "str", "category"]


def _ids(values: np.ndarray, kind: str) -> pd.Series:
    if kind == "negative":
        return pd.Series(values - 7)
    if kind == "wide":  # spread far apart: packed keys still fit
        return pd.Series(values * 10**9)
    if kind == "str":
        return pd.Series([f"u{v:02d}" for v in values], dtype=object)
    if kind == "category":  # left to pandas' merge
        return pd.Series(values).astype("category")
    return pd.Series(values.astype(kind))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(_ID_KINDS), st.sampled_from(_ID_KINDS),
       st.sampled_from(["drawn", "aligned", "reversed"]))
def test_the_pairing_is_pandas_merge(seed, user_kind, item_kind, order) -> None:
    # test ratings paired with predictions by packed keys: the same frame as pandas' left
    # merge on both id columns (truth's order, NaN without a prediction, predictions of
    # other pairs and users ignored), for integer ids of any width and sign and for strings;
    # also predictions of exactly the test pairs, in the test's order or not
    from evalkit._checks import check_predictions, check_truth, join_predictions

    gen = np.random.default_rng(seed)
    n = int(gen.integers(1, 40))
    pairs = np.unique(gen.integers(0, 12, (n, 2)), axis=0)
    pairs = pairs[gen.permutation(len(pairs))]
    truth = pd.DataFrame({"user_id": _ids(pairs[:, 0], user_kind).array,
                          "item_id": _ids(pairs[:, 1], item_kind).array,
                          "rating": gen.integers(1, 6, len(pairs)).astype(float)},
                         index=gen.permutation(len(pairs)) + 100)
    other = np.unique(gen.integers(0, 14, (int(gen.integers(0, 40)), 2)), axis=0)
    kept = pairs[gen.random(len(pairs)) < 0.8]
    both = np.unique(np.concatenate([kept, other]), axis=0)
    both = both[gen.permutation(len(both))]
    if order != "drawn":
        both = pairs if order == "aligned" else pairs[::-1]
    predictions = pd.DataFrame({"user_id": _ids(both[:, 0], user_kind).array,
                                "item_id": _ids(both[:, 1], item_kind).array,
                                "prediction": gen.normal(3, 1, len(both))})
    if user_kind == "category" or item_kind == "category":
        for column in ("user_id", "item_id"):  # categories of one dtype on both sides
            values = pd.concat([truth[column], predictions[column]]).astype(object)
            dtype = pd.CategoricalDtype(pd.unique(values))
            truth[column] = truth[column].astype(object).astype(dtype)
            predictions[column] = predictions[column].astype(object).astype(dtype)
            assert truth[column].notna().all() and predictions[column].notna().all()
    left = check_truth(truth, func="f")[["user_id", "item_id", "rating"]]  # as validated
    want = left.merge(check_predictions(predictions, func="f"), on=["user_id", "item_id"],
                      how="left", sort=False)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the count of dropped ratings
        got = join_predictions(truth, predictions, func="f", missing="drop")
    want = want[want["prediction"].notna()].reset_index(drop=True)
    pd.testing.assert_frame_equal(got.frame, want, check_exact=True)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(_ID_KINDS), st.sampled_from(_ID_KINDS),
       st.booleans(), st.booleans())
def test_pairs_in_is_the_membership_of_row_tuples(seed, user_kind, item_kind, unequal,
                                                  same) -> None:
    # which rows' pairs another frame holds (that one may repeat pairs): as MultiIndex.isin,
    # for ids of one dtype (packed keys) and of unequal dtypes (left to pandas)
    from evalkit._checks import pairs_in

    gen = np.random.default_rng(seed)
    rows, other = (gen.integers(0, 9, (int(gen.integers(0, 30)), 2)) for _ in range(2))
    if same:  # the very pairs, in order
        other = rows.copy()
    frame = pd.DataFrame({"user_id": _ids(rows[:, 0], user_kind).array,
                          "item_id": _ids(rows[:, 1], item_kind).array})
    against = pd.DataFrame({"user_id": _ids(other[:, 0], user_kind).array,
                            "item_id": _ids(other[:, 1], item_kind).array})
    if unequal and user_kind in ("int64", "int32", "uint16"):
        against["user_id"] = against["user_id"].astype(np.int8)
    want = pd.MultiIndex.from_frame(frame).isin(pd.MultiIndex.from_frame(against))
    assert pairs_in(frame, against).tolist() == want.tolist()
