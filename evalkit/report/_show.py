"""Display helpers of the report notebooks: Markdown from text, a table at a fixed precision,
values with their intervals side by side."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

__all__ = ["md", "show"]


def md(text: str):
    """Markdown for a notebook cell's output: prose written from the values in use.

    Parameters
    ----------
    text : str
        Markdown text.
    """
    from IPython.display import Markdown

    return Markdown(text)


def show(table: pd.DataFrame, *, digits: int = 4):
    """``table`` for display: ``digits`` decimals, blanks for missing values and text columns
    aligned left, with a stable HTML id (so a re-run renders the same page).

    Parameters
    ----------
    table : pandas.DataFrame
        The table.
    digits : int, default 4
        Decimals shown.
    """
    import hashlib

    key = hashlib.sha256("|".join(map(str, table.columns)).encode()).hexdigest()[:8]
    styler = table.style.format(precision=digits, na_rep="").set_uuid(f"t{key}")
    text = [c for c in table.columns if not pd.api.types.is_numeric_dtype(table[c].dtype)]
    if text:
        styler = styler.set_properties(subset=text, **{"text-align": "left"})
    return styler


def interval_table(results: Mapping[str, pd.DataFrame], *,
                   higher_is_better: bool | None | Sequence[bool],
                   digits: int, counts: Sequence[str] = ("n_users", "n_ratings")
                   ) -> pd.DataFrame:
    """``value [low, high]`` per row of each system's ``value, ci_low, ci_high`` table
    (columns: systems), the best value of each row marked ``*`` (none where
    ``higher_is_better`` is None; one direction for every row, or one per row); then the
    ``counts`` columns (users, ratings) each value is over, shown once where every system
    has the same."""
    if not results:
        return pd.DataFrame()
    fmt = f"{{:.{digits}f}} [{{:.{digits}f}}, {{:.{digits}f}}]"
    table = pd.DataFrame({
        name: [fmt.format(v, lo, hi) if np.isfinite(v) else "" for v, lo, hi in
               zip(r["value"], r["ci_low"], r["ci_high"])]
        for name, r in results.items()}, index=next(iter(results.values())).index)
    values = pd.DataFrame({name: r["value"] for name, r in results.items()})
    if len(results) > 1 and higher_is_better is not None:
        direction = np.where(np.broadcast_to(np.asarray(higher_is_better, dtype=bool),
                                             (len(values),)), 1.0, -1.0)
        signed = values.mul(direction, axis=0)
        best = signed.fillna(-np.inf).to_numpy().argmax(axis=1)
        for row, col in enumerate(best):
            if np.isfinite(values.iat[row, col]):
                table.iat[row, col] += " *"
    for column in counts:
        numbers = pd.DataFrame({name: r[column] for name, r in results.items()})
        same = numbers.nunique(axis=1).eq(1)
        table[column.removeprefix("n_")] = [
            f"{numbers.iat[i, 0]:,}" if same.iat[i] else
            " / ".join(f"{c:,}" for c in numbers.iloc[i]) for i in range(len(numbers))]
    return table
