"""The rating-prediction and classification pages: errors with intervals, correlations, confusion
tables by threshold and at a cutoff, their headlines and findings."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from .._checks import pairs_in
from .._docstrings import fill_doc
from ..metrics import (
    classification_scores,
    confusion_at_k,
    fcp_global,
    kendall,
    mae,
    rating_errors,
    rmse,
    spearman,
)
from ..metrics.tables import (
    classification_by_threshold,
)
from ._docs import REPORT_DOCS
from ._findings import table_findings
from ._inputs import prediction_coverage
from ._quiet import shown_in_the_page
from ._show import interval_table

__all__ = ["classification_findings", "classification_headline", "classification_summary",
           "confusion_table", "correlation_table", "predicted_rows",
           "rating_error_summary", "rating_error_table", "rating_findings",
           "rating_headline", "threshold_table", "topk_confusion_table"]


@fill_doc(REPORT_DOCS)
def rating_error_table(test: pd.DataFrame, predictions: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """MAE and RMSE over all predicted test ratings (micro) and per user (macro), by system.

    Test ratings a system does not predict are left out of its errors (the coverage table
    counts them).

    Parameters
    ----------
    %(test_predictions)s
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


@fill_doc(REPORT_DOCS)
def rating_error_summary(test: pd.DataFrame, predictions: Mapping[str, pd.DataFrame], *,
                         seed: int = 0, digits: int = 3) -> pd.DataFrame:
    """MAE and RMSE (over all predicted test ratings, and per user) as ``value [low, high]``
    per system, with 95% bootstrap intervals over users
    (:func:`evalkit.metrics.rating_errors`); the lowest error of each row marked ``*``.

    Parameters
    ----------
    %(test_predictions)s
    %(seed)s
    digits : int, default 3
        Decimals shown.
    """
    results = _rating_results(test, predictions, seed=seed)
    return interval_table(results, higher_is_better=False, digits=digits)


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


@fill_doc(REPORT_DOCS)
def rating_headline(test: pd.DataFrame, predictions: Mapping[str, pd.DataFrame], *,
                    seed: int = 0) -> dict[str, object]:
    """The rating report's headline: each system's RMSE over its predicted test ratings, with
    its 95% bootstrap interval over users (:func:`evalkit.metrics.rating_errors`).

    Parameters
    ----------
    %(test_predictions)s
    %(seed)s
    """
    results = _rating_results(test, predictions, seed=seed)
    return _interval_headline(results, "RMSE", "RMSE")


@fill_doc(REPORT_DOCS)
def classification_headline(test: pd.DataFrame, predictions: Mapping[str, pd.DataFrame], *,
                            threshold: float, seed: int = 0) -> dict[str, object]:
    """The classification report's headline: each system's F1 at ``threshold`` over its
    predicted test ratings, with its 95% bootstrap interval over users
    (:func:`evalkit.metrics.classification_scores`).

    Parameters
    ----------
    %(test_predictions)s
    %(rating_threshold)s
    %(seed)s
    """
    results = _classification_results(test, predictions, threshold=threshold, seed=seed)
    return _interval_headline(results, "f1", "F1")


@fill_doc(REPORT_DOCS)
def classification_summary(test: pd.DataFrame, predictions: Mapping[str, pd.DataFrame], *,
                           threshold: float, seed: int = 0, digits: int = 3) -> pd.DataFrame:
    """Precision, recall and F1 at ``threshold`` as ``value [low, high]`` per system, with
    95% bootstrap intervals over users (:func:`evalkit.metrics.classification_scores`); the
    highest of each row marked ``*``.

    Parameters
    ----------
    %(test_predictions)s
    %(rating_threshold)s
    %(seed)s
    digits : int, default 3
        Decimals shown.
    """
    results = _classification_results(test, predictions, threshold=threshold, seed=seed)
    return interval_table(results, higher_is_better=True, digits=digits)


def _left_out(test: pd.DataFrame, predictions: Mapping[str, pd.DataFrame]) -> dict[str, int]:

    if not predictions:
        return {}
    return prediction_coverage(predictions, test)["without a prediction (left out)"].to_dict()


@fill_doc(REPORT_DOCS)
def rating_findings(test: pd.DataFrame, predictions: Mapping[str, pd.DataFrame], *,
                    seed: int = 0) -> str:
    """The findings the rating report opens with: the lowest MAE and RMSE with their
    intervals, where the intervals do not settle the order, and the test ratings each system
    leaves out (:func:`evalkit.report.table_findings`).

    Parameters
    ----------
    %(test_predictions)s
    %(seed)s
    """

    if not predictions:
        return "## Findings\n\nNo system predicts ratings here: there is nothing to state."
    results = _rating_results(test, predictions, seed=seed)
    return table_findings(results, better={"MAE": "lower", "RMSE": "lower"},
                          left_out=_left_out(test, predictions))


@fill_doc(REPORT_DOCS)
def classification_findings(test: pd.DataFrame, predictions: Mapping[str, pd.DataFrame], *,
                            threshold: float, seed: int = 0) -> str:
    """The findings the classification report opens with: the highest precision, recall and
    F1 at ``threshold`` with their intervals, where the intervals do not settle the order,
    and the test ratings each system leaves out.

    Parameters
    ----------
    %(test_predictions)s
    %(rating_threshold)s
    %(seed)s
    """

    if not predictions:
        return "## Findings\n\nNo system predicts ratings here: there is nothing to state."
    results = _classification_results(test, predictions, threshold=threshold, seed=seed)
    return table_findings(results, better={"precision": "higher", "recall": "higher",
                                           "f1": "higher"},
                          labels={"precision": "precision", "recall": "recall", "f1": "F1"},
                          left_out=_left_out(test, predictions))


@fill_doc(REPORT_DOCS)
def correlation_table(test: pd.DataFrame, predictions: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Mean per-user Spearman and Kendall tau-b, and global FCP, by system.

    A system that predicts one value per user (such as the global mean) orders nothing: its
    correlations are undefined for every user and show as NaN.

    Parameters
    ----------
    %(test_predictions)s
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


@fill_doc(REPORT_DOCS)
def predicted_rows(test: pd.DataFrame, predictions: pd.DataFrame) -> pd.DataFrame:
    """The test rows that ``predictions`` has a prediction for (what its errors are over).

    Parameters
    ----------
    %(test_ratings)s
    predictions : pandas.DataFrame
        One system's predictions (``user_id, item_id, prediction``).
    """
    return test[pairs_in(test, predictions)]


@fill_doc(REPORT_DOCS)
def confusion_table(test: pd.DataFrame, predictions: Mapping[str, pd.DataFrame], *,
                    threshold: float) -> pd.DataFrame:
    """Confusion counts, precision, recall and F1 at ``threshold``, one row per system, over
    the test ratings each system predicts.

    Parameters
    ----------
    %(test_predictions)s
    %(rating_threshold)s
    """
    return threshold_table(test, predictions, thresholds=[threshold]).droplevel("threshold")


@fill_doc(REPORT_DOCS)
def threshold_table(test: pd.DataFrame, predictions: Mapping[str, pd.DataFrame], *,
                    thresholds: Sequence[float]) -> pd.DataFrame:
    """:func:`evalkit.metrics.tables.classification_by_threshold` for every system.

    Parameters
    ----------
    %(test_predictions)s
    thresholds : sequence of float
        The thresholds: at each, a rating, true or predicted, is relevant when it is at least
        the threshold.
    """

    with shown_in_the_page():
        return pd.concat({name: classification_by_threshold(predicted_rows(test, p), p,
                                                             thresholds=thresholds)
                          for name, p in predictions.items()}, names=["system"])


@fill_doc(REPORT_DOCS)
def topk_confusion_table(test: pd.DataFrame, systems: Mapping[str, pd.DataFrame], *, k: int,
                         threshold: float | None) -> pd.DataFrame:
    """Confusion counts with each user's top-k list as the predicted-relevant items, and the
    precision and recall they give, one row per system.

    Parameters
    ----------
    %(test_interactions)s
    %(systems)s
    %(k_lists)s
    %(threshold_given)s
    """

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
