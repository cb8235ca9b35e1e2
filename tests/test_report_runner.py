"""The report runner and the command line keep results whole: parameters checked before
anything runs, runs staged and swapped in at the end, a second run into the same folder
refused, nothing written by a notebook run by hand."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest

from evalkit.cli import main
from evalkit.report import ParameterError, ReportError, _runner, run_reports

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "data" / "example"


def _notebooks(directory: Path, body: str = "x = 1", name: str = "01-echo") -> Path:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    params = nbformat.v4.new_code_cell(
        'DATASET = "sample"\nK = 10\nHEADLINE_PATH = None')
    params.metadata["tags"] = ["parameters"]
    nb.cells = [nbformat.v4.new_markdown_cell("# Echo"), params, nbformat.v4.new_code_cell(
        # plain JSON, not evalkit's write_headline: the runner is what is tested here, and a
        # kernel that does not import evalkit starts a second sooner
        "import json\nif HEADLINE_PATH:\n    with open(HEADLINE_PATH, 'w') as f:\n"
        "        json.dump({'dataset': DATASET, 'k': K}, f)"),
        nbformat.v4.new_code_cell(body)]
    directory.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, directory / f"{name}.ipynb")
    return directory


def _snapshot(directory: Path, skip: frozenset = frozenset()) -> dict[str, tuple[int, int]]:
    """Size and modification time of every file under ``directory``, by relative path; the
    folders named in ``skip`` are not entered."""
    import os

    found = {}
    for folder, dirs, names in os.walk(directory):
        dirs[:] = [d for d in dirs if d not in skip]
        for name in names:
            path = Path(folder, name)
            stat = path.stat()
            found[str(path.relative_to(directory))] = (stat.st_size, stat.st_mtime_ns)
    return dict(sorted(found.items()))


@pytest.fixture(scope="module")
def earlier(tmp_path_factory) -> tuple[Path, Path]:
    """A folder holding a finished run, and the notebooks it came from."""
    base = tmp_path_factory.mktemp("runner")
    notebooks = _notebooks(base / "nbs")
    out = base / "out"
    run_reports("sample", out=out, notebooks=notebooks, parameters={"K": 5}, progress=False)
    return out, notebooks


def test_a_run_writes_reports_headlines_and_an_index(earlier) -> None:
    out, _ = earlier
    assert json.loads((out / "01-echo.json").read_text()) == {"dataset": "sample", "k": 5}
    names = sorted(p.name for p in out.iterdir())
    assert names == [".evalkit-report.json", "01-echo.html", "01-echo.ipynb", "01-echo.json",
                     "index.html"]


@pytest.mark.parametrize(("parameters", "message"), [
    ({"K_VALEUS": [5]}, r"unknown parameter\(s\) K_VALEUS"),
    ({"K": 0}, r"parameter K must be an integer >= 1; got 0"),
    ({"DATASET": "x"}, r"DATASET, HEADLINE_PATH and RUNS_DIR are set by the runner"),
    ({"RUNS_DIR": "x"}, r"DATASET, HEADLINE_PATH and RUNS_DIR are set by the runner"),
    ({"BASELINE_RUN": "."}, r"BASELINE_RUN must be the folder of a saved run"),
    ({"RECS": {"mine": "no-such.csv"}}, r"RECS\['mine'\] names no file"),
])
def test_bad_parameters_are_refused_before_anything_runs(earlier, tmp_path, parameters,
                                                         message) -> None:
    out, notebooks = earlier
    before = _snapshot(out)
    with pytest.raises(ParameterError, match=message):
        run_reports("sample", out=out, notebooks=notebooks, parameters=parameters,
                    progress=False)
    assert _snapshot(out) == before


def test_a_mistyped_notebooks_folder_fails_and_keeps_the_index(earlier, tmp_path) -> None:
    out, _ = earlier
    before = _snapshot(out)
    with pytest.raises(ReportError, match=r"no report notebooks \(NN-name\.ipynb\) in '.*nbz'"):
        run_reports("sample", out=out, notebooks=tmp_path / "nbz", progress=False)
    code = main(["report", "--notebooks", str(tmp_path / "nbz"), "--out", str(out)])
    assert code == 1
    assert _snapshot(out) == before


def test_a_failing_run_leaves_the_earlier_reports_whole(earlier, tmp_path) -> None:
    out, notebooks = earlier
    broken = _notebooks(tmp_path / "broken", body="raise ValueError('boom')")
    before = _snapshot(out)
    with pytest.raises(ReportError, match=r"01-echo.ipynb failed .* the reports in .* are "
                                          r"unchanged"):
        run_reports("sample", out=out, notebooks=broken, parameters={"K": 7}, progress=False)
    after = _snapshot(out)
    kept = {k: v for k, v in after.items() if not k.startswith(".failed/")}
    assert kept == before
    assert ".failed/01-echo.ipynb" in after


def test_an_interrupted_run_leaves_the_earlier_reports_whole(earlier, monkeypatch) -> None:
    out, notebooks = earlier
    before = {k: v for k, v in _snapshot(out).items() if not k.startswith(".failed/")}

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(_runner, "_render_html", interrupt)
    with pytest.raises(KeyboardInterrupt):
        run_reports("sample", out=out, notebooks=notebooks, parameters={"K": 9}, progress=False)
    after = {k: v for k, v in _snapshot(out).items() if not k.startswith(".failed/")}
    assert after == before
    assert not list(out.glob(".staging-*"))


def test_an_interruption_before_the_run_starts_leaves_no_staging_folder(earlier,
                                                                        monkeypatch) -> None:
    """Ctrl-C just after the staging folder is made (as the manifest is written) removes it;
    a staging folder that a run killed outright left behind goes with the next run."""
    out, notebooks = earlier
    left = out / ".staging-killed"
    left.mkdir()
    (left / "01-echo.html").write_text("half")

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(_runner, "atomic_write_text", interrupt)
    with pytest.raises(KeyboardInterrupt):
        run_reports("sample", out=out, notebooks=notebooks, parameters={"K": 9}, progress=False)
    assert not list(out.glob(".staging-*"))


def test_a_second_run_into_the_same_folder_is_refused(earlier) -> None:
    out, notebooks = earlier
    lock = out / ".evalkit-report.lock"
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        lock.write_text(str(holder.pid))
        before = _snapshot(out)
        with pytest.raises(ReportError, match=rf"another report run \(process {holder.pid}\) is "
                                              r"writing to"):
            run_reports("sample", out=out, notebooks=notebooks, progress=False)
        assert _snapshot(out) == before
    finally:
        holder.kill()
        holder.wait()
        lock.unlink(missing_ok=True)


def test_a_lock_left_by_a_killed_run_is_taken_over(tmp_path) -> None:
    notebooks = _notebooks(tmp_path / "nbs")
    out = tmp_path / "out"
    out.mkdir()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    (out / ".evalkit-report.lock").write_text(dead)
    run_reports("sample", out=out, notebooks=notebooks, progress=False)
    assert (out / "index.html").exists() and not (out / ".evalkit-report.lock").exists()


def test_two_notebooks_run_side_by_side_and_the_reports_keep_their_order(
        tmp_path, monkeypatch) -> None:
    """jobs=2: both kernels run at once (each notebook's run overlaps the other's), each in
    the notebooks' folder with the cores shared out between their BLAS and OpenMP thread
    pools (a variable the caller set is kept) and no IPython history, and the caller's
    working directory is left as it was; the reports, the index and the navigation keep the
    notebooks' own order."""
    import os

    for name in _runner.THREAD_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MKL_NUM_THREADS", "7")
    notebooks = tmp_path / "nbs"
    for name in ("01-first", "02-second"):
        span = tmp_path / f"{name}.span"
        _notebooks(notebooks, name=name, body=(
            f"import sys\nwarm = 'evalkit.report' in sys.modules\n"
            f"import json, os, time\nstart = time.time()\ntime.sleep(1.5)\n"
            f"threads = [os.environ.get(v) for v in {_runner.THREAD_VARIABLES!r}]\n"
            f"history = get_ipython().history_manager.enabled\n"
            f"open({str(span)!r}, 'w').write(json.dumps([start, time.time(), os.getcwd(), "
            f"threads, history, warm, os.getppid()]))"))
    out = tmp_path / "out"
    here = os.getcwd()
    written = run_reports("sample", out=out, notebooks=notebooks, progress=False, jobs=2)
    assert os.getcwd() == here
    assert [p.name for p in written] == ["01-first.html", "02-second.html", "index.html"]
    (a0, a1, a_cwd, a_threads, a_history, a_warm, a_parent), \
        (b0, b1, b_cwd, b_threads, b_history, b_warm, b_parent) = (
            json.loads((tmp_path / f"{n}.span").read_text()) for n in ("01-first", "02-second"))
    assert a_history is b_history is False  # the cells stay out of the IPython history
    # forked from the run's own kernel server, which had imported evalkit before the fork
    assert a_warm and b_warm and a_parent == b_parent != os.getpid()
    assert max(a0, b0) < min(a1, b1), "the notebooks ran one after the other"
    assert a_cwd == b_cwd == str(notebooks)
    shared = str(max(1, (os.cpu_count() or 1) // 2))
    assert a_threads == b_threads == [shared, shared, "7"]
    assert _runner.kernel_threads(1) == {}  # one kernel at a time: the libraries' defaults
    index = (out / "index.html").read_text()
    assert index.index("01-first.html") < index.index("02-second.html")
    assert "next: " in (out / "01-first.html").read_text()


def test_pages_run_side_by_side_only_where_their_expected_memory_fits(tmp_path,
                                                                       monkeypatch) -> None:
    """With a memory budget, a page expected to hold more than the budget leaves beside
    another runs alone, with the thread pools as the caller has them (every core), and the
    others still run two at a time, the cores shared out."""
    import os

    for variable in _runner.THREAD_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    notebooks = tmp_path / "nbs"
    for name in ("01-big", "02-small", "03-small"):
        span = tmp_path / f"{name}.span"
        _notebooks(notebooks, name=name, body=(
            f"import json, os, time\nstart = time.time()\ntime.sleep(2.5)\n"
            f"open({str(span)!r}, 'w').write(json.dumps([start, time.time(), "
            f"os.environ.get('OMP_NUM_THREADS')]))"))
    monkeypatch.setattr(_runner, "_fit_jobs", lambda jobs, rows, notes: (2, list(notes), 1.0))
    monkeypatch.setattr(_runner, "expected_gb",
                        lambda nb, rows: 0.9 if nb.stem == "01-big" else 0.4)
    run_reports("sample", out=tmp_path / "out", notebooks=notebooks, progress=False)
    (b0, b1, b_threads), (s0, s1, s_threads), (t0, t1, t_threads) = (
        json.loads((tmp_path / f"{n}.span").read_text())
        for n in ("01-big", "02-small", "03-small"))
    assert b1 <= min(s0, t0), "a page ran beside the one that fits only alone"
    assert max(s0, t0) < min(s1, t1), "the two that fit together ran one after the other"
    assert b_threads is None  # alone: the libraries' own defaults, every core
    assert s_threads == t_threads == str(max(1, (os.cpu_count() or 1) // 2))


def test_the_next_page_is_the_first_waiting_one_that_fits() -> None:
    from pathlib import Path

    a, b, c = Path("01-a"), Path("02-b"), Path("03-c")
    expected = {a: 5.0, b: 3.5, c: 2.0}
    assert _runner._next_page([a, b, c], [], expected, 1.0) == a  # none runs: any page
    assert _runner._next_page([b, c], [a], expected, 8.0) == c
    assert _runner._next_page([b, c], [a], expected, 8.5) == b  # fits exactly
    assert _runner._next_page([b], [a], expected, 8.0) is None
    assert _runner._next_page([b], [a], None, None) == b  # no budget: the first waiting
    assert _runner._next_page([], [a], expected, 8.0) is None
    assert _runner.expected_gb(Path("07-model-comparison.ipynb"), 25_000_000) == \
        pytest.approx(25 * _runner.PAGE_GB_PER_MILLION["07-model-comparison"])
    assert _runner.expected_gb(Path("99-mine.ipynb"), 1_000_000) == max(
        _runner.PAGE_GB_PER_MILLION.values())  # not measured: as the largest


def test_a_failing_notebook_stops_the_one_running_beside_it(tmp_path) -> None:
    """A notebook fails while another, slow one runs: the run fails at once naming the
    failed notebook and its cell, the other's kernel is stopped (its process is gone), and
    the folder holds no report."""
    import os
    import time

    notebooks = tmp_path / "nbs"
    pid = tmp_path / "slow.pid"
    _notebooks(notebooks, name="01-slow", body=(
        f"import os, time\nopen({str(pid)!r}, 'w').write(str(os.getpid()))\ntime.sleep(120)"))
    _notebooks(notebooks, name="02-broken", body=(
        f"import os, time\nwhile not os.path.exists({str(pid)!r}):\n    time.sleep(0.05)\n"
        "raise ValueError('boom')"))
    out = tmp_path / "out"
    began = time.monotonic()
    with pytest.raises(ReportError, match=r"02-broken\.ipynb failed in cell 4 .*ValueError: boom"):
        run_reports("sample", out=out, notebooks=notebooks, progress=False, jobs=2)
    assert time.monotonic() - began < 60
    kernel = int(pid.read_text())
    for _ in range(100):  # the kernel was killed; give the system a moment to reap it
        try:
            os.kill(kernel, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"the slow notebook's kernel (process {kernel}) is still running")
    assert not list(out.glob("*.html")) and (out / ".failed" / "02-broken.ipynb").exists()


def test_notebooks_start_from_both_ends_of_the_list() -> None:
    found = [Path(f"0{i}.ipynb") for i in range(1, 10)]
    order = [p.stem for p in _runner._start_order(found, 2)]
    assert order == ["01", "09", "02", "08", "03", "07", "04", "06", "05"]
    assert _runner._start_order(found, 1) == found
    assert [p.stem for p in _runner._start_order(found[:2], 3)] == ["01", "02"]


def test_files_of_an_earlier_run_that_this_run_does_not_write_are_removed(tmp_path) -> None:
    out = tmp_path / "out"
    run_reports("sample", out=out, notebooks=_notebooks(tmp_path / "a", name="01-one"),
                progress=False)
    mine = out / "notes.txt"
    mine.write_text("the analyst's own file")
    run_reports("sample", out=out, notebooks=_notebooks(tmp_path / "b", name="02-two"),
                progress=False)
    names = {p.name for p in out.iterdir()}
    assert "01-one.html" not in names and "02-two.html" in names
    assert mine.read_text() == "the analyst's own file"  # not the runner's: kept


def test_a_release_name_beside_a_folder_of_that_name_means_the_release(tmp_path,
                                                                       monkeypatch) -> None:
    (tmp_path / "ml-latest-small").mkdir()
    monkeypatch.chdir(tmp_path)
    params = _runner._resolve_parameters("ml-latest-small", {})
    assert params["DATASET"] == "ml-latest-small"
    assert _runner._shown_name(str(tmp_path / "data" / "mine")) == "mine"


@pytest.mark.slow
@pytest.mark.parametrize("notebook", ["01-data-exploration", "08-metrics-explained"])
def test_a_notebook_run_by_hand_writes_no_file(notebook, tmp_path, monkeypatch) -> None:
    """papermill from another working directory, with the notebook's own defaults (01 on the
    example folder): nothing appears or changes in the project or the working directory but
    the output notebook. Compiled-code caches (__pycache__) are the Python runtime's and are
    left out of the comparison."""
    import papermill as pm

    def tree() -> dict:  # (.venv alone is 30k files, never entered)
        return _snapshot(ROOT, frozenset({".venv", "__pycache__", ".pytest_cache",
                                          ".hypothesis", ".git"}))

    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    before = tree()
    params = {"DATASET": str(EXAMPLE)} if notebook.startswith("01") else {}
    pm.execute_notebook(str(ROOT / "notebooks" / f"{notebook}.ipynb"), str(tmp_path / "o.ipynb"),
                        parameters=params, kernel_name="python3", progress_bar=False)
    assert tree() == before
    assert sorted(p.name for p in cwd.iterdir()) == []


# -- the command line ------------------------------------------------------------------------

def _run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evalkit", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def test_list_parameters_prints_every_parameter_with_its_meaning() -> None:
    done = _run("report", "--list-parameters")
    assert done.returncode == 0
    assert "RECS (dict, default {}; notebooks 04, 05, 06, 07, 08, 09)" in done.stdout
    assert "your systems: name -> recommendations file (rank and/or score)" in done.stdout


@pytest.mark.parametrize(("args", "message"), [
    (["--recs", "recs.csv"], r"--recs takes NAME=FILE \(e.g. --recs mine=recs.csv\); got "
                             r"'recs.csv'"),
    (["--recs", "a=x.csv", "--recs", "a=y.csv"], r"--recs names 'a' twice"),
    (["--train", "data/example/train.csv", "-p", "TRAIN", "x"],
     r"--train is given twice \(by an option and by -p\)"),
    (["-p", "K", "0"], r"parameter K must be an integer >= 1; got 0"),
    (["-p", "TRHESHOLD", "3"], r"unknown parameter\(s\) TRHESHOLD"),
    (["--train", "data/example/train.csv"], r"--test must be given with --train"),
    (["--jobs", "0"], r"argument --jobs: must be a positive integer; got '0'"),
])
def test_report_options_are_checked_before_anything_runs(tmp_path, args, message, capsys,
                                                        monkeypatch) -> None:
    """``evalkit.cli.main``, as the command calls it (in this process: the checks start
    nothing; the command itself runs in a process in the tests around)."""
    from evalkit.cli import main

    monkeypatch.chdir(ROOT)
    try:
        code = main(["report", *args, "--out", str(tmp_path / "out")])
    except SystemExit as exit_:  # argparse's own errors
        code = exit_.code
    assert code == 2
    err = capsys.readouterr().err
    assert re.search(message, err), err
    assert not (tmp_path / "out").exists()


def test_report_options_become_notebook_parameters() -> None:
    from evalkit.cli import _parser, report_parameters

    args = _parser().parse_args([
        "report", "--train", "t.csv", "--test", "s.csv", "--recs", "mine=m.parquet",
        "--baselines", "-p", "K_VALUES", "[1, 3, 25]", "-p", "THRESHOLD", "None",
        "-p", "METRIC", "recall", "-p", "ALPHA", "0.01"])
    assert report_parameters(args) == {
        "TRAIN": "t.csv", "TEST": "s.csv", "RECS": {"mine": "m.parquet"}, "BASELINES": [],
        "RATING_BASELINES": [],  # --baselines alone: no baseline on any page
        "K_VALUES": [1, 3, 25], "THRESHOLD": None, "METRIC": "recall", "ALPHA": 0.01}
    # a rating baseline's name is a rating baseline, any other a ranking one
    args = _parser().parse_args(["report", "--baselines", "EASE", "user + item bias"])
    assert report_parameters(args) == {"BASELINES": ["EASE"],
                                       "RATING_BASELINES": ["user + item bias"]}


def test_sample_refuses_to_overwrite_and_keeps_the_example_reproducible(tmp_path,
                                                                       capsys) -> None:
    from evalkit.cli import main

    def _run(*args: str) -> subprocess.CompletedProcess:  # the command, in this process
        code = main(list(args))
        return subprocess.CompletedProcess(list(args), code, *capsys.readouterr())

    done = _run("sample", "--out", str(tmp_path), "--users", "100")
    assert done.returncode == 0, done.stderr
    for name in ("train.csv", "test.csv", "movies.csv"):
        assert (tmp_path / name).read_bytes() == (EXAMPLE / name).read_bytes(), name
    # the example's scores come from a linear solve, whose last bits depend on the machine's
    # BLAS kernels: the lists and ranks must be the same, the scores to 1e-9
    made, kept = (pd.read_csv(where / "recs.csv") for where in (tmp_path, EXAMPLE))
    pd.testing.assert_frame_equal(made.drop(columns="score"), kept.drop(columns="score"))
    np.testing.assert_allclose(made["score"], kept["score"], rtol=1e-9, atol=0)
    before = _snapshot(tmp_path)
    again = _run("sample", "--out", str(tmp_path))
    assert again.returncode == 2
    assert "already holds ratings.csv, movies.csv, train.csv, test.csv, recs.csv" in again.stderr
    assert _snapshot(tmp_path) == before
    assert _run("sample", "--out", str(tmp_path), "--users", "50", "--force").returncode == 0
    assert _snapshot(tmp_path) != before


# -- the command as a user runs it: Ctrl-C and a second run, in real processes ---------------

def _command(out: Path, notebooks: Path, k: int) -> list[str]:
    return [sys.executable, "-m", "evalkit", "report", "--data", "sample", "--out", str(out),
            "--notebooks", str(notebooks), "-p", "K", str(k)]


def _wait_for(path: Path, process: subprocess.Popen, seconds: float = 60.0) -> None:
    import time

    end = time.monotonic() + seconds
    while not path.exists():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < end, f"{path} never appeared"
        time.sleep(0.1)


def test_ctrl_c_during_a_run_over_earlier_reports_keeps_them_whole(tmp_path) -> None:
    """SIGINT to the whole process group (as a terminal's Ctrl-C) while a notebook runs: the
    command exits non-zero, and the earlier reports, index included, are as they were."""
    import os
    import signal

    fast = _notebooks(tmp_path / "fast")
    out = tmp_path / "out"
    run_reports("sample", out=out, notebooks=fast, parameters={"K": 5}, progress=False)
    before = _snapshot(out)
    slow = _notebooks(tmp_path / "slow", body="import time\ntime.sleep(120)")
    # as from a terminal: SIGINT's default action, even where this test run was started
    # with SIGINT ignored (a background job of a shell), which the command would inherit
    process = subprocess.Popen(_command(out, slow, 9), cwd=tmp_path, start_new_session=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        _wait_for(out / ".evalkit-report.lock", process)
        staging = []
        while not staging:  # the notebook is running once its staging folder exists
            staging = list(out.glob(".staging-*"))
            assert process.poll() is None
        os.killpg(process.pid, signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode != 0
    assert "Traceback" not in err, err[-2000:]
    assert "evalkit report: " in err, err
    # a failed run's partial output may be kept aside in .failed/ (see test_reports)
    assert {k: v for k, v in _snapshot(out).items() if not k.startswith(".failed/")} == before
    assert not list(out.glob(".staging-*")) and not (out / ".evalkit-report.lock").exists()
    assert json.loads((out / "01-echo.json").read_text())["k"] == 5


def test_a_second_command_into_a_folder_being_written_is_refused(tmp_path) -> None:
    """Two real runs into one folder: the second exits 1 naming the first, writes nothing,
    and the folder then holds the first run's results alone."""
    import time

    go = tmp_path / "go"  # the first run's notebook waits for this file (at most 60 s)
    slow = _notebooks(tmp_path / "slow", body=(
        "import time\nfrom pathlib import Path\nend = time.monotonic() + 60\n"
        f"while not Path({str(go)!r}).exists() and time.monotonic() < end:\n"
        "    time.sleep(0.05)"))
    out = tmp_path / "out"
    first = subprocess.Popen(_command(out, slow, 5), cwd=tmp_path, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(out / ".evalkit-report.lock", first)
        began = time.monotonic()
        second = subprocess.run(_command(out, slow, 9), cwd=tmp_path, capture_output=True,
                                text=True, timeout=120)
        go.touch()
        assert time.monotonic() - began < 30  # refused at once, not after running
        assert second.returncode == 1, second.stderr  # as any run that did not happen
        assert f"another report run (process {first.pid})" in second.stderr
        assert "Traceback" not in second.stderr
        _, err = first.communicate(timeout=120)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert first.returncode == 0, err[-2000:]
    assert json.loads((out / "01-echo.json").read_text()) == {"dataset": "sample", "k": 5}
    assert not (out / ".evalkit-report.lock").exists() and not list(out.glob(".staging-*"))


def test_the_run_states_the_memory_its_pages_held(tmp_path) -> None:
    """The runner samples the resident memory of itself and its kernels while each page runs:
    a page that holds 0.5 GB more shows it, in the manifest and on the index."""
    notebooks = tmp_path / "nbs"
    _notebooks(notebooks, name="01-small", body="import time\ntime.sleep(1.2)")
    _notebooks(notebooks, name="02-big", body=(
        "import time\nimport numpy as np\nheld = np.ones(62_500_000)  # 0.5 GB, written\n"
        "time.sleep(1.2)"))
    out = tmp_path / "out"
    run_reports("sample", out=out, notebooks=notebooks, progress=False, jobs=1)
    peaks = json.loads((out / ".evalkit-report.json").read_text())["peak_gb"]
    small, big = peaks["by_notebook"]["01-small.ipynb"], peaks["by_notebook"]["02-big.ipynb"]
    assert big - small > 0.45, peaks
    assert peaks["run"] == max(small, big)
    index = (out / "index.html").read_text()
    assert f"Peak memory: {peaks['run']:.2f} GB resident" in index
    assert "one page at a time" in index and "the most while 02-big ran" in index
    assert "interrupted run" not in index  # nothing was kept from an earlier run


def test_tree_rss_counts_the_processes_below() -> None:
    import os
    import subprocess
    import sys

    from evalkit.report._memory import tree_rss

    alone = tree_rss(os.getpid())
    child = subprocess.Popen([sys.executable, "-c", (
        "import sys, time\nheld = bytearray(300_000_000)\nheld[::4096] = b'x' * len(held[::4096])"
        "\nprint('ready', flush=True)\ntime.sleep(30)")], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "ready"
        assert tree_rss(child.pid) > 0.29e9
        assert tree_rss(os.getpid()) - alone > 0.29e9  # the child is below this process
    finally:
        child.kill()
        child.wait()
    assert tree_rss(child.pid) is None  # no such process
