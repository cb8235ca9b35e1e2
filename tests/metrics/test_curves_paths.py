"""The engine's reductions (``RankingCurves.at``, ``.means``, ``.r_precision``: the compiled
kernels) against the second oracle, the dense matrices of ``tests/metrics/matrix_forms.py``.

The matrix forms build every per-user value at every cutoff with whole-array NumPy
operations on the same hit table; the engine walks each user's positions once. ``at`` gives
the per-user values at chosen cutoffs (``evaluate`` and the per-user functions), ``means``
the column means (``ranking_curves``). The naive reference (``test_ranking_reference.py``)
checks the per-user functions and ``ranking_curves`` from the frames, without the hit table.

The tests cover every compiled metric, every combination of the options in ``GRID``
(threshold, gain, discount, AP denominator, ties, ``empty``), several layouts (full
rectangles, ragged lists, ranks with gaps, ties, users with nothing relevant) and cutoffs
past every list. Values must agree to ``TOL`` (1e-12, relative and absolute), and the
undefined masks exactly.
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
from evalkit.metrics._curves import RankingCurves
from evalkit.metrics._hits import build_hits
from evalkit.metrics._prepare import make_definitions
from tests.metrics.matrix_forms import MatrixForms, mean_over_users
from tests.metrics.naive import cases, random_frames

TOL = 1e-12
#: The metrics of the engine's reductions with a cutoff (R-precision has none).
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


def view(curves: RankingCurves, name: str) -> tuple[str, dict]:
    """The engine's arguments for the declared metric ``name``: its kernel row, and whether
    a user without a relevant item has no value (the declaration says)."""
    metric = RANKING_METRICS[name]
    return metric.kernel, {"without_relevant":
                           metric.undefined_without_relevant(curves.definitions)}


def assert_close(got: object, want: object, err_msg: str) -> None:
    """``np.testing.assert_allclose(got, want, rtol=TOL, atol=TOL)`` (NaN equal to NaN,
    infinities where the other has the same one), decided by whole-array operations first:
    the grid makes about 60,000 comparisons of small arrays, and numpy.testing's checks cost
    0.2 ms each. Anything the quick test does not pass goes to numpy.testing, which decides
    and words the failure."""
    a, b = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    if a.shape == b.shape:
        with np.errstate(invalid="ignore"):
            close = (np.abs(a - b) <= TOL + TOL * np.abs(b)) | (a == b)
        if np.all(close | (np.isnan(a) & np.isnan(b))):
            return
    np.testing.assert_allclose(got, want, rtol=TOL, atol=TOL, err_msg=err_msg)


def assert_equal(got: object, want: object, err_msg: str) -> None:
    """``np.testing.assert_array_equal``, decided by ``np.array_equal`` first (see
    :func:`assert_close`)."""
    a, b = np.asarray(got), np.asarray(want)
    if a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b):
        return
    np.testing.assert_array_equal(a, b, err_msg=err_msg)


def assert_same(curves: RankingCurves, name: str, ks: list[int], context: object,
                oracle: MatrixForms | None = None) -> None:
    """The engine's ``at`` and ``means`` of ``name`` equal the oracle's matrices (one oracle
    may serve every metric of one table and definitions)."""
    row, rule = view(curves, name)
    # means before and after `at`: each caches its kernel call
    means_first = curves.means(row, **rule)
    if oracle is None:
        oracle = MatrixForms(curves.table, curves.k_max, curves.definitions)
    full, full_undefined = oracle.metric(name)
    cols = np.asarray(ks) - 1
    got, got_undefined = curves.at(row, ks, **rule)
    assert_close(got, full[:, cols], str((name, context)))
    if full_undefined is None:
        assert got_undefined is None or not np.any(got_undefined), (name, context)
    else:
        assert_equal(np.asarray(got_undefined), np.asarray(full_undefined)[:, cols],
                     str((name, context)))
    want = mean_over_users(full, full_undefined, curves.definitions.empty)
    for means in (means_first, curves.means(row, **rule)):
        assert_close(means, want, str((name, context)))


#: Ties only matter for score-only lists.
LAYOUT_TIES = [(layout, ties) for layout in DATA
               for ties in (GRID["ties"] if layout == "score" else ["deterministic"])]


@pytest.mark.parametrize(("layout", "ties"), LAYOUT_TIES)
def test_at_and_means_equal_the_full_matrices(layout: str, ties: str) -> None:
    """Every compiled metric, every combination of ``GRID``'s other options: one engine and
    one oracle per combination, shared by the metrics as ``evaluate`` shares them."""
    truth, recs = DATA[layout]
    keys = [key for key in GRID if key != "ties"]
    tables: dict = {}
    for values in itertools.product(*(GRID[key] for key in keys)):
        options = {**dict(zip(keys, values)), "ties": ties}
        curves = curves_for(truth, recs, 7, options, tables)
        oracle = MatrixForms(curves.table, curves.k_max, curves.definitions)
        for name in CURVE_NAMES:
            assert_same(curves, name, [1, 3, 7], (layout, options), oracle)
            # cutoffs in any order, repeated: the columns follow the request
            assert_same(curves, name, [7, 1, 7, 3], (layout, options), oracle)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_at_and_means_on_random_cases(data: st.DataObject) -> None:
    truth, recs = data.draw(cases(), label="frames")
    options = {key: data.draw(st.sampled_from(values), label=key) for key, values in GRID.items()}
    k_max = data.draw(st.integers(1, 12), label="k_max")
    ks = sorted(data.draw(st.sets(st.integers(1, k_max), min_size=1, max_size=3), label="ks"))
    curves = curves_for(truth, recs, k_max, options)
    oracle = MatrixForms(curves.table, k_max, curves.definitions)
    for name in CURVE_NAMES:
        assert_same(curves, name, ks, (options, k_max, ks), oracle)


def test_no_users_gives_nan_means() -> None:
    truth = pd.DataFrame({"user_id": pd.Series([], dtype="int64"),
                          "item_id": pd.Series([], dtype="int64"),
                          "rating": pd.Series([], dtype="float64")})
    recs = pd.DataFrame({"user_id": [1], "item_id": [2], "rank": [1]})
    curves = curves_for(truth, recs, 3, {})
    for name in CURVE_NAMES:
        row, rule = view(curves, name)
        assert np.isnan(curves.means(row, **rule)).all(), name
        assert curves.at(row, [1, 3], **rule)[0].shape == (0, 2), name


#: The rules ``GRID`` leaves out, each with expected ties, graded gains and empty="zero"
#: too (half-life utility's parameters among them).
OTHER_RULES = [
    {"ideal": "k", "gain": "binary"},
    {"ideal": "k", "gain": "binary", "discount": ("breese", 2.0), "threshold": None},
    {"recall_denominator": "min"},
    {"ap_denominator": "k"},
    {"precision_users": "relevant"},
    {"gain_scope": "relevant", "gain": "linear"},
    {"neutral": 2.0, "half_life": 3.0},
]


@pytest.mark.parametrize("rules", OTHER_RULES, ids=lambda r: "-".join(map(str, r.values())))
@pytest.mark.parametrize("ties", ["deterministic", "expected"])
def test_the_other_rules_and_cutoffs_past_every_list(rules: dict, ties: str) -> None:
    """Every compiled metric under the rules outside ``GRID``, at cutoffs inside the lists
    and far past them (precision and AP's ``k`` still divide by k; ``ideal="k"`` is k items
    long whatever the user has): the engine at ``k`` equals the matrices built to ``k``."""
    truth, recs = DATA["score"]
    options = {"ties": ties, "empty": "zero", **rules}
    past = [1, 4, 30, 250]  # the longest list holds at most 12 items
    engine = curves_for(truth, recs, 250, options)
    oracle = MatrixForms(engine.table, 250, engine.definitions)
    small = curves_for(truth, recs, 1, options)
    for name in CURVE_NAMES:
        assert_same(engine, name, past, options, oracle)
        # a table built for one cutoff: nothing past the lists is computed
        row, rule = view(engine, name)
        got, _ = small.at(row, [250], **rule)
        np.testing.assert_allclose(got[:, 0], engine.at(row, [250], **rule)[0][:, 0],
                                   rtol=TOL, atol=TOL, err_msg=name)


@pytest.mark.parametrize("ties", ["deterministic", "optimistic", "expected"])
@pytest.mark.parametrize("layout", list(DATA))
def test_r_precision_is_r_precision_cut_past_every_relevant_item(layout: str,
                                                                 ties: str) -> None:
    truth, recs = DATA[layout]
    if layout != "score" and ties != "deterministic":
        return  # ties only matter for score-only lists
    for threshold in (4.0, None):
        engine = curves_for(truth, recs, 1, {"ties": ties, "threshold": threshold})
        t = engine.table
        oracle = MatrixForms(t, int(max(t.n_rel.max(), t.n_truth.max(), 1)),
                             engine.definitions)
        want, want_undefined = oracle.r_precision()
        row, rule = view(engine, "r_precision")
        got, got_undefined = engine.at(row, [engine.longest], **rule)
        got, got_undefined = got[:, 0], got_undefined[:, 0]
        np.testing.assert_allclose(got, want[:, 0], rtol=TOL, atol=TOL)
        np.testing.assert_array_equal(got_undefined, want_undefined[:, 0])
        assert (got > 0).any() and (got < 1).any()  # the case is exercised
        assert got_undefined.any() == (threshold is not None)


def test_the_compiled_metrics_are_the_declared_ones() -> None:
    """Every compiled metric names a row of the kernels, every row is some metric's, and
    the users each declaration leaves without a value are those the oracle's own rule
    leaves out: without a relevant item (recall, F1, MRR, MAP, R-precision; precision and
    hit rate only under ``precision_users="relevant"``, the field they read), where the
    ideal sum is 0 for the ratios to an ideal (NDCG, half-life utility)."""
    from evalkit.metrics._curves import RATIOS, ROWS

    rows = {m.kernel for m in RANKING_METRICS.values() if m.kernel}
    assert rows == set(ROWS)
    for users in ("all", "relevant"):
        engine = curves_for(*DATA["rank"], 3, {"precision_users": users})
        oracle = MatrixForms(engine.table, 3, engine.definitions)
        for name, metric in RANKING_METRICS.items():
            if metric.kernel and metric.kernel not in RATIOS:
                assert (metric.undefined_without_relevant(engine.definitions)
                        == (metric.kernel in oracle._undefined_without_relevant
                            or metric.kernel == "r_precision_at_k")), (name, users)
