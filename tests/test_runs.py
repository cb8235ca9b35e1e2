"""Saved runs (Evaluation.save, load_evaluation) and the regression check
(evalkit.regression_check, evalkit check): round trips bit for bit, refusals naming what
differs, verdicts against shifts of known size, p-values against scipy and compare."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

import evalkit as ek
from evalkit import stats


def _data(n_users: int = 300, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Truth, two systems' lists (b better than a) and training data on ``n_users`` users."""
    rng = np.random.default_rng(seed)
    users = np.repeat(np.arange(1, n_users + 1), 5)
    truth = pd.DataFrame({"user_id": users, "item_id": rng.integers(0, 40, len(users)),
                          "rating": rng.choice([2.0, 3.0, 4.0, 5.0], len(users))})
    truth = truth.drop_duplicates(["user_id", "item_id"]).reset_index(drop=True)
    lists = {}
    for name, bias in (("a", 0.0), ("b", 0.6)):
        scores = rng.random((n_users, 40))
        relevant = truth[truth["rating"] >= 4]
        scores[relevant["user_id"] - 1, relevant["item_id"]] += bias
        order = np.argsort(-scores, axis=1)[:, :10]
        lists[name] = pd.DataFrame({"user_id": np.repeat(np.arange(1, n_users + 1), 10),
                                    "item_id": order.ravel(), "rank": np.tile(np.arange(1, 11),
                                                                              n_users)})
    train = pd.DataFrame({"user_id": users, "item_id": rng.integers(40, 80, len(users)),
                          "rating": 3.0})
    return truth, lists["a"], lists["b"], train


@pytest.fixture(scope="module")
def runs():
    truth, a, b, train = _data()
    kw = dict(k=[5, 10], metrics=["precision", "ndcg", "first_relevant_rank"], train=train)
    return truth, a, b, train, ek.evaluate(truth, a, curves=5, **kw), ek.evaluate(truth, b, **kw)


def _bits(frame: pd.DataFrame) -> np.ndarray:
    return frame.to_numpy(np.float64).view(np.int64)


def test_a_saved_run_reads_back_bit_for_bit(runs, tmp_path) -> None:
    truth, a, _, train, run, _ = runs
    split = ek.Split(train=train, test=truth, info={"strategy": "manual", "seed": 3})
    folder = run.save(tmp_path / "run", split=split, name="a")
    back = ek.load_evaluation(folder)
    assert np.array_equal(_bits(back.per_user), _bits(run.per_user))
    assert back.per_user.index.equals(run.per_user.index)
    pd.testing.assert_frame_equal(back.summary, run.summary, check_exact=True)
    pd.testing.assert_frame_equal(back.curves, run.curves, check_exact=True)
    assert back.definitions == run.definitions and back.bootstrap == run.bootstrap
    assert back.counts == run.counts
    saved = back.provenance
    assert saved["name"] == "a" and saved["split"]["strategy"] == "manual"
    assert saved["evalkit_version"] == ek.__version__ and saved["saved"]
    # the fingerprints are the data's, whatever the row order
    shuffled = truth.sample(frac=1.0, random_state=1)
    assert saved["fingerprints"]["truth"] == ek.fingerprint(shuffled, columns=["rating"])
    assert saved["fingerprints"]["recs"]["sha256"] == \
        ek.fingerprint(a[::-1], columns=["rank", "score"])["sha256"]
    assert saved["fingerprints"]["train"]["rows"] == len(train)
    assert back.fingerprints() == run.fingerprints()
    record = json.loads((folder / "run.json").read_text())
    assert [row["column"] for row in record["summary"]] == list(run.summary.index)
    assert record["higher_is_better"]["first_relevant_rank@5"] is False


def test_saving_never_replaces_or_leaves_half_a_run(runs, tmp_path, monkeypatch) -> None:
    run = runs[4]
    folder = run.save(tmp_path / "run")
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    with pytest.raises(FileExistsError, match="overwrite=True"):
        run.save(folder)
    other = tmp_path / "notes"
    other.mkdir()
    (other / "mine.txt").write_text("keep")
    with pytest.raises(FileExistsError, match="not a saved run"):
        run.save(other, overwrite=True)
    assert (other / "mine.txt").read_text() == "keep"

    def broken(self, *args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(pd.DataFrame, "to_parquet", broken)
    with pytest.raises(OSError, match="disk full"):
        run.save(folder, overwrite=True)
    with pytest.raises(OSError, match="disk full"):
        run.save(tmp_path / "new")
    monkeypatch.undo()
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes", "run"]  # nothing left over
    run.save(folder, overwrite=True)
    assert ek.load_evaluation(folder).summary.equals(run.summary)


def test_loading_refuses_what_is_not_a_run(tmp_path, runs) -> None:
    with pytest.raises(FileNotFoundError, match="not a saved run"):
        ek.load_evaluation(tmp_path)
    folder = runs[4].save(tmp_path / "run")
    record = json.loads((folder / "run.json").read_text())
    (folder / "run.json").write_text(json.dumps(record | {"format": 99}))
    with pytest.raises(ValueError, match="newer evalkit"):
        ek.load_evaluation(folder)


def test_a_run_checked_against_itself_passes_with_every_delta_zero(runs, tmp_path) -> None:
    run = runs[4]
    loaded = ek.load_evaluation(run.save(tmp_path / "run"))
    for test in ("t", "randomization", "bootstrap"):
        check = ek.regression_check(loaded, run, test=test)
        assert check.passed and check.failed == []
        assert (check.table["diff"] == 0).all()
        assert (check.table["verdict"] == "unchanged").all()
    assert ek.regression_check(tmp_path / "run", tmp_path / "run", strict=True).passed


def _noisy(run: ek.Evaluation, column: str, shift: float, sd: float, seed: int = 0
           ) -> ek.Evaluation:
    values = run.per_user.copy()
    noise = np.random.default_rng(seed).normal(0.0, sd, len(values))
    values[column] = values[column] + noise + shift
    return dataclasses.replace(run, per_user=values)


@pytest.mark.parametrize("test", ["t", "randomization", "bootstrap"])
def test_a_shift_of_twice_the_mde_is_regressed(runs, test) -> None:
    run = runs[4]
    sd, n, column = 0.05, len(run.per_user), "ndcg@10"
    n_tests = len(run.summary)
    mde = stats.mde(sd=sd, n_users=n, n_tests=n_tests)
    worse = _noisy(run, column, -2 * mde, sd)
    check = ek.regression_check(worse, run, test=test)
    row = check.table.set_index("column").loc[column]
    assert row["verdict"] == "regressed" and row["p_value_adj"] < 0.05
    assert not check.passed and check.failed == [column]
    assert "FAILED" in check.to_markdown() and "**regressed**" in check.to_markdown()
    better = ek.regression_check(_noisy(run, column, 2 * mde, sd), run, test=test)
    assert better.passed and better.table.set_index("column").loc[column, "verdict"] == \
        "improved"
    # a shift too small to tell, without a margin: inconclusive, which only strict fails
    tiny = _noisy(run, column, -0.05 * mde, sd, seed=5)
    assert ek.regression_check(tiny, run, test=test).passed
    strict = ek.regression_check(tiny, run, test=test, strict=True)
    assert not strict.passed and strict.table.set_index("column").loc[column, "verdict"] == \
        "inconclusive"


def test_a_loss_below_half_the_margin_is_non_inferior(runs) -> None:
    run = runs[4]
    margin, column = 0.02, "precision@10"
    worse = _noisy(run, column, -margin / 2.5, 0.005)
    check = ek.regression_check(worse, run, margins={column: margin})
    row = check.table.set_index("column").loc[column]
    assert row["verdict"] == "non-inferior" and row["p_noninferior_adj"] < 0.05
    assert row["p_value_adj"] < 0.05  # worse, but by less than the margin
    assert check.passed
    # the same loss with a margin below it regresses; a relative margin is the baseline's share
    assert not ek.regression_check(worse, run, margins={column: margin / 4}).passed
    relative = ek.regression_check(worse, run, margins={"precision": "50%"})
    base = run.per_user[column].mean()
    assert relative.table.set_index("column").loc[column, "margin"] == pytest.approx(base / 2)
    # a small noisy difference within a wide margin both ways: unchanged
    within = ek.regression_check(_noisy(run, column, 0.0, 0.005), run, margins=0.05)
    assert within.table.set_index("column").loc[column, "verdict"] == "unchanged"


def test_direction_follows_the_metric(runs) -> None:
    run = runs[4]
    column = "first_relevant_rank@10"  # lower is better
    higher = ek.regression_check(_noisy(run, column, 1.0, 0.1), run)
    assert higher.table.set_index("column").loc[column, "verdict"] == "regressed"
    lower = ek.regression_check(_noisy(run, column, -1.0, 0.1), run)
    assert lower.table.set_index("column").loc[column, "verdict"] == "improved"
    assert "(lower is better)" in lower.to_markdown()


def test_p_values_agree_with_scipy_and_with_compare(runs) -> None:
    _, _, _, _, a, b = runs
    check = ek.regression_check(b, a, margins=0.01).table.set_index("column")
    holm_free = ek.regression_check(b, a, correction="none", margins=0.01).table
    holm_free = holm_free.set_index("column")
    for column in a.summary.index:
        sign = 1 if a.directions()[column] else -1
        both = pd.concat([b.per_user[column], a.per_user[column]], axis=1).dropna()
        d = (both.iloc[:, 0] - both.iloc[:, 1]).to_numpy()
        assert holm_free.loc[column, "p_value"] == pytest.approx(
            sps.ttest_rel(both.iloc[:, 0], both.iloc[:, 1]).pvalue, rel=1e-9)
        assert holm_free.loc[column, "p_noninferior"] == pytest.approx(
            sps.ttest_1samp(sign * d + 0.01, 0.0, alternative="greater").pvalue, rel=1e-9,
            abs=1e-300)
        # every metric has a margin: the two one-sided tests' interval, simultaneous over
        # the m metrics (Bonferroni), 1 - 2 alpha / m
        assert check.loc[column, "ci_level"] == pytest.approx(1 - 2 * 0.05 / len(check))
        low, high = sps.t.interval(1 - 2 * 0.05 / len(check), len(d) - 1, loc=d.mean(),
                                   scale=sps.sem(d))
        assert check.loc[column, "diff_ci_low"] == pytest.approx(low, rel=1e-9)
        assert check.loc[column, "diff_ci_high"] == pytest.approx(high, rel=1e-9)
    # the randomization test is compare's: the same flips give the same p-values
    table = ek.compare_evaluations({"a": a, "b": b}, n_permutations=2000)
    tested = table[table["against"].notna()].set_index("column")
    randomized = ek.regression_check(b, a, test="randomization", n_permutations=2000,
                                     correction="none").table.set_index("column")
    pd.testing.assert_series_equal(randomized["p_value"], tested["permutation_pvalue"],
                                   check_names=False)


def test_runs_that_cannot_be_compared_are_refused_naming_why(runs) -> None:
    truth, a, _, train, run, _ = runs
    other = ek.evaluate(truth.iloc[:-3], a, k=[5, 10], train=train,
                        metrics=["precision", "ndcg", "first_relevant_rank"])
    with pytest.raises(ek.IncomparableRunsError, match="different test data"):
        ek.regression_check(other, run)
    defs = ek.evaluate(truth, a, k=[5, 10], metrics=["precision", "ndcg"], train=train,
                       discount="breese")
    with pytest.raises(ek.IncomparableRunsError, match="discount 'breese'"):
        ek.regression_check(defs, run)
    fewer = dataclasses.replace(run, per_user=run.per_user.iloc[:-1])
    with pytest.raises(ek.IncomparableRunsError, match="different test users"):
        ek.regression_check(fewer, run)
    with pytest.raises(ValueError, match="'margins' names 'recall'"):
        ek.regression_check(run, run, margins={"recall": 0.1})
    with pytest.raises(ValueError, match="margin of ndcg@10"):
        ek.regression_check(run, run, margins={"ndcg@10": -1})
    with pytest.raises(TypeError, match="'current' must be an evalkit Evaluation"):
        ek.regression_check({"a": 1}, run)
    subset = ek.evaluate(truth, a, k=[10], metrics=["ndcg"], train=train)
    check = ek.regression_check(subset, run)
    assert list(check.table["column"]) == ["ndcg@10"]
    assert any("P@5 is only in the baseline run" in note for note in check.notes)  # a label


def test_the_check_command_exits_by_its_verdict(runs, tmp_path, monkeypatch, capsys) -> None:
    from evalkit.cli import main

    truth, a, b, _, _, _ = runs
    for name, frame in (("test", truth), ("a", a), ("b", b)):
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    monkeypatch.chdir(tmp_path)  # the command line, in this process (as `evalkit ...`)

    def cli(*args: str) -> tuple[int, str, str]:
        try:
            code = main(list(args))
        except SystemExit as exit_:  # argparse's own errors
            code = exit_.code
        out, err = capsys.readouterr()
        return code, out, err

    for name in ("a", "b"):
        code, _, err = cli("evaluate", "--truth", "test.csv", "--recs", f"{name}.csv",
                           "--metrics", "precision", "ndcg", "--save", f"runs/{name}")
        assert code == 0, err
    code, _, err = cli("evaluate", "--truth", "test.csv", "--recs", "a.csv", "--save",
                       "runs/a", "--out", "other.json")
    assert code == 2 and "--force" in err and not (tmp_path / "other.json").exists()
    assert ek.load_evaluation(tmp_path / "runs" / "a").provenance["name"] == "a"
    code, out, err = cli("check", "--baseline", "runs/a", "--current", "runs/b")
    assert code == 0, err
    assert out.startswith("### evalkit regression check: passed")
    assert "| NDCG@10 |" in out and "improved" in out
    code, out, _ = cli("check", "--baseline", "runs/b", "--current", "runs/a", "--margin",
                       "ndcg@10=1%", "--margin", "0.001", "--test", "randomization")
    assert code == 1 and "regressed" in out and "randomization" in out
    code, _, err = cli("check", "--baseline", "runs/a", "--current", "nowhere")
    assert code == 2 and "not a saved run" in err
    # runs of other test data cannot be compared: exit 2 (never 1, which a CI gate reads as
    # "regressed"), naming why; and the error is a ValueError, as documented
    assert issubclass(ek.IncomparableRunsError, ValueError)
    truth.iloc[:-3].to_csv(tmp_path / "fewer.csv", index=False)
    code, _, err = cli("evaluate", "--truth", "fewer.csv", "--recs", "b.csv", "--metrics",
                       "precision", "ndcg", "--save", "runs/fewer")
    assert code == 0, err
    code, out, err = cli("check", "--baseline", "runs/a", "--current", "runs/fewer")
    assert code == 2 and out == "" and "different test data" in err, err
    assert err.startswith("evalkit check: error: ") and "Traceback" not in err
    # a bare --margin is every row's, catalog coverage's too, as regression_check's margins
    code, out, err = cli("check", "--baseline", "runs/b", "--current", "runs/a", "--margin",
                         "0.5", "--coverage")
    api = ek.regression_check(tmp_path / "runs" / "a", tmp_path / "runs" / "b", margins=0.5,
                              coverage=True)
    coverage_rows = api.table[api.table["metric"] == "catalog_coverage"]
    assert len(coverage_rows) and (coverage_rows["margin"] == 0.5).all()
    assert code == (0 if api.passed else 1), out + err
    rows = [line for line in out.splitlines() if line.lower().startswith("| catalog coverage")]
    assert rows and all("| 0.5 |" in line for line in rows), out
    code, _, err = cli("check", "--baseline", "runs/a", "--current", "runs/b", "--margin",
                       "=1")
    assert code == 2 and "--margin takes METRIC@K=VALUE" in err
    # the command as installed: one process, as CI runs it
    done = subprocess.run([sys.executable, "-m", "evalkit", "check", "--baseline", "runs/b",
                           "--current", "runs/a"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert done.returncode == 1 and "FAILED" in done.stdout


def test_compare_takes_saved_runs_and_refuses_other_test_data(runs, tmp_path) -> None:
    truth, a, _, train, run_a, run_b = runs
    loaded = {name: ek.load_evaluation(run.save(tmp_path / name))
              for name, run in (("a", run_a), ("b", run_b))}
    fresh = ek.compare_evaluations({"a": run_a, "b": run_b})
    pd.testing.assert_frame_equal(ek.compare_evaluations(loaded).table, fresh.table)
    other = ek.evaluate(truth.iloc[3:], a, k=[5, 10], train=train,
                        metrics=["precision", "ndcg", "first_relevant_rank"])
    with pytest.raises(ek.IncomparableRunsError, match="different test data"):
        ek.compare_evaluations({"a": loaded["a"],
                                "c": ek.load_evaluation(other.save(tmp_path / "c"))})


def test_the_report_saves_runs_and_checks_each_system_against_a_baseline(runs, tmp_path
                                                                         ) -> None:
    from evalkit import report as rp

    truth, a, b, train, run_a, run_b = runs
    evaluations = {"my model/v2": run_b, "my model v2": run_a}
    assert rp.save_runs(evaluations, None) == {}
    names = rp.save_runs(evaluations, str(tmp_path / "runs"), systems={"my model/v2": b})
    assert names == {"my model/v2": "my_model_v2", "my model v2": "my_model_v2_2"}
    saved = ek.load_evaluation(tmp_path / "runs" / "my_model_v2")
    assert saved.provenance["name"] == "my model/v2"
    assert saved.provenance["fingerprints"]["recs"] == ek.fingerprint(
        b, columns=["rank", "score"])
    with pytest.warns(UserWarning, match="appear only in 'recs'"):
        other = ek.evaluate(truth.iloc[5:], a, k=[5, 10], train=train,
                            metrics=["precision", "ndcg", "first_relevant_rank"])
    baseline = str(tmp_path / "runs" / "my_model_v2_2")  # run_a, as last week's report saved it
    checks = rp.regression_checks({"b": run_b, "a": run_a, "other": other}, baseline)
    assert checks["b"].passed and checks["a"].passed
    assert isinstance(checks["other"], str) and "different test data" in checks["other"]
    note = rp.regression_note(checks, baseline, runs=names)
    assert "checked against `my model v2`" in note
    assert "- **b**: passed (" in note and "improved" in note
    assert "- **other** cannot be checked against it: the runs were evaluated on different" \
        in note
    assert "`runs/my_model_v2`" in note and "non-inferior" not in note
    table = rp.regression_table(checks)
    assert set(table["system"]) == {"a", "b"} and len(table) == 2 * (len(run_a.summary) + 2)
    assert (table.loc[table["system"] == "a", "verdict"] == "unchanged").all()
    assert rp.regression_table({}) is None
    assert "No baseline run was given" in rp.regression_note({}, None, runs={})
    worse = rp.regression_checks({"a": run_a}, str(tmp_path / "runs" / "my_model_v2"),
                                 margin=0.001)
    assert not worse["a"].passed
    assert "regressed: precision@5" in rp.regression_note(worse, str(tmp_path / "runs" /
                                                                      "my_model_v2"))


def test_a_later_report_replaces_the_earlier_runs_folder(tmp_path) -> None:
    from evalkit.report._runner import _publish

    out, staging = tmp_path / "out", tmp_path / "out" / ".staging"
    for folder, system in ((out, "old"), (staging, "new")):
        (folder / "runs" / system).mkdir(parents=True)
        (folder / "runs" / system / "run.json").write_text(system)
        (folder / "page.html").write_text(system)
    _publish(staging, out, ["page.html", "runs"])
    assert [p.name for p in (out / "runs").iterdir()] == ["new"]
    assert (out / "page.html").read_text() == "new"
    (staging / "page.html").write_text("newer")
    _publish(staging, out, ["page.html"])  # a run that saved no runs drops the earlier ones
    assert not (out / "runs").exists() and (out / "page.html").read_text() == "newer"
    assert sorted(p.name for p in out.iterdir()) == [".evalkit-report.json", ".staging",
                                                     "page.html"]


def test_compare_evaluations_takes_the_default_metrics_r_precision_included(runs) -> None:
    truth, a, b, _, _, _ = runs
    first, second = (ek.evaluate(truth, r, k=5, n_resamples=0) for r in (a, b))
    table = ek.compare_evaluations({"a": first, "b": second}, n_resamples=0)
    row = table[(table["column"] == "r_precision") & table["against"].notna()]
    assert len(row) == 1 and pd.isna(row["k"].iloc[0]) and np.isfinite(row["diff"].iloc[0])


def test_catalog_coverage_is_checked_from_the_runs_lists(runs, tmp_path) -> None:
    truth, a, b, _, _, _ = runs
    train = truth.assign(item_id=truth["item_id"] % 30)  # the catalogue: items 0..29
    narrow = a.assign(item_id=a["item_id"] % 12)  # fewer distinct items
    narrow = narrow.drop_duplicates(["user_id", "item_id"])
    kw = dict(k=[5, 10], metrics=["precision", "ndcg", "first_relevant_rank"], train=train)
    run_a, run_narrow = ek.evaluate(truth, a, **kw), ek.evaluate(truth, narrow, **kw)
    saved = ek.load_evaluation(run_a.save(tmp_path / "a"))
    check = ek.regression_check(run_narrow, saved, coverage=True)
    rows = check.table.set_index("column")
    for k in (5, 10):
        column = f"catalog_coverage@{k}"
        with pytest.warns(UserWarning, match="not in the catalog"):  # items 30..39: left out
            want = ek.metrics.catalog_coverage(a, k=k, catalog=train)
        assert rows.loc[column, "baseline"] == pytest.approx(want)
        assert rows.loc[column, "current"] == pytest.approx(
            ek.metrics.catalog_coverage(narrow, k=k, catalog=train))
        assert rows.loc[column, "verdict"] == "regressed"
        assert rows.loc[column, "diff_ci_low"] - 1e-12 <= rows.loc[column, "diff"] \
            <= rows.loc[column, "diff_ci_high"] + 1e-12
    assert "catalog_coverage@10" in check.failed
    assert "Catalog coverage@10" in check.to_markdown()
    assert any("items of the training data" in note for note in check.notes)
    # without lists (a run saved without them): said, not checked
    bare = ek.load_evaluation(run_a.save(tmp_path / "bare", lists=False))
    plain = ek.regression_check(bare, saved, coverage=True)
    assert "catalog_coverage@5" not in set(plain.table["column"])
    assert any("does not hold its lists" in note for note in plain.notes)


def test_margins_name_a_metric_by_its_label_or_its_registry_name(runs) -> None:
    _, _, _, _, run_a, run_b = runs
    by_name = ek.regression_check(run_a, run_b, margins={"ndcg@10": 0.01, "precision": 0.02})
    by_label = ek.regression_check(run_a, run_b, margins={"NDCG@10": 0.01, "P": 0.02})
    pd.testing.assert_frame_equal(by_label.table, by_name.table)
    assert by_label.to_markdown() == by_name.to_markdown()
    margins = by_label.table.set_index("column")["margin"]
    assert margins["ndcg@10"] == 0.01 and margins["ndcg@5"] == 0
    assert margins["precision@5"] == margins["precision@10"] == 0.02
    # a cutoff's own margin wins over its metric's, whichever way each is written
    both = ek.regression_check(run_a, run_b, margins={"NDCG": 0.1, "ndcg@10": 0.2})
    assert both.table.set_index("column")["margin"][["ndcg@5", "ndcg@10"]].tolist() == [0.1, 0.2]
    with pytest.raises(ValueError, match=r"'margins' names NDCG@10 twice \('NDCG@10' and "
                                         r"'ndcg@10'\); give it once"):
        ek.regression_check(run_a, run_b, margins={"NDCG@10": 0.1, "ndcg@10": 0.1})
    with pytest.raises(ValueError, match=r"'margins' names 'MAP@10', which is not among the "
                                         r"metrics the runs share: P@5 \(precision@5\), "):
        ek.regression_check(run_a, run_b, margins={"MAP@10": 0.1})


def test_an_unknown_margin_key_lists_every_metric_of_the_registry(runs) -> None:
    from evalkit.metrics import METRICS

    _, _, _, _, run_a, run_b = runs
    for key in ("NDGC@10", "nDCG@10"):
        with pytest.raises(ValueError) as info:
            ek.regression_check(run_a, run_b, margins={key: 0.1})
        message = str(info.value)
        assert message.startswith(f"regression_check: 'margins' names an unknown metric {key!r}")
        assert all(f"{m.name} ({m.label})" in message or f" {m.name}," in message
                   or f"{m.name} ({m.label}@k)" in message  # R-Prec@k beside R-Prec
                   for m in METRICS.values()), message
    assert "did you mean 'NDCG' or 'ndcg'?" in message  # case-sensitive, and says so


def test_the_summary_line_names_the_failing_metrics_as_the_table_does(runs) -> None:
    _, _, _, _, run_a, run_b = runs
    check = ek.regression_check(run_a, run_b)  # a is worse than b: regressed
    assert not check.passed and check.failed
    markdown = check.to_markdown()
    failing = markdown.split("Failing: ")[1].split(".")[0].split(", ")
    shown = [line.split(" | ")[0].removeprefix("| ").removesuffix(" (lower is better)")
             for line in markdown.splitlines() if "**regressed**" in line]
    assert failing == shown and "P@10" in failing
    assert "precision@" not in markdown and "ndcg@" not in markdown


def test_one_margin_is_one_test_and_its_interval_agrees_with_its_verdict() -> None:
    """The case the issue found: ``--margin NDCG@10=0.005`` with eleven metrics checked. The
    non-inferiority family is the metrics with a margin (here one), so its p-value is not
    multiplied by eleven; the interval beside it is that family's (two one-sided tests at
    1 - 2 alpha), so an interval within the margin comes with a passing verdict, and a
    metric without a margin has the interval of the eleven two-sided tests."""
    rng = np.random.default_rng(11)
    n = 3000
    truth = pd.DataFrame({"user_id": np.arange(n), "item_id": 1, "rating": 5.0})
    metrics = ["precision", "recall", "f1", "hit_rate", "map", "mrr", "ndcg", "dcg",
               "r_precision_at_k", "half_life_utility", "first_relevant_rank"]
    base = ek.evaluate(truth, pd.DataFrame({"user_id": np.arange(n), "item_id": 1,
                                            "rank": rng.integers(1, 12, n)}),
                       k=10, metrics=metrics, n_resamples=0)
    # the current run moves a few users' item one place down or up: a tiny difference
    moved = base.per_user.copy()
    now = dataclasses.replace(base, per_user=moved)
    shift = rng.normal(0.0, 0.05, n)
    for column in moved.columns:
        moved[column] = moved[column] + shift
    check = ek.regression_check(now, base, margins={"NDCG@10": 0.005})
    t = check.table.set_index("column")
    row = t.loc["ndcg@10"]
    assert -0.005 < row["diff_ci_low"] and row["diff_ci_high"] < 0.005  # within the margin
    assert row["verdict"] in ("unchanged", "non-inferior") and check.passed
    assert row["p_noninferior_adj"] == pytest.approx(row["p_noninferior"])  # a family of 1
    assert row["ci_level"] == pytest.approx(0.9)
    others = t.drop(index="ndcg@10")
    assert others["p_noninferior_adj"].isna().all()
    assert np.allclose(others["ci_level"], 1 - 0.05 / len(t))
    assert "90% for one with" in check.summary()
    # the interval agrees with the verdict: within the margin exactly when the one-sided
    # test at alpha finds the loss smaller than the margin
    d = shift
    low = sps.t.interval(0.9, n - 1, loc=d.mean(), scale=sps.sem(d))[0]
    assert row["diff_ci_low"] == pytest.approx(low, rel=1e-9)
    assert (low > -0.005) == (row["p_noninferior_adj"] < 0.05)


def test_no_resampling_is_refused_where_the_test_is_the_bootstrap(runs) -> None:
    """``n_resamples=0`` means no resampling: refused where the test itself resamples
    (``test="bootstrap"``, catalog coverage), instead of silently drawing 1,000."""
    _, _, _, _, a, b = runs
    for options in ({"test": "bootstrap"}, {"coverage": True}):
        with pytest.raises(ek.InvalidParameterError, match=r"regression_check: .* so "
                                                           r"'n_resamples' must be at least 1"):
            ek.regression_check(b, a, n_resamples=0, **options)
    assert ek.regression_check(b, a, n_resamples=0).passed in (True, False)  # t: no resampling


def test_each_correction_is_applied_over_its_family(runs) -> None:
    """Bonferroni and Holm, each over its family, against the p-values corrected by hand:
    the difference over every metric, non-inferiority over the metrics with a margin."""
    from tests.holm_oracle import holm_by_hand

    _, _, _, _, a, b = runs
    margins = {"ndcg@5": 0.01, "ndcg@10": 0.02}
    raw = ek.regression_check(b, a, correction="none", margins=margins).table
    m = int(np.isfinite(raw["p_value"]).sum())
    with_margin = raw["margin"].to_numpy() > 0
    for correction in ("bonferroni", "holm"):
        t = ek.regression_check(b, a, correction=correction, margins=margins).table
        if correction == "bonferroni":
            want = np.minimum(raw["p_value"].to_numpy() * m, 1.0)
            want_ni = np.minimum(raw["p_noninferior"].to_numpy()[with_margin]
                                 * with_margin.sum(), 1.0)
        else:
            want = holm_by_hand(list(raw["p_value"]))
            want_ni = holm_by_hand(list(raw["p_noninferior"][with_margin]))
        assert t["p_value_adj"].to_numpy() == pytest.approx(want, rel=1e-12, abs=0, nan_ok=True)
        assert t["p_noninferior_adj"].to_numpy()[with_margin] == pytest.approx(want_ni, rel=1e-12,
                                                                               abs=0)
        assert t["p_noninferior_adj"][~with_margin].isna().all()


def test_a_shared_truth_is_fingerprinted_as_its_frame() -> None:
    # compare evaluates every system on one shared, validated truth: its runs carry the
    # fingerprint of the frame it holds, so they compare with runs of evaluate
    from evalkit.metrics.ranking import SharedTruth

    truth = pd.DataFrame({"user_id": [0, 1, 2], "item_id": [0, 1, 2], "rating": 5.0})
    recs = pd.DataFrame({"user_id": [0, 1, 2], "item_id": [0, 2, 2], "rank": 1})
    shared = ek.evaluate(SharedTruth(truth), recs, k=1, metrics=["precision"], n_resamples=0)
    plain = ek.evaluate(truth, recs, k=1, metrics=["precision"], n_resamples=0)
    assert shared.fingerprints()["truth"] == plain.fingerprints()["truth"]
    assert ek.regression_check(shared, plain).passed


def test_the_report_fingerprints_each_frame_once_and_each_run_gets_its_own(runs, tmp_path,
                                                                          monkeypatch) -> None:
    from evalkit import data
    from evalkit import report as rp

    truth, a, b, train, run_a, run_b = runs
    with pytest.warns(UserWarning, match="appear only in 'recs'"):
        other = ek.evaluate(truth.iloc[5:], a, k=[5, 10], train=train,
                            metrics=["precision", "ndcg", "first_relevant_rank"])
    hashed = []
    real = data.fingerprint
    monkeypatch.setattr(data, "fingerprint", lambda frame, **kw: hashed.append(1) or real(
        frame, **kw))
    rp.save_runs({"a": run_a, "other": other, "b": run_b}, str(tmp_path / "runs"))
    # two test sets, one training set, two lists: each fingerprinted once
    assert len(hashed) == 5
    for name, test, lists in (("a", truth, a), ("other", truth.iloc[5:], a), ("b", truth, b)):
        saved = ek.load_evaluation(tmp_path / "runs" / name).provenance["fingerprints"]
        assert saved["truth"] == real(test, columns=["rating"])
        assert saved["train"] == real(train, columns=["rating"])
        assert saved["recs"] == real(lists, columns=["rank", "score"])
