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

from collections.abc import Callable

import pandas as pd

from .._checks import (
    as_dataframe,
    check_columns,
    check_item_pairs,
    check_positive_int,
    check_rank_pairs,
)
from ..definitions import Definitions, resolve, takes_definitions
from ._common import (
    check_id_dtypes,
    check_recs,
    check_truth,
    finish_per_user,
    warn_id_formats,
    warn_ties,
)
from ._curves import RankingCurves
from ._hits import HitTable, TruthSide, build_hits, truth_side
from ._spec import from_hits, hits_of

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


def make_definitions(func: str, definitions: object = None, **options: object) -> Definitions:
    """The :class:`~evalkit.Definitions` of a call, validated once (see
    :func:`evalkit.definitions.resolve`)."""
    return resolve(definitions, func=func, **options)


class SharedTruth:
    """One test truth for several lists (the systems of :func:`evalkit.compare`): validated
    once per relevance mode and coded once (:class:`._hits.TruthSide`), then joined to each
    list. :func:`prepare` (so :func:`evalkit.evaluate`) takes it in place of the frame."""

    def __init__(self, truth: object) -> None:
        self.raw = truth
        self._frames: dict[bool, pd.DataFrame] = {}
        self._sides: dict[bool, TruthSide] = {}

    def frame(self, threshold: float | None, *, func: str) -> pd.DataFrame:
        """The validated frame (implicit data gets its ratings only with ``threshold=None``)."""
        implicit = threshold is None
        if implicit not in self._frames:
            self._frames[implicit] = check_truth(self.raw, func=func, threshold=threshold)
        return self._frames[implicit]

    def side(self, threshold: float | None) -> TruthSide:
        """The coded truth of :meth:`frame` (call that first)."""
        implicit = threshold is None
        if implicit not in self._sides:
            self._sides[implicit] = truth_side(self._frames[implicit])
        return self._sides[implicit]


def prepare(
    truth: object, recs: object, definitions: Definitions, *, func: str,
    train: object = None,
) -> HitTable:
    """Validate ``truth`` (a frame or a :class:`SharedTruth`) and ``recs`` and build their hit
    table under ``definitions``.

    ``unknown_items="drop"`` removes the test items absent from ``train`` and
    ``relevant_set="listed"`` those absent from the user's list; the users stay (a user left
    with no test item is undefined wherever a metric needs one, see ``empty``).
    """
    shared = truth if isinstance(truth, SharedTruth) else None
    truth = shared.frame(definitions.threshold, func=func) if shared is not None else \
        check_truth(truth, func=func, threshold=definitions.threshold)
    # the hit table finds repeated ranks (their order) and items (the join)
    recs = check_recs(recs, func=func, item_pairs=False, rank_pairs=False)
    check_id_dtypes(truth, recs, func=func)
    warn_id_formats(truth, recs, func=func)
    users = None
    if definitions.unknown_items == "drop":
        if train is None:
            raise ValueError(
                f"{func}: unknown_items='drop' removes the test items never seen in training, "
                "so it needs the training interactions: pass train= (--train on the command "
                "line)."
            )
        train = check_columns(as_dataframe(train), func=func, arg="train",
                              required=["item_id"])
        users = truth["user_id"].unique()
        truth = truth[truth["item_id"].isin(train["item_id"].unique())]
    if definitions.relevant_set == "listed":
        users = truth["user_id"].unique() if users is None else users
        listed = pd.MultiIndex.from_frame(recs[["user_id", "item_id"]])
        truth = truth[pd.MultiIndex.from_frame(truth[["user_id", "item_id"]]).isin(listed)]
    if shared is not None and users is None:  # the truth as validated: coded once
        truth = shared.side(definitions.threshold)
    table = build_hits(truth, recs, threshold=definitions.threshold, ties=definitions.ties,
                       tie_order=definitions.tie_order, users=users)
    if table.repeats_rank:
        check_rank_pairs(recs, func=func)  # raises, naming the first repeated rank
    if table.repeats_item:
        check_item_pairs(recs, func=func)  # raises, naming the first repeated pair
    return table


def tie_check(table: HitTable, k: int, definitions: Definitions, *, func: str) -> int:
    """Count (and warn about) users whose tied scores straddle ``k``."""
    n = table.n_straddling(k)
    if definitions.ties != "expected":
        warn_ties(n, k, func=func)
    return n


def hits_function(metric: object) -> Callable:
    """The public per-user function of a metric declared with ``per_user`` (computed from
    each user's :class:`~evalkit.metrics.Hits`), accepting the fields it reads."""
    name = metric.name  # type: ignore[attr-defined]

    def function(truth: pd.DataFrame, recs: pd.DataFrame, *, k: int = 10,
                 train: pd.DataFrame | None = None,
                 definitions: Definitions | str | None = None, **options: object) -> pd.Series:
        k = check_positive_int(k, func=name, arg="k")
        table = prepare(truth, recs, definitions, func=name, train=train)
        n_tied = tie_check(table, k, definitions, func=name)
        values, undefined = from_hits(metric, hits_of(table, k, definitions, metric=name,
                                                      func=name), func=name)
        return finish_per_user(
            values, table.users, name=name, undefined=undefined, empty=definitions.empty,
            extra_counts={"recs_only": table.n_recs_only} if table.n_recs_only else None,
            k=k, definitions=definitions, tied_users=n_tied,
            users_without_recs=table.n_without_recs)

    function.__name__ = function.__qualname__ = name
    function.__module__ = "evalkit.metrics"
    label = metric.long_label  # type: ignore[attr-defined]
    formula = metric.formula  # type: ignore[attr-defined]
    function.__doc__ = f"""{label} at k, per user (``evalkit.metrics.Metric`` {name!r}).

    Parameters
    ----------
    truth, recs, k, train, definitions
        As for :func:`evalkit.metrics.precision_at_k`.
    **options
        The fields of :class:`evalkit.Definitions` this metric reads:
        {", ".join(metric.reads) or "none"}.

    Returns
    -------
    MetricSeries
        Per-user values indexed by ``user_id``.

    Notes
    -----
    {formula}
    """
    return takes_definitions(function, reads=metric.reads)  # type: ignore[attr-defined]


def _per_user(
    name: str,
    truth: object,
    recs: object,
    k: object,
    definitions: Definitions,
    *,
    train: object,
    func: str,
) -> pd.Series:
    k = check_positive_int(k, func=func, arg="k")
    table = prepare(truth, recs, definitions, func=func, train=train)
    n_tied = tie_check(table, k, definitions, func=func)
    curves = RankingCurves(table, k, definitions)
    if name in ("dcg", "ndcg"):
        curves.check_gains(func=func)
    values, undefined = curves.at(name, [k])
    series = finish_per_user(
        values[:, 0],
        table.users,
        name=name,
        undefined=None if undefined is None else undefined[:, 0],
        empty=definitions.empty,
        extra_counts={"recs_only": table.n_recs_only} if table.n_recs_only else None,
        k=k, definitions=definitions, tied_users=n_tied,
        users_without_recs=table.n_without_recs,
    )
    return series


@takes_definitions
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
    truth : pd.DataFrame
        Test interactions: ``user_id, item_id, rating``. Every user here is evaluated.
    recs : pd.DataFrame
        Recommendations: ``user_id, item_id`` and ``rank`` (1-based) and/or ``score``.
    k : int
        Cutoff: only the top ``k`` positions count.
    train : pd.DataFrame, optional
        Training interactions; needed only by ``unknown_items="drop"``.
    definitions : Definitions or str, optional
        The definitions (:class:`evalkit.Definitions`) or a profile name (``"trec_eval"``,
        ``"lenskit"``, ... see :data:`evalkit.PROFILES`); default: evalkit's.
    **options
        The fields of :class:`evalkit.Definitions` this metric reads (``threshold``, ``empty``,
        ``ties``, ...; the metric's card lists them: ``evalkit.metrics.definition_cards()``),
        overriding ``definitions``. Other fields and unknown names raise.

    Returns
    -------
    MetricSeries
        Per-user values indexed by ``user_id``, with ``dropped``, ``n_users``, ``k``,
        ``definitions``, ``tied_users`` and ``users_without_recs`` (see the module's notes).

    Raises
    ------
    ValueError, TypeError
        For missing columns, NaN or infinite scores, duplicate pairs or ranks, mismatched id
        types, ``k`` that is not a positive integer, or an unknown option. A field of
        :class:`evalkit.Definitions` the metric does not read raises
        :class:`evalkit.InvalidParameterError`, a subclass of both.

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
    return _per_user("precision", truth, recs, k, definitions, train=train, func="precision_at_k")


@takes_definitions
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
    truth, recs, k, train, definitions, **options
        As for :func:`precision_at_k`.

    Returns
    -------
    MetricSeries
        Per-user values indexed by ``user_id``; see :func:`precision_at_k`.

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
    return _per_user("recall", truth, recs, k, definitions, train=train, func="recall_at_k")


@takes_definitions
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
    truth, recs, k, train, definitions, **options
        As for :func:`precision_at_k`.

    Returns
    -------
    MetricSeries
        Per-user values indexed by ``user_id``; see :func:`precision_at_k`.

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
    return _per_user("f1", truth, recs, k, definitions, train=train, func="f1_at_k")


@takes_definitions
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
    truth, recs, k, train, definitions, **options
        As for :func:`precision_at_k`.

    Returns
    -------
    MetricSeries
        Per-user values indexed by ``user_id``; see :func:`precision_at_k`.

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
    return _per_user("hit_rate", truth, recs, k, definitions, train=train, func="hit_rate_at_k")


@takes_definitions
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
    truth, recs, k, train, definitions, **options
        As for :func:`precision_at_k`.

    Returns
    -------
    MetricSeries
        Per-user values indexed by ``user_id``; see :func:`precision_at_k`.

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
    return _per_user("map", truth, recs, k, definitions, train=train, func="average_precision_at_k")


@takes_definitions
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
    truth, recs, k, train, definitions, **options
        As for :func:`precision_at_k`.

    Returns
    -------
    MetricSeries
        Per-user values indexed by ``user_id``; see :func:`precision_at_k`.

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
    return _per_user("mrr", truth, recs, k, definitions, train=train, func="reciprocal_rank_at_k")


@takes_definitions
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
    truth, recs, train, definitions, **options
        As for :func:`precision_at_k`.

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
    func = "r_precision"
    table = prepare(truth, recs, definitions, func=func, train=train)
    values, undefined = RankingCurves(table, 1, definitions).r_precision()
    series = finish_per_user(
        values, table.users, name="r_precision", undefined=undefined, empty=definitions.empty,
        extra_counts={"recs_only": table.n_recs_only} if table.n_recs_only else None,
        definitions=definitions,
    )
    return series


@takes_definitions
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
    truth, recs, k, train, definitions, **options
        As for :func:`precision_at_k`.

    Returns
    -------
    MetricSeries
        Per-user values indexed by ``user_id``; see :func:`precision_at_k`.

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
    return _per_user("r_precision_at_k", truth, recs, k, definitions, train=train,
                     func="r_precision_at_k")


@takes_definitions
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
    truth, recs, k, train, definitions, **options
        As for :func:`precision_at_k`.

    Returns
    -------
    MetricSeries
        Per-user values indexed by ``user_id``; see :func:`precision_at_k`.

    Notes
    -----
    ``DCG@k = sum_{i<=k} gain_i / disc(i)``. Always defined. ``gain``: a test item's rating
    (``"linear"``), ``2**rating - 1`` or 1 if relevant (``"binary"``); with
    ``gain_scope="relevant"`` only relevant items have a rating-valued gain. Items outside the
    user's test set gain 0. ``discount``: ``log_b(i + 1)``, or Breese's ``max(1, log_b(i))``
    that leaves the first ``b = log_base`` ranks undiscounted.

    Examples
    --------
    Seed 002 (Ekstrand), gains 4, 3, 0, 5 with Breese's discount, base 2:

    >>> truth = pd.DataFrame({"user_id": 1, "item_id": list("ABD"), "rating": [4.0, 3.0, 5.0]})
    >>> recs = pd.DataFrame({"user_id": 1, "item_id": list("ABCD"), "rank": [1, 2, 3, 4]})
    >>> dcg_at_k(truth, recs, k=4, discount="breese").tolist()
    [9.5]
    """
    return _per_user("dcg", truth, recs, k, definitions, train=train, func="dcg_at_k")


@takes_definitions
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
    truth, recs, k, train, definitions, **options
        As for :func:`precision_at_k`.

    Returns
    -------
    MetricSeries
        Per-user values indexed by ``user_id``; see :func:`precision_at_k`.

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
    Seed 003: gains 2, 0, 3, 2, ideal 3, 2, 2, 0:

    >>> truth = pd.DataFrame({"user_id": 1, "item_id": list("ACD"), "rating": [2.0, 3.0, 2.0]})
    >>> recs = pd.DataFrame({"user_id": 1, "item_id": list("ABCD"), "rank": [1, 2, 3, 4]})
    >>> ndcg_at_k(truth, recs, k=4).round(2).tolist()
    [0.83]
    """
    return _per_user("ndcg", truth, recs, k, definitions, train=train, func="ndcg_at_k")


@takes_definitions
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
    truth, recs, k, train, definitions, **options
        As for :func:`precision_at_k`. The definitions that matter: ``neutral``, the neutral
        rating ``d`` (only ratings above it add utility; default 3.0), ``half_life``, ``alpha``,
        the rank with a 50% chance of being viewed (above 1; default 5.0), ``empty`` and
        ``ties``. The relevance threshold plays no part.

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
    return _per_user("half_life_utility", truth, recs, k, definitions.replace(threshold=None),
                     train=train, func=func)
