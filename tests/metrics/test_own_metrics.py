"""Metrics of your own: a declaration and a function of each user's hits, registered, work
wherever a built-in metric does; and the built-in metric declared that way
(first_relevant_rank, lower is better) is checked against independent statements."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evalkit as ek
import evalkit.report as rp
from evalkit.metrics import (
    RANKING_METRICS,
    Hits,
    Metric,
    definition_cards,
    get_metric,
    load_metrics,
    register,
    unregister,
)
from tests.metrics.naive import naive_metric, random_frames

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.filterwarnings("ignore:.*appear only in 'recs'")


def discounted_hits(hits: Hits, k: int) -> np.ndarray:
    """Each hit counts 1 / rank: NaN for a user without a relevant item."""
    values = hits.sum(1.0 / hits.rank)
    return np.where(hits.n_relevant > 0, values, np.nan)


def discounted_hits_by_hand(truth: pd.DataFrame, recs: pd.DataFrame, k: int,
                            threshold: float = 4.0) -> pd.Series:
    """The same, one user at a time from the frames (no evalkit)."""
    out = {}
    for user, rows in truth.groupby("user_id"):
        relevant = set(rows.loc[rows["rating"] >= threshold, "item_id"])
        if not relevant:
            out[user] = np.nan
            continue
        listed = recs[(recs["user_id"] == user) & (recs["rank"] <= k)]
        out[user] = sum(1.0 / r for i, r in zip(listed["item_id"], listed["rank"])
                        if i in relevant)
    return pd.Series(out, dtype=float)


@pytest.fixture
def own():
    metric = register(Metric("dhits", per_user=discounted_hits, higher_is_better=True,
                             label="DH", bounds=(0, np.inf), defined_without_relevant=False,
                             curves=True, reads=("threshold", "ties", "empty"),
                             formula="DH@k = sum over the hits in the top k of 1 / rank"))
    yield metric
    unregister("dhits")


def ranked(seed: int = 3, n_users: int = 40):
    return random_frames(np.random.default_rng(seed), n_users=n_users, order="rank")


def test_a_registered_metric_works_in_evaluate_with_intervals(own) -> None:
    truth, recs = ranked()
    result = ek.evaluate(truth, recs, k=[2, 5], metrics=["ndcg", "dhits"], rng=1)
    for k in (2, 5):
        want = discounted_hits_by_hand(truth, recs, k)
        got = result.per_user[f"dhits@{k}"]
        np.testing.assert_allclose(got.to_numpy(), want.reindex(got.index).to_numpy(),
                                   rtol=1e-12, equal_nan=True)
        row = result.summary.loc[f"dhits@{k}"]
        assert row["label"] == "DH" and row["n_users"] == want.notna().sum()
        assert row["mean"] == pytest.approx(want.mean())
        assert row["ci_low"] < row["mean"] < row["ci_high"]
        assert row["dropped_undefined"] == want.isna().sum() > 0
    # its per-user function, derived from the declaration, takes the fields it reads
    series = get_metric("dhits").func(truth, recs, k=5, empty="zero")
    np.testing.assert_allclose(series.to_numpy(),
                               discounted_hits_by_hand(truth, recs, 5).fillna(0).to_numpy())
    with pytest.raises(ek.InvalidParameterError, match="'gain' does not change this metric"):
        get_metric("dhits").func(truth, recs, k=5, gain="binary")
    # and the card
    card = definition_cards().loc["dhits"]
    assert card["label"] == "DH@k" and card["range"] == "[0, inf)" and card["better"] == "higher"
    assert card["conventions"] == "threshold=4.0, ties='deterministic', empty='drop'"


def test_hits_hold_each_users_relevant_items_in_the_top_k() -> None:
    seen = {}

    def capture(hits: Hits, k: int) -> np.ndarray:
        seen[k] = hits
        return np.zeros(hits.n_users)

    register(Metric("capture", per_user=capture, bounds=(0, 1)))
    try:
        truth = pd.DataFrame({"user_id": [1, 1, 1, 2, 3], "item_id": [10, 11, 12, 10, 10],
                              "rating": [5.0, 2.0, 4.0, 4.5, 1.0]})
        recs = pd.DataFrame({"user_id": [1, 1, 1, 1, 3], "item_id": [12, 13, 10, 11, 10],
                             "rank": [1, 2, 4, 5, 1]})
        ek.metrics.rank(truth, recs, k=[3, 4], metrics=["capture"], gain="exponential")
    finally:
        unregister("capture")
    h4, h3 = seen[4], seen[3]
    assert h4.users.tolist() == [1, 2, 3] and h4.k == 4
    assert h4.offsets.tolist() == [0, 2, 2, 2]  # user 1: items 12 (rank 1) and 10 (rank 4)
    assert h4.rank.tolist() == [1, 4]
    assert h4.gain.tolist() == [2.0**4 - 1, 2.0**5 - 1]
    assert h4.n_relevant.tolist() == [2, 1, 0] and h4.n_listed.tolist() == [3, 0, 1]
    assert h4.ideal_offsets.tolist() == [0, 3, 4, 5]
    assert h4.ideal_gain.tolist() == [31.0, 15.0, 3.0, 2.0**4.5 - 1, 1.0]
    assert h3.rank.tolist() == [1] and h3.offsets.tolist() == [0, 1, 1, 1]
    assert h3.n_listed.tolist() == [2, 0, 1]
    assert h4.count().tolist() == [2.0, 0.0, 0.0]
    assert h4.first(h4.rank, default=-1).tolist() == [1.0, -1.0, -1.0]
    np.testing.assert_allclose(h4.discount([1, 3]), np.log2([2, 4]))


def test_a_registered_metric_has_curves_and_works_in_rank(own) -> None:
    truth, recs = ranked(5)
    curves = ek.metrics.ranking_curves(truth, recs, k_max=6, metrics=["recall", "dhits"])
    assert list(curves.columns) == ["recall", "dhits", "n_users_recall", "n_users_dhits"]
    for k in (1, 4, 6):
        assert curves.loc[k, "dhits"] == pytest.approx(discounted_hits_by_hand(truth, recs,
                                                                               k).mean())
    # the plots read the declaration: by name or label, alone or beside built-in ones
    import matplotlib.pyplot as plt

    plt.switch_backend("agg")
    ax = ek.plots.metric_at_k({"mine": curves}, "DH")
    assert ax.get_title() == "DH by cutoff k"
    np.testing.assert_allclose(ax.lines[0].get_ydata(), curves["dhits"])
    assert len(ek.plots.metrics_at_k({"mine": curves}, ["recall", "dhits"]).axes) >= 2
    plt.close("all")
    ranked_ = ek.metrics.rank(truth, recs, k=3, metrics=["dhits"], curves=4)
    assert "dhits" in ranked_.curves.columns and "n_users_dhits" in ranked_.curves.columns
    pd.testing.assert_series_equal(ranked_.curves["dhits"], curves["dhits"].iloc[:4])
    with pytest.raises(ValueError, match="'first_relevant_rank' has no curve"):
        ek.metrics.ranking_curves(truth, recs, metrics=["first_relevant_rank"])


def test_a_registered_metric_curves_with_its_own_user_counts() -> None:
    """Each curve's mean at k counts its own users: a metric undefined for a user without a
    hit in the top k averages more users as k grows, and recall those with a relevant
    item."""

    def first_hit(hits: Hits, k: int) -> np.ndarray:
        return hits.first(hits.rank, default=np.nan)

    register(Metric("first_hit", per_user=first_hit, higher_is_better=False, curves=True,
                    reads=("threshold", "empty")))
    try:
        truth, recs = ranked(5)
        relevant = truth[truth["rating"] >= 4.0]
        with_relevant = relevant["user_id"].nunique()
        listed = recs.merge(relevant[["user_id", "item_id"]], on=["user_id", "item_id"])
        for empty in ("drop", "nan", "zero"):
            curves = ek.metrics.ranking_curves(truth, recs, k_max=6, empty=empty,
                                               metrics=["recall", "first_hit"])
            counts = []
            for k in range(1, 7):
                # by hand: the first hit's rank within the top k, NaN without one
                by_hand = (listed[listed["rank"] <= k].groupby("user_id")["rank"].min()
                           .reindex(truth["user_id"].unique()))
                zero = empty == "zero"
                want = by_hand.fillna(0.0) if zero else by_hand
                mean = pytest.approx(want.mean(), nan_ok=True)
                assert curves.loc[k, "first_hit"] == mean, (empty, k)
                assert curves.loc[k, "n_users_first_hit"] == want.notna().sum(), (empty, k)
                assert curves.loc[k, "n_users_recall"] == (
                    truth["user_id"].nunique() if zero else with_relevant)
                counts.append(int(curves.loc[k, "n_users_first_hit"]))
            if empty != "zero":
                assert counts == sorted(counts) and counts[0] < counts[-1]
    finally:
        unregister("first_hit")


def test_evalkits_own_profile_covers_a_registered_metric(own) -> None:
    """definitions="evalkit" reproduces every metric, a registered one too: in evaluate and
    in the reports' PROFILE check; another library's profile refuses it, naming what it
    covers."""
    from evalkit.report._params import ParameterError, check_parameters

    truth, recs = ranked()
    got = ek.evaluate(truth, recs, k=3, metrics=["dhits"], definitions="evalkit",
                      n_resamples=0)
    assert "dhits@3" in got.per_user.columns
    assert check_parameters(METRICS=["ndcg", "dhits"], PROFILE="evalkit")["METRICS"] == [
        "ndcg", "dhits"]
    assert ek.PROFILES["evalkit"].covers("dhits") and not ek.PROFILES["ranx"].covers("dhits")
    with pytest.raises(ParameterError, match="PROFILE='ranx' does not reproduce"):
        check_parameters(METRICS=["ndcg", "dhits"], PROFILE="ranx")
    with pytest.raises(ValueError, match="profile 'ranx'.*does not cover 'dhits'"):
        ek.evaluate(truth, recs, k=3, metrics=["dhits"], definitions="ranx", n_resamples=0)


def test_compare_wins_by_the_metrics_direction() -> None:
    # "late" puts each user's relevant item last, "early" first: early has the lower (better)
    # first rank and the higher MRR
    users = np.arange(60)
    truth = pd.DataFrame({"user_id": users, "item_id": 0, "rating": 5.0})
    items = np.tile(np.arange(5), 60)
    early = pd.DataFrame({"user_id": np.repeat(users, 5), "item_id": items,
                          "rank": np.tile(np.arange(1, 6), 60)})
    late = early.assign(rank=6 - early["rank"])
    table = ek.compare({"late": late, "early": early}, truth, k=5,
                       metrics=["mrr", "first_relevant_rank"], n_resamples=200)
    pairs = table[table["against"].notna()].set_index("metric")
    assert pairs.loc["first_relevant_rank", "diff"] == -4.0  # early minus late
    assert pairs.loc["mrr", "diff"] > 0
    assert pairs["significant"].all()
    assert pairs.loc["first_relevant_rank", "better"] == "early"  # lower wins
    assert pairs.loc["mrr", "better"] == "early"
    readable = table.readable().set_index("metric")
    assert readable.loc["1st rank@5 (lower is better)", "better"] == "early"
    # the reports mark it too: the best mean is the lowest, and the row says so
    runs = {name: ek.evaluate(truth, recs, k=5, metrics=["mrr", "first_relevant_rank"],
                              n_resamples=50)
            for name, recs in {"late": late, "early": early}.items()}
    summary = rp.summary_table(runs)
    assert summary.loc["1st rank@5 (lower is better)", "early"].endswith("*")
    assert summary.loc["MRR@5", "early"].endswith("*")
    text = rp.findings(runs)
    assert "**early** has the lowest mean on 1st rank@5 (lower is better) 1.000" in text
    assert "lowest where the row says lower is better" in rp.summary_note(runs)
    note = rp.comparison_note(["late", "early"], reference=None, alpha=0.05,
                                     metrics=["first_relevant_rank"])
    assert "the lower one on a metric where lower is better" in note


def test_first_relevant_rank_is_the_reciprocal_of_reciprocal_rank() -> None:
    # An independent statement: where RR@k > 0 the rank is 1 / RR (ranx's and trec_eval's
    # reciprocal rank agree with evalkit's, tests/metrics/test_ranking_crosscheck.py), and
    # k + 1 where RR@k = 0; undefined exactly where RR is.
    truth, recs = random_frames(np.random.default_rng(7), n_users=80, order="score")
    for k in (1, 3, 10):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rr = ek.metrics.reciprocal_rank_at_k(truth, recs, k=k, empty="nan")
            first = ek.metrics.first_relevant_rank(truth, recs, k=k, empty="nan")
        assert first.isna().equals(rr.isna())
        want = np.where(rr > 0, 1.0 / rr.where(rr > 0, 1.0), k + 1.0)
        np.testing.assert_allclose(first.dropna(), want[rr.notna()], rtol=1e-12)
        np.testing.assert_array_equal(
            first.to_numpy(),
            naive_metric("first_relevant_rank", truth, recs, k=k, empty="nan").to_numpy())


@pytest.mark.parametrize(("declaration", "message"), [
    (dict(name="a b", per_user=discounted_hits), "'name' must be a Python identifier"),
    (dict(name="x", per_user=3), "'per_user' must be a function"),
    (dict(name="x", per_user=discounted_hits, higher_is_better="yes"), "True or False"),
    (dict(name="x", per_user=discounted_hits, reads=("gain", "gian")),
     "'gian', which is not a field"),
    (dict(name="x", per_user=discounted_hits, bounds=(1, 0)), "low <= high"),
    (dict(name="x", per_user=discounted_hits, family="other"), "'family' must be one of"),
])
def test_a_bad_declaration_is_refused(declaration, message) -> None:
    with pytest.raises(ek.InvalidParameterError, match=message):
        Metric(**declaration)


def test_register_refuses_what_it_cannot_honour(own) -> None:
    with pytest.raises(ek.InvalidParameterError, match="'ndcg' is a built-in metric"):
        register(Metric("ndcg", per_user=discounted_hits))
    with pytest.raises(ek.InvalidParameterError, match="registered already; pass replace"):
        register(Metric("dhits", per_user=discounted_hits))
    with pytest.raises(ek.InvalidParameterError, match="needs 'per_user'"):
        register(Metric("nothing"))
    with pytest.raises(ek.InvalidParameterError, match="must be an evalkit.metrics.Metric"):
        register("dhits")
    with pytest.raises(ek.InvalidParameterError, match="'ndcg' is a built-in metric"):
        unregister("ndcg")
    assert "nothing" not in RANKING_METRICS
    replaced = register(Metric("dhits", per_user=discounted_hits, label="D"), replace=True)
    assert RANKING_METRICS["dhits"] is replaced and replaced.label == "D"


@pytest.mark.parametrize(("function", "message"), [
    (lambda hits, k: np.zeros(hits.n_users + 1), r"one value per user \(40"),
    (lambda hits, k: "x", "must return one number per user"),
    (lambda hits, k: np.full(hits.n_users, 2.0), r"outside its declared bounds \[0, 1\]"),
    (lambda hits, k: 1 / 0, "division by zero"),
])
def test_a_bad_function_gets_an_error_naming_the_metric(function, message) -> None:
    register(Metric("broken", per_user=function, bounds=(0, 1)))
    try:
        truth, recs = ranked()
        with pytest.raises((ValueError, ZeroDivisionError), match=message) as raised:
            ek.evaluate(truth, recs, metrics=["broken"], n_resamples=0)
        said = str(raised.value) + " ".join(getattr(raised.value, "__notes__", []))
        assert "evaluate: " in said and "metric 'broken'" in said
    finally:
        unregister("broken")


def test_a_metric_from_hits_refuses_expected_ties_and_zero_outside_its_range() -> None:
    truth, recs = random_frames(np.random.default_rng(1), n_users=10, order="score")
    with pytest.raises(ValueError, match="cannot take ties='expected'"):
        ek.evaluate(truth, recs, metrics=["first_relevant_rank"], ties="expected")
    assert recs.groupby("user_id")["score"].apply(lambda s: s.duplicated().any()).any()
    # lists without ties (ranks, or distinct scores) have one order, which is the expectation
    distinct = recs.assign(score=-recs.groupby("user_id").cumcount().astype(float))
    ranks = recs.assign(rank=recs.groupby("user_id").cumcount() + 1).drop(columns="score")
    want = ek.evaluate(truth, ranks, metrics=["first_relevant_rank"]).per_user
    for lists in (distinct, ranks):
        got = ek.evaluate(truth, lists, metrics=["first_relevant_rank"], ties="expected")
        pd.testing.assert_frame_equal(got.per_user, want)
    with pytest.raises(ValueError, match=r"empty='zero' would score .* outside its range \[1,"):
        ek.evaluate(truth, recs, metrics=["first_relevant_rank"], empty="zero")


MODULE = '''
import numpy as np
from evalkit.metrics import Metric, register

register(Metric("found_share", per_user=lambda hits, k: hits.n_listed / k,
                higher_is_better=True, label="Found", bounds=(0, 1)))
'''


def test_a_module_of_metrics_loads_for_the_command_line_and_the_reports(tmp_path) -> None:
    module = tmp_path / "my_metrics.py"
    module.write_text(MODULE)
    names = load_metrics(str(module))
    try:
        assert names == ["found_share"] and load_metrics(str(module)) == []
    finally:
        unregister("found_share")
    with pytest.raises(ImportError, match="could not load the metrics of 'no_such_module'"):
        load_metrics("no_such_module")
    # the command line: --metrics-module, and the variable a report's notebooks read
    truth, recs = ranked()
    truth.to_csv(tmp_path / "test.csv", index=False)
    recs.to_csv(tmp_path / "recs.csv", index=False)
    env = {k: v for k, v in os.environ.items() if k != "EVALKIT_METRICS"}
    done = subprocess.run(
        [sys.executable, "-m", "evalkit", "evaluate", "--truth", str(tmp_path / "test.csv"),
         "--recs", str(tmp_path / "recs.csv"), "--k", "3", "--metrics", "found_share", "mrr",
         "--metrics-module", str(module), "--out", str(tmp_path / "out.json")],
        capture_output=True, text=True, env=env, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    rows = {r["column"]: r for r in json.loads((tmp_path / "out.json").read_text())["summary"]}
    assert rows["found_share@3"]["label"] == "Found"
    listed = recs[recs["rank"] <= 3].groupby("user_id").size()
    want = listed.reindex(sorted(truth["user_id"].unique()), fill_value=0) / 3
    assert rows["found_share@3"]["mean"] == pytest.approx(want.mean())
    code = ("import evalkit.metrics as m; from evalkit.report._params import check_parameters; "
            "print(check_parameters({'METRICS': ['found_share']})['METRICS'])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**env, "EVALKIT_METRICS": str(module)}, cwd=ROOT)
    assert done.returncode == 0 and "found_share" in done.stdout, done.stderr


def test_a_reports_focus_metric_is_evaluated_beside_the_defaults(own) -> None:
    # page 05 draws METRIC's charts: a metric from hits there is evaluated too
    truth, recs = ranked()
    systems = {"a": recs, "b": recs.assign(rank=recs.groupby("user_id").cumcount() + 1)}
    evaluations = rp.evaluate_systems(truth, systems, k=[3], focus="dhits", seed=0)
    metrics = list(evaluations["a"].summary["metric"].unique())
    assert metrics[-1] == "dhits" and "ndcg" in metrics and "first_relevant_rank" not in metrics
    same = rp.evaluate_systems(truth, systems, k=[3], focus="ndcg", seed=0)
    assert list(same["a"].summary["metric"].unique()) == metrics[:-1]
    under = rp.evaluate_systems(truth, systems, k=[3], focus="ndcg", profile="trec_eval")
    assert set(under["a"].summary["metric"]) == {"precision", "recall", "map", "mrr", "ndcg"}
    with pytest.raises(ValueError, match="profile 'trec_eval' .* does not cover 'dhits'"):
        rp.evaluate_systems(truth, systems, k=[3], focus="dhits", profile="trec_eval")
