"""Validation helpers shared by every public function.

Each checker validates one argument at the public boundary and returns normalized data, or
raises ``ValueError`` / ``TypeError`` with a message that names the calling function, the
argument, the rule and what was received::

    ndcg_at_k: 'k' must be a positive integer; got 0.

Checkers never modify their input.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

__all__ = [
    "as_dataframe",
    "as_rng",
    "check_choice",
    "check_columns",
    "check_cutoff",
    "check_finite",
    "check_fraction",
    "check_ids",
    "check_positive_int",
    "check_rng",
    "check_resamples",
    "describe",
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
        raise TypeError(f"{func}: '{arg}' must be a pandas DataFrame (or a polars DataFrame or "
                        f"pyarrow Table); got {kind.__module__.split('.')[0]}.{kind.__name__}.")
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{func}: '{arg}' is missing column(s) {', '.join(missing)}; "
            f"it has {', '.join(map(str, frame.columns)) or 'no columns'}."
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
                raise ValueError(f"{func}: '{arg}' column '{col}' has {n} missing (NaN) id(s).")
            raise TypeError(
                f"{func}: '{arg}' column '{col}' must hold integer or string ids; got dtype "
                f"{series.dtype}."
            )
        if not (
            pd.api.types.is_integer_dtype(series.dtype)
            or pd.api.types.is_object_dtype(series.dtype)
            or pd.api.types.is_string_dtype(series.dtype)
            or isinstance(series.dtype, pd.CategoricalDtype)
        ):
            raise TypeError(
                f"{func}: '{arg}' column '{col}' must hold integer or string ids; got dtype "
                f"{series.dtype}."
            )
        if series.isna().any():
            n = int(series.isna().sum())
            raise ValueError(f"{func}: '{arg}' column '{col}' has {n} missing (NaN) id(s).")
        if pd.api.types.is_object_dtype(series.dtype):
            kind = pd.api.types.infer_dtype(series, skipna=False)
            if kind not in ("string", "integer", "empty", "categorical"):
                raise TypeError(
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
    if not (pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype)):
        raise TypeError(
            f"{func}: '{arg}' column '{column}' must be numeric; got dtype {series.dtype}."
        )
    values = series.to_numpy(dtype=np.float64, na_value=np.nan)
    if np.isfinite(values).all():
        return values
    nan = np.isnan(values)
    if nan.any() and not allow_nan:
        first = frame.index[np.flatnonzero(nan)[0]]
        raise ValueError(
            f"{func}: '{arg}' column '{column}' has {int(nan.sum())} NaN value(s) "
            f"(first at index {first!r})."
        )
    inf = np.isinf(values)
    if inf.any():
        first = frame.index[np.flatnonzero(inf)[0]]
        raise ValueError(
            f"{func}: '{arg}' column '{column}' has {int(inf.sum())} infinite value(s) "
            f"(first at index {first!r})."
        )
    return values


def check_positive_int(value: object, *, func: str, arg: str) -> int:
    """Check that ``value`` is an integer >= 1 (bools are rejected)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{func}: '{arg}' must be a positive integer; got {describe(value)}.")
    return int(value)


#: The largest cutoff ``evaluate`` and ``ranking_curves`` take: their per-cutoff arrays are
#: sized by it, and no ranked list in practice comes near it.
MAX_CUTOFF = 1_000_000


def check_cutoff(value: object, *, func: str, arg: str) -> int:
    """Check that ``value`` is a cutoff: an integer from 1 to :data:`MAX_CUTOFF`."""
    k = check_positive_int(value, func=func, arg=arg)
    if k > MAX_CUTOFF:
        raise ValueError(
            f"{func}: '{arg}' must be at most {MAX_CUTOFF:,} (arrays are sized by it); got "
            f"{describe(value)}."
        )
    return k


def check_fraction(value: object, *, func: str, arg: str) -> float:
    """Check that ``value`` is a real number strictly between 0 and 1."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{func}: '{arg}' must be a number in (0, 1); got {describe(value)}.")
    value = float(value)
    if not 0.0 < value < 1.0:
        raise ValueError(f"{func}: '{arg}' must be in the open interval (0, 1); got {value!r}.")
    return value


def check_resamples(value: object, *, func: str, allow_zero: bool = True) -> int:
    """``n_resamples`` as an int >= 1, or 0 (no intervals) where ``allow_zero``."""
    integral = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if allow_zero and integral and value == 0:
        return 0
    if not integral or value < 1:
        rule = "a positive integer, or 0 for no intervals" if allow_zero else "a positive integer"
        raise ValueError(f"{func}: 'n_resamples' must be {rule}; got {describe(value)}.")
    return int(value)


def check_choice(value: object, *, func: str, arg: str, choices: Iterable[str]) -> str:
    """Check that ``value`` is one of ``choices``; the message lists the valid ones."""
    choices = list(choices)
    if value not in choices:
        valid = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{func}: unknown {arg} {value!r}; valid values are {valid}.")
    return value  # type: ignore[return-value]


def check_rng(value: object, *, func: str, arg: str = "rng") -> object:
    """Check that ``value`` is a non-negative integer seed, a ``np.random.Generator`` or None."""
    if value is None or isinstance(value, np.random.Generator):
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"{func}: '{arg}' must be an int seed, a numpy Generator or None; got "
            f"{describe(value)}."
        )
    if value < 0:
        raise ValueError(f"{func}: '{arg}' seed must be non-negative; got {int(value)}.")
    return value


def as_rng(rng: int | np.random.Generator | None) -> np.random.Generator:
    """Return a ``np.random.Generator`` from a seed, a generator or None (fresh entropy)."""
    return np.random.default_rng(rng)
