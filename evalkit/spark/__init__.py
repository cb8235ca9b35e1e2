"""Evaluate Spark DataFrames with evalkit's definitions, numbers and intervals.

``pip install pyspark`` (``make spark-setup`` in a clone of evalkit) installs pyspark.
:func:`evaluate` takes the truth and the recommendations as Spark DataFrames, evaluates each
user with evalkit's in-memory engine inside the executors (users are bucketed by a hash of
their id and each bucket is one call of :func:`evalkit.evaluate`), and adds the buckets' sums
on the driver: the means, the bootstrap intervals and the curves equal those of
:func:`evalkit.evaluate` on the same data, whatever the number of partitions (to
floating-point rounding, far below 1e-12), since every user draws its bootstrap weights from
its id (:func:`evalkit.stats.bootstrap_ci_frame`). :func:`compare` is :func:`evalkit.compare`
on Spark: the per-user tables stay in Spark, and the paired tests and
intervals are added up from each partition's sums.

Around it: :func:`missing` says what keeps Spark from running here (pyspark, Java 17 or
later), :func:`start_session` starts a session with quiet local defaults, :func:`write_parquet`
writes pandas inputs where Spark reads them and :func:`split_systems` gives one Spark
DataFrame per system of a recommendations table with a ``system`` column.
"""

from __future__ import annotations

from ._compare import compare
from ._evaluate import SparkEvaluation, evaluate
from ._parquet import ParquetFiles, split_systems, write_parquet
from ._session import missing, start_session

__all__ = ["ParquetFiles", "SparkEvaluation", "compare", "evaluate", "missing", "split_systems",
           "start_session", "write_parquet"]
