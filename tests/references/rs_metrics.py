"""Reference values from rs_metrics on the shared inputs: ``fixtures/rs_metrics.json``.

Run in an environment with rs_metrics and pandas (not evalkit's)::

    python3.11 -m venv /tmp/ref-rs_metrics
    /tmp/ref-rs_metrics/bin/pip install rs_metrics pandas
    /tmp/ref-rs_metrics/bin/python tests/references/rs_metrics.py

How rs_metrics is fed, as its README does: ``true`` is a frame of the relevant test rows only
(rating >= 4.0; rs_metrics has no relevance threshold and no ratings: every row is a positive),
``pred`` is the frame of recommendations ``user_id, item_id`` in rank order (rs_metrics reads
neither scores nor ranks: ``groupby(user).agg(list)`` keeps the row order, and the first k rows
of a user are its top k). Both are DataFrames with the default column names. Per-user values
come from the same call with ``apply_mean=False`` (a list in the order of the sorted users of
``true``), the mean from the default ``apply_mean=True``.
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

import rs_metrics  # noqa: E402

KS = (5, 10, 20)
OUT = HERE / "fixtures" / "rs_metrics.json"
SOURCE_FILES = ["rs_metrics/metrics.py", "rs_metrics/helpers.py", "rs_metrics/parallel.py"]
FUNCTIONS = {
    "precision": "precision",
    "recall": "recall",
    "hit_rate": "hitrate",
    "mrr": "mrr",
    "map": "mapr",
    "ndcg": "ndcg",
}


def main() -> None:
    train, truth, recs = inputs.load()
    true = truth.loc[truth["rating"] >= inputs.THRESHOLD, ["user_id", "item_id"]]
    pred = recs.sort_values(["user_id", "rank"], kind="stable")[["user_id", "item_id"]]
    users = sorted(true["user_id"].unique())

    metrics = {}
    for name, func in FUNCTIONS.items():
        metric = getattr(rs_metrics, func)
        for k in KS:
            per_user = metric(true, pred, k=k, apply_mean=False)
            mean = float(metric(true, pred, k=k))
            if len(per_user) != len(users):
                raise AssertionError(f"{name}@{k}: {len(per_user)} values for {len(users)} users")
            if not math.isclose(mean, float(sum(per_user)) / len(per_user), abs_tol=1e-12):
                raise AssertionError(f"{name}@{k}: mean {mean} is not the mean of the users")
            metrics[f"{name}@{k}"] = {
                "call": f"rs_metrics.{func}(true, pred, k={k}, apply_mean=False); "
                        "apply_mean=True (default) for the mean",
                "mean": mean,
                "per_user": {str(int(u)): inputs.json_float(v) for u, v in zip(users, per_user)},
            }

    fixture = {
        "library": "rs_metrics",
        "version": version("rs_metrics"),
        "python": platform.python_version(),
        "source_files": SOURCE_FILES,
        "inputs": inputs.fingerprint(train, truth, recs),
        "fed": {
            "true": "truth rows with rating >= 4.0, columns user_id, item_id (positives only; "
                    "users without a positive are absent, so rs_metrics never sees them)",
            "pred": "recs columns user_id, item_id, rows in rank order (score desc, item id asc); "
                    "all 20 rows per user, rs_metrics cuts the first k",
            "train": "not used",
        },
        "metrics": metrics,
    }
    inputs.write_fixture(OUT, fixture)
    print(f"wrote {OUT} ({len(metrics)} metrics, {len(users)} users)")


if __name__ == "__main__":
    main()
