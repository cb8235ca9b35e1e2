"""Baseline recommenders: random, popularity, damped biases, item kNN and EASE.

Every model follows one protocol: keyword-only hyperparameters in the constructor,
``fit(train) -> self`` on an interactions frame, and
``recommend(users, k=10, *, exclude_seen=True)`` returning a frame with columns
``user_id, item_id, score, rank``. :class:`BiasBaseline` also has ``predict(pairs)``.
Score ties are broken by ascending ``item_id``; users are processed in blocks of rows with
matrix operations.
"""

from __future__ import annotations

import pandas as pd

from evalkit._constraints import POSITIVE_INT, SEED, constrained
from evalkit.models._base import ModelTooLarge
from evalkit.models.ease import EASE
from evalkit.models.knn import ItemKNN
from evalkit.models.simple import BiasBaseline, MostPopular, Random

__all__ = [
    "EASE",
    "MODELS",
    "RATING_BASELINES",
    "BiasBaseline",
    "ItemKNN",
    "ModelTooLarge",
    "MostPopular",
    "Random",
    "predict_ratings",
    "recommend_all",
]

#: Baselines by name, as notebooks and the command line refer to them.
MODELS = {
    "Random": Random,
    "MostPopular": MostPopular,
    "BiasBaseline": BiasBaseline,
    "ItemKNN": ItemKNN,
    "EASE": EASE,
}


@constrained(k=POSITIVE_INT, rng=SEED)
def recommend_all(
    names: list[str],
    train: pd.DataFrame,
    users: object,
    *,
    k: int = 10,
    rng: int | None = 0,
) -> dict[str, pd.DataFrame]:
    """Fit each named baseline (default hyperparameters) on ``train`` and recommend ``k`` items
    to ``users``.

    Parameters
    ----------
    names : list of str
        Keys of :data:`MODELS`, in the order the result should keep.
    train : pd.DataFrame
        Training interactions.
    users : array-like
        Users to recommend to.
    k : int, default 10
        List length.
    rng : int or None, default 0
        Seed of :class:`Random`.

    Returns
    -------
    dict of str to pd.DataFrame
        Recommendations (``user_id, item_id, score, rank``) by model name.

    Examples
    --------
    >>> train = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [10, 11, 10]})
    >>> recs = recommend_all(["MostPopular"], train, [2], k=1)
    >>> recs["MostPopular"][["user_id", "item_id", "rank"]]
       user_id  item_id  rank
    0        2       11     1
    """
    from evalkit._checks import check_choice

    for name in names:
        check_choice(name, func="recommend_all", arg="model name", choices=MODELS)
    return {
        name: (MODELS[name](rng=rng) if name == "Random" else MODELS[name]())
        .fit(train)
        .recommend(users, k=k)
        for name in names
    }



#: The rating baselines of :func:`predict_ratings`, each adding one term to the one before.
RATING_BASELINES = ("global mean", "item bias", "user + item bias")


def predict_ratings(train: pd.DataFrame, pairs: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Rating predictions of the three classic baselines for ``pairs`` (user_id, item_id).

    ``"global mean"`` predicts mu; ``"item bias"`` mu + b_i; ``"user + item bias"``
    mu + b_u + b_i, all from one fitted :class:`BiasBaseline` (default damping), so the three
    rows show what each term adds.

    Parameters
    ----------
    train : pandas.DataFrame
        Training ratings (``user_id, item_id, rating``).
    pairs : pandas.DataFrame
        The (``user_id``, ``item_id``) pairs to predict.

    Returns
    -------
    dict of str to pd.DataFrame
        ``user_id, item_id, prediction`` by baseline name.

    Examples
    --------
    >>> train = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [1, 2, 1],
    ...                       "rating": [5.0, 3.0, 4.0]})
    >>> preds = predict_ratings(train, pd.DataFrame({"user_id": [2], "item_id": [2]}))
    >>> preds["global mean"]["prediction"].tolist()
    [4.0]
    """
    model = BiasBaseline().fit(train)
    full = model.predict(pairs)
    item_bias = model.item_bias_.reindex(full["item_id"]).fillna(0.0).to_numpy()
    return {
        "global mean": full.assign(prediction=model.global_mean_),
        "item bias": full.assign(prediction=model.global_mean_ + item_bias),
        "user + item bias": full,
    }
