"""Input checks and policy names shared by every metric family.

Every public metric validates its inputs here, once, and works on the normalized frames these
checkers return. The policy tuples are the single source of the valid names, so the error
messages list exactly what the functions accept.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._checks import (  # the frame checks live with the other argument checks
    check_choice,
    check_id_dtypes,
    check_predictions,
    check_recs,
    check_threshold,
    check_truth,
    warn,
    warn_id_formats,
)
from ..definitions import choices
from ._result import MetricSeries

__all__ = [
    "AP_DENOMINATORS",
    "DISCOUNTS",
    "EMPTY_POLICIES",
    "GAINS",
    "TIE_POLICIES",
    "check_empty",
    "check_id_dtypes",
    "warn_id_formats",
    "check_predictions",
    "check_recs",
    "check_threshold",
    "check_truth",
    "finish_per_user",
]

# the valid values, as evalkit.Definitions states them (listed there only)
EMPTY_POLICIES = choices("empty")
TIE_POLICIES = choices("ties")
GAINS = choices("gain")
DISCOUNTS = choices("discount")
AP_DENOMINATORS = choices("ap_denominator")


# -- the empty policy: what a user for whom a metric is undefined counts as -----------------
# (no relevant test item, an ideal DCG of 0, ...): every table, mean and curve applies it
# through these three functions.

def fill_undefined(values: np.ndarray, undefined: np.ndarray | None, empty: str) -> np.ndarray:
    """A float64 copy of per-user ``values`` whose undefined entries score as ``empty`` says:
    0 under ``"zero"``, NaN under ``"nan"`` and ``"drop"`` (a table keeps every user's row;
    ``"drop"`` then leaves them out of the Series and of every mean, as NaN does)."""
    out = np.array(values, dtype=np.float64)
    if undefined is not None:
        out[np.asarray(undefined)] = 0.0 if empty == "zero" else np.nan
    return out


def n_counted(n_users: int, n_undefined: int, empty: str) -> int:
    """Users a mean counts: every user under ``"zero"``, the defined ones otherwise."""
    return n_users if empty == "zero" else n_users - n_undefined


def n_dropped(n_undefined: int, empty: str) -> int:
    """Users a per-user result leaves out: the undefined ones under ``"drop"``."""
    return n_undefined if empty == "drop" else 0


def check_empty(empty: object, *, func: str) -> str:
    """``empty`` is one of :data:`EMPTY_POLICIES`."""
    return check_choice(empty, func=func, arg="empty", choices=EMPTY_POLICIES)


def finish_per_user(
    values: np.ndarray,
    users: pd.Index,
    *,
    name: str,
    undefined: np.ndarray | None,
    empty: str,
    extra_counts: dict[str, int] | None = None,
    **info: object,
) -> MetricSeries:
    """Apply the ``empty`` policy to per-user values and wrap them in a
    :class:`~evalkit.metrics.MetricSeries`.

    ``undefined`` marks users for whom the metric has no value (no relevant items, IDCG = 0,
    ...). Under ``"drop"`` they are removed, under ``"zero"`` they score 0, under ``"nan"``
    they stay as NaN. The result's ``dropped`` counts the users left out, by reason
    (``extra_counts`` holds the caller's reasons), ``n_users`` the users evaluated; ``info``
    sets its other attributes (``k``, ``definitions``, ...).
    """
    dropped: dict[str, int] = dict(extra_counts or {})
    values = fill_undefined(values, undefined, empty)
    n_undefined = 0 if undefined is None else int(np.count_nonzero(undefined))
    if n_dropped(n_undefined, empty):
        keep = ~undefined
        values = values[keep]
        users = users[keep]
        dropped["undefined"] = n_undefined
    return MetricSeries.of(values, users.rename("user_id"), name=name, dropped=dropped, **info)


def warn_ties(n_users: int, k: int, *, func: str, tie_order: str | None = None) -> None:
    """Warn that ``n_users`` users have a group of tied scores straddling cutoff ``k``.

    With ``tie_order`` (the metrics of top-k lists, which have no relevance to order ties
    by) the message names the order that decided.
    """
    if n_users:
        rule = ("the tie policy decides which of the tied items count (see 'ties')"
                if tie_order is None else
                f"tie_order={tie_order!r} decides which of the tied items are in the top k")
        warn(f"{func}: {n_users} user(s) have tied scores straddling the cutoff k={k}; {rule}.",
             TieWarning)


class TieWarning(UserWarning):
    """Tied scores straddle a cutoff, so the tie policy affects the result."""
