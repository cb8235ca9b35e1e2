"""A compiled check for repeated pairs in grouped integer columns, the input checks'
fast path (:func:`evalkit._checks.has_duplicate_pairs`) and the hit table's."""

from __future__ import annotations

import numpy as np
from numba import njit

from ._parallel import KERNEL_OPTIONS, available_threads, run_parallel

__all__ = ["grouped_duplicates"]

_OPTIONS = KERNEL_OPTIONS


def _parallel(tasks: list) -> list:
    """Call each task, on a thread per core (the kernels release the GIL); results in order."""
    return run_parallel(tasks, available_threads())


@njit(**_OPTIONS)
def _scan_groups(groups, values, r0, r1):  # pragma: no cover - compiled
    """Rows ``r0:r1``: ``(state, low, high)`` with state -1 if ``groups`` decreases, 1 if
    ``values`` increase within every group, else 0; low and high bound ``values``.

    No branch in the loop (flags are or-ed, bounds are min / max), so it compiles to vector
    instructions."""
    low, high = values[r0], values[r0]
    decreasing = False
    repeated = False  # a value not above the one before it in its group
    for row in range(r0 + 1, r1):
        g, before = groups[row], groups[row - 1]
        v = values[row]
        decreasing |= g < before
        repeated |= (g == before) & (v <= values[row - 1])
        low = min(low, v)
        high = max(high, v)
    return (-1 if decreasing else 0 if repeated else 1), low, high


@njit(**_OPTIONS)
def _stamp_duplicates(groups, values, r0, r1, low, span):  # pragma: no cover - compiled
    """Whether a group within rows ``r0:r1`` (whole groups) repeats a value: each value is
    stamped with its group's number, so no marks need clearing."""
    stamp = np.zeros(span, np.int32)
    group = 1
    for row in range(r0, r1):
        if row > r0 and groups[row] != groups[row - 1]:
            group += 1
        v = values[row] - low
        if stamp[v] == group:
            return True
        stamp[v] = group
    return False


_CHUNK_ROWS = 1 << 21


def grouped_duplicates(groups: np.ndarray, values: np.ndarray) -> int:
    """1 if a run of equal ``groups`` repeats a value, 0 if none does; -1 when ``groups`` is
    not sorted or the values span too wide a range for a table of stamps (the caller sorts).

    Integer arrays. Values increasing within each group (ranks of a sorted list) need one
    pass; otherwise a second pass stamps each value with its group's number. Both passes run
    on row chunks in parallel.
    """
    n = groups.size
    if n < 2:
        return 0
    edges = list(range(0, n, _CHUNK_ROWS)) + [n]
    chunks = list(zip(edges[:-1], edges[1:]))
    scans = _parallel([lambda a=a, b=b: _scan_groups(groups, values, a, b) for a, b in chunks])
    if any(state < 0 for state, _, _ in scans):
        return -1
    inner = np.asarray(edges[1:-1])
    if inner.size and np.any(groups[inner] < groups[inner - 1]):
        return -1
    increasing = all(state == 1 for state, _, _ in scans) and not (
        inner.size and np.any((groups[inner] == groups[inner - 1])
                              & (values[inner] <= values[inner - 1])))
    if increasing:
        return 0
    low = min(int(lo) for _, lo, _ in scans)
    span = max(int(hi) for _, _, hi in scans) - low + 1
    if span > max(4 * n, 1 << 20):
        return -1
    # chunks of whole groups: each edge moves back to the start of its group
    edges = np.unique(np.searchsorted(groups, groups[np.asarray(edges[:-1])]))
    edges = np.append(edges, n)
    found = _parallel([
        lambda a=int(a), b=int(b): _stamp_duplicates(groups, values, a, b, low, span)
        for a, b in zip(edges[:-1], edges[1:])
    ])
    return int(any(found))
