"""Reference values from LensKit on the shared inputs: ``fixtures/lenskit.json``.

Run in an environment with LensKit (not evalkit's)::

    python3.11 -m venv /tmp/ref-lenskit
    /tmp/ref-lenskit/bin/pip install lenskit pandas
    /tmp/ref-lenskit/bin/python tests/references/lenskit.py

How LensKit is fed, as its users do: the test collection is the test items with rating >= 4.0
(LensKit counts every test item as relevant; the ``rating`` field rides along for
``gain="rating"``), ``ItemListCollection.from_df(test, "user_id")``. The outputs are the 20-item
lists of all 610 users with their ``rank`` (and ``score`` as a field; LensKit reads the order, not
the score), ``ItemListCollection.from_df(recs, "user_id")``. ``RunAnalysis(...).measure(outputs,
test)``; per-user values are ``list_metrics()`` (LensKit's default ``fill_missing=True``: a NaN,
the value of a list whose user has no test item, becomes the metric's default 0) and the mean is
``list_summary()["mean"]`` (the same filled values).

The 18 users without a relevant test item have no test list; LensKit measures them against an
empty list. ``AveragePrecision`` divides by ``min(|test|, |list|) = 0`` there and raises
``ZeroDivisionError`` (a LensKit bug), so it is measured on the 592 lists of users with a test
list only.
"""

from __future__ import annotations

import platform
import sys
import warnings
from importlib.metadata import version
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import inputs  # noqa: E402

# This file is named like the library: drop its folder from the path before importing it.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

from lenskit.data import ItemListCollection  # noqa: E402
from lenskit.metrics import (  # noqa: E402
    DCG,
    NDCG,
    Hit,
    LogRankWeight,
    Precision,
    Recall,
    RecipRank,
    RunAnalysis,
)
from lenskit.metrics.ranking import AveragePrecision  # noqa: E402

KS = (5, 10, 20)
OUT = HERE / "fixtures" / "lenskit.json"
SOURCE_FILES = [
    "lenskit/metrics/bulk.py",
    "lenskit/metrics/_collect.py",
    "lenskit/metrics/_base.py",
    "lenskit/metrics/ranking/_base.py",
    "lenskit/metrics/ranking/_pr.py",
    "lenskit/metrics/ranking/_hit.py",
    "lenskit/metrics/ranking/_recip.py",
    "lenskit/metrics/ranking/_map.py",
    "lenskit/metrics/ranking/_dcg.py",
    "lenskit/metrics/ranking/_weighting.py",
    "lenskit/data/collection/_list.py",
    "lenskit/data/items.py",
]


def specs() -> dict[str, tuple[str, object]]:
    out: dict[str, tuple[str, object]] = {}
    for k in KS:
        out |= {
            f"precision@{k}": (f"Precision(n={k})", Precision(n=k)),
            f"recall@{k}": (f"Recall(n={k})", Recall(n=k)),
            f"hit_rate@{k}": (f"Hit(n={k})", Hit(n=k)),
            f"mrr@{k}": (f"RecipRank(n={k})", RecipRank(n=k)),
            f"ndcg@{k}": (f"NDCG(n={k})", NDCG(n=k)),
            f"ndcg@{k}:offset1": (f"NDCG(n={k}, weight=LogRankWeight(offset=1))",
                                  NDCG(n=k, weight=LogRankWeight(offset=1))),
            f"ndcg@{k}:graded": (f'NDCG(n={k}, gain="rating")', NDCG(n=k, gain="rating")),
            f"ndcg@{k}:graded_offset1": (
                f'NDCG(n={k}, gain="rating", weight=LogRankWeight(offset=1))',
                NDCG(n=k, gain="rating", weight=LogRankWeight(offset=1))),
            f"dcg@{k}": (f"DCG(n={k})", DCG(n=k)),
            f"dcg@{k}:offset1": (f"DCG(n={k}, weight=LogRankWeight(offset=1))",
                                 DCG(n=k, weight=LogRankWeight(offset=1))),
        }
    return out


def ap_specs() -> dict[str, tuple[str, object]]:
    return {f"map@{k}": (f"AveragePrecision(n={k})", AveragePrecision(n=k)) for k in KS}


def graded_dcg_specs() -> dict[str, tuple[str, object]]:
    return {
        **{f"dcg@{k}:graded": (f'DCG(n={k}, gain="rating")', DCG(n=k, gain="rating"))
           for k in KS},
        **{f"dcg@{k}:graded_offset1": (
            f'DCG(n={k}, gain="rating", weight=LogRankWeight(offset=1))',
            DCG(n=k, gain="rating", weight=LogRankWeight(offset=1))) for k in KS},
    }


def measure(spec: dict[str, tuple[str, object]], outputs, test) -> dict[str, dict]:
    analysis = RunAnalysis()
    for name, (_, metric) in spec.items():
        analysis.add_metric(metric, label=name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # 0/0 for users without a test list
        result = analysis.measure(outputs, test)
    per_user = result.list_metrics()
    summary = result.list_summary()
    out = {}
    for name, (call, _) in spec.items():
        column = per_user[name].sort_index()
        out[name] = {
            "call": f"RunAnalysis({call}).measure(outputs, test): list_metrics() per user, "
                    "list_summary()['mean'] for the mean",
            "mean": float(summary.loc[name, "mean"]),
            "per_user": {str(int(u)): inputs.json_float(v) for u, v in column.items()},
        }
    return out


def main() -> None:
    train, truth, recs = inputs.load()
    positives = truth.loc[truth["rating"] >= inputs.THRESHOLD, ["user_id", "item_id", "rating"]]
    test = ItemListCollection.from_df(positives, "user_id")
    ordered = recs.sort_values(["user_id", "rank"])[["user_id", "item_id", "score", "rank"]]
    outputs = ItemListCollection.from_df(ordered, "user_id")
    with_test = ItemListCollection.from_df(
        ordered[ordered["user_id"].isin(positives["user_id"])], "user_id")

    metrics = measure(specs(), outputs, test)
    # AveragePrecision raises ZeroDivisionError on a list whose user has no test item
    try:
        measure(ap_specs(), outputs, test)
    except ZeroDivisionError:
        pass
    else:
        raise AssertionError("AveragePrecision no longer fails on empty test lists: revisit")
    metrics |= measure(ap_specs(), with_test, test)
    # DCG(gain="rating") needs the rating field, which the empty test list lacks
    try:
        measure(graded_dcg_specs(), outputs, test)
    except KeyError:
        graded_on = with_test
    else:
        graded_on = outputs
    metrics |= measure(graded_dcg_specs(), graded_on, test)
    metrics = {name: metrics[name] for name in sorted(metrics, key=_order)}

    fixture = {
        "library": "lenskit",
        "version": version("lenskit"),
        "python": platform.python_version(),
        "source_files": SOURCE_FILES,
        "inputs": inputs.fingerprint(train, truth, recs),
        "fed": {
            "test": "ItemListCollection.from_df(truth rows with rating >= 4.0, columns user_id, "
                    "item_id, rating; key user_id): 592 users; the 18 users without a relevant "
                    "test item have no test list and are measured against an empty one",
            "outputs": "ItemListCollection.from_df(recs sorted by user_id, rank; columns user_id, "
                       "item_id, score, rank; key user_id): ordered lists, LensKit reads the rank "
                       "order; all 610 users",
            "map": "AveragePrecision on the outputs of the 592 users with a test list only "
                   "(it raises ZeroDivisionError on an empty test list)",
            "dcg:graded": "DCG(gain='rating') on the outputs of the 592 users with a test list "
                          "only if it fails on an empty test list (no rating field): "
                          + ("it does" if graded_on is with_test else "it does not"),
            "train": "not used",
        },
        "metrics": metrics,
    }
    inputs.write_fixture(OUT, fixture)
    print(f"wrote {OUT} ({len(metrics)} metrics)")


def _order(name: str) -> tuple:
    base, _, variant = name.partition(":")
    metric, k = base.split("@")
    return int(k), metric, variant


if __name__ == "__main__":
    main()
