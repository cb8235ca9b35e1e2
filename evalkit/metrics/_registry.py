"""The metric registry: one place that names every metric, its function and its properties.

``evaluate``, the command line, the property tests and the error messages all read it, so a
metric added here is validated, documented in messages and covered by the common tests.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import ranking

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
    """

    name: str
    func: Callable
    label: str
    family: str
    bounds: tuple[float, float] = (0.0, 1.0)
    higher_is_better: bool = True
    at_k: bool = True


_RANKING = (
    Metric("precision", ranking.precision_at_k, "P", "ranking"),
    Metric("recall", ranking.recall_at_k, "R", "ranking"),
    Metric("f1", ranking.f1_at_k, "F1", "ranking"),
    Metric("hit_rate", ranking.hit_rate_at_k, "HR", "ranking"),
    Metric("r_precision", ranking.r_precision, "R-Prec", "ranking", at_k=False),
    Metric("map", ranking.average_precision_at_k, "MAP", "ranking"),
    Metric("mrr", ranking.reciprocal_rank_at_k, "MRR", "ranking"),
    Metric("dcg", ranking.dcg_at_k, "DCG", "ranking", bounds=(0.0, float("inf"))),
    Metric("ndcg", ranking.ndcg_at_k, "NDCG", "ranking"),
    Metric("half_life_utility", ranking.half_life_utility, "HLU", "ranking"),
)

RANKING_METRICS: dict[str, Metric] = {m.name: m for m in _RANKING}
METRICS: dict[str, Metric] = dict(RANKING_METRICS)


def get_metric(name: object, *, func: str) -> Metric:
    """Look up a metric by registry name; unknown names list the valid ones."""
    if not isinstance(name, str) or name not in METRICS:
        valid = ", ".join(METRICS)
        raise ValueError(f"{func}: unknown metric {name!r}; valid metrics are {valid}.")
    return METRICS[name]
