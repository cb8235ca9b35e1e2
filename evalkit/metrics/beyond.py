"""Beyond-accuracy metrics of top-k lists: coverage, exposure inequality, popularity,
novelty, diversity, personalization and serendipity.

Every function here reads the top ``k`` of each user's recommendation list. When ``recs`` has
a ``rank`` column, the top k are the rows with ``rank <= k``; otherwise ranks come from the
``score`` column, descending within the user, tied scores in ``tie_order`` (item id ascending
by default), as the ranking metrics order them under ``ties="deterministic"``; a
:class:`~evalkit.metrics.TieWarning` counts the users whose tied scores straddle ``k``. The
relevance-based tie policies (``"optimistic"``, ``"pessimistic"``, ``"expected"``) have no
meaning for lists judged without relevance, so these metrics take ``tie_order`` only.

Other libraries define several of these metrics differently; each difference that
changes a number is a keyword here, and each docstring names the library, version and source
file an option reproduces, and how that library treats what evalkit treats otherwise (items
unseen in training, short lists, ties).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import sparse

from .._checks import (
    check_choice,
    check_columns,
    check_ids,
    check_interactions,
    check_same_kind,
    describe,
)
from .._constraints import POSITIVE_INT, constrained
from ..definitions import choices, uses_definitions
from ._common import (
    check_empty,
    check_recs,
    check_threshold,
    check_truth,
    finish_per_user,
)
from ._topk import (
    catalog_items,
    in_popular_baseline,
    nan_warning,
    top_k,
    users_per_item,
    warn_outside,
)

__all__ = [
    "COVERAGE_UNITS",
    "DIVERSITY_NORMS",
    "EXPOSURE_WEIGHTS",
    "GINI_SCALES",
    "NOVELTY_NORMS",
    "POPULARITY_UNITS",
    "average_recommended_popularity",
    "catalog_coverage",
    "exposure_entropy",
    "exposure_gini",
    "gini_index",
    "intra_list_diversity",
    "mean_pop_rank",
    "novelty",
    "personalization",
    "serendipity",
    "user_coverage",
]

#: ``catalog_coverage(coverage_unit=...)``: a share of the catalog or a count of items.
COVERAGE_UNITS = choices("coverage_unit")
#: ``gini_index(gini_scale=...)``: the plain Gini or the Gini times n / (n - 1).
GINI_SCALES = choices("gini_scale")
#: ``intra_list_diversity(diversity_norm=...)``: divide by the number of pairs or by |L|.
DIVERSITY_NORMS = choices("diversity_norm")
#: ``novelty(novelty_norm=...)``: bits, or bits over log2(number of training users).
NOVELTY_NORMS = choices("novelty_norm")
#: ``popularity=``: an item's distinct training users or its training rows.
POPULARITY_UNITS = choices("popularity")
#: ``exposure_gini(weight=...)``: how much attention each rank gets.
EXPOSURE_WEIGHTS = ("geometric", "log", "uniform")


# --------------------------------------------------------------------------------------------
# coverage and exposure


@constrained(k=POSITIVE_INT)
@uses_definitions("coverage_unit", "tie_order")
def catalog_coverage(
    recs: pd.DataFrame, *, k: int = 10, catalog: object, coverage_unit: str = "share",
    tie_order: str = "item",
) -> float:
    """Share (or number) of the catalog's items that appear in at least one top-k list (higher
    is better).

    Parameters
    ----------
    recs : pandas.DataFrame
        ``user_id, item_id`` and ``rank`` and/or ``score``.
    k : int, default 10
        Cutoff of each user's list.
    catalog : pandas.DataFrame or array-like
        The items that could be recommended: a frame with an ``item_id`` column (typically the
        training interactions, the default catalog of the evaluation) or an array-like of item
        ids. Duplicates are counted once.
    coverage_unit : {"share", "count"}, default "share"
        ``"share"`` divides by the catalog size; ``"count"`` returns the number of distinct
        recommended catalog items (rectools ``CatalogCoverage()``, whose default is a count).
    tie_order : {"item", "item_desc", "item_str", "item_str_desc"}, default "item"
        With scores only, the order of tied scores, as under the ranking metrics'
        ``ties="deterministic"``; a :class:`~evalkit.metrics.TieWarning` counts the users
        whose tied scores straddle ``k``.

    Returns
    -------
    float
        In [0, 1] for ``"share"``; a whole number in [0, |C|] for ``"count"`` (still a float,
        so the return type does not depend on the option).

    Raises
    ------
    TypeError, ValueError
        On malformed ``recs``, a non-positive ``k``, an empty or malformed ``catalog``, an
        unknown ``coverage_unit``, or item ids of different kinds in ``recs`` and ``catalog``.

    Notes
    -----
    .. math::

        \\mathrm{count} = |\\{i \\in C : i \\in \\text{top-}k(u)
        \\text{ for some } u\\}|, \\qquad \\mathrm{share} = \\mathrm{count} / |C|

    Recommended items outside the catalog are not counted; a warning gives their number.

    rectools 0.19.0 ``CatalogCoverage(k, normalize=False)`` (``rectools/metrics/catalog.py``)
    counts every distinct recommended item, also those outside the catalog, and with
    ``normalize=True`` divides that count by ``len(catalog)``; the two agree whenever every
    recommended item is in the catalog (no warning here). Evidently 0.7.23's
    ``PopularityBias`` coverage and rs_metrics 0.6.0 ``coverage`` are the share, with the
    catalog being the training items (Evidently) or the given item list (rs_metrics).

    Examples
    --------
    >>> import pandas as pd
    >>> from evalkit.metrics.beyond import catalog_coverage
    >>> recs = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [10, 11, 10, 12],
    ...                      "rank": [1, 2, 1, 2]})
    >>> catalog_coverage(recs, k=1, catalog=[10, 11, 12, 13])
    0.25
    >>> catalog_coverage(recs, k=2, catalog=[10, 11, 12, 13])
    0.75
    >>> catalog_coverage(recs, k=2, catalog=[10, 11, 12, 13], coverage_unit="count")
    3.0
    """
    func = "catalog_coverage"
    recs = check_recs(recs, func=func)
    k = int(k)  # a positive integer (constrained)
    coverage_unit = check_choice(
        coverage_unit, func=func, arg="coverage_unit", choices=COVERAGE_UNITS
    )
    items = catalog_items(catalog, func=func)
    check_same_kind(
        recs["item_id"], "recs", pd.Series(items), "catalog", func=func, column="item_id"
    )
    recommended = pd.Index(pd.unique(top_k(recs, k=k, tie_order=tie_order, func=func)["item_id"]))
    inside = recommended.isin(items)
    warn_outside(int((~inside).sum()), func=func, what="the catalog")
    if coverage_unit == "count":
        return float(inside.sum())
    return float(inside.sum() / len(items))


@constrained(k=POSITIVE_INT)
@uses_definitions("tie_order")
def user_coverage(truth: pd.DataFrame, recs: pd.DataFrame, *, k: int = 10,
                  tie_order: str = "item") -> float:
    """Share of test users who receive at least one recommendation (higher is better).

    Parameters
    ----------
    truth : pandas.DataFrame
        Test ratings ``user_id, item_id, rating``; its users are the test users.
    recs : pandas.DataFrame
        ``user_id, item_id`` and ``rank`` and/or ``score``.
    k : int, default 10
        Cutoff of each user's list (a user counts when their top k is not empty).
    tie_order : {"item", "item_desc", "item_str", "item_str_desc"}, default "item"
        As for :func:`catalog_coverage`.

    Returns
    -------
    float
        In [0, 1]; NaN with a ``RuntimeWarning`` when ``truth`` has no users.

    Raises
    ------
    TypeError, ValueError
        On malformed inputs, a non-positive ``k`` or user ids of different kinds.

    Notes
    -----
    :math:`|\\{u \\in U_{test} : \\text{top-}k(u) \\neq \\emptyset\\}| / |U_{test}|`. Users who
    appear only in ``recs`` do not count.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalkit.metrics.beyond import user_coverage
    >>> truth = pd.DataFrame({"user_id": [1, 2, 3, 4], "item_id": [10, 10, 11, 12],
    ...                       "rating": [4.0, 5.0, 3.0, 4.0]})
    >>> recs = pd.DataFrame({"user_id": [1, 2, 9], "item_id": [10, 11, 10], "rank": [1, 1, 1]})
    >>> user_coverage(truth, recs)
    0.5
    """
    func = "user_coverage"
    truth = check_truth(truth, func=func, threshold=None)  # only the users matter
    recs = check_recs(recs, func=func)
    k = int(k)  # a positive integer (constrained)
    check_same_kind(
        truth["user_id"], "truth", recs["user_id"], "recs", func=func, column="user_id"
    )
    users = pd.Index(pd.unique(truth["user_id"]))
    if len(users) == 0:
        return nan_warning(func, "'truth' has no users")
    served = users.isin(pd.unique(top_k(recs, k=k, tie_order=tie_order, func=func)["user_id"]))
    return float(served.sum() / len(users))


@constrained(k=POSITIVE_INT)
@uses_definitions("gini_scale", "tie_order")
def gini_index(
    recs: pd.DataFrame,
    *,
    k: int = 10,
    catalog: object | None = None,
    gini_scale: str = "standard",
    tie_order: str = "item",
) -> float:
    """Gini index of how often each item is shown in the top-k lists (lower is more equal).

    Parameters
    ----------
    recs : pandas.DataFrame
        ``user_id, item_id`` and ``rank`` and/or ``score``.
    k : int, default 10
        Cutoff of each user's list.
    catalog : pandas.DataFrame, array-like or None, default None
        When given (a frame with ``item_id`` or an array-like of ids), the distribution is over
        the whole catalog and items never recommended count with exposure 0; recommended items
        outside the catalog are left out with a warning. When None, over the recommended items.
    gini_scale : {"standard", "unbiased"}, default "standard"
        ``"unbiased"`` multiplies the Gini by n / (n - 1), so that one item receiving all
        exposure gives 1 (Evidently's ``PopularityBias`` Gini).
    tie_order : {"item", "item_desc", "item_str", "item_str_desc"}, default "item"
        As for :func:`catalog_coverage`.

    Returns
    -------
    float
        In [0, (n-1)/n] for n items (``"standard"``) or [0, 1] (``"unbiased"``); 0 when every
        item is shown equally often. NaN with a ``RuntimeWarning`` when no item is shown at
        all, and under ``"unbiased"`` when the distribution has a single item (n = 1).

    Raises
    ------
    TypeError, ValueError
        On malformed inputs, a non-positive ``k``, an unknown ``gini_scale`` or item ids of
        different kinds.

    Notes
    -----
    With exposure counts sorted ascending :math:`x_{(1)} \\le \\dots \\le x_{(n)}`,

    .. math:: G = \\frac{\\sum_{i=1}^n (2i - n - 1)\\, x_{(i)}}{n \\sum_i x_{(i)}}
              = \\frac{\\sum_i \\sum_j |x_i - x_j|}{2 n \\sum_i x_i},

    the mean absolute difference over twice the mean. One item receiving all exposure gives
    :math:`(n-1)/n`. ``gini_scale="unbiased"`` returns :math:`G' = G\\, n / (n-1)
    = \\sum_i (2i-n-1)\\, x_{(i)} / ((n-1) \\sum_i x_{(i)})`.

    n is the number of items in the distribution: the recommended items without ``catalog``,
    every catalog item (exposure 0 included) with it. So the ``catalog`` changes n in both the
    formula and the n / (n - 1) factor.

    Evidently 0.7.23 ``PopularityBias(k).get_gini`` (``evidently/legacy/metrics/recsys/
    popularity_bias.py``; ``PopularityBiasMetric(metric="gini")`` in the new API) is
    ``gini_scale="unbiased"`` without ``catalog``: n is the number of items recommended. Its
    ``k`` reads a ``rank`` column as is; with scores it ranks them with ties averaged, so a
    tie across the cutoff can drop items there. LensKit 2025.8.1 ``ListGini``
    (``lenskit/metrics/ranking/_gini.py``) is ``"standard"`` with ``catalog`` (its ``items``
    sets n); see :func:`exposure_gini` for its rank-weighted ``ExposureGini``.

    References
    ----------
    Fleder and Hosanagar (2009), Blockbuster culture's next rise or fall, Management Science.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalkit.metrics.beyond import gini_index
    >>> recs = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [10, 11, 10, 12],
    ...                      "rank": [1, 2, 1, 2]})
    >>> round(gini_index(recs, k=2), 4)  # exposures 1, 1, 2
    0.1667
    >>> gini_index(recs, k=2, catalog=[10, 11, 12, 13])  # exposures 0, 1, 1, 2
    0.375
    >>> gini_index(recs, k=2, catalog=[10, 11, 12, 13], gini_scale="unbiased")  # 0.375 * 4/3
    0.5
    """
    func = "gini_index"
    recs = check_recs(recs, func=func)
    k = int(k)  # a positive integer (constrained)
    gini_scale = check_choice(gini_scale, func=func, arg="gini_scale", choices=GINI_SCALES)
    counts = top_k(recs, k=k, tie_order=tie_order, func=func)["item_id"].value_counts(sort=False)
    if catalog is not None:
        items = catalog_items(catalog, func=func)
        check_same_kind(
            recs["item_id"], "recs", pd.Series(items), "catalog", func=func, column="item_id"
        )
        warn_outside(int((~counts.index.isin(items)).sum()), func=func, what="the catalog")
        counts = counts.reindex(items, fill_value=0)
    return _gini(counts.to_numpy(dtype=np.float64), func=func, scale=gini_scale)


def _gini(x: np.ndarray, *, func: str, scale: str = "standard") -> float:
    """Gini of non-negative values ``x``: sum_i (2i - n - 1) x_(i) / (n sum x), optionally
    times n / (n - 1); NaN with a warning when it is undefined."""
    x = np.sort(x)
    n, total = x.size, x.sum()
    if total == 0:
        return nan_warning(func, "no item is recommended")
    if scale == "unbiased" and n < 2:
        return nan_warning(func, "one item only: n / (n - 1) divides by zero")
    weights = 2.0 * np.arange(1, n + 1) - n - 1.0
    denominator = (n - 1 if scale == "unbiased" else n) * total
    return float(np.dot(weights, x) / denominator)


@constrained(k=POSITIVE_INT)
@uses_definitions("tie_order")
def exposure_gini(
    recs: pd.DataFrame,
    *,
    k: int = 10,
    weight: str = "geometric",
    patience: float = 0.85,
    catalog: object | None = None,
    tie_order: str = "item",
) -> float:
    """Gini index of the rank-weighted exposure of items in the top-k lists (lower is more
    equal).

    Parameters
    ----------
    recs : pandas.DataFrame
        ``user_id, item_id`` and ``rank`` and/or ``score``.
    k : int, default 10
        Cutoff of each user's list.
    weight : {"geometric", "log", "uniform"}, default "geometric"
        The attention an item at rank r receives: ``"geometric"`` :math:`p^{r-1}` (LensKit's
        default ``GeometricRankWeight``, the RBP user model), ``"log"``
        :math:`1/\\log_2 \\max(r, 2)` (LensKit ``LogRankWeight()``), ``"uniform"`` 1 (then
        this is :func:`gini_index`, LensKit ``ListGini``).
    patience : float, default 0.85
        :math:`p` of the geometric weight, in (0, 1); ignored by the other weights.
    catalog : pandas.DataFrame, array-like or None, default None
        As for :func:`gini_index`: when given, every catalog item is part of the distribution,
        unexposed ones with exposure 0 (LensKit always counts the catalog it is given as
        ``items``); recommended items outside it are left out with a warning. When None,
        over the recommended items.
    tie_order : {"item", "item_desc", "item_str", "item_str_desc"}, default "item"
        As for :func:`catalog_coverage`.

    Returns
    -------
    float
        In [0, (n-1)/n] for n items. NaN with a ``RuntimeWarning`` when no item is shown.

    Raises
    ------
    TypeError, ValueError
        On malformed inputs, a non-positive ``k``, an unknown ``weight``, a ``patience``
        outside (0, 1), or item ids of different kinds.

    Notes
    -----
    The exposure of item :math:`i` sums its weights over all lists,
    :math:`x_i = \\sum_u \\sum_{r \\le k} w(r)\\, 1[L_u(r) = i]`, and the result is the
    Gini of :math:`x` (formula in :func:`gini_index`, ``gini_scale="standard"``): one number
    over all lists, not a per-list mean. The rank r is the ``rank`` column (gaps allowed, as
    in the ranking metrics) or the position by score.

    This is LensKit 2025.8.1 ``ExposureGini(n=k, items=catalog, weight=...)``
    (``lenskit/metrics/ranking/_gini.py``, weights in ``_weighting.py``, the Gini in
    ``lenskit/stats.py``), with two differences: LensKit weights by the position in the
    truncated list (the same as the rank without gaps), and it sums exposures in float32, so it
    agrees to about 1e-6. LensKit always sizes the distribution by ``items``: pass
    ``catalog`` to match it.

    References
    ----------
    Moffat and Zobel (2008), Rank-biased precision for measurement of retrieval effectiveness,
    ACM TOIS (the geometric user model). Ekstrand et al., LensKit for Python (the metric).

    Examples
    --------
    >>> import pandas as pd
    >>> from evalkit.metrics.beyond import exposure_gini
    >>> recs = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [10, 11, 10, 12],
    ...                      "rank": [1, 2, 1, 2]})
    >>> round(exposure_gini(recs, k=2, weight="geometric", patience=0.5), 4)  # 2, .5, .5
    0.3333
    >>> round(exposure_gini(recs, k=2, weight="uniform"), 4)  # the Gini of counts 2, 1, 1
    0.1667
    """
    func = "exposure_gini"
    recs = check_recs(recs, func=func)
    k = int(k)  # a positive integer (constrained)
    weight = check_choice(weight, func=func, arg="weight", choices=EXPOSURE_WEIGHTS)
    if weight == "geometric":
        if isinstance(patience, bool) or not isinstance(patience, (int, float, np.number)):
            raise TypeError(
                f"{func}: 'patience' must be a number in (0, 1); got {describe(patience)}."
            )
        if not 0.0 < float(patience) < 1.0:
            raise ValueError(
                f"{func}: 'patience' must be in the open interval (0, 1); got {patience!r}."
            )
    top = top_k(recs, k=k, tie_order=tie_order, func=func)
    rank = top["rank"].to_numpy(dtype=np.float64)
    if weight == "geometric":
        w = np.exp(np.log(float(patience)) * (rank - 1.0))  # LensKit's log-space form
    elif weight == "log":
        w = 1.0 / np.log2(np.maximum(rank, 2.0))
    else:
        w = np.ones_like(rank)
    codes, rec_items = pd.factorize(top["item_id"])
    exposure = pd.Series(np.bincount(codes, weights=w, minlength=len(rec_items)),
                         index=pd.Index(rec_items))
    if catalog is not None:
        items = catalog_items(catalog, func=func)
        check_same_kind(
            recs["item_id"], "recs", pd.Series(items), "catalog", func=func, column="item_id"
        )
        warn_outside(int((~exposure.index.isin(items)).sum()), func=func, what="the catalog")
        exposure = exposure.reindex(items, fill_value=0.0)
    return _gini(exposure.to_numpy(dtype=np.float64), func=func)


@constrained(k=POSITIVE_INT)
@uses_definitions("tie_order")
def exposure_entropy(recs: pd.DataFrame, *, k: int = 10, tie_order: str = "item") -> float:
    """Shannon entropy, in bits, of how the top-k slots are shared among items (higher is more
    even).

    Parameters
    ----------
    recs : pandas.DataFrame
        ``user_id, item_id`` and ``rank`` and/or ``score``.
    k : int, default 10
        Cutoff of each user's list.
    tie_order : {"item", "item_desc", "item_str", "item_str_desc"}, default "item"
        As for :func:`catalog_coverage`.

    Returns
    -------
    float
        In [0, log2(m)] for m distinct recommended items; 0 when one item fills every slot.
        NaN with a ``RuntimeWarning`` when no item is shown.

    Raises
    ------
    TypeError, ValueError
        On malformed inputs or a non-positive ``k``.

    Notes
    -----
    With :math:`c_i` the number of top-k lists holding item :math:`i` and :math:`p_i = c_i /
    \\sum_j c_j` (the share of all top-k rows),

    .. math:: H = -\\sum_i p_i \\log_2 p_i.

    This is Microsoft recommenders 1.2.1 ``distributional_coverage``
    (``recommenders/evaluation/python_evaluation.py``): base-2 logarithm, over every row of the
    recommendations it is given (cut them at k first). Its ``train_df`` only serves a check
    that no recommended (user, item) pair is a training pair.

    References
    ----------
    Shani and Gunawardana (2011), Evaluating recommendation systems, Recommender Systems
    Handbook (distributional coverage).

    Examples
    --------
    >>> import pandas as pd
    >>> from evalkit.metrics.beyond import exposure_entropy
    >>> recs = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [10, 11, 10, 12],
    ...                      "rank": [1, 2, 1, 2]})
    >>> exposure_entropy(recs, k=2)  # shares 1/2, 1/4, 1/4
    1.5
    """
    func = "exposure_entropy"
    recs = check_recs(recs, func=func)
    k = int(k)  # a positive integer (constrained)
    top = top_k(recs, k=k, tie_order=tie_order, func=func)
    counts = top["item_id"].value_counts(sort=False).to_numpy(dtype=np.float64)
    if counts.size == 0:
        return nan_warning(func, "no item is recommended")
    share = counts / counts.sum()
    return float(max(-np.dot(share, np.log2(share)), 0.0))


# --------------------------------------------------------------------------------------------
# popularity of what is recommended


@constrained(k=POSITIVE_INT)
@uses_definitions("tie_order")
def average_recommended_popularity(
    recs: pd.DataFrame,
    train: pd.DataFrame,
    *,
    k: int = 10,
    popularity: str = "interactions",
    tie_order: str = "item",
) -> pd.Series:
    """Mean training popularity of the items in each user's top-k list (lower recommends less
    popular items).

    Parameters
    ----------
    recs : pandas.DataFrame
        ``user_id, item_id`` and ``rank`` and/or ``score``.
    train : pandas.DataFrame
        Training interactions ``user_id, item_id`` (other columns ignored).
    k : int, default 10
        Cutoff of each user's list.
    popularity : {"interactions", "users"}, default "interactions"
        ``"interactions"``: the item's number of training rows (rectools ``AvgRecPopularity``,
        Evidently's ARP). ``"users"``: the share of training users who interacted with the item
        (repeated pairs count once; rs_metrics ``popularity``).
    tie_order : {"item", "item_desc", "item_str", "item_str_desc"}, default "item"
        As for :func:`catalog_coverage`.

    Returns
    -------
    pandas.Series
        Named ``"average_recommended_popularity"``, indexed by ``user_id`` (ascending): every
        user with a non-empty top-k list. Values in [0, max count] or [0, 1].

    Raises
    ------
    TypeError, ValueError
        On malformed inputs, an empty ``train``, a non-positive ``k``, an unknown
        ``popularity`` or item ids of different kinds.

    Notes
    -----
    With :math:`\\phi(i)` the item's training rows (``"interactions"``) or
    :math:`n_i / n`, its distinct training users over all training users (``"users"``),

    .. math:: \\mathrm{ARP}_u = \\frac{1}{|L_u|} \\sum_{i \\in L_u} \\phi(i).

    An item never seen in training has popularity 0 and counts in the mean.

    - rectools 0.19.0 ``AvgRecPopularity(k)`` (``rectools/metrics/popularity.py``):
      ``"interactions"`` (``value_counts`` of the item column), unseen items 0, per user
      (``calc_per_user``). ``normalize=True`` divides by the number of training rows.
    - Evidently 0.7.23 ``PopularityBias(k).get_apr`` (``evidently/legacy/metrics/recsys/
      popularity_bias.py``; ``PopularityBiasMetric(metric="arp")``): the number of distinct
      training users of the item (``groupby(item).user.nunique()``), which is
      ``"interactions"`` when no (user, item) pair repeats; unseen items are dropped from the
      user's mean; it returns the mean over users.
    - rs_metrics 0.6.0 ``popularity`` (``rs_metrics/metrics.py``, ``statistics.item_pop``):
      ``"users"``, unseen items 0, mean over users.

    References
    ----------
    Abdollahpouri, Burke and Mobasher (2019), Managing popularity bias in recommender systems
    with personalized re-ranking, FLAIRS.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalkit.metrics.beyond import average_recommended_popularity
    >>> train = pd.DataFrame({"user_id": [1, 2, 3, 1], "item_id": [10, 10, 10, 11]})
    >>> recs = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [10, 11, 12], "rank": [1, 2, 1]})
    >>> average_recommended_popularity(recs, train).to_dict()  # (3 + 1) / 2, 0
    {1: 2.0, 2: 0.0}
    >>> average_recommended_popularity(recs, train, popularity="users").round(4).to_dict()
    {1: 0.6667, 2: 0.0}
    """
    func = "average_recommended_popularity"
    recs = check_recs(recs, func=func)
    train = check_interactions(train, func=func, arg="train")
    k = int(k)  # a positive integer (constrained)
    popularity = check_choice(popularity, func=func, arg="popularity", choices=POPULARITY_UNITS)
    check_same_kind(
        recs["item_id"], "recs", train["item_id"], "train", func=func, column="item_id"
    )
    counts, total, _ = _item_popularity(train, unit=popularity, func=func)
    if popularity == "users":
        counts = counts / total
    top = top_k(recs, k=k, tie_order=tie_order, func=func)
    value = top["item_id"].map(counts).to_numpy(dtype=np.float64, na_value=np.nan)
    return _per_user_mean(top, np.nan_to_num(value, nan=0.0), name=func)


@constrained(k=POSITIVE_INT)
@uses_definitions("tie_order")
def mean_pop_rank(
    recs: pd.DataFrame,
    train: pd.DataFrame,
    *,
    k: int = 10,
    popularity: str = "users",
    tie_order: str = "item",
) -> pd.Series:
    """Mean popularity quantile of the items in each user's top-k list (lower recommends less
    popular items; LensKit's ``MeanPopRank``).

    Parameters
    ----------
    recs : pandas.DataFrame
        ``user_id, item_id`` and ``rank`` and/or ``score``.
    train : pandas.DataFrame
        Training interactions ``user_id, item_id`` (other columns ignored).
    k : int, default 10
        Cutoff of each user's list.
    popularity : {"users", "interactions"}, default "users"
        What item popularity is ranked by: distinct training users (LensKit's default
        ``count="users"``) or training rows (``count="interactions"``).
    tie_order : {"item", "item_desc", "item_str", "item_str_desc"}, default "item"
        As for :func:`catalog_coverage`.

    Returns
    -------
    pandas.Series
        Named ``"mean_pop_rank"``, indexed by ``user_id`` (ascending): every user with a
        non-empty top-k list. Values in [0, 1].

    Raises
    ------
    TypeError, ValueError
        On malformed inputs, an empty ``train``, a non-positive ``k``, an unknown
        ``popularity`` or item ids of different kinds.

    Notes
    -----
    Among the :math:`m` items seen in training, let :math:`r_i` be the rank of item
    :math:`i`'s popularity in ascending order, tied popularities sharing their average rank.
    Its popularity quantile is :math:`q_i = r_i / m` (1 for the most popular item), an item
    never seen in training has :math:`q_i = 0`, and

    .. math:: \\mathrm{MPR}_u = \\frac{1}{|L_u|} \\sum_{i \\in L_u} q_i.

    This is LensKit 2025.8.1 ``MeanPopRank(data, n=k, count=...)``
    (``lenskit/metrics/ranking/_pop.py``): a per-list value (``measure_list``), quantiles from
    ``Series.rank(method="average")`` over the items with a positive count, items outside the
    training data 0. LensKit returns NaN for an empty list; such a user has no row here.

    References
    ----------
    Ekstrand and Mahant (2017), Sturgeon and the cool kids: problems with random decoys for
    top-N recommender evaluation, FLAIRS (obscurity); Vargas and Castells (2011), Rank and
    relevance in novelty and diversity metrics for recommender systems, RecSys.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalkit.metrics.beyond import mean_pop_rank
    >>> train = pd.DataFrame({"user_id": [1, 2, 3, 1, 2], "item_id": [10, 10, 10, 11, 12]})
    >>> recs = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [10, 11, 13], "rank": [1, 2, 1]})
    >>> mean_pop_rank(recs, train).to_dict()  # q: 10 -> 3/3, 11 and 12 -> 1.5/3, 13 -> 0
    {1: 0.75, 2: 0.0}
    """
    func = "mean_pop_rank"
    recs = check_recs(recs, func=func)
    train = check_interactions(train, func=func, arg="train")
    k = int(k)  # a positive integer (constrained)
    popularity = check_choice(popularity, func=func, arg="popularity", choices=POPULARITY_UNITS)
    check_same_kind(
        recs["item_id"], "recs", train["item_id"], "train", func=func, column="item_id"
    )
    counts, _, _ = _item_popularity(train, unit=popularity, func=func)
    quantile = pd.Series(
        counts.rank(method="average").to_numpy() / len(counts), index=counts.index
    )
    top = top_k(recs, k=k, tie_order=tie_order, func=func)
    value = top["item_id"].map(quantile).to_numpy(dtype=np.float64, na_value=np.nan)
    return _per_user_mean(top, np.nan_to_num(value, nan=0.0), name=func)


def _per_user_mean(top: pd.DataFrame, value: np.ndarray, *, name: str) -> pd.Series:
    """Mean of ``value`` (one per row of ``top``) over each user's rows, as a per-user Series."""
    codes, users = pd.factorize(top["user_id"], sort=True)
    sums = np.bincount(codes, weights=value, minlength=len(users))
    sizes = np.bincount(codes, minlength=len(users))
    return finish_per_user(
        sums / np.maximum(sizes, 1), pd.Index(users), name=name, undefined=None, empty="drop"
    )


# --------------------------------------------------------------------------------------------
# novelty and diversity


@constrained(k=POSITIVE_INT)
@uses_definitions("novelty_norm", "popularity", "tie_order")
def novelty(
    recs: pd.DataFrame,
    train: pd.DataFrame,
    *,
    k: int = 10,
    novelty_norm: str = "none",
    popularity: str = "users",
    tie_order: str = "item",
) -> pd.Series:
    """Mean self-information of each user's top-k items (higher is more novel).

    Parameters
    ----------
    recs : pandas.DataFrame
        ``user_id, item_id`` and ``rank`` and/or ``score``.
    train : pandas.DataFrame
        Training interactions ``user_id, item_id`` (other columns ignored).
    k : int, default 10
        Cutoff of each user's list.
    novelty_norm : {"none", "log2_users"}, default "none"
        ``"log2_users"`` divides by :math:`\\log_2` of the number of training users (RePlay's
        ``Surprisal``), so an item seen by one user scores 1.
    popularity : {"users", "interactions"}, default "users"
        ``"users"``: the share of training users who interacted with the item (repeated
        pairs count once). ``"interactions"``: the item's share of the training rows (every
        row counts; Microsoft recommenders' ``novelty``).
    tie_order : {"item", "item_desc", "item_str", "item_str_desc"}, default "item"
        As for :func:`catalog_coverage`.

    Returns
    -------
    pandas.Series
        Named ``"novelty"``, indexed by ``user_id`` (ascending): every user with a non-empty
        top-k list. Values in [0, log2(N + 1)] (N below), divided by log2(n) under
        ``"log2_users"``.

    Raises
    ------
    TypeError, ValueError
        On malformed inputs, an empty ``train``, a non-positive ``k``, an unknown
        ``novelty_norm`` or ``popularity``, ``"log2_users"`` with a single training user
        (log2(1) = 0), or ids of different kinds.

    Notes
    -----
    With :math:`N` the popularity denominator (:math:`n` distinct training users for
    ``"users"``, the number of training rows for ``"interactions"``) and :math:`N_i` the item's
    count (its distinct users, or its rows), :math:`p_i = N_i / N` and

    .. math:: \\mathrm{novelty}_u = \\frac{1}{|L_u|} \\sum_{i \\in L_u} -\\log_2 p_i
              \\quad\\Big[\\,/ \\log_2 n \\text{ under } \\texttt{"log2_users"}\\Big]

    over the user's top-k list :math:`L_u`. An item never seen in training gets
    :math:`p_i = 1 / (N + 1)`, as if one more user (row) had seen it: slightly more novel than
    the rarest training item, and finite.

    Other libraries (versions and files as read):

    - RePlay 0.22.0 ``Surprisal`` (``replay/metrics/surprisal.py``) is ``"users"`` with
      ``"log2_users"``, but sums the top k and divides by k, not by :math:`|L_u|`: equal when
      every list has k items. Unseen items weigh 1, i.e. :math:`p_i = 1/n`. It breaks tied
      scores by item id descending.
    - Microsoft recommenders 1.2.1 ``novelty`` (``recommenders/evaluation/
      python_evaluation.py``) is ``"interactions"`` micro-averaged: the mean over all
      recommendation rows, i.e. a mean of the users' values weighted by :math:`|L_u|`. It
      equals the mean of this Series when every list has the same length. An unseen item adds
      nothing to its sum (the join to the training counts drops it) but still counts in the
      number of rows it divides by.
    - rectools 0.19.0 ``MeanInvUserFreq`` (``rectools/metrics/novelty.py``) and rs_metrics
      0.6.0 ``surprisal`` are ``"users"``; both treat unseen items as seen by one user
      (:math:`p_i = 1/n`). Evidently 0.7.23 ``NoveltyMetric`` (``evidently/legacy/metrics/
      recsys/novelty.py``) is ``"users"`` and drops unseen items from the user's mean.
      recmetrics 0.1.5 ``novelty`` takes the counts you give, divides each list's sum by the
      list length you give, and fails on unseen items.

    References
    ----------
    Zhou et al. (2010), Solving the apparent diversity-accuracy dilemma of recommender
    systems, PNAS.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalkit.metrics.beyond import novelty
    >>> train = pd.DataFrame({"user_id": [1, 2, 3, 4, 1], "item_id": [10, 10, 10, 10, 11]})
    >>> recs = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [10, 11, 12], "rank": [1, 2, 1]})
    >>> novelty(recs, train).round(4).to_dict()  # -log2(1), -log2(1/4), -log2(1/5)
    {1: 1.0, 2: 2.3219}
    >>> novelty(recs, train, novelty_norm="log2_users").round(4).to_dict()  # over log2(4)
    {1: 0.5, 2: 1.161}
    >>> novelty(recs, train, popularity="interactions").round(4).to_dict()  # 4/5, 1/5, 1/6
    {1: 1.3219, 2: 2.585}
    """
    func = "novelty"
    recs = check_recs(recs, func=func)
    train = check_interactions(train, func=func, arg="train")
    k = int(k)  # a positive integer (constrained)
    novelty_norm = check_choice(
        novelty_norm, func=func, arg="novelty_norm", choices=NOVELTY_NORMS
    )
    popularity = check_choice(popularity, func=func, arg="popularity", choices=POPULARITY_UNITS)
    check_same_kind(
        recs["item_id"], "recs", train["item_id"], "train", func=func, column="item_id"
    )
    counts, total, n_users = _item_popularity(train, unit=popularity, func=func)
    if novelty_norm == "log2_users" and n_users < 2:
        raise ValueError(
            f"{func}: novelty_norm='log2_users' divides by log2 of the number of training "
            f"users, which must be at least 2; got {n_users}."
        )
    top = top_k(recs, k=k, tie_order=tie_order, func=func)
    count = top["item_id"].map(counts).to_numpy(dtype=np.float64, na_value=np.nan)
    share = np.where(np.isnan(count), 1.0 / (total + 1), count / total)
    info = -np.log2(share)
    if novelty_norm == "log2_users":
        info = info / np.log2(n_users)
    codes, users = pd.factorize(top["user_id"], sort=True)
    sums = np.bincount(codes, weights=info, minlength=len(users))
    sizes = np.bincount(codes, minlength=len(users))
    return finish_per_user(
        sums / np.maximum(sizes, 1), pd.Index(users), name="novelty", undefined=None, empty="drop"
    )


def _item_popularity(
    train: pd.DataFrame, *, unit: str, func: str
) -> tuple[pd.Series, int, int]:
    """``(counts, total, n_users)``: per training item its distinct users (``"users"``) or its
    rows (``"interactions"``), the matching denominator (distinct users, or rows), and the
    number of distinct training users. Raises on an empty ``train``."""
    if len(train) == 0:
        raise ValueError(f"{func}: 'train' must hold at least one interaction; got none.")
    counts, n_users = users_per_item(train)
    if unit == "users":
        return counts, n_users, n_users
    return train["item_id"].value_counts(sort=False), len(train), n_users


@constrained(k=POSITIVE_INT)
@uses_definitions("empty", "diversity_norm", "tie_order")
def intra_list_diversity(
    recs: pd.DataFrame,
    items: pd.DataFrame,
    *,
    k: int = 10,
    empty: str = "drop",
    diversity_norm: str = "pairs",
    tie_order: str = "item",
) -> pd.Series:
    """One minus the mean pairwise cosine similarity of genres within each top-k list
    (higher is more diverse).

    Parameters
    ----------
    recs : pandas.DataFrame
        ``user_id, item_id`` and ``rank`` and/or ``score``.
    items : pandas.DataFrame
        ``item_id, genres`` with ``genres`` a list of labels per item (the loaders' items
        frame); item ids unique.
    k : int, default 10
        Cutoff of each user's list.
    empty : {"drop", "zero", "nan"}, default "drop"
        Policy for users whose top-k list has fewer than 2 items (no pair to compare).
    diversity_norm : {"pairs", "length"}, default "pairs"
        What the summed pairwise dissimilarity is divided by: the number of pairs
        :math:`n(n-1)/2` (a mean dissimilarity) or the list length :math:`n` (Evidently's
        ``Diversity``).
    tie_order : {"item", "item_desc", "item_str", "item_str_desc"}, default "item"
        As for :func:`catalog_coverage`.

    Returns
    -------
    MetricSeries
        Named ``"intra_list_diversity"``, indexed by ``user_id`` (ascending), values in [0, 1]
        (``"pairs"``) or [0, (n-1)/2] for a list of n items (``"length"``).
        ``dropped`` and ``n_users`` as for every per-user metric.

    Raises
    ------
    TypeError, ValueError
        On malformed inputs (``genres`` not list-like, duplicate item ids), a non-positive
        ``k``, an unknown ``empty`` or ``diversity_norm``, or item ids of different kinds.

    Notes
    -----
    Each item has a binary genre vector :math:`g_i`; :math:`v_i = g_i / \\lVert g_i \\rVert`.
    For a list :math:`L` of :math:`n \\ge 2` items,

    .. math:: \\mathrm{ILD}(L) = 1 - \\frac{2}{n(n-1)} \\sum_{i<j} v_i \\cdot v_j, \\qquad
              \\sum_{i<j} v_i \\cdot v_j = \\tfrac12 \\Big(\\big\\lVert \\sum_i v_i
              \\big\\rVert^2 - \\sum_i \\lVert v_i \\rVert^2\\Big),

    computed for all users at once with sparse matrix products. An item with no genres, or
    absent from ``items`` (a warning gives their number), has a zero vector: its similarity to
    every item is 0. Users with fewer than 2 items follow ``empty``.

    ``diversity_norm="length"`` returns

    .. math:: \\mathrm{ILD}_{len}(L) = \\frac{1}{n} \\sum_{i<j} (1 - v_i \\cdot v_j)
              = \\frac{n-1}{2}\\, \\mathrm{ILD}(L),

    as Evidently 0.7.23 ``DiversityMetric.get_ild`` (``evidently/legacy/metrics/recsys/
    diversity.py``; ``Diversity`` in the new API): the sum over the pairs of the sklearn cosine
    distance of the items' feature rows (zero rows have distance 1, as here), divided by
    ``len(rec_list)``. It grows with the list length and leaves [0, 1] from n = 4 on
    (a defect of Evidently's definition; it is reproduced, not fixed). Evidently scores a
    one-item list 0, which ``empty="zero"`` reproduces. recmetrics 0.1.5
    ``intra_list_similarity`` (``recmetrics/metrics.py``) is one minus the mean of ``"pairs"``,
    averaged over lists.

    References
    ----------
    Ziegler et al. (2005), Improving recommendation lists through topic diversification, WWW.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalkit.metrics.beyond import intra_list_diversity
    >>> items = pd.DataFrame({"item_id": [1, 2, 3],
    ...                       "genres": [["Drama"], ["Drama", "Comedy"], ["Horror"]]})
    >>> recs = pd.DataFrame({"user_id": [7, 7, 8, 8], "item_id": [1, 2, 1, 3],
    ...                      "rank": [1, 2, 1, 2]})
    >>> intra_list_diversity(recs, items).round(4).to_dict()  # 1 - 1/sqrt(2), 1 - 0
    {7: 0.2929, 8: 1.0}
    """
    func = "intra_list_diversity"
    recs = check_recs(recs, func=func)
    items = check_columns(items, func=func, arg="items", required=("item_id", "genres"))
    check_ids(items, func=func, arg="items", columns=("item_id",))
    k = int(k)  # a positive integer (constrained)
    empty = check_empty(empty, func=func)
    diversity_norm = check_choice(
        diversity_norm, func=func, arg="diversity_norm", choices=DIVERSITY_NORMS
    )
    check_same_kind(
        recs["item_id"], "recs", items["item_id"], "items", func=func, column="item_id"
    )
    if items["item_id"].duplicated().any():
        raise ValueError(f"{func}: 'items' has duplicate item ids; each item needs one row.")
    list_like = items["genres"].map(pd.api.types.is_list_like, na_action="ignore")
    if not list_like.fillna(True).astype(bool).all():
        raise TypeError(
            f"{func}: 'items' column 'genres' must hold a list of genres per item; got "
            f"{items['genres'].loc[~list_like.fillna(True).astype(bool)].iloc[0]!r}."
        )
    top = top_k(recs, k=k, tie_order=tie_order, func=func)
    user_codes, users = pd.factorize(top["user_id"], sort=True)
    item_codes, rec_items = pd.factorize(top["item_id"])
    warn_outside(int((~pd.Index(rec_items).isin(items["item_id"])).sum()), func=func,
                  what="'items'")
    genres = items.loc[items["item_id"].isin(rec_items), ["item_id", "genres"]].explode("genres")
    genres = genres.dropna().drop_duplicates()
    g_item = pd.Index(rec_items).get_indexer(genres["item_id"])
    g_code, _ = pd.factorize(genres["genres"])
    n_genres_of = np.bincount(g_item, minlength=len(rec_items)).astype(np.float64)
    weights = 1.0 / np.sqrt(n_genres_of[g_item]) if g_item.size else np.zeros(0)
    item_genre = sparse.csr_matrix(
        (weights, (g_item, g_code)), shape=(len(rec_items), int(g_code.max(initial=-1)) + 1)
    )
    user_item = sparse.csr_matrix(
        (np.ones(len(top)), (user_codes, item_codes)), shape=(len(users), len(rec_items))
    )
    summed = user_item @ item_genre
    sq_norm = np.asarray(summed.multiply(summed).sum(axis=1)).ravel()
    has_genre = (n_genres_of > 0).astype(np.float64)
    self_sim = user_item @ has_genre
    n = np.bincount(user_codes, minlength=len(users)).astype(np.float64)
    n_pairs = n * (n - 1) / 2
    undefined = n < 2
    mean_sim = 0.5 * (sq_norm - self_sim) / np.where(undefined, 1.0, n_pairs)
    values = np.clip(1.0 - mean_sim, 0.0, 1.0)
    if diversity_norm == "length":
        values = values * (n - 1) / 2  # (sum over pairs of 1 - sim) / n
    return finish_per_user(
        values, pd.Index(users), name="intra_list_diversity", undefined=undefined, empty=empty
    )


def _pairs_in(rows: pd.DataFrame, pairs: pd.DataFrame) -> np.ndarray:
    """Whether each (user_id, item_id) row of ``rows`` is among those of ``pairs`` (ids of
    the same kind): one integer key per pair, coded on the ids of ``rows``."""
    from ._hits import _codes, _id_array, _unique

    user, item = _id_array(rows["user_id"]), _id_array(rows["item_id"])
    users, items = _unique(user), _unique(item)
    pu = _codes(_id_array(pairs["user_id"]), users).astype(np.int64)
    pi = _codes(_id_array(pairs["item_id"]), items).astype(np.int64)
    keep = (pu >= 0) & (pi >= 0)
    keys = _codes(user, users).astype(np.int64) * items.size + _codes(item, items)
    return pd.Index(keys).isin(pu[keep] * items.size + pi[keep])


@constrained(k=POSITIVE_INT)
@uses_definitions("tie_order")
def personalization(recs: pd.DataFrame, *, k: int = 10, tie_order: str = "item") -> float:
    """One minus the mean cosine similarity between the top-k lists of two different users
    (higher is more personalized).

    Parameters
    ----------
    recs : pandas.DataFrame
        ``user_id, item_id`` and ``rank`` and/or ``score``.
    k : int, default 10
        Cutoff of each user's list.
    tie_order : {"item", "item_desc", "item_str", "item_str_desc"}, default "item"
        As for :func:`catalog_coverage`.

    Returns
    -------
    float
        In [0, 1]: 0 when every user gets the same items, 1 when no two lists share an item.
        NaN with a ``RuntimeWarning`` when fewer than two users have a non-empty list.

    Raises
    ------
    TypeError, ValueError
        On malformed inputs or a non-positive ``k``.

    Notes
    -----
    Each list :math:`L_u` is a binary item vector, so the cosine similarity of two lists is
    :math:`|L_u \\cap L_v| / \\sqrt{|L_u|\\,|L_v|}` (:math:`|L_u \\cap L_v| / k` when both
    have k items). Over the :math:`m` users with a non-empty list,

    .. math:: \\mathrm{personalization} = 1 - \\frac{2}{m(m-1)} \\sum_{u<v}
              \\frac{|L_u \\cap L_v|}{\\sqrt{|L_u|\\,|L_v|}}.

    No user-by-user matrix is formed: with :math:`w_u = 1/\\sqrt{|L_u|}`,
    :math:`a_i = \\sum_{u \\ni i} w_u` and :math:`b_i = \\sum_{u \\ni i} w_u^2` per item,
    the pair sum is :math:`\\tfrac12 \\sum_i (a_i^2 - b_i)`, one pass over the rows. When every
    list has k items this is :math:`(\\sum_i c_i^2 - \\sum_i c_i) / (2k)` for exposure counts
    :math:`c_i`.

    - recmetrics 0.1.5 ``personalization`` (``recmetrics/metrics.py``): one minus the mean of
      the upper triangle of the cosine similarity of the binary user-item matrix of the lists
      it is given (pass the top-k lists), the same definition, also for lists of different
      lengths (padded with ``None``; a ragged list of lists fails in ``np.array`` under
      NumPy >= 1.24).
    - Evidently 0.7.23 ``PersonalizationMetric.get_diversity`` (``evidently/legacy/metrics/
      recsys/personalisation.py``; ``Personalization`` in the new API) computes
      :math:`1 - (\\sum_i c_i^2 - mk) / (k\\, m(m-1))`: the same value when every list has k
      items; with shorter lists it subtracts :math:`mk` instead of the number of rows and
      divides by k, so it differs (and can exceed 1).

    References
    ----------
    Zhou et al. (2010), Solving the apparent diversity-accuracy dilemma of recommender
    systems, PNAS (the inter-list distance).

    Examples
    --------
    >>> import pandas as pd
    >>> from evalkit.metrics.beyond import personalization
    >>> recs = pd.DataFrame({"user_id": [1, 1, 2, 2, 3, 3], "item_id": [10, 11, 10, 12, 13, 14],
    ...                      "rank": [1, 2, 1, 2, 1, 2]})
    >>> round(personalization(recs, k=2), 4)  # overlaps 1/2, 0, 0 over the three pairs
    0.8333
    """
    func = "personalization"
    recs = check_recs(recs, func=func)
    k = int(k)  # a positive integer (constrained)
    top = top_k(recs, k=k, tie_order=tie_order, func=func)
    user_codes, users = pd.factorize(top["user_id"])
    item_codes, rec_items = pd.factorize(top["item_id"])
    m = len(users)
    if m < 2:
        return nan_warning(func, f"{m} user(s) with a list; a pair is needed")
    sizes = np.bincount(user_codes, minlength=m).astype(np.float64)
    w = 1.0 / np.sqrt(sizes)[user_codes]
    a = np.bincount(item_codes, weights=w, minlength=len(rec_items))
    b = np.bincount(item_codes, weights=w * w, minlength=len(rec_items))
    pair_sum = 0.5 * float(np.sum(a * a - b))
    return float(min(max(1.0 - pair_sum / (m * (m - 1) / 2.0), 0.0), 1.0))


# --------------------------------------------------------------------------------------------
# serendipity


@constrained(k=POSITIVE_INT)
@uses_definitions("tie_order")
def serendipity(
    truth: pd.DataFrame,
    recs: pd.DataFrame,
    train: pd.DataFrame,
    *,
    k: int = 10,
    threshold: float | None = 4.0,
    baseline: pd.DataFrame | None = None,
    tie_order: str = "item",
) -> pd.Series:
    """Share of each top-k list that is relevant and that a primitive baseline would not
    recommend (higher is better).

    Parameters
    ----------
    truth : pandas.DataFrame
        Test ratings ``user_id, item_id, rating``.
    recs : pandas.DataFrame
        ``user_id, item_id`` and ``rank`` and/or ``score``.
    train : pandas.DataFrame
        Training interactions ``user_id, item_id``, for the most-popular baseline.
    k : int, default 10
        Cutoff of each user's list and of the baseline's lists.
    threshold : float or None, default 4.0
        A test item is relevant when its rating >= threshold; None makes every test item
        relevant.
    baseline : pandas.DataFrame or None, default None
        The primitive recommender's lists (``user_id, item_id`` and ``rank`` and/or ``score``).
        None: most popular over ``train`` (by distinct users, ties by item_id ascending),
        skipping each user's own training items, as a popularity recommender does.
    tie_order : {"item", "item_desc", "item_str", "item_str_desc"}, default "item"
        As for :func:`catalog_coverage`.

    Returns
    -------
    MetricSeries
        Named ``"serendipity"``, indexed by the test users' ``user_id`` (ascending), values in
        [0, 1]. A test user without recommendations scores 0. ``dropped["recs_only"]``
        counts users of ``recs`` without test ratings (ignored).

    Raises
    ------
    TypeError, ValueError
        On malformed inputs, a non-positive ``k``, a non-numeric ``threshold`` or ids of
        different kinds.

    Notes
    -----
    With :math:`L_u` the user's top-k list, :math:`B_u` the baseline's top-k list and
    :math:`R_u` the relevant test items,

    .. math:: \\mathrm{serendipity}_u = |\\{i \\in L_u : i \\in R_u, i \\notin B_u\\}| / k.

    The denominator is k even when the list is shorter, as for precision at k. Every test user
    has a value, so there is no undefined case.

    References
    ----------
    Ge, Delgado-Battenfeld and Jannach (2010), Beyond accuracy: evaluating recommender systems
    by coverage and serendipity, RecSys.

    Examples
    --------
    Item 10 is relevant but the most popular item, so it is no surprise:

    >>> import pandas as pd
    >>> from evalkit.metrics.beyond import serendipity
    >>> train = pd.DataFrame({"user_id": [2, 3, 3, 4], "item_id": [10, 10, 11, 12]})
    >>> truth = pd.DataFrame({"user_id": [1, 1, 1], "item_id": [10, 12, 13],
    ...                       "rating": [5.0, 4.0, 2.0]})
    >>> recs = pd.DataFrame({"user_id": [1, 1, 1], "item_id": [10, 12, 13], "rank": [1, 2, 3]})
    >>> serendipity(truth, recs, train, k=2).to_dict()  # baseline top-2 is 10, 11
    {1: 0.5}
    """
    func = "serendipity"
    truth = check_truth(truth, func=func, threshold=threshold)
    recs = check_recs(recs, func=func)
    train = check_interactions(train, func=func, arg="train")
    k = int(k)  # a positive integer (constrained)
    threshold = check_threshold(threshold, func=func)
    for col in ("user_id", "item_id"):
        check_same_kind(truth[col], "truth", recs[col], "recs", func=func, column=col)
        check_same_kind(truth[col], "truth", train[col], "train", func=func, column=col)
    if baseline is not None:
        baseline = check_recs(baseline, func=func, arg="baseline")
        for col in ("user_id", "item_id"):
            check_same_kind(recs[col], "recs", baseline[col], "baseline", func=func, column=col)
    users = pd.Index(pd.unique(truth["user_id"])).sort_values()
    top = top_k(recs, k=k, tie_order=tie_order, func=func)
    in_truth = top["user_id"].isin(users).to_numpy()
    n_outside = int(top.loc[~in_truth, "user_id"].nunique())
    top = top.loc[in_truth].reset_index(drop=True)
    if baseline is None:
        in_base = in_popular_baseline(top, train, k=k)
    else:
        base = top_k(baseline, k=k, tie_order=tie_order)[["user_id", "item_id"]].assign(_base=True)
        in_base = top.merge(base, on=["user_id", "item_id"], how="left")["_base"].notna()
        in_base = in_base.to_numpy()
    relevant = truth if threshold is None else truth.loc[truth["rating"] >= threshold]
    rel = _pairs_in(top, relevant)
    hit = (rel & ~in_base).astype(np.float64)
    codes = users.get_indexer(top["user_id"])
    values = np.bincount(codes, weights=hit, minlength=len(users)) / k
    extra = {"recs_only": n_outside} if n_outside else None
    return finish_per_user(
        values, users, name="serendipity", undefined=None, empty="drop", extra_counts=extra
    )
