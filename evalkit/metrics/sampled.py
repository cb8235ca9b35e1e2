"""Sampled-candidate evaluation, and its correction.

Many papers rank each held-out item against a few sampled negatives (100 is common: RecBole's
``uni100`` and ``pop100``) instead of the whole catalogue. The number they report, the
*sampled* metric, estimates something else than the metric over the full ranking, and the
order of two systems can differ between the two (Krichene and Rendle, KDD 2020). This module
draws the candidates (:func:`sample_negatives`), ranks each held-out item among them
(:func:`sampled_ranks`), gives the naive number (:func:`sampled_metric`) and estimates the
full-ranking metric from the sampled ranks (:func:`corrected_metric`), with intervals from the
user bootstrap.

The model (Krichene and Rendle, *On Sampled Metrics for Item Recommendation*, KDD 2020). A
held-out item has true rank ``r`` among ``n`` candidates (itself and the ``n - 1`` items it
could be ranked against) and sampled rank ``r~`` among ``m`` sampled negatives. Drawn with
replacement, ``r~ - 1 ~ Binomial(m, (r - 1) / (n - 1))``; without replacement, hypergeometric:
``P(r~ - 1 = j | r) = C(r-1, j) C(n-r, m-j) / C(n-1, m)``. A metric of one relevant item at
rank ``r``, ``M(r)``, comes from the metric's declaration (:attr:`Metric.per_rank
<evalkit.metrics.Metric>`): HR@k = [r <= k], NDCG@k = [r <= k] / log2(r + 1), RR = 1 / r, ...
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import scipy.special
import scipy.stats

from .._canonical import in_canonical_order
from .._checks import (
    check_choice,
    check_columns,
    check_fraction,
    check_ids,
    check_positive_int,
    check_resamples,
    check_rng,
    warn,
)
from .._resample import design_key, poisson_weights, quantile_interval, user_streams
from ._kernels import in_sorted_rows
from ._registry import RANKING_METRICS, get_metric
from ._result import MetricSeries, metric_series

__all__ = ["SCHEMES", "ESTIMATORS", "CorrectedMetric", "SamplingComparison", "compare_sampling",
           "corrected_metric", "sample_negatives", "sampled_lists", "sampled_metric",
           "sampled_ranks", "sampling_matrix"]

#: How negatives are drawn: uniformly from the items the user has not interacted with, or in
#: proportion to their training popularity (RecBole's ``uni`` and ``pop`` samplers).
SCHEMES = ("uniform", "popularity")

#: The estimators of :func:`corrected_metric`.
ESTIMATORS = ("em", "bv", "cls", "ht")

#: Candidate columns written by :func:`sample_negatives`.
CANDIDATE_COLUMNS = ["user_id", "item_id", "positive", "group", "probability", "n_negatives",
                     "n_possible", "replace"]


# --------------------------------------------------------------------------- sampling


def sample_negatives(
    truth: pd.DataFrame,
    train: pd.DataFrame | None,
    *,
    n_negatives: int | str = 100,
    scheme: str = "uniform",
    per: str = "positive",
    catalog: object = None,
    exclude_seen: bool = True,
    replace: bool = True,
    rng: int | np.random.Generator | None = 0,
) -> pd.DataFrame:
    """Sampled candidates: each held-out item with negatives drawn to rank it against.

    Parameters
    ----------
    truth : pd.DataFrame
        The held-out interactions (``user_id``, ``item_id``): each row is a positive.
    train : pd.DataFrame or None
        Training interactions: the items a user has seen are never negatives
        (``exclude_seen``), and the popularity scheme draws in proportion to each item's
        training interactions.
    n_negatives : int or "all", default 100
        Negatives drawn per positive (``per="positive"``) or per user (``per="user"``);
        ``"all"`` takes every item the user could be ranked against, which makes the
        full ranking a special case.
    scheme : {"uniform", "popularity"}, default "uniform"
        Every allowed item equally likely, or in proportion to its training interactions
        (an item without one is never drawn).
    per : {"positive", "user"}, default "positive"
        Draw each positive its own negatives (leave-one-out protocols), or pool them per
        user: ``n_negatives`` for each of the user's positives, one set that every positive
        of the user is ranked against (RecBole's evaluation with several test items per
        user).
    catalog : array-like, optional
        The items to draw from; default: every item of ``train`` and ``truth``.
    exclude_seen : bool, default True
        Leave out the user's training items. The user's held-out items are never negatives.
    replace : bool, default True
        Draw with replacement (a negative may appear twice; RecBole's samplers do this), so
        that sampled ranks follow the binomial model, or without (hypergeometric; only with
        ``scheme="uniform"``).
    rng : int, Generator or None, default 0
        Seed of the draws.

    Returns
    -------
    pd.DataFrame
        One row per candidate: ``user_id``, ``item_id``, ``positive`` (True for the held-out
        item), ``group`` (the candidates a positive is ranked among), ``probability`` (the
        chance of drawing this negative in one draw; NaN for positives), ``n_negatives`` (m,
        drawn per group), ``n_possible`` (the items the group's positives could be ranked
        against, n - 1) and ``replace``. Positives come first in each group. Written to a file
        (``evalkit sample-candidates``), it is what an analyst scores with their own model.

    Notes
    -----
    RecBole's ``uni100`` is ``sample_negatives(test, train, n_negatives=100,
    scheme="uniform", per="user", replace=True)``: 100 items for each held-out item, drawn
    uniformly with replacement from those the user has not interacted with, pooled per user
    (its ``NegSampleEvalDataLoader``: one candidate list per user, the positives and all their
    negatives); ``pop100`` is the same with ``scheme="popularity"`` (RecBole draws in
    proportion to interaction counts, evalkit to the training data's). With one held-out item
    per user (leave-one-out) ``per`` makes no difference. :func:`sampled_lists` gives the
    candidate lists ranked, for evalkit's metrics over them as RecBole computes its own.
    RecBole never draws a user's validation items and draws from every item of its data
    files: to reproduce it, include the validation rows in ``train`` and pass that item set
    as ``catalog`` (``tests/references/recbole.py`` checks evalkit against RecBole 1.2.1
    itself this way).

    Draws that hit an excluded item are drawn again, so each draw is from the allowed items
    only, with probability ``w_i / W`` (``w_i`` = 1, or the item's training interactions;
    ``W`` their sum over allowed items).
    """
    func = "sample_negatives"
    check_rng(rng, func=func)
    scheme = check_choice(scheme, func=func, arg="scheme", choices=SCHEMES)
    per = check_choice(per, func=func, arg="per", choices=("positive", "user"))
    for name, value in (("exclude_seen", exclude_seen), ("replace", replace)):
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{func}: '{name}' must be True or False; got {value!r}.")
    take_all = isinstance(n_negatives, str)
    if take_all and n_negatives != "all":
        raise ValueError(f"{func}: 'n_negatives' must be a positive integer or 'all'; got "
                         f"{n_negatives!r}.")
    if not take_all:
        n_negatives = check_positive_int(n_negatives, func=func, arg="n_negatives")
    if scheme == "popularity" and not replace:
        raise ValueError(f"{func}: scheme='popularity' draws with replacement (each draw's "
                         "probability is the item's share of the allowed popularity); "
                         "pass replace=True.")
    check_columns(truth, func=func, arg="truth", required=["user_id", "item_id"])
    check_ids(truth, func=func, arg="truth")
    if len(truth) == 0:
        raise ValueError(f"{func}: 'truth' must hold at least one interaction; got 0 rows.")
    if train is None:
        if scheme == "popularity":
            raise ValueError(f"{func}: scheme='popularity' needs 'train' (the popularity of "
                             "each item).")
        train = truth.iloc[:0][["user_id", "item_id"]]
    check_columns(train, func=func, arg="train", required=["user_id", "item_id"])
    check_ids(train, func=func, arg="train")
    # the positives in the order of their ids, so that the draws of each go to the same
    # positive whatever the row order of truth
    positives = in_canonical_order(truth[["user_id", "item_id"]].drop_duplicates()
                                   ).reset_index(drop=True)

    items = pd.Index(pd.unique(np.concatenate([train["item_id"].to_numpy(),
                                               positives["item_id"].to_numpy()])))
    if catalog is not None:
        items = pd.Index(pd.unique(np.asarray(catalog)))
        if len(items) == 0:
            raise ValueError(f"{func}: 'catalog' is empty.")
    items = items.sort_values()
    n_items = len(items)
    users = pd.Index(pd.unique(positives["user_id"])).sort_values()
    pos_user = users.get_indexer(positives["user_id"])
    pos_item = items.get_indexer(positives["item_id"])  # -1: outside the catalog

    # excluded (user, item) pairs as sorted keys: every positive, and the training items
    known = train[train["user_id"].isin(users)]
    ex_user = np.concatenate([pos_user, users.get_indexer(known["user_id"])])
    ex_item = np.concatenate([pos_item, items.get_indexer(known["item_id"])])
    if not exclude_seen:
        ex_user, ex_item = pos_user, pos_item
    inside = ex_item >= 0
    excluded = _sorted_unique(ex_user[inside].astype(np.int64) * n_items + ex_item[inside])

    if scheme == "uniform":
        weight = np.ones(n_items)
    else:
        counts = train["item_id"].value_counts()
        weight = counts.reindex(items).fillna(0.0).to_numpy(np.float64)
    ex_u = excluded // n_items
    ex_i = excluded % n_items  # each user's excluded items, sorted: rows of a CSR table
    n_excluded = np.bincount(ex_u, minlength=len(users))
    offsets = np.zeros(len(users) + 1, np.int64)
    np.cumsum(n_excluded, out=offsets[1:])
    if scheme == "uniform":  # every weight 1: the sums below are the counts
        blocked_weight = blocked_count = n_excluded.astype(np.float64)
    else:
        blocked_weight = np.bincount(ex_u, weights=weight[ex_i], minlength=len(users))
        blocked_count = np.bincount(ex_u, weights=(weight[ex_i] > 0).astype(float),
                                    minlength=len(users))
    allowed_weight = weight.sum() - blocked_weight
    allowed_count = np.count_nonzero(weight > 0) - blocked_count  # items that can be drawn
    n_possible_user = (n_items - n_excluded).astype(np.int64)

    if per == "positive":
        group_user = pos_user
    else:
        group_user = np.arange(len(users))
    n_groups = len(group_user)
    generator = np.random.default_rng(rng)
    if take_all:
        neg_group, neg_item = _every_allowed(group_user, offsets, ex_i, n_items)
        m = n_possible_user[group_user]
    else:
        # per user: n_negatives for each of the user's positives, pooled (RecBole)
        m = np.full(n_groups, n_negatives, dtype=np.int64) if per == "positive" else \
            n_negatives * np.bincount(pos_user, minlength=n_groups).astype(np.int64)
        short = allowed_count[group_user] < (1 if replace else m)
        if short.any():
            raise ValueError(
                f"{func}: {int(short.sum())} of {n_groups} groups have "
                f"{'no item' if replace else 'fewer items than the draws'} to draw "
                f"(the fewest: {int(allowed_count[group_user].min())}); use a smaller "
                "n_negatives, replace=True, or a larger catalog.")
        neg_group, neg_item = _draw(group_user, offsets, ex_i, n_items, weight, m, replace,
                                    generator)
    # each group's positives, then its negatives (both already in group order: merged by
    # position, each column written once in its final order; what is one value per group is
    # repeated over the group's rows, which come in group order)
    pos_group = np.arange(n_groups) if per == "positive" else pos_user
    pos_order = np.argsort(pos_group, kind="stable")
    sorted_pos = pos_group[pos_order]
    n_pos = np.bincount(sorted_pos, minlength=n_groups)
    n_neg = np.bincount(neg_group, minlength=n_groups) if take_all else m
    at_pos = np.arange(len(sorted_pos)) + np.searchsorted(neg_group, sorted_pos, side="left")
    # a negative of group g follows every positive of the groups up to g
    at_neg = np.arange(len(neg_group)) + np.cumsum(n_pos)[neg_group]
    size = len(pos_group) + len(neg_group)
    rows = n_pos + n_neg  # each group's rows

    def column(for_positives: np.ndarray, for_negatives: np.ndarray) -> np.ndarray:
        out = np.empty(size, dtype=np.result_type(for_positives, for_negatives))
        out[at_pos] = for_positives[pos_order]
        out[at_neg] = for_negatives
        return out

    if take_all:  # each allowed item once
        probability = 1.0 / np.repeat(n_possible_user[group_user], n_neg)
    else:
        drawn = 1.0 if scheme == "uniform" else weight[neg_item]
        probability = drawn / np.repeat(allowed_weight[group_user], n_neg)
    positive = np.zeros(size, bool)
    positive[at_pos] = True
    frame = pd.DataFrame({
        "user_id": np.repeat(users.to_numpy()[group_user], rows),
        "item_id": column(positives["item_id"].to_numpy(), items.to_numpy()[neg_item]),
        "positive": positive,
        "group": np.repeat(np.arange(n_groups, dtype=np.int64), rows),
        "probability": column(np.full(len(pos_user), np.nan), probability),
        "n_negatives": np.repeat(m, rows),
        "n_possible": np.repeat(n_possible_user[group_user], rows),
        "replace": np.full(size, bool(replace) and not take_all),
    }, copy=False)  # the columns are this call's own arrays: kept as they are, not copied
    return frame


def _sorted_unique(keys: np.ndarray) -> np.ndarray:
    """The distinct keys, sorted (one sort; faster here than ``np.unique``; the stable sort
    runs 3 times faster on keys that come in runs, as training data grouped by user does)."""
    keys = np.sort(keys, kind="stable")
    if len(keys) == 0:
        return keys
    return keys[np.r_[True, keys[1:] != keys[:-1]]]


def _every_allowed(group_user: np.ndarray, offsets: np.ndarray, excluded: np.ndarray,
                   n_items: int) -> tuple[np.ndarray, np.ndarray]:
    """Every (group, item) pair whose item the group's user may be ranked against
    (``excluded[offsets[u]:offsets[u + 1]]``: user u's excluded items, sorted)."""
    n = len(group_user)
    group = np.repeat(np.arange(n, dtype=np.int64), n_items)
    item = np.tile(np.arange(n_items, dtype=np.int64), n)
    keep = ~in_sorted_rows(group, group_user.astype(np.int64), item, offsets, excluded)
    return group[keep], item[keep]


def _draw(group_user: np.ndarray, offsets: np.ndarray, excluded: np.ndarray, n_items: int,
          weight: np.ndarray, m: np.ndarray, replace: bool, generator: np.random.Generator
          ) -> tuple[np.ndarray, np.ndarray]:
    """``m[g]`` draws for group g from the allowed items (rejection: a draw that hits one of
    the user's excluded items, ``excluded[offsets[u]:offsets[u + 1]]``, or without
    replacement an item already drawn for the group, is drawn again)."""
    n = len(group_user)
    group = np.repeat(np.arange(n, dtype=np.int64), m)
    group_user = group_user.astype(np.int64)
    cumulative = np.cumsum(weight) / weight.sum()
    cumulative[-1] = 1.0
    uniform = bool(np.all(weight == weight[0]))

    def draw(size: int) -> np.ndarray:
        if uniform:
            return generator.integers(0, n_items, size)
        return np.minimum(np.searchsorted(cumulative, generator.random(size), side="right"),
                          n_items - 1)

    item = draw(len(group))
    todo = None  # None: every draw
    while todo is None or len(todo):  # each round redraws the rejected draws only
        if todo is None:
            rejected = in_sorted_rows(group, group_user, item, offsets, excluded)
        else:
            rejected = np.zeros(len(group), bool)
            rejected[todo] = in_sorted_rows(group[todo], group_user, item[todo], offsets,
                                            excluded)
        if not replace:  # a later draw of an item its group already holds is drawn again
            pairs = group * n_items + item
            first = np.zeros(len(group), bool)
            first[np.unique(pairs, return_index=True)[1]] = True
            rejected |= ~first
        todo = np.flatnonzero(rejected)
        item[todo] = draw(len(todo))
    return group, item


# --------------------------------------------------------------------------- ranks


def sampled_ranks(scores: pd.DataFrame, candidates: pd.DataFrame | None = None, *,
                  ties: str = "pessimistic", train: pd.DataFrame | None = None,
                  catalog: object = None) -> pd.DataFrame:
    """Each positive's rank among its sampled candidates.

    Parameters
    ----------
    scores : pd.DataFrame
        ``user_id``, ``item_id``, ``score`` for (at least) every candidate pair (a model's
        ``score(candidates)``, or the analyst's scored candidates file); when it is the
        candidates frame itself with a ``score`` column, ``candidates`` may be left out.
    candidates : pd.DataFrame, optional
        :func:`sample_negatives`' frame.
    ties : {"pessimistic", "optimistic"}, default "pessimistic"
        A negative scored equal to the positive ranks above it (pessimistic) or below it.
    train : pd.DataFrame, optional
        The training interactions the candidates were drawn without (``user_id``,
        ``item_id``). Given with a ``scores`` table that covers every item a user's positives
        could be ranked against (a model's scores for its whole catalogue), each positive's
        rank among all of them is computed too (``full_rank``), beside its sampled rank.
    catalog : array-like, optional
        With ``train``: the items the candidates were drawn from, as given to
        :func:`sample_negatives` (default, as there: the items of ``train`` and of the
        positives). Scores of other items are not counted.

    Returns
    -------
    pd.DataFrame
        One row per positive: ``user_id``, ``item_id``, ``group``, ``rank`` (1 + the
        negatives scored above it), ``n_negatives`` (m), ``n_possible`` (n - 1), ``replace``,
        ``ht_rank`` (the Horvitz-Thompson estimate of the full rank,
        ``1 + (1/m) sum_s [negative s above] / p_s``, p_s its draw probability) and
        ``full_rank`` (the rank among every allowed item: known when the candidates are all of
        them, ``n_negatives="all"``, or when ``scores`` and ``train`` give every allowed item's
        score; else NaN).

    Notes
    -----
    Drawn with replacement, a negative drawn twice is two candidates: each draw scored above
    the positive adds 1 to its rank, as the binomial law of :func:`corrected_metric` (m
    independent draws) takes it. RecBole ranks each user's candidates by item, so there a
    repeated negative counts once and a rank can be lower than this one (at most by the
    repeats above the positive); its numbers are evalkit's metrics over
    :func:`sampled_lists`, which lists each candidate once.

    Raises
    ------
    ValueError
        When a candidate has no score (NaN), or a pair has two different scores. A score of ``-inf``
        (an item the model never saw, :meth:`Recommender.score`) ranks below every other.
    """
    func = "sampled_ranks"
    ties = check_choice(ties, func=func, arg="ties", choices=("pessimistic", "optimistic"))
    if train is not None:
        if candidates is None:
            raise ValueError(f"{func}: 'train' (for the full rank) needs 'candidates' and a "
                             "separate 'scores' table covering every item.")
        check_columns(train, func=func, arg="train", required=["user_id", "item_id"])
    elif catalog is not None:
        raise ValueError(f"{func}: 'catalog' is read with 'train' (for the full rank); "
                         "give both or neither.")
    if candidates is None:
        check_columns(scores, func=func, arg="scores", required=CANDIDATE_COLUMNS + ["score"])
        frame = scores
    else:
        check_columns(candidates, func=func, arg="candidates", required=CANDIDATE_COLUMNS)
        check_columns(scores, func=func, arg="scores",
                      required=["user_id", "item_id", "score"])
        frame = candidates[CANDIDATE_COLUMNS].assign(
            score=_scores_of(scores, candidates, func=func))
    score = frame["score"].to_numpy(np.float64)
    missing = np.isnan(score)
    if missing.any():
        raise ValueError(f"{func}: {int(missing.sum())} of {len(frame):,} candidates have no "
                         "score (first: user "
                         f"{frame['user_id'].iloc[int(np.argmax(missing))]!r}, item "
                         f"{frame['item_id'].iloc[int(np.argmax(missing))]!r}); score every "
                         "candidate.")
    positive = frame["positive"].to_numpy(bool)
    group = frame["group"].to_numpy(np.int64)
    neg = ~positive
    inverse_p = 1.0 / frame["probability"].to_numpy(np.float64)[neg]
    pos_group = group[positive]
    n_groups = int(group.max()) + 1
    if len(np.unique(pos_group)) == len(pos_group):  # one positive per group: no sort
        pos_score = np.full(n_groups, np.nan)
        pos_score[pos_group] = score[positive]
        mine = pos_score[group[neg]]
        beats = score[neg] >= mine if ties == "pessimistic" else score[neg] > mine
        above = np.bincount(group[neg], weights=beats, minlength=n_groups)[pos_group]
        weighted = np.bincount(group[neg], weights=beats * inverse_p,
                               minlength=n_groups)[pos_group]
    else:  # several positives share a group's negatives: sorted scores per group
        codes, _ = pd.factorize(score, sort=True)  # dense codes: equal scores, equal codes
        width = int(codes.max()) + 2
        key = group * width + codes
        order = np.argsort(key[neg], kind="stable")
        neg_sorted = key[neg][order]
        tail = np.concatenate([np.cumsum(inverse_p[order][::-1])[::-1], [0.0]])
        pos_key = key[positive]
        group_end = np.searchsorted(neg_sorted, (pos_group + 1) * width, side="left")
        side = "left" if ties == "pessimistic" else "right"
        start = np.searchsorted(neg_sorted, pos_key, side=side)
        above = group_end - start
        weighted = tail[start] - tail[group_end]
    info = frame.loc[positive, ["user_id", "item_id", "group", "n_negatives", "n_possible",
                                "replace"]].reset_index(drop=True)
    m = info["n_negatives"].to_numpy(np.float64)
    info["rank"] = (1 + above).astype(np.int64)
    info["ht_rank"] = 1.0 + weighted / m
    took_all = info["n_negatives"].to_numpy() == info["n_possible"].to_numpy()
    info["full_rank"] = np.where(took_all, info["rank"].to_numpy(np.float64), np.nan)
    if train is not None and not took_all.all():
        positives = frame.loc[positive, ["user_id", "item_id", "score"]]
        items = (pd.unique(np.concatenate([train["item_id"].to_numpy(),
                                           positives["item_id"].to_numpy()]))
                 if catalog is None else pd.unique(np.asarray(catalog)))
        full = _full_ranks(scores, positives, info["n_possible"].to_numpy(np.int64), train,
                           items, ties)
        info["full_rank"] = np.where(took_all, info["full_rank"], full)
        unknown = np.isnan(info["full_rank"].to_numpy())
        if unknown.any():
            users = info.loc[unknown, "user_id"].nunique()
            warn(f"{func}: the scores do not cover every item {users:,} of "
                 f"{info['user_id'].nunique():,} users could be ranked against (the "
                 "catalogue less their training and held-out items); their "
                 "full_rank is NaN.", UserWarning)
    return info[["user_id", "item_id", "group", "rank", "n_negatives", "n_possible",
                 "replace", "ht_rank", "full_rank"]]


def _full_ranks(scores: pd.DataFrame, positives: pd.DataFrame, n_possible: np.ndarray,
                train: pd.DataFrame, catalog: np.ndarray, ties: str) -> np.ndarray:
    """Each positive's rank among every item its user could be ranked against (the user's
    scored catalogue items less its training and held-out items), where ``scores`` has
    exactly ``n_possible`` of them for the user (all of them, since they are catalogue items
    and distinct); NaN elsewhere."""
    users = pd.Index(pd.unique(positives["user_id"]))
    pool = scores.loc[scores["user_id"].isin(users) & scores["item_id"].isin(catalog),
                      ["user_id", "item_id", "score"]]
    pool = pool[pool["score"].notna()].drop_duplicates(["user_id", "item_id"])
    items = pd.Index(pd.unique(np.concatenate([pool["item_id"].to_numpy(),
                                               positives["item_id"].to_numpy()])))

    def keys(frame: pd.DataFrame) -> np.ndarray:
        return (users.get_indexer(frame["user_id"]).astype(np.int64) * len(items)
                + items.get_indexer(frame["item_id"]))

    known = train[train["user_id"].isin(users) & train["item_id"].isin(items)]
    excluded = _sorted_unique(np.concatenate([keys(known), keys(positives)]))
    pool_keys = keys(pool)
    if len(excluded):
        at = np.minimum(np.searchsorted(excluded, pool_keys), len(excluded) - 1)
        allowed = excluded[at] != pool_keys
    else:
        allowed = np.ones(len(pool_keys), bool)
    user = users.get_indexer(pool["user_id"])[allowed].astype(np.int64)
    value = pool["score"].to_numpy(np.float64)[allowed]
    pos_user = users.get_indexer(positives["user_id"]).astype(np.int64)
    pos_value = positives["score"].to_numpy(np.float64)
    counted = np.bincount(user, minlength=len(users))
    codes, _ = pd.factorize(np.concatenate([value, pos_value]), sort=True)
    width = int(codes.max()) + 2 if len(codes) else 1
    key = np.sort(user * width + codes[:len(value)])
    pos_key = pos_user * width + codes[len(value):]
    user_end = np.searchsorted(key, (pos_user + 1) * width, side="left")
    start = np.searchsorted(key, pos_key, side="left" if ties == "pessimistic" else "right")
    rank = (1 + user_end - start).astype(np.float64)
    return np.where(counted[pos_user] == n_possible, rank, np.nan)


def _scores_of(scores: pd.DataFrame, candidates: pd.DataFrame, *, func: str) -> np.ndarray:
    """Each candidate's score: read in place when ``scores`` lists the candidates' pairs in
    their order (as a model's ``score(candidates)`` returns them), else looked up by pair."""
    check_columns(scores, func=func, arg="scores", required=["user_id", "item_id", "score"])
    same = len(scores) == len(candidates) and all(
        np.array_equal(scores[c].to_numpy(), candidates[c].to_numpy())
        for c in ("user_id", "item_id"))
    if same:
        return scores["score"].to_numpy(np.float64)
    users = pd.Index(pd.unique(candidates["user_id"]))
    items = pd.Index(pd.unique(candidates["item_id"]))

    def keys(frame: pd.DataFrame) -> np.ndarray:
        u = users.get_indexer(frame["user_id"]).astype(np.int64)
        i = items.get_indexer(frame["item_id"]).astype(np.int64)
        return np.where((u >= 0) & (i >= 0), u * len(items) + i, -1)

    given = keys(scores)
    value = scores["score"].to_numpy(np.float64)
    order = np.argsort(given, kind="stable")
    given, value = given[order], value[order]
    twice = (given[1:] == given[:-1]) & (given[1:] >= 0)
    differ = twice & ~((value[1:] == value[:-1]) | (np.isnan(value[1:]) & np.isnan(value[:-1])))
    if differ.any():
        raise ValueError(f"{func}: 'scores' gives {int(differ.sum())} (user_id, item_id) pairs "
                         "two different scores; give one score per pair.")
    wanted = keys(candidates)
    at = np.minimum(np.searchsorted(given, wanted), len(given) - 1)
    return np.where(given[at] == wanted, value[at], np.nan)


def sampled_lists(scores: pd.DataFrame, candidates: pd.DataFrame | None = None
                  ) -> pd.DataFrame:
    """Each group's candidates (positives and negatives) ranked by score, as lists: the
    recommendations that :func:`evalkit.evaluate` scores against the positives to give the
    metrics RecBole reports for a sampled protocol (per user, the positives among each
    other as well as among the negatives).

    ``scores`` and ``candidates`` as for :func:`sampled_ranks`. Returns ``user_id``,
    ``item_id``, ``score``, ``rank`` (1-based within the group, ties by ``item_id``); a
    negative drawn twice is listed once. Meant for ``per="user"`` candidates (one group per
    user); with ``per="positive"`` groups of one user would be listed together.
    """
    func = "sampled_lists"
    if candidates is None:
        check_columns(scores, func=func, arg="scores", required=CANDIDATE_COLUMNS + ["score"])
        frame = scores
    else:
        check_columns(candidates, func=func, arg="candidates", required=CANDIDATE_COLUMNS)
        frame = candidates.assign(score=_scores_of(scores, candidates, func=func))
    if frame["group"].groupby(frame["user_id"]).nunique().max() > 1:
        raise ValueError(f"{func}: a user has several groups of candidates (per='positive'); "
                         "draw them with per='user' to list each user's candidates once.")
    lists = frame[["user_id", "item_id", "score"]].drop_duplicates(["user_id", "item_id"])
    order = np.lexsort((lists["item_id"].to_numpy(), -lists["score"].to_numpy(np.float64),
                        lists["user_id"].to_numpy()))
    lists = lists.iloc[order].reset_index(drop=True)
    lists["rank"] = lists.groupby("user_id", sort=False).cumcount() + 1
    return lists


# --------------------------------------------------------------------------- metrics


def _per_rank(metric: str, *, func: str):
    """The declaration of a metric with a value for one relevant item at a rank, named by
    its registry name or its label."""
    spec = get_metric(metric, func=func, arg="metric")
    if spec.name not in RANKING_METRICS or spec.per_rank is None:
        have = [name for name, m in RANKING_METRICS.items() if m.per_rank is not None]
        raise ValueError(f"{func}: 'metric' must be a ranking metric with a value for one "
                         f"relevant item at a rank ({', '.join(have)}); got {metric!r}.")
    return spec


def _check_ranks(ranks: object, *, func: str) -> pd.DataFrame:
    return check_columns(ranks, func=func, arg="ranks",
                         required=["user_id", "rank", "n_negatives", "n_possible", "replace"])


def _user_weights(users: np.ndarray) -> tuple[pd.Index, np.ndarray, np.ndarray]:
    """The users, each positive's user code, and each positive's weight 1 / (positives of its
    user): every user counts once, as in a per-user mean."""
    codes, index = pd.factorize(users, sort=True)
    counts = np.bincount(codes)
    return pd.Index(index, name="user_id"), codes, 1.0 / counts[codes]


def sampled_metric(ranks: pd.DataFrame, *, metric: str = "ndcg", k: int | None = 10,
                   rank: str = "rank") -> MetricSeries:
    """The naive sampled metric papers report: ``M(r~)`` of each positive's sampled rank,
    averaged over each user's positives.

    Parameters
    ----------
    ranks : pd.DataFrame
        :func:`sampled_ranks`' frame.
    metric : str, default "ndcg"
        A ranking metric with a value per rank (``hit_rate``, ``recall``, ``ndcg``, ``mrr``,
        ``map``, ``precision``, ``first_relevant_rank``; see :class:`Metric`'s
        ``per_rank``), by registry name or label (``"NDCG"``, ``"HR"``).
    k : int or None, default 10
        Cutoff.
    rank : str, default "rank"
        The rank column: ``"rank"`` (sampled), ``"full_rank"`` or ``"ht_rank"``.

    Returns
    -------
    MetricSeries
        One value per user (index ``user_id``): with one positive per user, HR@k, NDCG@k, RR
        of its sampled rank; with several, their mean (recall@k for ``recall``).
    """
    func = "sampled_metric"
    ranks = _check_ranks(ranks, func=func)
    spec = _per_rank(metric, func=func)
    metric = spec.name
    if k is not None:
        k = check_positive_int(k, func=func, arg="k")
    check_choice(rank, func=func, arg="rank", choices=("rank", "full_rank", "ht_rank"))
    users, codes, weight = _user_weights(ranks["user_id"].to_numpy())
    values = spec.per_rank(ranks[rank].to_numpy(np.float64), k)
    per_user = np.bincount(codes, weights=weight * values, minlength=len(users))
    if np.isnan(values).any():
        per_user[np.bincount(codes, weights=np.isnan(values), minlength=len(users)) > 0] = \
            np.nan
    return metric_series(per_user, users, name=f"sampled_{metric}", dropped={}, k=k)


@dataclass(frozen=True)
class CorrectedMetric:
    """The result of :func:`corrected_metric`.

    Attributes
    ----------
    value : float
        The estimate of the full-ranking metric (mean over users).
    ci_low, ci_high : float
        Its user-bootstrap interval (NaN without resamples).
    naive : float
        The sampled metric's mean (:func:`sampled_metric`).
    estimator : str
        ``"em"``, ``"bv"``, ``"cls"`` or ``"ht"``.
    metric : str
    k : int or None
    n_users, n_positives : int
    groups : int
        The groups estimated apart (one per number of draws with replacement; per number of
        candidates without).
    replicates : np.ndarray
        The estimate in each bootstrap replicate (empty without resamples).
    """

    value: float
    ci_low: float
    ci_high: float
    naive: float
    estimator: str
    metric: str
    k: int | None
    n_users: int
    n_positives: int
    groups: int
    replicates: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False,
                                   compare=False)

    def __repr__(self) -> str:
        label = RANKING_METRICS[self.metric].column_label(self.k)
        ci = (f" [{self.ci_low:.4f}, {self.ci_high:.4f}]"
              if np.isfinite(self.ci_low) and np.isfinite(self.ci_high) else "")
        return (f"CorrectedMetric({label} = {self.value:.4f}{ci} by {self.estimator!r}; naive "
                f"sampled {self.naive:.4f}; {self.n_users:,} users)")


def sampling_matrix(n: int, m: int, *, replace: bool = True) -> np.ndarray:
    """``A[r - 1, j] = P(r~ - 1 = j | r)``: the chance that a positive of true rank ``r`` among
    ``n`` candidates has ``j`` of ``m`` sampled negatives above it (binomial with
    replacement, hypergeometric without); shape ``(n, m + 1)``, rows summing to 1."""
    r = np.arange(1, n + 1, dtype=np.float64)[:, None]
    j = np.arange(m + 1, dtype=np.float64)[None, :]
    if replace:
        p = (r - 1) / max(n - 1, 1)
        return scipy.stats.binom.pmf(j, m, p)
    return scipy.stats.hypergeom.pmf(j, n - 1, r - 1, m)


#: Exact true ranks up to this (or twice the cutoff), then geometric bins (ratio 1 +
#: _BIN_RATIO).
_EXACT_RANKS = 64
_BIN_RATIO = 0.05


def _rank_bins(n: int, k: int | None = None) -> np.ndarray:
    """Edges of the true-rank bins for ``n`` candidates: ranks 1..max(64, 2k) one by one,
    then bins growing by 5%; ``edges[b] .. edges[b + 1] - 1`` is bin b."""
    exact = max(_EXACT_RANKS, 2 * (k or 0))
    edges = list(range(1, min(n, exact) + 2))
    while edges[-1] <= n:
        edges.append(max(edges[-1] + 1, int(math.ceil(edges[-1] * (1 + _BIN_RATIO)))))
    edges[-1] = n + 1
    return np.asarray(edges, dtype=np.int64)


def _binned(n: int, m: int, replace: bool, per_rank, k) -> tuple[np.ndarray, np.ndarray,
                                                                   np.ndarray]:
    """The sampling matrix, the metric and the prior mass of each true-rank bin (a bin's row
    is the mean of its ranks' rows, the prior uniform over ranks)."""
    edges = _rank_bins(n, k)
    size = np.diff(edges).astype(np.float64)
    A = sampling_matrix(n, m, replace=replace)
    which = np.repeat(np.arange(len(size)), size.astype(np.int64))
    rows = np.zeros((len(size), m + 1))
    np.add.at(rows, which, A)
    values = np.bincount(which, weights=per_rank(np.arange(1, n + 1, dtype=np.float64), k),
                         minlength=len(size))
    return rows / size[:, None], values / size, size / n


def _em(A: np.ndarray, hist: np.ndarray, prior: np.ndarray, *, iterations: int = 300,
        tol: float = 1e-12) -> np.ndarray:
    """EM for the true-rank distribution (Jin et al. 2021): ``hist`` (m + 1, B) weighted counts
    of sampled ranks, one column per replicate; returns pi (bins, B) after ``iterations``
    steps from the uniform distribution over ranks (or fewer, once pi moves less than
    ``tol``). The maximum-likelihood distribution itself overfits the sampled ranks (the
    estimate drifts away from the truth as EM runs on: 0.085 after 300 steps and 0.19 after
    20,000 on a synthetic NDCG@10 of 0.084), so EM is stopped early, as deconvolution by EM
    (Richardson-Lucy) is."""
    total = np.where(hist.sum(axis=0) > 0, hist.sum(axis=0), 1.0)
    pi = np.repeat(prior[:, None], hist.shape[1], axis=1)
    for _ in range(iterations):
        q = A.T @ pi  # (m + 1, B): the chance of each sampled rank
        ratio = np.divide(hist, q, out=np.zeros_like(hist), where=q > 0)
        new = pi * (A @ ratio) / total
        if np.max(np.abs(new - pi)) < tol:
            return new
        pi = new
    return pi


def _bv(A: np.ndarray, values: np.ndarray, prior: np.ndarray, gamma: float) -> np.ndarray:
    """Krichene and Rendle's correction: the value ``x_j`` to give sampled rank ``j + 1``,
    minimising ``sum_r w_r (bias_r^2 + g var_r)`` with ``bias_r = sum_j A_rj x_j - M_r`` and
    ``var_r = sum_j A_rj x_j^2 - (sum_j A_rj x_j)^2``: ``x = [(1 - g) A'WA + g diag(c)]^-1
    A'WM``, ``c = w'A``."""
    weighted = A * np.sqrt(prior)[:, None]
    target = values * np.sqrt(prior)
    c = prior @ A
    lhs = (1 - gamma) * weighted.T @ weighted + gamma * np.diag(c)
    rhs = weighted.T @ target
    if gamma > 0:
        return np.linalg.solve(lhs, rhs)
    # the least-squares fit; singular values below 1e-8 of the largest are cut (the system is
    # ill-conditioned, and without the cut its solution grows without bound)
    return np.linalg.lstsq(weighted, target, rcond=1e-8)[0]


def corrected_metric(
    ranks: pd.DataFrame,
    *,
    metric: str = "ndcg",
    k: int | None = 10,
    estimator: str = "em",
    gamma: float = 0.01,
    confidence: float = 0.95,
    n_resamples: int = 200,
    rng: int | np.random.Generator | None = 0,
) -> CorrectedMetric:
    """Estimate the full-ranking metric from sampled ranks.

    Parameters
    ----------
    ranks : pd.DataFrame
        :func:`sampled_ranks`' frame.
    metric : str, default "ndcg"
        As for :func:`sampled_metric`.
    k : int or None, default 10
        Cutoff.
    estimator : {"em", "bv", "cls", "ht"}, default "em"
        ``"em"``: the maximum-likelihood true-rank distribution (EM, Jin et al. AAAI 2021),
        then ``sum_r pi_r M(r)``; ``"bv"``: Krichene and Rendle's bias-variance correction
        (``gamma``); ``"cls"``: their minimal-bias correction (gamma = 0); ``"ht"``: the
        metric of each positive's Horvitz-Thompson rank (``ranks["ht_rank"]``), for
        popularity sampling.
    gamma : float, default 0.01
        The bias-variance trade-off of ``"bv"`` (0: minimal bias; 1: the posterior mean of
        M(r) under a uniform prior).
    confidence, n_resamples, rng
        The user-bootstrap interval (Poisson weights per user; each replicate repeats the
        estimate); ``n_resamples=0``: none.

    Returns
    -------
    CorrectedMetric
        ``value``, ``ci_low``, ``ci_high``, ``naive``, ``estimator``, ... An estimate outside
        the metric's range (the minimal-bias fit can give one when the sampled ranks cannot
        resolve the cutoff) is no estimate: ``value`` and its interval are NaN, and a
        warning gives the value and the reason.

    Notes
    -----
    Each positive weighs 1 / (its user's positives), so that every user counts once, as in
    :func:`sampled_metric`. Users who saw different numbers of items have different numbers
    of candidates ``n``. Drawn with replacement, a positive's sampled rank depends on its
    relative position ``(r - 1) / (n - 1)`` alone, so EM estimates one distribution of it
    from every positive (per number of draws ``m``), and each positive counts the posterior
    mean of its metric at its own ``n`` (counts within 0.5% of each other at their mean); the
    bias-variance fit is made at each such ``n``. Drawn
    without replacement, positives are grouped by ``n`` (counts within 2% of each other at
    their mean, which changes the sampling chances by less than 2%) and each group is
    estimated on its own. True ranks beyond max(64, 2k)
    are grouped in bins 5% wide, each with the mean sampling chances and metric of its ranks
    (a uniform distribution within the bin). EM runs 300 steps from the uniform distribution
    (fewer when it has converged): the maximum-likelihood distribution itself overfits, and
    early stopping is its regularisation. A group whose candidates are every allowed item
    (``n_negatives="all"``) has its full ranks: every estimator gives the full-ranking metric.
    """
    func = "corrected_metric"
    ranks = _check_ranks(ranks, func=func)
    spec = _per_rank(metric, func=func)
    metric = spec.name
    if k is not None:
        k = check_positive_int(k, func=func, arg="k")
    estimator = check_choice(estimator, func=func, arg="estimator", choices=ESTIMATORS)
    if isinstance(gamma, bool) or not isinstance(gamma, numbers.Real) or not 0 <= gamma <= 1:
        raise ValueError(f"{func}: 'gamma' must be a number in [0, 1]; got {gamma!r}.")
    if estimator == "cls":
        gamma = 0.0
    confidence = check_fraction(confidence, func=func, arg="confidence")
    n_resamples = check_resamples(n_resamples, func=func)
    check_rng(rng, func=func)
    if len(ranks) == 0:
        raise ValueError(f"{func}: 'ranks' holds no positive.")
    if estimator == "ht" and "ht_rank" not in ranks.columns:
        raise ValueError(f"{func}: estimator='ht' needs the 'ht_rank' column of sampled_ranks.")

    users, codes, weight = _user_weights(ranks["user_id"].to_numpy())
    sampled = ranks["rank"].to_numpy(np.int64)
    m = ranks["n_negatives"].to_numpy(np.int64)
    n = ranks["n_possible"].to_numpy(np.int64) + 1
    replace = ranks["replace"].to_numpy(bool)
    naive_values = spec.per_rank(sampled.astype(np.float64), k)
    naive = float(np.sum(weight * naive_values) / len(users))

    # the user-bootstrap weights, one column per replicate (column 0: the data)
    if n_resamples:
        boot = poisson_weights(user_streams(users), design_key(np.random.default_rng(rng)),
                               n_resamples).astype(np.float64)
        w = np.hstack([np.ones((len(users), 1)), boot])[codes] * weight[:, None]
    else:
        w = weight[:, None]
    full = m == n - 1  # every allowed item drawn: the sampled rank is the full rank
    groups = 0
    totals = np.zeros(w.shape[1])
    if estimator == "ht" or full.all():
        rank_used = ranks["ht_rank"].to_numpy(np.float64) if estimator == "ht" else \
            sampled.astype(np.float64)
        rank_used = np.where(full, sampled, rank_used)
        totals = (spec.per_rank(rank_used, k)[:, None] * w).sum(axis=0)
        groups = 1
    else:
        totals += (spec.per_rank(sampled[full].astype(np.float64), k)[:, None]
                   * w[full]).sum(axis=0)
        # with replacement the sampled rank depends on the relative position alone: one
        # likelihood for every n (per number of draws m)
        pooled = ~full & replace
        for draws in np.unique(m[pooled]):
            at = np.flatnonzero(pooled & (m == draws))
            groups += 1
            totals += _shared_estimate(estimator, n[at], int(draws), sampled[at] - 1, w[at],
                                       spec.per_rank, k, gamma)
        rest = np.flatnonzero(~full & ~replace)
        n_grouped = _group_sizes(n[rest]) if len(rest) else n[rest]
        for key in np.unique(np.stack([n_grouped, m[rest]]), axis=1).T:
            at = rest[(n_grouped == key[0]) & (m[rest] == key[1])]
            groups += 1
            A, values, prior = _binned(int(key[0]), int(key[1]), False, spec.per_rank, k)
            j = sampled[at] - 1
            if estimator == "em":
                hist = _sum_rows(j, w[at], int(key[1]) + 1)
                pi = _em(A, hist, prior)
                totals += values @ pi * hist.sum(axis=0)
            else:
                x = _bv(A, values, prior, gamma)
                totals += x[j] @ w[at]
    mass = w.sum(axis=0)
    estimates = totals / np.where(mass > 0, mass, np.nan)
    low_bound, high_bound = spec.bounds
    low = high = math.nan
    if not low_bound - 1e-9 <= estimates[0] <= high_bound + 1e-9:
        # not an estimate of the metric: NaN, with the value and the reason
        warn(
            f"{func}: the {estimator!r} estimate {estimates[0]:.4g} lies outside "
            f"{spec.column_label(k)}'s range [{low_bound:g}, {high_bound:g}], so it is given "
            f"as NaN: the sampled ranks ({int(np.max(m))} negatives among up to "
            f"{int(np.max(n)):,} candidates) cannot resolve the cutoff; use estimator='em' or "
            "'bv'.", UserWarning)
        estimates = np.full_like(estimates, np.nan)
    elif n_resamples:
        low, high = (float(v[0]) for v in quantile_interval(estimates[1:, None], confidence))
    return CorrectedMetric(value=float(estimates[0]), ci_low=low, ci_high=high, naive=naive,
                           estimator=estimator, metric=metric, k=k, n_users=len(users),
                           n_positives=len(ranks), groups=groups, replicates=estimates[1:])


def _shared_bins(n: np.ndarray, m: int, per_rank, k: int | None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For draws with replacement, where ``P(r~ - 1 = j | r) = Binomial(m, x)`` with ``x =
    (r - 1) / (n - 1)`` the relative position: bins of x (the rank bins of the largest n), the
    likelihood and prior mass of each, and the metric of each bin at each distinct n of
    ``n`` (its ranks mapped to ``1 + x (n - 1)``): ``A`` (bins, m + 1), ``prior`` (bins),
    ``values`` (len(n), bins)."""
    top = int(n.max())
    edges = _rank_bins(top, k)
    size = np.diff(edges)
    which = np.repeat(np.arange(len(size)), size)
    rows = np.zeros((len(size), m + 1))
    np.add.at(rows, which, sampling_matrix(top, m, replace=True))
    x = np.arange(top, dtype=np.float64) / max(top - 1, 1)
    values = np.stack([np.bincount(which, weights=per_rank(1.0 + x * (g - 1), k),
                                   minlength=len(size)) for g in n]) / size
    return rows / size[:, None], size / top, values


def _shared_estimate(estimator: str, n: np.ndarray, m: int, j: np.ndarray, w: np.ndarray,
                     per_rank, k: int | None, gamma: float) -> np.ndarray:
    """The weighted sum of the estimated metric over positives drawn with replacement, one
    column per replicate of ``w``. EM pools every positive's sampled rank (one distribution of
    the relative position); each positive then counts the posterior mean of its metric at its
    own n. The bias-variance fit is made at each n."""
    distinct, group = np.unique(_group_sizes(n, ratio=0.005), return_inverse=True)
    A, prior, values = _shared_bins(distinct, m, per_rank, k)
    if estimator != "em":
        fits = np.stack([_bv(A, v, prior, gamma) for v in values])  # one step per distinct n
        return fits[group, j] @ w
    pi = _em(A, _sum_rows(j, w, m + 1), prior)  # (bins, B)
    q = A.T @ pi  # (m + 1, B)
    joint = pi[:, None, :] * A[:, :, None]  # (bins, m + 1, B)
    expected = np.tensordot(values, joint, axes=(1, 0))  # (groups, m + 1, B)
    expected = np.divide(expected, q[None], out=np.zeros_like(expected), where=q[None] > 0)
    weights = _sum_rows(group * (m + 1) + j, w, len(distinct) * (m + 1))
    return (weights.reshape(len(distinct), m + 1, -1) * expected).sum(axis=(0, 1))


def _sum_rows(codes: np.ndarray, rows: np.ndarray, size: int) -> np.ndarray:
    """``out[c] = sum of rows[i] with codes[i] == c``, shape (size, rows.shape[1])."""
    order = np.argsort(codes, kind="stable")
    sorted_codes = codes[order]
    starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]])
    out = np.zeros((size, rows.shape[1]))
    out[sorted_codes[starts]] = np.add.reduceat(rows[order], starts, axis=0)
    return out


#: Candidate counts within this relative distance share one sampling matrix.
_N_RATIO = 0.02


def _group_sizes(n: np.ndarray, ratio: float = _N_RATIO) -> np.ndarray:
    """Each positive's number of candidates ``n``, grouped: counts within ``ratio`` of each
    other (geometric bins from the smallest) take their bin's mean (rounded)."""
    if len(np.unique(n)) == 1:
        return n
    which = np.floor(np.log(n / n.min()) / np.log1p(ratio)).astype(np.int64)
    means = np.bincount(which, weights=n) / np.maximum(np.bincount(which), 1)
    return np.rint(means[which]).astype(np.int64)


# --------------------------------------------------------------------------- systems


@dataclass(frozen=True)
class SamplingComparison:
    """The result of :func:`compare_sampling`.

    Attributes
    ----------
    table : pd.DataFrame
        One row per system (index ``system``): ``full`` (the metric over every allowed item),
        ``naive`` (the sampled metric, mean over the seeds) with ``naive_sd`` (its spread over
        them), ``corrected`` (the estimator's value, mean over the seeds) with
        ``corrected_sd`` and ``corrected_low``/``corrected_high`` (the user-bootstrap interval
        of that mean: every seed resamples the same users in a replicate), and the rank of the
        system under each (``rank_full``, ``rank_naive``, ``rank_corrected``; 1 = best).
    per_seed : pd.DataFrame
        ``system``, ``seed``, ``naive``, ``corrected`` for every seed.
    tau : dict
        Kendall's tau between the full order and the naive (``"naive"``) and corrected
        (``"corrected"``) ones.
    winner : dict
        The best system under ``"full"``, ``"naive"`` and ``"corrected"``.
    flips : dict
        Whether the naive and the corrected protocols name another winner than the full
        ranking.
    label : str
        The metric and the protocol, for titles.
    """

    table: pd.DataFrame
    per_seed: pd.DataFrame
    tau: dict
    winner: dict
    flips: dict
    label: str

    def __repr__(self) -> str:
        return (f"{self.label}\n{self.table.round(4).to_string()}\nKendall tau with the full "
                f"order: naive {self.tau['naive']:.2f}, corrected {self.tau['corrected']:.2f}; "
                f"winner: full {self.winner['full']}, naive {self.winner['naive']}, corrected "
                f"{self.winner['corrected']}.")


def compare_sampling(
    systems: dict,
    truth: pd.DataFrame,
    train: pd.DataFrame | None,
    *,
    metric: str = "ndcg",
    k: int = 10,
    n_negatives: int = 100,
    scheme: str | Sequence[str] = "uniform",
    per: str = "positive",
    estimator: str | dict = "em",
    seeds: tuple[int, ...] | list[int] = (0, 1, 2),
    catalog: object = None,
    confidence: float = 0.95,
    n_resamples: int = 200,
) -> SamplingComparison | dict:
    """Would the sampled protocol change the verdict? Each system's metric over the full
    ranking, as papers report it with sampled negatives, and corrected.

    Parameters
    ----------
    systems : dict of str to model or pd.DataFrame
        Each system: a fitted model with ``score(pairs)`` (every evalkit baseline), or a frame
        of ``user_id, item_id, score`` for every pair of the user and every catalog item.
    truth, train, catalog
        As for :func:`sample_negatives`.
    metric, k, estimator
        As for :func:`corrected_metric` (``estimator="ht"`` with ``scheme="popularity"``).
    n_negatives, scheme, per
        The sampled protocol (RecBole's ``uni100``: the defaults). Several schemes
        (``scheme=["uniform", "popularity"]``) share the full ranking and give a dict of
        results by scheme; ``estimator`` may then map each scheme to its estimator.
    seeds : sequence of int, default (0, 1, 2)
        Seeds of the sampling; the naive and corrected values are averaged over them, and
        the first seed's bootstrap gives the interval.
    confidence, n_resamples
        The corrected value's user-bootstrap interval.

    Returns
    -------
    SamplingComparison
        ``table``, ``per_seed``, ``tau``, ``winner``, ``flips``.

    Notes
    -----
    The full metric ranks each held-out item among every item the user may be ranked against
    (the catalog less the user's training and other held-out items), from the same scores,
    so the three numbers differ only by the protocol. It scores users x catalog pairs: for
    large catalogues, a sample of users.
    """
    func = "compare_sampling"
    if not isinstance(systems, dict) or not systems:
        raise ValueError(f"{func}: 'systems' must map names to fitted models or score frames; "
                         f"got {type(systems).__name__}.")
    if not seeds:
        raise ValueError(f"{func}: 'seeds' must hold at least one seed.")
    for i, seed in enumerate(seeds):
        check_rng(seed, func=func, arg=f"seeds[{i}]")
    metric = _per_rank(metric, func=func).name

    def scored(system: object, pairs: pd.DataFrame) -> np.ndarray:
        """The system's score of each pair, in the pairs' order."""
        if not isinstance(system, pd.DataFrame) and callable(getattr(system, "score", None)):
            return system.score(pairs)["score"].to_numpy(np.float64)
        if isinstance(system, pd.DataFrame):
            check_columns(system, func=func, arg="systems[...]",
                          required=["user_id", "item_id", "score"])
            given = system[["user_id", "item_id", "score"]].drop_duplicates(
                ["user_id", "item_id"])
            return pairs.merge(given, on=["user_id", "item_id"], how="left")[
                "score"].to_numpy(np.float64)
        raise TypeError(f"{func}: each system must be a fitted model with score(pairs) or a "
                        f"frame of scores; got {type(system).__name__}.")

    schemes = [scheme] if isinstance(scheme, str) else list(scheme)
    for name in schemes:
        check_choice(name, func=func, arg="scheme", choices=SCHEMES)
    estimators = {name: estimator.get(name, "em") if isinstance(estimator, dict) else estimator
                  for name in schemes}
    # the full ranking: each user's allowed items once (a positive's rank among them is the
    # same whichever positive's group it is in)
    everything = sample_negatives(truth, train, n_negatives="all", per="user", catalog=catalog)
    draws = {(name, seed): sample_negatives(truth, train, n_negatives=n_negatives, scheme=name,
                                            per=per, catalog=catalog, rng=seed)
             for name in schemes for seed in seeds}
    # every sampled candidate is among all of them: score each pair once, look the rest up
    users, items = pd.Index(pd.unique(everything["user_id"])), pd.Index(
        pd.unique(everything["item_id"]))

    def keys(frame: pd.DataFrame) -> np.ndarray:
        return (users.get_indexer(frame["user_id"]).astype(np.int64) * len(items)
                + items.get_indexer(frame["item_id"]))

    all_keys = keys(everything)
    order = np.argsort(all_keys, kind="stable")
    sorted_keys = all_keys[order]
    located = {key: order[np.searchsorted(sorted_keys, keys(c))] for key, c in draws.items()}
    pairs = everything[["user_id", "item_id"]]
    rows: dict[str, list] = {name: [] for name in schemes}
    table: dict[str, dict] = {name: {} for name in schemes}
    for system_name, system in systems.items():
        score = scored(system, pairs)
        full_ranks = sampled_ranks(everything.assign(score=score))
        full = float(sampled_metric(full_ranks, metric=metric, k=k).mean())
        for name in schemes:
            replicates = []
            for seed in seeds:
                ranks = sampled_ranks(draws[name, seed].assign(
                    score=score[located[name, seed]]))
                # one bootstrap design for every seed: replicate b resamples the same users
                fixed = corrected_metric(ranks, metric=metric, k=k, estimator=estimators[name],
                                         confidence=confidence, n_resamples=n_resamples,
                                         rng=seeds[0])
                replicates.append(fixed.replicates)
                rows[name].append({"system": system_name, "seed": seed, "naive": fixed.naive,
                                   "corrected": fixed.value})
            low = high = math.nan
            if n_resamples:
                low, high = (float(v[0]) for v in quantile_interval(
                    np.mean(replicates, axis=0)[:, None], confidence))
            table[name][system_name] = {"full": full, "low": low, "high": high}
    found = {name: _sampling_summary(rows[name], table[name], metric=metric, k=k,
                                     n_negatives=n_negatives, scheme=name, per=per,
                                     estimator=estimators[name], several=len(seeds) > 1)
             for name in schemes}
    return found[scheme] if isinstance(scheme, str) else found


def _sampling_summary(rows: list, table: dict, *, metric: str, k: int, n_negatives: int,
                      scheme: str, per: str, estimator: str, several: bool
                      ) -> SamplingComparison:
    per_seed = pd.DataFrame(rows)
    means = per_seed.groupby("system", sort=False)[["naive", "corrected"]].mean()
    spread = per_seed.groupby("system", sort=False)[["naive", "corrected"]].std(ddof=1) \
        if several else means * np.nan
    out = pd.DataFrame({
        "full": [table[n]["full"] for n in means.index],
        "naive": means["naive"].to_numpy(), "naive_sd": spread["naive"].to_numpy(),
        "corrected": means["corrected"].to_numpy(),
        "corrected_sd": spread["corrected"].to_numpy(),
        "corrected_low": [table[n]["low"] for n in means.index],
        "corrected_high": [table[n]["high"] for n in means.index],
    }, index=pd.Index(means.index, name="system"))
    better = RANKING_METRICS[metric].higher_is_better
    for column in ("full", "naive", "corrected"):
        out[f"rank_{column}"] = out[column].rank(ascending=not better, method="min").astype(int)
    tau = {c: (float(scipy.stats.kendalltau(out["full"], out[c]).statistic)
               if len(out) > 1 else math.nan) for c in ("naive", "corrected")}
    winner = {c: str(out[c].idxmax() if better else out[c].idxmin())
              for c in ("full", "naive", "corrected")}
    flips = {c: winner[c] != winner["full"] for c in ("naive", "corrected")}
    label = (f"{RANKING_METRICS[metric].column_label(k)}: full ranking, {n_negatives} "
             f"{scheme} negatives per {per} (naive), and corrected ({estimator})")
    return SamplingComparison(table=out, per_seed=per_seed, tau=tau, winner=winner,
                              flips=flips, label=label)
