"""Ranking metrics per user: P@k, R@k, F1@k, HR@k, R-precision, AP@k, RR@k, DCG@k, NDCG@k
and half-life utility (their curves over cutoffs: :func:`evalkit.metrics.ranking_curves`).

Conventions shared by every function here (metrics, which users are averaged, ties in
scores):

- ``truth`` is the test set (``user_id, item_id, rating``); ``recs`` the recommendations
  (``user_id, item_id`` and ``rank`` and/or ``score``). When ``rank`` is present it orders the
  list (gaps allowed: the item at rank 5 is at position 5); otherwise items are ordered by
  descending ``score`` with ties resolved by ``ties``.
- A test item is relevant when ``rating >= threshold``; ``threshold=None`` makes every test
  item relevant (implicit feedback).
- Every user in ``truth`` is evaluated. A user without recommendations scores 0. Users that
  appear only in ``recs`` are ignored and counted in the result's ``dropped["recs_only"]``.
- Where a metric is undefined for a user (no relevant items for recall, F1, AP, RR and
  R-precision; IDCG = 0 for NDCG; no positive utility for half-life utility), ``empty``
  decides: ``"drop"`` removes the user (counted in ``dropped["undefined"]``),
  ``"zero"`` scores 0 (as trec_eval ``-c`` and ranx do), ``"nan"`` keeps NaN.
- Each function returns a :class:`~evalkit.metrics.MetricSeries`: a ``pd.Series`` of per-user
  values indexed by ``user_id`` and named by the metric's registry name, whose attributes
  also hold the counts of users left out (``dropped``, ``n_users``), ``k``, the definitions used,
  the users with ties at the cutoff (``tied_users``) and without recommendations
  (``users_without_recs``).
"""

from __future__ import annotations

import pandas as pd

from .._constraints import POSITIVE_INT, constrained
from .._docstrings import PER_USER_DOCS, fill_doc
from ..definitions import Definitions, takes_definitions
from ._common import check_truth
from ._engine import per_user
from ._prepare import SharedTruth as SharedTruth  # for several lists against one truth
from ._prepare import sharing_tables as sharing_tables  # several definitions, one list
from ._prepare import table_fields as table_fields

__all__ = [
    "average_precision_at_k",
    "dcg_at_k",
    "f1_at_k",
    "half_life_utility",
    "hit_rate_at_k",
    "ndcg_at_k",
    "precision_at_k",
    "r_precision",
    "r_precision_at_k",
    "recall_at_k",
    "reciprocal_rank_at_k",
]


@constrained(k=POSITIVE_INT)
@takes_definitions
@fill_doc(PER_USER_DOCS)
def precision_at_k(
    truth: pd.DataFrame,
    recs: pd.DataFrame,
    *,
    k: int = 10,
    train: pd.DataFrame | None = None,
    definitions: Definitions | str | None = None,
    **options: object,
) -> pd.Series:
    """Precision at k: the share of the top-k positions holding a relevant item.

    Parameters
    ----------
    %(parameters)s

    Returns
    -------
    %(returns)s

    Raises
    ------
    %(raises)s

    Notes
    -----
    ``P@k = hits(k) / k``, dividing by ``k`` even when the list is shorter than ``k``. Defined
    for every user (a user with no relevant items scores 0); with
    ``precision_users="relevant"`` undefined for users without a relevant test item, which
    then follow ``empty`` (as in libraries fed only the relevant items).

    Examples
    --------
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": [1, 3], "rating": 5.0})
    >>> recs = pd.DataFrame({"user_id": 1, "item_id": [1, 2, 3, 4], "rank": [1, 2, 3, 4]})
    >>> precision_at_k(truth, recs, k=4).tolist()
    [0.5]
    """
    return per_user("precision", truth, recs, k, definitions, train=train, func="precision_at_k")


@constrained(k=POSITIVE_INT)
@takes_definitions
@fill_doc(PER_USER_DOCS)
def recall_at_k(
    truth: pd.DataFrame,
    recs: pd.DataFrame,
    *,
    k: int = 10,
    train: pd.DataFrame | None = None,
    definitions: Definitions | str | None = None,
    **options: object,
) -> pd.Series:
    """Recall at k: the share of the user's relevant items found in the top k.

    Parameters
    ----------
    %(parameters)s

    Returns
    -------
    %(returns)s

    Raises
    ------
    %(raises)s

    Notes
    -----
    ``R@k = hits(k) / |R_u|``, or ``hits(k) / min(|R_u|, k)`` with
    ``recall_denominator="min"`` (LensKit). Undefined when the user has no relevant test item
    (``empty``).

    Examples
    --------
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": [1, 3, 9], "rating": 5.0})
    >>> recs = pd.DataFrame({"user_id": 1, "item_id": [1, 2, 3], "rank": [1, 2, 3]})
    >>> recall_at_k(truth, recs, k=3).round(4).tolist()
    [0.6667]
    """
    return per_user("recall", truth, recs, k, definitions, train=train, func="recall_at_k")


@constrained(k=POSITIVE_INT)
@takes_definitions
@fill_doc(PER_USER_DOCS)
def f1_at_k(
    truth: pd.DataFrame,
    recs: pd.DataFrame,
    *,
    k: int = 10,
    train: pd.DataFrame | None = None,
    definitions: Definitions | str | None = None,
    **options: object,
) -> pd.Series:
    """F1 at k: the harmonic mean of P@k and R@k.

    Parameters
    ----------
    %(parameters)s

    Returns
    -------
    %(returns)s

    Raises
    ------
    %(raises)s

    Notes
    -----
    ``F1@k = 2 P R / (P + R)``, and 0 when both are 0. Undefined (``empty``) when the user has
    no relevant test item, as recall is.

    Examples
    --------
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": [1, 3], "rating": 5.0})
    >>> recs = pd.DataFrame({"user_id": 1, "item_id": [1, 2], "rank": [1, 2]})
    >>> f1_at_k(truth, recs, k=2).tolist()
    [0.5]
    """
    return per_user("f1", truth, recs, k, definitions, train=train, func="f1_at_k")


@constrained(k=POSITIVE_INT)
@takes_definitions
@fill_doc(PER_USER_DOCS)
def hit_rate_at_k(
    truth: pd.DataFrame,
    recs: pd.DataFrame,
    *,
    k: int = 10,
    train: pd.DataFrame | None = None,
    definitions: Definitions | str | None = None,
    **options: object,
) -> pd.Series:
    """Hit rate at k: 1 if any relevant item is in the top k, else 0.

    Parameters
    ----------
    %(parameters)s

    Returns
    -------
    %(returns)s

    Raises
    ------
    %(raises)s

    Notes
    -----
    ``HR@k = 1[hits(k) > 0]``. Defined for every user unless ``precision_users="relevant"``
    (as for :func:`precision_at_k`). Under ``ties="expected"`` it is the exact
    probability that a random order of the tie groups puts a relevant item in the top k.

    Examples
    --------
    >>> truth = pd.DataFrame({"user_id": [1, 2], "item_id": [1, 1], "rating": 5.0})
    >>> recs = pd.DataFrame({"user_id": [1, 2], "item_id": [1, 2], "rank": [1, 1]})
    >>> hit_rate_at_k(truth, recs, k=1).tolist()
    [1.0, 0.0]
    """
    return per_user("hit_rate", truth, recs, k, definitions, train=train, func="hit_rate_at_k")


@constrained(k=POSITIVE_INT)
@takes_definitions
@fill_doc(PER_USER_DOCS)
def average_precision_at_k(
    truth: pd.DataFrame,
    recs: pd.DataFrame,
    *,
    k: int = 10,
    train: pd.DataFrame | None = None,
    definitions: Definitions | str | None = None,
    **options: object,
) -> pd.Series:
    """Average precision at k; its mean over users is MAP@k.

    Parameters
    ----------
    %(parameters)s

    Returns
    -------
    %(returns)s

    Raises
    ------
    %(raises)s

    Notes
    -----
    ``AP@k = (1/D) * sum_{i<=k} hit_i * P@i``, D set by ``ap_denominator``:
    ``D = min(k, |R_u|)`` by default, so a perfect list scores 1; ``"relevant"`` gives
    ``D = |R_u|`` (trec_eval, ranx); ``"hits"`` the number of hits in the top k (torchmetrics;
    0 hits give 0); ``"k"`` gives k (rectools ``divide_by_k``). Undefined when the user has no
    relevant test item (``empty``). Under ``ties="expected"`` AP is the exact expectation over
    random orders of the tie groups for ``"min"`` and ``"relevant"`` (``E[hit_i * hits(i)]``
    has a closed form per tie group); with ``"hits"``, whose denominator is random too, it is
    the AP of the expected hit vector, an approximation.

    References
    ----------
    Seed example (Sacharidis): R,NR,R,R,NR,R,NR,NR,NR,R with 5 relevant gives AP 0.717.

    Examples
    --------
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": ["A", "C", "D"], "rating": 5.0})
    >>> recs = pd.DataFrame({"user_id": 1, "item_id": list("ABCDE"), "rank": [1, 2, 3, 4, 5]})
    >>> average_precision_at_k(truth, recs, k=5).round(4).tolist()
    [0.8056]
    """
    return per_user("map", truth, recs, k, definitions, train=train, func="average_precision_at_k")


@constrained(k=POSITIVE_INT)
@takes_definitions
@fill_doc(PER_USER_DOCS)
def reciprocal_rank_at_k(
    truth: pd.DataFrame,
    recs: pd.DataFrame,
    *,
    k: int = 10,
    train: pd.DataFrame | None = None,
    definitions: Definitions | str | None = None,
    **options: object,
) -> pd.Series:
    """Reciprocal rank at k; its mean over users is MRR@k.

    Parameters
    ----------
    %(parameters)s

    Returns
    -------
    %(returns)s

    Raises
    ------
    %(raises)s

    Notes
    -----
    ``RR@k = 1 / (rank of the first relevant item)`` if it is within the top k, else 0.
    Undefined when the user has no relevant test item (``empty``). Under ``ties="expected"``
    it is exact: the expectation over random orders of the first tie group holding a relevant
    item.

    Examples
    --------
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": [3], "rating": 5.0})
    >>> recs = pd.DataFrame({"user_id": 1, "item_id": [1, 2, 3], "rank": [1, 2, 3]})
    >>> reciprocal_rank_at_k(truth, recs, k=3).round(4).tolist()
    [0.3333]
    """
    return per_user("mrr", truth, recs, k, definitions, train=train, func="reciprocal_rank_at_k")


@takes_definitions
@fill_doc(PER_USER_DOCS)
def r_precision(
    truth: pd.DataFrame,
    recs: pd.DataFrame,
    *,
    train: pd.DataFrame | None = None,
    definitions: Definitions | str | None = None,
    **options: object,
) -> pd.Series:
    """R-precision: precision at the user's own number of relevant items.

    Parameters
    ----------
    %(truth_recs)s
    %(train)s
    %(definitions)s
    %(options)s

    Returns
    -------
    MetricSeries
        Per-user values indexed by ``user_id``, with ``dropped``, ``n_users`` and
        ``definitions`` (no cutoff: ``k``, ``tied_users`` and ``users_without_recs`` are None).

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
    return per_user("r_precision", truth, recs, None, definitions, train=train,
                    func="r_precision")


@constrained(k=POSITIVE_INT)
@takes_definitions
@fill_doc(PER_USER_DOCS)
def r_precision_at_k(
    truth: pd.DataFrame,
    recs: pd.DataFrame,
    *,
    k: int = 10,
    train: pd.DataFrame | None = None,
    definitions: Definitions | str | None = None,
    **options: object,
) -> pd.Series:
    """R-precision cut at k: the relevant items found within the top ``min(|R_u|, k)``
    positions, over ``|R_u|``.

    Parameters
    ----------
    %(parameters)s

    Returns
    -------
    %(returns)s

    Raises
    ------
    %(raises)s

    Notes
    -----
    ``RP@k = hits(min(|R_u|, k)) / |R_u|``: R-precision (:func:`r_precision`) for users with
    at most k relevant items, recall@k for the others. This is the per-user value of Microsoft
    recommenders' ``r_precision_at_k`` (whose mean leaves out users without a hit there, a
    bug evalkit does not copy). Undefined when the user has no relevant test item
    (``empty``).

    Examples
    --------
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": [1, 3, 5], "rating": 5.0})
    >>> recs = pd.DataFrame({"user_id": 1, "item_id": [1, 2, 3], "rank": [1, 2, 3]})
    >>> r_precision_at_k(truth, recs, k=2).round(4).tolist()
    [0.3333]
    """
    return per_user("r_precision_at_k", truth, recs, k, definitions, train=train,
                     func="r_precision_at_k")


@constrained(k=POSITIVE_INT)
@takes_definitions
@fill_doc(PER_USER_DOCS)
def dcg_at_k(
    truth: pd.DataFrame,
    recs: pd.DataFrame,
    *,
    k: int = 10,
    train: pd.DataFrame | None = None,
    definitions: Definitions | str | None = None,
    **options: object,
) -> pd.Series:
    """Discounted cumulative gain at k.

    Parameters
    ----------
    %(parameters)s

    Returns
    -------
    %(returns)s

    Raises
    ------
    %(raises)s

    Notes
    -----
    ``DCG@k = sum_{i<=k} gain_i / disc(i)``. Always defined. ``gain``: a test item's rating
    (``"linear"``), ``2**rating - 1`` or 1 if relevant (``"binary"``); with
    ``gain_scope="relevant"`` only relevant items have a rating-valued gain. Items outside the
    user's test set gain 0. ``discount``: ``log_b(i + 1)``, or Breese's ``max(1, log_b(i))``
    that leaves the first ``b = log_base`` ranks undiscounted.

    Examples
    --------
    Ekstrand's lecture example, gains 4, 3, 0, 5 with Breese's discount, base 2:

    >>> truth = pd.DataFrame({"user_id": 1, "item_id": list("ABD"), "rating": [4.0, 3.0, 5.0]})
    >>> recs = pd.DataFrame({"user_id": 1, "item_id": list("ABCD"), "rank": [1, 2, 3, 4]})
    >>> dcg_at_k(truth, recs, k=4, discount="breese").tolist()
    [9.5]
    """
    return per_user("dcg", truth, recs, k, definitions, train=train, func="dcg_at_k")


@constrained(k=POSITIVE_INT)
@takes_definitions
@fill_doc(PER_USER_DOCS)
def ndcg_at_k(
    truth: pd.DataFrame,
    recs: pd.DataFrame,
    *,
    k: int = 10,
    train: pd.DataFrame | None = None,
    definitions: Definitions | str | None = None,
    **options: object,
) -> pd.Series:
    """Normalized discounted cumulative gain at k.

    Parameters
    ----------
    %(parameters)s

    Returns
    -------
    %(returns)s

    Raises
    ------
    %(raises)s

    Notes
    -----
    ``NDCG@k = DCG@k / IDCG@k`` where IDCG@k is the DCG@k of the ideal list: all of the user's
    test items sorted by gain (with ``gain="binary"``, relevant items first); with
    ``ideal="k"`` (binary gain only), k relevant items, whatever the user has (rectools).
    Gain and discount as for :func:`dcg_at_k`. Undefined when
    IDCG@k = 0, i.e. no test item has a positive gain (``empty``). The log base cancels out.
    Under ``ties="expected"`` it is exact (McSherry and Najork 2008).

    References
    ----------
    Jarvelin and Kekalainen (2002), "Cumulated gain-based evaluation of IR techniques".

    Examples
    --------
    A worked example with gains 2, 0, 3, 2 and the ideal 3, 2, 2, 0:

    >>> truth = pd.DataFrame({"user_id": 1, "item_id": list("ACD"), "rating": [2.0, 3.0, 2.0]})
    >>> recs = pd.DataFrame({"user_id": 1, "item_id": list("ABCD"), "rank": [1, 2, 3, 4]})
    >>> ndcg_at_k(truth, recs, k=4).round(2).tolist()
    [0.83]
    """
    return per_user("ndcg", truth, recs, k, definitions, train=train, func="ndcg_at_k")


@constrained(k=POSITIVE_INT)
@takes_definitions
@fill_doc(PER_USER_DOCS)
def half_life_utility(
    truth: pd.DataFrame,
    recs: pd.DataFrame,
    *,
    k: int = 10,
    train: pd.DataFrame | None = None,
    definitions: Definitions | str | None = None,
    **options: object,
) -> pd.Series:
    """Breese's half-life utility, normalized per user by the best achievable utility.

    Parameters
    ----------
    %(truth_recs)s
    %(k)s
    %(train)s
    %(definitions)s
    **options
        The fields of :class:`evalkit.Definitions` this metric reads, overriding
        ``definitions``: ``neutral``, the neutral rating ``d`` (only ratings above it add
        utility; default 3.0), ``half_life``, ``alpha``, the rank with a 50% chance of being
        viewed (above 1; default 5.0), ``empty`` and ``ties``. The relevance threshold plays
        no part; other fields and unknown names raise.

    Returns
    -------
    MetricSeries
        Per-user ``R_u / R_u^max`` indexed by ``user_id``, with the counts and attributes of
        :class:`~evalkit.metrics.MetricSeries`.

    Raises
    ------
    %(raises)s

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
    return per_user("half_life_utility", truth, recs, k, definitions.replace(threshold=None),
                     train=train, func=func)
