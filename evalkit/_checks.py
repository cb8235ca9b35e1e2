"""Validation helpers shared by every public function.

Each checker validates one argument at the public boundary and returns normalized data, or
raises ``ValueError`` / ``TypeError`` with a message that names the calling function, the
argument, the rule and what was received::

    ndcg_at_k: 'k' must be a positive integer; got 0.

Checkers never modify their input. The frames every function takes are checked here too:
interactions (ids, ratings, timestamps), and the frames of the metrics at the end (test
truth, recommendations, rating predictions, and their id kinds). Every checker raises
:class:`InvalidParameterError`, which is both a ``ValueError`` and a ``TypeError``: a caller
catches it by either name, whether the type was wrong or the value out of its domain.
"""

from __future__ import annotations

import numbers
import sys
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._errors import InvalidParameterError

__all__ = [
    "InvalidParameterError",
    "as_dataframe",
    "as_rng",
    "check_choice",
    "check_columns",
    "check_cutoff",
    "check_finite",
    "check_fraction",
    "check_id_dtypes",
    "check_ids",
    "check_interactions",
    "check_item_pairs",
    "check_nonnegative_int",
    "check_one_of",
    "check_positive_int",
    "check_predictions",
    "check_rank_pairs",
    "check_real",
    "check_recs",
    "check_resamples",
    "check_rng",
    "check_same_kind",
    "check_threshold",
    "check_timestamps",
    "check_truth",
    "describe",
    "has_duplicate_pairs",
    "JoinedPredictions",
    "join_predictions",
    "pair_rows",
    "pairs_in",
    "seed_of",
    "warn_id_formats",
]


def describe(value: object) -> str:
    """A short, readable rendering of a received value for error messages."""
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(value).__name__})" if not isinstance(value, str) else text


def as_dataframe(frame: object) -> object:
    """A pandas DataFrame for a pyarrow Table, a polars DataFrame or any object whose
    ``to_pandas()`` returns a DataFrame; anything else is returned unchanged (so the checker
    that follows refuses it with its usual message). Converted once, at the boundary; a pandas
    DataFrame is returned as is, without a copy.
    """
    if isinstance(frame, pd.DataFrame):
        return frame
    to_pandas = getattr(frame, "to_pandas", None)
    if callable(to_pandas):
        converted = to_pandas()
        if isinstance(converted, pd.DataFrame):
            return converted
    return frame


#: Column names recognised without a mapping where files are read (MovieLens' own among
#: them), and the canonical name each stands for.
COLUMN_ALIASES: dict[str, str] = {
    "user_id": "user_id", "userId": "user_id", "userID": "user_id", "user": "user_id",
    "item_id": "item_id", "movieId": "item_id", "itemId": "item_id", "itemID": "item_id",
    "item": "item_id", "movie_id": "item_id",
    "rating": "rating",
    "timestamp": "timestamp", "ts": "timestamp",
}  # fmt: skip


def check_columns(
    frame: object,
    *,
    func: str,
    arg: str,
    required: Sequence[str],
) -> pd.DataFrame:
    """Check that ``frame`` is a DataFrame holding every column in ``required``; a polars
    DataFrame, a pyarrow Table or any object with ``to_pandas()`` is converted first
    (:func:`as_dataframe`)."""
    frame = as_dataframe(frame)
    if not isinstance(frame, pd.DataFrame):
        kind = type(frame)
        raise InvalidParameterError(
            f"{func}: '{arg}' must be a pandas DataFrame (or a polars DataFrame or pyarrow "
            f"Table); got {kind.__module__.split('.')[0]}.{kind.__name__}.")
    repeated = frame.columns[frame.columns.duplicated()].unique()
    if len(repeated):
        raise InvalidParameterError(
            f"{func}: '{arg}' has more than one column named "
            f"{', '.join(repr(str(c)) for c in repeated)}; give each column its own name.")
    missing = [c for c in required if c not in frame.columns]
    if missing:
        # names the file readers map (MovieLens' userId, movieId): say how to map them here
        renaming = {str(c): COLUMN_ALIASES[c] for c in frame.columns
                    if c in COLUMN_ALIASES and COLUMN_ALIASES[c] in missing}
        how = (f" Rename them with .rename(columns={renaming!r}), or read the file with "
               "evalkit.load_interactions (interactions) or evalkit.read_recommendations "
               "(lists), which map them." if renaming else "")
        raise InvalidParameterError(
            f"{func}: '{arg}' is missing column(s) {', '.join(missing)}; "
            f"it has {', '.join(map(str, frame.columns)) or 'no columns'}.{how}"
        )
    return frame


def check_ids(
    frame: pd.DataFrame,
    *,
    func: str,
    arg: str,
    columns: Iterable[str] = ("user_id", "item_id"),
) -> pd.DataFrame:
    """Check that id columns have no missing values and a usable dtype (integer, string, object)."""
    for col in columns:
        series = frame[col]
        if pd.api.types.is_float_dtype(series.dtype):
            if series.isna().any():
                n = int(series.isna().sum())
                raise InvalidParameterError(
                    f"{func}: '{arg}' column '{col}' has {n} missing (NaN) id(s)."
                )
            raise InvalidParameterError(
                f"{func}: '{arg}' column '{col}' must hold integer or string ids; got dtype "
                f"{series.dtype}."
            )
        if not (
            pd.api.types.is_integer_dtype(series.dtype)
            or pd.api.types.is_object_dtype(series.dtype)
            or pd.api.types.is_string_dtype(series.dtype)
            or isinstance(series.dtype, pd.CategoricalDtype)
        ):
            raise InvalidParameterError(
                f"{func}: '{arg}' column '{col}' must hold integer or string ids; got dtype "
                f"{series.dtype}."
            )
        numpy_int = isinstance(series.dtype, np.dtype) and series.dtype.kind in "iu"
        if not numpy_int and series.isna().any():  # a NumPy integer column holds no NaN
            n = int(series.isna().sum())
            raise InvalidParameterError(
                f"{func}: '{arg}' column '{col}' has {n} missing (NaN) id(s)."
            )
        if pd.api.types.is_object_dtype(series.dtype):
            kind = pd.api.types.infer_dtype(series, skipna=False)
            if kind not in ("string", "integer", "empty", "categorical"):
                raise InvalidParameterError(
                    f"{func}: '{arg}' column '{col}' must hold ids of one kind (all integers or "
                    f"all strings); got {kind} values."
                )
    return frame


def check_finite(
    frame: pd.DataFrame,
    column: str,
    *,
    func: str,
    arg: str,
    allow_nan: bool = False,
) -> np.ndarray:
    """Check that ``frame[column]`` is numeric and finite; return it as a float64 array."""
    series = frame[column]
    if not (pd.api.types.is_numeric_dtype(series.dtype)
            and not pd.api.types.is_bool_dtype(series.dtype)):
        raise InvalidParameterError(
            f"{func}: '{arg}' column '{column}' must be numeric; got dtype {series.dtype}."
        )
    values = series.to_numpy(dtype=np.float64, na_value=np.nan)
    # a finite sum has no NaN or infinite term (one pass, no mask); otherwise look closer
    if values.size == 0 or np.isfinite(np.add.reduce(values)) or np.isfinite(values).all():
        return values
    nan = np.isnan(values)
    if nan.any() and not allow_nan:
        first = frame.index[np.flatnonzero(nan)[0]]
        raise InvalidParameterError(
            f"{func}: '{arg}' column '{column}' has {int(nan.sum())} NaN value(s) "
            f"(first at index {first!r})."
        )
    inf = np.isinf(values)
    if inf.any():
        first = frame.index[np.flatnonzero(inf)[0]]
        raise InvalidParameterError(
            f"{func}: '{arg}' column '{column}' has {int(inf.sum())} infinite value(s) "
            f"(first at index {first!r})."
        )
    return values


def check_positive_int(value: object, *, func: str, arg: str) -> int:
    """Check that ``value`` is an integer >= 1 (bools are rejected)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise InvalidParameterError(
            f"{func}: '{arg}' must be a positive integer; got {describe(value)}."
        )
    return int(value)


#: The largest cutoff ``evaluate`` and ``ranking_curves`` take: their per-cutoff arrays are
#: sized by it, and no ranked list in practice comes near it.
MAX_CUTOFF = 1_000_000


def check_cutoff(value: object, *, func: str, arg: str) -> int:
    """Check that ``value`` is a cutoff: an integer from 1 to :data:`MAX_CUTOFF`."""
    k = check_positive_int(value, func=func, arg=arg)
    if k > MAX_CUTOFF:
        raise InvalidParameterError(
            f"{func}: '{arg}' must be at most {MAX_CUTOFF:,} (arrays are sized by it); got "
            f"{describe(value)}."
        )
    return k


def check_fraction(value: object, *, func: str, arg: str) -> float:
    """Check that ``value`` is a real number strictly between 0 and 1."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(
            f"{func}: '{arg}' must be a number in (0, 1); got {describe(value)}."
        )
    value = float(value)
    if not 0.0 < value < 1.0:
        raise InvalidParameterError(
            f"{func}: '{arg}' must be in the open interval (0, 1); got {value!r}."
        )
    return value


def check_resamples(value: object, *, func: str, allow_zero: bool = True) -> int:
    """``n_resamples`` as an int >= 1, or 0 (no intervals) where ``allow_zero``."""
    integral = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if allow_zero and integral and value == 0:
        return 0
    if not integral or value < 1:
        rule = "a positive integer, or 0 for no intervals" if allow_zero else "a positive integer"
        raise InvalidParameterError(f"{func}: 'n_resamples' must be {rule}; got {describe(value)}.")
    return int(value)


def check_choice(value: object, *, func: str, arg: str, choices: Iterable[str]) -> str:
    """Check that ``value`` is one of ``choices``; the message lists the valid ones."""
    choices = list(choices)
    if value not in choices:
        valid = ", ".join(repr(c) for c in choices)
        raise InvalidParameterError(f"{func}: unknown {arg} {value!r}; valid values are {valid}.")
    return value  # type: ignore[return-value]


def check_rng(value: object, *, func: str, arg: str = "rng") -> object:
    """Check that ``value`` is a seed (an integer >= 0), a ``np.random.Generator`` or None.

    The one check of the ``rng`` (or seed) of every public function that draws at random, at
    its boundary, so that a bad value is named there rather than by numpy's
    ``default_rng``::

        cross_validate: 'rng' must be an integer >= 0, a numpy.random.Generator or None;
        got 'x'.
    """
    if value is None or isinstance(value, np.random.Generator):
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise InvalidParameterError(
            f"{func}: '{arg}' must be an integer >= 0, a numpy.random.Generator or None; got "
            f"{describe(value)}."
        )
    return value


def check_nonnegative_int(value: object, *, func: str, arg: str) -> int:
    """Check that ``value`` is an integer >= 0 (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidParameterError(
            f"{func}: '{arg}' must be a non-negative integer; got {describe(value)}."
        )
    if value < 0:
        raise InvalidParameterError(
            f"{func}: '{arg}' must be a non-negative integer; got {int(value)}."
        )
    return int(value)


def check_real(
    value: object,
    *,
    func: str,
    arg: str,
    minimum: float | None = None,
    strict: bool = False,
    allow_none: bool = False,
) -> float | None:
    """Check that ``value`` is a finite real number (optionally >= or > ``minimum``)."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        kind = "a real number or None" if allow_none else "a real number"
        raise InvalidParameterError(f"{func}: '{arg}' must be {kind}; got {describe(value)}.")
    number = float(value)
    if not np.isfinite(number):
        raise InvalidParameterError(f"{func}: '{arg}' must be finite; got {number!r}.")
    if minimum is not None and (number <= minimum if strict else number < minimum):
        rule = f"> {minimum:g}" if strict else f">= {minimum:g}"
        raise InvalidParameterError(f"{func}: '{arg}' must be {rule}; got {number!r}.")
    return number


def check_one_of(func: str, **options: object) -> str:
    """Exactly one of ``options`` must be given (not None); return its name."""
    given = [name for name, value in options.items() if value is not None]
    if len(given) != 1:
        names = " or ".join(f"'{name}'" for name in options)
        got = ", ".join(f"{name}={value!r}" for name, value in options.items())
        raise InvalidParameterError(f"{func}: exactly one of {names} must be given; got {got}.")
    return given[0]


def seed_of(rng: object, *, func: str, arg: str = "rng") -> int | None:
    """Check ``rng`` (:func:`check_rng`) and return the integer seed to record (None for a
    Generator or None)."""
    check_rng(rng, func=func, arg=arg)
    return None if rng is None or isinstance(rng, np.random.Generator) else int(rng)


def as_rng(rng: int | np.random.Generator | None) -> np.random.Generator:
    """Return a ``np.random.Generator`` from a seed, a generator or None (fresh entropy)."""
    return np.random.default_rng(rng)


def check_timestamps(frame: pd.DataFrame, *, func: str, arg: str,
                     column: str = "timestamp") -> None:
    """Timestamps that order events: numeric (not bool) or datetime, none missing or
    infinite."""
    series = frame[column]
    dtype = series.dtype
    numeric = pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
    if not (numeric or pd.api.types.is_datetime64_any_dtype(dtype)):
        raise InvalidParameterError(
            f"{func}: '{arg}' column '{column}' must be numeric or datetime; got dtype {dtype}."
        )
    missing = int(series.isna().sum())
    if missing:
        raise InvalidParameterError(
            f"{func}: '{arg}' column '{column}' has {missing} missing value(s)."
        )
    if numeric:
        infinite = int(np.isinf(series.to_numpy(dtype=np.float64, na_value=np.nan)).sum())
        if infinite:
            raise InvalidParameterError(
                f"{func}: '{arg}' column '{column}' has {infinite} infinite value(s); "
                "timestamps must be finite."
            )


def check_interactions(data: object, *, func: str, arg: str = "data",
                       ids: Sequence[str] = ("user_id", "item_id"), ratings: bool = False,
                       timestamp: bool = False, nonempty: bool = False) -> pd.DataFrame:
    """Validate a frame of interactions: the ``ids`` columns hold usable ids; with ``ratings``
    a ``rating`` column, where present, is finite; with ``timestamp`` a ``timestamp`` column
    is required and checked (:func:`check_timestamps`); with ``nonempty`` it has a row."""
    required = tuple(ids) + (("timestamp",) if timestamp else ())
    frame = check_columns(data, func=func, arg=arg, required=required)
    check_ids(frame, func=func, arg=arg, columns=tuple(ids))
    if ratings and "rating" in frame.columns:
        check_finite(frame, "rating", func=func, arg=arg)
    if timestamp:
        check_timestamps(frame, func=func, arg=arg)
    if nonempty and len(frame) == 0:
        raise InvalidParameterError(
            f"{func}: '{arg}' must have at least one row; got an empty frame."
        )
    return frame


# -- the frames of the metrics: truth, recommendations, predictions -------------------------

_MAX_RANK = 2.0**53  # whole numbers are exact in float64 below this


def has_duplicate_pairs(first: pd.Series | np.ndarray, second: pd.Series | np.ndarray) -> bool:
    """Whether any (first, second) pair repeats, without hashing every row where possible.

    Integer columns grouped by ``first`` (recommendations listed user by user) are checked by
    compiled passes (:func:`evalkit._duplicates.grouped_duplicates`). Otherwise they are
    packed into one int64 key: rows grouped by ``first`` with values too spread for the
    kernel's table sort each group as one row of a small matrix; otherwise already increasing
    keys have no duplicate, and a sort of the keys finds equal neighbours. Other dtypes fall
    back to ``DataFrame.duplicated``.
    """
    a, b = np.asarray(first), np.asarray(second)
    if a.size < 2:
        return False
    if a.dtype.kind in "iu" and b.dtype.kind in "iu":
        from ._duplicates import grouped_duplicates  # on use: it imports numba

        found = grouped_duplicates(a, b)  # one pass, when grouped by first
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



def _pair_keys(user: pd.Series, item: pd.Series, other_user: pd.Series,
               other_item: pd.Series) -> tuple[np.ndarray, np.ndarray] | None:
    """One int64 key per (user, item) pair of both sides, equal for equal pairs: integer ids
    offset by their least value, strings coded together. None for ids of other dtypes
    (floats, categoricals, nullable integers), of different dtypes on the two sides, or too
    spread to pack."""
    keys = []
    for mine, theirs in ((user, other_user), (item, other_item)):
        if mine.dtype != theirs.dtype:
            return None
        a, b = mine.to_numpy(), theirs.to_numpy()
        if a.dtype.kind in "iu" and b.dtype.kind in "iu":
            a, b = a.astype(np.int64), b.astype(np.int64)
            low = min(int(a.min()) if a.size else 0, int(b.min()) if b.size else 0)
            high = max(int(a.max()) if a.size else 0, int(b.max()) if b.size else 0)
            keys.append((a - low, b - low, high - low + 1))
        elif a.dtype == object and b.dtype == object:
            codes, uniques = pd.factorize(np.concatenate([a, b]))
            keys.append((codes[:a.size].astype(np.int64), codes[a.size:].astype(np.int64),
                         max(len(uniques), 1)))
        else:
            return None
    (ua, ub, users), (ia, ib, span) = keys
    if users * span >= 2**62:
        return None
    return ua * span + ia, ub * span + ib


def pair_rows(user: pd.Series, item: pd.Series, other_user: pd.Series,
              other_item: pd.Series) -> np.ndarray | None:
    """For each (user, item) pair, the row of the unique pairs ``(other_user, other_item)``
    holding it, or -1: one int64 key per pair (:func:`_pair_keys`) and one hash lookup,
    instead of a join on two columns. None where the ids cannot be keyed so (other or
    unequal dtypes), which a caller joins with pandas (whose result then has the dtype it
    chooses)."""
    keys = _pair_keys(user, item, other_user, other_item)
    if keys is None:
        return None
    mine, theirs = keys
    if mine.size == theirs.size and np.array_equal(mine, theirs):
        # the same pairs in the same order (a model's predictions of the test pairs): no
        # hash table of millions of keys to build
        return np.arange(mine.size, dtype=np.intp)
    return pd.Index(theirs).get_indexer(mine)


def pairs_in(frame: pd.DataFrame, other: pd.DataFrame) -> np.ndarray:
    """Whether each ``(user_id, item_id)`` row of ``frame`` is among ``other``'s (which may
    repeat pairs): the packed keys of :func:`pair_rows` where the ids allow, else the rows
    as tuples."""
    keys = _pair_keys(frame["user_id"], frame["item_id"], other["user_id"], other["item_id"])
    if keys is None:
        return pd.MultiIndex.from_frame(frame[["user_id", "item_id"]]).isin(
            pd.MultiIndex.from_frame(other[["user_id", "item_id"]]))
    if keys[0].size == keys[1].size and np.array_equal(keys[0], keys[1]):
        return np.ones(keys[0].size, dtype=bool)
    return pd.Index(keys[0]).isin(keys[1])


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
    if not has_duplicate_pairs(frame[columns[0]], frame[columns[1]]):
        return
    dup = frame.duplicated(list(columns))
    first, second = frame.loc[dup, list(columns)].iloc[0].tolist()
    raise InvalidParameterError(
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
        raise InvalidParameterError(
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


def check_recs(recs: object, *, func: str, arg: str = "recs",
               item_pairs: bool = True, rank_pairs: bool = True) -> pd.DataFrame:
    """Validate a recommendations frame.

    Requires ``user_id, item_id`` and ``rank`` and/or ``score``. Scores must be finite; ranks
    positive integers, unique within a user; (user, item) pairs unique. ``item_pairs=False``
    and ``rank_pairs=False`` leave the last two checks to the caller, who must then call
    :func:`check_rank_pairs` and :func:`check_item_pairs` when its own pass over the lists
    finds a repeat (the hit table of the ranking metrics does, see
    :func:`evalkit.metrics.ranking.prepare`).
    """
    frame = check_columns(recs, func=func, arg=arg, required=("user_id", "item_id"))
    has_rank = "rank" in frame.columns
    has_score = "score" in frame.columns
    if not (has_rank or has_score):
        raise InvalidParameterError(
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
                raise InvalidParameterError(
                    f"{func}: '{arg}' column 'rank' must hold whole numbers."
                )
            if values.size and values.max() > _MAX_RANK:
                raise InvalidParameterError(
                    f"{func}: '{arg}' column 'rank' must hold ranks below 2**53; got a maximum "
                    f"of {values.max()!r}."
                )
        values = rank.to_numpy()
        if values.size and values.min() < 1:
            raise InvalidParameterError(
                f"{func}: '{arg}' column 'rank' must be 1-based positive integers; "
                f"got a minimum of {values.min().item()!r}."
            )
        if rank_pairs:
            check_rank_pairs(frame, func=func, arg=arg)
    if item_pairs:
        check_item_pairs(frame, func=func, arg=arg)
    return frame


def check_rank_pairs(frame: pd.DataFrame, *, func: str, arg: str = "recs") -> None:
    """Refuse a recommendations frame (whole-number ranks) that repeats a rank for a user."""
    rank = frame["rank"]
    rank_frame = frame if pd.api.types.is_integer_dtype(rank.dtype) else frame.assign(
        rank=rank.to_numpy().astype(np.int64))
    _check_unique_pairs(rank_frame, ("user_id", "rank"), func=func, arg=arg,
                        what="duplicate rank(s) within a user")


def check_item_pairs(frame: pd.DataFrame, *, func: str, arg: str = "recs") -> None:
    """Refuse a recommendations frame that lists an item twice for a user."""
    _check_unique_pairs(frame, ("user_id", "item_id"), func=func, arg=arg,
                        what="duplicate (user_id, item_id) pair(s)")


def check_predictions(predictions: object, *, func: str, arg: str = "predictions") -> pd.DataFrame:
    """Validate rating predictions: ``user_id, item_id, prediction``, finite, unique pairs."""
    frame = check_columns(
        predictions, func=func, arg=arg, required=("user_id", "item_id", "prediction")
    )
    check_ids(frame, func=func, arg=arg)
    check_finite(frame, "prediction", func=func, arg=arg)
    if has_duplicate_pairs(frame["user_id"], frame["item_id"]):
        dup = frame.duplicated(["user_id", "item_id"])
        raise InvalidParameterError(
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


def check_same_kind(
    a: pd.Series, a_arg: str, b: pd.Series, b_arg: str, *, func: str, column: str
) -> None:
    """Refuse id columns of different kinds (integer vs string): no id would ever match."""
    if len(a) and len(b):
        ka, kb = _id_kind(a), _id_kind(b)
        if ka != kb:
            raise InvalidParameterError(
                f"{func}: '{column}' holds {ka} ids in '{a_arg}' but {kb} ids in '{b_arg}' "
                f"(dtypes {a.dtype} and {b.dtype}); convert one so they match."
            )


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
            raise InvalidParameterError(
                f"{func}: '{col}' holds {a} ids in '{truth_arg}' but {b} ids in '{other_arg}' "
                f"(dtypes {truth[col].dtype} and {other[col].dtype}); convert one so they match."
            )


def _normalized(ids: np.ndarray) -> pd.Index:
    """String ids as people mistype them alike: surrounding spaces, case, leading zeros."""
    text = pd.Index(ids).astype(str).str.strip().str.lower().str.lstrip("0")
    return text.where(text != "", "0")


def warn_id_formats(truth: pd.DataFrame, recs: pd.DataFrame, *, func: str) -> None:
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
            warn(raise_or_warn, UserWarning)


def check_threshold(threshold: object, *, func: str) -> float | None:
    """``threshold`` is a finite number or None (every test item relevant)."""
    if threshold is None:
        return None
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float, np.number)):
        raise InvalidParameterError(
            f"{func}: 'threshold' must be a number or None; got {threshold!r}."
        )
    if not np.isfinite(threshold):
        raise InvalidParameterError(f"{func}: 'threshold' must be finite; got {threshold!r}.")
    return float(threshold)


#: Valid values of ``missing``: a test rating without a prediction is an error, or is dropped.
MISSING_POLICIES = ("error", "drop")


def as_prediction_frame(frame: object, *, func: str, arg: str = "predictions") -> pd.DataFrame:
    """Return ``user_id, item_id, prediction``; a ``score`` column stands in for ``prediction``."""
    if isinstance(frame, pd.DataFrame) and "prediction" not in frame.columns:
        if "score" not in frame.columns:
            raise InvalidParameterError(
                f"{func}: '{arg}' needs a 'prediction' or a 'score' column; it has "
                f"{', '.join(map(str, frame.columns)) or 'no columns'}."
            )
        frame = frame.rename(columns={"score": "prediction"})
    return check_predictions(frame, func=func, arg=arg)


@dataclass(frozen=True)
class JoinedPredictions:
    """Test ratings paired with their predictions (:func:`join_predictions`), and the counts
    of what the pairing left out."""

    #: ``user_id, item_id, rating, prediction``: one row per test rating with a prediction.
    frame: pd.DataFrame
    #: Users in the test data.
    n_truth_users: int
    #: Users of the predictions without test ratings (ignored).
    recs_only: int

    def lost_users(self, n_evaluated: int) -> dict[str, int]:
        """Users left out of a per-user result over ``n_evaluated`` users, by reason (the
        ``dropped`` of :class:`evalkit.metrics.MetricSeries`)."""
        counts = {"no_prediction": self.n_truth_users - n_evaluated,
                  "recs_only": self.recs_only}
        return {reason: int(n) for reason, n in counts.items() if n}


def join_predictions(
    truth: object,
    predictions: object,
    *,
    func: str,
    missing: str,
    accept_score: bool = False,
) -> JoinedPredictions:
    """Validate ``truth`` and ``predictions`` and pair every test rating with its prediction.

    The result's ``frame`` is a new frame ``user_id, item_id, rating, prediction`` with one
    row per test rating that has a prediction, in the order of ``truth``. Predictions of pairs
    that are not in ``truth`` are ignored. A test rating without a prediction raises
    ``ValueError`` under ``missing="error"``; under ``missing="drop"`` it is left out and a
    warning gives the count. The result also holds the number of users in ``truth`` and of
    users in ``predictions`` but not in ``truth``.
    """
    missing = check_choice(missing, func=func, arg="missing", choices=MISSING_POLICIES)
    truth = check_truth(truth, func=func)
    if accept_score:
        predictions = as_prediction_frame(predictions, func=func)
    else:
        predictions = check_predictions(predictions, func=func)
    check_id_dtypes(truth, predictions, func=func, other_arg="predictions")
    left = truth[["user_id", "item_id", "rating"]]
    right = predictions[["user_id", "item_id", "prediction"]]
    rows = pair_rows(left["user_id"], left["item_id"], right["user_id"], right["item_id"])
    if rows is None:  # ids of other dtypes: pandas joins them
        joined = left.merge(right, on=["user_id", "item_id"], how="left", sort=False)
    else:  # as the merge would: truth's rows in order, NaN where no prediction
        joined = left.reset_index(drop=True).assign(prediction=pd.api.extensions.take(
            right["prediction"].array, rows, allow_fill=True))
    absent = joined["prediction"].isna().to_numpy()
    n_missing = int(absent.sum())
    if n_missing:
        first_user, first_item = joined.loc[absent, ["user_id", "item_id"]].iloc[0].tolist()
        pair = f"({first_user!r}, {first_item!r})"
        if missing == "error":
            raise InvalidParameterError(
                f"{func}: {n_missing} of {len(joined)} test rating(s) have no prediction; "
                f"first: (user_id, item_id) = {pair}. Predict every test pair, or pass "
                "missing='drop' to leave them out."
            )
        warn(
            f"{func}: dropped {n_missing} of {len(joined)} test rating(s) without a prediction "
            f"(first: (user_id, item_id) = {pair}).",
            UserWarning)
        joined = joined.loc[~absent].reset_index(drop=True)
    truth_users = pd.unique(truth["user_id"])
    outside = ~pd.Index(pd.unique(predictions["user_id"])).isin(truth_users)
    return JoinedPredictions(frame=joined, n_truth_users=len(truth_users),
                             recs_only=int(outside.sum()))


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """Warn at the user's line: the first frame outside evalkit, however many of evalkit's
    calls lie between (every warning of evalkit goes through here)."""
    warnings.warn(message, category, stacklevel=frames_inside() + 1)


def frames_inside() -> int:
    """How many frames, from the caller of this function up, are evalkit's own: a warning
    raised in the caller with ``stacklevel=frames_inside() + 1`` points at the user's line
    (:func:`warn`)."""
    frame = sys._getframe(1)
    n = 0
    while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] == "evalkit":
        frame = frame.f_back
        n += 1
    return n


def check_ks(k: object, *, func: str) -> list[int]:
    """One cutoff or a non-empty list of them, each a positive integer: sorted, distinct."""
    if isinstance(k, (str, bytes)) or not isinstance(k, Iterable):
        return [check_cutoff(k, func=func, arg="k")]
    ks = [check_cutoff(v, func=func, arg="k") for v in k]
    if not ks:
        raise ValueError(
            f"{func}: 'k' must be a positive integer or a non-empty list of them; got [].")
    return sorted(set(ks))


def as_vector(values: object, *, func: str, arg: str, allow_nan: bool = False) -> np.ndarray:
    """A 1-D float64 copy of numeric (or boolean) ``values``; NaN optional, never infinity."""
    if isinstance(values, (pd.Series, pd.Index)):
        if not (
            pd.api.types.is_numeric_dtype(values.dtype) or pd.api.types.is_bool_dtype(values.dtype)
        ):
            raise InvalidParameterError(
                f"{func}: '{arg}' must be numeric; got dtype {values.dtype}.")
        array = values.to_numpy(dtype=np.float64, na_value=np.nan)
    else:
        if isinstance(values, (str, bytes)):
            raise InvalidParameterError(
                f"{func}: '{arg}' must be a 1-D numeric array-like; got {describe(values)}."
            )
        array = np.asarray(values)
        if array.dtype.kind not in "biuf":
            raise InvalidParameterError(
                f"{func}: '{arg}' must be numeric; got dtype {array.dtype}.")
        array = array.astype(np.float64)
    if array.ndim != 1:
        raise ValueError(
            f"{func}: '{arg}' must be one-dimensional; got an array of shape {array.shape}."
        )
    nan = np.isnan(array)
    if nan.any() and not allow_nan:
        raise ValueError(
            f"{func}: '{arg}' must not contain NaN; got {int(nan.sum())} NaN value(s) "
            f"(first at position {int(np.flatnonzero(nan)[0])}); drop them first."
        )
    inf = np.isinf(array)
    if inf.any():
        raise ValueError(
            f"{func}: '{arg}' must be finite; got {int(inf.sum())} infinite value(s) "
            f"(first at position {int(np.flatnonzero(inf)[0])})."
        )
    return array
