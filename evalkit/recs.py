"""Bring your own recommendations: read them from CSV or Parquet into canonical columns."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from ._checks import check_recs
from .data.interactions import ALIASES, column_renaming, normalize_ids, read_table

__all__ = ["read_recommendations"]

_FUNC = "read_recommendations"
_CANONICAL = ("user_id", "item_id", "score", "rank")
#: Column names recognised without a mapping.
RECS_ALIASES: dict[str, str] = {
    **{k: v for k, v in ALIASES.items() if v in ("user_id", "item_id")},
    "score": "score", "prediction": "score", "pred": "score",
    "rank": "rank", "position": "rank",
}  # fmt: skip


def read_recommendations(
    path: str | os.PathLike[str],
    *,
    columns: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Read a recommendation list from CSV, TSV or Parquet and validate it.

    Parameters
    ----------
    path : str or path-like
        A ``.csv``, ``.tsv`` (optionally compressed), ``.parquet`` or ``.pq`` file with a
        header.
    columns : mapping, optional
        File column name -> canonical name (``user_id``, ``item_id``, ``score``, ``rank``).
        Without it the usual names are recognised: ``userId``/``user``, ``movieId``/``itemId``/
        ``item``, ``prediction``/``pred`` for ``score``, ``position`` for ``rank``.

    Returns
    -------
    pd.DataFrame
        ``user_id, item_id`` and ``score`` and/or ``rank`` (int64), in file order; other
        columns are dropped. Integer ids are int64, or uint64 when an id is 2**63 or more (so
        64-bit hash ids stay exact).

    Raises
    ------
    ValueError, TypeError
        With the same checks the metrics apply (via ``check_recs``): missing columns, neither
        rank nor score, NaN or infinite scores, duplicate (user, item) pairs, duplicate or
        non-positive ranks; and for an unsupported file type or a bad mapping. A file that is
        empty, not valid for its suffix (fake gzip, garbage Parquet, not UTF-8), has a column
        name twice or looks written with another separator is a ``ValueError`` naming the
        file.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> file = pathlib.Path(tempfile.mkdtemp()) / "recs.csv"
    >>> _ = file.write_text("userId,movieId,prediction\\n1,10,0.9\\n1,11,0.4\\n")
    >>> read_recommendations(file)
       user_id  item_id  score
    0        1       10    0.9
    1        1       11    0.4
    """
    file = Path(path)
    if not file.is_file():
        raise ValueError(f"{_FUNC}: 'path' must be an existing file; got '{file}'.")
    frame, kind = read_table(file, func=_FUNC)
    mapping = column_renaming(frame, columns, func=_FUNC, canonical=_CANONICAL,
                              aliases=RECS_ALIASES)
    header = [str(c) for c in frame.columns]
    frame = frame.rename(columns=mapping)
    missing = [c for c in ("user_id", "item_id") if c not in frame.columns]
    ranked = bool({"rank", "score"} & set(frame.columns))
    if missing or not ranked:
        problem = [f"is missing column(s) {', '.join(missing)}"] if missing else []
        problem += [] if ranked else ["needs a 'rank' or a 'score' column"]
        raise ValueError(
            f"{_FUNC}: 'path' file '{file}' {' and '.join(problem)}; it has "
            f"{', '.join(header) or 'no columns'}. Rename yours, or pass 'columns' "
            "(e.g. columns={'uid': 'user_id', 'relevance': 'score'})."
        )
    keep = [c for c in _CANONICAL if c in frame.columns]
    frame = frame[keep].reset_index(drop=True)
    where = f"{_FUNC}: 'path' file '{file}'"
    for column in ("user_id", "item_id"):
        if column in frame and not frame[column].isna().any():  # check_recs reports NaN ids
            frame[column] = normalize_ids(frame[column], column, where=where,
                                          text=kind != "Parquet")  # fmt: skip
    if "rank" in frame and pd.api.types.is_float_dtype(frame["rank"].dtype):
        values = frame["rank"].to_numpy()
        if np.all(np.isfinite(values)) and np.all(values == np.round(values)):
            frame["rank"] = values.astype(np.int64)
    return check_recs(frame, func=_FUNC, arg="path")
