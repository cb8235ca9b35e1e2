"""Settings of the whole test run: unit tests, doctests and nbval.

Spark's JVM, which many tests and notebook runs start (in process, in notebook kernels and in
``evalkit report`` subprocesses, which inherit the environment), compiles with C1 only
(``-XX:TieredStopAtLevel=1``): the runs are short, and the optimizing compiler costs more CPU
than it saves there (about 30% of a notebook's Spark time on 2 cores). No result depends on
it; the benchmark scripts set their own options.
"""

from __future__ import annotations

import os

os.environ.setdefault("PYSPARK_SUBMIT_ARGS",
                      '--driver-java-options "-XX:TieredStopAtLevel=1" pyspark-shell')
