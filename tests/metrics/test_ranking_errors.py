"""Bad input to every ranking function of the registry (and ``ranking_curves``): each raises
ValueError or TypeError, with a message of the house form ``func: 'arg' <rule>; got <value>.``
that names the function and the argument (and, for unknown names, lists the valid ones)."""

from __future__ import annotations

import inspect
import re
import warnings
from collections.abc import Callable

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import evalkit
from evalkit.metrics import RANKING_METRICS, TieWarning, ranking_curves
from evalkit.metrics._common import (
    AP_DENOMINATORS,
    DISCOUNTS,
    EMPTY_POLICIES,
    GAINS,
    TIE_POLICIES,
)

FUNCS: list[Callable] = [m.func for m in RANKING_METRICS.values()] + [ranking_curves]
IDS = [f.__name__ for f in FUNCS]


def having(param: str) -> list:
    """The functions that take keyword ``param``, as pytest params."""
    return [pytest.param(f, id=f.__name__) for f in FUNCS
            if param in inspect.signature(f).parameters]


WITH_CUTOFF = having("k") + having("k_max")


def truth() -> pd.DataFrame:
    return pd.DataFrame({"user_id": [1, 1, 2], "item_id": [10, 11, 10],
                         "rating": [5.0, 3.0, 4.0]})


def recs() -> pd.DataFrame:
    return pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [10, 12, 11, 10],
                         "rank": [1, 2, 1, 2], "score": [0.9, 0.5, 0.8, 0.1]})


def invoke(func: Callable, t: object, r: object, **kw: object) -> object:
    """Call ``func``, passing ``k`` as ``k_max`` to ranking_curves and dropping it where the
    function has no cutoff (R-precision)."""
    params = inspect.signature(func).parameters
    if "k" in kw and "k" not in params:
        value = kw.pop("k")
        if "k_max" in params:
            kw["k_max"] = value
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TieWarning)
        return func(t, r, **kw)


def cutoff_name(func: Callable) -> str | None:
    params = inspect.signature(func).parameters
    return "k" if "k" in params else "k_max" if "k_max" in params else None


def raises(func: Callable, *patterns: str, exc=(ValueError, TypeError), **call: object):
    """Assert the call fails with ``exc`` and a message naming ``func`` and each pattern."""
    t = call.pop("truth", truth())
    r = call.pop("recs", recs())
    with pytest.raises(exc) as info:
        invoke(func, t, r, **call)
    message = str(info.value)
    assert message.startswith(f"{func.__name__}: "), message
    for p in patterns:
        assert p in message, (p, message)
    return message


def test_valid_input_passes() -> None:
    # The fixtures above are valid for every function: failures below are the bad part only.
    for func in FUNCS:
        invoke(func, truth(), recs(), k=2)


@pytest.mark.parametrize("func", WITH_CUTOFF)
@pytest.mark.parametrize("k", [0, -3, 2.5, "10", True, np.float64(3.0)])
def test_bad_cutoff(func: Callable, k: object) -> None:
    name = cutoff_name(func)
    message = raises(func, f"'{name}'", "positive integer", k=k)
    assert repr(k) in message or str(k) in message


@pytest.mark.parametrize("func", WITH_CUTOFF)
def test_numpy_integer_cutoff_is_accepted(func: Callable) -> None:
    invoke(func, truth(), recs(), k=np.int64(2))


@pytest.mark.parametrize("func", FUNCS, ids=IDS)
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_scores(func: Callable, bad: float) -> None:
    r = recs().drop(columns="rank")
    r.loc[2, "score"] = bad
    raises(func, "'recs'", "'score'", recs=r, k=2)
    # also when a rank is given (the score column is still checked)
    r = recs()
    r.loc[0, "score"] = bad
    raises(func, "'recs'", "'score'", recs=r, k=2)


@pytest.mark.parametrize("func", FUNCS, ids=IDS)
def test_duplicate_pairs(func: Callable) -> None:
    r = recs()
    r.loc[1, "item_id"] = 10  # user 1 gets item 10 twice
    raises(func, "'recs'", "duplicate", "(user_id, item_id)", recs=r, k=2)
    t = pd.concat([truth(), truth().iloc[[0]]], ignore_index=True)
    raises(func, "'truth'", "duplicate", truth=t, k=2)


@pytest.mark.parametrize("order", ["rank", "score"])
@pytest.mark.parametrize("ids", ["int", "str"])
@pytest.mark.parametrize("who", ["evaluated", "recs only", "both"])
def test_repeated_items_are_found_wherever_they_are(order: str, ids: str, who: str) -> None:
    # the ranking metrics find a repeated (user, item) in the join's pass over the lists (users
    # of the truth) and by a check of the rows left out (users only in the lists)
    r = pd.DataFrame({"user_id": [1, 1, 2, 2, 3, 3], "item_id": [10, 12, 11, 10, 13, 14],
                      "rank": [1, 2, 1, 2, 1, 2], "score": [0.9, 0.5, 0.8, 0.1, 0.7, 0.6]})
    first = {"evaluated": (2, 11), "recs only": (3, 14), "both": (2, 11)}[who]
    if who != "recs only":
        r.loc[3, "item_id"] = 11  # user 2 lists item 11 twice
    if who != "evaluated":
        r.loc[4, "item_id"] = 14  # user 3 (not in the truth) lists item 14 twice
    r = r.drop(columns="score" if order == "rank" else "rank")
    t = truth()
    if ids == "str":
        r = r.astype({"user_id": str, "item_id": str})
        t = t.astype({"user_id": str, "item_id": str})
        first = tuple(map(str, first))
    n = 2 if who == "both" else 1
    for func in (RANKING_METRICS["ndcg"].func, ranking_curves):
        raises(func, "'recs'", f"has {n} duplicate (user_id, item_id) pair(s); first: "
               f"({first[0]!r}, {first[1]!r})", truth=t, recs=r, k=2)
    with pytest.raises(ValueError, match=r"^evaluate: 'recs' has \d duplicate \(user_id, "):
        evalkit.evaluate(t, r, k=2)
    # and lists without a repeat pass
    fine = r.drop_duplicates(["user_id", "item_id"])
    with pytest.warns(UserWarning, match="1 user\\(s\\) appear only in 'recs'"):
        evalkit.evaluate(t, fine, k=2, n_resamples=0)


@pytest.mark.parametrize("shuffled", [False, True])
@pytest.mark.parametrize("float_ranks", [False, True])
@pytest.mark.parametrize("who", ["evaluated", "recs only", "both"])
def test_repeated_ranks_are_found_wherever_they_are(shuffled: bool, float_ranks: bool,
                                                    who: str) -> None:
    # the hit table finds a repeated (user, rank) from the order of the evaluated users' lists
    # (or after sorting them) and by a check of the rows of users only in the lists
    r = pd.DataFrame({"user_id": [1, 1, 2, 2, 3, 3], "item_id": [10, 12, 11, 10, 13, 14],
                      "rank": [1, 2, 1, 2, 1, 2]})
    if who != "recs only":
        r.loc[3, "rank"] = 1  # user 2 has rank 1 twice
    if who != "evaluated":
        r.loc[5, "rank"] = 1  # user 3 (not in the truth) has rank 1 twice
    if float_ranks:
        r = r.astype({"rank": float})
    if shuffled:
        r = r.iloc[[5, 2, 0, 4, 3, 1]]
    first = r.loc[r.duplicated(["user_id", "rank"])].iloc[0]
    n = 2 if who == "both" else 1
    for func in (RANKING_METRICS["ndcg"].func, ranking_curves):
        raises(func, "'recs'", f"has {n} duplicate rank(s) within a user; first: user "
               f"{int(first['user_id'])!r}, rank {int(first['rank'])!r}", recs=r, k=2)
    with pytest.raises(ValueError, match=r"^evaluate: 'recs' has \d duplicate rank\(s\)"):
        evalkit.evaluate(truth(), r, k=2)


@pytest.mark.parametrize("func", FUNCS, ids=IDS)
@pytest.mark.parametrize("ranks", [[1, 1, 1, 2], [0, 1, 1, 2], [-1, 1, 1, 2], [1, 1.5, 1, 2]])
def test_bad_ranks(func: Callable, ranks: list) -> None:
    raises(func, "'recs'", "rank", recs=recs().assign(rank=ranks), k=2)


@pytest.mark.parametrize("func", FUNCS, ids=IDS)
@pytest.mark.parametrize("column", ["rank", "score"])
@pytest.mark.parametrize("values", [["1", "2", "1", "2"], [True, False, True, False]])
def test_non_numeric_order_columns(func: Callable, column: str, values: list) -> None:
    r = recs().drop(columns="score" if column == "rank" else "rank").assign(**{column: values})
    raises(func, "'recs'", f"'{column}'", recs=r, k=2)


@pytest.mark.parametrize("func", FUNCS, ids=IDS)
@pytest.mark.parametrize(("arg", "column"), [("truth", "user_id"), ("truth", "item_id"),
                                             ("truth", "rating"), ("recs", "user_id"),
                                             ("recs", "item_id")])
def test_missing_columns(func: Callable, arg: str, column: str) -> None:
    frame = truth() if arg == "truth" else recs()
    raises(func, f"'{arg}'", "missing", column, **{arg: frame.drop(columns=column)}, k=2)


@pytest.mark.parametrize("func", FUNCS, ids=IDS)
def test_neither_rank_nor_score(func: Callable) -> None:
    raises(func, "'recs'", "'rank'", "'score'", recs=recs().drop(columns=["rank", "score"]), k=2)


@pytest.mark.parametrize("func", FUNCS, ids=IDS)
@pytest.mark.parametrize("arg", ["truth", "recs"])
def test_not_a_dataframe(func: Callable, arg: str) -> None:
    raises(func, f"'{arg}'", "DataFrame", exc=TypeError,
           **{arg: (truth() if arg == "truth" else recs()).to_dict("list")}, k=2)


@pytest.mark.parametrize("func", FUNCS, ids=IDS)
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_ratings(func: Callable, bad: float) -> None:
    t = truth()
    t.loc[1, "rating"] = bad
    raises(func, "'truth'", "'rating'", truth=t, k=2)


@pytest.mark.parametrize("func", FUNCS, ids=IDS)
@pytest.mark.parametrize("arg", ["truth", "recs"])
def test_missing_ids(func: Callable, arg: str) -> None:
    frame = truth() if arg == "truth" else recs()
    frame["item_id"] = frame["item_id"].astype(float)
    frame.loc[0, "item_id"] = np.nan
    raises(func, f"'{arg}'", "'item_id'", **{arg: frame}, k=2)


OPTIONS = {
    "gain": GAINS,
    "discount": DISCOUNTS,
    "ap_denominator": AP_DENOMINATORS,
    "empty": EMPTY_POLICIES,
    "ties": TIE_POLICIES,
}


@pytest.mark.parametrize(("func", "option"), [
    pytest.param(f.values[0], option, id=f"{f.id}-{option}")
    for option in OPTIONS for f in having(option)])
@pytest.mark.parametrize("value", ["Linear", None])
def test_unknown_option_lists_the_valid_ones(func: Callable, option: str, value) -> None:
    message = raises(func, option, exc=ValueError, **{option: value}, k=2)
    for valid in OPTIONS[option]:
        assert repr(valid) in message, (valid, message)


def test_policy_names_are_the_documented_ones() -> None:
    # The documented policy names; the error messages above list them from the same tuples.
    assert set(GAINS) == {"linear", "exponential", "binary"}
    assert set(DISCOUNTS) == {"log", "breese"}
    assert set(AP_DENOMINATORS) == {"min", "relevant", "hits", "k"}  # k: rectools
    assert set(EMPTY_POLICIES) == {"drop", "zero", "nan"}
    assert set(TIE_POLICIES) == {"deterministic", "optimistic", "pessimistic", "expected"}


@pytest.mark.parametrize("func", FUNCS, ids=IDS)
@pytest.mark.parametrize("column", ["user_id", "item_id"])
@pytest.mark.parametrize("which", ["truth", "recs"])
def test_id_kinds_differ(func: Callable, column: str, which: str) -> None:
    t, r = truth(), recs()
    if which == "truth":
        t[column] = t[column].astype(str)
    else:
        r[column] = r[column].astype(str)
    raises(func, f"'{column}'", "'truth'", "'recs'", exc=TypeError, truth=t, recs=r, k=2)


@pytest.mark.parametrize("func", FUNCS, ids=IDS)
def test_float_ids_are_refused(func: Callable) -> None:
    raises(func, "'user_id'", exc=TypeError,
           recs=recs().assign(user_id=lambda f: f["user_id"].astype(float)), k=2)


@pytest.mark.parametrize("func", having("threshold"))
@pytest.mark.parametrize("threshold", ["4", True, np.nan])
def test_bad_threshold(func: Callable, threshold: object) -> None:
    raises(func, "'threshold'", threshold=threshold, k=2)


@pytest.mark.parametrize("func", having("log_base"))
@pytest.mark.parametrize("log_base", [1, -2.0, "2", True])
def test_bad_log_base(func: Callable, log_base: object) -> None:
    raises(func, "'log_base'", log_base=log_base, k=2)


@pytest.mark.parametrize(("arg", "value"), [("half_life", 1), ("half_life", 0.0),
                                            ("half_life", "5"), ("half_life", np.nan),
                                            ("neutral", "5"), ("neutral", np.nan),
                                            ("neutral", np.inf)])
def test_bad_half_life_options(arg: str, value: object) -> None:
    # any finite neutral rating is valid; the half-life must exceed 1
    func = RANKING_METRICS["half_life_utility"].func
    raises(func, f"'{arg}'", **{arg: value}, k=2)


def test_options_are_keyword_only_and_no_kwargs() -> None:
    for func in FUNCS:
        params = list(inspect.signature(func).parameters.values())
        assert [p.name for p in params[:2]] == ["truth", "recs"]
        assert all(p.kind is p.KEYWORD_ONLY for p in params[2:]), func.__name__
        assert not any(p.kind is p.VAR_KEYWORD for p in params), func.__name__
        with pytest.raises(TypeError):
            func(truth(), recs(), 2)  # k is keyword-only


# -- found while writing these tests: input that slips past validation ---------------------
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_nullable_rank_with_missing_values() -> None:
    r = recs().drop(columns="score").assign(rank=pd.array([1, None, 1, 2], dtype="Int64"))
    raises(RANKING_METRICS["ndcg"].func, "'recs'", "'rank'", exc=ValueError, recs=r, k=2)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_rank_beyond_int64() -> None:
    r = recs().drop(columns="score").assign(rank=[1.0, 1e300, 1.0, 2.0])
    raises(RANKING_METRICS["ndcg"].func, "'recs'", "'rank'", exc=ValueError, recs=r, k=2)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_infinite_log_base() -> None:
    raises(RANKING_METRICS["ndcg"].func, "'log_base'", exc=ValueError, log_base=np.inf, k=2)


def test_mixed_id_kinds_within_a_column() -> None:
    t = truth().astype({"item_id": object})
    t.loc[1, "item_id"] = "x"
    raises(RANKING_METRICS["ndcg"].func, "'item_id'", truth=t, k=2)


def test_messages_follow_the_house_form() -> None:
    # func: 'arg' <rule>; got <value>.
    message = raises(RANKING_METRICS["precision"].func, exc=ValueError, k=0)
    assert re.fullmatch(r"precision_at_k: 'k' must be a positive integer; got 0 \(int\)\.",
                        message), message


@settings(max_examples=200, deadline=None)
@given(
    groups=st.lists(st.lists(st.integers(-3, 40), max_size=12), min_size=1, max_size=12),
    big=st.sampled_from([0, 2**31 - 20, -(2**40), 2**40]),
    spread=st.sampled_from([1, 2**33]),
    grouped=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_duplicate_detection_matches_pandas(groups, big, spread, grouped, seed) -> None:
    # Grouped rows (users listed one after another) take the compiled passes, or, with values
    # too spread for the kernel's table, the per-group sort (uneven groups: a padded matrix);
    # ungrouped rows the sorted packed keys: all must agree with pandas.
    from evalkit._checks import has_duplicate_pairs

    first = np.repeat(np.arange(len(groups)), [len(g) for g in groups])
    second = np.array([v for g in groups for v in g], dtype=np.int64) * spread + big
    if not grouped:
        order = np.random.default_rng(seed).permutation(first.size)
        first, second = first[order], second[order]
    frame = pd.DataFrame({"a": first, "b": second})
    assert has_duplicate_pairs(frame["a"], frame["b"]) == frame.duplicated().any()
