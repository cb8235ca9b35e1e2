"""The textbook worked examples evalkit reproduces, as ready-made frames.

The "Metrics explained" notebook and the tests use them. Each function returns the frames of
one example, in evalkit's canonical columns, with the published values in its docstring.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = [
    "ap_denominator_case",
    "breese_example",
    "classification_example",
    "gain_example",
    "ranked_list_example",
    "rating_example",
    "ndcg_table_example",
    "recommendation_pair_example",
    "tied_list_example",
]


def _ranked(items: list, user: object = 1) -> pd.DataFrame:
    return pd.DataFrame(
        {"user_id": user, "item_id": items, "rank": np.arange(1, len(items) + 1, dtype=np.int64)}
    )


def _graded(gains: dict, user: object = 1) -> pd.DataFrame:
    return pd.DataFrame(
        {"user_id": user, "item_id": list(gains), "rating": [float(g) for g in gains.values()]}
    )


def rating_example() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Ten ratings of four users and their predictions: MAE 0.56, RMSE 0.872 (Sacharidis).

    Returns ``(truth, predictions)``.
    """
    users = [1, 1, 1, 2, 2, 3, 3, 3, 4, 4]
    items = [1, 2, 3, 1, 4, 5, 4, 2, 5, 6]
    ratings = [5, 4, 5, 3, 5, 4, 4, 3, 4, 5]
    predictions = [3.5, 5, 5, 5, 4.5, 4.1, 3.9, 3, 4.2, 4.8]
    truth = pd.DataFrame({"user_id": users, "item_id": items, "rating": np.array(ratings, float)})
    preds = pd.DataFrame({"user_id": users, "item_id": items, "prediction": predictions})
    return truth, preds


def classification_example() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Ten items of one user, rated and classified: TP 5, FP 1, FN 3, TN 1 at threshold 4.

    Ratings 5,4,5,3,5,4,4,3,4,5; predicted classes R,R,NR,R,NR,R,R,NR,R,NR, encoded as
    predictions 5.0 (R) and 1.0 (NR). Returns ``(truth, predictions)``.
    """
    ratings = [5, 4, 5, 3, 5, 4, 4, 3, 4, 5]
    predicted = "R R NR R NR R R NR R NR".split()
    items = list(range(1, 11))
    truth = pd.DataFrame({"user_id": 1, "item_id": items, "rating": np.array(ratings, float)})
    preds = pd.DataFrame({"user_id": 1, "item_id": items,
                          "prediction": [5.0 if c == "R" else 1.0 for c in predicted]})
    return truth, preds


def ranked_list_example() -> tuple[pd.DataFrame, pd.DataFrame]:
    """The list R,NR,R,R,NR,R,NR,NR,NR,R with five relevant items: AP 0.717.

    Returns ``(truth, recs)``; items are numbered by rank.
    """
    classes = "R NR R R NR R NR NR NR R".split()
    truth = _graded({i + 1: 5 for i, c in enumerate(classes) if c == "R"})
    return truth, _ranked(list(range(1, 11)))


def ndcg_table_example() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Gains 5,0,4,5,0,4,0,0,0,3 down a list of ten: NDCG@10 = 0.878, ideal list 5,5,4,4,3.

    Returns ``(truth, recs)``.
    """
    gains = [5, 0, 4, 5, 0, 4, 0, 0, 0, 3]
    return _graded({i + 1: g for i, g in enumerate(gains) if g}), _ranked(list(range(1, 11)))


def breese_example() -> tuple[pd.DataFrame, pd.DataFrame]:
    """A, B, C, D rated 4, 3, 0, 5: with Breese's base-2 discount DCG 9.5, NDCG 0.872
    (Ekstrand). Returns ``(truth, recs)``."""
    return _graded({"A": 4, "B": 3, "D": 5}), _ranked(list("ABCD"))


def gain_example() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Gains 2, 0, 3, 2: DCG 4.4, ideal 5.3, NDCG 0.83. Returns ``(truth, recs)``."""
    return _graded({"A": 2, "C": 3, "D": 2}), _ranked(list("ABCD"))


def recommendation_pair_example() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Two algorithms' lists for a shopper (Aggarwal-style blog example).

    The shopper bought a watch and shorts (binary truth) and, in the graded variant, 1 watch,
    5 shorts and 3 sneakers. Algorithm A lists sneakers, shorts, watch; B lists watch, shorts,
    sneakers. Binary: AP 0.58 / 1, RR 0.5 / 1, NDCG 0.693 / 1; graded NDCG 0.900 / 0.765.

    Returns ``(binary_truth, graded_truth, recs)`` with ``recs`` holding users "A" and "B"
    for the two algorithms (truth is repeated for both).
    """
    recs = pd.concat([_ranked(["sneakers", "shorts", "watch"], "A"),
                      _ranked(["watch", "shorts", "sneakers"], "B")], ignore_index=True)
    binary = pd.concat([_graded({"watch": 5, "shorts": 5}, u) for u in "AB"], ignore_index=True)
    graded = pd.concat([_graded({"watch": 1, "shorts": 5, "sneakers": 3}, u) for u in "AB"],
                       ignore_index=True)
    return binary, graded, recs


def ap_denominator_case() -> tuple[pd.DataFrame, pd.DataFrame]:
    """A user with 6 relevant items, 2 of them in a top-5 list at ranks 1 and 3, where the
    three AP denominators disagree: ``min(k, |R|) = 5``, ``|R| = 6``, ``hits = 2``."""
    truth = _graded({i: 5 for i in ["a", "c", "x1", "x2", "x3", "x4"]})
    return truth, _ranked(list("abcde"))


def tied_list_example() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Five items scored 0.9, 0.5, 0.5, 0.5, 0.1 where one of the three tied items is
    relevant: at k = 2 the tie group straddles the cutoff, so the tie policy decides."""
    recs = pd.DataFrame({"user_id": 1, "item_id": ["a", "b", "c", "d", "e"],
                         "score": [0.9, 0.5, 0.5, 0.5, 0.1]})
    return _graded({"a": 5, "d": 5}), recs
