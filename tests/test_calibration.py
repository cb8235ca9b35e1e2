"""Calibration of the decisions on simulated data with a known truth: the level of compare's
three paired tests and the coverage of its difference interval under no difference, and the
regression gate's false alarms under no change and its power against a planted regression.

Each check runs twice: a small version in ``make test`` (its tolerance four binomial standard
errors, so that it catches a test that is off by a factor, not by a few points), and a large
one in ``make calibration`` (``-m calibration``, run by ``.ci/run`` after the tests), whose
tolerance is tight enough to hold the nominal levels to about two points.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import evalkit as ek

N_USERS, N_ITEMS, RELEVANT, LIST = 80, 20, 5, 10


def _truth(rng: np.random.Generator) -> pd.DataFrame:
    items = np.argsort(rng.random((N_USERS, N_ITEMS)), axis=1)[:, :RELEVANT]
    return pd.DataFrame({"user_id": np.repeat(np.arange(N_USERS), RELEVANT),
                         "item_id": items.ravel(), "rating": 5.0})


def _lists(rng: np.random.Generator, truth: pd.DataFrame | None = None,
           boost: float = 0.0) -> pd.DataFrame:
    """Each user's top 10 of the 20 items in random order; with ``boost``, a user's relevant
    items are moved up (a better system) for a share ``boost`` of the users."""
    keys = rng.random((N_USERS, N_ITEMS))
    if truth is not None and boost:
        better = rng.random(N_USERS) < boost
        rows = truth["user_id"].to_numpy()
        hit = better[rows]
        keys[rows[hit], truth["item_id"].to_numpy()[hit]] -= 1.0
    items = np.argsort(keys, axis=1)[:, :LIST]
    return pd.DataFrame({"user_id": np.repeat(np.arange(N_USERS), LIST),
                         "item_id": items.ravel(), "rank": np.tile(np.arange(1, LIST + 1),
                                                                   N_USERS)})


def _tolerance(rate: float, runs: int) -> float:
    return 4 * np.sqrt(rate * (1 - rate) / runs)


def _compare_under_the_null(runs: int, seed: int) -> dict[str, float]:
    """Two systems whose lists are drawn alike: no true difference."""
    rng = np.random.default_rng(seed)
    rejected = {"t": 0, "wilcoxon": 0, "permutation": 0}
    covered = 0
    for _ in range(runs):
        truth = _truth(rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            table = ek.compare({"a": _lists(rng), "b": _lists(rng)}, truth, k=LIST,
                               metrics=["ndcg"], n_permutations=499, n_resamples=200,
                               rng=int(rng.integers(2**31))).table
        row = table[table["against"].notna()].iloc[0]
        for test in rejected:
            rejected[test] += row[f"{test}_pvalue"] < 0.05
        covered += row["diff_ci_low"] <= 0 <= row["diff_ci_high"]
    out = {test: count / runs for test, count in rejected.items()}
    out["coverage"] = covered / runs
    return out


def _gate(runs: int, seed: int, boost: float) -> float:
    """The share of runs the regression gate fails: the current system is the baseline's
    lists redrawn alike (``boost`` 0: no change) or worse (the baseline better by
    ``boost``)."""
    rng = np.random.default_rng(seed)
    failed = 0
    for _ in range(runs):
        truth = _truth(rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            baseline = ek.evaluate(truth, _lists(rng, truth, boost), k=LIST,
                                   metrics=["ndcg"], n_resamples=0)
            current = ek.evaluate(truth, _lists(rng), k=LIST, metrics=["ndcg"],
                                  n_resamples=0)
        failed += not ek.regression_check(current, baseline).passed
    return failed / runs


def _check_null(runs: int, seed: int) -> None:
    rates = _compare_under_the_null(runs, seed)
    for test in ("t", "wilcoxon", "permutation"):
        assert abs(rates[test] - 0.05) <= _tolerance(0.05, runs), (test, rates)
    assert abs(rates["coverage"] - 0.95) <= _tolerance(0.95, runs), rates


def _check_gate(runs: int, seed: int) -> None:
    # the gate's level: a two-sided test at alpha 0.05 that fails on the worse side only
    false_alarms = _gate(runs, seed, 0.0)
    assert abs(false_alarms - 0.025) <= _tolerance(0.025, runs), false_alarms
    assert _gate(max(runs // 3, 20), seed + 1, 0.6) >= 0.8  # a planted regression is caught


def test_compare_holds_its_level_and_coverage_under_no_difference() -> None:
    _check_null(runs=60, seed=1)


def test_the_regression_gate_rarely_fails_a_system_unchanged_and_catches_a_regression() -> None:
    _check_gate(runs=40, seed=2)


@pytest.mark.calibration
def test_compare_holds_its_level_and_coverage_under_no_difference_at_scale() -> None:
    _check_null(runs=2000, seed=11)


@pytest.mark.calibration
def test_the_regression_gate_holds_its_level_at_scale() -> None:
    _check_gate(runs=2000, seed=12)
