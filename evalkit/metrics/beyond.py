"""Beyond-accuracy metrics of top-k lists: coverage, exposure inequality, novelty, diversity
and serendipity.

Every function here reads the top ``k`` of each user's recommendation list. When ``recs`` has
a ``rank`` column, the top k are the rows with ``rank <= k``; otherwise ranks come from the
``score`` column, descending within the user, ties broken by ``item_id`` ascending.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import sparse

from .._checks import check_columns, check_ids, check_positive_int
from ._common import (
    check_empty,
    check_recs,
    check_threshold,
    check_truth,
    finish_per_user,
)
from ._topk import (
    catalog_items,
    check_interactions,
    check_same_kind,
    in_popular_baseline,
    nan_warning,
    top_k,
    warn_outside,
)

__all__ = [
    "catalog_coverage",
    "gini_index",
    "intra_list_diversity",
    "novelty",
    "serendipity",
    "user_coverage",
]


# --------------------------------------------------------------------------------------------
# coverage and exposure


def catalog_coverage(recs: pd.DataFrame, *, k: int = 10, catalog: object) -> float:
    """Share of the catalog that appears in at least one top-k list (higher is better).

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

    Returns
    -------
    float
        In [0, 1].

    Raises
    ------
    TypeError, ValueError
        On malformed ``recs``, a non-positive ``k``, an empty or malformed ``catalog``, or item
        ids of different kinds in ``recs`` and ``catalog``.

    Notes
    -----
    .. math::

        \\mathrm{coverage} = |\\{i \\in C : i \\in \\text{top-}k(u)
        \\text{ for some } u\\}| / |C|

    Recommended items outside the catalog are not counted; a warning gives their number.

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
    """
    func = "catalog_coverage"
    recs = check_recs(recs, func=func)
    k = check_positive_int(k, func=func, arg="k")
    items = catalog_items(catalog, func=func)
    check_same_kind(
        recs["item_id"], "recs", pd.Series(items), "catalog", func=func, column="item_id"
    )
    recommended = pd.Index(pd.unique(top_k(recs, k=k)["item_id"]))
    inside = recommended.isin(items)
    warn_outside(int((~inside).sum()), func=func, what="the catalog")
    return float(inside.sum() / len(items))


def user_coverage(truth: pd.DataFrame, recs: pd.DataFrame, *, k: int = 10) -> float:
    """Share of test users who receive at least one recommendation (higher is better).

    Parameters
    ----------
    truth : pandas.DataFrame
        Test ratings ``user_id, item_id, rating``; its users are the test users.
    recs : pandas.DataFrame
        ``user_id, item_id`` and ``rank`` and/or ``score``.
    k : int, default 10
        Cutoff of each user's list (a user counts when their top k is not empty).

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
    k = check_positive_int(k, func=func, arg="k")
    check_same_kind(
        truth["user_id"], "truth", recs["user_id"], "recs", func=func, column="user_id"
    )
    users = pd.Index(pd.unique(truth["user_id"]))
    if len(users) == 0:
        return nan_warning(func, "'truth' has no users")
    served = users.isin(pd.unique(top_k(recs, k=k)["user_id"]))
    return float(served.sum() / len(users))


def gini_index(recs: pd.DataFrame, *, k: int = 10, catalog: object | None = None) -> float:
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

    Returns
    -------
    float
        In [0, (n-1)/n] for n items; 0 when every item is shown equally often. NaN with a
        ``RuntimeWarning`` when no item is shown at all.

    Raises
    ------
    TypeError, ValueError
        On malformed inputs, a non-positive ``k`` or item ids of different kinds.

    Notes
    -----
    With exposure counts sorted ascending :math:`x_{(1)} \\le \\dots \\le x_{(n)}`,

    .. math:: G = \\frac{\\sum_{i=1}^n (2i - n - 1)\\, x_{(i)}}{n \\sum_i x_{(i)}}
              = \\frac{\\sum_i \\sum_j |x_i - x_j|}{2 n \\sum_i x_i},

    the mean absolute difference over twice the mean. One item receiving all exposure gives
    :math:`(n-1)/n`.

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
    """
    func = "gini_index"
    recs = check_recs(recs, func=func)
    k = check_positive_int(k, func=func, arg="k")
    counts = top_k(recs, k=k)["item_id"].value_counts(sort=False)
    if catalog is not None:
        items = catalog_items(catalog, func=func)
        check_same_kind(
            recs["item_id"], "recs", pd.Series(items), "catalog", func=func, column="item_id"
        )
        warn_outside(int((~counts.index.isin(items)).sum()), func=func, what="the catalog")
        counts = counts.reindex(items, fill_value=0)
    x = np.sort(counts.to_numpy(dtype=np.float64))
    n, total = x.size, x.sum()
    if total == 0:
        return nan_warning(func, "no item is recommended")
    weights = 2.0 * np.arange(1, n + 1) - n - 1.0
    return float(np.dot(weights, x) / (n * total))


# --------------------------------------------------------------------------------------------
# novelty and diversity


def novelty(recs: pd.DataFrame, train: pd.DataFrame, *, k: int = 10) -> pd.Series:
    """Mean self-information of each user's top-k items (higher is more novel).

    Parameters
    ----------
    recs : pandas.DataFrame
        ``user_id, item_id`` and ``rank`` and/or ``score``.
    train : pandas.DataFrame
        Training interactions ``user_id, item_id`` (other columns ignored; repeated pairs
        count once).
    k : int, default 10
        Cutoff of each user's list.

    Returns
    -------
    pandas.Series
        Named ``"novelty"``, indexed by ``user_id`` (ascending): every user with a non-empty
        top-k list. Values in [0, log2(n + 1)] for n training users.

    Raises
    ------
    TypeError, ValueError
        On malformed inputs, an empty ``train``, a non-positive ``k`` or ids of different kinds.

    Notes
    -----
    With :math:`n` distinct training users and :math:`n_i` of them having interacted with item
    :math:`i`, popularity :math:`p_i = n_i / n` and

    .. math:: \\mathrm{novelty}_u = \\frac{1}{|L_u|} \\sum_{i \\in L_u} -\\log_2 p_i

    over the user's top-k list :math:`L_u`. An item never seen in training gets
    :math:`p_i = 1 / (n + 1)`, as if one more user had seen it: slightly more novel than the
    rarest training item, and finite.

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
    """
    func = "novelty"
    recs = check_recs(recs, func=func)
    train = check_interactions(train, func=func, arg="train")
    k = check_positive_int(k, func=func, arg="k")
    check_same_kind(
        recs["item_id"], "recs", train["item_id"], "train", func=func, column="item_id"
    )
    pairs = train[["user_id", "item_id"]].drop_duplicates()
    n_users = pairs["user_id"].nunique()
    if n_users == 0:
        raise ValueError(f"{func}: 'train' must hold at least one interaction; got none.")
    item_users = pairs["item_id"].value_counts(sort=False)
    top = top_k(recs, k=k)
    count = top["item_id"].map(item_users).to_numpy(dtype=np.float64, na_value=np.nan)
    popularity = np.where(np.isnan(count), 1.0 / (n_users + 1), count / n_users)
    info = -np.log2(popularity)
    codes, users = pd.factorize(top["user_id"], sort=True)
    sums = np.bincount(codes, weights=info, minlength=len(users))
    sizes = np.bincount(codes, minlength=len(users))
    return finish_per_user(
        sums / np.maximum(sizes, 1), pd.Index(users), name="novelty", undefined=None, empty="drop"
    )


def intra_list_diversity(
    recs: pd.DataFrame,
    items: pd.DataFrame,
    *,
    k: int = 10,
    empty: str = "drop",
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

    Returns
    -------
    pandas.Series
        Named ``"intra_list_diversity"``, indexed by ``user_id`` (ascending), values in [0, 1].
        ``attrs["dropped"]`` and ``attrs["n_users"]`` as for every per-user metric.

    Raises
    ------
    TypeError, ValueError
        On malformed inputs (``genres`` not list-like, duplicate item ids), a non-positive
        ``k``, an unknown ``empty`` or item ids of different kinds.

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
    k = check_positive_int(k, func=func, arg="k")
    empty = check_empty(empty, func=func)
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
    top = top_k(recs, k=k)
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
    return finish_per_user(
        values, pd.Index(users), name="intra_list_diversity", undefined=undefined, empty=empty
    )


# --------------------------------------------------------------------------------------------
# serendipity


def serendipity(
    truth: pd.DataFrame,
    recs: pd.DataFrame,
    train: pd.DataFrame,
    *,
    k: int = 10,
    threshold: float | None = 4.0,
    baseline: pd.DataFrame | None = None,
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

    Returns
    -------
    pandas.Series
        Named ``"serendipity"``, indexed by the test users' ``user_id`` (ascending), values in
        [0, 1]. A test user without recommendations scores 0. ``attrs["dropped"]["recs_only"]``
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
    k = check_positive_int(k, func=func, arg="k")
    threshold = check_threshold(threshold, func=func)
    for col in ("user_id", "item_id"):
        check_same_kind(truth[col], "truth", recs[col], "recs", func=func, column=col)
        check_same_kind(truth[col], "truth", train[col], "train", func=func, column=col)
    if baseline is not None:
        baseline = check_recs(baseline, func=func, arg="baseline")
        for col in ("user_id", "item_id"):
            check_same_kind(recs[col], "recs", baseline[col], "baseline", func=func, column=col)
    users = pd.Index(pd.unique(truth["user_id"])).sort_values()
    top = top_k(recs, k=k)
    in_truth = top["user_id"].isin(users).to_numpy()
    n_outside = int(top.loc[~in_truth, "user_id"].nunique())
    top = top.loc[in_truth].reset_index(drop=True)
    if baseline is None:
        in_base = in_popular_baseline(top, train, k=k)
    else:
        base = top_k(baseline, k=k)[["user_id", "item_id"]].assign(_base=True)
        in_base = top.merge(base, on=["user_id", "item_id"], how="left")["_base"].notna()
        in_base = in_base.to_numpy()
    relevant = truth if threshold is None else truth.loc[truth["rating"] >= threshold]
    rel = top.merge(relevant[["user_id", "item_id"]].assign(_rel=True),
                    on=["user_id", "item_id"], how="left")["_rel"].notna().to_numpy()
    hit = (rel & ~in_base).astype(np.float64)
    codes = users.get_indexer(top["user_id"])
    values = np.bincount(codes, weights=hit, minlength=len(users)) / k
    extra = {"recs_only": n_outside} if n_outside else None
    return finish_per_user(
        values, users, name="serendipity", undefined=None, empty="drop", extra_counts=extra
    )
