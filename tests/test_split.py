"""Tests for evalkit.split: partition guarantees, per-user proportions, seeding, audit."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalkit.split import (
    SPLITS,
    Split,
    audit,
    get_split_strategy,
    global_temporal_split,
    kfold_folds,
    kfold_split,
    random_split,
    train_dev_test_split,
    user_ratio_split,
    user_temporal_split,
)

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
RATINGS = [0.5, 1.0, 2.0, 3.0, 3.5, 4.0, 4.5, 5.0]


# --------------------------------------------------------------------------- helpers


@st.composite
def interactions(draw: st.DrawFn, min_per_user: int = 1, max_per_user: int = 12) -> pd.DataFrame:
    """Random interaction frames: interleaved users, repeated items, tied timestamps."""
    counts = draw(st.lists(st.integers(min_per_user, max_per_user), min_size=1, max_size=8))
    n = sum(counts)
    user_ids = draw(
        st.lists(st.integers(0, 10**6), min_size=len(counts), max_size=len(counts), unique=True)
    )
    order = np.array(draw(st.permutations(range(n))), dtype=np.int64)
    users = np.repeat(np.array(user_ids, dtype=np.int64), counts)[order]
    items = draw(st.lists(st.integers(0, 20), min_size=n, max_size=n))
    ratings = draw(st.lists(st.sampled_from(RATINGS), min_size=n, max_size=n))
    stamps = draw(st.lists(st.integers(0, 30), min_size=n, max_size=n))
    frame = pd.DataFrame({
        "user_id": users,
        "item_id": np.array(items, dtype=np.int64),
        "rating": np.array(ratings, dtype=np.float64),
        "timestamp": np.array(stamps, dtype=np.int64),
    })
    if draw(st.booleans()):  # unsorted, non-default index labels
        frame.index = order * 3 + 7
    return frame


def user_sizes(frame: pd.DataFrame) -> pd.Series:
    return frame.groupby("user_id").size()


def assert_partition(data: pd.DataFrame, parts: list[pd.DataFrame]) -> None:
    """The parts are disjoint and together are exactly the input rows (as a multiset)."""
    labels = np.concatenate([p.index.to_numpy() for p in parts])
    assert sorted(labels.tolist()) == sorted(data.index.tolist())
    for part in parts:
        assert list(part.columns) == list(data.columns)
        pd.testing.assert_frame_equal(part, data.loc[part.index])
        positions = data.index.get_indexer(part.index)
        assert np.all(np.diff(positions) > 0), "rows must keep the input order"
    rows = Counter(map(tuple, pd.concat(parts).itertuples(index=False)))
    assert rows == Counter(map(tuple, data.itertuples(index=False)))


def labels_in_test(split: Split) -> set:
    return set(split.test.index.tolist())


def round_half_up(x: float) -> int:
    return math.floor(x + 0.5 + 1e-9)


def fixed_frame(n_users: int = 10, per_user: int = 20) -> pd.DataFrame:
    rng = np.random.default_rng(123)
    n = n_users * per_user
    return pd.DataFrame({
        "user_id": np.repeat(np.arange(n_users, dtype=np.int64), per_user),
        "item_id": rng.permutation(n).astype(np.int64),
        "rating": rng.choice(RATINGS, n),
        "timestamp": rng.integers(0, 10**6, n),
    })


# --------------------------------------------------------------------------- Split record


def test_split_repr_and_info() -> None:
    data = fixed_frame(2, 5)
    split = user_ratio_split(data, test_fraction=0.2, rng=7)
    text = repr(split)
    assert text == (
        "Split(strategy='user_ratio', train=8 rows, test=2 rows, test_fraction=0.2, "
        "min_train=1, seed=7)"
    )
    assert split.info == {
        "strategy": "user_ratio",
        "params": {"test_fraction": 0.2, "min_train": 1},
        "seed": 7,
        "sizes": {"train": 8, "test": 2, "dev": None},
    }
    assert split.dev is None
    with pytest.raises(AttributeError):
        split.train = data  # type: ignore[misc]


def test_generator_seed_is_not_recorded() -> None:
    split = random_split(fixed_frame(), rng=np.random.default_rng(0))
    assert split.info["seed"] is None
    assert user_temporal_split(fixed_frame(), n_test=1).info["seed"] is None


# --------------------------------------------------------------------------- random


@SETTINGS
@given(data=interactions(), f=st.floats(0.01, 0.99), seed=st.integers(0, 2**32))
def test_random_split_properties(data: pd.DataFrame, f: float, seed: int) -> None:
    before = data.copy(deep=True)
    split = random_split(data, test_fraction=f, rng=seed)
    pd.testing.assert_frame_equal(data, before)
    assert_partition(data, [split.train, split.test])
    assert len(split.test) == round_half_up(f * len(data))
    assert labels_in_test(random_split(data, test_fraction=f, rng=seed)) == labels_in_test(split)


# --------------------------------------------------------------------------- user ratio


@SETTINGS
@given(data=interactions(), f=st.floats(0.01, 0.99), seed=st.integers(0, 2**32))
def test_user_ratio_split_properties(data: pd.DataFrame, f: float, seed: int) -> None:
    before = data.copy(deep=True)
    split = user_ratio_split(data, test_fraction=f, rng=seed)
    pd.testing.assert_frame_equal(data, before)
    assert_partition(data, [split.train, split.test])
    n = user_sizes(data)
    t = user_sizes(split.test).reindex(n.index, fill_value=0)
    assert (np.abs(t - f * n) <= 1 + 1e-9).all()
    kept = user_sizes(split.train).reindex(n.index, fill_value=0)
    assert (kept >= 1).all(), "min_train=1 keeps every user in train"
    again = user_ratio_split(data, test_fraction=f, rng=np.random.default_rng(seed))
    assert labels_in_test(again) == labels_in_test(split)


@pytest.mark.parametrize(
    ("n", "f", "min_train", "expected"),
    [
        (5, 0.2, 1, 1),  # 1.0
        (5, 0.3, 1, 2),  # 1.5 rounds half up
        (5, 0.7, 1, 4),  # 3.5 (3.4999... in floating point) rounds half up
        (5, 0.9, 1, 4),  # 4.5 -> 5, capped so that one stays in train
        (1, 0.5, 1, 0),  # 0.5 -> 1, capped: a single interaction stays in train
        (1, 0.5, 0, 1),  # no floor: the user is entirely in test
        (10, 0.5, 7, 3),  # the floor wins over the target
        (4, 0.1, 1, 0),  # 0.4 rounds down
    ],
)
def test_user_ratio_rounding_rule(n: int, f: float, min_train: int, expected: int) -> None:
    data = pd.DataFrame({"user_id": np.zeros(n, dtype=np.int64), "item_id": np.arange(n)})
    split = user_ratio_split(data, test_fraction=f, min_train=min_train, rng=0)
    assert len(split.test) == expected


def test_user_ratio_selection_is_uniform_within_user() -> None:
    # Each of a user's 10 rows should go to test about 3 times in 10 over many seeds.
    data = pd.DataFrame({"user_id": np.zeros(10, dtype=np.int64), "item_id": np.arange(10)})
    hits = np.zeros(10)
    for seed in range(400):
        hits[user_ratio_split(data, test_fraction=0.3, rng=seed).test.index] += 1
    assert np.all(np.abs(hits / 400 - 0.3) < 0.1)


# --------------------------------------------------------------------------- seeds


@pytest.mark.parametrize(
    "call",
    [
        lambda d, s: random_split(d, rng=s),
        lambda d, s: user_ratio_split(d, rng=s),
        lambda d, s: train_dev_test_split(d, rng=s),
        lambda d, s: train_dev_test_split(d, rng=s, by="global"),
        lambda d, s: kfold_split(d, folds=4, rng=s)[0],
    ],
    ids=["random", "user_ratio", "train_dev_test", "train_dev_test_global", "kfold"],
)
def test_same_seed_same_split_other_seed_other_split(call: Callable) -> None:
    data = fixed_frame()
    first, again, other = call(data, 0), call(data, 0), call(data, 1)
    pd.testing.assert_frame_equal(first.train, again.train)
    pd.testing.assert_frame_equal(first.test, again.test)
    assert labels_in_test(first) != labels_in_test(other)


# --------------------------------------------------------------------------- user temporal


@SETTINGS
@given(data=interactions(), f=st.floats(0.01, 0.99))
def test_user_temporal_fraction_properties(data: pd.DataFrame, f: float) -> None:
    before = data.copy(deep=True)
    split = user_temporal_split(data, test_fraction=f)
    pd.testing.assert_frame_equal(data, before)
    assert_partition(data, [split.train, split.test])
    n = user_sizes(data)
    t = user_sizes(split.test).reindex(n.index, fill_value=0)
    assert (np.abs(t - f * n) <= 1 + 1e-9).all()
    last_train = split.train.groupby("user_id")["timestamp"].max()
    first_test = split.test.groupby("user_id")["timestamp"].min()
    both = last_train.index.intersection(first_test.index)
    assert (last_train[both] <= first_test[both]).all()


@SETTINGS
@given(data=interactions(), n_test=st.integers(1, 5))
def test_user_temporal_n_test_properties(data: pd.DataFrame, n_test: int) -> None:
    split = user_temporal_split(data, n_test=n_test)
    assert_partition(data, [split.train, split.test])
    n = user_sizes(data)
    t = user_sizes(split.test).reindex(n.index, fill_value=0)
    assert (t == np.minimum(n_test, n - 1)).all()
    # Against a naive reference: sort each user's rows by (timestamp, item_id, position).
    ref = data.assign(pos=np.arange(len(data)))
    ref = ref.sort_values(["user_id", "timestamp", "item_id", "pos"])
    size = ref.groupby("user_id")["item_id"].transform("size")
    rank_from_end = size - ref.groupby("user_id").cumcount()
    expected = ref.index[rank_from_end <= np.minimum(n_test, size - 1)]
    assert set(expected) == labels_in_test(split)


def test_user_temporal_tie_rule_is_item_id() -> None:
    data = pd.DataFrame({
        "user_id": [1, 1, 1, 1],
        "item_id": [9, 3, 7, 1],
        "timestamp": [5, 5, 5, 2],
    })
    split = user_temporal_split(data, n_test=2)
    assert split.test["item_id"].tolist() == [9, 7]  # the two largest item ids at time 5
    assert split.train["item_id"].tolist() == [3, 1]


def test_user_temporal_datetime_and_string_ids_keep_dtypes() -> None:
    data = pd.DataFrame({
        "user_id": pd.Series(["a", "a", "b", "b", "b"], dtype="str"),
        "item_id": pd.Series(["x", "y", "x", "z", "w"], dtype="str"),
        "timestamp": pd.to_datetime(
            ["2020-01-02", "2020-01-01", "2020-01-03", "2020-01-05", "2020-01-04"]
        ),
    })
    split = user_temporal_split(data, n_test=1)
    assert split.test["item_id"].tolist() == ["x", "z"]
    pd.testing.assert_series_equal(split.train.dtypes, data.dtypes)
    pd.testing.assert_series_equal(split.test.dtypes, data.dtypes)


# --------------------------------------------------------------------------- global temporal


@SETTINGS
@given(data=interactions(), f=st.floats(0.01, 0.99))
def test_global_temporal_fraction_properties(data: pd.DataFrame, f: float) -> None:
    before = data.copy(deep=True)
    split = global_temporal_split(data, test_fraction=f)
    pd.testing.assert_frame_equal(data, before)
    assert_partition(data, [split.train, split.test])
    if len(split.train):
        assert split.train["timestamp"].max() < split.test["timestamp"].min()
    cutoff = split.info["params"]["cutoff"]
    m = max(1, round_half_up(f * len(data)))
    assert split.test["timestamp"].min() == cutoff
    assert (data["timestamp"] > cutoff).sum() < m <= len(split.test)


@SETTINGS
@given(data=interactions(), cutoff=st.integers(-1, 32))
def test_global_temporal_cutoff(data: pd.DataFrame, cutoff: int) -> None:
    split = global_temporal_split(data, cutoff=cutoff)
    assert_partition(data, [split.train, split.test])
    assert set(split.test.index) == set(data.index[data["timestamp"] >= cutoff])


def test_global_temporal_datetime_cutoff() -> None:
    data = pd.DataFrame({
        "user_id": [1, 1, 2, 2],
        "item_id": [1, 2, 1, 2],
        "timestamp": pd.to_datetime(["2020-01-01", "2020-03-01", "2020-02-01", "2020-02-15"]),
    })
    split = global_temporal_split(data, cutoff="2020-02-10")
    assert split.test.index.tolist() == [1, 3]
    with pytest.raises(TypeError, match="global_temporal_split: 'cutoff'"):
        global_temporal_split(data, cutoff=12)


# --------------------------------------------------------------------------- k-fold


@SETTINGS
@given(data=interactions(min_per_user=4), folds=st.integers(2, 4), seed=st.integers(0, 2**32))
def test_kfold_properties(data: pd.DataFrame, folds: int, seed: int) -> None:
    before = data.copy(deep=True)
    splits = kfold_split(data, folds=folds, rng=seed)
    pd.testing.assert_frame_equal(data, before)
    assert len(splits) == folds
    tested = np.concatenate([s.test.index.to_numpy() for s in splits])
    assert sorted(tested.tolist()) == sorted(data.index.tolist())  # each row test exactly once
    n = user_sizes(data)
    for i, split in enumerate(splits):
        assert split.info["params"] == {"folds": folds, "fold": i}
        assert_partition(data, [split.train, split.test])
        t = user_sizes(split.test).reindex(n.index, fill_value=0)
        assert ((t == n // folds) | (t == -(-n // folds))).all()


@SETTINGS
@given(data=interactions(min_per_user=3), seed=st.integers(0, 2**32))
def test_kfold_folds_in_canonical_order_hold_kfold_split_s_rows(data: pd.DataFrame,
                                                                seed: int) -> None:
    """The folds cross-validation makes (rows taken in the canonical order, so that models
    and evaluations need not sort them) are kfold_split's, row for row, and in that order."""
    from evalkit._canonical import canonical_order
    splits = kfold_split(data, folds=3, rng=seed)
    generator = np.random.default_rng(seed)
    folds = kfold_folds(data, folds=3, rng=generator, order="canonical")
    again = np.random.default_rng(seed)
    kfold_split(data, folds=3, rng=again)
    assert generator.bit_generator.state == again.bit_generator.state
    for split, fold in zip(splits, folds, strict=True):
        assert fold.info == split.info | {"seed": None}
        for mine, theirs in ((fold.train, split.train), (fold.test, split.test)):
            pd.testing.assert_frame_equal(mine.sort_index(), theirs.sort_index())
            assert (canonical_order(mine) == np.arange(len(mine))).all()
    assert len(folds) == 3 and folds[-1].info == folds[2].info
    assert [s.info["params"] for s in folds[1:]] == [s.info["params"] for s in splits[1:]]
    with pytest.raises(IndexError, match="Folds: fold 3 does not exist; there are 3"):
        folds[3]
    with pytest.raises(TypeError, match="Folds: a fold is indexed by an integer or a slice"):
        folds["1"]
    assert [s.info["params"]["fold"] for s in folds[::2]] == [0, 2]
    for split, lazy in zip(splits, kfold_folds(data, folds=3, rng=seed), strict=True):
        assert lazy.info == split.info  # the default: kfold_split's splits, as they are
        pd.testing.assert_frame_equal(lazy.train, split.train)
        pd.testing.assert_frame_equal(lazy.test, split.test)


def test_kfold_rejects_small_users_with_count() -> None:
    data = pd.DataFrame({"user_id": [1, 1, 1, 2, 2, 3], "item_id": [1, 2, 3, 1, 2, 1]})
    with pytest.raises(ValueError, match=r"kfold_split: 'folds' is 3, but 2 user\(s\)"):
        kfold_split(data, folds=3, rng=0)
    assert len(kfold_split(data[data["user_id"] == 1], folds=3, rng=0)) == 3


# --------------------------------------------------------------------------- train/dev/test


@SETTINGS
@given(
    data=interactions(),
    cuts=st.tuples(st.floats(0.05, 0.9), st.floats(0.05, 0.9)).filter(
        lambda c: abs(c[0] - c[1]) > 0.02
    ),
    seed=st.integers(0, 2**32),
    by=st.sampled_from(["user", "global"]),
)
def test_train_dev_test_properties(data: pd.DataFrame, cuts: tuple, seed: int, by: str) -> None:
    lo, hi = sorted(cuts)
    fractions = (1 - hi, hi - lo, lo)  # train, dev, test
    before = data.copy(deep=True)
    split = train_dev_test_split(data, fractions=fractions, rng=seed, by=by)
    pd.testing.assert_frame_equal(data, before)
    assert split.dev is not None
    assert_partition(data, [split.train, split.dev, split.test])
    if by == "global":
        assert len(split.test) == round_half_up(lo * len(data))
        assert len(split.test) + len(split.dev) == round_half_up(hi * len(data))
        return
    n = user_sizes(data)
    parts = [
        user_sizes(p).reindex(n.index, fill_value=0) for p in (split.train, split.dev, split.test)
    ]
    assert (parts[0] >= 1).all()
    uncapped = n - 1 >= np.floor(hi * n + 0.5 + 1e-9)  # users the min_train floor leaves alone
    for part, f in zip(parts, fractions):
        assert (np.abs(part - f * n)[uncapped] <= 1 + 1e-9).all()


def test_train_dev_test_default_shares() -> None:
    split = train_dev_test_split(fixed_frame(10, 20), rng=3)
    assert split.info["params"] == {"fractions": (0.8, 0.1, 0.1), "by": "user", "min_train": 1}
    assert split.info["sizes"] == {"train": 160, "test": 20, "dev": 20}
    assert (user_sizes(split.dev) == 2).all() and (user_sizes(split.test) == 2).all()


# --------------------------------------------------------------------------- registry


def test_registry() -> None:
    assert SPLITS == {
        "random": random_split,
        "user_ratio": user_ratio_split,
        "user_temporal": user_temporal_split,
        "global_temporal": global_temporal_split,
        "kfold": kfold_split,
        "train_dev_test": train_dev_test_split,
    }
    assert get_split_strategy("kfold") is kfold_split
    with pytest.raises(ValueError) as err:
        get_split_strategy("leave_one_out")
    message = str(err.value)
    assert "get_split_strategy" in message and "'leave_one_out'" in message
    for name in SPLITS:
        assert repr(name) in message


# --------------------------------------------------------------------------- bad input

GOOD = pd.DataFrame({
    "user_id": [1, 1, 1, 2, 2, 2],
    "item_id": [1, 2, 3, 1, 2, 3],
    "rating": [4.0, 3.0, 5.0, 2.0, 4.0, 1.0],
    "timestamp": [1, 2, 3, 4, 5, 6],
})


def with_column(name: str, values: list) -> pd.DataFrame:
    return GOOD.assign(**{name: values})


BAD_INPUTS = [
    # (function, data, options, argument named in the message)
    (random_split, GOOD.drop(columns="item_id"), {}, "data"),
    (random_split, [[1, 2]], {}, "data"),
    (random_split, GOOD.iloc[:0], {}, "data"),
    (random_split, with_column("user_id", [1.0, 1, 1, 2, 2, 2]), {}, "data"),
    (user_ratio_split, with_column("item_id", [1, np.nan, 3, 1, 2, 3]), {}, "data"),
    (user_ratio_split, with_column("rating", ["4", "3", "5", "2", "4", "1"]), {}, "data"),
    (user_ratio_split, with_column("rating", [4.0, np.nan, 5, 2, 4, 1]), {}, "data"),
    (random_split, GOOD, {"test_fraction": 0.0}, "test_fraction"),
    (random_split, GOOD, {"test_fraction": 1.0}, "test_fraction"),
    (user_ratio_split, GOOD, {"test_fraction": 1.5}, "test_fraction"),
    (user_ratio_split, GOOD, {"test_fraction": "0.2"}, "test_fraction"),
    (user_ratio_split, GOOD, {"min_train": -1}, "min_train"),
    (user_ratio_split, GOOD, {"min_train": 1.5}, "min_train"),
    (user_ratio_split, GOOD, {"rng": "seed"}, "rng"),
    (user_ratio_split, GOOD, {"rng": -3}, "rng"),
    (user_temporal_split, GOOD, {}, "n_test"),
    (user_temporal_split, GOOD, {"n_test": 1, "test_fraction": 0.2}, "test_fraction"),
    (user_temporal_split, GOOD, {"n_test": 0}, "n_test"),
    (user_temporal_split, GOOD, {"n_test": 1.0}, "n_test"),
    (user_temporal_split, GOOD, {"test_fraction": 2.0}, "test_fraction"),
    (user_temporal_split, GOOD.drop(columns="timestamp"), {"n_test": 1}, "data"),
    (user_temporal_split, with_column("timestamp", list("123456")), {"n_test": 1}, "data"),
    (user_temporal_split, with_column("timestamp", [1, 2, np.nan, 4, 5, 6]), {"n_test": 1},
     "data"),
    (global_temporal_split, GOOD, {}, "cutoff"),
    (global_temporal_split, GOOD, {"cutoff": 3, "test_fraction": 0.2}, "cutoff"),
    (global_temporal_split, GOOD, {"cutoff": "3"}, "cutoff"),
    (global_temporal_split, GOOD, {"cutoff": float("nan")}, "cutoff"),
    (global_temporal_split, GOOD, {"test_fraction": -0.1}, "test_fraction"),
    (kfold_split, GOOD, {"folds": 1}, "folds"),
    (kfold_split, GOOD, {"folds": 2.5}, "folds"),
    (kfold_split, GOOD, {"folds": True}, "folds"),
    (kfold_split, GOOD, {"folds": 4}, "folds"),
    (train_dev_test_split, GOOD, {"fractions": (0.8, 0.1, 0.2)}, "fractions"),
    (train_dev_test_split, GOOD, {"fractions": (0.9, 0.1)}, "fractions"),
    (train_dev_test_split, GOOD, {"fractions": (1.0, 0.0, 0.0)}, "fractions"),
    (train_dev_test_split, GOOD, {"fractions": 0.8}, "fractions"),
    (train_dev_test_split, GOOD, {"by": "item"}, "by"),
]


@pytest.mark.parametrize(("func", "data", "options", "arg"), BAD_INPUTS)
def test_bad_input_names_function_and_argument(
    func: Callable, data: object, options: dict, arg: str
) -> None:
    with pytest.raises((ValueError, TypeError)) as err:
        func(data, **options)
    message = str(err.value)
    assert message.startswith(f"{func.__name__}: ")
    assert arg in message


def test_audit_rejects_non_split() -> None:
    with pytest.raises(TypeError, match="audit: 'split'"):
        audit((GOOD, GOOD))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="audit: 'split.test' is missing column"):
        audit(Split(train=GOOD, test=GOOD.drop(columns="user_id")))


# --------------------------------------------------------------------------- audit


def naive_audit(train: pd.DataFrame, test: pd.DataFrame) -> dict[str, int]:
    """A readable reference for the audit counts."""
    train_pairs = list(zip(train["user_id"], train["item_id"]))
    test_pairs = list(zip(test["user_id"], test["item_id"]))
    counts = {
        "test_pairs_in_train": sum(p in set(train_pairs) for p in test_pairs),
        "duplicate_pairs_train": len(train_pairs) - len(set(train_pairs)),
        "duplicate_pairs_test": len(test_pairs) - len(set(test_pairs)),
        "cold_users": len(set(test["user_id"]) - set(train["user_id"])),
        "cold_items": len(set(test["item_id"]) - set(train["item_id"])),
    }
    if "timestamp" in train and "timestamp" in test:
        first: dict = {}
        for user, t in zip(test["user_id"], test["timestamp"]):
            first[user] = min(first.get(user, math.inf), t)
        counts["user_time_leakage"] = sum(
            t > first.get(user, math.inf) for user, t in zip(train["user_id"], train["timestamp"])
        )
        earliest = min(test["timestamp"], default=math.inf)
        counts["global_time_leakage"] = sum(t > earliest for t in train["timestamp"])
    return counts


@SETTINGS
@given(data=interactions(), seed=st.integers(0, 2**32), f=st.floats(0.05, 0.95))
def test_audit_matches_naive_reference(data: pd.DataFrame, seed: int, f: float) -> None:
    split = random_split(data, test_fraction=f, rng=seed)
    train_before, test_before = split.train.copy(deep=True), split.test.copy(deep=True)
    table = audit(split)
    pd.testing.assert_frame_equal(split.train, train_before)
    pd.testing.assert_frame_equal(split.test, test_before)
    assert list(table.columns) == ["check", "count", "share", "severity", "detail"]
    assert dict(zip(table["check"], table["count"])) == naive_audit(split.train, split.test)
    for row in table.itertuples():
        assert (row.severity == "ok") == (row.count == 0)
        assert 0.0 <= row.share <= 1.0
        assert str(row.count) in row.detail


@pytest.mark.parametrize("ids", ["text", "wide", "int32"])
def test_audit_matches_naive_reference_for_other_ids(ids: str) -> None:
    # text ids, integers too spread to use as codes, and 32-bit ones; pairs repeated within
    # and across the frames
    gen = np.random.default_rng(3)
    frame = pd.DataFrame({"user_id": gen.integers(0, 30, 400), "item_id": gen.integers(0, 40, 400),
                          "timestamp": gen.integers(0, 100, 400)})
    convert = {"text": lambda c: "u" + c.astype(str), "wide": lambda c: c * 10**15,
               "int32": lambda c: c.astype(np.int32)}[ids]
    frame = frame.assign(user_id=convert(frame["user_id"]), item_id=convert(frame["item_id"]))
    train, test = frame.iloc[:300], frame.iloc[300:]
    table = audit(Split(train=train, test=test))
    want = naive_audit(train, test)
    assert dict(zip(table["check"], table["count"])) == want
    assert want["test_pairs_in_train"] and want["duplicate_pairs_train"]


def clean_pair() -> tuple[pd.DataFrame, pd.DataFrame]:
    train = pd.DataFrame({
        "user_id": [1, 1, 2, 2, 3],
        "item_id": [10, 11, 10, 12, 11],
        "rating": [4.0, 3.0, 5.0, 2.0, 4.0],
        "timestamp": [1, 2, 3, 4, 5],
    })
    test = pd.DataFrame({
        "user_id": [1, 2, 3],
        "item_id": [12, 11, 10],
        "rating": [5.0, 4.0, 1.0],
        "timestamp": [6, 7, 8],
    })
    return train, test


def counts_of(split: Split) -> dict[str, int]:
    table = audit(split)
    return {c: n for c, n in zip(table["check"], table["count"]) if n}


def test_audit_clean_split_reports_zero() -> None:
    train, test = clean_pair()
    table = audit(Split(train=train, test=test))
    assert table["check"].tolist() == [
        "test_pairs_in_train", "duplicate_pairs_train", "duplicate_pairs_test",
        "cold_users", "cold_items", "user_time_leakage", "global_time_leakage",
    ]
    assert (table["count"] == 0).all() and (table["share"] == 0).all()
    assert (table["severity"] == "ok").all()


@pytest.mark.parametrize(
    ("plant", "expected"),
    [
        # a test pair copied into train (earlier in time, so only the pair leaks)
        (lambda tr, te: (pd.concat([tr, te.iloc[[0]].assign(timestamp=0)]), te),
         {"test_pairs_in_train": 1}),
        (lambda tr, te: (pd.concat([tr, tr.iloc[[1]]]), te), {"duplicate_pairs_train": 1}),
        (lambda tr, te: (tr, pd.concat([te, te.iloc[[2]]])), {"duplicate_pairs_test": 1}),
        (lambda tr, te: (tr, pd.concat([te, te.iloc[[0]].assign(user_id=99)])), {"cold_users": 1}),
        (lambda tr, te: (tr, pd.concat([te, te.iloc[[0]].assign(item_id=99)])), {"cold_items": 1}),
        # user 1 trains at 7, after their own first test interaction at 6
        (lambda tr, te: (pd.concat([tr, tr.iloc[[0]].assign(item_id=13, timestamp=7)]), te),
         {"user_time_leakage": 1, "global_time_leakage": 1}),
        # user 3 trains at 7: before their own test (8) but after the first test overall (6)
        (lambda tr, te: (pd.concat([tr, tr.iloc[[4]].assign(item_id=13, timestamp=7)]), te),
         {"global_time_leakage": 1}),
    ],
    ids=[
        "pair_leak", "dup_train", "dup_test", "cold_user", "cold_item", "user_time", "global_time"
    ],
)
def test_audit_finds_planted_hazard(plant: Callable, expected: dict[str, int]) -> None:
    train, test = plant(*clean_pair())
    assert counts_of(Split(train=train, test=test)) == expected
    table = audit(Split(train=train, test=test)).set_index("check")
    for check in expected:
        kind = "leak" if check == "test_pairs_in_train" else "warning"
        assert table.loc[check, "severity"] == kind


def test_audit_share_and_dev_checks() -> None:
    train, test = clean_pair()
    dev = pd.DataFrame({"user_id": [1, 2], "item_id": [10, 11], "timestamp": [5, 5]})
    table = audit(Split(train=train, test=test, dev=dev)).set_index("check")
    assert table.loc["dev_pairs_in_train", "count"] == 1  # (1, 10) is in train
    assert table.loc["dev_pairs_in_train", "share"] == pytest.approx(0.5)
    assert table.loc["test_pairs_in_dev", "count"] == 1  # (2, 11) is in dev
    assert table.loc["test_pairs_in_dev", "share"] == pytest.approx(1 / 3)
    assert table.loc["test_pairs_in_dev", "severity"] == "leak"


def test_audit_without_timestamps_omits_time_checks() -> None:
    train, test = clean_pair()
    table = audit(Split(train=train.drop(columns="timestamp"), test=test))
    assert "user_time_leakage" not in set(table["check"])
    assert len(table) == 5


def test_audit_of_temporal_splits_has_no_time_leakage() -> None:
    data = fixed_frame()
    per_user = audit(user_temporal_split(data, test_fraction=0.2)).set_index("check")
    assert per_user.loc["user_time_leakage", "count"] == 0
    overall = audit(global_temporal_split(data, test_fraction=0.2)).set_index("check")
    assert overall.loc["global_time_leakage", "count"] == 0


# --------------------------------------------------------------------------- real data


@pytest.mark.slow
def test_user_ratio_split_on_ml_latest_small(ml_latest_small_dir: Path) -> None:
    ratings = pd.read_csv(ml_latest_small_dir / "ratings.csv").rename(
        columns={"userId": "user_id", "movieId": "item_id"}
    )
    before = ratings.copy(deep=True)
    split = user_ratio_split(ratings, test_fraction=0.2, rng=2024)
    pd.testing.assert_frame_equal(ratings, before)
    assert len(split.train) + len(split.test) == len(ratings)
    assert len(split.test) / len(ratings) == pytest.approx(0.2, abs=0.01)
    n = user_sizes(ratings)
    t = user_sizes(split.test).reindex(n.index, fill_value=0)
    assert (np.abs(t - 0.2 * n) <= 1).all()
    table = audit(split).set_index("check")
    assert not (table["severity"] == "leak").any()
    assert table.loc["cold_users", "count"] == 0  # every user keeps training data
