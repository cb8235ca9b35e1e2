"""Threads for the compiled kernels: they release the GIL, so plain threads run them in
parallel. (Not numba's OpenMP layer: GNU OpenMP is not safe after ``fork``.)"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

__all__ = ["KERNEL_OPTIONS", "available_threads", "run_parallel"]

#: numba's options for every compiled kernel: cached on disk, releasing the GIL (the kernels
#: run in threads), NumPy's rules for division by zero and the like (no exception).
KERNEL_OPTIONS = dict(cache=True, nogil=True, error_model="numpy")


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


def available_memory() -> int | None:
    """Bytes of memory available for new allocations (Linux ``MemAvailable``, else the free
    physical pages); None where neither can be read."""
    try:
        with open("/proc/meminfo") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None
