"""Paired comparison of systems held in Spark DataFrames, as :func:`evalkit.compare` does.

Each system is evaluated by :func:`evalkit.spark.evaluate`, its interval drawn from the
resampling design every system shares (:func:`evalkit._comparison.systems_design`, as in
memory), and one generator, seeded by ``rng``, then serves the comparison. The per-user tables
stay in Spark: they are joined by user, and each partition of the joined table returns the
additive statistics of its users' paired differences (:class:`evalkit._paired.PairedSums`: counts,
moments, the counts of each distinct ``|d|`` by sign, the sign-flip and the Poisson-bootstrap
sums, both drawn from the user ids). The driver adds them and forms the table exactly as the
in-memory comparison forms it from the whole per-user table.
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._checks import check_choice, check_fraction, check_positive_int, check_rng
from .._comparison import (
    COMPARE_DOCS,
    PAIRS,
    baseline_first,
    check_systems,
    comparison_table,
    systems_design,
)
from .._docstrings import fill_doc
from .._paired import PairedSums, paired_sums
from .._resample import user_streams
from ..definitions import Definitions, takes_definitions
from ._evaluate import FUNC as _EVALUATE
from ._evaluate import SparkEvaluation, _pyspark
from ._evaluate import evaluate as spark_evaluate

__all__ = ["compare"]

FUNC = "spark.compare"
_PART = "_evalkit_part"


@dataclass(frozen=True)
class _Pairs:
    """The differences of every comparison in a batch of the joined per-user table."""

    comparisons: tuple[tuple[str, str], ...]  # (column of the system, column of the other)
    keys: tuple[tuple[str, int], ...]

    def __call__(self, batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        total: PairedSums | None = None
        keys = dict(self.keys)
        for batch in batches:
            if not len(batch):
                continue
            diffs = np.vstack([batch[a].to_numpy(dtype=np.float64)
                               - batch[b].to_numpy(dtype=np.float64)
                               for a, b in self.comparisons])
            part = paired_sums(diffs, user_streams(batch["user_id"].to_numpy()), **keys)
            total = part if total is None else total + part
        if total is not None:
            yield pd.DataFrame({_PART: [pickle.dumps(total, protocol=pickle.HIGHEST_PROTOCOL)]})


def _sums(results: Mapping[str, SparkEvaluation], comparisons: list[tuple[str, str, str]],
          **keys: int) -> PairedSums:
    """The comparisons' :class:`PairedSums`, from the per-user tables joined in Spark."""
    functions = _pyspark().functions
    names = list(dict.fromkeys(n for name, against, _ in comparisons for n in (name, against)))
    columns = list(results[names[0]].summary.index)
    alias = {(name, column): f"_s{i}_{j}" for i, name in enumerate(names)
             for j, column in enumerate(columns)}
    joined = None
    for name in names:
        frame = results[name].per_user.select(
            "user_id", *[functions.col(f"`{c}`").alias(alias[name, c]) for c in columns])
        joined = frame if joined is None else joined.join(frame, on="user_id", how="left")
    job = _Pairs(comparisons=tuple((alias[name, c], alias[against, c])
                                   for name, against, c in comparisons),
                 keys=tuple(keys.items()))
    rows = joined.mapInPandas(job, f"{_PART} binary").collect()
    parts = [pickle.loads(row[0]) for row in rows]
    if not parts:
        raise ValueError(f"{FUNC}: there are no users to compare.")
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    return total


@takes_definitions
@fill_doc(COMPARE_DOCS)
def compare(
    systems: Mapping[str, object],
    truth: object,
    *,
    baseline: str | None = None,
    pairs: str = "reference",
    k: int | Iterable[int] = 10,
    metrics: Iterable[str] | None = ("precision", "recall", "map", "mrr", "ndcg"),
    train: object = None,
    definitions: Definitions | str | None = None,
    alpha: float = 0.05,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    n_permutations: int = 10000,
    rng: int | np.random.Generator | None = 0,
    columns: Mapping[str, str] | None = None,
    partitions: int | None = None,
    **options: object,
) -> pd.DataFrame:
    """Compare recommenders held in Spark DataFrames, as :func:`evalkit.compare` does.

    Parameters
    ----------
    systems : dict of str to pyspark.sql.DataFrame
        Recommendations of each system, by display name.
    truth : pyspark.sql.DataFrame
        Test interactions shared by all systems.
    %(baseline_pairs)s
    %(k_metrics)s
    train : pyspark.sql.DataFrame, optional
        Training interactions, as for :func:`evalkit.spark.evaluate`; needed only by
        ``unknown_items="drop"``.
    %(definitions)s
    %(options)s
    %(tests)s
    columns : mapping of str to str, optional
        Renames columns of ``truth``, of each system's recommendations and of ``train`` to
        evalkit's names, as for :func:`evalkit.spark.evaluate`.
    partitions : int, optional
        Number of buckets of users of each system's :func:`evalkit.spark.evaluate`; default
        ``spark.sql.shuffle.partitions``. The results do not depend on it.

    Returns
    -------
    pd.DataFrame
        The table of :func:`evalkit.compare`, with the same numbers for the same data and
        seed (to floating-point rounding; the randomization p-values exactly), whatever the
        partitioning.

    Raises
    ------
    ValueError, TypeError
        As :func:`evalkit.compare` and :func:`evalkit.spark.evaluate`; the options are checked
        before any job starts.

    Notes
    -----
    The per-user tables are never collected: they are joined by ``user_id`` in Spark and each
    partition returns the sums its users add to every comparison (see the module notes and
    :func:`evalkit.compare_evaluations`' Notes for the tests and intervals). The random signs
    of the randomization test and the bootstrap weights hash (seed, user id, replicate), so
    the sums of the partitions add up to those of the whole table. The Wilcoxon test needs
    the ranks of ``|d|`` over all users: partitions return the count of each distinct
    ``|d|`` by sign (at most one entry per user, usually far fewer: metric values are
    discrete), from which the driver forms the rank sums and scipy's normal approximation
    with the tie correction (above 50 users; at or below, the differences themselves go to
    ``scipy.stats.wilcoxon``).

    Examples
    --------
    With Spark DataFrames ``truth``, ``pop`` and ``ease`` (the tests run this on local Spark)::

        table = evalkit.spark.compare({"pop": pop, "ease": ease}, truth, k=[10, 100])
    """
    func = FUNC
    names = check_systems(systems, func=func, arg="systems")
    order = baseline_first(names, baseline, func=func)
    pairs = check_choice(pairs, func=func, arg="pairs", choices=PAIRS)
    alpha = check_fraction(alpha, func=func, arg="alpha")
    check_positive_int(n_permutations, func=func, arg="n_permutations")
    check_rng(rng, func=func)
    generator = np.random.default_rng(rng)
    design = systems_design(generator, n_resamples)  # one design for every system's interval
    results: dict[str, SparkEvaluation] = {}
    try:
        for name in names:
            try:
                results[name] = spark_evaluate(
                    truth, systems[name], k=k, metrics=metrics, train=train,
                    definitions=definitions, confidence=confidence, n_resamples=n_resamples,
                    rng=copy.deepcopy(design), columns=columns, partitions=partitions)
            except (ValueError, TypeError) as error:
                message = str(error).replace(f"{_EVALUATE}:", f"{func}:", 1)
                raise type(error)(f"{message} (system {name!r})") from None
        return comparison_table(results, order, pairs=pairs, alpha=alpha, confidence=confidence,
                        n_resamples=n_resamples, n_permutations=n_permutations,
                        generator=generator, func=func,
                        sums=lambda comparisons, **keys: _sums(results, comparisons, **keys))
    finally:
        for result in results.values():
            result.unpersist()
