"""Classification accuracy: confusion counts, precision, recall, F1 and the precision-recall
curve over the prediction cutoff.

A test item is actually relevant when its rating >= ``threshold``. It is predicted relevant
when its predicted rating >= ``cutoff`` (:func:`confusion` and the functions built on it), or
when it is in the user's top-k list (:func:`confusion_at_k`). All counts pool every test
rating of every user (micro average), as in the classification table of the seed notes; the
per-user precision and recall of top-k lists are ranking metrics (``precision_at_k``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .._checks import check_real, join_predictions, warn
from .._constraints import FRACTION, POSITIVE_INT, RESAMPLES, SEED, constrained
from .._docstrings import fill_doc, fragments
from ..definitions import uses_definitions
from ._common import check_id_dtypes, check_recs, check_threshold, check_truth
from ._result import MetricSeries
from ._topk import top_k

__all__ = [
    "CONFUSION_LABELS",
    "classification_scores",
    "confusion",
    "confusion_at_k",
    "f1",
    "precision",
    "precision_recall_curve",
    "recall",
]

#: Index of the Series returned by :func:`confusion` and :func:`confusion_at_k`.
CONFUSION_LABELS = ("TP", "FP", "FN", "TN")

#: The docstring entries of the functions that classify test ratings by their predictions
#: (:func:`evalkit._docstrings.fill_doc`); ``parameters`` is the whole usual list.
_DOCS = fragments(
    truth_predictions="""
    truth : pandas.DataFrame
        Test ratings ``user_id, item_id, rating``.
    predictions : pandas.DataFrame
        ``user_id, item_id, prediction``; predictions of pairs not in ``truth`` are ignored.
    """,
    threshold="""
    threshold : float or None, default 4.0
        A test item is actually relevant when its rating >= threshold; None makes every test
        item relevant.
    """,
    cutoff="""
    cutoff : float or None, default None
        An item is predicted relevant when its prediction >= cutoff; None uses ``threshold``.
    """,
    missing="""
    missing : {"error", "drop"}, default "error"
        A test rating without a prediction raises, or is left out with a warning.
    """,
    raises="""
    TypeError, ValueError
        On missing columns, NaN ratings, NaN or infinite predictions, duplicate pairs, id
        columns of different kinds, a non-numeric ``threshold`` or ``cutoff`` (or both None),
        an unknown ``missing``, or a test rating without a prediction under
        ``missing="error"``.
    """,
)
_DOCS["parameters"] = "\n".join(
    _DOCS[name] for name in ("truth_predictions", "threshold", "cutoff", "missing"))


def _check_cutoff(cutoff: object, threshold: float | None, *, func: str) -> float:
    if cutoff is None:
        if threshold is None:
            raise ValueError(
                f"{func}: 'cutoff' must be given when 'threshold' is None; got None."
            )
        return threshold
    return check_real(cutoff, func=func, arg="cutoff", allow_none=True)


def _classes(
    truth: object,
    predictions: object,
    *,
    func: str,
    threshold: object,
    missing: str,
) -> tuple[np.ndarray, np.ndarray, float | None]:
    """Validate; return (actual relevant, prediction) arrays over the evaluated test ratings."""
    threshold = check_threshold(threshold, func=func)
    joined = join_predictions(truth, predictions, func=func, missing=missing).frame
    rating = joined["rating"].to_numpy(np.float64)
    actual = np.ones(rating.size, dtype=bool) if threshold is None else rating >= threshold
    return actual, joined["prediction"].to_numpy(np.float64), threshold


def _counts(actual: np.ndarray, predicted: np.ndarray) -> pd.Series:
    tp = int(np.count_nonzero(actual & predicted))
    fp = int(np.count_nonzero(~actual & predicted))
    fn = int(np.count_nonzero(actual & ~predicted))
    tn = int(np.count_nonzero(~actual & ~predicted))
    return pd.Series([tp, fp, fn, tn], index=list(CONFUSION_LABELS), dtype=np.int64,
                     name="confusion")


def _ratio(num: float, den: float, *, func: str, what: str) -> float:
    if den == 0:
        warn(f"{func}: {what} is 0/0; returning NaN.", RuntimeWarning)
        return float("nan")
    return float(num / den)


def _confusion(
    truth: object,
    predictions: object,
    *,
    func: str,
    threshold: object,
    cutoff: object,
    missing: str,
) -> pd.Series:
    actual, prediction, threshold = _classes(
        truth, predictions, func=func, threshold=threshold, missing=missing
    )
    cut = _check_cutoff(cutoff, threshold, func=func)
    return _counts(actual, prediction >= cut)


@fill_doc(_DOCS)
def confusion(
    truth: pd.DataFrame,
    predictions: pd.DataFrame,
    *,
    threshold: float | None = 4.0,
    cutoff: float | None = None,
    missing: str = "error",
) -> pd.Series:
    """Confusion counts of relevant vs predicted-relevant test ratings.

    Parameters
    ----------
    %(parameters)s

    Returns
    -------
    pandas.Series
        int64 counts indexed ``TP, FP, FN, TN``, named ``"confusion"``.

    Raises
    ------
    %(raises)s

    Notes
    -----
    Over the test ratings :math:`(u, i)`: actual :math:`y = [r_{ui} \\ge t]`, predicted
    :math:`\\hat y = [\\hat r_{ui} \\ge c]`; TP counts :math:`y \\wedge \\hat y`, FP
    :math:`\\neg y \\wedge \\hat y`, FN :math:`y \\wedge \\neg \\hat y`, TN the rest.

    Examples
    --------
    The second classification table of the seed notes, with R encoded as 5 and NR as 1:

    >>> import pandas as pd
    >>> from evalkit.metrics.classification import confusion
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": range(1, 11),
    ...                       "rating": [5.0, 4, 5, 3, 5, 4, 4, 3, 4, 5]})
    >>> predictions = truth[["user_id", "item_id"]].assign(
    ...     prediction=[5.0, 5, 1, 5, 1, 5, 5, 1, 5, 1])
    >>> confusion(truth, predictions).to_dict()
    {'TP': 5, 'FP': 1, 'FN': 3, 'TN': 1}
    """
    return _confusion(
        truth, predictions, func="confusion", threshold=threshold, cutoff=cutoff, missing=missing
    )


@constrained(k=POSITIVE_INT)
@uses_definitions("tie_order")
def confusion_at_k(
    truth: pd.DataFrame,
    recs: pd.DataFrame,
    *,
    k: int,
    threshold: float | None = 4.0,
    tie_order: str = "item",
) -> pd.Series:
    """Confusion counts when the predicted-relevant items are each user's top-k list.

    Parameters
    ----------
    truth : pandas.DataFrame
        Test ratings ``user_id, item_id, rating``.
    recs : pandas.DataFrame
        ``user_id, item_id`` and ``rank`` and/or ``score`` (rank by descending score, tied
        scores in ``tie_order``, when only ``score`` is given).
    k : int
        Cutoff of each user's list.
    threshold : float or None, default 4.0
        A test item is relevant when its rating >= threshold; None makes every test item
        relevant.
    %(definitions)s
    tie_order : {"item", "item_desc", "item_str", "item_str_desc"}, default "item"
        With scores only, the order of tied scores, as under the ranking metrics'
        ``ties="deterministic"`` (the counts are whole numbers, so ties are not averaged);
        a :class:`~evalkit.metrics.TieWarning` counts the users whose tied scores straddle
        ``k``.

    Returns
    -------
    MetricSeries
        int64 counts indexed ``TP, FP, FN, TN``, named ``"confusion"``. Its ``dropped``
        ``["recs_only"]`` counts users of ``recs`` without test ratings, whose lists are
        ignored; ``n_users`` the test users counted; ``k`` the cutoff.

    Raises
    ------
    TypeError, ValueError
        On malformed inputs, id columns of different kinds, a non-positive ``k`` or a
        non-numeric ``threshold``.

    Notes
    -----
    Pooled over the test users: TP = recommended relevant test items; FP = recommended items
    that are not relevant, **including recommended items without a test rating** (the usual
    assumption that an unrated item is not relevant, so FP + TP is the number of recommended
    items); FN = relevant test items not recommended; TN = non-relevant test items not
    recommended. Unrated items that are not recommended are not counted (TN covers the test
    set only).

    Examples
    --------
    >>> import pandas as pd
    >>> from evalkit.metrics.classification import confusion_at_k
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": [1, 2, 3, 4],
    ...                       "rating": [5.0, 4.0, 2.0, 1.0]})
    >>> recs = pd.DataFrame({"user_id": 1, "item_id": [1, 9, 3, 2], "rank": [1, 2, 3, 4]})
    >>> confusion_at_k(truth, recs, k=3).to_dict()  # 9 is unrated: a false positive
    {'TP': 1, 'FP': 2, 'FN': 1, 'TN': 1}
    """
    func = "confusion_at_k"
    truth = check_truth(truth, func=func, threshold=threshold)
    recs = check_recs(recs, func=func)
    k = int(k)  # a positive integer (constrained)
    threshold = check_threshold(threshold, func=func)
    check_id_dtypes(truth, recs, func=func)
    top = top_k(recs, k=k, tie_order=tie_order, func=func)
    known = top["user_id"].isin(truth["user_id"]).to_numpy()
    n_outside = int(top.loc[~known, "user_id"].nunique())
    top = top.loc[known, ["user_id", "item_id"]]
    rating = truth["rating"].to_numpy(np.float64)
    relevant = np.ones(rating.size, bool) if threshold is None else rating >= threshold
    flagged = truth[["user_id", "item_id"]].assign(_rel=relevant.astype(np.float64))
    hits = top.merge(flagged, on=["user_id", "item_id"], how="left")["_rel"].to_numpy()
    rated = ~np.isnan(hits)
    is_rel = hits == 1.0
    tp = int(np.count_nonzero(is_rel))
    fp = int(len(top) - tp)
    n_rel = int(np.count_nonzero(relevant))
    rec_nonrel_rated = int(np.count_nonzero(rated & ~is_rel))
    return MetricSeries.of(
        [tp, fp, n_rel - tp, int(relevant.size - n_rel - rec_nonrel_rated)],
        pd.Index(CONFUSION_LABELS),
        dtype=np.int64,
        name="confusion",
        dropped={"recs_only": n_outside} if n_outside else {},
        n_users=truth["user_id"].nunique(),
        k=k,
    )


@fill_doc(_DOCS)
def precision(
    truth: pd.DataFrame,
    predictions: pd.DataFrame,
    *,
    threshold: float | None = 4.0,
    cutoff: float | None = None,
    missing: str = "error",
) -> float:
    """Share of predicted-relevant test ratings that are relevant (higher is better).

    Parameters
    ----------
    %(parameters)s

    Returns
    -------
    float
        TP / (TP + FP) in [0, 1]; NaN with a ``RuntimeWarning`` when nothing is predicted
        relevant (0/0).

    Raises
    ------
    %(raises)s

    Notes
    -----
    :math:`P = TP / (TP + FP)`; a 0/0 is NaN and warned about, never a silent 0.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalkit.metrics.classification import precision
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": range(1, 11),
    ...                       "rating": [5.0, 4, 5, 3, 5, 4, 4, 3, 4, 5]})
    >>> predictions = truth[["user_id", "item_id"]].assign(
    ...     prediction=[5.0, 5, 1, 5, 1, 5, 5, 1, 5, 1])
    >>> round(precision(truth, predictions), 3)
    0.833
    """
    c = _confusion(
        truth, predictions, func="precision", threshold=threshold, cutoff=cutoff, missing=missing
    )
    return _ratio(c["TP"], c["TP"] + c["FP"], func="precision", what="TP / (TP + FP)")


@fill_doc(_DOCS)
def recall(
    truth: pd.DataFrame,
    predictions: pd.DataFrame,
    *,
    threshold: float | None = 4.0,
    cutoff: float | None = None,
    missing: str = "error",
) -> float:
    """Share of relevant test ratings that are predicted relevant (higher is better).

    Parameters
    ----------
    %(parameters)s

    Returns
    -------
    float
        TP / (TP + FN) in [0, 1]; NaN with a ``RuntimeWarning`` when no test rating is
        relevant (0/0).

    Raises
    ------
    %(raises)s

    Notes
    -----
    :math:`R = TP / (TP + FN)`; a 0/0 is NaN and warned about, never a silent 0.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalkit.metrics.classification import recall
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": range(1, 11),
    ...                       "rating": [5.0, 4, 5, 3, 5, 4, 4, 3, 4, 5]})
    >>> predictions = truth[["user_id", "item_id"]].assign(
    ...     prediction=[5.0, 5, 1, 5, 1, 5, 5, 1, 5, 1])
    >>> recall(truth, predictions)
    0.625
    """
    c = _confusion(
        truth, predictions, func="recall", threshold=threshold, cutoff=cutoff, missing=missing
    )
    return _ratio(c["TP"], c["TP"] + c["FN"], func="recall", what="TP / (TP + FN)")


@fill_doc(_DOCS)
def f1(
    truth: pd.DataFrame,
    predictions: pd.DataFrame,
    *,
    threshold: float | None = 4.0,
    cutoff: float | None = None,
    missing: str = "error",
) -> float:
    """Harmonic mean of precision and recall (higher is better).

    Parameters
    ----------
    %(parameters)s

    Returns
    -------
    float
        In [0, 1]; NaN with a ``RuntimeWarning`` when TP = FP = FN = 0 (nothing relevant and
        nothing predicted relevant).

    Raises
    ------
    %(raises)s

    Notes
    -----
    .. math:: F_1 = \\frac{2PR}{P + R} = \\frac{2\\,TP}{2\\,TP + FP + FN}.

    The second form, used here (as in scikit-learn), equals the first whenever P and R are
    defined and not both 0; it gives 0 when TP = 0 but some item is relevant or predicted
    relevant (also when only one of P, R is 0/0), and is 0/0 only when TP = FP = FN = 0,
    which gives NaN with a warning.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalkit.metrics.classification import f1
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": range(1, 11),
    ...                       "rating": [5.0, 4, 5, 3, 5, 4, 4, 3, 4, 5]})
    >>> predictions = truth[["user_id", "item_id"]].assign(
    ...     prediction=[5.0, 5, 1, 5, 1, 5, 5, 1, 5, 1])
    >>> round(f1(truth, predictions), 4)  # 2 * 5 / (10 + 1 + 3)
    0.7143
    """
    c = _confusion(
        truth, predictions, func="f1", threshold=threshold, cutoff=cutoff, missing=missing
    )
    return _ratio(
        2 * c["TP"], 2 * c["TP"] + c["FP"] + c["FN"], func="f1", what="2TP / (2TP + FP + FN)"
    )


@fill_doc(_DOCS)
def precision_recall_curve(
    truth: pd.DataFrame,
    predictions: pd.DataFrame,
    *,
    threshold: float | None = 4.0,
    missing: str = "error",
) -> pd.DataFrame:
    """Precision, recall and F1 at every distinct prediction value used as the cutoff.

    Parameters
    ----------
    %(truth_predictions)s
    %(threshold)s
    %(missing)s

    Returns
    -------
    pandas.DataFrame
        Columns ``cutoff, precision, recall, f1, tp, fp, fn, tn``, one row per distinct
        prediction value, ``cutoff`` ascending (recall non-increasing down the rows).

    Raises
    ------
    %(raises)s

    Notes
    -----
    At cutoff :math:`c` an item is predicted relevant when :math:`\\hat r \\ge c`. Sorting the
    predictions in descending order and taking cumulative sums of the actual classes gives TP
    and FP at every cutoff in one pass. Precision is always defined (each cutoff is a
    prediction, so something is predicted relevant); recall is NaN (with a ``RuntimeWarning``)
    when no test rating is relevant; F1 is :math:`2TP / (2TP + FP + FN)`.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalkit.metrics.classification import precision_recall_curve
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": [1, 2, 3, 4],
    ...                       "rating": [5.0, 2.0, 4.0, 1.0]})
    >>> predictions = truth[["user_id", "item_id"]].assign(prediction=[4.5, 4.0, 3.0, 3.0])
    >>> precision_recall_curve(truth, predictions)[["cutoff", "precision", "recall", "tp"]]
       cutoff  precision  recall  tp
    0     3.0        0.5     1.0   2
    1     4.0        0.5     0.5   1
    2     4.5        1.0     0.5   1
    """
    func = "precision_recall_curve"
    actual, prediction, _ = _classes(
        truth, predictions, func=func, threshold=threshold, missing=missing
    )
    order = np.argsort(-prediction, kind="stable")
    pred_sorted = prediction[order]
    tps = np.cumsum(actual[order], dtype=np.int64)
    change = np.ones(pred_sorted.size, dtype=bool)  # last position of each distinct value
    change[:-1] = pred_sorted[1:] != pred_sorted[:-1]
    last = np.flatnonzero(change)[::-1]  # ascending cutoff
    tp = tps[last]
    fp = last.astype(np.int64) + 1 - tp
    n_pos = int(np.count_nonzero(actual))
    n_neg = int(actual.size - n_pos)
    if n_pos == 0 and last.size:
        warn(
            f"{func}: no test rating is relevant, so recall is 0/0; returning NaN recall.",
            RuntimeWarning)
        rec = np.full(last.size, np.nan)
    else:
        rec = tp / max(n_pos, 1)
    fn = n_pos - tp
    return pd.DataFrame(
        {
            "cutoff": pred_sorted[last],
            "precision": tp / (tp + fp),
            "recall": rec,
            "f1": 2 * tp / (2 * tp + fp + fn),
            "tp": tp,
            "fp": fp,
            "fn": fn,
            "tn": n_neg - fp,
        }
    )


@constrained(rng=SEED, confidence=FRACTION, n_resamples=RESAMPLES)
@fill_doc(_DOCS)
def classification_scores(
    truth: pd.DataFrame,
    predictions: pd.DataFrame,
    *,
    threshold: float | None = 4.0,
    cutoff: float | None = None,
    missing: str = "error",
    confidence: float = 0.95,
    n_resamples: int = 1000,
    rng: int | np.random.Generator | None = 0,
) -> pd.DataFrame:
    """Precision, recall and F1 at a relevance threshold, with bootstrap intervals.

    Parameters
    ----------
    %(parameters)s
    confidence : float, default 0.95
        Coverage of the intervals, in (0, 1).
    n_resamples : int, default 1000
        Bootstrap replicates; 0 for no intervals (NaN bounds).
    rng : int, Generator or None, default 0
        Seed of the resampling; the same seed gives the same intervals.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``precision``, ``recall`` and ``f1`` (the values of :func:`precision`,
        :func:`recall` and :func:`f1`, pooled over every test rating); columns ``value``,
        ``ci_low``, ``ci_high``, ``n_users`` and ``n_ratings``. A 0/0 value is NaN, as are its
        bounds.

    Raises
    ------
    %(raises)s
        Also for ``confidence``, ``n_resamples`` or ``rng`` out of range.

    Notes
    -----
    The bootstrap resamples users (a user's ratings are not independent of one another) with
    the Poisson design of :func:`evalkit.stats.bootstrap_ci_frame`: replicate b weighs user u
    by ``w_ub ~ Poisson(1)``, drawn from the seed and the user id, and with the user's counts
    ``TP_u, FP_u, FN_u`` gives ``sum w TP / sum w (TP + FP)`` (precision),
    ``sum w TP / sum w (TP + FN)`` (recall) and ``2 sum w TP / sum w (2 TP + FP + FN)``
    (F1, the harmonic mean of the two); the interval is their alpha/2 and 1 - alpha/2
    quantiles (replicates where a ratio is 0/0 are left out).

    Examples
    --------
    >>> truth = pd.DataFrame({"user_id": [1, 1, 2, 2, 3, 3], "item_id": [1, 2, 1, 3, 2, 3],
    ...                       "rating": [5.0, 2, 4, 4, 1, 5]})
    >>> predictions = truth[["user_id", "item_id"]].assign(
    ...     prediction=[4.5, 4.2, 3.0, 4.1, 2.0, 4.4])
    >>> classification_scores(truth, predictions)["value"].round(3).tolist()
    [0.75, 0.75, 0.75]
    """
    from ..stats import percentile_interval, user_bootstrap_sums

    func = "classification_scores"
    confidence, n_resamples = float(confidence), int(n_resamples)  # constrained
    threshold = check_threshold(threshold, func=func)
    cut = _check_cutoff(cutoff, threshold, func=func)
    joined = join_predictions(truth, predictions, func=func, missing=missing).frame
    rating = joined["rating"].to_numpy(np.float64)
    actual = np.ones(rating.size, dtype=bool) if threshold is None else rating >= threshold
    predicted = joined["prediction"].to_numpy(np.float64) >= cut
    codes, users = pd.factorize(joined["user_id"], sort=True)
    tp, fp, fn = (np.bincount(codes, weights=mask, minlength=len(users))
                  for mask in (actual & predicted, ~actual & predicted, actual & ~predicted))

    def ratios(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.vstack([tp / (tp + fp), tp / (tp + fn), 2 * tp / (2 * tp + fp + fn)])

    value = ratios(*(np.atleast_1d(c.sum()) for c in (tp, fp, fn)))[:, 0]
    for name, what in (("precision", "TP / (TP + FP)"), ("recall", "TP / (TP + FN)"),
                       ("f1", "2 TP / (2 TP + FP + FN)")):
        if np.isnan(value[["precision", "recall", "f1"].index(name)]):
            warn(f"{func}: {name} = {what} is 0/0; its value and bounds are NaN.",
                 RuntimeWarning)
    low = np.full(3, np.nan)
    high = np.full(3, np.nan)
    if n_resamples and len(users):
        sums = user_bootstrap_sums([tp, fp, fn], users, n_resamples=n_resamples, rng=rng,
                                   func=func)
        replicates = ratios(*sums).T
        defined = ~np.isnan(value)
        if defined.any():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns
                low[defined], high[defined] = percentile_interval(replicates[:, defined],
                                                                  confidence)
    return pd.DataFrame({"value": value, "ci_low": low, "ci_high": high,
                         "n_users": len(users), "n_ratings": len(joined)},
                        index=pd.Index(["precision", "recall", "f1"], name="score"))
