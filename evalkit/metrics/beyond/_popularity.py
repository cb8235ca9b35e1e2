"""The popularity of what is recommended: :func:`average_recommended_popularity`,
:func:`mean_pop_rank`."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..._checks import (
    check_choice,
    check_interactions,
    check_same_kind,
)
from ..._constraints import POSITIVE_INT, constrained
from ..._docstrings import fill_doc
from ...definitions import uses_definitions
from .._common import (
    check_recs,
    finish_per_user,
)
from .._topk import (
    top_k,
)
from ._choices import POPULARITY_UNITS
from ._diversity import _item_popularity
from ._docs import BEYOND_DOCS


@constrained(k=POSITIVE_INT)
@fill_doc(BEYOND_DOCS)
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
    %(recs)s
    %(train)s
    %(k)s
    popularity : {"interactions", "users"}, default "interactions"
        ``"interactions"``: the item's number of training rows (rectools ``AvgRecPopularity``,
        Evidently's ARP). ``"users"``: the share of training users who interacted with the item
        (repeated pairs count once; rs_metrics ``popularity``).
    %(definitions)s
    %(tie_order)s

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
@fill_doc(BEYOND_DOCS)
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
    %(recs)s
    %(train)s
    %(k)s
    popularity : {"users", "interactions"}, default "users"
        What item popularity is ranked by: distinct training users (LensKit's default
        ``count="users"``) or training rows (``count="interactions"``).
    %(definitions)s
    %(tie_order)s

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
