"""Uncertainty of per-user means and paired comparison of systems.

Every function works on per-user values that the caller has already aligned and cleaned:
:func:`bootstrap_ci` and :func:`paired_tests` reject NaN rather than guess a policy (drop or
fill them first, as the metric's ``empty=`` policy says), while :func:`bootstrap_ci_frame`
drops NaN per column and reports the count. Random functions take ``rng`` (a seed, a
``numpy.random.Generator`` or None) and call ``np.random.default_rng(rng)`` once, to draw the
64-bit key of a counter-based resampling design: every bootstrap weight is a hash of (key,
user id, replicate) and every random sign of (key, user position, replicate), computed in
compiled code (:mod:`evalkit._resample`) on fixed chunks, so results depend neither on the
thread count nor on how the work is split; bootstrap intervals of a per-user table depend on
neither the order of its rows nor how it is partitioned (:mod:`evalkit.spark` adds the sums of
its partitions and gets the intervals of the whole table).

:func:`mde`, :func:`power`, :func:`required_users` and :func:`power_curve` say how large a
difference a paired comparison can detect, and how many users it would need (the noncentral
t, or a simulation of the actual test on the observed differences); :func:`mde` says why
there is no "observed power".
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalkit._checks import (
    as_vector as _as_vector,
)
from evalkit._checks import (
    check_choice,
    check_fraction,
    check_positive_int,
    check_resamples,
    check_rng,
)
from evalkit._errors import InvalidParameterError
from evalkit._power import mde, power, power_curve, required_users
from evalkit._resample import (
    design_key,
    poisson_column_sums,
    poisson_means,
    quantile_interval,
    sign_flip_sums,
    user_streams,
)

__all__ = ["bootstrap_ci", "bootstrap_ci_frame", "holm", "mde", "paired_tests",
           "percentile_interval", "power", "power_curve", "required_users",
           "user_bootstrap_sums"]

_ZERO_METHODS = ("wilcox", "pratt", "zsplit")


def user_bootstrap_sums(columns: list[np.ndarray], users: object, *, n_resamples: int,
                        rng: int | np.random.Generator | None = 0,
                        func: str = "user_bootstrap_sums") -> np.ndarray:
    """Poisson-bootstrap sums of per-user columns, for statistics that are ratios of sums.

    Parameters
    ----------
    columns : list of (n,) float arrays
        One value per user in each (no NaN), e.g. a user's hits and its relevant items.
    users : array-like
        The n user ids, which the weights are drawn from (see :func:`bootstrap_ci_frame`).
    n_resamples : int
        Number of replicates B (at least 1).
    rng : int, Generator or None, default 0
        Seed of the design; the same seed gives the same weights as every evalkit interval.
    func : str
        The calling function, for error messages.

    Returns
    -------
    (m, B) float64
        ``sum_u w_ub columns[j][u]``, the weights ``w_ub ~ Poisson(1)`` shared by every column.
    """
    n_resamples = check_resamples(n_resamples, func=func, allow_zero=False)
    check_rng(rng, func=func)
    sums, _ = poisson_column_sums([np.asarray(c, dtype=np.float64) for c in columns],
                                   n_resamples, design_key(rng), user_streams(users))
    return sums


def percentile_interval(replicates: np.ndarray, confidence: float = 0.95
                        ) -> tuple[np.ndarray, np.ndarray]:
    """The alpha/2 and 1 - alpha/2 quantiles (numpy's linear interpolation) of each column of
    ``replicates`` (replicates x statistics), NaN replicates left out: the percentile
    bootstrap interval evalkit uses everywhere.

    Parameters
    ----------
    replicates : numpy.ndarray
        The bootstrap replicates, one row per replicate and one column per statistic.
    confidence : float, default 0.95
        The interval's level.
    """
    return quantile_interval(np.asarray(replicates, dtype=np.float64), confidence)


def bootstrap_ci(
    values: object,
    *,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    rng: int | np.random.Generator | None = 0,
) -> tuple[float, float]:
    """Percentile bootstrap confidence interval of the mean.

    Parameters
    ----------
    values : array-like of float
        One value per user, without NaN.
    confidence : float, default 0.95
        Coverage of the interval, in (0, 1).
    n_resamples : int, default 1000
        Number of bootstrap resamples.
    rng : int, numpy.random.Generator or None, default 0
        Seed or generator for the resampling; the same seed gives the same interval.

    Returns
    -------
    tuple of float
        ``(low, high)``.

    Raises
    ------
    ValueError
        If ``values`` is empty, not 1-D, or holds NaN or infinite values, or an option is out
        of range.
    TypeError
        If ``values`` is not numeric.

    Notes
    -----
    A Poisson bootstrap: replicate b gives every value x_i an independent weight
    w_ib ~ Poisson(1) (the number of times it is drawn) and takes the weighted mean

        m_b = sum_i w_ib x_i / sum_i w_ib,

    which for large n behaves as the classical bootstrap, where the weights are
    Multinomial(n; 1/n, ..., 1/n) counts (Hanley and MacGibbon 2006; Chamandy et al. 2012).
    Each weight is a hash of (key, position i, b), turned into a Poisson(1) count by
    inversion of 32 of its bits (every probability of the law to within 2^-32), with the key
    one 64-bit draw from ``np.random.default_rng(rng)``; so it can be computed for every
    value and replicate independently, in compiled code, and the interval does not depend
    on the thread count. A replicate in which every weight is 0 (probability e^-n) has no
    mean and is left out. With alpha = 1 - confidence, the
    interval is the alpha/2 and 1 - alpha/2 quantiles (numpy's default linear interpolation)
    of the replicate means. Values that are all equal (one value, say) give the degenerate
    interval (x, x).

    References
    ----------
    B. Efron and R. J. Tibshirani, *An Introduction to the Bootstrap*, Chapman & Hall, 1993,
    chapter 13.
    J. A. Hanley and B. J. MacGibbon, "Creating non-parametric bootstrap samples using
    Poisson frequencies", Computer Methods and Programs in Biomedicine 83(1), 2006, pp. 57-62.
    N. Chamandy, O. Muralidharan, A. Najmi and S. Naidu, "Estimating uncertainty for massive
    data streams", Google technical report, 2012.

    Examples
    --------
    >>> low, high = bootstrap_ci([0.2, 0.4, 0.5, 0.9, 0.3], rng=0)
    >>> bool(low < 0.46 < high)
    True
    """
    func = "bootstrap_ci"
    array = _as_vector(values, func=func, arg="values")
    confidence = check_fraction(confidence, func=func, arg="confidence")
    n_resamples = check_resamples(n_resamples, func=func, allow_zero=False)
    if len(array) == 0:
        raise ValueError(f"{func}: 'values' must hold at least one value; got an empty array.")
    key = design_key(check_rng(rng, func=func))
    if array.min() == array.max():
        return float(array[0]), float(array[0])
    means = poisson_means([array], n_resamples, key)
    low, high = quantile_interval(means, confidence)
    return float(low[0]), float(high[0])



def _frame_columns(frame: pd.DataFrame, *, func: str) -> list[np.ndarray]:
    """Each column of ``frame`` as a float64 vector (NaN allowed, never infinity), converted
    as one block when every column is numeric (a table of curves has hundreds); a column
    that cannot be is refused as :func:`evalkit._checks.as_vector` refuses it, by name."""
    def column(j: int) -> np.ndarray:
        return _as_vector(frame.iloc[:, j], func=func, arg=f"frame[{frame.columns[j]!r}]",
                          allow_nan=True)

    numeric = all(pd.api.types.is_numeric_dtype(t) or pd.api.types.is_bool_dtype(t)
                  for t in frame.dtypes)
    if not numeric or frame.shape[1] < 2:
        return [column(j) for j in range(frame.shape[1])]
    block = frame.to_numpy(dtype=np.float64, na_value=np.nan)
    infinite = np.isinf(block).any(axis=0)
    if infinite.any():
        column(int(np.flatnonzero(infinite)[0]))  # raises, naming the column
    return [np.ascontiguousarray(block[:, j]) for j in range(block.shape[1])]


def bootstrap_ci_frame(
    frame: pd.DataFrame,
    *,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    rng: int | np.random.Generator | None = 0,
) -> pd.DataFrame:
    """Mean and percentile bootstrap interval of every column of a per-user table.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per user, one numeric column per metric; NaN means "undefined for this user".
    confidence : float, default 0.95
        Coverage of the intervals, in (0, 1).
    n_resamples : int, default 1000
        Number of bootstrap resamples; 0 computes no intervals (``ci_low`` and ``ci_high``
        are NaN).
    rng : int, numpy.random.Generator or None, default 0
        Seed or generator for the resampling.

    Returns
    -------
    pandas.DataFrame
        One row per column of ``frame`` (indexed by the column names), with columns ``mean``,
        ``ci_low``, ``ci_high`` (float64), ``n`` (values used) and ``n_missing`` (NaN values
        dropped), both int64.

    Raises
    ------
    TypeError
        If ``frame`` is not a DataFrame or a column is not numeric.
    ValueError
        If a column holds an infinite value, or an option is out of range.

    Notes
    -----
    One resampling design for the whole table: replicate b gives the user in row i the
    weight w_ib ~ Poisson(1), the same for every column (so every metric of a replicate is
    computed on the same resampled users, and differences between columns stay paired), and
    column j's replicate mean is

        m_jb = sum_{i in P_j} w_ib x_ij / sum_{i in P_j} w_ib,

    with P_j the rows where column j is not NaN; the interval is the alpha/2 and
    1 - alpha/2 quantiles of the m_jb, as in :func:`bootstrap_ci` (whose Notes give the
    method and references). The weights depend on the seed and the row's index label only
    (the user id: :func:`evalkit._resample.user_streams` turns it into the 64-bit integer the
    hash takes; an integer id is itself), not on the row's position, so the intervals do not
    depend on the order of the rows, and a user draws the same weights in any subset of the
    users (a segment, a partition of a distributed table); rows sharing a label share their
    weights (they are resampled together). Under a default ``RangeIndex`` the label is the
    position, so a column without NaN gets exactly ``bootstrap_ci(column, rng=seed)``. A
    column whose values are all equal gets the interval (x, x); a column without any value
    gets NaN mean and bounds and ``n = 0``.

    Examples
    --------
    >>> table = pd.DataFrame({"ndcg": [0.1, 0.5, 0.3, 0.7], "recall": [0.0, 1.0, None, 0.5]})
    >>> summary = bootstrap_ci_frame(table, rng=0)
    >>> summary[["mean", "n", "n_missing"]]
            mean  n  n_missing
    ndcg     0.4  4          0
    recall   0.5  3          1
    """
    func = "bootstrap_ci_frame"
    if not isinstance(frame, pd.DataFrame):
        raise InvalidParameterError(
            f"{func}: 'frame' must be a pandas DataFrame; got {type(frame).__name__}.")
    check_rng(rng, func=func)
    confidence = check_fraction(confidence, func=func, arg="confidence")
    n_resamples = check_resamples(n_resamples, func=func)
    columns = _frame_columns(frame, func=func)
    present = [column[~np.isnan(column)] for column in columns]
    counts = np.array([len(values) for values in present], dtype=np.int64)

    low = np.full(len(columns), np.nan)
    high = np.full(len(columns), np.nan)
    varying = []
    for j, values in enumerate(present if n_resamples else []):  # per column, not per user
        if len(values) and values.min() == values.max():
            low[j] = high[j] = values[0]
        elif len(values):
            varying.append(j)
    varying = np.asarray(varying, dtype=np.int64)
    if n_resamples:
        key = design_key(rng)
    if varying.size:
        means = poisson_means([columns[j] for j in varying], n_resamples, key,
                               user_streams(frame.index))
        low[varying], high[varying] = quantile_interval(means, confidence)
    mean = np.array([values.mean() if len(values) else np.nan for values in present])
    return pd.DataFrame(
        {
            "mean": mean,
            "ci_low": low,
            "ci_high": high,
            "n": counts,
            "n_missing": np.array([len(c) for c in columns], dtype=np.int64) - counts,
        },
        index=frame.columns.copy(),
    )


def paired_tests(
    a: object,
    b: object,
    *,
    n_permutations: int = 10000,
    zero_method: str = "wilcox",
    rng: int | np.random.Generator | None = 0,
) -> dict[str, float | int]:
    """Compare two systems on the same users: t-test, Wilcoxon, randomization test, effect size.

    Parameters
    ----------
    a, b : array-like of float
        Per-user values of the two systems, aligned (same users, same order), without NaN.
        When both are pandas Series their indexes must be equal.
    n_permutations : int, default 10000
        Number of random sign flips of the randomization test.
    zero_method : {"wilcox", "pratt", "zsplit"}, default "wilcox"
        Treatment of zero differences in the Wilcoxon test, as in ``scipy.stats.wilcoxon``:
        "wilcox" drops them before ranking, "pratt" ranks them and then drops them, "zsplit"
        splits their ranks between the positive and negative sums.
    rng : int, numpy.random.Generator or None, default 0
        Seed or generator for the randomization test.

    Returns
    -------
    dict
        ``n`` (users), ``mean_a``, ``mean_b``, ``mean_diff`` (mean of a - b), ``t_statistic``,
        ``t_pvalue``, ``wilcoxon_statistic``, ``wilcoxon_pvalue``, ``permutation_pvalue`` and
        ``cohens_dz``; all two-sided.

    Raises
    ------
    ValueError
        If the inputs differ in length or index, hold fewer than 2 values, NaN or infinite
        values, or an option is invalid.
    TypeError
        If an input is not numeric.

    Notes
    -----
    With d = a - b over n users:

    - paired t-test: ``scipy.stats.ttest_rel(a, b)``, t = mean(d) / (sd(d) / sqrt(n)) with
      sd the sample standard deviation (ddof = 1);
    - Wilcoxon signed-rank: ``scipy.stats.wilcoxon(d, zero_method=zero_method)`` (scipy's
      default ``method="auto"``: exact for small samples without ties or zeros, otherwise
      the normal approximation);
    - randomization test: T = sum(d); each of the ``n_permutations`` replicates flips the sign
      of every d_i independently with probability 1/2, T* = sum(s_i d_i), and
      ``p = (1 + #{|T*| >= |T|}) / (1 + n_permutations)`` (add-one smoothing, so p > 0; the
      comparison allows a rounding tolerance of ``1e-10 sum(|d_i|)``). The sign of d_i in
      replicate r is one bit of a hash of (seed key, i, r), computed in compiled code; the
      64 signs of a word are applied as 8 look-ups in tables of subset sums;
    - effect size: Cohen's d_z = mean(d) / sd(d).

    Degenerate cases: when every difference is 0, the statistics and d_z are 0.0 and every
    p-value is 1.0. When the differences are a nonzero constant, sd(d) = 0, so t and d_z are
    +-inf and the t-test p-value is 0.0.

    References
    ----------
    M. D. Smucker, J. Allan and B. Carterette, "A comparison of statistical significance tests
    for information retrieval evaluation", CIKM 2007.
    J. Cohen, *Statistical Power Analysis for the Behavioral Sciences*, 2nd ed., 1988.

    Examples
    --------
    >>> a = [0.50, 0.61, 0.43, 0.72, 0.55, 0.64, 0.38, 0.70]
    >>> b = [0.41, 0.52, 0.40, 0.60, 0.58, 0.50, 0.30, 0.66]
    >>> result = paired_tests(a, b, rng=0)
    >>> round(result["mean_diff"], 4), round(result["wilcoxon_pvalue"], 4)
    (0.07, 0.0156)
    """
    func = "paired_tests"
    if isinstance(a, pd.Series) and isinstance(b, pd.Series) and not a.index.equals(b.index):
        raise ValueError(
            f"{func}: 'a' and 'b' must be aligned, but their indexes differ; align them first "
            f"(for example a, b = a.align(b, join='inner'))."
        )
    x = _as_vector(a, func=func, arg="a")
    y = _as_vector(b, func=func, arg="b")
    if len(x) != len(y):
        raise ValueError(
            f"{func}: 'a' and 'b' must have the same length; got {len(x)} and {len(y)}."
        )
    if len(x) < 2:
        raise ValueError(f"{func}: 'a' and 'b' must hold at least 2 values; got {len(x)}.")
    n_permutations = check_positive_int(n_permutations, func=func, arg="n_permutations")
    zero_method = check_choice(zero_method, func=func, arg="zero_method", choices=_ZERO_METHODS)
    key = design_key(check_rng(rng, func=func))
    result = _paired_statistics(x, y, zero_method)
    diff = x - y
    result["permutation_pvalue"] = (
        float(_sign_flip_pvalues(diff[None, :], n_permutations, key)[0]) if diff.any() else 1.0
    )
    return {name: result[name] for name in _PAIRED_FIELDS}


_PAIRED_FIELDS = ("n", "mean_a", "mean_b", "mean_diff", "t_statistic", "t_pvalue",
                  "wilcoxon_statistic", "wilcoxon_pvalue", "permutation_pvalue", "cohens_dz")


def _paired_statistics(x: np.ndarray, y: np.ndarray, zero_method: str) -> dict[str, float | int]:
    """Every field of :func:`paired_tests` but the randomization p-value, for validated,
    aligned float arrays of at least 2 values."""
    import scipy.stats  # imported on use: scipy.stats is slow to load

    diff = x - y
    mean_diff = float(diff.mean())
    result: dict[str, float | int] = {
        "n": len(diff),
        "mean_a": float(x.mean()),
        "mean_b": float(y.mean()),
        "mean_diff": mean_diff,
    }
    if not diff.any():
        result.update(t_statistic=0.0, t_pvalue=1.0, wilcoxon_statistic=0.0,
                      wilcoxon_pvalue=1.0, cohens_dz=0.0)
        return result
    if diff.min() == diff.max():  # a nonzero constant: sd(d) = 0
        t_statistic, t_pvalue = float(np.copysign(np.inf, mean_diff)), 0.0
        cohens_dz = float(np.copysign(np.inf, mean_diff))
    else:
        t_test = scipy.stats.ttest_rel(x, y)
        t_statistic, t_pvalue = float(t_test.statistic), float(t_test.pvalue)
        cohens_dz = mean_diff / float(diff.std(ddof=1))
    wilcoxon = scipy.stats.wilcoxon(diff, zero_method=zero_method)
    result.update(
        t_statistic=t_statistic,
        t_pvalue=t_pvalue,
        wilcoxon_statistic=float(wilcoxon.statistic),
        wilcoxon_pvalue=float(wilcoxon.pvalue),
        cohens_dz=cohens_dz,
    )
    return result


def _sign_flip_pvalues(diffs: np.ndarray, n_permutations: int, key: int) -> np.ndarray:
    """Two-sided paired randomization p-values, with add-one smoothing (see paired_tests), of
    every row of ``diffs`` (comparisons x users; 0 where a user takes no part, which leaves
    T and T* unchanged). All rows share the signs of a user position in a replicate."""
    diffs = np.ascontiguousarray(diffs, dtype=np.float64)
    total = diffs.sum(axis=1)
    observed = np.abs(total) - 1e-10 * np.abs(diffs).sum(axis=1)
    # bit 1 keeps d_i, bit 0 flips it, so T* = sum(s_i d_i) = 2 * sum(bit_i d_i) - sum(d)
    kept = sign_flip_sums(diffs, key, n_permutations)
    extreme = np.count_nonzero(np.abs(2.0 * kept - total[:, None]) >= observed[:, None], axis=1)
    return (1 + extreme) / (1 + n_permutations)


def holm(pvalues: object) -> np.ndarray:
    """Holm-Bonferroni step-down adjusted p-values.

    Parameters
    ----------
    pvalues : array-like of float
        One p-value per comparison, in [0, 1]; NaN entries are passed through and do not count
        as comparisons.

    Returns
    -------
    numpy.ndarray
        Adjusted p-values (float64), in the input order.

    Raises
    ------
    ValueError
        If ``pvalues`` is not 1-D or a value lies outside [0, 1].
    TypeError
        If ``pvalues`` is not numeric.

    Notes
    -----
    With the m non-missing p-values sorted ascending, p_(1) <= ... <= p_(m), the adjusted
    value of p_(i) is min(1, max_{j <= i} (m - j + 1) p_(j)). Rejecting where the adjusted
    value is <= alpha controls the family-wise error rate at alpha.

    References
    ----------
    S. Holm, "A simple sequentially rejective multiple test procedure", Scandinavian Journal
    of Statistics 6(2), 1979, pp. 65-70.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03, 0.005])
    array([0.03, 0.06, 0.06, 0.02])
    """
    func = "holm"
    values = _as_vector(pvalues, func=func, arg="pvalues", allow_nan=True)
    present = ~np.isnan(values)
    outside = present & ((values < 0) | (values > 1))
    if outside.any():
        first = int(np.flatnonzero(outside)[0])
        raise ValueError(
            f"{func}: 'pvalues' must lie in [0, 1]; got {float(values[first])!r} "
            f"at position {first}."
        )
    observed = values[present]
    m = len(observed)
    order = np.argsort(observed, kind="stable")
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(
        1.0, np.maximum.accumulate(observed[order] * np.arange(m, 0, -1))
    )
    result = np.full(len(values), np.nan)
    result[present] = adjusted
    return result
