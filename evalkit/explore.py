"""Describe an interaction data set before evaluating on it: size, sparsity, ratings, activity."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._checks import check_columns, check_ids

__all__ = ["rating_distribution", "summarize", "user_activity"]


def summarize(ratings: pd.DataFrame) -> pd.Series:
    """Headline statistics of an interaction table.

    Parameters
    ----------
    ratings : pd.DataFrame
        Interactions: ``user_id, item_id``, optionally ``rating`` and ``timestamp``.

    Returns
    -------
    pd.Series
        ``interactions``, ``users``, ``items``, ``density`` (interactions / (users x items)),
        per-user ``min``/``median``/``max`` interactions, per-item median, the share of
        interactions on the top 10% of items, and with ratings their mean and the share of
        ratings >= 4; with timestamps the first and last date (UTC, ``YYYY-MM-DD``).

    Examples
    --------
    >>> frame = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [1, 2, 1],
    ...                       "rating": [4.0, 2.0, 5.0]})
    >>> summarize(frame)[["interactions", "users", "items", "mean_rating"]].tolist()
    [3, 2, 2, 3.6667]
    """
    func = "summarize"
    check_columns(ratings, func=func, arg="ratings", required=("user_id", "item_id"))
    check_ids(ratings, func=func, arg="ratings")
    per_user = ratings.groupby("user_id", sort=False).size().to_numpy()
    per_item = np.sort(ratings.groupby("item_id", sort=False).size().to_numpy())[::-1]
    n_users, n_items, n = per_user.size, per_item.size, len(ratings)
    top = max(1, int(np.ceil(0.1 * n_items))) if n_items else 0
    out: dict[str, object] = {
        "interactions": n,
        "users": n_users,
        "items": n_items,
        "density": round(n / (n_users * n_items), 5) if n_users and n_items else np.nan,
        "per_user_min": int(per_user.min()) if n_users else 0,
        "per_user_median": float(np.median(per_user)) if n_users else np.nan,
        "per_user_max": int(per_user.max()) if n_users else 0,
        "per_item_median": float(np.median(per_item)) if n_items else np.nan,
        "top10pct_items_share": round(per_item[:top].sum() / n, 4) if n else np.nan,
    }
    if "rating" in ratings.columns:
        r = ratings["rating"].to_numpy(dtype=np.float64)
        out["mean_rating"] = round(float(r.mean()), 4) if n else np.nan
        out["share_rating_ge_4"] = round(float((r >= 4).mean()), 4) if n else np.nan
    if "timestamp" in ratings.columns and n:
        ts = ratings["timestamp"].to_numpy()
        out["first_date"] = str(np.datetime64(int(ts.min()), "s").astype("datetime64[D]"))
        out["last_date"] = str(np.datetime64(int(ts.max()), "s").astype("datetime64[D]"))
    return pd.Series(out, name="value", dtype=object)


def rating_distribution(ratings: pd.DataFrame) -> pd.DataFrame:
    """Count and share of each rating value, sorted by rating.

    Parameters
    ----------
    ratings : pandas.DataFrame
        Interactions with a ``rating`` column.

    Examples
    --------
    >>> rating_distribution(pd.DataFrame({"user_id": [1, 1, 2], "item_id": [1, 2, 1],
    ...                                   "rating": [4.0, 4.0, 5.0]}))
       rating  count   share
    0     4.0      2  0.6667
    1     5.0      1  0.3333
    """
    check_columns(ratings, func="rating_distribution", arg="ratings", required=("rating",))
    counts = ratings["rating"].value_counts().sort_index()
    return pd.DataFrame(
        {"rating": counts.index.to_numpy(dtype=np.float64), "count": counts.to_numpy(),
         "share": (counts / counts.sum()).round(4).to_numpy()}
    )


def user_activity(ratings: pd.DataFrame) -> pd.Series:
    """Interactions per user (index ``user_id``), sorted by user id.

    Parameters
    ----------
    ratings : pandas.DataFrame
        Interactions (``user_id``, ``item_id``).

    Examples
    --------
    >>> user_activity(pd.DataFrame({"user_id": [2, 1, 2], "item_id": [1, 2, 3]})).tolist()
    [1, 2]
    """
    check_columns(ratings, func="user_activity", arg="ratings", required=("user_id", "item_id"))
    return ratings.groupby("user_id").size().rename("interactions")


def genre_counts(items: pd.DataFrame | None, *, top: int = 10) -> pd.DataFrame:
    """The ``top`` most frequent genres of an item table (``genres``: lists of str), as a
    ``movies`` count column; an empty table when there is no item table or no genre.

    Examples
    --------
    >>> items = pd.DataFrame({"item_id": [1, 2], "genres": [["Drama"], ["Drama", "War"]]})
    >>> genre_counts(items)["movies"].to_dict()
    {'Drama': 2, 'War': 1}
    """
    if items is None or "genres" not in items.columns:
        return pd.DataFrame({"movies": pd.Series(dtype=int)}).rename_axis("genres")
    counts = items["genres"].explode().dropna().value_counts().head(top)
    return counts.rename("movies").rename_axis("genres").to_frame()
