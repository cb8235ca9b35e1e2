"""Plots of top-k ranking results: curves over the cutoff k, per-user distributions and
comparisons of systems."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from .._checks import check_choice, check_positive_int, describe
from ._style import (
    FIGSIZE,
    REFERENCE_COLOR,
    check_frame,
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
    "comparison",
    "metric_at_k",
    "metrics_at_k",
    "per_user_distribution",
    "precision_recall_curve",
]

_CURVE_METRICS = ("precision", "recall", "f1", "hit_rate", "map", "mrr", "ndcg")


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
        ``precision`` and ``recall``, cutoffs in the index (or a ``k`` column).
    mark_k : sequence of int, default (1, 5, 10, 20)
        Cutoffs marked and labelled on every curve (those a curve lacks are skipped).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default: a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        One line per system, in the order of ``curves``: x the mean recall@k, y the mean
        precision@k, markers at ``mark_k`` (``Line2D.get_markevery()``) labelled with k.

    Raises
    ------
    TypeError, ValueError
        If ``curves`` is not a non-empty dict of frames with the needed columns, or ``mark_k``
        holds something other than positive integers.

    Notes
    -----
    The points are SPEC's precision-recall curve of a top-k list: (R@k, P@k) for k = 1..K,
    each a mean over users, joined in order of k.

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
        raise TypeError(
            f"{func}: 'mark_k' must be a sequence of positive integers; got {describe(mark_k)}."
        )
    marks = [check_positive_int(k, func=func, arg="mark_k") for k in mark_k]
    ax = new_axes(ax, func=func)
    colors = system_colors(list(tables))
    points = {}
    for name, frame in tables.items():
        arg = f"curves[{name!r}]"
        ks = k_values(frame, func=func, arg=arg)
        order = np.argsort(ks, kind="stable")
        points[name] = (
            ks[order],
            numeric(frame, "recall", func=func, arg=arg)[order],
            numeric(frame, "precision", func=func, arg=arg)[order],
        )
    # labels closer than 3% of the plotted range to the previous label of a curve are skipped
    every = np.concatenate([np.c_[r, p] for _, r, p in points.values()])
    scale = np.nanmax(np.abs(every), axis=0) if every.size else np.ones(2)
    scale = np.where(np.isfinite(scale) & (scale > 0), scale, 1.0)
    for name, (ks, recall, precision) in points.items():
        marked = [int(i) for i in np.flatnonzero(np.isin(ks, marks))]
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
    ax.set_title("Precision and recall over the cutoff k")
    legend_outside(ax, title="System\n(numbers mark k)")
    return ax


def _draw_metric(ax: Axes, tables: dict[str, pd.DataFrame], metric: str, *, func: str) -> None:
    colors = system_colors(list(tables))
    for name, frame in tables.items():
        arg = f"curves[{name!r}]"
        ks = k_values(frame, func=func, arg=arg)
        order = np.argsort(ks, kind="stable")
        values = numeric(frame, metric, func=func, arg=arg)[order]
        ax.plot(ks[order], values, color=colors[name], marker="o" if len(ks) <= 25 else None,
                markersize=3.5, label=name)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True, steps=[1, 2, 5, 10]))
    ax.set_ylim(bottom=0)
    ax.set_xlabel("Cutoff k (items in the list)")
    ax.set_ylabel(f"{metric_label(metric)}@k (mean)")


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
        :func:`evalkit.metrics.ranking_curves` output of each system by name.
    metric : str, default "ndcg"
        Column to plot: ``precision, recall, f1, hit_rate, map, mrr`` or ``ndcg``.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default: a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        One line per system (x the cutoffs, y the metric), in the order of ``curves``.

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
    func = "metric_at_k"
    metric = check_choice(metric, func=func, arg="metric", choices=_CURVE_METRICS)
    tables = check_tables(curves, func=func, arg="curves", required=(metric,))
    ax = new_axes(ax, func=func)
    _draw_metric(ax, tables, metric, func=func)
    ax.set_title(f"{metric_label(metric)} by cutoff k")
    legend_outside(ax, title="System")
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
        :func:`evalkit.metrics.ranking_curves` output of each system by name.
    metrics : sequence of str, default ("precision", "recall", "map", "ndcg")
        One panel per metric, left to right then top to bottom.

    Returns
    -------
    matplotlib.figure.Figure
        One Axes per metric (``fig.axes`` in the order of ``metrics``), each with one line per
        system; one legend for the figure.

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
    func = "metrics_at_k"
    if isinstance(metrics, str) or not isinstance(metrics, Sequence) or not metrics:
        raise ValueError(
            f"{func}: 'metrics' must be a non-empty sequence of metric names; got "
            f"{describe(metrics)}."
        )
    names = [check_choice(m, func=func, arg="metric", choices=_CURVE_METRICS) for m in metrics]
    tables = check_tables(curves, func=func, arg="curves", required=tuple(names))
    n_rows = (len(names) + 1) // 2
    n_cols = 1 if len(names) == 1 else 2
    fig, axes = plt.subplots(
        n_rows, n_cols, figsize=(FIGSIZE[0] * (1.0 if n_cols == 2 else 0.6), 2.9 * n_rows),
        layout="constrained", sharex=True, squeeze=False,
    )
    for ax, metric in zip(axes.flat, names):
        _draw_metric(ax, tables, metric, func=func)
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
    fig.legend(handles, labels, loc="outside right upper", title="System")
    fig.suptitle("Ranking metrics by cutoff k (means over users)")
    return fig


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
    kind : {"violin", "hist"}, default "violin"
        Violins (quartiles drawn inside, a diamond at the mean) side by side, or step
        histograms on shared bins.
    bins : int, default 20
        Number of histogram bins (``kind="hist"``), shared by all systems.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default: a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        ``"violin"``: one violin per system at x = 0, 1, ... and one scatter of the means
        (``ax.collections[-1]``). ``"hist"``: one step patch per system whose
        ``get_data()`` holds the counts and edges.

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
    kind = check_choice(kind, func=func, arg="kind", choices=("violin", "hist"))
    bins = check_positive_int(bins, func=func, arg="bins")
    tables = check_tables(per_user, func=func, arg="per_user", required=(column,), allow_frame=True)
    values = {}
    for name, frame in tables.items():
        v = numeric(frame, column, func=func, arg=f"per_user[{name!r}]" if name else "per_user")
        values[name] = v[~np.isnan(v)]
    ax = new_axes(ax, func=func)
    colors = system_colors(list(values))
    label = metric_label(column)
    names = [name or "all users" for name in values]
    if kind == "hist":
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
    ax.set_title(f"Distribution of {label} over users")
    return ax


@styled
def comparison(
    table: pd.DataFrame,
    column: str = "ndcg@10",
    *,
    ax: Axes | None = None,
) -> Axes:
    """Each system's mean and confidence interval, with significant differences from the
    baseline marked.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`evalkit.compare.compare` output: ``system, column, mean, ci_low, ci_high,
        significant, permutation_pvalue_holm``; its first system is the baseline.
    column : str, default "ndcg@10"
        The metric column to show (``table["column"]``).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default: a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        One error bar per system (``ax.containers``, top to bottom in table order; x the mean,
        horizontal bars the CI), a dashed line at the baseline mean, and a scatter of star
        markers (label ``"significant"``) at the systems significantly different from the
        baseline, each annotated with its Holm-adjusted permutation p-value.

    Raises
    ------
    TypeError, ValueError
        If columns are missing or ``column`` is not in the table (the message lists those it
        has).

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> plt.switch_backend("agg")
    >>> table = pd.DataFrame({"system": ["pop", "knn"], "column": "ndcg@10",
    ...                       "mean": [0.20, 0.30], "ci_low": [0.18, 0.27],
    ...                       "ci_high": [0.22, 0.33], "significant": [False, True],
    ...                       "permutation_pvalue_holm": [np.nan, 0.001]})
    >>> ax = comparison(table)
    >>> len(ax.containers)
    2
    >>> plt.close("all")
    """
    func = "comparison"
    required = ("system", "column", "mean", "ci_low", "ci_high", "significant",
                "permutation_pvalue_holm")
    table = check_frame(table, func=func, arg="table", required=required)
    rows = table.loc[table["column"].astype(str).to_numpy() == str(column)]
    if rows.empty:
        have = ", ".join(map(repr, pd.unique(table["column"].astype(str))))
        raise ValueError(f"{func}: 'column' {column!r} is not in 'table'; it has {have or 'none'}.")
    systems = rows["system"].astype(str).tolist()
    mean = numeric(rows, "mean", func=func, arg="table")
    low = numeric(rows, "ci_low", func=func, arg="table")
    high = numeric(rows, "ci_high", func=func, arg="table")
    pvalue = numeric(rows, "permutation_pvalue_holm", func=func, arg="table")
    significant = np.array(rows["significant"].astype("boolean").fillna(False), dtype=bool)
    significant[0] = False  # the baseline is not compared with itself
    ax = new_axes(ax, func=func, figsize=(FIGSIZE[0], max(2.4, 1.2 + 0.5 * len(systems))))
    colors = system_colors(systems)
    y = np.arange(len(systems), dtype=np.float64)
    for i, name in enumerate(systems):
        ax.errorbar(mean[i : i + 1], y[i : i + 1],
                    xerr=np.array([[mean[i] - low[i]], [high[i] - mean[i]]]), fmt="o",
                    color=colors[name], ecolor=colors[name], elinewidth=2.2, capsize=4,
                    markersize=7)
    ax.axvline(mean[0], color=REFERENCE_COLOR, linestyle="--", linewidth=1.2,
               label=f"baseline ({systems[0]})")
    finite = np.concatenate([v[np.isfinite(v)] for v in (low, high, mean)])
    span = float(finite.max() - finite.min()) if finite.size else 1.0
    span = span if span > 0 else max(abs(float(finite.max())) if finite.size else 1.0, 1e-3)
    pad = 0.03 * span
    right = np.where(np.isfinite(high), high, mean)
    if significant.any():
        ax.scatter(right[significant] + pad, y[significant], marker="*", s=90, color="black",
                   zorder=4, label="significant (Holm-adjusted\npermutation test)")
    for i in range(1, len(systems)):
        text = "n.s." if not significant[i] else ""
        if np.isfinite(pvalue[i]):
            text += ("  " if significant[i] else " ") + f"p={pvalue[i]:.2g}"
        ax.annotate(text.strip(), (right[i] + pad, y[i]), xytext=(8, 0), textcoords="offset points",
                    va="center", fontsize=9)
    ax.set_xlim(finite.min() - 2 * pad if finite.size else None,
                finite.max() + 8 * pad if finite.size else None)
    ax.set_yticks(y, [f"{s}\n(baseline)" if i == 0 else s for i, s in enumerate(systems)])
    ax.set_ylim(len(systems) - 0.5, -0.5)
    ax.grid(axis="y", visible=False)
    label = metric_label(column)
    ax.set_xlabel(f"{label} (mean over users, with CI)")
    ax.set_title(f"{label}: systems against the baseline")
    proxy = Line2D([], [], color=REFERENCE_COLOR, marker="o", markersize=7, linewidth=2.2,
                   label="mean and CI")
    legend_outside(ax, extra=[proxy])
    return ax
