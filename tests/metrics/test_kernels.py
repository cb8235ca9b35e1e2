"""The compiled kernels against plain NumPy and pandas statements of what they compute.

The metric values themselves are held to the array forms in ``test_curves_paths.py`` and to
the naive per-user reference in ``test_ranking_reference.py``; here each building block is
checked on its own, including the chunk edges and thread counts the parallel runs create.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.metrics import _kernels
from evalkit.metrics._common import check_recs, check_truth
from evalkit.metrics._curves import RankingCurves
from evalkit.metrics._hits import build_hits
from evalkit.metrics.ranking import make_options
from tests.metrics.naive import random_frames

codes = st.lists(st.integers(0, 6), max_size=60).map(lambda v: np.array(v, dtype=np.int32))


@settings(max_examples=200, deadline=None)
@given(codes=codes)
def test_group_rows_is_a_stable_sort_by_code(codes: np.ndarray) -> None:
    order, starts = _kernels.group_rows(codes, 7)
    np.testing.assert_array_equal(order, np.argsort(codes, kind="stable"))
    np.testing.assert_array_equal(starts, np.searchsorted(np.sort(codes), np.arange(8)))


@settings(max_examples=200, deadline=None)
@given(codes=codes, key=st.lists(st.integers(0, 3), min_size=60, max_size=60))
def test_group_starts_when_sorted_and_empty_otherwise(codes: np.ndarray, key: list) -> None:
    key = np.array(key[: codes.size], dtype=np.int64)
    for by_key in (False, True):
        got = _kernels.group_starts(codes, key, by_key, 7)
        ordered = bool(np.all(np.diff(codes) >= 0))
        if by_key:
            same = codes[1:] == codes[:-1]
            ordered = ordered and bool(np.all(key[1:][same] >= key[:-1][same]))
        if ordered:
            np.testing.assert_array_equal(got, np.searchsorted(codes, np.arange(8)))
        else:
            assert got.size == 0


@pytest.mark.parametrize("chunk_rows", [1 << 21, 7, 2])
@settings(max_examples=100, deadline=None)
@given(
    groups=st.lists(st.integers(0, 5), max_size=50),
    values=st.lists(st.integers(-3, 40), min_size=50, max_size=50),
    sort=st.booleans(),
)
def test_grouped_duplicates_agrees_with_pandas(chunk_rows: int, groups: list, values: list,
                                                sort: bool) -> None:
    frame = pd.DataFrame({"g": groups, "v": values[: len(groups)]})
    if sort:
        frame = frame.sort_values("g", kind="stable", ignore_index=True)
    with pytest.MonkeyPatch.context() as patch:
        # small chunks put chunk edges inside groups: the stamping pass must move them
        patch.setattr(_kernels, "_CHUNK_ROWS", chunk_rows)
        got = _kernels.grouped_duplicates(frame["g"].to_numpy(), frame["v"].to_numpy())
    if not frame["g"].is_monotonic_increasing:
        assert got == -1
    else:
        assert got == int(frame.duplicated().any())


def test_grouped_duplicates_declines_a_wide_value_range() -> None:
    groups = np.zeros(3, dtype=np.int64)
    assert _kernels.grouped_duplicates(groups, np.array([0, 2**40, 5])) == -1
    assert _kernels.grouped_duplicates(groups, np.array([0, 2**40, 0])) == -1  # caller sorts


def test_half_star_levels() -> None:
    index, present, low = _kernels.half_star_levels(np.array([4.5, 0.5, 3.0, -1.0]))
    assert low == -2.0
    assert index.tolist() == [11, 3, 8, 0]
    assert np.flatnonzero(present).tolist() == [0, 3, 8, 11]
    assert _kernels.half_star_levels(np.array([1.0, 1.25]))[0].size == 0  # off the grid
    assert _kernels.half_star_levels(np.array([0.0, 200.0]))[0].size == 0  # too wide


def _curves(truth: pd.DataFrame, recs: pd.DataFrame, **options) -> RankingCurves:
    o = make_options("t", **options)
    table = build_hits(check_truth(truth, func="t"), check_recs(recs, func="t"),
                       threshold=o.threshold, ties=o.ties)
    return RankingCurves(table, 6, o)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_results_do_not_depend_on_threads_or_chunking(monkeypatch: pytest.MonkeyPatch,
                                                      threads: int) -> None:
    truth, recs = random_frames(np.random.default_rng(11), n_users=60, order="rank")
    reference = _curves(truth, recs)
    want_at = {name: reference.at(name, [2, 6])[0] for name in _kernels.AT_METRICS}
    want_means = {name: reference.means(name) for name in _kernels.AT_METRICS}
    monkeypatch.setattr(_kernels, "_threads", lambda: threads)
    monkeypatch.setattr(_kernels, "CHUNK_USERS", 7)  # many chunks, users cut mid-way
    curves = _curves(truth, recs)
    for name in _kernels.AT_METRICS:
        np.testing.assert_array_equal(curves.at(name, [2, 6])[0], want_at[name], err_msg=name)
        np.testing.assert_allclose(curves.means(name), want_means[name], rtol=1e-13,
                                   err_msg=name)


def test_negative_and_zero_gains_keep_ndcg_defined_only_where_ideal_dcg_is_positive() -> None:
    # linear gain of negative ratings: the ideal DCG can fall to zero or below part-way
    truth = pd.DataFrame({"user_id": [1, 1, 2, 2, 3, 4, 4], "item_id": [1, 2, 1, 3, 4, 5, 6],
                          "rating": [2.0, -0.5, -1.0, -2.0, 0.0, 1.0, -3.0]})
    recs = pd.DataFrame({"user_id": [1, 1, 2, 2, 3, 4, 4], "item_id": [2, 1, 3, 1, 4, 6, 5],
                         "rank": [1, 2, 1, 2, 1, 1, 2]})
    for empty in ("drop", "zero", "nan"):
        compiled = _curves(truth, recs, threshold=None, empty=empty)
        arrays = RankingCurves(compiled.table, 6, compiled.options, compiled=False)
        full, undefined = arrays.metric("ndcg")
        got, got_undefined = compiled.at("ndcg", [1, 2, 6])
        np.testing.assert_allclose(got, full[:, [0, 1, 5]], rtol=1e-13)
        np.testing.assert_array_equal(got_undefined, undefined[:, [0, 1, 5]])
        np.testing.assert_allclose(compiled.means("ndcg"), arrays.means("ndcg"), rtol=1e-13,
                                   equal_nan=True)
        assert undefined[:, 1].any() and not undefined[:, 1].all()  # the case is exercised
