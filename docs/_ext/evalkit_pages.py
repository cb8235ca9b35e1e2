"""The reference pages written from evalkit's own declarations, at every build.

- ``generated/metrics.md``: every declared metric (:data:`evalkit.metrics.METRICS`): its
  label, formula, range, direction, which users it is defined for, the definitions it reads
  and its function;
- ``generated/definitions.md``: every definition (:mod:`evalkit.definitions`) with its
  choices, its default and what it means, and each library profile's settings beside them;
- ``generated/cli.md``: the command line, each command's ``--help``;
- ``generated/parameters.md``: the report notebooks' parameters
  (:func:`evalkit.report.list_parameters`);
- ``generated/reports.md`` and ``generated/reports/*.ipynb``: the report notebooks, copied
  with their committed outputs (shown as they are, not executed);
- ``generated/api.md``: the API reference, each public module's ``__all__`` (one page per
  name, from its docstring, under ``generated/api/``).

The pages are written before Sphinx reads the sources, into ``docs/generated/`` (not kept in
git), and only when their text changes, so that an unchanged build reads nothing anew.
"""

from __future__ import annotations

import io
import math
from contextlib import redirect_stdout
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the page functions run without Sphinx too (tests/test_docs.py)
    from sphinx.application import Sphinx

HERE = Path(__file__).resolve().parents[1]
OUT = HERE / "generated"


def _write(name: str, text: str) -> None:
    path = OUT / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def _cell(text: object) -> str:
    """Text for a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def _bounds(low: float, high: float) -> str:
    def one(x: float) -> str:
        return "∞" if x == math.inf else "−∞" if x == -math.inf else f"{x:g}"
    return f"[{one(low)}, {one(high)}]"


def _ties(m) -> str:
    """What a metric does with tied scores, from its declaration."""
    if m.family == "ranking":
        if m.expected_ties:
            return ("as `ties` says: one order of the tied items (by `tie_order`), relevant "
                    "first or last, or the expected value over every order of the ties")
        return ("one order of the tied items, as `ties` and `tie_order` give it "
                "(`ties=\"expected\"` is refused: computed from each user's hits)")
    if m.family == "beyond":
        return ("tied scores ordered by `tie_order`; a warning counts the users whose tied "
                "scores straddle the cutoff")
    if m.family == "correlation":
        return "tied ratings or predictions as the formula counts them (see the function)"
    return "no ranking: ties play no part"


def _libraries(name: str) -> str:
    """The libraries whose numbers a profile reproduces for this metric."""
    from evalkit.definitions import PROFILES

    found = [f"{{ref}}`{p.library} <profile-{key}>`" for key, p in PROFILES.items()
             if key != "evalkit" and name in p.metrics]
    return ", ".join(found) or "none of the profiles (evalkit's own definition)"


#: The symbols the formulas use, stated once at the top of the page.
NOTATION = (
    "$u$ a test user, $U$ the users evaluated, $R_u$ the user's relevant test items "
    "(rating at or above `threshold`), $T_u$ all the user's test items, $L_u$ the user's "
    "recommended list cut at $k$, $\\mathrm{rel}_i = 1$ when the item at rank $i$ is "
    "relevant (else 0), $g_i$ its gain (see `gain`), $r_{ui}$ and $\\hat r_{ui}$ a true and a "
    "predicted rating. Each formula is the default definition; *reads* lists the "
    "definitions that change it, and the plain-text line under it names the alternatives."
)


def metrics_page() -> str:
    from evalkit import metrics

    families = {"ranking": "Ranking (top-k lists)", "rating": "Rating prediction",
                "correlation": "Rank correlation of predicted ratings",
                "beyond": "Beyond accuracy"}
    lines = [
        "# Every metric",
        "",
        "Every metric evalkit computes, as it is declared once in "
        "{py:data}`evalkit.metrics.METRICS`: this page is written from those declarations at "
        "every build. *Reads* lists the definitions (see [Definitions](definitions.md)) that "
        "change the metric's value; everything else about it is fixed by its formula. "
        "*Matches* names the libraries whose numbers a profile reproduces, checked against "
        "their own output.",
        "",
        "Notation: " + NOTATION,
        "",
    ]
    for family, title in families.items():
        declared = [m for m in metrics.METRICS.values() if m.family == family]
        if not declared:
            continue
        lines += [f"## {title}", ""]
        for m in declared:
            function = m.function if isinstance(m.function, str) else m.function.__name__
            lines += [f"(metric-{m.name})=", f"### {m.long_label or m.label} (`{m.name}`)", ""]
            if m.latex:
                lines += ["```{math}", m.latex, "```", ""]
            if m.formula:
                lines += [f"```text\n{m.formula}\n```", ""]
            facts = [
                ("label in tables", f"`{m.label}@k`" if m.at_k else f"`{m.label}`"),
                ("range", _bounds(*m.bounds)),
                ("better", "higher" if m.higher_is_better else "lower"),
                ("per user", "no: one number for the whole set of lists" if m.system_level
                 else "yes" + ("" if m.defined_without_relevant or m.family != "ranking"
                               else "; users without a relevant test item have no value")),
                ("curves over k", "yes" if m.curves else "no"),
                ("reads", ", ".join(f"{{ref}}`{r} <definition-{r}>`" for r in m.reads)
                 or "no definition"),
                ("ties", _ties(m)),
                ("matches", _libraries(m.name)),
                ("source", m.reference or "not given"),
                ("function", f"{{py:func}}`evalkit.metrics.{function}`"),
            ]
            lines += ["| property | |", "|---|---|"] + [f"| {k} | {_cell(v)} |"
                                                        for k, v in facts]
            lines += [""]
    return "\n".join(lines) + "\n"


def definitions_page() -> str:
    from evalkit import definitions as d

    profiles = {name: p for name, p in d.PROFILES.items() if name != "evalkit"}
    lines = [
        "# Every definition and profile",
        "",
        "The choices on which recommender-evaluation libraries disagree, each a keyword of "
        "{py:class}`evalkit.Definitions` (and of `evaluate`, the command line and the "
        "reports). A result records the definitions it was computed with. This page is "
        "written from {py:mod}`evalkit.definitions` at every build.",
        "",
        "## Every definition",
        "",
    ]
    for name in d.OPTION_NAMES:
        choices = d.choices(name)
        lines += [
            f"(definition-{name})=",
            f"### `{name}`",
            "",
            f"{_cell(d.help_text(name))}. Default `{d.default(name)!r}`; "
            + (f"choices {', '.join(f'`{c}`' for c in choices)}." if choices else
               "a number."),
            "",
        ]
    lines += [
        "## Library profiles",
        "",
        "A profile is the set of definitions under which evalkit gives another library's "
        "numbers (`definitions=\"lenskit\"`, `--profile lenskit`, `PROFILE='lenskit'`). "
        "Each is checked against that library's own output on MovieLens "
        "(`tests/references/`).",
        "",
    ]
    for name, p in profiles.items():
        changed = p.definitions.changed()
        lines += [
            f"(profile-{name})=",
            f"### {p.library}",
            "",
            f"`definitions=\"{name}\"`, checked against version {p.version}; metrics: "
            f"{', '.join(f'`{m}`' for m in p.metrics)}.",
            "",
            "Settings that differ from evalkit's defaults: "
            + (", ".join(f"`{k}={v!r}`" for k, v in changed.items()) or "none") + ".",
            "",
        ]
        if p.differences:
            lines += [_cell(p.differences), ""]
    return "\n".join(lines) + "\n"


def cli_page() -> str:
    from evalkit import cli

    parser = cli._parser()
    lines = ["# Command line", "",
             "`evalkit` (`.venv/bin/evalkit`, or `python -m evalkit`) and its commands, as "
             "`--help` prints them (written at every build).", ""]

    def help_of(p) -> str:
        buffer = io.StringIO()
        with redirect_stdout(buffer):
            p.print_help()
        return buffer.getvalue()

    lines += ["```text", help_of(parser).rstrip(), "```", ""]
    subparsers = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    for name, sub in subparsers.choices.items():
        lines += [f"## `evalkit {name}`", "", "```text", help_of(sub).rstrip(), "```", ""]
    return "\n".join(lines) + "\n"


def parameters_page() -> str:
    from evalkit.report import list_parameters

    table = list_parameters()
    lines = ["# Report parameters", "",
             "Every parameter of the report notebooks (`evalkit report -p NAME VALUE`, or "
             "papermill's `-p`), with its type, its default and the notebooks that take it: "
             "what `evalkit report --list-parameters` prints, written at every build.", "",
             "| parameter | type | default | meaning | notebooks |", "|---|---|---|---|---|"]
    for name, row in table.iterrows():
        lines.append(f"| `{name}` | `{_cell(row['type'])}` | `{_cell(row['default'])}` | "
                     f"{_cell(row['meaning'])} | {row['notebooks']} |")
    return "\n".join(lines) + "\n"


#: The public faces, in the order a reader meets them, with what each is for.
API = {
    "evalkit": "The names most analysts need: load, split, evaluate, compare, check.",
    "evalkit.metrics": "Every metric family, the declarations (`METRICS`) and the engine.",
    "evalkit.protocols.sampled": "Sampled candidates and the correction to the full ranking.",
    "evalkit.protocols.debiased": "Popularity-debiased metrics: IPS, SNIPS, stratified recall.",
    "evalkit.stats": "Intervals, paired tests, Holm's correction, power and detectable "
                     "differences.",
    "evalkit.split": "Splits and their leakage audit.",
    "evalkit.models": "Baselines.",
    "evalkit.fairness": "Who is served worse: group gaps and exposure.",
    "evalkit.segments": "Metrics by user and item segment.",
    "evalkit.data": "MovieLens releases, your own files, the embedded sample.",
    "evalkit.definitions": "The definitions and their checks.",
    "evalkit.profiles": "Other libraries' definitions.",
    "evalkit.explore": "Data exploration.",
    "evalkit.recs": "Reading recommendation files.",
    "evalkit.plots": "The report plots.",
    "evalkit.report": "What the report notebooks call, and the runner.",
    "evalkit.spark": "Evaluation of Spark DataFrames (the `spark` extra and Java 17 to run it).",
    "evalkit.examples": "The textbooks' worked examples as ready-made frames.",
}


def api_page() -> str:
    import importlib
    import types

    lines = ["# API reference", "",
             "Every public name, from its docstring: formula, conventions, the rule for "
             "degenerate cases and the paper it follows. Written at every build from each "
             "module's `__all__`.", ""]
    # a name the top level re-exports from a public module is documented there, once
    elsewhere = {id(getattr(importlib.import_module(name), n))
                 for name in API if name != "evalkit"
                 for n in importlib.import_module(name).__all__}
    for name, purpose in API.items():
        module = importlib.import_module(name)
        names = [n for n in module.__all__
                 if not isinstance(getattr(module, n), types.ModuleType)
                 and not (name == "evalkit" and id(getattr(module, n)) in elsewhere)]
        lines += [f"## `{name}`", "", purpose, "", "```{eval-rst}",
                  f".. currentmodule:: {name}", "", ".. autosummary::", "   :toctree: api", ""]
        lines += [f"   {n}" for n in sorted(names, key=str.lower)] + ["```", ""]
    return "\n".join(lines) + "\n"


NOTEBOOKS = HERE.parent / "notebooks"


def _title(notebook: dict) -> tuple[str, str]:
    """A notebook's title (its first heading) and its first paragraph."""
    first = next(c for c in notebook["cells"] if c["cell_type"] == "markdown")
    text = "".join(first["source"]).strip().split("\n\n")
    return text[0].lstrip("# ").strip(), " ".join(text[1].split()) if len(text) > 1 else ""


def reports_page() -> str:
    """The page listing the report notebooks; copies them beside it, unchanged."""
    import json

    lines = ["# The reports", "",
             "The report notebooks as they are committed: run on the embedded sample, with "
             "their outputs (the same outputs the notebooks' regression tests compare). "
             "`evalkit report` runs them on your data into HTML (see "
             "[Getting started](../getting-started.md)); their parameters are on the "
             "[report parameters](parameters.md) page.", "",
             "```{toctree}", ":maxdepth: 1", ""]
    rows = []
    for path in sorted(NOTEBOOKS.glob("[0-9]*.ipynb")):
        text = path.read_text()
        _write(f"reports/{path.name}", text)
        title, summary = _title(json.loads(text))
        lines.append(f"reports/{path.stem}")
        rows.append(f"- [{title}](reports/{path.stem}.ipynb): {summary}")
    return "\n".join(lines + ["```", ""] + rows) + "\n"


def _generate(app: Sphinx, config: object = None) -> None:
    _write("metrics.md", metrics_page())
    _write("definitions.md", definitions_page())
    _write("cli.md", cli_page())
    _write("parameters.md", parameters_page())
    _write("api.md", api_page())
    _write("reports.md", reports_page())


def setup(app: Sphinx) -> dict:
    # when the configuration is read: before Sphinx lists the sources and autosummary reads
    # them (at builder-inited, a clean build's list would not have the pages yet)
    app.connect("config-inited", _generate)
    return {"parallel_read_safe": True}
