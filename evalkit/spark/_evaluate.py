"""Ranking evaluation of Spark DataFrames through evalkit's in-memory engine.

The plan of :func:`evaluate`:

1. On the driver, the options and the frames' columns and types are checked by running
   :func:`evalkit.evaluate` on a one-user frame shaped like the inputs (their schemas): the same
   checks and messages as in memory, before any Spark job starts.
2. Truth and recommendations are bucketed by a hash of the user id and co-grouped by bucket
   (``cogroup(...).applyInPandas``): each bucket is one call of :func:`evalkit.evaluate`
   (``n_resamples=0``) on its users, so every option of :class:`evalkit.Definitions` works and
   the per-user numbers are the in-memory ones. Per bucket it also returns, for every column,
   the sum, count, minimum and maximum of the per-user values, the Poisson-bootstrap sums
   ``sum_u w_ub x_u`` and ``sum_u w_ub`` (weights drawn from the user ids, see
   :func:`evalkit.stats.bootstrap_ci_frame`), the counts of the summary and the curves' means
   with the number of users behind them.
3. The driver adds the buckets' sums (in bucket order) and forms the means, the percentile
   intervals and the curves exactly as the in-memory engine forms them from the whole table.
   The per-user table stays in Spark, persisted.
"""

from __future__ import annotations

import numbers
import pickle
import re
import sys
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._checks import InvalidParameterError, check_positive_int, check_resamples, check_rng, warn
from .._display import CurveTable
from .._docstrings import fill_doc
from .._evaluation import EVALUATION_DOCS, Evaluation
from .._evaluation import evaluate as evaluate_in_memory
from .._resample import (
    design_key,
    poisson_column_sums,
    quantile_interval,
    replicate_means,
    user_streams,
)
from ..definitions import Definitions, takes_definitions
from ..metrics import CURVE_METRICS, TieWarning

__all__ = ["SparkEvaluation", "evaluate"]

FUNC = "spark.evaluate"
_AGG = "_evalkit_sums"  # the column holding each bucket's sums (binary)
_BUCKET = "_evalkit_bucket"
_TRUTH_COLUMNS = ("user_id", "item_id", "rating")
_RECS_COLUMNS = ("user_id", "item_id", "rank", "score")
_COUNTS = ("users", "users_without_recs", "recs_only_users")
_SUMMARY_COUNTS = ("dropped_undefined", "undefined", "tied_users")
_ERROR = re.compile(r"^(?:[\w.]+\.)?(ValueError|TypeError|InvalidParameterError): "
                    r"evaluate: (.*)$", re.MULTILINE)


def _pyspark():
    try:
        import pyspark.sql
        import pyspark.sql.functions
        import pyspark.sql.types
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError(
            f"{FUNC}: evalkit.spark needs pyspark; install it with pip install pyspark "
            "(in a clone of evalkit: make spark-setup)."
        ) from error
    return pyspark.sql


@dataclass(frozen=True)
class SparkEvaluation:
    """The result of :func:`evalkit.spark.evaluate`: :class:`evalkit.Evaluation`'s shape, with
    the per-user table kept in Spark.

    Attributes
    ----------
    per_user : pyspark.sql.DataFrame
        One row per evaluated user: ``user_id`` and one double column per ``metric@k`` (NaN
        where a metric is undefined, as in memory). Persisted; :meth:`unpersist` frees it.
    summary : pd.DataFrame
        One row per ``metric@k``, with the columns of :class:`evalkit.Evaluation`'s
        ``summary`` (means, intervals, users), formed on the driver.
    definitions : Definitions
        The definitions used, as in :class:`evalkit.Evaluation`.
    counts : dict
        ``users`` evaluated, ``users_without_recs`` (scored 0), ``recs_only_users``
        (ignored), as in :class:`evalkit.Evaluation`.
    curves : pd.DataFrame or None
        With ``evaluate(..., curves=K)``: the :func:`~evalkit.metrics.ranking_curves` table
        for k = 1..K, formed on the driver, else None.
    _cached : pyspark.sql.DataFrame or None
        Internal, set by :func:`evalkit.spark.evaluate`: the persisted output of the Spark
        job that ``per_user`` is read from; :meth:`unpersist` frees it too.
    bootstrap : dict
        The intervals' settings: ``confidence``, ``n_resamples`` and ``rng`` (the seed when
        it was an integer, else None), as in :class:`evalkit.Evaluation`.
    """

    per_user: object
    summary: pd.DataFrame
    definitions: Definitions
    counts: dict
    curves: pd.DataFrame | None = None
    _cached: object = field(default=None, repr=False, compare=False)
    bootstrap: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.curves is not None and not isinstance(self.curves, CurveTable):
            object.__setattr__(self, "curves", CurveTable(self.curves))  # as in memory

    def _shape(self) -> Evaluation:
        return Evaluation(per_user=pd.DataFrame(), summary=self.summary,
                          definitions=self.definitions, counts=self.counts, curves=self.curves,
                          bootstrap=self.bootstrap)

    def settings(self) -> dict:
        """The definitions and the bootstrap settings in one dict (as
        :meth:`evalkit.Evaluation.settings`)."""
        return self._shape().settings()

    def collect_per_user(self) -> pd.DataFrame:
        """The per-user table as pandas, indexed by ``user_id`` and sorted by it."""
        frame = self.per_user.toPandas().set_index("user_id").sort_index()
        return frame

    def write_per_user(self, path: str, *, mode: str = "errorifexists") -> None:
        """Write the per-user table as Parquet to ``path`` (a Spark path; ``mode`` as in
        ``DataFrameWriter.mode``: ``"errorifexists"``, ``"overwrite"``, ...).

        Parameters
        ----------
        path : str
            Where Spark writes the Parquet files (local, ``s3://``, ``hdfs://``...).
        mode : str, default "errorifexists"
            Spark's save mode (``DataFrameWriter.mode``): ``"errorifexists"``,
            ``"overwrite"``, ``"append"``, ``"ignore"``.
        """
        self.per_user.write.mode(mode).parquet(path)

    def to_evaluation(self) -> Evaluation:
        """An in-memory :class:`evalkit.Evaluation` (collects the per-user table)."""
        return Evaluation(per_user=self.collect_per_user(), summary=self.summary,
                          definitions=self.definitions, counts=self.counts, curves=self.curves,
                          bootstrap=self.bootstrap)

    def unpersist(self) -> None:
        """Release the persisted per-user table (and the job's output it is read from)."""
        self.per_user.unpersist()
        if self._cached is not None:
            self._cached.unpersist()

    @fill_doc(EVALUATION_DOCS)
    def mean(self, metric: str, k: int | None = None) -> float:
        """The summary mean of ``metric`` at ``k`` (as :meth:`evalkit.Evaluation.mean`).

        Parameters
        ----------
        %(metric_k)s
        """
        return self._shape().mean(metric, k)

    def table(self, *, digits: int = 4) -> pd.DataFrame:
        """The summary as an analyst reads it (see :meth:`evalkit.Evaluation.table`).

        Parameters
        ----------
        digits : int, default 4
            Decimals kept.
        """
        return self._shape().table(digits=digits)

    def to_dict(self) -> dict:
        """As :meth:`evalkit.Evaluation.to_dict`."""
        return self._shape().to_dict()

    @fill_doc(EVALUATION_DOCS)
    def to_json(self, path: str | None = None, *, indent: int = 2,
                overwrite: bool = True) -> str:
        """As :meth:`evalkit.Evaluation.to_json`.

        Parameters
        ----------
        %(json)s
        """
        return self._shape().to_json(path, indent=indent, overwrite=overwrite)

    def _repr_html_(self) -> str:
        return self._shape()._repr_html_().replace("evalkit evaluation", "evalkit evaluation "
                                                   "(Spark)", 1)

    def __repr__(self) -> str:
        return (f"SparkEvaluation({self.counts.get('users', 0)} users)\n"
                f"{self.table().to_string(index=False)}")


# ----------------------------------------------------------------------------------------------
# Checks on the driver
# ----------------------------------------------------------------------------------------------


def _renamed(frame: object, columns: Mapping[str, str] | None, *, arg: str) -> object:
    sql = _pyspark()
    if not isinstance(frame, sql.DataFrame):
        raise InvalidParameterError(
            f"{FUNC}: '{arg}' must be a Spark DataFrame (pyspark.sql.DataFrame); "
            f"got {type(frame).__name__}. For pandas frames use evalkit.evaluate.")
    for source, target in (columns or {}).items():
        if source in frame.columns and source != target:
            frame = frame.withColumnRenamed(source, target)
    return frame


def _check_mapping(columns: object) -> dict[str, str] | None:
    if columns is None:
        return None
    if not isinstance(columns, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in columns.items()):
        raise InvalidParameterError(
            f"{FUNC}: 'columns' must map column names to evalkit's names "
            f"(str to str), for example {{'userId': 'user_id'}}; got {columns!r}.")
    return dict(columns)


def _probe_value(data_type: object, name: str) -> object:
    """A value of ``name``'s Spark type that evalkit accepts in that column."""
    types = _pyspark().types
    if isinstance(data_type, types.IntegralType):
        return np.int64(1)
    if isinstance(data_type, types.StringType):
        return "1"
    if isinstance(data_type, types.BooleanType):
        return True
    if isinstance(data_type, (types.FractionalType, types.DecimalType)):
        return 5.0 if name == "rating" else 1.0
    return None


def _probe(frame: object, names: Iterable[str]) -> pd.DataFrame:
    """A one-row pandas frame with the columns ``names`` of ``frame`` and their kinds."""
    fields = {f.name: f.dataType for f in frame.schema.fields}
    return pd.DataFrame({name: [_probe_value(fields[name], name)]
                         for name in names if name in fields})


def _renamed_error(error: Exception) -> Exception:
    """``error`` from the in-memory engine, under this function's name."""
    message = str(error)
    if message.startswith("evaluate:"):
        message = FUNC + message[len("evaluate"):]
    return type(error)(message)


#: A Spark worker's Python that lacks a package evalkit's tasks import.
_MISSING_PACKAGE = re.compile(
    r"ModuleNotFoundError: No module named '(pandas|numpy|pyarrow|evalkit|numba|scipy)")


def _job_error(error: Exception) -> Exception | None:
    """The in-memory engine's error raised inside a Spark task, a worker without evalkit's
    packages, or None."""
    text = str(error)
    missing = _MISSING_PACKAGE.search(text)
    if missing:
        return RuntimeError(
            f"{FUNC}: Spark's Python workers cannot import {missing.group(1)}: they run a "
            "Python other than the driver's, without evalkit and its packages. Start the "
            "session with evalkit.spark.start_session (a local session's workers then run "
            f"this Python), or set PYSPARK_PYTHON={sys.executable} before the session "
            "starts; on a cluster, install evalkit on the executors (the guide's At scale "
            "page, docs/guide/at-scale.md).")
    found = _ERROR.findall(text)
    if not found:
        return None
    kind, message = found[-1]
    return {"ValueError": ValueError, "TypeError": TypeError,
            "InvalidParameterError": InvalidParameterError}[kind](f"{FUNC}: {message}")


# ----------------------------------------------------------------------------------------------
# The work of one bucket (runs in the executors)
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Bucket:
    """Evaluate one bucket of users and return its per-user rows and one row of sums."""

    ks: tuple[int, ...]
    names: tuple[str, ...]
    definitions: Definitions
    columns: tuple[str, ...]
    n_resamples: int
    key: int
    curves: int | None
    train: pd.DataFrame | None
    integer_users: bool

    def _rows(self, per_user: pd.DataFrame | None, sums: dict) -> pd.DataFrame:
        user_dtype = "Int64" if self.integer_users else object
        frames = []
        if per_user is not None and len(per_user):
            rows = per_user.reset_index()
            rows["user_id"] = rows["user_id"].astype(user_dtype)
            rows[_AGG] = None
            frames.append(rows)
        last = pd.DataFrame({"user_id": pd.array([None], dtype=user_dtype)}
                            | {c: [np.nan] for c in self.columns}
                            | {_AGG: [pickle.dumps(sums, protocol=pickle.HIGHEST_PROTOCOL)]})
        frames.append(last)
        return pd.concat(frames, ignore_index=True)[["user_id", *self.columns, _AGG]]

    def __call__(self, bucket: tuple, truth: pd.DataFrame, recs: pd.DataFrame) -> pd.DataFrame:
        truth = truth.drop(columns=_BUCKET)
        recs = recs.drop(columns=_BUCKET)
        sums: dict = {"bucket": int(bucket[0]), "users": 0, "users_without_recs": 0,
                      "recs_only_users": 0}
        if len(truth) == 0:  # users only in the recommendations
            sums["recs_only_users"] = int(recs["user_id"].nunique())
            return self._rows(None, sums)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the driver warns from the totals
            result = evaluate_in_memory(
                truth, recs, k=list(self.ks), metrics=list(self.names),
                definitions=self.definitions, train=self.train, n_resamples=0,
                curves=self.curves)
        per_user = result.per_user
        values = [per_user[c].to_numpy(dtype=np.float64) for c in self.columns]
        present = [v[~np.isnan(v)] for v in values]
        sums.update(result.counts)
        sums["n"] = np.array([len(v) for v in present], dtype=np.int64)
        sums["sum"] = np.array([v.sum() for v in present])
        sums["min"] = np.array([v.min() if len(v) else np.nan for v in present])
        sums["max"] = np.array([v.max() if len(v) else np.nan for v in present])
        sums["summary"] = result.summary[list(_SUMMARY_COUNTS)].to_numpy(dtype=np.int64)
        if self.n_resamples:
            sums["boot"] = poisson_column_sums(values, self.n_resamples, self.key,
                                                user_streams(per_user.index))
        if self.curves is not None:
            sums["curve_means"] = result.curves[list(CURVE_METRICS)].to_numpy(dtype=np.float64)
            sums["curve_n"] = _curve_counts(result.curves).to_numpy(dtype=np.int64)
        return self._rows(per_user, sums)


def _bucket_function(job: _Bucket):
    """``job`` as the (key, left, right) function that ``applyInPandas`` takes."""

    def run(key: tuple, truth: pd.DataFrame, recs: pd.DataFrame) -> pd.DataFrame:
        return job(key, truth, recs)

    return run


# ----------------------------------------------------------------------------------------------
# The driver
# ----------------------------------------------------------------------------------------------


def _combine_intervals(parts: list[dict], m: int, n_resamples: int, confidence: float
                       ) -> tuple[np.ndarray, ...]:
    """Means, bounds and counts of the ``m`` columns from the buckets' sums."""
    n = np.zeros(m, dtype=np.int64)
    total = np.zeros(m)
    low_value = np.full(m, np.nan)
    high_value = np.full(m, np.nan)
    for part in parts:
        n += part["n"]
        total += part["sum"]
        low_value = np.fmin(low_value, part["min"])
        high_value = np.fmax(high_value, part["max"])
    mean = np.full(m, np.nan)
    np.divide(total, n, out=mean, where=n > 0)
    low = np.full(m, np.nan)
    high = np.full(m, np.nan)
    if n_resamples:
        constant = (n > 0) & (low_value == high_value)
        low[constant] = high[constant] = low_value[constant]
        varying = np.flatnonzero((n > 0) & (low_value < high_value))
        if varying.size:
            sums = np.zeros((varying.size, n_resamples))
            weights = np.zeros((varying.size, n_resamples))
            for part in parts:
                sums += part["boot"][0][varying]
                weights += part["boot"][1][varying]
            means = replicate_means(sums, weights)
            low[varying], high[varying] = quantile_interval(means, confidence)
    return mean, low, high, n


def _curve_counts(curves: pd.DataFrame) -> pd.DataFrame:
    """The users counted in each curve's means (the columns after the means, in the order of
    :data:`~evalkit.metrics.CURVE_METRICS`)."""
    m = len(CURVE_METRICS)
    assert list(curves.columns[:m]) == list(CURVE_METRICS) and curves.shape[1] == 2 * m
    return curves.iloc[:, m:]


def _combine_curves(parts: list[dict], template: pd.DataFrame) -> pd.DataFrame:
    """The curves of the whole table: each bucket's means weighted by its users."""
    k_max = len(template)
    totals = np.zeros((k_max, len(CURVE_METRICS)))
    n = np.zeros((k_max, len(CURVE_METRICS)), dtype=np.int64)
    for part in parts:
        counted = part["curve_n"]
        use = counted > 0
        totals[use] += part["curve_means"][use] * counted[use]
        n += counted
    means = np.full(totals.shape, np.nan)
    np.divide(totals, n, out=means, where=n > 0)
    frame = template.copy()
    frame[list(CURVE_METRICS)] = means
    frame[list(_curve_counts(template).columns)] = n
    return type(template)(frame)  # shown as in memory


@takes_definitions
def evaluate(
    truth: object,
    recs: object,
    *,
    k: int | Iterable[int] = 10,
    metrics: Iterable[str] | None = None,
    train: object = None,
    definitions: Definitions | str | None = None,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    rng: int | np.random.Generator | None = 0,
    curves: int | None = None,
    columns: Mapping[str, str] | None = None,
    partitions: int | None = None,
    **options: object,
) -> SparkEvaluation:
    """Evaluate recommendations held in Spark DataFrames, as :func:`evalkit.evaluate` does.

    Parameters
    ----------
    truth : pyspark.sql.DataFrame
        Test interactions: ``user_id, item_id, rating`` (integer or string ids).
    recs : pyspark.sql.DataFrame
        Recommendations: ``user_id, item_id`` and ``rank`` and/or ``score``.
    k : int or list of int, default 10
        Cutoff(s), as for :func:`evalkit.evaluate`. Every metric is computed at each.
    metrics : list of str, optional
        Registry names or labels, as for :func:`evalkit.evaluate`; default: all of them, or
        under a profile those it reproduces.
    train : pyspark.sql.DataFrame, optional
        Training interactions; needed only by ``unknown_items="drop"`` (its distinct
        ``item_id`` values are collected to the driver and shipped with the tasks).
    definitions : Definitions or str, optional
        The definitions or a profile name, as for :func:`evalkit.evaluate`; default:
        evalkit's.
    **options
        Any field of :class:`evalkit.Definitions`, overriding ``definitions``, as for
        :func:`evalkit.evaluate`: every field works.
    confidence : float, default 0.95
        Level of the bootstrap confidence intervals.
    n_resamples : int, default 1000
        Bootstrap resamples (the Poisson bootstrap of :func:`evalkit.evaluate`, see the
        Notes); 0 computes no intervals (``ci_low`` and ``ci_high`` are NaN).
    rng : int, Generator or None, default 0
        Seed of the bootstrap; the same seed gives the same intervals, for any
        ``partitions``.
    curves : int, optional
        Also compute :func:`~evalkit.metrics.ranking_curves` to ``k_max=curves``
        (``result.curves``), as for :func:`evalkit.evaluate`.
    columns : mapping of str to str, optional
        Renames columns of ``truth``, ``recs`` and ``train`` to evalkit's names, for example
        ``{"userId": "user_id", "movieId": "item_id"}``.
    partitions : int, optional
        Number of buckets of users, each evaluated by one task; default
        ``spark.sql.shuffle.partitions``. The results do not depend on it.

    Returns
    -------
    SparkEvaluation
        ``summary`` (with intervals), ``definitions``, ``counts`` and ``curves`` collected to
        the driver; ``per_user`` a persisted Spark DataFrame (``collect_per_user()``,
        ``write_per_user(path)``).

    Raises
    ------
    ValueError, TypeError
        As :func:`evalkit.evaluate`, named ``spark.evaluate``: options, missing columns and
        id types before any job starts; duplicate pairs, non-positive ranks and other problems
        of the rows from the job.

    Notes
    -----
    Users are bucketed by ``pmod(xxhash64(user_id), partitions)``; each bucket is evaluated by
    :func:`evalkit.evaluate` in one task, so the per-user values are the in-memory ones. The
    means, intervals and curves are formed on the driver from the buckets' sums: a column's
    mean is ``sum / count``; its bootstrap replicate b is ``sum_u w_ub x_u / sum_u w_ub`` with
    the weights ``w_ub ~ Poisson(1)`` a hash of (seed, user id, b)
    (:func:`evalkit.stats.bootstrap_ci_frame`), summed per bucket and added, so the intervals
    are those of :func:`evalkit.evaluate` on the same data, for any number of partitions (the
    sums differ only in the order of floating-point additions, well below 1e-12); a curve's
    value at k is the buckets' means weighted by their users. Warnings (users only in
    ``recs``, tied scores at a cutoff) are raised on the driver from the totals.

    Examples
    --------
    With Spark DataFrames ``truth`` and ``recs`` (the tests run this on local Spark)::

        result = evalkit.spark.evaluate(truth, recs, k=[10, 100], curves=100)
        result.summary
        result.write_per_user("s3://bucket/eval/per_user")
    """
    sql = _pyspark()
    functions, types = sql.functions, sql.types
    mapping = _check_mapping(columns)
    truth = _renamed(truth, mapping, arg="truth")
    recs = _renamed(recs, mapping, arg="recs")
    if train is not None:
        train = _renamed(train, mapping, arg="train")
    n_resamples = check_resamples(n_resamples, func=FUNC)
    check_rng(rng, func=FUNC)
    spark = truth.sparkSession
    if partitions is None:
        partitions = int(spark.conf.get("spark.sql.shuffle.partitions"))
    partitions = check_positive_int(partitions, func=FUNC, arg="partitions")

    # 1. the in-memory checks, on one row shaped like the inputs
    truth_probe = _probe(truth, truth.columns)
    recs_probe = _probe(recs, recs.columns)
    train_probe = None if train is None else _probe(train, ["item_id"])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            probe = evaluate_in_memory(truth_probe, recs_probe, k=k, metrics=metrics,
                                       train=train_probe, definitions=definitions,
                                       confidence=confidence, n_resamples=0, curves=curves)
    except (ValueError, TypeError) as error:
        raise _renamed_error(error) from None
    ks = tuple(sorted({int(v) for v in probe.summary["k"].dropna()}))
    names = tuple(dict.fromkeys(probe.summary["metric"]))
    per_user_columns = tuple(probe.per_user.columns)
    used = set(names) | (set(CURVE_METRICS) if curves is not None else set())
    train_items = None
    if train is not None and any(definitions.for_metric(n).unknown_items == "drop"
                                 for n in used):
        train_items = train.select("item_id").distinct().toPandas()

    # 2. bucket, co-group and evaluate each bucket in memory
    integer = isinstance(truth.schema["user_id"].dataType, types.IntegralType)
    if integer and isinstance(recs.schema["user_id"].dataType, types.IntegralType):
        user_type = types.LongType()
    else:
        user_type = truth.schema["user_id"].dataType
    bucket = functions.pmod(functions.xxhash64(functions.col("user_id")),
                            functions.lit(partitions))

    def shaped(frame: object, wanted: tuple[str, ...]) -> object:
        kept = [c for c in wanted if c in frame.columns]
        frame = frame.select(*kept).withColumn("user_id",
                                               functions.col("user_id").cast(user_type))
        return frame.withColumn(_BUCKET, bucket)

    key = design_key(rng) if n_resamples else 0
    job = _Bucket(ks=ks, names=names, definitions=definitions, columns=per_user_columns,
                  n_resamples=n_resamples, key=key, curves=curves,
                  train=train_items, integer_users=isinstance(user_type, types.LongType))
    schema = types.StructType(
        [types.StructField("user_id", user_type)]
        + [types.StructField(c, types.DoubleType()) for c in per_user_columns]
        + [types.StructField(_AGG, types.BinaryType())])
    output = (shaped(truth, _TRUTH_COLUMNS).groupBy(_BUCKET)
              .cogroup(shaped(recs, _RECS_COLUMNS).groupBy(_BUCKET))
              .applyInPandas(_bucket_function(job), schema)).persist()
    try:
        rows = output.filter(functions.col(_AGG).isNotNull()).select(_AGG).collect()
    except Exception as error:
        output.unpersist()
        known = _job_error(error)
        if known is None:
            raise
        raise known from None
    parts = sorted((pickle.loads(row[0]) for row in rows), key=lambda p: p["bucket"])

    # 3. add the buckets' sums
    counts = {name: int(sum(p[name] for p in parts)) for name in _COUNTS}
    evaluated = [p for p in parts if "n" in p]
    if not evaluated:
        output.unpersist()
        raise ValueError(f"{FUNC}: 'truth' is empty; there are no users to evaluate.")
    mean, low, high, n = _combine_intervals(evaluated, len(per_user_columns), n_resamples,
                                            probe.bootstrap["confidence"])
    summary = probe.summary.copy()
    summary["mean"] = mean
    summary["ci_low"] = low
    summary["ci_high"] = high
    summary["n_users"] = n
    summary[list(_SUMMARY_COUNTS)] = sum(p["summary"] for p in evaluated)
    summary = summary.astype(probe.summary.dtypes.to_dict())
    curve_table = None if curves is None else _combine_curves(evaluated, probe.curves)
    bootstrap = probe.bootstrap | {
        "n_resamples": n_resamples, "rng": int(rng) if isinstance(rng, numbers.Integral) else None}

    if counts["recs_only_users"]:
        warn(
            f"{FUNC}: {counts['recs_only_users']} user(s) appear only in 'recs', not in "
            "'truth'; they are ignored (counted in counts['recs_only_users']).",
            UserWarning)
    for kk in ks:
        tied = summary.loc[summary["k"] == kk, "tied_users"]
        if len(tied) and int(tied.max()) and definitions.ties != "expected":
            warn(
                f"{FUNC}: {int(tied.max())} user(s) have tied scores straddling the cutoff "
                f"k={kk}; the tie policy decides which of the tied items count (see 'ties').",
                TieWarning)
    per_user = output.filter(functions.col(_AGG).isNull()).drop(_AGG)
    return SparkEvaluation(per_user=per_user, summary=summary, definitions=probe.definitions,
                           counts=counts, curves=curve_table, _cached=output,
                           bootstrap=bootstrap)
