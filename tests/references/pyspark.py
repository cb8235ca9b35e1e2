"""Reference values from Spark's ranking metrics on the shared inputs: ``fixtures/pyspark.json``.

Run in an environment with pyspark and pandas (not evalkit's), with Java 17 on the path::

    apt-get install -y openjdk-17-jre-headless   # if java is missing
    python3.11 -m venv /tmp/ref-pyspark
    /tmp/ref-pyspark/bin/pip install pyspark pandas
    /tmp/ref-pyspark/bin/python tests/references/pyspark.py

Spark runs on ``local[2]``. Two APIs, fed as Spark's docs do, one row per user:

- ``pyspark.mllib.evaluation.RankingMetrics(rdd)``, ``rdd`` of ``(predicted, labels)``: the
  user's 20 recommended item ids in rank order (score desc, item id asc; Spark reads the order,
  never scores) and the user's relevant test items (rating >= 4.0; Spark has no threshold and no
  ratings). Metrics: ``precisionAt(k)``, ``recallAt(k)``, ``ndcgAt(k)``,
  ``meanAveragePrecisionAt(k)`` and ``meanAveragePrecision`` (over the whole 20-item list).
- ``pyspark.ml.evaluation.RankingEvaluator`` on a DataFrame with ``prediction`` and ``label``
  columns of ``array<double>`` (the same lists as doubles), for each ``metricName``.

Users: the recommendation lists inner-joined with the users' relevant items, so only users with
a relevant test item are rows (the usual ``join``). Variant ``:all_users`` keeps every test user,
those without a relevant item with an empty label array (Spark scores them 0 and counts them).
Variant ``:with_relevance`` (mllib ``ndcgAt``): rows ``(predicted, labels, relevance)`` with the
labels sorted by rating descending and their ratings, the form Scala's ``RankingMetrics`` reads
as graded NDCG since Spark 3.4; the Python constructor drops the third element, so the value is
the binary one. Spark returns means only.
"""

from __future__ import annotations

import math
import os
import platform
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import inputs  # noqa: E402

# This file is named like the library: drop its folder from the path before importing it.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

import pyspark  # noqa: E402
from pyspark.ml.evaluation import RankingEvaluator  # noqa: E402
from pyspark.mllib.evaluation import RankingMetrics  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402

KS = (5, 10, 20)
OUT = HERE / "fixtures" / "pyspark.json"
SOURCE_FILES = [
    "pyspark/mllib/evaluation.py",
    "pyspark/ml/evaluation.py",
    "pyspark/jars/spark-mllib_2.13-*.jar: org/apache/spark/mllib/evaluation/RankingMetrics.scala",
    "pyspark/jars/spark-mllib_2.13-*.jar: org/apache/spark/ml/evaluation/RankingEvaluator.scala",
    "pyspark/jars/spark-mllib_2.13-*.jar: org/apache/spark/mllib/api/python/PythonMLLibAPI.scala"
    " (newRankingMetrics)",
]


def main() -> None:
    train, truth, recs = inputs.load()
    positives = truth[truth["rating"] >= inputs.THRESHOLD]
    ordered = recs.sort_values(["user_id", "rank"], kind="stable")
    listed = ordered.groupby("user_id")["item_id"].agg(list)
    relevant = positives.groupby("user_id")["item_id"].agg(list)
    by_rating = positives.sort_values(["user_id", "rating", "item_id"],
                                      ascending=[True, False, True], kind="stable")
    graded = by_rating.groupby("user_id").agg(items=("item_id", list), ratings=("rating", list))
    users_pos = sorted(set(listed.index) & set(relevant.index))
    users_all = sorted(set(listed.index) & set(truth["user_id"]))

    def rows(users: list[int]) -> list[tuple[list[int], list[int]]]:
        return [([int(i) for i in listed[u]],
                 [int(i) for i in relevant[u]] if u in relevant.index else []) for u in users]

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (SparkSession.builder.master("local[2]").appName("evalkit-reference")
             .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    sc = spark.sparkContext
    metrics: dict[str, dict] = {}

    def store(key: str, call: str, value: float) -> None:
        metrics[key] = {"call": call, "mean": float(value), "per_user": None}

    try:
        for variant, users in (("", users_pos), ("all_users", users_all)):

            def key(name: str, k: int, api: str = "") -> str:
                tail = "_".join(part for part in (api, variant) if part)
                return f"{name}@{k}:{tail}" if tail else f"{name}@{k}"

            data = rows(users)
            mllib = RankingMetrics(sc.parallelize(data, 2))
            frame = spark.createDataFrame(
                [([float(i) for i in p], [float(i) for i in lab]) for p, lab in data],
                "prediction array<double>, label array<double>")
            frame.cache()
            for k in KS:
                for name, method in (("precision", "precisionAt"), ("recall", "recallAt"),
                                     ("ndcg", "ndcgAt"), ("map", "meanAveragePrecisionAt")):
                    store(key(name, k),
                          f"pyspark.mllib.evaluation.RankingMetrics(rdd).{method}({k})",
                          getattr(mllib, method)(k))
                for name, metric_name in (("precision", "precisionAtK"), ("recall", "recallAtK"),
                                          ("ndcg", "ndcgAtK"),
                                          ("map", "meanAveragePrecisionAtK")):
                    evaluator = RankingEvaluator(metricName=metric_name, k=k)
                    store(key(name, k, "evaluator"),
                          f"pyspark.ml.evaluation.RankingEvaluator(metricName={metric_name!r}, "
                          f"k={k}).evaluate(frame)", evaluator.evaluate(frame))
            store(key("map", inputs.LIST_LENGTH, "no_cutoff"),
                  "pyspark.mllib.evaluation.RankingMetrics(rdd).meanAveragePrecision",
                  mllib.meanAveragePrecision)
            store(key("map", inputs.LIST_LENGTH, "no_cutoff_evaluator"),
                  "pyspark.ml.evaluation.RankingEvaluator(metricName='meanAveragePrecision')"
                  ".evaluate(frame)",
                  RankingEvaluator(metricName="meanAveragePrecision").evaluate(frame))
            frame.unpersist()

        triples = [([int(i) for i in listed[u]], [int(i) for i in graded.loc[u, "items"]],
                    [float(r) for r in graded.loc[u, "ratings"]]) for u in users_pos]
        with_rel = RankingMetrics(sc.parallelize(triples, 2))
        for k in KS:
            store(f"ndcg@{k}:with_relevance",
                  f"pyspark.mllib.evaluation.RankingMetrics(rdd_of_triples).ndcgAt({k})",
                  with_rel.ndcgAt(k))
        version = pyspark.__version__
    finally:
        spark.stop()

    for name, m in metrics.items():  # the two APIs agree
        twin = (name.replace("no_cutoff_evaluator", "no_cutoff").replace(":evaluator_", ":")
                .replace(":evaluator", ""))
        if twin != name and not math.isclose(m["mean"], metrics[twin]["mean"], abs_tol=1e-12):
            raise AssertionError(f"{name} {m['mean']} != {twin} {metrics[twin]['mean']}")

    fixture = {
        "library": "pyspark",
        "version": version,
        "python": platform.python_version(),
        "source_files": SOURCE_FILES,
        "inputs": inputs.fingerprint(train, truth, recs),
        "fed": {
            "predicted": "per user, the 20 recs item ids in rank order (score desc, item id asc); "
                         "ints for mllib, doubles (array<double>) for RankingEvaluator",
            "labels": "per user, the truth items with rating >= 4.0 (ints / doubles); rows only "
                      "for users with one, except ':all_users' (every test user, empty labels "
                      "for users without a relevant item)",
            "relevance": "':with_relevance' only: the labels sorted by rating desc (then item "
                         "id) and their ratings as a third element (dropped by pyspark)",
            "spark": "local[2]",
            "train": "not used",
        },
        "metrics": metrics,
    }
    inputs.write_fixture(OUT, fixture)
    print(f"wrote {OUT} ({len(metrics)} metrics, {len(users_pos)} / {len(users_all)} users)")


if __name__ == "__main__":
    main()
