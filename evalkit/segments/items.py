"""Item segments: popularity buckets, the long-tail curve and the exposure of each bucket in
top-k lists."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._checks import check_interactions, check_recs, describe
from .._constraints import FRACTION, POSITIVE_INT, RESAMPLES, SEED, constrained, real
from .._errors import InvalidParameterError
from ..metrics import top_k

__all__ = [
    "NEW_ITEMS",
    "POPULARITY_BUCKETS",
    "exposure_by_popularity",
    "item_popularity_buckets",
    "popularity_curve",
    "recall_by_popularity",
]

#: Labels of :func:`item_popularity_buckets`, most popular first.
POPULARITY_BUCKETS: tuple[str, ...] = ("head", "mid", "tail")


#: The head's share of interactions, in (0, 1]; the tail's, in [0, 1).
HEAD = real(minimum=0.0, strict=True, maximum=1.0)
TAIL = real(minimum=0.0, maximum=1.0, strict_maximum=True)


def _ranked_items(train: pd.DataFrame, head: float, tail: float) -> pd.DataFrame:
    """Items by count descending (ties: item_id ascending) with share and bucket codes."""
    counts = train["item_id"].value_counts(sort=False)
    items = counts.index.to_numpy()
    n = counts.to_numpy(dtype=np.int64)
    order = np.lexsort((items, -n))
    items, n = items[order], n[order]
    total = float(n.sum())
    cumulative = np.cumsum(n)
    eps = 1e-9 * total
    # head: every item at least as popular as the one completing the head share
    if len(n):
        crossing = int(np.searchsorted(cumulative, head * total - eps, side="left"))
        head_min = n[min(crossing, len(n) - 1)]
        is_head = n >= head_min
        # tail: the largest count t such that items with count <= t hold at most `tail`
        distinct, inverse = np.unique(n, return_inverse=True)
        mass = np.cumsum(np.bincount(inverse, weights=n))
        allowed = distinct[mass <= tail * total + eps]
        is_tail = (n <= allowed.max()) & ~is_head if len(allowed) else np.zeros(len(n), bool)
    else:
        is_head = is_tail = np.zeros(0, dtype=bool)
    code = np.where(is_head, 0, np.where(is_tail, 2, 1))
    return pd.DataFrame(
        {
            "rank": np.arange(1, len(n) + 1, dtype=np.int64),
            "item_id": items,
            "count": n,
            "share": n / total if total else n.astype(np.float64),
            "cumulative_share": cumulative / total if total else n.astype(np.float64),
            "bucket": pd.Categorical.from_codes(code, categories=POPULARITY_BUCKETS, ordered=True),
        }
    )


@constrained(head=HEAD, tail=TAIL)
def item_popularity_buckets(
    train: pd.DataFrame, *, head: float = 0.2, tail: float = 0.2
) -> pd.Series:
    """Split items into a short head, a middle and a long tail by training popularity.

    Parameters
    ----------
    train : pandas.DataFrame
        Training interactions with an ``item_id`` column; each row counts once.
    head : float, default 0.2
        Share of the interactions the head takes, in (0, 1].
    tail : float, default 0.2
        Share of the interactions the tail takes at most, in [0, 1) (0: no tail).

    Returns
    -------
    pandas.Series
        Index ``item_id`` (most popular first; ties by ``item_id`` ascending), name
        ``"popularity"``, an ordered categorical with categories ``head, mid, tail``.

    Raises
    ------
    ValueError
        If ``head`` or ``tail`` is out of range, or ``head + tail > 1``.
    TypeError
        If ``train`` is not a DataFrame with a usable ``item_id`` column.

    Notes
    -----
    The usual long-tail split (Abdollahpouri et al. 2019): with items ranked by their count
    ``n_i`` of training interactions, the head is the most popular items that together take
    ``head`` of all interactions, the tail the least popular ones that together take at most
    ``tail``, and the rest is the middle. Items with equal counts always share a bucket: the
    head holds every item with ``n_i >= n*``, where ``n*`` is the count of the item at which
    the cumulative share (descending) first reaches ``head``, so its share may exceed
    ``head``; the tail holds the items with ``n_i <= t`` for the largest ``t`` whose items
    hold at most ``tail`` (so the tail may be empty when the rarest count alone holds more).
    The head wins where both would apply. Items absent from ``train`` have no bucket here;
    :func:`exposure_by_popularity` counts them in the tail.

    References
    ----------
    H. Abdollahpouri, R. Burke and B. Mobasher, "Managing popularity bias in recommender
    systems with personalized re-ranking", FLAIRS 2019.

    Examples
    --------
    >>> train = pd.DataFrame({"user_id": range(10), "item_id": [1] * 5 + [2] * 3 + [3, 4]})
    >>> item_popularity_buckets(train).to_dict()
    {1: 'head', 2: 'mid', 3: 'tail', 4: 'tail'}
    """
    func = "item_popularity_buckets"
    train = check_interactions(train, func=func, arg="train", ids=("item_id",))
    head, tail = float(head), float(tail)
    if head + tail > 1.0 + 1e-12:
        raise ValueError(
            f"{func}: 'head' + 'tail' must be at most 1; got {head!r} + {tail!r}."
        )
    ranked = _ranked_items(train, head, tail)
    return pd.Series(
        ranked["bucket"].array,
        index=pd.Index(ranked["item_id"].to_numpy(), name="item_id"),
        name="popularity",
    )


@constrained(head=HEAD, tail=TAIL)
def popularity_curve(
    train: pd.DataFrame, *, head: float = 0.2, tail: float = 0.2
) -> pd.DataFrame:
    """Items ranked by training popularity, with shares and buckets: the long-tail curve.

    Parameters
    ----------
    train : pandas.DataFrame
        Training interactions with an ``item_id`` column.
    head, tail : float, default 0.2
        As :func:`item_popularity_buckets`.

    Returns
    -------
    pandas.DataFrame
        One row per item, most popular first (ties by ``item_id`` ascending): ``rank``
        (1-based), ``item_id``, ``count`` (training interactions), ``share`` (of all
        interactions), ``cumulative_share`` and ``bucket`` (``head, mid, tail``).

    Raises
    ------
    ValueError, TypeError
        As :func:`item_popularity_buckets`.

    Examples
    --------
    >>> train = pd.DataFrame({"user_id": range(10), "item_id": [1] * 5 + [2] * 3 + [3, 4]})
    >>> popularity_curve(train)[["rank", "item_id", "count", "cumulative_share", "bucket"]]
       rank  item_id  count  cumulative_share bucket
    0     1        1      5               0.5   head
    1     2        2      3               0.8    mid
    2     3        3      1               0.9   tail
    3     4        4      1               1.0   tail
    """
    func = "popularity_curve"
    train = check_interactions(train, func=func, arg="train", ids=("item_id",))
    head, tail = float(head), float(tail)
    if head + tail > 1.0 + 1e-12:
        raise ValueError(f"{func}: 'head' + 'tail' must be at most 1; got {head!r} + {tail!r}.")
    return _ranked_items(train, head, tail)


def _bucket_codes(items: np.ndarray, buckets: pd.Series) -> np.ndarray:
    """Category code of each item; items without a bucket get the last category."""
    position = buckets.index.get_indexer(items)
    codes = np.asarray(buckets.cat.codes, dtype=np.int64)
    last = len(buckets.cat.categories) - 1
    return np.where(position >= 0, codes[np.maximum(position, 0)], last)


def _top_k_rows(recs: pd.DataFrame, k: int) -> pd.DataFrame:
    """The ``user_id, item_id`` rows in the top ``k`` of each user's list, ordered as the
    ranking metrics order them (:func:`evalkit.metrics.top_k`: by rank, else by score with
    tied scores by item id)."""
    return top_k(recs, k=k)[["user_id", "item_id"]]


def _top_k_items(recs: pd.DataFrame, k: int) -> np.ndarray:
    """Item ids in the top ``k`` of each user's list (see :func:`_top_k_rows`)."""
    return _top_k_rows(recs, k)["item_id"].to_numpy()


@constrained(k=POSITIVE_INT)
def exposure_by_popularity(
    recs: Mapping[str, pd.DataFrame] | pd.DataFrame,
    buckets: pd.Series,
    *,
    k: int = 10,
    train: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Share of the top-k recommendation slots going to each popularity bucket, per system.

    Parameters
    ----------
    recs : dict of str to pandas.DataFrame, or pandas.DataFrame
        Recommendations (``user_id, item_id`` and ``rank`` and/or ``score``) of each system by
        name; a single frame is named ``"recs"``.
    buckets : pandas.Series
        Bucket of each item (index ``item_id``), as from :func:`item_popularity_buckets`; a
        non-categorical Series is made categorical with its sorted distinct values.
    k : int, default 10
        Cutoff: the slots are the top ``k`` of every user's list.
    train : pandas.DataFrame, optional
        Training interactions (``item_id``); when given, a first row group ``"train"`` holds
        the share of the interactions in each bucket, for reference.

    Returns
    -------
    pandas.DataFrame
        One row per (system, bucket), every bucket for every system: ``system``, ``bucket``
        (categorical, the categories of ``buckets``), ``slots`` (top-k slots, or interactions
        for ``"train"``, int64) and ``share`` (``slots`` over the system's total; NaN when the
        total is 0).

    Raises
    ------
    ValueError, TypeError
        For invalid recommendations, a ``k`` that is not a positive integer, ``buckets`` that
        is not a Series with unique item ids, or a system named ``"train"`` when ``train`` is
        given.

    Notes
    -----
    A slot is one (user, rank <= k) row; ranks come from ``rank`` when present, otherwise from
    ``score`` descending within the user, ties by ``item_id`` ascending. An item without a
    bucket has no training interactions, so it is counted in the last (least popular)
    category, ``tail`` for :func:`item_popularity_buckets`.

    Examples
    --------
    >>> buckets = pd.Series(pd.Categorical(["head", "tail"], categories=["head", "mid", "tail"],
    ...                     ordered=True), index=pd.Index([1, 2], name="item_id"))
    >>> recs = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [1, 2, 1, 3],
    ...                      "rank": [1, 2, 1, 2]})
    >>> exposure_by_popularity({"A": recs}, buckets, k=2)
      system bucket  slots  share
    0      A   head      2    0.5
    1      A    mid      0    0.0
    2      A   tail      2    0.5
    """
    func = "exposure_by_popularity"
    systems = {"recs": recs} if isinstance(recs, pd.DataFrame) else recs
    if not isinstance(systems, Mapping) or not systems:
        raise InvalidParameterError(
            f"{func}: 'recs' must be a DataFrame or a non-empty dict of name to DataFrame; got "
            f"{describe(recs)}."
        )
    if not isinstance(buckets, pd.Series):
        raise InvalidParameterError(
            f"{func}: 'buckets' must be a pandas Series indexed by item_id; got "
            f"{type(buckets).__name__}."
        )
    if not buckets.index.is_unique:
        raise ValueError(f"{func}: 'buckets' must have unique item ids in its index.")
    if buckets.isna().any():
        raise ValueError(f"{func}: 'buckets' has {int(buckets.isna().sum())} missing value(s).")
    if not isinstance(buckets.dtype, pd.CategoricalDtype):
        buckets = buckets.astype(pd.CategoricalDtype(np.sort(buckets.unique())))
    categories = buckets.cat.categories
    n_cat = len(categories)
    groups: dict[str, np.ndarray] = {}
    if train is not None:
        if "train" in systems:
            raise ValueError(
                f"{func}: a system is named 'train', which 'train' also uses; rename it."
            )
        train = check_interactions(train, func=func, arg="train", ids=("item_id",))
        groups["train"] = _bucket_codes(train["item_id"].to_numpy(), buckets)
    for name, frame in systems.items():
        frame = check_recs(frame, func=func, arg=f"recs[{name!r}]")
        groups[str(name)] = _bucket_codes(_top_k_items(frame, k), buckets)
    slots = np.stack([np.bincount(codes, minlength=n_cat) for codes in groups.values()])
    totals = slots.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(totals > 0, slots / totals, np.nan)
    return pd.DataFrame(
        {
            "system": np.repeat(list(groups), n_cat),
            "bucket": pd.Categorical(
                np.tile(np.asarray(categories), len(groups)),
                categories=categories,
                ordered=buckets.cat.ordered,
            ),
            "slots": slots.ravel().astype(np.int64),
            "share": share.ravel(),
        }
    )


#: Segment of :func:`recall_by_popularity` for test items without training interactions.
NEW_ITEMS = "new"


@constrained(k=POSITIVE_INT, confidence=FRACTION, n_resamples=RESAMPLES, rng=SEED)
def recall_by_popularity(
    truth: pd.DataFrame,
    recs: Mapping[str, pd.DataFrame] | pd.DataFrame,
    buckets: pd.Series,
    *,
    k: int = 10,
    threshold: float | None = 4.0,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    rng: int | np.random.Generator | None = 0,
) -> pd.DataFrame:
    """Recall of the relevant test items of each popularity bucket (the long tail, and the
    items new to the training data), per system, with bootstrap intervals over users.

    Parameters
    ----------
    truth : pandas.DataFrame
        Test interactions ``user_id, item_id, rating``.
    recs : dict of str to pandas.DataFrame, or pandas.DataFrame
        Recommendations of each system by name (a single frame is named ``"recs"``).
    buckets : pandas.Series
        Bucket of each training item, as from :func:`item_popularity_buckets`.
    k : int, default 10
        Cutoff: the top ``k`` of every list (ranks as in :func:`exposure_by_popularity`).
    threshold : float or None, default 4.0
        A test item is relevant when its rating >= threshold; None: every test item.
    confidence : float, default 0.95
        Level of the bootstrap intervals over users (see Notes).
    n_resamples : int, default 1000
        Bootstrap resamples.
    rng : int, Generator or None, default 0
        Seed of the bootstrap.

    Returns
    -------
    pandas.DataFrame
        One row per (system, segment), the shape of
        :func:`evalkit.segments.metrics_by_segment` (so
        :func:`evalkit.plots.metric_by_segment` draws it): ``system``, ``segment``
        (categorical: the categories of ``buckets``, then ``"new"`` for test items without a
        bucket, the cold-start items), ``column`` (``"recall@k"``), ``mean`` (the recall),
        ``ci_low``, ``ci_high``, ``n_users`` (users with a relevant test item in the
        segment), ``relevant`` and ``hits`` (relevant test items, and those in the top k).
        Segments without a relevant test item are left out.

    Raises
    ------
    ValueError, TypeError
        For invalid inputs or options.

    Notes
    -----
    The recall of a segment pools its relevant test items over users: ``hits / relevant``.
    Its interval resamples users with Poisson(1) weights drawn from the seed and the user id
    (:func:`evalkit.stats.bootstrap_ci_frame`), as the ratio ``sum w hits / sum w relevant``,
    one design for every system and segment. A model that never recommends items outside its
    training data scores 0 on ``"new"``: these are the items a cold-start method must reach.

    Examples
    --------
    >>> train = pd.DataFrame({"user_id": range(10), "item_id": [1] * 5 + [2] * 3 + [3, 4]})
    >>> truth = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [1, 3, 1, 9],
    ...                       "rating": 5.0})
    >>> recs = pd.DataFrame({"user_id": [1, 2], "item_id": [1, 1], "rank": [1, 1]})
    >>> table = recall_by_popularity(truth, {"pop": recs}, item_popularity_buckets(train), k=1)
    >>> table[["segment", "mean", "relevant", "hits"]]
      segment  mean  relevant  hits
    0    head   1.0         2     2
    1    tail   0.0         1     0
    2     new   0.0         1     0
    """
    from .._checks import check_threshold, check_truth
    from ..stats import percentile_interval, user_bootstrap_sums

    func = "recall_by_popularity"
    threshold = check_threshold(threshold, func=func)
    systems = {"recs": recs} if isinstance(recs, pd.DataFrame) else recs
    if not isinstance(systems, Mapping) or not systems:
        raise InvalidParameterError(
            f"{func}: 'recs' must be a DataFrame or a non-empty dict of name to "
            f"DataFrame; got {describe(recs)}.")
    if not isinstance(buckets, pd.Series) or not buckets.index.is_unique:
        raise InvalidParameterError(
            f"{func}: 'buckets' must be a pandas Series indexed by unique item ids, "
            f"as item_popularity_buckets gives; got {describe(buckets)}.")
    if not isinstance(buckets.dtype, pd.CategoricalDtype):
        buckets = buckets.astype(pd.CategoricalDtype(np.sort(buckets.unique())))
    truth = check_truth(truth, func=func, threshold=threshold)
    if threshold is not None:
        truth = truth[truth["rating"].to_numpy() >= threshold]
    categories = [*map(str, buckets.cat.categories), NEW_ITEMS]
    position = buckets.index.get_indexer(truth["item_id"].to_numpy())
    codes = np.where(position >= 0,
                     np.asarray(buckets.cat.codes, dtype=np.int64)[np.maximum(position, 0)],
                     len(categories) - 1)
    users, user_codes = np.unique(truth["user_id"].to_numpy(), return_inverse=True)
    n_users, n_cat = len(users), len(categories)
    relevant = np.bincount(user_codes * n_cat + codes, minlength=n_users * n_cat
                           ).reshape(n_users, n_cat).astype(np.float64)
    pairs = pd.MultiIndex.from_arrays([truth["user_id"].to_numpy(), truth["item_id"].to_numpy()])
    hits = {}
    for name, frame in systems.items():  # one step per system
        frame = check_recs(frame, func=func, arg=f"recs[{name!r}]")
        listed = pairs.isin(pd.MultiIndex.from_frame(_top_k_rows(frame, k)))
        hits[str(name)] = np.bincount(user_codes[listed] * n_cat + codes[listed],
                                      minlength=n_users * n_cat).reshape(n_users, n_cat)
    names = list(hits)
    columns = [relevant[:, c] for c in range(n_cat)]
    columns += [hits[name][:, c].astype(np.float64) for name in names for c in range(n_cat)]
    low = np.full((len(names), n_cat), np.nan)
    high = np.full((len(names), n_cat), np.nan)
    if n_resamples and n_users:
        sums = user_bootstrap_sums(columns, users, n_resamples=n_resamples, rng=rng, func=func)
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = sums[n_cat:].reshape(len(names), n_cat, -1) / sums[None, :n_cat]
        for s in range(len(names)):  # one step per system
            for c in range(n_cat):
                if relevant[:, c].any():
                    low[s, c], high[s, c] = (float(v[0]) for v in percentile_interval(
                        ratio[s, c][:, None], confidence))
    rows = []
    for s, name in enumerate(names):
        for c, segment in enumerate(categories):
            total = int(relevant[:, c].sum())
            if not total:
                continue
            found = int(hits[name][:, c].sum())
            rows.append({"system": name, "segment": segment, "column": f"recall@{k}",
                         "mean": found / total, "ci_low": low[s, c], "ci_high": high[s, c],
                         "n_users": int(np.count_nonzero(relevant[:, c])),
                         "relevant": total, "hits": found})
    table = pd.DataFrame(rows, columns=["system", "segment", "column", "mean", "ci_low",
                                        "ci_high", "n_users", "relevant", "hits"])
    table["segment"] = pd.Categorical(table["segment"], categories=categories, ordered=True)
    if not isinstance(recs, Mapping):
        table = table.drop(columns="system")
    return table
