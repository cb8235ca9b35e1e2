"""User segments: bins of training activity, and metrics summarized within each segment."""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from .._checks import check_interactions, check_positive_int, describe
from .._constraints import SEED, constrained
from .._errors import InvalidParameterError
from ..stats import bootstrap_ci_frame
from ._common import plain

__all__ = ["DEFAULT_ACTIVITY_BINS", "metrics_by_segment", "user_activity_bins"]

#: Default edges of :func:`user_activity_bins`: training interactions per user.
DEFAULT_ACTIVITY_BINS: tuple[float, ...] = (0, 20, 50, 150, float("inf"))
# Words prefixed to the ranges of the default activity labels, by number of bins.
_ACTIVITY_WORDS = {
    1: ("all",),
    2: ("light", "heavy"),
    3: ("light", "medium", "heavy"),
    4: ("cold", "light", "medium", "heavy"),
    5: ("cold", "light", "medium", "heavy", "very heavy"),
}


def _range_label(low: float, high: float) -> str:
    """Readable range of the integer counts in [low, high)."""
    if np.isinf(high):
        return f"{int(low)}+"
    last = int(high) - 1
    if last == int(low):
        return str(last)
    if low == 0:
        return f"<{int(high)}"
    return f"{int(low)}-{last}"


def _activity_edges(bins: object, counts: np.ndarray, *, func: str) -> np.ndarray:
    """Validated bin edges: explicit whole-number edges, or ``bins`` quantile bins of counts."""
    if isinstance(bins, numbers.Integral) and not isinstance(bins, bool):
        q = check_positive_int(bins, func=func, arg="bins")
        inner = np.ceil(np.quantile(counts, np.linspace(0, 1, q + 1)[1:-1])) if len(counts) else []
        inner = np.unique(np.asarray(inner, dtype=np.float64))
        return np.concatenate([[0.0], inner[inner > 0], [np.inf]])
    if isinstance(bins, (str, bytes)) or not isinstance(bins, Iterable):
        raise InvalidParameterError(
            f"{func}: 'bins' must be an increasing sequence of edges or a number of quantile "
            f"bins; got {describe(bins)}."
        )
    edges = np.asarray(list(bins), dtype=np.float64)
    finite = edges[np.isfinite(edges)]
    if (
        edges.ndim != 1
        or len(edges) < 2
        or np.isnan(edges).any()
        or np.any(np.diff(edges) <= 0)
        or edges[0] < 0
        or np.isinf(edges[:-1]).any()
        or np.any(finite != np.round(finite))
    ):
        raise ValueError(
            f"{func}: 'bins' must be at least two increasing whole-number edges from 0 or more "
            f"(the last may be inf); got {describe(bins)}."
        )
    return edges


def user_activity_bins(
    train: pd.DataFrame,
    *,
    bins: Sequence[float] | int = DEFAULT_ACTIVITY_BINS,
    users: Iterable[object] | None = None,
    labels: Sequence[str] | None = None,
) -> pd.Series:
    """Bin users by their number of training interactions.

    Parameters
    ----------
    train : pandas.DataFrame
        Training interactions with a ``user_id`` column; each row counts once.
    bins : sequence of float or int, default (0, 20, 50, 150, inf)
        Increasing whole-number edges; a user with ``n`` interactions falls in the bin
        ``[edge_j, edge_j+1)``. An integer ``q`` asks for ``q`` bins at the quantiles of the
        counts of the users being labeled instead (see Notes).
    users : array-like, optional
        The users to label, in this order (duplicates merged), for example the test users.
        Default: every user of ``train``, in ascending id order. A user absent from ``train``
        has 0 interactions.
    labels : sequence of str, optional
        One distinct label per bin, least active first. Default: a word and the range of
        counts, ``"cold (<20)", "light (20-49)", "medium (50-149)", "heavy (150+)"`` for the
        default edges (words for up to five bins, ranges only beyond).

    Returns
    -------
    pandas.Series
        Index ``user_id``, name ``"activity"``, an ordered categorical whose categories are
        the labels of every bin, least active first.

    Raises
    ------
    ValueError
        If ``bins`` is not increasing whole numbers from 0 or more, a user's count lies outside
        the edges, or ``labels`` has the wrong length or repeats a label.
    TypeError
        If ``train`` is not a DataFrame with a usable ``user_id`` column.

    Notes
    -----
    With ``bins=q``, the inner edges are the ``j/q`` quantiles (j = 1..q-1) of the counts,
    rounded up to whole numbers, with duplicates removed, between 0 and inf; so there may be
    fewer than ``q`` bins when many users share a count. Users absent from ``train`` (count 0)
    fall in the lowest bin when it starts at 0; with a first edge above 0 they raise an error
    rather than being dropped.

    Examples
    --------
    >>> train = pd.DataFrame({"user_id": [1] * 3 + [2] * 25 + [3] * 60, "item_id": range(88)})
    >>> user_activity_bins(train, users=[1, 2, 3, 4]).tolist()
    ['cold (<20)', 'light (20-49)', 'medium (50-149)', 'cold (<20)']
    """
    func = "user_activity_bins"
    train = check_interactions(train, func=func, arg="train", ids=("user_id",))
    per_user = train["user_id"].value_counts(sort=False)
    if users is None:
        index = per_user.index.sort_values()
    else:
        if isinstance(users, (str, bytes)) or not isinstance(users, Iterable):
            raise InvalidParameterError(
                f"{func}: 'users' must be an array-like of user ids; got {describe(users)}."
            )
        index = pd.Index(users if hasattr(users, "__array__") else list(users)).unique()
    counts = per_user.reindex(index, fill_value=0).to_numpy(dtype=np.int64)
    edges = _activity_edges(bins, counts, func=func)
    n_bins = len(edges) - 1
    if labels is None:
        ranges = [_range_label(lo, hi) for lo, hi in zip(edges[:-1], edges[1:])]
        words = _ACTIVITY_WORDS.get(n_bins)
        names = ranges if words is None else [f"{w} ({r})" for w, r in zip(words, ranges)]
    else:
        if isinstance(labels, (str, bytes)) or not isinstance(labels, Iterable):
            raise InvalidParameterError(
                f"{func}: 'labels' must be a sequence of str; got {describe(labels)}.")
        names = [str(label) for label in labels]
        if len(names) != n_bins or len(set(names)) != n_bins:
            raise ValueError(
                f"{func}: 'labels' must hold {n_bins} distinct labels, one per bin; got "
                f"{describe(list(labels))}."
            )
    code = np.searchsorted(edges, counts, side="right") - 1
    outside = (code < 0) | (code >= n_bins)
    if outside.any():
        first = int(np.flatnonzero(outside)[0])
        raise ValueError(
            f"{func}: {int(outside.sum())} user(s) have a count outside the bins "
            f"[{edges[0]:g}, {edges[-1]:g}); first: user {plain(index[first])!r} with "
            f"{counts[first]} interaction(s). Widen 'bins'."
        )
    values = pd.Categorical.from_codes(code, categories=names, ordered=True)
    return pd.Series(values, index=index.rename("user_id"), name="activity")


@constrained(rng=SEED)
def metrics_by_segment(
    per_user: pd.DataFrame | Mapping[str, pd.DataFrame],
    segments: pd.Series,
    *,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    rng: int | np.random.Generator | None = 0,
) -> pd.DataFrame:
    """Mean and bootstrap confidence interval of per-user metrics within each user segment.

    Parameters
    ----------
    per_user : pandas.DataFrame or dict of str to pandas.DataFrame
        Per-user metric values (index ``user_id``, one numeric column per ``metric@k``), as
        ``Evaluation.per_user``; a dict gives one table per system by name. NaN marks a user
        for whom the metric is undefined.
    segments : pandas.Series
        Segment of each user (index ``user_id``), as from :func:`user_activity_bins`.
    confidence : float, default 0.95
        Coverage of the intervals.
    n_resamples : int, default 1000
        Bootstrap resamples.
    rng : int, numpy.random.Generator or None, default 0
        Seed of the bootstrap; the same seed gives the same table.

    Returns
    -------
    pandas.DataFrame
        One row per ([system,] segment, column), in system, segment and column order:
        ``system`` (only with a dict), ``segment`` (categorical, the categories of
        ``segments``), ``column``, ``mean``, ``ci_low``, ``ci_high`` (float64) and
        ``n_users`` (users with a value, int64). Segments with no user in a table are left
        out.

    Raises
    ------
    ValueError
        If a user of ``per_user`` has no segment, ``segments`` repeats a user, or an option is
        out of range.
    TypeError
        If the inputs are not DataFrames / a Series, or a metric column is not numeric.

    Notes
    -----
    Within each segment, every column is summarized as :func:`evalkit.stats.bootstrap_ci_frame`
    does for the whole table: the mean over users with a value (NaN dropped, as
    ``empty="drop"``), and the percentile bootstrap interval of that mean. A segment whose
    users all lack a value for a column gets NaN bounds and ``n_users = 0``. One generator,
    made once from ``rng``, serves every (system, segment) in turn.

    Examples
    --------
    >>> per_user = pd.DataFrame({"ndcg@10": [0.2, 0.4, 0.9, 1.0]},
    ...                         index=pd.Index([1, 2, 3, 4], name="user_id"))
    >>> segments = pd.Series(["light", "light", "heavy", "heavy"], index=per_user.index)
    >>> metrics_by_segment(per_user, segments)[["segment", "column", "mean", "n_users"]]
      segment   column  mean  n_users
    0   heavy  ndcg@10  0.95        2
    1   light  ndcg@10  0.30        2
    """
    func = "metrics_by_segment"
    tables = {None: per_user} if isinstance(per_user, pd.DataFrame) else per_user
    if not isinstance(tables, Mapping) or not tables:
        raise InvalidParameterError(
            f"{func}: 'per_user' must be a DataFrame or a non-empty dict of name to DataFrame; "
            f"got {describe(per_user)}."
        )
    if not isinstance(segments, pd.Series):
        raise InvalidParameterError(
            f"{func}: 'segments' must be a pandas Series indexed by user_id; got "
            f"{type(segments).__name__}."
        )
    if not segments.index.is_unique:
        raise ValueError(f"{func}: 'segments' must have unique user ids in its index.")
    if not isinstance(segments.dtype, pd.CategoricalDtype):
        segments = segments.astype(pd.CategoricalDtype(np.sort(segments.dropna().unique())))
    categories = segments.cat.categories
    generator = np.random.default_rng(rng)
    frames = []
    for name, table in tables.items():
        arg = "per_user" if name is None else f"per_user[{name!r}]"
        if not isinstance(table, pd.DataFrame):
            raise InvalidParameterError(
                f"{func}: '{arg}' must be a pandas DataFrame; got {type(table).__name__}."
            )
        position = segments.index.get_indexer(table.index)
        codes = np.asarray(segments.cat.codes, dtype=np.int64)[np.maximum(position, 0)]
        lacking = (position < 0) | (codes < 0)
        if lacking.any():
            first = plain(table.index[np.flatnonzero(lacking)[0]])
            raise ValueError(
                f"{func}: {int(lacking.sum())} user(s) of '{arg}' have no segment in "
                f"'segments'; first: user {first!r}. Label every evaluated user (for example "
                f"user_activity_bins(train, users=test['user_id']))."
            )
        for code in np.unique(codes):
            summary = bootstrap_ci_frame(
                table.loc[codes == code], confidence=confidence, n_resamples=n_resamples,
                rng=generator,
            )
            part = pd.DataFrame(
                {
                    "segment": categories[code],
                    "column": summary.index.astype(str),
                    "mean": summary["mean"].to_numpy(),
                    "ci_low": summary["ci_low"].to_numpy(),
                    "ci_high": summary["ci_high"].to_numpy(),
                    "n_users": summary["n"].to_numpy(dtype=np.int64),
                }
            )
            if name is not None:
                part.insert(0, "system", str(name))
            frames.append(part)
    columns = (["system"] if None not in tables else []) + [
        "segment", "column", "mean", "ci_low", "ci_high", "n_users"
    ]
    result = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
    result["segment"] = pd.Categorical(
        result["segment"], categories=categories, ordered=segments.cat.ordered
    )
    return result
