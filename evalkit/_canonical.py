"""One order of the rows of a table of interactions, whatever order the file or frame gave
them in: what makes every random draw and every floating-point sum of evalkit the same for the
same data.

A seeded draw that gives the i-th row its random key depends on which row is i-th; a sum of
floats depends (in its last bits) on the order of its terms. evalkit gives random keys to rows
in this order and sums in it, so the same interactions, read from a Parquet file or from a
CSV file in another order, give the same numbers, as :func:`evalkit.data.fingerprint` (which
sorts the rows its own way, with the same :func:`sort_key`) calls them the same data.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

#: The columns of the canonical order, first to last (those a frame has): each user's
#: interactions in time order, then by item and rating.
COLUMNS = ("user_id", "timestamp", "item_id", "rating")


def sort_key(values: pd.Series | np.ndarray) -> np.ndarray:
    """Numbers whose order is the values' order (equal values, equal keys): numbers as they
    are, anything else (text, dates, categories) as its rank among the distinct values."""
    values = pd.Series(values) if not isinstance(values, pd.Series) else values
    dtype = values.dtype
    if pd.api.types.is_bool_dtype(dtype):
        return values.to_numpy(np.int8)
    if pd.api.types.is_integer_dtype(dtype) or pd.api.types.is_float_dtype(dtype):
        if isinstance(dtype, pd.api.extensions.ExtensionDtype):  # Int64, Float64: no NA here
            return values.to_numpy(np.float64 if pd.api.types.is_float_dtype(dtype)
                                   else np.int64)
        return values.to_numpy()
    if isinstance(dtype, pd.CategoricalDtype):
        values = values.astype(dtype.categories.dtype)
    return pd.factorize(values, sort=True)[0]



def _dense(key: np.ndarray) -> tuple[np.ndarray, int] | None:
    """``key`` as int64 codes from 0 in the same order (equal values, equal codes) and their
    number of possible values; None where it cannot be (NaN, or integers spread over more
    than 2**62)."""
    if key.dtype.kind in "biu":
        if not key.size:
            return key.astype(np.int64), 1
        low, high = int(key.min()), int(key.max())
        if high - low + 1 > 2**62:
            return None
        return key.astype(np.int64) - low, high - low + 1
    if key.dtype.kind == "f":
        if np.isnan(key).any():  # NaN: np.lexsort's own place for it
            return None
        if not key.size:
            return key.astype(np.int64), 1
        sample = key[::max(1, key.size // 4096)]
        if np.unique(sample).size < _HASHED_SHARE * sample.size:
            # few distinct values (ratings): a small hash table, then their order
            codes, uniques = pd.factorize(key)
            rank = np.empty(len(uniques), dtype=np.int64)
            rank[np.argsort(uniques, kind="stable")] = np.arange(len(uniques))
            return rank[codes], max(len(uniques), 1)
        # many (scores): one sort ranks them, where a hash table of millions of values is
        # several times slower; equal values (0.0 and -0.0 too) get one rank
        order = np.argsort(key)
        ordered = key[order]
        rank = np.empty(key.size, dtype=np.int64)
        rank[order] = np.cumsum(np.concatenate([[False], ordered[1:] != ordered[:-1]]))
        return rank, int(rank[order[-1]]) + 1
    return None


#: Float keys whose sample has fewer distinct values than this share of its size are coded by
#: a hash table, others by a sort.
_HASHED_SHARE = 0.125
#: At most this many ascending runs of the packed keys are merged by a stable sort.
_FEW_RUNS = 64


def lexsort(keys: Sequence[np.ndarray]) -> np.ndarray:
    """``np.lexsort(keys[::-1])``: the stable order by ``keys``, first key first, mostly by one
    unstable sort (NumPy's stable sort of int64 is a merge sort, three to four times slower).

    The leading keys are packed into one int64 as far as their ranges allow (user ids and a
    timestamp, or user and item ids) and sorted; only the rows that then tie (the same user
    and second, say) are ordered further, by the remaining keys and lastly their row number,
    so the order is the stable one. Rows rarely tie on the packed keys, so the remaining keys
    (item, rating) are read for a few rows only. A first key that cannot be coded (NaN,
    integers spread over more than 2**62) leaves it all to ``np.lexsort``."""
    keys = [np.asarray(k) for k in keys]
    n = len(keys[0]) if keys else 0
    if n < 2:
        return np.arange(n)
    packed, span, used = None, 1, 0
    for key in keys:
        if packed is not None and span >= n and key.dtype.kind == "f":
            break  # the keys so far leave few ties: a float key is read for those only
        dense = _dense(key)
        if dense is None or (packed is not None and span * dense[1] > 2**62):
            break
        codes, width = dense
        packed, span, used = (codes if packed is None else packed * width + codes), \
            span * width, used + 1
    if packed is None:
        return np.lexsort(keys[::-1])
    # Few ascending runs (lists concatenated, data appended to sorted data): a stable sort
    # (NumPy's timsort for int64) merges them in a few linear passes; otherwise one unstable
    # sort, much faster on shuffled keys. Either way, tied rows are ordered below.
    runs = int(np.count_nonzero(packed[1:] < packed[:-1])) + 1
    order = np.argsort(packed, kind="stable" if runs <= _FEW_RUNS else None)
    ordered = packed[order]
    tie = ordered[1:] == ordered[:-1]
    if not tie.any():
        return order
    tied = np.zeros(n, dtype=bool)  # sorted positions in a run of equal packed keys
    tied[:-1] |= tie
    tied[1:] |= tie
    run = np.concatenate([[0], np.cumsum(~tie)])[tied]
    rows = order[tied]
    rest = [k[rows] for k in keys[used:]]
    within = np.lexsort([rows, *rest[::-1], run])  # run first, then the keys, then the row
    order[tied] = rows[within]
    return order


def is_sorted(keys: Sequence[np.ndarray]) -> bool:
    """Whether the rows are already in lexicographic order of ``keys`` (first key first):
    one vectorized pass, so that data already in order (a MovieLens release, evalkit's
    sample) costs no sort."""
    if not len(keys) or len(keys[0]) < 2:
        return True
    undecided = np.ones(len(keys[0]) - 1, bool)  # pairs equal on the keys so far
    for key in keys:
        before, after = key[:-1], key[1:]
        if np.any(undecided & (before > after)):
            return False
        undecided &= before == after
        if not undecided.any():
            return True
    return True


def canonical_order(frame: pd.DataFrame, columns: Sequence[str] = COLUMNS) -> np.ndarray:
    """The positions of ``frame``'s rows in the canonical order: by ``columns``, first to
    last (those the frame has; default user, time, item, rating), ties kept in input order
    (they are equal in every column sorted on).

    Returns ``np.arange(len(frame))`` when the rows are in that order already."""
    order = _reordering(frame, columns)
    return np.arange(len(frame)) if order is None else order


def _reordering(frame: pd.DataFrame, columns: Sequence[str]) -> np.ndarray | None:
    """The canonical order's positions, or None when the rows are in it already (one
    vectorized check, no sort)."""
    keys = [sort_key(frame[c]) for c in columns if c in frame.columns]
    return None if is_sorted(keys) else lexsort(keys)


def in_canonical_order(frame: pd.DataFrame, columns: Sequence[str] = COLUMNS) -> pd.DataFrame:
    """``frame`` with its rows in the canonical order (the frame itself when they are;
    else a new frame with a fresh index)."""
    order = _reordering(frame, columns)
    return frame if order is None else frame.iloc[order].reset_index(drop=True)


def canonical_permutation(frame: pd.DataFrame, generator: np.random.Generator, *,
                          order: np.ndarray | None = None) -> np.ndarray:
    """A random key for each row (a permutation of ``0..n-1``) given in the canonical order:
    the row at canonical position j gets the generator's j-th value, so the same rows in any
    order get the same keys. Equal to ``generator.permutation(n)`` for rows already in
    order. ``order``: the frame's :func:`canonical_order`, when it is at hand."""
    if order is None:
        order = canonical_order(frame)
    drawn = generator.permutation(len(frame))
    key = np.empty(len(frame), dtype=drawn.dtype)
    key[order] = drawn
    return key
