"""Plots of a data set: rating distribution and user activity."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from .._checks import check_columns
from .._constraints import POSITIVE_INT, constrained
from .._errors import InvalidParameterError
from ._style import AXES, PALETTE, new_axes, styled

__all__ = ["rating_distribution", "user_activity"]


@constrained(ax=AXES)
@styled
def rating_distribution(table: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """Bars of the share of each rating value.

    Parameters
    ----------
    table : pd.DataFrame
        :func:`evalkit.explore.rating_distribution` output: ``rating, share``.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default: a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        One bar per rating value, its height the share.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> plt.switch_backend("agg")
    >>> ax = rating_distribution(pd.DataFrame({"rating": [4.0, 5.0], "share": [0.6, 0.4]}))
    >>> [round(float(p.get_height()), 2) for p in ax.patches]
    [0.6, 0.4]
    >>> plt.close("all")
    """
    func = "rating_distribution"
    table = check_columns(table, func=func, arg="table", required=("rating", "share"))
    ratings = table["rating"].to_numpy(dtype=np.float64)
    steps = np.diff(np.sort(ratings))
    width = 0.8 * (steps[steps > 0].min() if (steps > 0).any() else 1.0)
    ax = new_axes(ax, func=func)
    ax.bar(ratings, table["share"].to_numpy(dtype=np.float64), width=width, color=PALETTE[0])
    ax.set_xticks(ratings)
    ax.set_xticklabels([f"{r:g}" for r in ratings])
    ax.yaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    ax.set_xlabel("Rating")
    ax.set_ylabel("Share of ratings")
    ax.set_title("Rating distribution")
    return ax


@constrained(bins=POSITIVE_INT, ax=AXES)
@styled
def user_activity(activity: pd.Series, *, bins: int = 40, ax: Axes | None = None) -> Axes:
    """Histogram of interactions per user on a logarithmic x axis (activity is heavy-tailed).

    Parameters
    ----------
    activity : pd.Series
        :func:`evalkit.explore.user_activity` output: interactions per user.
    bins : int, default 40
        Number of logarithmically spaced bins.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default: a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The histogram, with the median marked by a dashed line.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> plt.switch_backend("agg")
    >>> ax = user_activity(pd.Series([20, 30, 30, 400]))
    >>> round(ax.lines[0].get_xdata()[0], 1)
    30.0
    >>> plt.close("all")
    """
    func = "user_activity"
    if not isinstance(activity, pd.Series) or not pd.api.types.is_numeric_dtype(activity.dtype):
        raise InvalidParameterError(
            f"{func}: 'activity' must be a numeric pandas Series; got "
            f"{type(activity).__name__}.")
    values = activity.to_numpy(dtype=np.float64)
    values = values[values > 0]
    ax = new_axes(ax, func=func)
    edges = np.geomspace(values.min(), values.max() * 1.0001, bins + 1) if values.size else [1, 2]
    ax.hist(values, bins=edges, color=PALETTE[0], alpha=0.85)
    median = float(np.median(values)) if values.size else np.nan
    ax.axvline(median, color="#222222", linestyle="--", linewidth=1.2,
               label=f"median {median:g}")
    ax.set_xscale("log")
    ax.set_xlabel("Interactions per user (log)")
    ax.set_ylabel("Users")
    ax.set_title("User activity")
    ax.legend(loc="upper right")
    return ax
