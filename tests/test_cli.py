"""The command line: end to end in a subprocess (help, and sample then evaluate), and the
other behaviours through ``evalkit.cli.main``, the command's own entry point, in this process
(exit code and printed output as the process would give them, without starting one)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from evalkit import evaluate
from evalkit.data import load_interactions
from evalkit.metrics import ranking_curves
from evalkit.recs import read_recommendations


def run(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evalkit", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=300)


@pytest.fixture
def here(capsys):
    """``here(*args)``: ``evalkit.cli.main(args)`` in this process, as a finished process."""
    from evalkit.cli import main

    def call(*args: str) -> subprocess.CompletedProcess:
        try:
            code = main(list(args))
        except SystemExit as exit_:  # argparse's own errors and --help
            code = exit_.code
        out = capsys.readouterr()
        return subprocess.CompletedProcess(list(args), code, out.out, out.err)

    return call


def test_help_explains_every_command() -> None:
    out = run("--help")
    assert out.returncode == 0
    for command in ("evaluate", "report", "sample"):
        assert command in out.stdout
    sub = run("evaluate", "--help")
    assert "--truth" in sub.stdout and "--recs" in sub.stdout and "--k" in sub.stdout


def test_sample_then_evaluate(tmp_path, here) -> None:
    made = run("sample", "--out", str(tmp_path))
    assert made.returncode == 0, made.stderr
    out_json = tmp_path / "result.json"
    done = run("evaluate", "--truth", str(tmp_path / "test.csv"), "--recs",
               str(tmp_path / "recs.csv"), "--k", "5", "10", "--metrics", "ndcg", "recall",
               "--out", str(out_json))
    assert done.returncode == 0, done.stderr
    assert "ndcg@10" not in done.stdout  # labels are for people: NDCG@10
    assert "NDCG@10" in done.stdout and "R@5" in done.stdout
    result = json.loads(out_json.read_text())
    rows = {row["column"]: row for row in result["summary"]}
    expected = evaluate(load_interactions(tmp_path / "test.csv"),
                        read_recommendations(tmp_path / "recs.csv"),
                        k=[5, 10], metrics=["ndcg", "recall"])
    for column in ("ndcg@5", "ndcg@10", "recall@5", "recall@10"):
        assert rows[column]["mean"] == pytest.approx(expected.summary.loc[column, "mean"])
        assert rows[column]["ci_low"] == pytest.approx(expected.summary.loc[column, "ci_low"])
    assert "curves" not in result

    # the rest in this process (a process each costs seconds; the entry point ran above)
    before = out_json.read_bytes()
    again = here("evaluate", "--truth", str(tmp_path / "test.csv"), "--recs",
                str(tmp_path / "recs.csv"), "--k", "10", "--curves", "20", "--out", str(out_json))
    assert again.returncode == 2 and "exists (an earlier evaluation?)" in again.stderr
    assert out_json.read_bytes() == before
    with_curves = here("evaluate", "--truth", str(tmp_path / "test.csv"), "--recs",
                      str(tmp_path / "recs.csv"), "--k", "10", "--curves", "20",
                      "--out", str(out_json), "--force")
    assert with_curves.returncode == 0, with_curves.stderr
    curves = json.loads(out_json.read_text())["curves"]
    want = ranking_curves(load_interactions(tmp_path / "test.csv"),
                          read_recommendations(tmp_path / "recs.csv"), k_max=20)
    assert [row["k"] for row in curves] == list(range(1, 21))
    for row in curves:
        for name in ("precision", "recall", "map", "ndcg"):
            assert row[name] == pytest.approx(want.loc[row["k"], name], rel=1e-12)


def test_bad_input_exits_non_zero_with_a_message(tmp_path, here) -> None:
    (tmp_path / "t.csv").write_text("user_id,item_id,rating\n1,2,4\n")
    (tmp_path / "r.csv").write_text("user_id,item_id\n1,2\n")
    done = here("evaluate", "--truth", str(tmp_path / "t.csv"), "--recs", str(tmp_path / "r.csv"))
    assert done.returncode == 2
    assert (f"read_recommendations: 'path' file '{tmp_path / 'r.csv'}' needs a 'rank' or a "
            "'score' column; it has user_id, item_id.") in done.stderr
    (tmp_path / "r.csv").write_text("user_id,item_id,rank\n1,2,1\n")
    done = here("evaluate", "--truth", str(tmp_path / "t.csv"), "--recs",
               str(tmp_path / "r.csv"), "--metrics", "ndgc")
    assert done.returncode == 2 and "unknown metric 'ndgc'" in done.stderr
    assert not list(tmp_path.glob("*.json"))


def test_default_outputs_never_collide_and_never_overwrite_inputs(tmp_path, here) -> None:
    from evalkit.cli import default_output

    assert default_output(tmp_path / "m.v1.csv") != default_output(tmp_path / "m.v2.csv")
    assert default_output(tmp_path / "m.v1.csv.gz").name == "m.v1.evaluation.json"
    assert default_output(tmp_path / "recs.parquet").name == "recs.evaluation.json"
    made = here("sample", "--out", str(tmp_path), "--users", "20")
    assert made.returncode == 0, made.stderr
    truth = tmp_path / "test.csv"
    before = truth.read_bytes()
    done = here("evaluate", "--truth", str(truth), "--recs", str(tmp_path / "recs.csv"),
               "--out", str(truth))
    assert done.returncode == 2 and "names an input file" in done.stderr
    assert truth.read_bytes() == before


@pytest.mark.parametrize(("make", "message"), [
    (lambda d: d / "missing.csv", r"must be an existing file; got '.*missing.csv'"),
    (lambda d: (d / "fake.csv.gz").write_bytes(b"not gzip") and d / "fake.csv.gz",
     r"fake.csv.gz"),
])
def test_unreadable_inputs_give_one_line_and_exit_2(tmp_path, make, message, here) -> None:
    here("sample", "--out", str(tmp_path), "--users", "20")
    done = here("evaluate", "--truth", str(make(tmp_path)), "--recs", str(tmp_path / "recs.csv"))
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert re.search(message, done.stderr), done.stderr


def test_an_output_under_a_file_is_an_error_naming_the_path(tmp_path, here) -> None:
    here("sample", "--out", str(tmp_path), "--users", "20")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    args = ["evaluate", "--truth", str(tmp_path / "test.csv"), "--recs",
            str(tmp_path / "recs.csv"), "--out", str(blocker / "out.json")]
    done = here(*args)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert str(blocker) in done.stderr, done.stderr
    with pytest.raises(OSError):  # --debug: the error itself, with its traceback
        here("--debug", *args)


@pytest.fixture
def sample_files(tmp_path, here):
    """The sample's files for 40 users, and a worse list of the same users (ranks reversed)."""
    made = here("sample", "--out", str(tmp_path), "--users", "40")
    assert made.returncode == 0, made.stderr
    recs = read_recommendations(tmp_path / "recs.csv")
    worse = recs.assign(rank=recs.groupby("user_id")["rank"].transform("max") + 1 - recs["rank"])
    worse[["user_id", "item_id", "rank"]].to_csv(tmp_path / "worse.csv", index=False)
    return tmp_path


def test_save_alone_writes_into_its_folder_only(sample_files, here) -> None:
    d = sample_files
    before = sorted(p.name for p in d.iterdir())
    for folder in ("runs/first", "runs/second"):  # the same list, evaluated twice
        done = here("evaluate", "--truth", str(d / "test.csv"), "--recs", str(d / "recs.csv"),
                    "--save", str(d / folder))
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip().endswith(f"wrote the run to {d / folder}")
    assert sorted(p.name for p in d.iterdir()) == sorted(before + ["runs"])  # nothing beside
    assert ek_load(d / "runs" / "first").summary.equals(ek_load(d / "runs" / "second").summary)
    # with --out too, the JSON goes there (and only there)
    done = here("evaluate", "--truth", str(d / "test.csv"), "--recs", str(d / "recs.csv"),
                "--save", str(d / "runs" / "third"), "--out", str(d / "out" / "result.json"))
    assert done.returncode == 0, done.stderr
    assert json.loads((d / "out" / "result.json").read_text())["summary"]
    assert not (d / "recs.evaluation.json").exists()
    # without --save, the JSON beside the recommendations is still the default
    done = here("evaluate", "--truth", str(d / "test.csv"), "--recs", str(d / "recs.csv"))
    assert done.returncode == 0 and (d / "recs.evaluation.json").is_file()


def ek_load(folder):
    from evalkit import load_evaluation

    return load_evaluation(folder)


def test_metrics_and_margins_take_labels_as_the_tables_print_them(sample_files, here) -> None:
    d = sample_files
    for name, metrics in (("main", ["ndcg", "precision"]), ("branch", ["NDCG", "P"])):
        recs = "recs.csv" if name == "main" else "worse.csv"
        done = here("evaluate", "--truth", str(d / "test.csv"), "--recs", str(d / recs),
                    "--metrics", *metrics, "--save", str(d / name))
        assert done.returncode == 0, done.stderr
    assert ek_load(d / "main").summary.index.equals(ek_load(d / "branch").summary.index)
    check = ["check", "--baseline", str(d / "main"), "--current", str(d / "branch")]
    by_name = here(*check, "--margin", "ndcg@10=0.005", "--margin", "precision=0.01")
    by_label = here(*check, "--margin", "NDCG@10=0.005", "--margin", "P=0.01")
    assert by_label.returncode == by_name.returncode and by_label.returncode in (0, 1)
    assert by_label.stdout == by_name.stdout and "| NDCG@10 |" in by_label.stdout
    assert "| 0.005 |" in by_label.stdout
    # a bare VALUE is the margin of every metric no other --margin names
    mixed = here(*check, "--margin", "0.02", "--margin", "NDCG=0.005")
    assert "| NDCG@10 | " in mixed.stdout and "| 0.005 |" in mixed.stdout
    assert "| 0.02 |" in mixed.stdout
    bad = here(*check, "--margin", "NDGC@10=0.005")
    assert bad.returncode == 2 and bad.stderr.startswith(
        "evalkit check: error: --margin names an unknown metric 'NDGC@10'; valid metrics are "
        "precision (P), recall (R), ")
    twice = here(*check, "--margin", "NDCG@10=0.005", "--margin", "ndcg@10=0.01")
    assert twice.returncode == 2 and "--margin names NDCG@10 twice" in twice.stderr
    absent = here(*check, "--margin", "MAP@10=0.005")
    assert absent.returncode == 2 and ("--margin names 'MAP@10', which is not among the "
                                       "metrics the baseline run holds: NDCG@10 (ndcg@10), "
                                       "P@10 (precision@10).") in absent.stderr
    flat = here("evaluate", "--truth", str(d / "test.csv"), "--recs", str(d / "recs.csv"),
                "--metrics", "NDCG@10", "--out", str(d / "x.json"))
    assert flat.returncode == 2 and ("'NDCG@10' in --metrics names 'ndcg' at a cutoff"
                                     in flat.stderr)
    rating = here("evaluate", "--truth", str(d / "test.csv"), "--recs", str(d / "recs.csv"),
                  "--metrics", "MAE", "--out", str(d / "x.json"))
    assert rating.returncode == 2 and ("metric 'MAE' in --metrics is 'mae', which evalkit "
                                       "evaluate does not take") in rating.stderr
    assert not (d / "x.json").exists()


@pytest.mark.parametrize(("args", "message"), [
    (["evaluate", "--seed", "-1"], "argument --seed: must be a non-negative integer; got '-1'"),
    (["evaluate", "--k", "5", "0"], "argument --k: must be a positive integer at most "
                                    "1,000,000; got '0'"),
    (["evaluate", "--curves", "0"], "argument --curves: must be a positive integer; got '0'"),
    (["evaluate", "--log-base", "1"], "argument --log-base: must be a finite number greater "
                                      "than 1; got '1'"),
    (["evaluate", "--half-life", "x"], "argument --half-life: must be a finite number greater "
                                       "than 1; got 'x'"),
    (["evaluate", "--threshold", "nan"], "argument --threshold: must be a finite number"),
    (["sample", "--seed", "-1"], "argument --seed: must be a non-negative integer; got '-1'"),
    (["sample-candidates", "--seed", "-1"], "argument --seed: must be a non-negative integer"),
    (["sample-candidates", "--n-negatives", "0"],
     "argument --n-negatives: must be a positive integer or 'all'; got '0'"),
    (["check", "--seed", "-1"], "argument --seed: must be a non-negative integer; got '-1'"),
    (["check", "--alpha", "2"], "argument --alpha: must be a number between 0 and 1 "
                                "(exclusive); got '2'"),
    (["check", "--current", "nowhere"], "argument --current: 'nowhere' is not a saved run (no "
                                        "run.json); save one with evalkit evaluate --save DIR"),
    (["check", "--margin", "ndcg@10=-1"], "evalkit check: error: --margin takes a VALUE that "
                                          "is a number >= 0 or a percentage of the baseline "
                                          "such as 1%; got 'ndcg@10=-1'."),
    (["sample-candidates", "--scheme", "popularity", "--without-replacement"],
     "evalkit sample-candidates: error: --without-replacement takes --scheme uniform only"),
])
def test_a_bad_option_is_named_as_it_was_typed(sample_files, here, args, message) -> None:
    """Each option's error names the flag (never the Python argument it becomes, such as
    'rng', 'k' or 'log_base'), the rule, and the value as typed; nothing is written."""
    d = sample_files
    command, *rest = args
    need = {
        "evaluate": ["--truth", str(d / "test.csv"), "--recs", str(d / "recs.csv"),
                     "--out", str(d / "x.json")],
        "sample": ["--out", str(d / "new")],
        "sample-candidates": ["--truth", str(d / "test.csv"), "--train", str(d / "train.csv"),
                              "--out", str(d / "x.csv")],
        "check": [],
    }[command]
    if command == "check":
        done = here("evaluate", "--truth", str(d / "test.csv"), "--recs", str(d / "recs.csv"),
                    "--save", str(d / "run"))
        assert done.returncode == 0, done.stderr
        need = [] if "--current" in rest else ["--current", str(d / "run")]
        need += ["--baseline", str(d / "run")]
    done = here(command, *need, *rest)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert "'rng'" not in done.stderr and "Traceback" not in done.stderr
    assert not (d / "x.json").exists() and not (d / "x.csv").exists()
    assert not (d / "new").exists()


@pytest.mark.parametrize(("options", "message"), [
    (["--train", "{d}/nowhere.csv", "--test", "{d}/test.csv"],
     "evalkit report: error: --train names no file: '{d}/nowhere.csv' does not exist."),
    (["--train", "{d}/train.csv"],
     "evalkit report: error: --test must be given with --train (your own split); got "
     "--train='{d}/train.csv' and --test=None."),
    (["--train", "{d}/train.csv", "--test", "{d}/test.csv", "--items", "{d}/TRAIN.csv"],
     "evalkit report: error: --items names no file: '{d}/TRAIN.csv' does not exist."),
    (["--train", "{d}/recs.csv", "--test", "{d}/test.csv", "--recs", "mine={d}/bad.csv"],
     "evalkit report: error: --recs['mine']: 'bad.csv' has no user_id column"),
    (["--train", "{d}/train.csv", "--test", "{d}/test.csv", "--baselines", "Nope"],
     "evalkit report: error: --baselines[0] must be one of"),
    (["--train", "{d}/train.csv", "--test", "{d}/test.csv", "-p", "K", "0"],
     "evalkit report: error: parameter K must be"),
])
def test_report_errors_name_the_options_as_typed(sample_files, here, options, message) -> None:
    """What ``evalkit report`` sets through its own options, its errors name by those options
    (``--train``, never the notebook parameter TRAIN it becomes); a parameter given with -p
    keeps its name; a quoted file name is never rewritten; nothing is written."""
    d = sample_files
    (d / "bad.csv").write_text("a,b\n1,2\n")
    out = d / "reports"
    done = here("report", *(o.format(d=d) for o in options), "--out", str(out))
    assert done.returncode != 0 and message.format(d=d) in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and "TRAIN=" not in done.stderr
    assert not out.exists()


@pytest.mark.parametrize(("argv0", "prog"), [("/venv/bin/evalkit", "evalkit"),
                                             ("/x/evalkit/__main__.py", "python -m evalkit")])
def test_a_usage_error_is_one_line_in_the_words_it_was_typed(argv0, prog, monkeypatch,
                                                              capsys) -> None:
    """No 30 lines of usage before the line that matters; the command named as it was run
    (``evalkit`` for the installed script, ``python -m evalkit`` for the module)."""
    from evalkit.cli import main

    monkeypatch.setattr(sys, "argv", [argv0])
    with pytest.raises(SystemExit) as exit_:
        main(["report", "--jobs", "0"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [
        f"{prog} report: error: argument --jobs: must be a positive integer; got '0'",
        f"(see {prog} report --help)"]


def test_the_report_command_keeps_jsonschema_from_importing_the_iri_grammar(monkeypatch) -> None:
    """``evalkit report`` keeps ``rfc3987_syntax`` (2.2 s of grammar compiled at import) out of
    its process when jsonschema is not yet imported there, and leaves a jsonschema already
    imported (a program's own) as it is."""
    from evalkit import cli

    for name in ("jsonschema", "rfc3987_syntax"):
        monkeypatch.setitem(sys.modules, name, None)  # restored as it was after the test
        monkeypatch.delitem(sys.modules, name)
    cli._without_iri_grammar()
    assert "rfc3987_syntax" in sys.modules and sys.modules["rfc3987_syntax"] is None
    with pytest.raises(ImportError):
        import rfc3987_syntax  # noqa: F401  (as jsonschema tries it: absent)
    monkeypatch.delitem(sys.modules, "rfc3987_syntax")
    monkeypatch.setitem(sys.modules, "jsonschema", object())
    cli._without_iri_grammar()
    assert "rfc3987_syntax" not in sys.modules
