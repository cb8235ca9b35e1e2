"""Metric families: ranking, rating prediction, classification, rank correlation and beyond
accuracy. Definitions and policies follow SPEC; every function documents its formula and its
rule for degenerate cases."""

from __future__ import annotations

from ._common import TieWarning
from ._registry import METRICS, RANKING_METRICS, Metric, get_metric
from .ranking import (
    average_precision_at_k,
    dcg_at_k,
    f1_at_k,
    half_life_utility,
    hit_rate_at_k,
    ndcg_at_k,
    precision_at_k,
    r_precision,
    ranking_curves,
    recall_at_k,
    reciprocal_rank_at_k,
)

__all__ = [
    "METRICS",
    "RANKING_METRICS",
    "Metric",
    "TieWarning",
    "average_precision_at_k",
    "dcg_at_k",
    "f1_at_k",
    "get_metric",
    "half_life_utility",
    "hit_rate_at_k",
    "ndcg_at_k",
    "precision_at_k",
    "r_precision",
    "ranking_curves",
    "recall_at_k",
    "reciprocal_rank_at_k",
]
