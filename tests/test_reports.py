"""Reports end to end: papermill runs every notebook with small parameters, nbconvert renders
HTML, the index links them; a real browser loads the pages and sees the plots; a failing
notebook is reported by name and cell."""

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

SMALL = {"K_MAX": 20, "FOLDS": 2, "MODELS": ["MostPopular", "EASE"]}
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session")
def reports(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("reports")
    run_reports("sample", out=out, parameters=SMALL, progress=False)
    return out


@pytest.mark.slow
def test_every_notebook_renders_with_its_headline(reports: Path) -> None:
    stems = [p.stem for p in find_notebooks()]
    assert len(stems) == 8
    for stem in stems:
        assert (reports / f"{stem}.html").stat().st_size > 10_000, stem
        assert (reports / f"{stem}.ipynb").exists(), stem
        assert json.loads((reports / f"{stem}.json").read_text()), stem
    index = (reports / "index.html").read_text()
    for stem in stems:
        assert f"href='{stem}.html'" in index


@pytest.mark.slow
def test_headline_numbers_match_direct_computation(reports: Path) -> None:
    data = ek.load_sample(seed=0)
    explore = json.loads((reports / "01-data-exploration.json").read_text())
    assert explore["users"] == data.ratings["user_id"].nunique()
    assert explore["interactions"] == len(data.ratings)

    split = ek.user_ratio_split(data.ratings, test_fraction=0.2, rng=0)
    recs = ek.models.recommend_all(["MostPopular"], split.train, split.test["user_id"].unique(),
                                   k=SMALL["K_MAX"])["MostPopular"]
    ranking = json.loads((reports / "05-ranking.json").read_text())
    expected = ek.metrics.ndcg_at_k(split.test, recs, k=10).mean()
    assert ranking["NDCG@10 MostPopular"] == pytest.approx(expected, rel=1e-5)

    predictions = ek.models.predict_ratings(split.train, split.test)["user + item bias"]
    rating = json.loads((reports / "03-rating-prediction.json").read_text())
    assert rating["RMSE (user + item bias)"] == pytest.approx(
        ek.metrics.rmse(split.test, predictions), rel=1e-5)

    explained = json.loads((reports / "08-metrics-explained.json").read_text())
    assert round(explained["AP (seed list)"], 3) == 0.717
    assert round(explained["RMSE (seed table)"], 3) == 0.872


@pytest.mark.slow
def test_reports_state_what_they_were_computed_on(reports: Path) -> None:
    html = (reports / "05-ranking.html").read_text()
    fingerprint = ek.fingerprint(ek.load_sample(seed=0).ratings)
    assert fingerprint["sha256"][:40] in html
    for text in ("evalkit version", ek.__version__, "user_ratio", "definition: gain",
                 "definition: ap_denominator", "definition: ties"):
        assert text in html, text
    assert "recommend_all(" not in html  # code hidden by default


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
            assert page.locator("table a").count() == 8
            page.screenshot(path=str(reports / "index.png"))

            page.goto((reports / "05-ranking.html").as_uri())
            page.wait_for_load_state("load")
            sizes = page.evaluate(
                "[...document.images].map(i => [i.naturalWidth, i.naturalHeight,"
                " i.getBoundingClientRect().width, i.complete])")
            assert len(sizes) >= 5  # the ranking notebook's five plots
            for natural_w, natural_h, shown_w, complete in sizes:
                assert complete and natural_w > 0 and natural_h > 0 and shown_w > 0
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
    kept = nbformat.read(out / "01-broken.ipynb", as_version=4)
    ran = [c for c in kept.cells if c.cell_type == "code" and c.source == "x = 1"]
    assert ran and ran[0].execution_count is not None
    assert not (out / "01-broken.html").exists()


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
