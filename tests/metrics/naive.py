"""A readable, per-user reference implementation of every ranking metric, straight from the
definitions in the docstrings and the documentation's metric reference (``make docs``, the
page "Every metric", written from the declarations in ``evalkit/metrics/_registry.py``: each
metric's formula, the definitions it reads and the publication it comes from).

This module is the statement of the formulas that the vectorized engine in
``evalkit.metrics`` is checked against. It loops over users and positions on purpose: clarity
first, speed never. It shares no code with the engine.

Conventions (ranking metrics, ties in scores, which users are averaged, relevance and
gain):

- A user's list is ordered by ``rank`` when the recommendations carry one (the item at rank 5
  sits at position 5, gaps allowed), otherwise by descending ``score``.
- Equal scores form a tie group. ``"deterministic"`` orders it by ``item_id`` ascending;
  ``"optimistic"`` puts relevant items first (then higher rating, then item id);
  ``"pessimistic"`` puts relevant items last (then lower rating first, then item id);
  ``"expected"`` averages the metric over every order of every tie group that starts within
  the cutoff (brute force; keep groups small).
- Average precision under ``"expected"`` is the mean over orders for a fixed denominator
  (``"min"``, ``"relevant"``); with ``ap_denominator="hits"`` the engine documents an
  approximation (AP of the expected relevance of each position), which the reference mirrors.
  :func:`expected_ap_exact` gives the true expectation independently.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from hypothesis import strategies as st

from evalkit.metrics import RANKING_METRICS

__all__ = [
    "METRIC_OPTIONS",
    "RATINGS",
    "UserData",
    "cases",
    "expected_ap_exact",
    "is_undefined",
    "make_frames",
    "naive_metric",
    "order_value",
    "orders",
    "random_frames",
    "user_data",
    "user_value",
]

#: The options that change each registered metric's value, as its declaration states them
#: (``tests/metrics/test_cards.py`` checks that no other field changes it).
METRIC_OPTIONS: dict[str, tuple[str, ...]] = {
    name: metric.reads for name, metric in RANKING_METRICS.items()}

_DEFAULTS: dict[str, object] = {
    "threshold": 4.0,
    "gain": "linear",
    "discount": "log",
    "log_base": 2.0,
    "ap_denominator": "min",
    "empty": "drop",
    "ties": "deterministic",
    "neutral": 3.0,
    "half_life": 5.0,
    "gain_scope": "rated",
    "ideal": "truth",
    "recall_denominator": "relevant",
    "precision_users": "all",
    "relevant_set": "truth",
    "unknown_items": "keep",
    "tie_order": "item",
    "train_items": None,  # the training items, for unknown_items="drop"
}


@dataclass
class UserData:
    """One user's test items and recommendations."""

    ratings: dict  # item -> test rating
    recs: list  # (item, rank or None, score or None)
    ranked: bool  # whether the list is ordered by rank


def user_data(truth: pd.DataFrame, recs: pd.DataFrame) -> dict:
    """Per truth user: their :class:`UserData` (users only in ``recs`` are left out)."""
    out: dict = {}
    for u, i, r in zip(*(truth[c].tolist() for c in ("user_id", "item_id", "rating"))):
        out.setdefault(u, UserData({}, [], "rank" in recs.columns)).ratings[i] = float(r)
    none = [None] * len(recs)
    rank = recs["rank"].tolist() if "rank" in recs.columns else none
    score = recs["score"].tolist() if "score" in recs.columns else none
    for u, i, rk, sc in zip(recs["user_id"].tolist(), recs["item_id"].tolist(), rank, score):
        if u in out:
            out[u].recs.append(
                (i, None if rk is None else int(rk), None if sc is None else float(sc))
            )
    return out


def _is_relevant(rating: float | None, threshold: float | None) -> bool:
    if rating is None:
        return False
    return threshold is None or rating >= threshold


def _tie_sort(items: list, tie_order: str) -> list:
    if tie_order == "item":
        return sorted(items)
    if tie_order == "item_desc":
        return sorted(items, reverse=True)
    return sorted(items, key=str, reverse=tie_order == "item_str_desc")


def tie_groups(data: UserData, tie_order: str = "item") -> list[list]:
    """The user's list as consecutive groups of items; each group is one score value.

    With ranks every item is its own group. Groups are in list order and items within a
    group in ``tie_order``: item id ascending (``"item"``), descending (``"item_desc"``), or
    the ids as strings ascending (``"item_str"``) or descending (``"item_str_desc"``).
    """
    if data.ranked:
        return [[item] for item, _, _ in sorted(data.recs, key=lambda e: e[1])]
    by_score: dict[float, list] = {}
    for item, _, score in data.recs:
        by_score.setdefault(score, []).append(item)
    return [_tie_sort(by_score[s], tie_order) for s in sorted(by_score, reverse=True)]


def orders(
    data: UserData,
    *,
    ties: str,
    threshold: float | None,
    cutoff: int,
    tie_order: str = "item",
) -> Iterator[list[tuple[int, object]]]:
    """Every order of the list the tie policy considers, as ``[(position, item), ...]``.

    One order for every policy but ``"expected"``, which yields every combination of
    permutations of the tie groups that start at or before ``cutoff`` (all equally likely).
    """
    if data.ranked:
        yield [(rk, item) for item, rk, _ in sorted(data.recs, key=lambda e: e[1])]
        return
    groups = tie_groups(data, tie_order)

    def rating(item: object) -> float:
        return data.ratings.get(item, 0.0)

    def relevant(item: object) -> bool:
        return _is_relevant(data.ratings.get(item), threshold)

    if ties == "optimistic":
        groups = [sorted(g, key=lambda i: (not relevant(i), -rating(i))) for g in groups]
    elif ties == "pessimistic":
        groups = [sorted(g, key=lambda i: (relevant(i), rating(i))) for g in groups]
    if ties != "expected":
        items = [i for g in groups for i in g]
        yield list(zip(range(1, len(items) + 1), items))
        return
    choices = []
    start = 1
    for g in groups:
        choices.append(list(itertools.permutations(g)) if start <= cutoff and len(g) > 1 else [g])
        start += len(g)
    for combo in itertools.product(*choices):
        items = [i for g in combo for i in g]
        yield list(zip(range(1, len(items) + 1), items))


def _gain(rating: float | None, relevant: bool, gain: str, scope: str = "rated") -> float:
    if gain == "binary":
        return 1.0 if relevant else 0.0
    if rating is None or (scope == "relevant" and not relevant):
        return 0.0
    return 2.0**rating - 1.0 if gain == "exponential" else rating


def _disc(position: int, discount: str, log_base: float) -> float:
    if discount == "breese":
        return max(1.0, math.log(position) / math.log(log_base))
    return math.log(position + 1) / math.log(log_base)


def order_value(name: str, order: list, data: UserData, k: int, o: dict) -> float:
    """The metric for one order of the list; ``k`` is ignored by R-precision."""
    o = {**_DEFAULTS, **o}
    thr = o["threshold"]
    rel = {i for i, r in data.ratings.items() if _is_relevant(r, thr)}
    n_rel = len(rel)
    if name == "r_precision":
        k = n_rel
    if name == "r_precision_at_k":  # R-precision cut at k
        k = min(n_rel, k)
    top = [(p, i) for p, i in order if p <= k]
    hits = sum(1 for _, i in top if i in rel)
    recall_d = min(n_rel, k) if o["recall_denominator"] == "min" else n_rel
    if name == "precision":
        return hits / k
    if name == "recall":
        return hits / recall_d
    if name in ("r_precision", "r_precision_at_k"):
        return hits / n_rel
    if name == "f1":
        p, r = hits / k, hits / recall_d
        return 0.0 if p + r == 0 else 2 * p * r / (p + r)
    if name == "hit_rate":
        return 1.0 if hits else 0.0
    if name == "mrr":
        first = [p for p, i in top if i in rel]
        return 1.0 / min(first) if first else 0.0
    if name == "first_relevant_rank":
        first = [p for p, i in top if i in rel]
        return float(min(first)) if first else float(k + 1)
    if name == "map":
        return _ap([1.0 if i in rel else 0.0 for _, i in top], [p for p, _ in top], n_rel, k, o)
    if name in ("dcg", "ndcg"):
        g, disc, base, scope = o["gain"], o["discount"], o["log_base"], o["gain_scope"]
        dcg = sum(
            _gain(data.ratings.get(i), i in rel, g, scope) / _disc(p, disc, base)
            for p, i in top
        )
        if name == "dcg":
            return dcg
        if o["ideal"] == "k":
            ideal = [1.0] * k
        else:
            ideal = sorted(
                (_gain(r, _is_relevant(r, thr), g, scope) for r in data.ratings.values()),
                reverse=True,
            )
        idcg = sum(x / _disc(p, disc, base) for p, x in enumerate(ideal[:k], start=1))
        return dcg / idcg
    if name == "half_life_utility":
        d, alpha = o["neutral"], o["half_life"]
        num = sum(
            max(data.ratings.get(i, d) - d, 0.0) / 2.0 ** ((p - 1) / (alpha - 1)) for p, i in top
        )
        ideal = sorted(data.ratings.values(), reverse=True)[:k]
        den = sum(max(r - d, 0.0) / 2.0 ** ((j - 1) / (alpha - 1)) for j, r in enumerate(ideal, 1))
        return num / den
    raise ValueError(name)


def _ap(rel: Sequence[float], positions: Sequence[int], n_rel: int, k: int, o: dict) -> float:
    """AP@k of a (possibly fractional) relevance vector at the given positions."""
    total, cum = 0.0, 0.0
    for r, p in zip(rel, positions):
        cum += r
        total += r * cum / p
    rule = o.get("ap_denominator", "min")
    d = {"relevant": n_rel, "hits": cum, "min": min(k, n_rel), "k": k if n_rel else 0}[rule]
    return total / d if d > 0 else 0.0


def is_undefined(name: str, data: UserData, k: int, o: dict) -> bool:
    o = {**_DEFAULTS, **o}
    thr = o["threshold"]
    n_rel = sum(_is_relevant(r, thr) for r in data.ratings.values())
    if name in ("recall", "f1", "r_precision", "r_precision_at_k", "map", "mrr",
                "first_relevant_rank"):
        return n_rel == 0
    if name in ("precision", "hit_rate") and o["precision_users"] == "relevant":
        return n_rel == 0
    if name == "ndcg":
        if o["ideal"] == "k":
            return n_rel == 0
        gains = sorted(
            (_gain(r, _is_relevant(r, thr), o["gain"], o["gain_scope"])
             for r in data.ratings.values()),
            reverse=True,
        )
        return sum(x / _disc(p, o["discount"], o["log_base"])
                   for p, x in enumerate(gains[:k], 1)) <= 0
    if name == "half_life_utility":
        return max((r - o["neutral"] for r in data.ratings.values()), default=-1.0) <= 0
    return False


def _restricted(data: UserData, o: dict) -> UserData:
    """The user's data with the test items that ``unknown_items`` and ``relevant_set`` remove
    taken out."""
    ratings = data.ratings
    if o["unknown_items"] == "drop":
        ratings = {i: r for i, r in ratings.items() if i in o["train_items"]}
    if o["relevant_set"] == "listed":
        listed = {item for item, _, _ in data.recs}
        ratings = {i: r for i, r in ratings.items() if i in listed}
    return UserData(ratings, data.recs, data.ranked)


def user_value(name: str, data: UserData, *, k: int, **options: object) -> float:
    """One user's metric (NaN when undefined) under the given options."""
    o = {**_DEFAULTS, **options}
    if name == "half_life_utility":
        o["threshold"] = None
    data = _restricted(data, o)
    if is_undefined(name, data, k, o):
        return math.nan
    cutoff = k
    if name == "r_precision":
        cutoff = sum(_is_relevant(r, o["threshold"]) for r in data.ratings.values())
    all_orders = list(orders(data, ties=o["ties"], threshold=o["threshold"], cutoff=cutoff,
                             tie_order=o["tie_order"]))
    if name == "map" and o["ties"] == "expected" and o["ap_denominator"] == "hits":
        # with D = hits the engine documents an approximation: AP of the expected relevance
        # of each position (for a fixed D it is the exact mean over orders, below)
        thr = o["threshold"]
        rel = {i for i, r in data.ratings.items() if _is_relevant(r, thr)}
        n_rel = len(rel)
        positions = [p for p, _ in all_orders[0] if p <= k]
        mean_rel = [
            float(np.mean([1.0 if order[j][1] in rel else 0.0 for order in all_orders]))
            for j in range(len(positions))
        ]
        return _ap(mean_rel, positions, n_rel, k, o)
    return float(np.mean([order_value(name, order, data, k, o) for order in all_orders]))


def naive_metric(
    name: str,
    truth: pd.DataFrame,
    recs: pd.DataFrame,
    *,
    k: int | None = None,
    prepared: dict | None = None,
    **options: object,
) -> pd.Series:
    """Per-user values of metric ``name`` for every user in ``truth``, under ``empty``.

    ``prepared`` may pass ``user_data(truth, recs)`` when calling many times on the same data.

    The index holds the truth users in sorted order; ``attrs["dropped"]`` counts the users
    dropped as undefined (``empty="drop"``) and those seen only in ``recs``.
    """
    empty = options.get("empty", "drop")
    per_user = user_data(truth, recs) if prepared is None else prepared
    users = sorted(per_user)
    values = [user_value(name, per_user[u], k=k or 1, **options) for u in users]
    series = pd.Series(values, index=pd.Index(users, name="user_id"), dtype=np.float64, name=name)
    undefined = series.isna()
    dropped: dict[str, int] = {}
    recs_only = set(recs["user_id"].tolist()) - set(per_user)
    if recs_only:
        dropped["recs_only"] = len(recs_only)
    if empty == "zero":
        series = series.fillna(0.0)
    elif empty == "drop":
        series = series[~undefined]
        if undefined.any():
            dropped["undefined"] = int(undefined.sum())
    series.attrs["dropped"] = dropped
    return series


def expected_ap_exact(rel_groups: Sequence[Sequence[int]], n_rel: int, k: int) -> float:
    """The true expectation of AP@k (denominator ``min(k, n_rel)``) over random tie orders.

    ``rel_groups`` are the list's tie groups as 0/1 relevance vectors, in list order.
    """
    choices = [set(itertools.permutations(g)) for g in rel_groups]
    values = []
    for combo in itertools.product(*choices):
        rel = [r for g in combo for r in g][:k]
        values.append(_ap(rel, range(1, len(rel) + 1), n_rel, k, {"ap_denominator": "min"}))
    return float(np.mean(values))


# -- random test data ----------------------------------------------------------------------
# Ratings include 0 (a test item with zero linear gain) and values on both sides of the
# usual threshold 4.0, so users without relevant items and with IDCG = 0 both occur.
RATINGS = (0.0, 0.5, 1.0, 2.0, 3.0, 3.5, 4.0, 4.5, 5.0)


def _id_map(kind: str, prefix: str) -> Callable[[int], object]:
    if kind == "str":
        return lambda x: f"{prefix}{x}"  # lexicographic order differs from numeric: u10 < u2
    if kind == "spread":
        return lambda x: x * 1_000_003 - 7  # negative and large ids: no dense lookup
    return lambda x: x


def make_frames(
    truth_rows: list[tuple[int, int, float]],
    rec_rows: list[tuple[int, int, int | None, float | None]],
    *,
    ids: str = "int",
    order: str = "rank",
    float_rank: bool = False,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Build ``truth`` and ``recs`` frames from integer-coded rows.

    ``ids`` is ``"int"`` (ids as given), ``"spread"`` (large and negative integers) or
    ``"str"``; ``order`` is ``"rank"``, ``"score"`` or ``"both"`` (the columns recs carry).
    """
    uid, iid = _id_map(ids, "u"), _id_map(ids, "i")
    truth = pd.DataFrame(
        {
            "user_id": [uid(u) for u, _, _ in truth_rows],
            "item_id": [iid(i) for _, i, _ in truth_rows],
            "rating": np.array([r for _, _, r in truth_rows], dtype=np.float64),
        }
    )
    columns: dict[str, object] = {
        "user_id": [uid(u) for u, _, _, _ in rec_rows],
        "item_id": [iid(i) for _, i, _, _ in rec_rows],
    }
    if order in ("rank", "both"):
        rank = np.array([r for _, _, r, _ in rec_rows], dtype=np.int64)
        columns["rank"] = rank.astype(np.float64) if float_rank else rank
    if order in ("score", "both"):
        columns["score"] = np.array([s for _, _, _, s in rec_rows], dtype=np.float64)
    recs = pd.DataFrame(columns)
    id_dtype = "str" if ids == "str" else np.int64  # also for empty frames
    for frame in (truth, recs):
        for col in ("user_id", "item_id"):
            frame[col] = frame[col].astype(id_dtype)
    return truth, recs


@st.composite
def cases(
    draw: st.DrawFn,
    *,
    ids: str | None = None,
    order: str | None = None,
    max_users: int = 5,
    max_list: int = 6,
    max_score: int = 3,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Random ``(truth, recs)``: users without recs, without relevant items, recs-only users,
    short lists, ranks with gaps, tied scores, int or str ids, rows in any order."""
    ids = draw(st.sampled_from(["int", "spread", "str"])) if ids is None else ids
    order = draw(st.sampled_from(["rank", "score", "both"])) if order is None else order
    n_items = draw(st.integers(1, 12))
    n_users = draw(st.integers(1, max_users))
    n_recs_only = draw(st.integers(0, 2))
    item = st.integers(0, n_items - 1)
    truth_rows, rec_rows = [], []
    for u in range(n_users + n_recs_only):
        if u < n_users:
            for i in draw(st.lists(item, min_size=1, max_size=6, unique=True)):
                truth_rows.append((u, i, draw(st.sampled_from(RATINGS))))
        items = draw(st.lists(item, max_size=max_list, unique=True))
        gaps = draw(st.booleans())
        ranks = (
            sorted(draw(st.lists(st.integers(1, 3 * max_list), min_size=len(items),
                                 max_size=len(items), unique=True)))
            if gaps else list(range(1, len(items) + 1))
        )
        scores = draw(st.lists(st.integers(0, max_score), min_size=len(items),
                               max_size=len(items)))
        rec_rows += [(u, i, r, float(s)) for i, r, s in zip(items, ranks, scores)]
    truth_rows = [truth_rows[j] for j in draw(st.permutations(range(len(truth_rows))))]
    rec_rows = [rec_rows[j] for j in draw(st.permutations(range(len(rec_rows))))]
    return make_frames(truth_rows, rec_rows, ids=ids, order=order,
                       float_rank=draw(st.booleans()))


def random_frames(
    rng: np.random.Generator,
    *,
    n_users: int = 40,
    n_items: int = 30,
    max_truth: int = 8,
    max_list: int = 7,
    ids: str = "int",
    order: str = "score",
    max_score: int = 4,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A larger seeded ``(truth, recs)`` with the same kinds of users as :func:`cases`."""
    truth_rows, rec_rows = [], []
    for u in range(n_users + 3):  # the last three users appear only in recs
        if u < n_users:
            t_items = rng.choice(n_items, size=rng.integers(1, max_truth + 1), replace=False)
            truth_rows += [(u, int(i), float(rng.choice(RATINGS))) for i in t_items]
        n = int(rng.integers(0, max_list + 1))
        items = rng.choice(n_items, size=n, replace=False)
        ranks = np.sort(rng.choice(np.arange(1, 3 * max_list + 1), size=n, replace=False))
        if rng.random() < 0.5:
            ranks = np.arange(1, n + 1)
        scores = rng.integers(0, max_score + 1, size=n).astype(float)
        rec_rows += [(u, int(i), int(r), float(s)) for i, r, s in zip(items, ranks, scores)]
    perm_t, perm_r = rng.permutation(len(truth_rows)), rng.permutation(len(rec_rows))
    return make_frames([truth_rows[j] for j in perm_t], [rec_rows[j] for j in perm_r],
                       ids=ids, order=order)
