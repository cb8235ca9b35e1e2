"""Holm's step-down correction written out by hand, for the tests that check each place
evalkit applies it (shares no code with ``evalkit.stats.holm``)."""

from __future__ import annotations

import math


def holm_by_hand(pvalues: list[float]) -> list[float]:
    """Holm-adjusted p-values: sort the m finite p-values ascending, multiply the i-th
    (from 0) by m - i, carry the running maximum, cap at 1; NaN stays NaN (and is not
    counted in m)."""
    finite = [(p, i) for i, p in enumerate(pvalues) if not math.isnan(p)]
    finite.sort()
    m = len(finite)
    out = [math.nan] * len(pvalues)
    running = 0.0
    for step, (p, i) in enumerate(finite):
        running = max(running, min(1.0, (m - step) * p))
        out[i] = running
    return out
