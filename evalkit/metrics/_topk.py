"""Helpers shared by the metrics of top-k lists: cutting lists at k, catalogs, id kinds."""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

import numpy as np
import pandas as pd

from .._checks import check_columns, check_ids, warn
from .._errors import InvalidParameterError
from ._common import warn_ties

T = TypeVar("T")

__all__ = [
    "catalog_items",
    "sharing_training",
    "users_per_item",
    "in_popular_baseline",
    "nan_warning",
    "top_k",
    "training_memo",
    "warn_outside",
]


def top_k(recs: pd.DataFrame, *, k: int, tie_order: str = "item", func: str | None = None
          ) -> pd.DataFrame:
    """The top ``k`` of each user's list of a validated ``recs`` frame.

    Returns a new frame ``user_id, item_id, rank`` sorted by user and rank. With a ``rank``
    column the rows with ``rank <= k`` are kept; with only ``score``, rank is by descending
    score within the user, tied scores in ``tie_order`` (as the ranking metrics order them
    under ``ties="deterministic"``: item id ascending or descending, or the ids as strings).
    With ``func``, a :class:`TieWarning` names the users whose tied scores straddle ``k``.

    The lists are ordered as the ranking engine orders them (its compiled kernels): not at
    all when they are already sorted by user and rank (or descending score), else by a
    counting sort by user and a sort of each user's few rows; about 15 times faster than a
    frame sort of 16 million rows by three keys.

    Parameters
    ----------
    recs : pandas.DataFrame
        Validated recommendations: ``user_id, item_id`` and ``rank`` and/or ``score``.
    k : int
        The cutoff.
    tie_order : {"item", "item_desc", "item_str", "item_str_desc"}, default "item"
        With scores only, the order of tied scores.
    func : str, optional
        The caller's name, for the :class:`TieWarning`; None: no warning.
    """
    from . import _kernels
    from ._hits import _tie_key, codes_of, id_array, unique_ids

    user, item = id_array(recs["user_id"]), id_array(recs["item_id"])
    users = unique_ids(user)
    codes = codes_of(user, users)
    n = users.size
    if "rank" in recs.columns:
        rank = recs["rank"].to_numpy().astype(np.int64, copy=False)
        keep = np.flatnonzero(rank <= k)
        codes, rank = codes[keep], rank[keep]
        starts = _kernels.group_starts(codes, rank, True, n)
        if starts.size:
            order = keep
        else:
            within, _ = _kernels.order_by_group(codes, rank, rank, n)
            order = keep[within]
        return pd.DataFrame({"user_id": user[order], "item_id": item[order],
                             "rank": recs["rank"].to_numpy()[order].astype(np.int64)},
                            copy=False)  # fresh arrays: kept as they are
    score = recs["score"].to_numpy(dtype=np.float64)
    key = _tie_key(codes_of(item, unique_ids(item)), item, tie_order)
    if _kernels.ordered_by_score(codes, score, key, True):
        order = np.arange(codes.size)
        starts = _kernels.group_starts(codes, codes, False, n)
    else:
        order, starts = _kernels.order_by_group(codes, -score, key, n)
    ordered = codes[order]
    rank = np.arange(order.size) - starts[ordered] + 1
    if func is not None:
        # a user's rows at ranks k and k + 1 with one score: the tie straddles the cutoff
        at_k = np.flatnonzero(rank[:-1] == k)
        sorted_score = score[order]
        straddling = (ordered[at_k + 1] == ordered[at_k]) & \
            (sorted_score[at_k + 1] == sorted_score[at_k])
        warn_ties(int(np.count_nonzero(straddling)), k, func=func, tie_order=tie_order)
    top = rank <= k
    rows = order[top]
    return pd.DataFrame({"user_id": user[rows], "item_id": item[rows],
                         "rank": rank[top].astype(np.int64)}, copy=False)


#: What the metrics of one table share about one training frame: ``{"train": frame, name:
#: value, ...}`` (see :func:`sharing_training`).
_SHARED: contextvars.ContextVar = contextvars.ContextVar("evalkit_shared_training",
                                                        default=None)


@contextmanager
def sharing_training(train: pd.DataFrame, memo: dict | None = None) -> Iterator[None]:
    """Within the block, the metrics given this very ``train`` object find its distinct
    pairs and count its items' popularity once (a table of every beyond-accuracy metric
    needs them a dozen times). A block inside a block over the same ``train`` shares the
    outer one's. Nothing is kept after the block, unless ``memo`` is given: a dict the caller
    keeps, which holds what was found for the next block over the same object."""
    current = _SHARED.get()
    if current is not None and current["train"] is train:
        yield
        return
    slot = {} if memo is None else memo
    if slot.get("train") is not train:
        slot.clear()
        slot["train"] = train
    token = _SHARED.set(slot)
    try:
        yield
    finally:
        _SHARED.reset(token)


def training_memo(train: pd.DataFrame, name: str, compute: Callable[[], T]) -> T:
    """``compute()``, once per :func:`sharing_training` block over this very ``train``
    (every call outside one computes)."""
    slot = _SHARED.get()
    if slot is None or slot["train"] is not train:
        return compute()
    if name not in slot:
        slot[name] = compute()
    return slot[name]


def _distinct_pairs(train: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                  np.ndarray]:
    """``(users, items, u, i)``: the sorted distinct training users and items, and the codes
    of each distinct (user, item) pair, grouped by user with items ascending; by the ranking
    engine's grouping (a counting sort by user, each user's few items sorted) rather than a
    frame's ``drop_duplicates``. Found once per :func:`sharing_training` block."""
    return training_memo(train, "distinct pairs", lambda: _find_distinct_pairs(train))


def _find_distinct_pairs(train: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                       np.ndarray]:
    from . import _kernels
    from ._hits import codes_of, id_array, unique_ids

    user, item = id_array(train["user_id"]), id_array(train["item_id"])
    users, items = unique_ids(user), unique_ids(item)
    u, i = codes_of(user, users), codes_of(item, items)
    order, _ = _kernels.order_by_group(u, i, i, users.size)
    u, i = u[order], i[order]
    first = np.ones(i.size, dtype=bool)
    first[1:] = (u[1:] != u[:-1]) | (i[1:] != i[:-1])
    return users, items, u[first], i[first]


def users_per_item(train: pd.DataFrame) -> tuple[pd.Series, int]:
    """The number of distinct training users of each training item (repeated pairs count
    once), indexed by ``item_id`` in ascending order; and the number of training users."""
    def count() -> tuple[pd.Series, int]:
        users, items, _, i = _distinct_pairs(train)
        counts = np.bincount(i, minlength=items.size)
        return pd.Series(counts, index=pd.Index(items, name="item_id"), name="count"), \
            users.size

    return training_memo(train, "users per item", count)


def catalog_items(catalog: object, *, func: str) -> pd.Index:
    """Distinct item ids of ``catalog``: a frame with ``item_id`` or an array-like of ids."""
    if isinstance(catalog, pd.DataFrame):
        check_columns(catalog, func=func, arg="catalog", required=("item_id",))
        check_ids(catalog, func=func, arg="catalog", columns=("item_id",))
        ids = catalog["item_id"]
    elif isinstance(catalog, (str, bytes)) or not pd.api.types.is_list_like(catalog):
        raise InvalidParameterError(
            f"{func}: 'catalog' must be a DataFrame with an 'item_id' column or an array-like "
            f"of item ids; got {type(catalog).__name__}."
        )
    else:
        if isinstance(catalog, (set, frozenset)):
            catalog = list(catalog)
        ids = catalog if isinstance(catalog, pd.Series) else pd.Series(np.asarray(catalog))
        if len(ids) == 0:
            ids = ids.astype(np.int64)  # an empty list is float64; report it as empty
        check_ids(ids.to_frame("item_id"), func=func, arg="catalog", columns=("item_id",))
    index = pd.Index(pd.unique(ids))
    if len(index) == 0:
        raise ValueError(f"{func}: 'catalog' must hold at least one item id; got none.")
    return index


def warn_outside(n: int, *, func: str, what: str) -> None:
    """Warn that ``n`` recommended items are outside ``what``."""
    if n:
        warn(f"{func}: {n} recommended item(s) are not in {what} and were left out.",
             UserWarning)


def nan_warning(func: str, why: str) -> float:
    """Warn that ``func``'s value is undefined and return NaN."""
    warn(f"{func}: undefined ({why}); returning NaN.", RuntimeWarning)
    return float("nan")


def in_popular_baseline(top: pd.DataFrame, train: pd.DataFrame, *, k: int) -> np.ndarray:
    """Whether each (user, item) row of ``top`` is in the user's most-popular top-k list.

    The baseline ranks training items by the number of distinct training users (ties by
    item_id ascending) and skips the items the user already has in training: an item at
    popularity position p is in the list when the user has not seen it and fewer than k
    unseen items come before it (p minus the user's seen items above it).
    """
    from . import _kernels
    from ._hits import codes_of, id_array

    users, items, u, i = _distinct_pairs(train)
    count = np.bincount(i, minlength=items.size)
    position = np.empty(items.size, dtype=np.int64)
    position[np.lexsort((np.arange(items.size), -count))] = np.arange(items.size)
    seen_start = np.zeros(users.size + 1, dtype=np.int64)  # the pairs are grouped by user
    np.cumsum(np.bincount(u, minlength=users.size), out=seen_start[1:])
    tu = codes_of(id_array(top["user_id"]), users).astype(np.int64)
    ti = codes_of(id_array(top["item_id"]), items)
    p = np.where(ti >= 0, position[np.maximum(ti, 0)], -1)
    out = np.zeros(len(top), dtype=np.bool_)
    bounds = np.linspace(0, len(top), _kernels._threads() + 1).astype(np.int64)
    _kernels._parallel([
        lambda a=a, b=b: _kernels.in_global_top(tu, p, seen_start, position[i], k, a, b, out)
        for a, b in zip(bounds[:-1], bounds[1:])])
    return out
