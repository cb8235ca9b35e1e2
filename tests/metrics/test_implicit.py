"""Implicit data: test truth without ratings, every test item relevant (``threshold=None``)."""

from __future__ import annotations

import pandas as pd
import pytest

import evalkit as ek

TRUTH = pd.DataFrame({"user_id": [1, 1, 2, 3], "item_id": [10, 11, 10, 12]})
RECS = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [11, 12, 13, 10], "rank": [1, 2, 1, 2]})


def test_truth_without_ratings_counts_every_test_item_as_relevant_with_unit_gain() -> None:
    got = ek.evaluate(TRUTH, RECS, k=2, metrics=["precision", "recall", "ndcg"], threshold=None,
                      n_resamples=10)
    explicit = TRUTH.assign(rating=1.0)
    want = ek.evaluate(explicit, RECS, k=2, metrics=["precision", "recall", "ndcg"],
                       threshold=None, gain="binary", n_resamples=10)
    pd.testing.assert_frame_equal(got.per_user, want.per_user)
    assert got.mean("precision", 2) == pytest.approx((1 / 2 + 1 / 2 + 0) / 3)
    assert got.mean("recall", 2) == pytest.approx((1 / 2 + 1 + 0) / 3)
    assert list(TRUTH.columns) == ["user_id", "item_id"]  # the input is unchanged


@pytest.mark.parametrize("call", [
    lambda: ek.evaluate(TRUTH, RECS, k=2),
    lambda: ek.metrics.ndcg_at_k(TRUTH, RECS, k=2, threshold=3.0),
    lambda: ek.metrics.confusion_at_k(TRUTH, RECS, k=2),
    lambda: ek.metrics.serendipity(TRUTH, RECS, TRUTH, k=2),
])
def test_truth_without_ratings_and_a_threshold_says_how_to_evaluate_implicit_data(call) -> None:
    with pytest.raises(ValueError, match=r"'truth' is missing column rating, so relevance at "
                                         r"threshold=[\d.]+ cannot be decided; for implicit "
                                         r"data .* pass threshold=None"):
        call()


def test_metrics_that_need_ratings_still_name_the_column() -> None:
    predictions = TRUTH.assign(prediction=3.0)
    with pytest.raises(ValueError, match=r"mae: 'truth' is missing column\(s\) rating"):
        ek.metrics.mae(TRUTH, predictions)


def test_user_coverage_needs_no_ratings() -> None:
    assert ek.metrics.user_coverage(TRUTH, RECS, k=2) == pytest.approx(2 / 3)
