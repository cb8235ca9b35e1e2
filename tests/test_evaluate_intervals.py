"""evaluate's bootstrap: one Poisson design for every column, and n_resamples=0 for none."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalkit import evaluate
from evalkit.stats import bootstrap_ci_frame


def case(seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    gen = np.random.default_rng(seed)
    users = np.repeat(np.arange(60), 8)
    truth = pd.DataFrame({"user_id": users, "item_id": np.tile(np.arange(8), 60),
                          "rating": gen.integers(1, 11, users.size) / 2})
    recs = truth.assign(score=gen.random(users.size))[["user_id", "item_id", "score"]]
    return truth, recs


def test_evaluate_intervals_are_bootstrap_ci_frame_of_the_per_user_table() -> None:
    truth, recs = case()
    result = evaluate(truth, recs, k=[3, 5], metrics=["recall", "ndcg"], rng=4)
    expected = bootstrap_ci_frame(result.per_user, rng=4)  # NaN recall users included
    assert result.per_user["recall@3"].isna().any()
    pd.testing.assert_series_equal(result.summary["ci_low"], expected["ci_low"],
                                   check_names=False)
    pd.testing.assert_series_equal(result.summary["ci_high"], expected["ci_high"],
                                   check_names=False)


def test_evaluate_without_intervals() -> None:
    truth, recs = case(1)
    full = evaluate(truth, recs, k=[3, 5], metrics=["precision", "map"])
    bare = evaluate(truth, recs, k=[3, 5], metrics=["precision", "map"], n_resamples=0)
    pd.testing.assert_series_equal(bare.summary["mean"], full.summary["mean"])
    pd.testing.assert_series_equal(bare.summary["n_users"], full.summary["n_users"])
    assert bare.summary[["ci_low", "ci_high"]].isna().all().all()
    assert bare.bootstrap["n_resamples"] == 0
    assert "no intervals" in bare._repr_html_()
    with pytest.raises(ValueError, match="evaluate: 'n_resamples' must be a positive integer, "
                                         "or 0 for no intervals; got -5"):
        evaluate(truth, recs, n_resamples=-5)
