"""Evaluation inputs as Parquet, and several systems' lists in one Spark DataFrame.

:func:`write_parquet` writes pandas frames where Spark reads them (the test interactions, the
systems' lists in one file with a ``system`` column, optionally the training interactions);
:func:`split_systems` gives one Spark DataFrame per system back, with the columns that system
has.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .._checks import as_dataframe, check_columns

__all__ = ["ParquetFiles", "split_systems", "write_parquet"]

SYSTEM = "system"
_RECS = ("user_id", "item_id", "rank", "score")
_INTERACTIONS = ("user_id", "item_id", "rating", "timestamp")


@dataclass(frozen=True)
class ParquetFiles:
    """What :func:`write_parquet` wrote.

    Attributes
    ----------
    truth, recs : str
        Paths of ``truth.parquet`` and ``recs.parquet``.
    train : str or None
        Path of ``train.parquet``, or None when no training frame was given.
    systems : tuple of str
        The systems in ``recs.parquet``, in the order given.
    """

    truth: str
    recs: str
    train: str | None
    systems: tuple[str, ...]


def _interactions(frame: object, *, arg: str) -> pd.DataFrame:
    frame = as_dataframe(frame)
    check_columns(frame, required=["user_id", "item_id"], func="write_parquet", arg=arg)
    return frame[[c for c in _INTERACTIONS if c in frame.columns]]


def write_parquet(truth: pd.DataFrame, systems: Mapping[str, pd.DataFrame],
                  folder: str | os.PathLike, *, train: pd.DataFrame | None = None
                  ) -> ParquetFiles:
    """Write the inputs of an evaluation as Parquet files that Spark reads.

    Parameters
    ----------
    truth : pandas.DataFrame
        Test interactions: ``user_id``, ``item_id`` and, when present, ``rating`` and
        ``timestamp`` are written to ``truth.parquet``.
    systems : mapping of str to pandas.DataFrame
        Each system's recommendations (``user_id``, ``item_id``, ``rank`` and/or ``score``),
        written to one ``recs.parquet`` with a ``system`` column first; a system without
        ``rank`` (or ``score``) has nulls there, which :func:`split_systems` drops again.
        ``rank`` is written as a nullable integer.
    folder : path
        An existing folder; files of these names in it are replaced.
    train : pandas.DataFrame, optional
        Training interactions, written to ``train.parquet`` (for
        ``unknown_items="drop"``).

    Returns
    -------
    ParquetFiles
        The paths written and the systems' names in order.

    Raises
    ------
    ValueError
        When ``systems`` is empty, a name is empty, or a frame lacks a column.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"write_parquet: 'folder' must be an existing folder; got '{folder}'.")
    if not isinstance(systems, Mapping) or not systems:
        raise ValueError("write_parquet: 'systems' must map at least one system name to its "
                         f"recommendations; got {systems!r}.")
    parts = []
    for name, recs in systems.items():
        if not isinstance(name, str) or not name:
            raise ValueError(f"write_parquet: system names must be non-empty strings; got "
                             f"{name!r}.")
        recs = as_dataframe(recs)
        check_columns(recs, required=["user_id", "item_id"], func="write_parquet",
                      arg=f"systems[{name!r}]")
        if "rank" not in recs.columns and "score" not in recs.columns:
            raise ValueError(f"write_parquet: 'systems[{name!r}]' needs a 'rank' or a 'score' "
                             "column.")
        part = recs[[c for c in _RECS if c in recs.columns]].copy()
        if "rank" in part.columns:
            part["rank"] = part["rank"].astype("Int64")
        part.insert(0, SYSTEM, name)
        parts.append(part)
    lists = pd.concat(parts, ignore_index=True)
    lists = lists[[SYSTEM, *(c for c in _RECS if c in lists.columns)]]
    if "rank" in lists.columns:
        lists["rank"] = lists["rank"].astype("Int64")
    paths = {"truth": folder / "truth.parquet", "recs": folder / "recs.parquet"}
    _interactions(truth, arg="truth").to_parquet(paths["truth"], index=False)
    lists.to_parquet(paths["recs"], index=False)
    train_path = None
    if train is not None:
        train_path = folder / "train.parquet"
        _interactions(train, arg="train").to_parquet(train_path, index=False)
    return ParquetFiles(truth=str(paths["truth"]), recs=str(paths["recs"]),
                        train=None if train_path is None else str(train_path),
                        systems=tuple(systems))


def split_systems(recs: object, *, names: Sequence[str] | None = None,
                  name: str = "recs") -> dict[str, object]:
    """One Spark DataFrame per system of ``recs``, by its ``system`` column.

    Parameters
    ----------
    recs : pyspark.sql.DataFrame
        Recommendations: ``user_id``, ``item_id``, ``rank`` and/or ``score``, and a
        ``system`` column when they hold several systems.
    names : sequence of str, optional
        The systems, in the order wanted; default: every value of ``system``, sorted.
    name : str, default "recs"
        The system's name when ``recs`` has no ``system`` column.

    Returns
    -------
    dict of str to pyspark.sql.DataFrame
        Each system's rows without the ``system`` column, and without ``rank`` or ``score``
        when that system has no value there (as :func:`write_parquet` writes systems that
        rank by score beside systems that give ranks).

    Raises
    ------
    ValueError
        When ``names`` asks for a system that ``recs`` does not hold.

    Notes
    -----
    With a ``system`` column, one small aggregation job finds the systems and which of
    ``rank`` and ``score`` each has; the frames themselves are not computed here.
    """
    from pyspark.sql import functions

    if SYSTEM not in recs.columns:
        return {name: recs}
    optional = [c for c in ("rank", "score") if c in recs.columns]
    counts = (recs.groupBy(SYSTEM)
              .agg(*[functions.count(functions.col(c)).alias(c) for c in optional],
                   functions.count(functions.lit(1)).alias("_rows"))
              .collect())
    found = {row[SYSTEM]: row for row in counts}
    if names is None:
        names = sorted(n for n in found if n is not None)
    absent = [n for n in names if n not in found]
    if absent:
        raise ValueError(f"split_systems: the recommendations hold no system "
                         f"{', '.join(map(repr, absent))}; they hold "
                         f"{', '.join(map(repr, sorted(map(str, found))))}.")
    out = {}
    for system in names:
        empty = [c for c in optional if found[system][c] == 0]
        out[system] = recs.filter(functions.col(SYSTEM) == system).drop(SYSTEM, *empty)
    return out
