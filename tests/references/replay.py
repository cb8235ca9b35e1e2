"""Reference values from RePlay (``replay-rec``, Sber AI Lab) on the shared inputs:
``fixtures/replay.json``.

Run in an environment with RePlay (not evalkit's)::

    python3.11 -m venv /tmp/ref-replay
    /tmp/ref-replay/bin/pip install replay-rec pandas
    /tmp/ref-replay/bin/python tests/references/replay.py

How RePlay is fed, as its users do: ``ground_truth`` is a pandas frame of the test items with
rating >= 4.0 (columns ``user_id, item_id``; RePlay has no relevance threshold, every row is a
positive, and it evaluates exactly the users in it). ``recommendations`` is a pandas frame with
the ``score`` as RePlay's rating column (``user_id, item_id, score``), not the rank: RePlay
orders each list itself by score descending and breaks ties by item id descending (pandas path:
``sort_values([score, item], ascending=False, kind="stable")``), which is what these values test.
Metrics are built with ``query_column="user_id", item_column="item_id", rating_column="score"``;
per-user values come from ``mode=PerUser()``, the mean from the default ``mode=Mean()``. The
script checks that ``OfflineMetrics`` and the polars path give the same means.
"""

from __future__ import annotations

import math
import platform
import sys
from importlib.metadata import version
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import inputs  # noqa: E402

# This file is named like the library: drop its folder from the path before importing it.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

import polars as pl  # noqa: E402
from replay.metrics import (  # noqa: E402
    MAP,
    MRR,
    NDCG,
    HitRate,
    Mean,
    OfflineMetrics,
    PerUser,
    Precision,
    Recall,
)

KS = [5, 10, 20]
OUT = HERE / "fixtures" / "replay.json"
COLUMNS = dict(query_column="user_id", item_column="item_id", rating_column="score")
METRICS = {  # fixture name -> RePlay class (its output is labelled ClassName@k)
    "precision": Precision,
    "recall": Recall,
    "hit_rate": HitRate,
    "mrr": MRR,
    "map": MAP,
    "ndcg": NDCG,
}
SOURCE_FILES = [
    "replay/metrics/base_metric.py",
    "replay/metrics/descriptors.py",
    "replay/metrics/offline_metrics.py",
    "replay/metrics/precision.py",
    "replay/metrics/recall.py",
    "replay/metrics/hitrate.py",
    "replay/metrics/mrr.py",
    "replay/metrics/map.py",
    "replay/metrics/ndcg.py",
]


def main() -> None:
    train, truth, recs = inputs.load()
    ground_truth = truth.loc[truth["rating"] >= inputs.THRESHOLD, ["user_id", "item_id"]]
    recommendations = recs[["user_id", "item_id", "score"]]

    offline = OfflineMetrics([cls(KS, **COLUMNS) for cls in METRICS.values()],
                             query_column="user_id", item_column="item_id", rating_column="score")
    offline_means = offline(recommendations, ground_truth)
    means_polars = {}
    for cls in METRICS.values():
        means_polars |= cls(KS, **COLUMNS)(pl.from_pandas(recommendations),
                                          pl.from_pandas(ground_truth))

    metrics = {}
    for k in KS:
        for name, cls in METRICS.items():
            label = f"{cls.__name__}@{k}"
            means = cls(KS, **COLUMNS, mode=Mean())(recommendations, ground_truth)
            per_user = cls(KS, **COLUMNS, mode=PerUser())(recommendations, ground_truth)
            mean = float(means[label])
            for other, source in ((offline_means[label], "OfflineMetrics"),
                                  (means_polars[label], "polars")):
                if not math.isclose(mean, other, rel_tol=0, abs_tol=1e-12):
                    raise AssertionError(f"{label}: pandas mean {mean} != {source} {other}")
            values = per_user[f"{cls.__name__}-PerUser@{k}"]
            metrics[f"{name}@{k}"] = {
                "call": f'replay.metrics.{cls.__name__}({KS}, query_column="user_id", '
                        f'item_column="item_id", rating_column="score", mode=PerUser() / Mean())'
                        "(recommendations, ground_truth)",
                "mean": mean,
                "per_user": {str(int(u)): inputs.json_float(values[u]) for u in sorted(values)},
            }

    fixture = {
        "library": "replay-rec",
        "version": version("replay-rec"),
        "python": platform.python_version(),
        "source_files": SOURCE_FILES,
        "inputs": inputs.fingerprint(train, truth, recs),
        "fed": {
            "ground_truth": "pandas frame of truth rows with rating >= 4.0, columns user_id, "
                            "item_id (positives only; the 592 users in it are the users evaluated)",
            "recommendations": "pandas frame of recs columns user_id, item_id, score (score as "
                               "RePlay's rating_column; no rank: RePlay sorts by score descending, "
                               "ties by item id descending)",
            "train": "not used",
        },
        "metrics": metrics,
    }
    inputs.write_fixture(OUT, fixture)
    print(f"wrote {OUT} ({len(metrics)} metrics)")


if __name__ == "__main__":
    main()
