"""Plots of rating predictions: error distribution, predicted against actual ratings, and the
precision-recall curve over the prediction cutoff."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.ticker import MaxNLocator

from .._checks import check_columns, describe, join_predictions
from .._constraints import POSITIVE_INT, choice, constrained
from .._errors import InvalidParameterError
from ._style import (
    AXES,
    PALETTE,
    REFERENCE_COLOR,
    legend_outside,
    new_axes,
    numeric,
    styled,
)

__all__ = ["pr_curve_cutoff", "predicted_vs_actual", "rating_errors"]


@constrained(bins=POSITIVE_INT, ax=AXES)
@styled
def rating_errors(
    truth: pd.DataFrame,
    predictions: pd.DataFrame,
    *,
    bins: int = 40,
    missing: str = "error",
    ax: Axes | None = None,
) -> Axes:
    """Histogram of the rating prediction errors, predicted minus actual.

    Parameters
    ----------
    truth : pandas.DataFrame
        Test ratings ``user_id, item_id, rating``.
    predictions : pandas.DataFrame
        ``user_id, item_id, prediction`` (as ``BiasBaseline.predict`` returns).
    bins : int, default 40
        Number of equal-width bins.
    missing : {"error", "drop"}, default "error"
        A test rating without a prediction is an error, or is left out with a warning, as in
        :func:`evalkit.metrics.rating.mae`.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default: a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        One step patch (``ax.patches[0].get_data()``: counts and edges of the errors), a dotted
        line at 0 and a dashed line at the mean error; MAE and RMSE in the legend.

    Raises
    ------
    TypeError, ValueError
        As :func:`evalkit.metrics.rating.mae` for the inputs; for a bad ``bins``.

    Notes
    -----
    The error of a test rating is e = r_hat - r, so positive errors are over-predictions and
    the mean error is the bias; ``MAE = mean |e|``, RMSE = sqrt(mean e^2) over all test ratings.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> plt.switch_backend("agg")
    >>> truth = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [1, 2, 1],
    ...                       "rating": [4.0, 2.0, 5.0]})
    >>> predictions = truth[["user_id", "item_id"]].assign(prediction=[3.5, 2.5, 4.0])
    >>> ax = rating_errors(truth, predictions, bins=4)
    >>> ax.patches[0].get_data().values.tolist()
    [1.0, 1.0, 0.0, 1.0]
    >>> plt.close("all")
    """
    func = "rating_errors"
    joined = join_predictions(truth, predictions, func=func, missing=missing).frame
    error = joined["prediction"].to_numpy(np.float64) - joined["rating"].to_numpy(np.float64)
    if error.size == 0:
        raise ValueError(f"{func}: no test rating has a prediction; nothing to plot.")
    ax = new_axes(ax, func=func)
    counts, edges = np.histogram(error, bins=bins)
    mae, rmse, bias = np.abs(error).mean(), np.sqrt((error ** 2).mean()), error.mean()
    ax.stairs(counts.astype(np.float64), edges, fill=True, color=PALETTE[0], alpha=0.35)
    ax.stairs(counts.astype(np.float64), edges, color=PALETTE[0], linewidth=1.6,
              label=f"{error.size:,} test ratings\nMAE {mae:.3f}, RMSE {rmse:.3f}")
    ax.axvline(0.0, color="black", linestyle=":", linewidth=1.2, label="no error")
    ax.axvline(bias, color=PALETTE[3], linestyle="--", linewidth=1.4,
               label=f"mean error (bias) {bias:+.3f}")
    ax.set_xlabel("Prediction error: predicted minus actual rating (stars)")
    ax.set_ylabel("Test ratings")
    ax.set_title("Distribution of rating prediction errors")
    ax.set_ylim(bottom=0)
    legend_outside(ax)
    return ax


def _box_stats(rating: np.ndarray, prediction: np.ndarray) -> pd.DataFrame:
    """Tukey box statistics of the predictions for each distinct true rating."""
    frame = pd.DataFrame({"rating": rating, "prediction": prediction})
    grouped = frame.groupby("rating", sort=True)["prediction"]
    q = grouped.quantile([0.25, 0.5, 0.75]).unstack()
    q.columns = ["q1", "med", "q3"]
    stats = q.assign(mean=grouped.mean(), n=grouped.size())
    iqr = stats["q3"] - stats["q1"]
    low_fence = (stats["q1"] - 1.5 * iqr).reindex(frame["rating"]).to_numpy()
    high_fence = (stats["q3"] + 1.5 * iqr).reindex(frame["rating"]).to_numpy()
    inside_low = np.where(prediction >= low_fence, prediction, np.inf)
    inside_high = np.where(prediction <= high_fence, prediction, -np.inf)
    stats["whislo"] = pd.Series(inside_low).groupby(rating).min().to_numpy()
    stats["whishi"] = pd.Series(inside_high).groupby(rating).max().to_numpy()
    return stats


@constrained(kind=choice("box", "hexbin"), ax=AXES)
@styled
def predicted_vs_actual(
    truth: pd.DataFrame,
    predictions: pd.DataFrame,
    *,
    kind: str = "box",
    missing: str = "error",
    ax: Axes | None = None,
) -> Axes:
    """Predicted ratings against actual ratings, with the diagonal of perfect prediction.

    Parameters
    ----------
    truth : pandas.DataFrame
        Test ratings ``user_id, item_id, rating``.
    predictions : pandas.DataFrame
        ``user_id, item_id, prediction``.
    kind : {"box", "hexbin"}, default "box"
        A box of the predictions at each distinct actual rating (for star ratings), or a
        hexagonal 2-D histogram (for continuous ratings).
    missing : {"error", "drop"}, default "error"
        As :func:`rating_errors`.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default: a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        ``"box"``: one box per distinct rating at x = that rating (``ax.patches``), a scatter
        of the mean predictions (``ax.collections[0]``) and the diagonal (a line labelled
        ``"perfect prediction"``). ``"hexbin"``: one hexbin collection and the diagonal.

    Raises
    ------
    TypeError, ValueError
        As :func:`rating_errors`, or for an unknown ``kind``.

    Notes
    -----
    Boxes span the quartiles of the predictions (linear interpolation), the line inside is the
    median, whiskers reach the most extreme prediction within 1.5 IQR of the box; outliers
    are not drawn (there are too many in real data).

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> plt.switch_backend("agg")
    >>> truth = pd.DataFrame({"user_id": 1, "item_id": [1, 2, 3, 4],
    ...                       "rating": [2.0, 2.0, 4.0, 4.0]})
    >>> predictions = truth[["user_id", "item_id"]].assign(prediction=[2.5, 3.0, 3.5, 4.5])
    >>> ax = predicted_vs_actual(truth, predictions)
    >>> ax.collections[0].get_offsets().tolist()
    [[2.0, 2.75], [4.0, 4.0]]
    >>> plt.close("all")
    """
    func = "predicted_vs_actual"
    joined = join_predictions(truth, predictions, func=func, missing=missing).frame
    rating = joined["rating"].to_numpy(np.float64)
    prediction = joined["prediction"].to_numpy(np.float64)
    if rating.size == 0:
        raise ValueError(f"{func}: no test rating has a prediction; nothing to plot.")
    ax = new_axes(ax, func=func)
    if kind == "box":
        stats = _box_stats(rating, prediction)
        positions = stats.index.to_numpy(np.float64)
        step = np.diff(positions).min() if len(positions) > 1 else 1.0
        records = [
            {"med": r.med, "q1": r.q1, "q3": r.q3, "whislo": r.whislo, "whishi": r.whishi,
             "fliers": []}
            for r in stats.itertuples()
        ]
        ax.scatter(positions, stats["mean"].to_numpy(), marker="D", s=22, color="white",
                   edgecolor="black", zorder=4, label="mean prediction")
        ax.bxp(records, positions=positions, widths=0.55 * step, patch_artist=True,
               showfliers=False, manage_ticks=False,
               boxprops={"facecolor": PALETTE[5], "edgecolor": "#333333", "alpha": 0.8},
               medianprops={"color": "#222222", "linewidth": 1.6},
               whiskerprops={"color": "#333333"}, capprops={"color": "#333333"})
        ax.set_xticks(positions, [f"{p:g}" for p in positions])
        ax.set_xlim(positions.min() - step, positions.max() + step)
    else:
        ax.hexbin(rating, prediction, gridsize=30, mincnt=1, bins="log", cmap="Blues",
                  linewidths=0.2)
    low = min(rating.min(), prediction.min())
    high = max(rating.max(), prediction.max())
    ax.plot([low, high], [low, high], color=REFERENCE_COLOR, linestyle="--", linewidth=1.3,
            label="perfect prediction")
    ax.set_xlabel("Actual rating (stars)")
    ax.set_ylabel("Predicted rating (stars)")
    ax.set_title(f"Predicted against actual ratings ({rating.size:,} test ratings)")
    legend_outside(ax)
    return ax


@constrained(ax=AXES)
@styled
def pr_curve_cutoff(
    curve: pd.DataFrame,
    *,
    mark_cutoffs: Sequence[float] | None = None,
    ax: Axes | None = None,
) -> Axes:
    """Precision against recall as the prediction cutoff for "relevant" varies.

    Parameters
    ----------
    curve : pandas.DataFrame
        :func:`evalkit.metrics.classification.precision_recall_curve` output, or any frame
        with columns ``cutoff, precision, recall``.
    mark_cutoffs : sequence of float, optional
        Cutoffs c to mark and label ">= c"; each marks the classification "prediction >= c",
        that is the row of the smallest cutoff >= c (values outside the range are skipped).
        Default: about five round values spread over the range.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default: a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        One line (x recall, y precision, rows in ascending cutoff order) with markers at the
        marked rows (``Line2D.get_markevery()``), and a dashed line at the precision of the
        lowest cutoff (everything predicted relevant: the share of relevant test ratings).

    Raises
    ------
    TypeError, ValueError
        If ``curve`` lacks a column, holds non-numeric values, or is empty.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> plt.switch_backend("agg")
    >>> curve = pd.DataFrame({"cutoff": [3.0, 4.0, 4.5], "precision": [0.5, 0.6, 1.0],
    ...                       "recall": [1.0, 0.75, 0.25]})
    >>> ax = pr_curve_cutoff(curve)
    >>> ax.lines[0].get_xdata().tolist()
    [1.0, 0.75, 0.25]
    >>> plt.close("all")
    """
    func = "pr_curve_cutoff"
    curve = check_columns(curve, func=func, arg="curve", required=("cutoff", "precision", "recall"))
    cutoff = numeric(curve, "cutoff", func=func, arg="curve")
    order = np.argsort(cutoff, kind="stable")
    cutoff = cutoff[order]
    precision = numeric(curve, "precision", func=func, arg="curve")[order]
    recall = numeric(curve, "recall", func=func, arg="curve")[order]
    if cutoff.size == 0:
        raise ValueError(f"{func}: 'curve' is empty; nothing to plot.")
    if mark_cutoffs is None:
        wanted = MaxNLocator(nbins=6, steps=[1, 2, 5, 10]).tick_values(cutoff.min(), cutoff.max())
    else:
        if isinstance(mark_cutoffs, (str, bytes)) or not isinstance(mark_cutoffs, Sequence):
            raise InvalidParameterError(
                f"{func}: 'mark_cutoffs' must be a sequence of numbers or None; got "
                f"{describe(mark_cutoffs)}."
            )
        wanted = np.asarray(mark_cutoffs, dtype=np.float64)
    # "prediction >= c" classifies as the smallest cutoff row >= c does
    wanted = np.unique(wanted[(wanted >= cutoff.min()) & (wanted <= cutoff.max())])
    rows = np.searchsorted(cutoff, wanted, side="left")
    ax = new_axes(ax, func=func)
    ax.plot(recall, precision, color=PALETTE[0], marker="o", markevery=[int(i) for i in rows],
            markersize=5, label="precision, recall")
    last = None
    for value, i in zip(wanted, rows):
        here = np.array([recall[i], precision[i]])
        if last is not None and np.hypot(*(here - last)) < 0.04:
            continue
        last = here
        ax.annotate(f"\u2265{value:g}", (recall[i], precision[i]), xytext=(5, 5),
                    textcoords="offset points", fontsize=8.5, color=PALETTE[0])
    ax.axhline(precision[0], color=REFERENCE_COLOR, linestyle="--", linewidth=1.2,
               label=f"all predicted relevant ({precision[0]:.2f})")
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("Recall (share of relevant test ratings predicted relevant)")
    ax.set_ylabel("Precision")
    ax.set_title("Precision and recall over the prediction cutoff")
    legend_outside(ax, title="Numbers: predicted\nrating \u2265 cutoff")
    return ax
