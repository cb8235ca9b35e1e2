"""Input checks and policy names shared by every metric family.

Every public metric validates its inputs here, once, and works on the normalized frames these
checkers return. The policy tuples are the single source of the valid names, so the error
messages list exactly what the functions accept.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .._checks import check_choice, check_columns, check_finite, check_ids
from ..definitions import choices
from . import _kernels

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
_MAX_RANK = 2.0**53  # whole numbers are exact in float64 below this


def _has_duplicate_pairs(first: pd.Series, second: pd.Series) -> bool:
    """Whether any (first, second) pair repeats, without hashing every row where possible.

    Integer columns grouped by ``first`` (recommendations listed user by user) are checked by
    compiled passes (:func:`._kernels.grouped_duplicates`). Otherwise they are packed into one
    int64 key: rows grouped by ``first`` with values too spread for the kernel's table sort
    each group as one row of a small matrix; otherwise already increasing keys have no
    duplicate, and a sort of the keys finds equal neighbours. Other dtypes fall back to
    ``DataFrame.duplicated``.
    """
    a, b = first.to_numpy(), second.to_numpy()
    if a.size < 2:
        return False
    if a.dtype.kind in "iu" and b.dtype.kind in "iu":
        found = _kernels.grouped_duplicates(a, b)  # one pass, when grouped by first
        if found >= 0:
            return bool(found)
        grouped = bool(np.all(a[1:] >= a[:-1]))  # grouped by first: its ends are its bounds
        a_min, a_max = (int(a[0]), int(a[-1])) if grouped else (int(a.min()), int(a.max()))
        b_min = int(b.min())
        span_a, span_b = a_max - a_min + 1, int(b.max()) - b_min + 1
        if span_a * span_b < 2**62:
            if grouped:  # then the kernel found values too spread for its table
                found = _duplicates_within_groups(b, b_min, span_b, a[1:] != a[:-1])
                if found is not None:
                    return found
            key = (a.astype(np.int64) - a_min) * span_b + (b.astype(np.int64) - b_min)
            if np.all(key[1:] > key[:-1]):
                return False
            key.sort()
            return bool(np.any(key[1:] == key[:-1]))
    return bool(pd.DataFrame({"a": first, "b": second}).duplicated().any())


def _duplicates_within_groups(values: np.ndarray, low: int, span: int,
                              changes: np.ndarray) -> bool | None:
    """Whether a group of consecutive rows repeats a value; None when the groups are too
    uneven for one ``(groups, longest)`` matrix (the caller then sorts all keys).

    Each group becomes a row, padded with distinct negative numbers, and rows are sorted
    independently: short sorts of small integers, much cheaper than one global sort.
    """
    starts = np.concatenate([[0], np.flatnonzero(changes) + 1])
    sizes = np.diff(np.append(starts, values.size))
    width = int(sizes.max())
    if starts.size * width > 2 * values.size + 1024:
        return None
    if low >= 0 and low + span < 2**31:  # the values themselves fit, below the padding
        dtype, shifted = np.int32, values.astype(np.int32)
    else:
        dtype = np.int32 if span < 2**31 - width else np.int64
        shifted = (values - low).astype(dtype)
    if width * starts.size == values.size:
        rows = shifted.reshape(starts.size, width)
    else:
        rows = np.tile(-np.arange(1, width + 1, dtype=dtype), (starts.size, 1))
        column = np.arange(values.size) - np.repeat(starts, sizes)
        rows[np.repeat(np.arange(starts.size), sizes), column] = shifted
    rows = np.sort(rows, axis=1)
    return bool(np.any(rows[:, 1:] == rows[:, :-1]))


def _check_unique_pairs(frame: pd.DataFrame, columns: tuple[str, str], *, func: str, arg: str,
                        what: str) -> None:
    if not _has_duplicate_pairs(frame[columns[0]], frame[columns[1]]):
        return
    dup = frame.duplicated(list(columns))
    first, second = frame.loc[dup, list(columns)].iloc[0].tolist()
    raise ValueError(
        f"{func}: '{arg}' has {int(dup.sum())} {what}; first: "
        + (f"({first!r}, {second!r})." if what.endswith("pair(s)")
           else f"user {first!r}, rank {second!r}.")
    )


_RATING_NEEDED = object()


def check_truth(truth: object, *, func: str, arg: str = "truth",
                threshold: object = _RATING_NEEDED) -> pd.DataFrame:
    """Validate a test-truth frame: ``user_id, item_id, rating``, no NaN, no duplicate pairs.

    Implicit data: a caller that knows the relevance threshold passes it; with
    ``threshold=None`` a frame without ``rating`` is accepted and every row gets rating 1.0
    (every test item relevant, gain 1). With a threshold, a missing ``rating`` is an error
    that says how to evaluate implicit data.
    """
    if (threshold is None and isinstance(truth, pd.DataFrame) and "rating" not in truth.columns
            and {"user_id", "item_id"} <= set(truth.columns)):
        truth = truth.assign(rating=1.0)
    elif (threshold is not _RATING_NEEDED and isinstance(truth, pd.DataFrame)
          and "rating" not in truth.columns and {"user_id", "item_id"} <= set(truth.columns)):
        raise ValueError(
            f"{func}: '{arg}' is missing column rating, so relevance at "
            f"threshold={threshold!r} cannot be decided; for implicit data (every test item "
            "relevant) pass threshold=None."
        )
    frame = check_columns(truth, func=func, arg=arg, required=("user_id", "item_id", "rating"))
    check_ids(frame, func=func, arg=arg)
    check_finite(frame, "rating", func=func, arg=arg)
    _check_unique_pairs(frame, ("user_id", "item_id"), func=func, arg=arg,
                        what="duplicate (user_id, item_id) pair(s)")
    return frame


def check_recs(recs: object, *, func: str, arg: str = "recs") -> pd.DataFrame:
    """Validate a recommendations frame.

    Requires ``user_id, item_id`` and ``rank`` and/or ``score``. Scores must be finite; ranks
    positive integers, unique within a user; (user, item) pairs unique.
    """
    frame = check_columns(recs, func=func, arg=arg, required=("user_id", "item_id"))
    has_rank = "rank" in frame.columns
    has_score = "score" in frame.columns
    if not (has_rank or has_score):
        raise ValueError(
            f"{func}: '{arg}' needs a 'rank' or a 'score' column to order the items; "
            f"it has {', '.join(map(str, frame.columns))}."
        )
    check_ids(frame, func=func, arg=arg)
    if has_score:
        check_finite(frame, "score", func=func, arg=arg)
    if has_rank:
        rank = frame["rank"]
        numpy_int = isinstance(rank.dtype, np.dtype) and rank.dtype.kind in "iu"
        values = None if numpy_int else check_finite(frame, "rank", func=func, arg=arg)
        if not pd.api.types.is_integer_dtype(rank.dtype):
            if not np.all(values == np.round(values)):
                raise ValueError(f"{func}: '{arg}' column 'rank' must hold whole numbers.")
            if values.size and values.max() > _MAX_RANK:
                raise ValueError(
                    f"{func}: '{arg}' column 'rank' must hold ranks below 2**53; got a maximum "
                    f"of {values.max()!r}."
                )
        values = rank.to_numpy()
        if values.size and values.min() < 1:
            raise ValueError(
                f"{func}: '{arg}' column 'rank' must be 1-based positive integers; "
                f"got a minimum of {values.min().item()!r}."
            )
        rank_frame = frame if pd.api.types.is_integer_dtype(rank.dtype) else frame.assign(
            rank=values.astype(np.int64))
        _check_unique_pairs(rank_frame, ("user_id", "rank"), func=func, arg=arg,
                            what="duplicate rank(s) within a user")
    _check_unique_pairs(frame, ("user_id", "item_id"), func=func, arg=arg,
                        what="duplicate (user_id, item_id) pair(s)")
    return frame


def check_predictions(predictions: object, *, func: str, arg: str = "predictions") -> pd.DataFrame:
    """Validate rating predictions: ``user_id, item_id, prediction``, finite, unique pairs."""
    frame = check_columns(
        predictions, func=func, arg=arg, required=("user_id", "item_id", "prediction")
    )
    check_ids(frame, func=func, arg=arg)
    check_finite(frame, "prediction", func=func, arg=arg)
    dup = frame.duplicated(["user_id", "item_id"])
    if dup.any():
        raise ValueError(
            f"{func}: '{arg}' has {int(dup.sum())} duplicate (user_id, item_id) pair(s)."
        )
    return frame


def _id_kind(series: pd.Series) -> str:
    if pd.api.types.is_integer_dtype(series.dtype):
        return "integer"
    if isinstance(series.dtype, pd.CategoricalDtype):
        return _id_kind(pd.Series(series.cat.categories))
    if len(series) and pd.api.types.is_integer_dtype(pd.Series(series.iloc[:1].tolist()).dtype):
        return "integer"
    return "string"


def check_id_dtypes(
    truth: pd.DataFrame,
    other: pd.DataFrame,
    *,
    func: str,
    other_arg: str = "recs",
    truth_arg: str = "truth",
) -> None:
    """Refuse id columns of different kinds (integer vs string) between truth and ``other``.

    Otherwise no pair would ever match and every hit would be silently lost.
    """
    for col in ("user_id", "item_id"):
        a, b = _id_kind(truth[col]), _id_kind(other[col])
        if a != b and len(truth) and len(other):
            raise TypeError(
                f"{func}: '{col}' holds {a} ids in '{truth_arg}' but {b} ids in '{other_arg}' "
                f"(dtypes {truth[col].dtype} and {other[col].dtype}); convert one so they match."
            )


def _normalized(ids: np.ndarray) -> pd.Index:
    """String ids as people mistype them alike: surrounding spaces, case, leading zeros."""
    text = pd.Index(ids).astype(str).str.strip().str.lower().str.lstrip("0")
    return text.where(text != "", "0")


def warn_id_formats(truth: pd.DataFrame, recs: pd.DataFrame, *, func: str,
                    stacklevel: int = 3) -> None:
    """Warn when string ids of ``recs`` match ``truth`` only after normalization ("0010" vs
    "10", " 42" vs "42", "A7" vs "a7"), which would otherwise score every such pair 0.

    Cheap: it looks at the distinct ids, and only for string ids whose exact overlap is
    incomplete. Items warn only when more of them match loosely than exactly.
    """
    for col in ("user_id", "item_id"):
        if _id_kind(truth[col]) != "string" or not len(recs):
            continue
        theirs, ours = pd.unique(recs[col].to_numpy()), pd.unique(truth[col].to_numpy())
        exact = pd.Index(theirs).isin(ours)
        if exact.all():
            continue
        loose = _normalized(theirs).isin(_normalized(ours))
        gained = int((loose & ~exact).sum())
        # most recommended items are no test item of anyone: for items, warn only when the
        # normalized ids match more than the exact ones (a format mismatch, not a few
        # look-alike ids)
        if gained and (col == "user_id" or gained > int(exact.sum())):
            example = theirs[np.flatnonzero(loose & ~exact)[0]]
            raise_or_warn = (
                f"{func}: {gained} '{col}' value(s) of 'recs' match 'truth' only after removing "
                f"spaces, case or leading zeros (e.g. {example!r}); as given they never match "
                "and score 0. Make the ids identical (e.g. read both files with the same "
                "dtype)."
            )
            warnings.warn(raise_or_warn, UserWarning, stacklevel=stacklevel)


def check_threshold(threshold: object, *, func: str) -> float | None:
    """``threshold`` is a finite number or None (every test item relevant)."""
    if threshold is None:
        return None
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float, np.number)):
        raise TypeError(f"{func}: 'threshold' must be a number or None; got {threshold!r}.")
    if not np.isfinite(threshold):
        raise ValueError(f"{func}: 'threshold' must be finite; got {threshold!r}.")
    return float(threshold)


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
) -> pd.Series:
    """Apply the ``empty`` policy to per-user values and wrap them in a Series.

    ``undefined`` marks users for whom the metric has no value (no relevant items, IDCG = 0,
    ...). Under ``"drop"`` they are removed, under ``"zero"`` they score 0, under ``"nan"``
    they stay as NaN. The Series carries ``attrs["dropped"]``: counts of users left out, by
    reason, and ``attrs["n_users"]``: users evaluated.
    """
    values = np.asarray(values, dtype=np.float64)
    dropped: dict[str, int] = dict(extra_counts or {})
    if undefined is not None and undefined.any():
        n_undefined = int(undefined.sum())
        values = values.copy()
        if empty == "zero":
            values[undefined] = 0.0
        else:
            values[undefined] = np.nan
        if empty == "drop":
            keep = ~undefined
            values = values[keep]
            users = users[keep]
            dropped["undefined"] = n_undefined
    series = pd.Series(values, index=users.rename("user_id"), name=name)
    series.attrs["dropped"] = dropped
    series.attrs["n_users"] = int(series.notna().sum())
    return series


def warn_ties(n_users: int, k: int, *, func: str, stacklevel: int = 3) -> None:
    """Warn that ``n_users`` users have a group of tied scores straddling cutoff ``k``.

    ``stacklevel`` counts from this function, so the warning points at the caller's line.
    """
    if n_users:
        warnings.warn(
            f"{func}: {n_users} user(s) have tied scores straddling the cutoff k={k}; "
            "the tie policy decides which of the tied items count (see 'ties').",
            TieWarning,
            stacklevel=stacklevel,
        )


class TieWarning(UserWarning):
    """Tied scores straddle a cutoff, so the tie policy affects the result."""
