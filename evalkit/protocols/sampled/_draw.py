"""Drawing the negatives: :func:`sample_negatives`."""

from __future__ import annotations

import numpy as np
import pandas as pd
from numba import njit

from ..._canonical import in_canonical_order
from ..._checks import (
    check_columns,
    check_ids,
    check_positive_int,
)
from ..._constraints import BOOL, SEED, choice, constrained
from ..._parallel import KERNEL_OPTIONS

#: How negatives are drawn: uniformly from the items the user has not interacted with, or in
#: proportion to their training popularity (RecBole's ``uni`` and ``pop`` samplers).
SCHEMES = ("uniform", "popularity")

#: Candidate columns written by :func:`sample_negatives`.
CANDIDATE_COLUMNS = ["user_id", "item_id", "positive", "group", "probability", "n_negatives",
                     "n_possible", "replace"]


# --------------------------------------------------------------------------- sampling

@njit(**KERNEL_OPTIONS)
def in_sorted_rows(groups, group_user, items, offsets, sorted_items):  # pragma: no cover
    """Whether ``items[i]`` is among ``sorted_items[offsets[u]:offsets[u + 1]]`` for the user
    ``u = group_user[groups[i]]`` (each user's row sorted ascending): a binary search in the
    user's own row, which stays in cache, where one search over every user's keys would not."""
    out = np.zeros(len(items), np.bool_)
    for i in range(len(items)):
        u = group_user[groups[i]]
        lo = offsets[u]
        end = offsets[u + 1]
        hi = end
        x = items[i]
        while lo < hi:
            mid = (lo + hi) >> 1
            if sorted_items[mid] < x:
                lo = mid + 1
            else:
                hi = mid
        out[i] = lo < end and sorted_items[lo] == x
    return out



@constrained(scheme=choice(*SCHEMES), per=choice("positive", "user"), rng=SEED,
             exclude_seen=BOOL, replace=BOOL)
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
