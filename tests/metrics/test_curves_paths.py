"""``RankingCurves.at`` and ``RankingCurves.means`` against the full matrices of ``metric``.

``metric(name)`` builds every per-user value at every cutoff with whole-array NumPy
operations; it is the reference form. ``at`` (the chosen cutoffs, used by ``evaluate`` and the
per-user functions) and ``means`` (the column means, used by ``ranking_curves``) take cheaper
routes: the compiled kernel, one walk over each user's positions, for P, R, F1, HR, RR, AP,
DCG, NDCG and half-life utility under every tie policy; for R-precision at k, ``at`` sums
over the scoring rows and ``means`` takes the mean of ``metric``. The naive reference
(``test_ranking_reference.py``) checks the per-user functions and ``ranking_curves``, which
go through ``at`` and ``means``.

The tests cover every metric with a cutoff (all but ``r_precision``), every combination of
the options in ``GRID`` (threshold, gain, discount, AP denominator, ties, ``empty``) and
several layouts (full rectangles, ragged lists, ranks with gaps, ties, users with nothing
relevant). Values must agree to ``TOL`` (1e-12, relative and absolute), and the undefined
masks exactly.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalkit.metrics import RANKING_METRICS
from evalkit.metrics._common import check_recs, check_truth
from evalkit.metrics._curves import RankingCurves, mean_over_users
from evalkit.metrics._hits import build_hits
from evalkit.metrics.ranking import make_definitions
from tests.metrics.naive import cases, random_frames

TOL = 1e-12
#: The metrics of the engine's reductions (a metric from hits has no RankingCurves method).
CURVE_NAMES = [name for name, m in RANKING_METRICS.items() if m.at_k and m.kernel]

GRID = {
    "threshold": [4.0, None, 2.5],
    "gain": ["linear", "exponential", "binary"],
    "discount": [("log", 2.0), ("breese", 10.0)],
    "ap_denominator": ["min", "relevant", "hits"],
    "ties": ["deterministic", "optimistic", "pessimistic", "expected"],
    "empty": ["drop", "zero", "nan"],
}


def rectangle(rng: np.random.Generator, n_users: int = 30, width: int = 6):
    """Every user with exactly ranks 1..width: the layout where ``dense`` returns views."""
    truth_rows, rec_rows = [], []
    for u in range(n_users):
        n = int(rng.integers(0, 9))
        items = rng.choice(20, size=n, replace=False)
        truth_rows += [(u, int(i), float(rng.choice([0.5, 2.0, 3.5, 4.0, 4.5, 5.0])))
                       for i in items]
        if n == 0:  # keep the user evaluated: one test item below every threshold used
            truth_rows.append((u, 99, 0.5))
        recs = rng.choice(20, size=width, replace=False)
        rec_rows += [(u, int(i), r + 1) for r, i in enumerate(recs)]
    truth = pd.DataFrame(truth_rows, columns=["user_id", "item_id", "rating"])
    recs = pd.DataFrame(rec_rows, columns=["user_id", "item_id", "rank"])
    return truth, recs


DATA = {
    "score": random_frames(np.random.default_rng(7), n_users=25, order="score"),
    "rank": random_frames(np.random.default_rng(8), n_users=25, order="rank"),
    "rectangle": rectangle(np.random.default_rng(9)),
}


def curves_for(truth: pd.DataFrame, recs: pd.DataFrame, k_max: int, options: dict,
               tables: dict | None = None) -> RankingCurves:
    """``tables`` keeps one hit table per (threshold, ties), shared by the option sets that
    differ only in the reductions, as ``evaluate`` shares one across its metrics."""
    opts = dict(options)
    if "discount" in opts:
        opts["discount"], opts["log_base"] = opts["discount"]
    o = make_definitions("test", **opts)
    key = (o.threshold, o.ties)
    if tables is None or key not in tables:
        table = build_hits(check_truth(truth, func="t"), check_recs(recs, func="t"),
                           threshold=o.threshold, ties=o.ties)
        if tables is None:
            return RankingCurves(table, k_max, o)
        tables[key] = table
    return RankingCurves(tables[key], k_max, o)


def assert_same(curves: RankingCurves, name: str, ks: list[int], context: object) -> None:
    # means before and after `at`: `at` caches intermediates that `means` then reuses
    means_first = curves.means(name)
    full, full_undefined = curves.metric(name)
    cols = np.asarray(ks) - 1
    got, got_undefined = curves.at(name, ks)
    np.testing.assert_allclose(got, full[:, cols], rtol=TOL, atol=TOL, err_msg=str(context))
    if full_undefined is None:
        assert got_undefined is None or not np.any(got_undefined), context
    else:
        np.testing.assert_array_equal(np.asarray(got_undefined),
                                      np.asarray(full_undefined)[:, cols], err_msg=str(context))
    want = mean_over_users(full, full_undefined, curves.definitions.empty)
    for means in (means_first, curves.means(name)):
        np.testing.assert_allclose(means, want, rtol=TOL, atol=TOL, equal_nan=True,
                                   err_msg=str(context))


@pytest.mark.parametrize("layout", list(DATA))
@pytest.mark.parametrize("name", CURVE_NAMES)
def test_at_and_means_equal_the_full_matrices(layout: str, name: str) -> None:
    truth, recs = DATA[layout]
    keys = list(GRID)
    tables: dict = {}
    for values in itertools.product(*(GRID[key] for key in keys)):
        options = dict(zip(keys, values))
        if layout != "score" and options["ties"] != "deterministic":
            continue  # ties only matter for score-only lists
        curves = curves_for(truth, recs, 7, options, tables)
        assert_same(curves, name, [1, 3, 7], (layout, options))
        # cutoffs in any order, repeated: the columns follow the request
        assert_same(curves, name, [7, 1, 7, 3], (layout, options))


@pytest.mark.parametrize("name", CURVE_NAMES)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_at_and_means_on_random_cases(name: str, data: st.DataObject) -> None:
    truth, recs = data.draw(cases(), label="frames")
    options = {key: data.draw(st.sampled_from(values), label=key) for key, values in GRID.items()}
    k_max = data.draw(st.integers(1, 12), label="k_max")
    ks = sorted(data.draw(st.sets(st.integers(1, k_max), min_size=1, max_size=3), label="ks"))
    assert_same(curves_for(truth, recs, k_max, options), name, ks,
                (options, k_max, ks))


def test_no_users_gives_nan_means() -> None:
    truth = pd.DataFrame({"user_id": pd.Series([], dtype="int64"),
                          "item_id": pd.Series([], dtype="int64"),
                          "rating": pd.Series([], dtype="float64")})
    recs = pd.DataFrame({"user_id": [1], "item_id": [2], "rank": [1]})
    curves = curves_for(truth, recs, 3, {})
    for name in CURVE_NAMES:
        assert np.isnan(curves.means(name)).all(), name
        assert curves.at(name, [1, 3])[0].shape == (0, 2), name
