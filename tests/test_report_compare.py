"""The comparison in reports: compare_systems (every pair or against a reference), the display
table with p-values at the randomization floor, the headline, the notes, and the plot of
paired differences."""

from __future__ import annotations

import re

import matplotlib

matplotlib.use("agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.container import ErrorbarContainer  # noqa: E402

import evalkit as ek  # noqa: E402
from evalkit import (  # noqa: E402
    compare_evaluations,
    format_pvalue,
    plots,  # noqa: E402
)
from evalkit import report as rp  # noqa: E402


@pytest.fixture(scope="module")
def evaluations() -> dict:
    n = 60
    truth = pd.DataFrame({"user_id": np.repeat(np.arange(n), 5),
                          "item_id": np.tile(np.arange(5), n), "rating": 5.0})

    def lists(hits: float, seed: int) -> pd.DataFrame:
        hit = np.random.default_rng(seed).random(n) < hits
        return pd.DataFrame({"user_id": np.repeat(np.arange(n), 5),
                             "rank": np.tile(np.arange(1, 6), n),
                             "item_id": np.tile(np.arange(5), n) + np.repeat(~hit, 5) * 100})

    systems = {"low": lists(0.2, 1), "mid": lists(0.5, 2), "high": lists(0.9, 3)}
    return rp.evaluate_systems(truth, systems, k=[5], metrics=["precision", "ndcg"])


def test_no_reference_compares_every_pair_and_a_reference_each_against_it(evaluations) -> None:
    every = rp.compare_systems(evaluations, reference=None, alpha=0.05)
    pairs = set(zip(every["system"], every["against"])) - {("low", None)}
    assert pairs == {("mid", "low"), ("high", "low"), ("high", "mid")}
    pd.testing.assert_frame_equal(every, compare_evaluations(evaluations, pairs="all"))
    against = rp.compare_systems(evaluations, reference="mid", alpha=0.05)
    pairs = set(zip(against["system"], against["against"])) - {("mid", None)}
    assert pairs == {("low", "mid"), ("high", "mid")}
    assert rp.compare_systems({"one": evaluations["low"]}, reference=None, alpha=0.05) is None


def test_headline_gives_each_pairs_difference_with_its_interval(evaluations) -> None:
    table = rp.compare_systems(evaluations, reference=None, alpha=0.05)
    column = table["column"].iloc[-1]
    headline = rp.significance_headline(table, column=column)
    rows = table[table["against"].notna() & (table["column"] == column)]
    for system, against, diff, low, high in zip(rows["system"], rows["against"], rows["diff"],
                                                rows["diff_ci_low"], rows["diff_ci_high"]):
        key = f"{column} {system} \u2212 {against}"
        assert headline[key] == diff
        assert headline["intervals"][key] == [low, high]
    tested = table["permutation_pvalue"].notna()
    assert headline["significant after Holm"] == \
        f"{int(table.loc[tested, 'significant'].sum())} of {int(tested.sum())} tests"
    assert len(headline) == len(rows) + 2
    # a column the table does not have: its first metric@k
    first = rp.significance_headline(table, column="nope@3")
    assert next(iter(first)).startswith(table["column"].iloc[0] + " ")
    assert rp.significance_headline(None) == {"paired tests": "one system: no pair to compare"}


def test_the_display_table_formats_and_the_numbers_stay_numeric(evaluations) -> None:
    table = rp.compare_systems(evaluations, reference=None, alpha=0.05)
    shown = rp.comparison_table(table)
    assert list(shown.columns) == ["system", "against", "metric", "difference", "d_z",
                                   "p (Holm)", "significant", "better", "detectable", "users"]
    assert len(shown) == 6 and set(shown["metric"]) == {"P@5", "NDCG@5"}
    tested = table[table["against"].notna()].reset_index(drop=True)
    for i, row in tested.iterrows():
        assert shown.loc[i, "difference"] == (
            f"{row['diff']:+.3f} [{row['diff_ci_low']:+.3f}, {row['diff_ci_high']:+.3f}]")
        p = shown.loc[i, "p (Holm)"]
        assert p.startswith("< ") == bool(row["p_at_floor"])
        assert shown.loc[i, "significant"] == ("yes" if row["significant"] else "no")
        # every metric here is higher-is-better: the better system has the higher mean
        better = (row["system"] if row["diff"] > 0 else row["against"]) \
            if row["significant"] else ""
        assert shown.loc[i, "better"] == better
    assert table["permutation_pvalue_holm"].dtype == float
    assert table["p_at_floor"].dtype == bool
    assert rp.comparison_table(None) is None


def test_a_p_value_at_the_floor_is_shown_as_a_bound_rounded_up() -> None:
    # a bound reads plainly: one significant digit, rounded up, and never below 0.001
    assert format_pvalue(1 / 10001, at_floor=True) == "< 0.001"
    assert format_pvalue(11 / 10001, at_floor=True) == "< 0.002"  # not "< 0.0011"
    assert format_pvalue(12 / 10001, at_floor=True) == "< 0.002"
    assert format_pvalue(1 / 1000, at_floor=True) == "< 0.001"
    assert format_pvalue(1 / 101, at_floor=True) == "< 0.01"
    for value in (1 / 10001, 7 / 10001, 11 / 10001, 3 / 999, 1 / 101, 0.5):
        shown = format_pvalue(value, at_floor=True)
        assert re.fullmatch(r"< (0\.0*)?[1-9]", shown), shown
        assert value <= float(shown[2:]) <= max(2 * value, 0.001)
    # below 0.001 every p-value shows as "< 0.001", never in scientific notation
    assert format_pvalue(1 / 10001) == format_pvalue(6.5e-23) == "< 0.001"
    assert format_pvalue(0.001) == "0.001" and format_pvalue(0.0012) == "0.0012"
    assert format_pvalue(0.2) == "0.2" and format_pvalue(np.nan) == ""


def test_comparison_note_says_which_pairs() -> None:
    every = rp.comparison_note(["a", "b", "c", "d"], reference=None, alpha=0.05)
    assert "Every pair of the 4 systems is compared (6 pairs)" in every
    one = rp.comparison_note(["a", "b", "c"], reference="c", alpha=0.01)
    assert "Each system is compared with **c**" in one and "level 0.01" in one
    assert "Every pair" not in one


def test_comparison_note_puts_your_systems_against_the_baselines() -> None:
    note = rp.comparison_note(["knn", "als", "MostPopular"], reference=None, alpha=0.05,
                              baselines=["MostPopular"])
    assert "(3 pairs), your systems against the baselines, and within each group the " \
        "later system against the earlier one" in note
    assert "an interval that excludes 0 can stand beside a `no`" in note


def test_every_pair_is_your_system_minus_a_baseline(evaluations) -> None:
    names = list(evaluations)
    table = rp.compare_systems(evaluations, reference=None, alpha=0.05,
                               baselines=[names[-1]])
    pairs = table[table["against"] == names[-1]]
    assert set(pairs["system"]) == set(names[:-1])
    assert not (table["system"] == names[-1]).any() or \
        table.loc[table["system"] == names[-1], "against"].isna().all()


def _timed(split_kind: str):
    """30 users with 10 timed interactions each, split per user in time, or at random."""
    rng = np.random.default_rng(0)
    users = np.repeat(np.arange(30), 10)
    ratings = pd.DataFrame({"user_id": users, "item_id": np.tile(np.arange(10), 30),
                            "rating": 5.0, "timestamp": np.tile(np.arange(10), 30) + 100 * users})
    if split_kind == "given-temporal":
        held = ratings["item_id"] >= 8
        split = ek.Split(train=ratings[~held], test=ratings[held],
                         info={"strategy": "given"})
    elif split_kind == "given-random":
        held = rng.random(len(ratings)) < 0.2
        split = ek.Split(train=ratings[~held], test=ratings[held], info={"strategy": "given"})
    else:
        split = ek.split.split_by(ratings, split_kind, test_fraction=0.2, rng=0)
    return rp.ReportInputs(name="timed", ratings=ratings, items=None, split=split)


@pytest.mark.parametrize(("kind", "said"), [
    ("user_temporal", "the split is per-user temporal"),
    ("global_temporal", "the split is a cut in time"),
    ("given-temporal", "the split follows time per user"),
    ("given-random", None),
    ("user_ratio", None),
])
def test_cross_validation_note_says_when_the_folds_ignore_the_split_s_time(kind, said) -> None:
    note = rp.cross_validation_note(["MostPopular"], {}, folds=3, inputs=_timed(kind), seed=0)
    if said is None:
        assert "The folds ignore time" not in note
    else:
        assert "**The folds ignore time; the split does not.**" in note and said in note


def _inputs(n_users: int, per_user: int, test_share: float, *, low: bool = False):
    """Report inputs: every user rates ``per_user`` items; the split holds out the last
    ``test_share`` of each user's items."""
    users = np.repeat(np.arange(n_users), per_user)
    items = np.tile(np.arange(per_user), n_users)
    rating = np.where(items % 2 == 0, 5.0, 2.0) if low else np.full(len(users), 5.0)
    ratings = pd.DataFrame({"user_id": users, "item_id": items, "rating": rating})
    held = items >= per_user * (1 - test_share)
    split = ek.Split(train=ratings[~held], test=ratings[held])
    return rp.ReportInputs(name="hand", ratings=ratings, items=None, split=split)


def test_cross_validation_note_states_what_differs_from_the_split() -> None:
    inputs = _inputs(30, 10, 0.2)
    note = rp.cross_validation_note(["MostPopular"], {}, folds=5, inputs=inputs, seed=0)
    assert "The folds re-split all 300 interactions" in note
    assert "Each fold trains on 80.0% of them, the split on 80.0%" in note
    assert "each fold tests 30 users, the split 30, with 2.0 test interactions per user " \
           "(the split: 2.0), 2.0 of them relevant (the split: 2.0)" in note
    assert "alike in these respects" in note and "differ for these reasons" not in note
    note = rp.cross_validation_note(["MostPopular"], {}, folds=2, inputs=inputs, seed=0)
    assert "Each fold trains on 50.0% of them, the split on 80.0%" in note
    assert "5.0 test interactions per user (the split: 2.0)" in note
    assert "differ for these reasons as well as by chance" in note
    half = rp.cross_validation_note(["MostPopular"], {}, folds=5, inputs=_inputs(30, 10, 0.2,
                                                                                 low=True),
                                    seed=0, threshold=4.0)
    assert "of them relevant (the split: 1.0)" in half
    implicit = rp.cross_validation_note(["MostPopular"], {}, folds=5, inputs=inputs, seed=0,
                                        threshold=None)
    assert "2.0 of them relevant" in implicit


@pytest.mark.parametrize("threshold", [3.5, None])
def test_fold_designs_are_those_of_the_folds_frames(threshold) -> None:
    """The note counts each fold's shares, users and interactions from the fold of each row;
    the same counts from the fold's own train and test frames."""
    from evalkit.report._prose import _design, _fold_designs
    from evalkit.split import kfold_folds

    rng = np.random.default_rng(3)
    n = 900
    data = pd.DataFrame({"user_id": rng.integers(0, 40, n) * 7, "item_id": np.arange(n),
                         "rating": rng.integers(1, 11, n) / 2})
    data = data[data.groupby("user_id")["item_id"].transform("size") >= 4].sample(
        frac=1, random_state=1)  # rows out of order
    for given in (data, data.groupby("user_id").head(5)):  # one or two a user in a fold
        folds = kfold_folds(given, folds=4, rng=2)
        got = _fold_designs(folds, threshold)
        want = pd.DataFrame([_design(f.train, f.test, threshold) for f in folds])
        pd.testing.assert_frame_equal(got, want, check_dtype=False)
    fewer = kfold_folds(data.assign(user_id=data["user_id"] % 3), folds=4, rng=2)
    assert _fold_designs(fewer, threshold)["users"].tolist() == [3, 3, 3, 3]
    implicit = _fold_designs(kfold_folds(data.drop(columns="rating"), folds=4, rng=2), threshold)
    assert implicit["relevant"].isna().all()


def test_cross_validated_baselines_hold_one_fold_at_a_time(monkeypatch) -> None:
    """Each fold's frames are made when the fold is reached, used by every baseline, and let
    go before the next fold's (the folds of MovieLens-25M held together are five copies of
    it)."""
    import weakref

    from evalkit.report import _comparing

    rng = np.random.default_rng(0)
    data = pd.DataFrame({"user_id": np.repeat(np.arange(30), 8), "item_id": np.tile(
        np.arange(8), 30), "rating": rng.integers(1, 11, 240) / 2})
    seen: list = []
    refs: list = []

    class Watched(ek.models.MostPopular):
        def fit(self, train):
            alive = [ref() for ref in refs if ref() is not None]
            seen.append((len(alive), any(frame is train for frame in alive)))
            refs.append(weakref.ref(train))
            del alive
            return super().fit(train)

    from evalkit.split import _random

    made: list = []  # (frames of the earlier folds still alive) as each fold is made
    real = _random._make

    def make(*args, **kwargs):
        made.append(sum(ref() is not None for ref in frames))
        split = real(*args, **kwargs)
        frames.extend([weakref.ref(split.train), weakref.ref(split.test)])
        return split

    frames: list = []
    monkeypatch.setattr(_random, "_make", make)
    monkeypatch.setitem(_comparing.MODELS, "Watched", Watched)
    monkeypatch.setitem(_comparing.MODELS, "Again", Watched)
    table = rp.cross_validate_baselines(data, ["Watched", "Again"], folds=4, k=[5],
                                        metrics=["ndcg"], seed=1)
    assert set(table.index.get_level_values("system")) == {"Watched", "Again"}
    # the second baseline of a fold is given the first's frame; none of an earlier fold lives
    assert seen == [(0, False), (1, True)] * 4
    assert made == [0, 0, 0, 0]  # no earlier fold's frames while the next is made


def test_cross_validation_note_counts_the_folds_that_cross_validate_uses() -> None:
    inputs = _inputs(24, 9, 1 / 3)
    note = rp.cross_validation_note(["MostPopular"], {}, folds=3, inputs=inputs, seed=4)
    cv = ek.cross_validate(ek.models.MostPopular, inputs.ratings, folds=3, k=5,
                           metrics=["ndcg"], progress=False, rng=4)
    users = {int(f.counts["users"]) for f in cv.folds}
    assert users == {24} and "each fold tests 24 users" in note
    assert "nothing is cross-validated" in rp.cross_validation_note([], {}, folds=3,
                                                                     inputs=inputs)
    assert "Folds and the single split" not in rp.cross_validation_note(["EASE"], {}, folds=3)


def test_paired_differences_draws_every_tested_pair(evaluations) -> None:
    table = rp.compare_systems(evaluations, reference=None, alpha=0.05)
    before = table.copy()
    ax = plots.paired_differences(table, "ndcg@5")
    pd.testing.assert_frame_equal(table, before)
    bars = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    rows = table[(table["column"] == "ndcg@5") & table["against"].notna()]
    assert len(bars) == len(rows) == 3
    for container, (_, row) in zip(bars, rows.iterrows()):
        np.testing.assert_allclose(container.lines[0].get_xdata(), [row["diff"]])
        segment = np.asarray(container.lines[2][0].get_segments())[0]
        np.testing.assert_allclose(sorted(segment[:, 0]), [row["diff_ci_low"],
                                                           row["diff_ci_high"]])
    assert [t.get_text() for t in ax.get_yticklabels()] == ["mid - low", "high - low",
                                                            "high - mid"]
    for text, (_, row) in zip(ax.texts, rows.iterrows()):
        shown = format_pvalue(row["permutation_pvalue_holm"], at_floor=row["p_at_floor"])
        assert shown.replace(" ", "") in text.get_text()
        assert text.get_text().startswith("n.s.") == (not row["significant"])
    plt.close("all")


def test_paired_differences_errors(evaluations) -> None:
    table = rp.compare_systems(evaluations, reference=None, alpha=0.05)
    with pytest.raises(ValueError, match="paired_differences: 'column' 'map@5' is not in "
                                         "'table'; it has 'precision@5', 'ndcg@5'"):
        plots.paired_differences(table, "map@5")
    with pytest.raises(ValueError, match=r"paired_differences: 'table' is missing column\(s\) "
                                         r"p_at_floor"):
        plots.paired_differences(table.drop(columns="p_at_floor"), "ndcg@5")
    untested = table.assign(diff=np.nan)
    with pytest.raises(ValueError, match="paired_differences: no pair of systems was tested"):
        plots.paired_differences(untested, "ndcg@5")


def test_comparison_plot_of_an_every_pair_table_is_against_the_first(evaluations) -> None:
    table = rp.compare_systems(evaluations, reference=None, alpha=0.05)
    ax = plots.comparison(table, "ndcg@5")
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["low\n(baseline)", "mid", "high"]
    floor = table[(table["column"] == "ndcg@5") & table["p_at_floor"]]
    if len(floor):
        assert any(t.get_text().startswith("p<") for t in ax.texts)
    plt.close("all")


def test_the_detectable_chart_is_promised_exactly_when_it_is_drawn() -> None:
    """Page 07 says "the next chart shows what its test could have detected" only when the
    chart is drawn; two identical lists (no spread of per-user differences) get a sentence
    saying why there is no chart, a table of significant pairs another, one system none."""
    n = 80
    rng = np.random.default_rng(0)
    truth = pd.DataFrame({"user_id": np.repeat(np.arange(n), 3),
                          "item_id": np.tile(np.arange(3), n), "rating": 5.0})
    hits = rng.random(n) < 0.5
    same = pd.DataFrame({"user_id": np.repeat(np.arange(n), 3), "rank": np.tile([1, 2, 3], n),
                         "item_id": np.tile(np.arange(3), n) + np.repeat(~hits, 3) * 100})
    worse = same.assign(item_id=same["item_id"] + 1000 * (rng.random(len(same)) < 0.1))
    cases = {"identical": {"a": same, "b": same.copy()},
             "close": {"a": same, "b": worse}}
    for name, systems in cases.items():
        evaluations = {s: ek.evaluate(truth, lists, k=3, metrics=["ndcg"], n_resamples=50)
                       for s, lists in systems.items()}
        table = rp.compare_systems(evaluations, reference=None, alpha=0.05)
        note = rp.detectable_note(table, "ndcg@3")
        drawn = rp.undecided_pairs(table, "ndcg@3") > 0
        assert ("the next chart shows" in note) == drawn, (name, note)
        if name == "identical":
            assert not drawn and "no chart of detectable differences" in note
    assert rp.detectable_note(None, "ndcg@3") == ""


CV_BASELINES = ["MostPopular", "Random", "ItemKNN"]


@pytest.fixture(scope="module")
def cv_want() -> tuple[rp.ReportInputs, dict[str, pd.DataFrame]]:
    """The sample's inputs, and each baseline's summary from ``ek.cross_validate`` itself
    (the same for both orders of the test below: computed once)."""
    inputs = rp.load_inputs("sample", split="user_ratio", seed=0)
    want = {}
    for name in CV_BASELINES:
        factory = (lambda: ek.models.MODELS["Random"](rng=5)) if name == "Random" \
            else ek.models.MODELS[name]
        want[name] = ek.cross_validate(factory, inputs.ratings, folds=3, k=[5, 10],
                                       metrics=["precision", "ndcg"], threshold=3.5,
                                       definitions=rp.report_definitions("lenskit", 3.5),
                                       progress=False, rng=5).summary
    return inputs, want


@pytest.mark.parametrize("note_first", [True, False])
def test_cross_validated_baselines_are_cross_validate_s_own_from_folds_drawn_once(
        note_first, monkeypatch, cv_want) -> None:
    from evalkit.report import _comparing

    inputs, want = cv_want
    baselines = CV_BASELINES
    drawn = []
    real = _comparing.kfold_folds
    monkeypatch.setattr(_comparing, "kfold_folds", lambda *a, **kw: drawn.append(1) or real(
        *a, **kw))
    if note_first:  # the page's order: the note, then the table, on the same folds
        rp.cross_validation_note(baselines, {}, folds=3, inputs=inputs, seed=5)
    got = rp.cross_validate_baselines(inputs.ratings, baselines, folds=3, k=[5, 10],
                                      metrics=["precision", "ndcg"], threshold=3.5, seed=5,
                                      profile="lenskit")
    assert len(drawn) == 1 and not _comparing._FOLDS  # drawn once, let go after the table
    for name in baselines:
        pd.testing.assert_frame_equal(got.loc[name], want[name])
    other = inputs.ratings.copy()  # other data: other folds
    rp.cross_validation_note(baselines, {}, folds=3, inputs=rp.ReportInputs(
        name="copy", ratings=other, items=None, split=inputs.split), seed=5)
    rp.cross_validate_baselines(inputs.ratings, ["MostPopular"], folds=3, k=[5],
                                metrics=["ndcg"], seed=5)
    assert len(drawn) == 3
