"""Plots of the tables of :mod:`evalkit.segments`: metrics by user segment, the long tail of
item popularity and the exposure of popularity buckets."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.colors import to_rgb

from .._checks import check_columns
from .._constraints import constrained
from ._style import (
    AXES,
    BUCKET_COLORS,
    FIGSIZE,
    PALETTE,
    REFERENCE_COLOR,
    legend_outside,
    metric_label,
    new_axes,
    numeric,
    styled,
    system_colors,
)

__all__ = ["accuracy_tradeoff", "exposure_shares", "long_tail", "metric_by_segment"]


def _ordered(values: pd.Series) -> list[object]:
    """Distinct values in category order (categoricals) or in order of first appearance."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        present = set(values.dropna())
        return [c for c in values.cat.categories if c in present]
    return list(pd.unique(values.dropna()))


def _bucket_palette(buckets: list[object]) -> dict[object, str]:
    spare = iter(PALETTE[3:])
    return {b: BUCKET_COLORS.get(str(b)) or next(spare, REFERENCE_COLOR) for b in buckets}


def _text_color(color: str) -> str:
    r, g, b = to_rgb(color)
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.55 else "white"


@constrained(ax=AXES)
@styled
def metric_by_segment(
    table: pd.DataFrame,
    column: str = "ndcg@10",
    *,
    segment: str = "user segment",
    value: str = "mean over users",
    ax: Axes | None = None,
) -> Axes:
    """Mean of a metric in each user segment, as bars with confidence-interval error bars.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`evalkit.segments.metrics_by_segment` output: ``segment, column, mean, ci_low,
        ci_high`` and optionally ``system`` (one bar per system in each segment) and
        ``n_users`` (shown under the segment names).
    column : str, default "ndcg@10"
        The metric column to show (``table["column"]``).
    segment : str, default "user segment"
        What the segments are, for the title and the x axis (``"item popularity"`` for
        :func:`evalkit.segments.recall_by_popularity`).
    value : str, default "mean over users"
        What a bar is, for the y axis (``"pooled over users"`` for a pooled recall).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default: a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        Per system (table order), one bar container (one bar per segment, in segment order;
        heights the means) and one error-bar container whose bars span ``ci_low..ci_high``.

    Raises
    ------
    TypeError, ValueError
        If columns are missing or ``column`` is not in the table (the message lists those it
        has).

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> plt.switch_backend("agg")
    >>> table = pd.DataFrame({"segment": ["light", "heavy"], "column": "ndcg@10",
    ...                       "mean": [0.2, 0.3], "ci_low": [0.15, 0.26],
    ...                       "ci_high": [0.25, 0.34], "n_users": [40, 60]})
    >>> ax = metric_by_segment(table)
    >>> [float(round(bar.get_height(), 2)) for bar in ax.containers[0]]
    [0.2, 0.3]
    >>> plt.close("all")
    """
    func = "metric_by_segment"
    table = check_columns(table, func=func, arg="table",
                        required=("segment", "column", "mean", "ci_low", "ci_high"))
    rows = table.loc[table["column"].astype(str).to_numpy() == str(column)]
    if rows.empty:
        have = ", ".join(map(repr, pd.unique(table["column"].astype(str))))
        raise ValueError(f"{func}: 'column' {column!r} is not in 'table'; it has {have or 'none'}.")
    mean = numeric(rows, "mean", func=func, arg="table")
    low = numeric(rows, "ci_low", func=func, arg="table")
    high = numeric(rows, "ci_high", func=func, arg="table")
    segments = _ordered(rows["segment"])
    seg_pos = pd.Index(segments).get_indexer(rows["segment"])
    has_system = "system" in rows.columns
    systems = [str(s) for s in _ordered(rows["system"])] if has_system else [""]
    sys_pos = pd.Index(systems).get_indexer(rows["system"].astype(str)) if has_system \
        else np.zeros(len(rows), dtype=np.int64)
    shape = (len(systems), len(segments))
    grids = []
    for values in (mean, low, high):
        grid = np.full(shape, np.nan)
        grid[sys_pos, seg_pos] = values
        grids.append(grid)
    mean_g, low_g, high_g = grids

    ax = new_axes(ax, func=func)
    colors = system_colors(systems) if has_system else {"": PALETTE[0]}
    width = 0.8 / len(systems)
    x = np.arange(len(segments), dtype=np.float64)
    for j, name in enumerate(systems):
        xs = x - 0.4 + width * (j + 0.5)
        ax.bar(xs, mean_g[j], width=width * 0.92, color=colors[name], alpha=0.85,
               label=name or None)
        ax.errorbar(xs, mean_g[j], yerr=[mean_g[j] - low_g[j], high_g[j] - mean_g[j]], fmt="none",
                    ecolor="#333333", elinewidth=1.3, capsize=3)
    names = [str(s) for s in segments]
    if "n_users" in rows.columns:
        n = rows.assign(_pos=seg_pos).groupby("_pos")["n_users"].agg(["min", "max"])
        names = [
            f"{s}\nn={int(n.loc[i, 'min']):,}" if n.loc[i, "min"] == n.loc[i, "max"]
            else f"{s}\nn={int(n.loc[i, 'min']):,}-{int(n.loc[i, 'max']):,}"
            for i, s in enumerate(names)
        ]
    ax.set_xticks(x, names)
    ax.grid(axis="x", visible=False)
    ax.set_ylim(bottom=0)
    label = metric_label(column)
    ax.set_xlabel(segment[:1].upper() + segment[1:])
    ax.set_ylabel(f"{label} ({value}, with CI)")
    ax.set_title(f"{label} by {segment}")
    if has_system:
        legend_outside(ax, title="System")
    return ax


@constrained(ax=AXES)
@styled
def long_tail(
    curve: pd.DataFrame,
    *,
    log_y: bool = True,
    ax: Axes | None = None,
) -> Axes:
    """Training interactions per item against the item's popularity rank: the long tail.

    Parameters
    ----------
    curve : pandas.DataFrame
        :func:`evalkit.segments.popularity_curve` output: ``rank, count`` and optionally
        ``bucket`` (the area under the curve is then coloured by bucket, and each bucket's
        items and share of interactions are given in the legend).
    log_y : bool, default True
        Logarithmic count axis.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default: a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        One line (x the rank, y the count, in rank order), one filled area per bucket and a
        dashed vertical line at the first rank of every bucket after the first.

    Raises
    ------
    TypeError, ValueError
        If ``curve`` lacks a column or holds non-numeric ranks or counts.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> plt.switch_backend("agg")
    >>> from evalkit.segments import popularity_curve
    >>> train = pd.DataFrame({"user_id": range(10), "item_id": [1] * 5 + [2] * 3 + [3, 4]})
    >>> ax = long_tail(popularity_curve(train))
    >>> ax.lines[0].get_ydata().tolist()
    [5.0, 3.0, 1.0, 1.0]
    >>> plt.close("all")
    """
    func = "long_tail"
    curve = check_columns(curve, func=func, arg="curve", required=("rank", "count"))
    rank = numeric(curve, "rank", func=func, arg="curve")
    count = numeric(curve, "count", func=func, arg="curve")
    order = np.argsort(rank, kind="stable")
    rank, count = rank[order], count[order]
    ax = new_axes(ax, func=func)
    floor = 0.5 if log_y else 0.0
    total = count.sum()
    ax.plot(rank, count, color="#222222", linewidth=1.4, drawstyle="steps-post",
            label="interactions per item", zorder=3)
    if "bucket" in curve.columns:
        bucket = curve["bucket"].iloc[order].reset_index(drop=True)
        names = _ordered(bucket)
        colors = _bucket_palette(names)
        for j, name in enumerate(names):
            mask = (bucket == name).to_numpy()
            share = count[mask].sum() / total if total else np.nan
            ax.fill_between(rank, floor, count, where=mask, color=colors[name], alpha=0.45,
                            linewidth=0, step="post",
                            label=f"{name}: {int(mask.sum()):,} items "
                                  f"({mask.mean():.1%}), {share:.0%} of interactions")
            if j > 0 and mask.any():
                start = rank[np.flatnonzero(mask)[0]]
                ax.axvline(start, color=REFERENCE_COLOR, linestyle="--", linewidth=1.0)
    if log_y:
        ax.set_yscale("log")
        ax.set_ylim(bottom=floor)
    else:
        ax.set_ylim(bottom=0)
    ax.set_xlim(rank.min() if rank.size else 0, rank.max() if rank.size else 1)
    ax.set_xlabel("Item rank by training popularity (1 = most popular)")
    ax.set_ylabel("Training interactions per item" + (" (log)" if log_y else ""))
    ax.set_title("Long tail of item popularity")
    # the curve falls from the upper left, so the upper right holds no data
    ax.legend(loc="upper right", title="Popularity bucket" if "bucket" in curve.columns else None)
    return ax


@constrained(ax=AXES)
@styled
def exposure_shares(exposure: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """Share of top-k slots going to head, mid and tail items per system, against training.

    Parameters
    ----------
    exposure : pandas.DataFrame
        :func:`evalkit.segments.exposure_by_popularity` output: ``system, bucket, share``. A
        system named ``"train"`` (the share of training interactions) is drawn first, labelled
        as the reference.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default: a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        Horizontal stacked bars in percent: one bar container per bucket (in bucket order),
        one bar per system (top to bottom in table order); shares of 6% or more are written
        inside.

    Raises
    ------
    TypeError, ValueError
        If ``exposure`` lacks a column or its shares are not numeric.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> plt.switch_backend("agg")
    >>> exposure = pd.DataFrame({"system": ["train"] * 3 + ["pop"] * 3,
    ...                          "bucket": ["head", "mid", "tail"] * 2,
    ...                          "share": [0.2, 0.6, 0.2, 0.9, 0.1, 0.0]})
    >>> ax = exposure_shares(exposure)
    >>> [float(round(bar.get_width(), 1)) for bar in ax.containers[0]]
    [20.0, 90.0]
    >>> plt.close("all")
    """
    func = "exposure_shares"
    exposure = check_columns(exposure, func=func, arg="exposure",
                           required=("system", "bucket", "share"))
    share = numeric(exposure, "share", func=func, arg="exposure")
    systems = [str(s) for s in _ordered(exposure["system"].astype(str))]
    if "train" in systems:
        systems.remove("train")
        systems.insert(0, "train")
    buckets = _ordered(exposure["bucket"])
    grid = np.zeros((len(buckets), len(systems)))
    rows = pd.Index(buckets).get_indexer(exposure["bucket"])
    cols = pd.Index(systems).get_indexer(exposure["system"].astype(str))
    np.add.at(grid, (rows, cols), np.nan_to_num(share) * 100.0)

    ax = new_axes(ax, func=func, figsize=(FIGSIZE[0], max(2.4, 1.3 + 0.45 * len(systems))))
    colors = _bucket_palette(buckets)
    y = np.arange(len(systems), dtype=np.float64)
    left = np.zeros(len(systems))
    for i, name in enumerate(buckets):
        bars = ax.barh(y, grid[i], left=left, height=0.62, color=colors[name], label=str(name),
                       edgecolor="white", linewidth=0.8)
        for bar, width, start in zip(bars, grid[i], left):
            if width >= 6.0:
                ax.text(start + width / 2, bar.get_y() + bar.get_height() / 2, f"{width:.0f}%",
                        ha="center", va="center", fontsize=8.5, color=_text_color(colors[name]))
        left = left + grid[i]
    ax.set_yticks(y, ["train\n(interactions)" if s == "train" else s for s in systems])
    ax.set_ylim(len(systems) - 0.5, -0.5)
    ax.set_xlim(0, 100)
    ax.grid(axis="y", visible=False)
    ax.set_xlabel("Share of top-k recommendation slots (%)")
    ax.set_title("Exposure by item popularity")
    legend_outside(ax, title="Popularity bucket")
    return ax


@constrained(ax=AXES)
@styled
def accuracy_tradeoff(points: pd.DataFrame, *, x: str, y: str, ax: Axes | None = None) -> Axes:
    """Accuracy against a beyond-accuracy measure, one point per system.

    Parameters
    ----------
    points : pandas.DataFrame
        One row per system (the index names it) with columns ``x`` and ``y``, and optionally
        ``<y>_low``/``<y>_high`` and ``<x>_low``/``<x>_high``, the interval of each, drawn as
        error bars (:func:`evalkit.report.tradeoff_points` builds it).
    x, y : str
        The columns on the axes, e.g. ``x="catalog_coverage"``, ``y="ndcg@10"``.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default: a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        One error-bar container per system (``ax.containers``), in the order of ``points``,
        its marker at (x, y).

    Raises
    ------
    TypeError, ValueError
        For a missing or non-numeric column.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> plt.switch_backend("agg")
    >>> points = pd.DataFrame({"catalog_coverage": [0.01, 0.30], "ndcg@10": [0.20, 0.35],
    ...                        "ndcg@10_low": [0.18, 0.33], "ndcg@10_high": [0.22, 0.37]},
    ...                       index=["MostPopular", "EASE"])
    >>> ax = accuracy_tradeoff(points, x="catalog_coverage", y="ndcg@10")
    >>> len(ax.containers)
    2
    >>> plt.close("all")
    """
    func = "accuracy_tradeoff"
    frame = check_columns(points, func=func, arg="points", required=(x, y))
    xs = numeric(frame, x, func=func, arg="points")
    ys = numeric(frame, y, func=func, arg="points")

    def error(column: str, centre: np.ndarray) -> np.ndarray | None:
        low, high = f"{column}_low", f"{column}_high"
        if low not in frame.columns or high not in frame.columns:
            return None
        lows = numeric(frame, low, func=func, arg="points")
        highs = numeric(frame, high, func=func, arg="points")
        return np.vstack([centre - lows, highs - centre])

    yerr, xerr = error(y, ys), error(x, xs)
    names = [str(name) for name in frame.index]
    colors = system_colors(names)
    ax = new_axes(ax, func=func)
    for i, name in enumerate(names):
        ax.errorbar(xs[i], ys[i], yerr=None if yerr is None else yerr[:, i:i + 1],
                    xerr=None if xerr is None else xerr[:, i:i + 1], fmt="o", markersize=7,
                    color=colors[name], capsize=3, linewidth=1.4, label=name)
    x_label, y_label = (metric_label(c).replace("_", " ") for c in (x, y))
    ax.set_xlabel(x_label[:1].upper() + x_label[1:])
    ax.set_ylabel(y_label)
    ax.set_title(f"{y_label} against {x_label}")
    legend_outside(ax, title="System")
    return ax
