"""What a report run holds in memory: the resident memory of the runner and every process
below it (the notebooks' kernels and what they start, such as Spark's JVM), sampled while
the pages run, for the index and the run's manifest."""

from __future__ import annotations

import os
import threading
from pathlib import Path

__all__ = ["MemoryWatch", "tree_rss"]


def tree_rss(pid: int) -> int | None:
    """Resident bytes of ``pid`` and every process below it, from Linux's ``/proc``; None
    where ``/proc`` cannot be read (another system)."""
    try:
        entries = os.listdir("/proc")
        page = os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):
        return None
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in entries:
        if not entry.isdigit():
            continue
        try:  # the command name may hold spaces and parentheses: fields follow the last ')'
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            rss[int(entry)] = int(fields[21]) * page
            children.setdefault(int(fields[1]), []).append(int(entry))
        except (OSError, IndexError, ValueError):  # a process that ended meanwhile
            continue
    if pid not in rss:
        return None
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        total += rss.get(p, 0)
        todo += children.get(p, [])
    return total


class MemoryWatch:
    """Sample :func:`tree_rss` of this process every ``interval`` seconds inside the block.

    ``peak`` is the largest sample (None when none could be taken); ``by_page`` the largest
    sample while each page named by :meth:`running` ran (with pages side by side, what they
    held together)."""

    def __init__(self, interval: float = 0.5) -> None:
        self.interval = interval
        self.peak: int | None = None
        self.by_page: dict[str, int] = {}
        self._running: set[str] = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="evalkit-report-memory",
                                        daemon=True)

    def __enter__(self) -> MemoryWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()  # a run shorter than one interval still gets its sample

    def running(self, page: str, now: bool) -> None:
        """Say that ``page`` starts (``now`` True) or has finished (False); a page is
        sampled as it starts and as it ends, however short."""
        if not now:
            self._sample()
        with self._lock:
            (self._running.add if now else self._running.discard)(page)
        if now:
            self._sample()

    def _watch(self) -> None:
        while not self._stop.wait(self.interval):
            self._sample()

    def _sample(self) -> None:
        rss = tree_rss(os.getpid())
        if rss is None:
            return
        with self._lock:
            self.peak = rss if self.peak is None else max(self.peak, rss)
            for page in self._running:
                self.by_page[page] = max(self.by_page.get(page, 0), rss)
