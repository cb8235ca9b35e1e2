"""Random splits: global, per user (the user-aware split), train/dev/test and k folds."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from evalkit._canonical import canonical_order, canonical_permutation
from evalkit._checks import (
    as_rng,
    check_fraction,
    check_interactions,
    describe,
    seed_of,
)

from .._constraints import FRACTION, NONNEGATIVE_INT, SEED, choice, constrained, integer
from .._errors import InvalidParameterError
from ._base import (
    Split,
    _group_ranks,
    _make,
    _round_half_up,
    _user_codes,
)

__all__ = ["Folds", "kfold_folds", "kfold_split", "random_split", "train_dev_test_split",
           "user_ratio_split"]


@constrained(test_fraction=FRACTION, rng=SEED)
def random_split(
    data: pd.DataFrame,
    *,
    test_fraction: float = 0.2,
    rng: int | np.random.Generator | None = None,
) -> Split:
    """Split interactions into train and test by a global random fraction of rows.

    Parameters
    ----------
    data : pandas.DataFrame
        Interactions with at least ``user_id`` and ``item_id``; other columns are carried along.
    test_fraction : float, default 0.2
        Target share of rows in test, in (0, 1).
    rng : int, numpy.random.Generator or None
        Seed or generator; the same seed gives the same split.

    Returns
    -------
    Split
        ``train`` and ``test`` keep the input's columns, dtypes, index labels and row order.

    Raises
    ------
    TypeError, ValueError
        On missing columns, unusable id or rating dtypes, missing ids, an empty frame, a fraction
        outside (0, 1) or an invalid ``rng``.

    Notes
    -----
    Exactly ``n_test = floor(f * n + 1/2)`` rows (``f * n`` rounded half up) are drawn without
    replacement, so ``|n_test - f n| <= 1/2``. The split ignores users: some users may end up
    only in test (cold users, see :func:`evalkit.split.audit`). With very few rows one side
    may be empty.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalkit.split import random_split
    >>> data = pd.DataFrame({"user_id": [1, 1, 1, 2, 2], "item_id": [1, 2, 3, 1, 4]})
    >>> split = random_split(data, test_fraction=0.4, rng=0)
    >>> len(split.train), len(split.test)
    (3, 2)
    """
    func = "random_split"
    data = check_interactions(data, func=func, ratings=True, nonempty=True)
    f = float(test_fraction)  # constrained, as rng
    seed = seed_of(rng, func=func)
    gen = as_rng(rng)
    n = len(data)
    n_test = int(_round_half_up(f * n))
    test = np.zeros(n, dtype=bool)
    test[canonical_order(data)[gen.permutation(n)[:n_test]]] = True
    return _make(data, test, strategy="random", params={"test_fraction": f}, seed=seed)


@constrained(test_fraction=FRACTION, rng=SEED, min_train=NONNEGATIVE_INT)
def user_ratio_split(
    data: pd.DataFrame,
    *,
    test_fraction: float = 0.2,
    rng: int | np.random.Generator | None = None,
    min_train: int = 1,
) -> Split:
    """Split each user's interactions at random: a fraction of every user's rows goes to test.

    This is the user-aware split: every user keeps a share of their history in train, so a
    recommender is judged on all users and not only on the most active ones.

    Parameters
    ----------
    data : pandas.DataFrame
        Interactions with at least ``user_id`` and ``item_id``; other columns are carried along.
    test_fraction : float, default 0.2
        Target share of each user's interactions in test, in (0, 1).
    rng : int, numpy.random.Generator or None
        Seed or generator; the same seed gives the same split.
    min_train : int, default 1
        Interactions every user keeps in train. Users with ``min_train`` interactions or fewer
        are entirely in train. ``0`` lets a user with one interaction land entirely in test.

    Returns
    -------
    Split
        ``train`` and ``test`` keep the input's columns, dtypes, index labels and row order.

    Raises
    ------
    TypeError, ValueError
        On missing columns, unusable id or rating dtypes, missing ids, an empty frame, a fraction
        outside (0, 1), a negative ``min_train`` or an invalid ``rng``.

    Notes
    -----
    A user with ``n_u`` interactions gets

    ``t_u = min(floor(f * n_u + 1/2), max(n_u - min_train, 0))``

    test interactions, chosen uniformly at random: the target ``f * n_u`` rounded half up,
    then capped so that ``min_train`` stay in train. Rounding alone keeps ``|t_u - f n_u| <=
    1/2``; the cap can only bind when ``n_u - min_train < f n_u + 1/2``, and with the default
    ``min_train=1`` the result is then still within one interaction of the target. With a
    larger ``min_train`` the cap wins for small users. Because the rounding is per user, the
    overall test share can differ from ``f`` by up to half an interaction per user.

    References
    ----------
    D. Sacharidis, "Evaluation - System Accuracy", Recommender Systems lecture notes: "split
    should be user-aware ... for each user randomly select 80% of historical feedback and insert
    into train".

    Examples
    --------
    >>> import pandas as pd
    >>> from evalkit.split import user_ratio_split
    >>> data = pd.DataFrame({"user_id": [1] * 5 + [2] * 10, "item_id": range(15)})
    >>> split = user_ratio_split(data, test_fraction=0.2, rng=42)
    >>> split.test["user_id"].value_counts().sort_index().tolist()
    [1, 2]
    """
    func = "user_ratio_split"
    data = check_interactions(data, func=func, ratings=True, nonempty=True)
    f, min_train = float(test_fraction), int(min_train)  # constrained, as rng
    seed = seed_of(rng, func=func)
    gen = as_rng(rng)
    codes, n_users = _user_codes(data)
    ranks, counts = _group_ranks(codes, n_users, canonical_permutation(data, gen))
    n_test = np.minimum(_round_half_up(f * counts), np.maximum(counts - min_train, 0))
    test = ranks < n_test[codes]
    params = {"test_fraction": f, "min_train": min_train}
    return _make(data, test, strategy="user_ratio", params=params, seed=seed)


@constrained(by=choice("user", "global"), rng=SEED, min_train=NONNEGATIVE_INT)
def train_dev_test_split(
    data: pd.DataFrame,
    *,
    fractions: Sequence[float] = (0.8, 0.1, 0.1),
    rng: int | np.random.Generator | None = None,
    by: str = "user",
    min_train: int = 1,
) -> Split:
    """Split interactions into train, dev (validation) and test at random.

    Parameters
    ----------
    data : pandas.DataFrame
        Interactions with at least ``user_id`` and ``item_id``; other columns are carried along.
    fractions : sequence of three floats, default (0.8, 0.1, 0.1)
        Target shares of train, dev and test; each in (0, 1), summing to 1.
    rng : int, numpy.random.Generator or None
        Seed or generator; the same seed gives the same split.
    by : {"user", "global"}, default "user"
        ``"user"`` applies the shares to every user's interactions (user-aware);
        ``"global"`` to all rows at once.
    min_train : int, default 1
        With ``by="user"``, interactions every user keeps in train (taken from dev first, then
        from test). Not used with ``by="global"``.

    Returns
    -------
    Split
        With ``dev`` set; the three frames keep the input's columns, dtypes, index labels and
        row order.

    Raises
    ------
    TypeError, ValueError
        On invalid data, fractions that are not three numbers in (0, 1) summing to 1, an
        unknown ``by``, a negative ``min_train`` or an invalid ``rng``.

    Notes
    -----
    Rows are shuffled (within each user for ``by="user"``) and cut at the cumulative boundaries
    ``b_test = floor(f_test * n + 1/2)`` and ``b_dev = floor((f_test + f_dev) * n + 1/2)``: the
    first ``b_test`` rows are test, the next ``b_dev - b_test`` dev, the rest train. Rounding the
    cumulative boundaries keeps every part within one interaction of its target. For
    ``by="user"``, ``b_dev`` is then capped at ``max(n_u - min_train, 0)`` and ``b_test`` at
    ``b_dev``.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalkit.split import train_dev_test_split
    >>> data = pd.DataFrame({"user_id": [1] * 10 + [2] * 20, "item_id": range(30)})
    >>> split = train_dev_test_split(data, rng=0)
    >>> len(split.train), len(split.dev), len(split.test)
    (24, 3, 3)
    """
    func = "train_dev_test_split"
    data = check_interactions(data, func=func, ratings=True, nonempty=True)
    f_train, f_dev, f_test = _check_fractions(fractions, func=func)
    min_train = int(min_train)  # constrained, as rng
    seed = seed_of(rng, func=func)
    gen = as_rng(rng)
    n = len(data)
    key = canonical_permutation(data, gen)
    if by == "user":
        codes, n_users = _user_codes(data)
        ranks, counts = _group_ranks(codes, n_users, key)
        cap = np.maximum(counts - min_train, 0)
        b_dev = np.minimum(_round_half_up((f_test + f_dev) * counts), cap)
        b_test = np.minimum(_round_half_up(f_test * counts), b_dev)
        b_dev, b_test = b_dev[codes], b_test[codes]
    else:
        ranks = key
        b_dev = int(_round_half_up((f_test + f_dev) * n))
        b_test = int(_round_half_up(f_test * n))
    test = ranks < b_test
    dev = (ranks >= b_test) & (ranks < b_dev)
    params = {"fractions": (f_train, f_dev, f_test), "by": by}
    if by == "user":
        params["min_train"] = min_train
    return _make(data, test, strategy="train_dev_test", params=params, seed=seed, dev_mask=dev)


#: A number of folds.
_FOLDS = integer(2)


@constrained(folds=_FOLDS, rng=SEED)
def kfold_split(
    data: pd.DataFrame,
    *,
    folds: int = 5,
    rng: int | np.random.Generator | None = None,
) -> list[Split]:
    """User-aware k-fold cross-validation: every user's interactions are dealt to the folds.

    Parameters
    ----------
    data : pandas.DataFrame
        Interactions with at least ``user_id`` and ``item_id``; other columns are carried along.
    folds : int, default 5
        Number of folds, at least 2, and at most the number of interactions of the smallest
        user.
    rng : int, numpy.random.Generator or None
        Seed or generator; the same seed gives the same folds.

    Returns
    -------
    list of Split
        ``folds`` splits; in split ``i`` fold ``i`` is test and the other folds are train, and
        ``info["params"]["fold"]`` is ``i``. Each row is in test in exactly one split.

    Raises
    ------
    TypeError, ValueError
        On invalid data, ``folds`` not an integer >= 2, any user with fewer interactions than
        ``folds`` (the message gives how many; filter them out first, for example
        ``data[data.groupby("user_id")["item_id"].transform("size") >= folds]``), or an invalid
        ``rng``.

    Notes
    -----
    Each user's interactions are shuffled and dealt round-robin, starting at a random fold per
    user: the ``r``-th shuffled interaction of user ``u`` goes to fold ``(r + o_u) mod k`` with
    ``o_u`` uniform in ``0..k-1``. Every fold therefore holds ``floor(n_u / k)`` or
    ``ceil(n_u / k)`` of each user's interactions, and the random start spreads the larger
    shares evenly over the folds.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalkit.split import kfold_split
    >>> data = pd.DataFrame({"user_id": [1] * 6 + [2] * 9, "item_id": range(15)})
    >>> splits = kfold_split(data, folds=3, rng=1)
    >>> [len(s.test) for s in splits]
    [5, 5, 5]
    """
    return list(_kfold(data, folds=folds, rng=rng, func="kfold_split", canonical=False))


class Folds(Sequence):
    """The folds of :func:`kfold_folds`: a sequence of :class:`Split`, fold ``i`` the test part
    of split ``i``, each split made when it is reached. A loop over the folds holds one fold's
    frames at a time, where the list :func:`kfold_split` returns holds all of them (``folds``
    copies of the data).

    Made by :func:`kfold_folds`; ``data``, ``fold_of``, ``user_codes`` and ``folds`` are
    kept as attributes of the same names.

    Parameters
    ----------
    data : pandas.DataFrame
        The interactions divided.
    fold_of : numpy.ndarray
        Each row's fold, ``0..folds-1``, aligned with ``data``'s rows.
    user_codes : numpy.ndarray
        Each row's user as a code ``0..users-1``, in the order of the user ids.
    folds : int
        Number of folds.
    seed_given : int or None
        The seed the folds were drawn with (each split's ``info["seed"]``).
    positions : numpy.ndarray or None
        The positions of ``data``'s rows in the order each split's frames hold them; None:
        input order.

    Attributes
    ----------
    order : str
        ``"input"`` or ``"canonical"``: the order in which each split's frames hold their rows.
    """

    def __init__(self, data: pd.DataFrame, fold_of: np.ndarray, user_codes: np.ndarray,
                 folds: int, seed_given: int | None, positions: np.ndarray | None) -> None:
        self.data, self.fold_of, self.user_codes = data, fold_of, user_codes
        self.folds, self._seed, self._positions = folds, seed_given, positions
        self.order = "input" if positions is None else "canonical"

    def __len__(self) -> int:
        return self.folds

    def __iter__(self):
        # each split yielded as it is made, no reference kept here: a loop that lets a fold
        # go before asking for the next holds one fold's frames
        for i in range(self.folds):
            yield self[i]

    def __getitem__(self, i: int | slice) -> Split | list[Split]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self.folds))]
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
            raise TypeError(f"Folds: a fold is indexed by an integer or a slice; got "
                            f"{describe(i)}.")
        if not -self.folds <= i < self.folds:
            raise IndexError(f"Folds: fold {i!r} does not exist; there are {self.folds}.")
        i = int(i) % self.folds
        return _make(self.data, self.fold_of == i, strategy="kfold",
                     params={"folds": self.folds, "fold": i}, seed=self._seed,
                     order=self._positions)

    def __repr__(self) -> str:
        return (f"Folds(folds={self.folds}, rows={len(self.data)}, order={self.order!r}, "
                f"seed={self._seed!r})")


@constrained(folds=_FOLDS, rng=SEED, order=choice("input", "canonical"))
def kfold_folds(
    data: pd.DataFrame,
    *,
    folds: int = 5,
    rng: int | np.random.Generator | None = None,
    order: str = "input",
) -> Folds:
    """The folds of :func:`kfold_split`, each split made only when it is reached.

    The same draw and the same splits as :func:`kfold_split` with the same arguments, for data
    where ``folds`` train/test copies held together do not fit: iterate, and each fold's
    frames can be let go before the next fold's are made. The splits are taken from ``data``
    as it is when each is reached (``data`` is not copied): leave it unchanged meanwhile.

    Parameters
    ----------
    data : pandas.DataFrame
        Interactions with at least ``user_id`` and ``item_id``; other columns are carried along.
    folds : int, default 5
        Number of folds, as in :func:`kfold_split`.
    rng : int, numpy.random.Generator or None
        Seed or generator; a generator is left in the state :func:`kfold_split` leaves it in.
    order : {"input", "canonical"}, default "input"
        Order of each split's rows: the input's, as every split strategy keeps it, or
        evalkit's canonical order (user, time, item, rating), in which models and evaluations
        need not sort them again: the same rows, so the same results, sooner.

    Returns
    -------
    Folds
        A sequence of ``folds`` :class:`Split`, made when reached.

    Raises
    ------
    TypeError, ValueError
        As :func:`kfold_split`.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalkit.split import kfold_folds
    >>> data = pd.DataFrame({"user_id": [1] * 6 + [2] * 9, "item_id": range(15)})
    >>> folds = kfold_folds(data, folds=3, rng=1)
    >>> [len(split.test) for split in folds]
    [5, 5, 5]
    """
    return _kfold(data, folds=folds, rng=rng, func="kfold_folds",
                  canonical=order == "canonical")


def _kfold(data: pd.DataFrame, *, folds: int, rng: int | np.random.Generator | None,
           func: str, canonical: bool) -> Folds:
    """The draw of :func:`kfold_split`; errors name ``func``."""
    k = int(folds)
    data = check_interactions(data, func=func, ratings=True, nonempty=True)
    seed = seed_of(rng, func=func)
    gen = as_rng(rng)
    codes, n_users = _user_codes(data)
    order = canonical_order(data)
    ranks, counts = _group_ranks(codes, n_users, canonical_permutation(data, gen, order=order))
    small = int((counts < k).sum())
    if small:
        raise ValueError(
            f"{func}: 'folds' is {k}, but {small} user(s) have fewer than {k} interactions "
            f"(smallest: {int(counts.min())}); remove them or use fewer folds."
        )
    offset = gen.integers(0, k, size=n_users)
    fold_of = (ranks + offset[codes]) % k
    return Folds(data, fold_of, codes, k, seed, order if canonical else None)


def _check_fractions(fractions: object, *, func: str) -> tuple[float, float, float]:
    if isinstance(fractions, (str, bytes)) or not isinstance(fractions, Sequence):
        raise InvalidParameterError(
            f"{func}: 'fractions' must be a sequence of three numbers (train, dev, test); "
            f"got {describe(fractions)}."
        )
    if len(fractions) != 3:
        raise ValueError(
            f"{func}: 'fractions' must hold three numbers (train, dev, test); got {fractions!r}."
        )
    values = tuple(
        check_fraction(value, func=func, arg=f"fractions[{i}]") for i, value in enumerate(fractions)
    )
    if abs(sum(values) - 1.0) > 1e-9:
        raise ValueError(
            f"{func}: 'fractions' must sum to 1; got {fractions!r} (sum {sum(values)!r})."
        )
    return values  # type: ignore[return-value]
