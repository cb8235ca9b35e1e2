"""Metric families: ranking, rating prediction, classification, rank correlation and beyond
accuracy. Every function documents its formula, the paper it follows and its rule for degenerate
cases.

Every metric is declared once, as a :class:`Metric` in :data:`METRICS` (label, formula, the
definitions it reads, range, direction, curves); everything else reads it from there.

Metrics of your own
-------------------
A ranking metric computed from each user's hits is one declaration: a function
``per_user(hits, k)`` that returns one value per user from a :class:`Hits` (each user's
relevant items found in the top ``k``: ``rank``, ``gain``, ``n_relevant``, the ideal gains,
and helpers such as ``hits.sum`` and ``hits.first``), and :func:`register`:

>>> import numpy as np
>>> from evalkit.metrics import Metric, register, unregister
>>> def found_share(hits, k):
...     # the share of the top k that holds hits, NaN for a user without relevant items
...     return np.where(hits.n_relevant > 0, hits.count() / k, np.nan)
>>> _ = register(Metric("found_share", per_user=found_share, higher_is_better=True,
...                     label="Found", bounds=(0, 1), defined_without_relevant=False,
...                     curves=True, formula="hits in the top k / k, users with a relevant item"))
>>> unregister("found_share")

It then works wherever a built-in one does: ``evaluate(..., metrics=["found_share"])`` with
intervals and per-user values, :func:`evalkit.compare` (a lower-is-better metric wins when
lower), :func:`ranking_curves` (``metrics=[...]``, with ``curves=True``), :func:`rank`, the
cards, the command line and the reports (see :func:`register`).
:data:`first_relevant_rank <RANKING_METRICS>` is a built-in metric declared this way.

The classification functions ``precision``, ``recall`` and ``f1`` live in
:mod:`evalkit.metrics.classification` (their names would shadow nothing here, but they compute
one number from a confusion table, so they are kept apart from the ranking metrics).
"""

from __future__ import annotations

from ..definitions import limit_definitions
from . import cards, tables
from ._common import TieWarning
from ._engine import RankResult, default_metrics, per_user_function, rank, ranking_curves
from ._own import METRICS_VARIABLE, load_metrics, register, unregister
from ._registry import CURVE_METRICS, METRICS, RANKING_METRICS, get_metric, parse_column
from ._result import MetricSeries
from ._spec import Hits, Metric
from ._topk import top_k
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
    recall_at_k,
    reciprocal_rank_at_k,
)
from .rating import mae, mae_per_user, rating_errors, rmse, rmse_per_user

#: The public functions of the built-in metrics declared from hits (``first_relevant_rank``:
#: the rank of the first relevant item in the top k, k + 1 without one; lower is better),
#: derived from their declarations under the names they declare.
_FROM_HITS = {m.function: per_user_function(m) for m in RANKING_METRICS.values()
              if m.per_user is not None}
globals().update(_FROM_HITS)

for _metric in RANKING_METRICS.values():  # each compiled metric's function takes what it reads
    if _metric.kernel:
        limit_definitions(_metric.func, _metric.reads)
del _metric

__all__ = [
    "top_k",
    "CURVE_METRICS",
    "Hits",
    "METRICS",
    "RANKING_METRICS",
    "Metric",
    "MetricSeries",
    "RankResult",
    "TieWarning",
    "average_precision_at_k",
    "average_recommended_popularity",
    "catalog_coverage",
    "classification_scores",
    "confusion",
    "confusion_at_k",
    "dcg_at_k",
    "default_metrics",
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
    "load_metrics",
    "mae",
    "mae_per_user",
    "mean_pop_rank",
    "ndcg_at_k",
    "novelty",
    "parse_column",
    "personalization",
    "precision_at_k",
    "precision_recall_curve",
    "r_precision",
    "r_precision_at_k",
    "rank",
    "ranking_curves",
    "rating_errors",
    "rmse",
    "rmse_per_user",
    "recall_at_k",
    "reciprocal_rank_at_k",
    "register",
    "serendipity",
    "spearman",
    "cards",
    "tables",
    "unregister",
    "user_coverage",
    *_FROM_HITS,  # first_relevant_rank
]


def _load_from_environment() -> None:
    import os

    source = os.environ.get(METRICS_VARIABLE, "").strip()
    if source:
        load_metrics(source, func=f"evalkit.metrics (${METRICS_VARIABLE})")


_load_from_environment()
