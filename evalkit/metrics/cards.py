"""Definition cards: for every ranking metric, its formula, range, direction and the
conventions (fields of :class:`evalkit.Definitions`) that change its value, with the values in
use.

The formulas follow the docstrings of :mod:`evalkit.metrics.ranking` (hit_i = 1 when the item
at rank i is relevant; R_u the user's relevant test items; k the cutoff).
"""

from __future__ import annotations

import math

import pandas as pd

from ..definitions import Definitions, resolve
from ._registry import RANKING_METRICS

__all__ = ["CARDS", "definition_cards"]

#: Metric -> (formula, the Definitions fields that change its value).
_COMMON = ("threshold", "relevant_set", "unknown_items", "ties", "tie_order")
CARDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "precision": ("P@k = (hits in the top k) / k, also when the list is shorter than k",
                  _COMMON + ("precision_users",)),
    "recall": ("R@k = (hits in the top k) / D, D = |R_u| (or min(k, |R_u|))",
               _COMMON + ("recall_denominator", "empty")),
    "f1": ("F1@k = 2 P@k R@k / (P@k + R@k), 0 when both are 0",
           _COMMON + ("recall_denominator", "empty")),
    "hit_rate": ("HR@k = 1 when the top k holds a relevant item, else 0",
                 _COMMON + ("precision_users", "empty")),
    "r_precision": ("R-Prec = P@|R_u|: hits in the top |R_u| / |R_u|", _COMMON + ("empty",)),
    "r_precision_at_k": ("R-Prec@k = hits in the top min(k, |R_u|) / min(k, |R_u|)",
                         _COMMON + ("empty",)),
    "map": ("AP@k = (1 / D) sum_{i<=k} hit_i P@i, D = min(k, |R_u|) (or |R_u|, hits, k); "
            "MAP = mean of AP", _COMMON + ("ap_denominator", "empty")),
    "mrr": ("RR@k = 1 / rank of the first relevant item in the top k, 0 if none; MRR = mean "
            "of RR", _COMMON + ("empty",)),
    "dcg": ("DCG@k = sum_{i<=k} gain_i / disc(i), disc(i) = log_b(i + 1) (or max(1, log_b i))",
            _COMMON + ("gain", "gain_scope", "discount", "log_base")),
    "ndcg": ("NDCG@k = DCG@k / IDCG@k, IDCG@k the DCG of the user's test items sorted by gain "
             "(or of the ideal top k)", _COMMON + ("gain", "gain_scope", "discount", "log_base",
                                                   "ideal", "empty")),
    "half_life_utility": ("HLU_u = sum_j max(r_uj - d, 0) / 2^((j - 1) / (a - 1)) over the "
                          "list, divided by its maximum; d the neutral rating, a the "
                          "half-life", ("relevant_set", "unknown_items", "ties", "tie_order",
                                        "neutral", "half_life", "empty")),
}


def _range(bounds: tuple[float, float]) -> str:
    low, high = bounds
    return f"[{low:g}, {'inf' if math.isinf(high) else f'{high:g}'}"  + (
        ")" if math.isinf(high) else "]")


def definition_cards(definitions: Definitions | str | None = None) -> pd.DataFrame:
    """One card per ranking metric: label, formula, range, direction, and the conventions
    that change its value with the values in ``definitions`` (default: evalkit's).

    Parameters
    ----------
    definitions : Definitions, str or None
        The definitions in use, or a profile name (:data:`evalkit.PROFILES`).

    Returns
    -------
    pandas.DataFrame
        Indexed by metric name: ``label``, ``formula``, ``range``, ``better`` (``higher`` or
        ``lower``) and ``conventions`` (``field=value`` for each field that changes the
        metric, as :meth:`evalkit.Definitions.for_metric` resolves it).

    Examples
    --------
    >>> cards = definition_cards("trec_eval")
    >>> print(cards.loc["map", "conventions"].split(", ")[-2])
    ap_denominator='relevant'
    """
    resolved = resolve(definitions, func="definition_cards")
    rows = {}
    for name, metric in RANKING_METRICS.items():  # one row per registered metric
        formula, options = CARDS[name]
        used = resolved.for_metric(name)
        rows[name] = {
            "label": metric.label + ("@k" if metric.at_k else ""),
            "formula": formula,
            "range": _range(metric.bounds),
            "better": "higher" if metric.higher_is_better else "lower",
            "conventions": ", ".join(f"{o}={getattr(used, o)!r}" for o in options),
        }
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "metric"
    return frame
