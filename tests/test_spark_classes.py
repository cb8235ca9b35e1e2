"""The archive of Spark's JVM classes (evalkit.spark._classes): which option a new local
session's JVM gets, how a finished recording becomes the archive, and that nothing is shared
while a JVM may still be writing. No Spark runs here (tests/test_spark.py checks that a real
session maps the archive)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from evalkit.spark import _classes

KEY = "spark-0123456789abcdef0123"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv(_classes.ENV, str(tmp_path / "classes"))
    monkeypatch.setattr(_classes, "archive_key", lambda java: KEY)
    return tmp_path / "classes"


def _dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    return int(done.stdout)


def test_without_an_archive_the_jvm_records_one_into_a_file_of_this_process(folder) -> None:
    import os

    option, part = _classes.java_option("java")
    assert part == folder / f"{KEY}-{os.getpid()}.part"
    assert option == f"-XX:ArchiveClassesAtExit={part}"
    # the JVM writes the recording at its exit; until its pid is noted, the claim is empty
    assert [p.name for p in folder.iterdir()] == [part.with_suffix(".jvm").name]
    assert part.with_suffix(".jvm").read_text() == ""


def test_an_existing_archive_is_mapped(folder) -> None:
    folder.mkdir()
    (folder / f"{KEY}.jsa").write_bytes(b"archive")
    assert _classes.java_option("java") == (f"-XX:SharedArchiveFile={folder / KEY}.jsa", None)


def test_a_recording_whose_jvm_exited_becomes_the_archive(folder) -> None:
    folder.mkdir()
    stem = f"{KEY}-{_dead_pid()}"
    (folder / f"{stem}.part").write_bytes(b"recorded")
    (folder / f"{stem}.jvm").write_text(str(_dead_pid()))
    option, part = _classes.java_option("java")
    assert option == f"-XX:SharedArchiveFile={folder / KEY}.jsa" and part is None
    assert sorted(p.name for p in folder.iterdir()) == [f"{KEY}.jsa"]
    assert (folder / f"{KEY}.jsa").read_bytes() == b"recorded"


@pytest.mark.parametrize("written", ["jvm alive, no file yet", "jvm alive, file being written",
                                     "session starting"])
def test_nothing_is_mapped_or_recorded_while_a_jvm_may_be_writing(folder, written) -> None:
    import os

    folder.mkdir()
    alive = os.getpid()  # a running process stands for the recording JVM or its Python
    stem = f"{KEY}-{alive if written == 'session starting' else _dead_pid()}"
    (folder / f"{stem}.jvm").write_text("" if written == "session starting" else str(alive))
    if written == "jvm alive, file being written":
        (folder / f"{stem}.part").write_bytes(b"half")
    before = sorted(p.name for p in folder.iterdir())
    assert _classes.java_option("java") == (None, None)
    assert sorted(p.name for p in folder.iterdir()) == before  # left alone


def test_a_recording_that_never_wrote_is_cleared_and_recorded_again(folder) -> None:
    folder.mkdir()
    dead = _dead_pid()
    (folder / f"{KEY}-{dead}.jvm").write_text(str(_dead_pid()))  # JVM gone without a file
    (folder / f"{KEY}-{_dead_pid()}.part").write_bytes(b"")  # a file without its JVM's pid
    (folder / f"{KEY}-{_dead_pid()}.jvm").write_text("")  # a claim whose session never started
    option, part = _classes.java_option("java")
    assert option.startswith("-XX:ArchiveClassesAtExit=")
    assert [p.name for p in folder.iterdir()] == [part.with_suffix(".jvm").name]  # its own


def test_a_second_recording_beside_an_adopted_archive_is_removed(folder) -> None:
    folder.mkdir()
    for n, data in enumerate((b"first", b"second")):
        stem = f"{KEY}-{_dead_pid()}"
        (folder / f"{stem}.part").write_bytes(data)
        (folder / f"{stem}.jvm").write_text(str(_dead_pid()))
    option, _ = _classes.java_option("java")
    assert option.startswith("-XX:SharedArchiveFile=")
    assert sorted(p.name for p in folder.iterdir()) == [f"{KEY}.jsa"]


@pytest.mark.parametrize("value", ["off", "0", "OFF"])
def test_turned_off_nothing_is_written(tmp_path, monkeypatch, value) -> None:
    monkeypatch.setenv(_classes.ENV, value)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert _classes.archive_dir() is None
    assert _classes.java_option("java") == (None, None)
    assert list(tmp_path.iterdir()) == []


def test_the_default_folder_is_in_the_xdg_cache(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv(_classes.ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert _classes.archive_dir() == tmp_path / "evalkit" / "spark"


def test_without_a_home_directory_there_is_no_archive(monkeypatch) -> None:
    from pathlib import Path

    def homeless():
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.delenv(_classes.ENV, raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setattr(Path, "home", staticmethod(homeless))
    assert _classes.archive_dir() is None
    assert _classes.java_option("java") == (None, None)


def test_a_folder_that_cannot_be_made_means_no_option(tmp_path, monkeypatch) -> None:
    (tmp_path / "file").write_text("")
    monkeypatch.setenv(_classes.ENV, str(tmp_path / "file" / "classes"))
    monkeypatch.setattr(_classes, "archive_key", lambda java: KEY)
    assert _classes.java_option("java") == (None, None)


def test_the_key_names_this_java_and_this_pyspark(tmp_path) -> None:
    pytest.importorskip("pyspark")
    from evalkit.spark._session import _java

    java = _java()[0]
    if java is None:
        pytest.skip("no Java here")
    key = _classes.archive_key(java)
    assert key is not None and key.startswith("spark-") and key == _classes.archive_key(java)
    fake = tmp_path / "java"
    fake.write_text("#!/bin/sh\necho 'openjdk version \"99\"' >&2\n")
    fake.chmod(0o755)
    assert _classes.archive_key(str(fake)) not in (None, key)  # another Java, another key
    assert _classes.archive_key(str(tmp_path / "missing")) is None


def test_a_reinstalled_pyspark_gets_a_key_of_its_own(tmp_path, monkeypatch) -> None:
    """The JVM refuses an archive once a jar of its class path has another modification
    time (a reinstall writes every jar anew, same names and sizes): the key follows it."""
    import os
    import sys
    from types import SimpleNamespace

    jars = tmp_path / "pyspark" / "jars"
    jars.mkdir(parents=True)
    jar = jars / "spark-core.jar"
    jar.write_bytes(b"PK" * 10)
    os.utime(jar, ns=(10**18, 10**18))
    fake_pyspark = SimpleNamespace(__file__=str(tmp_path / "pyspark" / "__init__.py"),
                                   __version__="3.5.0")
    monkeypatch.setitem(sys.modules, "pyspark", fake_pyspark)
    java = tmp_path / "java"
    java.write_text("#!/bin/sh\necho 'openjdk version \"17\"' >&2\n")
    java.chmod(0o755)
    key = _classes.archive_key(str(java))
    assert key is not None and key == _classes.archive_key(str(java))
    jar.write_bytes(b"PK" * 10)  # the same jar, written again
    os.utime(jar, ns=(2 * 10**18, 2 * 10**18))
    assert _classes.archive_key(str(java)) not in (None, key)


def test_the_started_jvms_pid_is_noted_and_a_failed_start_gives_the_claim_up(folder) -> None:
    from types import SimpleNamespace

    option, part = _classes.java_option("java")
    jvm = SimpleNamespace(pid=_dead_pid())
    session = SimpleNamespace(sparkContext=SimpleNamespace(_gateway=SimpleNamespace(proc=jvm)))
    _classes.note_jvm(part, session)
    assert part.with_suffix(".jvm").read_text() == str(jvm.pid)
    _classes.drop_recording(part)
    assert list(folder.iterdir()) == []
    _, part = _classes.java_option("java")
    _classes.note_jvm(part, SimpleNamespace())  # no JVM to name: the claim is given up
    assert list(folder.iterdir()) == []


def test_only_the_archives_used_last_are_kept(folder) -> None:
    import os

    folder.mkdir()
    for n in range(4):  # four other environments' archives, the oldest first
        old = folder / f"spark-old{n}.jsa"
        old.write_bytes(b"x")
        os.utime(old, (1_000_000 + n, 1_000_000 + n))
    stem = f"{KEY}-{_dead_pid()}"
    (folder / f"{stem}.part").write_bytes(b"recorded")
    (folder / f"{stem}.jvm").write_text(str(_dead_pid()))
    _classes.java_option("java")  # adopts this one, the newest
    assert sorted(p.name for p in folder.iterdir()) == [f"{KEY}.jsa", "spark-old2.jsa",
                                                        "spark-old3.jsa"]
    os.utime(folder / f"{KEY}.jsa", (1, 1))
    _classes.java_option("java")  # mapping an archive marks it used
    assert (folder / f"{KEY}.jsa").stat().st_mtime > 2_000_000


def test_java_is_asked_its_version_once_until_it_changes(tmp_path) -> None:
    """missing() and a new session's key both read ``java -version``: one process runs it
    once per Java, and again when the file changes."""
    import os

    calls = tmp_path / "calls"
    java = tmp_path / "java"
    java.write_text(f"#!/bin/sh\necho x >> {calls}\necho 'openjdk version \"17\"' >&2\n")
    java.chmod(0o755)
    from evalkit.spark._session import _java_version

    assert _java_version(str(java)) == 17
    assert _classes.java_banner(str(java)).startswith('openjdk version "17"')
    assert calls.read_text().count("x") == 1
    stat = java.stat()
    os.utime(java, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))  # another Java there
    assert _java_version(str(java)) == 17 and calls.read_text().count("x") == 2
    assert _classes.java_banner(str(tmp_path / "missing")) is None
