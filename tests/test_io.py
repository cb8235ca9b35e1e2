"""Atomic writes: complete or absent, and with the mode a plain open would give."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evalkit._io import atomic_write_text


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_written_files_get_the_umask_mode(tmp_path: Path, umask: int) -> None:
    old = os.umask(umask)
    try:
        target = atomic_write_text(tmp_path / "out.json", "{}\n")
        plain = tmp_path / "plain.json"
        plain.write_text("{}\n")
    finally:
        os.umask(old)
    assert target.stat().st_mode & 0o777 == plain.stat().st_mode & 0o777 == 0o666 & ~umask


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path,
                                                             monkeypatch) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old")

    def interrupted(src, dst):  # the temporary file is written; the rename never happens
        assert Path(src).read_text() == "new"
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_text(target, "new")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_racing_writers_without_overwrite_never_replace_each_other(tmp_path) -> None:
    import threading

    from evalkit._io import atomic_write_text

    path = tmp_path / "result.json"
    barrier = threading.Barrier(8)
    outcomes: dict[int, str] = {}

    def write(i: int) -> None:
        barrier.wait()
        try:
            atomic_write_text(path, f"writer {i}\n" * 1000, overwrite=False)
            outcomes[i] = "wrote"
        except FileExistsError:
            outcomes[i] = "refused"

    threads = [threading.Thread(target=write, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    winners = [i for i, o in outcomes.items() if o == "wrote"]
    assert len(winners) == 1 and len(outcomes) == 8
    assert path.read_text() == f"writer {winners[0]}\n" * 1000
    assert [p.name for p in tmp_path.iterdir()] == ["result.json"]  # no temporary file left
    with pytest.raises(FileExistsError, match="result.json"):
        atomic_write_text(path, "late\n", overwrite=False)
    atomic_write_text(path, "forced\n")  # overwrite=True replaces, as asked
    assert path.read_text() == "forced\n"
