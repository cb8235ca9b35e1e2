"""The model-comparison page: the paired comparison, what it can detect, the folds of cross-
validation and the headline."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from .._checks import check_ks
from .._comparison import Comparison, compare_evaluations, fold_evaluations
from .._docstrings import fill_doc
from ..definitions import resolve
from ..metrics import (
    parse_column,
)
from ..models import MODELS
from ..split import Folds, kfold_folds
from ._docs import REPORT_DOCS
from ._quiet import shown_in_the_page
from ._ranking import report_definitions

__all__ = ["compare_systems", "comparison_table", "cross_validate_baselines", "cv_split_note",
           "cv_split_table", "detectable_note", "significance_headline",
           "undecided_pairs"]


@fill_doc(REPORT_DOCS)
def cross_validate_baselines(ratings: pd.DataFrame, baselines: Sequence[str], *, folds: int,
                             k: Sequence[int], metrics: Sequence[str],
                             threshold: float | None = 4.0, seed: int = 0,
                             profile: str | None = None) -> pd.DataFrame:
    """:func:`evalkit.cross_validate` of every named baseline (default hyperparameters),
    one block of rows per baseline; an empty table when none is named.

    Parameters
    ----------
    ratings : pandas.DataFrame
        Every interaction (``user_id, item_id, rating``), divided into the folds.
    baselines : sequence of str
        The baselines' names (:data:`evalkit.models.MODELS`).
    folds : int
        Number of folds.
    k : sequence of int
        The cutoffs.
    metrics : sequence of str
        The metrics' names.
    %(threshold)s
    seed : int, default 0
        Seed of the folds, of the bootstrap inside each fold and of the ``Random`` baseline.
    profile : str or None, default None
        A library profile whose definitions the metrics follow (:func:`report_definitions`);
        None: evalkit's.
    """

    if not baselines:
        return pd.DataFrame()

    def factory(name: str):
        return (lambda: MODELS[name](rng=seed)) if name == "Random" else MODELS[name]

    definitions = resolve(report_definitions(profile, threshold), func="cross_validate",
                          threshold=threshold)
    ks = check_ks(list(k), func="cross_validate")
    splits, state = folds_of(ratings, folds, seed, keep=False)
    systems = {}
    for name in baselines:  # each from the same folds and generator state, as
        generator = np.random.default_rng()  # cross_validate(..., rng=seed) draws them
        generator.bit_generator.state = state
        systems[name] = (factory(name), generator)
    with shown_in_the_page():
        out = fold_evaluations(systems, splits, ks=ks, metrics=list(metrics),
                               definitions=definitions, confidence=0.95, sources=False)
    return pd.concat({name: out[name].summary for name in baselines}, names=["system"])


#: The last folds drawn (:func:`folds_of`): the cross-validation note and table of a page
#: use the same ones.
_FOLDS: dict = {}


def folds_of(ratings: pd.DataFrame, folds: int, seed: int, *,
             keep: bool) -> tuple[Folds, dict]:
    """The folds of :func:`evalkit.split.kfold_split` of ``ratings`` with a generator seeded
    by ``seed`` (:class:`~evalkit.split.Folds`: drawn, each fold's frames made when it
    is reached), and the generator's state after the draw, as :func:`evalkit.cross_validate`
    draws them; ``keep``: leave them for the next call on the same frame (the note before the
    table), else let them go once returned."""
    key = (id(ratings), int(folds), int(seed))
    kept = _FOLDS.pop("last", None)
    if kept is not None and kept[0] == key and kept[1] is ratings:
        splits, state = kept[2], kept[3]
    else:
        generator = np.random.default_rng(seed)
        splits = kfold_folds(ratings, folds=folds, rng=generator, order="canonical")
        state = generator.bit_generator.state
    if keep:
        _FOLDS["last"] = (key, ratings, splits, state)
    return splits, state


def cv_split_table(cv: pd.DataFrame, evaluations: Mapping[str, object], *,
                   digits: int = 3) -> pd.DataFrame:
    """Cross-validation beside the single split, for every (system, metric@k) in both:
    ``folds`` (mean of the fold means with its t-interval over folds), ``split`` (the mean over
    the split's test users with its bootstrap interval) and ``folds - split``, so the two can
    be reconciled (the cross-validation note gives the reasons they differ: training share,
    test interactions per user). Empty when there is no cross-validation.

    Parameters
    ----------
    cv : pandas.DataFrame or None
        The cross-validation (:func:`cross_validate_baselines`); None or empty when there is
        none.
    evaluations : mapping of str to evalkit.Evaluation
        Each system's evaluation on the single split (:func:`evaluate_systems`), by name.
    digits : int, default 3
        Decimals shown.
    """
    if cv is None or cv.empty:
        return pd.DataFrame()
    fmt = f"{{:.{digits}f}} [{{:.{digits}f}}, {{:.{digits}f}}]"
    rows = []
    for (system, column), fold in cv.iterrows():  # one step per (system, metric@k)
        evaluation = evaluations.get(system)
        if evaluation is None or column not in evaluation.summary.index:
            continue
        split = evaluation.summary.loc[column]
        rows.append({"system": system, "metric": column,
                     "folds": fmt.format(fold["mean"], fold["ci_low"], fold["ci_high"]),
                     "split": fmt.format(split["mean"], split["ci_low"], split["ci_high"]),
                     "folds - split": f"{fold['mean'] - split['mean']:+.{digits}f}"})
    if not rows:
        return pd.DataFrame()
    return pd.DataFrame(rows).set_index(["system", "metric"])


def cv_split_note(cv: pd.DataFrame | None) -> str:
    """The sentence before :func:`cv_split_table`: what it shows, when there is
    cross-validation to show (empty otherwise).

    Parameters
    ----------
    cv : pandas.DataFrame or None
        The cross-validation (:func:`cross_validate_baselines`); None or empty when there is
        none.
    """
    if cv is None or cv.empty:
        return ""
    return ("The same baselines on the single split (with bootstrap intervals over its test "
            "users) beside the folds, and the difference of the two means, which the reasons "
            "above produce even for one and the same system.")


@fill_doc(REPORT_DOCS)
def compare_systems(evaluations: Mapping[str, object], *, reference: str | None,
                    alpha: float, seed: int = 0,
                    baselines: Sequence[str] = ()) -> pd.DataFrame | None:
    """:func:`evalkit.compare_evaluations` of the systems' evaluations: every pair of
    systems when ``reference`` is None, else each system against ``reference``; None with a
    single system.

    Every pair is taken in an order with the ``baselines`` (``BASELINES``) first, then the
    analyst's systems: each difference is a later system minus an earlier one, so your
    system minus a baseline (how much better yours is), never the other way round. The
    evaluations are those of :func:`evaluate_systems` (the same users, metrics and
    cutoffs), so the comparison states the same means as the rest of the report.

    Parameters
    ----------
    %(evaluations)s
    reference : str or None
        The system every other one is compared with; None: every pair.
    alpha : float
        Significance level of the table's tests, after Holm's correction.
    seed : int, default 0
        Seed of the bootstrap and permutation resamples.
    baselines : sequence of str, default ()
        The systems that are baselines, taken first in each pair.
    """

    if len(evaluations) < 2:
        return None
    order = [n for n in evaluations if n in baselines] + \
        [n for n in evaluations if n not in baselines]
    evaluations = {name: evaluations[name] for name in order}
    return compare_evaluations(evaluations, baseline=reference,
                               pairs="all" if reference is None else "reference",
                               alpha=alpha, rng=seed)


def undecided_pairs(table: pd.DataFrame | None, column: str) -> int:
    """How many tested pairs of the comparison ``table`` differ not significantly on
    ``column`` while their test could detect some difference (a finite ``mde``): the pairs
    a chart of the detectable difference against the number of users helps to read (0
    without a table).

    Parameters
    ----------
    table : pandas.DataFrame or None
        The comparison (:func:`compare_systems`); None with a single system.
    column : str
        The metric@k (e.g. ``"ndcg@10"``).
    """
    if table is None or "mde" not in table.columns:
        return 0
    rows = table[(table["column"] == column) & table["against"].notna()]
    return int((~rows["significant"].astype(bool) & np.isfinite(rows["mde"].astype(float))
                & (rows["mde"].astype(float) > 0)).sum())


def detectable_note(table: pd.DataFrame | None, column: str) -> str:
    """The sentence before the chart of what each undecided pair's test could have detected
    (:func:`evalkit.plots.detectable_differences`), saying what it shows exactly when it is
    drawn (:func:`undecided_pairs`), else why there is none; empty without pairs.

    Parameters
    ----------
    table : pandas.DataFrame or None
        The comparison (:func:`compare_systems`); None with a single system.
    column : str
        The metric@k (e.g. ``"ndcg@10"``).
    """

    if table is None or "mde" not in table.columns:
        return ""
    rows = table[(table["column"] == column) & table["against"].notna()]
    if rows.empty:
        return ""
    metric, k = parse_column(column)
    label = metric.column_label(k)
    if undecided_pairs(table, column):
        return (f"Where a pair's difference in {label} is not significant, the next chart "
                "shows what its test could have detected: the smallest true difference found "
                "with 80% power, falling with the number of users (each line is one pair, at "
                "the spread of its per-user differences and the level of the Holm "
                "correction's first step), the circle where the comparison stands, and the "
                "cross at the users it would take to detect the difference observed.")
    undecided = rows[~rows["significant"].astype(bool)]
    if undecided.empty:
        return (f"Every pair differs significantly in {label}, so there is no chart of what "
                "the tests could have detected.")
    return (f"{len(undecided)} of the {len(rows)} pairs do not differ significantly in {label}, "
            "and their per-user differences do not vary (the same difference for every user, "
            "as for two identical lists) or too few users share them, so the power "
            "calculation has no spread to work with: there is no chart of detectable "
            "differences.")


def significance_headline(table: pd.DataFrame | None, *, column: str | None = None
                          ) -> dict[str, object]:
    """The comparison report's headline: for each tested pair, the difference in ``column``
    (``"ndcg@10"``; default: the table's first metric@k) with its paired bootstrap interval
    under ``"intervals"``, and how many tests of the whole table are significant after Holm;
    with one system (``table`` None) or no test, what there was to compare.

    Parameters
    ----------
    table : pandas.DataFrame or None
        The comparison (:func:`compare_systems`); None with a single system.
    column : str, optional
        The metric@k (e.g. ``"ndcg@10"``); default: the table's first.
    """
    if table is None:
        return {"paired tests": "one system: no pair to compare"}
    tested = table[table["against"].notna() & table["permutation_pvalue"].notna()]
    if tested.empty:
        return {"paired tests": "no pair could be tested (too few users shared)"}
    if column is None or column not in set(tested["column"]):
        column = str(tested["column"].iloc[0])
    rows = tested[tested["column"] == column]
    out: dict[str, object] = {}
    intervals: dict[str, list[float]] = {}
    for system, against, diff, low, high in zip(rows["system"], rows["against"], rows["diff"],
                                                rows["diff_ci_low"], rows["diff_ci_high"]):
        key = f"{column} {system} \u2212 {against}"
        out[key] = float(diff)
        if np.isfinite(low) and np.isfinite(high):
            intervals[key] = [float(low), float(high)]
    out["significant after Holm"] = f"{int(tested['significant'].sum())} of {len(tested)} tests"
    if intervals:
        out["intervals"] = intervals
    return out


def comparison_table(table: pd.DataFrame | None, *, digits: int = 3) -> pd.DataFrame | None:
    """A :func:`compare_systems` table as an analyst reads it
    (:meth:`evalkit.Comparison.readable`): one row per tested pair and metric, the
    difference and Cohen's d_z with their intervals, the Holm-adjusted randomization p-value
    (``< bound`` at the test's floor) and whether it is significant.

    The numbers of ``table`` stay numeric; this is for display only. None for None.

    Parameters
    ----------
    table : pandas.DataFrame or None
        The comparison (:func:`compare_systems`); or None.
    digits : int, default 3
        Decimals shown.
    """
    if table is None:
        return None

    return Comparison(table).readable(digits=digits)
