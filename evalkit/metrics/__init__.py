"""Metric families: ranking, rating prediction, classification, rank correlation and beyond
accuracy. Definitions and policies follow SPEC; every function documents its formula and its
rule for degenerate cases.

The classification functions ``precision``, ``recall`` and ``f1`` live in
:mod:`evalkit.metrics.classification` (their names would shadow nothing here, but they compute
one number from a confusion table, so they are kept apart from the ranking metrics).
"""

from __future__ import annotations

from . import cards, tables
from ._common import TieWarning
from ._registry import METRICS, RANKING_METRICS, Metric, get_metric
from ._result import MetricSeries
from .beyond import (
    average_recommended_popularity,
    catalog_coverage,
    exposure_entropy,
    exposure_gini,
    gini_index,
    intra_list_diversity,
    mean_pop_rank,
    novelty,
    personalization,
    serendipity,
    user_coverage,
)
from .cards import definition_cards
from .classification import classification_scores, confusion, confusion_at_k, precision_recall_curve
from .correlation import fcp, fcp_global, kendall, spearman
from .ranking import (
    average_precision_at_k,
    dcg_at_k,
    f1_at_k,
    half_life_utility,
    hit_rate_at_k,
    ndcg_at_k,
    precision_at_k,
    r_precision,
    r_precision_at_k,
    ranking_curves,
    recall_at_k,
    reciprocal_rank_at_k,
)
from .rating import mae, mae_per_user, rating_errors, rmse, rmse_per_user

__all__ = [
    "METRICS",
    "RANKING_METRICS",
    "Metric",
    "MetricSeries",
    "TieWarning",
    "average_precision_at_k",
    "average_recommended_popularity",
    "catalog_coverage",
    "classification_scores",
    "confusion",
    "confusion_at_k",
    "dcg_at_k",
    "definition_cards",
    "exposure_entropy",
    "exposure_gini",
    "f1_at_k",
    "fcp",
    "fcp_global",
    "get_metric",
    "gini_index",
    "half_life_utility",
    "hit_rate_at_k",
    "intra_list_diversity",
    "kendall",
    "mae",
    "mae_per_user",
    "mean_pop_rank",
    "ndcg_at_k",
    "novelty",
    "personalization",
    "precision_at_k",
    "precision_recall_curve",
    "r_precision",
    "r_precision_at_k",
    "ranking_curves",
    "rating_errors",
    "rmse",
    "rmse_per_user",
    "recall_at_k",
    "reciprocal_rank_at_k",
    "serendipity",
    "spearman",
    "cards",
    "tables",
    "user_coverage",
]
