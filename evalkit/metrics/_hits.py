"""The hit table: recommendations joined once with the test truth, ready for array reductions.

Every ranking metric is a reduction of the same few per-position vectors (is the item at rank
``i`` relevant, what is its rating) and of the user's ideal list. :func:`build_hits` computes
them once, with integer codes and a single join, and :class:`HitTable` turns them into dense
``(n_users, k)`` matrices so that a metric at every cutoff ``1..k`` is one cumulative sum.

The join works on user blocks: a code for each test item of a block of users (its rating
level, one byte) is written into a small dense lookup array (users x items of the block, sized
to stay in cache), the block's recommendations read their codes from it, and the entries are
cleared again. That is a linear-time hash join without hashing, and on MovieLens-25M-sized
input it is several times faster than a sort-merge or a hash-table join. More than 254
distinct ratings store truth row numbers instead of rating levels; catalogues too large for a
block fall back to a hash join.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd
from scipy.special import gammaln

__all__ = ["HitTable", "build_hits"]

_BLOCK_BYTES = 1 << 22  # lookup array per user block: 4 MiB, to stay in cache
_MAX_LEVELS = 254  # distinct ratings coded in one byte (0: not in the test set)


def _bounds(values: np.ndarray, known: dict | None) -> tuple:
    """``(min, max)`` of a non-empty array, remembered in ``known`` (keyed by the array)."""
    if known is None:
        return values.min(), values.max()
    entry = known.get(id(values))
    if entry is None or entry[0] is not values:
        entry = known[id(values)] = (values, values.min(), values.max())
    return entry[1], entry[2]


def _codes(values: np.ndarray, uniques: np.ndarray, known: dict | None = None) -> np.ndarray:
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
            low, high = _bounds(values, known)
            contiguous = int(uniques[-1]) - int(uniques[0]) + 1 == uniques.size
            if contiguous and low >= uniques[0] and high <= uniques[-1]:
                codes = values.astype(dtype)  # ids first..last, all present: an offset
                codes -= uniques[0].astype(dtype)
                return codes
        lookup = np.full(int(uniques[-1]) + 1, -1, dtype=dtype)
        lookup[uniques] = np.arange(uniques.size, dtype=dtype)
        if values.size and low >= 0 and high <= uniques[-1]:
            return lookup[values]
        inside = (values >= 0) & (values <= uniques[-1])
        out = np.full(values.shape, -1, dtype=dtype)
        out[inside] = lookup[values[inside]]
        return out
    return pd.Index(uniques).get_indexer(values).astype(dtype)


def _unique(*arrays: np.ndarray, known: dict | None = None) -> np.ndarray:
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


def _id_array(series: pd.Series) -> np.ndarray:
    values = series.to_numpy()
    if values.dtype.kind in "iu":
        return values.astype(np.int64, copy=False)
    return values.astype(object)


def _is_sorted_by(*keys: np.ndarray) -> bool:
    """True when rows are already in lexicographic order of ``keys`` (first key first)."""
    n = keys[0].size
    if n < 2:
        return True
    settled: np.ndarray | None = None  # pairs already ordered by an earlier key
    for j, key in enumerate(keys):
        before, after = key[:-1], key[1:]
        descending = after < before
        if settled is not None:
            descending &= ~settled
        if descending.any():
            return False
        if j + 1 < len(keys):
            rising = after > before
            settled = rising if settled is None else settled | rising
    return True


def _join(t_u, t_i, r_u, r_i, n_users: int, n_items: int, payload: np.ndarray) -> np.ndarray:
    """``payload`` of the truth row matching each (user, item) in recs, or 0 where none does.

    ``payload`` holds one nonzero value per truth row (a rating level code, or a row number
    plus one). ``r_u`` must be sorted (recs grouped by user); truth may be in any order.
    """
    out = np.zeros(r_u.size, dtype=payload.dtype)
    if r_u.size == 0 or t_u.size == 0:
        return out
    block = _BLOCK_BYTES // payload.itemsize // max(n_items, 1)  # users per block
    if block < 1:
        t_key = t_u.astype(np.int64) * n_items + t_i
        r_key = r_u.astype(np.int64) * n_items + r_i
        row = pd.Index(t_key).get_indexer(r_key)
        found = np.flatnonzero(row >= 0)
        out[found] = payload[row[found]]
        return out
    block = min(block, n_users)
    t_order = None if _is_sorted_by(t_u) else np.argsort(t_u, kind="stable")
    t_us = t_u if t_order is None else t_u[t_order]
    bounds = np.arange(0, n_users + block, block).clip(max=n_users)
    t_cut = np.searchsorted(t_us, bounds)
    r_cut = np.searchsorted(r_u, bounds)
    t_is = t_i if t_order is None else t_i[t_order]
    t_value = payload if t_order is None else payload[t_order]
    lookup = np.zeros(block * n_items, dtype=payload.dtype)
    for j in range(bounds.size - 1):  # a loop over user blocks, not users
        t0, t1, r0, r1 = t_cut[j], t_cut[j + 1], r_cut[j], r_cut[j + 1]
        if r0 == r1 or t0 == t1:
            continue
        # cell of each row in the block's (users x items) lookup: fewer than 2**31 cells,
        # computed per block so that the arrays stay in cache
        first = bounds[j]
        cells = t_us[t0:t1] - first
        cells *= n_items
        cells += t_is[t0:t1]
        lookup[cells] = t_value[t0:t1]
        wanted = r_u[r0:r1] - first
        wanted *= n_items
        wanted += r_i[r0:r1]
        np.take(lookup, wanted, out=out[r0:r1])
        lookup[cells] = 0
    return out


def _rating_levels(rating: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The distinct ratings (ascending) and each rating's index among them, as ``uint8``;
    None when there are more than ``_MAX_LEVELS`` of them.

    Half-star and whole-star scales are coded arithmetically, without hashing.
    """
    if rating.size == 0:
        return np.zeros(0), np.zeros(0, dtype=np.uint8)
    doubled = rating * 2.0
    low, high = doubled.min(), doubled.max()
    if high - low < 256 and np.all(doubled == np.floor(doubled)):
        index = (doubled - low).astype(np.uint8)
        present = np.bincount(index, minlength=int(high - low) + 1) > 0
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

    Tie groups (``group``, ``group_start``, ``group_size``, ``group_user``) are built only when
    the lists are ordered by score; with ranks every position is its own group and they are
    derived on demand.
    """

    users: pd.Index
    ucode: np.ndarray  # user code of each recommendation
    pos: np.ndarray  # 1-based rank
    in_truth: np.ndarray  # bool: the item is in the user's test set
    rating: np.ndarray  # its test rating (0 where not in truth)
    rel: np.ndarray  # 1.0 if relevant, else 0.0
    tie_group: np.ndarray | None  # tie group id of each position; None: no ties (ranks)
    expected: bool  # ties="expected": values are averaged over each tie group
    n_rel: np.ndarray  # per user: relevant test items
    n_truth: np.ndarray  # per user: test items
    truth_ucode: np.ndarray  # truth rows, sorted by user then rating descending
    truth_rating: np.ndarray
    truth_rank: np.ndarray  # 1-based position in the user's ideal list
    n_recs_only: int  # users that appear only in the recommendations (ignored)
    n_without_recs: int  # evaluated users with no recommendation (they score 0)
    n_per_user: np.ndarray = field(repr=False)  # per user: recommendations

    @property
    def n_users(self) -> int:
        return len(self.users)

    # -- tie groups ----------------------------------------------------------------------
    @cached_property
    def group(self) -> np.ndarray:
        """Tie group id of each position (each position alone when no ties)."""
        if self.tie_group is None:
            return np.arange(self.pos.size)
        return self.tie_group

    @cached_property
    def group_size(self) -> np.ndarray:
        """Per group: number of positions."""
        if self.tie_group is None:
            return np.ones(self.pos.size, dtype=np.int64)
        return np.bincount(self.tie_group)

    @cached_property
    def _first_of_group(self) -> np.ndarray:
        if self.tie_group is None:
            return np.arange(self.pos.size)
        return np.concatenate([[0], np.cumsum(self.group_size)[:-1]]).astype(np.int64)

    @cached_property
    def group_start(self) -> np.ndarray:
        """Per group: first position."""
        if self.pos.size == 0:
            return np.zeros(0, dtype=np.int64)
        return self.pos[self._first_of_group]

    @cached_property
    def group_user(self) -> np.ndarray:
        """Per group: user code."""
        if self.pos.size == 0:
            return np.zeros(0, dtype=np.int64)
        return self.ucode[self._first_of_group]

    # -- layout --------------------------------------------------------------------------
    @cached_property
    def _width(self) -> int:
        """``L`` when every user has exactly the positions 1..L (a full rectangle), else 0."""
        n_users = self.n_users
        if n_users == 0 or self.pos.size == 0 or self.pos.size % n_users:
            return 0
        width = self.pos.size // n_users
        if not np.all(self.n_per_user == width):
            return 0
        # ranks are unique and increasing within a user, so ending at L means exactly 1..L
        if self.pos[0] != 1 or not np.all(self.pos[width - 1 :: width] == width):
            return 0
        return int(width)

    def _cells(self, k: int, ideal: bool) -> tuple[np.ndarray | None, np.ndarray]:
        """Rows at positions <= k (None: all) and their flat cells in an (n_users, k) matrix."""
        cache = self.__dict__.setdefault("_cell_cache", {})
        key = (k, ideal)
        if key not in cache:
            ucode, pos = (self.truth_ucode, self.truth_rank) if ideal else (self.ucode, self.pos)
            sel = None if pos.size == 0 or pos.max() <= k else np.flatnonzero(pos <= k)
            if sel is not None:
                ucode, pos = ucode[sel], pos[sel]
            cells = ucode.astype(np.int64) * k
            cells += pos
            cells -= 1
            cache[key] = (sel, cells)
        return cache[key]

    def _scatter(self, values: np.ndarray, k: int, ideal: bool) -> np.ndarray:
        sel, cells = self._cells(k, ideal)
        out = np.zeros(self.n_users * k)
        out[cells] = values if sel is None else values[sel]
        return out.reshape(self.n_users, k)

    # -- per-position values -------------------------------------------------------------
    def effective(self, values: np.ndarray) -> np.ndarray:
        """Values as the metrics see them: averaged over tie groups under ``ties="expected"``."""
        if not self.expected:
            return values
        sums = np.bincount(self.group, weights=values, minlength=self.group_size.size)
        return (sums / self.group_size)[self.group]

    def dense(self, values: np.ndarray, k: int) -> np.ndarray:
        """Per-position ``values`` as an ``(n_users, k)`` matrix (0 past the list).

        The result may be a read-only view of ``values``; callers must not write to it.
        """
        width = self._width
        if width and k <= width:
            view = values.reshape(self.n_users, width)[:, :k]
            view.flags.writeable = False
            return view
        return self._scatter(values, k, ideal=False)

    def ideal(self, values: np.ndarray, k: int) -> np.ndarray:
        """Scatter per-truth-row ``values`` (ideal order) into an ``(n_users, k)`` matrix."""
        return self._scatter(values, k, ideal=True)

    @cached_property
    def first_hit_rows(self) -> np.ndarray:
        """Row of each user's first relevant item, in list order (users without one: none)."""
        hits = np.flatnonzero(self.rel > 0)
        users = self.ucode[hits]  # sorted: rows are grouped by user
        first = np.ones(hits.size, dtype=bool)
        first[1:] = users[1:] != users[:-1]
        return hits[first]

    def first_relevant(self) -> np.ndarray:
        """Per position: probability that it holds the user's first relevant item.

        With deterministic ties this is 1 at the first hit and 0 elsewhere. Under
        ``ties="expected"`` the first tie group holding a relevant item spreads it: with ``g``
        items of which ``r`` are relevant, the first relevant one sits ``t`` places into the
        group with probability ``C(g-1-t, r-1) / C(g, r)``.
        """
        out = np.zeros(self.pos.size)
        if not self.expected:
            out[self.first_hit_rows] = 1.0
            return out
        n_groups = self.group_size.size
        r = np.bincount(self.group, weights=self.rel, minlength=n_groups)
        with_rel = np.flatnonzero(r > 0)
        _, first = np.unique(self.group_user[with_rel], return_index=True)
        is_first = np.zeros(n_groups, dtype=bool)
        is_first[with_rel[first]] = True
        sel = np.flatnonzero(is_first[self.group])
        g = self.group_size[self.group[sel]].astype(np.float64)
        rr = np.rint(r[self.group[sel]])
        t = (self.pos[sel] - self.group_start[self.group[sel]]).astype(np.float64)
        ok = t <= g - rr
        n1 = np.where(ok, g - 1 - t, 0.0)
        log_p = (
            gammaln(n1 + 1) - gammaln(rr) - gammaln(np.maximum(n1 - rr + 2, 1.0))
            - (gammaln(g + 1) - gammaln(rr + 1) - gammaln(g - rr + 1))
        )
        out[sel] = np.where(ok, np.exp(log_p), 0.0)
        return out

    def n_straddling(self, k: int) -> int:
        """Users with a group of tied scores that straddles cutoff ``k``."""
        if self.tie_group is None:
            return 0  # every group is a single position
        end = self.group_start + self.group_size - 1
        mask = (self.group_start <= k) & (end > k)
        return int(np.unique(self.group_user[mask]).size)


def _ideal_order(
    t_u: np.ndarray, t_rating: np.ndarray, n_users: int,
    levels: tuple[np.ndarray, np.ndarray] | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Truth in ideal order: user code, rating (descending within user) and 1-based rank.

    Ratings usually take a handful of values (half stars), so the order comes from counting
    each (user, rating level) pair, without sorting; many distinct ratings fall back to a sort.
    """
    n_truth = np.bincount(t_u, minlength=n_users)
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


def build_hits(
    truth: pd.DataFrame,
    recs: pd.DataFrame,
    *,
    threshold: float | None,
    ties: str,
) -> HitTable:
    """Join validated ``truth`` and ``recs`` into a :class:`HitTable`.

    ``recs`` are ordered by ``rank`` when present, else by descending ``score`` with ties
    resolved by ``ties``: ``"deterministic"`` (item_id ascending), ``"optimistic"`` /
    ``"pessimistic"`` (relevant items first / last within a tie group, then higher / lower
    rating), or ``"expected"`` (values averaged over each tie group).

    Recommendations already sorted by user and rank (or by user and descending score) are
    used in place, without a sort or a copy.
    """
    known: dict = {}  # bounds of the id arrays, each computed once
    t_user = _id_array(truth["user_id"])
    users = _unique(t_user, known=known)
    n_users = users.size
    t_u = _codes(t_user, users, known)
    r_user = _id_array(recs["user_id"])
    r_u = _codes(r_user, users, known)
    all_kept = r_u.size == 0 or bool(r_u.min() >= 0)
    keep = None if all_kept else r_u >= 0
    n_recs_only = 0 if all_kept else int(_unique(r_user[~keep]).size)

    def kept(values: np.ndarray) -> np.ndarray:
        return values if all_kept else values[keep]

    t_item = _id_array(truth["item_id"])
    r_item = kept(_id_array(recs["item_id"]))
    items = _unique(t_item, r_item, known=known)
    t_i = _codes(t_item, items, known)
    r_i = _codes(r_item, items, known)
    del known
    r_u = kept(r_u)

    t_rating = truth["rating"].to_numpy(dtype=np.float64)
    relevant = np.ones(t_rating.size, dtype=bool) if threshold is None else t_rating >= threshold

    ranked = "rank" in recs.columns
    if ranked:
        rank = kept(recs["rank"].to_numpy()).astype(np.int64, copy=False)
        if not _is_sorted_by(r_u, rank):
            order = np.lexsort((rank, r_u))
            r_u, r_i, rank = r_u[order], r_i[order], rank[order]
        score = None
    else:
        score = kept(recs["score"].to_numpy(dtype=np.float64))
        if not _is_sorted_by(r_u, -score, r_i):
            order = np.lexsort((r_i, -score, r_u))
            r_u, r_i, score = r_u[order], r_i[order], score[order]

    levels = _rating_levels(t_rating)
    if levels is not None:  # one byte per row: the rating level + 1, 0 outside the test set
        code = _join(t_u, t_i, r_u, r_i, n_users, items.size, levels[1] + np.uint8(1))
        in_truth = code > 0
        rating = np.concatenate([[0.0], levels[0]])[code]
        level_relevant = levels[0] >= (-np.inf if threshold is None else threshold)
        rel = np.concatenate([[0.0], level_relevant.astype(np.float64)])[code]
        del code
    else:  # row numbers + 1
        row_dtype = np.int32 if t_u.size < 2**31 - 1 else np.int64
        row = _join(t_u, t_i, r_u, r_i, n_users, items.size,
                    np.arange(1, t_u.size + 1, dtype=row_dtype))
        in_truth = row > 0
        found = np.flatnonzero(in_truth)  # few: most recommendations miss
        matched = row[found] - 1
        del row
        rating = np.zeros(in_truth.size)
        rating[found] = t_rating[matched]
        rel = np.zeros(in_truth.size)
        rel[found] = relevant[matched]

    n = r_u.size
    per_user = np.bincount(r_u, minlength=n_users)
    if ranked:
        pos = rank
        tie_group = None
    else:
        starts = np.cumsum(per_user) - per_user
        pos = np.arange(n) - starts[r_u] + 1
        new = np.ones(n, dtype=bool)
        new[1:] = (r_u[1:] != r_u[:-1]) | (score[1:] != score[:-1])
        tie_group = np.cumsum(new) - 1
        if ties in ("optimistic", "pessimistic"):
            sign = -1.0 if ties == "optimistic" else 1.0
            order = np.lexsort((r_i, sign * rating, sign * rel, tie_group))
            in_truth, rating, rel = in_truth[order], rating[order], rel[order]

    t_us, truth_rating, truth_rank = _ideal_order(t_u, t_rating, n_users, levels)
    n_rel = np.bincount(t_u, weights=relevant, minlength=n_users)
    n_truth = np.bincount(t_u, minlength=n_users)
    return HitTable(
        users=pd.Index(users, name="user_id"),
        ucode=r_u,
        pos=pos,
        in_truth=in_truth,
        rating=rating,
        rel=rel,
        tie_group=tie_group,
        expected=ties == "expected" and not ranked,
        n_rel=n_rel,
        n_truth=n_truth,
        truth_ucode=t_us,
        truth_rating=truth_rating,
        truth_rank=truth_rank,
        n_recs_only=n_recs_only,
        n_without_recs=int(n_users - np.count_nonzero(per_user)),
        n_per_user=per_user,
    )
