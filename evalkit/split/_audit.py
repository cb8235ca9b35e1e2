"""Hazard checks for a finished split: leakage, duplicates, cold users and items, time order."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from evalkit._checks import (
    check_columns,
    check_ids,
    check_timestamps,
    has_duplicate_pairs,
    pairs_in,
)
from evalkit._display import WideTable

from .._errors import InvalidParameterError
from ._base import Split

__all__ = ["audit"]

_COLUMNS = ["check", "count", "share", "severity", "detail"]


def audit(split: Split) -> pd.DataFrame:
    """Check a split for leakage and other hazards; one row per check.

    Parameters
    ----------
    split : Split
        Any split, including one assembled by hand.

    Returns
    -------
    pandas.DataFrame
        Shown with its ``detail`` text whole. Columns ``check`` (name), ``count`` (int),
        ``share`` (count over the denominator given below; 0.0 when the denominator is 0),
        ``severity`` (``"ok"`` when count is 0, else ``"warning"`` or ``"leak"``) and
        ``detail`` (plain text). Rows, in this order:

        ``test_pairs_in_train`` (leak)
            test rows whose (user_id, item_id) pair also occurs in train; over test rows.
        ``duplicate_pairs_train``, ``duplicate_pairs_test`` (warning)
            rows repeating a (user_id, item_id) pair seen earlier in the same frame; over its
            rows.
        ``cold_users`` (warning)
            distinct test users with no training row; over distinct test users.
        ``cold_items`` (warning)
            distinct test items with no training row; over distinct test items.
        ``dev_pairs_in_train``, ``test_pairs_in_dev`` (leak; only when the split has dev)
            dev rows whose pair occurs in train, test rows whose pair occurs in dev.
        ``user_time_leakage`` (warning; only when train and test have ``timestamp``)
            training rows later than the same user's earliest test interaction; over train rows.
        ``global_time_leakage`` (warning; only with ``timestamp``)
            training rows later than the earliest test timestamp; over train rows.

    Raises
    ------
    TypeError, ValueError
        If ``split`` is not a :class:`Split`, or its frames lack ``user_id``/``item_id``, have
        unusable id dtypes or missing ids, or have missing or non-numeric timestamps.

    Notes
    -----
    Only a test answer that is visible in training data is a ``"leak"``. Time order is a
    ``"warning"``: random splits ignore time by design, which matters for sequential or
    "predict the future" evaluation but not for the classic user-aware split. "Later" is
    strict, so interactions tied in time are not counted.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalkit.split import Split, audit
    >>> train = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [1, 2, 1]})
    >>> test = pd.DataFrame({"user_id": [1, 3], "item_id": [2, 5]})
    >>> audit(Split(train=train, test=test))[["check", "count", "severity"]]
                       check  count severity
    0    test_pairs_in_train      1     leak
    1  duplicate_pairs_train      0       ok
    2   duplicate_pairs_test      0       ok
    3             cold_users      1  warning
    4             cold_items      1  warning
    """
    func = "audit"
    if not isinstance(split, Split):
        raise InvalidParameterError(
            f"{func}: 'split' must be an evalkit Split; got {type(split).__name__}.")
    frames = {"train": split.train, "test": split.test}
    if split.dev is not None:
        frames["dev"] = split.dev
    for name, frame in frames.items():
        check_columns(frame, func=func, arg=f"split.{name}", required=("user_id", "item_id"))
        check_ids(frame, func=func, arg=f"split.{name}")

    # One joint integer encoding of users and of items over all frames (integer ids as they
    # are, offset, when their range is compact): distinct counts are then lookups in boolean
    # tables. Pairs are keyed once per check (pairs_in); a frame's repeated pairs are counted
    # only when a compiled pass finds one.
    bounds = np.cumsum([0, *(len(frame) for frame in frames.values())])
    part = {name: slice(bounds[i], bounds[i + 1]) for i, name in enumerate(frames)}
    users = _codes(frame["user_id"] for frame in frames.values())
    items = _codes(frame["item_id"] for frame in frames.values())
    n_test = len(split.test)

    rows: list[tuple[str, int, int, str, str]] = []
    count = int(pairs_in(split.test, split.train).sum())
    rows.append((
        "test_pairs_in_train", count, n_test, "leak",
        f"{count} of {n_test} test rows repeat a (user_id, item_id) pair that is in train.",
    ))
    for name in ("train", "test"):
        size = len(frames[name])
        count = _repeated_pairs(frames[name])
        rows.append((
            f"duplicate_pairs_{name}", count, size, "warning",
            f"{count} of {size} {name} rows repeat a (user_id, item_id) pair already in {name}.",
        ))
    for label, codes in (("users", users), ("items", items)):
        asked = np.zeros(int(codes.max(initial=-1)) + 1, dtype=bool)
        asked[codes[part["test"]]] = True
        seen = np.zeros_like(asked)
        seen[codes[part["train"]]] = True
        n_asked, count = int(asked.sum()), int((asked & ~seen).sum())
        rows.append((
            f"cold_{label}", count, n_asked, "warning",
            f"{count} of {n_asked} test {label} have no interaction in train.",
        ))
    if "dev" in frames:
        n_dev = len(frames["dev"])
        count = int(pairs_in(split.dev, split.train).sum())
        rows.append((
            "dev_pairs_in_train", count, n_dev, "leak",
            f"{count} of {n_dev} dev rows repeat a (user_id, item_id) pair that is in train.",
        ))
        count = int(pairs_in(split.test, split.dev).sum())
        rows.append((
            "test_pairs_in_dev", count, n_test, "leak",
            f"{count} of {n_test} test rows repeat a (user_id, item_id) pair that is in dev.",
        ))
    if "timestamp" in split.train.columns and "timestamp" in split.test.columns:
        rows.extend(_time_checks(split, users[part["train"]], users[part["test"]], func=func))

    table = pd.DataFrame(rows, columns=["check", "count", "denominator", "kind", "detail"])
    denominator = table["denominator"].to_numpy(dtype=np.float64)
    counts = table["count"].to_numpy(dtype=np.int64)
    share = np.divide(counts, denominator, out=np.zeros(len(table)), where=denominator > 0)
    return WideTable(pd.DataFrame({
        "check": table["check"],
        "count": counts,
        "share": share,
        "severity": np.where(counts > 0, table["kind"], "ok"),
        "detail": table["detail"],
    })[_COLUMNS])


def _codes(columns: Iterable[pd.Series]) -> np.ndarray:
    """Non-negative int64 codes of the concatenated columns (equal values, equal codes, no
    larger than a few times the rows): integer ids offset by their least value when their
    range allows, else dense codes by a hash."""
    column = pd.concat(list(columns), ignore_index=True)
    if pd.api.types.is_integer_dtype(column.dtype) and not isinstance(
            column.dtype, pd.api.extensions.ExtensionDtype) and len(column):
        values = column.to_numpy()
        low, high = int(values.min()), int(values.max())
        if high - low < max(4 * len(values), 1 << 20):
            return values.astype(np.int64) - low
    codes, _ = pd.factorize(column)
    return codes.astype(np.int64, copy=False)


def _repeated_pairs(frame: pd.DataFrame) -> int:
    """Rows repeating an earlier (user_id, item_id) pair of ``frame``: counted only when a
    pass finds that some pair repeats (most frames have none)."""
    if not has_duplicate_pairs(frame["user_id"], frame["item_id"]):
        return 0
    return int(frame.duplicated(["user_id", "item_id"]).sum())


def _time_checks(
    split: Split, train_users: np.ndarray, test_users: np.ndarray, *, func: str
) -> list[tuple[str, int, int, str, str]]:
    """Per-user and global time-order checks (datetimes compared through their order codes)."""
    for name, frame in (("train", split.train), ("test", split.test)):
        check_timestamps(frame, func=func, arg=f"split.{name}")
    n_train = len(split.train)
    stamps = pd.concat([split.train["timestamp"], split.test["timestamp"]], ignore_index=True)
    if pd.api.types.is_integer_dtype(stamps.dtype):
        values = stamps.to_numpy(dtype=np.int64)
    elif pd.api.types.is_float_dtype(stamps.dtype):
        values = stamps.to_numpy(dtype=np.float64)
    else:  # datetimes: their order codes
        try:
            codes, _ = pd.factorize(stamps, sort=True)
        except TypeError as exc:
            raise InvalidParameterError(
                f"{func}: 'split' train and test timestamps cannot be compared "
                f"(dtypes {split.train['timestamp'].dtype} and {split.test['timestamp'].dtype})."
            ) from exc
        values = codes.astype(np.int64)
    train_t, test_t = values[:n_train], values[n_train:]
    n_users = int(max(train_users.max(initial=-1), test_users.max(initial=-1))) + 1
    top = np.iinfo(np.int64).max if values.dtype.kind == "i" else np.inf
    first_test = np.full(n_users, top, dtype=values.dtype)
    np.minimum.at(first_test, test_users, test_t)
    global_first = test_t.min(initial=top)
    user_count = int((train_t > first_test[train_users]).sum())
    global_count = int((train_t > global_first).sum())
    return [
        (
            "user_time_leakage", user_count, n_train, "warning",
            f"{user_count} of {n_train} train rows are later than the same user's earliest "
            "test interaction.",
        ),
        (
            "global_time_leakage", global_count, n_train, "warning",
            f"{global_count} of {n_train} train rows are later than the earliest test "
            "interaction.",
        ),
    ]
