"""The at-scale report: the ranking evaluation of Parquet inputs through Spark.

Notebook 09 calls these in order: :func:`parquet_inputs` (the analyst's Parquet paths, or the
report's data split, its systems written as Parquet into a temporary folder),
:func:`spark_note` (whether Spark runs here, and if not what is missing), :func:`spark_frames`
(the Parquet read by Spark, one frame per system), :func:`spark_evaluate_systems` and
:func:`spark_curve_bands` (the tables and bands of the ranking report, computed by
:func:`evalkit.spark.evaluate`), :func:`spark_agreement` and :func:`agreement_note` (the same
numbers from :func:`evalkit.evaluate` on the collected data) and :func:`spark_headline`.
"""

from __future__ import annotations

import functools
import os
import tempfile
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .._docstrings import fill_doc, fragments
from ._docs import REPORT_DOCS
from ._inputs import ReportInputs, RunCard, _provenance, load_inputs, load_systems, run_card
from ._params import ParameterError
from ._quiet import shown_in_the_page
from ._ranking import (
    _band_definitions,
    _bands,
    curve_bands,
    evaluate_systems,
    ranking_headline,
    report_definitions,
)

__all__ = [
    "ParquetInputs",
    "SparkFrames",
    "agreement_note",
    "parquet_inputs",
    "spark_agreement",
    "spark_curve_bands",
    "spark_evaluate_systems",
    "spark_frames",
    "spark_headline",
    "spark_note",
    "spark_run_card",
]

#: The curves' metrics, as in :func:`evalkit.report.curve_bands`.
CURVE_METRICS = ("precision", "recall", "map", "ndcg")
#: Spark and in-memory numbers count as the same when they differ by less than this (the
#: buckets' sums are added in another order; see :mod:`evalkit.spark`).
TOLERANCE = 1e-12

#: The docstring entries of the at-scale page's functions, beside the report's
#: (``REPORT_DOCS``).
_SPARK_DOCS = fragments(
    frames="""
    frames : SparkFrames
        The test interactions and the systems' lists, in Spark (:func:`spark_frames`).
    """,
    metrics="""
    metrics : sequence of str, optional
        The metrics' names; default: those of :func:`evalkit.spark.evaluate`.
    """,
    partitions="""
    partitions : int, optional
        Buckets of users, each evaluated in one Spark task; default:
        :func:`evalkit.spark.evaluate`'s.
    """,
    spark_evaluations="""
    evaluations : mapping of str to evalkit.spark.SparkEvaluation
        Each system's evaluation in Spark (:func:`spark_evaluate_systems`), by name.
    """,
    missing="""
    missing : str or None, default None
        What keeps Spark from running here (:func:`evalkit.spark.missing`); None: nothing.
    """,
)


#: Data with fewer interactions than this is small for Spark: see :attr:`ParquetInputs.small`.
QUICK_JIT_ROWS = 1_000_000


@dataclass(frozen=True, eq=False)
class ParquetInputs:
    """The Parquet inputs of the at-scale report.

    Attributes
    ----------
    truth, recs : str
        Spark paths of the test interactions and of the recommendations (with a ``system``
        column when they hold several systems).
    train : str or None
        Spark path of the training interactions, when written from the data.
    systems : tuple of str or None
        The systems in ``recs``, in order, when written here; None: read from ``recs``.
    inputs : ReportInputs or None
        The data they were written from; None when the analyst gave the paths.
    folder : tempfile.TemporaryDirectory or None
        The temporary folder holding the files written here; it is removed when this object
        is garbage-collected (or at exit).
    """

    truth: str
    recs: str
    train: str | None = None
    systems: tuple[str, ...] | None = None
    inputs: ReportInputs | None = None
    folder: tempfile.TemporaryDirectory | None = None

    @property
    def given(self) -> bool:
        """Whether the analyst gave the Parquet paths."""
        return self.inputs is None

    @property
    def small(self) -> bool:
        """Whether the data was read here and holds fewer than :data:`QUICK_JIT_ROWS`
        interactions (train and test): Spark's work on it is short, and the page starts its
        session with ``quick_jit=True`` (the JVM's quick compiler only). Parquet paths the
        analyst gave are taken as large."""
        return self.inputs is not None and \
            len(self.inputs.train) + len(self.inputs.test) < QUICK_JIT_ROWS

    def cleanup(self) -> None:
        """Remove the temporary folder of the files written here (nothing when the analyst
        gave the paths). Spark frames read from them cannot be computed again afterwards; a
        kernel that is killed rather than shut down would otherwise leave the folder behind."""
        if self.folder is not None:
            self.folder.cleanup()


def parquet_inputs(
    truth_parquet: str = "",
    recs_parquet: str = "",
    *,
    dataset: str = "sample",
    train: str | os.PathLike | None = None,
    test: str | os.PathLike | None = None,
    split: str = "user_ratio",
    test_fraction: float = 0.2,
    recs: Mapping[str, str | os.PathLike] | None = None,
    baselines: Sequence[str] = (),
    k: int = 10,
    seed: int = 0,
    columns: Mapping[str, str] | None = None,
) -> ParquetInputs:
    """The at-scale report's inputs: the analyst's Parquet paths, or Parquet written from the
    report's data.

    Parameters
    ----------
    truth_parquet, recs_parquet : str
        ``TRUTH_PARQUET`` and ``RECS_PARQUET``: Spark paths (local, ``s3://``,
        ``hdfs://``...), used as given. Empty: the inputs are made as the other reports
        make them.
    dataset : str, default "sample"
        ``DATASET``, as for :func:`evalkit.report.load_inputs` (this parameter and those
        below are used only when the paths are empty).
    train, test : str, path-like or None, default None
        ``TRAIN`` and ``TEST``, as for :func:`evalkit.report.load_inputs`.
    split : str, default "user_ratio"
        ``SPLIT``, as for :func:`evalkit.report.load_inputs`.
    test_fraction : float, default 0.2
        ``TEST_FRACTION``, as for :func:`evalkit.report.load_inputs`.
    recs : mapping of str to str or path-like, optional
        ``RECS``, as for :func:`evalkit.report.load_systems`.
    baselines : sequence of str, default ()
        ``BASELINES``, as for :func:`evalkit.report.load_systems`.
    k : int, default 10
        ``K_MAX``: the length of the baselines' lists, as for
        :func:`evalkit.report.load_systems`.
    seed : int, default 0
        ``SEED``, as for :func:`evalkit.report.load_inputs` and
        :func:`evalkit.report.load_systems`.
    columns : mapping of str to str, optional
        ``COLUMNS``, as for :func:`evalkit.report.load_inputs` and
        :func:`evalkit.report.load_systems`.

    Returns
    -------
    ParquetInputs
        With the paths empty: the split's test interactions, every system's lists (one file,
        a ``system`` column) and the training interactions written by
        :func:`evalkit.spark.write_parquet` into a new temporary folder.

    Raises
    ------
    ParameterError
        When only one of the paths is given, and as :func:`evalkit.report.load_inputs`.
    """
    if truth_parquet or recs_parquet:
        if not (truth_parquet and recs_parquet):
            given, other = (("TRUTH_PARQUET", "RECS_PARQUET") if truth_parquet
                            else ("RECS_PARQUET", "TRUTH_PARQUET"))
            raise ParameterError(f"parameter {other} must be given with {given}.")
        return ParquetInputs(truth=str(truth_parquet), recs=str(recs_parquet))
    from ..spark import write_parquet

    inputs = load_inputs(dataset, train=train, test=test, split=split,
                         test_fraction=test_fraction, seed=seed,
                         columns=columns)
    systems = load_systems(inputs, recs=recs, baselines=baselines, k=k, seed=seed,
                           columns=columns)
    folder = tempfile.TemporaryDirectory(prefix="evalkit-parquet-")
    files = write_parquet(inputs.test, systems, folder.name, train=inputs.train)
    return ParquetInputs(truth=files.truth, recs=files.recs, train=files.train,
                         systems=files.systems, inputs=inputs, folder=folder)


@dataclass(frozen=True, eq=False)
class SparkFrames:
    """The at-scale report's inputs as Spark DataFrames: ``truth``, ``systems`` (name ->
    lists) and ``train`` (or None).

    Attributes
    ----------
    truth : pyspark.sql.DataFrame
        The test interactions.
    systems : dict of str to pyspark.sql.DataFrame
        Each system's lists, by name.
    train : pyspark.sql.DataFrame or None, default None
        The training interactions, if any.
    """

    truth: object
    systems: dict
    train: object | None = None


def spark_frames(spark: object, data: ParquetInputs) -> SparkFrames:
    """Read ``data`` with ``spark``: one frame of test interactions, one per system.

    A recommendations file without a ``system`` column is one system, named after the file
    (``mine.parquet`` is ``mine``).

    Parameters
    ----------
    spark : pyspark.sql.SparkSession
        The Spark session.
    data : ParquetInputs
        The Parquet paths (:func:`parquet_inputs`).
    """
    from ..spark import split_systems

    truth = spark.read.parquet(data.truth)
    recs = spark.read.parquet(data.recs)
    name = Path(data.recs.rstrip("/")).stem or "recs"
    systems = split_systems(recs, names=data.systems, name=name)
    train = None if data.train is None else spark.read.parquet(data.train)
    return SparkFrames(truth=truth, systems=systems, train=train)


def spark_note(missing: str | None, *, master: str, partitions: int) -> str:
    """Where the evaluation runs, or, when Spark cannot run here, what is missing and how to
    install it (``missing`` is :func:`evalkit.spark.missing`).

    Parameters
    ----------
    missing : str or None
        What keeps Spark from running here (:func:`evalkit.spark.missing`); None: nothing.
    master : str
        The Spark master it runs on.
    partitions : int
        The buckets of users.
    """
    if missing:
        return (f"**Spark cannot run here: {missing}.** The Spark evaluation needs pyspark "
                "(`pip install pyspark`, or `make spark-setup` in a clone of evalkit) and "
                "Java 17 or later (for example the Debian package `openjdk-17-jre-headless`, "
                "or `JAVA_HOME` pointing at one); install what is missing and run the report "
                "again. The cells that need Spark "
                "are skipped, so the sections below stay empty; the ranking report shows the "
                "same evaluation computed in memory.")
    return (f"Spark runs on `{master}`. The test users are hashed into {partitions:,} "
            f"bucket(s), each evaluated by evalkit's in-memory engine in one Spark task; the "
            "driver adds the buckets' sums into the means, the bootstrap intervals and the "
            "curves, which therefore do not depend on the number of buckets.")


@fill_doc(REPORT_DOCS, _SPARK_DOCS)
def spark_run_card(data: ParquetInputs, evaluations: Mapping[str, object], *, seed: int,
                   master: str, partitions: int, missing: str | None = None,
                   recs: Mapping[str, str | os.PathLike] | None = None,
                   baselines: Sequence[str] = ()) -> pd.DataFrame:
    """What the at-scale report was computed on: :func:`evalkit.report.run_card` of the data
    the Parquet was written from (or the names of the analyst's Parquet files), the
    definitions of ``evaluations``, the systems evaluated and where Spark ran (or why not).

    Parameters
    ----------
    data : ParquetInputs
        The Parquet paths (:func:`parquet_inputs`), and the data they were written from.
    %(spark_evaluations)s
    seed : int
        The report's seed.
    master : str
        The Spark master.
    partitions : int
        The buckets of users.
    %(missing)s
    recs : mapping of str to str or path-like, optional
        ``RECS``, as for :func:`run_card`.
    baselines : sequence of str, default ()
        ``BASELINES``, as for :func:`run_card`.
    """
    from .._version import __version__

    first = next(iter(evaluations.values()), None)
    definitions = None if first is None else first.settings()
    if data.inputs is not None:
        card = run_card(data.inputs, seed=seed, recs=recs, baselines=baselines,
                        definitions=definitions)
        written = ", ".join(Path(p).name for p in (data.truth, data.recs, data.train) if p)
        rows = [("Parquet", f"written from the split to a temporary folder ({written})")]
    else:
        card = None
        rows = [("truth Parquet", Path(data.truth.rstrip("/")).name),
                ("recommendations Parquet", Path(data.recs.rstrip("/")).name),
                ("seed", seed), ("evalkit version", __version__), *_provenance()]
        rows += [(f"definition: {k}", v) for k, v in (definitions or {}).items()]
    rows += [("systems evaluated", ", ".join(evaluations) or "none")]
    rows += [("Spark", f"not run: {missing}")] if missing else \
        [("Spark master", master), ("partitions (buckets of users)", partitions)]
    extra = pd.DataFrame(rows, columns=["item", "value"]).set_index("item")
    return RunCard(extra if card is None else pd.concat([card, extra]))


@contextmanager
def _quiet() -> Iterator[None]:
    """Warnings the report states elsewhere, or that only concern pyspark, not shown."""
    with shown_in_the_page(), warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # pyspark on pandas 3
        warnings.filterwarnings("ignore", category=DeprecationWarning, module="pyspark")
        warnings.filterwarnings("ignore", category=UserWarning, module="pyspark")
        yield


def _jvm_gone(error: BaseException) -> bool:
    """Whether ``error`` says that Spark's JVM stopped answering (it died, most often out of
    memory): a refused or reset connection, or py4j's network error."""
    if isinstance(error, (ConnectionRefusedError, ConnectionResetError, BrokenPipeError)):
        return True
    return type(error).__name__ == "Py4JNetworkError"


def _answering(func: Callable) -> Callable:
    """``func``, whose error when Spark's JVM has died says so and names the remedies,
    instead of a bare ``ConnectionRefusedError`` from py4j."""
    @functools.wraps(func)
    def call(*args: object, **kwargs: object) -> object:
        try:
            return func(*args, **kwargs)
        except Exception as error:
            if not _jvm_gone(error):
                raise
            raise RuntimeError(
                f"{func.__name__}: Spark's JVM stopped answering ({type(error).__name__}: "
                f"{error}). It most often dies when its driver runs out of memory (the "
                "in-memory check collects data to it; evalkit.spark.start_session gives a "
                "local driver a quarter of the available memory). Give it more "
                "(start_session(memory='8g') in a new kernel, "
                "SparkSession.builder.config('spark.driver.memory', '8g') before the session "
                "starts, or spark-submit --driver-memory 8g), or set CHECK_IN_MEMORY False; "
                "Spark's log has the JVM's last lines."
            ) from error
    return call


@_answering
@fill_doc(REPORT_DOCS, _SPARK_DOCS)
def spark_evaluate_systems(frames: SparkFrames, *, k: Sequence[int],
                           metrics: Sequence[str] | None = None,
                           threshold: float | None = 4.0, seed: int = 0,
                           profile: str | None = None,
                           partitions: int | None = None) -> dict:
    """:func:`evalkit.spark.evaluate` for every system of ``frames``, with the options of
    :func:`evalkit.report.evaluate_systems`; ``partitions`` buckets of users.

    Parameters
    ----------
    %(frames)s
    k : sequence of int
        The cutoffs.
    %(metrics)s
    %(threshold)s
    %(seed)s
    %(profile)s
    %(partitions)s

    Returns
    -------
    dict of str to evalkit.spark.SparkEvaluation
        By system, in the order of ``frames.systems``.
    """
    from ..spark import evaluate

    with _quiet():
        return {name: evaluate(frames.truth, recs, k=list(k), threshold=threshold, rng=seed,
                               metrics=None if metrics is None else list(metrics),
                               definitions=report_definitions(profile, threshold),
                               train=frames.train, partitions=partitions)
                for name, recs in frames.systems.items()}


@_answering
@fill_doc(REPORT_DOCS, _SPARK_DOCS)
def spark_curve_bands(frames: SparkFrames, *, k_max: int,
                      metrics: Sequence[str] = CURVE_METRICS, threshold: float | None = 4.0,
                      seed: int = 0, profile: str | None = None,
                      partitions: int | None = None, confidence: float = 0.95,
                      n_resamples: int = 1000) -> dict[str, pd.DataFrame]:
    """:func:`evalkit.report.curve_bands` computed by :func:`evalkit.spark.evaluate`: each
    system's metrics at every k = 1..``k_max`` with pointwise bootstrap bands, one Spark
    evaluation per system (its per-user table is released afterwards).

    Parameters
    ----------
    %(frames)s
    k_max : int
        The largest cutoff.
    metrics : sequence of str, default CURVE_METRICS
        The metrics of the curves.
    %(threshold)s
    %(seed)s
    %(profile)s
    %(partitions)s
    confidence : float, default 0.95
        Level of the bands.
    n_resamples : int, default 1000
        Bootstrap resamples.
    """
    from .._checks import check_cutoff
    from ..spark import evaluate

    k_max = check_cutoff(k_max, func="spark_curve_bands", arg="k_max")
    definitions = _band_definitions(profile, func="spark_curve_bands", threshold=threshold)
    out = {}
    with _quiet():
        for name, recs in frames.systems.items():
            result = evaluate(frames.truth, recs, k=list(range(1, k_max + 1)),
                              metrics=list(metrics), threshold=threshold, rng=seed,
                              definitions=definitions, train=frames.train,
                              confidence=confidence, n_resamples=n_resamples,
                              partitions=partitions)
            result.unpersist()
            out[name] = _bands(result.summary, k_max, metrics)
    return out


def _largest_difference(got: np.ndarray, want: np.ndarray) -> float:
    """The largest absolute difference; infinite where one side is NaN and the other not."""
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    if got.shape != want.shape:
        return np.inf
    if (np.isnan(got) != np.isnan(want)).any():
        return np.inf
    both = ~np.isnan(got)
    return float(np.abs(got[both] - want[both]).max()) if both.any() else 0.0


@_answering
@fill_doc(REPORT_DOCS, _SPARK_DOCS)
def spark_agreement(frames: SparkFrames, evaluations: Mapping[str, object],
                    curves: Mapping[str, pd.DataFrame] | None = None, *, k: Sequence[int],
                    metrics: Sequence[str] | None = None, threshold: float | None = 4.0,
                    seed: int = 0, profile: str | None = None,
                    max_users: int = 20_000) -> pd.DataFrame:
    """The same evaluation by :func:`evalkit.evaluate` on the data collected from Spark, and
    how far its numbers are from the Spark ones.

    Up to ``max_users`` test users, the whole data is collected and compared with
    ``evaluations`` and ``curves``. Beyond, a seeded sample of about ``max_users`` users
    (those whose id hashes, with ``seed``, into one of ``ceil(users / max_users)`` buckets)
    is evaluated again by Spark and, collected, by :func:`evalkit.evaluate`, and the two
    summaries are compared: the check then never brings the whole data to the driver (at
    MovieLens-25M scale that ran Spark's driver out of memory).

    Parameters
    ----------
    frames : SparkFrames
        What ``evaluations`` and ``curves`` were computed on; collected to the driver.
    evaluations : mapping of str to evalkit.spark.SparkEvaluation
        From :func:`spark_evaluate_systems` with the same ``k``, ``metrics``, ``threshold``,
        ``seed`` and ``profile``.
    curves : mapping of str to pandas.DataFrame, optional
        From :func:`spark_curve_bands` (default metrics and interval level); their largest
        k is the bands' length. Not compared on a sample.
    k : sequence of int
        The cutoffs.
    %(metrics)s
    %(threshold)s
    seed : int, default 0
        Seed of the bootstrap and of the users' sample.
    %(profile)s
    max_users : int, default 20000
        The most test users whose data is collected.

    Returns
    -------
    pandas.DataFrame
        One row per system and part (``summary``: means and interval bounds; ``curves``:
        the bands' means and bounds): ``compared`` (the numbers compared, NaN pairs included),
        ``largest_difference`` (absolute; infinite where one side is NaN and the other not),
        ``same_users`` (the users behind each summary mean, and the counts, are equal;
        NA for the curves, whose users are the summary's), ``users`` (the test users
        compared) and ``test_users`` (all of them).
    """
    total = max((int(ev.counts.get("users", 0)) for ev in evaluations.values()), default=0)
    if total > max_users:
        frames = _sampled(frames, buckets=-(-total // max_users), seed=seed)
        evaluations = spark_evaluate_systems(frames, k=k, metrics=metrics,
                                             threshold=threshold, seed=seed, profile=profile)
        curves = None
    with _quiet():
        truth = frames.truth.toPandas()
        systems = {name: recs.toPandas() for name, recs in frames.systems.items()}
        train = None if frames.train is None else frames.train.toPandas()
    memory = evaluate_systems(truth, systems, k=k, metrics=metrics, threshold=threshold,
                              seed=seed, profile=profile, train=train)
    bands = {}
    if curves:
        k_max = len(next(iter(curves.values())))
        bands = curve_bands(truth, systems, k_max=k_max, threshold=threshold, seed=seed,
                            profile=profile, train=train)
    numbers = ["mean", "ci_low", "ci_high"]
    rows = []
    for name, got in evaluations.items():
        want = memory[name].summary.reindex(got.summary.index)  # both indexed by metric@k
        same = bool(got.summary["n_users"].equals(want["n_users"])
                    and got.counts == memory[name].counts)
        users = int(memory[name].counts.get("users", 0))
        rows.append((name, "summary", got.summary[numbers].size,
                     _largest_difference(got.summary[numbers].to_numpy(),
                                         want[numbers].to_numpy()), same, users, total))
        if name in (curves or {}):
            got_bands = curves[name]
            rows.append((name, "curves", got_bands.size,
                         _largest_difference(got_bands.to_numpy(),
                                             bands[name][got_bands.columns].to_numpy()),
                         pd.NA, users, total))
    table = pd.DataFrame(rows, columns=["system", "part", "compared", "largest_difference",
                                        "same_users", "users", "test_users"])
    table["same_users"] = table["same_users"].astype("boolean")
    return table.set_index(["system", "part"])


def _sampled(frames: SparkFrames, *, buckets: int, seed: int) -> SparkFrames:
    """``frames`` cut to the test users whose id hashes (with ``seed``) into bucket 0 of
    ``buckets``: the truth, every system's lists and the training rows of those users."""
    from pyspark.sql import functions as F

    with _quiet():
        chosen = frames.truth.select("user_id").distinct().where(
            F.pmod(F.xxhash64(F.col("user_id").cast("string"), F.lit(int(seed))),
                   F.lit(int(buckets))) == 0)
        chosen = F.broadcast(chosen)

        def keep(frame):
            return frame.join(chosen, "user_id", "left_semi")

        return SparkFrames(truth=keep(frames.truth),
                           systems={name: keep(recs) for name, recs in frames.systems.items()},
                           train=None if frames.train is None else keep(frames.train))


def _difference(value: float, tol: float) -> str:
    return f"< {tol:.0e}" if value < tol else f"{value:.3g}"


def _yes_no(value: object) -> str:
    return "" if pd.isna(value) else "yes" if value else "no"


def agreement_note(table: pd.DataFrame | None, *, missing: str | None = None,
                   tol: float = TOLERANCE) -> str:
    """What :func:`spark_agreement` found, in words and a table: whether the in-memory
    numbers equal the Spark ones to ``tol``, and otherwise where they differ most. Without a
    table, why the check was not run: Spark did not (``missing``), or it was turned off.

    Parameters
    ----------
    table : pandas.DataFrame or None
        :func:`spark_agreement`'s table; None or empty when the check was not run.
    missing : str or None, default None
        What kept Spark from running here (:func:`evalkit.spark.missing`); None: nothing.
    tol : float, default TOLERANCE
        The largest absolute difference taken as equal.
    """
    if missing:
        return "Not checked: Spark did not run here (see above)."
    if table is None or table.empty:
        return ("Not checked: `CHECK_IN_MEMORY` is off (the check collects the data to the "
                "driver and evaluates it there).")
    close = table["largest_difference"] < tol
    systems = table.index.get_level_values("system").unique()
    what = {"summary": "of the summaries (means and interval bounds)",
            "curves": "of the curves (means and band bounds)"}
    parts = " and ".join(
        f"the {int(table.xs(p, level='part')['compared'].sum()):,} numbers {what[p]}"
        for p in table.index.get_level_values("part").unique())
    sampled = "users" in table and bool((table["users"] < table["test_users"]).any())
    data = (f"a seeded sample of {int(table['users'].max()):,} of the "
            f"{int(table['test_users'].max()):,} test users (by a hash of their ids; Spark "
            "evaluated them again, so that the check never collects the whole data)"
            if sampled else "the same data")
    if close.all() and table["same_users"].all(skipna=True):
        head = (f"`evalkit.evaluate` on {data}, collected from Spark into pandas, gives "
                f"the same numbers for {len(systems)} system(s): over {parts}, the largest "
                f"absolute difference is below {tol:.0e}, the size of floating-point rounding "
                "(Spark adds the buckets' sums in another order), and every mean is over the "
                "same users.")
    else:
        worst = table["largest_difference"].idxmax()
        head = (f"**`evalkit.evaluate` on {data} differs from the Spark evaluation:** "
                f"the largest absolute difference is "
                f"{_difference(table['largest_difference'].max(), tol)} ({worst[0]}, "
                f"{worst[1]})")
        users = table.index[table["same_users"].eq(False).fillna(False).to_numpy(bool)
                            ].get_level_values("system").unique()
        head += (f", and the users behind the means differ for {', '.join(users)}."
                 if len(users) else ".")
    lines = ["| system | part | numbers compared | largest absolute difference | same users |",
             "|---|---|---:|---:|---|"]
    lines += [f"| {s} | {p} | {int(r.compared):,} | {_difference(r.largest_difference, tol)} "
              f"| {_yes_no(r.same_users)} |" for (s, p), r in table.iterrows()]
    return head + "\n\n" + "\n".join(lines)


@fill_doc(REPORT_DOCS, _SPARK_DOCS)
def spark_headline(evaluations: Mapping[str, object], *, k: int, metric: str = "ndcg",
                   agreement: pd.DataFrame | None = None,
                   missing: str | None = None) -> dict[str, object]:
    """The at-scale report's headline numbers: ``metric@k`` of each system from Spark (when
    its definitions have that metric), and whether the in-memory engine gave the same numbers
    (when checked); when Spark did not run, why not.

    Parameters
    ----------
    %(spark_evaluations)s
    k : int
        The cutoff.
    metric : str, default "ndcg"
        The metric's registry name.
    agreement : pandas.DataFrame, optional
        :func:`spark_agreement`'s table, when the check was run.
    %(missing)s
    """
    if missing:
        return {"Spark": f"not run: {missing}"}
    out = ranking_headline(evaluations, metric=metric, k=k)
    if agreement is not None and not agreement.empty:
        out["same as in memory"] = bool((agreement["largest_difference"] < TOLERANCE).all()
                                        and agreement["same_users"].all(skipna=True))
    return out
