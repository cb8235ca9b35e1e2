"""evalkit.explore on the real ml-latest-small, and the worked examples module."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evalkit as ek
from evalkit import examples
from evalkit.explore import rating_distribution, summarize, user_activity


def test_summarize_real_movielens(ml_latest_small_dir) -> None:
    ratings = pd.read_csv(ml_latest_small_dir / "ratings.csv").rename(
        columns={"userId": "user_id", "movieId": "item_id"})
    s = summarize(ratings)
    assert (s["interactions"], s["users"], s["items"]) == (100_836, 610, 9_724)
    assert s["density"] == pytest.approx(100_836 / (610 * 9_724), abs=1e-5)
    assert s["mean_rating"] == pytest.approx(3.5016, abs=1e-4)
    assert s["per_user_min"] == 20
    counts = np.sort(ratings["item_id"].value_counts().to_numpy())[::-1]
    assert s["top10pct_items_share"] == pytest.approx(counts[:973].sum() / 100_836, abs=1e-4)
    assert s["first_date"] == "1996-03-29"


def test_distribution_and_activity_on_a_hand_example() -> None:
    frame = pd.DataFrame({"user_id": [3, 1, 3, 3], "item_id": [1, 1, 2, 3],
                          "rating": [4.0, 2.5, 4.0, 5.0]})
    before = frame.copy()
    dist = rating_distribution(frame)
    assert dist["rating"].tolist() == [2.5, 4.0, 5.0]
    assert dist["count"].tolist() == [1, 2, 1]
    assert user_activity(frame).to_dict() == {1: 1, 3: 3}
    pd.testing.assert_frame_equal(frame, before)
    with pytest.raises(ValueError, match="summarize: 'ratings' is missing column"):
        summarize(frame.drop(columns="item_id"))


def test_examples_reproduce_the_published_numbers() -> None:
    truth, predictions = examples.rating_example()
    assert ek.metrics.mae(truth, predictions) == pytest.approx(0.56)
    assert round(ek.metrics.rmse(truth, predictions), 3) == 0.872
    truth, predictions = examples.classification_example()
    assert ek.metrics.confusion(truth, predictions).tolist() == [5, 1, 3, 1]
    truth, recs = examples.ranked_list_example()
    assert round(ek.metrics.average_precision_at_k(truth, recs, k=10).iloc[0], 3) == 0.717
    truth, recs = examples.ndcg_table_example()
    assert round(ek.metrics.ndcg_at_k(truth, recs, k=10).iloc[0], 3) == 0.878
    truth, recs = examples.breese_example()
    assert round(ek.metrics.ndcg_at_k(truth, recs, k=4, discount="breese").iloc[0], 3) == 0.872
    truth, recs = examples.gain_example()
    assert round(ek.metrics.ndcg_at_k(truth, recs, k=4).iloc[0], 2) == 0.83
    binary, graded, recs = examples.recommendation_pair_example()
    ndcg = ek.metrics.ndcg_at_k(graded, recs, k=3, threshold=None).round(3)
    assert ndcg.to_dict() == {"A": 0.900, "B": 0.765}
    truth, recs = examples.ap_denominator_case()
    ap = {rule: ek.metrics.average_precision_at_k(truth, recs, k=5, ap_denominator=rule).iloc[0]
          for rule in ("min", "relevant", "hits")}
    assert ap == pytest.approx({"min": (1 + 2 / 3) / 5, "relevant": (1 + 2 / 3) / 6,
                                "hits": (1 + 2 / 3) / 2})
