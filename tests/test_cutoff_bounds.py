"""Cutoffs are refused above a documented bound before any memory is sized by them."""

from __future__ import annotations

import resource

import pandas as pd
import pytest

import evalkit as ek
from evalkit._checks import MAX_CUTOFF

TRUTH = pd.DataFrame({"user_id": [1, 2, 3], "item_id": [1, 2, 3], "rating": [5.0, 4.0, 3.0]})
RECS = pd.DataFrame({"user_id": [1, 2, 3], "item_id": [1, 9, 3], "rank": [1, 1, 1]})


@pytest.mark.parametrize(("call", "arg"), [
    (lambda k: ek.evaluate(TRUTH, RECS, k=k), "k"),
    (lambda k: ek.evaluate(TRUTH, RECS, k=[10, k]), "k"),
    (lambda k: ek.evaluate(TRUTH, RECS, k=10, curves=k), "curves"),
    (lambda k: ek.metrics.ranking_curves(TRUTH, RECS, k_max=k), "k_max"),
    (lambda k: ek.compare({"a": RECS, "b": RECS}, TRUTH, k=k), "k"),
])
@pytest.mark.parametrize("k", [MAX_CUTOFF + 1, 10**8, 10**18])
def test_huge_cutoffs_are_refused_without_allocating(call, arg, k) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (4 * 2**30, hard))  # far below what k would need
    try:
        with pytest.raises(ValueError, match=rf"'{arg}' must be at most 1,000,000"):
            call(k)
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def test_the_bound_itself_is_accepted() -> None:
    got = ek.evaluate(TRUTH, RECS, k=[1, MAX_CUTOFF], metrics=["precision"], n_resamples=10)
    # one hit in three lists
    assert got.mean("precision", MAX_CUTOFF) == pytest.approx(1 / 3 / MAX_CUTOFF)
