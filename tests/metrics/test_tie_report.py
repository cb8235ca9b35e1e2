"""The tie report: each policy's row is the mean of a full evaluation under that policy,
although only the users with tied scores in the top k are evaluated again."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from evalkit import Definitions
from evalkit.metrics import rank
from evalkit.metrics.tables import tie_report
from tests.metrics.naive import random_frames

METRICS = ["precision", "recall", "f1", "hit_rate", "map", "mrr", "ndcg"]


def full_pass(truth, recs, *, k: int, policy: str, threshold, metrics=METRICS) -> pd.Series:
    """The row of one policy, from an evaluation of every user under it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = rank(truth, recs, k=k, metrics=metrics, definitions=Definitions(
            threshold=threshold, ties=policy, empty="drop"))
    return result.values.apply(lambda c: np.nanmean(c) if c.notna().any() else np.nan)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_every_policy_is_the_full_evaluation_under_it(seed: int, k: int) -> None:
    rng = np.random.default_rng(seed)
    truth, recs = random_frames(rng, n_users=60, max_score=3 + seed)  # few scores: many ties
    recs = recs.drop(columns="rank", errors="ignore")
    threshold = [4.0, None][seed % 2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = tie_report(truth, recs, k=k, metrics=METRICS, threshold=threshold)
    rows = {}
    for policy in got.index:
        want = full_pass(truth, recs, k=k, policy=policy, threshold=threshold)
        assert got.loc[policy, want.index].to_numpy() == pytest.approx(
            want.to_numpy(), rel=1e-12, abs=1e-15, nan_ok=True), policy
        rows[policy] = want
    assert not rows["optimistic"].equals(rows["pessimistic"]) or k == 1  # ties that matter


def test_ties_below_the_cutoff_change_nothing_and_ranked_lists_have_no_ties() -> None:
    """A tie group entirely below k moves nothing in the top k; with ranks every policy
    gives the same row."""
    truth = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [10, 12, 10],
                          "rating": [5.0, 5.0, 5.0]})
    recs = pd.DataFrame({"user_id": [1, 1, 1, 1, 2, 2], "item_id": [10, 11, 12, 13, 11, 10],
                         "score": [0.9, 0.8, 0.5, 0.5, 0.7, 0.7]})
    # user 1's tie (positions 3 and 4) is below k = 2; user 2's (1 and 2) is in it
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = tie_report(truth, recs, k=2, metrics=["precision", "ndcg"])
        ranked = tie_report(truth, recs.assign(rank=[1, 2, 3, 4, 1, 2]), k=2,
                            metrics=["precision", "ndcg"])
    for policy in got.index:
        want = full_pass(truth, recs, k=2, policy=policy, threshold=4.0,
                         metrics=["precision", "ndcg"])
        assert got.loc[policy, want.index].tolist() == pytest.approx(want.tolist(), rel=1e-12)
    assert got.loc["optimistic", "ndcg@2"] > got.loc["pessimistic", "ndcg@2"]
    assert (ranked.drop(columns="tied_users") == ranked.iloc[0].drop("tied_users")).all(
        axis=None)
    assert ranked["tied_users"].eq(0).all()
