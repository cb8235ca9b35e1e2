"""The guide's tour as JupyterLab shows it: its Python blocks ("A short tour" of Getting
started, the Definitions and the Decisions pages), taken from the documentation's pages and
run one statement per cell in a real Jupyter kernel, display every object
compactly and whole: tables of at most 12 columns and 1,000 px (rendered in headless Chromium
with JupyterLab's table style), numbers at 4 decimals, p-values that read plainly, the
definitions in force, a regression check's verdict, and the audit warnings the tour names."""

from __future__ import annotations

import ast
import html
import importlib
import os
import re
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

#: The guide's sections (as docs/_ext/guide_code.py names them) whose Python blocks make the
#: tour, in order.
SECTIONS = ("getting-started.md: ## A short tour", "guide/definitions.md",
            "guide/decisions.md")

#: JupyterLab's rules for tables in rendered HTML output (@jupyterlab/rendermime,
#: .jp-RenderedHTMLCommon), with its light theme's font size (--jp-ui-font-size1).
JUPYTERLAB_CSS = """
body { margin: 0; font-family: system-ui, -apple-system, 'Segoe UI', helvetica, arial,
       sans-serif; font-size: 14px; }
.output table { border-collapse: collapse; border-spacing: 0; border: none; font-size: 13px;
                table-layout: fixed; margin: 0 0 1em 0; }
.output td, .output th, .output tr { vertical-align: middle; padding: 0.5em;
                                     line-height: normal; white-space: normal;
                                     max-width: none; border: none; text-align: right; }
.output th { font-weight: bold; }
.output pre { white-space: pre-wrap; }
"""

MAX_WIDTH = 1000
MAX_COLUMNS = 12


def tour_statements() -> list[str]:
    """Each top-level statement of the tour's Python blocks, with the comment lines that
    follow it, in the guide's order."""
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    try:
        guide_code = importlib.import_module("guide_code")
    finally:
        sys.path.remove(str(ROOT / "docs" / "_ext"))
    out = []
    found = [where for where, _ in guide_code.blocks()]
    assert set(SECTIONS) <= set(found), set(SECTIONS) - set(found)
    for where, block in guide_code.blocks():
        if where in SECTIONS:
            lines = block.splitlines()
            starts = [node.lineno - 1 for node in ast.parse(block).body] + [len(lines)]
            out += ["\n".join(lines[a:b]).rstrip() for a, b in zip(starts, starts[1:])]
    return out


@pytest.fixture(scope="module")
def tour(tmp_path_factory) -> list[tuple[str, list[dict]]]:
    """The tour run in a Jupyter kernel: each statement and its outputs."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    statements = tour_statements()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in statements])
    folder = tmp_path_factory.mktemp("tour")  # the check saves its run under runs/ here
    nbclient.NotebookClient(nb, kernel_name="python3", timeout=300,
                            resources={"metadata": {"path": str(folder)}},
                            extra_arguments=["--HistoryManager.enabled=False"]).execute()
    return [(cell.source, cell.outputs) for cell in nb.cells]


def _code(source: str) -> str:
    """A statement's first line without its comment."""
    return source.splitlines()[0].split("#")[0].strip()


def _shown(tour, start: str) -> dict:
    """The displayed object (``execute_result`` data) of the statement whose code starts so
    (``"ek.compare("``), or is that (``"check"``)."""
    for source, outputs in tour:
        code = _code(source)
        if code == start or (start.endswith("(") and code.startswith(start)):
            results = [o for o in outputs if o["output_type"] == "execute_result"]
            assert len(results) == 1, source
            return results[0]["data"]
    raise AssertionError(f"the tour has no statement starting with {start!r}")


def _html_outputs(tour) -> list[tuple[str, str]]:
    return [(source, o["data"]["text/html"]) for source, outputs in tour for o in outputs
            if "text/html" in o.get("data", {})]


def test_the_tour_shows_its_objects_as_compact_html(tour) -> None:
    for start in ("result.summary", "result.definitions", "ek.compare(",
                  "ek.compare_evaluations(", "check"):
        assert "text/html" in _shown(tour, start), start
    for source, page in _html_outputs(tour):
        for table in re.findall(r"<table.*?</table>", page, flags=re.S):
            header = re.search(r"<tr.*?</tr>", table, flags=re.S).group(0)
            columns = len(re.findall(r"<th", header))
            assert columns <= MAX_COLUMNS, (source, columns)


def test_the_summary_shows_4_decimals_and_the_full_precision_is_one_attribute_away(
        tour) -> None:
    page = _shown(tour, "result.summary")["text/html"]
    cells = re.findall(r"<td>(.*?)</td>", page)
    assert cells and not [c for c in cells if re.fullmatch(r"-?\d+\.\d{5,}", c)]
    assert re.search(r"<td>0\.\d{4}</td>", page)  # the means and intervals, at 4 decimals
    assert ".table holds every column" in page
    assert len(re.findall(r"<tr", page)) >= 31  # every row (the header, 31 metric@k)


def test_the_definitions_show_every_field_in_force() -> None:
    import evalkit as ek

    page = ek.Definitions()._repr_html_()
    for name in ("threshold", "gain", "ap_denominator", "ties", "empty", "coverage_unit"):
        assert f"<th>{name}</th>" in page
    assert "evalkit&#x27;s defaults" in page


def test_the_tour_s_definitions_check_and_p_values_read_plainly(tour) -> None:
    page = html.unescape(_shown(tour, "result.definitions")["text/html"])
    assert "<th>ap_denominator</th>" in page and "<td>'min'</td>" in page
    shown = _shown(tour, "check")
    assert "evalkit regression check: passed" in shown["text/html"]
    assert shown["text/plain"].startswith("PASSED: ")
    for start in ("ek.compare(", "ek.compare_evaluations(", "check"):
        page = html.unescape(_shown(tour, start)["text/html"])
        assert not re.search(r"\de-\d", page), start  # no 6.5e-23
        # a bound reads plainly: one significant digit ("< 0.001", "< 0.002")
        bounds = re.findall(r"< (0\.\d+)", page)
        assert bounds and all(re.fullmatch(r"0\.0*[1-9]", b) for b in bounds), (start, bounds)
    page = _shown(tour, "ek.compare_evaluations(")["text/html"]
    assert "&lt; 0.002" in page and "1/10,001" in page  # 11 tests at the floor: the note


def test_the_readme_names_the_audit_warnings_of_its_own_split(tour) -> None:
    source, outputs = next((s, o) for s, o in tour if s.startswith("print(ek.audit(split))"))
    printed = "".join(o["text"] for o in outputs if o["output_type"] == "stream")
    warned = set(re.findall(r"^\d+\s+(\w+)\s+\d+\s+[\d.]+\s+warning\b", printed, flags=re.M))
    assert warned == {"user_time_leakage", "global_time_leakage", "cold_items"}, printed
    assert warned == {name for name in re.findall(r"\w+", source) if name in warned}


def _chromium():
    if CHROMIUM is None:
        reason = "Chromium is not installed (Debian package 'chromium'; .ci/run installs it)"
        if os.environ.get("CI"):
            pytest.fail(f"{reason}, and CI always has it")
        pytest.skip(reason)
    playwright = pytest.importorskip("playwright.sync_api")
    return playwright.sync_playwright()


def test_every_displayed_object_of_the_tour_is_at_most_1000_px_wide(tour, tmp_path) -> None:
    outputs = _html_outputs(tour)
    body = "".join(f"<div class='output' id='out{i}'>{page}</div>"
                   for i, (_, page) in enumerate(outputs))
    (tmp_path / "tour.html").write_text(
        f"<!doctype html><html><head><meta charset='utf-8'><style>{JUPYTERLAB_CSS}</style>"
        f"</head><body>{body}</body></html>")
    with _chromium() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"])
        try:
            # wide enough that every table takes its natural width, unwrapped
            page = browser.new_page(viewport={"width": 4000, "height": 900})
            page.goto((tmp_path / "tour.html").as_uri())
            widths = page.evaluate(
                "[...document.querySelectorAll('.output')].map(d => Math.max(0, ...[...d"
                ".querySelectorAll('table, pre')].map(t => t.getBoundingClientRect().width)))")
        finally:
            browser.close()
    assert len(widths) == len(outputs)
    wide = {source: round(w) for (source, _), w in zip(outputs, widths) if w > MAX_WIDTH}
    assert not wide
    assert max(widths) > 200  # the tables were measured
