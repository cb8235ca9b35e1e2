"""The house style of evalkit's plots, and the argument checks every plot function shares."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TypeVar

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from cycler import cycler
from matplotlib.axes import Axes

from .._checks import check_columns, describe
from .._constraints import Constraint
from .._errors import InvalidParameterError

__all__ = ["BUCKET_COLORS", "FIGSIZE", "PALETTE", "REFERENCE_COLOR", "style_rc", "use_style"]

#: Okabe-Ito colours, distinguishable with the common colour-vision deficiencies; the n-th
#: system of a plot always gets the n-th colour.
PALETTE: tuple[str, ...] = (
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # bluish green
    "#D55E00",  # vermillion
    "#CC79A7",  # reddish purple
    "#56B4E9",  # sky blue
    "#000000",  # black
    "#F0E442",  # yellow
)
#: Colours of the item popularity buckets.
BUCKET_COLORS: dict[str, str] = {"head": "#0072B2", "mid": "#56B4E9", "tail": "#E69F00"}
#: Colour of reference elements (train shares, baselines, diagonals).
REFERENCE_COLOR = "#7F7F7F"
#: Size of one report figure, in inches.
FIGSIZE: tuple[float, float] = (7.0, 4.5)

F = TypeVar("F", bound=Callable)

# seaborn's "whitegrid" style and "notebook" context (seaborn 0.13), the base of the house
# style, written out so that plotting does not import seaborn (and through it scipy.stats,
# half a second) before a plot that draws with seaborn; a test checks them against seaborn.
_SEABORN_BASE: dict[str, object] = {
    "figure.facecolor": "white", "axes.labelcolor": ".15", "xtick.direction": "out",
    "ytick.direction": "out", "xtick.color": ".15", "ytick.color": ".15",
    "axes.axisbelow": True, "grid.linestyle": "-", "text.color": ".15",
    "font.family": ["sans-serif"],
    "font.sans-serif": ["Arial", "DejaVu Sans", "Liberation Sans", "Bitstream Vera Sans",
                        "sans-serif"],
    "lines.solid_capstyle": "round", "patch.edgecolor": "w", "patch.force_edgecolor": True,
    "image.cmap": "rocket", "xtick.top": False, "ytick.right": False, "axes.grid": True,
    "axes.facecolor": "white", "axes.edgecolor": ".8", "grid.color": ".8",
    "axes.spines.left": True, "axes.spines.bottom": True, "axes.spines.right": True,
    "axes.spines.top": True, "xtick.bottom": False, "ytick.left": False,
    "axes.linewidth": 1.25, "grid.linewidth": 1, "lines.linewidth": 1.5,
    "lines.markersize": 6, "patch.linewidth": 1, "xtick.major.width": 1.25,
    "ytick.major.width": 1.25, "xtick.minor.width": 1, "ytick.minor.width": 1,
    "xtick.major.size": 6, "ytick.major.size": 6, "xtick.minor.size": 4,
    "ytick.minor.size": 4, "font.size": 12, "axes.labelsize": 12, "axes.titlesize": 12,
    "xtick.labelsize": 11, "ytick.labelsize": 11, "legend.fontsize": 11,
    "legend.title_fontsize": 12,
}


def style_rc() -> dict[str, object]:
    """The matplotlib rc settings of evalkit's plots (see :func:`use_style`).

    Returns
    -------
    dict
        A fresh dict, safe to modify, for ``matplotlib.rc_context`` or ``rcParams.update``.

    Examples
    --------
    >>> style_rc()["figure.dpi"]
    110
    """
    rc: dict[str, object] = {key: list(value) if isinstance(value, list) else value
                             for key, value in _SEABORN_BASE.items()}
    rc.update(
        {
            "figure.figsize": FIGSIZE,
            "figure.dpi": 110,
            "savefig.dpi": 110,
            "savefig.bbox": "tight",
            "font.size": 10.5,
            "axes.titlesize": 12.5,
            "axes.labelsize": 11,
            "xtick.labelsize": 10,
            "ytick.labelsize": 10,
            "legend.fontsize": 9.5,
            "legend.title_fontsize": 10,
            "legend.frameon": False,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "axes.edgecolor": ".6",
            "xtick.bottom": True,
            "ytick.left": True,
            "xtick.major.size": 4,
            "ytick.major.size": 4,
            "lines.linewidth": 1.8,
            "lines.markersize": 5,
            "axes.prop_cycle": cycler(color=list(PALETTE)),
            "image.cmap": "viridis",
        }
    )
    return rc


@contextmanager
def use_style() -> Iterator[None]:
    """Apply evalkit's plot style inside a ``with`` block, restoring the previous one after.

    Every plot function of :mod:`evalkit.plots` draws inside this context; importing evalkit
    changes no global state. Use it for your own figures to match them.

    Notes
    -----
    Seaborn's ``whitegrid`` style and ``notebook`` context, the colour-blind-safe Okabe-Ito
    palette (:data:`PALETTE`), fonts sized for a 7 x 4.5 inch figure at 110 dpi, no top and
    right spines, legends without frames.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> before = plt.rcParams["figure.dpi"]
    >>> with use_style():
    ...     plt.rcParams["figure.dpi"]
    110.0
    >>> plt.rcParams["figure.dpi"] == before
    True
    """
    # Only the style's own keys are saved and restored: ``plt.rc_context`` would also restore
    # "interactive", which the first pyplot call of a notebook session turns on (and with it
    # the inline display of figures), so every later figure would stay hidden.
    rc = style_rc()
    saved = {key: plt.rcParams[key] for key in rc}
    try:
        plt.rcParams.update(rc)
        yield
    finally:
        plt.rcParams.update(saved)


def styled(function: F) -> F:
    """Run a plot function inside :func:`use_style`; in a notebook, see that its figure is
    rendered once (:func:`render_once_inline`)."""

    @functools.wraps(function)
    def wrapper(*args: object, **kwargs: object) -> object:
        with use_style():
            result = function(*args, **kwargs)
        render_once_inline()
        return result

    return wrapper  # type: ignore[return-value]


def render_once_inline() -> bool:
    """In a Jupyter kernel showing figures inline, have each figure rendered once per cell.

    After a cell, IPython runs pyplot's hook that redraws every changed figure and then the
    inline backend's, which renders the figures again as the PNGs it shows and closes them;
    pyplot's hook is registered first (when the backend is chosen), so every figure is
    rendered twice and the first rendering is thrown away (a seventh of the kernel's time in
    a notebook on small data, where drawing is most of the work). This moves pyplot's hook
    after the inline backend's, where it finds the figures already shown and closed; what is
    displayed does not change. Nothing happens outside IPython, with another backend, or when
    the order is already right. Returns whether the order was changed.
    """
    inline = sys.modules.get("matplotlib_inline.backend_inline")
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    redraw = getattr(plt, "_draw_all_if_interactive", None)
    if shell is None or inline is None or redraw is None:
        return False
    callbacks = shell.events.callbacks.get("post_execute", [])
    show = getattr(inline, "flush_figures", None)
    if redraw not in callbacks or show not in callbacks:
        return False
    if callbacks.index(redraw) > callbacks.index(show):
        return False
    shell.events.unregister("post_execute", redraw)
    shell.events.register("post_execute", redraw)
    return True


# --------------------------------------------------------------------------------------------
# shared helpers


def _check_axes(value: object, *, func: str, arg: str) -> object:
    if value is not None and not isinstance(value, Axes):
        raise InvalidParameterError(
            f"{func}: '{arg}' must be a matplotlib Axes or None; got {describe(value)}.")
    return value


#: The axes a plot draws on: a matplotlib Axes, or None for a new figure.
AXES = Constraint(_check_axes, ("axes", 3))


def new_axes(ax: object, *, func: str, figsize: tuple[float, float] = FIGSIZE) -> Axes:
    """``ax`` when given (every public plot constrains it: :data:`AXES`), else the axes of a
    new constrained-layout figure."""
    if ax is None:
        _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def system_colors(names: Sequence[str]) -> dict[str, str]:
    """The n-th system gets the n-th palette colour (cycling past the palette's end)."""
    return {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(names)}


def metric_label(column: str) -> str:
    """Display label of a metric column, the metric's long label from its declaration
    (:class:`evalkit.metrics.Metric`): ``"hit_rate@10"`` -> ``"Hit rate@10"``.

    Parameters
    ----------
    column : str
        A metric column (``"hit_rate@10"``) or a metric's name.
    """
    from ..metrics import RANKING_METRICS  # on use: plotting does not load the metrics

    name, at, k = str(column).partition("@")
    known = RANKING_METRICS.get(name)
    return (known.long_label if known is not None else name) + (f"@{k}" if at else "")


def legend_outside(ax: Axes, *, extra: Sequence[object] = (), title: str | None = None) -> None:
    """A legend to the right of the axes, outside the data; ``extra`` adds proxy handles."""
    handles, _ = ax.get_legend_handles_labels()
    handles = list(handles) + list(extra)
    if handles:
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  borderaxespad=0.0, title=title)


def numeric(frame: pd.DataFrame, column: str, *, func: str, arg: str) -> np.ndarray:
    """``frame[column]`` as float64 (NaN allowed); TypeError when it is not numeric."""
    series = frame[column]
    if pd.api.types.is_bool_dtype(series.dtype) or not pd.api.types.is_numeric_dtype(series.dtype):
        raise InvalidParameterError(
            f"{func}: '{arg}' column '{column}' must be numeric; got dtype {series.dtype}."
        )
    return series.to_numpy(dtype=np.float64, na_value=np.nan)


def check_tables(
    tables: object, *, func: str, arg: str, required: Sequence[str], allow_frame: bool = False
) -> dict[str, pd.DataFrame]:
    """A non-empty dict of system name to DataFrame holding ``required`` columns.

    With ``allow_frame`` a single DataFrame is accepted too, under the name ``""``.
    """
    if allow_frame and isinstance(tables, pd.DataFrame):
        return {"": check_columns(tables, func=func, arg=arg, required=required)}
    if not isinstance(tables, Mapping) or not tables:
        kind = "a DataFrame or " if allow_frame else ""
        raise InvalidParameterError(
            f"{func}: '{arg}' must be {kind}a non-empty dict of system name to DataFrame; got "
            f"{describe(tables)}."
        )
    return {
        str(name): check_columns(frame, func=func, arg=f"{arg}[{name!r}]", required=required)
        for name, frame in tables.items()
    }


def k_values(frame: pd.DataFrame, *, func: str, arg: str) -> np.ndarray:
    """The cutoffs of a ``ranking_curves`` table: its ``k`` column, else its index."""
    values = frame["k"] if "k" in frame.columns else pd.Series(frame.index, index=frame.index)
    if not pd.api.types.is_numeric_dtype(values.dtype) or values.isna().any():
        raise InvalidParameterError(
            f"{func}: '{arg}' must hold the cutoffs k in a numeric index or column 'k' (as "
            f"ranking_curves returns); got {values.dtype}."
        )
    return values.to_numpy(dtype=np.float64)

