"""The compiled kernels against plain NumPy and pandas statements of what they compute.

The metric values themselves are held to the dense-matrix forms (``matrix_forms.py``) in
``test_curves_paths.py`` and to
the naive per-user reference in ``test_ranking_reference.py``; here each building block is
checked on its own, including the chunk edges and thread counts the parallel runs create.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit import _duplicates
from evalkit.metrics import _kernels
from evalkit.metrics._common import check_recs, check_truth
from evalkit.metrics._curves import RankingCurves
from evalkit.metrics._hits import build_hits, listed_pairs
from evalkit.metrics._prepare import make_definitions
from tests.metrics.matrix_forms import MatrixForms, mean_over_users
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
            ordered = ordered and bool(np.all(key[1:][same] > key[:-1][same]))  # strictly
        if ordered:
            np.testing.assert_array_equal(got, np.searchsorted(codes, np.arange(8)))
        else:
            assert got.size == 0


lists = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 3), st.integers(0, 5)),
                 max_size=60)


@pytest.mark.parametrize("chunk_users", [1 << 14, 2])
@settings(max_examples=150, deadline=None)
@given(rows=lists, grouped=st.booleans())
def test_order_by_group_is_a_lexsort(chunk_users: int, rows: list, grouped: bool) -> None:
    frame = pd.DataFrame(rows, columns=["g", "a", "b"], dtype=np.int64)
    if grouped:  # rows grouped already: no counting sort, only each group's rows
        frame = frame.sort_values("g", kind="stable", ignore_index=True)
    g, a, b = (frame[c].to_numpy() for c in "gab")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_kernels, "CHUNK_USERS", chunk_users)
        order, starts = _kernels.order_by_group(g, -a.astype(float), b, 5)
    np.testing.assert_array_equal(order, np.lexsort((b, -a.astype(float), g)))
    np.testing.assert_array_equal(starts, np.searchsorted(np.sort(g), np.arange(6)))


@settings(max_examples=150, deadline=None)
@given(rows=lists)
def test_ordered_by_score_and_positions(rows: list) -> None:
    frame = pd.DataFrame(rows, columns=["user", "score", "key"], dtype=np.int64)
    user, key = frame["user"].to_numpy(), frame["key"].to_numpy()
    score = frame["score"].to_numpy(dtype=float)
    for by_key in (False, True):
        keys = [user, -score] + ([key] if by_key else [])
        want = all(np.array_equal(keys[j], keys[j][np.lexsort(keys[::-1])]) for j in
                   range(len(keys)))
        assert _kernels.ordered_by_score(user, score, key, by_key) == want
    frame = frame.sort_values(["user", "score"], ascending=[True, False], kind="stable",
                              ignore_index=True)
    starts = np.searchsorted(frame["user"].to_numpy(), np.arange(6))
    pos, tie = _kernels.score_positions(starts, frame["score"].to_numpy(dtype=float))
    np.testing.assert_array_equal(pos, frame.groupby("user").cumcount().to_numpy() + 1)
    first_row = pd.Series(np.arange(len(frame))).groupby(
        [frame["user"], frame["score"]], sort=False).transform("min")
    np.testing.assert_array_equal(tie, first_row.to_numpy())  # a group: its first row


@pytest.mark.parametrize("ap_denominator", ["min", "hits"])
def test_tied_values_are_the_array_forms_averages(ap_denominator: str) -> None:
    truth, recs = random_frames(np.random.default_rng(5), n_users=80, order="score")
    curves = _curves(truth, recs, ties="expected", gain="exponential",
                     ap_denominator=ap_denominator)
    t = curves.table
    assert t.expected and np.bincount(t.tie_group).max() > 2  # groups of several rows
    oracle = MatrixForms(t, 6, curves.definitions)
    gain = oracle._gain(t.rating, t.rel > 0, t.code > 0)
    got = np.empty((4, t.pos.size))
    for u0, u1 in [(0, 30), (30, 31), (31, t.n_users)]:  # chunks: rows offset by the first
        part = got[:, t.row_start[u0]:t.row_start[u1]]
        _kernels.tied_values(t.row_start, t.pos, t.code, t.code_rel,
                             oracle._gain(t.code_rating, t.code_rel > 0,
                                          np.arange(t.code_rating.size) > 0),
                             t.tie_group, u0, u1, part)
    np.testing.assert_allclose(got[0], oracle.effective(t.rel), rtol=1e-13)
    np.testing.assert_allclose(got[1], oracle.effective(gain), rtol=1e-13)
    np.testing.assert_allclose(got[2], oracle.expected_rel_times_hits(), rtol=1e-13)
    np.testing.assert_allclose(got[3], oracle.first_relevant(), rtol=1e-12, atol=1e-15)


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
        patch.setattr(_duplicates, "_CHUNK_ROWS", chunk_rows)
        got = _duplicates.grouped_duplicates(frame["g"].to_numpy(), frame["v"].to_numpy())
    if not frame["g"].is_monotonic_increasing:
        assert got == -1
    else:
        assert got == int(frame.duplicated().any())


def test_grouped_duplicates_declines_a_wide_value_range() -> None:
    groups = np.zeros(3, dtype=np.int64)
    assert _duplicates.grouped_duplicates(groups, np.array([0, 2**40, 5])) == -1
    assert _duplicates.grouped_duplicates(groups, np.array([0, 2**40, 0])) == -1  # caller sorts


@settings(max_examples=100, deadline=None)
@given(values=st.lists(st.integers(-3, 12), max_size=40))
def test_offset_codes_when_every_value_is_in_range(values: list) -> None:
    values = np.array(values, dtype=np.int64)
    out = np.empty(values.size, dtype=np.int32)
    inside = bool(np.all((values >= 2) & (values <= 9)))
    assert _kernels.offset_codes(values, 2, 9, out) == inside
    if inside:
        np.testing.assert_array_equal(out, values - 2)


def test_half_star_levels() -> None:
    index, present, low = _kernels.half_star_levels(np.array([4.5, 0.5, 3.0, -1.0]))
    assert low == -2.0
    assert index.tolist() == [11, 3, 8, 0]
    assert np.flatnonzero(present).tolist() == [0, 3, 8, 11]
    assert _kernels.half_star_levels(np.array([1.0, 1.25]))[0].size == 0  # off the grid
    assert _kernels.half_star_levels(np.array([0.0, 200.0]))[0].size == 0  # too wide


def _curves(truth: pd.DataFrame, recs: pd.DataFrame, **options) -> RankingCurves:
    o = make_definitions("t", **options)
    table = build_hits(check_truth(truth, func="t"), check_recs(recs, func="t"),
                       threshold=o.threshold, ties=o.ties)
    return RankingCurves(table, 6, o)


@pytest.mark.parametrize("ties", ["deterministic", "expected"])
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_results_do_not_depend_on_threads_or_chunking(monkeypatch: pytest.MonkeyPatch,
                                                      threads: int, ties: str) -> None:
    truth, recs = random_frames(np.random.default_rng(11), n_users=60,
                                order="rank" if ties == "deterministic" else "score")
    reference = _curves(truth, recs, ties=ties)
    want_at = {name: reference.at(name, [2, 6])[0] for name in _kernels.AT_METRICS}
    want_means = {name: reference.means(name) for name in _kernels.AT_METRICS}
    monkeypatch.setattr(_kernels, "_threads", lambda: threads)
    monkeypatch.setattr(_kernels, "CHUNK_USERS", 7)  # many chunks, users cut mid-way
    curves = _curves(truth, recs, ties=ties)
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
        full, undefined = MatrixForms(compiled.table, 6, compiled.definitions).metric("ndcg")
        got, got_undefined = compiled.at("ndcg", [1, 2, 6])
        np.testing.assert_allclose(got, full[:, [0, 1, 5]], rtol=1e-13)
        np.testing.assert_array_equal(got_undefined, undefined[:, [0, 1, 5]])
        np.testing.assert_allclose(compiled.means("ndcg"),
                                   mean_over_users(full, undefined, empty), rtol=1e-13,
                                   equal_nan=True)
        assert undefined[:, 1].any() and not undefined[:, 1].all()  # the case is exercised


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10_000), kind=st.sampled_from(["small", "sparse", "negative",
                                                          "string"]),
       n=st.integers(0, 40), m=st.integers(0, 40))
def test_listed_pairs_is_the_row_tuples_membership(seed: int, kind: str, n: int, m: int) -> None:
    """``relevant_set="listed"``'s packed keys say what comparing (user, item) tuples says,
    for small, sparse, negative and string ids, with users only in the lists."""
    rng = np.random.default_rng(seed)

    def ids(size: int, high: int) -> np.ndarray:
        x = rng.integers(0, high, size)
        return {"small": x, "sparse": x * 1_000_003 + 7, "negative": x - 5,
                "string": np.array([f"i{v:03d}" for v in x], dtype=object)}[kind]

    truth = pd.DataFrame({"user_id": ids(n, 8), "item_id": ids(n, 12)})
    recs = pd.DataFrame({"user_id": ids(m, 10), "item_id": ids(m, 12)})
    want = pd.MultiIndex.from_frame(truth).isin(pd.MultiIndex.from_frame(recs))
    np.testing.assert_array_equal(listed_pairs(truth, recs), want)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(-50, 5000), max_size=60), st.booleans(),
       st.sampled_from(["item_str", "item_str_desc"]))
def test_the_text_order_of_items_is_numpys_over_the_rows(items, as_text, tie_order) -> None:
    # the key ordering tied items by their ids as text, computed over the distinct items:
    # the ranks np.unique gives the rows' text
    from evalkit.metrics._hits import _tie_key

    r_item = np.array(items, dtype=np.int64)
    if as_text:
        r_item = np.array([f"i{v}" for v in items], dtype=object)
    _, want = np.unique(r_item.astype(str), return_inverse=True)
    want = want.reshape(-1)
    got = _tie_key(np.zeros(len(items), dtype=np.int64), r_item, tie_order)
    assert got.tolist() == (want if tie_order == "item_str" else -want).tolist()
