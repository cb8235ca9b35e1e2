"""The hit table: recommendations joined once with the test truth, for the compiled reductions.

Every ranking metric is a reduction of the same few per-position vectors (is the item at rank
``i`` relevant, what is its rating) and of the user's ideal list. :func:`build_hits` computes
them once, with integer codes and a single join, into a :class:`HitTable` that the compiled
reductions (:mod:`._curves`) walk user by user.

Each test row gets a nonzero code: its rating level (one byte; half-star and other scales
with at most 254 distinct ratings) or, failing that, its row number. The join is a compiled
per-user pass (:func:`._kernels.join`): a user's test items write their codes into a lookup
array indexed by item, the user's recommendations read them, and the entries are cleared
again, a linear-time hash join without hashing. Integer item ids in a range not much wider
than the data index the lookup directly; other ids are coded first. Per-row ratings and
relevance (``rating``, ``rel``) and the ideal order of the test items are derived from the
codes only when the hits of a metric from hits (:func:`~._spec.hits_of`) ask for them; the
compiled reductions read the codes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from .._checks import has_duplicate_pairs
from . import _kernels

__all__ = ["HitTable", "TruthSide", "build_hits", "codes_of", "id_array", "truth_side",
           "unique_ids"]

_MAX_LEVELS = 254  # distinct ratings coded in one byte (0: not in the test set)


def _bounds(values: np.ndarray, known: dict | None) -> tuple:
    """``(min, max)`` of a non-empty array, remembered in ``known`` (keyed by the array)."""
    if known is None:
        return values.min(), values.max()
    entry = known.get(id(values))
    if entry is None or entry[0] is not values:
        entry = known[id(values)] = (values, values.min(), values.max())
    return entry[1], entry[2]


def codes_of(values: np.ndarray, uniques: np.ndarray, known: dict | None = None) -> np.ndarray:
    """Position of each value in the sorted array ``uniques``, or -1 if absent (int32 for
    fewer than 2**31 uniques, else int64). ``known`` remembers array bounds across calls."""
    dtype = np.int32 if uniques.size < 2**31 - 1 else np.int64
    if uniques.size == 0:
        return np.full(values.shape, -1, dtype=dtype)
    if (
        values.dtype.kind in "iu"
        and uniques.dtype.kind in "iu"
        and uniques[0] >= 0
        and uniques[-1] < max(4 * uniques.size, 1 << 20)
    ):
        if values.size:
            if values.dtype.kind == "i" and int(uniques[-1]) - int(uniques[0]) + 1 == uniques.size:
                # ids first..last, all present: an offset, when every value is among them
                codes = np.empty(values.shape, dtype=dtype)
                if _kernels.offset_codes(values, int(uniques[0]), int(uniques[-1]), codes):
                    return codes
            low, high = _bounds(values, known)
        lookup = np.full(int(uniques[-1]) + 1, -1, dtype=dtype)
        lookup[uniques] = np.arange(uniques.size, dtype=dtype)
        if values.size and low >= 0 and high <= uniques[-1]:
            return lookup[values]
        inside = (values >= 0) & (values <= uniques[-1])
        out = np.full(values.shape, -1, dtype=dtype)
        out[inside] = lookup[values[inside]]
        return out
    return pd.Index(uniques).get_indexer(values).astype(dtype)


def unique_ids(*arrays: np.ndarray, known: dict | None = None) -> np.ndarray:
    """Sorted unique values of the arrays; linear time for small non-negative integer ids."""
    if all(a.dtype.kind in "iu" for a in arrays) and any(a.size for a in arrays):
        bounds = [_bounds(a, known) for a in arrays if a.size]
        lo = min(b[0] for b in bounds)
        hi = max(b[1] for b in bounds)
        size = sum(a.size for a in arrays)
        if lo >= 0 and hi < max(4 * size, 1 << 20):
            present = np.zeros(int(hi) + 1, dtype=bool)
            for a in arrays:
                present[a] = True
            dtype = np.result_type(*arrays)
            return np.flatnonzero(present).astype(dtype)
    if len(arrays) == 1:
        return np.unique(arrays[0])
    return np.unique(np.concatenate(arrays))


def _item_keys(t_item: np.ndarray, r_item: np.ndarray, known: dict
               ) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Keys of the items for the join's lookup array: ``(truth keys, recs keys, low, size)``.

    Integer ids in a range not much wider than the data are their own keys (``id - low``
    indexes the lookup); others are coded by their position among the distinct items.
    """
    if t_item.dtype.kind in "iu" and r_item.dtype.kind in "iu" and t_item.size and r_item.size:
        (t_low, t_high), (r_low, r_high) = _bounds(t_item, known), _bounds(r_item, known)
        low, high = min(t_low, r_low), max(t_high, r_high)
        if int(high) - int(low) < max(4 * (t_item.size + r_item.size), 1 << 20):
            return t_item, r_item, int(low), int(high) - int(low) + 1
    items = unique_ids(t_item, r_item, known=known)
    return codes_of(t_item, items, known), codes_of(r_item, items, known), 0, max(items.size, 1)


def id_array(series: pd.Series) -> np.ndarray:
    values = series.to_numpy()
    if values.dtype.kind in "iu":
        return values.astype(np.int64, copy=False)
    return values.astype(object)


def listed_pairs(truth: pd.DataFrame, recs: pd.DataFrame) -> np.ndarray:
    """Per row of validated ``truth``: whether the user's list in ``recs`` holds the item
    (``relevant_set="listed"``). Users are coded among the test users and items as the join
    keys them; both sides are grouped by user (a counting sort where they are not), and a
    compiled pass marks each user's listed items and reads the user's test items
    (:func:`._kernels.listed`)."""
    known: dict = {}
    t_user, r_user = id_array(truth["user_id"]), id_array(recs["user_id"])
    users = unique_ids(t_user, known=known)
    t_u, r_u = codes_of(t_user, users, known), codes_of(r_user, users, known)
    t_i, r_i, low, n_items = _item_keys(id_array(truth["item_id"]), id_array(recs["item_id"]),
                                        known)
    inside = r_u >= 0  # users only in the lists hold no test item
    if not inside.all():
        r_u, r_i = r_u[inside], r_i[inside]
    n_users = users.size
    t_order, t_start = _kernels.group_rows(t_u, n_users)
    r_start = _kernels.group_starts(r_u, r_u, False, n_users)
    if not r_start.size:
        r_order, r_start = _kernels.group_rows(r_u, n_users)
        r_i = r_i[r_order]
    t_grouped = t_i[t_order]
    grouped = np.zeros(t_u.size, dtype=np.bool_)
    _kernels.over_users(n_users, lambda u0, u1: _kernels.listed(
        t_start, t_grouped, r_start, r_i, low, n_items, grouped, u0, u1))
    out = np.empty(t_u.size, dtype=np.bool_)
    out[t_order] = grouped
    return out


def _rating_levels(rating: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The distinct ratings (ascending) and each rating's index among them, as ``uint8``;
    None when there are more than ``_MAX_LEVELS`` of them.

    Half-star and whole-star scales are coded arithmetically, without hashing.
    """
    if rating.size == 0:
        return np.zeros(0), np.zeros(0, dtype=np.uint8)
    index, present, low = _kernels.half_star_levels(rating)
    if index.size:
        if np.count_nonzero(present) > _MAX_LEVELS:
            return None
        levels = (low + np.flatnonzero(present)) / 2.0
        if present.all():
            return levels, index
        return levels, (np.cumsum(present) - 1).astype(np.uint8)[index]
    codes, uniques = pd.factorize(rating, sort=True)
    if uniques.size > _MAX_LEVELS:
        return None
    return np.asarray(uniques, dtype=np.float64), codes.astype(np.uint8)


@dataclass(frozen=True, eq=False)
class HitTable:
    """Recommendations of the evaluated users joined with their test truth.

    Flat arrays hold one entry per recommended (user, item), ordered by user code and then by
    position; ``pos`` is the 1-based rank. ``users`` are the evaluated users (every user in the
    truth), in sorted order, and user code ``u`` is ``users[u]``.

    ``tie_group`` numbers the groups of tied scores when the lists are ordered by score (with
    ranks every position is its own group, and it is None).
    """

    users: pd.Index
    ucode: np.ndarray  # user code of each recommendation
    pos: np.ndarray  # 1-based rank
    code: np.ndarray  # the item's code in the user's test set (0: not in it)
    code_rating: np.ndarray  # per code: the test rating (0 for code 0)
    code_rel: np.ndarray  # per code: 1.0 if relevant, else 0.0
    monotone: bool  # codes are rating levels, in increasing order of rating
    row_start: np.ndarray  # per user: first recommendation row (n_users + 1 entries)
    truth_start: np.ndarray  # per user: first test row in truth_code (n_users + 1 entries)
    truth_code: np.ndarray  # codes of the test items, grouped by user
    tie_group: np.ndarray | None  # tie group id of each position; None: no ties (ranks)
    expected: bool  # ties="expected": values are averaged over each tie group
    n_rel: np.ndarray  # per user: relevant test items
    n_truth: np.ndarray  # per user: test items
    n_recs_only: int  # users that appear only in the recommendations (ignored)
    n_without_recs: int  # evaluated users with no recommendation (they score 0)
    n_per_user: np.ndarray = field(repr=False)  # per user: recommendations
    truth: TruthSide = field(repr=False)  # the coded truth, shared by tables of one truth
    repeats_item: bool = False  # a list names an item twice (the caller refuses the lists)
    repeats_rank: bool = False  # a list repeats a rank (the caller refuses the lists)

    @property
    def n_users(self) -> int:
        return len(self.users)

    # -- per-row values, from the codes (for the hits of metrics of your own) ----------
    @cached_property
    def rating(self) -> np.ndarray:
        """Per row: the item's test rating (0 where not in the test set)."""
        return self.code_rating[self.code]

    @cached_property
    def rel(self) -> np.ndarray:
        """Per row: 1.0 if the item is relevant, else 0.0."""
        return self.code_rel[self.code]

    @property
    def _ideal(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.truth.ideal  # computed once per truth

    @property
    def truth_ucode(self) -> np.ndarray:
        """Test rows in ideal order (by user, rating descending): their user codes."""
        return self._ideal[0]

    @property
    def truth_rating(self) -> np.ndarray:
        """Test rows in ideal order: their ratings."""
        return self._ideal[1]

    @property
    def truth_rank(self) -> np.ndarray:
        """Test rows in ideal order: 1-based position in the user's ideal list."""
        return self._ideal[2]

    def users_with_ties(self, k: int | None = None) -> np.ndarray:
        """Per user: whether the list holds two tied scores, one of them at a position of
        at most ``k`` (None: anywhere). A value at ``k`` can depend on the tie policy only
        for these users: a group of tied scores entirely below ``k`` moves nothing in the
        top ``k``."""
        moved = np.zeros(self.n_users, dtype=bool)
        if self.tie_group is None or len(self.tie_group) < 2:
            return moved
        pair = (self.tie_group[1:] == self.tie_group[:-1]) & (self.ucode[1:] == self.ucode[:-1])
        if k is not None:  # a group reaching the top k has a pair whose first row is in it
            pair &= self.pos[:-1] <= k
        moved[self.ucode[:-1][pair]] = True
        return moved

    @property
    def has_ties(self) -> bool:
        """Whether two positions of one user's list share a score."""
        if self.tie_group is None or len(self.tie_group) < 2:
            return False
        same = self.tie_group[1:] == self.tie_group[:-1]
        last = self.row_start[1:-1] - 1  # a user's last row against the next user's first
        same[last[(last >= 0) & (last < len(same))]] = False
        return bool(same.any())

    def n_straddling(self, k: int) -> int:
        """Users with a group of tied scores that straddles cutoff ``k``."""
        if self.tie_group is None:
            return 0  # every group is a single position
        # lists ordered by score hold positions 1..n: a group straddles k when the rows at
        # positions k and k + 1 share it
        rows = self.row_start[:-1][self.n_per_user > k] + (k - 1)
        return int(np.count_nonzero(self.tie_group[rows] == self.tie_group[rows + 1]))


def _ideal_order(
    truth_code: np.ndarray, code_rating: np.ndarray, n_truth: np.ndarray, monotone: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Truth in ideal order: user code, rating (descending within user) and 1-based rank.

    Ratings usually take a handful of values (half stars), so the order comes from counting
    each (user, rating level) pair, without sorting; many distinct ratings fall back to a sort.
    """
    n_users = n_truth.size
    t_u = np.repeat(np.arange(n_users, dtype=np.int32), n_truth)
    t_rating = code_rating[truth_code]
    levels = (code_rating[1:], (truth_code - 1).astype(np.uint8)) if monotone else None
    n_values = 0 if levels is None else levels[0].size
    if 0 < n_values <= 64 and n_users * n_values <= max(4 * t_u.size, 1 << 16):
        values, index = levels
        key = t_u.astype(np.int64 if n_users * n_values >= 2**31 else np.int32) * n_values
        key += (n_values - 1) - index  # the highest rating first
        counts = np.bincount(key, minlength=n_users * n_values)
        t_us = np.repeat(np.arange(n_users, dtype=t_u.dtype), n_truth)
        rating = np.repeat(np.tile(values[::-1], n_users), counts)
    else:
        by_rating = np.argsort(-t_rating, kind="stable")
        ideal = by_rating[np.argsort(t_u[by_rating], kind="stable")]  # = lexsort((-r, u))
        t_us = t_u[ideal]
        rating = t_rating[ideal]
    dtype = np.int32 if t_us.size < 2**31 - 1 else np.int64
    t_starts = (np.cumsum(n_truth) - n_truth).astype(dtype)
    truth_rank = np.arange(1, t_us.size + 1, dtype=dtype)
    truth_rank -= t_starts[t_us]
    return t_us, rating, truth_rank


def _tie_key(r_i: np.ndarray, r_item: np.ndarray, tie_order: str) -> np.ndarray:
    """Per recommendation: the key that orders tied items (``r_i`` keys follow item order)."""
    if tie_order == "item":
        return r_i
    if tie_order == "item_desc":
        return -r_i.astype(np.int64)
    # the rank of each item's id as text among the distinct items (the lists repeat items:
    # 16M rows hold 59k items at MovieLens-25M scale), as np.unique of the rows' text gives it
    codes, items = pd.factorize(r_item)
    _, rank = np.unique(np.asarray(items).astype(str), return_inverse=True)
    key = rank.reshape(-1)[codes]
    return key if tie_order == "item_str" else -key


@dataclass(frozen=True, eq=False)
class TruthSide:
    """The test truth coded for joins: what a hit table needs from the truth alone.

    Built once by :func:`truth_side`, it serves every list joined to the same truth (the
    systems of :func:`evalkit.compare`): the user codes, the test rows grouped by user, their
    rating codes, and the ideal order, computed on first use.
    """

    users: np.ndarray  # the evaluated users, sorted
    item: np.ndarray  # per test row (grouped by user): its item id
    code: np.ndarray  # per test row (grouped by user): its nonzero rating code
    code_rating: np.ndarray  # per code: the test rating (0 for code 0)
    monotone: bool  # codes are rating levels, in increasing order of rating
    start: np.ndarray  # per user: first test row (n_users + 1 entries)

    @cached_property
    def ideal(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Test rows in ideal order: user codes, ratings and 1-based ranks."""
        return _ideal_order(self.code, self.code_rating, np.diff(self.start), self.monotone)


def truth_side(truth: pd.DataFrame, users: object = None) -> TruthSide:
    """Code validated ``truth`` for :func:`build_hits` (``users``: as there)."""
    known: dict = {}
    t_user = id_array(truth["user_id"])
    users = unique_ids(t_user, known=known) if users is None else \
        np.unique(id_array(pd.Series(users)))
    t_u = codes_of(t_user, users, known)
    t_item = id_array(truth["item_id"])
    t_rating = truth["rating"].to_numpy(dtype=np.float64)
    # each test row gets a nonzero code: its rating level (one byte) or its row number
    levels = _rating_levels(t_rating)
    if levels is not None:
        code_rating = np.concatenate([[0.0], levels[0]])
        t_code = levels[1] + np.uint8(1)
    else:
        code_rating = np.concatenate([[0.0], t_rating])
        t_code = np.arange(1, t_u.size + 1, dtype=np.int32 if t_u.size < 2**31 - 1 else np.int64)
    t_start = _kernels.group_starts(t_u, t_u, False, users.size)
    if not t_start.size:  # truth not grouped by user: a counting sort groups it
        order, t_start = _kernels.group_rows(t_u, users.size)
        t_item, t_code = t_item[order], t_code[order]
    return TruthSide(users=users, item=t_item, code=t_code,
                     code_rating=code_rating, monotone=levels is not None, start=t_start)


def build_hits(
    truth: pd.DataFrame | TruthSide,
    recs: pd.DataFrame,
    *,
    threshold: float | None,
    ties: str,
    tie_order: str = "item",
    users: object = None,
) -> HitTable:
    """Join validated ``truth`` (a frame, or its :func:`truth_side`) and ``recs`` into a
    :class:`HitTable`.

    ``recs`` are ordered by ``rank`` when present, else by descending ``score`` with ties
    resolved by ``ties``: ``"deterministic"`` (in ``tie_order``), ``"optimistic"`` /
    ``"pessimistic"`` (relevant items first / last within a tie group, then higher / lower
    rating, then ``tie_order``), or ``"expected"`` (values averaged over each tie group).
    ``tie_order``: item id ascending (``"item"``), descending (``"item_desc"``), or the ids as
    strings ascending (``"item_str"``) or descending (``"item_str_desc"``).

    ``users`` (optional, with a frame) are the evaluated users when they are more than those
    in ``truth`` (test items removed by a definition leave users with none).

    Recommendations already sorted by user and rank (or by user and descending score) are
    used in place, without a sort or a copy.
    """
    side = truth if isinstance(truth, TruthSide) else truth_side(truth, users)
    users = side.users
    n_users = users.size
    known: dict = {}  # bounds of the id arrays, each computed once
    r_user = id_array(recs["user_id"])
    r_u = codes_of(r_user, users, known)
    all_kept = r_u.size == 0 or bool(r_u.min() >= 0)
    keep = None if all_kept else r_u >= 0
    n_recs_only = 0 if all_kept else int(unique_ids(r_user[~keep]).size)

    def kept(values: np.ndarray) -> np.ndarray:
        return values if all_kept else values[keep]

    all_items = id_array(recs["item_id"])
    ranked = "rank" in recs.columns
    all_ranks = recs["rank"].to_numpy().astype(np.int64, copy=False) if ranked else None
    # the rows left out (users only in the lists) are checked for repeated items and ranks
    # here, the others by the join and the rank order below
    repeats = not all_kept and has_duplicate_pairs(r_user[~keep], all_items[~keep])
    repeats_rank = ranked and not all_kept and has_duplicate_pairs(r_user[~keep],
                                                                   all_ranks[~keep])
    r_item = kept(all_items)
    del all_items
    t_i, r_i, item_low, n_items = _item_keys(side.item, r_item, known)
    del known
    r_u = kept(r_u)

    if ranked:
        rank = kept(all_ranks)
        # empty: not sorted by user and strictly by rank (a rank repeats, or out of order)
        r_start = _kernels.group_starts(r_u, rank, True, n_users)
        if not r_start.size:
            order, r_start = _kernels.order_by_group(r_u, rank, rank, n_users)
            r_u, r_i, rank = r_u[order], r_i[order], rank[order]
            repeats_rank |= bool(np.any((r_u[1:] == r_u[:-1]) & (rank[1:] == rank[:-1])))
        score = None
    else:
        score = kept(recs["score"].to_numpy(dtype=np.float64))
        r_start = np.zeros(0, dtype=np.int64)
        tie_key = _tie_key(r_i, r_item, tie_order)
        # averaged over each tie group, values do not depend on the order within it
        by_key = ties != "expected"
        if not _kernels.ordered_by_score(r_u, score, tie_key, by_key):
            minus = -score
            order, r_start = _kernels.order_by_group(r_u, minus, tie_key if by_key else minus,
                                                     n_users)
            r_u, r_i, score, tie_key = r_u[order], r_i[order], score[order], tie_key[order]
    if not r_start.size:
        r_start = _kernels.group_starts(r_u, r_u, False, n_users)

    code_rating, t_code, t_start = side.code_rating, side.code, side.start
    code_rel = np.ones(code_rating.size) if threshold is None else \
        (code_rating >= threshold).astype(np.float64)
    code_rel[0] = 0.0

    code = np.empty(r_u.size, dtype=t_code.dtype)
    n_rel = np.empty(n_users)
    repeats |= any(_kernels.over_users(n_users, lambda u0, u1, t_i=t_i: _kernels.join(
        t_start, t_i, t_code, r_start, r_i, item_low, n_items, code_rel, code, n_rel, u0, u1)))
    del t_i

    per_user = np.diff(r_start)
    if ranked:
        pos = rank
        tie_group = None
    else:
        pos, tie_group = _kernels.score_positions(r_start, score)
        if ties in ("optimistic", "pessimistic"):
            sign = -1.0 if ties == "optimistic" else 1.0
            order = np.lexsort((tie_key, sign * code_rating[code], sign * code_rel[code],
                                tie_group))
            code = code[order]

    return HitTable(
        users=pd.Index(users, name="user_id"),
        ucode=r_u,
        pos=pos,
        code=code,
        code_rating=code_rating,
        code_rel=code_rel,
        monotone=side.monotone,
        row_start=r_start,
        truth_start=t_start,
        truth_code=t_code,
        tie_group=tie_group,
        expected=ties == "expected" and not ranked,
        n_rel=n_rel,
        n_truth=np.diff(t_start),
        n_recs_only=n_recs_only,
        n_without_recs=int(n_users - np.count_nonzero(per_user)),
        n_per_user=per_user,
        truth=side,
        repeats_item=repeats,
        repeats_rank=bool(repeats_rank),
    )
