"""Bad input to every public entry point, in one table.

Each row is (call, expected exception type, the function the message must name, the argument
it must quote, a regex the message must match). Every row also checks that the frames passed
in are unchanged afterwards. The data layer's file cases are in tests/data/test_hostile_inputs.py
and the ranking metrics' in tests/metrics/test_ranking_errors.py; this table covers one or two
cases of each kind at every entry point a user calls.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evalkit
import evalkit.spark
from evalkit import metrics, models, segments, split, stats
from evalkit.protocols import debiased, sampled


def truth() -> pd.DataFrame:
    return pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [10, 11, 10, 12],
                         "rating": [5.0, 3.0, 4.0, 5.0], "timestamp": [1, 2, 3, 4]})


def recs() -> pd.DataFrame:
    return pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [10, 12, 11, 10],
                         "rank": [1, 2, 1, 2]})


def predictions() -> pd.DataFrame:
    return pd.DataFrame({"user_id": [1, 1, 2], "item_id": [10, 11, 10],
                         "prediction": [4.0, 3.5, 4.2]})


def buckets() -> pd.Series:
    return pd.Series(["head", "tail", "tail"], index=[10, 11, 12])


# --- load_interactions: the file is written under tmp_path ----------------------------------

HEAD = "user_id,item_id,rating\n"


def load(name: str, content: bytes | str) -> Callable[[Path], tuple]:
    def call(tmp: Path) -> tuple:
        path = tmp / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
        return (lambda: evalkit.load_interactions(path)), []
    return call


def load_parquet(name: str, frame: pd.DataFrame) -> Callable[[Path], tuple]:
    def call(tmp: Path) -> tuple:
        path = tmp / name
        frame.to_parquet(path)
        return (lambda: evalkit.load_interactions(path)), []
    return call


def on(func: Callable, *frames: object, **kwargs: object) -> Callable[[Path], tuple]:
    """A call of ``func(*frames, **kwargs)``; the frames are checked for changes."""
    def call(tmp: Path) -> tuple:
        return (lambda: func(*frames, **kwargs)), [f for f in frames if isinstance(f, pd.DataFrame)]
    return call


def fitted(model: object) -> object:
    return model.fit(truth())


def polars_frame() -> object:
    polars = pytest.importorskip("polars")
    return polars.from_pandas(truth())


T, R, P = truth(), recs(), predictions()
DUP = pd.concat([R, R.iloc[:1]], ignore_index=True)
STR_ITEMS = R.assign(item_id=R["item_id"].astype(str))
MISSING = r"\b1 of 4 test rating\(s\) have no prediction"
RNG_TYPE = r"'rng' must be an integer >= 0, a numpy\.random\.Generator or None; got "

CASES = [
    # load_interactions
    pytest.param(load("e.csv", b""), ValueError, "load_interactions", "path",
                 r"file '.*e\.csv' is empty", id="load-empty-file"),
    pytest.param(load("f.csv.gz", HEAD + "1,2,3\n"), ValueError, "load_interactions", "path",
                 r"is not valid gzip data", id="load-fake-gzip"),
    pytest.param(load("b.csv", b"\xef\xbb\xbfuser_id;item_id;rating\n1;2;3\n"), ValueError,
                 "load_interactions", "path", r"looks semicolon-separated",
                 id="load-bom-header-wrong-separator"),
    pytest.param(load("t.csv", HEAD.replace(",", "\t") + "1\t2\t3\n"), ValueError,
                 "load_interactions", "path", r"looks tab-separated", id="load-tab-in-csv"),
    pytest.param(load("x.csv", HEAD + "1,2,3,9\n4,5,3,9\n"), ValueError, "load_interactions",
                 "path", r"has 1 more field\(s\) on its lines than names in its header \(3\)",
                 id="load-extra-field-every-line"),
    pytest.param(load("n.csv", HEAD + ",2,3\n4,5,3\n"), ValueError, "load_interactions",
                 "path", r"column 'user_id' has 1 missing \(NaN\) id", id="load-nan-id-csv"),
    pytest.param(load_parquet("n.parquet", T.assign(item_id=[np.nan, 11, 10, 12])), ValueError,
                 "load_interactions", "path", r"column 'item_id' has 1 missing \(NaN\) id",
                 id="load-nan-id-parquet"),
    pytest.param(load("d.csv", "user_id,item_id,item_id,rating\n1,2,3,4\n"), ValueError,
                 "load_interactions", "path", r"has the column 'item_id' twice",
                 id="load-duplicate-columns"),
    pytest.param(load("a.csv", "userId,user_id,item_id\n1,2,3\n"), ValueError,
                 "load_interactions", "columns",
                 r"several columns \(userId, user_id\) stand for user_id",
                 id="load-alias-and-canonical-column"),
    # evaluate
    pytest.param(on(evalkit.evaluate, T.drop(columns="item_id"), R), ValueError, "evaluate",
                 "truth", r"is missing column\(s\) item_id", id="evaluate-missing-column"),
    pytest.param(on(evalkit.evaluate, T, R.drop(columns="rank")), ValueError, "evaluate",
                 "recs", r"needs a 'rank' or a 'score' column", id="evaluate-no-order-column"),
    pytest.param(on(evalkit.evaluate, T, DUP), ValueError, "evaluate", "recs",
                 r"1 duplicate rank\(s\) within a user; first: user 1, rank 1",
                 id="evaluate-duplicate-pairs"),
    pytest.param(on(evalkit.evaluate, T, R.assign(rank=[0, 1, 1, 2])), ValueError, "evaluate",
                 "recs", r"column 'rank' must be 1-based positive integers; got a minimum of 0",
                 id="evaluate-rank-zero"),
    pytest.param(on(evalkit.evaluate, T, R.assign(rank=[-3, 1, 1, 2])), ValueError, "evaluate",
                 "recs", r"got a minimum of -3", id="evaluate-rank-negative"),
    pytest.param(on(evalkit.evaluate, T, R, k=0), ValueError, "evaluate", "k",
                 r"must be a positive integer; got 0", id="evaluate-k-zero"),
    pytest.param(on(evalkit.evaluate, T, R, k=10**18), ValueError, "evaluate", "k",
                 r"must be at most 1,000,000", id="evaluate-k-huge"),
    pytest.param(on(evalkit.evaluate, T, R, rng="abc"), TypeError, "evaluate", "rng",
                 RNG_TYPE + "'abc'", id="evaluate-rng-string"),
    pytest.param(on(evalkit.evaluate, T, R, rng=-1), ValueError, "evaluate", "rng",
                 RNG_TYPE + r"-1 \(int\)", id="evaluate-rng-negative"),
    pytest.param(on(evalkit.evaluate, T, R, rng=1.5), TypeError, "evaluate", "rng",
                 RNG_TYPE + r"1\.5 \(float\)", id="evaluate-rng-float"),
    pytest.param(on(evalkit.evaluate, T, STR_ITEMS), TypeError, "evaluate", "item_id",
                 r"holds integer ids in 'truth' but string ids in 'recs'",
                 id="evaluate-string-vs-integer-ids"),
    # compare
    pytest.param(on(evalkit.compare, {"a": R, "b": R.drop(columns="item_id")}, T), ValueError,
                 "compare", "recs",
                 r"evaluating systems\['b'\]: evaluate: 'recs' is missing column\(s\) item_id",
                 id="compare-missing-column"),
    pytest.param(on(evalkit.compare, {"a": R, "b": DUP}, T), ValueError, "compare", "recs",
                 r"systems\['b'\].*duplicate rank\(s\)", id="compare-duplicate-pairs"),
    pytest.param(on(evalkit.compare, {"a": R.assign(rank=[1, 2, 0, 2]), "b": R}, T),
                 ValueError, "compare", "recs", r"systems\['a'\].*got a minimum of 0",
                 id="compare-rank-zero"),
    pytest.param(on(evalkit.compare, {"a": R, "b": R}, T, k=0), ValueError, "compare", "k",
                 r"must be a positive integer; got 0", id="compare-k-zero"),
    pytest.param(on(evalkit.compare, {"a": R, "b": R}, T, k=10**18), ValueError, "compare",
                 "k", r"must be at most 1,000,000", id="compare-k-huge"),
    pytest.param(on(evalkit.compare, {"a": R, "b": R}, T, rng="abc"), TypeError, "compare",
                 "rng", RNG_TYPE + "'abc'", id="compare-rng-string"),
    pytest.param(on(evalkit.compare, {"a": R, "b": R}, T, rng=-1), ValueError, "compare",
                 "rng", RNG_TYPE + r"-1 \(int\)", id="compare-rng-negative"),
    pytest.param(on(evalkit.compare, {"a": R, "b": R}, T, rng=1.5), TypeError, "compare",
                 "rng", RNG_TYPE + r"1\.5", id="compare-rng-float"),
    pytest.param(on(evalkit.compare, {"a": R, "b": STR_ITEMS}, T), TypeError, "compare",
                 "item_id", r"systems\['b'\].*integer ids in 'truth' but string ids in 'recs'",
                 id="compare-string-vs-integer-ids"),
    # splits
    pytest.param(on(split.random_split, T, test_fraction=0), ValueError, "random_split",
                 "test_fraction", r"open interval \(0, 1\); got 0\.0", id="random-split-0"),
    pytest.param(on(split.user_ratio_split, T, test_fraction=1.5), ValueError,
                 "user_ratio_split", "test_fraction", r"got 1\.5", id="user-ratio-split-1.5"),
    pytest.param(on(split.user_temporal_split, T, test_fraction=-0.1), ValueError,
                 "user_temporal_split", "test_fraction", r"got -0\.1",
                 id="user-temporal-split-negative"),
    pytest.param(on(split.global_temporal_split, T, test_fraction=1.0), ValueError,
                 "global_temporal_split", "test_fraction", r"got 1\.0",
                 id="global-temporal-split-1"),
    pytest.param(on(split.train_dev_test_split, T, fractions=(0.9, 0.2, 0.1)), ValueError,
                 "train_dev_test_split", "fractions", r"must sum to 1",
                 id="train-dev-test-fractions"),
    pytest.param(on(split.user_temporal_split, T.assign(timestamp=[1, np.inf, 3, 4]),
                    test_fraction=0.5), ValueError, "user_temporal_split", "data",
                 r"column 'timestamp' has 1 infinite value", id="user-temporal-split-inf"),
    pytest.param(on(split.global_temporal_split, T.assign(timestamp=[1, 2, -np.inf, 4]),
                    test_fraction=0.5), ValueError, "global_temporal_split", "data",
                 r"column 'timestamp' has 1 infinite value", id="global-temporal-split-inf"),
    # stats
    pytest.param(on(stats.bootstrap_ci, np.array([1.0, np.nan, 2.0])), ValueError,
                 "bootstrap_ci", "values", r"must not contain NaN; got 1 NaN value",
                 id="bootstrap-ci-nan"),
    pytest.param(on(stats.bootstrap_ci, []), ValueError, "bootstrap_ci", "values",
                 r"at least one value; got an empty array", id="bootstrap-ci-empty"),
    pytest.param(on(stats.bootstrap_ci, [1.0, 2.0], rng="abc"), TypeError, "bootstrap_ci",
                 "rng", RNG_TYPE, id="bootstrap-ci-rng-string"),
    pytest.param(on(stats.paired_tests, [1.0, np.nan, 3.0], [1.0, 2.0, 3.0]), ValueError,
                 "paired_tests", "a", r"must not contain NaN", id="paired-tests-nan"),
    pytest.param(on(stats.paired_tests, [], []), ValueError, "paired_tests", "a",
                 r"at least 2 values; got 0", id="paired-tests-empty"),
    pytest.param(on(stats.paired_tests, [1.0, 2.0, 3.0], [1.0, 2.0]), ValueError,
                 "paired_tests", "b", r"same length; got 3 and 2", id="paired-tests-lengths"),
    pytest.param(on(stats.paired_tests, [1.0, 2.0], [2.0, 1.0], rng=-1), ValueError,
                 "paired_tests", "rng", RNG_TYPE + "-1", id="paired-tests-rng"),
    # rating and classification metrics
    pytest.param(on(metrics.rating_errors, T, P), ValueError, "rating_errors", "missing",
                 MISSING, id="rating-errors-missing-prediction"),
    pytest.param(on(metrics.rating_errors, T, P.drop(columns="prediction")), ValueError,
                 "rating_errors", "predictions", r"is missing column\(s\) prediction",
                 id="rating-errors-no-prediction-column"),
    pytest.param(on(metrics.rating_errors, T.iloc[:3], P.assign(prediction=[np.nan, 1, 2])),
                 ValueError, "rating_errors", "predictions", r"column 'prediction' has 1 NaN",
                 id="rating-errors-nan-prediction"),
    pytest.param(on(metrics.rating_errors, T.iloc[:3], P, confidence=1.5), ValueError,
                 "rating_errors", "confidence", r"open interval \(0, 1\); got 1\.5",
                 id="rating-errors-confidence"),
    pytest.param(on(metrics.classification_scores, T, P), ValueError, "classification_scores",
                 "missing", MISSING, id="classification-missing-prediction"),
    pytest.param(on(metrics.classification_scores, T.iloc[:3], P, confidence=95), ValueError,
                 "classification_scores", "confidence", r"got 95\.0",
                 id="classification-confidence-percent"),
    pytest.param(on(metrics.classification_scores, T.iloc[:3], P, confidence="0.95"),
                 TypeError, "classification_scores", "confidence",
                 r"must be a number in \(0, 1\); got '0\.95'", id="classification-confidence-text"),
    # segments
    pytest.param(on(segments.recall_by_popularity, T, R, ["head"]), TypeError,
                 "recall_by_popularity", "buckets", r"must be a pandas Series",
                 id="recall-by-popularity-buckets-list"),
    pytest.param(on(segments.recall_by_popularity, T, R, buckets(), k=0), ValueError,
                 "recall_by_popularity", "k", r"must be a positive integer; got 0",
                 id="recall-by-popularity-k-zero"),
    pytest.param(on(segments.recall_by_popularity, T, R.drop(columns="item_id"), buckets()),
                 ValueError, "recall_by_popularity", "recs",
                 r"is missing column\(s\) item_id", id="recall-by-popularity-missing-column"),
    pytest.param(on(segments.recall_by_popularity, T, DUP, buckets()), ValueError,
                 "recall_by_popularity", "recs", r"duplicate rank\(s\)",
                 id="recall-by-popularity-duplicate-pairs"),
    # models
    *[pytest.param(on(lambda m=m: m().recommend([1])), ValueError, f"{m.__name__}.recommend",
                   None, r"the model is not fitted; call fit\(train\) first",
                   id=f"{m.__name__}-recommend-before-fit")
      for m in (models.MostPopular, models.Random, models.ItemKNN, models.EASE)],
    pytest.param(on(lambda: models.BiasBaseline().predict(predictions())), ValueError,
                 "BiasBaseline.predict", None, r"the model is not fitted",
                 id="BiasBaseline-predict-before-fit"),
    *[pytest.param(on(lambda m=m: fitted(m()).recommend(["1"])), TypeError,
                   f"{m.__name__}.recommend", "users",
                   r"holds string ids and the model was fitted on integer user ids",
                   id=f"{m.__name__}-recommend-string-ids")
      for m in (models.MostPopular, models.Random, models.ItemKNN, models.EASE)],
    pytest.param(on(lambda p: fitted(models.BiasBaseline()).predict(p),
                    P.assign(user_id=P["user_id"].astype(str))), TypeError,
                 "BiasBaseline.predict", "pairs",
                 r"column 'user_id' holds string ids and the model was fitted on integer ids",
                 id="BiasBaseline-predict-string-ids"),
    # frames with a repeated column name, models that are not models, download settings
    pytest.param(on(evalkit.evaluate, pd.concat([T, T[["rating"]]], axis=1), R, k=2),
                 evalkit.InvalidParameterError, "evaluate", "truth",
                 r"has more than one column named 'rating'; give each column its own name",
                 id="evaluate-repeated-column"),
    pytest.param(on(lambda t: evalkit.cross_validate(lambda: 3, t, folds=2, k=1,
                                                     progress=False), T),
                 evalkit.InvalidParameterError, "cross_validate", "model_factory",
                 r"must return a new model with fit and recommend .*; it returned 3 \(int\)",
                 id="cross_validate-factory-not-a-model"),
    pytest.param(lambda tmp: ((tmp / "file").write_text("x"), (
        lambda: evalkit.data.download_movielens("ml-100k", cache_dir=tmp / "file",
                                                progress=False), []))[1],
                 evalkit.InvalidParameterError, "download_movielens", "cache_dir",
                 r"must be a folder \(made if missing\); '.*file' is a file",
                 id="download-cache-dir-is-a-file"),
    pytest.param(on(lambda: evalkit.data.download_movielens("ml-100k", base_url=None)),
                 evalkit.InvalidParameterError, "download_movielens", "base_url",
                 r"must be the address of a folder of MovieLens archives .*; got None",
                 id="download-base-url-none"),
]


@pytest.mark.parametrize(("make", "exc", "func", "arg", "pattern"), CASES)
def test_bad_input(make: Callable[[Path], tuple], exc: type[Exception], func: str,
                   arg: str | None, pattern: str, tmp_path: Path) -> None:
    call, frames = make(tmp_path)
    before = [copy.deepcopy(frame) for frame in frames]
    with pytest.raises(Exception) as info:
        call()
    # the checkers' InvalidParameterError is both a ValueError and a TypeError
    assert type(info.value) in (exc, evalkit.InvalidParameterError) and isinstance(
        info.value, exc), f"{type(info.value).__name__}: {info.value}"
    message = str(info.value)
    assert message.startswith(f"{func}: "), message
    if arg is not None:
        assert re.search(rf"'{re.escape(arg)}'|\b{re.escape(arg)}=", message), message
    assert re.search(pattern, message), message
    for old, new in zip(before, frames):
        pd.testing.assert_frame_equal(new, old)


def test_bom_header_is_read_as_the_plain_names(tmp_path: Path) -> None:
    """A UTF-8 byte order mark is not bad input: the first column keeps its name."""
    path = tmp_path / "bom.csv"
    path.write_bytes(b"\xef\xbb\xbf" + (HEAD + "1,2,3\n").encode())
    frame = evalkit.load_interactions(path)
    assert list(frame.columns) == ["user_id", "item_id", "rating"]
    assert frame["user_id"].tolist() == [1]


def test_polars_frames_are_evaluated_as_their_pandas_copies() -> None:
    want = evalkit.evaluate(truth(), R, k=3, n_resamples=50)
    got = evalkit.evaluate(polars_frame(), R, k=3, n_resamples=50)
    pd.testing.assert_frame_equal(got.summary, want.summary)
    table = evalkit.compare({"a": R, "b": R}, polars_frame(), k=3, n_resamples=50,
                            n_permutations=99)
    pd.testing.assert_frame_equal(table, evalkit.compare({"a": R, "b": R}, truth(), k=3,
                                                         n_resamples=50, n_permutations=99))
    with pytest.raises(TypeError, match=r"evaluate: 'truth' must be a pandas DataFrame \(or a "
                                        r"polars DataFrame or pyarrow Table\); got builtins.list"):
        evalkit.evaluate([[1, 2, 5.0]], R)


# --- every public function that draws at random: one check of its seed -------------------

GROUPS = pd.Series(["a", "b"], index=pd.Index([1, 2], name="user_id"))
ITEM_BUCKETS = pd.Series(["head", "tail", "tail"], index=[10, 11, 12])
DIFFS = np.array([0.1, 0.2, -0.1, 0.3] * 5)


def _per_user() -> pd.Series:
    return evalkit.evaluate(T, R, k=2, metrics=["precision"], n_resamples=0).per_user[
        "precision@2"]


def _candidates() -> pd.DataFrame:
    from evalkit.protocols import sampled

    drawn = sampled.sample_negatives(T, None, n_negatives=1, rng=0)
    return sampled.sampled_ranks(drawn.assign(score=np.arange(len(drawn), dtype=float)))


def _run() -> evalkit.Evaluation:
    return evalkit.evaluate(T, R, k=2, metrics=["precision"], n_resamples=0)


# (function as the message names it, the argument, a call taking the seed)
SEEDED: list[tuple[str, str, Callable[[object], object]]] = [
    ("evaluate", "rng", lambda r: evalkit.evaluate(T, R, rng=r)),
    ("compare", "rng", lambda r: evalkit.compare({"a": R, "b": R}, T, rng=r)),
    ("compare_evaluations", "rng",
     lambda r: evalkit.compare_evaluations({"a": _run(), "b": _run()}, rng=r)),
    ("cross_validate", "rng", lambda r: evalkit.cross_validate(
        models.MostPopular, T, folds=2, k=1, progress=False, rng=r)),
    ("regression_check", "rng", lambda r: evalkit.regression_check(_run(), _run(), rng=r)),
    ("load_sample", "seed", lambda r: evalkit.load_sample(seed=r)),
    ("random_split", "rng", lambda r: split.random_split(T, test_fraction=0.5, rng=r)),
    ("user_ratio_split", "rng", lambda r: split.user_ratio_split(T, test_fraction=0.5, rng=r)),
    ("train_dev_test_split", "rng", lambda r: split.train_dev_test_split(T, rng=r)),
    ("kfold_split", "rng", lambda r: split.kfold_split(T, folds=2, rng=r)),
    ("kfold_folds", "rng", lambda r: split.kfold_folds(T, folds=2, rng=r)),
    ("split_by", "rng", lambda r: split.split_by(T, "user_temporal", rng=r)),
    ("bootstrap_ci", "rng", lambda r: stats.bootstrap_ci([1.0, 2.0], rng=r)),
    ("bootstrap_ci_frame", "rng",
     lambda r: stats.bootstrap_ci_frame(pd.DataFrame({"a": [1.0, 2.0]}), rng=r)),
    ("paired_tests", "rng", lambda r: stats.paired_tests([1.0, 2.0, 3.0], [1.0, 1.0, 2.0],
                                                         rng=r)),
    ("user_bootstrap_sums", "rng", lambda r: stats.user_bootstrap_sums(
        [np.array([1.0, 2.0])], np.array([1, 2]), n_resamples=2, rng=r)),
    ("power", "rng", lambda r: stats.power(0.1, sd=0.1, n_users=10, rng=r)),
    ("mde", "rng", lambda r: stats.mde(DIFFS, rng=r)),
    ("rating_errors", "rng", lambda r: metrics.rating_errors(T, T.assign(prediction=4.0),
                                                            rng=r)),
    ("classification_scores", "rng",
     lambda r: metrics.classification_scores(T, T.assign(prediction=4.0), rng=r)),
    ("sample_negatives", "rng",
     lambda r: sampled.sample_negatives(T, None, n_negatives=1, rng=r)),
    ("corrected_metric", "rng", lambda r: sampled.corrected_metric(_candidates(),
                                                                          rng=r)),
    ("compare_sampling", "seeds[0]", lambda r: sampled.compare_sampling(
        {"a": R}, T, None, n_negatives=1, seeds=(r,))),
    ("gamma_sensitivity", "rng",
     lambda r: debiased.gamma_sensitivity({"a": R}, T, T, rng=r)),
    ("metrics_by_segment", "rng",
     lambda r: segments.metrics_by_segment(_run().per_user, GROUPS, rng=r)),
    ("recall_by_popularity", "rng",
     lambda r: segments.recall_by_popularity(T, R, ITEM_BUCKETS, rng=r)),
    ("group_disparity", "rng", lambda r: evalkit.fairness.group_disparity(_per_user(), GROUPS,
                                                                         rng=r)),
    ("compare_disparity", "rng", lambda r: evalkit.fairness.compare_disparity(
        {"a": _per_user(), "b": _per_user()}, GROUPS, rng=r)),
    ("exposure_share", "rng", lambda r: evalkit.fairness.exposure_share(R, ITEM_BUCKETS, rng=r)),
    ("Random", "rng", lambda r: models.Random(rng=r)),
    ("recommend_all", "rng", lambda r: models.recommend_all(["Random"], T, [1], k=1, rng=r)),
    # refused before any Spark job (spark.evaluate checks its seed once its frames are Spark's)
    ("spark.compare", "rng", lambda r: evalkit.spark.compare({"a": R, "b": R}, T, rng=r)),
]


@pytest.mark.parametrize("seed", ["x", -1, 1.5, True])
@pytest.mark.parametrize(("func", "arg", "call"), SEEDED, ids=[row[0] for row in SEEDED])
def test_every_random_function_names_a_bad_seed(func: str, arg: str, call: Callable,
                                                seed: object) -> None:
    """A seed that numpy would refuse in its own words (``SeedSequence expects int``,
    ``expected non-negative integer``) or take silently (True) is refused at the call, by one
    checker: the function, the argument, what it takes and what it got."""
    with pytest.raises(evalkit.InvalidParameterError) as info:
        call(seed)
    assert str(info.value) == (
        f"{func}: '{arg}' must be an integer >= 0, a numpy.random.Generator or None; got "
        f"{seed!r}{'' if isinstance(seed, str) else f' ({type(seed).__name__})'}.")


def test_the_seed_table_holds_every_public_random_function() -> None:
    """A public function (or model) that takes a seed is in SEEDED, so that a new one is
    checked too (the reports' helpers take SEED, checked as a parameter; evalkit.spark's two
    are named as evalkit's)."""
    import inspect

    modules = [evalkit, metrics, sampled, debiased, stats, split, segments,
               evalkit.fairness, models]
    found = set()
    for module in modules:
        for name in module.__all__:
            obj = getattr(module, name)
            try:
                parameters = inspect.signature(obj).parameters
            except (TypeError, ValueError):
                continue
            if {"rng", "seed", "seeds"} & set(parameters):
                found.add(name)
    assert found == {func for func, _, _ in SEEDED} - {"spark.compare"}
