"""EASE: the closed-form linear item-item autoencoder of Steck (2019)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.linalg import cho_factor, cho_solve, get_blas_funcs, get_lapack_funcs

from evalkit._constraints import POSITIVE_INT, constrained, optional, real
from evalkit.models._base import ModelTooLarge, Recommender, available_memory, block_rows, gigabytes

__all__ = ["EASE"]


class EASE(Recommender):
    """Embarrassingly Shallow Autoencoder: scores = X B with a zero-diagonal item-item B.

    Parameters
    ----------
    l2 : float, default 500.0
        Strictly positive L2 regularization lambda.
    threshold : float or None, default None
        Interactions with ``rating >= threshold`` are positive; None makes every interaction
        positive (implicit data; the rating column is then not needed).
    max_items : int or None, default None
        Learn B over the ``max_items`` most popular items only (ties by item id) and
        recommend only among them: an approximation, for catalogues whose m x m matrix does
        not fit in memory (the fit refuses otherwise, see Notes). None: every item.

    Attributes
    ----------
    users_, items_ : pandas.Index
        Training users and the catalog (items with a training interaction), sorted.
    weights_ : numpy.ndarray
        B, float64 of shape (m, m), over ``weight_items_``.
    weight_items_ : pandas.Index
        The m catalog items with at least one positive training interaction; every other
        catalog item has a zero row and column in B (exactly what the closed form gives), so it
        is left out and scores 0.

    Notes
    -----
    With X the binary user-item matrix of positive interactions (repeated pairs count once),
    B minimizes ||X - X B||_F^2 + l2 ||B||_F^2 subject to diag(B) = 0, whose closed form is::

        G = X^T X + l2 I,   P = G^-1,   B_ij = -P_ij / P_jj  (i != j),   B_jj = 0

    and a user's scores are the row of X B. With n users and m items, when n >= m, G is
    accumulated with a symmetric rank-k update over blocks of users and inverted in place
    through its Cholesky factor (O(n m^2 + m^3) time); when n < m, P comes from the Woodbury
    identity l2 P = I - X^T (l2 I + X X^T)^-1 X (O(n^2 m + n^3 + nnz(X) m) time; the factor
    1 / l2 cancels in B). Either way fitting needs one dense m x m float64 matrix (8 m^2
    bytes: about 0.6 GB for the 9k items of ml-latest-small) plus blocks of at most n x m
    (the dual form: also n x n and two n x m matrices). ``fit`` checks this against the
    memory the machine has available before allocating anything and raises
    :class:`~evalkit.models.ModelTooLarge` naming both (59,047 items need 27.9 GB); pass
    ``max_items`` to learn over the most popular items only.

    A user without any positive training interaction (unknown to the model, or all ratings
    below ``threshold``) gets the popularity scores of :class:`MostPopular` instead, with a
    warning giving the count. Seen items are all training interactions of the user, whatever
    their rating.

    References
    ----------
    H. Steck, "Embarrassingly shallow autoencoders for sparse data", The Web Conference (WWW),
    2019, pp. 3251-3257.

    Examples
    --------
    >>> import pandas as pd
    >>> train = pd.DataFrame({"user_id": [1, 1, 2, 2, 3], "item_id": [10, 20, 10, 30, 20]})
    >>> model = EASE(l2=1.0).fit(train)
    >>> model.weights_.round(3)
    array([[ 0.   ,  0.4  ,  0.375],
           [ 0.333,  0.   , -0.125],
           [ 0.5  , -0.2  ,  0.   ]])
    >>> model.recommend([3], k=1).round(3)
       user_id  item_id  score  rank
    0        3       10  0.333     1
    """

    @constrained(l2=real(minimum=0.0, strict=True), threshold=optional(real()),
                 max_items=optional(POSITIVE_INT))
    def __init__(self, *, l2: float = 500.0, threshold: float | None = None,
                 max_items: int | None = None) -> None:
        super().__init__()
        self.l2 = float(l2)
        self.threshold = None if threshold is None else float(threshold)
        self.max_items = None if max_items is None else int(max_items)

    def _params(self) -> dict[str, object]:
        params: dict[str, object] = {"l2": self.l2, "threshold": self.threshold}
        if self.max_items is not None:
            params["max_items"] = self.max_items
        return params

    def memory_needed(self, n_users: int, n_items: int) -> int:
        """Bytes the fit needs for ``n_users`` users with a positive interaction and
        ``n_items`` items in B (after ``max_items``): see the Notes.

        Parameters
        ----------
        n_users : int
            Users with a positive interaction.
        n_items : int
            Items, before ``max_items`` is applied.
        """
        m = n_items if self.max_items is None else min(n_items, self.max_items)
        block = 8 * block_rows(m) * m
        if n_users < m:
            return 8 * (m * m + 2 * n_users * m + n_users * n_users) + block
        return 8 * m * m + block

    def _fit_model(
        self, user_codes: np.ndarray, item_codes: np.ndarray, ratings: np.ndarray | None
    ) -> None:
        active = np.flatnonzero(self._popularity > 0)
        if self.max_items is not None and len(active) > self.max_items:
            ranked = active[np.lexsort((active, -self._popularity[active]))]
            active = np.sort(ranked[: self.max_items])
        n_users = int(np.count_nonzero(np.diff(self._positive.indptr)))
        need, available = self.memory_needed(n_users, len(active)), available_memory()
        if available is not None and need > available:
            raise ModelTooLarge(
                f"EASE.fit: the {len(active):,} x {len(active):,} item-item matrix of "
                f"{len(active):,} items needs about {gigabytes(need)} of memory, and this "
                f"machine has {gigabytes(available)} available; pass EASE(max_items=...) to "
                "learn over the most popular items only (an approximation), or fit on a "
                "machine with more memory."
            )
        matrix = self._positive[:, active].tocsr()
        if matrix.shape[1] == 0:
            weights = np.zeros((0, 0))
        elif matrix.shape[0] < matrix.shape[1]:
            weights = _inverse_gram_dual(matrix, self.l2)
        else:
            weights = _inverse_gram_primal(matrix, self.l2)
        # weights holds a positive multiple of P = G^-1; B_ij = -P_ij / P_jj, B_jj = 0.
        m = len(active)
        weights /= -np.diagonal(weights).copy()[None, :]
        weights[np.arange(m), np.arange(m)] = 0.0

        self._active = active
        self.weights_ = weights
        self.weight_items_ = self.items_[active]

    def _scores(self, codes: np.ndarray) -> np.ndarray:
        rows = self._positive_rows(codes)[:, self._active]
        if len(self._active) == len(self.items_):
            scores = np.asarray(rows @ self.weights_)
        else:
            # items without a positive interaction score 0 (the closed form's); beyond
            # max_items, items are not recommended
            limited = self.max_items is not None and \
                len(self._active) < np.count_nonzero(self._popularity)
            scores = np.full((len(codes), len(self.items_)), -np.inf if limited else 0.0)
            scores[:, self._active] = rows @ self.weights_
        scores[self._no_positive(codes)] = self._popularity
        return scores

    def _fallback(self, codes: np.ndarray) -> np.ndarray:
        return self._no_positive(codes)


def _inverse_gram_primal(matrix: sp.csr_matrix, l2: float) -> np.ndarray:
    """P = (X^T X + l2 I)^-1 through an in-place Cholesky inverse (for n_users >= n_items)."""
    n_users, m = matrix.shape
    # G = X^T X + l2 I, upper triangle, Fortran order so LAPACK works in place.
    gram = np.zeros((m, m), dtype=np.float64, order="F")
    (syrk,) = get_blas_funcs(("syrk",), (gram,))
    step = block_rows(m)
    for start in range(0, n_users, step):
        dense = matrix[start : start + step].toarray(order="F")
        gram = syrk(1.0, dense, beta=1.0, c=gram, trans=1, lower=0, overwrite_c=1)
    gram[np.arange(m), np.arange(m)] += l2
    potrf, potri = get_lapack_funcs(("potrf", "potri"), (gram,))
    factor, info = potrf(gram, lower=0, clean=0, overwrite_a=1)
    if info == 0:
        inverse, info = potri(factor, lower=0, overwrite_c=1)
    if info != 0:
        raise np.linalg.LinAlgError(
            f"EASE.fit: X^T X + l2 I is not numerically positive definite (LAPACK info "
            f"{info}); increase 'l2' (got {l2!r})."
        )
    # The upper triangle of the Fortran-ordered result holds P; its transpose is a C-ordered
    # array whose lower triangle holds P.
    inverse = inverse.T
    _fill_upper_from_lower(inverse)
    return inverse


def _inverse_gram_dual(matrix: sp.csr_matrix, l2: float) -> np.ndarray:
    """l2 * P = I - X^T (l2 I + X X^T)^-1 X (Woodbury identity, for n_users < n_items)."""
    n_users, m = matrix.shape
    small = (matrix @ matrix.T).toarray()
    small[np.arange(n_users), np.arange(n_users)] += l2
    try:
        factor = cho_factor(small, lower=False, overwrite_a=True, check_finite=False)
    except np.linalg.LinAlgError as error:
        raise np.linalg.LinAlgError(
            f"EASE.fit: l2 I + X X^T is not numerically positive definite ({error}); "
            f"increase 'l2' (got {l2!r})."
        ) from None
    solved = cho_solve(factor, matrix.toarray(), overwrite_b=True, check_finite=False)
    scaled = np.asarray(matrix.T @ solved)  # X^T (l2 I + X X^T)^-1 X, sparse times dense
    scaled *= -1.0
    scaled[np.arange(m), np.arange(m)] += 1.0
    return scaled


def _fill_upper_from_lower(matrix: np.ndarray) -> None:
    """Make a square array symmetric in place from its lower triangle, in bounded blocks."""
    n = matrix.shape[0]
    step = block_rows(n)
    for start in range(0, n, step):
        stop = min(start + step, n)
        block = matrix[start:stop, start:stop]
        matrix[start:stop, start:stop] = np.tril(block) + np.tril(block, -1).T
        matrix[start:stop, stop:] = matrix[stop:, start:stop].T
