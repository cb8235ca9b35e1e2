"""Segments of users and items, and tidy tables of metrics and exposure by segment.

Users are binned by how many training interactions they have (:func:`user_activity_bins`),
items by how popular they are in training (:func:`item_popularity_buckets`). The tables built
on them (:func:`metrics_by_segment`, :func:`exposure_by_popularity`, :func:`popularity_curve`)
are long and tidy: one row per (system, segment, value), ready for :mod:`evalkit.plots` and for
display in notebooks. Popularity is always the number of training interactions (rows) of an
item; in MovieLens each (user, item) pair occurs once, so it is also the number of users.
"""

from __future__ import annotations

from .items import (
    NEW_ITEMS,
    POPULARITY_BUCKETS,
    exposure_by_popularity,
    item_popularity_buckets,
    popularity_curve,
    recall_by_popularity,
)
from .users import DEFAULT_ACTIVITY_BINS, metrics_by_segment, user_activity_bins

__all__ = [
    "DEFAULT_ACTIVITY_BINS",
    "NEW_ITEMS",
    "POPULARITY_BUCKETS",
    "exposure_by_popularity",
    "item_popularity_buckets",
    "metrics_by_segment",
    "popularity_curve",
    "recall_by_popularity",
    "user_activity_bins",
]
