"""Compile ranx's numba functions into numba's on-disk cache, once: ``make setup-test`` runs
``python tests/compile_references.py`` after installing the test dependencies.

ranx, one of the libraries the tests check evalkit against, compiles its metrics with numba
the first time a process calls them (about 30 s on two cores) and keeps them in numba's cache
beside its source. On a fresh install, every test process that calls ranx (the test workers
and the benchmark script the tests run) would compile the same functions side by side; after
this, they load them (numba's typed dictionaries, which ranx builds its inputs in, are still
compiled in each process: about 4 s). The calls are the tests': ranx's ``Qrels`` and ``Run``
from dicts and from DataFrames, means and per-query scores, and the metrics the tests and the
benchmark ask for, with document ids of the widths the tests' item ids have. It writes
nothing but numba's cache files.
"""

from __future__ import annotations

import time
import warnings


def main() -> int:
    try:
        import ranx
    except ImportError:
        print("ranx is not installed: nothing to compile")
        return 0
    import pandas as pd

    began = time.perf_counter()
    qrels = {"1": {"a": 1, "b": 2, "c": 0}, "2": {"c": 1}}
    run = {"1": {"a": 0.9, "c": 0.5, "b": 0.1}, "2": {"c": 0.3, "d": 0.2}}
    metrics = ([f"{m}@10" for m in ("precision", "recall", "f1", "hit_rate", "mrr", "map",
                                    "ndcg", "ndcg_burges")]
               + ["r-precision", "ndcg@10-l2"]
               + [f"{m}@{k}-l8" for m in ("precision", "recall", "map", "mrr")
                  for k in (10, 100)]
               + ["ndcg@100"])
    frame_qrels = pd.DataFrame({"q_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"],
                                "score": [1, 8, 9]}).astype({"q_id": object, "doc_id": object})
    frame_run = pd.DataFrame({"q_id": ["1", "1", "2"], "doc_id": ["a", "c", "c"],
                              "score": [0.9, 0.5, 0.3]}).astype({"q_id": object,
                                                                 "doc_id": object})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's type-safety notes
        for threads in (0, 1):
            ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), metrics, return_mean=False,
                          make_comparable=True, threads=threads)
        ranx.evaluate(ranx.Qrels.from_df(frame_qrels), ranx.Run.from_df(frame_run), metrics)
        # numba compiles ranx's typed containers once per width of the document ids (numpy
        # strings of fixed width): the tests' relevant items have six digits, their lists
        # five or six
        wide_qrels = ranx.Qrels({"1": {"100000": 1, "100001": 2}, "2": {"100002": 1}})
        for width in (5, 6):
            ids = [str(10 ** (width - 1) + i) for i in range(3)]
            wide_run = {"1": {ids[0]: 0.9, ids[2]: 0.5}, "2": {ids[2]: 0.3, ids[1]: 0.2}}
            ranx.evaluate(wide_qrels, ranx.Run(wide_run), metrics, return_mean=False,
                          make_comparable=True)
    print(f"ranx: compiled or loaded from numba's cache in {time.perf_counter() - began:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
