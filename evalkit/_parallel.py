"""Threads for the compiled kernels: they release the GIL, so plain threads run them in
parallel. (Not numba's OpenMP layer: GNU OpenMP is not safe after ``fork``.)"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

__all__ = ["available_threads", "run_parallel"]


def available_threads() -> int:
    """One thread per core this process may run on, at most 8."""
    try:
        available = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        available = os.cpu_count() or 1
    return max(1, min(available, 8))


def run_parallel(tasks: list, threads: int) -> list:
    """Call each task on up to ``threads`` threads; the results in the tasks' order."""
    threads = min(threads, len(tasks))
    if threads <= 1:
        return [task() for task in tasks]
    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(lambda task: task(), tasks))
