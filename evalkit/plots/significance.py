"""Plots of compared systems: each system's mean against a baseline, and the paired
differences of every compared pair, with intervals and the Holm-corrected significance."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.lines import Line2D

from .._checks import check_columns
from .._comparison import format_pvalue
from .._constraints import constrained
from ._style import (
    AXES,
    FIGSIZE,
    REFERENCE_COLOR,
    legend_outside,
    metric_label,
    new_axes,
    numeric,
    styled,
    system_colors,
)

__all__ = ["comparison", "detectable_differences", "gamma_sensitivity", "paired_differences"]


@constrained(ax=AXES)
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
        :func:`evalkit.compare` output: ``system, column, mean, ci_low, ci_high,
        significant, permutation_pvalue_holm``; its first system is the baseline. With an
        ``against`` column (every-pair tables) only the rows against the baseline are drawn
        (:func:`paired_differences` draws every pair); with ``p_at_floor`` a p-value at the
        randomization floor is written ``p<bound``.
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
    table = check_columns(table, func=func, arg="table", required=required)
    rows = table.loc[table["column"].astype(str).to_numpy() == str(column)]
    if rows.empty:
        have = ", ".join(map(repr, pd.unique(table["column"].astype(str))))
        raise ValueError(f"{func}: 'column' {column!r} is not in 'table'; it has {have or 'none'}.")
    if "against" in rows.columns:  # the baseline's own row, then the rows against it
        base = rows["system"].iloc[0]
        rows = rows[rows["against"].isna() | rows["against"].eq(base)]
    floor = (np.array(rows["p_at_floor"].astype("boolean").fillna(False), dtype=bool)
             if "p_at_floor" in rows.columns else np.zeros(len(rows), dtype=bool))
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
            shown = format_pvalue(pvalue[i], at_floor=floor[i])
            text += ("  " if significant[i] else " ") + (
                f"p{shown.replace(' ', '')}" if floor[i] else f"p={shown}")
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


@constrained(ax=AXES)
@styled
def paired_differences(
    table: pd.DataFrame,
    column: str = "ndcg@10",
    *,
    ax: Axes | None = None,
) -> Axes:
    """The paired difference of every compared pair of systems on one metric, with its
    bootstrap interval and the Holm-corrected significance.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`evalkit.compare` (or ``compare_evaluations``) output, either layout:
        ``system, against, column, diff, diff_ci_low, diff_ci_high, significant,
        permutation_pvalue_holm, p_at_floor``.
    column : str, default "ndcg@10"
        The metric column to show (``table["column"]``).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default: a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        One error bar per tested pair (``ax.containers``, top to bottom in table order; x the
        mean difference ``system - against``, horizontal bars its interval), a dashed line at
        0, a scatter of star markers (label ``"significant"``) at the significant pairs, and
        each pair annotated with its Holm-adjusted randomization p-value (``p<bound`` at the
        test's floor).

    Raises
    ------
    TypeError, ValueError
        If columns are missing, ``column`` is not in the table (the message lists those it
        has), or no pair was tested on it.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> plt.switch_backend("agg")
    >>> table = pd.DataFrame({"system": ["a", "b", "c", "c"], "against": [None, "a", "a", "b"],
    ...                       "column": "ndcg@10", "diff": [np.nan, 0.1, 0.2, 0.1],
    ...                       "diff_ci_low": [np.nan, 0.05, 0.15, -0.02],
    ...                       "diff_ci_high": [np.nan, 0.15, 0.25, 0.22],
    ...                       "significant": [False, True, True, False],
    ...                       "permutation_pvalue_holm": [np.nan, 0.003, 0.0003, 0.2],
    ...                       "p_at_floor": [False, False, True, False]})
    >>> ax = paired_differences(table)
    >>> len(ax.containers), [t.get_text() for t in ax.texts]
    (3, ['p=0.003', 'p<0.001', 'n.s. p=0.2'])
    >>> plt.close("all")
    """
    func = "paired_differences"
    required = ("system", "against", "column", "diff", "diff_ci_low", "diff_ci_high",
                "significant", "permutation_pvalue_holm", "p_at_floor")
    table = check_columns(table, func=func, arg="table", required=required)
    rows = table.loc[table["column"].astype(str).to_numpy() == str(column)]
    if rows.empty:
        have = ", ".join(map(repr, pd.unique(table["column"].astype(str))))
        raise ValueError(f"{func}: 'column' {column!r} is not in 'table'; it has {have or 'none'}.")
    rows = rows[rows["against"].notna() & rows["diff"].notna()]
    if rows.empty:
        raise ValueError(f"{func}: no pair of systems was tested on {column!r} in 'table'.")
    labels = [f"{s} - {a}" for s, a in zip(rows["system"].astype(str), rows["against"].astype(str))]
    diff = numeric(rows, "diff", func=func, arg="table")
    low = numeric(rows, "diff_ci_low", func=func, arg="table")
    high = numeric(rows, "diff_ci_high", func=func, arg="table")
    pvalue = numeric(rows, "permutation_pvalue_holm", func=func, arg="table")
    significant = np.array(rows["significant"].astype("boolean").fillna(False), dtype=bool)
    floor = np.array(rows["p_at_floor"].astype("boolean").fillna(False), dtype=bool)
    ax = new_axes(ax, func=func, figsize=(FIGSIZE[0], max(2.4, 1.2 + 0.5 * len(labels))))
    # every system of the table in its order, so a system keeps its colour across plots
    colors = system_colors(list(dict.fromkeys(table["system"].astype(str))))
    y = np.arange(len(labels), dtype=np.float64)
    for i, name in enumerate(rows["system"].astype(str)):
        bar = (np.array([[diff[i] - low[i]], [high[i] - diff[i]]])
               if np.isfinite(low[i]) and np.isfinite(high[i]) else None)
        ax.errorbar(diff[i : i + 1], y[i : i + 1], xerr=bar, fmt="o", color=colors[name],
                    ecolor=colors[name], elinewidth=2.2, capsize=4, markersize=7)
    ax.axvline(0.0, color=REFERENCE_COLOR, linestyle="--", linewidth=1.2, label="no difference")
    finite = np.concatenate([v[np.isfinite(v)] for v in (low, high, diff)] + [np.zeros(1)])
    span = float(finite.max() - finite.min()) or 1e-3
    pad = 0.03 * span
    right = np.where(np.isfinite(high), high, diff)
    if significant.any():
        ax.scatter(right[significant] + pad, y[significant], marker="*", s=90, color="black",
                   zorder=4, label="significant (Holm-adjusted\nrandomization test)")
    for i in range(len(labels)):
        shown = format_pvalue(pvalue[i], at_floor=floor[i])
        text = "" if significant[i] else "n.s."
        if shown:
            text += (" " if text else "") + (f"p{shown.replace(' ', '')}" if floor[i]
                                             else f"p={shown}")
        ax.annotate(text, (right[i] + pad, y[i]), xytext=(8, 0), textcoords="offset points",
                    va="center", fontsize=9)
    ax.set_xlim(finite.min() - 2 * pad, finite.max() + 10 * pad)
    ax.set_yticks(y, labels)
    ax.set_ylim(len(labels) - 0.5, -0.5)
    ax.grid(axis="y", visible=False)
    label = metric_label(column)
    ax.set_xlabel(f"Difference in {label} (mean over shared users, with CI)")
    ax.set_title(f"{label}: paired differences between systems")
    legend_outside(ax)
    return ax


@constrained(ax=AXES)
@styled
def detectable_differences(
    table: pd.DataFrame,
    column: str = "ndcg@10",
    *,
    power: float = 0.8,
    ax: Axes | None = None,
) -> Axes:
    """How the smallest difference a comparison can detect shrinks with the number of users:
    one curve per compared pair, with where the comparison stands and how many users the
    observed difference would need.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`evalkit.compare` (or ``compare_evaluations``) output: ``system, against,
        column, diff, n_shared, mde`` (its ``alpha`` attribute gives the level, default
        0.05).
    column : str, default "ndcg@10"
        The metric column to show.
    power : float, default 0.8
        The power of the table's ``mde`` (compare's is 0.8).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default: a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        Log-log axes, users on x and detectable difference on y: per pair a line (label
        ``"system - against"``; the t method's MDE at the level of the table's tests,
        :func:`evalkit.stats.power_curve`, for the spread of that pair's differences), a
        circle at the users it has (``n_shared``, ``mde``) and, where the observed difference
        is not 0, a cross at the users it would need to detect it (label ``"users needed
        for the observed difference"``).

    Raises
    ------
    TypeError, ValueError
        If columns are missing, ``column`` is not in the table, or no pair has an MDE on it.
    """
    from ..stats import mde as mde_of
    from ..stats import power_curve

    func = "detectable_differences"
    required = ("system", "against", "column", "diff", "n_shared", "mde")
    table = check_columns(table, func=func, arg="table", required=required)
    rows = table.loc[table["column"].astype(str).to_numpy() == str(column)]
    if rows.empty:
        have = ", ".join(map(repr, pd.unique(table["column"].astype(str))))
        raise ValueError(f"{func}: 'column' {column!r} is not in 'table'; it has {have or 'none'}.")
    rows = rows[rows["against"].notna() & np.isfinite(rows["mde"].astype(float))
                & (rows["mde"].astype(float) > 0)]
    if rows.empty:
        raise ValueError(f"{func}: no pair of systems on {column!r} has a detectable "
                         "difference ('mde') in 'table'.")
    alpha = float(getattr(table, "alpha", 0.05))
    tests = int(table["against"].notna().sum() if "permutation_pvalue" not in table.columns
                else table["permutation_pvalue"].notna().sum())
    ax = new_axes(ax, func=func)
    colors = system_colors(list(dict.fromkeys(table["system"].astype(str))))
    needed_label = "users needed for the observed difference"
    for row in rows.itertuples(index=False):
        n, found = int(row.n_shared), float(row.mde)
        unit = mde_of(sd=1.0, n_users=n, alpha=alpha, power=power, n_tests=max(tests, 1))
        sd = found / unit
        grid = np.unique(np.geomspace(max(2, n // 20), 50 * n, 24).round().astype(int))
        curve = power_curve(sd=sd, n_users=grid, alpha=alpha, power=power,
                            n_tests=max(tests, 1))
        color = colors[str(row.system)]
        ax.plot(curve["n_users"], curve["mde"], color=color, linewidth=2,
                label=f"{row.system} - {row.against}")
        ax.scatter([n], [found], color=color, s=45, zorder=4)
        observed = abs(float(row.diff))
        needed = getattr(row, "users_needed", None)
        if observed > 0 and needed is not None and not pd.isna(needed):
            ax.scatter([int(needed)], [observed], marker="x", color=color, s=60, zorder=4,
                       label=needed_label)
            needed_label = "_nolegend_"
    ax.set_xscale("log")
    ax.set_yscale("log")
    label = metric_label(column)
    ax.set_xlabel("Users shared by the two systems")
    ax.set_ylabel(f"Smallest detectable difference in {label}")
    ax.set_title(f"{label}: what a comparison of this many users can detect "
                 f"({round(100 * power)}% power)")
    legend_outside(ax)
    return ax


@constrained(ax=AXES)
@styled
def gamma_sensitivity(
    table: pd.DataFrame,
    *,
    ax: Axes | None = None,
) -> Axes:
    """Each system's popularity-debiased metric against the assumed bias, with intervals.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`evalkit.protocols.debiased.gamma_sensitivity` output: ``gamma, system, value,
        ci_low, ci_high``, and ``metric`` (the y-axis label) when it has one.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default: a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        One line per system (label the system, in the table's order) with its interval as a
        band, and a dotted line at gamma = -1 (no bias: the ordinary metric) when it is drawn.
    """
    func = "gamma_sensitivity"
    table = check_columns(table, func=func, arg="table",
                          required=("gamma", "system", "value", "ci_low", "ci_high"))
    if table.empty:
        raise ValueError(f"{func}: 'table' holds no row.")
    ax = new_axes(ax, func=func)
    names = list(dict.fromkeys(table["system"].astype(str)))
    colors = system_colors(names)
    for name in names:
        rows = table[table["system"].astype(str) == name].sort_values("gamma")
        x = numeric(rows, "gamma", func=func, arg="table")
        ax.plot(x, numeric(rows, "value", func=func, arg="table"), marker="o",
                color=colors[name], linewidth=2, label=name)
        ax.fill_between(x, numeric(rows, "ci_low", func=func, arg="table"),
                        numeric(rows, "ci_high", func=func, arg="table"), color=colors[name],
                        alpha=0.15, linewidth=0)
    if (table["gamma"] == -1).any():
        ax.axvline(-1.0, color=REFERENCE_COLOR, linestyle=":", linewidth=1.2,
                   label="no bias (the ordinary metric)")
    ax.set_xlabel("Assumed popularity bias gamma (propensity ~ popularity^((gamma+1)/2))")
    named = table["metric"].iloc[0] if "metric" in table.columns else "Debiased value"
    ax.set_ylabel(f"{named} (band: its interval)")
    ax.set_title("Does the winner depend on the assumed popularity bias?"
                 if table["system"].nunique() > 1 else
                 f"{table['system'].iloc[0]} across the assumed popularity bias")
    legend_outside(ax)
    return ax
