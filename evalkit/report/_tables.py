"""Tables the notebooks show, one call each, for any number of systems.

Each function takes the systems of a report (name -> frame) and returns one table with a row
or a column per system, so that a notebook cell is one call whatever the analyst passed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from .._checks import check_cutoff, check_positive_int, check_recs
from .._comparison import Comparison, compare_evaluations, cross_validate
from .._evaluation import evaluate
from ..definitions import Definitions
from ..metrics import (
    RANKING_METRICS,
    classification_scores,
    confusion_at_k,
    default_metrics,
    fcp_global,
    kendall,
    mae,
    parse_column,
    rating_errors,
    rmse,
    spearman,
)
from ..metrics.tables import (
    beyond_accuracy,
    beyond_intervals,
    classification_by_threshold,
    list_intervals,
    tie_report,
)
from ..models import MODELS
from ..profiles import PROFILES
from ..profiles import profile as profile_definitions
from ..segments import user_activity_bins
from ..split import audit, audit_many, split_by
from ._findings import lower_note, table_findings
from ._inputs import prediction_coverage
from ._params import ParameterError
from ._quiet import shown_in_the_page

__all__ = [
    "SPLIT_SAMPLE_ROWS",
    "Splits",
    "beyond_findings",
    "beyond_summary",
    "beyond_table",
    "classification_findings",
    "classification_headline",
    "classification_summary",
    "compare_systems",
    "comparison_table",
    "confusion_table",
    "correlation_table",
    "cross_validate_baselines",
    "curve_bands",
    "cv_split_note",
    "cv_split_table",
    "detectable_note",
    "evaluate_systems",
    "library_table",
    "make_splits",
    "md",
    "predicted_rows",
    "profile_table",
    "ranking_headline",
    "rating_error_summary",
    "rating_error_table",
    "rating_findings",
    "rating_headline",
    "report_definitions",
    "sample_lists",
    "show",
    "significance_headline",
    "summary_table",
    "test_users_by_activity",
    "threshold_table",
    "tie_table",
    "topk_confusion_table",
    "tradeoff_points",
    "undecided_pairs",
]


def md(text: str):
    """Markdown for a notebook cell's output: prose written from the values in use."""
    from IPython.display import Markdown

    return Markdown(text)


#: Interactions beyond which the splitting page's strategies split a sample of users.
SPLIT_SAMPLE_ROWS = 5_000_000


class Splits(dict):
    """The splits the splitting page compares, by name (a dict), with each one's audit
    computed once (:meth:`audit`, :meth:`audit_table`) and ``sample``: None, or how the
    strategies' splits were made from a sample of users (``users``, ``of_users``, ``rows``,
    ``of_rows``, ``max_rows``)."""

    def __init__(self, *args: object, sample: dict | None = None, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.sample = sample
        self._audits: dict[str, pd.DataFrame] = {}

    def audit(self, name: str) -> pd.DataFrame:
        """:func:`evalkit.split.audit` of split ``name``, computed on first use."""

        if name not in self._audits:
            self._audits[name] = audit(self[name])
        return self._audits[name]

    def audit_table(self) -> pd.DataFrame:
        """:func:`evalkit.split.audit_many` of these splits, from the audits computed once."""

        return audit_many(self, audits={name: self.audit(name) for name in self})


def _user_sample(ratings: pd.DataFrame, max_rows: int, seed: int) -> tuple[pd.DataFrame, dict]:
    """A seeded sample of users whose interactions number about ``max_rows`` (every
    interaction of each user drawn), and its description."""
    users = pd.unique(ratings["user_id"])
    n = max(1, round(len(users) * max_rows / len(ratings)))
    chosen = np.random.default_rng(seed).choice(len(users), size=n, replace=False)
    sample = ratings[ratings["user_id"].isin(users[np.sort(chosen)])]
    return sample, {"users": int(n), "of_users": len(users), "rows": len(sample),
                    "of_rows": len(ratings), "max_rows": max_rows}


def make_splits(inputs, strategies: Sequence[str], *, test_fraction: float = 0.2,
                seed: int = 0, max_rows: int | None = SPLIT_SAMPLE_ROWS) -> Splits:
    """The splits the splitting report compares: the analyst's own (``"given"``), if any,
    then one per strategy in ``strategies`` (``STRATEGIES``).

    Parameters
    ----------
    inputs : ReportInputs
        From :func:`load_inputs`.
    strategies : sequence of str
        Strategies of :func:`evalkit.split.split_by`.
    test_fraction : float, default 0.2
        ``TEST_FRACTION``.
    seed : int, default 0
        Seed of the strategies (and of the sample of users).
    max_rows : int or None, default 5,000,000 (:data:`SPLIT_SAMPLE_ROWS`)
        Beyond this many interactions, the strategies split a seeded sample of users (every
        interaction of each one) holding about ``max_rows`` interactions: the page compares
        strategies, which a sample of users shows as well, at a fraction of the time and
        memory (four splits of MovieLens-25M are four copies of it). The analyst's own split
        is audited whole. ``Splits.sample`` says what was drawn, and :func:`split_findings`
        states it. None: never sample.

    Returns
    -------
    Splits
        A dict of name -> :class:`evalkit.split.Split`, each audited once.

    Raises
    ------
    ParameterError
        When there is nothing to compare, or a temporal strategy meets data without
        timestamps.
    """

    if max_rows is not None:
        max_rows = check_positive_int(max_rows, func="make_splits", arg="max_rows")
    splits = Splits() if inputs.split is None else Splits({"given": inputs.split})
    temporal = [s for s in strategies if s in ("user_temporal", "global_temporal")]
    if temporal and not inputs.has_timestamps:
        raise ParameterError(
            f"parameter STRATEGIES names {', '.join(temporal)}, which need timestamps, and "
            f"{inputs.name} has no timestamp column; remove them from STRATEGIES."
        )
    if not strategies and not splits:
        raise ParameterError("parameter STRATEGIES is empty and no TRAIN/TEST is given: "
                             "there is no split to show.")
    ratings = inputs.ratings if strategies else None
    if strategies and max_rows is not None and len(ratings) > max_rows:
        ratings, splits.sample = _user_sample(ratings, max_rows, seed)
    for name in strategies:
        splits[name] = split_by(ratings, name, test_fraction=test_fraction, rng=seed)
    return splits


def evaluate_systems(test: pd.DataFrame, systems: Mapping[str, pd.DataFrame], *,
                     k: Sequence[int], metrics: Sequence[str] | None = None,
                     threshold: float | None = 4.0,
                     curves: int | None = None, seed: int = 0, profile: str | None = None,
                     train: pd.DataFrame | None = None, focus: str | None = None) -> dict:
    """:func:`evalkit.evaluate` for every system, with the same cutoffs, metrics (default:
    evaluate's, the built-in ranking metrics of the engine, or those the profile
    reproduces), threshold, profile (another library's definitions, :data:`evalkit.PROFILES`)
    and seed. ``focus``, the metric a page's charts show (``METRIC``), is added to the
    metrics when they do not hold it (a metric from hits, or one of your own).

    Tie warnings are not shown here: the tie table and the findings report them per system.
    """

    if focus is not None:
        if metrics is None:
            metrics = default_metrics(definitions=report_definitions(profile, threshold))
        if focus not in metrics:
            metrics = [*metrics, focus]

    with shown_in_the_page():
        return {name: evaluate(test, recs, k=list(k), threshold=threshold, rng=seed,
                               metrics=None if metrics is None else list(metrics),
                               curves=curves, definitions=report_definitions(profile, threshold),
                               train=train)
                for name, recs in systems.items()}


def curve_bands(test: pd.DataFrame, systems: Mapping[str, pd.DataFrame], *, k_max: int,
                metrics: Sequence[str] = ("precision", "recall", "map", "ndcg"),
                threshold: float | None = 4.0, seed: int = 0, profile: str | None = None,
                train: pd.DataFrame | None = None, confidence: float = 0.95,
                n_resamples: int = 1000) -> dict[str, pd.DataFrame]:
    """Each system's ranking metrics at every cutoff k = 1..``k_max``, with bootstrap bands.

    Parameters
    ----------
    test, systems, threshold, seed, profile, train
        As for :func:`evaluate_systems`. Under a profile every metric is computed with the
        profile's definitions, also those its library lacks (as
        :func:`evalkit.metrics.ranking_curves` does).
    k_max : int
        Largest cutoff.
    metrics : sequence of str, default ("precision", "recall", "map", "ndcg")
        Metrics of the curves.
    confidence, n_resamples
        Level and resamples of the intervals.

    Returns
    -------
    dict of str to pandas.DataFrame
        Per system, one row per k (index ``k``): for each metric ``m`` the columns ``m``
        (mean over the users it is defined for, as in
        :func:`~evalkit.metrics.ranking_curves`), ``m_low`` and ``m_high``; what
        :func:`evalkit.plots.metrics_at_k` and :func:`evalkit.plots.precision_recall_curve`
        draw as bands.

    Notes
    -----
    The values at every cutoff come from one :func:`evalkit.evaluate` per system with
    ``k = 1..k_max``, whose bootstrap shares one resampling design over every column: the
    band at each k is that k's percentile interval (pointwise, not a simultaneous band).
    """

    k_max = check_cutoff(k_max, func="curve_bands", arg="k_max")
    definitions = _band_definitions(profile, func="curve_bands", threshold=threshold)
    out = {}
    with shown_in_the_page():
        for name, recs in systems.items():  # one evaluation per system
            result = evaluate(test, recs, k=list(range(1, k_max + 1)), metrics=list(metrics),
                              threshold=threshold, rng=seed, definitions=definitions,
                              train=train, confidence=confidence, n_resamples=n_resamples)
            out[name] = _bands(result.summary, k_max, metrics)
    return out


def report_definitions(profile: str | None, threshold: float | None):
    """The ``definitions`` a report evaluates with: the profile's name under ``PROFILE``
    (its library's conventions, gain included); without one, evalkit's, with binary gain
    when ``THRESHOLD`` is None, so that "every test interaction is relevant" reaches NDCG
    too (a rating-valued gain would still grade the relevant items); None for the defaults.

    >>> report_definitions(None, None)
    Definitions(threshold=None, gain='binary')
    >>> report_definitions(None, 4.0) is None, report_definitions("lenskit", None)
    (True, 'lenskit')
    """

    if profile is not None:
        return profile
    return Definitions(threshold=None, gain="binary") if threshold is None else None


def _band_definitions(profile: str | None, *, func: str, threshold: float | None = 4.0):
    """The definitions of the curves under ``profile``: the profile's, for every metric
    (also those its library lacks); else as :func:`report_definitions`."""

    return report_definitions(None, threshold) if profile is None else \
        profile_definitions(profile, func=func).replace(profile=None)


def _bands(summary: pd.DataFrame, k_max: int, metrics: Sequence[str]) -> pd.DataFrame:
    """A summary over k = 1..``k_max`` as one row per k: ``m``, ``m_low``, ``m_high``."""
    frame = pd.DataFrame(index=pd.RangeIndex(1, k_max + 1, name="k"))
    for metric in metrics:  # one step per metric
        rows = summary[summary["metric"].eq(metric)].sort_values("k")
        frame[metric] = rows["mean"].to_numpy()
        frame[f"{metric}_low"] = rows["ci_low"].to_numpy()
        frame[f"{metric}_high"] = rows["ci_high"].to_numpy()
    return frame


def summary_table(evaluations: Mapping[str, object], *, digits: int = 3) -> pd.DataFrame:
    """One compact table: ``mean [low, high]`` per metric (rows) and system (columns), then
    the users each mean is over.

    The best mean of each row is marked with ``*``: the highest, or the lowest for a metric
    declared lower-is-better (its row says so); when the best system's interval overlaps
    another's, the mark means little, and the comparison report tests the difference.
    """

    results = {}
    for name, ev in evaluations.items():
        s = ev.summary
        labels = [(f"{lab}@{int(k)}" if pd.notna(k) else lab) + lower_note(m)
                  for lab, k, m in zip(s["label"], s["k"], s["metric"])]
        higher = [RANKING_METRICS[m].higher_is_better if m in RANKING_METRICS else True
                  for m in s["metric"]]
        results[name] = pd.DataFrame({"value": s["mean"].to_numpy(float),
                                      "ci_low": s["ci_low"].to_numpy(float),
                                      "ci_high": s["ci_high"].to_numpy(float),
                                      "n_users": s["n_users"].to_numpy()}, index=labels)
    table = _interval_table(results, higher_is_better=higher, digits=digits,
                            counts=("n_users",))
    table.index.name = "metric"
    return table


def tie_table(test: pd.DataFrame, systems: Mapping[str, pd.DataFrame], *, k: int,
              threshold: float | None = 4.0,
              profile: str | None = None) -> pd.DataFrame | None:
    """:func:`evalkit.metrics.tables.tie_report` for every system with scores, its ranks
    set aside: what each tie policy would give.

    The row the report's other numbers come from is marked ``(shown above)``: the
    deterministic policy for a list ranked by score alone, or ranked in that order; for a list
    whose ranks order its ties otherwise, an extra first row, ``the list's ranks``, which the
    other tables use. The definitions are
    the report's (:func:`report_definitions`); under a ``profile`` the rows are evalkit's
    and none is marked (the profile's own conventions may need what the table does not
    have). A system of ranks without scores has no ties to show and is left out; None when
    no system has scores.
    """

    definitions = report_definitions(None, threshold)
    shown = " (shown above)" if profile is None else ""
    reports = {}
    for name, recs in systems.items():
        if "score" not in recs.columns:
            continue
        report = tie_report(test, recs.drop(columns=["rank"], errors="ignore"), k=k,
                            threshold=threshold, definitions=definitions)
        as_ranked = None
        if "rank" in recs.columns:
            as_ranked = tie_report(test, recs, k=k, threshold=threshold,
                                   definitions=definitions).iloc[[0]]
            as_ranked["tied_users"] = report["tied_users"].iloc[0]
            if as_ranked.iloc[0].equals(report.loc["deterministic"]):
                as_ranked = None  # the ranks give the deterministic order's numbers
        if as_ranked is not None:
            as_ranked.index = [f"the list's ranks{shown}"]
            report = pd.concat([as_ranked, report])
        else:
            report = report.rename(index={"deterministic": f"deterministic{shown}"})
        reports[name] = report
    if not reports:
        return None
    return pd.concat(reports, names=["system", "ties"])


def rating_error_table(test: pd.DataFrame, predictions: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """MAE and RMSE over all predicted test ratings (micro) and per user (macro), by system.

    Test ratings a system does not predict are left out of its errors (the coverage table
    counts them).
    """

    rows = {}
    with shown_in_the_page():
        for name, p in predictions.items():
            rows[name] = {
                "MAE": mae(test, p, missing="drop"), "RMSE": rmse(test, p, missing="drop"),
                "MAE per user": mae(test, p, average="user", missing="drop"),
                "RMSE per user": rmse(test, p, average="user", missing="drop"),
            }
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "system"
    return out


def _interval_table(results: Mapping[str, pd.DataFrame], *,
                    higher_is_better: bool | None | Sequence[bool],
                    digits: int, counts: Sequence[str] = ("n_users", "n_ratings")
                    ) -> pd.DataFrame:
    """``value [low, high]`` per row of each system's ``value, ci_low, ci_high`` table
    (columns: systems), the best value of each row marked ``*`` (none where
    ``higher_is_better`` is None; one direction for every row, or one per row); then the
    ``counts`` columns (users, ratings) each value is over, shown once where every system
    has the same."""
    if not results:
        return pd.DataFrame()
    fmt = f"{{:.{digits}f}} [{{:.{digits}f}}, {{:.{digits}f}}]"
    table = pd.DataFrame({
        name: [fmt.format(v, lo, hi) if np.isfinite(v) else "" for v, lo, hi in
               zip(r["value"], r["ci_low"], r["ci_high"])]
        for name, r in results.items()}, index=next(iter(results.values())).index)
    values = pd.DataFrame({name: r["value"] for name, r in results.items()})
    if len(results) > 1 and higher_is_better is not None:
        direction = np.where(np.broadcast_to(np.asarray(higher_is_better, dtype=bool),
                                             (len(values),)), 1.0, -1.0)
        signed = values.mul(direction, axis=0)
        best = signed.fillna(-np.inf).to_numpy().argmax(axis=1)
        for row, col in enumerate(best):
            if np.isfinite(values.iat[row, col]):
                table.iat[row, col] += " *"
    for column in counts:
        numbers = pd.DataFrame({name: r[column] for name, r in results.items()})
        same = numbers.nunique(axis=1).eq(1)
        table[column.removeprefix("n_")] = [
            f"{numbers.iat[i, 0]:,}" if same.iat[i] else
            " / ".join(f"{c:,}" for c in numbers.iloc[i]) for i in range(len(numbers))]
    return table


def _rating_results(test: pd.DataFrame, predictions: Mapping[str, pd.DataFrame], *,
                    seed: int) -> dict[str, pd.DataFrame]:
    """:func:`evalkit.metrics.rating_errors` of each system (test pairs it does not predict
    left out, as the tables say)."""

    with shown_in_the_page():
        return {name: rating_errors(test, p, missing="drop", rng=seed)
                for name, p in predictions.items()}


def _classification_results(test: pd.DataFrame, predictions: Mapping[str, pd.DataFrame], *,
                            threshold: float, seed: int) -> dict[str, pd.DataFrame]:
    """:func:`evalkit.metrics.classification_scores` of each system at ``threshold``."""

    with shown_in_the_page(undefined=True):
        return {name: classification_scores(test, p, threshold=threshold, missing="drop",
                                            rng=seed)
                for name, p in predictions.items()}


def rating_error_summary(test: pd.DataFrame, predictions: Mapping[str, pd.DataFrame], *,
                         seed: int = 0, digits: int = 3) -> pd.DataFrame:
    """MAE and RMSE (over all predicted test ratings, and per user) as ``value [low, high]``
    per system, with 95% bootstrap intervals over users
    (:func:`evalkit.metrics.rating_errors`); the lowest error of each row marked ``*``."""
    results = _rating_results(test, predictions, seed=seed)
    return _interval_table(results, higher_is_better=False, digits=digits)


def _interval_headline(results: Mapping[str, pd.DataFrame], row: str, label: str
                       ) -> dict[str, object]:
    """``{"<label> <system>": value}`` from one row of each system's interval table, with
    ``[ci_low, ci_high]`` under ``"intervals"`` where finite (the index shows them)."""
    out: dict[str, object] = {}
    intervals: dict[str, list[float]] = {}
    for name, table in results.items():
        value, low, high = (float(table.at[row, c]) for c in ("value", "ci_low", "ci_high"))
        out[f"{label} {name}"] = value
        if np.isfinite(low) and np.isfinite(high):
            intervals[f"{label} {name}"] = [low, high]
    if intervals:
        out["intervals"] = intervals
    return out


def rating_headline(test: pd.DataFrame, predictions: Mapping[str, pd.DataFrame], *,
                    seed: int = 0) -> dict[str, object]:
    """The rating report's headline: each system's RMSE over its predicted test ratings, with
    its 95% bootstrap interval over users (:func:`evalkit.metrics.rating_errors`)."""
    results = _rating_results(test, predictions, seed=seed)
    return _interval_headline(results, "RMSE", "RMSE")


def classification_headline(test: pd.DataFrame, predictions: Mapping[str, pd.DataFrame], *,
                            threshold: float, seed: int = 0) -> dict[str, object]:
    """The classification report's headline: each system's F1 at ``threshold`` over its
    predicted test ratings, with its 95% bootstrap interval over users
    (:func:`evalkit.metrics.classification_scores`)."""
    results = _classification_results(test, predictions, threshold=threshold, seed=seed)
    return _interval_headline(results, "f1", "F1")


def classification_summary(test: pd.DataFrame, predictions: Mapping[str, pd.DataFrame], *,
                           threshold: float, seed: int = 0, digits: int = 3) -> pd.DataFrame:
    """Precision, recall and F1 at ``threshold`` as ``value [low, high]`` per system, with
    95% bootstrap intervals over users (:func:`evalkit.metrics.classification_scores`); the
    highest of each row marked ``*``."""
    results = _classification_results(test, predictions, threshold=threshold, seed=seed)
    return _interval_table(results, higher_is_better=True, digits=digits)


def _left_out(test: pd.DataFrame, predictions: Mapping[str, pd.DataFrame]) -> dict[str, int]:

    if not predictions:
        return {}
    return prediction_coverage(predictions, test)["without a prediction (left out)"].to_dict()


def rating_findings(test: pd.DataFrame, predictions: Mapping[str, pd.DataFrame], *,
                    seed: int = 0) -> str:
    """The findings the rating report opens with: the lowest MAE and RMSE with their
    intervals, where the intervals do not settle the order, and the test ratings each system
    leaves out (:func:`evalkit.report.table_findings`)."""

    if not predictions:
        return "## Findings\n\nNo system predicts ratings here: there is nothing to state."
    results = _rating_results(test, predictions, seed=seed)
    return table_findings(results, better={"MAE": "lower", "RMSE": "lower"},
                          left_out=_left_out(test, predictions))


def classification_findings(test: pd.DataFrame, predictions: Mapping[str, pd.DataFrame], *,
                            threshold: float, seed: int = 0) -> str:
    """The findings the classification report opens with: the highest precision, recall and
    F1 at ``threshold`` with their intervals, where the intervals do not settle the order,
    and the test ratings each system leaves out."""

    if not predictions:
        return "## Findings\n\nNo system predicts ratings here: there is nothing to state."
    results = _classification_results(test, predictions, threshold=threshold, seed=seed)
    return table_findings(results, better={"precision": "higher", "recall": "higher",
                                           "f1": "higher"},
                          labels={"precision": "precision", "recall": "recall", "f1": "F1"},
                          left_out=_left_out(test, predictions))


def correlation_table(test: pd.DataFrame, predictions: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Mean per-user Spearman and Kendall tau-b, and global FCP, by system.

    A system that predicts one value per user (such as the global mean) orders nothing: its
    correlations are undefined for every user and show as NaN.
    """

    rows = {}
    with shown_in_the_page(undefined=True):
        for name, p in predictions.items():
            rows[name] = {"Spearman": spearman(test, p, missing="drop").mean(),
                          "Kendall tau-b": kendall(test, p, missing="drop").mean(),
                          "FCP": fcp_global(test, p, missing="drop")}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "system"
    return out


def predicted_rows(test: pd.DataFrame, predictions: pd.DataFrame) -> pd.DataFrame:
    """The test rows that ``predictions`` has a prediction for (what its errors are over)."""
    keys = pd.MultiIndex.from_frame(predictions[["user_id", "item_id"]])
    return test[pd.MultiIndex.from_frame(test[["user_id", "item_id"]]).isin(keys)]


def confusion_table(test: pd.DataFrame, predictions: Mapping[str, pd.DataFrame], *,
                    threshold: float) -> pd.DataFrame:
    """Confusion counts, precision, recall and F1 at ``threshold``, one row per system, over
    the test ratings each system predicts."""
    return threshold_table(test, predictions, thresholds=[threshold]).droplevel("threshold")


def threshold_table(test: pd.DataFrame, predictions: Mapping[str, pd.DataFrame], *,
                    thresholds: Sequence[float]) -> pd.DataFrame:
    """:func:`evalkit.metrics.tables.classification_by_threshold` for every system."""

    with shown_in_the_page():
        return pd.concat({name: classification_by_threshold(predicted_rows(test, p), p,
                                                             thresholds=thresholds)
                          for name, p in predictions.items()}, names=["system"])


def topk_confusion_table(test: pd.DataFrame, systems: Mapping[str, pd.DataFrame], *, k: int,
                         threshold: float | None) -> pd.DataFrame:
    """Confusion counts with each user's top-k list as the predicted-relevant items, and the
    precision and recall they give, one row per system."""

    rows = {}
    with shown_in_the_page():
        for name, recs in systems.items():
            c = confusion_at_k(test, recs, k=k, threshold=threshold)
            tp, fp, fn = (int(c[x]) for x in ("TP", "FP", "FN"))
            rows[name] = {**{x: int(c[x]) for x in c.index},
                          "precision": tp / (tp + fp) if tp + fp else np.nan,
                          "recall": tp / (tp + fn) if tp + fn else np.nan}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "system"
    return out


def beyond_table(inputs, systems: Mapping[str, pd.DataFrame], *, k: int,
                 threshold: float | None) -> pd.DataFrame:
    """Every beyond-accuracy metric of each system's top-k lists, one row per system.

    Intra-list diversity needs item genres: without an item table (``ITEMS``) it is NaN.
    """

    items = inputs.items
    if items is None:
        items = pd.DataFrame({"item_id": pd.unique(inputs.ratings["item_id"])}).assign(
            genres=lambda f: [[]] * len(f))
    with shown_in_the_page():
        out = pd.DataFrame({name: beyond_accuracy(inputs.test, recs, train=inputs.train,
                                                  items=items, k=k, threshold=threshold)
                            for name, recs in systems.items()}).T
    if inputs.items is None:
        out["intra_list_diversity"] = np.nan
    out.index.name = "system"
    return out


def beyond_summary(inputs, systems: Mapping[str, pd.DataFrame], *, k: int,
                   threshold: float | None, seed: int = 0, digits: int = 3) -> pd.DataFrame:
    """The per-user beyond-accuracy metrics (novelty, popularity of the recommended items,
    intra-list diversity with an item table, serendipity) and personalization (a mean over
    pairs of users) as ``mean [low, high]`` per system, with 95% bootstrap intervals over
    users (:func:`evalkit.metrics.tables.beyond_intervals`,
    :func:`evalkit.metrics.tables.list_intervals`). Nothing is marked best: more novel is not
    better in itself."""

    with shown_in_the_page():
        results = {name: pd.concat([
            beyond_intervals(inputs.test, recs, train=inputs.train, items=inputs.items, k=k,
                             threshold=threshold, rng=seed),
            list_intervals(recs, train=inputs.train, k=k, rng=seed).loc[["personalization"]],
        ]).rename(columns={"mean": "value", "n": "n_users"}) for name, recs in systems.items()}
    return _interval_table(results, higher_is_better=None, digits=digits, counts=("n_users",))


def beyond_findings(inputs, systems: Mapping[str, pd.DataFrame], beyond: pd.DataFrame, *,
                    k: int, threshold: float | None, seed: int = 0) -> str:
    """The findings the beyond-accuracy report opens with: the range of catalog coverage,
    novelty and diversity across systems (none is better in itself), and the highest
    serendipity with its interval (:func:`evalkit.report.table_findings`)."""

    if not systems:
        return "## Findings\n\nNo system to describe here."
    with shown_in_the_page():
        results = {}
        for name, recs in systems.items():  # one step per system
            table = beyond_intervals(inputs.test, recs, train=inputs.train, items=inputs.items,
                                     k=k, threshold=threshold, rng=seed)
            whole = pd.DataFrame({"mean": [beyond.at[name, "catalog_coverage"]],
                                  "ci_low": [np.nan], "ci_high": [np.nan]},
                                 index=["catalog_coverage"])
            results[name] = pd.concat([whole, table[["mean", "ci_low", "ci_high"]]])
    better = {"catalog_coverage": None, "novelty": None, "intra_list_diversity": None,
              "serendipity": "higher"}
    labels = {"catalog_coverage": "catalog coverage", "novelty": "novelty (bits)",
              "intra_list_diversity": "intra-list diversity", "serendipity": "serendipity"}
    return table_findings(results, better=better, labels=labels)


def ranking_headline(evaluations: Mapping[str, object], *, metric: str, k: int
                     ) -> dict[str, object]:
    """The ranking report's headline numbers: ``metric@k`` of each system (where its
    evaluation has it), and under ``"intervals"`` each one's bootstrap interval ``[low,
    high]``, which the report index shows beside it."""
    column = f"{metric}@{k}"
    out: dict[str, object] = {}
    intervals: dict[str, list[float]] = {}
    for name, evaluation in evaluations.items():
        if column not in evaluation.summary.index:
            continue
        info = evaluation.summary.loc[column]
        out[f"{column} {name}"] = float(info["mean"])
        if np.isfinite(info["ci_low"]) and np.isfinite(info["ci_high"]):
            intervals[f"{column} {name}"] = [float(info["ci_low"]), float(info["ci_high"])]
    if intervals:
        out["intervals"] = intervals
    return out


def tradeoff_points(evaluations: Mapping[str, object], beyond: pd.DataFrame, *,
                    column: str) -> pd.DataFrame:
    """One row per system: the mean of ``column`` (e.g. ``"ndcg@10"``) with its interval
    (``<column>_low``, ``<column>_high``) beside every beyond-accuracy column of ``beyond``
    (:func:`beyond_table`), for :func:`evalkit.plots.accuracy_tradeoff`."""
    rows = {}
    for name, evaluation in evaluations.items():
        info = evaluation.summary.loc[column]
        rows[name] = {column: info["mean"], f"{column}_low": info["ci_low"],
                      f"{column}_high": info["ci_high"]}
    points = pd.DataFrame.from_dict(rows, orient="index")
    points = points.join(beyond, how="left")
    points.index.name = "system"
    return points


class SampleLists:
    """A table of a few users' lists, shown as a searchable HTML table (see
    :func:`sample_lists`); ``frame`` holds the same rows as a DataFrame."""

    _SCRIPT = (
        "<script>(function(){{var box=document.getElementById('{id}-q'),"
        "rows=document.querySelectorAll('#{id} tbody tr');box.addEventListener('input',"
        "function(){{var q=box.value.toLowerCase();rows.forEach(function(r){{"
        "r.style.display=r.textContent.toLowerCase().indexOf(q)<0?'none':'';}});}});}})();"
        "</script>")

    def __init__(self, frame: pd.DataFrame, cells: list[list[str]], caption: str,
                 search: str = "title, user or system") -> None:
        self.frame = frame
        self._cells = cells
        self._caption = caption
        self._search = search

    def _repr_html_(self) -> str:
        import hashlib
        import html

        ident = "evalkit-lists-" + hashlib.sha256(
            repr(self._cells).encode("utf-8")).hexdigest()[:10]
        head = "".join(f"<th style='text-align: left'>{html.escape(c)}</th>"
                       for c in self.frame.columns)
        style = ["text-align: left; vertical-align: top"] * 3 + [
            "text-align: left; vertical-align: top; min-width: 20em"] * 2
        body = "".join("<tr>" + "".join(f"<td style='{css}'>{cell}</td>"
                                        for css, cell in zip(style, row)) + "</tr>"
                       for row in self._cells)
        return (f"<div><p>{html.escape(self._caption)}</p>"
                f"<label>Search the lists: <input id='{ident}-q' type='search' "
                f"placeholder='{html.escape(self._search)}'></label>"
                f"<table id='{ident}' class='dataframe'><thead><tr>{head}</tr></thead>"
                f"<tbody>{body}</tbody></table></div>" + self._SCRIPT.format(id=ident))

    def __repr__(self) -> str:
        return self._caption + "\n" + self.frame.to_string(index=False)


def sample_lists(inputs, systems: Mapping[str, pd.DataFrame], *, k: int, users: int = 5,
                 threshold: float | None = 4.0, seed: int = 0) -> SampleLists:
    """The top-k lists of a few test users, one row per (user, system), with each user's test
    items, for reading the lists themselves.

    Items show their title where the dataset has one (else their id); an item of the list
    that is a relevant test item of the user is marked ``✓`` (rated at least ``threshold``,
    or any test item when it is None), one the user rated lower ``·``. The users are a
    seeded sample of the test users (``users`` of them). In a notebook or an HTML report the
    table has a search box that filters its rows as you type (a few lines of inline script;
    nothing is fetched).
    """
    import html


    test = inputs.test
    titles: dict = {}
    items = getattr(inputs, "items", None)
    if items is not None and "title" in items.columns:
        titles = dict(zip(items["item_id"], items["title"].astype(str)))
    pool = np.sort(pd.unique(test["user_id"]))
    chosen = np.sort(np.random.default_rng(seed).choice(pool, min(users, len(pool)),
                                                        replace=False))
    mine = test[test["user_id"].isin(chosen)]
    has_rating = "rating" in mine.columns
    rated = {(u, i): (r if has_rating else None) for u, i, r in zip(
        mine["user_id"], mine["item_id"], mine["rating"] if has_rating else [None] * len(mine))}

    def relevant(rating: object) -> bool:
        return threshold is None or rating is None or rating >= threshold

    def name(item: object) -> str:
        return titles.get(item, str(item))

    rows, cells = [], []
    for user in chosen:  # a handful of users, by design
        truth_items = [(i, r) for (u, i), r in rated.items() if u == user]
        shown = "; ".join(f"{name(i)}" + ("" if r is None else f" ({r:g})")
                          for i, r in sorted(truth_items, key=lambda t: str(name(t[0]))))
        for system, frame in systems.items():
            frame = check_recs(frame, func="sample_lists", arg=f"systems[{system!r}]")
            mine_recs = frame[frame["user_id"] == user]
            if "rank" in mine_recs.columns:
                top = mine_recs.sort_values(["rank", "item_id"]).head(k)
            else:
                top = mine_recs.sort_values(["score", "item_id"], ascending=[False, True]).head(k)
            marks, plain = [], []
            for item in top["item_id"]:
                key = (user, item)
                mark = "" if key not in rated else (" ✓" if relevant(rated[key]) else " ·")
                plain.append(name(item) + mark)
                text = html.escape(name(item))
                marks.append(f"<b>{text} ✓</b>" if mark == " ✓" else
                             f"<i>{text} ·</i>" if mark else text)
            hits = sum(m.endswith("✓") for m in plain)
            rows.append({"user": user, "system": system, "hits": hits,
                         "list": "; ".join(plain), "test items": shown})
            numbered = "<br>".join(f"{r}. {m}" for r, m in enumerate(marks, start=1))
            cells.append([html.escape(str(user)), html.escape(str(system)), str(hits),
                          numbered or "<i>no list</i>", html.escape(shown)])
    legend = ("✓ a test item of the user" if threshold is None else
              f"✓ a relevant test item of the user (rated at least {threshold:g}), · a test "
              "item the user rated lower")
    caption = (f"Each system's top {k} for {len(chosen)} test users chosen at random "
               f"(seed {seed}): "
               f"{legend}; the last column is the user's test items"
               f"{' with their ratings' if has_rating else ''}.")
    return SampleLists(pd.DataFrame(rows, columns=["user", "system", "hits", "list",
                                                   "test items"]), cells, caption,
                       search=("title" if titles else "item id") + ", user or system")


def test_users_by_activity(splits: Mapping[str, object]) -> pd.DataFrame:
    """Test users by their number of training interactions (activity bins), one column per
    split."""

    return pd.DataFrame({
        name: user_activity_bins(split.train, users=split.test["user_id"].unique())
        .value_counts().sort_index()
        for name, split in splits.items()
    }).fillna(0).astype(int)


def cross_validate_baselines(ratings: pd.DataFrame, baselines: Sequence[str], *, folds: int,
                             k: Sequence[int], metrics: Sequence[str],
                             threshold: float | None = 4.0, seed: int = 0,
                             profile: str | None = None) -> pd.DataFrame:
    """:func:`evalkit.cross_validate` of every named baseline (default hyperparameters),
    one block of rows per baseline; an empty table when none is named."""

    if not baselines:
        return pd.DataFrame()

    def factory(name: str):
        return (lambda: MODELS[name](rng=seed)) if name == "Random" else MODELS[name]

    with shown_in_the_page():
        return pd.concat({
            name: cross_validate(factory(name), ratings, folds=folds, k=list(k),
                                 metrics=list(metrics), threshold=threshold, progress=False,
                                 rng=seed,
                                 definitions=report_definitions(profile, threshold)).summary
            for name in baselines
        }, names=["system"])


def cv_split_table(cv: pd.DataFrame, evaluations: Mapping[str, object], *,
                   digits: int = 3) -> pd.DataFrame:
    """Cross-validation beside the single split, for every (system, metric@k) in both:
    ``folds`` (mean of the fold means with its t-interval over folds), ``split`` (the mean over
    the split's test users with its bootstrap interval) and ``folds - split``, so the two can
    be reconciled (the cross-validation note gives the reasons they differ: training share,
    test interactions per user). Empty when there is no cross-validation."""
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
    cross-validation to show (empty otherwise)."""
    if cv is None or cv.empty:
        return ""
    return ("The same baselines on the single split (with bootstrap intervals over its test "
            "users) beside the folds, and the difference of the two means, which the reasons "
            "above produce even for one and the same system.")


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
    without a table)."""
    if table is None or "mde" not in table.columns:
        return 0
    rows = table[(table["column"] == column) & table["against"].notna()]
    return int((~rows["significant"].astype(bool) & np.isfinite(rows["mde"].astype(float))
                & (rows["mde"].astype(float) > 0)).sum())


def detectable_note(table: pd.DataFrame | None, column: str) -> str:
    """The sentence before the chart of what each undecided pair's test could have detected
    (:func:`evalkit.plots.detectable_differences`), saying what it shows exactly when it is
    drawn (:func:`undecided_pairs`), else why there is none; empty without pairs."""

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
    with one system (``table`` None) or no test, what there was to compare."""
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
    """
    if table is None:
        return None

    return Comparison(table).readable(digits=digits)


def library_table(test: pd.DataFrame, recs: pd.DataFrame, *, k: int,
                  threshold: float | None = 4.0, train: pd.DataFrame | None = None,
                  digits: int = 4) -> pd.DataFrame:
    """What each library would report for these lists: per profile (:data:`evalkit.PROFILES`)
    the mean at ``k`` of every metric it reproduces, computed by :func:`evalkit.evaluate`
    with that profile's definitions (blank where the library has no such metric).

    The same recommendations, the same test truth and the same relevance threshold: every
    difference in a column is a difference of definitions, which :func:`profile_table` lists.
    """

    rows = {}
    with shown_in_the_page():
        # the compiled metrics of relevant items: half-life utility (of ratings, not of
        # relevance) and the metrics from hits (the first relevant rank, metrics of your
        # own) are evalkit's alone, not compared here
        shared = [m for m, metric in RANKING_METRICS.items()
                  if metric.kernel and "threshold" in metric.reads]
        for name, entry in PROFILES.items():
            metrics = [m for m in shared if entry.covers(m)]
            result = evaluate(test, recs, k=k, metrics=metrics, threshold=threshold,
                              train=train, definitions=name, n_resamples=0)
            rows[name] = {
                RANKING_METRICS[m].label + (f"@{k}" if RANKING_METRICS[m].at_k else ""):
                    result.mean(m, k if RANKING_METRICS[m].at_k else None)
                for m in metrics
            }
    order = [RANKING_METRICS[m].label + (f"@{k}" if RANKING_METRICS[m].at_k else "")
             for m in RANKING_METRICS if m in shared]
    table = pd.DataFrame.from_dict(rows, orient="index")
    table = table[[c for c in order if c in table.columns]].round(digits)
    table.index.name = "profile"
    return table


def profile_table() -> pd.DataFrame:
    """Each profile's library, version and the definitions where it differs from evalkit's."""

    def changes(entry) -> str:
        d = entry.definitions
        parts = [f"{k}={v!r}" for k, v in d.changed().items()]
        parts += [f"{m}: " + ", ".join(f"{k}={v!r}" for k, v in c.items())
                  for m, c in d.per_metric.items()]
        return "; ".join(parts) or "(evalkit's definitions)"

    table = pd.DataFrame({
        "library": [p.library for p in PROFILES.values()],
        "version": [p.version for p in PROFILES.values()],
        "definitions": [changes(p) for p in PROFILES.values()],
    }, index=pd.Index(list(PROFILES), name="profile"))
    return table


def show(table: pd.DataFrame, *, digits: int = 4):
    """``table`` for display: ``digits`` decimals, blanks for missing values and text columns
    aligned left, with a stable HTML id (so a re-run renders the same page)."""
    import hashlib

    key = hashlib.sha256("|".join(map(str, table.columns)).encode()).hexdigest()[:8]
    styler = table.style.format(precision=digits, na_rep="").set_uuid(f"t{key}")
    text = [c for c in table.columns if not pd.api.types.is_numeric_dtype(table[c].dtype)]
    if text:
        styler = styler.set_properties(subset=text, **{"text-align": "left"})
    return styler
