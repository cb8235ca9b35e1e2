"""Gains outside their domain: negative ratings under a rating-valued gain, and ratings whose
exponential gain overflows, are refused where a DCG is computed, never turned into NDCG > 1
or NaN."""

from __future__ import annotations

import pandas as pd
import pytest

import evalkit as ek

RECS = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [1, 2, 3], "rank": [1, 2, 1]})


def truth(ratings: list[float]) -> pd.DataFrame:
    return pd.DataFrame({"user_id": [1, 1, 2], "item_id": [1, 2, 3], "rating": ratings})


NEGATIVE = truth([-3.5, 5.0, 2.0])
HUGE = truth([1024.0, 5.0, 2.0])


@pytest.mark.parametrize("call", [
    lambda t, g: ek.metrics.ndcg_at_k(t, RECS, k=2, gain=g, threshold=None),
    lambda t, g: ek.metrics.dcg_at_k(t, RECS, k=2, gain=g, threshold=None),
    lambda t, g: ek.evaluate(t, RECS, k=2, gain=g, threshold=None),
    lambda t, g: ek.evaluate(t, RECS, k=2, metrics=["precision"], curves=2, gain=g),
    lambda t, g: ek.metrics.ranking_curves(t, RECS, k_max=2, gain=g),
])
@pytest.mark.parametrize("gain", ["linear", "exponential"])
def test_negative_ratings_are_refused_under_rating_gains(call, gain) -> None:
    with pytest.raises(ValueError, match=rf"gain='{gain}' needs non-negative test ratings .* 1 "
                                         r"are negative \(lowest -3.5\)"):
        call(NEGATIVE, gain)


@pytest.mark.parametrize("call", [
    lambda t: ek.metrics.ndcg_at_k(t, RECS, k=2, gain="exponential"),
    lambda t: ek.evaluate(t, RECS, k=2, gain="exponential"),
])
def test_exponential_gain_refuses_ratings_that_overflow(call) -> None:
    with pytest.raises(ValueError, match=r"overflows for ratings above 1023; the highest test "
                                         r"rating is 1024"):
        call(HUGE)
    ok = truth([1023.0, 5.0, 2.0])
    assert call(ok) is not None


def test_gains_that_do_not_use_the_rating_value_still_work() -> None:
    got = ek.metrics.ndcg_at_k(NEGATIVE, RECS, k=2, gain="binary", threshold=0.0)
    assert got.between(0, 1).all()
    precision = ek.evaluate(NEGATIVE, RECS, k=2, metrics=["precision", "recall"], threshold=0.0,
                            n_resamples=10)
    assert precision.mean("precision", 2) == pytest.approx((1 / 2 + 1 / 2) / 2)
