"""Definition cards: for every ranking metric, its formula, range, direction and the
conventions (fields of :class:`evalkit.Definitions`) that change its value, with the values in
use.

Each card is read from the metric's declaration (:class:`evalkit.metrics.Metric`): its
formula (hit_i = 1 when the item at rank i is relevant; R_u the user's relevant test items; k
the cutoff), range, direction and the definitions it reads. Metrics of your own get a card
when registered.
"""

from __future__ import annotations

import math

import pandas as pd

from ..definitions import Definitions, resolve
from ._registry import RANKING_METRICS

__all__ = ["definition_cards"]

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
        used = resolved.for_metric(name)
        rows[name] = {
            "label": metric.label + ("@k" if metric.at_k else ""),
            "formula": metric.formula,
            "range": _range(metric.bounds),
            "better": "higher" if metric.higher_is_better else "lower",
            "conventions": ", ".join(f"{o}={getattr(used, o)!r}" for o in metric.reads),
        }
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "metric"
    return frame
