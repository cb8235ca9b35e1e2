"""Reference values from torchmetrics' retrieval metrics on the shared inputs:
``fixtures/torchmetrics.json``.

Run in an environment with torchmetrics (not evalkit's)::

    python3.11 -m venv /tmp/ref-torchmetrics
    /tmp/ref-torchmetrics/bin/pip install torchmetrics pandas   # pulls torch
    /tmp/ref-torchmetrics/bin/python tests/references/torchmetrics.py

How torchmetrics is fed, as its users do: one row per recommended item (the 20 items of each of
the 610 users, in the order of ``recs``: user, then rank), ``indexes`` = user id (int64),
``preds`` = the ``score`` (float32, torch's default; the integer scores are exact in it), never
the rank, so torchmetrics' own ordering and tie handling run: ``topk`` in precision, MRR and MAP,
``argsort(descending=True)`` in recall, hit rate and R-precision, and tie-averaged DCG in NDCG.
``target`` = 1 if the item is a test item with rating >= 4.0 else 0 (bool), and for the graded
NDCG the item's test rating (0.0 for an item not in the user's test set). torchmetrics only sees
the listed items: test items outside the list do not exist for it.

Every metric uses its defaults (``empty_target_action="neg"``: a user without a positive target
among the listed items scores 0; ``aggregation="mean"``) for the mean. Per-user values come from
the same metric built with ``aggregation=<identity>`` (a callable aggregation returning the
per-user tensor, users in ascending id order); the script checks that their mean is the mean.
torchmetrics computes in float32: every value here is a float32 widened to a Python float.
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

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torchmetrics  # noqa: E402
from torchmetrics.retrieval import (  # noqa: E402
    RetrievalHitRate,
    RetrievalMAP,
    RetrievalMRR,
    RetrievalNormalizedDCG,
    RetrievalPrecision,
    RetrievalRecall,
    RetrievalRPrecision,
)

KS = (5, 10, 20)
OUT = HERE / "fixtures" / "torchmetrics.json"
SOURCE_FILES = [
    "torchmetrics/retrieval/base.py",
    "torchmetrics/retrieval/precision.py",
    "torchmetrics/retrieval/recall.py",
    "torchmetrics/retrieval/hit_rate.py",
    "torchmetrics/retrieval/reciprocal_rank.py",
    "torchmetrics/retrieval/average_precision.py",
    "torchmetrics/retrieval/ndcg.py",
    "torchmetrics/retrieval/r_precision.py",
    "torchmetrics/functional/retrieval/precision.py",
    "torchmetrics/functional/retrieval/recall.py",
    "torchmetrics/functional/retrieval/hit_rate.py",
    "torchmetrics/functional/retrieval/reciprocal_rank.py",
    "torchmetrics/functional/retrieval/average_precision.py",
    "torchmetrics/functional/retrieval/ndcg.py",
    "torchmetrics/functional/retrieval/r_precision.py",
    "torchmetrics/utilities/checks.py",
    "torchmetrics/utilities/data.py",
]


def identity(values: torch.Tensor, dim: int | None = None) -> torch.Tensor:
    """A callable ``aggregation`` that keeps the per-user values."""
    return values


def specs() -> dict[str, tuple[str, type, dict, str]]:
    """name -> (call text, class, keyword arguments, target kind)."""
    out: dict[str, tuple[str, type, dict, str]] = {}
    for k in KS:
        out |= {
            f"precision@{k}": (f"RetrievalPrecision(top_k={k})", RetrievalPrecision,
                               {"top_k": k}, "binary"),
            f"recall@{k}": (f"RetrievalRecall(top_k={k})", RetrievalRecall, {"top_k": k},
                            "binary"),
            f"hit_rate@{k}": (f"RetrievalHitRate(top_k={k})", RetrievalHitRate, {"top_k": k},
                              "binary"),
            f"mrr@{k}": (f"RetrievalMRR(top_k={k})", RetrievalMRR, {"top_k": k}, "binary"),
            f"map@{k}": (f"RetrievalMAP(top_k={k})", RetrievalMAP, {"top_k": k}, "binary"),
            f"ndcg@{k}": (f"RetrievalNormalizedDCG(top_k={k})", RetrievalNormalizedDCG,
                          {"top_k": k}, "binary"),
            f"ndcg@{k}:graded": (f"RetrievalNormalizedDCG(top_k={k})", RetrievalNormalizedDCG,
                                 {"top_k": k}, "rating"),
        }
    out["r_precision"] = ("RetrievalRPrecision()", RetrievalRPrecision, {}, "binary")
    return out


def main() -> None:
    train, truth, recs = inputs.load()
    rows = recs.merge(truth[["user_id", "item_id", "rating"]], on=["user_id", "item_id"],
                      how="left", validate="one_to_one")
    assert rows[["user_id", "item_id"]].equals(recs[["user_id", "item_id"]])  # order kept
    rating = rows["rating"].fillna(0.0).to_numpy()
    indexes = torch.tensor(rows["user_id"].to_numpy(dtype=np.int64))
    preds = torch.tensor(rows["score"].to_numpy(), dtype=torch.float32)
    targets = {
        "binary": torch.tensor(rating >= inputs.THRESHOLD),
        "rating": torch.tensor(rating, dtype=torch.float32),
    }
    users = np.unique(rows["user_id"].to_numpy())

    metrics = {}
    for name, (call, cls, kwargs, target_kind) in specs().items():
        target = targets[target_kind]
        metric = cls(**kwargs)
        metric.update(preds, target, indexes=indexes)
        mean = metric.compute()
        per_user_metric = cls(**kwargs, aggregation=identity)
        per_user_metric.update(preds, target, indexes=indexes)
        per_user = per_user_metric.compute()
        assert per_user.shape == (users.size,), per_user.shape
        assert mean.dtype == per_user.dtype == torch.float32
        if not torch.equal(per_user.mean(), mean):
            raise AssertionError(f"{name}: mean of per-user values {per_user.mean()} != {mean}")
        metrics[name] = {
            "call": f"torchmetrics.retrieval.{call}.update(preds, target, indexes=indexes); "
                    ".compute() for the mean; aggregation=<identity> for per-user values",
            "mean": float(mean),
            "per_user": {str(int(u)): float(v) for u, v in zip(users, per_user.tolist())},
        }
    assert not any(math.isnan(v) for m in metrics.values() for v in m["per_user"].values())

    fixture = {
        "library": "torchmetrics",
        "version": torchmetrics.__version__,
        "torch": torch.__version__,
        "python": platform.python_version(),
        "source_files": SOURCE_FILES,
        "inputs": inputs.fingerprint(train, truth, recs),
        "fed": {
            "indexes": "user_id of each recs row (int64), rows in recs order (user, rank)",
            "preds": "score of each recs row (float32); no rank",
            "target": "1 if the row's item is a test item of the user with rating >= 4.0, else "
                      "0 (bool); for the ':graded' NDCG the test rating (float32), 0.0 for items "
                      "not in the user's test set",
            "truth outside the lists": "not fed (torchmetrics has no way to take it)",
            "train": "not used",
        },
        "metrics": metrics,
    }
    inputs.write_fixture(OUT, fixture)
    print(f"wrote {OUT} ({len(metrics)} metrics)")


if __name__ == "__main__":
    main()
