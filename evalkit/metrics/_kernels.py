"""Compiled per-user kernels for the hit table, the ranking reductions and the input checks.

The array code in :mod:`._hits` and :mod:`._curves` states every metric as whole-array NumPy
operations; at MovieLens-25M scale that is some sixty passes over arrays of 5-16 million
entries, and memory traffic, not arithmetic, sets the time. The kernels here do the same work
in one pass over each user's rows, keeping the user's few hundred values in cache:

- :func:`join` marks the hits: each user's test items are written into a small lookup array
  indexed by item code, the user's recommendations read their codes from it, and the entries
  are cleared again; a second array stamps each user's items, which finds a repeated one.
- :func:`rank_reduce` walks each user's positions ``1..k_max`` once and produces P, R, F1,
  HR, RR, AP, DCG and NDCG (rows named :data:`P` ... :data:`NDCG`) at the requested cutoffs
  and their sums over users at every cutoff; gains and discounts come in as data, so graded
  gains and half-life utility run through it too. Under ``ties="expected"`` it reads each
  row's values averaged over its tie group from :func:`tied_values`.
- :func:`ordered_by_score`, :func:`score_positions` and :func:`order_by_group` check, position
  and sort lists ordered by score; :func:`group_rows` (a counting sort),
  :func:`group_starts` and :func:`offset_codes` serve the join, and
  :func:`grouped_duplicates` (compiled in :mod:`evalkit._duplicates`, which the input checks
  use too) finds repeated pairs; :func:`half_star_levels` codes ratings on a half-star scale.
- Beyond the ranking engine: :func:`pair_counts` counts each user's concordant, discordant and
  tied pairs (Kendall tau-b, FCP) and :func:`in_global_top` tells whether an item is in a
  user's list of one global order with the user's seen items skipped (serendipity's
  most-popular baseline); :func:`in_sorted_rows` tells whether each sampled (user, item) pair
  is one of the user's excluded items (the sampled-candidates protocol's rejection step).

They are compiled with numba on first use and cached on disk. At chosen cutoffs,
:func:`rank_reduce` computes P, R, F1, HR, RR, AP, DCG and NDCG with the same floating-point
operations, in the same order, as the NumPy forms in :mod:`._curves`. Other results can differ
from those forms in the last bits: the sums over users for the curves multiply by reciprocals
and add in another order, half-life utility divides by its discount where the NumPy form
multiplies by a weight, and under ``ties="expected"`` :func:`tied_values` computes the
tie-group averages its own way. Users run in chunks of a fixed :data:`CHUNK_USERS`, and chunk
sums are added in chunk order, so results do not depend on the machine's thread count.
``tests/metrics/test_curves_paths.py`` holds the kernel's results to
:meth:`RankingCurves.metric` within 1e-12; ``tests/metrics/test_kernels.py`` holds the other
kernels to plain NumPy and pandas statements.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._duplicates import grouped_duplicates
from .._parallel import available_threads, run_parallel

__all__ = ["AT_METRICS", "INCREMENTS", "group_rows", "group_starts", "grouped_duplicates",
           "join", "offset_codes", "order_by_group", "ordered_by_score", "over_users",
           "in_global_top", "in_sorted_rows", "pair_counts", "rank_reduce", "score_positions",
           "tied_values"]

# Rows of rank_reduce's outputs, by the registry's names (hit rate, MRR and MAP are HR, RR and
# AP per user), and their indices, named for the kernels (numba reads them as constants).
AT_METRICS = ("precision", "recall", "f1", "hit_rate", "mrr", "map", "dcg", "ndcg")
P, R, F1, HR, RR, AP, DCG, NDCG = range(len(AT_METRICS))
#: The rows of the kernel's sums that hold increments per position, cumulated by the caller
#: (recall's only when its denominator is the number of relevant items).
INCREMENTS = (P, R, HR, RR, DCG)
AP_RULES = ("min", "relevant", "hits", "k")
RECALL_RULES = ("relevant", "min")
IDEAL_RULES = ("truth", "k")

_OPTIONS = dict(cache=True, nogil=True, error_model="numpy")
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
def score_positions(r_start, score):  # pragma: no cover - compiled
    """Lists ordered by score (rows grouped by user, ``r_start``): each row's 1-based
    position and its tie group, numbered 0, 1, ... over all rows (a group is a run of equal
    scores within a user)."""
    n = score.size
    pos = np.empty(n, np.int64)
    tie = np.empty(n, np.int64)
    group = -1
    for u in range(r_start.size - 1):
        for row in range(r_start[u], r_start[u + 1]):
            if row == r_start[u] or score[row] != score[row - 1]:
                group += 1
            pos[row] = row - r_start[u] + 1
            tie[row] = group
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
def _emit(at, idcg_at, u, q, k, hits, nr, hr, rr, ap, dcg, idcg, ap_rule,
          recall_rule):  # pragma: no cover - compiled
    """Write user ``u``'s metrics at cutoff ``k`` (column ``q``), as the NumPy forms do."""
    precision = hits / k
    recall = hits / (min(float(k), nr) if recall_rule == 1 else nr)
    total = precision + recall
    at[P, u, q] = precision
    at[R, u, q] = recall
    at[F1, u, q] = (2 * precision) * recall / total if total > 0 else 0.0
    at[HR, u, q] = hr
    at[RR, u, q] = rr
    if ap_rule == 0:
        at[AP, u, q] = ap / min(float(k), nr) if nr > 0 else 0.0
    elif ap_rule == 1:
        at[AP, u, q] = ap / nr if nr > 0 else 0.0
    elif ap_rule == 2:
        at[AP, u, q] = ap / hits if hits > 0 else 0.0
    else:
        at[AP, u, q] = ap / k if nr > 0 else 0.0
    at[DCG, u, q] = dcg
    at[NDCG, u, q] = dcg / idcg if idcg > 0 else 0.0
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
def rank_reduce(r_start, pos, code, gain_of, rel_of, t_start, t_code, monotone, n_rel, disc,
                tied, ks, k_max, ap_rule, recall_rule, ideal_rule, at, idcg_at, curves, sums,
                ndcg_count, u0, u1):  # pragma: no cover - compiled
    """Per-user ranking metrics at cutoffs ``ks``, or their sums over users at ``1..k_max``.

    Parameters (arrays; users are ``0..n_users-1``)
        r_start, pos, code: each user's recommendations (rows ``r_start[u]:r_start[u+1]``),
            their 1-based ranks (increasing) and codes; ``gain_of[code]`` and ``rel_of[code]``
            give a row's gain and relevance (code 0: not in the test set, gain 0).
        t_start, t_code: each user's test items, by code. With ``monotone`` the gains grow
            with the code (rating levels), so the ideal list is read from a count per code;
            otherwise it is sorted.
        n_rel: relevant test items per user. disc: the discount at positions ``1..k_max``.
        tied: under ``ties="expected"``, the :func:`tied_values` of the rows of users
            ``u0..u1-1`` (read in place of the codes' values), else empty.
        ks: increasing cutoffs, each ``<= k_max``. ap_rule: the index of the AP denominator
            in :data:`AP_RULES`; recall_rule: of recall's in :data:`RECALL_RULES` (with "min"
            the recall sums are per-position values, not increments); ideal_rule: 1 makes the
            ideal list k relevant items of gain 1 for users with a relevant item.

    Outputs (filled in)
        at: ``(8, n_users, len(ks))``, rows in :data:`AT_METRICS` order, computed with the
            operations of the NumPy forms; undefined values are 0, except recall's ``0/0``
            (NaN). idcg_at: ``(n_users, len(ks))`` ideal DCG (NDCG is undefined where 0).
        With ``curves``: sums: ``(8, k_max)`` sums over users of F1, AP and NDCG (rows
            ``F1``, ``AP``, ``NDCG``) at every cutoff, over the users for whom each is defined,
            and of the increments at each position of the others (rows :data:`INCREMENTS`, to
            be cumulated: hits, recall, HR, RR, DCG), and
            ndcg_count: users with a defined NDCG at every cutoff. Ratios here multiply by
            reciprocals, so sums may differ from the NumPy forms in the last bits.

    Only users ``u0..u1-1`` are computed (and added to ``sums``).

    Under ``ties="expected"`` AP's summands are their exact expectations (``E[rel * hits]``)
    except with the "hits" denominator, where AP takes the expected relevances.
    """
    depth = k_max if curves else (ks[-1] if ks.size else 0)
    expected = tied.shape[1] > 0
    exact_ap = expected and ap_rule != 2
    base = r_start[u0]
    counts = np.zeros(gain_of.size, np.int64)
    ideal = np.zeros(depth)
    icum = np.zeros(depth)  # the user's cumulative ideal DCG
    longest = 0
    max_rel = 0
    for u in range(u0, u1):
        longest = max(longest, t_start[u + 1] - t_start[u])
        max_rel = max(max_rel, int(n_rel[u]))
    scratch = np.empty(0 if monotone else longest)
    # per-position increments summed over users (cumulated by the caller)
    rel_col, rec_col, first_col, rr_col, dcg_col = sums[P], sums[R], sums[HR], sums[RR], sums[DCG]
    inv_p = np.zeros(k_max + max_rel + 1)
    for i in range(1, inv_p.size):
        inv_p[i] = 1.0 / i
    for u in range(u0, u1):
        a, b = t_start[u], t_start[u + 1]
        nr = n_rel[u]
        if ideal_rule == 1:
            m = depth if nr > 0 else 0
            ideal[:m] = 1.0
        else:
            m = min(b - a, depth)
            _ideal_gains(a, b, m, t_code, gain_of, monotone, counts, scratch, ideal)
        running = 0.0
        for i in range(m):
            running += ideal[i] / disc[i]
            icum[i] = running
        hits = 0.0
        ap = 0.0
        dcg = 0.0
        hr = 0.0  # chance that a relevant item is shown (1 or 0 without expected ties)
        rr = 0.0  # reciprocal rank of the first one (expected)
        row, end = r_start[u], r_start[u + 1]
        if not curves:
            q = 0
            while row < end and pos[row] <= depth:
                p = pos[row]
                while q < ks.size and ks[q] < p:
                    _emit(at, idcg_at, u, q, ks[q], hits, nr, hr, rr, ap, dcg,
                          icum[min(ks[q], m) - 1] if m else 0.0, ap_rule, recall_rule)
                    q += 1
                if expected:
                    i = row - base
                    rel, g, both, first = tied[0, i], tied[1, i], tied[2, i], tied[3, i]
                else:
                    c = code[row]
                    row += 1
                    if c == 0:
                        continue
                    rel, g, both = rel_of[c], gain_of[c], 0.0
                    first = 1.0 if rel > 0 and hr == 0 else 0.0
                if rel > 0:
                    hits += rel
                    ap += (both if exact_ap else rel * hits) / p
                if first > 0:
                    hr += first
                    rr += first / p
                if g != 0:
                    dcg += g / disc[p - 1]
                if expected:
                    row += 1
            while q < ks.size:
                _emit(at, idcg_at, u, q, ks[q], hits, nr, hr, rr, ap, dcg,
                      icum[min(ks[q], m) - 1] if m else 0.0, ap_rule, recall_rule)
                q += 1
            continue
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
                    inv_hits = 1.0 / hits
                    ap += (both if exact_ap else rel * hits) / p
                    rel_col[p - 1] += rel
                    if recall_rule == 0:
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
                if recall_rule == 1 and hits > 0:
                    rec_col[p - 1] += hits * (inv_p[p] if p < nr else inv_nr)
                if hits > 0:
                    d = int(nr) if recall_rule == 0 else min(p, int(nr))
                    sums[F1, p - 1] += 2 * hits * inv_p[p + d]
                if ap_rule == 0:
                    sums[AP, p - 1] += ap * (inv_p[p] if p < nr else inv_nr)
                elif ap_rule == 1:
                    sums[AP, p - 1] += ap * inv_nr
                elif ap_rule == 2:
                    sums[AP, p - 1] += ap * inv_hits
                else:
                    sums[AP, p - 1] += ap * inv_p[p]
            if p <= m:  # past the ideal list the ideal DCG stays as it is
                inv_idcg = 1.0 / icum[p - 1] if icum[p - 1] > 0 else 0.0
            if inv_idcg > 0:
                sums[NDCG, p - 1] += dcg * inv_idcg
                ndcg_count[p - 1] += 1
