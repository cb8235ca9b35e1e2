"""beyond_intervals: the per-user beyond-accuracy means of beyond_accuracy, with intervals that
resample users."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalkit.metrics import novelty
from evalkit.metrics.tables import PER_USER_BEYOND, beyond_accuracy, beyond_intervals


def _case(seed: int = 0):
    gen = np.random.default_rng(seed)
    train = pd.DataFrame({"user_id": gen.integers(0, 300, 6000),
                          "item_id": (gen.pareto(1.2, 6000) * 5).astype(int) % 200,
                          "rating": 4.0}).drop_duplicates(["user_id", "item_id"])
    test = pd.DataFrame({"user_id": np.repeat(np.arange(300), 3),
                         "item_id": gen.integers(0, 200, 900), "rating": 5.0}
                        ).drop_duplicates(["user_id", "item_id"])
    recs = pd.DataFrame({"user_id": np.repeat(np.arange(300), 10),
                         "item_id": np.concatenate([gen.choice(200, 10, replace=False)
                                                    for _ in range(300)]),
                         "rank": np.tile(np.arange(1, 11), 300)})
    items = pd.DataFrame({"item_id": np.arange(200),
                          "genres": [["a", "b", "c"][i % 3:i % 3 + 2] for i in range(200)]})
    return train, test, recs, items


def test_means_are_beyond_accuracys_and_intervals_cover_them() -> None:
    train, test, recs, items = _case()
    table = beyond_intervals(test, recs, train=train, items=items, k=10, rng=1)
    whole = beyond_accuracy(test, recs, train=train, items=items, k=10)
    assert list(table.index) == list(PER_USER_BEYOND)
    np.testing.assert_allclose(table["mean"], whole[list(PER_USER_BEYOND)], rtol=1e-12)
    assert ((table["ci_low"] <= table["mean"]) & (table["mean"] <= table["ci_high"])).all()
    assert (table["n"] == 300).all()
    without = beyond_intervals(test, recs, train=train, k=10)
    assert "intra_list_diversity" not in without.index


def test_novelty_interval_is_a_user_bootstrap() -> None:
    train, test, recs, _ = _case(2)
    table = beyond_intervals(test, recs, train=train, k=10, n_resamples=4000, rng=5)
    values = novelty(recs, train, k=10).to_numpy()
    draws = np.random.default_rng(0).integers(0, len(values), size=(4000, len(values)))
    low, high = np.quantile(values[draws].mean(1), [0.025, 0.975])
    width = high - low
    assert table.loc["novelty", "ci_low"] == pytest.approx(low, abs=0.1 * width)
    assert table.loc["novelty", "ci_high"] == pytest.approx(high, abs=0.1 * width)
