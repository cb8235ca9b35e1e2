"""Serendipity: :func:`serendipity`."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..._checks import (
    check_interactions,
    check_same_kind,
    pairs_in,
)
from ..._constraints import POSITIVE_INT, constrained
from ..._docstrings import fill_doc
from ...definitions import uses_definitions
from .._common import (
    check_recs,
    check_threshold,
    check_truth,
    finish_per_user,
)
from .._topk import (
    in_popular_baseline,
    top_k,
)
from ._docs import BEYOND_DOCS


@constrained(k=POSITIVE_INT)
@fill_doc(BEYOND_DOCS)
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
    %(recs)s
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
    %(definitions)s
    %(tie_order)s

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
    rel = pairs_in(top, relevant)
    hit = (rel & ~in_base).astype(np.float64)
    codes = users.get_indexer(top["user_id"])
    values = np.bincount(codes, weights=hit, minlength=len(users)) / k
    extra = {"recs_only": n_outside} if n_outside else None
    return finish_per_user(
        values, users, name="serendipity", undefined=None, empty="drop", extra_counts=extra
    )
