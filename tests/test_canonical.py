"""The canonical row order (evalkit._canonical): packed keys give NumPy's lexicographic order."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit._canonical import lexsort, sort_key
from evalkit.data import fingerprint

_KINDS = ["small", "negative", "wide", "huge", "bool", "levels", "floats", "nan", "uint"]


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
    if kind == "nan":
        return np.where(gen.random(n) < 0.3, np.nan, gen.integers(0, 3, n).astype(float))
    return gen.integers(0, 4, n).astype(np.uint8)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.lists(st.sampled_from(_KINDS), min_size=1, max_size=5),
       st.integers(0, 60))
def test_packed_keys_give_numpys_lexicographic_order(seed, kinds, n) -> None:
    # the same stable order, ties in input order, whatever keys are packed and which not
    gen = np.random.default_rng(seed)
    keys = [_key(gen, kind, n) for kind in kinds]
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
