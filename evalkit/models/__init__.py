"""Baseline recommenders: random, popularity, damped biases, item kNN and EASE.

Every model follows one protocol: keyword-only hyperparameters in the constructor,
``fit(train) -> self`` on an interactions frame, and
``recommend(users, k=10, *, exclude_seen=True)`` returning a frame with columns
``user_id, item_id, score, rank``. :class:`BiasBaseline` also has ``predict(pairs)``.
Score ties are broken by ascending ``item_id``; users are processed in blocks of rows with
matrix operations.
"""

from __future__ import annotations

from evalkit.models.ease import EASE
from evalkit.models.knn import ItemKNN
from evalkit.models.simple import BiasBaseline, MostPopular, Random

__all__ = ["EASE", "BiasBaseline", "ItemKNN", "MostPopular", "Random"]
