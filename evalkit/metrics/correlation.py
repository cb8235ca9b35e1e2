"""Rank correlation between predicted and true ratings: Spearman, Kendall tau-b and FCP.

Each user's test items are ordered by prediction and by true rating, and the two orders are
compared. These metrics need a prediction for every test item of the user: ``predictions`` is
either a rating-prediction frame (``prediction``) or a recommendation frame whose ``score``
covers the test items (a ``score`` column is used when there is no ``prediction`` column).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._checks import join_predictions, warn
from ._common import check_empty, finish_per_user

__all__ = ["fcp", "fcp_global", "kendall", "spearman"]


class _Prepared:
    """Test ratings and predictions grouped by user (codes ascending, rows sorted by code)."""

    def __init__(self, truth: object, predictions: object, *, func: str, missing: str) -> None:
        paired = join_predictions(truth, predictions, func=func, missing=missing,
                                  accept_score=True)
        joined = paired.frame
        codes, users = pd.factorize(joined["user_id"], sort=True)
        order = np.argsort(codes, kind="stable")
        self.codes = codes[order]
        self.users = pd.Index(users)
        self.rating = joined["rating"].to_numpy(np.float64)[order]
        self.prediction = joined["prediction"].to_numpy(np.float64)[order]
        self.n = np.bincount(self.codes, minlength=len(users)).astype(np.float64)
        self.lost = paired.lost_users(len(users))

    def finish(
        self, values: np.ndarray, undefined: np.ndarray, *, name: str, empty: str
    ) -> pd.Series:
        return finish_per_user(
            values, self.users, name=name, undefined=undefined, empty=empty,
            extra_counts=self.lost,
        )


def _pair_counts(prep: _Prepared) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per user: concordant, discordant, tied-in-truth and tied-in-prediction pair counts,
    over every within-user pair of test items (a compiled loop over the pairs,
    :func:`._kernels.pair_counts`; no pair is materialized)."""
    from ._kernels import over_users, pair_counts

    n_users = len(prep.users)
    out = np.zeros((4, n_users), dtype=np.int64)
    starts = np.zeros(n_users + 1, dtype=np.int64)
    np.cumsum(prep.n.astype(np.int64), out=starts[1:])
    if n_users:
        over_users(n_users, lambda u0, u1: pair_counts(starts, prep.rating, prep.prediction,
                                                       u0, u1, out))
    return tuple(out.astype(np.float64))  # type: ignore[return-value]


def spearman(
    truth: pd.DataFrame,
    predictions: pd.DataFrame,
    *,
    empty: str = "drop",
    missing: str = "error",
) -> pd.Series:
    """Spearman rank correlation of each user's predictions with their test ratings
    (higher is better).

    Parameters
    ----------
    truth : pandas.DataFrame
        Test ratings ``user_id, item_id, rating``.
    predictions : pandas.DataFrame
        ``user_id, item_id, prediction``, or ``user_id, item_id, score`` (a recommendation
        frame); rows of pairs not in ``truth`` are ignored.
    empty : {"drop", "zero", "nan"}, default "drop"
        Policy for users whose correlation is undefined (see Notes).
    missing : {"error", "drop"}, default "error"
        A test rating without a prediction raises, or is left out with a warning.

    Returns
    -------
    MetricSeries
        Named ``"spearman"``, indexed by ``user_id`` (ascending), values in [-1, 1].
        ``dropped`` counts users left out by reason (``"undefined"``, ``"no_prediction"``,
        ``"recs_only"``), ``n_users`` users evaluated.

    Raises
    ------
    TypeError, ValueError
        On missing columns, NaN ratings, NaN or infinite predictions, duplicate pairs, id
        columns of different kinds, an unknown ``empty`` or ``missing``, or a test rating
        without a prediction under ``missing="error"``.

    Notes
    -----
    :math:`\\rho_u` is the Pearson correlation of the tie-averaged ranks of the predictions
    and of the ratings among the user's test items. It is undefined when either side has no
    variance: fewer than 2 distinct true ratings (this includes a single test item) or all
    predictions tied. Undefined users follow ``empty``.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalkit.metrics.correlation import spearman
    >>> truth = pd.DataFrame({"user_id": [1, 1, 1, 2, 2], "item_id": [1, 2, 3, 1, 2],
    ...                       "rating": [5.0, 3.0, 1.0, 4.0, 4.0]})
    >>> predictions = truth[["user_id", "item_id"]].assign(prediction=[4.0, 4.5, 2.0, 3, 5])
    >>> spearman(truth, predictions).to_dict()  # user 2: all ratings tied, undefined
    {1: 0.5}
    """
    func = "spearman"
    empty = check_empty(empty, func=func)
    prep = _Prepared(truth, predictions, func=func, missing=missing)
    codes = prep.codes
    rt = pd.Series(prep.rating).groupby(codes).rank(method="average").to_numpy()
    rp = pd.Series(prep.prediction).groupby(codes).rank(method="average").to_numpy()
    center = (prep.n[codes] + 1.0) / 2.0  # mean of the ranks 1..n, ties averaged
    dx, dy = rt - center, rp - center
    n_users = len(prep.users)
    sxy = np.bincount(codes, weights=dx * dy, minlength=n_users)
    sxx = np.bincount(codes, weights=dx * dx, minlength=n_users)
    syy = np.bincount(codes, weights=dy * dy, minlength=n_users)
    undefined = (sxx == 0) | (syy == 0)
    denom = np.sqrt(np.where(undefined, 1.0, sxx * syy))
    values = np.clip(sxy / denom, -1.0, 1.0)
    return prep.finish(values, undefined, name="spearman", empty=empty)


def kendall(
    truth: pd.DataFrame,
    predictions: pd.DataFrame,
    *,
    empty: str = "drop",
    missing: str = "error",
) -> pd.Series:
    """Kendall tau-b of each user's predictions with their test ratings (higher is better).

    Parameters
    ----------
    truth, predictions : pandas.DataFrame
        Test ratings and predictions, as :func:`spearman`.
    empty : {"drop", "zero", "nan"}, default "drop"
        Policy for users whose value is undefined, as :func:`spearman`.
    missing : {"error", "drop"}, default "error"
        A test rating without a prediction raises, or is left out with a warning.

    Returns
    -------
    MetricSeries
        Named ``"kendall"``, indexed by ``user_id`` (ascending), values in [-1, 1];
        ``dropped`` and ``n_users`` as :func:`spearman`.

    Raises
    ------
    TypeError, ValueError
        As :func:`spearman`.

    Notes
    -----
    Over the :math:`n_0 = n(n-1)/2` pairs of the user's test items, with :math:`n_c`
    concordant and :math:`n_d` discordant pairs, :math:`n_1` pairs tied in the rating and
    :math:`n_2` tied in the prediction,

    .. math:: \\tau_b = \\frac{n_c - n_d}{\\sqrt{(n_0 - n_1)(n_0 - n_2)}}.

    Undefined (``empty`` policy) when :math:`n_0 = n_1` (fewer than 2 distinct true ratings)
    or :math:`n_0 = n_2` (all predictions tied).

    References
    ----------
    Kendall (1945), The treatment of ties in ranking problems, Biometrika.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalkit.metrics.correlation import kendall
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": [1, 2, 3],
    ...                       "rating": [5.0, 3.0, 1.0]})
    >>> predictions = truth[["user_id", "item_id"]].assign(prediction=[4.0, 4.5, 2.0])
    >>> kendall(truth, predictions).round(4).to_dict()  # (2 - 1) / 3
    {1: 0.3333}
    """
    func = "kendall"
    empty = check_empty(empty, func=func)
    prep = _Prepared(truth, predictions, func=func, missing=missing)
    nc, nd, tx, ty = _pair_counts(prep)
    n0 = prep.n * (prep.n - 1) / 2
    undefined = (n0 == tx) | (n0 == ty)
    denom = np.sqrt(np.where(undefined, 1.0, (n0 - tx) * (n0 - ty)))
    values = np.clip((nc - nd) / denom, -1.0, 1.0)
    return prep.finish(values, undefined, name="kendall", empty=empty)


def fcp(
    truth: pd.DataFrame,
    predictions: pd.DataFrame,
    *,
    empty: str = "drop",
    missing: str = "error",
) -> pd.Series:
    """Fraction of concordant pairs of each user's test items (higher is better).

    Parameters
    ----------
    truth, predictions : pandas.DataFrame
        Test ratings and predictions, as :func:`spearman`.
    empty : {"drop", "zero", "nan"}, default "drop"
        Policy for users whose value is undefined, as :func:`spearman`.
    missing : {"error", "drop"}, default "error"
        A test rating without a prediction raises, or is left out with a warning.

    Returns
    -------
    MetricSeries
        Named ``"fcp"``, indexed by ``user_id`` (ascending), values in [0, 1];
        ``dropped`` and ``n_users`` as :func:`spearman`.

    Raises
    ------
    TypeError, ValueError
        As :func:`spearman`.

    Notes
    -----
    Over the pairs of the user's test items with different true ratings, a pair is
    concordant when the predictions order it the same way, discordant when the opposite way;
    pairs tied in the prediction count as neither:

    .. math:: \\mathrm{FCP}_u = \\frac{n_c(u)}{n_c(u) + n_d(u)}.

    Undefined (``empty`` policy) when :math:`n_c + n_d = 0`: fewer than 2 distinct true
    ratings, or every pair with different ratings tied in the prediction.

    References
    ----------
    Koren (2008), Factorization meets the neighborhood, KDD.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalkit.metrics.correlation import fcp
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": [1, 2, 3, 4],
    ...                       "rating": [5.0, 3.0, 1.0, 1.0]})
    >>> predictions = truth[["user_id", "item_id"]].assign(prediction=[4.0, 4.5, 2.0, 4.0])
    >>> fcp(truth, predictions).to_dict()  # pairs (1,2) -, (1,3) +, (1,4) tie, (2,3) +, (2,4) +
    {1: 0.75}
    """
    func = "fcp"
    empty = check_empty(empty, func=func)
    prep = _Prepared(truth, predictions, func=func, missing=missing)
    nc, nd, _, _ = _pair_counts(prep)
    undefined = (nc + nd) == 0
    values = nc / np.where(undefined, 1.0, nc + nd)
    return prep.finish(values, undefined, name="fcp", empty=empty)


def fcp_global(
    truth: pd.DataFrame,
    predictions: pd.DataFrame,
    *,
    missing: str = "error",
) -> float:
    """Fraction of concordant pairs pooled over all users, as defined by Koren (2008)
    (higher is better).

    Parameters
    ----------
    truth, predictions : pandas.DataFrame
        Test ratings and predictions, as :func:`spearman`.
    missing : {"error", "drop"}, default "error"
        A test rating without a prediction raises, or is left out with a warning.

    Returns
    -------
    float
        In [0, 1]; NaN with a ``RuntimeWarning`` when no user has a pair to compare.

    Raises
    ------
    TypeError, ValueError
        As :func:`spearman`.

    Notes
    -----
    .. math:: \\mathrm{FCP} = \\frac{\\sum_u n_c(u)}{\\sum_u n_c(u) + n_d(u)},

    with the pair counts of :func:`fcp`. Users with many test items weigh more than in the mean
    of :func:`fcp`; users without a comparable pair contribute nothing.

    References
    ----------
    Koren (2008), Factorization meets the neighborhood, KDD.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalkit.metrics.correlation import fcp_global
    >>> truth = pd.DataFrame({"user_id": [1, 1, 1, 2, 2], "item_id": [1, 2, 3, 1, 2],
    ...                       "rating": [5.0, 3.0, 1.0, 4.0, 2.0]})
    >>> predictions = truth[["user_id", "item_id"]].assign(prediction=[4.0, 4.5, 2.0, 1, 5])
    >>> fcp_global(truth, predictions)  # (2 + 0) / (3 + 1)
    0.5
    """
    func = "fcp_global"
    prep = _Prepared(truth, predictions, func=func, missing=missing)
    nc, nd, _, _ = _pair_counts(prep)
    total = float(nc.sum() + nd.sum())
    if total == 0:
        warn(
            f"{func}: no user has a pair of test items with different ratings and different "
            "predictions; returning NaN.",
            RuntimeWarning)
        return float("nan")
    return float(nc.sum() / total)
