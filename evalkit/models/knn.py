"""Item-based k-nearest-neighbour recommender on the binary interaction matrix."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from evalkit._constraints import POSITIVE_INT, constrained, optional, real
from evalkit._parallel import available_threads, run_parallel
from evalkit.models._base import Recommender, block_rows, top_k

__all__ = ["ItemKNN"]


class ItemKNN(Recommender):
    """Item-item cosine neighbourhood model on binary interactions.

    Parameters
    ----------
    neighbors : int, default 50
        Number of most similar items kept for each item.
    shrinkage : float, default 0.0
        Non-negative term added to the cosine denominator; it damps similarities supported by
        few co-occurrences.
    min_similarity : float, default 0.0
        Only similarities strictly greater than this are kept (so by default items that never
        co-occur are never neighbours).
    threshold : float or None, default None
        Interactions with ``rating >= threshold`` are positive; None makes every interaction
        positive (implicit data; the rating column is then not needed).

    Attributes
    ----------
    users_, items_ : pandas.Index
        Training users and the catalog (items with a training interaction), sorted.
    similarity_ : scipy.sparse.csr_matrix
        Item-item weights W of shape (n_items, n_items) over ``items_``: column j holds the
        similarities of j's kept neighbours, W[i, j] = sim(i, j).

    Notes
    -----
    With X the binary user-item matrix of positive interactions (repeated pairs count once)::

        sim(i, j) = x_i . x_j / (||x_i|| ||x_j|| + shrinkage)     (cosine when shrinkage = 0)

    an item is not its own neighbour, and a pair whose denominator is 0 has similarity 0. Each
    item j keeps its ``neighbors`` most similar items i (ties by ascending ``item_id``), and a
    user's scores are the row of X @ W: score(u, j) = sum of sim(i, j) over j's neighbours i
    that u interacted with positively.

    A user without any positive training interaction (unknown to the model, or all ratings
    below ``threshold``) gets the popularity scores of :class:`MostPopular` instead, with a
    warning giving the count. Seen items are all training interactions of the user, whatever
    their rating. Similarities are computed in blocks of items, so memory stays bounded by
    the block size plus the kept neighbours (n_items * neighbors values).

    References
    ----------
    M. Deshpande and G. Karypis, "Item-based top-N recommendation algorithms", ACM TOIS 22(1),
    2004.

    Examples
    --------
    >>> import pandas as pd
    >>> train = pd.DataFrame({"user_id": [1, 1, 2, 2, 3], "item_id": [10, 20, 10, 30, 20]})
    >>> model = ItemKNN(neighbors=5).fit(train)
    >>> model.recommend([3], k=2)
       user_id  item_id  score  rank
    0        3       10    0.5     1
    1        3       30    0.0     2
    """

    @constrained(neighbors=POSITIVE_INT, shrinkage=real(minimum=0.0), min_similarity=real(),
                 threshold=optional(real()))
    def __init__(
        self,
        *,
        neighbors: int = 50,
        shrinkage: float = 0.0,
        min_similarity: float = 0.0,
        threshold: float | None = None,
    ) -> None:
        super().__init__()
        self.neighbors = int(neighbors)
        self.shrinkage = float(shrinkage)
        self.min_similarity = float(min_similarity)
        self.threshold = None if threshold is None else float(threshold)

    def _params(self) -> dict[str, object]:
        return {
            "neighbors": self.neighbors,
            "shrinkage": self.shrinkage,
            "min_similarity": self.min_similarity,
            "threshold": self.threshold,
        }

    def _fit_model(
        self, user_codes: np.ndarray, item_codes: np.ndarray, ratings: np.ndarray | None
    ) -> None:
        matrix = self._positive
        by_item = matrix.T.tocsr()  # items x users
        n_items = matrix.shape[1]
        norms = np.sqrt(self._popularity)  # binary columns: ||x_i||^2 = number of users
        step = block_rows(n_items)

        def block(start: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            stop = min(start + step, n_items)
            dots = (by_item[start:stop] @ matrix).toarray()  # targets x candidate neighbours
            denominator = norms[start:stop, None] * norms[None, :] + self.shrinkage
            sim = np.divide(dots, denominator, out=np.zeros_like(dots), where=denominator > 0)
            sim[np.arange(stop - start), np.arange(start, stop)] = -np.inf
            sim[sim <= self.min_similarity] = -np.inf
            cols, vals = top_k(sim, self.neighbors)
            row, pos = np.nonzero(vals > -np.inf)
            return row + start, cols[row, pos], vals[row, pos]

        # blocks of items on a thread per core (NumPy and SciPy's products release the GIL);
        # each block's result is its own, so the matrix does not depend on the threads
        found = run_parallel([lambda a=a: block(a) for a in range(0, n_items, step)],
                             available_threads())
        targets, sources, values = ([f[j] for f in found] for j in range(3))
        self.similarity_ = sp.csr_matrix(
            (np.concatenate(values), (np.concatenate(sources), np.concatenate(targets))),
            shape=(n_items, n_items),
        )

    def _scores(self, codes: np.ndarray) -> np.ndarray:
        scores = (self._positive_rows(codes) @ self.similarity_).toarray()
        fallback = self._no_positive(codes)
        scores[fallback] = self._popularity
        return scores

    def _fallback(self, codes: np.ndarray) -> np.ndarray:
        return self._no_positive(codes)
