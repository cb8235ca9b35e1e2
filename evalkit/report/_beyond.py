"""The beyond-accuracy page: the metrics per system with intervals, their summary and findings, and
the accuracy trade-off."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._docstrings import fill_doc
from ..metrics.tables import (
    beyond_accuracy,
    beyond_intervals,
    list_intervals,
    sharing_training,
)
from ._docs import REPORT_DOCS
from ._findings import table_findings
from ._quiet import shown_in_the_page
from ._show import interval_table

__all__ = ["beyond_findings", "beyond_summary", "beyond_table", "tradeoff_points"]


@fill_doc(REPORT_DOCS)
def beyond_table(inputs, systems: Mapping[str, pd.DataFrame], *, k: int,
                 threshold: float | None) -> pd.DataFrame:
    """Every beyond-accuracy metric of each system's top-k lists, one row per system.

    Intra-list diversity needs item genres: without an item table (``ITEMS``) it is NaN.

    Parameters
    ----------
    %(inputs)s
    %(systems)s
    %(k_lists)s
    %(threshold_given)s
    """

    items = inputs.items
    if items is None:
        items = pd.DataFrame({"item_id": inputs.item_ids()}).assign(
            genres=lambda f: [[]] * len(f))
    with shown_in_the_page(), _sharing_training(inputs):
        out = pd.DataFrame({name: beyond_accuracy(inputs.test, recs, train=inputs.train,
                                                  items=items, k=k, threshold=threshold)
                            for name, recs in systems.items()}).T
    if inputs.items is None:
        out["intra_list_diversity"] = np.nan
    out.index.name = "system"
    return out


def _sharing_training(inputs):
    """A :func:`~evalkit.metrics.tables.sharing_training` block over the report's training
    data whose findings (its distinct pairs, its items' popularity) are kept with ``inputs``
    for the page's later blocks."""
    return sharing_training(inputs.train, inputs.__dict__.setdefault("_training_memo", {}))


def _intervals(inputs, recs: pd.DataFrame, *, k: int, threshold: float | None,
               seed: int) -> pd.DataFrame:
    """:func:`evalkit.metrics.tables.beyond_intervals` of one system's lists on the report's
    data, computed once for the findings and the summary table (kept with ``inputs``, under
    the lists themselves)."""
    memo = inputs.__dict__.setdefault("_beyond_intervals", {})
    key = (id(recs), k, threshold, seed)
    if key not in memo or memo[key][0] is not recs:
        with _sharing_training(inputs):
            memo[key] = (recs, beyond_intervals(inputs.test, recs, train=inputs.train,
                                                items=inputs.items, k=k,
                                                threshold=threshold, rng=seed))
    return memo[key][1].copy()


@fill_doc(REPORT_DOCS)
def beyond_summary(inputs, systems: Mapping[str, pd.DataFrame], *, k: int,
                   threshold: float | None, seed: int = 0, digits: int = 3) -> pd.DataFrame:
    """The per-user beyond-accuracy metrics (novelty, popularity of the recommended items,
    intra-list diversity with an item table, serendipity) and personalization (a mean over
    pairs of users) as ``mean [low, high]`` per system, with 95% bootstrap intervals over
    users (:func:`evalkit.metrics.tables.beyond_intervals`,
    :func:`evalkit.metrics.tables.list_intervals`). Nothing is marked best: more novel is not
    better in itself.

    Parameters
    ----------
    %(inputs)s
    %(systems)s
    %(k_lists)s
    %(threshold_given)s
    %(seed)s
    digits : int, default 3
        Decimals shown.
    """

    with shown_in_the_page(), _sharing_training(inputs):
        results = {name: pd.concat([
            _intervals(inputs, recs, k=k, threshold=threshold, seed=seed),
            list_intervals(recs, train=inputs.train, k=k, rng=seed).loc[["personalization"]],
        ]).rename(columns={"mean": "value", "n": "n_users"}) for name, recs in systems.items()}
    return interval_table(results, higher_is_better=None, digits=digits, counts=("n_users",))


@fill_doc(REPORT_DOCS)
def beyond_findings(inputs, systems: Mapping[str, pd.DataFrame], beyond: pd.DataFrame, *,
                    k: int, threshold: float | None, seed: int = 0) -> str:
    """The findings the beyond-accuracy report opens with: the range of catalog coverage,
    novelty and diversity across systems (none is better in itself), and the highest
    serendipity with its interval (:func:`evalkit.report.table_findings`).

    Parameters
    ----------
    %(inputs)s
    %(systems)s
    beyond : pandas.DataFrame
        :func:`beyond_table` of the same systems (its catalog coverage).
    %(k_lists)s
    %(threshold_given)s
    %(seed)s
    """

    if not systems:
        return "## Findings\n\nNo system to describe here."
    with shown_in_the_page():
        results = {}
        for name, recs in systems.items():  # one step per system
            table = _intervals(inputs, recs, k=k, threshold=threshold, seed=seed)
            whole = pd.DataFrame({"mean": [beyond.at[name, "catalog_coverage"]],
                                  "ci_low": [np.nan], "ci_high": [np.nan]},
                                 index=["catalog_coverage"])
            results[name] = pd.concat([whole, table[["mean", "ci_low", "ci_high"]]])
    better = {"catalog_coverage": None, "novelty": None, "intra_list_diversity": None,
              "serendipity": "higher"}
    labels = {"catalog_coverage": "catalog coverage", "novelty": "novelty (bits)",
              "intra_list_diversity": "intra-list diversity", "serendipity": "serendipity"}
    return table_findings(results, better=better, labels=labels)


@fill_doc(REPORT_DOCS)
def tradeoff_points(evaluations: Mapping[str, object], beyond: pd.DataFrame, *,
                    column: str) -> pd.DataFrame:
    """One row per system: the mean of ``column`` (e.g. ``"ndcg@10"``) with its interval
    (``<column>_low``, ``<column>_high``) beside every beyond-accuracy column of ``beyond``
    (:func:`beyond_table`), for :func:`evalkit.plots.accuracy_tradeoff`.

    Parameters
    ----------
    %(evaluations)s
    beyond : pandas.DataFrame
        :func:`beyond_table` of the same systems.
    column : str
        The accuracy metric@k to set against them (e.g. ``"ndcg@10"``).
    """
    rows = {}
    for name, evaluation in evaluations.items():
        info = evaluation.summary.loc[column]
        rows[name] = {column: info["mean"], f"{column}_low": info["ci_low"],
                      f"{column}_high": info["ci_high"]}
    points = pd.DataFrame.from_dict(rows, orient="index")
    points = points.join(beyond, how="left")
    points.index.name = "system"
    return points
