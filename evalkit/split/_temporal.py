"""Temporal splits: the end of each user's history, or everything after a global cutoff."""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from evalkit._checks import (
    check_fraction,
    check_interactions,
    check_nonnegative_int,
    check_one_of,
    check_positive_int,
    describe,
)

from .._constraints import FRACTION, NONNEGATIVE_INT, POSITIVE_INT, constrained, optional
from .._errors import InvalidParameterError
from ._base import (
    Split,
    _group_ranks,
    _make,
    _round_half_up,
    _sort_codes,
    _user_codes,
)

__all__ = ["global_temporal_split", "user_temporal_split"]


@constrained(test_fraction=optional(FRACTION), n_test=optional(POSITIVE_INT),
             min_train=NONNEGATIVE_INT)
def user_temporal_split(
    data: pd.DataFrame,
    *,
    test_fraction: float | None = None,
    n_test: int | None = None,
    min_train: int = 1,
) -> Split:
    """Put the most recent interactions of every user in test.

    Parameters
    ----------
    data : pandas.DataFrame
        Interactions with ``user_id``, ``item_id`` and ``timestamp`` (numeric or datetime).
    test_fraction : float, optional
        Share of each user's history, in (0, 1), that goes to test (the latest interactions).
    n_test : int, optional
        Number of each user's latest interactions that go to test (``1`` is leave-last-out).
        Give exactly one of ``test_fraction`` and ``n_test``.
    min_train : int, default 1
        Interactions every user keeps in train; users with ``min_train`` interactions or fewer
        are entirely in train.

    Returns
    -------
    Split
        ``train`` and ``test`` keep the input's columns, dtypes, index labels and row order.

    Raises
    ------
    TypeError, ValueError
        On missing columns, unusable dtypes, missing ids or timestamps, an empty frame, both or
        neither of ``test_fraction`` and ``n_test``, a fraction outside (0, 1), ``n_test < 1``
        or a negative ``min_train``.

    Notes
    -----
    Each user's interactions are ordered by ``timestamp``; ties are broken by ``item_id``
    ascending, then by row position, so the split is deterministic. The last

    ``t_u = min(c_u, max(n_u - min_train, 0))``

    interactions are test, with ``c_u = n_test`` or ``c_u = floor(f * n_u + 1/2)`` (rounded
    half up, as in :func:`user_ratio_split`). Within each user, every training timestamp is
    at or before every test timestamp. Users' histories are not aligned in time: a training
    interaction of one user may come after a test interaction of another (see
    :func:`global_temporal_split` and :func:`audit`).

    Examples
    --------
    >>> import pandas as pd
    >>> from evalkit.split import user_temporal_split
    >>> data = pd.DataFrame({"user_id": [1, 1, 1, 2, 2],
    ...                      "item_id": [1, 2, 3, 1, 2],
    ...                      "timestamp": [30, 10, 20, 5, 5]})
    >>> user_temporal_split(data, n_test=1).test
       user_id  item_id  timestamp
    0        1        1         30
    4        2        2          5
    """
    func = "user_temporal_split"
    data = check_interactions(data, func=func, ratings=True, timestamp=True, nonempty=True)
    which = check_one_of(func, test_fraction=test_fraction, n_test=n_test)
    min_train = check_nonnegative_int(min_train, func=func, arg="min_train")
    codes, n_users = _user_codes(data)
    ranks, counts = _group_ranks(
        codes, n_users, _sort_codes(data["timestamp"]), _sort_codes(data["item_id"])
    )
    if which == "n_test":
        last = check_positive_int(n_test, func=func, arg="n_test")
        c = np.full(n_users, last, dtype=np.int64)
        params: dict[str, object] = {"n_test": last}
    else:
        f = check_fraction(test_fraction, func=func, arg="test_fraction")
        c = _round_half_up(f * counts)
        params = {"test_fraction": f}
    params["min_train"] = min_train
    n_user_test = np.minimum(c, np.maximum(counts - min_train, 0))
    test = ranks >= (counts - n_user_test)[codes]
    return _make(data, test, strategy="user_temporal", params=params, seed=None)


@constrained(test_fraction=optional(FRACTION))
def global_temporal_split(
    data: pd.DataFrame,
    *,
    cutoff: object | None = None,
    test_fraction: float | None = None,
) -> Split:
    """Put every interaction at or after a cutoff time in test.

    Parameters
    ----------
    data : pandas.DataFrame
        Interactions with ``user_id``, ``item_id`` and ``timestamp`` (numeric or datetime).
    cutoff : number or datetime-like, optional
        Interactions with ``timestamp >= cutoff`` are test, the rest train. A number for
        numeric timestamps; a string, datetime or ``pandas.Timestamp`` for datetime
        timestamps (not a number).
    test_fraction : float, optional
        Choose the cutoff so that about this share of rows, in (0, 1), is test.
        Give exactly one of ``cutoff`` and ``test_fraction``.

    Returns
    -------
    Split
        ``train`` and ``test`` keep the input's columns, dtypes, index labels and row order;
        ``info["params"]["cutoff"]`` records the cutoff used.

    Raises
    ------
    TypeError, ValueError
        On missing columns, unusable dtypes, missing ids or timestamps, an empty frame, both or
        neither of ``cutoff`` and ``test_fraction``, a fraction outside (0, 1) or a cutoff of
        the wrong kind.

    Notes
    -----
    With ``test_fraction`` the cutoff is the ``m``-th largest timestamp, ``m = max(1,
    floor(f * n + 1/2))``: an upper quantile of the timestamps. All rows tied with the cutoff go
    to test, so the test share is at least the target and exceeds it by the size of that tie
    group. Every training timestamp is strictly before every test timestamp. Users whose
    interactions all come after the cutoff are test-only (cold users), and a given cutoff may
    leave either side empty; :func:`audit` reports both.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalkit.split import global_temporal_split
    >>> data = pd.DataFrame({"user_id": [1, 1, 2, 2, 3],
    ...                      "item_id": [1, 2, 1, 3, 2],
    ...                      "timestamp": [10, 40, 20, 50, 30]})
    >>> split = global_temporal_split(data, test_fraction=0.4)
    >>> split.info["params"]["cutoff"], split.test.index.tolist()
    (40, [1, 3])
    """
    func = "global_temporal_split"
    data = check_interactions(data, func=func, ratings=True, timestamp=True, nonempty=True)
    which = check_one_of(func, cutoff=cutoff, test_fraction=test_fraction)
    ts = data["timestamp"]
    params: dict[str, object]
    if which == "test_fraction":
        f = check_fraction(test_fraction, func=func, arg="test_fraction")
        m = max(1, int(_round_half_up(f * len(data))))
        cut = ts.sort_values(kind="stable").iloc[len(ts) - m]
        params = {"test_fraction": f, "cutoff": _plain(cut)}
    else:
        cut = _check_cutoff(cutoff, ts, func=func)
        params = {"cutoff": _plain(cut)}
    test = (ts >= cut).to_numpy(dtype=bool)
    return _make(data, test, strategy="global_temporal", params=params, seed=None)


def _check_cutoff(cutoff: object, ts: pd.Series, *, func: str) -> object:
    if pd.api.types.is_datetime64_any_dtype(ts.dtype):
        try:
            if isinstance(cutoff, (numbers.Number, bool)):  # pd.Timestamp(12) would be 12 ns
                raise TypeError
            value = pd.Timestamp(cutoff)  # type: ignore[arg-type]
        except (TypeError, ValueError) as exc:
            raise InvalidParameterError(
                f"{func}: 'cutoff' must be datetime-like for datetime timestamps; "
                f"got {describe(cutoff)}."
            ) from exc
        if value is pd.NaT:
            raise ValueError(f"{func}: 'cutoff' must not be missing; got {describe(cutoff)}.")
        if (value.tzinfo is None) != (getattr(ts.dtype, "tz", None) is None):
            raise InvalidParameterError(
                f"{func}: 'cutoff' and the timestamps must both be time-zone aware or both "
                f"naive; got {describe(cutoff)} for dtype {ts.dtype}."
            )
        return value
    if isinstance(cutoff, bool) or not isinstance(cutoff, numbers.Real):
        raise InvalidParameterError(
            f"{func}: 'cutoff' must be a number for numeric timestamps; got {describe(cutoff)}."
        )
    if np.isnan(float(cutoff)):
        raise ValueError(f"{func}: 'cutoff' must not be NaN; got {cutoff!r}.")
    return cutoff


def _plain(value: object) -> object:
    """A numpy scalar as the matching Python scalar, for a readable ``info`` record."""
    return value.item() if isinstance(value, np.generic) else value
