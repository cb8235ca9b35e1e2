"""Bring your own recommendations: read them from CSV or Parquet into canonical columns."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from .data.interactions import ALIASES, _read, _renaming
from .metrics._common import check_recs

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
        columns are dropped.

    Raises
    ------
    ValueError, TypeError
        With the same checks the metrics apply (via ``check_recs``): missing columns, neither
        rank nor score, NaN or infinite scores, duplicate (user, item) pairs, duplicate or
        non-positive ranks; and for an unsupported file type or a bad mapping.

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
    frame = _read(file, func=_FUNC)
    mapping = _renaming(frame, columns, func=_FUNC, canonical=_CANONICAL, aliases=RECS_ALIASES)
    frame = frame.rename(columns=mapping)
    keep = [c for c in _CANONICAL if c in frame.columns]
    frame = frame[keep].reset_index(drop=True)
    for column in ("user_id", "item_id"):
        if column in frame and pd.api.types.is_integer_dtype(frame[column].dtype):
            frame[column] = frame[column].astype(np.int64)
    if "rank" in frame and pd.api.types.is_float_dtype(frame["rank"].dtype):
        values = frame["rank"].to_numpy()
        if np.all(np.isfinite(values)) and np.all(values == np.round(values)):
            frame["rank"] = values.astype(np.int64)
    return check_recs(frame, func=_FUNC, arg="path")
