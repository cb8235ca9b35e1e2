"""Time evalkit on Spark against pyspark's RankingEvaluator and RePlay, from Parquet on disk.

One run generates the seeded data of ``generate.py`` at the chosen scale, writes the truth and
the recommendations as Parquet (a cache folder in the system's temporary directory, written
atomically and reused for the same scale and seed), and times, each system in a fresh
subprocess with its own Spark session on ``local[2]`` (so that the memory is the system's own
and no cache carries over):

- evalkit: ``evalkit.spark.evaluate(truth, recs, k=[10, 100], metrics=[precision, recall, map,
  mrr, ndcg], threshold=4.0)``, the default call with bootstrap intervals at the default 1,000
  resamples, and, labelled apart, the same call with ``n_resamples=0``. ``truth`` and ``recs``
  are ``spark.read.parquet(...)`` inside the timed call. The summary is collected by the call
  itself; the per-user rows are computed by that same job (they and the buckets' sums are one
  persisted frame), so the per-user table is not counted separately. ``result.unpersist()``
  and ``spark.catalog.clearCache()`` after each run (not timed), so that no run reads an
  earlier run's cached output.
- RankingEvaluator: inside the timed call, read the same Parquet files, build its input (one
  row per user: ``prediction`` array<double> of the listed items in rank order, ``label``
  array<double> of the test items rated >= 4.0, inner-joined on the user; persisted, as a user
  evaluating several metrics would), then ``RankingEvaluator(metricName=m, k=k).evaluate(df)``
  for precisionAtK, recallAtK, ndcgAtK and meanAveragePrecisionAtK at k = 10 and 100, and
  meanAveragePrecision (9 numbers). It has no MRR.
- RePlay (``replay-rec``, which needs pandas < 3 and so its own virtual environment, given by
  ``--replay-python``): ``benchmarks/spark_replay.py`` in that Python reads the same files and
  times ``OfflineMetrics([Precision, Recall, MAP, MRR, NDCG at k = 10 and 100])(recs,
  ground_truth)`` on Spark DataFrames, ground truth = the test rows rated >= 4.0.

Each system: one warm-up run (its peak memory sampled), then ``--repeats`` timed runs; the
median is reported. The session's start-up is timed apart. Peak memory is the resident-set
peak of the whole process tree (the Python driver, Spark's JVM and its Python workers) during
the warm-up run, and how far it rose above the tree's size once the session was up.

Agreement (not timed): ``evalkit.spark.evaluate`` with ``definitions="spark"`` and
``"replay"`` (binary relevance, the users those libraries keep) against RankingEvaluator's
and RePlay's means, and the default call's summary (means and intervals) against in-memory
``evalkit.evaluate`` on the same data.

Usage::

    python benchmarks/spark.py --scale medium
    python benchmarks/spark.py --scale full --replay-python /tmp/bench-replay/bin/python
    python benchmarks/spark.py --scale tiny --systems evalkit,ranking_evaluator --repeats 1
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import SCALES, generate  # noqa: E402
from run import KS, METRICS, SEED, THRESHOLD, PeakRSS, machine, median, timed  # noqa: E402

SYSTEMS = ("evalkit", "ranking_evaluator", "replay")
MASTER = "local[2]"
PARTITIONS = 8  # spark.sql.shuffle.partitions for every system: 4 per core
DRIVER_MEMORY = "8g"  # local mode: the driver is the executor; Python workers live outside it
RE_METRICS = [(m, k) for m in ("precisionAtK", "recallAtK", "ndcgAtK", "meanAveragePrecisionAtK")
              for k in KS] + [("meanAveragePrecision", None)]
RE_TO_EVALKIT = {"precisionAtK": "precision", "recallAtK": "recall", "ndcgAtK": "ndcg",
                 "meanAveragePrecisionAtK": "map"}
REPLAY_TO_EVALKIT = {"Precision": "precision", "Recall": "recall", "MAP": "map", "MRR": "mrr",
                     "NDCG": "ndcg"}


# -- data ------------------------------------------------------------------------------------
def parquet_data(scale: str, seed: int = SEED, root: Path | None = None) -> tuple[Path, dict]:
    """Truth and recs of ``generate(SCALES[scale], rng=seed)`` as Parquet in a cache folder.

    The folder is ``<tmp>/evalkit-bench-spark/<scale>-seed<seed>`` with ``truth.parquet``,
    ``recs.parquet`` and ``meta.json``; it is written under another name and renamed, so a
    folder that exists is complete, and it is reused when its metadata match.
    """
    root = root or Path(tempfile.gettempdir()) / "evalkit-bench-spark"
    n_users = SCALES[scale]
    folder = root / f"{scale}-seed{seed}"
    meta_path = folder / "meta.json"
    if meta_path.is_file():
        meta = json.loads(meta_path.read_text())
        if meta.get("users") == n_users and meta.get("seed") == seed:
            return folder, meta | {"reused": True}
        shutil.rmtree(folder)
    root.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    truth, recs = generate(n_users, rng=seed)
    staging = Path(tempfile.mkdtemp(prefix=f".{scale}-seed{seed}-", dir=root))
    try:
        truth.to_parquet(staging / "truth.parquet", index=False)
        recs.to_parquet(staging / "recs.parquet", index=False)
        meta = {"scale": scale, "seed": seed, "users": n_users, "truth_rows": len(truth),
                "recs_rows": len(recs),
                "relevant_truth_rows": int((truth["rating"] >= THRESHOLD).sum()),
                "bytes_on_disk": sum(p.stat().st_size for p in staging.iterdir()),
                "write_s": round(time.perf_counter() - start, 2)}
        (staging / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
        try:
            staging.rename(folder)
        except OSError:  # another run finished first: keep its folder
            shutil.rmtree(staging)
            meta = json.loads(meta_path.read_text())
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return folder, meta | {"reused": False}


# -- measuring -------------------------------------------------------------------------------
class PeakTreeRSS(PeakRSS):
    """:class:`run.PeakRSS` over this process and all its descendants (Spark's JVM and the
    Python workers it starts), sampled every 50 ms (listing the tree costs more than reading
    one process). ``start`` is the tree's size on entry; ``peak`` its largest total."""

    def __init__(self, interval: float = 0.05) -> None:
        super().__init__(interval)

    def _tree(self) -> int:
        import psutil

        total = 0
        for proc in [self._proc, *self._proc.children(recursive=True)]:
            try:
                total += proc.memory_info().rss
            except psutil.Error:
                pass
        return total

    def _sample(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self._tree())
            self._stop.wait(self.interval)

    def __enter__(self) -> PeakTreeRSS:
        super().__enter__()
        self.start = self.peak = self._tree()
        return self

    def __exit__(self, *exc: object) -> None:
        super().__exit__(*exc)
        self.peak = max(self.peak, self._tree())


def start(driver_memory: str, partitions: int | None):
    """The session (``evalkit.spark.start_session`` when it exists) and its start-up time."""
    os.environ["PYSPARK_PYTHON"] = sys.executable
    # options already in PYSPARK_SUBMIT_ARGS (JVM flags) are kept; the session records them
    given = os.environ.get("PYSPARK_SUBMIT_ARGS", "").replace("pyspark-shell", "").strip()
    os.environ["PYSPARK_SUBMIT_ARGS"] = " ".join(
        [given, f"--driver-memory {driver_memory}", "pyspark-shell"]).strip()
    began = time.perf_counter()
    try:
        from evalkit.spark import start_session
    except ImportError:
        start_session = None
    if start_session is not None:
        spark = start_session(MASTER, partitions=partitions, app_name="evalkit-benchmark")
    else:
        from pyspark.sql import SparkSession

        builder = (SparkSession.builder.master(MASTER).appName("evalkit-benchmark")
                   .config("spark.ui.enabled", "false")
                   .config("spark.driver.memory", driver_memory))
        if partitions:
            builder = builder.config("spark.sql.shuffle.partitions", str(partitions))
        spark = builder.getOrCreate()
        spark.sparkContext.setLogLevel("ERROR")
    return spark, time.perf_counter() - began


def session_info(spark) -> dict:
    conf = spark.sparkContext.getConf()
    return {"master": spark.sparkContext.master, "spark": spark.version,
            "driver_memory": conf.get("spark.driver.memory", "1g (default)"),
            "shuffle_partitions": int(spark.conf.get("spark.sql.shuffle.partitions")),
            "adaptive": spark.conf.get("spark.sql.adaptive.enabled"),
            "submit_args": os.environ.get("PYSPARK_SUBMIT_ARGS", ""),
            "start_session": "evalkit.spark.start_session" if _has_start_session()
            else "SparkSession.builder"}


def _has_start_session() -> bool:
    try:
        from evalkit.spark import start_session  # noqa: F401
    except ImportError:
        return False
    return True


def measure(func, repeats: int, after=None) -> tuple[list[float], object, PeakTreeRSS, float]:
    """Warm-up run (memory sampled, wall time kept apart), then ``repeats`` timed runs;
    ``after(result)`` runs after each call, untimed."""
    with PeakTreeRSS() as mem:
        began = time.perf_counter()
        result = func()
        first = time.perf_counter() - began
    if after:
        after(result)
    times = []
    for i in range(repeats):
        t, result = timed(func, 1)
        times += t
        if after and i < repeats - 1:
            after(result)
    return times, result, mem, first


# -- the systems -----------------------------------------------------------------------------
def run_evalkit(spark, data: Path, *, repeats: int, check_memory: bool, **_) -> dict:
    import pandas as pd

    from evalkit import evaluate as evaluate_in_memory
    from evalkit.spark import evaluate

    truth_path, recs_path = str(data / "truth.parquet"), str(data / "recs.parquet")

    def call(n_resamples=None, **options):
        truth = spark.read.parquet(truth_path)
        recs = spark.read.parquet(recs_path)
        if n_resamples is None:  # the default call, exactly
            return evaluate(truth, recs, k=[10, 100], metrics=METRICS, threshold=4.0, **options)
        return evaluate(truth, recs, k=[10, 100], metrics=METRICS, threshold=4.0,
                        n_resamples=n_resamples, **options)

    def release(result):
        # release the job's cached output (result.unpersist() does, since the fix of
        # SparkEvaluation.unpersist), and clear any other cached frame, so that each timed run
        # computes from the files
        result.unpersist()
        spark.catalog.clearCache()

    t_default, result, mem, first = measure(call, repeats, release)
    counts = result.counts
    release(result)
    t_bare, bare, mem_bare, first_bare = measure(lambda: call(0), repeats, release)
    release(bare)

    # agreement, untimed: profiles for RankingEvaluator and RePlay, in-memory evalkit
    profiles = {}
    spark_metrics = ["precision", "recall", "map", "ndcg"]  # the spark profile has no MRR
    for name, extra in (("spark", {"metrics": spark_metrics}),
                        ("spark_map_all", {"metrics": ["map"], "ap_denominator": "relevant"}),
                        ("replay", {"metrics": METRICS})):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            truth = spark.read.parquet(truth_path)
            recs = spark.read.parquet(recs_path)
            res = evaluate(truth, recs, k=[10, 100], threshold=4.0, n_resamples=0,
                           definitions=name.split("_")[0], **extra)
        profiles[name] = _means(res.summary)
        res.unpersist()
    comparison = {}
    if check_memory:
        truth_pd = pd.read_parquet(truth_path)
        recs_pd = pd.read_parquet(recs_path)
        began = time.perf_counter()
        ours = evaluate_in_memory(truth_pd, recs_pd, k=[10, 100], metrics=METRICS,
                                  threshold=4.0)
        comparison["in_memory_s"] = time.perf_counter() - began
        a = result.summary.reset_index(drop=True)
        b = ours.summary.reset_index(drop=True)
        for col in ("mean", "ci_low", "ci_high"):
            comparison[col] = float(np.max(np.abs(a[col].to_numpy() - b[col].to_numpy())))
        comparison["n_users_equal"] = bool((a["n_users"] == b["n_users"]).all())
    return {
        "evaluate": t_default, "evaluate_first": first,
        "evaluate_no_intervals": t_bare, "evaluate_no_intervals_first": first_bare,
        "peak_tree": mem.peak, "peak_above_session": mem.above,
        "peak_tree_no_intervals": mem_bare.peak,
        "means": _means(result.summary),
        "summary": result.summary.astype({"k": "float"}).to_dict(orient="records"),
        "counts": {k: int(v) for k, v in counts.items()},
        "profile_means": profiles,
        "vs_in_memory": comparison,
        "per_user_counted": False,
        "call": "evalkit.spark.evaluate(spark.read.parquet(truth), spark.read.parquet(recs), "
                "k=[10, 100], metrics=['precision', 'recall', 'map', 'mrr', 'ndcg'], "
                "threshold=4.0)",
        "call_no_intervals": "the same with n_resamples=0",
    }


def _means(summary) -> dict[str, float]:
    return {f"{row.metric}@{int(row.k)}": float(row.mean) for row in summary.itertuples()}


def ranking_input(spark, data: Path):
    """RankingEvaluator's input: per user the listed items in rank order and the relevant
    test items (rating >= 4.0), inner-joined on the user."""
    from pyspark.sql import functions as F

    recs = spark.read.parquet(str(data / "recs.parquet"))
    truth = spark.read.parquet(str(data / "truth.parquet"))
    prediction = (recs.groupBy("user_id")
                  .agg(F.sort_array(F.collect_list(F.struct("rank", "item_id"))).alias("ranked"))
                  .select("user_id", F.transform("ranked", lambda x: x["item_id"].cast("double"))
                          .alias("prediction")))
    label = (truth.where(F.col("rating") >= THRESHOLD).groupBy("user_id")
             .agg(F.collect_list(F.col("item_id").cast("double")).alias("label")))
    return prediction.join(label, "user_id")


def run_ranking_evaluator(spark, data: Path, *, repeats: int, **_) -> dict:
    from pyspark.ml.evaluation import RankingEvaluator

    def call():
        frame = ranking_input(spark, data).persist()
        out = {}
        for name, k in RE_METRICS:
            evaluator = RankingEvaluator(metricName=name, labelCol="label",
                                         predictionCol="prediction")
            if k is not None:
                evaluator.setK(k)
            out[name if k is None else f"{name}@{k}"] = evaluator.evaluate(frame)
        return frame, out

    def release(result):
        result[0].unpersist()
        spark.catalog.clearCache()

    times, (frame, means), mem, first = measure(call, repeats, release)
    users = frame.count()
    release((frame, means))
    return {"evaluate": times, "evaluate_first": first, "peak_tree": mem.peak,
            "peak_above_session": mem.above, "means": means, "users": int(users),
            "call": "frame = <prediction/label per user from spark.read.parquet>.persist(); "
                    "RankingEvaluator(metricName=m, k=k).evaluate(frame) for " +
                    ", ".join(n if k is None else f"{n}@{k}" for n, k in RE_METRICS)}


RUNNERS = {"evalkit": run_evalkit, "ranking_evaluator": run_ranking_evaluator}


def worker(system: str, args: argparse.Namespace, session=None) -> dict:
    """One system in this process: a new session (timed), or ``session`` = (spark, start-up
    time) shared with the other systems (``--inline``)."""
    data = Path(args.data)
    spark, startup = session or start(args.driver_memory, args.partitions)
    load_before = os.getloadavg()
    out = RUNNERS[system](spark, data, repeats=args.repeats, check_memory=not args.no_check)
    out["load_before"] = load_before
    out["load_after"] = os.getloadavg()
    out["session_start_s"] = startup
    out["session"] = session_info(spark)
    if session is None:
        spark.stop()
    return out


def run_replay(args: argparse.Namespace, data: Path) -> dict:
    """RePlay in its own Python (``--replay-python``), or why it could not run."""
    python = args.replay_python
    if not python or not Path(python).exists():
        return {"error": f"no RePlay Python: --replay-python {python!r} does not exist (make it "
                         "with: python3.11 -m venv /tmp/bench-replay && /tmp/bench-replay/bin/"
                         "pip install 'replay-rec[spark]==0.22.0' pyspark==4.3.0 'pandas<3')"}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "replay.json"
        cmd = [python, str(HERE / "spark_replay.py"), "--data", str(data), "--repeats",
               str(args.repeats), "--driver-memory", args.driver_memory, "--out", str(path)]
        if args.partitions:
            cmd += ["--partitions", str(args.partitions)]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0 or not path.exists():
            return {"error": f"spark_replay.py exited with {done.returncode}: "
                             f"{done.stderr.strip()[-1500:]}"}
        return json.loads(path.read_text())


# -- agreement -------------------------------------------------------------------------------
def agreement(results: dict[str, dict]) -> dict[str, dict[str, float]]:
    """|evalkit (profile) - other| per metric, on the means."""
    out: dict[str, dict[str, float]] = {}
    ek = results.get("evalkit")
    if not ek or "profile_means" not in ek:
        return out
    spark_means = ek["profile_means"]["spark"]
    re = results.get("ranking_evaluator")
    if re and "means" in re:
        diffs = {}
        for name, value in re["means"].items():
            if name == "meanAveragePrecision":
                ours = ek["profile_means"]["spark_map_all"][f"map@{max(KS)}"]
            else:
                metric, k = name.split("@")
                ours = spark_means[f"{RE_TO_EVALKIT[metric]}@{k}"]
            diffs[name] = abs(ours - value)
        out["ranking_evaluator"] = diffs
    rp = results.get("replay")
    if rp and "means" in rp:
        replay_means = ek["profile_means"]["replay"]
        out["replay"] = {name: abs(replay_means[f"{REPLAY_TO_EVALKIT[name.split('@')[0]]}@"
                                                f"{name.split('@')[1]}"] - value)
                         for name, value in rp["means"].items()}
    return out


# -- main ------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", choices=list(SCALES), default="medium")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--repeats", type=int, default=3, help="timed warm runs per system")
    parser.add_argument("--replay-python", default="/tmp/bench-replay/bin/python",
                        help="a Python with replay-rec[spark] 0.22.0, pyspark 4.3.0, pandas < 3")
    parser.add_argument("--driver-memory", default=DRIVER_MEMORY)
    parser.add_argument("--partitions", type=int, default=PARTITIONS,
                        help="spark.sql.shuffle.partitions, the same for every system "
                             f"(default {PARTITIONS}; Spark's own default, 200, is many for "
                             "2 cores)")
    parser.add_argument("--inline", action="store_true",
                        help="run evalkit and RankingEvaluator in this process, one session "
                             "(faster; memory less meaningful)")
    parser.add_argument("--no-check", action="store_true",
                        help="skip the comparison with in-memory evalkit.evaluate")
    parser.add_argument("--out", type=Path, default=None, help="results JSON path")
    parser.add_argument("--worker", choices=list(RUNNERS), help=argparse.SUPPRESS)
    parser.add_argument("--data", help=argparse.SUPPRESS)
    parser.add_argument("--worker-out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker:
        res = worker(args.worker, args)
        args.worker_out.write_text(json.dumps(res))
        return 0

    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    unknown = sorted(set(systems) - set(SYSTEMS))
    if unknown:
        parser.error(f"unknown system(s) {', '.join(unknown)}; valid: {', '.join(SYSTEMS)}")
    data, meta = parquet_data(args.scale, args.seed)
    print(f"scale {args.scale}: {meta['users']} users, {meta['recs_rows']} list rows, "
          f"{meta['truth_rows']} test rows in {data} ({'reused' if meta['reused'] else 'written'}"
          f"); load average {os.getloadavg()}", flush=True)
    results: dict[str, dict] = {}
    args.data = str(data)
    session, owned = None, False
    if args.inline and set(systems) - {"replay"}:
        from pyspark.sql import SparkSession

        # a session the caller already runs (main called in its process) is used, not stopped
        owned = SparkSession.getActiveSession() is None
        session = start(args.driver_memory, args.partitions)
    for system in systems:
        began = time.perf_counter()
        if system == "replay":
            res = run_replay(args, data)
        elif session is not None:
            res = worker(system, args, session)
        else:
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / "result.json"
                cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", system,
                       "--data", str(data), "--worker-out", str(path),
                       "--repeats", str(args.repeats), "--driver-memory", args.driver_memory]
                if args.partitions:
                    cmd += ["--partitions", str(args.partitions)]
                if args.no_check:
                    cmd.append("--no-check")
                done = subprocess.run(cmd)
                res = (json.loads(path.read_text()) if done.returncode == 0 and path.exists()
                       else {"error": f"worker exited with {done.returncode}"})
        results[system] = res
        if "error" in res:
            print(f"{system:18s} FAILED: {res['error']}", flush=True)
            continue
        print(f"{system:18s} median {median(res['evaluate']):7.2f} s  runs "
              f"{', '.join(f'{t:.2f}' for t in res['evaluate'])}  first {res['evaluate_first']:.2f}"
              f" s  session start {res['session_start_s']:.1f} s  peak tree "
              f"{res['peak_tree'] / 2**30:.2f} GiB (+{res['peak_above_session'] / 2**30:.2f})  "
              f"(wall {time.perf_counter() - began:.0f} s, load {res['load_before'][0]:.2f} -> "
              f"{res['load_after'][0]:.2f})", flush=True)
        if system == "evalkit":
            print(f"{'  n_resamples=0':18s} median {median(res['evaluate_no_intervals']):7.2f} s  "
                  f"runs {', '.join(f'{t:.2f}' for t in res['evaluate_no_intervals'])}")
            if res["vs_in_memory"]:
                cmp = res["vs_in_memory"]
                print(f"  vs in-memory evalkit.evaluate: max |diff| mean {cmp['mean']:.1e}, "
                      f"ci_low {cmp['ci_low']:.1e}, ci_high {cmp['ci_high']:.1e} (in memory "
                      f"{cmp['in_memory_s']:.2f} s)")
    if session is not None and owned:
        session[0].stop()
    agree = agreement(results)
    for system, diffs in agree.items():
        print(f"agreement with {system:18s} max |diff of means| {max(diffs.values()):.2e} "
              f"({len(diffs)} metrics)")

    record = {"scale": args.scale, "seed": args.seed, "data": meta, "repeats": args.repeats,
              "machine": machine() | {"java": _java_version()}, "master": MASTER,
              "driver_memory": args.driver_memory, "agreement": agree, "results": results}
    out = args.out or HERE / "results" / f"spark_{args.scale}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, indent=2) + "\n")
    print(f"\nwrote {out}")
    failed = [s for s in systems if "error" in results[s] and s != "replay"]
    bad = [s for s, d in agree.items() if d and max(d.values()) > 1e-9]
    cmp = results.get("evalkit", {}).get("vs_in_memory") or {}
    if cmp and max(cmp["mean"], cmp["ci_low"], cmp["ci_high"]) > 1e-9:
        bad.append("in-memory evalkit")
    if failed or bad:
        print(f"failed: {', '.join(failed)}; values disagree with: {', '.join(bad)}",
              file=sys.stderr)
        return 1
    return 0


def _java_version() -> str:
    try:
        done = subprocess.run(["java", "-version"], capture_output=True, text=True, timeout=60)
        return (done.stderr or done.stdout).splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        return ""


if __name__ == "__main__":
    sys.exit(main())
