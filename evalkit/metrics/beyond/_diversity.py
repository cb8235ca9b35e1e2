"""Novelty and diversity: :func:`novelty`, :func:`intra_list_diversity`, :func:`personalization`."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import sparse

from ..._checks import (
    check_choice,
    check_columns,
    check_ids,
    check_interactions,
    check_same_kind,
)
from ..._constraints import POSITIVE_INT, constrained
from ..._docstrings import fill_doc
from ..._errors import InvalidParameterError
from ...definitions import uses_definitions
from .._common import (
    check_empty,
    check_recs,
    finish_per_user,
)
from .._topk import (
    nan_warning,
    top_k,
    training_memo,
    users_per_item,
    warn_outside,
)
from ._choices import DIVERSITY_NORMS, NOVELTY_NORMS, POPULARITY_UNITS
from ._docs import BEYOND_DOCS


@constrained(k=POSITIVE_INT)
@fill_doc(BEYOND_DOCS)
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
    %(recs)s
    %(train)s
    %(k)s
    %(definitions)s
    novelty_norm : {"none", "log2_users"}, default "none"
        ``"log2_users"`` divides by :math:`\\log_2` of the number of training users (RePlay's
        ``Surprisal``), so an item seen by one user scores 1.
    popularity : {"users", "interactions"}, default "users"
        ``"users"``: the share of training users who interacted with the item (repeated
        pairs count once). ``"interactions"``: the item's share of the training rows (every
        row counts; Microsoft recommenders' ``novelty``).
    %(tie_order)s

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
    rows = training_memo(train, "rows per item",
                         lambda: train["item_id"].value_counts(sort=False))
    return rows, len(train), n_users


@constrained(k=POSITIVE_INT)
@fill_doc(BEYOND_DOCS)
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
    %(recs)s
    items : pandas.DataFrame
        ``item_id, genres`` with ``genres`` a list of labels per item (the loaders' items
        frame); item ids unique.
    %(k)s
    %(definitions)s
    empty : {"drop", "zero", "nan"}, default "drop"
        Policy for users whose top-k list has fewer than 2 items (no pair to compare).
    diversity_norm : {"pairs", "length"}, default "pairs"
        What the summed pairwise dissimilarity is divided by: the number of pairs
        :math:`n(n-1)/2` (a mean dissimilarity) or the list length :math:`n` (Evidently's
        ``Diversity``).
    %(tie_order)s

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
        raise InvalidParameterError(
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


@constrained(k=POSITIVE_INT)
@fill_doc(BEYOND_DOCS)
@uses_definitions("tie_order")
def personalization(recs: pd.DataFrame, *, k: int = 10, tie_order: str = "item") -> float:
    """One minus the mean cosine similarity between the top-k lists of two different users
    (higher is more personalized).

    Parameters
    ----------
    %(recs)s
    %(k)s
    %(definitions)s
    %(tie_order)s

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
