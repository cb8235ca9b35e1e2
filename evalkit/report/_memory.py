"""What a report run holds in memory: the resident memory of the runner and every process
below it (the notebooks' kernels and what they start, such as Spark's JVM), sampled while
the pages run, for the index and the run's manifest."""

from __future__ import annotations

import os
import threading
from pathlib import Path

__all__ = ["MemoryWatch", "tree_rss"]


#: What the command line of a kernel server (``._warm``) holds: the process the kernels are
#: forked from, whose resident pages are those its kernels share with it (copy on write).
SERVER_MARK = b"from evalkit.report._warm import serve"


def tree_rss(pid: int) -> int | None:
    """Resident bytes of ``pid`` and every process below it, from Linux's ``/proc``; None
    where ``/proc`` cannot be read (another system).

    A kernel server's own resident memory is left out (its kernels, below it, are counted):
    what it imported, its kernels share with it and hold resident themselves, so counting it
    as well would count the same pages once more."""
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
    total, todo = 0, [(pid, False)]
    while todo:
        p, below_server = todo.pop()
        # a forked kernel keeps its server's command line: the server is the one not below
        # another
        server = p != pid and _is_server(p)
        total += 0 if server and not below_server else rss.get(p, 0)
        todo += [(child, server) for child in children.get(p, [])]
    return total


def _is_server(pid: int) -> bool:
    try:
        return SERVER_MARK in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


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
