"""Shared machinery of the baseline recommenders: input checks, id encoding, top-k selection.

Every model encodes the training ids once (users and items sorted ascending, so an item's code
order is its ``item_id`` order), keeps the sparse matrix of seen (user, item) pairs, and ranks
items in blocks of users with :func:`top_k`, which breaks score ties by ascending column.
"""

from __future__ import annotations

from typing import Self

import numpy as np
import pandas as pd
import scipy.sparse as sp

from evalkit._canonical import in_canonical_order
from evalkit._checks import check_columns, check_finite, check_ids, describe
from evalkit._constraints import BOOL, POSITIVE_INT, constrained
from evalkit._parallel import available_threads, run_parallel

from .._checks import warn
from .._errors import InvalidParameterError
from .._parallel import available_memory

__all__ = ["ModelTooLarge", "available_memory"]

# Upper bound on the number of cells of one dense (users x items) score block.
BLOCK_CELLS = 1 << 22


def block_rows(n_cols: int) -> int:
    """Number of rows of a dense block with ``n_cols`` columns that fits in ``BLOCK_CELLS``."""
    return max(1, BLOCK_CELLS // max(n_cols, 1))


def top_k(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise top ``k`` of a 2-D float array without NaN.

    Returns the column indices and the scores, each of shape ``(n_rows, min(k, n_cols))``,
    ordered by descending score and, within equal scores, by ascending column index. ``-inf``
    entries sort last; callers drop them.
    """
    n_rows, n_cols = scores.shape
    k = min(k, n_cols)
    if k < n_cols:
        # The k-th largest value of each row; every larger value is kept, and values equal to
        # it are kept in column order until the row holds exactly k entries.
        kth = np.partition(scores, n_cols - k, axis=1)[:, n_cols - k, None]
        above = scores > kth
        at = scores == kth
        need = k - above.sum(axis=1, keepdims=True)
        keep = above | (at & (np.cumsum(at, axis=1) <= need))
        cols = np.nonzero(keep)[1].reshape(n_rows, k)
    else:
        cols = np.broadcast_to(np.arange(n_cols), (n_rows, n_cols))
    values = np.take_along_axis(scores, cols, axis=1)
    order = np.argsort(-values, axis=1, kind="stable")
    return np.take_along_axis(cols, order, axis=1), np.take_along_axis(values, order, axis=1)


class ModelTooLarge(MemoryError):
    """A model's fit would need more memory than the machine has available; raised before
    anything large is allocated, naming both amounts and the remedies."""


def gigabytes(n_bytes: float) -> str:
    """``12.3 GB`` (decimal gigabytes, one decimal)."""
    return f"{n_bytes / 1e9:,.1f} GB"


def _id_kind(index: pd.Index) -> str:
    return "integer" if pd.api.types.is_integer_dtype(index.dtype) else "string"


class Recommender:
    """Base class: fitting bookkeeping and blocked top-k recommendation.

    Subclasses set ``_uses_rating`` and implement ``_fit_model`` and ``_scores``; models with a
    popularity fallback also override ``_fallback``.
    """

    #: True when the model needs the rating column (explicit models).
    _uses_rating = False

    def __init__(self) -> None:
        self.threshold: float | None = None

    # -- parameters ----------------------------------------------------------------------------
    def _params(self) -> dict[str, object]:
        return {}

    def __repr__(self) -> str:
        args = ", ".join(f"{name}={value!r}" for name, value in self._params().items())
        return f"{type(self).__name__}({args})"

    # -- fitting -------------------------------------------------------------------------------
    def fit(self, train: pd.DataFrame) -> Self:
        """Fit the model on an interactions frame.

        Parameters
        ----------
        train : pandas.DataFrame
            Interactions with columns ``user_id`` and ``item_id``, plus ``rating`` when the model
            uses ratings or a ``threshold`` is set. Other columns are ignored.

        Returns
        -------
        self
            The fitted model.

        Raises
        ------
        TypeError, ValueError
            If ``train`` is not a DataFrame, lacks a column, is empty, has missing ids or
            non-finite ratings.
        """
        func = f"{type(self).__name__}.fit"
        need_rating = self._uses_rating or self.threshold is not None
        required = ["user_id", "item_id"] + (["rating"] if need_rating else [])
        check_columns(train, func=func, arg="train", required=required)
        check_ids(train, func=func, arg="train")
        if len(train) == 0:
            raise ValueError(f"{func}: 'train' must hold at least one interaction; got 0 rows.")
        # in the canonical order of the rows: sums over ratings are then taken in one order,
        # and the fitted model is the same for the same interactions in any row order
        train = in_canonical_order(train)
        ratings = check_finite(train, "rating", func=func, arg="train") if need_rating else None

        user_codes, users = pd.factorize(train["user_id"], sort=True)
        item_codes, items = pd.factorize(train["item_id"], sort=True)
        self.users_ = pd.Index(users, name="user_id")
        self.items_ = pd.Index(items, name="item_id")
        shape = (len(self.users_), len(self.items_))
        self._seen = _binary_matrix(user_codes, item_codes, shape)
        if self.threshold is None:
            self._positive = self._seen
        else:
            keep = ratings >= self.threshold
            self._positive = _binary_matrix(user_codes[keep], item_codes[keep], shape)
        self._popularity = np.asarray(self._positive.sum(axis=0), dtype=np.float64).ravel()
        self._fit_model(user_codes, item_codes, ratings)
        return self

    def _fit_model(
        self, user_codes: np.ndarray, item_codes: np.ndarray, ratings: np.ndarray | None
    ) -> None:
        raise NotImplementedError

    def _check_fitted(self, func: str) -> None:
        if not hasattr(self, "items_"):
            raise ValueError(f"{func}: the model is not fitted; call fit(train) first.")

    # -- scoring -------------------------------------------------------------------------------
    def _scores(self, codes: np.ndarray) -> np.ndarray:
        """Dense float64 scores of shape (len(codes), n_items); code -1 is an unknown user."""
        raise NotImplementedError

    def _fallback(self, codes: np.ndarray) -> np.ndarray | None:
        """Mask of the users that get the documented fallback, or None when there is none."""
        return None

    def _global_scores(self, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """For a model that ranks every user's items in one global order: the item scores
        that order them (n_items) and each user's score offset (len(codes)); the score of
        (user, item) is their sum. None for a model that ranks each user differently."""
        return None

    def _no_positive(self, codes: np.ndarray) -> np.ndarray:
        """Mask of users unknown to the model or without a positive training interaction."""
        n_positive = np.diff(self._positive.indptr)
        return (codes < 0) | (n_positive[np.maximum(codes, 0)] == 0)

    def _positive_rows(self, codes: np.ndarray) -> sp.csr_matrix:
        """Rows of the positive matrix for ``codes``, with an empty row for unknown users."""
        rows = self._positive[np.maximum(codes, 0)]
        if (codes < 0).any():
            rows = sp.diags((codes >= 0).astype(np.float64)) @ rows
        rows = sp.csr_matrix(rows)
        # each row's items in order, whatever else is in the block: a product with the rows
        # then sums each user's terms in one order, so a user's scores are the same bits
        # whichever users are scored beside them
        rows.sort_indices()
        return rows

    def _fallback_label(self) -> str:
        return "the popularity ranking"

    # -- recommending --------------------------------------------------------------------------
    @constrained(k=POSITIVE_INT, exclude_seen=BOOL)
    def recommend(
        self,
        users: object,
        k: int = 10,
        *,
        exclude_seen: bool = True,
    ) -> pd.DataFrame:
        """Top-``k`` lists for ``users``; see the class docstring for the scoring rule.

        Parameters
        ----------
        users : array-like
            User ids (duplicates are merged; each user gets one list).
        k : int, default 10
            Length of each list (shorter when fewer than ``k`` items are left to recommend).
        exclude_seen : bool, default True
            Leave out the items the user interacted with in ``train`` (any rating).

        Returns
        -------
        pandas.DataFrame
            Columns ``user_id, item_id, score, rank`` (rank 1-based, int64), sorted by
            ``user_id`` then ``rank``; score ties are broken by ascending ``item_id``.

        Raises
        ------
        ValueError
            If the model is not fitted, ``k`` is not a positive integer or ``users`` holds
            missing ids.
        TypeError
            If ``users`` is not a one-dimensional array-like of integer or string ids.
        """
        func = f"{type(self).__name__}.recommend"
        self._check_fitted(func)
        k = int(k)
        requested = _as_user_index(users, func=func)
        fitted_kind, asked_kind = _id_kind(self.users_), _id_kind(requested)
        if len(requested) and fitted_kind != asked_kind:
            raise InvalidParameterError(
                f"{func}: 'users' holds {asked_kind} ids and the model was fitted on "
                f"{fitted_kind} user ids, so no user would be recognised; convert them "
                f"(first: {requested[0]!r})."
            )
        codes = self.users_.get_indexer(requested)
        self._warn_fallback(codes, func=func)

        ordered = self._global_scores(codes)
        if ordered is not None:
            row, col, val = self._from_global_order(codes, k, exclude_seen, *ordered)
            counts = np.bincount(row, minlength=len(codes))
            starts = np.cumsum(counts) - counts
            rank = np.arange(len(row), dtype=np.int64) - np.repeat(starts, counts) + 1
            return pd.DataFrame({"user_id": requested.to_numpy()[row],
                                 "item_id": self.items_.to_numpy()[col],
                                 "score": val, "rank": rank})
        row, col, val = self._dense_lists(codes, k, exclude_seen)
        counts = np.bincount(row, minlength=len(codes))
        starts = np.cumsum(counts) - counts
        rank = np.arange(len(row), dtype=np.int64) - np.repeat(starts, counts) + 1
        return pd.DataFrame(
            {
                "user_id": requested[row],
                "item_id": self.items_[col],
                "score": val.astype(np.float64),
                "rank": rank,
            }
        )

    def _warn_fallback(self, codes: np.ndarray, *, func: str) -> None:
        fallback = self._fallback(codes)
        if fallback is not None and fallback.any():
            n_unknown = int((codes < 0).sum())
            warn(
                f"{func}: {int(fallback.sum())} of {len(codes)} user(s) have no positive "
                f"training interaction ({n_unknown} unknown to the model); they get "
                f"{self._fallback_label()}.",
                UserWarning)

    def score(self, pairs: pd.DataFrame) -> pd.DataFrame:
        """The model's score of each (user, item) pair: the score ``recommend`` ranks by.

        Parameters
        ----------
        pairs : pandas.DataFrame
            ``user_id`` and ``item_id`` (other columns are ignored), such as the candidates
            of :func:`evalkit.protocols.sampled.sample_negatives`.

        Returns
        -------
        pandas.DataFrame
            ``user_id``, ``item_id``, ``score``, one row per pair in the order given (the input
            is not changed). An item the model has not seen in training scores ``-inf`` (it
            ranks below every scored item); a user it has not seen gets the fallback
            ``recommend`` gives (with the same warning). Training items are scored like any
            other: the caller decides what is excluded.

        Raises
        ------
        ValueError, TypeError
            If the model is not fitted, or ``pairs`` lacks a column, holds missing ids, or
            ids of another type than the model was fitted on.
        """
        func = f"{type(self).__name__}.score"
        self._check_fitted(func)
        check_columns(pairs, func=func, arg="pairs", required=["user_id", "item_id"])
        check_ids(pairs, func=func, arg="pairs")
        users = pd.Index(pairs["user_id"])
        if len(users) and _id_kind(self.users_) != _id_kind(users):
            raise InvalidParameterError(
                f"{func}: 'pairs' holds {_id_kind(users)} user ids and the model was fitted "
                f"on {_id_kind(self.users_)} ones, so no user would be recognised; convert "
                f"them (first: {users[0]!r}).")
        unique, inverse = np.unique(self.users_.get_indexer(users), return_inverse=True)
        self._warn_fallback(unique, func=func)
        items = self.items_.get_indexer(pd.Index(pairs["item_id"]))
        known = items >= 0
        out = np.full(len(pairs), -np.inf)
        ordered = self._global_scores(unique)
        if ordered is not None:
            item_scores, offsets = ordered
            out[known] = item_scores[items[known]] + offsets[inverse[known]]
        else:
            rows = np.flatnonzero(known)
            rows = rows[np.argsort(inverse[rows], kind="stable")]
            step = block_rows(len(self.items_))
            bounds = np.searchsorted(inverse[rows], np.arange(0, len(unique) + step, step))
            for block, start in enumerate(range(0, len(unique), step)):  # blocks of users
                at = rows[bounds[block]:bounds[block + 1]]
                dense = self._scores(unique[start:start + step])
                out[at] = dense[inverse[at] - start, items[at]]
        return pd.DataFrame({"user_id": pairs["user_id"].to_numpy(),
                             "item_id": pairs["item_id"].to_numpy(), "score": out})

    def _dense_lists(self, codes: np.ndarray, k: int, exclude_seen: bool
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Positions in ``codes``, item codes and scores of the top-``k`` lists, by rows of
        dense scores: blocks of users, on a thread per core (NumPy's partitions and SciPy's
        products release the GIL); each block's lists are its own, so they do not depend on
        the threads."""
        step = block_rows(len(self.items_))

        def block_lists(start: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            block = codes[start : start + step]
            scores = self._scores(block)
            if exclude_seen:
                known = np.flatnonzero(block >= 0)
                seen = self._seen[block[known]].tocoo()
                scores[known[seen.row], seen.col] = -np.inf
            top_cols, top_vals = top_k(scores, k)
            row, pos = np.nonzero(top_vals > -np.inf)
            return row + start, top_cols[row, pos], top_vals[row, pos]

        found = run_parallel([lambda a=a: block_lists(a) for a in range(0, len(codes), step)],
                             available_threads())
        if not found:
            return (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64),
                    np.zeros(0, dtype=np.float64))
        return tuple(np.concatenate([f[j] for f in found]) for j in range(3))

    def _from_global_order(self, codes: np.ndarray, k: int, exclude_seen: bool,
                           item_scores: np.ndarray, offsets: np.ndarray,
                           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Rows, item codes and scores of the top-``k`` lists of a model with one global
        order (:meth:`_global_scores`): the order's first items that each user has not seen
        (see :func:`_unseen_positions`)."""
        n_items = len(self.items_)
        k = min(k, n_items)
        order, position = _global_top(item_scores)
        if exclude_seen:
            row, at = _unseen_positions(self._seen, codes, position, k, n_items)
        else:
            row = np.repeat(np.arange(len(codes)), k)
            at = np.tile(np.arange(k), len(codes))
        col = order[at]
        return row, col, (item_scores[col] + offsets[row]).astype(np.float64)


def _unseen_positions(seen: sp.csr_matrix, codes: np.ndarray, position: np.ndarray, k: int,
                      n_items: int) -> tuple[np.ndarray, np.ndarray]:
    """For each user (``codes``, -1 unknown), the positions in a global order of the first
    ``k`` items the user has not seen (fewer where fewer are left), as (row, position) pairs
    in row order, then position order.

    A user with ``n`` seen items finds its first ``k`` unseen ones among the first ``k + n``
    positions (capped at ``n_items``): one flag per such position marks the seen ones, and
    the first ``k`` unflagged positions of each user's run are the answer. Time and memory
    are proportional to users x (k + seen items), never to users x catalogue, and nothing
    is sorted.
    """
    n = len(codes)
    known = np.flatnonzero(codes >= 0)
    if len(known) == seen.shape[0] and np.array_equal(codes, np.arange(seen.shape[0])):
        rows = seen  # every user, in order: the matrix itself
    else:
        rows = seen[codes[known]]
    n_seen = np.zeros(n, dtype=np.int64)
    n_seen[known] = np.diff(rows.indptr)
    span = np.minimum(k + n_seen, n_items)  # the positions each user's answer lies in
    start = np.cumsum(span) - span
    flags = np.zeros(int(span.sum()), dtype=bool)
    user = np.repeat(known, np.diff(rows.indptr))
    pos = position[rows.indices]
    inside = pos < span[user]
    flags[start[user[inside]] + pos[inside]] = True
    free = np.flatnonzero(~flags)  # unseen positions, by user then position
    n_free = span - np.bincount(user[inside], minlength=n)
    take = np.minimum(n_free, k)
    first = np.cumsum(n_free) - n_free  # where each user's unseen positions start in free
    row = np.repeat(np.arange(n), take)
    slot = np.arange(int(take.sum())) - np.repeat(np.cumsum(take) - take, take)
    return row, free[first[row] + slot] - start[row]


def _global_top(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The items in descending score, ties by ascending code; and each item's position."""
    order = np.lexsort((np.arange(len(scores)), -scores))
    position = np.empty(len(scores), dtype=np.int64)
    position[order] = np.arange(len(scores))
    return order, position


def _binary_matrix(
    user_codes: np.ndarray, item_codes: np.ndarray, shape: tuple[int, int]
) -> sp.csr_matrix:
    """CSR matrix with a 1.0 at every (user, item) pair present, duplicates merged."""
    matrix = sp.csr_matrix(
        (np.ones(len(user_codes)), (user_codes, item_codes)), shape=shape, dtype=np.float64
    )
    matrix.sum_duplicates()
    matrix.data[:] = 1.0
    return matrix


def _as_user_index(users: object, *, func: str) -> pd.Index:
    """Sorted unique user ids from an array-like, rejecting scalars and missing ids."""
    if isinstance(users, (str, bytes)) or np.ndim(users) != 1:
        raise InvalidParameterError(
            f"{func}: 'users' must be a one-dimensional array-like of user ids; "
            f"got {describe(users)}."
        )
    index = pd.Index(users, name="user_id")
    if index.hasnans:
        raise ValueError(f"{func}: 'users' has {int(index.isna().sum())} missing (NaN) id(s).")
    if pd.api.types.is_float_dtype(index.dtype) or pd.api.types.is_bool_dtype(index.dtype):
        raise InvalidParameterError(
            f"{func}: 'users' must hold integer or string ids; got dtype {index.dtype}."
        )
    try:
        return index.unique().sort_values()
    except TypeError as error:
        raise InvalidParameterError(
            f"{func}: 'users' mixes id types that cannot be sorted ({error})."
        ) from None
