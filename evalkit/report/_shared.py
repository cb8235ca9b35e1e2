"""What the notebooks of one report run share: the inputs read, validated and fingerprinted
once, each baseline's lists computed once.

The runner gives its kernels a folder in the environment (``EVALKIT_REPORT_CACHE``, inside
the run's staging folder, so it goes when the run is published). :func:`shared` returns a
value from that folder when an earlier notebook of the run computed it under the same key,
and otherwise computes it and leaves it there for the next notebook; notebooks running side
by side wait for each other on a lock instead of computing the same thing twice. Without the
variable (a notebook run by hand, a script), :func:`shared` just computes.

A key is made of the call's arguments and, for every file among them, its resolved path,
size and modification time, so a file changed during a run is read again. Values are
pickled: the frames come back with their dtypes and index exactly as computed, so a page
shows the same numbers whether its inputs were shared or not.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TypeVar

from .._version import __version__

__all__ = ["ENVIRONMENT", "LIST_LENGTH", "file_stamp", "list_length", "run_key", "shared"]

#: The environment variable naming the folder a run's notebooks share values in.
ENVIRONMENT = "EVALKIT_REPORT_CACHE"
#: The environment variable giving the longest baseline list any page of the run asks for.
LIST_LENGTH = "EVALKIT_REPORT_LIST_LENGTH"

T = TypeVar("T")


def file_stamp(value: object) -> object:
    """``value`` with every existing path in it replaced by (path, size, mtime) of the file,
    or of each file in a folder; other values as they are."""
    if isinstance(value, Mapping):
        return tuple(sorted((str(k), file_stamp(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return tuple(file_stamp(v) for v in value)
    if isinstance(value, str | os.PathLike):
        path = Path(value)
        try:
            if path.is_file():
                return _stat(path)
            if path.is_dir():
                return (str(path.resolve()),
                        tuple(_stat(p) for p in sorted(path.rglob("*")) if p.is_file()))
        except OSError:
            pass
        return str(value)
    return value


def list_length() -> int | None:
    """The longest baseline list a page of this report run asks for (the runner sets it);
    None outside a run. The baselines' lists are computed once at that length and each page
    takes their first k entries, which are the top-k lists (each list is one ranking)."""
    value = os.environ.get(LIST_LENGTH, "")
    return int(value) if value.isdigit() and int(value) > 0 else None


def _stat(path: Path) -> tuple[str, int, int]:
    stat = path.stat()
    return str(path.resolve()), stat.st_size, stat.st_mtime_ns


def run_key(*parts: object) -> str:
    """A short hex key of ``parts`` (files stamped by :func:`file_stamp`) and evalkit's
    version."""
    text = repr((__version__, file_stamp(parts)))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # no advisory locks (Windows): side-by-side notebooks may both compute
        yield
        return
    with open(path, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def shared(kind: str, key: str, compute: Callable[[], T]) -> T:
    """``compute()``, or the value an earlier notebook of this report run computed under
    ``kind`` and ``key``.

    Outside a report run (``EVALKIT_REPORT_CACHE`` unset) this is ``compute()``. An error in
    ``compute`` leaves nothing behind, so the next notebook tries again (and fails with the
    same message). A value that cannot be read back (a file cut short) is computed again.
    """
    folder = os.environ.get(ENVIRONMENT)
    if not folder or not Path(folder).is_dir():
        return compute()
    target = Path(folder) / f"{kind}-{key}.pickle"
    with _locked(target.with_suffix(".lock")):
        if target.exists():
            try:
                with open(target, "rb") as handle:
                    return pickle.load(handle)
            except Exception:  # noqa: BLE001 - a damaged entry is recomputed, not trusted
                pass
        value = compute()
        _dump(value, target)
        return value


def _dump(value: object, target: Path) -> None:
    """Pickle ``value`` to ``target`` through a temporary file renamed into place (streamed:
    no second copy of the frames in memory)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
