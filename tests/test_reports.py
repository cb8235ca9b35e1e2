"""Reports end to end, as an analyst runs them from the shell: ``evalkit report`` on the
committed example split with "my" recommendation and prediction files beside two baselines
(the notebook grid's ``REPORT_SET``, whose headlines are checked here); papermill runs
every notebook, nbconvert renders HTML, the index links them; a real browser loads the pages
and sees the plots; a failing notebook is reported by name and cell. (The notebooks on the
default sample are checked by nbval on their committed outputs.)"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

import evalkit as ek
from evalkit.report import ReportError, find_notebooks, run_reports
from tests.notebook_checks import EXPECT, NOTEBOOKS, REPORT_SET, Direct, parameters


ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "data" / "example"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _report_command(params: dict, out: Path) -> list[str]:
    """``evalkit report`` with the options an analyst would type for ``params``."""
    command = [sys.executable, "-m", "evalkit", "report", "--data", params["DATASET"]]
    for name, path in params["RECS"].items():
        command += ["--recs", f"{name}={path}"]
    for name, path in params["PREDICTIONS"].items():
        command += ["--predictions", f"{name}={path}"]
    command += ["--baselines", *params["BASELINES"]]
    for key in ("K_MAX", "FOLDS"):
        command += ["-p", key, str(params[key])]
    return command + ["--out", str(out)]


@pytest.fixture(scope="session")
def reports(tmp_path_factory, files) -> Path:
    """The report command on the example folder with "my" recommendations and rating
    predictions (half the test pairs) beside MostPopular and EASE: the grid's set
    ``REPORT_SET``, run here through the command line in fresh kernels."""
    out = tmp_path_factory.mktemp("reports")
    params = parameters(files, REPORT_SET)
    assert set(params) == {"DATASET", "RECS", "PREDICTIONS", "BASELINES", "K_MAX", "FOLDS"}
    done = subprocess.run(_report_command(params, out), cwd=ROOT, capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"wrote 9 report(s) and {out / 'index.html'}" in done.stdout
    return out


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
    assert set(ranking) == {"ndcg@10 mine", "ndcg@10 MostPopular", "ndcg@10 EASE", "intervals"}
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
    assert at_scale == ranking | {"same as in memory": True}


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
    assert "mine" in (reports / "03-rating-prediction.html").read_text()
    assert oct((reports / "index.html").stat().st_mode & 0o777) == oct(0o666 & ~_umask())


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
    with pytest.raises(ReportError, match=r"01-broken\.ipynb failed in cell 4 \[raise ValueError\('boom'\)\] \(ValueError: boom\)"):
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
