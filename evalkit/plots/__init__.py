"""Plots for evaluation reports, drawn from evalkit's tidy tables.

Every function takes the output of an evalkit function (``ranking_curves``, ``evaluate``,
``compare``, :mod:`evalkit.segments`, rating predictions), draws inside :func:`use_style`
(importing this module changes no matplotlib state), accepts ``ax=`` to draw into an existing
Axes, and returns the Axes (a Figure for multi-panel plots). In a Jupyter kernel showing
figures inline, a plot call orders IPython's post-cell hooks so that every figure is rendered
once, not twice. Systems keep their order, and the n-th system always gets the n-th colour of
:data:`PALETTE`.

=============================  ==============================================================
:func:`precision_recall_curve`  precision against recall over the cutoff k, per system
:func:`metric_at_k`             one metric over k, per system
:func:`metrics_at_k`            a grid of metrics over k (Figure)
:func:`per_user_distribution`   violins or histograms of a per-user metric
:func:`comparison`              means, CIs and significance against a baseline
:func:`paired_differences`      paired differences of every compared pair, with CIs
:func:`detectable_differences`  the smallest detectable difference against the number of users
:func:`gamma_sensitivity`       popularity-debiased values against the assumed bias
:func:`metric_by_segment`       bars with CIs per user segment (and system)
:func:`long_tail`               item popularity by rank, head / mid / tail coloured
:func:`exposure_shares`         head / mid / tail share of the top-k slots per system
:func:`accuracy_tradeoff`       accuracy (with its interval) against coverage or novelty
:func:`rating_errors`           histogram of rating prediction errors
:func:`predicted_vs_actual`     predictions per actual rating, with the diagonal
:func:`pr_curve_cutoff`         precision and recall over the prediction cutoff
:func:`rating_distribution`     share of each rating value
:func:`user_activity`           histogram of interactions per user
=============================  ==============================================================
"""

from __future__ import annotations

from ._style import BUCKET_COLORS, FIGSIZE, PALETTE, metric_label, style_rc, use_style
from .explore import rating_distribution, user_activity
from .ranking import (
    metric_at_k,
    metrics_at_k,
    per_user_distribution,
    precision_recall_curve,
)
from .rating import pr_curve_cutoff, predicted_vs_actual, rating_errors
from .segments import accuracy_tradeoff, exposure_shares, long_tail, metric_by_segment
from .significance import (
    comparison,
    detectable_differences,
    gamma_sensitivity,
    paired_differences,
)

__all__ = [
    "BUCKET_COLORS",
    "FIGSIZE",
    "PALETTE",
    "metric_label",
    "accuracy_tradeoff",
    "comparison",
    "exposure_shares",
    "long_tail",
    "metric_at_k",
    "metric_by_segment",
    "metrics_at_k",
    "detectable_differences",
    "gamma_sensitivity",
    "paired_differences",
    "per_user_distribution",
    "pr_curve_cutoff",
    "precision_recall_curve",
    "predicted_vs_actual",
    "rating_distribution",
    "rating_errors",
    "style_rc",
    "use_style",
    "user_activity",
]
