"""The hit table: recommendations joined once with the test truth, ready for array reductions.

Every ranking metric is a reduction of the same few per-position vectors (is the item at rank
``i`` relevant, what is its rating) and of the user's ideal list. :func:`build_hits` computes
them once, with integer codes and a single join, and :class:`HitTable` turns them into dense
``(n_users, k)`` matrices so that a metric at every cutoff ``1..k`` is one cumulative sum.

The join works on user blocks: the truth items of a block of users are written into a small
dense lookup array (users x items of the block, sized to stay in cache), the block's
recommendations are read from it, and the entries are cleared again. That is a linear-time
hash join without hashing, and on MovieLens-25M-sized input it is several times faster than a
sort-merge or a hash-table join. Catalogues too large for a block fall back to a hash join.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import gammaln

__all__ = ["HitTable", "build_hits"]

_BLOCK_CELLS = 1 << 21  # lookup cells per user block (int32: 8 MiB)


def _codes(values: np.ndarray, uniques: np.ndarray) -> np.ndarray:
    """Position of each value in the sorted array ``uniques``, or -1 if absent."""
    if uniques.size == 0:
        return np.full(values.shape, -1, dtype=np.int64)
    if (
        values.dtype.kind in "iu"
        and uniques.dtype.kind in "iu"
        and uniques[0] >= 0
        and uniques[-1] < max(4 * uniques.size, 1 << 20)
    ):
        lookup = np.full(int(uniques[-1]) + 1, -1, dtype=np.int64)
        lookup[uniques] = np.arange(uniques.size)
        inside = (values >= 0) & (values <= uniques[-1])
        out = np.full(values.shape, -1, dtype=np.int64)
        out[inside] = lookup[values[inside]]
        return out
    return pd.Index(uniques).get_indexer(values).astype(np.int64)


def _unique(values: np.ndarray) -> np.ndarray:
    """Sorted unique values; linear time for small non-negative integer ids."""
    if values.dtype.kind in "iu" and values.size:
        lo, hi = values.min(), values.max()
        if lo >= 0 and hi < max(4 * values.size, 1 << 20):
            present = np.zeros(int(hi) + 1, dtype=bool)
            present[values] = True
            return np.flatnonzero(present).astype(values.dtype)
    return np.unique(values)


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
    settled = np.zeros(n - 1, dtype=bool)
    for key in keys:
        d = np.diff(key)
        if np.any(~settled & (d < 0)):
            return False
        settled |= d > 0
    return True


def _join(t_u, t_i, r_u, r_i, n_users: int, n_items: int) -> np.ndarray:
    """Index of the truth row matching each (user, item) in recs, or -1.

    ``r_u`` must be sorted (recs grouped by user); truth may be in any order.
    """
    out = np.full(r_u.size, -1, dtype=np.int64)
    if r_u.size == 0 or t_u.size == 0:
        return out
    if n_items > _BLOCK_CELLS:
        t_key = t_u * n_items + t_i
        r_key = r_u * n_items + r_i
        return pd.Index(t_key).get_indexer(r_key).astype(np.int64)
    t_order = np.arange(t_u.size) if _is_sorted_by(t_u) else np.argsort(t_u, kind="stable")
    t_us = t_u[t_order]
    block = max(1, _BLOCK_CELLS // n_items)
    bounds = np.arange(0, n_users + block, block).clip(max=n_users)
    t_cut = np.searchsorted(t_us, bounds)
    r_cut = np.searchsorted(r_u, bounds)
    lookup = np.zeros(block * n_items, dtype=np.int64)
    for j in range(bounds.size - 1):  # a loop over user blocks, not users
        if r_cut[j] == r_cut[j + 1] or t_cut[j] == t_cut[j + 1]:
            continue
        rows = t_order[t_cut[j] : t_cut[j + 1]]
        cells = (t_u[rows] - bounds[j]) * n_items + t_i[rows]
        lookup[cells] = rows + 1
        sl = slice(r_cut[j], r_cut[j + 1])
        out[sl] = lookup[(r_u[sl] - bounds[j]) * n_items + r_i[sl]] - 1
        lookup[cells] = 0
    return out


@dataclass(frozen=True, eq=False)
class HitTable:
    """Recommendations of the evaluated users joined with their test truth.

    Flat arrays hold one entry per recommended (user, item), ordered by user code and then by
    position; ``pos`` is the 1-based rank. ``users`` are the evaluated users (every user in the
    truth), in sorted order, and user code ``u`` is ``users[u]``.
    """

    users: pd.Index
    ucode: np.ndarray  # user code of each recommendation
    pos: np.ndarray  # 1-based rank
    in_truth: np.ndarray  # bool: the item is in the user's test set
    rating: np.ndarray  # its test rating (0 where not in truth)
    rel: np.ndarray  # 1.0 if relevant, else 0.0
    group: np.ndarray  # tie group id of each position (each position alone when no ties)
    group_start: np.ndarray  # per group: first position
    group_size: np.ndarray  # per group: number of positions
    group_user: np.ndarray  # per group: user code
    expected: bool  # ties="expected": values are averaged over each tie group
    n_rel: np.ndarray  # per user: relevant test items
    n_truth: np.ndarray  # per user: test items
    truth_ucode: np.ndarray  # truth rows, sorted by user then rating descending
    truth_rating: np.ndarray
    truth_rank: np.ndarray  # 1-based position in the user's ideal list
    n_recs_only: int  # users that appear only in the recommendations (ignored)
    n_without_recs: int  # evaluated users with no recommendation (they score 0)

    @property
    def n_users(self) -> int:
        return len(self.users)

    # -- per-position values -------------------------------------------------------------
    def effective(self, values: np.ndarray) -> np.ndarray:
        """Values as the metrics see them: averaged over tie groups under ``ties="expected"``."""
        if not self.expected:
            return values
        sums = np.bincount(self.group, weights=values, minlength=self.group_size.size)
        return (sums / self.group_size)[self.group]

    def dense(self, values: np.ndarray, k: int) -> np.ndarray:
        """Scatter per-position ``values`` into an ``(n_users, k)`` matrix (0 past the list)."""
        out = np.zeros((self.n_users, k))
        sel = self.pos <= k
        out[self.ucode[sel], self.pos[sel] - 1] = values[sel]
        return out

    def ideal(self, values: np.ndarray, k: int) -> np.ndarray:
        """Scatter per-truth-row ``values`` (ideal order) into an ``(n_users, k)`` matrix."""
        out = np.zeros((self.n_users, k))
        sel = self.truth_rank <= k
        out[self.truth_ucode[sel], self.truth_rank[sel] - 1] = values[sel]
        return out

    def first_relevant(self) -> np.ndarray:
        """Per position: probability that it holds the user's first relevant item.

        With deterministic ties this is 1 at the first hit and 0 elsewhere. Under
        ``ties="expected"`` the first tie group holding a relevant item spreads it: with ``g``
        items of which ``r`` are relevant, the first relevant one sits ``t`` places into the
        group with probability ``C(g-1-t, r-1) / C(g, r)``.
        """
        out = np.zeros(self.pos.size)
        if not self.expected:
            hits = np.flatnonzero(self.rel > 0)
            _, first = np.unique(self.ucode[hits], return_index=True)
            out[hits[first]] = 1.0
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
        end = self.group_start + self.group_size - 1
        mask = (self.group_start <= k) & (end > k)
        return int(np.unique(self.group_user[mask]).size)


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
    """
    t_user = _id_array(truth["user_id"])
    users = _unique(t_user)
    n_users = users.size
    t_u = _codes(t_user, users)
    r_user = _id_array(recs["user_id"])
    r_u = _codes(r_user, users)
    keep = r_u >= 0
    n_recs_only = int(_unique(r_user[~keep]).size) if not keep.all() else 0

    t_item = _id_array(truth["item_id"])
    r_item = _id_array(recs["item_id"])[keep]
    items = _unique(np.concatenate([t_item, r_item]))
    t_i = _codes(t_item, items)
    r_i = _codes(r_item, items)
    r_u = r_u[keep]

    t_rating = truth["rating"].to_numpy(dtype=np.float64)
    relevant = np.ones(t_rating.size, dtype=bool) if threshold is None else t_rating >= threshold

    ranked = "rank" in recs.columns
    if ranked:
        rank = recs["rank"].to_numpy()[keep].astype(np.int64)
        if not _is_sorted_by(r_u, rank):
            order = np.lexsort((rank, r_u))
            r_u, r_i, rank = r_u[order], r_i[order], rank[order]
        score = None
    else:
        score = recs["score"].to_numpy(dtype=np.float64)[keep]
        if not _is_sorted_by(r_u, -score, r_i):
            order = np.lexsort((r_i, -score, r_u))
            r_u, r_i, score = r_u[order], r_i[order], score[order]

    tidx = _join(t_u, t_i, r_u, r_i, n_users, items.size)
    in_truth = tidx >= 0
    rating = np.where(in_truth, t_rating[tidx], 0.0)
    rel = (in_truth & relevant[tidx]).astype(np.float64)

    n = r_u.size
    starts = np.searchsorted(r_u, np.arange(n_users))
    if ranked:
        pos = rank
        group = np.arange(n)
    else:
        pos = np.arange(n) - starts[r_u] + 1
        new = np.ones(n, dtype=bool)
        new[1:] = (r_u[1:] != r_u[:-1]) | (score[1:] != score[:-1])
        group = np.cumsum(new) - 1
        if ties in ("optimistic", "pessimistic"):
            sign = -1.0 if ties == "optimistic" else 1.0
            order = np.lexsort((r_i, sign * rating, sign * rel, group))
            in_truth, rating, rel = in_truth[order], rating[order], rel[order]
    group_size = np.bincount(group)
    first_of_group = np.concatenate([[0], np.cumsum(group_size)[:-1]]).astype(np.int64)
    group_start = pos[first_of_group] if n else np.zeros(0, dtype=np.int64)
    group_user = r_u[first_of_group] if n else np.zeros(0, dtype=np.int64)

    ideal = np.lexsort((-t_rating, t_u))
    t_us = t_u[ideal]
    t_starts = np.searchsorted(t_us, np.arange(n_users))
    truth_rank = np.arange(t_us.size) - t_starts[t_us] + 1

    n_rel = np.bincount(t_u, weights=relevant, minlength=n_users)
    n_truth = np.bincount(t_u, minlength=n_users)
    has_recs = np.bincount(r_u, minlength=n_users) > 0
    return HitTable(
        users=pd.Index(users, name="user_id"),
        ucode=r_u,
        pos=pos,
        in_truth=in_truth,
        rating=rating,
        rel=rel,
        group=group,
        group_start=group_start,
        group_size=group_size,
        group_user=group_user,
        expected=ties == "expected" and not ranked,
        n_rel=n_rel,
        n_truth=n_truth,
        truth_ucode=t_us,
        truth_rating=t_rating[ideal],
        truth_rank=truth_rank,
        n_recs_only=n_recs_only,
        n_without_recs=int(n_users - has_recs.sum()),
    )
