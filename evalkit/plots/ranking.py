"""Plots of top-k ranking results: curves over the cutoff k and per-user distributions
(comparisons of systems are in :mod:`evalkit.plots.significance`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from .._checks import check_positive_int, describe
from .._constraints import POSITIVE_INT, choice, constrained
from .._errors import InvalidParameterError
from ._style import (
    AXES,
    FIGSIZE,
    check_tables,
    k_values,
    legend_outside,
    metric_label,
    new_axes,
    numeric,
    styled,
    system_colors,
)

__all__ = [
    "metric_at_k",
    "metrics_at_k",
    "per_user_distribution",
    "precision_recall_curve",
]


def _curve_metrics() -> list[str]:
    """The metrics with curves, read from their declarations when asked (so a metric of your
    own registered with ``curves=True`` plots like a built-in one)."""
    from ..metrics import RANKING_METRICS  # on use: plotting does not load the metrics

    return [name for name, metric in RANKING_METRICS.items() if metric.curves]

_BAND_ALPHA = 0.18  # opacity of the confidence bands


def _band(frame: pd.DataFrame, metric: str, order: np.ndarray, *, func: str,
          arg: str) -> tuple[np.ndarray, np.ndarray] | None:
    """The ``<metric>_low`` and ``<metric>_high`` columns of ``frame`` in ``order``, when it
    has both (:func:`evalkit.report.curve_bands`), else None."""
    low, high = f"{metric}_low", f"{metric}_high"
    if low not in frame.columns or high not in frame.columns:
        return None
    return (numeric(frame, low, func=func, arg=arg)[order],
            numeric(frame, high, func=func, arg=arg)[order])


@constrained(ax=AXES)
@styled
def precision_recall_curve(
    curves: Mapping[str, pd.DataFrame],
    *,
    mark_k: Sequence[int] = (1, 5, 10, 20),
    ax: Axes | None = None,
) -> Axes:
    """Precision against recall over the cutoffs k = 1..K, one curve per system.

    Parameters
    ----------
    curves : dict of str to pandas.DataFrame
        :func:`evalkit.metrics.ranking_curves` output of each system by name: columns
        ``precision`` and ``recall``, cutoffs in the index (or a ``k`` column). With the
        columns ``precision_low, precision_high, recall_low, recall_high``
        (:func:`evalkit.report.curve_bands`) the intervals are drawn too.
    mark_k : sequence of int, default (1, 5, 10, 20)
        Cutoffs marked and labelled on every curve (those a curve lacks are skipped).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default: a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        One line per system, in the order of ``curves``: x the mean recall@k, y the mean
        precision@k, markers at ``mark_k`` (``Line2D.get_markevery()``) labelled with k.
        With intervals: per system a band (``ax.collections``) spanning the precision
        interval at each recall@k, and at the marked cutoffs the recall interval as
        horizontal bars (``ax.containers``).

    Raises
    ------
    TypeError, ValueError
        If ``curves`` is not a non-empty dict of frames with the needed columns, or ``mark_k``
        holds something other than positive integers.

    Notes
    -----
    The points are the precision-recall curve of a top-k list: (R@k, P@k) for k = 1..K,
    each a mean over users, joined in order of k. The intervals are pointwise (each k on its
    own, not simultaneous): the band is vertical because mean recall@k never decreases with
    k, so it can be drawn over the recall axis; the recall intervals are shown where the
    cutoffs are marked.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> plt.switch_backend("agg")
    >>> curve = pd.DataFrame({"precision": [1.0, 0.5, 0.67], "recall": [0.2, 0.2, 0.4]},
    ...                      index=pd.Index([1, 2, 3], name="k"))
    >>> ax = precision_recall_curve({"A": curve})
    >>> type(ax).__name__, len(ax.lines)
    ('Axes', 1)
    >>> plt.close("all")
    """
    func = "precision_recall_curve"
    tables = check_tables(curves, func=func, arg="curves", required=("precision", "recall"))
    if isinstance(mark_k, (str, bytes)) or not isinstance(mark_k, Sequence):
        raise InvalidParameterError(
            f"{func}: 'mark_k' must be a sequence of positive integers; got {describe(mark_k)}."
        )
    marks = [check_positive_int(k, func=func, arg="mark_k") for k in mark_k]
    ax = new_axes(ax, func=func)
    colors = system_colors(list(tables))
    points, bands = {}, {}
    for name, frame in tables.items():
        arg = f"curves[{name!r}]"
        ks = k_values(frame, func=func, arg=arg)
        order = np.argsort(ks, kind="stable")
        points[name] = (
            ks[order],
            numeric(frame, "recall", func=func, arg=arg)[order],
            numeric(frame, "precision", func=func, arg=arg)[order],
        )
        bands[name] = (_band(frame, "precision", order, func=func, arg=arg),
                       _band(frame, "recall", order, func=func, arg=arg))
    # labels closer than 3% of the plotted range to the previous label of a curve are skipped
    every = np.concatenate([np.c_[r, p] for _, r, p in points.values()])
    scale = np.nanmax(np.abs(every), axis=0) if every.size else np.ones(2)
    scale = np.where(np.isfinite(scale) & (scale > 0), scale, 1.0)
    for name, (ks, recall, precision) in points.items():
        marked = [int(i) for i in np.flatnonzero(np.isin(ks, marks))]
        p_band, r_band = bands[name]
        if p_band is not None:
            ax.fill_between(recall, p_band[0], p_band[1], color=colors[name],
                            alpha=_BAND_ALPHA, linewidth=0, label=f"_{name} band")
        if r_band is not None and marked:
            ax.errorbar(recall[marked], precision[marked], fmt="none", ecolor=colors[name],
                        elinewidth=1.2, capsize=2.5,
                        xerr=np.vstack([recall[marked] - r_band[0][marked],
                                        r_band[1][marked] - recall[marked]]))
        ax.plot(recall, precision, color=colors[name], marker="o", markevery=marked,
                markersize=5, label=name)
        last = None
        for i in marked:
            here = np.array([recall[i], precision[i]]) / scale
            if last is not None and np.hypot(*(here - last)) < 0.03:
                continue
            last = here
            ax.annotate(f"{int(ks[i])}", (recall[i], precision[i]), xytext=(4, 4),
                        textcoords="offset points", fontsize=8, color=colors[name])
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.set_xlabel("Recall@k (mean over users)")
    ax.set_ylabel("Precision@k (mean over users)")
    banded = any(p is not None for p, _ in bands.values())
    ax.set_title("Precision and recall over the cutoff k")
    legend_outside(ax, title="System\n(numbers mark k)"
                   + ("\n(bands:\nbootstrap CIs)" if banded else ""))
    return ax


def _draw_metric(ax: Axes, tables: dict[str, pd.DataFrame], metric: str, *, func: str) -> bool:
    """One line per system (and its band, where the table has one); whether any band."""
    colors = system_colors(list(tables))
    banded = False
    for name, frame in tables.items():
        arg = f"curves[{name!r}]"
        ks = k_values(frame, func=func, arg=arg)
        order = np.argsort(ks, kind="stable")
        values = numeric(frame, metric, func=func, arg=arg)[order]
        band = _band(frame, metric, order, func=func, arg=arg)
        if band is not None:
            ax.fill_between(ks[order], band[0], band[1], color=colors[name],
                            alpha=_BAND_ALPHA, linewidth=0, label=f"_{name} band")
            banded = True
        ax.plot(ks[order], values, color=colors[name], marker="o" if len(ks) <= 25 else None,
                markersize=3.5, label=name)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True, steps=[1, 2, 5, 10]))
    ax.set_ylim(bottom=0)
    ax.set_xlabel("Cutoff k (items in the list)")
    ax.set_ylabel(f"{metric_label(metric)}@k (mean)")
    return banded


@constrained(ax=AXES)
@styled
def metric_at_k(
    curves: Mapping[str, pd.DataFrame],
    metric: str = "ndcg",
    *,
    ax: Axes | None = None,
) -> Axes:
    """A ranking metric at every cutoff k = 1..K, one line per system.

    Parameters
    ----------
    curves : dict of str to pandas.DataFrame
        :func:`evalkit.metrics.ranking_curves` output of each system by name; with the
        columns ``<metric>_low`` and ``<metric>_high`` (:func:`evalkit.report.curve_bands`)
        the pointwise intervals are drawn as bands.
    metric : str, default "ndcg"
        Column to plot: a metric with curves (``precision, recall, f1, hit_rate, map, mrr``,
        ``ndcg``, or one of your own registered with ``curves=True``), by registry name or
        label (``"NDCG"``, ``"P"``).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default: a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        One line per system (x the cutoffs, y the metric), in the order of ``curves``, and
        one band per system that has intervals (``ax.collections``).

    Raises
    ------
    TypeError, ValueError
        For an unknown ``metric`` or frames without that column.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> plt.switch_backend("agg")
    >>> curve = pd.DataFrame({"ndcg": [0.3, 0.35, 0.4]}, index=pd.Index([1, 2, 3], name="k"))
    >>> ax = metric_at_k({"A": curve, "B": curve * 0.5}, "ndcg")
    >>> type(ax).__name__, len(ax.lines)
    ('Axes', 2)
    >>> plt.close("all")
    """
    from ..metrics import get_metric  # on use: plotting does not load the metrics

    func = "metric_at_k"
    metric = get_metric(metric, func=func, arg="metric", choices=_curve_metrics()).name
    tables = check_tables(curves, func=func, arg="curves", required=(metric,))
    ax = new_axes(ax, func=func)
    banded = _draw_metric(ax, tables, metric, func=func)
    ax.set_title(f"{metric_label(metric)} by cutoff k")
    legend_outside(ax, title="System" + ("\n(bands:\nbootstrap CIs)" if banded else ""))
    return ax


@styled
def metrics_at_k(
    curves: Mapping[str, pd.DataFrame],
    metrics: Sequence[str] = ("precision", "recall", "map", "ndcg"),
) -> Figure:
    """Several ranking metrics over the cutoff k, one panel each, in a grid of two columns.

    Parameters
    ----------
    curves : dict of str to pandas.DataFrame
        :func:`evalkit.metrics.ranking_curves` output of each system by name; with the
        columns ``<metric>_low`` and ``<metric>_high`` (:func:`evalkit.report.curve_bands`)
        the pointwise intervals are drawn as bands.
    metrics : sequence of str, default ("precision", "recall", "map", "ndcg")
        One panel per metric, left to right then top to bottom; registry names or labels.

    Returns
    -------
    matplotlib.figure.Figure
        One Axes per metric (``fig.axes`` in the order of ``metrics``), each with one line per
        system (and its band, with intervals); one legend for the figure.

    Raises
    ------
    TypeError, ValueError
        For an unknown metric, no metrics, or frames without a needed column.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> plt.switch_backend("agg")
    >>> curve = pd.DataFrame({"precision": [1.0, 0.5], "recall": [0.2, 0.2], "map": [1.0, 1.0],
    ...                       "ndcg": [1.0, 0.6]}, index=pd.Index([1, 2], name="k"))
    >>> fig = metrics_at_k({"A": curve})
    >>> type(fig).__name__, len(fig.axes)
    ('Figure', 4)
    >>> plt.close("all")
    """
    from ..metrics import get_metric  # on use: plotting does not load the metrics

    func = "metrics_at_k"
    if isinstance(metrics, str) or not isinstance(metrics, Sequence) or not metrics:
        raise ValueError(
            f"{func}: 'metrics' must be a non-empty sequence of metric names; got "
            f"{describe(metrics)}."
        )
    names = [get_metric(m, func=func, arg="metrics", choices=_curve_metrics()).name
             for m in metrics]
    tables = check_tables(curves, func=func, arg="curves", required=tuple(names))
    n_rows = (len(names) + 1) // 2
    n_cols = 1 if len(names) == 1 else 2
    fig, axes = plt.subplots(
        n_rows, n_cols, figsize=(FIGSIZE[0] * (1.0 if n_cols == 2 else 0.6), 2.9 * n_rows),
        layout="constrained", sharex=True, squeeze=False,
    )
    banded = False
    for ax, metric in zip(axes.flat, names):
        banded |= _draw_metric(ax, tables, metric, func=func)
        ax.set_title(metric_label(metric), fontsize=11)
        ax.set_ylabel(f"{metric_label(metric)}@k")
        ax.set_xlabel("")
    for ax in axes.flat[len(names):]:
        fig.delaxes(ax)
    for ax in axes[-1, :]:
        ax.set_xlabel("Cutoff k")
    if len(names) % 2 == 1 and n_cols == 2:
        axes[-2, 1].set_xlabel("Cutoff k")
        axes[-2, 1].xaxis.set_tick_params(labelbottom=True)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside right upper",
               title="System" + ("\n(bands:\nbootstrap CIs)" if banded else ""))
    fig.suptitle("Ranking metrics by cutoff k (means over users)")
    return fig


@constrained(kind=choice("violin", "hist", "ecdf"), bins=POSITIVE_INT, ax=AXES)
@styled
def per_user_distribution(
    per_user: pd.DataFrame | Mapping[str, pd.DataFrame],
    column: str = "ndcg@10",
    *,
    kind: str = "violin",
    bins: int = 20,
    ax: Axes | None = None,
) -> Axes:
    """Distribution over users of one per-user metric, for one or several systems.

    Parameters
    ----------
    per_user : pandas.DataFrame or dict of str to pandas.DataFrame
        ``Evaluation.per_user`` (one row per user), or one such table per system by name.
    column : str, default "ndcg@10"
        The metric column.
    kind : {"violin", "hist", "ecdf"}, default "violin"
        Violins (quartiles drawn inside, a diamond at the mean) side by side, step
        histograms on shared bins, or empirical cumulative distribution functions (the share
        of users at or below each value; each label gives the share of users at 0).
    bins : int, default 20
        Number of histogram bins (``kind="hist"``), shared by all systems.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default: a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        ``"violin"``: one violin per system at x = 0, 1, ... and one scatter of the means
        (``ax.collections[-1]``). ``"hist"``: one step patch per system whose
        ``get_data()`` holds the counts and edges. ``"ecdf"``: one step line per system
        (``ax.lines``) through the points (value, share of users <= value).

    Raises
    ------
    TypeError, ValueError
        For a missing or non-numeric column, an unknown ``kind``, or a bad ``bins``.

    Notes
    -----
    Users with NaN (metric undefined) are left out; each system's label gives the number of
    users shown. Violins are cut at the observed range, so a bounded metric stays in bounds.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> plt.switch_backend("agg")
    >>> per_user = pd.DataFrame({"ndcg@10": [0.0, 0.2, 0.5, 0.9, 1.0]})
    >>> ax = per_user_distribution(per_user, kind="hist")
    >>> int(ax.patches[0].get_data().values.sum())
    5
    >>> plt.close("all")
    """
    func = "per_user_distribution"
    tables = check_tables(per_user, func=func, arg="per_user", required=(column,), allow_frame=True)
    values = {}
    for name, frame in tables.items():
        v = numeric(frame, column, func=func, arg=f"per_user[{name!r}]" if name else "per_user")
        values[name] = v[~np.isnan(v)]
    ax = new_axes(ax, func=func)
    colors = system_colors(list(values))
    label = metric_label(column)
    names = [name or "all users" for name in values]
    if kind == "ecdf":
        for (name, v), shown in zip(values.items(), names):
            ordered = np.sort(v)
            share = np.arange(1, ordered.size + 1) / max(ordered.size, 1)
            at_zero = float(np.mean(v == 0)) if v.size else float("nan")
            ax.step(ordered, share, where="post", color=colors[name], linewidth=1.8,
                    label=f"{shown} (n={v.size:,}; {at_zero:.0%} at 0)")
        ax.set_xlabel(f"{label} per user")
        ax.set_ylabel("Share of users at or below")
        ax.set_ylim(0, 1.02)
        legend_outside(ax, title="System")
    elif kind == "hist":
        pooled = np.concatenate(list(values.values()))
        edges = np.histogram_bin_edges(pooled if pooled.size else [0.0, 1.0], bins=bins)
        for (name, v), shown in zip(values.items(), names):
            counts, _ = np.histogram(v, bins=edges)
            ax.stairs(counts, edges, color=colors[name], linewidth=1.8,
                      label=f"{shown} (n={v.size:,})")
        ax.set_xlabel(f"{label} per user")
        ax.set_ylabel("Users")
        legend_outside(ax, title="System")
    else:
        long = pd.DataFrame(
            {
                "system": np.repeat(names, [v.size for v in values.values()]),
                "value": np.concatenate(list(values.values())),
            }
        )
        palette = dict(zip(names, colors.values()))
        import seaborn as sns

        sns.violinplot(data=long, x="system", y="value", hue="system", order=names,
                       hue_order=names, palette=palette, cut=0, inner="quart", density_norm="width",
                       linewidth=1.0, saturation=0.9, legend=False, ax=ax)
        for patch in ax.collections:
            patch.set_alpha(0.75)
        means = np.array([v.mean() if v.size else np.nan for v in values.values()])
        ax.scatter(np.arange(len(names)), means, marker="D", s=28, color="white",
                   edgecolor="black", linewidth=1.0, zorder=4, label="mean")
        ax.set_xticks(np.arange(len(names)),
                      [f"{n}\n(n={v.size:,})" for n, v in zip(names, values.values())])
        ax.set_xlabel("")
        ax.set_ylabel(f"{label} per user")
        legend_outside(ax)
    shown = {"violin": "Distribution", "hist": "Histogram",
             "ecdf": "Cumulative distribution"}[kind]
    ax.set_title(f"{shown} of {label} over users")
    return ax
