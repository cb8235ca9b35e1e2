"""How evalkit's results show in a notebook: tables whose text is not cut short, prose that
prints as prose, and progress bars that leave nothing behind.

JupyterLab shows a DataFrame through pandas' HTML, which cuts every cell at
``display.max_colwidth`` (50 characters), and a string as its quoted ``repr``; a text
progress bar written to stderr stays in the cell as a pink block. The classes here keep the
objects what they are (a DataFrame, a str) and change only how they are shown.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import TypeVar

import pandas as pd

__all__ = ["Record", "Text", "WideTable", "progress"]

T = TypeVar("T")


class WideTable(pd.DataFrame):
    """A DataFrame shown with its text cells whole (``display.max_colwidth`` lifted for its
    own display only). Anything derived from it is a plain DataFrame."""

    @property
    def _constructor(self) -> type:
        return pd.DataFrame

    def _repr_html_(self) -> str | None:
        with pd.option_context("display.max_colwidth", None):
            return pd.DataFrame(self)._repr_html_()

    def __repr__(self) -> str:
        with pd.option_context("display.max_colwidth", None, "display.width", 250):
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
    entry with its value and, where ``meaning`` has it, what it means."""

    def __init__(self, data: object = (), meaning: dict[str, str] | None = None) -> None:
        super().__init__(data)
        self._meaning = dict(meaning or {})

    def _rows(self) -> pd.DataFrame:
        return pd.DataFrame({"value": [repr(v) for v in self.values()],
                             "meaning": [self._meaning.get(k, "") for k in self]},
                            index=pd.Index(list(self), name="definition"))

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
