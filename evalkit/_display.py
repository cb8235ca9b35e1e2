"""How evalkit's results show in a notebook: tables whose text is not cut short, prose that
prints as prose, and progress bars that leave nothing behind.

JupyterLab shows a DataFrame through pandas' HTML, which cuts every cell at
``display.max_colwidth`` (50 characters), and a string as its quoted ``repr``; a text
progress bar written to stderr stays in the cell as a pink block. The classes here keep the
objects what they are (a DataFrame, a str) and change only how they are shown.

Numbers show the same way everywhere: floats at :data:`DIGITS` decimals in a displayed table
(:class:`CompactTable`: its values, and ``.table``, keep full precision), p-values through
:func:`format_pvalue` (``"< 0.001"`` below 0.001).
"""

from __future__ import annotations

import html
import math
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

import pandas as pd

__all__ = ["CURVE_USERS", "DIGITS", "SMALLEST_P", "CompactTable", "CurveTable", "Record", "Text",
           "WideTable", "format_pvalue", "metric_column", "progress"]

T = TypeVar("T")

#: Decimals of the floats in a displayed table (the values themselves keep full precision).
DIGITS = 4
#: The prefix of a curve table's columns that count the users in each metric's means.
CURVE_USERS = "n_users_"


def metric_column(name: str, k: int | None) -> str:
    """Column name of a metric at a cutoff in evalkit's tables: ``"ndcg@10"``.

    Parameters
    ----------
    name : str
        The metric's registry name (``"ndcg"``).
    k : int or None
        The cutoff; None for a metric without one.
    """
    return name if k is None else f"{name}@{k}"

#: The smallest p-value shown as a number; a smaller one shows as ``"< 0.001"``.
SMALLEST_P = 0.001


def format_pvalue(pvalue: float | None, *, at_floor: bool = False) -> str:
    """A p-value as evalkit's tables, Markdown and plots show it.

    Parameters
    ----------
    pvalue : float or None
        The p-value (NaN or None: no test).
    at_floor : bool, default False
        Whether ``pvalue`` is the smallest the test can give (a randomization test whose
        observed statistic beat every random sign flip, ``p_at_floor`` of a comparison
        table), possibly multiplied by a correction: then it is an upper bound of the
        p-value, not an estimate.

    Returns
    -------
    str
        Two significant digits, never in scientific notation (``"0.035"``, ``"0.0012"``,
        ``"1"``); ``"< 0.001"`` below 0.001; an upper bound as ``"< b"``, ``b`` the bound
        rounded up to one significant digit and at least 0.001 (``11/10001``, the floor of
        10,000 sign flips after a Holm correction over 11 tests, shows as ``"< 0.002"``);
        ``""`` for NaN.

    Notes
    -----
    A bound is rounded up, never down, so that ``"< b"`` stays true. The reason for a
    bound (how many flips or resamples the test drew) belongs in a note beside the table.

    Examples
    --------
    >>> format_pvalue(0.03456), format_pvalue(1.0), format_pvalue(6.5e-23)
    ('0.035', '1', '< 0.001')
    >>> format_pvalue(1 / 10001, at_floor=True), format_pvalue(11 / 10001, at_floor=True)
    ('< 0.001', '< 0.002')
    >>> format_pvalue(float("nan"))
    ''
    """
    if pvalue is None or not math.isfinite(pvalue):
        return ""
    if pvalue < SMALLEST_P or (at_floor and pvalue <= SMALLEST_P):
        return f"< {SMALLEST_P:g}"
    if at_floor:
        exponent = math.floor(math.log10(pvalue))
        bound = math.ceil(round(pvalue / 10.0**exponent, 9)) * 10.0**exponent
        return "< " + f"{bound:.{max(0, -exponent)}f}".rstrip("0").rstrip(".")
    return f"{pvalue:.2g}"  # from 0.001 up, never in scientific notation


def _float_text(digits: int) -> Callable[[float], str]:
    return f"{{:.{digits}f}}".format


class TableFrame(pd.DataFrame):
    """A DataFrame with a display of its own: anything derived from one is a plain DataFrame,
    and :attr:`table` is every column at full precision."""

    @property
    def _constructor(self) -> type:
        return pd.DataFrame

    @property
    def table(self) -> pd.DataFrame:
        """Every column at full precision, as a plain DataFrame (a copy)."""
        return pd.DataFrame(self, copy=True)


class CompactTable(TableFrame):
    """A DataFrame that a notebook shows compactly and whole: floats at :data:`DIGITS`
    decimals, every row, the columns of :meth:`compact`, and a line saying what the display
    leaves out. The values keep full precision; :attr:`table` is every column as a plain
    DataFrame, and anything derived from one (``t[t["mean"] > 0]``, ``t.copy()``) is a plain
    DataFrame too. To compare one with a plain DataFrame, pass ``check_frame_type=False`` to
    ``pandas.testing.assert_frame_equal``."""

    def compact(self) -> pd.DataFrame:
        """The columns the display shows (here: every one), as a plain DataFrame."""
        return pd.DataFrame(self)

    def note(self) -> str:
        """The line under the displayed table: the rounding, and the columns left out."""
        shown = self.compact()
        hidden = [str(c) for c in self.columns if c not in shown.columns]
        return (f"Rounded to {DIGITS} decimals for display; .table holds every column"
                + (f" ({', '.join(hidden)} too)" if hidden else "") + " at full precision.")

    def _repr_html_(self) -> str | None:
        with pd.option_context("display.float_format", _float_text(DIGITS),
                               "display.max_rows", None, "display.max_columns", None):
            shown = self.compact()._repr_html_()
        return (f"{shown}<p style='font-size:smaller'>{html.escape(self.note())}</p>")

    def __repr__(self) -> str:
        with pd.option_context("display.float_format", _float_text(DIGITS),
                               "display.max_rows", None, "display.max_columns", None,
                               "display.width", 100):
            return f"{self.compact().__repr__()}\n{self.note()}"


class CurveTable(CompactTable):
    """A table of curves over cutoffs (:func:`evalkit.metrics.ranking_curves`): a notebook
    shows the means, and the users each metric's means count (the ``n_users_<metric>``
    columns) in the line under them."""

    def _counts(self) -> list[str]:
        return [c for c in self.columns if str(c).startswith(CURVE_USERS)]

    def compact(self) -> pd.DataFrame:
        return pd.DataFrame(self).drop(columns=self._counts())

    def note(self) -> str:
        groups: dict[str, list[str]] = {}
        for column in self._counts():
            counts = self[column]
            low, high = int(counts.min()), int(counts.max())
            shown = f"{low:,}" if low == high else f"{low:,} to {high:,} over k"
            groups.setdefault(shown, []).append(str(column)[len(CURVE_USERS):])
        users = "; ".join(f"{', '.join(names)}: {shown}" for shown, names in groups.items())
        return (f"Rounded to {DIGITS} decimals for display; .table holds every column at full "
                "precision. Users in each mean (columns n_users_<metric>): "
                f"{users or 'none'}.")


class WideTable(TableFrame):
    """A DataFrame shown with its text cells whole (``display.max_colwidth`` lifted for its
    own display only). Anything derived from it is a plain DataFrame."""

    def _repr_html_(self) -> str | None:
        with pd.option_context("display.max_colwidth", None):
            return pd.DataFrame(self)._repr_html_()

    def __repr__(self) -> str:
        with pd.option_context("display.max_colwidth", None, "display.width", 250,
                               "display.max_columns", None):
            return pd.DataFrame(self).__repr__()


class Text(str):
    """A str that a notebook shows as its text, line breaks and all, rather than as a quoted
    one-line ``repr``. ``print(text)`` and every str operation are unchanged."""

    def __repr__(self) -> str:
        return str(self)

    def _repr_pretty_(self, printer: object, cycle: bool) -> None:
        printer.text(str(self))  # type: ignore[attr-defined]


class Record(dict):
    """A dict (of an evaluation's definitions) that a notebook shows as a table: one row per
    entry with its value; where ``defaults`` is given and some value differs from its
    default, the default of each such entry (column ``default``, empty where the value is the
    default); and, where ``meaning`` has it, what it means."""

    def __init__(self, data: object = (), meaning: dict[str, str] | None = None,
                 defaults: dict[str, object] | None = None) -> None:
        super().__init__(data)
        self._meaning = dict(meaning or {})
        self._defaults = None if defaults is None else dict(defaults)

    def _rows(self) -> pd.DataFrame:
        columns = {"value": [repr(v) for v in self.values()]}
        if self._defaults is not None:
            changed = ["" if k not in self._defaults or v == self._defaults[k]
                       else repr(self._defaults[k]) for k, v in self.items()]
            if any(changed):
                columns["default"] = changed
        columns["meaning"] = [self._meaning.get(k, "") for k in self]
        return pd.DataFrame(columns, index=pd.Index(list(self), name="definition"))

    def _repr_html_(self) -> str:
        with pd.option_context("display.max_colwidth", None, "display.max_rows", None):
            return self._rows()._repr_html_()

    def _repr_pretty_(self, printer: object, cycle: bool) -> None:
        with pd.option_context("display.max_colwidth", None, "display.max_rows", None,
                               "display.width", 200):
            printer.text(self._rows().to_string())  # type: ignore[attr-defined]


def _in_notebook() -> bool:
    """Whether the code runs in a Jupyter kernel (where stderr shows as a pink block)."""
    shell = sys.modules.get("IPython")
    if shell is None:
        return False
    ipython = shell.get_ipython()
    return ipython is not None and type(ipython).__name__ == "ZMQInteractiveShell"


def progress(items: Iterable[T], *, desc: str, enabled: bool = True,
             total: int | None = None) -> Iterator[T]:
    """``items`` with a progress bar: text on a terminal; in a notebook a widget where
    ``ipywidgets`` is installed, else none (a text bar would stay in the cell's output); none
    when ``enabled`` is False. The bar is removed when the loop ends."""
    if not enabled:
        yield from items
        return
    if _in_notebook():
        try:
            import ipywidgets  # noqa: F401
        except ImportError:
            yield from items
            return
        from tqdm.notebook import tqdm
    else:
        from tqdm import tqdm
    yield from tqdm(items, desc=desc, total=total, leave=False)
