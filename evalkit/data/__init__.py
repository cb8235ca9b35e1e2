"""Data loading: MovieLens releases, any interaction file, and an offline sample.

Every loader returns the canonical columns: interactions ``user_id, item_id, rating,
timestamp`` and items ``item_id, title, year, genres``.
"""

from __future__ import annotations

from evalkit.data._common import Dataset
from evalkit.data.download import MOVIELENS_NAMES, DownloadError, download_movielens
from evalkit.data.interactions import fingerprint, load_interactions
from evalkit.data.movielens import load_movielens
from evalkit.data.sample import load_sample

__all__ = [
    "MOVIELENS_NAMES",
    "Dataset",
    "DownloadError",
    "download_movielens",
    "fingerprint",
    "load_interactions",
    "load_movielens",
    "load_sample",
]
