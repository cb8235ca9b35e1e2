"""Atomic file writes: a file appears complete or not at all, never half written."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["atomic_write_bytes", "atomic_write_text"]


def atomic_write_bytes(path: str | os.PathLike, data: bytes, *,
                       overwrite: bool = True) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same directory and rename it.

    On any error the temporary file is removed and ``path`` is left as it was. The file gets
    the mode a plain ``open`` would give it (0666 less the umask), not the temporary file's
    0600. With ``overwrite=False`` the file is linked into place only if ``path`` does not
    exist at that moment (``FileExistsError`` otherwise), so two writers racing for the same
    path never replace each other's result.
    """
    path = Path(path)
    mask = os.umask(0)
    os.umask(mask)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o666 & ~mask)
        if overwrite:
            os.replace(tmp, path)
        else:
            _link_new(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def _link_new(tmp: str, path: Path) -> None:
    """Move ``tmp`` to ``path`` only if ``path`` does not exist (atomically where the file
    system has hard links)."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise FileExistsError(f"'{path}' appeared while it was being written (another run?); "
                              "it was left as it is.") from None
    except OSError:  # no hard links here: the check and the rename are two steps
        if path.exists():
            raise FileExistsError(f"'{path}' exists; it was left as it is.") from None
        os.replace(tmp, path)
        return
    os.unlink(tmp)


def atomic_write_text(path: str | os.PathLike, text: str, *, encoding: str = "utf-8",
                      overwrite: bool = True) -> Path:
    """Text version of :func:`atomic_write_bytes`."""
    return atomic_write_bytes(path, text.encode(encoding), overwrite=overwrite)
