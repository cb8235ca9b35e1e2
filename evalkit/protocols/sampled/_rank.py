"""Ranking each held-out item among its candidates: :func:`sampled_ranks`, :func:`sampled_lists`."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..._checks import (
    check_columns,
    warn,
)
from ..._constraints import choice, constrained
from ._draw import CANDIDATE_COLUMNS, _sorted_unique


@constrained(ties=choice("pessimistic", "optimistic"))
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

    Parameters
    ----------
    scores : pandas.DataFrame
        ``user_id``, ``item_id``, ``score`` for every candidate pair, or the candidates frame
        itself with a ``score`` column.
    candidates : pandas.DataFrame, optional
        :func:`sample_negatives`' frame.
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
