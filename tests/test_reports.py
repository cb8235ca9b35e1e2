"""Reports end to end, as an analyst runs them from the shell: every command of the README's
"A report for your own recommender", as written (``make report`` on the committed example
folder with "my" recommendations beside each notebook's baselines, which is the notebook
grid's ``REPORT_SET``, whose headlines are checked here; ``evalkit report`` on implicit data
with the analyst's own column names; the parameter list); papermill runs
every notebook, nbconvert renders HTML, the index links them; a real browser loads the pages
and sees the plots; a failing notebook is reported by name and cell. (The notebooks on the
default sample are checked by nbval on their committed outputs.)"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pandas as pd
import pytest

import evalkit as ek
from evalkit.report import ReportError, find_notebooks, run_reports
from tests.notebook_checks import EXPECT, NOTEBOOKS, REPORT_SET, Direct, parameters

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "data" / "example"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def readme_commands() -> list[str]:
    """The shell commands of the README's section "A report for your own recommender", as
    written (continuation lines joined)."""
    text = (ROOT / "README.md").read_text()
    section = text.split("## A report for your own recommender", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, flags=re.S)
    return [line for block in blocks for line in block.replace("\\\n", " ").splitlines()
            if line.strip()]


def _implicit_files(d: Path) -> dict[str, str]:
    """The README's "my" files: the example split without ratings and the example lists,
    with the analyst's own column names."""
    names = {"user_id": "uid", "item_id": "sku"}
    (d / "my").mkdir()
    (d / "runs").mkdir()
    for role in ("train", "test"):
        frame = pd.read_csv(EXAMPLE / f"{role}.csv").drop(columns="rating")
        frame.rename(columns=names).to_csv(d / "my" / f"{role}.csv", index=False)
    recs = pd.read_csv(EXAMPLE / "recs.csv").rename(columns={**names, "score": "relevance"})
    recs.to_csv(d / "runs" / "my-model.csv", index=False)
    return {f"my/{r}.csv": str(d / "my" / f"{r}.csv") for r in ("train", "test")} | {
        "runs/my-model.csv": str(d / "runs" / "my-model.csv")}


def _as_run(command: str, files: dict[str, str], out: Path) -> list[str]:
    """A README command with the files the test wrote and its own output folder: ``make``
    in the project, ``.venv/bin/evalkit`` as this Python's ``-m evalkit``."""
    words = shlex.split(command, comments=True)
    words = [files.get(w, w) for w in words]
    words = [f"OUT={out}" if w.startswith("OUT=") else w for w in words]
    words = [str(out) if w == "reports-mine" else w for w in words]
    if words[0] == "make":
        return ["make", "-s", "-C", str(ROOT), *words[1:]]
    assert words[0] == ".venv/bin/evalkit", command
    return [sys.executable, "-m", "evalkit", *words[1:]]


def run_readme_commands(base: Path, which: slice) -> list[tuple[str, subprocess.CompletedProcess,
                                                                  Path]]:
    """The README's commands ``which`` (of "A report for your own recommender"), run as
    written on files the test writes under ``base``, each into its own folder. The first
    (``make report``, Spark page included) runs here; the others in
    ``tests/test_readme_commands.py``, so that the two modules can run side by side."""
    if not (ROOT / ".venv" / ".run-installed").exists():
        reason = "the README's make commands need the project's .venv (make setup)"
        if os.environ.get("CI"):
            pytest.fail(f"{reason}, and CI always has it")
        pytest.skip(reason)
    files = _implicit_files(base)
    runs = []
    commands = readme_commands()
    for i in range(len(commands))[which]:
        out = base / f"out-{i}"
        done = subprocess.run(_as_run(commands[i], files, out), cwd=base, capture_output=True,
                              text=True, timeout=900)
        runs.append((commands[i], done, out))
    return runs


def check_readme_run(command: str, done: subprocess.CompletedProcess, out: Path) -> None:
    """A README command succeeded and wrote its report: every page it ran, with a headline."""
    assert done.returncode == 0, (command, done.stderr[-3000:])
    if "--list-parameters" in command:
        assert "COLUMNS (dict" in done.stdout and "THRESHOLD (Optional[float]" in done.stdout
        assert not out.exists()
        return
    index = (out / "index.html").read_text()
    rows = re.findall(r"<tr(?: class='skipped')?><td>(.*?)</td><td>(.*?)</td></tr>", index)
    assert len(rows) == 9, command
    for title, numbers in rows:
        if numbers.startswith("not run: "):
            continue
        stem = re.search(r"href='(\d\d-[^']+)\.html'", title).group(1)
        assert (out / f"{stem}.html").stat().st_size > 10_000, (command, stem)
        assert json.loads((out / f"{stem}.json").read_text()), (command, stem)


@pytest.fixture(scope="module")
def readme_runs(tmp_path_factory) -> list[tuple[str, subprocess.CompletedProcess, Path]]:
    """The README's first command, run as written."""
    return run_readme_commands(tmp_path_factory.mktemp("readme"), slice(0, 1))


@pytest.fixture(scope="module")
def reports(readme_runs) -> Path:
    """The README's first command: the report on the committed example folder with "my"
    recommendations beside each notebook's baselines (the grid's set ``REPORT_SET``, run
    here through ``make report`` in fresh kernels)."""
    command, done, out = readme_runs[0]
    assert command.startswith("make report DATA=data/example RECS=")
    assert done.returncode == 0, done.stderr[-3000:]
    return out


@pytest.mark.slow
def test_every_readme_command_produces_its_report(readme_runs) -> None:
    # the first here; the others in tests/test_readme_commands.py
    assert len(readme_commands()) == 3
    for command, done, out in readme_runs:
        check_readme_run(command, done, out)


@pytest.mark.slow
def test_every_notebook_renders_with_its_headline(reports: Path) -> None:
    stems = [p.stem for p in find_notebooks()]
    assert len(stems) == 9
    for stem in stems:
        assert (reports / f"{stem}.html").stat().st_size > 10_000, stem
        assert (reports / f"{stem}.ipynb").exists(), stem
        assert json.loads((reports / f"{stem}.json").read_text()), stem
    index = (reports / "index.html").read_text()
    for stem in stems:
        assert f"href='{stem}.html'" in index


@pytest.mark.slow
@pytest.mark.parametrize("nb", sorted(NOTEBOOKS))
def test_each_headline_equals_evalkit_called_directly(reports: Path, files, nb: str) -> None:
    """The expectations of the notebook grid (tests/notebook_checks.py) for this run."""
    headline = json.loads((reports / f"{NOTEBOOKS[nb].stem}.json").read_text())
    EXPECT[nb](headline, Direct(parameters(files, REPORT_SET)))


@pytest.mark.slow
def test_the_index_and_the_worked_examples(reports: Path) -> None:
    ranking = json.loads((reports / "05-ranking.json").read_text())
    assert set(ranking) == {"ndcg@10 mine", "ndcg@10 MostPopular", "ndcg@10 ItemKNN",
                            "ndcg@10 EASE", "intervals"}
    index = (reports / "index.html").read_text()
    low, high = ranking["intervals"]["ndcg@10 mine"]
    assert f"ndcg@10 mine = {ranking['ndcg@10 mine']:.3f} [{low:.3f}, {high:.3f}]" in index
    explained = json.loads((reports / "08-metrics-explained.json").read_text())
    assert round(explained["AP (seed list)"], 3) == 0.717
    assert round(explained["RMSE (seed table)"], 3) == 0.872


@pytest.mark.slow
def test_the_at_scale_report_gives_the_ranking_reports_headline(reports: Path) -> None:
    from evalkit.spark import missing

    at_scale = json.loads((reports / "09-at-scale.json").read_text())
    reason = missing()
    if reason is not None:  # the page says why Spark did not run (test_spark fails under CI)
        assert at_scale == {"Spark": f"not run: {reason}"}
        return
    ranking = json.loads((reports / "05-ranking.json").read_text())
    systems = {"ndcg@10 mine", "ndcg@10 MostPopular", "ndcg@10 EASE"}  # 09's baselines
    assert set(at_scale) == systems | {"intervals", "same as in memory"}
    assert at_scale["same as in memory"] is True
    for key in systems:
        assert at_scale[key] == ranking[key], key
        assert at_scale["intervals"][key] == ranking["intervals"][key], key


@pytest.mark.slow
def test_reports_state_what_they_were_computed_on(reports: Path) -> None:
    html = (reports / "05-ranking.html").read_text()
    fingerprint = ek.fingerprint(ek.load_interactions(EXAMPLE / "test.csv"))
    assert fingerprint["sha256"] in html
    for text in ("evalkit version", ek.__version__, "given (train=train.csv, test=test.csv)",
                 "system: mine", "file recs.csv", "definition: gain",
                 "definition: ap_denominator", "definition: ties"):
        assert text in html, text


@pytest.mark.slow
def test_my_system_is_in_every_evaluating_report_and_the_index(reports: Path) -> None:
    index = (reports / "index.html").read_text()
    assert "Dataset: <b>example</b>" in index and str(ROOT) not in index
    assert "mine (recs.csv)" in index and "MostPopular" in index
    for stem in ("04-classification", "05-ranking", "06-beyond-accuracy", "07-model-comparison"):
        html = (reports / f"{stem}.html").read_text()
        assert ">mine<" in html, stem
        assert "recommend_all(" not in html and "rp.check_parameters(" not in html, stem
    assert oct((reports / "index.html").stat().st_mode & 0o777) == oct(0o666 & ~_umask())


@pytest.mark.slow
def test_the_report_saves_each_systems_run_and_the_index_says_where(reports: Path) -> None:
    runs = sorted(p.name for p in (reports / "runs").iterdir())
    assert runs == ["EASE", "ItemKNN", "MostPopular", "mine"]
    index = (reports / "index.html").read_text()
    assert "<code>runs/EASE</code>" in index and "evalkit check --baseline runs/" in index
    mine = ek.load_evaluation(reports / "runs" / "mine")
    recs = ek.read_recommendations(EXAMPLE / "recs.csv")
    assert mine.provenance["name"] == "mine"
    assert mine.provenance["fingerprints"]["recs"] == ek.fingerprint(recs,
                                                                     columns=["rank", "score"])
    # the same system evaluated directly: the same per-user values, and it passes the check
    direct = ek.evaluate(ek.load_interactions(EXAMPLE / "test.csv"), recs, k=[10],
                         metrics=["precision", "recall", "map", "ndcg"], threshold=4.0)
    pd.testing.assert_frame_equal(mine.per_user, direct.per_user, check_exact=True)
    check = ek.regression_check(direct, mine)
    assert check.passed and (check.table["verdict"] == "unchanged").all()
    html = (reports / "07-model-comparison.html").read_text()
    assert "runs/mine" in html and "No baseline run was given" in html


def _umask() -> int:
    import os

    mask = os.umask(0)
    os.umask(mask)
    return mask


def _browser():
    if CHROMIUM is None:
        pytest.skip("Chromium is not installed (Debian package 'chromium'; .ci/run installs it)")
    playwright = pytest.importorskip("playwright.sync_api")
    return playwright.sync_playwright()


@pytest.mark.slow
def test_reports_load_in_a_real_browser(reports: Path) -> None:
    with _browser() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto((reports / "index.html").as_uri())
            assert page.title() == "evalkit reports"
            assert page.locator("table a").count() == 9
            page.screenshot(path=str(reports / "index.png"))

            requests: list[str] = []
            page.on("request", lambda r: requests.append(r.url))
            stems = [p.stem for p in find_notebooks()]
            for i, stem in enumerate(stems):
                page.goto((reports / f"{stem}.html").as_uri())
                page.wait_for_load_state("load")
                title = nbformat.read(reports / f"{stem}.ipynb", as_version=4).cells[0].source
                assert page.title() == title.splitlines()[0].lstrip("# ") + " · evalkit", stem
                nav = page.locator("nav.evalkit-nav a").evaluate_all(
                    "links => links.map(a => a.getAttribute('href'))")
                want = ["index.html"] + [f"{s}.html" for s in stems[max(i - 1, 0):i]]
                want += [f"{s}.html" for s in stems[i + 1:i + 2]]
                assert nav == want, stem
                sizes = page.evaluate(
                    "[...document.images].map(i => [i.naturalWidth, i.naturalHeight,"
                    " i.getBoundingClientRect().width, i.complete])")
                executed = nbformat.read(reports / f"{stem}.ipynb", as_version=4)
                plots = sum("image/png" in o.get("data", {}) for c in executed.cells
                            if c.cell_type == "code" for o in c.outputs)
                assert len(sizes) == plots, stem  # every plot is shown
                for natural_w, natural_h, shown_w, complete in sizes:
                    assert complete and natural_w > 0 and natural_h > 0 and shown_w > 0, stem
            # nothing but the pages themselves (and their inline images) is ever requested
            outside = [u for u in requests
                       if not (u.startswith(reports.as_uri() + "/") or u.startswith("data:"))]
            assert outside == []
            assert sum(u.endswith(".html") for u in requests) == len(stems)
            page.goto((reports / "05-ranking.html").as_uri())
            page.screenshot(path=str(reports / "05-ranking.png"), full_page=True)
            # a table of more than 20 rows sorts by the column whose header is clicked
            order = page.evaluate("""() => {
                const t = [...document.querySelectorAll('table')].find(
                    t => t.tBodies[0] && t.tBodies[0].rows.length > 20
                         && !t.querySelector('tbody [rowspan]'));
                const texts = () => [...t.tBodies[0].rows].map(r => r.cells[0].textContent.trim());
                const before = texts();
                t.tHead.rows[t.tHead.rows.length - 1].cells[0].click();
                const up = texts();
                t.tHead.rows[t.tHead.rows.length - 1].cells[0].click();
                const ordered = up.every((x, i) => i === 0 || up[i - 1].localeCompare(x) <= 0);
                return [before, up, texts(), ordered];
            }""")
            before, up, down, ordered = order
            assert len(before) > 20 and sorted(before) == sorted(up) and ordered
            assert down == up[::-1] and up != before
        finally:
            browser.close()
    assert (reports / "05-ranking.png").stat().st_size > 50_000


def _failing_notebooks(directory: Path) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    params = nbformat.v4.new_code_cell('DATASET = "sample"\nHEADLINE_PATH = "x.json"')
    params.metadata["tags"] = ["parameters"]
    nb.cells = [nbformat.v4.new_markdown_cell("# Broken"), params,
                nbformat.v4.new_code_cell("x = 1"),
                nbformat.v4.new_code_cell("raise ValueError('boom')")]
    directory.mkdir()
    nbformat.write(nb, directory / "01-broken.ipynb")
    return directory


def test_a_failing_notebook_names_itself_and_keeps_the_partial_run(tmp_path: Path) -> None:
    notebooks = _failing_notebooks(tmp_path / "nbs")
    out = tmp_path / "out"
    with pytest.raises(ReportError, match=r"01-broken\.ipynb failed in cell 4 "
                                          r"\[raise ValueError\('boom'\)\] \(ValueError: boom\)"):
        run_reports("sample", out=out, notebooks=notebooks, progress=False)
    kept = nbformat.read(out / ".failed" / "01-broken.ipynb", as_version=4)
    ran = [c for c in kept.cells if c.cell_type == "code" and c.source == "x = 1"]
    assert ran and ran[0].execution_count is not None
    assert not (out / "01-broken.html").exists()
    assert not (out / "index.html").exists()


def test_report_command_exits_non_zero_on_failure(tmp_path: Path) -> None:
    notebooks = _failing_notebooks(tmp_path / "nbs")
    done = subprocess.run(
        [sys.executable, "-m", "evalkit", "report", "--notebooks", str(notebooks), "--out",
         str(tmp_path / "out")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    assert "01-broken.ipynb failed in cell 4" in done.stderr


def test_a_relative_data_path_keeps_its_meaning(tmp_path: Path, monkeypatch) -> None:
    # notebooks run in their own directory, so the runner must hand them an absolute path
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    params = nbformat.v4.new_code_cell('DATASET = "sample"\nHEADLINE_PATH = "x.json"')
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params, nbformat.v4.new_code_cell(
        "from evalkit.report import write_headline\n"
        "write_headline(HEADLINE_PATH, {'dataset': DATASET})")]
    notebooks = tmp_path / "nbs"
    notebooks.mkdir()
    nbformat.write(nb, notebooks / "01-echo.ipynb")
    (tmp_path / "mydata").mkdir()
    monkeypatch.chdir(tmp_path)
    run_reports("mydata", out=tmp_path / "out", notebooks=notebooks, progress=False)
    echoed = json.loads((tmp_path / "out" / "01-echo.json").read_text())["dataset"]
    assert echoed == str((tmp_path / "mydata").resolve())
