"""The documentation's sources, without building the site (``make docs`` builds it, outside
the test budget): the reference pages written from the declarations name every metric,
definition, profile, command, report parameter and public name; every section a page
includes is still in the file it includes; every Python block of the guide runs at the
build; the README's links open; the offline check finds what a page would load from another
host."""

from __future__ import annotations

import importlib
import re
import sys
import types
from pathlib import Path

import pytest

import evalkit
from evalkit import definitions, metrics
from evalkit.report import list_parameters

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS / "_ext"))
sys.path.insert(0, str(DOCS))
pages = importlib.import_module("evalkit_pages")
guide_code = importlib.import_module("guide_code")
check_offline = importlib.import_module("check_offline")


def _entry(text: str, name: str) -> str:
    """One metric's entry of the metrics page: from its anchor to the next heading."""
    start = text.index(f"(metric-{name})=")
    return text[start:text.index("\n#", text.index("\n###", start) + 1)]


def test_the_metrics_page_has_every_declared_metric() -> None:
    text = pages.metrics_page()
    for m in metrics.METRICS.values():
        entry = _entry(text + "\n#", m.name)
        assert f"(`{m.name}`)" in entry, m.name
        assert f"evalkit.metrics.{m.func.__name__}" in entry, m.name
        # its formula typeset and the publication it comes from, as declared
        assert (f"```{{math}}\n{m.latex}\n```" in entry) == bool(m.latex), m.name
        assert f"| source | {m.reference or 'not given'} |" in entry, m.name


def test_every_built_in_metric_declares_a_formula_and_a_source() -> None:
    for m in metrics.METRICS.values():
        if not isinstance(m.function, str):  # a metric of your own another test registered
            continue
        assert m.latex.strip() and m.reference.strip(), m.name
        assert m.latex.count("{") == m.latex.count("}"), m.name  # balanced LaTeX groups


def test_each_metric_names_the_libraries_whose_numbers_a_profile_reproduces() -> None:
    text = pages.metrics_page()
    for m in metrics.METRICS.values():
        entry = _entry(text + "\n#", m.name)
        for key, profile in definitions.PROFILES.items():
            linked = f"<profile-{key}>`" in entry
            assert linked == (key != "evalkit" and m.name in profile.metrics), (m.name, key)
        assert f"(profile-{key})=" in pages.definitions_page() or key == "evalkit"


def test_the_definitions_page_has_every_definition_and_profile() -> None:
    text = pages.definitions_page()
    for name in definitions.OPTION_NAMES:
        assert f"(definition-{name})=\n### `{name}`" in text, name
        assert definitions.help_text(name).split(":")[0] in text, name
    for name, profile in definitions.PROFILES.items():
        if name != "evalkit":
            assert f'`definitions="{name}"`' in text and profile.library in text, name


def test_every_metric_links_to_the_definitions_it_reads() -> None:
    text = pages.metrics_page()
    targets = set(re.findall(r"^\(definition-([a-z_]+)\)=$", pages.definitions_page(), re.M))
    linked = set(re.findall(r"<definition-([a-z_]+)>`", text))
    assert linked and linked <= targets


def test_the_command_line_page_has_every_command() -> None:
    text = pages.cli_page()
    for command in ("evaluate", "check", "report", "sample-candidates", "sample"):
        assert f"## `evalkit {command}`" in text, command


def test_the_parameters_page_has_every_report_parameter() -> None:
    text = pages.parameters_page()
    for name in list_parameters().index:
        assert f"| `{name}` |" in text, name


def test_the_api_page_lists_every_public_name_of_every_public_module() -> None:
    text = pages.api_page()
    for name in pages.API:
        module = importlib.import_module(name)
        for public in module.__all__:
            if not isinstance(getattr(module, public), types.ModuleType):
                # under its module (a top-level re-export under the module it comes from)
                assert f"\n   {public}\n" in text, f"{name}.{public}"
    # every public package of evalkit has its section (a new one needs its line in API)
    # (evalkit.protocols is documented by its two protocols, each a public module)
    faces = {f"evalkit.{n}" for n in evalkit._MODULES} - {"evalkit.protocols"}
    assert faces <= set(pages.API), faces - set(pages.API)


def test_every_section_a_page_includes_is_still_in_the_file_it_includes() -> None:
    found = 0
    for page in sorted(DOCS.rglob("*.md")):
        if "generated" in page.parts or "_build" in page.parts:
            continue
        for name, options in re.findall(r"```\{include\} (\S+)\n((?::[^\n]*\n)*)```",
                                        page.read_text()):
            included = (page.parent / name).read_text()
            for marker in re.findall(r':(?:start-after|end-before): "([^"]+)"', options):
                assert marker in included, f"{page.relative_to(ROOT)}: {marker!r} left {name}"
                found += 1
    assert found >= 3


def test_every_python_block_of_the_guide_runs_at_the_docs_build_or_says_why_not() -> None:
    """The build runs the blocks of ``guide_code.PAGES`` (``make docs``); a block on any other
    page, or in a section not named as not run, would be left out silently."""
    ran = guide_code.blocks()
    skipped = 0
    for page in sorted(DOCS.rglob("*.md")):
        if "generated" in page.parts or "_build" in page.parts:
            continue
        name = page.relative_to(DOCS).as_posix()
        for heading, body in guide_code.sections(page.read_text()):
            where = f"{name}: {heading}" if heading else name
            codes = re.findall(r"```python\n(.*?)```", body, flags=re.S)
            if where in guide_code.NOT_RUN:
                assert codes, f"{where} is named as not run but has no Python"
                skipped += len(codes)
            else:
                assert all((where, code) in ran for code in codes), where
    assert skipped == 2 and sum(code.count("\n") for _, code in ran) > 100
    # the README is the front door: its code is the shell's, and the guide holds the Python
    assert "```python" not in (ROOT / "README.md").read_text()


def test_the_readmes_links_open_files_of_the_repository() -> None:
    text = (ROOT / "README.md").read_text()
    links = [t for t in re.findall(r"\]\(([^)]+)\)", text) if "://" not in t]
    assert len(links) >= 10
    for target in links:
        assert (ROOT / target.split("#")[0]).exists(), target


@pytest.mark.parametrize(("html", "remote"), [
    ('<script src="https://cdn.example.org/x.js"></script>', True),
    ('<link rel="stylesheet" href="//fonts.example.org/css">', True),
    ('<img src="http://example.org/a.png">', True),
    ('<div style="background: url(https://example.org/a.png)"></div>', True),
    ("<style>@import 'https://example.org/a.css';</style>", True),
    ('<script src="_static/x.js"></script><link rel="stylesheet" href="_static/a.css">', False),
    ('<a href="https://github.com/">a link a reader may follow</a>', False),
])
def test_the_offline_check_finds_what_a_page_would_load_from_another_host(
        tmp_path, html, remote) -> None:
    (tmp_path / "index.html").write_text(f"<html><head></head><body>{html}</body></html>")
    assert bool(check_offline.remote_loads(tmp_path)) is remote
    assert check_offline.main(["check_offline", str(tmp_path)]) == int(remote)


def test_the_reports_page_shows_every_report_notebook_with_its_committed_outputs() -> None:
    text = pages.reports_page()
    notebooks = sorted((ROOT / "notebooks").glob("[0-9]*.ipynb"))
    assert len(notebooks) >= 9
    for path in notebooks:
        assert f"\nreports/{path.stem}\n" in text, path.name  # in the page's toctree
        shown = pages.OUT / "reports" / path.name
        assert shown.read_text() == path.read_text(), path.name  # copied as committed
