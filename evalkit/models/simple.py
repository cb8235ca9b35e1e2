"""Reference baselines: random scores, popularity, and the damped bias model."""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalkit._checks import check_columns, check_ids
from evalkit._constraints import SEED, constrained, optional, real
from evalkit._errors import InvalidParameterError
from evalkit.models._base import Recommender, _id_kind

__all__ = ["BiasBaseline", "MostPopular", "Random"]


class Random(Recommender):
    """Recommend items in a random order (the floor every model must beat).

    Parameters
    ----------
    rng : int, numpy.random.Generator or None, default None
        Seed or generator for the random scores.

    Attributes
    ----------
    users_, items_ : pandas.Index
        Training users and the catalog (items with a training interaction), sorted.

    Notes
    -----
    Each call of ``recommend`` draws independent uniform scores in [0, 1) for every (requested
    user, catalog item) pair from ``np.random.default_rng(rng)``, so an integer seed gives the
    same lists on every call, while a ``Generator`` advances. The draws follow the sorted
    requested users, so one user's list depends on which other users are requested with it.
    Unknown users are ranked the same way (they have nothing to exclude).

    Examples
    --------
    >>> train = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [10, 20, 30]})
    >>> recs = Random(rng=0).fit(train).recommend([1, 2], k=5)
    >>> recs.groupby("user_id").size().tolist()
    [1, 2]
    """

    @constrained(rng=SEED)
    def __init__(self, *, rng: int | np.random.Generator | None = None) -> None:
        super().__init__()
        self.rng = rng

    def _params(self) -> dict[str, object]:
        return {"rng": self.rng}

    def _fit_model(
        self, user_codes: np.ndarray, item_codes: np.ndarray, ratings: np.ndarray | None
    ) -> None:
        pass

    def recommend(
        self, users: object, k: int = 10, *, exclude_seen: bool = True
    ) -> pd.DataFrame:
        self._generator = np.random.default_rng(self.rng)
        return super().recommend(users, k, exclude_seen=exclude_seen)

    recommend.__doc__ = Recommender.recommend.__doc__

    def score(self, pairs: pd.DataFrame) -> pd.DataFrame:
        self._generator = np.random.default_rng(self.rng)
        return super().score(pairs)

    score.__doc__ = Recommender.score.__doc__

    def _scores(self, codes: np.ndarray) -> np.ndarray:
        return self._generator.random((len(codes), len(self.items_)))


class MostPopular(Recommender):
    """Recommend the items with the most (positive) training interactions to everyone.

    Parameters
    ----------
    threshold : float or None, default None
        Interactions with ``rating >= threshold`` count as positive; None counts every
        interaction (implicit data; the rating column is then not needed).

    Attributes
    ----------
    users_, items_ : pandas.Index
        Training users and the catalog (items with a training interaction), sorted.
    popularity_ : pandas.Series
        Number of distinct users with a positive interaction, indexed by ``item_id``.

    Notes
    -----
    score(u, i) = #{users v with a positive interaction with i}. Repeated (user, item) rows
    count once. Ties are broken by ascending ``item_id``. Unknown users get the same list as
    everyone else (with nothing to exclude). Seen items are all training interactions of the
    user, whatever their rating. The lists come from one global order, each skipping the
    user's seen items, in time proportional to users x (k + seen items) rather than users x
    catalogue (162,541 users at k = 100 over 59,047 items: ``benchmarks/models.py``).

    Examples
    --------
    >>> train = pd.DataFrame({"user_id": [1, 2, 2, 3], "item_id": [10, 10, 20, 30]})
    >>> MostPopular().fit(train).recommend([1], k=2)
       user_id  item_id  score  rank
    0        1       20    1.0     1
    1        1       30    1.0     2
    """

    @constrained(threshold=optional(real()))
    def __init__(self, *, threshold: float | None = None) -> None:
        super().__init__()
        self.threshold = None if threshold is None else float(threshold)

    def _params(self) -> dict[str, object]:
        return {"threshold": self.threshold}

    def _fit_model(
        self, user_codes: np.ndarray, item_codes: np.ndarray, ratings: np.ndarray | None
    ) -> None:
        counts = self._popularity.astype(np.int64)
        self.popularity_ = pd.Series(counts, index=self.items_, name="popularity")

    def _scores(self, codes: np.ndarray) -> np.ndarray:
        return np.tile(self._popularity, (len(codes), 1))

    def _global_scores(self, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self._popularity, np.zeros(len(codes))


class BiasBaseline(Recommender):
    """Damped user and item biases: r_hat(u, i) = mu + b_u + b_i.

    Parameters
    ----------
    damping_user, damping_item : float, default 25.0
        Non-negative shrinkage of the user and item biases towards 0 (a pseudo-count of
        ratings at the global mean).

    Attributes
    ----------
    users_, items_ : pandas.Index
        Training users and the catalog (items with a training rating), sorted.
    global_mean_ : float
        mu, the mean training rating.
    user_bias_, item_bias_ : pandas.Series
        b_u indexed by ``user_id`` and b_i indexed by ``item_id``.

    Notes
    -----
    With R(i) the training ratings of item i and R(u) those of user u (every row counts, so a
    repeated (user, item) pair counts twice)::

        mu  = mean of all training ratings
        b_i = sum_{u in R(i)} (r_ui - mu) / (|R(i)| + damping_item)
        b_u = sum_{i in R(u)} (r_ui - mu - b_i) / (|R(u)| + damping_user)

    ``predict`` returns mu + b_u + b_i, with b_u = 0 for a user and b_i = 0 for an item absent
    from training (so an unknown pair gets mu). ``recommend`` ranks a user's items by the same
    predicted rating, that is by b_i (the user's mu + b_u shifts every score alike; equal b_i
    by item id), with the predicted ratings as scores: one global order, from which each
    user's list skips the items the user has seen, in time proportional to users x (k +
    seen items). An unknown user gets mu + b_i (the item-bias ranking), with a warning
    giving the count. Predictions are not clipped to the rating scale.

    References
    ----------
    Y. Koren, "Factor in the neighbors: scalable and accurate collaborative filtering",
    ACM TKDD 4(1), 2010, section 2.1.

    Examples
    --------
    >>> train = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [10, 20, 10],
    ...                       "rating": [5.0, 3.0, 4.0]})
    >>> model = BiasBaseline(damping_user=0.0, damping_item=0.0).fit(train)
    >>> model.item_bias_.round(3).tolist()
    [0.5, -1.0]
    >>> pairs = pd.DataFrame({"user_id": [1, 9], "item_id": [20, 10]})
    >>> model.predict(pairs)["prediction"].round(3).tolist()
    [3.25, 4.5]
    """

    _uses_rating = True

    @constrained(damping_user=real(minimum=0.0), damping_item=real(minimum=0.0))
    def __init__(self, *, damping_user: float = 25.0, damping_item: float = 25.0) -> None:
        super().__init__()
        self.damping_user = float(damping_user)
        self.damping_item = float(damping_item)

    def _params(self) -> dict[str, object]:
        return {"damping_user": self.damping_user, "damping_item": self.damping_item}

    def _fit_model(
        self, user_codes: np.ndarray, item_codes: np.ndarray, ratings: np.ndarray | None
    ) -> None:
        ratings = np.asarray(ratings, dtype=np.float64)
        n_users, n_items = len(self.users_), len(self.items_)
        mu = float(ratings.mean())
        residual = ratings - mu
        n_item = np.bincount(item_codes, minlength=n_items)
        b_item = np.bincount(item_codes, weights=residual, minlength=n_items) / (
            n_item + self.damping_item
        )
        residual = residual - b_item[item_codes]
        n_user = np.bincount(user_codes, minlength=n_users)
        b_user = np.bincount(user_codes, weights=residual, minlength=n_users) / (
            n_user + self.damping_user
        )
        self.global_mean_ = mu
        self._b_user, self._b_item = b_user, b_item
        self.user_bias_ = pd.Series(b_user, index=self.users_, name="user_bias")
        self.item_bias_ = pd.Series(b_item, index=self.items_, name="item_bias")

    def _scores(self, codes: np.ndarray) -> np.ndarray:
        b_user = np.where(codes >= 0, self._b_user[np.maximum(codes, 0)], 0.0)
        return self.global_mean_ + b_user[:, None] + self._b_item[None, :]

    def _fallback(self, codes: np.ndarray) -> np.ndarray:
        return codes < 0

    def _global_scores(self, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # every user's ranking is the item biases' (b_u shifts a user's scores alike)
        b_user = np.where(codes >= 0, self._b_user[np.maximum(codes, 0)], 0.0)
        return self._b_item, self.global_mean_ + b_user

    def _fallback_label(self) -> str:
        return "the item-bias ranking (mu + b_i)"

    def predict(self, pairs: pd.DataFrame) -> pd.DataFrame:
        """Predict ratings for (user, item) pairs.

        Parameters
        ----------
        pairs : pandas.DataFrame
            Columns ``user_id`` and ``item_id``; other columns are ignored.

        Returns
        -------
        pandas.DataFrame
            Columns ``user_id, item_id, prediction``, one row per input row, in the input order
            and with the input index.

        Raises
        ------
        ValueError
            If the model is not fitted, or a column is missing or holds missing ids.
        """
        func = "BiasBaseline.predict"
        self._check_fitted(func)
        check_columns(pairs, func=func, arg="pairs", required=["user_id", "item_id"])
        check_ids(pairs, func=func, arg="pairs")
        for column, fitted in (("user_id", self.users_), ("item_id", self.items_)):
            fitted_kind, asked_kind = _id_kind(fitted), _id_kind(pd.Index(pairs[column]))
            if len(pairs) and fitted_kind != asked_kind:
                raise InvalidParameterError(
                    f"{func}: 'pairs' column '{column}' holds {asked_kind} ids and the model "
                    f"was fitted on {fitted_kind} ids, so none would be recognised; convert "
                    "them."
                )
        users = self.users_.get_indexer(pairs["user_id"])
        items = self.items_.get_indexer(pairs["item_id"])
        b_user = np.where(users >= 0, self._b_user[np.maximum(users, 0)], 0.0)
        b_item = np.where(items >= 0, self._b_item[np.maximum(items, 0)], 0.0)
        return pd.DataFrame(
            {
                "user_id": pairs["user_id"],
                "item_id": pairs["item_id"],
                "prediction": self.global_mean_ + b_user + b_item,
            },
            index=pairs.index,
        )
