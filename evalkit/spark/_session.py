"""Whether Spark can run here, and a session with quiet local defaults.

:func:`missing` names what keeps Spark from running (pyspark, Java 17 or later), so that a
notebook can say so and skip its Spark cells; :func:`start_session` starts (or reuses) a
session whose JVM writes its console output to a log file, not into the notebook.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .._checks import check_positive_int
from .._constraints import BOOL, constrained
from ._classes import (
    _adopt,
    archive_dir,
    archive_key,
    drop_recording,
    java_banner,
    java_option,
    note_jvm,
)

__all__ = ["missing", "start_session"]

#: The oldest Java that Spark 4 runs on.
JAVA_MIN = 17
INSTALL = "pip install pyspark; in a clone of evalkit, make spark-setup"
_JAVA_HINT = (f"Spark needs Java {JAVA_MIN} or later, e.g. the Debian package "
              f"openjdk-{JAVA_MIN}-jre-headless")
_VERSION = re.compile(r'version "(\d+)(?:\.(\d+))?')


def _java() -> tuple[str | None, str | None]:
    """The java that Spark's launcher would run (``$JAVA_HOME/bin/java`` when ``JAVA_HOME`` is
    set, else the one on the PATH), or None and why not."""
    home = os.environ.get("JAVA_HOME")
    if home:
        java = Path(home, "bin", "java")
        if java.is_file() and os.access(java, os.X_OK):
            return str(java), None
        return None, (f"Java is not installed where JAVA_HOME points ('{home}' holds no "
                      f"bin/java; {_JAVA_HINT}, or unset JAVA_HOME)")
    java = shutil.which("java")
    if java is None:
        return None, f"Java is not installed ({_JAVA_HINT}, or set JAVA_HOME)"
    return java, None


def _java_version(java: str) -> int | None:
    """The major version of ``java`` (8 for 1.8), or None when it does not say."""
    banner = java_banner(java)
    found = None if banner is None else _VERSION.search(banner)
    if found is None:
        return None
    major = int(found.group(1))
    return int(found.group(2) or 0) if major == 1 else major


def missing() -> str | None:
    """What keeps Spark from running here, with how to install it; None when it can run.

    Checks that pyspark can be imported and that the java Spark's launcher would start
    (``$JAVA_HOME/bin/java`` when ``JAVA_HOME`` is set, else ``java`` on the PATH) exists
    and is Java 17 or later. Nothing is started.

    Returns
    -------
    str or None
        For example ``"pyspark is not installed (pip install pyspark; in a clone of evalkit, make
        spark-setup)"``; every
        missing piece, joined by ``"; "``.

    Examples
    --------
    >>> reason = missing()
    >>> reason is None or "pyspark" in reason or "Java" in reason
    True
    """
    reasons = []
    try:
        found = importlib.util.find_spec("pyspark") is not None
    except (ImportError, ValueError):  # a broken installation counts as none
        found = False
    if not found:
        reasons.append(f"pyspark is not installed ({INSTALL})")
    java, why = _java()
    if java is None:
        reasons.append(str(why))
    else:
        version = _java_version(java)
        if version is not None and version < JAVA_MIN:
            reasons.append(f"Java {version} is installed, which is too old ({_JAVA_HINT}; "
                           "JAVA_HOME chooses which Java Spark runs)")
    return "; ".join(reasons) or None


def _log_path(log: str | os.PathLike | None) -> Path:
    if log is not None:
        return Path(log)
    return Path(tempfile.gettempdir()) / f"evalkit-spark-{os.getpid()}.log"


@contextmanager
def _console_to(path: Path) -> Iterator[None]:
    """Point file descriptors 1 and 2 at ``path`` while the body runs: a process started in
    it (Spark's JVM, and the Python workers it starts later) keeps writing there, so that its
    log lines do not reach a notebook's cell outputs (ipykernel forwards what the kernel's
    descriptors receive)."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()
    saved = [os.dup(1), os.dup(2)]
    try:
        with open(path, "ab") as handle:
            os.dup2(handle.fileno(), 1)
            os.dup2(handle.fileno(), 2)
            yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(saved[0])
        os.close(saved[1])


def _local_partitions(master: str) -> int | None:
    """2 shuffle partitions per core of a ``local``, ``local[n]``, ``local[*]`` or
    ``local[n,f]`` master; None for other masters."""
    match = re.fullmatch(r"local(?:\[(\*|\d+)(?:,\s*\d+)?\])?", master.strip())
    if match is None:
        return None
    cores = match.group(1)
    n = 1 if cores is None else (os.cpu_count() or 1) if cores == "*" else int(cores)
    return 2 * max(n, 1)


def driver_memory(available: int | None = None) -> str:
    """The driver heap a new local session gets: a quarter of the memory available now,
    between 1 and 16 GiB (``"6g"``); 2 GiB when the available memory cannot be read."""
    if available is None:
        from .._parallel import available_memory

        available = available_memory()
    if available is None:
        return "2g"
    return f"{min(16, max(1, available // 4 // 2**30))}g"


#: The JVM option of ``start_session(quick_jit=True)``: C1, the quick compiler, only.
QUICK_JIT = "-XX:TieredStopAtLevel=1"


@constrained(quick_jit=BOOL)
def start_session(master: str = "local[2]", *, partitions: int | None = None,
                  app_name: str = "evalkit", log: str | os.PathLike | None = None,
                  memory: str | None = None, quick_jit: bool = False):
    """A Spark session for :func:`evalkit.spark.evaluate`, with quiet local defaults.

    Reuses the active session when it runs on ``master``; stops it and starts another when
    it runs elsewhere.

    Parameters
    ----------
    master : str, default "local[2]"
        Spark master URL: ``local[n]`` (n cores of this machine), ``spark://host:7077``,
        ``yarn``, ``k8s://...``. For Spark Connect build the session yourself
        (``SparkSession.builder.remote("sc://host:15002")``).
    partitions : int, optional
        ``spark.sql.shuffle.partitions``, so also the buckets of users of
        :func:`evalkit.spark.evaluate`. Default for a new session on a ``local`` master: 2 per
        core (Spark's 200 is meant for clusters: the sample report's evaluation on
        ``local[2]`` took 26 s with 200 and 4 s with 4); otherwise the session's setting.
    app_name : str, default "evalkit"
        The application's name in the cluster's UI.
    log : path, optional
        File that receives the console output of Spark's JVM and of its Python workers
        (log4j lines, warnings); default ``evalkit-spark-<pid>.log`` in the temporary
        directory. Spark's own log level is set to ERROR.
    memory : str, optional
        ``spark.driver.memory`` of a new session (``"8g"``). Default on a ``local`` master,
        where the driver is also the only executor: a quarter of the memory available when
        the session starts, between 1 and 16 GiB (:func:`driver_memory`; Spark's own default,
        1 GiB, runs out on MovieLens-25M); elsewhere Spark's settings. It cannot change the
        heap of a JVM already running.
    quick_jit : bool, default False
        For a new session on a ``local`` master: the JVM compiles with its quick compiler
        only (C1, ``-XX:TieredStopAtLevel=1``), not the optimizing one. For short work on
        small data, where compiling costs more than it saves: the at-scale report on the
        sample (which sets it for data under a million interactions) spent 23 s of JVM CPU
        instead of 45 s, and the whole report ran in 62 to 72 s instead of 76 to 83 s on two
        cores. Leave it off for long jobs on large data. It cannot change a JVM already
        running (a session reused).

    Returns
    -------
    pyspark.sql.SparkSession
        The active session when it runs on ``master``, else a new one; its log level set to
        ERROR.

    Raises
    ------
    RuntimeError
        When Spark cannot run here (naming what is missing, see :func:`missing`), or when
        its JVM does not start (naming the log file).
    ValueError
        For an empty or Spark Connect ``master``.

    Notes
    -----
    The defaults: the web UI off (``spark.ui.enabled=false``), no console progress bars,
    Arrow for the transfers between pandas and Spark
    (``spark.sql.execution.arrow.pyspark.enabled``, falling back to rows where a type has no
    Arrow form), the driver memory above,
    and for a ``local`` master ``PYSPARK_PYTHON`` set to this Python (``sys.executable``),
    so that the workers import the same evalkit; for other masters ``PYSPARK_PYTHON`` is
    set only when it is unset (the executors need evalkit installed, see the guide's "At
    scale" page, docs/guide/at-scale.md).

    A new session on a ``local`` master maps an archive of the JVM classes Spark loads, and
    when there is none yet its JVM writes one as it exits (``spark.driver.defaultJavaOptions``
    carries the option): later sessions start seconds sooner. The archive lives in
    ``~/.cache/evalkit/spark`` (``$EVALKIT_SPARK_CLASSES`` names another folder, or ``off``
    turns it off); see :mod:`evalkit.spark._classes`.
    """
    if not isinstance(master, str) or not master.strip():
        raise ValueError(f"start_session: 'master' must be a Spark master URL such as "
                         f"'local[2]'; got {master!r}.")
    if master.startswith("sc://"):
        raise ValueError("start_session: 'master' is a Spark Connect address; build that "
                         "session with SparkSession.builder.remote(...) and pass its frames "
                         f"to evalkit.spark.evaluate; got {master!r}.")
    if partitions is not None:
        partitions = check_positive_int(partitions, func="start_session", arg="partitions")
    if memory is not None and not (isinstance(memory, str)
                                   and re.fullmatch(r"[1-9]\d*[kmgt]", memory.strip().lower())):
        raise ValueError("start_session: 'memory' must be a JVM memory size such as '8g' or "
                         f"'4096m'; got {memory!r}.")
    reason = missing()
    if reason:
        raise RuntimeError(f"start_session: Spark cannot run here: {reason}.")
    from pyspark.sql import SparkSession

    if master.startswith("local"):
        os.environ["PYSPARK_PYTHON"] = sys.executable
    else:
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # pyspark on pandas 3
        active = SparkSession.getActiveSession()
        if active is not None and active.sparkContext.master != master:
            active.stop()
            active = None
        if active is None:
            builder = (SparkSession.builder.master(master).appName(app_name)
                       .config("spark.ui.enabled", "false")
                       .config("spark.ui.showConsoleProgress", "false")
                       .config("spark.sql.execution.arrow.pyspark.enabled", "true"))
            if memory is None and _local_partitions(master) is not None:
                memory = driver_memory()
            if memory is not None:
                builder = builder.config("spark.driver.memory", str(memory))
            shuffle = partitions if partitions is not None else _local_partitions(master)
            if shuffle is not None:
                builder = builder.config("spark.sql.shuffle.partitions", str(shuffle))
            option, recording = None, None
            if _local_partitions(master) is not None:  # the driver's classes, archived
                option, recording = java_option(_java()[0])
                if quick_jit:
                    option = " ".join(o for o in (option, QUICK_JIT) if o)
            if option is not None:
                builder = builder.config("spark.driver.defaultJavaOptions", option)
            path = _log_path(log)
            try:
                with _console_to(path):
                    active = builder.getOrCreate()
            except Exception as error:
                if recording is not None:
                    drop_recording(recording)
                raise RuntimeError(f"start_session: Spark did not start on {master!r} "
                                   f"({type(error).__name__}: {error}); its console output "
                                   f"is in {path}.") from None
            if recording is not None:
                note_jvm(recording, active)
    active.sparkContext.setLogLevel("ERROR")
    if partitions is not None:
        active.conf.set("spark.sql.shuffle.partitions", str(partitions))
    return active


def record() -> Path | None:
    """Record the archive now (when there is none): run the at-scale report's Spark calls
    on a small sample in a session whose JVM writes the archive, wait until it has exited,
    and adopt the archive. Returns its path, or None when Spark cannot run here, the archive
    is turned off or another JVM is recording it; raises RuntimeError when the recording
    session fails."""
    java, _ = _java()
    folder = archive_dir()
    if missing() or java is None or folder is None:
        return None
    key = archive_key(java)
    if key is None:
        return None
    archive = folder / f"{key}.jsa"
    if not archive.exists():
        done = subprocess.run([sys.executable, "-c", _WORKLOAD], capture_output=True,
                              text=True)
        if done.returncode != 0:
            raise RuntimeError("the recording session failed: "
                               + (done.stderr.strip().splitlines() or ["no message"])[-1])
        folder.mkdir(parents=True, exist_ok=True)
        _adopt(folder, key)
    return archive if archive.exists() else None


#: The calls a recording session makes: the at-scale report's, on a small sample; then the
#: JVM is stopped and waited for, so that its archive is whole when the process ends.
_WORKLOAD = """
import warnings
warnings.simplefilter("ignore")
import evalkit as ek
import evalkit.spark as eks
from evalkit import report as rp

spark = eks.start_session("local[2]", partitions=2)
data = rp.parquet_inputs("", "", dataset="sample", train=None, test=None, split="user_ratio",
                         test_fraction=0.2, recs={}, baselines=["MostPopular", "Random"],
                         k=20, seed=0)
frames = rp.spark_frames(spark, data)
rp.spark_evaluate_systems(frames, k=[5, 10], threshold=4.0, seed=0, profile=None,
                          partitions=2)
rp.spark_curve_bands(frames, k_max=20, threshold=4.0, seed=0, profile=None, partitions=2)
eks.compare(dict(frames.systems), frames.truth, k=10, threshold=4.0)
proc = spark.sparkContext._gateway.proc
spark.stop()
proc.stdin.close()  # the JVM exits when its standard input closes, writing the archive
proc.wait(timeout=600)
"""
