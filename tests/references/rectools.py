"""Reference values from rectools (MTS) on the shared inputs: ``fixtures/rectools.json``.

Run in an environment with rectools and pandas (not evalkit's)::

    python3.11 -m venv /tmp/ref-rectools
    /tmp/ref-rectools/bin/pip install rectools pandas
    /tmp/ref-rectools/bin/python tests/references/rectools.py

How rectools is fed, as its users do: ``interactions`` are the test items with rating >= 4.0 only
(rectools has no relevance threshold: every row of ``interactions`` is a positive), ``reco`` is
the list with its ``rank`` column (rectools reads ranks, never scores). Per-user values come from
``metric.calc_per_user(reco, interactions)``, the mean from ``metric.calc(...)``;
``calc_metrics`` is called too and must agree.
"""

from __future__ import annotations

import math
import platform
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import inputs  # noqa: E402

# This file is named like the library: drop its folder from the path before importing it.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

import rectools  # noqa: E402
from rectools import Columns  # noqa: E402
from rectools.metrics import (  # noqa: E402
    MAP,
    MRR,
    NDCG,
    F1Beta,
    HitRate,
    Precision,
    Recall,
    calc_metrics,
)

KS = (5, 10, 20)
OUT = HERE / "fixtures" / "rectools.json"
SOURCE_FILES = [
    "rectools/metrics/base.py",
    "rectools/metrics/classification.py",
    "rectools/metrics/ranking.py",
    "rectools/metrics/scoring.py",
    "rectools/utils/misc.py",
]


def main() -> None:
    train, truth, recs = inputs.load()
    positives = truth.loc[truth["rating"] >= inputs.THRESHOLD, ["user_id", "item_id"]]
    interactions = positives.rename(columns={"user_id": Columns.User, "item_id": Columns.Item})
    reco = recs[["user_id", "item_id", "rank"]].rename(
        columns={"user_id": Columns.User, "item_id": Columns.Item, "rank": Columns.Rank}
    )

    specs: dict[str, tuple[str, object]] = {}
    for k in KS:
        specs |= {
            f"precision@{k}": (f"Precision(k={k})", Precision(k=k)),
            f"precision@{k}:r_precision": (
                f"Precision(k={k}, r_precision=True)", Precision(k=k, r_precision=True)),
            f"recall@{k}": (f"Recall(k={k})", Recall(k=k)),
            f"f1@{k}": (f"F1Beta(k={k})", F1Beta(k=k)),
            f"hit_rate@{k}": (f"HitRate(k={k})", HitRate(k=k)),
            f"mrr@{k}": (f"MRR(k={k})", MRR(k=k)),
            f"map@{k}": (f"MAP(k={k})", MAP(k=k)),
            f"map@{k}:divide_by_k": (f"MAP(k={k}, divide_by_k=True)", MAP(k=k, divide_by_k=True)),
            f"ndcg@{k}": (f"NDCG(k={k})", NDCG(k=k)),
            f"ndcg@{k}:divide_by_achievable": (
                f"NDCG(k={k}, divide_by_achievable=True)", NDCG(k=k, divide_by_achievable=True)),
        }

    together = calc_metrics({name: m for name, (_, m) in specs.items()}, reco, interactions)
    metrics = {}
    for name, (call, metric) in specs.items():
        per_user = metric.calc_per_user(reco, interactions).sort_index()
        mean = float(metric.calc(reco, interactions))
        if not math.isclose(mean, together[name], rel_tol=0, abs_tol=1e-12):
            raise AssertionError(f"{name}: calc {mean} != calc_metrics {together[name]}")
        metrics[name] = {
            "call": f"rectools.metrics.{call}.calc_per_user(reco, interactions); "
                    ".calc(...) for the mean",
            "mean": mean,
            "per_user": {str(int(u)): inputs.json_float(v) for u, v in per_user.items()},
        }

    fixture = {
        "library": "rectools",
        "version": rectools.__version__,
        "python": platform.python_version(),
        "source_files": SOURCE_FILES,
        "inputs": inputs.fingerprint(train, truth, recs),
        "fed": {
            "interactions": "truth rows with rating >= 4.0, columns user_id, item_id "
                            "(positives only; "
                            "users without a positive are absent, so rectools never sees them)",
            "reco": "recs columns user_id, item_id, rank (the given rank: score desc, "
                    "item id asc); "
                    "all 20 rows per user",
            "train": "not used",
            "catalog": "not used (no metric here needs it)",
        },
        "metrics": metrics,
    }
    inputs.write_fixture(OUT, fixture)
    print(f"wrote {OUT} ({len(metrics)} metrics, {len(per_user)} users)")


if __name__ == "__main__":
    main()
