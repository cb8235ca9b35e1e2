"""The vectorized ranking engine against the naive per-user reference in ``naive.py``.

Every registered ranking metric, several cutoffs and every option combination are compared to
1e-12 on random data: users without recommendations, without relevant items, with IDCG = 0,
short lists, lists shorter than k, ranks with gaps, rank and score together (rank wins), tied
scores, integer, large/negative integer and string ids, users seen only in the
recommendations, and rows in any order.
"""

from __future__ import annotations

import inspect
import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import evalkit.metrics._hits as hits_module
from evalkit.definitions import OPTION_NAMES
from evalkit.metrics import RANKING_METRICS, TieWarning, ranking_curves
from tests.metrics.naive import METRIC_OPTIONS, cases, naive_metric, random_frames, user_data

NAMES = list(RANKING_METRICS)
TOL = 1e-12

OPTION_VALUES: dict[str, list] = {
    "threshold": [4.0, None],  # other thresholds: the random test below
    "gain": ["linear", "exponential", "binary"],
    "discount": [("log", 2.0), ("log", 10.0), ("breese", 2.0)],  # with log_base
    "ap_denominator": ["min", "relevant", "hits"],
    "ties": ["deterministic", "optimistic", "pessimistic", "expected"],
    "neutral": [3.0, 0.5],
    "half_life": [5.0, 2.0],
    # the conventions of other libraries
    "gain_scope": ["rated", "relevant"],
    "ideal": ["truth", "k"],
    "recall_denominator": ["relevant", "min"],
    "precision_users": ["all", "relevant"],
    "relevant_set": ["truth", "listed"],
    "unknown_items": ["keep", "drop"],
    "tie_order": ["item", "item_desc", "item_str", "item_str_desc"],
}
#: The options of the exhaustive grid; the others are varied one at a time against it.
CLASSIC = ("threshold", "gain", "discount", "log_base", "ap_denominator", "ties", "neutral",
           "half_life")
NEW = tuple(o for o in OPTION_VALUES if o not in CLASSIC)
OPTION_VALUES["ap_denominator"].append("k")


def test_reference_covers_the_registry() -> None:
    # A metric added to the registry must be added to the reference (and so to every test
    # here); every metric function takes the definitions its declaration reads, as keywords.
    assert set(METRIC_OPTIONS) == set(RANKING_METRICS)
    for name, metric in RANKING_METRICS.items():
        params = set(inspect.signature(metric.func).parameters) - {"truth", "recs", "k"}
        assert params == set(metric.reads) | {"train", "definitions"}, name
        assert set(METRIC_OPTIONS[name]) <= set(OPTION_NAMES)
        assert ("k" in inspect.signature(metric.func).parameters) == metric.at_k


def train_of(truth: pd.DataFrame) -> pd.DataFrame:
    """Training interactions holding every other test item (the rest are "unknown")."""
    items = np.sort(truth["item_id"].unique().astype(object))
    return pd.DataFrame({"item_id": pd.array(items[::2], dtype=truth["item_id"].dtype)})


def naive(name: str, truth: pd.DataFrame, recs: pd.DataFrame, **options) -> pd.Series:
    """The reference, given the training items where ``unknown_items="drop"`` needs them."""
    if options.get("unknown_items") == "drop":
        options["train_items"] = set(train_of(truth)["item_id"].tolist())
    return naive_metric(name, truth, recs, **options)


def call(name: str, truth: pd.DataFrame, recs: pd.DataFrame, k: int, **options) -> pd.Series:
    """The engine's per-user function, tie warnings silenced (tested in test_ties.py), given
    the options its metric reads (the others do not change it: tests/metrics/test_cards.py)."""
    metric = RANKING_METRICS[name]
    kwargs = {o: v for o, v in options.items() if o in metric.reads or o not in OPTION_NAMES}
    if kwargs.get("unknown_items") == "drop":
        kwargs["train"] = train_of(truth)
    if metric.at_k:
        kwargs["k"] = k
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TieWarning)
        return metric.func(truth, recs, **kwargs)


def assert_matches(got: pd.Series, want: pd.Series, context: object = "") -> None:
    assert got.index.tolist() == want.index.tolist(), context
    np.testing.assert_allclose(
        got.to_numpy(), want.to_numpy(), rtol=TOL, atol=TOL, equal_nan=True, err_msg=str(context)
    )
    assert got.dropped == want.attrs["dropped"], context
    assert got.name == want.name == RANKING_METRICS[got.name].name


def expand(options: dict) -> dict:
    """Turn the ("discount", log_base) pair into the two keywords."""
    out = dict(options)
    if "discount" in out:
        out["discount"], out["log_base"] = out["discount"]
    return out


def _values(name: str, option: str) -> list:
    """The values of an option to try on a metric (no expected ties for a metric from hits)."""
    metric = RANKING_METRICS[name]
    values = ["drop", "zero", "nan"] if option == "empty" else OPTION_VALUES[option]
    if option == "ties" and not metric.expected_ties:
        return [v for v in values if v != "expected"]
    if option == "empty" and not metric.bounds[0] <= 0 <= metric.bounds[1]:
        return [v for v in values if v != "zero"]  # 0 is not a value of the metric
    return values


@st.composite
def option_sets(draw: st.DrawFn, name: str) -> dict:
    chosen = {}
    for opt in METRIC_OPTIONS[name]:
        if opt == "log_base":
            continue
        if opt == "empty":
            chosen[opt] = draw(st.sampled_from(_values(name, "empty")))
        elif opt == "threshold":
            chosen[opt] = draw(st.sampled_from([4.0, None, 2.5, 0.5]))
        else:
            chosen[opt] = draw(st.sampled_from(_values(name, opt)))
    if chosen.get("ideal") == "k":
        chosen["gain"] = "binary"  # the only gain with a fixed ideal item
    return expand(chosen)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_engine_matches_naive_on_random_data(name: str, data: st.DataObject) -> None:
    truth, recs = data.draw(cases(), label="frames")
    options = data.draw(option_sets(name), label="options")
    k = data.draw(st.sampled_from([1, 2, 3, 5, 10]), label="k")
    got = call(name, truth, recs, k, **options)
    want = naive(name, truth, recs, k=k, **options)
    assert_matches(got, want, (k, options))


def _grid(name: str) -> list[dict]:
    """Every combination of the metric's classic options (``empty`` is handled separately)."""
    opts = [o for o in METRIC_OPTIONS[name] if o in CLASSIC and o != "log_base"]
    combos = itertools.product(*(_values(name, o) for o in opts))
    return [expand(dict(zip(opts, values))) for values in combos]


def _one_at_a_time(name: str) -> list[dict]:
    """Each other-library option of the metric at each value, over a few classic settings."""
    bases = [{}, {"ties": "optimistic", "threshold": None}]
    if RANKING_METRICS[name].expected_ties:
        bases.append({"ties": "expected"})
    if name in ("dcg", "ndcg"):
        bases += [{"gain": "binary"}, {"gain": "exponential", "discount": ("breese", 2.0)}]
    if name == "map":
        bases += [{"ap_denominator": a} for a in OPTION_VALUES["ap_denominator"]]
    out = []
    for opt in (o for o in METRIC_OPTIONS[name] if o in NEW):
        for value in _values(name, opt):
            for base in bases:
                options = {**base, opt: value}
                if options.get("ideal") == "k":
                    options["gain"] = "binary"
                out.append(expand(options))
    return out


@pytest.mark.parametrize("name", NAMES)
def test_each_convention_of_other_libraries(name: str) -> None:
    # The options added for other libraries' conventions, one at a time, on score-only lists
    # (ties, and the tie orders) and on ranked lists.
    for order in ("score", "rank"):
        truth, recs = GRID_DATA[order]
        for options in _one_at_a_time(name):
            got = call(name, truth, recs, 4, empty="nan", **options)
            want = naive(name, truth, recs, k=4, empty="nan", prepared=PREPARED[order],
                         **options)
            assert_matches(got, want, (order, options))


GRID_DATA = {
    order: random_frames(np.random.default_rng(20240501 + j), n_users=20, order=order)
    for j, order in enumerate(("score", "rank"))
}
PREPARED = {order: user_data(*frames) for order, frames in GRID_DATA.items()}


@pytest.mark.parametrize("name", NAMES)
def test_every_option_combination(name: str) -> None:
    # Every combination of the definition options, with empty="nan" so that the undefined
    # users show; how "drop" and "zero" derive from "nan" is tested below for every metric.
    # Tie policies only matter for score-only lists, so the ranked data runs once per combo
    # without ties.
    # Cutoffs other than 4 are varied by the random test above.
    for order in ("score", "rank"):
        truth, recs = GRID_DATA[order]
        for options in _grid(name):
            if order == "rank" and options.get("ties", "deterministic") != "deterministic":
                continue
            got = call(name, truth, recs, 4, empty="nan", **options)
            want = naive_metric(name, truth, recs, k=4, empty="nan", prepared=PREPARED[order],
                                **options)
            assert_matches(got, want, (order, options))


@pytest.mark.parametrize("name", NAMES)
def test_empty_policies_derive_from_nan(name: str) -> None:
    truth, recs = GRID_DATA["score"]
    nan = call(name, truth, recs, 3, empty="nan")
    drop = call(name, truth, recs, 3, empty="drop")
    if "zero" not in _values(name, "empty"):  # 0 is not a value of the metric: refused
        with pytest.raises(ValueError, match="empty='zero' would score"):
            call(name, truth, recs, 3, empty="zero")
        pd.testing.assert_series_equal(drop, nan.dropna(), check_series_type=False)
        assert drop.dropped.get("undefined", 0) == int(nan.isna().sum()) > 0
        return
    zero = call(name, truth, recs, 3, empty="zero")
    assert zero.index.equals(nan.index)
    # what is derived from a result (nan.fillna, nan.dropna) is a plain Series
    pd.testing.assert_series_equal(zero, nan.fillna(0.0), check_series_type=False)
    pd.testing.assert_series_equal(drop, nan.dropna(), check_series_type=False)
    n_undefined = int(nan.isna().sum())
    assert drop.dropped.get("undefined", 0) == n_undefined
    assert zero.dropped.get("undefined", 0) == 0
    assert nan.dropped.get("undefined", 0) == 0
    assert drop.n_users == len(drop) == zero.n_users - n_undefined
    assert nan.n_users == len(drop)
    if name in ("recall", "f1", "r_precision", "map", "mrr"):
        assert n_undefined > 0  # the data must exercise the policy


@pytest.mark.parametrize("ratings", ["half-stars", "distinct"])
@pytest.mark.parametrize("truth_order", ["grouped", "shuffled"])
def test_join_paths_agree_with_naive(truth_order: str, ratings: str) -> None:
    # The join needs the truth grouped by user: grouped truth is used as it is, shuffled
    # truth is grouped by a counting sort first. With more distinct ratings than a byte can
    # code, test rows are coded by their row numbers instead of their rating levels.
    truth, recs = random_frames(np.random.default_rng(7), n_users=90, order="score")
    truth = truth.sort_values(["user_id", "item_id"], ignore_index=True)
    if truth_order == "shuffled":
        truth = truth.sample(frac=1.0, random_state=3, ignore_index=True)
        assert not truth["user_id"].is_monotonic_increasing
    if ratings == "distinct":
        truth = truth.assign(rating=truth["rating"] + np.arange(len(truth)) * 1e-4)
        assert truth["rating"].nunique() > hits_module._MAX_LEVELS
    for name in NAMES:
        got = call(name, truth, recs, 4, empty="nan")
        want = naive_metric(name, truth, recs, k=4, empty="nan")
        assert_matches(got, want, (name, truth_order, ratings))


def test_rating_levels() -> None:
    levels, index = hits_module._rating_levels(np.array([4.5, 0.5, 3.0, 4.5, -1.0]))
    assert levels.tolist() == [-1.0, 0.5, 3.0, 4.5]
    assert index.tolist() == [3, 1, 2, 3, 0]
    levels, index = hits_module._rating_levels(np.array([0.25, 0.1, 0.25]))  # not half stars
    assert levels.tolist() == [0.1, 0.25]
    assert index.tolist() == [1, 0, 1]
    assert hits_module._rating_levels(np.arange(300) / 7) is None
    assert hits_module._rating_levels(np.arange(300) / 2) is None  # 300 half-star levels


CURVE_COLUMNS = ("precision", "recall", "f1", "hit_rate", "map", "mrr", "ndcg")
CURVE_OPTIONS = [
    dict(empty="drop", ties="deterministic", gain="linear", ap_denominator="min"),
    dict(empty="zero", ties="deterministic", gain="exponential", ap_denominator="relevant"),
    dict(empty="nan", ties="deterministic", gain="binary", ap_denominator="hits"),
    dict(empty="drop", ties="expected", gain="binary", ap_denominator="relevant",
         discount="breese", log_base=3.0),
    dict(empty="zero", ties="optimistic", gain="linear", ap_denominator="hits", threshold=None),
    dict(empty="nan", ties="pessimistic", gain="exponential", ap_denominator="min",
         threshold=2.5),
    # other libraries' conventions, on both the compiled and the array routes
    dict(empty="drop", ties="deterministic", gain="binary", ideal="k", ap_denominator="k",
         recall_denominator="min", precision_users="relevant"),
    dict(empty="zero", ties="expected", gain="linear", gain_scope="relevant",
         relevant_set="listed", recall_denominator="min", ap_denominator="k"),
    dict(empty="nan", ties="optimistic", tie_order="item_str_desc", precision_users="relevant",
         gain="exponential", gain_scope="relevant", unknown_items="drop"),
    dict(empty="drop", ties="expected", gain="binary", ideal="k", precision_users="relevant",
         tie_order="item_desc"),
]


@pytest.mark.parametrize("options", CURVE_OPTIONS,
                         ids=lambda o: "-".join(str(v) for v in o.values()))
def test_curves_are_means_of_the_per_user_functions(options: dict) -> None:
    truth, recs = GRID_DATA["score"]
    k_max = 6
    train = {"train": train_of(truth)} if options.get("unknown_items") == "drop" else {}
    curves = ranking_curves(truth, recs, k_max=k_max, **train, **options)
    assert curves.index.tolist() == list(range(1, k_max + 1))
    assert list(curves.columns) == [*CURVE_COLUMNS, *(f"n_users_{n}" for n in CURVE_COLUMNS)]
    for name in CURVE_COLUMNS:
        accepted = set(METRIC_OPTIONS[name])
        kw = {o: v for o, v in options.items() if o in accepted}
        for k in range(1, k_max + 1):
            per_user = call(name, truth, recs, k, **kw)
            assert curves.loc[k, name] == pytest.approx(per_user.mean(), rel=TOL, abs=TOL), (
                name, k
            )
            # each mean's own count: the users the per-user function gives a value
            assert curves.loc[k, f"n_users_{name}"] == per_user.notna().sum(), (name, k)


def test_curves_match_naive_directly() -> None:
    # The same, against the reference rather than the per-user functions.
    truth, recs = GRID_DATA["rank"]
    curves = ranking_curves(truth, recs, k_max=8, empty="zero", ap_denominator="relevant")
    for name in CURVE_COLUMNS:
        for k in (1, 5, 8):
            kw = {"empty": "zero"}
            if name == "map":
                kw["ap_denominator"] = "relevant"
            want = naive_metric(name, truth, recs, k=k, **kw).mean()
            assert curves.loc[k, name] == pytest.approx(want, rel=TOL, abs=TOL), (name, k)
