"""Coverage of the catalogue and of the users, and the concentration of exposure:
:func:`catalog_coverage`, :func:`user_coverage`, :func:`gini_index`, :func:`exposure_gini`,
:func:`exposure_entropy`."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..._checks import (
    check_choice,
    check_same_kind,
    describe,
)
from ..._constraints import POSITIVE_INT, constrained
from ..._docstrings import fill_doc
from ..._errors import InvalidParameterError
from ...definitions import uses_definitions
from .._common import (
    check_recs,
    check_truth,
)
from .._topk import (
    catalog_items,
    nan_warning,
    top_k,
    warn_outside,
)
from ._choices import COVERAGE_UNITS, EXPOSURE_WEIGHTS, GINI_SCALES
from ._docs import BEYOND_DOCS


@constrained(k=POSITIVE_INT)
@fill_doc(BEYOND_DOCS)
@uses_definitions("coverage_unit", "tie_order")
def catalog_coverage(
    recs: pd.DataFrame, *, k: int = 10, catalog: object, coverage_unit: str = "share",
    tie_order: str = "item",
) -> float:
    """Share (or number) of the catalog's items that appear in at least one top-k list (higher
    is better).

    Parameters
    ----------
    %(recs)s
    %(k)s
    catalog : pandas.DataFrame or array-like
        The items that could be recommended: a frame with an ``item_id`` column (typically the
        training interactions, the default catalog of the evaluation) or an array-like of item
        ids. Duplicates are counted once.
    %(definitions)s
    coverage_unit : {"share", "count"}, default "share"
        ``"share"`` divides by the catalog size; ``"count"`` returns the number of distinct
        recommended catalog items (rectools ``CatalogCoverage()``, whose default is a count).
    %(tie_order)s

    Returns
    -------
    float
        In [0, 1] for ``"share"``; a whole number in ``[0, |C|]`` for ``"count"`` (still a float,
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
@fill_doc(BEYOND_DOCS)
@uses_definitions("tie_order")
def user_coverage(truth: pd.DataFrame, recs: pd.DataFrame, *, k: int = 10,
                  tie_order: str = "item") -> float:
    """Share of test users who receive at least one recommendation (higher is better).

    Parameters
    ----------
    truth : pandas.DataFrame
        Test ratings ``user_id, item_id, rating``; its users are the test users.
    %(recs)s
    k : int, default 10
        Cutoff of each user's list (a user counts when their top k is not empty).
    %(definitions)s
    %(tie_order)s

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
@fill_doc(BEYOND_DOCS)
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
    %(recs)s
    %(k)s
    catalog : pandas.DataFrame, array-like or None, default None
        When given (a frame with ``item_id`` or an array-like of ids), the distribution is over
        the whole catalog and items never recommended count with exposure 0; recommended items
        outside the catalog are left out with a warning. When None, over the recommended items.
    %(definitions)s
    gini_scale : {"standard", "unbiased"}, default "standard"
        ``"unbiased"`` multiplies the Gini by n / (n - 1), so that one item receiving all
        exposure gives 1 (Evidently's ``PopularityBias`` Gini).
    %(tie_order)s

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
@fill_doc(BEYOND_DOCS)
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
    %(recs)s
    %(k)s
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
    %(definitions)s
    %(tie_order)s

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
            raise InvalidParameterError(
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
@fill_doc(BEYOND_DOCS)
@uses_definitions("tie_order")
def exposure_entropy(recs: pd.DataFrame, *, k: int = 10, tie_order: str = "item") -> float:
    """Shannon entropy, in bits, of how the top-k slots are shared among items (higher is more
    even).

    Parameters
    ----------
    %(recs)s
    %(k)s
    %(definitions)s
    %(tie_order)s

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
