"""The cut of each user's list at k that every top-k list metric starts from
(``evalkit.metrics._topk.top_k``), against the frame sort it replaced, written out here as
the reference: any order of rows, string or integer ids, tied scores in each tie order,
lists given by rank (with gaps) or by score."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.metrics import TieWarning
from evalkit.metrics._topk import top_k, users_per_item


def reference(recs: pd.DataFrame, k: int, tie_order: str) -> pd.DataFrame:
    if "rank" in recs.columns:
        frame = recs.loc[recs["rank"].to_numpy() <= k, ["user_id", "item_id", "rank"]]
        return frame.sort_values(["user_id", "rank"], kind="stable").reset_index(drop=True)
    key = recs["item_id"].astype(str) if tie_order.startswith("item_str") else recs["item_id"]
    frame = recs[["user_id", "item_id", "score"]].assign(_key=key).sort_values(
        ["user_id", "score", "_key"], ascending=[True, False, not tie_order.endswith("_desc")],
        kind="stable")
    rank = frame.groupby("user_id", sort=False).cumcount().to_numpy() + 1
    frame = frame.assign(rank=rank).loc[rank <= k, ["user_id", "item_id", "rank"]]
    return frame.reset_index(drop=True)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(1, 8), strings=st.booleans(),
       by_rank=st.booleans(), shuffled=st.booleans(),
       tie_order=st.sampled_from(["item", "item_desc", "item_str", "item_str_desc"]))
def test_top_k_equals_the_frame_sort(seed, k, strings, by_rank, shuffled, tie_order) -> None:
    rng = np.random.default_rng(seed)
    n_users, per_user = 12, 9
    users = np.repeat(rng.choice(1000, n_users, replace=False), per_user)
    items = np.concatenate([rng.choice(40, per_user, replace=False) for _ in range(n_users)])
    recs = pd.DataFrame({"user_id": users, "item_id": items})
    if by_rank:  # ranks with gaps, as a file may give them
        recs["rank"] = np.concatenate([np.sort(rng.choice(20, per_user, replace=False)) + 1
                                       for _ in range(n_users)])
    else:
        recs["score"] = rng.choice([0.1, 0.2, 0.3, 0.5], len(recs))  # many ties
    if strings:
        recs["user_id"] = "u" + recs["user_id"].astype(str)
        recs["item_id"] = "i" + recs["item_id"].astype(str)
    if shuffled:
        recs = recs.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    got = top_k(recs, k=k, tie_order=tie_order)
    pd.testing.assert_frame_equal(got, reference(recs, k, tie_order), check_dtype=False)


def test_ties_across_the_cutoff_are_counted_in_the_warning() -> None:
    recs = pd.DataFrame({"user_id": [1, 1, 1, 2, 2], "item_id": [3, 1, 2, 1, 2],
                         "score": [0.9, 0.5, 0.5, 0.7, 0.6]})
    with pytest.warns(TieWarning, match=r"top_k_test: 1 user\(s\) have tied scores straddling "
                      r"the cutoff k=2"):
        got = top_k(recs, k=2, func="top_k_test")
    assert got["item_id"].tolist() == [3, 1, 1, 2]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        top_k(recs, k=3, func="top_k_test")  # no tie across 3


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), strings=st.booleans())
def test_users_per_item_counts_each_pair_once(seed, strings) -> None:
    rng = np.random.default_rng(seed)
    train = pd.DataFrame({"user_id": rng.integers(0, 30, 400),
                          "item_id": rng.integers(0, 25, 400)})
    if strings:
        train = train.astype(str)
    want = train.drop_duplicates()["item_id"].value_counts().sort_index()
    got, n_users = users_per_item(train)
    assert n_users == train["user_id"].nunique()
    assert got.index.tolist() == want.index.tolist() and got.tolist() == want.tolist()


def test_sharing_training_computes_once_per_block_and_object() -> None:
    from evalkit.metrics._topk import sharing_training, training_memo

    train = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [1, 2, 1]})
    other = train.copy()
    calls = []

    def compute(frame):
        return lambda: calls.append(frame) or len(calls)

    assert training_memo(train, "x", compute(train)) == 1  # outside a block: each call
    assert training_memo(train, "x", compute(train)) == 2
    memo: dict = {}
    with sharing_training(train, memo):
        assert training_memo(train, "x", compute(train)) == 3
        with sharing_training(train):  # a block inside shares the outer one's
            assert training_memo(train, "x", compute(train)) == 3
        assert training_memo(other, "x", compute(other)) == 4  # another object: computed
        assert training_memo(train, "y", compute(train)) == 5  # another name: computed
    with sharing_training(train, memo):  # the caller's memo keeps what was found
        assert training_memo(train, "x", compute(train)) == 3
    with sharing_training(other, memo):  # ... for the same object only
        assert training_memo(other, "x", compute(other)) == 6
    with sharing_training(train):  # without a memo, nothing is kept after a block
        assert training_memo(train, "x", compute(train)) == 7
    assert len(calls) == 7


def test_a_table_of_beyond_accuracy_finds_training_pairs_and_popularity_once(
        monkeypatch) -> None:
    from evalkit.metrics import _topk, tables
    from evalkit.metrics.beyond import novelty

    gen = np.random.default_rng(3)
    train = pd.DataFrame({"user_id": gen.integers(1, 30, 400),
                          "item_id": gen.integers(1, 60, 400)})
    test = pd.DataFrame({"user_id": gen.integers(1, 30, 80), "item_id": gen.integers(1, 60, 80),
                         "rating": gen.integers(1, 6, 80).astype(float)})
    test = test.drop_duplicates(["user_id", "item_id"])
    recs = pd.DataFrame({"user_id": np.repeat(np.arange(1, 30), 10),
                         "item_id": np.tile(np.arange(1, 11), 29),
                         "rank": np.tile(np.arange(1, 11), 29)})
    items = pd.DataFrame({"item_id": np.arange(1, 60)}).assign(genres=lambda f: [["a"]] * len(f))
    alone = tables.beyond_accuracy(test, recs, train=train, items=items, k=5)
    found, counted = [], []
    real_find = _topk._find_distinct_pairs
    monkeypatch.setattr(_topk, "_find_distinct_pairs",
                        lambda frame: found.append(1) or real_find(frame))
    real_counts = pd.Series.value_counts
    monkeypatch.setattr(pd.Series, "value_counts",
                        lambda self, *a, **kw: counted.append(self.size) or
                        real_counts(self, *a, **kw))
    shared = tables.beyond_accuracy(test, recs, train=train, items=items, k=5)
    pd.testing.assert_series_equal(shared, alone)
    assert found == [1]
    assert counted.count(len(train)) == 1  # the training rows per item, counted once
    counted.clear()
    with tables.sharing_training(train):  # ... for every metric of the block that reads them
        for _ in range(2):
            novelty(recs, train, k=5, popularity="interactions")
    assert counted.count(len(train)) == 1
    # another training frame in the same session gets its own popularity
    fewer = train.iloc[: len(train) // 2]
    for popularity in ("interactions", "users"):
        with tables.sharing_training(train):
            novelty(recs, train, k=5, popularity=popularity)
            inside = novelty(recs, fewer, k=5, popularity=popularity)
        pd.testing.assert_series_equal(inside, novelty(recs, fewer, k=5, popularity=popularity))
