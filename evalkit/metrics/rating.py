"""Rating-prediction accuracy: mean absolute error and root mean squared error.

Both compare each test rating ``r`` with its predicted rating ``r_hat``. By default they
average over all test ratings (``average="micro"``, as rating-prediction results are usually
reported); ``average="user"`` first computes the error of each user and then takes the mean
over users, so every user weighs the same.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._checks import MISSING_POLICIES, check_choice, join_predictions
from .._constraints import FRACTION, RESAMPLES, SEED, constrained
from .._display import CompactTable
from ._common import finish_per_user

__all__ = ["AVERAGES", "ERROR_ROWS", "MISSING_POLICIES", "mae", "mae_per_user", "rating_errors",
           "rmse", "rmse_per_user"]

#: Valid values of ``average``: over all test ratings, or the mean of per-user values.
AVERAGES = ("micro", "user")


def _per_user(
    truth: object,
    predictions: object,
    *,
    func: str,
    name: str,
    missing: str,
    squared: bool,
) -> pd.Series:
    paired = join_predictions(truth, predictions, func=func, missing=missing)
    joined = paired.frame
    err = joined["rating"].to_numpy(np.float64) - joined["prediction"].to_numpy(np.float64)
    values = err * err if squared else np.abs(err)
    codes, users = pd.factorize(joined["user_id"], sort=True)
    counts = np.bincount(codes, minlength=len(users))
    means = np.bincount(codes, weights=values, minlength=len(users)) / np.maximum(counts, 1)
    if squared:
        means = np.sqrt(means)
    return finish_per_user(
        means,
        pd.Index(users),
        name=name,
        undefined=None,
        empty="drop",
        extra_counts=paired.lost_users(len(users)),
    )


def _summary(
    truth: object,
    predictions: object,
    *,
    func: str,
    average: str,
    missing: str,
    squared: bool,
) -> float:
    average = check_choice(average, func=func, arg="average", choices=AVERAGES)
    if average == "user":
        per_user = _per_user(
            truth, predictions, func=func, name=func, missing=missing, squared=squared
        )
        values = per_user.to_numpy()
    else:
        joined = join_predictions(truth, predictions, func=func, missing=missing).frame
        err = joined["rating"].to_numpy(np.float64) - joined["prediction"].to_numpy(np.float64)
        values = err * err if squared else np.abs(err)
    if values.size == 0:
        raise ValueError(f"{func}: no test rating to evaluate; 'truth' has no rows left.")
    mean = float(np.mean(values))
    return float(np.sqrt(mean)) if squared and average == "micro" else mean


def mae(
    truth: pd.DataFrame,
    predictions: pd.DataFrame,
    *,
    average: str = "micro",
    missing: str = "error",
) -> float:
    """Mean absolute error of predicted ratings (lower is better).

    Parameters
    ----------
    truth : pandas.DataFrame
        Test ratings ``user_id, item_id, rating``; (user, item) pairs unique.
    predictions : pandas.DataFrame
        ``user_id, item_id, prediction``; predictions of pairs not in ``truth`` are ignored.
    average : {"micro", "user"}, default "micro"
        ``"micro"``: mean over all test ratings. ``"user"``: mean over users of each user's
        MAE (every user weighs the same).
    missing : {"error", "drop"}, default "error"
        What to do with a test rating that has no prediction: raise, or leave it out and warn
        with the count.

    Returns
    -------
    float
        The MAE, in rating units, >= 0.

    Raises
    ------
    TypeError, ValueError
        On missing columns, NaN ratings, NaN or infinite predictions, duplicate pairs, id
        columns of different kinds (integer vs string), an unknown ``average`` or ``missing``,
        a test rating without a prediction under ``missing="error"``, or nothing to evaluate.

    Notes
    -----
    With errors :math:`e_{ui} = r_{ui} - \\hat r_{ui}` over the set :math:`R` of test ratings,

    .. math:: \\mathrm{MAE} = \\frac{1}{|R|} \\sum_{(u,i) \\in R} |e_{ui}|.

    ``average="user"`` gives :math:`\\frac{1}{|U|} \\sum_u \\mathrm{MAE}_u`. An empty set of
    test ratings has no MAE and raises ``ValueError``.

    Examples
    --------
    The rating table of the seed lecture notes (sum of absolute errors 5.6 over 10 ratings):

    >>> import pandas as pd
    >>> from evalkit.metrics.rating import mae
    >>> truth = pd.DataFrame({"user_id": [1, 1, 1, 2, 2, 3, 3, 3, 4, 4],
    ...                       "item_id": [1, 2, 3, 1, 4, 5, 4, 2, 5, 6],
    ...                       "rating": [5.0, 4, 5, 3, 5, 4, 4, 3, 4, 5]})
    >>> predictions = truth[["user_id", "item_id"]].assign(
    ...     prediction=[3.5, 5, 5, 5, 4.5, 4.1, 3.9, 3, 4.2, 4.8])
    >>> round(mae(truth, predictions), 3)
    0.56
    >>> round(mae(truth, predictions, average="user"), 3)
    0.588
    """
    return _summary(truth, predictions, func="mae", average=average, missing=missing, squared=False)


def rmse(
    truth: pd.DataFrame,
    predictions: pd.DataFrame,
    *,
    average: str = "micro",
    missing: str = "error",
) -> float:
    """Root mean squared error of predicted ratings (lower is better).

    Parameters
    ----------
    truth : pandas.DataFrame
        Test ratings ``user_id, item_id, rating``; (user, item) pairs unique.
    predictions : pandas.DataFrame
        ``user_id, item_id, prediction``; predictions of pairs not in ``truth`` are ignored.
    average : {"micro", "user"}, default "micro"
        ``"micro"``: root of the mean squared error over all test ratings. ``"user"``: mean
        over users of each user's RMSE.
    missing : {"error", "drop"}, default "error"
        What to do with a test rating that has no prediction: raise, or leave it out and warn
        with the count.

    Returns
    -------
    float
        The RMSE, in rating units, >= 0.

    Raises
    ------
    TypeError, ValueError
        As :func:`mae`.

    Notes
    -----
    .. math::

        \\mathrm{RMSE} = \\sqrt{\\frac{1}{|R|} \\sum_{(u,i) \\in R} (r_{ui} - \\hat r_{ui})^2}.

    ``average="user"`` gives :math:`\\frac{1}{|U|} \\sum_u \\mathrm{RMSE}_u` (the root is taken
    per user, before the mean). An empty set of test ratings raises ``ValueError``.

    Examples
    --------
    The rating table of the seed lecture notes (sum of squared errors 7.6 over 10 ratings):

    >>> import pandas as pd
    >>> from evalkit.metrics.rating import rmse
    >>> truth = pd.DataFrame({"user_id": [1, 1, 1, 2, 2, 3, 3, 3, 4, 4],
    ...                       "item_id": [1, 2, 3, 1, 4, 5, 4, 2, 5, 6],
    ...                       "rating": [5.0, 4, 5, 3, 5, 4, 4, 3, 4, 5]})
    >>> predictions = truth[["user_id", "item_id"]].assign(
    ...     prediction=[3.5, 5, 5, 5, 4.5, 4.1, 3.9, 3, 4.2, 4.8])
    >>> round(rmse(truth, predictions), 3)
    0.872
    """
    return _summary(truth, predictions, func="rmse", average=average, missing=missing, squared=True)


def mae_per_user(
    truth: pd.DataFrame,
    predictions: pd.DataFrame,
    *,
    missing: str = "error",
) -> pd.Series:
    """Mean absolute error of each test user's predicted ratings (lower is better).

    Parameters
    ----------
    truth, predictions : pandas.DataFrame
        As :func:`mae`.
    missing : {"error", "drop"}, default "error"
        As :func:`mae`.

    Returns
    -------
    MetricSeries
        Named ``"mae"``, indexed by ``user_id`` (ascending), one value >= 0 per test user.
        Its ``dropped["no_prediction"]`` counts users left out because none of their test
        ratings had a prediction (only possible with ``missing="drop"``) and
        ``dropped["recs_only"]`` users of ``predictions`` without test ratings (ignored);
        ``n_users`` counts users evaluated.

    Raises
    ------
    TypeError, ValueError
        As :func:`mae`.

    Notes
    -----
    :math:`\\mathrm{MAE}_u = \\frac{1}{|R_u|} \\sum_{i \\in R_u} |r_{ui} - \\hat r_{ui}|`.
    A user with no evaluated rating has no value and is left out (counted).

    Examples
    --------
    >>> import pandas as pd
    >>> from evalkit.metrics.rating import mae_per_user
    >>> truth = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [1, 2, 1],
    ...                       "rating": [5.0, 3.0, 4.0]})
    >>> predictions = truth[["user_id", "item_id"]].assign(prediction=[4.0, 4.0, 4.5])
    >>> mae_per_user(truth, predictions).tolist()
    [1.0, 0.5]
    """
    return _per_user(
        truth, predictions, func="mae_per_user", name="mae", missing=missing, squared=False
    )


def rmse_per_user(
    truth: pd.DataFrame,
    predictions: pd.DataFrame,
    *,
    missing: str = "error",
) -> pd.Series:
    """Root mean squared error of each test user's predicted ratings (lower is better).

    Parameters
    ----------
    truth, predictions : pandas.DataFrame
        As :func:`rmse`.
    missing : {"error", "drop"}, default "error"
        As :func:`rmse`.

    Returns
    -------
    MetricSeries
        Named ``"rmse"``, indexed by ``user_id`` (ascending), one value >= 0 per test user;
        ``dropped`` and ``n_users`` as :func:`mae_per_user`.

    Raises
    ------
    TypeError, ValueError
        As :func:`rmse`.

    Notes
    -----
    .. math::

        \\mathrm{RMSE}_u = \\sqrt{\\frac{1}{|R_u|} \\sum_{i \\in R_u} (r_{ui} - \\hat r_{ui})^2}.

    A user with no evaluated rating has no value and is left out (counted).

    Examples
    --------
    >>> import pandas as pd
    >>> from evalkit.metrics.rating import rmse_per_user
    >>> truth = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [1, 2, 1],
    ...                       "rating": [5.0, 3.0, 4.0]})
    >>> predictions = truth[["user_id", "item_id"]].assign(prediction=[4.0, 4.0, 4.5])
    >>> rmse_per_user(truth, predictions).tolist()
    [1.0, 0.5]
    """
    return _per_user(
        truth, predictions, func="rmse_per_user", name="rmse", missing=missing, squared=True
    )


#: Rows of :func:`rating_errors`.
ERROR_ROWS = ("MAE", "RMSE", "MAE per user", "RMSE per user")


@constrained(rng=SEED, confidence=FRACTION, n_resamples=RESAMPLES)
def rating_errors(
    truth: pd.DataFrame,
    predictions: pd.DataFrame,
    *,
    missing: str = "error",
    confidence: float = 0.95,
    n_resamples: int = 1000,
    rng: int | np.random.Generator | None = 0,
) -> pd.DataFrame:
    """MAE and RMSE, over all test ratings and per user, with bootstrap intervals.

    Parameters
    ----------
    truth, predictions : pandas.DataFrame
        Test ratings and predictions, as in :func:`mae`.
    missing : {"error", "drop"}, default "error"
        A test rating without a prediction raises, or is left out with a warning.
    confidence : float, default 0.95
        Coverage of the intervals, in (0, 1).
    n_resamples : int, default 1000
        Bootstrap replicates; 0 for no intervals (NaN bounds).
    rng : int, Generator or None, default 0
        Seed of the resampling; the same seed gives the same intervals.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``MAE``, ``RMSE`` (over all test ratings, as :func:`mae` and :func:`rmse`
        with ``average="micro"``), ``MAE per user`` and ``RMSE per user``
        (``average="user"``); columns ``value``, ``ci_low``, ``ci_high``, ``n_users`` and
        ``n_ratings``. A notebook shows it at 4 decimals; ``.table`` is a plain DataFrame.

    Raises
    ------
    TypeError, ValueError
        As :func:`mae`, and for an option out of range.

    Notes
    -----
    The bootstrap resamples users, not ratings (a user's ratings are not independent of one
    another), with the Poisson design of :func:`evalkit.stats.bootstrap_ci_frame`: replicate
    b weighs user u by ``w_ub ~ Poisson(1)``, drawn from the seed and the user id. With
    ``S1_u``, ``S2_u`` the sums of absolute and squared errors of user u's ``n_u`` ratings, the
    replicates are ``sum w S1 / sum w n`` (MAE), ``sqrt(sum w S2 / sum w n)`` (RMSE) and the
    weighted means of the per-user values; the interval is their alpha/2 and 1 - alpha/2
    quantiles.

    Examples
    --------
    >>> truth = pd.DataFrame({"user_id": [1, 1, 1, 2, 2, 3, 3, 3, 4, 4],
    ...                       "item_id": [1, 2, 3, 1, 4, 5, 4, 2, 5, 6],
    ...                       "rating": [5.0, 4, 5, 3, 5, 4, 4, 3, 4, 5]})
    >>> predictions = truth[["user_id", "item_id"]].assign(
    ...     prediction=[3.5, 5, 5, 5, 4.5, 4.1, 3.9, 3, 4.2, 4.8])
    >>> rating_errors(truth, predictions)["value"].round(3).tolist()
    [0.56, 0.872, 0.588, 0.695]
    """
    from ..stats import percentile_interval, user_bootstrap_sums

    func = "rating_errors"
    confidence, n_resamples = float(confidence), int(n_resamples)  # constrained
    joined = join_predictions(truth, predictions, func=func, missing=missing).frame
    if len(joined) == 0:
        raise ValueError(f"{func}: no test rating to evaluate; 'truth' has no rows left.")
    err = joined["rating"].to_numpy(np.float64) - joined["prediction"].to_numpy(np.float64)
    codes, users = pd.factorize(joined["user_id"], sort=True)
    n = np.bincount(codes, minlength=len(users)).astype(np.float64)
    s1 = np.bincount(codes, weights=np.abs(err), minlength=len(users))
    s2 = np.bincount(codes, weights=err * err, minlength=len(users))
    mae_u, rmse_u = s1 / n, np.sqrt(s2 / n)
    value = np.array([s1.sum() / n.sum(), np.sqrt(s2.sum() / n.sum()), mae_u.mean(),
                      rmse_u.mean()])
    low = np.full(4, np.nan)
    high = np.full(4, np.nan)
    if n_resamples:
        sums = user_bootstrap_sums([s1, s2, n, mae_u, rmse_u, np.ones(len(users))], users,
                                   n_resamples=n_resamples, rng=rng, func=func)
        with np.errstate(invalid="ignore", divide="ignore"):
            replicates = np.vstack([sums[0] / sums[2], np.sqrt(sums[1] / sums[2]),
                                    sums[3] / sums[5], sums[4] / sums[5]]).T
        low, high = percentile_interval(replicates, confidence)
    return CompactTable({"value": value, "ci_low": low, "ci_high": high,  # at 4 decimals
                         "n_users": len(users), "n_ratings": len(joined)},
                        index=pd.Index(ERROR_ROWS, name="error"))
