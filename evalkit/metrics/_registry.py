"""The metric registry: one place that names every metric, its function and its properties.

``evaluate`` (and through it the command line), :func:`~evalkit.metrics.definition_cards`,
the report and the unknown-name error messages read it. ``evaluate`` takes only the ranking
metrics; the other families are here for lookup by name (:func:`get_metric`). The ranking
tests (properties, ties, errors, the naive reference) run over every name in
:data:`RANKING_METRICS`. A new ranking metric also needs a method of its name on
:class:`~evalkit.metrics._curves.RankingCurves` (``evaluate`` calls it), a card in
:mod:`evalkit.metrics.cards` and an entry in ``tests/metrics/naive.py``; the card and
reference tests fail until it has them.

Ranking metrics use their short names (``precision``, ``map``, ``ndcg``, ...); the other
families keep their function names. The classification functions ``precision``, ``recall``
and ``f1`` of :mod:`evalkit.metrics.classification` compute one number from a confusion table,
not per-user values, and are not registered, so those names mean the ranking metrics.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import beyond, correlation, ranking, rating

__all__ = ["METRICS", "RANKING_METRICS", "Metric", "get_metric"]


@dataclass(frozen=True)
class Metric:
    """A registered metric.

    Attributes
    ----------
    name : str
        Registry name (``"ndcg"``), used in ``evaluate(metrics=...)`` and in column names.
    func : callable
        The public per-user function.
    label : str
        Display label for tables and plots (``"NDCG"``; ``@k`` is appended where it applies).
    family : str
        ``"ranking"``, ``"rating"``, ``"classification"``, ``"correlation"`` or ``"beyond"``.
    bounds : tuple of float
        Smallest and largest possible per-user value.
    higher_is_better : bool
        Direction of improvement.
    at_k : bool
        Whether the metric takes a cutoff ``k``.
    per_user : bool
        Whether ``func`` returns per-user values (a Series) or one number for the system.
    inputs : tuple of str
        What ``func`` takes, in order: ``truth``, ``recs``, ``predictions``, ``train``,
        ``items``.
    """

    name: str
    func: Callable
    label: str
    family: str
    bounds: tuple[float, float] = (0.0, 1.0)
    higher_is_better: bool = True
    at_k: bool = True
    per_user: bool = True
    inputs: tuple[str, ...] = ("truth", "recs")


_RANKING = (
    Metric("precision", ranking.precision_at_k, "P", "ranking"),
    Metric("recall", ranking.recall_at_k, "R", "ranking"),
    Metric("f1", ranking.f1_at_k, "F1", "ranking"),
    Metric("hit_rate", ranking.hit_rate_at_k, "HR", "ranking"),
    Metric("r_precision", ranking.r_precision, "R-Prec", "ranking", at_k=False),
    Metric("r_precision_at_k", ranking.r_precision_at_k, "R-Prec", "ranking"),
    Metric("map", ranking.average_precision_at_k, "MAP", "ranking"),
    Metric("mrr", ranking.reciprocal_rank_at_k, "MRR", "ranking"),
    Metric("dcg", ranking.dcg_at_k, "DCG", "ranking", bounds=(0.0, float("inf"))),
    Metric("ndcg", ranking.ndcg_at_k, "NDCG", "ranking"),
    Metric("half_life_utility", ranking.half_life_utility, "HLU", "ranking"),
)

_INF = float("inf")
_PRED = ("truth", "predictions")
_OTHERS = (
    Metric("mae", rating.mae_per_user, "MAE", "rating", (0.0, _INF), False, False, inputs=_PRED),
    Metric("rmse", rating.rmse_per_user, "RMSE", "rating", (0.0, _INF), False, False, inputs=_PRED),
    Metric("spearman", correlation.spearman, "Spearman", "correlation", (-1.0, 1.0), at_k=False,
           inputs=_PRED),
    Metric("kendall", correlation.kendall, "Kendall", "correlation", (-1.0, 1.0), at_k=False,
           inputs=_PRED),
    Metric("fcp", correlation.fcp, "FCP", "correlation", at_k=False, inputs=_PRED),
    Metric("fcp_global", correlation.fcp_global, "FCP (global)", "correlation", at_k=False,
           per_user=False, inputs=_PRED),
    Metric("novelty", beyond.novelty, "Novelty", "beyond", (0.0, _INF), inputs=("recs", "train")),
    Metric("intra_list_diversity", beyond.intra_list_diversity, "ILD", "beyond",
           inputs=("recs", "items")),
    Metric("serendipity", beyond.serendipity, "Serendipity", "beyond",
           inputs=("truth", "recs", "train")),
    Metric("catalog_coverage", beyond.catalog_coverage, "Catalog coverage", "beyond",
           per_user=False, inputs=("recs",)),
    Metric("user_coverage", beyond.user_coverage, "User coverage", "beyond", per_user=False),
    Metric("gini_index", beyond.gini_index, "Gini", "beyond", higher_is_better=False,
           per_user=False, inputs=("recs",)),
)

RANKING_METRICS: dict[str, Metric] = {m.name: m for m in _RANKING}
METRICS: dict[str, Metric] = RANKING_METRICS | {m.name: m for m in _OTHERS}


def get_metric(name: object, *, func: str) -> Metric:
    """Look up a metric by registry name; unknown names list the valid ones."""
    if not isinstance(name, str) or name not in METRICS:
        valid = ", ".join(METRICS)
        raise ValueError(f"{func}: unknown metric {name!r}; valid metrics are {valid}.")
    return METRICS[name]
