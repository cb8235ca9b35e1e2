"""The :class:`Split` record and the private helpers shared by the split strategies."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["Split"]

#: Tolerance that makes "round half up" robust to binary floating point (0.7 * 5 = 3.4999...).
_ROUND_EPS = 1e-9


@dataclass(frozen=True, eq=False, repr=False)
class Split:
    """A train/test (and optionally dev) partition of an interactions frame.

    Parameters
    ----------
    train : pandas.DataFrame
        Training interactions.
    test : pandas.DataFrame
        Test interactions.
    dev : pandas.DataFrame or None, default None
        Development (validation) interactions, when the strategy makes them.
    info : dict
        How the split was made: ``strategy`` (registry name), ``params`` (the options used),
        ``seed`` (the integer seed passed as ``rng``, or None when the split is deterministic or
        a ``Generator`` was passed) and ``sizes`` (row counts of train, test and dev).

    Notes
    -----
    Every strategy returns frames with the input's columns, dtypes and index labels; the rows of
    each frame keep their order in the input. The index is not reset, so ``split.test.index``
    points back at the input rows. Frames are compared by identity (``eq=False``): compare the
    frames themselves with ``pandas.testing.assert_frame_equal``.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalkit.split import Split
    >>> data = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [10, 11, 10]})
    >>> Split(train=data.iloc[:2], test=data.iloc[2:], info={"strategy": "manual"})
    Split(strategy='manual', train=2 rows, test=1 row)
    """

    train: pd.DataFrame
    test: pd.DataFrame
    dev: pd.DataFrame | None = None
    info: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        parts = [f"strategy={self.info.get('strategy', 'unknown')!r}"]
        parts.append(f"train={_rows(self.train)}")
        if self.dev is not None:
            parts.append(f"dev={_rows(self.dev)}")
        parts.append(f"test={_rows(self.test)}")
        for name, value in self.info.get("params", {}).items():
            parts.append(f"{name}={value!r}")
        if self.info.get("seed") is not None:
            parts.append(f"seed={self.info['seed']!r}")
        return f"Split({', '.join(parts)})"


def _rows(frame: pd.DataFrame) -> str:
    n = len(frame)
    return f"{n} row" if n == 1 else f"{n} rows"


# --------------------------------------------------------------------------- array helpers


def _round_half_up(values: np.ndarray | float) -> np.ndarray:
    """Round to the nearest integer, halves up: ``floor(x + 1/2)`` (robust to float error)."""
    return np.floor(np.asarray(values, dtype=np.float64) + 0.5 + _ROUND_EPS).astype(np.int64)


def _sort_codes(values: pd.Series) -> np.ndarray:
    """Integer codes that order like ``values`` (works for ints, floats, strings, datetimes)."""
    codes, _ = pd.factorize(values, sort=True)
    return codes.astype(np.int64, copy=False)


def _user_codes(data: pd.DataFrame) -> tuple[np.ndarray, int]:
    """Each row's user as a code in the order of the user ids (not of their first row), so
    that a draw per user goes to the same user whatever the row order."""
    codes, uniques = pd.factorize(data["user_id"], sort=True)
    return codes.astype(np.int64, copy=False), len(uniques)


def _group_ranks(
    codes: np.ndarray, n_groups: int, *keys: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """0-based rank of every row within its group, ordered by ``keys`` then by position.

    ``codes`` and ``keys`` are non-negative integer arrays. Returns the ranks (aligned with the
    rows) and the size of every group. One stable sort, no loop over groups: the keys are packed
    into a single int64 when their ranges allow it, else sorted with ``np.lexsort``.
    """
    n = len(codes)
    positions = np.arange(n, dtype=np.int64)
    packed, span = codes.astype(np.int64), max(n_groups, 1)
    fits = True
    for key in keys:
        width = int(key.max(initial=0)) + 1
        fits = span <= np.iinfo(np.int64).max // width
        if not fits:
            break
        packed, span = packed * width + key, span * width
    if fits:
        order = np.argsort(packed, kind="stable")
    else:
        order = np.lexsort((positions, *reversed(keys), codes))
    counts = np.bincount(codes, minlength=n_groups).astype(np.int64)
    starts = np.cumsum(counts) - counts
    ranks = np.empty(n, dtype=np.int64)
    ranks[order] = positions - starts[codes[order]]
    return ranks, counts


def _take(data: pd.DataFrame, mask: np.ndarray, order: np.ndarray | None = None
          ) -> pd.DataFrame:
    """Rows of ``data`` where ``mask`` holds, in input order (or in the order of the positions
    ``order``), index labels kept."""
    return data.iloc[np.flatnonzero(mask) if order is None else order[mask[order]]]


def _make(
    data: pd.DataFrame,
    test_mask: np.ndarray,
    *,
    strategy: str,
    params: dict[str, Any],
    seed: int | None,
    dev_mask: np.ndarray | None = None,
    order: np.ndarray | None = None,
) -> Split:
    train_mask = ~test_mask if dev_mask is None else ~(test_mask | dev_mask)
    train, test = _take(data, train_mask, order), _take(data, test_mask, order)
    dev = None if dev_mask is None else _take(data, dev_mask, order)
    info = {
        "strategy": strategy,
        "params": dict(params),
        "seed": seed,
        "sizes": {
            "train": len(train),
            "test": len(test),
            "dev": None if dev is None else len(dev),
        },
    }
    return Split(train=train, test=test, dev=dev, info=info)
