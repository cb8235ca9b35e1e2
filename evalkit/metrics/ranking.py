"""Ranking metrics per user: P@k, R@k, F1@k, HR@k, R-precision, AP@k, RR@k, DCG@k, NDCG@k,
half-life utility, and every one of them at all cutoffs 1..k (``ranking_curves``).

Conventions shared by every function here (SPEC "Ranking metrics", "Which users are averaged",
"Ties in scores"):

- ``truth`` is the test set (``user_id, item_id, rating``); ``recs`` the recommendations
  (``user_id, item_id`` and ``rank`` and/or ``score``). When ``rank`` is present it orders the
  list (gaps allowed: the item at rank 5 is at position 5); otherwise items are ordered by
  descending ``score`` with ties resolved by ``ties``.
- A test item is relevant when ``rating >= threshold``; ``threshold=None`` makes every test
  item relevant (implicit feedback).
- Every user in ``truth`` is evaluated. A user without recommendations scores 0. Users that
  appear only in ``recs`` are ignored and counted in ``Series.attrs["dropped"]["recs_only"]``.
- Where a metric is undefined for a user (no relevant items for recall, F1, AP, RR and
  R-precision; IDCG = 0 for NDCG; no positive utility for half-life utility), ``empty``
  decides: ``"drop"`` removes the user (counted in ``attrs["dropped"]["undefined"]``),
  ``"zero"`` scores 0 (as trec_eval ``-c`` and ranx do), ``"nan"`` keeps NaN.
- Each function returns a ``pd.Series`` of per-user values indexed by ``user_id`` and named by
  the metric's registry name; ``attrs`` also records ``k`` and the options used.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from .._checks import check_choice, check_cutoff, check_positive_int
from ._common import (
    AP_DENOMINATORS,
    DISCOUNTS,
    GAINS,
    TIE_POLICIES,
    check_empty,
    check_id_dtypes,
    check_recs,
    check_threshold,
    check_truth,
    finish_per_user,
    warn_ties,
)
from ._curves import RankingCurves, RankingOptions, mean_over_users
from ._hits import HitTable, build_hits

__all__ = [
    "average_precision_at_k",
    "dcg_at_k",
    "f1_at_k",
    "half_life_utility",
    "hit_rate_at_k",
    "ndcg_at_k",
    "precision_at_k",
    "r_precision",
    "ranking_curves",
    "recall_at_k",
    "reciprocal_rank_at_k",
]


def make_options(
    func: str,
    *,
    threshold: object = 4.0,
    gain: object = "linear",
    discount: object = "log",
    log_base: object = 2.0,
    ap_denominator: object = "min",
    empty: object = "drop",
    ties: object = "deterministic",
    neutral: object = 3.0,
    half_life: object = 5.0,
) -> RankingOptions:
    """Validate ranking options once and return them as a :class:`RankingOptions`."""
    if (isinstance(log_base, bool) or not isinstance(log_base, numbers.Real)
            or not 1 < log_base < np.inf):
        raise ValueError(
            f"{func}: 'log_base' must be a finite number greater than 1; got {log_base!r}."
        )
    if isinstance(half_life, bool) or not isinstance(half_life, numbers.Real) or not half_life > 1:
        raise ValueError(f"{func}: 'half_life' must be a number greater than 1; got {half_life!r}.")
    if isinstance(neutral, bool) or not isinstance(neutral, numbers.Real) or not np.isfinite(neutral):
        raise ValueError(f"{func}: 'neutral' must be a finite number; got {neutral!r}.")
    return RankingOptions(
        threshold=check_threshold(threshold, func=func),
        gain=check_choice(gain, func=func, arg="gain", choices=GAINS),
        discount=check_choice(discount, func=func, arg="discount", choices=DISCOUNTS),
        log_base=float(log_base),
        ap_denominator=check_choice(
            ap_denominator, func=func, arg="ap_denominator", choices=AP_DENOMINATORS
        ),
        empty=check_empty(empty, func=func),
        ties=check_choice(ties, func=func, arg="ties", choices=TIE_POLICIES),
        neutral=float(neutral),
        half_life=float(half_life),
    )


def prepare(
    truth: object, recs: object, options: RankingOptions, *, func: str
) -> HitTable:
    """Validate ``truth`` and ``recs`` and build their hit table."""
    truth = check_truth(truth, func=func, threshold=options.threshold)
    recs = check_recs(recs, func=func)
    check_id_dtypes(truth, recs, func=func)
    return build_hits(truth, recs, threshold=options.threshold, ties=options.ties)


def tie_check(
    table: HitTable, k: int, options: RankingOptions, *, func: str, stacklevel: int
) -> int:
    """Count (and warn about) users whose tied scores straddle ``k``.

    ``stacklevel`` counts from here: 3 when the public function calls this directly.
    """
    n = table.n_straddling(k)
    if options.ties != "expected":
        warn_ties(n, k, func=func, stacklevel=stacklevel + 1)
    return n


def _per_user(
    name: str,
    truth: object,
    recs: object,
    k: object,
    options: RankingOptions,
    *,
    func: str,
) -> pd.Series:
    k = check_positive_int(k, func=func, arg="k")
    table = prepare(truth, recs, options, func=func)
    n_tied = tie_check(table, k, options, func=func, stacklevel=4)
    # Past the longest list and the largest test set nothing changes but P@k's divisor, so
    # the matrices stop there: memory does not grow with k.
    width = min(k, max(1, int(table.pos.max()) if table.pos.size else 1,
                       int(table.n_truth.max()) if table.n_truth.size else 1))
    curves = RankingCurves(table, width, options)
    if name in ("dcg", "ndcg"):
        curves.check_gains(func=func)
    values, undefined = curves.at(name, [width])
    column = values[:, 0]
    if width < k and name in ("precision", "f1"):
        precision = curves.hits[:, width - 1] / k
        if name == "precision":
            column = precision
        else:
            recall = curves.at("recall", [width])[0][:, 0]
            total = precision + recall
            with np.errstate(divide="ignore", invalid="ignore"):
                column = np.where(total > 0, 2 * precision * recall / total, 0.0)
    series = finish_per_user(
        column,
        table.users,
        name=name,
        undefined=None if undefined is None else undefined[:, 0],
        empty=options.empty,
        extra_counts={"recs_only": table.n_recs_only} if table.n_recs_only else None,
    )
    series.attrs.update(k=k, options=options.as_dict(), tied_users=n_tied,
                        users_without_recs=table.n_without_recs)
    return series


_COMMON = """
    Parameters
    ----------
    truth : pd.DataFrame
        Test interactions: ``user_id, item_id, rating``. Every user here is evaluated.
    recs : pd.DataFrame
        Recommendations: ``user_id, item_id`` and ``rank`` (1-based) and/or ``score``.
    k : int
        Cutoff: only the top ``k`` positions count.
    threshold : float or None, default 4.0
        A test item is relevant when its rating is at least ``threshold``; None makes every
        test item relevant.
    empty : {"drop", "zero", "nan"}, default "drop"
        What to do with users for whom the metric is undefined (see Notes).
    ties : {"deterministic", "optimistic", "pessimistic", "expected"}, default "deterministic"
        How items with equal ``score`` are ordered when ``recs`` has no ``rank``: by item_id
        ascending, relevant first, relevant last, or the expected value over random orders.
"""

_TAIL = """
    Returns
    -------
    pd.Series
        Per-user values indexed by ``user_id``.

    Raises
    ------
    ValueError, TypeError
        For missing columns, NaN or infinite scores, duplicate pairs or ranks, mismatched id
        types, ``k`` that is not a positive integer, or an unknown option.
"""


def precision_at_k(
    truth: pd.DataFrame,
    recs: pd.DataFrame,
    *,
    k: int = 10,
    threshold: float | None = 4.0,
    empty: str = "drop",
    ties: str = "deterministic",
) -> pd.Series:
    """Precision at k: the share of the top-k positions holding a relevant item.
    {common}{tail}
    Notes
    -----
    ``P@k = hits(k) / k``, dividing by ``k`` even when the list is shorter than ``k``. Always
    defined (a user with no relevant items scores 0); ``empty`` never applies.

    Examples
    --------
    >>> truth = pd.DataFrame({{"user_id": 1, "item_id": [1, 3], "rating": 5.0}})
    >>> recs = pd.DataFrame({{"user_id": 1, "item_id": [1, 2, 3, 4], "rank": [1, 2, 3, 4]}})
    >>> precision_at_k(truth, recs, k=4).tolist()
    [0.5]
    """
    options = make_options("precision_at_k", threshold=threshold, empty=empty, ties=ties)
    return _per_user("precision", truth, recs, k, options, func="precision_at_k")


def recall_at_k(
    truth: pd.DataFrame,
    recs: pd.DataFrame,
    *,
    k: int = 10,
    threshold: float | None = 4.0,
    empty: str = "drop",
    ties: str = "deterministic",
) -> pd.Series:
    """Recall at k: the share of the user's relevant items found in the top k.
    {common}{tail}
    Notes
    -----
    ``R@k = hits(k) / |R_u|``. Undefined when the user has no relevant test item (``empty``).

    Examples
    --------
    >>> truth = pd.DataFrame({{"user_id": 1, "item_id": [1, 3, 9], "rating": 5.0}})
    >>> recs = pd.DataFrame({{"user_id": 1, "item_id": [1, 2, 3], "rank": [1, 2, 3]}})
    >>> recall_at_k(truth, recs, k=3).round(4).tolist()
    [0.6667]
    """
    options = make_options("recall_at_k", threshold=threshold, empty=empty, ties=ties)
    return _per_user("recall", truth, recs, k, options, func="recall_at_k")


def f1_at_k(
    truth: pd.DataFrame,
    recs: pd.DataFrame,
    *,
    k: int = 10,
    threshold: float | None = 4.0,
    empty: str = "drop",
    ties: str = "deterministic",
) -> pd.Series:
    """F1 at k: the harmonic mean of P@k and R@k.
    {common}{tail}
    Notes
    -----
    ``F1@k = 2 P R / (P + R)``, and 0 when both are 0. Undefined (``empty``) when the user has
    no relevant test item, as recall is.

    Examples
    --------
    >>> truth = pd.DataFrame({{"user_id": 1, "item_id": [1, 3], "rating": 5.0}})
    >>> recs = pd.DataFrame({{"user_id": 1, "item_id": [1, 2], "rank": [1, 2]}})
    >>> f1_at_k(truth, recs, k=2).tolist()
    [0.5]
    """
    options = make_options("f1_at_k", threshold=threshold, empty=empty, ties=ties)
    return _per_user("f1", truth, recs, k, options, func="f1_at_k")


def hit_rate_at_k(
    truth: pd.DataFrame,
    recs: pd.DataFrame,
    *,
    k: int = 10,
    threshold: float | None = 4.0,
    empty: str = "drop",
    ties: str = "deterministic",
) -> pd.Series:
    """Hit rate at k: 1 if any relevant item is in the top k, else 0.
    {common}{tail}
    Notes
    -----
    ``HR@k = 1[hits(k) > 0]``. Always defined. Under ``ties="expected"`` it is the exact
    probability that a random order of the tie groups puts a relevant item in the top k.

    Examples
    --------
    >>> truth = pd.DataFrame({{"user_id": [1, 2], "item_id": [1, 1], "rating": 5.0}})
    >>> recs = pd.DataFrame({{"user_id": [1, 2], "item_id": [1, 2], "rank": [1, 1]}})
    >>> hit_rate_at_k(truth, recs, k=1).tolist()
    [1.0, 0.0]
    """
    options = make_options("hit_rate_at_k", threshold=threshold, empty=empty, ties=ties)
    return _per_user("hit_rate", truth, recs, k, options, func="hit_rate_at_k")


def average_precision_at_k(
    truth: pd.DataFrame,
    recs: pd.DataFrame,
    *,
    k: int = 10,
    threshold: float | None = 4.0,
    ap_denominator: str = "min",
    empty: str = "drop",
    ties: str = "deterministic",
) -> pd.Series:
    """Average precision at k; its mean over users is MAP@k.
    {common}
    ap_denominator : {{"min", "relevant", "hits"}}, default "min"
        ``D`` in the formula below.
    {tail}
    Notes
    -----
    ``AP@k = (1/D) * sum_{{i<=k}} hit_i * P@i``. ``D = min(k, |R_u|)`` by default, so a perfect
    list scores 1; ``"relevant"`` gives ``D = |R_u|`` (trec_eval, ranx); ``"hits"`` gives the
    number of hits in the top k (torchmetrics; 0 hits give 0). Undefined when the user has no
    relevant test item (``empty``). Under ``ties="expected"`` AP is the exact expectation over
    random orders of the tie groups for ``"min"`` and ``"relevant"`` (``E[hit_i * hits(i)]``
    has a closed form per tie group); with ``"hits"``, whose denominator is random too, it is
    the AP of the expected hit vector, an approximation.

    References
    ----------
    Seed example (Sacharidis): R,NR,R,R,NR,R,NR,NR,NR,R with 5 relevant gives AP 0.717.

    Examples
    --------
    >>> truth = pd.DataFrame({{"user_id": 1, "item_id": ["A", "C", "D"], "rating": 5.0}})
    >>> recs = pd.DataFrame({{"user_id": 1, "item_id": list("ABCDE"), "rank": [1, 2, 3, 4, 5]}})
    >>> average_precision_at_k(truth, recs, k=5).round(4).tolist()
    [0.8056]
    """
    options = make_options(
        "average_precision_at_k",
        threshold=threshold, ap_denominator=ap_denominator, empty=empty, ties=ties,
    )
    return _per_user("map", truth, recs, k, options, func="average_precision_at_k")


def reciprocal_rank_at_k(
    truth: pd.DataFrame,
    recs: pd.DataFrame,
    *,
    k: int = 10,
    threshold: float | None = 4.0,
    empty: str = "drop",
    ties: str = "deterministic",
) -> pd.Series:
    """Reciprocal rank at k; its mean over users is MRR@k.
    {common}{tail}
    Notes
    -----
    ``RR@k = 1 / (rank of the first relevant item)`` if it is within the top k, else 0.
    Undefined when the user has no relevant test item (``empty``). Under ``ties="expected"``
    it is exact: the expectation over random orders of the first tie group holding a relevant
    item.

    Examples
    --------
    >>> truth = pd.DataFrame({{"user_id": 1, "item_id": [3], "rating": 5.0}})
    >>> recs = pd.DataFrame({{"user_id": 1, "item_id": [1, 2, 3], "rank": [1, 2, 3]}})
    >>> reciprocal_rank_at_k(truth, recs, k=3).round(4).tolist()
    [0.3333]
    """
    options = make_options("reciprocal_rank_at_k", threshold=threshold, empty=empty, ties=ties)
    return _per_user("mrr", truth, recs, k, options, func="reciprocal_rank_at_k")


def r_precision(
    truth: pd.DataFrame,
    recs: pd.DataFrame,
    *,
    threshold: float | None = 4.0,
    empty: str = "drop",
    ties: str = "deterministic",
) -> pd.Series:
    """R-precision: precision at the user's own number of relevant items.

    Parameters
    ----------
    truth, recs, threshold, empty, ties
        As for :func:`precision_at_k`.

    Returns
    -------
    pd.Series
        Per-user values indexed by ``user_id``.

    Notes
    -----
    ``RP = P@|R_u| = hits(|R_u|) / |R_u|``. Undefined when ``|R_u| = 0`` (``empty``).

    Examples
    --------
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": [1, 3], "rating": 5.0})
    >>> recs = pd.DataFrame({"user_id": 1, "item_id": [1, 2, 3], "rank": [1, 2, 3]})
    >>> r_precision(truth, recs).tolist()
    [0.5]
    """
    func = "r_precision"
    options = make_options(func, threshold=threshold, empty=empty, ties=ties)
    table = prepare(truth, recs, options, func=func)
    values, undefined = RankingCurves(table, 1, options).r_precision()
    series = finish_per_user(
        values, table.users, name="r_precision", undefined=undefined, empty=options.empty,
        extra_counts={"recs_only": table.n_recs_only} if table.n_recs_only else None,
    )
    series.attrs.update(options=options.as_dict())
    return series


def dcg_at_k(
    truth: pd.DataFrame,
    recs: pd.DataFrame,
    *,
    k: int = 10,
    threshold: float | None = 4.0,
    gain: str = "linear",
    discount: str = "log",
    log_base: float = 2.0,
    empty: str = "drop",
    ties: str = "deterministic",
) -> pd.Series:
    """Discounted cumulative gain at k.
    {common}
    gain : {{"linear", "exponential", "binary"}}, default "linear"
        Gain of a test item: its rating, ``2**rating - 1``, or 1 if relevant. Items outside the
        user's test set gain 0.
    discount : {{"log", "breese"}}, default "log"
        ``log_b(i + 1)``, or Breese's ``max(1, log_b(i))`` that leaves the first ``b`` ranks
        undiscounted.
    log_base : float, default 2.0
        ``b`` in the discount.
    {tail}
    Notes
    -----
    ``DCG@k = sum_{{i<=k}} gain_i / disc(i)``. Always defined.

    Examples
    --------
    Seed 002 (Ekstrand), gains 4, 3, 0, 5 with Breese's discount, base 2:

    >>> truth = pd.DataFrame({{"user_id": 1, "item_id": list("ABD"), "rating": [4.0, 3.0, 5.0]}})
    >>> recs = pd.DataFrame({{"user_id": 1, "item_id": list("ABCD"), "rank": [1, 2, 3, 4]}})
    >>> dcg_at_k(truth, recs, k=4, discount="breese").tolist()
    [9.5]
    """
    options = make_options(
        "dcg_at_k", threshold=threshold, gain=gain, discount=discount, log_base=log_base,
        empty=empty, ties=ties,
    )
    return _per_user("dcg", truth, recs, k, options, func="dcg_at_k")


def ndcg_at_k(
    truth: pd.DataFrame,
    recs: pd.DataFrame,
    *,
    k: int = 10,
    threshold: float | None = 4.0,
    gain: str = "linear",
    discount: str = "log",
    log_base: float = 2.0,
    empty: str = "drop",
    ties: str = "deterministic",
) -> pd.Series:
    """Normalized discounted cumulative gain at k.
    {common}
    gain, discount, log_base
        As for :func:`dcg_at_k`.
    {tail}
    Notes
    -----
    ``NDCG@k = DCG@k / IDCG@k`` where IDCG@k is the DCG@k of the ideal list: all of the user's
    test items sorted by gain (with ``gain="binary"``, relevant items first). Undefined when
    IDCG@k = 0, i.e. no test item has a positive gain (``empty``). The log base cancels out.
    Under ``ties="expected"`` it is exact (McSherry and Najork 2008).

    References
    ----------
    Jarvelin and Kekalainen (2002), "Cumulated gain-based evaluation of IR techniques".

    Examples
    --------
    Seed 003: gains 2, 0, 3, 2, ideal 3, 2, 2, 0:

    >>> truth = pd.DataFrame({{"user_id": 1, "item_id": list("ACD"), "rating": [2.0, 3.0, 2.0]}})
    >>> recs = pd.DataFrame({{"user_id": 1, "item_id": list("ABCD"), "rank": [1, 2, 3, 4]}})
    >>> ndcg_at_k(truth, recs, k=4).round(2).tolist()
    [0.83]
    """
    options = make_options(
        "ndcg_at_k", threshold=threshold, gain=gain, discount=discount, log_base=log_base,
        empty=empty, ties=ties,
    )
    return _per_user("ndcg", truth, recs, k, options, func="ndcg_at_k")


def half_life_utility(
    truth: pd.DataFrame,
    recs: pd.DataFrame,
    *,
    k: int = 10,
    neutral: float = 3.0,
    half_life: float = 5.0,
    empty: str = "drop",
    ties: str = "deterministic",
) -> pd.Series:
    """Breese's half-life utility, normalized per user by the best achievable utility.

    Parameters
    ----------
    truth, recs, k, empty, ties
        As for :func:`precision_at_k`.
    neutral : float, default 3.0
        The neutral rating ``d``: only ratings above it add utility.
    half_life : float, default 5.0
        ``alpha``, the rank with a 50% chance of being viewed (must exceed 1).

    Returns
    -------
    pd.Series
        Per-user ``R_u / R_u^max`` indexed by ``user_id``.

    Notes
    -----
    ``R_u = sum_{j<=k} max(r_(u,j) - d, 0) / 2^((j-1)/(alpha-1))``, and ``R_u^max`` the same
    for the user's test items in descending rating order. Undefined when ``R_u^max = 0`` (no
    test rating above ``d``; ``empty``). Breese et al. report over users
    ``100 * sum R_u / sum R_u^max``; ``evaluate`` reports that alongside the mean.

    References
    ----------
    Breese, Heckerman and Kadie (1998), "Empirical analysis of predictive algorithms for
    collaborative filtering".

    Examples
    --------
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": [1, 2], "rating": [5.0, 4.0]})
    >>> recs = pd.DataFrame({"user_id": 1, "item_id": [2, 1], "rank": [1, 2]})
    >>> half_life_utility(truth, recs, k=2).round(4).tolist()
    [0.944]
    """
    func = "half_life_utility"
    check_truth(truth, func=func)  # utility is measured on the ratings: implicit data has none
    options = make_options(func, threshold=None, empty=empty, ties=ties, neutral=neutral,
                           half_life=half_life)
    return _per_user("half_life_utility", truth, recs, k, options, func=func)


for _f in (precision_at_k, recall_at_k, f1_at_k, hit_rate_at_k, average_precision_at_k,
           reciprocal_rank_at_k, dcg_at_k, ndcg_at_k):
    _f.__doc__ = _f.__doc__.format(common=_COMMON.rstrip(), tail=_TAIL.rstrip())
del _f

CURVE_METRICS = ("precision", "recall", "f1", "hit_rate", "map", "mrr", "ndcg")


def ranking_curves(
    truth: pd.DataFrame,
    recs: pd.DataFrame,
    *,
    k_max: int = 20,
    threshold: float | None = 4.0,
    gain: str = "linear",
    discount: str = "log",
    log_base: float = 2.0,
    ap_denominator: str = "min",
    empty: str = "drop",
    ties: str = "deterministic",
) -> pd.DataFrame:
    """Mean P, R, F1, HR, MAP, MRR and NDCG at every cutoff k = 1..k_max, in one pass.

    Parameters
    ----------
    truth, recs, threshold, gain, discount, log_base, ap_denominator, empty, ties
        As for the per-user functions (:func:`ndcg_at_k`, :func:`average_precision_at_k`).
    k_max : int, default 20
        The largest cutoff.

    Returns
    -------
    pd.DataFrame
        One row per ``k`` (index ``k``), columns ``precision, recall, f1, hit_rate, map, mrr,
        ndcg`` holding means over users, and ``n_users`` (users evaluated for recall). The
        precision-recall curve is the ``(recall, precision)`` points.

    Notes
    -----
    Each column at ``k`` equals the mean of the matching per-user function at ``k`` under the
    same options. Users for whom a metric is undefined are left out of its mean under
    ``empty="drop"`` or ``"nan"`` and count as 0 under ``"zero"``. No tie warning is raised
    here: every tie group of two or more items straddles some cutoff.

    The means come from column sums: where a metric is a per-user weight times a cumulative
    sum (P, R, F1, HR, MRR, MAP with the "min" or "relevant" denominator), users are grouped
    by their weight and no per-user matrix of ratios is built. ``evaluate(..., curves=k_max)``
    returns this table together with the per-user summary from one validation and one join.

    Examples
    --------
    Seed 001's list R,NR,R,R,NR,R,NR,NR,NR,R with five relevant items:

    >>> truth = pd.DataFrame({"user_id": 1, "item_id": [1, 3, 4, 6, 10], "rating": 5.0})
    >>> recs = pd.DataFrame({"user_id": 1, "item_id": range(1, 11), "rank": range(1, 11)})
    >>> ranking_curves(truth, recs, k_max=4)[["precision", "recall"]].round(3)
       precision  recall
    k
    1      1.000     0.2
    2      0.500     0.2
    3      0.667     0.4
    4      0.750     0.6
    """
    func = "ranking_curves"
    k_max = check_cutoff(k_max, func=func, arg="k_max")
    options = make_options(
        func, threshold=threshold, gain=gain, discount=discount, log_base=log_base,
        ap_denominator=ap_denominator, empty=empty, ties=ties,
    )
    table = prepare(truth, recs, options, func=func)
    curves = RankingCurves(table, k_max, options)
    curves.check_gains(func=func)
    return curves_frame(curves, k_max)


def curves_frame(curves: RankingCurves, k_max: int) -> pd.DataFrame:
    """The :func:`ranking_curves` table, k = 1..k_max, from a :class:`RankingCurves`."""
    columns = {name: curves.means(name)[:k_max] for name in CURVE_METRICS}
    frame = pd.DataFrame(columns, index=pd.RangeIndex(1, k_max + 1, name="k"))
    table = curves.table
    frame["n_users"] = int(table.n_users - (table.n_rel == 0).sum()) \
        if curves.options.empty != "zero" else table.n_users
    return frame
