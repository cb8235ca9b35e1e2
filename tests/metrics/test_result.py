"""Every per-user metric returns a MetricSeries: its counts of users left out are attributes
of the result (not pandas ``attrs``), right for that result, and absent from anything derived
from it."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

from evalkit import metrics as m
from evalkit.metrics import MetricSeries

# users 1-3 are tested; user 3 has no relevant item (rating 2); user 9 is only recommended
TRUTH = pd.DataFrame({"user_id": [1, 1, 2, 2, 3], "item_id": [10, 11, 10, 12, 13],
                      "rating": [5.0, 4.0, 4.5, 1.0, 2.0]})
RECS = pd.DataFrame({"user_id": [1, 1, 1, 2, 2, 3, 3, 9, 9],
                     "item_id": [10, 12, 13, 11, 12, 10, 13, 10, 11],
                     "rank": [1, 2, 3, 1, 2, 1, 2, 1, 2]})
PREDICTIONS = pd.DataFrame({"user_id": [1, 1, 2, 2, 3, 9], "item_id": [10, 11, 10, 12, 13, 10],
                            "prediction": [4.0, 4.5, 3.0, 2.0, 1.0, 5.0]})
ITEMS = pd.DataFrame({"item_id": [10, 11, 12, 13],
                      "genres": [["Drama"], ["Drama", "Comedy"], ["Comedy"], []]})

RANKING = ["precision_at_k", "recall_at_k", "f1_at_k", "hit_rate_at_k", "r_precision_at_k",
           "average_precision_at_k", "reciprocal_rank_at_k", "dcg_at_k", "ndcg_at_k",
           "half_life_utility"]

DEFINED = ["precision_at_k", "hit_rate_at_k", "dcg_at_k", "ndcg_at_k"]

#: name -> (call, the dropped counts it must report, users it must score)
CASES = {
    **{name: (lambda f=name: getattr(m, f)(TRUTH, RECS, k=2, empty="drop"),
              {"recs_only": 1, "undefined": 1}, [1, 2]) for name in RANKING
       if name not in DEFINED},
    # defined for user 3 too (NDCG's default gain grades every rating, so its ideal DCG > 0)
    **{name: (lambda f=name: getattr(m, f)(TRUTH, RECS, k=2, empty="drop"),
              {"recs_only": 1}, [1, 2, 3]) for name in DEFINED},
    "r_precision": (lambda: m.r_precision(TRUTH, RECS, empty="drop"),
                    {"recs_only": 1, "undefined": 1}, [1, 2]),
    "mae_per_user": (lambda: m.mae_per_user(TRUTH, PREDICTIONS), {"recs_only": 1}, [1, 2, 3]),
    "rmse_per_user": (lambda: m.rmse_per_user(TRUTH, PREDICTIONS), {"recs_only": 1},
                      [1, 2, 3]),
    # user 3 has one test rating: no pair to correlate
    "spearman": (lambda: m.spearman(TRUTH, PREDICTIONS), {"recs_only": 1, "undefined": 1},
                 [1, 2]),
    "kendall": (lambda: m.kendall(TRUTH, PREDICTIONS), {"recs_only": 1, "undefined": 1},
                [1, 2]),
    "fcp": (lambda: m.fcp(TRUTH, PREDICTIONS), {"recs_only": 1, "undefined": 1}, [1, 2]),
    "serendipity": (lambda: m.serendipity(TRUTH, RECS, TRUTH, k=2), {"recs_only": 1},
                    [1, 2, 3]),
    # the beyond-accuracy metrics of lists alone score every user with a list
    "novelty": (lambda: m.novelty(RECS, TRUTH, k=2), {}, [1, 2, 3, 9]),
    "average_recommended_popularity": (
        lambda: m.average_recommended_popularity(RECS, TRUTH, k=2), {}, [1, 2, 3, 9]),
    "mean_pop_rank": (lambda: m.mean_pop_rank(RECS, TRUTH, k=2), {}, [1, 2, 3, 9]),
    "intra_list_diversity": (lambda: m.intra_list_diversity(RECS, ITEMS, k=2), {},
                             [1, 2, 3, 9]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_result_carries_its_own_counts(name: str) -> None:
    call, dropped, users = CASES[name]
    got = call()
    assert isinstance(got, MetricSeries) and isinstance(got, pd.Series)
    assert got.dropped == dropped
    assert got.index.tolist() == users and got.index.name == "user_id"
    assert got.n_users == int(got.notna().sum()) == len(users)
    assert got.attrs == {}  # nothing in pandas' attrs, which operations carry along


@pytest.mark.parametrize("name", sorted(CASES))
def test_what_is_derived_from_a_result_is_a_plain_series(name: str) -> None:
    got = CASES[name][0]()
    for derived in (got * 2, got[got.index > 1], got.copy(), got.sort_values(),
                    pd.concat([got, got]), got.to_frame()[got.name], pd.Series(got)):
        assert type(derived) is pd.Series, type(derived)
        assert not hasattr(derived, "dropped") and derived.attrs == {}
    assert isinstance(got.mean(), float)
    assert type(got.to_frame()) is pd.DataFrame


def test_ranking_results_record_k_options_ties_and_users_without_lists() -> None:
    from evalkit import Definitions
    from evalkit.metrics import TieWarning

    recs = RECS.loc[RECS["user_id"] != 2]  # user 2 gets no list
    got = m.ndcg_at_k(TRUTH, recs, k=3, gain="exponential")  # not the default gain
    assert got.k == 3 and got.definitions == Definitions(gain="exponential")
    assert got.tied_users == 0 and got.users_without_recs == 1
    tied = pd.DataFrame({"user_id": 1, "item_id": [10, 12, 13], "score": 1.0})
    with pytest.warns(TieWarning):  # user 1's three equal scores straddle k = 2
        assert m.precision_at_k(TRUTH, tied, k=2).tied_users == 1
    rp = m.r_precision(TRUTH, RECS, empty="nan")
    assert rp.k is None and rp.definitions == Definitions(empty="nan")
    assert rp.tied_users is None and rp.users_without_recs is None
    assert m.mae_per_user(TRUTH, PREDICTIONS).definitions is None


def test_a_result_survives_pickling_with_its_counts() -> None:
    got = m.recall_at_k(TRUTH, RECS, k=2, empty="drop")
    back = pickle.loads(pickle.dumps(got))
    assert isinstance(back, MetricSeries)
    pd.testing.assert_series_equal(back, got)
    assert (back.dropped, back.n_users, back.k, back.definitions) == (
        got.dropped, got.n_users, got.k, got.definitions)


def test_the_printed_result_says_how_many_users_were_counted_and_left_out() -> None:
    result = m.recall_at_k(TRUTH, RECS, k=2, empty="drop")
    assert repr(result) == (f"{pd.Series(result)!r}\nUsers counted: {result.n_users}; left "
                            "out: 2 (recs_only 1, undefined 1)")
    kept = m.recall_at_k(TRUTH, RECS.loc[RECS["user_id"] != 9], k=2, empty="zero")
    assert kept.dropped == {} and kept.n_users == len(kept)
    assert repr(kept) == f"{pd.Series(kept)!r}\nUsers counted: {len(kept)}; none left out"


def test_a_drop_under_missing_predictions_is_counted_as_no_prediction() -> None:
    partial = PREDICTIONS.loc[PREDICTIONS["user_id"] != 2]
    with pytest.warns(UserWarning, match="dropped 2 of 5 test rating"):
        got = m.mae_per_user(TRUTH, partial, missing="drop")
    assert got.dropped == {"no_prediction": 1, "recs_only": 1}
    assert got.index.tolist() == [1, 3] and got.n_users == 2


def test_confusion_at_k_counts_its_users_and_the_lists_it_ignored() -> None:
    got = m.confusion_at_k(TRUTH, RECS, k=2)
    assert isinstance(got, MetricSeries) and got.dtype == np.int64
    assert got.dropped == {"recs_only": 1} and got.n_users == 3 and got.k == 2
    assert got.index.tolist() == ["TP", "FP", "FN", "TN"]
