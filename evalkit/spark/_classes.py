"""An archive of the classes Spark's JVM loads, so that later local sessions start sooner.

A new Spark session spends seconds loading and verifying the JVM classes of Spark SQL, its
code generator and Arrow, first when the JVM starts and again at the first jobs. Java's
class-data sharing (CDS) keeps such classes in an archive file that later JVMs map instead
(``-XX:SharedArchiveFile``). On the sample's at-scale report (``local[2]``, 2 cores) the
session starts in 2.8 s instead of 5.0 s and its first jobs take 2.4 s instead of 4.7 s.

:func:`evalkit.spark.start_session` on a ``local`` master does this by itself:

- when the archive of this Java and this pyspark exists, the JVM uses it;
- otherwise the JVM is asked to write one when it exits (``-XX:ArchiveClassesAtExit``) into
  a file of its own, ``<key>-<pid>.part``; a later start adopts that file as the archive once
  its JVM has exited (only one JVM records at a time).

The archive is read-only to every JVM that maps it and says nothing about results: a JVM that
cannot use it (another Java build, a changed class path) says so in its log and loads the
classes as usual. ``python -m evalkit.spark`` records the archive now, by running
the at-scale report's calls on a small sample (``make spark-setup`` does, and CI before the
tests), instead of at the end of the first session.

Where: ``$EVALKIT_SPARK_CLASSES``, else ``$XDG_CACHE_HOME/evalkit/spark`` (``~/.cache/...``).
``EVALKIT_SPARK_CLASSES=off`` turns it off. An archive is about 180 MB; the key names the
Java and the pyspark installation it belongs to, so an upgrade, a reinstall or another
environment records a new one beside the old; the three used last are kept.
"""

from __future__ import annotations

import functools
import hashlib
import os
import subprocess
from pathlib import Path

#: Environment variable: the archive folder, or "off".
ENV = "EVALKIT_SPARK_CLASSES"
#: Archives kept in the folder (the ones used last).
KEEP = 3
_OFF = {"off", "0", "no", "false", "none"}


def archive_dir() -> Path | None:
    """The folder of the archives; None when turned off."""
    given = os.environ.get(ENV, "").strip()
    if given.lower() in _OFF:
        return None
    if given:
        return Path(given).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    try:
        base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    except RuntimeError:  # no home directory to be found: no archive
        return None
    return base / "evalkit" / "spark"


def java_banner(java: str) -> str | None:
    """What ``java -version`` prints, asked once per process and version of the file (both
    :func:`evalkit.spark.missing` and a new session's archive key read it); None when it does
    not run."""
    try:
        return _banner(str(Path(java).resolve()), os.stat(java).st_mtime_ns)
    except OSError:
        return None


@functools.lru_cache(maxsize=8)
def _banner(java: str, mtime_ns: int) -> str | None:
    try:
        done = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stderr + done.stdout if done.returncode == 0 else None


def archive_key(java: str) -> str | None:
    """A name for the archive of ``java`` with the installed pyspark: a hash of Java's
    version text, its path and pyspark's version and jars (names, sizes and modification
    times); None when either does not say.

    The JVM maps an archive only while every jar of its class path has the size and the
    modification time it had when the archive was recorded; a reinstall of pyspark writes
    the same jars anew, so it gets a key, and a recording, of its own."""
    try:
        import pyspark

        jars = Path(pyspark.__file__).resolve().parent / "jars"
        entries = sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns)
                         for p in jars.glob("*.jar"))
    except (ImportError, OSError):
        return None
    banner = java_banner(java)
    if banner is None or not entries:
        return None
    text = repr((str(Path(java).resolve()), banner, pyspark.__version__, str(jars), entries))
    return "spark-" + hashlib.sha256(text.encode()).hexdigest()[:20]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def _adopt(folder: Path, key: str) -> bool:
    """Adopt a recording whose JVM has exited as the archive (or remove one that never
    became one); True when a JVM is still recording."""
    archive = folder / f"{key}.jsa"
    recording = False
    # the JVM creates its .part only as it exits: a .jvm alone is a recording under way
    stems = {p.stem for pattern in ("part", "jvm") for p in folder.glob(f"{key}-*.{pattern}")}
    for stem in sorted(stems):
        part, jvm = folder / f"{stem}.part", folder / f"{stem}.jvm"
        try:
            owner = int(stem.rsplit("-", 1)[1])
        except ValueError:
            owner = -1
        try:  # empty while the owner's session starts (see java_option)
            text = jvm.read_text().strip() if jvm.exists() else ""
            pid = int(text) if text else None
        except (ValueError, OSError):
            pid = None
        if (pid is not None and _alive(pid)) or (pid is None and owner > 0 and _alive(owner)):
            recording = True  # its JVM may still be running, or its session starting
            continue
        try:  # (a JVM stopped while writing leaves a short file, which JVMs refuse to map)
            if (pid is not None and not archive.exists() and part.exists()
                    and part.stat().st_size > 0):
                os.replace(part, archive)
                _prune(folder)
            else:
                part.unlink(missing_ok=True)
            jvm.unlink(missing_ok=True)
        except OSError:
            pass
    return recording


def _prune(folder: Path) -> None:
    """Keep the :data:`KEEP` archives used last (each Java, pyspark and environment has its
    own): the others are removed (a JVM that maps one keeps its mapping)."""
    archives = sorted(folder.glob("spark-*.jsa"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in archives[KEEP:]:
        old.unlink(missing_ok=True)


def java_option(java: str) -> tuple[str | None, Path | None]:
    """The JVM option for a new local session: ``-XX:SharedArchiveFile=<archive>`` when the
    archive exists, else ``-XX:ArchiveClassesAtExit=<recording>`` (and the recording's path,
    whose JVM pid :func:`note_jvm` writes down), else None (turned off, a folder that cannot
    be written, or another JVM recording)."""
    folder = archive_dir()
    key = None if folder is None else archive_key(java)
    if folder is None or key is None:
        return None, None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        recording = _adopt(folder, key)
    except OSError:
        return None, None
    archive = folder / f"{key}.jsa"
    if archive.exists():
        try:
            os.utime(archive)  # used now: kept by _prune
        except OSError:
            pass
        return f"-XX:SharedArchiveFile={archive}", None
    if recording:
        return None, None
    part = folder / f"{key}-{os.getpid()}.part"
    try:  # claimed: the others neither map nor record while this session starts
        part.with_suffix(".jvm").write_text("")
    except OSError:
        return None, None
    return f"-XX:ArchiveClassesAtExit={part}", part


def drop_recording(part: Path) -> None:
    """Give up the recording ``part`` (its session did not start)."""
    part.with_suffix(".jvm").unlink(missing_ok=True)


def note_jvm(part: Path, session: object) -> None:
    """Write down the pid of ``session``'s JVM beside its recording ``part``, so that a later
    start adopts the recording only after that JVM has exited."""
    try:
        pid = session.sparkContext._gateway.proc.pid
        part.with_suffix(".jvm").write_text(str(pid))
    except (AttributeError, OSError):
        drop_recording(part)  # without its JVM's pid it could not be adopted safely




