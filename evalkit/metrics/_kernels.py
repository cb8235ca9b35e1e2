"""Compiled per-user kernels for the hit table, the ranking reductions and the input checks.

At MovieLens-25M scale a metric stated as whole-array NumPy operations is some sixty passes
over arrays of 5-16 million entries, and memory traffic, not arithmetic, sets the time. The
kernels here do the work in one pass over each user's rows, keeping the user's few hundred
values in cache:

- :func:`join` marks the hits: each user's test items are written into a small lookup array
  indexed by item code, the user's recommendations read their codes from it, and the entries
  are cleared again; a second array stamps each user's items, which finds a repeated one.
  :func:`listed` does the reverse for ``relevant_set="listed"``: which test items the user's
  list holds.
- :func:`rank_reduce` walks each user's positions once, up to the largest cutoff, and
  produces P, R, F1, HR, RR, AP, DCG, NDCG and R-precision cut at k (rows named :data:`P`
  ... :data:`RP`) at the requested cutoffs; :func:`rank_sums` produces their sums over users
  at every cutoff ``1..k_max`` (the curves). Both read a hit table as one :class:`Lists`
  and the gains, discounts and rules as one :class:`Scoring` (rules as the named constants
  :data:`AP_MIN` ...); graded gains and half-life utility run through them as data. Under
  ``ties="expected"`` each row reads its tie group's averages from :func:`tied_values`.
- :func:`ordered_by_score`, :func:`score_positions` and :func:`order_by_group` check, position
  and sort lists ordered by score; :func:`group_rows` (a counting sort),
  :func:`group_starts` and :func:`offset_codes` serve the join, and
  :func:`grouped_duplicates` (compiled in :mod:`evalkit._duplicates`, which the input checks
  use too) finds repeated pairs; :func:`half_star_levels` codes ratings on a half-star scale.
- Beyond the ranking engine: :func:`pair_counts` counts each user's concordant, discordant and
  tied pairs (Kendall tau-b, FCP) and :func:`in_global_top` tells whether an item is in a
  user's list of one global order with the user's seen items skipped (serendipity's
  most-popular baseline).

They are compiled with numba on first use and cached on disk. Large outputs are allocated by
the caller with NumPy (whose large arrays get huge pages; numba's page faults would cost as
much as the pass). Users run in chunks of a fixed :data:`CHUNK_USERS`, and chunk sums are
added in chunk order, so results do not depend on the machine's thread count.
``tests/metrics/test_curves_paths.py`` holds the ranking kernels' results to a second
oracle, the dense-matrix forms of ``tests/metrics/matrix_forms.py``, within 1e-12 (the sums
over users multiply by reciprocals and add in another order, so they can differ in the last
bits); ``tests/metrics/test_kernels.py`` holds the other kernels to plain NumPy and pandas
statements.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from .._duplicates import grouped_duplicates
from .._parallel import KERNEL_OPTIONS, available_threads, run_parallel

__all__ = ["AT_METRICS", "INCREMENTS", "Lists", "Scoring", "group_rows", "group_starts",
           "grouped_duplicates", "join", "listed", "offset_codes", "order_by_group",
           "ordered_by_score", "over_users", "in_global_top", "pair_counts", "rank_reduce",
           "rank_sums", "score_positions", "tied_values"]

# Rows of rank_reduce's outputs, by the registry's names (hit rate, MRR and MAP are HR, RR and
# AP per user), and their indices, named for the kernels (numba reads them as constants).
AT_METRICS = ("precision", "recall", "f1", "hit_rate", "mrr", "map", "dcg", "ndcg",
              "r_precision_at_k")
P, R, F1, HR, RR, AP, DCG, NDCG, RP = range(len(AT_METRICS))
#: The rows of :func:`rank_sums` that hold increments per position, cumulated by the caller
#: (recall's only when its denominator is the number of relevant items).
INCREMENTS = (P, R, HR, RR, DCG)
#: The rules, named for the kernels (numba reads module constants as compile-time values);
#: the tuples give each definition's value its constant by position.
AP_MIN, AP_RELEVANT, AP_HITS, AP_K = range(4)
AP_RULES = ("min", "relevant", "hits", "k")
RECALL_RELEVANT, RECALL_MIN = range(2)
RECALL_RULES = ("relevant", "min")
IDEAL_TRUTH, IDEAL_K = range(2)
IDEAL_RULES = ("truth", "k")

_OPTIONS = KERNEL_OPTIONS
CHUNK_USERS = 1 << 14  # users per task: fixed, so sums over users never depend on the threads


_threads = available_threads


def _parallel(tasks: list) -> list:
    """Call each task, on a thread per core (the kernels release the GIL); results in order."""
    return run_parallel(tasks, _threads())


def over_users(n_users: int, task) -> list:
    """``task(u0, u1)`` for consecutive chunks of :data:`CHUNK_USERS` users, results in chunk
    order."""
    bounds = list(range(0, n_users, CHUNK_USERS)) + [n_users]
    return _parallel([lambda a=a, b=b: task(a, b) for a, b in zip(bounds[:-1], bounds[1:])])




@njit(**_OPTIONS)
def in_global_top(user, position, seen_start, seen_position, k, r0, r1, out):  # pragma: no cover
    """For rows ``r0..r1-1`` (a user code, -1 for a user without training items, and an
    item's position in a global order, -1 for an item outside it): whether the item is among
    the first ``k`` of the order once the user's seen items (positions
    ``seen_position[seen_start[u]:seen_start[u+1]]``) are skipped, into ``out``."""
    for r in range(r0, r1):
        p = position[r]
        if p < 0:
            out[r] = False
            continue
        u = user[r]
        before = 0
        seen = False
        if u >= 0:
            for j in range(seen_start[u], seen_start[u + 1]):
                q = seen_position[j]
                if q < p:
                    before += 1
                elif q == p:
                    seen = True
        out[r] = (not seen) and (p - before < k)


@njit(**_OPTIONS)
def pair_counts(starts, x, y, u0, u1, out):  # pragma: no cover - compiled
    """For users ``u0..u1-1`` (rows ``starts[u]:starts[u+1]``), the counts over every pair of
    the user's rows of concordant pairs, discordant pairs, pairs tied in ``x`` and pairs tied
    in ``y``, into ``out[0..3, u]``. Counts are exact: any order of the pairs gives them."""
    for u in range(u0, u1):
        a, b = starts[u], starts[u + 1]
        nc = nd = tx = ty = 0
        for i in range(a, b):
            xi, yi = x[i], y[i]
            for j in range(i + 1, b):
                dx = xi - x[j]
                dy = yi - y[j]
                if dx == 0:
                    tx += 1
                if dy == 0:
                    ty += 1
                p = dx * dy
                if p > 0:
                    nc += 1
                elif p < 0:
                    nd += 1
        out[0, u] = nc
        out[1, u] = nd
        out[2, u] = tx
        out[3, u] = ty


@njit(**_OPTIONS)
def group_rows(codes, n_groups):  # pragma: no cover - compiled
    """A stable counting sort: the row order that groups ``codes`` (0..n_groups-1) and the
    start of each group in it (``n_groups + 1`` entries)."""
    starts = np.zeros(n_groups + 1, np.int64)
    for c in codes:
        starts[c + 1] += 1
    for g in range(n_groups):
        starts[g + 1] += starts[g]
    fill = starts[:-1].copy()
    order = np.empty(codes.size, np.int64)
    for row in range(codes.size):
        c = codes[row]
        order[fill[c]] = row
        fill[c] += 1
    return order, starts


@njit(**_OPTIONS)
def _sort_groups(order, starts, first, second, g0, g1):  # pragma: no cover - compiled
    """Within each group ``g0..g1-1`` (``order[starts[g]:starts[g + 1]]``), reorder the rows
    by ``first``, then ``second``, then their place (stable), in place."""
    for g in range(g0, g1):
        a, b = starts[g], starts[g + 1]
        ordered = True
        for j in range(a + 1, b):
            x, y = order[j - 1], order[j]
            if first[y] < first[x] or (first[y] == first[x] and second[y] < second[x]):
                ordered = False
                break
        if ordered:
            continue
        rows = order[a:b]
        rows = rows[np.argsort(second[rows], kind="mergesort")]
        order[a:b] = rows[np.argsort(first[rows], kind="mergesort")]


def order_by_group(groups: np.ndarray, first: np.ndarray, second: np.ndarray,
                   n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """The stable row order by ``groups`` (codes ``0..n_groups-1``), then ``first``, then
    ``second`` (``np.lexsort((second, first, groups))``), and each group's start in it: a
    counting sort by group (none when rows are grouped already), then each group's few rows
    sorted, groups in parallel chunks."""
    starts = group_starts(groups, groups, False, n_groups)
    if starts.size:
        order = np.arange(groups.size)
    else:
        order, starts = group_rows(groups, n_groups)
    over_users(n_groups, lambda g0, g1: _sort_groups(order, starts, first, second, g0, g1))
    return order, starts


@njit(**_OPTIONS)
def group_starts(codes, key, by_key, n_groups):  # pragma: no cover - compiled
    """Start of each group's rows (``n_groups + 1`` entries) when rows are sorted by ``codes``
    (0..n_groups-1) and, with ``by_key``, strictly increasing in ``key`` within a group (so
    no key repeats in a group); else an empty array."""
    starts = np.empty(n_groups + 1, np.int64)
    g = -1  # the last group whose start is written
    for row in range(codes.size):
        c = codes[row]
        if row and c == codes[row - 1]:
            if by_key and key[row] <= key[row - 1]:
                return np.empty(0, np.int64)
        elif c < g:
            return np.empty(0, np.int64)
        else:
            while g < c:
                g += 1
                starts[g] = row
    while g < n_groups:
        g += 1
        starts[g] = codes.size
    return starts


@njit(**_OPTIONS)
def ordered_by_score(user, score, key, by_key):  # pragma: no cover - compiled
    """Whether rows are sorted by ``user``, then by descending ``score``, then (with
    ``by_key``) by ``key``."""
    for i in range(1, user.size):
        if user[i] != user[i - 1]:
            if user[i] < user[i - 1]:
                return False
        elif score[i] > score[i - 1] or (by_key and score[i] == score[i - 1]
                                         and key[i] < key[i - 1]):
            return False
    return True


@njit(**_OPTIONS)
def _score_positions(r_start, score, pos, tie, u0, u1):  # pragma: no cover - compiled
    for u in range(u0, u1):
        first = r_start[u]
        group = first
        for row in range(first, r_start[u + 1]):
            if row > first and score[row] != score[row - 1]:
                group = row
            pos[row] = row - first + 1
            tie[row] = group


def score_positions(r_start: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lists ordered by score (rows grouped by user, ``r_start``): each row's 1-based
    position and its tie group, named by the group's first row (a group is a run of equal
    scores within a user), users in parallel chunks. The arrays are allocated here, by
    NumPy, whose large arrays get huge pages (numba's do not, and their page faults cost as
    much as the pass)."""
    pos = np.empty(score.size, np.int64)
    tie = np.empty(score.size, np.int64)
    over_users(r_start.size - 1, lambda u0, u1: _score_positions(r_start, score, pos, tie,
                                                                 u0, u1))
    return pos, tie


@njit(**_OPTIONS)
def offset_codes(values, first, last, out):  # pragma: no cover - compiled
    """``out = values - first`` where every value is in ``first..last``; returns False (``out``
    then partly written) as soon as one is not."""
    for i in range(values.size):
        v = values[i]
        if v < first or v > last:
            return False
        out[i] = v - first
    return True


@njit(**_OPTIONS)
def half_star_levels(rating):  # pragma: no cover - compiled
    """Ratings on a half-star grid spanning under 128 stars: ``(index, present, low)``, where
    ``index`` is each rating's position on the grid from ``low / 2`` and ``present`` marks the
    grid values that occur. ``index`` is empty when the ratings are not such a grid."""
    low, high = rating[0], rating[0]
    for v in rating:
        low = min(low, v)
        high = max(high, v)
    low, high = 2.0 * low, 2.0 * high
    if not high - low < 256:
        return np.empty(0, np.uint8), np.zeros(0, np.bool_), low
    present = np.zeros(int(high - low) + 1, np.bool_)
    index = np.empty(rating.size, np.uint8)
    for row in range(rating.size):
        v = 2.0 * rating[row] - low
        i = int(v)
        if i != v:
            return np.empty(0, np.uint8), np.zeros(0, np.bool_), low
        index[row] = i
        present[i] = True
    return index, present, low


@njit(**_OPTIONS)
def join(t_start, t_item, t_code, r_start, r_item, low, n_items, rel_of, out, n_rel,
         u0, u1):  # pragma: no cover - compiled
    """``out[j]`` = the code of the test row of recommendation ``j``'s (user, item), 0 if none,
    and ``n_rel[u]`` = the relevant test items of user ``u`` (``rel_of[code]`` summed).
    Returns whether a user's recommendations list an item twice.

    Truth rows are grouped by user (``t_start``), recommendations too (``r_start``); codes
    are nonzero; ``item - low`` is in ``0..n_items-1`` for every item. Users ``u0..u1-1``.
    """
    lookup = np.zeros(n_items, t_code.dtype)
    listed = np.zeros(n_items, np.int32)  # per item: 1 + the last user (in 0..u1-u0) to list it
    repeats = False
    for u in range(u0, u1):
        a, b = t_start[u], t_start[u + 1]
        c, d = r_start[u], r_start[u + 1]
        relevant = 0.0
        for j in range(a, b):
            lookup[t_item[j] - low] = t_code[j]
            relevant += rel_of[t_code[j]]
        n_rel[u] = relevant
        mark = u - u0 + 1
        for j in range(c, d):
            key = r_item[j] - low
            out[j] = lookup[key]
            repeats |= listed[key] == mark
            listed[key] = mark
        for j in range(a, b):
            lookup[t_item[j] - low] = 0
    return repeats


@njit(**_OPTIONS)
def listed(t_start, t_item, r_start, r_item, low, n_items, out, u0, u1):  # pragma: no cover
    """``out[j]`` = whether test row ``j``'s item is in its user's list
    (``relevant_set="listed"``): each user's listed items are marked in a lookup array
    indexed by item, the user's test rows read it, and the marks are cleared again.

    Truth rows are grouped by user (``t_start``), recommendations too (``r_start``);
    ``item - low`` is in ``0..n_items-1`` for every item. Users ``u0..u1-1``.
    """
    mark = np.zeros(n_items, np.bool_)
    for u in range(u0, u1):
        c, d = r_start[u], r_start[u + 1]
        for j in range(c, d):
            mark[r_item[j] - low] = True
        for j in range(t_start[u], t_start[u + 1]):
            out[j] = mark[t_item[j] - low]
        for j in range(c, d):
            mark[r_item[j] - low] = False


class Lists(NamedTuple):
    """One hit table as :func:`rank_reduce` and :func:`rank_sums` read it (users
    ``0..n_users-1``)."""

    r_start: np.ndarray  #: per user: its first recommendation row (``n_users + 1`` entries)
    pos: np.ndarray  #: per row: its 1-based rank, increasing within a user
    code: np.ndarray  #: per row: its item's code in the user's test set (0: not in it)
    t_start: np.ndarray  #: per user: its first test row (``n_users + 1`` entries)
    t_code: np.ndarray  #: per test row: its code
    n_rel: np.ndarray  #: per user: relevant test items
    tie: np.ndarray  #: per row: its tie group under ``ties="expected"``; else empty


class Scoring(NamedTuple):
    """What each row is worth, and the rules that define the metrics."""

    gain_of: np.ndarray  #: per code: the gain (0 for code 0)
    rel_of: np.ndarray  #: per code: the relevance (0 for code 0)
    monotone: bool  #: gains grow with the code (rating levels): ideal lists by counting
    #: the discount at positions ``1..len(disc)``: every position within the largest cutoff
    #: that holds a recommendation or an item of an ideal list
    disc: np.ndarray
    #: with ``ideal == IDEAL_K``: the ideal DCG of k items of gain 1 at each cutoff reported
    #: (the requested cutoffs, or ``1..k_max`` for :func:`rank_sums`); else empty
    unit_ideal: np.ndarray
    ap: int  #: AP's denominator: :data:`AP_MIN`, :data:`AP_RELEVANT`, ...
    recall: int  #: recall's denominator: :data:`RECALL_RELEVANT` or :data:`RECALL_MIN`
    ideal: int  #: the ideal list: :data:`IDEAL_TRUTH` or :data:`IDEAL_K`
    expected: bool  #: ``ties="expected"``: rows read their tie group's averages


@njit(**_OPTIONS)
def _ideal_gains(a, b, m, t_code, gain_of, monotone, counts, scratch, ideal):  # pragma: no cover
    """The ``m`` largest gains of test rows ``a:b``, in decreasing order, into ``ideal``."""
    if m == 0:
        return
    if monotone:  # gains grow with the code: count each code, read the largest first
        for j in range(a, b):
            counts[t_code[j]] += 1
        filled = 0
        c = gain_of.size - 1
        while filled < m:
            for _ in range(min(counts[c], m - filled)):
                ideal[filled] = gain_of[c]
                filled += 1
            c -= 1
        for j in range(a, b):
            counts[t_code[j]] = 0
    else:
        for j in range(a, b):
            scratch[j - a] = gain_of[t_code[j]]
        ordered = np.sort(scratch[: b - a])
        for i in range(m):
            ideal[i] = ordered[b - a - 1 - i]


@njit(**_OPTIONS)
def _ideal_dcg(a, b, depth, t_code, gain_of, monotone, disc, counts, scratch, ideal,
               icum):  # pragma: no cover - compiled
    """The cumulative ideal DCG of test rows ``a:b`` at positions ``1..m`` into ``icum``;
    returns ``m``."""
    m = min(b - a, depth)
    _ideal_gains(a, b, m, t_code, gain_of, monotone, counts, scratch, ideal)
    running = 0.0
    for i in range(m):
        running += ideal[i] / disc[i]
        icum[i] = running
    return m


@njit(**_OPTIONS)
def _scratch(lists, scoring, u0, u1, depth, tied):  # pragma: no cover - compiled
    """Per-chunk work arrays: code counts, a sort buffer, the ideal gains and their
    cumulative DCG; under ``ties="expected"`` the rows' :func:`tied_values` are written into
    ``tied`` (allocated by the caller: NumPy's large arrays get huge pages, numba's do not,
    and page faults would double the time)."""
    longest = 0
    for u in range(u0, u1):
        longest = max(longest, lists.t_start[u + 1] - lists.t_start[u])
    if scoring.expected:  # the chunk's rows averaged over their tie groups
        tied_values(lists.r_start, lists.pos, lists.code, scoring.rel_of, scoring.gain_of,
                    lists.tie, u0, u1, tied)
    return (np.zeros(scoring.gain_of.size, np.int64),
            np.empty(0 if scoring.monotone else longest), np.zeros(depth), np.zeros(depth))


@njit(**_OPTIONS)
def _emit(at, idcg_at, u, q, k, hits, hits_r, nr, hr, rr, ap, dcg, idcg, ap_rule,
          recall_rule):  # pragma: no cover - compiled
    """Write user ``u``'s metrics at cutoff ``k`` (column ``q``)."""
    precision = hits / k
    recall = hits / (min(float(k), nr) if recall_rule == RECALL_MIN else nr)
    total = precision + recall
    at[P, u, q] = precision
    at[R, u, q] = recall
    at[F1, u, q] = (2 * precision) * recall / total if total > 0 else 0.0
    at[HR, u, q] = hr
    at[RR, u, q] = rr
    rule = ap_rule
    if rule == AP_MIN:
        at[AP, u, q] = ap / min(float(k), nr) if nr > 0 else 0.0
    elif rule == AP_RELEVANT:
        at[AP, u, q] = ap / nr if nr > 0 else 0.0
    elif rule == AP_HITS:
        at[AP, u, q] = ap / hits if hits > 0 else 0.0
    else:
        at[AP, u, q] = ap / k if nr > 0 else 0.0
    at[DCG, u, q] = dcg
    at[NDCG, u, q] = dcg / idcg if idcg > 0 else 0.0
    at[RP, u, q] = hits_r / nr if nr > 0 else 0.0
    idcg_at[u, q] = idcg


@njit(**_OPTIONS)
def tied_values(r_start, pos, code, rel_of, gain_of, tie, u0, u1, out):  # pragma: no cover
    """Each row's values averaged over the orders of its tie group (``ties="expected"``), for
    the rows of users ``u0..u1-1`` (``out[:, row - r_start[u0]]``): relevance, gain,
    ``E[rel * hits]`` (the numerator of AP's summand) and the chance that the row holds the
    user's first relevant item.

    A group of ``g`` rows (consecutive rows with one ``tie`` value) holding ``r`` relevant
    items, after ``H`` relevant rows of the same user: each row has relevance ``r/g`` and the
    group's mean gain; the row ``t`` places into it has
    ``E[rel * hits] = (r/g)(1 + H) + t r (r - 1) / (g (g - 1))``; in the user's first group
    with a relevant item it holds the first one with chance ``C(g-1-t, r-1) / C(g, r)``
    (``r/g`` at ``t = 0``, then times ``(g - r - t) / (g - 1 - t)`` per place).
    """
    base = r_start[u0]
    for u in range(u0, u1):
        row, end = r_start[u], r_start[u + 1]
        seen = 0.0  # relevant rows before the group
        while row < end:
            stop = row + 1
            while stop < end and tie[stop] == tie[row]:
                stop += 1
            r = 0.0
            s = 0.0
            for j in range(row, stop):
                r += rel_of[code[j]]
                s += gain_of[code[j]]
            size = float(stop - row)
            rel = r / size
            gain = s / size
            pair = r * (r - 1) / (size * (size - 1)) if size > 1 else 0.0
            first = rel if r > 0 and seen == 0 else 0.0
            start = pos[row]
            for j in range(row, stop):
                t = pos[j] - start
                i = j - base
                out[0, i] = rel
                out[1, i] = gain
                out[2, i] = rel * (1.0 + seen) + t * pair
                out[3, i] = first
                if first > 0:  # the chance for the next place
                    left = size - 1 - t
                    first = first * (size - r - t) / left if left > 0 else 0.0
            seen += r
            row = stop


@njit(**_OPTIONS)
def rank_reduce(lists, scoring, ks, at, idcg_at, tied, u0, u1):  # pragma: no cover - compiled
    """Per-user ranking metrics at the increasing cutoffs ``ks``, for users ``u0..u1-1``.

    One walk over each user's rows up to the largest cutoff. A cutoff may exceed
    ``len(scoring.disc)`` (the positions that hold anything): P@k still divides by k, AP by
    ``min(k, |R_u|)`` or k, and the ideal DCG of :data:`IDEAL_K` is ``scoring.unit_ideal``.

    ``tied``: under ``ties="expected"``, a ``(4, rows of the chunk)`` buffer for the rows'
    :func:`tied_values`; else unused.

    Outputs (filled in)
        at: ``(len(AT_METRICS), n_users, len(ks))``, rows in :data:`AT_METRICS` order;
            undefined values are 0, except recall's ``0/0`` (NaN).
        idcg_at: ``(n_users, len(ks))`` ideal DCG (NDCG is undefined where it is 0).

    Under ``ties="expected"`` each row reads its tie group's averages (:func:`tied_values`),
    and AP's summands are their exact expectations (``E[rel * hits]``) except with the "hits"
    denominator, where AP takes the expected relevances.
    """
    if ks.size == 0 or u1 <= u0:
        return
    last = ks[-1]
    depth = scoring.disc.size
    expected = scoring.expected
    exact_ap = expected and scoring.ap != AP_HITS
    unit = scoring.ideal == IDEAL_K
    ap_rule, recall_rule, unit_ideal = scoring.ap, scoring.recall, scoring.unit_ideal
    code, pos, n_rel, r_start = lists.code, lists.pos, lists.n_rel, lists.r_start
    t_start, t_code, monotone = lists.t_start, lists.t_code, scoring.monotone
    rel_of, gain_of, disc = scoring.rel_of, scoring.gain_of, scoring.disc
    counts, scratch, ideal, icum = _scratch(lists, scoring, u0, u1, depth, tied)
    base = r_start[u0]
    for u in range(u0, u1):
        nr = n_rel[u]
        m = 0 if unit else _ideal_dcg(t_start[u], t_start[u + 1], depth, t_code, gain_of,
                                      monotone, disc, counts, scratch, ideal, icum)
        hits = 0.0
        hits_r = 0.0  # hits within the first |R_u| positions
        ap = 0.0
        dcg = 0.0
        hr = 0.0  # chance that a relevant item is shown (1 or 0 without expected ties)
        rr = 0.0  # reciprocal rank of the first one (expected)
        row, end = r_start[u], r_start[u + 1]
        q = 0
        while row < end and pos[row] <= last:
            p = pos[row]
            while q < ks.size and ks[q] < p:
                idcg = (unit_ideal[q] if nr > 0 else 0.0) if unit else \
                    (icum[min(ks[q], m) - 1] if m else 0.0)
                _emit(at, idcg_at, u, q, ks[q], hits, hits_r, nr, hr, rr, ap, dcg, idcg,
                      ap_rule, recall_rule)
                q += 1
            if expected:
                i = row - base
                rel, g, both, first = tied[0, i], tied[1, i], tied[2, i], tied[3, i]
            else:
                c = code[row]
                if c == 0:
                    row += 1
                    continue
                rel, g, both = rel_of[c], gain_of[c], 0.0
                first = 1.0 if rel > 0 and hr == 0 else 0.0
            row += 1
            if rel > 0:
                hits += rel
                if p <= nr:
                    hits_r += rel
                ap += (both if exact_ap else rel * hits) / p
            if first > 0:
                hr += first
                rr += first / p
            if g != 0:
                dcg += g / disc[p - 1]
        while q < ks.size:
            idcg = (unit_ideal[q] if nr > 0 else 0.0) if unit else \
                (icum[min(ks[q], m) - 1] if m else 0.0)
            _emit(at, idcg_at, u, q, ks[q], hits, hits_r, nr, hr, rr, ap, dcg, idcg, ap_rule,
                  recall_rule)
            q += 1


@njit(**_OPTIONS)
def rank_sums(lists, scoring, tied, u0, u1):  # pragma: no cover - compiled
    """Sums over users ``u0..u1-1`` of the ranking metrics at every cutoff
    ``1..k_max = len(scoring.disc)``: ``(sums, ndcg_count)`` (``tied``: as for
    :func:`rank_reduce`).

    sums: ``(len(AT_METRICS), k_max)``: rows F1, AP, NDCG and RP hold the sums of the values
        at each cutoff over the users for whom each is defined; the rows :data:`INCREMENTS`
        (hits, recall, HR, RR, DCG) hold the sums of each position's increments, to be
        cumulated by the caller (recall's are values, not increments, under
        :data:`RECALL_MIN`). Ratios multiply by reciprocals.
    ndcg_count: per cutoff, the users with a defined NDCG.
    """
    k_max = scoring.disc.size
    sums = np.zeros((len(AT_METRICS), k_max))
    ndcg_count = np.zeros(k_max, dtype=np.int64)
    if u1 <= u0:
        return sums, ndcg_count
    expected = scoring.expected
    exact_ap = expected and scoring.ap != AP_HITS
    unit = scoring.ideal == IDEAL_K
    recall_min = scoring.recall == RECALL_MIN
    rule, unit_ideal = scoring.ap, scoring.unit_ideal
    code, pos, n_rel, r_start = lists.code, lists.pos, lists.n_rel, lists.r_start
    t_start, t_code, monotone = lists.t_start, lists.t_code, scoring.monotone
    rel_of, gain_of, disc = scoring.rel_of, scoring.gain_of, scoring.disc
    counts, scratch, ideal, icum = _scratch(lists, scoring, u0, u1, k_max, tied)
    base = r_start[u0]
    max_rel = 0
    for u in range(u0, u1):
        max_rel = max(max_rel, int(n_rel[u]))
    inv_p = np.zeros(k_max + max_rel + 1)
    for i in range(1, inv_p.size):
        inv_p[i] = 1.0 / i
    # per-position increments summed over users (cumulated by the caller)
    rel_col, rec_col, first_col, rr_col, dcg_col = sums[P], sums[R], sums[HR], sums[RR], sums[DCG]
    for u in range(u0, u1):
        nr = n_rel[u]
        m = 0 if unit else _ideal_dcg(t_start[u], t_start[u + 1], k_max, t_code, gain_of,
                                      monotone, disc, counts, scratch, ideal, icum)
        hits = 0.0
        hits_r = 0.0
        ap = 0.0
        dcg = 0.0
        hr = 0.0
        row, end = r_start[u], r_start[u + 1]
        inv_nr = 1.0 / nr if nr > 0 else 0.0
        inv_hits = 0.0
        inv_idcg = 0.0
        for p in range(1, k_max + 1):
            if row < end and pos[row] == p:
                if expected:
                    i = row - base
                    rel, g, both, first = tied[0, i], tied[1, i], tied[2, i], tied[3, i]
                else:
                    c = code[row]
                    rel, g, both = rel_of[c], gain_of[c], 0.0
                    first = 1.0 if rel > 0 and hr == 0 else 0.0
                if rel > 0:
                    hits += rel
                    if p <= nr:
                        hits_r += rel
                    inv_hits = 1.0 / hits
                    ap += (both if exact_ap else rel * hits) / p
                    rel_col[p - 1] += rel
                    if not recall_min:
                        rec_col[p - 1] += rel * inv_nr
                if first > 0:
                    hr += first
                    first_col[p - 1] += first
                    rr_col[p - 1] += first / p
                if g != 0:
                    step = g / disc[p - 1]
                    dcg += step
                    dcg_col[p - 1] += step
                row += 1
            if nr > 0:
                if hits > 0:
                    if recall_min:
                        rec_col[p - 1] += hits * (inv_p[p] if p < nr else inv_nr)
                    d = min(p, int(nr)) if recall_min else int(nr)
                    sums[F1, p - 1] += 2 * hits * inv_p[p + d]
                    sums[RP, p - 1] += hits_r * inv_nr
                if rule == AP_MIN:
                    sums[AP, p - 1] += ap * (inv_p[p] if p < nr else inv_nr)
                elif rule == AP_RELEVANT:
                    sums[AP, p - 1] += ap * inv_nr
                elif rule == AP_HITS:
                    sums[AP, p - 1] += ap * inv_hits
                else:
                    sums[AP, p - 1] += ap * inv_p[p]
            if unit:
                inv_idcg = 1.0 / unit_ideal[p - 1] if nr > 0 else 0.0
            elif p <= m:  # past the ideal list the ideal DCG stays as it is
                inv_idcg = 1.0 / icum[p - 1] if icum[p - 1] > 0 else 0.0
            if inv_idcg > 0:
                sums[NDCG, p - 1] += dcg * inv_idcg
                ndcg_count[p - 1] += 1
    return sums, ndcg_count
