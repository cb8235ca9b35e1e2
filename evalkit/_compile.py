"""Compile evalkit's kernels into numba's on-disk cache, once: ``python -m evalkit._compile``.

The compiled kernels (:mod:`evalkit.metrics._kernels`, :mod:`evalkit._resample`) are compiled
the first time a process calls them with a given kind of data and kept in numba's cache beside
their source (``__pycache__``), from which later processes load them in a fraction of the
time. ``make setup`` runs this module after installing, so that the first report, notebook
kernel, test worker or Spark worker loads the kernels rather than compiling them, and several
processes started side by side on a fresh install do not each compile the same kernels.

It runs the calls the reports and the tests make most, on a small generated sample with
integer and string ids: every ranking metric under each tie policy and gain, curves, the
bootstrap, ``compare`` (paired tests and the randomization test), the beyond-accuracy metrics,
the rating and classification metrics, the baselines, the sampling of candidates and exposure
shares; then it compiles the other argument types the test suite reaches (:data:`_SIGNATURES`),
which the test workers would otherwise each compile side by side. What it does not reach is
compiled on first use, as before. It writes nothing but numba's cache files.
"""

from __future__ import annotations

import time
import warnings


def main() -> int:
    """Run the warm-up calls; print how long they took."""
    began = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ties, users only in the lists: expected here
        _run()
        _compile_signatures()
    print(f"evalkit: kernels compiled or loaded from numba's cache in "
          f"{time.perf_counter() - began:.1f} s")
    return 0


def _run() -> None:
    import numpy as np
    import pandas as pd

    import evalkit as ek
    from evalkit.metrics import RANKING_METRICS
    from evalkit.metrics.tables import beyond_accuracy, beyond_intervals, list_intervals

    ratings = ek.load_sample(seed=0).ratings
    ratings = ratings[ratings["user_id"].isin(ratings["user_id"].unique()[:200])]
    split = ek.split.split_by(ratings, "user_ratio", test_fraction=0.2, rng=0)
    train, test = split.train, split.test
    systems = ek.models.recommend_all(["MostPopular", "ItemKNN", "EASE"], train,
                                      test["user_id"].unique(), k=20, rng=0)
    recs = systems["EASE"]
    tied = recs.drop(columns="rank").assign(score=recs["score"].round(1))
    as_text = {"user_id": str, "item_id": str}
    every = list(RANKING_METRICS)
    for truth, lists in ((test, recs), (test.astype(as_text), recs.astype(as_text))):
        ek.evaluate(truth, lists, k=[5, 10], threshold=4.0)
        ek.evaluate(truth, lists, k=[5, 10], metrics=every, threshold=4.0, curves=20)
        ek.evaluate(truth, lists, k=10, relevant_set="listed", n_resamples=0)
    for ties in ("deterministic", "optimistic", "pessimistic", "expected"):
        ek.evaluate(test, tied, k=[5, 10], threshold=4.0, ties=ties, n_resamples=0,
                    metrics=[m for m in every
                             if ties != "expected" or RANKING_METRICS[m].expected_ties])
    ek.evaluate(test, recs, k=10, threshold=None, gain="exponential", n_resamples=0)
    # more distinct ratings than one byte codes: the kernels' 32-bit codes
    fine = test.assign(rating=test["rating"] + np.arange(len(test)) * 1e-6)
    ek.evaluate(fine, recs, k=10, threshold=4.0, n_resamples=0, curves=20)
    ek.evaluate(fine.astype(as_text), recs.astype(as_text), k=10, threshold=4.0, n_resamples=0)
    ek.compare({n: systems[n] for n in ("MostPopular", "EASE")}, test, k=[5, 10],
               threshold=4.0)
    items = pd.DataFrame({"item_id": ratings["item_id"].unique()})
    items["genres"] = [["a", "b"][: 1 + i % 2] for i in range(len(items))]
    beyond_accuracy(test, recs, train=train, items=items, k=10)
    beyond_intervals(test, recs, train=train, items=items, k=10)
    list_intervals(recs, train=train, k=10)
    predictions = ek.models.predict_ratings(train, test)["user + item bias"]
    ek.metrics.rating_errors(test, predictions)
    ek.metrics.classification_scores(test, predictions, threshold=4.0)
    from evalkit.protocols import sampled

    sampled.sample_negatives(test, train, n_negatives=10, rng=0)
    groups = pd.Series(["head", "tail"] * (len(items) // 2 + 1), dtype=object)[:len(items)]
    ek.fairness.exposure_share(recs, groups.set_axis(items["item_id"].to_numpy()), k=10)


#: Signatures the test suite and other callers reach that the calls above do not (read-only
#: arrays from pandas, 32-bit codes for wide rating scales, ...), compiled here too so that
#: no process compiles them again: kernel -> its argument types, as numba prints them.
_SIGNATURES: dict[str, tuple[str, ...]] = {
    "evalkit._duplicates._scan_groups": (
        "(Array(int32, 1, 'C', True, aligned=True), Array(int32, 1, 'C', True, "
        "aligned=True), int64, int64)",
        "(Array(int32, 1, 'C', True, aligned=True), Array(int64, 1, 'C', True, "
        "aligned=True), int64, int64)",
        "(Array(int32, 1, 'C', True, aligned=True), Array(uint16, 1, 'C', True, "
        "aligned=True), int64, int64)",
        "(Array(int64, 1, 'C', True, aligned=True), Array(int32, 1, 'C', True, "
        "aligned=True), int64, int64)",
        "(Array(int64, 1, 'A', True, aligned=True), Array(int64, 1, 'A', True, "
        "aligned=True), int64, int64)",
        "(Array(int64, 1, 'C', False, aligned=True), Array(int64, 1, 'C', False, "
        "aligned=True), int64, int64)",
        "(Array(uint64, 1, 'C', True, aligned=True), Array(int64, 1, 'C', True, "
        "aligned=True), int64, int64)",
        "(Array(uint64, 1, 'C', True, aligned=True), Array(uint64, 1, 'C', True, "
        "aligned=True), int64, int64)",
    ),
    "evalkit._duplicates._stamp_duplicates": (
        "(Array(int64, 1, 'A', True, aligned=True), Array(int64, 1, 'A', True, "
        "aligned=True), int64, int64, int64, int64)",
        "(Array(int64, 1, 'C', False, aligned=True), Array(int64, 1, 'C', False, "
        "aligned=True), int64, int64, int64, int64)",
    ),
    "evalkit._resample._fnv1a": (
        "(Array(int64, 1, 'C', False, aligned=True), Array(uint8, 1, 'C', True, "
        "aligned=True), Array(uint64, 1, 'C', False, aligned=True))",
    ),
    "evalkit.metrics._kernels._ideal_gains": (
        "(int64, int64, int64, Array(int32, 1, 'C', False, aligned=True), Array(float64, "
        "1, 'C', False, aligned=True), bool, Array(int64, 1, 'C', False, aligned=True), "
        "Array(float64, 1, 'C', False, aligned=True), Array(float64, 1, 'C', False, "
        "aligned=True))",
    ),
    "evalkit.metrics._kernels._sort_groups": (
        "(Array(int64, 1, 'C', False, aligned=True), Array(int64, 1, 'C', False, "
        "aligned=True), Array(float64, 1, 'C', False, aligned=True), Array(float64, 1, "
        "'C', False, aligned=True), int64, int64)",
        "(Array(int64, 1, 'C', False, aligned=True), Array(int64, 1, 'C', False, "
        "aligned=True), Array(float64, 1, 'C', False, aligned=True), Array(int32, 1, 'C', "
        "False, aligned=True), int64, int64)",
        "(Array(int64, 1, 'C', False, aligned=True), Array(int64, 1, 'C', False, "
        "aligned=True), Array(float64, 1, 'C', False, aligned=True), Array(int64, 1, 'C', "
        "False, aligned=True), int64, int64)",
        "(Array(int64, 1, 'C', False, aligned=True), Array(int64, 1, 'C', False, "
        "aligned=True), Array(int64, 1, 'C', False, aligned=True), Array(int64, 1, 'C', "
        "False, aligned=True), int64, int64)",
    ),
    "evalkit.metrics._kernels.group_rows": (
        "(Array(int64, 1, 'C', True, aligned=True), int64)",
    ),
    "evalkit.metrics._kernels.group_starts": (
        "(Array(int64, 1, 'C', True, aligned=True), Array(int64, 1, 'C', True, "
        "aligned=True), bool, int64)",
    ),
    "evalkit.metrics._kernels.half_star_levels": (
        "(Array(float64, 1, 'C', False, aligned=True),)",
    ),
    "evalkit.metrics._kernels.join": (
        "(Array(int64, 1, 'C', False, aligned=True), Array(int64, 1, 'C', False, "
        "aligned=True), Array(int32, 1, 'C', False, aligned=True), Array(int64, 1, 'C', "
        "False, aligned=True), Array(int64, 1, 'C', False, aligned=True), int64, int64, "
        "Array(float64, 1, 'C', False, aligned=True), Array(int32, 1, 'C', False, "
        "aligned=True), Array(float64, 1, 'C', False, aligned=True), int64, int64)",
        "(Array(int64, 1, 'C', False, aligned=True), Array(int64, 1, 'C', False, "
        "aligned=True), Array(uint8, 1, 'C', False, aligned=True), Array(int64, 1, 'C', "
        "False, aligned=True), Array(int64, 1, 'C', False, aligned=True), int64, int64, "
        "Array(float64, 1, 'C', False, aligned=True), Array(uint8, 1, 'C', False, "
        "aligned=True), Array(float64, 1, 'C', False, aligned=True), int64, int64)",
        "(Array(int64, 1, 'C', False, aligned=True), Array(int64, 1, 'C', False, "
        "aligned=True), Array(uint8, 1, 'C', False, aligned=True), Array(int64, 1, 'C', "
        "False, aligned=True), Array(int64, 1, 'C', True, aligned=True), int64, int64, "
        "Array(float64, 1, 'C', False, aligned=True), Array(uint8, 1, 'C', False, "
        "aligned=True), Array(float64, 1, 'C', False, aligned=True), int64, int64)",
        "(Array(int64, 1, 'C', False, aligned=True), Array(int64, 1, 'C', True, "
        "aligned=True), Array(int32, 1, 'C', False, aligned=True), Array(int64, 1, 'C', "
        "False, aligned=True), Array(int64, 1, 'C', False, aligned=True), int64, int64, "
        "Array(float64, 1, 'C', False, aligned=True), Array(int32, 1, 'C', False, "
        "aligned=True), Array(float64, 1, 'C', False, aligned=True), int64, int64)",
    ),
    "evalkit.metrics._kernels.listed": (
        "(Array(int64, 1, 'C', False, aligned=True), Array(int64, 1, 'C', False, "
        "aligned=True), Array(int64, 1, 'C', False, aligned=True), Array(int64, 1, 'C', "
        "False, aligned=True), int64, int64, Array(bool, 1, 'C', False, aligned=True), "
        "int64, int64)",
    ),
    "evalkit.metrics._kernels.offset_codes": (
        "(Array(int64, 1, 'C', False, aligned=True), int64, int64, Array(int32, 1, 'C', "
        "False, aligned=True))",
    ),
    "evalkit.metrics._kernels.ordered_by_score": (
        "(Array(int32, 1, 'C', False, aligned=True), Array(float64, 1, 'C', False, "
        "aligned=True), Array(int32, 1, 'C', False, aligned=True), bool)",
        "(Array(int32, 1, 'C', False, aligned=True), Array(float64, 1, 'C', False, "
        "aligned=True), Array(int64, 1, 'C', False, aligned=True), bool)",
        "(Array(int32, 1, 'C', False, aligned=True), Array(float64, 1, 'C', True, "
        "aligned=True), Array(int32, 1, 'C', False, aligned=True), bool)",
        "(Array(int32, 1, 'C', False, aligned=True), Array(float64, 1, 'C', True, "
        "aligned=True), Array(int64, 1, 'C', False, aligned=True), bool)",
        "(Array(int64, 1, 'C', True, aligned=True), Array(float64, 1, 'C', False, "
        "aligned=True), Array(int64, 1, 'C', True, aligned=True), bool)",
    ),
    "evalkit.metrics._kernels.pair_counts": (
        "(Array(int64, 1, 'C', False, aligned=True), Array(float64, 1, 'C', False, "
        "aligned=True), Array(float64, 1, 'C', False, aligned=True), int64, int64, "
        "Array(int64, 2, 'C', False, aligned=True))",
    ),
    "evalkit.metrics._kernels.tied_values": (
        "(Array(int64, 1, 'C', False, aligned=True), Array(int64, 1, 'C', False, "
        "aligned=True), Array(uint8, 1, 'C', False, aligned=True), Array(float64, 1, 'C', "
        "False, aligned=True), Array(float64, 1, 'C', False, aligned=True), Array(int64, "
        "1, 'C', False, aligned=True), int64, int64, Array(float64, 2, 'A', False, "
        "aligned=True))",
    ),
}


def _compile_signatures() -> None:
    """Compile each kernel for the argument types of :data:`_SIGNATURES` (loaded from the
    cache when it has them)."""
    import importlib

    from numba import types

    names = {name: getattr(types, name) for name in dir(types) if not name.startswith("_")}
    names["bool"] = types.boolean
    for qualified, signatures in _SIGNATURES.items():
        module, name = qualified.rsplit(".", 1)
        kernel = getattr(importlib.import_module(module), name)
        for signature in signatures:
            kernel.compile(eval(signature, {"__builtins__": {}}, names))  # noqa: S307


if __name__ == "__main__":
    raise SystemExit(main())
