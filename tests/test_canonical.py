"""The canonical row order (evalkit._canonical): packed keys give NumPy's lexicographic order."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit import _canonical
from evalkit._canonical import lexsort, sort_key
from evalkit.data import fingerprint

_KINDS = ["small", "negative", "wide", "huge", "bool", "levels", "floats", "nan", "uint",
          "scores"]


def _key(gen: np.random.Generator, kind: str, n: int) -> np.ndarray:
    if kind == "small":
        return gen.integers(0, 5, n)
    if kind == "negative":
        return gen.integers(-3, 3, n).astype(np.int32)
    if kind == "wide":  # a timestamp's range
        return gen.integers(10**9, 10**9 + 4, n) * 10**6
    if kind == "huge":  # beyond any packing
        return gen.choice(np.array([-2**62, 0, 2**62], dtype=np.int64), n)
    if kind == "bool":
        return gen.random(n) < 0.5
    if kind == "levels":  # rating levels
        return gen.integers(1, 11, n) / 2
    if kind == "floats":
        return np.round(gen.normal(size=n), 1) * (gen.random(n) < 0.5)  # -0.0 and 0.0 equal
    if kind == "scores":  # mostly distinct, some repeated, signed zeros
        return np.where(gen.random(n) < 0.2, gen.choice([0.0, -0.0, 1.5], n), gen.normal(size=n))
    if kind == "nan":
        return np.where(gen.random(n) < 0.3, np.nan, gen.integers(0, 3, n).astype(float))
    return gen.integers(0, 4, n).astype(np.uint8)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.lists(st.sampled_from(_KINDS), min_size=1, max_size=5),
       st.integers(0, 60), st.sampled_from([0, 10**9]), st.sampled_from([0.0, 2.0]))
def test_packed_keys_give_numpys_lexicographic_order(seed, kinds, n, few_runs, hashed) -> None:
    # the same stable order, ties in input order, whatever keys are packed and which not,
    # by the unstable sort (few_runs 0) and by the stable one (any number of runs), with
    # float keys coded by a sort (hashed 0) or a hash table (2)
    gen = np.random.default_rng(seed)
    keys = [_key(gen, kind, n) for kind in kinds]
    saved = _canonical._FEW_RUNS, _canonical._HASHED_SHARE
    try:
        _canonical._FEW_RUNS, _canonical._HASHED_SHARE = few_runs, hashed
        assert lexsort(keys).tolist() == np.lexsort(keys[::-1]).tolist()
    finally:
        _canonical._FEW_RUNS, _canonical._HASHED_SHARE = saved


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 80), st.sampled_from(_KINDS))
def test_sorted_parts_appended_give_numpys_order(seed, parts, kind) -> None:
    # lists concatenated, each sorted by user and position: a few runs (or many, past the
    # limit), with ties on the packed keys ordered by the last key and the row
    gen = np.random.default_rng(seed)
    frames = []
    for _ in range(parts):
        n = int(gen.integers(0, 40))
        users, position = gen.integers(0, 30, n), gen.integers(0, 5, n)
        order = np.lexsort([position, users])
        frames.append((users[order], position[order], _key(gen, kind, n)))
    keys = [np.concatenate([f[i] for f in frames]) for i in range(3)]
    assert lexsort(keys).tolist() == np.lexsort(keys[::-1]).tolist()


def test_the_fingerprint_does_not_depend_on_the_row_order() -> None:
    gen = np.random.default_rng(1)
    n = 5_000
    frame = pd.DataFrame({"user_id": gen.integers(0, 300, n), "item_id": gen.integers(0, 900, n),
                          "rating": gen.integers(1, 11, n) / 2,
                          "timestamp": gen.integers(10**9, 10**9 + 50, n)})
    shuffled = frame.iloc[gen.permutation(n)]
    assert fingerprint(shuffled) == fingerprint(frame)
    as_text = frame.assign(user_id="u" + frame["user_id"].astype(str))
    assert fingerprint(as_text.iloc[::-1]) == fingerprint(as_text)
    assert sort_key(as_text["user_id"]).dtype.kind == "i"
