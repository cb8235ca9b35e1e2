"""Worked examples from teaching material on recommender evaluation, one test each, compared
at the precision the source prints. Each example is restated here in full (the list, the
relevant items, the hand-computed values), so that the test stands on its own:

- Sacharidis, *Evaluation: System Accuracy* (Recommender Systems lecture notes): precision,
  recall, AP and NDCG down one ranked list of ten;
- *Rank-Aware Evaluation Metrics: MRR, MAP, NDCG* (lecture slides): AP and reciprocal rank;
- a video lecture on rank-aware top-N metrics: reciprocal rank and Breese's discount;
- *Quality Evaluation* (course notes): DCG and NDCG of four items;
- a tutorial comparing two shops' lists of three items: AP, RR and NDCG, binary and graded,
  and DCG with base-10 logarithms."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalkit.metrics import (
    average_precision_at_k,
    dcg_at_k,
    ndcg_at_k,
    precision_at_k,
    ranking_curves,
    recall_at_k,
    reciprocal_rank_at_k,
)


def ranked(items: list, user: object = 1) -> pd.DataFrame:
    return pd.DataFrame({"user_id": user, "item_id": items, "rank": np.arange(1, len(items) + 1)})


def graded(gains: dict, user: object = 1) -> pd.DataFrame:
    return pd.DataFrame(
        {"user_id": user, "item_id": list(gains), "rating": [float(g) for g in gains.values()]}
    )


# Sacharidis: ranked list R,NR,R,R,NR,R,NR,NR,NR,R with 5 relevant items.
LECTURE_CLASSES = "R NR R R NR R NR NR NR R".split()
LECTURE_TRUTH = graded({i + 1: 5 for i, c in enumerate(LECTURE_CLASSES) if c == "R"})
LECTURE_RECS = ranked(list(range(1, 11)))
LECTURE_P = [1, 0.5, 0.667, 0.75, 0.6, 0.667, 0.571, 0.5, 0.444, 0.5]
LECTURE_R = [0.2, 0.2, 0.4, 0.6, 0.6, 0.8, 0.8, 0.8, 0.8, 1]


@pytest.mark.parametrize("k", range(1, 11))
def test_lecture_notes_precision_recall_table(k: int) -> None:
    p = precision_at_k(LECTURE_TRUTH, LECTURE_RECS, k=k).iloc[0]
    r = recall_at_k(LECTURE_TRUTH, LECTURE_RECS, k=k).iloc[0]
    assert round(p, 3) == pytest.approx(LECTURE_P[k - 1])
    assert round(r, 3) == pytest.approx(LECTURE_R[k - 1])


def test_lecture_notes_precision_recall_curve_is_the_table() -> None:
    curve = ranking_curves(LECTURE_TRUTH, LECTURE_RECS, k_max=10)
    assert curve["precision"].round(3).tolist() == pytest.approx(LECTURE_P)
    assert curve["recall"].round(3).tolist() == pytest.approx(LECTURE_R)


def test_lecture_notes_average_precision() -> None:
    # AP = (1 + 0.667 + 0.75 + 0.667 + 0.5) / 5 = 0.717; with 5 relevant items and k = 10 all
    # three denominators agree.
    for rule in ("min", "relevant", "hits"):
        ap = average_precision_at_k(LECTURE_TRUTH, LECTURE_RECS, k=10, ap_denominator=rule)
        assert round(ap.iloc[0], 3) == 0.717


LECTURE_NDCG = [1, 0.613, 0.689, 0.771, 0.702, 0.811, 0.811, 0.811, 0.811, 0.878]


@pytest.mark.parametrize("k", range(1, 11))
def test_lecture_notes_ndcg_table(k: int) -> None:
    # Gains 5,0,4,5,0,4,0,0,0,3 down the list; the user's test items are the five rated ones,
    # so the ideal list is 5,5,4,4,3.
    gains = [5, 0, 4, 5, 0, 4, 0, 0, 0, 3]
    truth = graded({i + 1: g for i, g in enumerate(gains) if g})
    recs = ranked(list(range(1, 11)))
    value = ndcg_at_k(truth, recs, k=k, gain="linear").iloc[0]
    assert round(value, 3) == pytest.approx(LECTURE_NDCG[k - 1])


def test_slides_average_precision_of_abcde() -> None:
    # A,B,C,D,E with A, C, D relevant: (1/1 + 2/3 + 3/4) / 3 = 0.8 at the slides' precision.
    ap = average_precision_at_k(graded(dict(A=5, C=5, D=5)), ranked(list("ABCDE")), k=5)
    assert round(ap.iloc[0], 1) == 0.8


@pytest.mark.parametrize(("first", "expected"), [(2, 1 / 2), (3, 1 / 3), (4, 1 / 4)])
def test_slides_and_video_reciprocal_rank(first: int, expected: float) -> None:
    truth = graded({first: 5})
    rr = reciprocal_rank_at_k(truth, ranked([1, 2, 3, 4, 5]), k=5)
    assert rr.iloc[0] == pytest.approx(expected)


def test_video_lecture_breese_discount() -> None:
    # A,B,C,D rated 4,3,0,5; base-2 Breese discount leaves ranks 1 and 2 undiscounted:
    # DCG = 4 + 3 + 0 + 5/2 = 9.5, ideal = 5 + 4 + 3/log2(3) = 10.9, NDCG = 0.872.
    truth = graded(dict(A=4, B=3, D=5))
    recs = ranked(list("ABCD"))
    dcg = dcg_at_k(truth, recs, k=4, discount="breese", log_base=2).iloc[0]
    ndcg = ndcg_at_k(truth, recs, k=4, discount="breese", log_base=2).iloc[0]
    assert dcg == pytest.approx(9.5)
    assert round(dcg / ndcg, 1) == 10.9
    assert round(ndcg, 3) == 0.872


def test_course_notes_dcg_ndcg() -> None:
    # Gains 2,0,3,2: DCG = 2 + 0 + 1.5 + 0.86 = 4.4, ideal 3,2,2,0 gives 5.3, NDCG 0.83.
    truth = graded(dict(A=2, C=3, D=2))
    recs = ranked(list("ABCD"))
    dcg = dcg_at_k(truth, recs, k=4).iloc[0]
    ndcg = ndcg_at_k(truth, recs, k=4).iloc[0]
    assert round(dcg, 1) == 4.4
    assert round(dcg / ndcg, 1) == 5.3
    assert round(ndcg, 2) == 0.83


# The tutorial: a user bought an Apple watch and Adidas shorts. Algorithm A lists
# [Nike sneakers, Adidas shorts, Apple watch]; B lists [Apple watch, Adidas shorts, Nike sneakers].
A_LIST = ["sneakers", "shorts", "watch"]
B_LIST = ["watch", "shorts", "sneakers"]
BINARY = graded(dict(watch=5, shorts=5))
GRADED = graded(dict(watch=1, shorts=5, sneakers=3))


@pytest.mark.parametrize(
    ("items", "ap", "rr", "ndcg"), [(A_LIST, 0.58, 0.5, 0.693), (B_LIST, 1.0, 1.0, 1.0)]
)
def test_tutorial_binary(items: list, ap: float, rr: float, ndcg: float) -> None:
    recs = ranked(items)
    got_ap = average_precision_at_k(BINARY, recs, k=3).iloc[0]
    assert round(got_ap, 2) == ap
    assert reciprocal_rank_at_k(BINARY, recs, k=3).iloc[0] == rr
    assert round(ndcg_at_k(BINARY, recs, k=3, gain="binary").iloc[0], 3) == ndcg


@pytest.mark.parametrize(("items", "ndcg"), [(A_LIST, 0.900), (B_LIST, 0.765)])
def test_tutorial_graded_ndcg(items: list, ndcg: float) -> None:
    value = ndcg_at_k(GRADED, ranked(items), k=3, threshold=None).iloc[0]
    assert round(value, 3) == ndcg


def truncate(x: float, digits: int) -> float:
    return np.floor(x * 10**digits) / 10**digits


def test_tutorial_log10_dcg_values() -> None:
    # The tutorial prints DCG with log base 10, truncating some digits: 3.756, 5.417 (binary),
    # 22.10, 18.78 and the ideal 24.56 (graded).
    a_bin = dcg_at_k(BINARY, ranked(A_LIST), k=3, gain="binary", log_base=10).iloc[0]
    ideal_bin = dcg_at_k(BINARY, ranked(B_LIST), k=3, gain="binary", log_base=10).iloc[0]
    a = dcg_at_k(GRADED, ranked(A_LIST), k=3, log_base=10).iloc[0]
    b = dcg_at_k(GRADED, ranked(B_LIST), k=3, log_base=10).iloc[0]
    ideal = dcg_at_k(GRADED, ranked(["shorts", "sneakers", "watch"]), k=3, log_base=10).iloc[0]
    assert truncate(a_bin, 3) == pytest.approx(3.756)
    assert truncate(ideal_bin, 3) == pytest.approx(5.417)
    assert truncate(a, 2) == pytest.approx(22.10)  # 22.107, truncated by the tutorial
    assert round(b, 2) == pytest.approx(18.78)
    assert round(ideal, 2) == pytest.approx(24.56)
