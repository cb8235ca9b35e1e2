"""Settings of the whole test run: unit tests, doctests and nbval.

Spark's JVM, which many tests and notebook runs start (in process, in notebook kernels and in
``evalkit report`` subprocesses, which inherit the environment), is set for runs that are
short and data that is small: it compiles with C1 only (``-XX:TieredStopAtLevel=1``; the
optimizing compiler costs more CPU than it saves there, about 30% of a notebook's Spark time
on 2 cores), collects garbage on one thread (``-XX:+UseSerialGC``), and Spark SQL neither
generates Java code for each query (``spark.sql.codegen.wholeStage=false``: compiling it
costs more than it saves on a few thousand rows) nor re-plans queries as they run
(``spark.sql.adaptive.enabled=false``). Together, tests/test_spark.py's JVM took about a fifth
less CPU (92 to 58-73 s). No result depends on them (the results do not depend on the
partitions or the plan, which tests/test_spark.py checks); the benchmark scripts set their
own options.

Every core already runs a test worker (``pytest -n auto``), so the thread pools of BLAS and
OpenMP get one thread in the workers and in what they start (``OMP_NUM_THREADS`` and the
like, unless set): more threads than cores only wait for each other, and OpenBLAS's waiting
threads spin, taking CPU from the other worker (as ``evalkit report`` shares the cores
between its kernels: there it saves a sixth of the CPU time). Numba's threads are counted by
``NUMBA_NUM_THREADS`` and evalkit's by the cores, neither of which this changes, so the
kernels' thread-count tests still run several threads.
"""

from __future__ import annotations

import os

os.environ.setdefault("PYSPARK_SUBMIT_ARGS",
                      "--conf spark.sql.codegen.wholeStage=false "
                      "--conf spark.sql.adaptive.enabled=false "
                      '--driver-java-options "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC" '
                      "pyspark-shell")
for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

# The notebook kernels of the whole run (nbval's, the grid's, papermill's in the tests) are
# forked from one kernel server that has imported what the notebooks import, instead of each
# starting a new Python that imports it all again (0.13 s of CPU per kernel and the
# notebooks' imports instead of 1.4 s; evalkit/report/_warm.py). Started here in the main
# process, with the settings above and before the workers, which inherit its address; it
# ends with this process. A kernel whose environment differs where the imports read it is
# started as usual (the server refuses it), as is every kernel where evalkit is installed
# without its entry points.
if not os.environ.get("EVALKIT_KERNEL_SERVER"):
    import atexit
    import importlib.metadata
    import importlib.util
    from pathlib import Path

    if importlib.metadata.entry_points(group="jupyter_client.kernel_provisioners",
                                       name="evalkit-warm-kernels"):
        # loaded from its file: importing the evalkit package here would cost this process
        # a second and a half
        _path = Path(__file__).resolve().parent / "evalkit" / "report" / "_warm.py"
        _spec = importlib.util.spec_from_file_location("_evalkit_warm_kernels", _path)
        _warm = importlib.util.module_from_spec(_spec)
        _spec.loader.exec_module(_warm)
        _server = _warm.start_server()
        os.environ[_warm.SERVER] = _server.path
        os.environ["JUPYTER_DEFAULT_PROVISIONER_NAME"] = _warm.PROVISIONER
        atexit.register(_server.stop)


#: Seconds each of the heaviest scopes took (summed over its tests) in a full run on two cores,
#: as ``pytest --durations=0 --junitxml=...`` reports them. xdist hands out whole scopes
#: (modules, or classes, and notebooks) to its workers in the order of collection; starting
#: with the longest (longest-processing-time first) keeps a long scope from starting last
#: while the other workers idle. Scopes not named keep their order after these.
_SCOPE_SECONDS = {
    "tests/test_spark.py": 100, "tests/test_report_runner.py": 85, "tests/test_reports.py": 69,
    "tests/test_notebook_grid.py::TestNotebook09": 31, "tests/test_readme_commands.py": 30,
    "notebooks/09-at-scale.ipynb": 22, "tests/test_profiles.py": 19,
    "tests/test_notebook_grid.py::TestNotebook05": 18,
    "notebooks/07-model-comparison.ipynb": 17, "tests/test_packaging.py": 17,
    "tests/test_models.py": 16, "tests/test_notebook_grid.py::TestNotebook06": 15,
    "tests/test_report_plan.py": 15, "tests/test_calibration.py": 20,
    "tests/test_notebook_grid.py::TestNotebook01": 13,
    "tests/test_notebook_grid.py::TestNotebook07": 11,
}


def pytest_collection_modifyitems(config, items) -> None:
    """The heaviest scopes first (see ``_SCOPE_SECONDS``); the tests within a scope keep their
    order. The scope is xdist's ``--dist loadscope`` unit: the node id up to its last ``::``."""
    def scope(item) -> str:
        return item.nodeid.rsplit("::", 1)[0]

    first = {}
    for position, item in enumerate(items):
        first.setdefault(scope(item), position)
    items.sort(key=lambda item: (-_SCOPE_SECONDS.get(scope(item), 0), first[scope(item)]))


#: numba's cache index files (one per compiled function) of the code the tests run: evalkit's
#: kernels and ranx's functions. ``make setup-test`` compiles what the tests reach
#: (``python -m evalkit._compile``, ``tests/compile_references.py``); an index written during
#: the run is a function compiled again in the test processes, which costs each process that
#: compiles it seconds of CPU (the first run after setup took a third longer before the
#: warm-ups reached the 32-bit codes and six-digit ids the tests use).
def _numba_indexes() -> list:
    from pathlib import Path

    roots = [Path(__file__).parent / "evalkit"]
    try:
        import importlib.util

        spec = importlib.util.find_spec("ranx")
        if spec is not None and spec.origin:
            roots.append(Path(spec.origin).parent)
    except (ImportError, ValueError):
        pass
    return [index for root in roots for index in root.rglob("*.nbi")]


def pytest_sessionstart(session) -> None:
    if not hasattr(session.config, "workerinput"):  # the main process, before the workers
        import time

        session.config._numba_began = time.time()


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    """Name the functions numba compiled during the run that the warm-ups did not reach."""
    began = getattr(config, "_numba_began", None)
    if began is None:
        return
    compiled = sorted({index.name.rsplit("-", 1)[0] for index in _numba_indexes()
                       if index.stat().st_mtime >= began})
    if compiled:
        terminalreporter.write_line(
            f"numba compiled {len(compiled)} function(s) during this run that make "
            f"setup-test's warm-ups do not reach (evalkit/_compile.py, "
            f"tests/compile_references.py): {', '.join(compiled)}")
