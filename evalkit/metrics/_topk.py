"""Helpers shared by the metrics of top-k lists: cutting lists at k, catalogs, id kinds."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .._checks import check_columns, check_ids
from ._common import warn_ties

__all__ = [
    "catalog_items",
    "in_popular_baseline",
    "nan_warning",
    "top_k",
    "warn_outside",
]


def top_k(recs: pd.DataFrame, *, k: int, tie_order: str = "item", func: str | None = None,
          stacklevel: int = 4) -> pd.DataFrame:
    """The top ``k`` of each user's list of a validated ``recs`` frame.

    Returns a new frame ``user_id, item_id, rank`` sorted by user and rank. With a ``rank``
    column the rows with ``rank <= k`` are kept; with only ``score``, rank is by descending
    score within the user, tied scores in ``tie_order`` (as the ranking metrics order them
    under ``ties="deterministic"``: item id ascending or descending, or the ids as strings).
    With ``func``, a :class:`TieWarning` names the users whose tied scores straddle ``k``
    (``stacklevel`` counts from this function).
    """
    if "rank" in recs.columns:
        frame = recs.loc[recs["rank"].to_numpy() <= k, ["user_id", "item_id", "rank"]]
        return frame.sort_values(["user_id", "rank"], kind="stable").reset_index(drop=True)
    key = recs["item_id"].astype(str) if tie_order.startswith("item_str") else recs["item_id"]
    frame = recs[["user_id", "item_id", "score"]].assign(_key=key).sort_values(
        ["user_id", "score", "_key"], ascending=[True, False, not tie_order.endswith("_desc")],
        kind="stable")
    rank = frame.groupby("user_id", sort=False, observed=True).cumcount().to_numpy() + 1
    if func is not None:
        # a user's rows at ranks k and k + 1 with one score: the tie straddles the cutoff
        at_k = np.flatnonzero(rank[:-1] == k)
        user, score = frame["user_id"].to_numpy(), frame["score"].to_numpy()
        straddling = (user[at_k + 1] == user[at_k]) & (score[at_k + 1] == score[at_k])
        warn_ties(int(np.count_nonzero(straddling)), k, func=func, tie_order=tie_order,
                  stacklevel=stacklevel + 1)
    frame = frame.assign(rank=rank).loc[rank <= k, ["user_id", "item_id", "rank"]]
    return frame.reset_index(drop=True)


def catalog_items(catalog: object, *, func: str) -> pd.Index:
    """Distinct item ids of ``catalog``: a frame with ``item_id`` or an array-like of ids."""
    if isinstance(catalog, pd.DataFrame):
        check_columns(catalog, func=func, arg="catalog", required=("item_id",))
        check_ids(catalog, func=func, arg="catalog", columns=("item_id",))
        ids = catalog["item_id"]
    elif isinstance(catalog, (str, bytes)) or not pd.api.types.is_list_like(catalog):
        raise TypeError(
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
    """Warn that ``n`` recommended items are outside ``what``; called by a public function
    under :func:`evalkit.definitions.uses_definitions`, whose caller the warning names."""
    if n:
        warnings.warn(
            f"{func}: {n} recommended item(s) are not in {what} and were left out.",
            UserWarning,
            stacklevel=4,
        )


def nan_warning(func: str, why: str, *, stacklevel: int = 4) -> float:
    """Warn that ``func``'s value is undefined and return NaN. ``stacklevel`` counts from this
    function: 4 points at the caller of a public function under
    :func:`evalkit.definitions.uses_definitions` that calls it directly."""
    warnings.warn(
        f"{func}: undefined ({why}); returning NaN.", RuntimeWarning, stacklevel=stacklevel
    )
    return float("nan")


def in_popular_baseline(top: pd.DataFrame, train: pd.DataFrame, *, k: int) -> np.ndarray:
    """Whether each (user, item) row of ``top`` is in the user's most-popular top-k list.

    The baseline ranks training items by the number of distinct training users (ties by
    item_id ascending) and skips the items the user already has in training.
    """
    pairs = train[["user_id", "item_id"]].drop_duplicates()
    pop = pairs["item_id"].value_counts(sort=False)
    order = pd.DataFrame({"item_id": pop.index, "n": pop.to_numpy()}).sort_values(
        ["n", "item_id"], ascending=[False, True], kind="stable"
    )
    position = pd.Series(np.arange(len(order)), index=pd.Index(order["item_id"]))
    n_pos = len(order) + 1
    users = pd.Index(pd.unique(top["user_id"]))
    seen = pairs.loc[pairs["user_id"].isin(users)]
    seen_keys = np.sort(
        users.get_indexer(seen["user_id"]).astype(np.int64) * n_pos
        + position.reindex(seen["item_id"]).to_numpy(dtype=np.int64)
    )
    u = users.get_indexer(top["user_id"]).astype(np.int64)
    pos = position.reindex(top["item_id"]).to_numpy(dtype=np.float64, na_value=np.nan)
    in_train = ~np.isnan(pos)
    p = np.where(in_train, pos, 0).astype(np.int64)
    query = u * n_pos + p
    seen_before = np.searchsorted(seen_keys, query, "left") - np.searchsorted(
        seen_keys, u * n_pos, "left"
    )
    is_seen = np.searchsorted(seen_keys, query, "right") - np.searchsorted(
        seen_keys, query, "left"
    )
    return in_train & (is_seen == 0) & (p - seen_before < k)
