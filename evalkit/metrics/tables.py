"""Summary tables that combine several metrics: the tie report, beyond-accuracy of a list,
classification across thresholds. Notebooks show them; the logic is tested here."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from .._checks import check_positive_int
from .._constraints import FRACTION, POSITIVE_INT, RESAMPLES, constrained
from ..definitions import resolve
from ._common import TIE_POLICIES, check_recs
from ._engine import check_metrics, run
from ._prepare import SharedTruth
from ._topk import sharing_training as sharing_training  # one training frame, many metrics
from ._topk import top_k
from .beyond import (
    average_recommended_popularity,
    catalog_coverage,
    exposure_entropy,
    exposure_gini,
    gini_index,
    intra_list_diversity,
    mean_pop_rank,
    novelty,
    personalization,
    serendipity,
    user_coverage,
)
from .classification import confusion

__all__ = ["LIST_BEYOND", "PER_USER_BEYOND", "beyond_accuracy", "beyond_intervals",
           "classification_by_threshold", "list_intervals", "tie_report"]

#: The beyond-accuracy metrics with a value per user, whose means get intervals.
PER_USER_BEYOND = ("novelty", "average_recommended_popularity", "mean_pop_rank",
                   "intra_list_diversity", "serendipity")
#: The beyond-accuracy metrics of the whole set of lists (:func:`list_intervals`).
LIST_BEYOND = ("catalog_coverage", "gini_index", "personalization", "exposure_entropy")


@constrained(k=POSITIVE_INT)
def tie_report(
    truth: pd.DataFrame,
    recs: pd.DataFrame,
    *,
    k: int = 10,
    metrics: Sequence[str] = ("precision", "recall", "map", "mrr", "ndcg"),
    threshold: float | None = 4.0,
    definitions: object = None,
) -> pd.DataFrame:
    """How much tied scores move the results: every metric at ``k`` under each tie policy.

    Parameters
    ----------
    truth, recs : pd.DataFrame
        As for :func:`evalkit.evaluate`; ties only exist when ``recs`` has ``score`` and no
        ``rank``.
    k : int, default 10
        Cutoff.
    metrics : sequence of str
        Ranking metric names (curve metrics: precision, recall, f1, hit_rate, map, mrr, ndcg).
    threshold : float or None, default 4.0
        Relevance threshold.
    definitions : Definitions or str, optional
        The other definitions (gain, discount, ...), as for :func:`evalkit.evaluate`;
        ``threshold`` and the tie policy override theirs.

    Returns
    -------
    pd.DataFrame
        One row per policy (``deterministic``, ``optimistic``, ``pessimistic``,
        ``expected``), one column per ``metric@k`` (mean over users, ``empty="drop"``), and
        ``tied_users``: users with a group of tied scores straddling ``k``.

    Notes
    -----
    ``optimistic`` and ``pessimistic`` bound what any tie-breaking could give; a wide gap
    means the ordering of tied items, not the model, decides the comparison.

    Examples
    --------
    >>> from evalkit.examples import tied_list_example
    >>> truth, recs = tied_list_example()
    >>> tie_report(truth, recs, k=2, metrics=["precision"])
                   precision@2  tied_users
    policy
    deterministic     0.500000           1
    optimistic        1.000000           1
    pessimistic       0.500000           1
    expected          0.666667           1
    """
    func = "tie_report"
    k = int(k)  # constrained
    names = check_metrics(metrics, func=func, ks=[k])
    # validated and coded once for the four passes
    shared = truth if isinstance(truth, SharedTruth) else SharedTruth(truth)
    first, *others = TIE_POLICIES
    used = resolve(definitions, func=func, threshold=threshold, ties=first, empty="drop")
    result = run(shared, recs, ks=[k], names=names, train=None, definitions=used,
                 curves=None, func=func, warn_ties=False, tie_users=True)
    tied_users = int(result.columns["tied_users"].max())  # from the scores: any policy
    rows = {first: _policy_row(result.values, tied_users)}
    moved = result.tie_users
    splice = moved is not None and bool(moved.any())
    if splice:
        # Only the users with tied scores in the top k can change with the policy: each
        # other policy is one pass over their truth and lists, spliced into the first pass.
        users = result.users[moved]
        where = result.values.index.get_indexer(users)
        sub_truth = shared.frame(used.threshold, func=func)
        sub_truth = sub_truth[sub_truth["user_id"].isin(users)]
        sub_recs = check_recs(recs, func=func, item_pairs=False, rank_pairs=False)
        sub_recs = sub_recs[sub_recs["user_id"].isin(users)]
    for policy in others:
        values = result.values
        if splice:
            used = resolve(definitions, func=func, threshold=threshold, ties=policy,
                           empty="drop")
            with warnings.catch_warnings():  # the first pass gave the inputs' warnings
                warnings.simplefilter("ignore")
                part = run(sub_truth, sub_recs, ks=[k], names=names, train=None,
                           definitions=used, curves=None, func=func, warn_ties=False)
            values = values.copy()
            values.iloc[where] = part.values.loc[users].to_numpy()
        rows[policy] = _policy_row(values, tied_users)
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "policy"
    return out


def _policy_row(values: pd.DataFrame, tied_users: int) -> dict[str, float]:
    """One row of :func:`tie_report`: each column's mean over the users it is defined for."""
    row: dict[str, float] = {column: float(np.nanmean(column_values))
                             if column_values.notna().any() else np.nan
                             for column, column_values in values.items()}
    row["tied_users"] = tied_users
    return row


def _cut_once(recs: pd.DataFrame, k: int, definitions: object, *, func: str) -> pd.DataFrame:
    """Each user's top ``k`` (tied scores in the definitions' ``tie_order``), cut once for
    every metric of a table, with one :class:`~evalkit.metrics.TieWarning` for the table's
    caller."""
    tie_order = resolve(definitions, func=func).tie_order
    return top_k(check_recs(recs, func=func), k=check_positive_int(k, func=func, arg="k"),
                 tie_order=tie_order, func=func)


def beyond_accuracy(
    truth: pd.DataFrame,
    recs: pd.DataFrame,
    *,
    train: pd.DataFrame,
    items: pd.DataFrame,
    k: int = 10,
    threshold: float = 4.0,
    definitions: object = None,
) -> pd.Series:
    """Every beyond-accuracy metric of one system's top-k lists.

    Parameters
    ----------
    truth : pd.DataFrame
        Test interactions (for user coverage and serendipity).
    recs : pd.DataFrame
        Recommendations.
    train : pd.DataFrame
        Training interactions: the catalog, item popularity and the most-popular baseline.
    items : pd.DataFrame
        ``item_id, genres`` for intra-list diversity.
    k : int, default 10
        Cutoff.
    threshold : float, default 4.0
        Relevance threshold of serendipity.
    definitions : Definitions or str, optional
        The beyond-accuracy definitions (``gini_scale``, ``diversity_norm``,
        ``novelty_norm``, ``popularity``, ``coverage_unit``), or a profile name.

    Returns
    -------
    pd.Series
        ``catalog_coverage``, ``user_coverage``, ``gini_index``, ``personalization``,
        ``exposure_entropy``, ``exposure_gini``, and the means over users of ``novelty``,
        ``average_recommended_popularity``, ``mean_pop_rank``, ``intra_list_diversity`` and
        ``serendipity``.
    """
    d = {"definitions": definitions}
    recs = _cut_once(recs, k, definitions, func="beyond_accuracy")
    with sharing_training(train):  # the training pairs, found once for every metric
        values = {
            "catalog_coverage": catalog_coverage(recs, k=k, catalog=train, **d),
            "user_coverage": user_coverage(truth, recs, k=k),
            "gini_index": gini_index(recs, k=k, catalog=train, **d),
            "personalization": personalization(recs, k=k),
            "exposure_entropy": exposure_entropy(recs, k=k),
            "exposure_gini": exposure_gini(recs, k=k, catalog=train),
            "novelty": novelty(recs, train, k=k, **d).mean(),
            "average_recommended_popularity":
                average_recommended_popularity(recs, train, k=k).mean(),
            "mean_pop_rank": mean_pop_rank(recs, train, k=k).mean(),
            "intra_list_diversity": intra_list_diversity(recs, items, k=k, **d).mean(),
            "serendipity": serendipity(truth, recs, train, k=k, threshold=threshold).mean(),
        }
    return pd.Series(values, name=f"@{k}", dtype=np.float64)


def beyond_intervals(
    truth: pd.DataFrame,
    recs: pd.DataFrame,
    *,
    train: pd.DataFrame,
    items: pd.DataFrame | None = None,
    k: int = 10,
    threshold: float | None = 4.0,
    definitions: object = None,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    rng: int | np.random.Generator | None = 0,
) -> pd.DataFrame:
    """The per-user beyond-accuracy metrics of one system's top-k lists, with bootstrap
    intervals of their means.

    Parameters
    ----------
    truth, recs, train, k, threshold, definitions
        As in :func:`beyond_accuracy`.
    items : pd.DataFrame, optional
        ``item_id, genres``; without it intra-list diversity is left out.
    confidence, n_resamples, rng
        As in :func:`evalkit.stats.bootstrap_ci_frame`.

    Returns
    -------
    pd.DataFrame
        One row per metric of :data:`PER_USER_BEYOND` (the mean over users, as
        :func:`beyond_accuracy` gives it): ``mean``, ``ci_low``, ``ci_high``, ``n`` (users) and
        ``n_missing``.

    Notes
    -----
    Every row is the mean of a per-user value over the users with a list, so its interval
    is the Poisson bootstrap over users of :func:`evalkit.stats.bootstrap_ci_frame` (one
    design for all rows, weights from the user ids). Catalog coverage, Gini, personalization
    and exposure entropy describe the whole set of lists, not a mean over users, and get no
    interval here.
    """
    from ..stats import bootstrap_ci_frame

    d = {"definitions": definitions}
    recs = _cut_once(recs, k, definitions, func="beyond_intervals")
    with sharing_training(train):  # the training pairs, found once for every metric
        columns = {
            "novelty": novelty(recs, train, k=k, **d),
            "average_recommended_popularity": average_recommended_popularity(recs, train,
                                                                             k=k),
            "mean_pop_rank": mean_pop_rank(recs, train, k=k),
            "intra_list_diversity": (None if items is None else
                                     intra_list_diversity(recs, items, k=k, **d)),
            "serendipity": serendipity(truth, recs, train, k=k, threshold=threshold),
        }
    frame = pd.DataFrame({name: values for name, values in columns.items()
                          if values is not None})
    return bootstrap_ci_frame(frame, confidence=confidence, n_resamples=n_resamples, rng=rng)


@constrained(k=POSITIVE_INT, confidence=FRACTION, n_resamples=RESAMPLES)
def list_intervals(
    recs: pd.DataFrame,
    *,
    train: pd.DataFrame,
    k: int = 10,
    definitions: object = None,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    rng: int | np.random.Generator | None = 0,
) -> pd.DataFrame:
    """The beyond-accuracy metrics of the whole set of top-k lists (catalog coverage, Gini
    index, personalization, exposure entropy), with a bootstrap interval where the bootstrap
    gives a sound one: personalization's.

    Parameters
    ----------
    recs, train, k, definitions
        As in :func:`beyond_accuracy` (``train`` is the catalog of coverage and Gini;
        ``coverage_unit`` and ``gini_scale`` come from ``definitions``).
    confidence, n_resamples, rng
        As in :func:`evalkit.stats.bootstrap_ci_frame`.

    Returns
    -------
    pd.DataFrame
        One row per metric of :data:`LIST_BEYOND`: ``mean`` (the metric of all the lists, as
        its function gives it), ``ci_low``, ``ci_high`` (NaN but for personalization), ``n``
        (users with a list) and ``n_missing`` (0).

    Notes
    -----
    Personalization is one minus the mean cosine similarity over the pairs of distinct
    users, a U-statistic, and its interval is the bootstrap of one: replicate b gives user u
    the weight ``w_ub ~ Poisson(1)`` of :func:`evalkit.stats.bootstrap_ci_frame` (the same
    design, from the user ids) and averages the similarities of the pairs of distinct users
    with the weights ``w_ub w_vb``, ``1 - sum_{u != v} w_u w_v s_uv / sum_{u != v} w_u w_v``
    (with every weight 1, the metric itself), from the items' weighted sums, in time linear
    in the lists. The interval is the percentile interval of the replicates (those with
    fewer than two users left out).

    Coverage, Gini and entropy count or weigh the distinct items shown, and a resample,
    which repeats some users and leaves out others, shows fewer distinct items than the
    users it stands for: their percentile intervals sit below the value itself (on 300
    top-10 lists from a long-tailed catalog of 2,000 items, coverage 0.556 got [0.40,
    0.45]), so they get none here.

    Examples
    --------
    >>> train = pd.DataFrame({"user_id": 1, "item_id": range(10)})
    >>> recs = pd.DataFrame({"user_id": [1, 1, 2, 2, 3, 3], "item_id": [0, 1, 0, 2, 3, 4],
    ...                      "rank": [1, 2] * 3})
    >>> table = list_intervals(recs, train=train, k=2)
    >>> table[["mean", "n"]]  # personalization: pairs (1, 2), (1, 3), (2, 3) share 1/2, 0, 0
                          mean  n
    catalog_coverage  0.500000  3
    gini_index        0.566667  3
    personalization   0.833333  3
    exposure_entropy  2.251629  3
    """
    from .._resample import CHUNK_USERS, design_key, poisson_weights, user_streams
    from ..stats import percentile_interval

    func = "list_intervals"
    confidence, n_resamples = float(confidence), int(n_resamples)  # constrained
    d = {"definitions": definitions}
    top = _cut_once(recs, k, definitions, func=func)
    point = {
        "catalog_coverage": catalog_coverage(top, k=k, catalog=train, **d),
        "gini_index": gini_index(top, k=k, catalog=train, **d),
        "personalization": personalization(top, k=k),
        "exposure_entropy": exposure_entropy(top, k=k),
    }
    user_code, users = pd.factorize(top["user_id"])
    item_code, items = pd.factorize(top["item_id"])
    low = pd.Series(np.nan, index=list(LIST_BEYOND))
    high = low.copy()
    if n_resamples and len(users) >= 2:
        streams, key = user_streams(users), design_key(rng)
        chunks = ((u0, poisson_weights(streams[u0:u0 + CHUNK_USERS], key, n_resamples))
                  for u0 in range(0, len(users), CHUNK_USERS))  # weights of 16,384 users
        replicates = _personalization_replicates(user_code, item_code, len(items), chunks)
        bounds = percentile_interval(replicates[:, None], confidence)
        low["personalization"], high["personalization"] = (float(b[0]) for b in bounds)
    return pd.DataFrame({"mean": pd.Series(point, dtype=float), "ci_low": low, "ci_high": high,
                         "n": np.int64(len(users)), "n_missing": np.int64(0)},
                        index=list(LIST_BEYOND))


def _personalization_replicates(user_code: np.ndarray, item_code: np.ndarray, n_items: int,
                                chunks: Iterable[tuple[int, np.ndarray]]) -> np.ndarray:
    """Personalization in each bootstrap replicate, over the pairs of distinct users (see
    :func:`list_intervals`), from the top-k rows' user and item codes and the weights of
    consecutive users ``(first user code, (users x B) weights)``, taken chunk by chunk so
    that memory stays items x B; NaN where fewer than two users have weight."""
    from scipy import sparse

    n_users = int(user_code.max()) + 1 if user_code.size else 0
    sizes = np.bincount(user_code, minlength=n_users).astype(np.float64)
    # a_ib = sum_u w_ub x_ui / sqrt(s_u): sum_i a_ib^2 = sum_{u, v} w_u w_v cos(u, v)
    scaled = sparse.csc_matrix((1.0 / np.sqrt(sizes[user_code]), (item_code, user_code)),
                               shape=(n_items, n_users))
    cosine = total = squares = 0.0
    for u0, weights in chunks:  # one step per chunk of users
        part = weights.astype(np.float64)
        cosine = cosine + scaled[:, u0:u0 + len(part)] @ part
        total = total + part.sum(axis=0)
        squares = squares + np.einsum("ub,ub->b", part, part)  # u = v: cos 1
    cosine = np.asarray(cosine)
    n_resamples = cosine.shape[1]
    pairs = total * total - squares
    similar = (cosine * cosine).sum(axis=0) - squares
    mean = np.full(n_resamples, np.nan)
    np.divide(similar, pairs, out=mean, where=pairs > 0)
    return np.clip(1.0 - mean, 0.0, 1.0)


def classification_by_threshold(
    truth: pd.DataFrame,
    predictions: pd.DataFrame,
    *,
    thresholds: Iterable[float] = (3.0, 3.5, 4.0, 4.5),
) -> pd.DataFrame:
    """Confusion counts, precision, recall and F1 at several relevance thresholds.

    The prediction cutoff equals the threshold at each row (an item is predicted relevant when
    its predicted rating reaches the threshold).

    Examples
    --------
    >>> from evalkit.examples import classification_example
    >>> truth, predictions = classification_example()
    >>> classification_by_threshold(truth, predictions, thresholds=[4.0]).round(3)
               TP  FP  FN  TN  precision  recall     f1
    threshold
    4.0         5   1   3   1      0.833   0.625  0.714
    """
    rows = {}
    for t in thresholds:  # a handful of thresholds, each a vectorized count
        counts = confusion(truth, predictions, threshold=float(t))
        tp, fp, fn = (int(counts[c]) for c in ("TP", "FP", "FN"))
        with np.errstate(divide="ignore", invalid="ignore"):
            p = tp / (tp + fp) if tp + fp else np.nan
            r = tp / (tp + fn) if tp + fn else np.nan
            f = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else np.nan
        rows[float(t)] = {**{c: int(counts[c]) for c in ("TP", "FP", "FN", "TN")},
                          "precision": p, "recall": r, "f1": f}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "threshold"
    return out
