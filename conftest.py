"""Settings of the whole test run: unit tests, doctests and nbval.

Spark's JVM, which many tests and notebook runs start (in process, in notebook kernels and in
``evalkit report`` subprocesses, which inherit the environment), compiles with C1 only
(``-XX:TieredStopAtLevel=1``): the runs are short, and the optimizing compiler costs more CPU
than it saves there (about 30% of a notebook's Spark time on 2 cores). No result depends on
it; the benchmark scripts set their own options.

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
                      '--driver-java-options "-XX:TieredStopAtLevel=1" pyspark-shell')
for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")
