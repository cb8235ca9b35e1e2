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


def pytest_sessionstart(session) -> None:
    """Compile evalkit's numba kernels once, in the main process, before the test workers and
    the notebook kernels start: on a fresh clone each of them would otherwise compile the
    same kernels side by side until the on-disk cache exists."""
    if hasattr(session.config, "workerinput"):  # an xdist worker: the cache is warm by now
        return
    import warnings

    import numpy as np
    import pandas as pd

    import evalkit as ek

    gen = np.random.default_rng(0)
    users = np.repeat(np.arange(40), 5)
    truth = pd.DataFrame({"user_id": users, "item_id": gen.integers(0, 30, users.size),
                          "rating": gen.choice([1.0, 2.5, 4.0, 5.0], users.size)}
                         ).drop_duplicates(["user_id", "item_id"])
    recs = pd.DataFrame({"user_id": np.repeat(np.arange(40), 8),
                         "item_id": np.tile(np.arange(8), 40),
                         "rank": np.tile(np.arange(1, 9), 40)})
    scored = recs.drop(columns="rank").assign(score=gen.random(len(recs)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for lists in (recs, scored):
            ek.evaluate(truth, lists, k=[3, 8], curves=8, n_resamples=50)
        ek.compare({"a": recs, "b": scored}, truth, k=3, n_resamples=50, n_permutations=99)
