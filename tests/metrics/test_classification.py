"""Tests for evalkit.metrics.classification."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.metrics.classification import (
    classification_scores,
    confusion,
    confusion_at_k,
    f1,
    precision,
    precision_recall_curve,
    recall,
)

R, NR = 5.0, 1.0  # predicted classes encoded as predictions, threshold 4


def lecture_classification() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Items 1..10 of the second classification table of Sacharidis' lecture notes
    (*Evaluation: System Accuracy*), one user."""
    truth = pd.DataFrame(
        {"user_id": 1, "item_id": range(1, 11), "rating": [5.0, 4, 5, 3, 5, 4, 4, 3, 4, 5]}
    )
    predictions = truth[["user_id", "item_id"]].assign(
        prediction=[R, R, NR, R, NR, R, R, NR, R, NR]
    )
    return truth, predictions


def random_data(seed: int, n: int = 200):
    rng = np.random.default_rng(seed)
    truth = pd.DataFrame(
        {
            "user_id": rng.integers(0, 10, n),
            "item_id": np.arange(n),
            "rating": rng.integers(1, 6, n).astype(float),
        }
    )
    # coarse predictions so that many values tie
    predictions = truth[["user_id", "item_id"]].assign(
        prediction=np.round(rng.uniform(0.5, 5.5, n) * 2) / 2
    )
    return truth, predictions


# ------------------------------------------------------------------------------ worked example


def test_lecture_second_table():
    """The notes' second table, with the classes following the ratings (threshold 4).

    The notes' third table relabels items 6 and 7 as not relevant although both are rated 4,
    which gives TP 3, FP 2, FN 3, TN 2. Relevance here follows the ratings, as its first two
    tables do, so items 6 and 7 (rated 4, predicted R) are true positives: our counts differ
    from that third table by design.
    """
    truth, predictions = lecture_classification()
    counts = confusion(truth, predictions, threshold=4.0)
    assert counts.to_dict() == {"TP": 5, "FP": 1, "FN": 3, "TN": 1}
    assert counts.dtype == np.int64
    assert round(precision(truth, predictions), 3) == 0.833
    assert recall(truth, predictions) == pytest.approx(0.625)
    p, r = 5 / 6, 0.625
    assert f1(truth, predictions) == pytest.approx(2 * p * r / (p + r))


def test_cutoff_differs_from_threshold():
    truth, predictions = lecture_classification()
    # every prediction >= 1 is predicted relevant: all 8 relevant items are found
    counts = confusion(truth, predictions, threshold=4.0, cutoff=1.0)
    assert counts.to_dict() == {"TP": 8, "FP": 2, "FN": 0, "TN": 0}
    # threshold None makes every test item relevant
    counts = confusion(truth, predictions, threshold=None, cutoff=4.0)
    assert counts.to_dict() == {"TP": 6, "FP": 0, "FN": 4, "TN": 0}
    with pytest.raises(ValueError, match="'cutoff' must be given when 'threshold' is None"):
        confusion(truth, predictions, threshold=None)


# ---------------------------------------------------------------------------------- 0/0 cases


def test_zero_over_zero_is_nan_with_a_warning():
    truth, predictions = lecture_classification()
    nothing_predicted = predictions.assign(prediction=0.0)
    with pytest.warns(RuntimeWarning, match=r"precision: TP / \(TP \+ FP\) is 0/0"):
        assert np.isnan(precision(truth, nothing_predicted))
    nothing_relevant = truth.assign(rating=1.0)
    with pytest.warns(RuntimeWarning, match="recall"):
        assert np.isnan(recall(nothing_relevant, predictions))
    with pytest.warns(RuntimeWarning, match="f1"):
        assert np.isnan(f1(nothing_relevant, nothing_predicted))
    # precision undefined but recall 0: F1 = 2TP / (2TP + FP + FN) = 0, no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert f1(truth, nothing_predicted) == 0.0


# ------------------------------------------------------------------- independent implementations


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("cutoff", [None, 2.5, 4.5])
def test_matches_sklearn(seed, cutoff):
    truth, predictions = random_data(seed)
    y_true = truth["rating"].to_numpy() >= 4.0
    c = 4.0 if cutoff is None else cutoff
    y_pred = predictions["prediction"].to_numpy() >= c
    tn, fp, fn, tp = skm.confusion_matrix(y_true, y_pred, labels=[False, True]).ravel()
    got = confusion(truth, predictions, cutoff=cutoff)
    assert got.to_dict() == {"TP": tp, "FP": fp, "FN": fn, "TN": tn}
    kw = {"zero_division": np.nan}
    assert precision(truth, predictions, cutoff=cutoff) == pytest.approx(
        skm.precision_score(y_true, y_pred, **kw), nan_ok=True
    )
    assert recall(truth, predictions, cutoff=cutoff) == pytest.approx(
        skm.recall_score(y_true, y_pred, **kw), nan_ok=True
    )
    assert f1(truth, predictions, cutoff=cutoff) == pytest.approx(
        skm.f1_score(y_true, y_pred, **kw), nan_ok=True
    )


@pytest.mark.parametrize("seed", range(5))
def test_precision_recall_curve_matches_sklearn(seed):
    truth, predictions = random_data(seed)
    curve = precision_recall_curve(truth, predictions)
    assert list(curve.columns) == ["cutoff", "precision", "recall", "f1", "tp", "fp", "fn", "tn"]
    assert np.all(np.diff(curve["cutoff"]) > 0)
    assert sorted(curve["cutoff"]) == sorted(predictions["prediction"].unique())
    y_true = truth["rating"].to_numpy() >= 4.0
    sk_p, sk_r, sk_t = skm.precision_recall_curve(y_true, predictions["prediction"])
    reference = {t: (p, r) for p, r, t in zip(sk_p[:-1], sk_r[:-1], sk_t)}
    assert reference  # sklearn may omit cutoffs below the first reaching full recall
    by_cutoff = curve.set_index("cutoff")
    for t, (p, r) in reference.items():
        assert by_cutoff.loc[t, "precision"] == pytest.approx(p, rel=1e-12)
        assert by_cutoff.loc[t, "recall"] == pytest.approx(r, rel=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_precision_recall_curve_matches_point_functions(seed):
    truth, predictions = random_data(seed, n=60)
    curve = precision_recall_curve(truth, predictions)
    for row in curve.itertuples():
        counts = confusion(truth, predictions, cutoff=row.cutoff)
        assert (row.tp, row.fp, row.fn, row.tn) == tuple(counts)
        assert row.precision == pytest.approx(precision(truth, predictions, cutoff=row.cutoff))
        assert row.recall == pytest.approx(recall(truth, predictions, cutoff=row.cutoff))
        assert row.f1 == pytest.approx(f1(truth, predictions, cutoff=row.cutoff))


def test_precision_recall_curve_without_relevant_items():
    truth, predictions = lecture_classification()
    with pytest.warns(RuntimeWarning, match="no test rating is relevant"):
        curve = precision_recall_curve(truth.assign(rating=1.0), predictions)
    assert curve["recall"].isna().all()
    assert curve["precision"].tolist() == [0.0, 0.0]
    empty = precision_recall_curve(truth.iloc[:0], predictions)
    assert len(empty) == 0


# -------------------------------------------------------------------------------- top-k lists


def naive_confusion_at_k(truth, recs, k, threshold):
    """Readable reference with sets; ranks from the 'rank' column."""
    tp = fp = fn = tn = 0
    for user in truth["user_id"].unique():
        rows = truth[truth["user_id"] == user]
        relevant = set(rows.loc[rows["rating"] >= threshold, "item_id"])
        rated = set(rows["item_id"])
        mine = recs[recs["user_id"] == user]
        top = set(mine.loc[mine["rank"] <= k, "item_id"])
        tp += len(top & relevant)
        fp += len(top - relevant)
        fn += len(relevant - top)
        tn += len((rated - relevant) - top)
    return {"TP": tp, "FP": fp, "FN": fn, "TN": tn}


def test_confusion_at_k_hand_example():
    truth = pd.DataFrame(
        {"user_id": [1, 1, 1, 1, 2, 2], "item_id": [1, 2, 3, 4, 1, 5],
         "rating": [5.0, 4.0, 2.0, 1.0, 4.0, 3.0]}
    )
    recs = pd.DataFrame(
        {"user_id": [1, 1, 1, 1, 3], "item_id": [1, 9, 3, 2, 1], "rank": [1, 2, 3, 4, 1]}
    )
    counts = confusion_at_k(truth, recs, k=3)
    # user 1: top-3 = {1, 9, 3}: 1 TP, 9 (unrated) and 3 (rated 2) FP, 2 FN, 4 TN
    # user 2: no recommendations: 1 FN, 5 TN; user 3 is not a test user
    assert counts.to_dict() == {"TP": 1, "FP": 2, "FN": 2, "TN": 2}
    assert counts.dropped == {"recs_only": 1}


def test_confusion_at_k_from_scores_breaks_ties_by_item_id():
    truth = pd.DataFrame({"user_id": 1, "item_id": [1, 2, 3], "rating": [5.0, 5.0, 1.0]})
    recs = pd.DataFrame({"user_id": 1, "item_id": [3, 2, 1], "score": [0.5, 0.9, 0.5]})
    # order: 2 (0.9), then 1 and 3 tied at 0.5 -> 1 first
    assert confusion_at_k(truth, recs, k=2).to_dict() == {"TP": 2, "FP": 0, "FN": 0, "TN": 1}


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(1, 8))
def test_confusion_at_k_matches_naive(seed, k):
    rng = np.random.default_rng(seed)
    truth = pd.DataFrame(
        {"user_id": rng.integers(0, 4, 15), "item_id": rng.integers(0, 12, 15)}
    ).drop_duplicates(ignore_index=True)
    truth["rating"] = rng.integers(1, 6, len(truth)).astype(float)
    recs = pd.DataFrame(
        [(u, i) for u in range(5) for i in rng.permutation(12)[: rng.integers(0, 10)]],
        columns=["user_id", "item_id"],
    )
    recs["rank"] = recs.groupby("user_id").cumcount() + 1
    truth_copy, recs_copy = truth.copy(deep=True), recs.copy(deep=True)
    got = confusion_at_k(truth, recs, k=k)
    assert got.to_dict() == naive_confusion_at_k(truth, recs, k, 4.0)
    assert got["TP"] + got["FP"] == int(
        (recs["user_id"].isin(truth["user_id"]) & (recs["rank"] <= k)).sum()
    )
    pd.testing.assert_frame_equal(truth, truth_copy)
    pd.testing.assert_frame_equal(recs, recs_copy)


# ---------------------------------------------------------------------------------- bad input


def test_inputs_unchanged():
    truth, predictions = lecture_classification()
    copies = truth.copy(deep=True), predictions.copy(deep=True)
    for func in (confusion, precision, recall, f1, precision_recall_curve):
        func(truth, predictions)
    pd.testing.assert_frame_equal(truth, copies[0])
    pd.testing.assert_frame_equal(predictions, copies[1])


@pytest.mark.parametrize("func", [confusion, precision, recall, f1, precision_recall_curve])
def test_bad_predictions(func):
    truth, predictions = lecture_classification()
    with pytest.raises(ValueError, match=f"^{func.__name__}: 'predictions' is missing column"):
        func(truth, predictions.drop(columns="prediction"))
    for bad in (np.nan, np.inf):
        with pytest.raises(ValueError, match="column 'prediction'"):
            func(truth, predictions.assign(prediction=[bad] + [1.0] * 9))
    with pytest.raises(ValueError, match="NaN"):
        func(truth.assign(rating=[np.nan] + [1.0] * 9), predictions)
    with pytest.raises(TypeError, match="'user_id' holds integer ids in 'truth' but string"):
        func(truth, predictions.astype({"user_id": str}))
    with pytest.raises(ValueError, match="1 of 10 test rating"):
        func(truth, predictions.iloc[1:])
    with pytest.raises(ValueError, match="unknown missing 'x'; valid values are 'error', 'drop'"):
        func(truth, predictions, missing="x")
    with pytest.raises(TypeError, match="'threshold' must be a number"):
        func(truth, predictions, threshold="4")


def test_bad_cutoff():
    truth, predictions = lecture_classification()
    with pytest.raises(TypeError, match="'cutoff' must be a real number or None"):
        confusion(truth, predictions, cutoff="4")
    with pytest.raises(ValueError, match="'cutoff' must be finite"):
        precision(truth, predictions, cutoff=np.nan)


@pytest.mark.parametrize("k", [0, -1, 2.5, True])
def test_confusion_at_k_bad_k(k):
    truth, _ = lecture_classification()
    recs = pd.DataFrame({"user_id": [1], "item_id": [1], "rank": [1]})
    with pytest.raises(ValueError, match="confusion_at_k: 'k' must be a positive integer"):
        confusion_at_k(truth, recs, k=k)


def test_confusion_at_k_bad_recs():
    truth, _ = lecture_classification()
    with pytest.raises(ValueError, match="needs a 'rank' or a 'score' column"):
        confusion_at_k(truth, pd.DataFrame({"user_id": [1], "item_id": [1]}), k=1)
    with pytest.raises(TypeError, match="'item_id' holds integer ids in 'truth' but string"):
        confusion_at_k(truth, pd.DataFrame({"user_id": [1], "item_id": ["1"], "rank": [1]}), k=1)


@pytest.mark.slow
def test_real_data_matches_sklearn(ml_latest_small_dir):
    ratings = pd.read_csv(ml_latest_small_dir / "ratings.csv").rename(
        columns={"userId": "user_id", "movieId": "item_id"}
    )
    truth = ratings[["user_id", "item_id", "rating"]]
    rng = np.random.default_rng(3)
    predictions = truth[["user_id", "item_id"]].assign(
        prediction=np.round(truth["rating"] + rng.normal(0, 1, len(truth)), 1)
    )
    y_true = truth["rating"].to_numpy() >= 4.0
    curve = precision_recall_curve(truth, predictions).set_index("cutoff")
    sk_p, sk_r, sk_t = skm.precision_recall_curve(y_true, predictions["prediction"])
    np.testing.assert_allclose(curve.loc[sk_t, "precision"], sk_p[:-1], rtol=1e-12)
    np.testing.assert_allclose(curve.loc[sk_t, "recall"], sk_r[:-1], rtol=1e-12)
    y_pred = predictions["prediction"].to_numpy() >= 3.5
    assert f1(truth, predictions, cutoff=3.5) == pytest.approx(skm.f1_score(y_true, y_pred))


# ------------------------------------------------------------------------------ intervals


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("cutoff", [None, 2.5])
def test_classification_scores_values_match_sklearn(seed, cutoff):
    truth, predictions = random_data(seed)
    y_true = truth["rating"].to_numpy() >= 4.0
    y_pred = predictions["prediction"].to_numpy() >= (4.0 if cutoff is None else cutoff)
    table = classification_scores(truth, predictions, cutoff=cutoff, n_resamples=300)
    want = [skm.precision_score(y_true, y_pred), skm.recall_score(y_true, y_pred),
            skm.f1_score(y_true, y_pred)]
    np.testing.assert_allclose(table["value"], want, rtol=1e-12)
    assert (table["ci_low"] <= table["value"]).all() and (table["value"] <= table["ci_high"]).all()
    assert (table["n_ratings"] == len(truth)).all()
    assert (table["n_users"] == truth["user_id"].nunique()).all()


def test_classification_scores_resample_users_like_a_plain_user_bootstrap():
    gen = np.random.default_rng(8)
    n_users = 200
    sizes = gen.integers(1, 30, n_users)
    user = np.repeat(np.arange(n_users), sizes)
    skill = gen.uniform(0.1, 0.9, n_users)[user]  # users differ: ratings cluster by user
    relevant = gen.random(len(user)) < 0.5
    predicted = np.where(gen.random(len(user)) < skill, relevant, ~relevant)
    truth = pd.DataFrame({"user_id": user, "item_id": np.arange(len(user)),
                          "rating": np.where(relevant, 5.0, 1.0)})
    predictions = truth[["user_id", "item_id"]].assign(
        prediction=np.where(predicted, 5.0, 1.0))
    table = classification_scores(truth, predictions, n_resamples=4000, rng=2)
    tp = np.bincount(user, relevant & predicted)
    fp = np.bincount(user, ~relevant & predicted)
    fn = np.bincount(user, relevant & ~predicted)
    draws = gen.integers(0, n_users, size=(4000, n_users))
    t, p, n = tp[draws].sum(1), fp[draws].sum(1), fn[draws].sum(1)
    for row, stat in (("precision", t / (t + p)), ("recall", t / (t + n)),
                      ("f1", 2 * t / (2 * t + p + n))):
        low, high = np.quantile(stat, [0.025, 0.975])
        assert table.loc[row, "ci_low"] == pytest.approx(low, abs=0.1 * (high - low)), row
        assert table.loc[row, "ci_high"] == pytest.approx(high, abs=0.1 * (high - low)), row


def test_classification_scores_zero_over_zero_and_errors():
    truth, predictions = lecture_classification()
    never = predictions.assign(prediction=1.0)  # nothing predicted relevant: precision 0/0
    with pytest.warns(RuntimeWarning,
                      match=r"classification_scores: precision = TP / \(TP \+ FP\) is 0/0"):
        table = classification_scores(truth, never)
    assert np.isnan(table.loc["precision", ["value", "ci_low", "ci_high"]]).all()
    assert table.loc["recall", "value"] == 0.0
    with pytest.raises(ValueError, match="classification_scores: 'confidence' must be"):
        classification_scores(truth, predictions, confidence=1.5)
    with pytest.raises(ValueError, match="classification_scores: 'cutoff' must be given"):
        classification_scores(truth, predictions, threshold=None)
