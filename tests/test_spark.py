"""evalkit.spark.evaluate against the in-memory engine: the same per-user values, means,
intervals, curves and counts (to 1e-12) for any number of partitions, and the same errors.

One local[2] Spark session serves the module. Where pyspark or Java is missing the module
skips with the reason, except under CI (``CI`` set), where both are installed (``.ci/run``)
and their absence is a failure.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evalkit as ek

HERE = Path(__file__).resolve().parent
TOL = 1e-12


def _missing() -> str | None:
    if importlib.util.find_spec("pyspark") is None:
        return ("pyspark is not installed (pip install pyspark; in a clone of evalkit, "
                "make spark-setup)")
    java_home = os.environ.get("JAVA_HOME")
    if shutil.which("java") is None and not (java_home and Path(java_home, "bin", "java").exists()):
        return "Java is not installed (Spark needs a JRE, e.g. openjdk-17-jre-headless)"
    return None


@pytest.fixture(scope="module")
def spark():
    reason = _missing()
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"{reason}, and CI always has it (.ci/run installs it)")
        pytest.skip(reason)
    import evalkit.spark

    # as an analyst starts it: quiet, this Python for the workers, the JVM's class archive
    session = evalkit.spark.start_session("local[2]", partitions=4, app_name="evalkit-tests")
    yield session
    session.stop()


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", module="pyspark")
        yield


def random_case(seed: int = 0, n_users: int = 150, string_ids: bool = False
                ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Users with 1-9 rated items, tied scores, users without lists and lists without users."""
    gen = np.random.default_rng(seed)
    rows = [(u, i, gen.integers(1, 11) / 2) for u in range(n_users)
            for i in gen.choice(40, gen.integers(1, 10), replace=False)]
    truth = pd.DataFrame(rows, columns=["user_id", "item_id", "rating"])
    recs = pd.concat([
        pd.DataFrame({"user_id": u, "item_id": gen.choice(40, 12, replace=False),
                      "score": gen.integers(0, 6, 12).astype(float)})
        for u in range(n_users + 5) if gen.random() < 0.9], ignore_index=True)
    if string_ids:
        truth["user_id"] = "user-" + truth["user_id"].astype(str)
        recs["user_id"] = "user-" + recs["user_id"].astype(str)
    return truth, recs


def in_memory(truth, recs, **kwargs) -> ek.Evaluation:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ek.evaluate(truth, recs, **kwargs)


def on_spark(spark, truth, recs, **kwargs):
    import evalkit.spark

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evalkit.spark.evaluate(spark.createDataFrame(truth), spark.createDataFrame(recs),
                                      **kwargs)


def assert_same(got, want: ek.Evaluation, *, per_user: bool = True) -> None:
    """Every number of the summary, the curves, the counts and the per-user table."""
    numbers = ["mean", "ci_low", "ci_high"]
    pd.testing.assert_frame_equal(got.summary.drop(columns=numbers),
                                  want.summary.drop(columns=numbers))
    np.testing.assert_allclose(got.summary[numbers], want.summary[numbers], rtol=0, atol=TOL)
    assert got.counts == want.counts
    assert got.definitions == want.definitions
    if want.curves is None:
        assert got.curves is None
    else:
        pd.testing.assert_frame_equal(got.curves, want.curves, check_exact=False, rtol=0,
                                      atol=TOL)
    if per_user:
        pd.testing.assert_frame_equal(got.collect_per_user(), want.per_user.sort_index(),
                                      check_exact=False, rtol=0, atol=TOL,
                                      check_index_type=False)


# ----------------------------------------------------------------------------------------------
# Agreement with the in-memory engine
# ----------------------------------------------------------------------------------------------


OPTION_SETS = {
    "default": {},
    "graded": dict(gain="exponential", discount="breese", log_base=3, ap_denominator="relevant",
                   empty="zero"),
    "ties": dict(ties="expected", empty="nan", recall_denominator="min",
                 precision_users="relevant", relevant_set="listed", ideal="k", gain="binary"),
    "profile": dict(definitions="rectools"),
}


@pytest.mark.parametrize("name", list(OPTION_SETS))
def test_every_metric_and_option_agrees_with_the_in_memory_engine(spark, name) -> None:
    truth, recs = random_case(1)
    options = dict(k=[1, 3, 10], curves=12, n_resamples=300, rng=5) | OPTION_SETS[name]
    assert_same(on_spark(spark, truth, recs, partitions=3, **options),
                in_memory(truth, recs, **options))


@pytest.mark.parametrize("partitions", [1, 3, 16])
def test_intervals_do_not_depend_on_the_partitions(spark, partitions) -> None:
    truth, recs = random_case(2)
    options = dict(k=[5, 10], curves=10, n_resamples=500, rng=11)
    want = in_memory(truth, recs, **options)
    got = on_spark(spark, truth, recs, partitions=partitions, **options)
    assert_same(got, want)
    one = on_spark(spark, truth, recs, partitions=1, **options)
    np.testing.assert_allclose(got.summary[["ci_low", "ci_high"]],
                               one.summary[["ci_low", "ci_high"]], rtol=0, atol=TOL)


def test_string_ids_a_column_mapping_and_a_generator_seed(spark) -> None:
    truth, recs = random_case(3, string_ids=True)
    mapped_truth = truth.rename(columns={"user_id": "uid", "item_id": "sku"})
    mapped_recs = recs.rename(columns={"user_id": "uid", "item_id": "sku"})
    want = in_memory(truth, recs, k=5, metrics=["ndcg", "recall"],
                     rng=np.random.default_rng(4))
    got = on_spark(spark, mapped_truth, mapped_recs, k=5, metrics=["ndcg", "recall"],
                   rng=np.random.default_rng(4), columns={"uid": "user_id", "sku": "item_id"},
                   partitions=5)
    assert_same(got, want)


def test_unknown_items_dropped_with_a_spark_train_frame(spark) -> None:
    truth, recs = random_case(4)
    train = pd.DataFrame({"user_id": 0, "item_id": np.arange(0, 40, 2)})
    import evalkit.spark

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = evalkit.spark.evaluate(spark.createDataFrame(truth), spark.createDataFrame(recs),
                                     k=5, train=spark.createDataFrame(train),
                                     unknown_items="drop", partitions=2)
    assert_same(got, in_memory(truth, recs, k=5, train=train, unknown_items="drop"))


def test_ml_latest_small_agrees_for_every_partition_count(spark, ml_latest_small_dir) -> None:
    spec = importlib.util.spec_from_file_location("reference_inputs",
                                                  HERE / "references" / "inputs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    _, truth, recs = module.load(ml_latest_small_dir)
    truth = truth[["user_id", "item_id", "rating"]]
    truth_df, recs_df = spark.createDataFrame(truth), spark.createDataFrame(recs)
    import evalkit.spark

    # each set of options at one of the partition counts (that the numbers do not depend on
    # the count is what test_intervals_do_not_depend_on_the_partitions checks)
    for partitions, definitions, options in (
            (1, None, dict(curves=20)), (3, "spark", {}),
            (16, None, dict(ties="pessimistic", gain="exponential"))):
        want = in_memory(truth, recs, k=[5, 10, 20], definitions=definitions, rng=1, **options)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = evalkit.spark.evaluate(truth_df, recs_df, k=[5, 10, 20], rng=1,
                                         definitions=definitions, partitions=partitions,
                                         **options)
        assert_same(got, want, per_user=True)
        got.unpersist()


def test_buckets_without_lists_and_other_column_types(spark) -> None:
    truth = pd.DataFrame({"user_id": np.repeat(np.arange(30), 3).astype(str),
                          "item_id": np.tile([1, 2, 3], 30), "rating": 5})  # integer ratings
    recs = pd.DataFrame({"user_id": ["0", "0"], "item_id": [1, 5], "rank": [1.0, 2.0]})
    options = dict(k=2, curves=3, rng=2)
    assert_same(on_spark(spark, truth, recs, partitions=8, **options),
                in_memory(truth, recs, **options))


def test_the_spark_profile_is_pysparks_ranking_evaluator(spark) -> None:
    from pyspark.ml.evaluation import RankingEvaluator

    truth, recs = random_case(9)
    recs = recs.sort_values(["user_id", "score", "item_id"], ascending=[True, False, True])
    recs["rank"] = recs.groupby("user_id").cumcount() + 1
    recs = recs[["user_id", "item_id", "rank"]]
    relevant = truth[truth["rating"] >= 4.0].groupby("user_id")["item_id"].agg(list)
    lists = recs.groupby("user_id")["item_id"].agg(list)
    rows = [([float(i) for i in lists.get(u, [])], [float(i) for i in items])
            for u, items in relevant.items()]  # users with a relevant item, as Spark is fed
    frame = spark.createDataFrame(rows, "prediction array<double>, label array<double>")
    got = on_spark(spark, truth, recs, k=[5, 10], definitions="spark", partitions=3)
    names = {"precision": "precisionAtK", "recall": "recallAtK", "ndcg": "ndcgAtK",
             "map": "meanAveragePrecisionAtK"}
    for metric, name in names.items():
        for k in (5, 10):
            want = RankingEvaluator(metricName=name, k=k).evaluate(frame)
            assert got.mean(metric, k) == pytest.approx(want, abs=TOL), (metric, k)


# ----------------------------------------------------------------------------------------------
# The result object
# ----------------------------------------------------------------------------------------------


def test_per_user_table_stays_in_spark_and_writes_parquet(spark, tmp_path) -> None:
    from pyspark.sql import DataFrame

    truth, recs = random_case(5)
    got = on_spark(spark, truth, recs, k=3, metrics=["precision", "ndcg"], partitions=2)
    assert isinstance(got.per_user, DataFrame)
    assert got.per_user.columns == ["user_id", "precision@3", "ndcg@3"]
    got.write_per_user(str(tmp_path / "per_user"))
    written = pd.read_parquet(tmp_path / "per_user").set_index("user_id").sort_index()
    pd.testing.assert_frame_equal(written, got.collect_per_user())
    assert got.mean("ndcg", 3) == pytest.approx(in_memory(truth, recs, k=3).mean("ndcg", 3),
                                                abs=TOL)
    assert got.to_dict()["summary"][0]["column"] == "precision@3"
    pd.testing.assert_frame_equal(got.to_evaluation().per_user, got.collect_per_user())
    assert "Spark" in got._repr_html_() and "SparkEvaluation(150 users)" in repr(got)


def test_driver_warns_about_users_only_in_the_recommendations(spark) -> None:
    import evalkit.spark

    truth, recs = random_case(6)
    extra = pd.DataFrame({"user_id": [10_000, 10_001], "item_id": [1, 2], "score": 1.0})
    recs = pd.concat([recs, extra], ignore_index=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = evalkit.spark.evaluate(spark.createDataFrame(truth), spark.createDataFrame(recs),
                                     k=3, metrics=["precision"], n_resamples=0, partitions=2)
    messages = sorted(str(w.message) for w in caught if issubclass(w.category, UserWarning)
                      and str(w.message).startswith("spark.evaluate"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ek.evaluate(truth, recs, k=3, metrics=["precision"], n_resamples=0)
    assert messages == sorted("spark." + str(w.message) for w in caught)
    assert any("user(s) appear only in 'recs'" in m for m in messages)
    assert got.counts["recs_only_users"] == in_memory(truth, recs, k=3).counts["recs_only_users"]
    assert got.summary[["ci_low", "ci_high"]].isna().all().all()


# ----------------------------------------------------------------------------------------------
# Errors: the in-memory messages, under this function's name
# ----------------------------------------------------------------------------------------------


def _frames(spark, truth, recs):
    return spark.createDataFrame(truth), spark.createDataFrame(recs)


def test_bad_options_and_columns_fail_before_any_job(spark) -> None:
    import evalkit.spark

    truth, recs = random_case(7)
    t, r = _frames(spark, truth, recs)
    with pytest.raises(ValueError, match=r"^spark.evaluate: 'recs' is missing column\(s\) item_id"):
        evalkit.spark.evaluate(t, r.drop("item_id"))
    with pytest.raises(ValueError, match=r"^spark.evaluate: 'recs' needs a 'rank' or a 'score'"):
        evalkit.spark.evaluate(t, r.drop("score"))
    with pytest.raises(TypeError, match=r"^spark.evaluate: 'user_id' holds"):
        evalkit.spark.evaluate(t, spark.createDataFrame(recs.astype({"user_id": str})))
    with pytest.raises(ValueError, match="spark.evaluate: .*k"):
        evalkit.spark.evaluate(t, r, k=0)
    with pytest.raises(ValueError, match="spark.evaluate: 'n_resamples'"):
        evalkit.spark.evaluate(t, r, n_resamples=-1)
    with pytest.raises(ValueError, match="spark.evaluate: 'partitions'"):
        evalkit.spark.evaluate(t, r, partitions=0)
    with pytest.raises(ValueError, match="does not cover"):
        evalkit.spark.evaluate(t, r, metrics=["half_life_utility"], definitions="spark")
    with pytest.raises(TypeError, match="unexpected keyword"):
        evalkit.spark.evaluate(t, r, gian="linear")
    with pytest.raises(TypeError, match=r"^spark.evaluate: 'truth' must be a Spark DataFrame"):
        evalkit.spark.evaluate(truth, r)
    with pytest.raises(TypeError, match=r"^spark.evaluate: 'columns' must map"):
        evalkit.spark.evaluate(t, r, columns=["user_id"])


def test_bad_rows_fail_from_the_job_with_the_in_memory_message(spark) -> None:
    import evalkit.spark

    truth, recs = random_case(8)
    duplicated = pd.concat([recs, recs.iloc[:1]], ignore_index=True)
    ranked = recs.assign(rank=recs.groupby("user_id").cumcount())  # starts at 0
    for bad, pattern in ((duplicated, r"^spark.evaluate: 'recs' .*duplicate"),
                         (ranked.drop(columns="score"), r"^spark.evaluate: 'recs' .*rank")):
        with pytest.raises(ValueError, match=pattern) as caught:
            evalkit.spark.evaluate(*_frames(spark, truth, bad), k=3, partitions=2)
        with pytest.raises(ValueError) as expected:
            ek.evaluate(truth, bad, k=3)
        assert str(caught.value) == "spark." + str(expected.value)
    empty = spark.createDataFrame(truth.iloc[:0], schema="user_id long, item_id long, "
                                                         "rating double")
    with pytest.raises(ValueError, match="^spark.evaluate: 'truth' is empty"):
        evalkit.spark.evaluate(empty, spark.createDataFrame(recs), k=3)


# ----------------------------------------------------------------------------------------------
# compare on Spark
# ----------------------------------------------------------------------------------------------


def _systems(seed: int, string_ids: bool = False):
    truth, recs = random_case(seed, n_users=120, string_ids=string_ids)
    gen = np.random.default_rng(seed + 100)
    other = recs.assign(score=recs["score"] + gen.integers(0, 3, len(recs)))
    third = recs.assign(item_id=(recs["item_id"] + 1) % 40)
    return truth, {"base": recs, "noisy": other, "shifted": third}


@pytest.mark.parametrize(("partitions", "pairs", "string_ids"),
                         [(1, "all", False), (3, "reference", True), (16, "all", True)])
def test_compare_on_spark_is_the_in_memory_table(spark, partitions, pairs, string_ids) -> None:
    import evalkit.spark

    truth, systems = _systems(partitions, string_ids)
    options = dict(k=[3, 10], metrics=["precision", "ndcg", "map"], pairs=pairs,
                   n_resamples=300, n_permutations=999, rng=4, baseline="noisy")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = ek.compare(systems, truth, **options)
        got = evalkit.spark.compare({n: spark.createDataFrame(r) for n, r in systems.items()},
                                    spark.createDataFrame(truth), partitions=partitions,
                                    **options)
    exact = ["system", "against", "metric", "k", "column", "n_users", "n_shared", "p_at_floor",
             "significant", "permutation_pvalue", "permutation_pvalue_holm"]
    pd.testing.assert_frame_equal(got[exact], want[exact])
    numbers = [c for c in want.columns if c not in exact]
    np.testing.assert_allclose(got[numbers].to_numpy(float), want[numbers].to_numpy(float),
                               rtol=1e-10, atol=TOL)
    assert want["diff"].notna().sum() >= 6  # the pairs were tested


def test_compare_on_spark_checks_before_any_job(spark) -> None:
    import evalkit.spark

    truth, systems = _systems(1)
    frames = {n: spark.createDataFrame(r) for n, r in systems.items()}
    truth_frame = spark.createDataFrame(truth)
    with pytest.raises(ValueError, match="spark.compare: 'baseline' must be one of"):
        evalkit.spark.compare(frames, truth_frame, baseline="nope")
    with pytest.raises(ValueError, match="spark.compare: 'n_permutations' must be"):
        evalkit.spark.compare(frames, truth_frame, n_permutations=0)
    with pytest.raises(ValueError, match=r"spark.compare: .*'k'.*\(system 'base'\)"):
        evalkit.spark.compare(frames, truth_frame, k=0)


def test_the_spark_profile_is_mllibs_ranking_metrics_on_both_engines(spark) -> None:
    from pyspark.mllib.evaluation import RankingMetrics

    truth, recs = random_case(11)
    recs = recs.sort_values(["user_id", "score", "item_id"], ascending=[True, False, True])
    recs["rank"] = recs.groupby("user_id").cumcount() + 1
    recs = recs[["user_id", "item_id", "rank"]]
    relevant = truth[truth["rating"] >= 4.0].groupby("user_id")["item_id"].agg(list)
    lists = recs.groupby("user_id")["item_id"].agg(list)
    rows = [(lists.get(u, []), items) for u, items in relevant.items()]
    reference = RankingMetrics(spark.sparkContext.parallelize(rows, 3))
    calls = {"precision": reference.precisionAt, "recall": reference.recallAt,
             "ndcg": reference.ndcgAt, "map": reference.meanAveragePrecisionAt}
    on_cluster = on_spark(spark, truth, recs, k=[3, 12], definitions="spark", partitions=4)
    local = in_memory(truth, recs, k=[3, 12], definitions="spark", n_resamples=0)
    for metric, call in calls.items():
        for k in (3, 12):
            want = call(k)
            assert on_cluster.mean(metric, k) == pytest.approx(want, abs=TOL), (metric, k)
            assert local.mean(metric, k) == pytest.approx(want, abs=TOL), (metric, k)


# ----------------------------------------------------------------------------------------------
# Around evaluate: whether Spark runs here, a quiet session, Parquet inputs, the at-scale report
# ----------------------------------------------------------------------------------------------


def _fake_java(folder: Path, version: str) -> Path:
    """A JAVA_HOME whose bin/java only prints ``version`` (as ``java -version`` does)."""
    (folder / "bin").mkdir(parents=True)
    java = folder / "bin" / "java"
    java.write_text(f"#!/bin/sh\necho 'openjdk version \"{version}\" 2020-01-01' >&2\n")
    java.chmod(0o755)
    return folder


def test_missing_names_each_missing_piece_and_how_to_install_it(tmp_path, monkeypatch) -> None:
    import evalkit.spark

    real = importlib.util.find_spec
    present = lambda name, *a: object() if name == "pyspark" else real(name, *a)  # noqa: E731
    monkeypatch.setattr(importlib.util, "find_spec", present)
    monkeypatch.setenv("JAVA_HOME", str(_fake_java(tmp_path / "jdk17", "17.0.15")))
    assert evalkit.spark.missing() is None
    monkeypatch.setenv("JAVA_HOME", str(_fake_java(tmp_path / "jdk11", "11.0.2")))
    assert evalkit.spark.missing().startswith("Java 11 is installed, which is too old "
                                              "(Spark needs Java 17 or later")
    monkeypatch.setenv("JAVA_HOME", str(_fake_java(tmp_path / "jdk8", "1.8.0_292")))
    assert evalkit.spark.missing().startswith("Java 8 is installed, which is too old")
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "nowhere"))
    assert "JAVA_HOME" in evalkit.spark.missing() and "nowhere" in evalkit.spark.missing()
    monkeypatch.delenv("JAVA_HOME")
    monkeypatch.setenv("PATH", str(tmp_path))  # no java on it
    assert evalkit.spark.missing() == ("Java is not installed (Spark needs Java 17 or later, "
                                       "e.g. the Debian package openjdk-17-jre-headless, or "
                                       "set JAVA_HOME)")
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "pyspark" else real(name, *a))
    reason = evalkit.spark.missing()
    assert reason.startswith("pyspark is not installed (pip install pyspark; in a clone of "
                             "evalkit, make spark-setup); Java is "
                             "not installed")


def test_start_session_reuses_the_running_session_and_says_what_it_cannot_start(
        spark, tmp_path, monkeypatch) -> None:
    import evalkit.spark

    try:
        session = evalkit.spark.start_session("local[2]", partitions=3)
        assert session.sparkContext.applicationId == spark.sparkContext.applicationId
        assert session.conf.get("spark.sql.shuffle.partitions") == "3"
        assert os.environ["PYSPARK_PYTHON"] == sys.executable
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", "4")
    with pytest.raises(ValueError, match=r"start_session: 'master' is a Spark Connect address"):
        evalkit.spark.start_session("sc://localhost:15002")
    with pytest.raises(ValueError, match=r"start_session: 'master' must be a Spark master URL"):
        evalkit.spark.start_session("")
    with pytest.raises(ValueError, match=r"start_session: 'partitions' must be a positive"):
        evalkit.spark.start_session(partitions=0)
    with pytest.raises(ValueError, match=r"start_session: 'memory' must be a JVM memory size "
                                         r"such as '8g' or '4096m'; got '8 GB'"):
        evalkit.spark.start_session(memory="8 GB")
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    with pytest.raises(RuntimeError, match=r"^start_session: Spark cannot run here: Java is not "
                                           r"installed where JAVA_HOME points"):
        evalkit.spark.start_session()


def test_a_local_session_gets_a_quarter_of_the_available_memory_and_arrow(spark) -> None:
    from evalkit.spark._session import driver_memory

    gib = 2**30
    assert [driver_memory(n * gib) for n in (1, 7, 8, 24, 63, 64, 200)] == [
        "1g", "1g", "2g", "6g", "15g", "16g", "16g"]
    conf = spark.sparkContext.getConf()
    assert conf.get("spark.driver.memory") is not None
    assert spark.conf.get("spark.sql.execution.arrow.pyspark.enabled") == "true"


def test_a_local_session_maps_the_archive_of_sparks_classes(spark) -> None:
    """The module's session (start_session on local[2]) gives its JVM the class archive when
    one exists, and the JVM maps it; without one the JVM records it as it exits. CI records
    the archive before the tests (make spark-setup), so there it must be mapped."""
    from evalkit.spark import _classes

    option = spark.sparkContext.getConf().get("spark.driver.defaultJavaOptions", None)
    if _classes.archive_dir() is None:  # turned off
        assert option is None
        return
    if os.environ.get("CI"):
        assert option is not None and option.startswith("-XX:SharedArchiveFile="), option
    if option is not None and option.startswith("-XX:SharedArchiveFile="):
        archive = option.split("=", 1)[1]
        assert Path(archive).parent == _classes.archive_dir()
        jvm = spark.sparkContext._gateway.proc.pid
        maps = Path(f"/proc/{jvm}/maps")
        assert not maps.parent.exists() or archive in maps.read_text()  # Linux: it is mapped
    else:
        assert option is None or option.startswith("-XX:ArchiveClassesAtExit="), option


def test_spark_console_output_goes_to_the_log_not_to_the_process_output(spark, tmp_path) -> None:
    """A fresh process: the JVM's start-up lines and a Python worker's stderr land in the log;
    the process itself prints only its result (what reaches a notebook cell)."""
    import subprocess

    log = tmp_path / "spark.log"
    script = (
        "import sys\n"
        "import evalkit.spark as eks\n"
        f"session = eks.start_session('local[1]', partitions=2, log={str(log)!r}, "
        "quick_jit=True)\n"
        "def noisy(batches):\n"
        "    for batch in batches:\n"
        "        print('noise from a worker', file=sys.stderr)\n"
        "        yield batch\n"
        "print(session.range(5).mapInPandas(noisy, 'id long').count())\n"
        "options = session.sparkContext.getConf().get('spark.driver.defaultJavaOptions')\n"
        "print(eks._session.QUICK_JIT in options.split())\n"
        "session.stop()\n")
    done = subprocess.run([sys.executable, "-W", "ignore", "-c", script], capture_output=True,
                          text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (done.stdout, done.stderr) == ("5\nTrue\n", "")  # quick_jit: the JVM's option
    written = log.read_text()
    assert "noise from a worker" in written and "log4j" in written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["spark.log"]  # nothing else here


def _three_systems() -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    truth, recs = random_case(10)
    ranked = recs.sort_values(["user_id", "score", "item_id"], ascending=[True, False, True])
    ranked = ranked.assign(rank=ranked.groupby("user_id").cumcount() + 1)
    return truth, {"scores": recs, "ranks": ranked.drop(columns="score"), "both": ranked}


def test_write_parquet_and_split_systems_give_each_system_back(spark, tmp_path) -> None:
    import evalkit.spark

    truth, systems = _three_systems()
    before = {n: r.copy() for n, r in systems.items()}
    files = evalkit.spark.write_parquet(truth, systems, tmp_path, train=truth)
    assert files.systems == ("scores", "ranks", "both")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["recs.parquet", "train.parquet",
                                                          "truth.parquet"]
    for name in systems:
        pd.testing.assert_frame_equal(systems[name], before[name])
    frames = evalkit.spark.split_systems(spark.read.parquet(files.recs), names=files.systems)
    assert list(frames) == ["scores", "ranks", "both"]
    assert {n: f.columns for n, f in frames.items()} == {
        "scores": ["user_id", "item_id", "score"], "ranks": ["user_id", "item_id", "rank"],
        "both": ["user_id", "item_id", "rank", "score"]}
    truth_frame = spark.read.parquet(files.truth)
    for name, recs in frames.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = evalkit.spark.evaluate(truth_frame, recs, k=[3, 10], partitions=3, rng=1)
        assert_same(got, in_memory(truth, systems[name], k=[3, 10], rng=1), per_user=False)
    assert list(evalkit.spark.split_systems(spark.read.parquet(files.recs))) == [
        "both", "ranks", "scores"]  # sorted without names
    alone = spark.read.parquet(files.truth)
    assert list(evalkit.spark.split_systems(alone, name="mine")) == ["mine"]
    with pytest.raises(ValueError, match=r"split_systems: the recommendations hold no system "
                                         r"'other'; they hold 'both', 'ranks', 'scores'"):
        evalkit.spark.split_systems(spark.read.parquet(files.recs), names=["scores", "other"])


def test_write_parquet_refuses_what_spark_could_not_evaluate(tmp_path) -> None:
    import evalkit.spark

    truth, systems = _three_systems()
    with pytest.raises(ValueError, match=r"write_parquet: 'systems' must map at least one"):
        evalkit.spark.write_parquet(truth, {}, tmp_path)
    with pytest.raises(ValueError, match=r"write_parquet: 'systems\['x'\]' needs a 'rank' or"):
        evalkit.spark.write_parquet(truth, {"x": systems["scores"].drop(columns="score")},
                                    tmp_path)
    with pytest.raises(ValueError, match=r"write_parquet: 'truth' is missing column\(s\) "
                                         r"item_id"):
        evalkit.spark.write_parquet(truth.drop(columns="item_id"), systems, tmp_path)
    with pytest.raises(ValueError, match=r"write_parquet: 'folder' must be an existing folder"):
        evalkit.spark.write_parquet(truth, systems, tmp_path / "absent")
    assert list(tmp_path.iterdir()) == []


EXAMPLE = HERE.parent / "data" / "example"


def test_the_at_scale_report_gives_the_ranking_reports_numbers(spark) -> None:
    from evalkit import report as rp

    data = rp.parquet_inputs(dataset=str(EXAMPLE), recs={"mine": str(EXAMPLE / "recs.csv")},
                             baselines=["MostPopular"], k=12, seed=3)
    assert not data.given and data.systems == ("mine", "MostPopular")
    frames = rp.spark_frames(spark, data)
    assert list(frames.systems) == ["mine", "MostPopular"] and frames.train is not None
    options = dict(threshold=3.5, seed=3, profile="cornac")  # cornac drops unknown items
    got = rp.spark_evaluate_systems(frames, k=[5, 10], partitions=3, **options)
    systems = rp.load_systems(data.inputs, recs={"mine": str(EXAMPLE / "recs.csv")},
                              baselines=["MostPopular"], k=12, seed=3)
    want = rp.evaluate_systems(data.inputs.test, systems, k=[5, 10], train=data.inputs.train,
                               **options)
    for name in systems:
        assert_same(got[name], want[name], per_user=False)
    bands = rp.spark_curve_bands(frames, k_max=12, partitions=2, n_resamples=200, **options)
    memory = rp.curve_bands(data.inputs.test, systems, k_max=12, train=data.inputs.train,
                            n_resamples=200, **options)
    for name in systems:
        pd.testing.assert_frame_equal(bands[name], memory[name], check_exact=False, rtol=0,
                                      atol=TOL)
    curves = rp.spark_curve_bands(frames, k_max=12, partitions=2, **options)
    agreement = rp.spark_agreement(frames, got, curves, k=[5, 10], **options)
    assert agreement.index.tolist() == [("mine", "summary"), ("mine", "curves"),
                                        ("MostPopular", "summary"), ("MostPopular", "curves")]
    assert (agreement["largest_difference"] < TOL).all()
    assert agreement["same_users"].tolist()[::2] == [True, True]
    assert rp.agreement_note(agreement).startswith("`evalkit.evaluate` on the same data, "
                                                   "collected from Spark into pandas, gives "
                                                   "the same numbers for 2 system(s)")
    # beyond max_users, a seeded sample of users is evaluated again and compared
    sample = rp.spark_agreement(frames, got, curves, k=[5, 10], max_users=40, **options)
    assert sample.index.tolist() == [("mine", "summary"), ("MostPopular", "summary")]
    users = int(got["mine"].counts["users"])
    assert (sample["test_users"] == users).all() and (sample["largest_difference"] < TOL).all()
    assert (0 < sample["users"]).all() and (sample["users"] < users).all()
    assert rp.agreement_note(sample).startswith(
        f"`evalkit.evaluate` on a seeded sample of {int(sample['users'].max()):,} of the "
        f"{users:,} test users (by a hash of their ids;")
    interval = {name: got[name].summary.loc["ndcg@10", ["ci_low", "ci_high"]].tolist()
                for name in ("mine", "MostPopular")}
    assert rp.spark_headline(got, k=10, agreement=agreement) == {
        "ndcg@10 mine": got["mine"].mean("ndcg", 10),
        "ndcg@10 MostPopular": got["MostPopular"].mean("ndcg", 10), "same as in memory": True,
        "intervals": {f"ndcg@10 {name}": interval[name] for name in interval}}
    card = rp.spark_run_card(data, got, seed=3, master="local[2]", partitions=3,
                             recs={"mine": str(EXAMPLE / "recs.csv")}, baselines=["MostPopular"])
    assert card.loc["Parquet", "value"] == ("written from the split to a temporary folder "
                                            "(truth.parquet, recs.parquet, train.parquet)")
    assert card.loc["systems evaluated", "value"] == "mine, MostPopular"
    assert card.loc["definition: unknown_items", "value"] == "drop"
    assert card.loc["Spark master", "value"] == "local[2]"

    given = rp.parquet_inputs(data.truth, data.recs)  # the analyst's paths, used as given
    assert given.given and given.systems is None and given.train is None
    again = rp.spark_frames(spark, given)
    assert list(again.systems) == ["MostPopular", "mine"]  # sorted when read
    card = rp.spark_run_card(given, {}, seed=3, master="local[2]", partitions=3,
                             missing="Java is not installed")
    assert card.loc["truth Parquet", "value"] == "truth.parquet"
    assert card.loc["Spark", "value"] == "not run: Java is not installed"


def test_the_at_scale_reports_prose_follows_the_results() -> None:
    from evalkit import report as rp

    table = pd.DataFrame({"system": ["a", "a", "b"], "part": ["summary", "curves", "summary"],
                          "compared": [30, 600, 30], "largest_difference": [1e-15, 0.0, 1e-15],
                          "same_users": pd.array([True, pd.NA, True], dtype="boolean")}
                         ).set_index(["system", "part"])
    note = rp.agreement_note(table)
    assert "gives the same numbers for 2 system(s): over the 60 numbers of the summaries " \
           "(means and interval bounds) and the 600 numbers of the curves" in note
    assert "| a | curves | 600 | < 1e-12 |  |" in note
    table.loc[("b", "summary"), ["largest_difference", "same_users"]] = [2.5e-4, False]
    note = rp.agreement_note(table)
    assert note.startswith("**`evalkit.evaluate` on the same data differs from the Spark "
                           "evaluation:** the largest absolute difference is 0.00025 (b, "
                           "summary), and the users behind the means differ for b.")
    assert rp.agreement_note(None, missing="Java is not installed").startswith(
        "Not checked: Spark did not run here")
    assert rp.agreement_note(None).startswith("Not checked: `CHECK_IN_MEMORY` is off")
    missing = "Java is not installed (Spark needs Java 17 or later)"
    note = rp.spark_note(missing, master="local[2]", partitions=4)
    assert note.startswith(f"**Spark cannot run here: {missing}.**")
    assert "`pip install pyspark`" in note and "Java 17" in note
    assert rp.spark_note(None, master="local[3]", partitions=5).startswith(
        "Spark runs on `local[3]`. The test users are hashed into 5 bucket(s)")
    assert rp.spark_headline({}, k=10, missing=missing) == {"Spark": f"not run: {missing}"}


def test_parquet_inputs_live_in_a_temporary_folder_removed_with_them() -> None:
    import gc

    from evalkit import report as rp

    data = rp.parquet_inputs(dataset=str(EXAMPLE), baselines=["MostPopular"], k=5)
    folder = Path(data.folder.name)
    assert sorted(p.name for p in folder.iterdir()) == ["recs.parquet", "train.parquet",
                                                        "truth.parquet"]
    pd.testing.assert_frame_equal(pd.read_parquet(data.truth),
                                  data.inputs.test[["user_id", "item_id", "rating",
                                                    "timestamp"]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)  # "implicitly cleaning up"
        del data
        gc.collect()
    assert not folder.exists()


def test_the_at_scale_parameters_are_checked_before_anything_runs(tmp_path) -> None:
    from evalkit.report import ParameterError, check_parameters
    from evalkit.report._runner import _resolve_parameters

    (tmp_path / "t.parquet").write_bytes(b"")
    ok = check_parameters(TRUTH_PARQUET=str(tmp_path / "t.parquet"),
                          RECS_PARQUET="s3://bucket/recs", SPARK_MASTER="local[2]",
                          PARTITIONS=3, CHECK_IN_MEMORY=False)
    assert ok["RECS_PARQUET"] == "s3://bucket/recs" and ok["CHECK_IN_MEMORY"] is False
    assert check_parameters(TRUTH_PARQUET="", RECS_PARQUET="")["TRUTH_PARQUET"] == ""
    for values, message in [
        (dict(TRUTH_PARQUET=str(tmp_path / "t.parquet"), RECS_PARQUET=""),
         r"parameter RECS_PARQUET must be given with TRUTH_PARQUET"),
        (dict(RECS_PARQUET=str(tmp_path / "absent.parquet")),
         r"parameter RECS_PARQUET names no Parquet file or folder: '.*absent.parquet'"),
        (dict(PARTITIONS=0), r"parameter PARTITIONS must be an integer >= 1; got 0"),
        (dict(CHECK_IN_MEMORY="yes"), r"parameter CHECK_IN_MEMORY must be True or False"),
        (dict(SPARK_MASTER=""), r"parameter SPARK_MASTER must be a non-empty string"),
    ]:
        with pytest.raises(ParameterError, match=message):
            check_parameters(**values)
    resolved = _resolve_parameters("sample", {"TRUTH_PARQUET": "s3://bucket/truth",
                                              "RECS_PARQUET": str(tmp_path / "t.parquet")})
    assert resolved["TRUTH_PARQUET"] == "s3://bucket/truth"
    assert resolved["RECS_PARQUET"] == str(tmp_path / "t.parquet")


def test_parquet_inputs_cleanup_removes_only_what_was_written(tmp_path) -> None:
    from evalkit import report as rp

    data = rp.parquet_inputs(dataset=str(EXAMPLE), baselines=["MostPopular"], k=5)
    folder = Path(data.folder.name)
    data.cleanup()
    assert not folder.exists()
    data.cleanup()  # twice is fine
    (tmp_path / "t.parquet").write_bytes(b"")
    given = rp.parquet_inputs(str(tmp_path / "t.parquet"), str(tmp_path / "t.parquet"))
    given.cleanup()
    assert (tmp_path / "t.parquet").exists()
    with pytest.raises(rp.ParameterError, match=r"parameter RECS_PARQUET must be given with "
                                                r"TRUTH_PARQUET"):
        rp.parquet_inputs(str(tmp_path / "t.parquet"))


def test_the_at_scale_page_starts_spark_with_the_quick_compiler_on_small_data_only(
        tmp_path, monkeypatch) -> None:
    """``ParquetInputs.small``: data read here under a million interactions (the page then
    passes ``quick_jit=True``); more, or Parquet paths the analyst gave, are not small."""
    from evalkit import report as rp
    from evalkit.report import _spark

    data = rp.parquet_inputs(dataset=str(EXAMPLE), baselines=["MostPopular"], k=5)
    rows = len(data.inputs.train) + len(data.inputs.test)
    assert data.small and rows < _spark.QUICK_JIT_ROWS
    monkeypatch.setattr(_spark, "QUICK_JIT_ROWS", rows)
    assert not data.small
    monkeypatch.setattr(_spark, "QUICK_JIT_ROWS", rows + 1)
    assert data.small
    given = rp.parquet_inputs(data.truth, data.recs)
    assert not given.small
    data.cleanup()


def test_unpersist_releases_everything_the_evaluation_cached(spark) -> None:
    truth, recs = random_case(12)
    before = {r.id() for r in spark.sparkContext._jsc.getPersistentRDDs().values()}
    result = on_spark(spark, truth, recs, k=5, partitions=2)
    result.collect_per_user()
    assert {r.id() for r in spark.sparkContext._jsc.getPersistentRDDs().values()} - before
    result.unpersist()
    assert not {r.id() for r in spark.sparkContext._jsc.getPersistentRDDs().values()} - before


def test_a_new_local_session_gets_two_shuffle_partitions_per_core() -> None:
    """start_session's default for local masters (Spark's 200 tasks per shuffle dominate a
    small evaluation); other masters keep the cluster's setting."""
    from evalkit.spark._session import _local_partitions

    assert _local_partitions("local") == 2
    assert _local_partitions("local[2]") == 4
    assert _local_partitions("local[3, 2]") == 6
    assert _local_partitions("local[*]") == 2 * (os.cpu_count() or 1)
    for master in ("yarn", "spark://host:7077", "k8s://https://host", "local-cluster[2,1,1024]"):
        assert _local_partitions(master) is None, master


def test_a_jvm_that_died_is_named_with_the_remedies() -> None:
    from evalkit.report import _spark

    @_spark._answering
    def spark_agreement() -> None:
        raise ConnectionRefusedError(111, "Connection refused")

    with pytest.raises(RuntimeError, match=r"spark_agreement: Spark's JVM stopped answering "
                       r"\(ConnectionRefusedError: .*driver runs out of memory.*"
                       r"spark.driver.memory.*CHECK_IN_MEMORY False"):
        spark_agreement()

    @_spark._answering
    def other() -> None:
        raise ValueError("not the JVM")

    with pytest.raises(ValueError, match="not the JVM"):
        other()


def test_workers_without_evalkit_s_packages_are_named_with_the_fix() -> None:
    """A session built by hand, whose workers start another Python, fails in its tasks with
    the worker's ModuleNotFoundError; spark.evaluate says what happened and how to fix it."""
    from evalkit.spark._evaluate import _job_error

    worker = ("An exception was thrown from the Python worker. Please see the stack trace "
              "below.\nTraceback (most recent call last):\n  File \"worker.py\", line 1\n"
              "ModuleNotFoundError: No module named 'pandas'\n")
    error = _job_error(Exception(worker))
    assert isinstance(error, RuntimeError)
    assert str(error).startswith("spark.evaluate: Spark's Python workers cannot import pandas")
    assert f"PYSPARK_PYTHON={sys.executable}" in str(error)
    assert "start_session" in str(error)
    assert _job_error(Exception("ModuleNotFoundError: No module named 'lxml'")) is None


def test_the_spark_benchmark_script_runs_and_agrees(spark, tmp_path, monkeypatch) -> None:
    """benchmarks/spark.py at the tiny scale, evalkit alone, in this module's session (the
    script uses a running session and leaves it running; RankingEvaluator's agreement with
    the spark profile is tested above; RePlay is not installed): its means equal in-memory
    evalkit's."""
    from tests.test_benchmarks import run_main

    for name in ("PYSPARK_SUBMIT_ARGS", "PYSPARK_PYTHON"):  # the script sets them
        monkeypatch.setenv(name, os.environ.get(name, ""))
    out = tmp_path / "spark.json"
    try:
        code = run_main("spark", [
            "--scale", "tiny", "--inline", "--repeats", "1", "--systems", "evalkit",
            "--partitions", "2", "--out", str(out)])
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", "4")  # the module's setting
    assert code == 0
    assert not spark.sparkContext._jsc.sc().isStopped()
    record = json.loads(out.read_text())
    assert record["data"]["users"] == 300
    evalkit = record["results"]["evalkit"]
    assert set(record["results"]) == {"evalkit"}
    assert len(evalkit["evaluate"]) == 1 and len(evalkit["evaluate_no_intervals"]) == 1
    assert 0 < evalkit["means"]["precision@10"] < 1
    assert max(evalkit["vs_in_memory"][c] for c in ("mean", "ci_low", "ci_high")) < 1e-9
