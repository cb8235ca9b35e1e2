"""Reference values from Evidently on the shared inputs: ``fixtures/evidently.json``.

Run in an environment with evidently and pandas < 3 (not evalkit's; Evidently 0.7.23 does not
import under pandas 3)::

    python3.11 -m venv /tmp/ref-evidently
    /tmp/ref-evidently/bin/pip install evidently "pandas<3"
    /tmp/ref-evidently/bin/python tests/references/evidently.py

How Evidently is fed, as its cookbook (``examples/cookbook/recsys_metrics.ipynb``) does: one
frame of the recommended rows, the 20 of each user, left-merged with the test ratings, so the
``target`` is the test rating of a recommended item and 0 for an item the user did not rate;
test items that were not recommended are NOT in the frame. ``Recsys(prediction="rank",
recommendations_type="rank", target="rating")`` and ``min_rel_score=4`` (relevant: rating >= 4).
Variants (suffix after ``:``):

- ``score``: the same frame with ``prediction="score"`` (Evidently ranks the scores itself);
- ``no_feedback_users``: ``no_feedback_users=True`` (users without a relevant recommended item
  stay in the mean);
- ``outer``: the test rows that were not recommended are appended with rank 21, so Evidently
  sees every test item (outer merge; the documented way to make recall count all of them);
- ``graded`` (NDCG only): no ``min_rel_score``, so the gain is the rating itself;
- ``new_api_row_k`` (NDCG and MRR): the value the new API's table puts in the row labelled
  ``rank == k``, which is the value at k - 1 (see below).

Evidently returns means only, never per-user values. The new API (``evidently.metrics``) returns
a table ``rank, value`` for every cutoff 1..max(k, 10); for NDCG and MRR it labels the legacy
series (index 1..) with ``index + 1``, so the value at k sits in row ``rank == k + 1``. This
script reads each value at its true cutoff from the new API and checks it against the legacy
metric's own ``current_value``.
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

import evidently  # noqa: E402
import pandas as pd  # noqa: E402
from evidently import DataDefinition, Dataset, Recsys, Report  # noqa: E402
from evidently.metrics import (  # noqa: E402
    MAP,
    MRR,
    NDCG,
    FBetaTopK,
    HitRate,
    PrecisionTopK,
    RecallTopK,
)

KS = (5, 10, 20)
OUT = HERE / "fixtures" / "evidently.json"
SOURCE_FILES = [
    "evidently/metrics/recsys.py",
    "evidently/legacy/calculations/recommender_systems.py",
    "evidently/legacy/metrics/recsys/base_top_k.py",
    "evidently/legacy/metrics/recsys/precision_recall_k.py",
    "evidently/legacy/metrics/recsys/precision_top_k.py",
    "evidently/legacy/metrics/recsys/recall_top_k.py",
    "evidently/legacy/metrics/recsys/f_beta_top_k.py",
    "evidently/legacy/metrics/recsys/map_k.py",
    "evidently/legacy/metrics/recsys/mrr.py",
    "evidently/legacy/metrics/recsys/ndcg_k.py",
    "evidently/legacy/metrics/recsys/hit_rate_k.py",
]
THRESHOLD = int(inputs.THRESHOLD)  # min_rel_score is typed Optional[int]
CLASSES = {
    "precision": PrecisionTopK,
    "recall": RecallTopK,
    "f1": FBetaTopK,
    "hit_rate": HitRate,
    "mrr": MRR,
    "map": MAP,
    "ndcg": NDCG,
}
# The legacy series behind NDCG and MRR start at index 1; the new API adds 1 to every index.
SHIFTED = {"ndcg", "mrr"}


def frames(truth: pd.DataFrame, recs: pd.DataFrame) -> dict[str, pd.DataFrame]:
    rated = truth[["user_id", "item_id", "rating"]]
    left = recs.merge(rated, on=["user_id", "item_id"], how="left")
    left["rating"] = left["rating"].fillna(0.0)
    listed = pd.MultiIndex.from_frame(recs[["user_id", "item_id"]])
    extra = rated[~pd.MultiIndex.from_frame(rated[["user_id", "item_id"]]).isin(listed)].copy()
    extra["rank"] = inputs.LIST_LENGTH + 1
    extra["score"] = -1.0
    # rows stay in rank order within each user (the legacy precision reads the "last" row)
    outer = pd.concat([left, extra], ignore_index=True).sort_values(
        ["user_id", "rank", "item_id"], kind="stable").reset_index(drop=True)
    return {"left": left, "outer": outer}


def dataset(frame: pd.DataFrame, prediction: str) -> Dataset:
    definition = DataDefinition(
        numerical_columns=["rating", prediction],
        categorical_columns=["user_id", "item_id"],
        ranking=[Recsys(user_id="user_id", item_id="item_id", prediction=prediction,
                        target="rating", recommendations_type=prediction)],
    )
    return Dataset.from_pandas(frame[["user_id", "item_id", prediction, "rating"]],
                               data_definition=definition)


def run(data: Dataset, name: str, k: int, **options: object) -> pd.DataFrame:
    """The new API's table (``rank, value``) for one metric."""
    snapshot = Report([CLASSES[name](k=k, **options)]).run(data, None)
    (value,) = snapshot.metric_results.values()
    return value.value


def at(table: pd.DataFrame, name: str, k: int, *, label_k: bool = False) -> float:
    row = k if (label_k or name not in SHIFTED) else k + 1
    (value,) = table.loc[table["rank"] == row, "value"]
    return float(value)


def legacy_value(frame: pd.DataFrame, prediction: str, name: str, k: int,
                 **options: object) -> float:
    """The legacy metric's ``current_value`` (its own value at k), run through the legacy API."""
    from evidently.legacy.metrics import (
        FBetaTopKMetric,
        HitRateKMetric,
        MAPKMetric,
        MRRKMetric,
        NDCGKMetric,
        PrecisionTopKMetric,
        RecallTopKMetric,
    )
    from evidently.legacy.pipeline.column_mapping import ColumnMapping
    from evidently.legacy.report import Report as LegacyReport

    legacy = {
        "precision": PrecisionTopKMetric, "recall": RecallTopKMetric, "f1": FBetaTopKMetric,
        "hit_rate": HitRateKMetric, "mrr": MRRKMetric, "map": MAPKMetric, "ndcg": NDCGKMetric,
    }[name](k=k, **options)
    mapping = ColumnMapping(user_id="user_id", item_id="item_id", prediction=prediction,
                            target="rating", recommendations_type=prediction)
    report = LegacyReport(metrics=[legacy])
    columns = ["user_id", "item_id", prediction, "rating"]
    report.run(reference_data=None, current_data=frame[columns], column_mapping=mapping)
    result = legacy.get_result()
    current = result.current
    index = (k - 1) if min(current.index) == 0 else k
    return float(current[index])


def main() -> None:
    train, truth, recs = inputs.load()
    data = frames(truth, recs)
    runs = {
        # variant suffix: (frame, prediction column, options)
        "": ("left", "rank", {"min_rel_score": THRESHOLD}),
        ":score": ("left", "score", {"min_rel_score": THRESHOLD}),
        ":no_feedback_users": ("left", "rank", {"min_rel_score": THRESHOLD,
                                                "no_feedback_users": True}),
        ":outer": ("outer", "rank", {"min_rel_score": THRESHOLD}),
    }
    datasets = {(f, p): dataset(data[f], p) for f, p, _ in runs.values()}
    metrics: dict[str, dict] = {}

    def store(key: str, frame: str, prediction: str, name: str, k: int, options: dict,
              *, label_k: bool = False) -> None:
        table = run(datasets[frame, prediction], name, k, **options)
        value = at(table, name, k, label_k=label_k)
        if not label_k:
            check = legacy_value(data[frame], prediction, name, k, **options)
            if not math.isclose(value, check, rel_tol=0, abs_tol=1e-12):
                raise AssertionError(f"{key}: new API {value} != legacy current_value {check}")
        cls = CLASSES[name].__name__
        args = ", ".join([f"k={k}"] + [f"{a}={v!r}" for a, v in options.items()])
        row = f"rank == {k}" if (label_k or name not in SHIFTED) else f"rank == {k + 1}"
        metrics[key] = {
            "call": (f"Report([evidently.metrics.{cls}({args})]).run(Dataset.from_pandas("
                     f"{frame}_frame, DataDefinition(ranking=[Recsys(prediction={prediction!r}, "
                     f"target='rating', recommendations_type={prediction!r})])), None): "
                     f"value table row {row}"),
            "mean": value,
            "per_user": None,
        }

    for suffix, (frame, prediction, options) in runs.items():
        for name in CLASSES:
            for k in KS:
                store(f"{name}@{k}{suffix}", frame, prediction, name, k, options)
    for k in KS:
        store(f"ndcg@{k}:graded", "left", "rank", "ndcg", k, {})
        for name in sorted(SHIFTED):
            store(f"{name}@{k}:new_api_row_k", "left", "rank", name, k,
                  {"min_rel_score": THRESHOLD}, label_k=True)

    fixture = {
        "library": "evidently",
        "version": evidently.__version__,
        "python": platform.python_version(),
        "source_files": SOURCE_FILES,
        "inputs": inputs.fingerprint(train, truth, recs),
        "fed": {
            "left_frame": "recs (user_id, item_id, rank, score; 20 rows per user, in rank order) "
                          "left-merged with truth's rating on (user_id, item_id), rating 0 where "
                          "the item is not a test item; test items that were not recommended are "
                          "absent (Evidently's cookbook)",
            "outer_frame": "left_frame plus the test rows that were not recommended, with rank 21 "
                           "and score -1, sorted by user and rank",
            "prediction": "rank (recommendations_type='rank', the given rank: score desc, item id "
                          "asc), except ':score' variants: score (recommendations_type='score', "
                          "Evidently ranks it itself)",
            "target": "rating; min_rel_score=4 makes it binary (rating >= 4), except ':graded'",
            "train": "not used",
        },
        "metrics": metrics,
    }
    inputs.write_fixture(OUT, fixture)
    print(f"wrote {OUT} ({len(metrics)} metrics)")


if __name__ == "__main__":
    main()
