"""RePlay's metrics on Spark, timed from Parquet: the RePlay part of ``spark.py``.

RePlay (``replay-rec``) needs pandas < 3, so it runs in its own virtual environment::

    python3.11 -m venv /tmp/bench-replay
    /tmp/bench-replay/bin/pip install 'replay-rec[spark]==0.22.0' pyspark==4.3.0 'pandas<3'
    /tmp/bench-replay/bin/python benchmarks/spark_replay.py --data <folder> --out replay.json

``spark.py`` runs it so (``--replay-python``). The timed call reads ``truth.parquet`` and
``recs.parquet`` of ``<folder>`` into a ``local[2]`` session and computes

    OfflineMetrics([Precision(ks), Recall(ks), MAP(ks), MRR(ks), NDCG(ks)],
                   query_column="user_id", item_column="item_id", rating_column="score")(
        recs, ground_truth)

with ``ks = [10, 100]``, ``recs`` the lists' ``user_id, item_id, score`` (RePlay orders each
list by score itself) and ``ground_truth`` the test rows rated >= 4.0 (``user_id, item_id``),
as tests/references/replay.py feeds RePlay. One warm-up run, then ``--repeats`` timed runs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from importlib.metadata import version
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from spark import DRIVER_MEMORY, KS, THRESHOLD, measure, session_info, start  # noqa: E402

# this folder holds no replay module, but drop it before importing the library anyway
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

from replay.metrics import MAP, MRR, NDCG, OfflineMetrics, Precision, Recall  # noqa: E402

COLUMNS = dict(query_column="user_id", item_column="item_id", rating_column="score")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--driver-memory", default=DRIVER_MEMORY)
    parser.add_argument("--partitions", type=int, default=None)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)

    from pyspark.sql import functions as F

    spark, startup = start(args.driver_memory, args.partitions)
    ks = list(KS)

    def call():
        truth = spark.read.parquet(str(args.data / "truth.parquet"))
        recs = spark.read.parquet(str(args.data / "recs.parquet"))
        ground_truth = truth.where(F.col("rating") >= THRESHOLD).select("user_id", "item_id")
        metrics = OfflineMetrics([Precision(ks), Recall(ks), MAP(ks), MRR(ks), NDCG(ks)],
                                 **COLUMNS)
        return metrics(recs.select("user_id", "item_id", "score"), ground_truth)

    load_before = os.getloadavg()
    times, means, mem, first = measure(call, args.repeats)
    out = {"evaluate": times, "evaluate_first": first, "peak_tree": mem.peak,
           "peak_above_session": mem.above, "means": {k: float(v) for k, v in means.items()},
           "load_before": load_before, "load_after": os.getloadavg(),
           "session_start_s": startup, "session": session_info(spark),
           "versions": {p: version(p) for p in ("replay-rec", "pyspark", "pandas", "numpy")},
           "python": sys.version.split()[0],
           "call": "OfflineMetrics([Precision(ks), Recall(ks), MAP(ks), MRR(ks), NDCG(ks)], "
                   "query_column='user_id', item_column='item_id', rating_column='score')"
                   "(recs.select('user_id', 'item_id', 'score'), truth.where(rating >= 4.0)"
                   ".select('user_id', 'item_id')), ks = [10, 100], from spark.read.parquet"}
    spark.stop()
    args.out.write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
