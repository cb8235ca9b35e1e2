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


def test_sample_then_evaluate(tmp_path) -> None:
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

    before = out_json.read_bytes()
    again = run("evaluate", "--truth", str(tmp_path / "test.csv"), "--recs",
                str(tmp_path / "recs.csv"), "--k", "10", "--curves", "20", "--out", str(out_json))
    assert again.returncode == 2 and "exists (an earlier evaluation?)" in again.stderr
    assert out_json.read_bytes() == before
    with_curves = run("evaluate", "--truth", str(tmp_path / "test.csv"), "--recs",
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
