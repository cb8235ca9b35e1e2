"""Run the parameterized notebooks with papermill and render them to HTML with nbconvert.

``make report`` (or ``evalkit report``) calls :func:`run_reports`; inside the notebooks,
:func:`write_headline` saves the headline numbers that ``index.html`` collects.
"""

from __future__ import annotations

import html
import json
import logging
import os
import re
import shutil
import tempfile
import threading
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

from .._constraints import POSITIVE_INT, constrained, optional
from .._io import atomic_write_text
from .._version import __version__
from ..data.download import MOVIELENS_NAMES
from ._memory import MemoryWatch
from ._params import PARAMETERS, ParameterError, check_parameters
from ._plan import FileCheck, _split_folder, _value, check_files, skipped_pages
from ._shared import ENVIRONMENT, LIST_LENGTH, file_stamp

__all__ = [
    "ReportError",
    "find_notebooks",
    "list_parameters",
    "notebook_parameters",
    "read_headlines",
    "run_reports",
    "tidy_notebooks",
    "write_headline",
]

PROJECT_NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
#: Parameters whose values are paths (or mappings of names to paths): the runner makes them
#: absolute, since the notebooks run in their own directory.
PATH_PARAMETERS = ("TRAIN", "TEST", "ITEMS", "RECS", "PREDICTIONS", "BASELINE_RUN", "USERS",
                   "TRUTH_PARQUET", "RECS_PARQUET")


class ReportError(RuntimeError):
    """A notebook failed while running; the message names the notebook and the cell."""


def write_headline(path: str | os.PathLike | None, numbers: Mapping[str, object]) -> pd.DataFrame:
    """Write a notebook's headline numbers to JSON (atomically) when ``path`` is given.

    ``path`` is the ``HEADLINE_PATH`` parameter: the report runner sets it to a file in its
    output folder; a notebook run by hand leaves it None and writes nothing. Floats are
    rounded to 6 significant digits so the file is stable across platforms.

    Parameters
    ----------
    path : str, path-like or None
        ``HEADLINE_PATH``: the JSON file to write; None: nothing is written.
    numbers : mapping of str to object
        The headline numbers by name (nested mappings and lists are written as they are).

    Returns
    -------
    pd.DataFrame
        The numbers as written, one row each (``value``), for the notebook to show.
    """
    clean = {str(k): _jsonable(v) for k, v in numbers.items()}
    if path is not None:
        atomic_write_text(path, json.dumps(clean, indent=2, sort_keys=True) + "\n")
    shown = {k: v for k, v in clean.items() if not isinstance(v, (dict, list))}
    return pd.DataFrame({"value": pd.Series(shown, dtype=object)}).rename_axis("headline")


def _jsonable(value: object) -> object:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float):
        return float(f"{value:.6g}")
    return value


#: The names of report notebooks: two digits, a dash, a name (``05-ranking.ipynb``).
REPORT_NOTEBOOK = re.compile(r"\d\d-[^/]+\.ipynb")


def find_notebooks(
    notebooks: str | os.PathLike | Sequence[str | os.PathLike] | None = None,
) -> list[Path]:
    """The notebooks a report run executes, sorted by name.

    ``notebooks`` is a folder, whose numbered notebooks (``NN-name.ipynb``) are taken (a
    scratch ``Untitled.ipynb`` beside them is not a report), or a list of notebook files,
    taken as given; default: the project's ``notebooks/``.

    Parameters
    ----------
    notebooks : str, path-like or sequence of them, optional
        A folder, a notebook file, or a list of notebook files; default: the project's
        ``notebooks/``.
    """
    if notebooks is None or isinstance(notebooks, (str, os.PathLike)):
        directory = Path(notebooks) if notebooks is not None else PROJECT_NOTEBOOKS
        if directory.is_file():
            return [directory]
        return sorted(p for p in directory.glob("*.ipynb")
                      if REPORT_NOTEBOOK.fullmatch(p.name))
    paths = [Path(p) for p in notebooks]
    for path in paths:
        if path.suffix != ".ipynb" or not path.is_file():
            raise ReportError(f"run_reports: 'notebooks' names '{path}', which is not a "
                              "notebook file (.ipynb).")
    names = [p.name for p in paths]
    if len(set(names)) != len(names):
        raise ReportError("run_reports: 'notebooks' names two notebooks of the same name; "
                          "their reports would overwrite each other.")
    return sorted(paths, key=lambda p: p.name)


def tidy_notebooks(directory: str | os.PathLike | None = None) -> list[Path]:
    """Drop per-run execution timestamps from the cell metadata of the committed notebooks.

    ``make notebooks`` calls this after re-executing them, so that a diff shows only what
    changed in the outputs.

    Parameters
    ----------
    directory : str or path-like, optional
        The folder (or notebooks) as for :func:`find_notebooks`; default: the project's
        ``notebooks/``.
    """
    import nbformat

    tidied = []
    for path in find_notebooks(directory):
        nb = nbformat.read(path, as_version=4)
        changed = False
        for cell in nb.cells:
            if "execution" in cell.metadata:
                del cell.metadata["execution"]
                changed = True
        if changed:
            atomic_write_text(path, nbformat.writes(nb) + "\n")
            tidied.append(path)
    return tidied


def read_headlines(out: str | os.PathLike) -> dict[str, dict]:
    """Headline JSON files written by the notebooks into ``out``, by notebook stem.

    Parameters
    ----------
    out : str or path-like
        The report's output folder.
    """
    return {
        p.stem: json.loads(p.read_text())
        for p in sorted(Path(out).glob("*.json"))
    }


#: A script loaded from another host (nbconvert's template asks a CDN for require.js and
#: MathJax, which the reports do not use): removed, so that a page works offline.
_REMOTE_SCRIPT = re.compile(r"<script[^>]*\ssrc=\"https?://[^\"]*\"[^>]*>\s*</script>\s*",
                            re.IGNORECASE)


#: Tables of more than a screenful (20 rows) sort by a column when its header is clicked
#: (numbers as numbers, text as text; again to reverse); a table with cells spanning rows
#: keeps its order. Inline, so that a page works offline.
SORTABLE_TABLES = """<script>(function(){
document.querySelectorAll('table').forEach(function(t){
var body=t.tBodies[0],head=t.tHead;
if(!body||!head||body.rows.length<=20||t.querySelector('tbody [rowspan]'))return;
var cells=head.rows[head.rows.length-1].cells;
Array.prototype.forEach.call(cells,function(th,col){
th.style.cursor='pointer';th.title='Click to sort';
th.addEventListener('click',function(){
var up=th.dataset.sort!=='up';th.dataset.sort=up?'up':'down';
var rows=Array.prototype.slice.call(body.rows);
rows.sort(function(a,b){
var x=a.cells[col]?a.cells[col].textContent.trim():'';
var y=b.cells[col]?b.cells[col].textContent.trim():'';
var nx=Number(x.replace(/,/g,'')),ny=Number(y.replace(/,/g,''));
var c=(x!==''&&y!==''&&!isNaN(nx)&&!isNaN(ny))?nx-ny:x.localeCompare(y);
return up?c:-c;});
rows.forEach(function(r){body.appendChild(r);});});});});})();</script>"""


def _render_html(notebook: Path, target: Path, *, show_code: bool, title: str = "",
                 nav: Sequence[tuple[str, str]] = ()) -> None:
    """Render an executed notebook to a self-contained page: its title, a navigation bar
    (``nav``: (label, href) pairs), tables of more than a screenful sortable by a click on a
    column's header (:data:`SORTABLE_TABLES`) and no script from another host. Cells tagged
    ``headline`` (the headline numbers written for the index, which the index shows) stay in
    the executed notebook and are left out of the page."""
    import nbformat
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(template_name="lab")
    exporter.exclude_input = not show_code
    exporter.exclude_input_prompt = True
    exporter.exclude_output_prompt = True
    node = nbformat.read(notebook, as_version=4)
    node.cells = [c for c in node.cells if "headline" not in c.metadata.get("tags", ())]
    body, _ = exporter.from_notebook_node(node)
    body = _REMOTE_SCRIPT.sub("", body)
    if title:
        body = body.replace("<title>Notebook</title>",
                            f"<title>{html.escape(title)} · evalkit</title>", 1)
    if nav:
        links = " &middot; ".join(f"<a href='{html.escape(href)}'>{html.escape(label)}</a>"
                                  for label, href in nav)
        bar = (f"<nav class='evalkit-nav' style='font: 14px system-ui, sans-serif; "
               f"padding: .5rem 1rem; border-bottom: 1px solid #ddd'>{links}</nav>")
        body = re.sub(r"(<body[^>]*>)", lambda m: m.group(1) + bar, body, count=1)
    body = body.replace("</body>", SORTABLE_TABLES + "\n</body>", 1)
    atomic_write_text(target, body)


def _headline_value(value: object, interval: object = None) -> str:
    """A headline number as the index shows it: integers with thousands separators, other
    numbers with 3 decimals (4 when the value is below 0.01 but not 0), ``[low, high]``
    after it at the same precision when the notebook gave its interval; anything else as it
    is.

    >>> _headline_value(0.001593, [-0.0108, 0.01412]), _headline_value(0.5412, [0.5, 0.6])
    ('0.0016 [-0.0108, 0.0141]', '0.541 [0.500, 0.600]')
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    decimals = 4 if value != 0 and abs(value) < 0.01 else 3

    def number(x: float) -> str:
        return f"{x:,.{decimals}f}" if np.isfinite(x) else str(x)

    text = number(float(value))
    if isinstance(interval, (list, tuple)) and len(interval) == 2:
        text += f" [{number(float(interval[0]))}, {number(float(interval[1]))}]"
    return text


def _headline_text(numbers: Mapping[str, object]) -> str:
    """A notebook's headline numbers as one line of the index: ``name = value [low, high]``;
    the textbook examples a page reproduces (``... (seed ...)``) are left to the page, and
    three or more equal numbers without intervals are stated once."""
    intervals = numbers.get("intervals") if isinstance(numbers.get("intervals"), dict) else {}
    shown = {k: v for k, v in numbers.items()
             if not isinstance(v, (dict, list)) and "(seed " not in k}
    values = list(shown.values())
    if (len(values) >= 3 and not intervals and all(isinstance(v, float) for v in values)
            and len(set(values)) == 1):
        return (f"{_headline_value(values[0])} for each of "
                f"{', '.join(html.escape(k) for k in shown)}")
    # sentences (a split's audit, say) one per line; numbers on one line
    sep = "<br>" if any(isinstance(v, str) and len(v) > 30 for v in values) else ", "
    return sep.join(f"{html.escape(k)} = {html.escape(_headline_value(v, intervals.get(k)))}"
                    for k, v in shown.items())


def _baselines_run(notebooks: Sequence[Path], params: Mapping[str, object]) -> list[str]:
    """The baselines the pages evaluate: ``BASELINES`` when given, else each page's own
    default, in the order the pages name them."""
    import ast

    if "BASELINES" in params:
        return list(params.get("BASELINES") or [])
    names: dict[str, None] = {}
    for notebook in notebooks:
        declared = notebook_parameters(notebook).get("BASELINES")
        if declared is not None:
            names.update(dict.fromkeys(ast.literal_eval(declared["default"])))
    return list(names)


def _index_html(out: Path, entries: list[tuple[str, str]], data: str,
                params: Mapping[str, object], *, skipped: Mapping[str, str] | None = None,
                notes: Sequence[str] = (), baselines: Sequence[str] = ()) -> str:
    skipped = skipped or {}
    headlines = read_headlines(out)
    systems = [f"{html.escape(n)} ({html.escape(Path(p).name)})"
               for n, p in (params.get("RECS") or {}).items()]
    systems += [html.escape(n) for n in baselines]
    rows = []
    for stem, title in entries:
        if stem in skipped:
            rows.append(f"<tr class='skipped'><td>{html.escape(title)}</td>"
                        f"<td>not run: {html.escape(skipped[stem])}.</td></tr>")
            continue
        shown = _headline_text(headlines.get(stem, {}))
        rows.append(
            f"<tr><td><a href='{html.escape(stem)}.html'>{html.escape(title)}</a></td>"
            f"<td>{shown}</td></tr>"
        )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>evalkit reports</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 70rem; color: #222; }}
table {{ border-collapse: collapse; width: 100%; }}
td, th {{ border-bottom: 1px solid #ddd; padding: .5rem; text-align: left; vertical-align: top; }}
tr.skipped td {{ color: #666; }}
th {{ background: #f4f4f4; }} a {{ color: #0b5cad; font-weight: 600; }}
</style></head><body>
<h1>evalkit reports</h1>
<p>Dataset: <b>{html.escape(data)}</b> &middot; evalkit {__version__} &middot;
generated {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC.
Each report states its dataset fingerprint, split, seed and metric definitions.</p>
{f"<p>Systems: {', '.join(systems)}.</p>" if systems else ""}
{"".join(f"<p>{html.escape(note)}</p>" for note in notes)}
{_runs_paragraph(out)}
<table><thead><tr><th>Report</th><th>Headline numbers</th></tr></thead>
<tbody>{''.join(rows)}</tbody></table></body></html>
"""


def _runs_paragraph(out: Path) -> str:
    """Where the saved runs are, and what they are for (empty when none were saved)."""
    folders = sorted(p.name for p in (out / RUNS).iterdir() if p.is_dir()) \
        if (out / RUNS).is_dir() else []
    if not folders:
        return ""
    links = ", ".join(f"<code>{RUNS}/{html.escape(f)}</code>" for f in folders)
    return (f"<p>Saved runs (each system's evaluation in the model comparison, with its "
            f"per-user values and the fingerprints of the data): {links}. Check a later run "
            f"against one with <code>evalkit check --baseline {RUNS}/{html.escape(folders[0])}"
            f" --current DIR</code>, or give it to a later report as <code>-p BASELINE_RUN "
            f"{RUNS}/NAME</code> (with this folder's path).</p>")


def _title(notebook: Path) -> str:
    nb = json.loads(notebook.read_text())
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "markdown":
            for line in "".join(cell.get("source", [])).splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return notebook.stem


def notebook_parameters(notebook: str | os.PathLike) -> dict[str, dict]:
    """The parameters a notebook declares, as ``papermill --help-notebook`` reads them.

    The ``parameters`` cell is parsed here (its assignments, with their annotations and the
    comment on each one's last line), as papermill's inspection does, without importing
    papermill (over a second): ``evalkit report --list-parameters`` and the runner's checks
    answer at once.

    Parameters
    ----------
    notebook : str or path-like
        The notebook file.

    Returns
    -------
    dict
        By parameter name: ``type``, ``default`` (the source text, its lines joined) and
        ``meaning`` (the comment in the ``parameters`` cell).
    """
    import ast
    import io
    import tokenize

    cells = json.loads(Path(notebook).read_text()).get("cells", [])
    cell = next((c for c in cells if "parameters" in c.get("metadata", {}).get("tags", [])),
                None)
    if cell is None:
        return {}
    source = "".join(cell.get("source", []))
    comments = {token.start[0]: token.string.lstrip("#").strip()
                for token in tokenize.generate_tokens(io.StringIO(source).readline)
                if token.type == tokenize.COMMENT}
    lines = [line.encode() for line in source.splitlines(keepends=True)]

    def segment(node) -> str:  # ast.get_source_segment without splitting the cell each time
        first, last = node.lineno - 1, node.end_lineno - 1
        if first == last:
            return lines[first][node.col_offset:node.end_col_offset].decode()
        return b"".join([lines[first][node.col_offset:], *lines[first + 1:last],
                         lines[last][:node.end_col_offset]]).decode()

    found = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            name, annotation = node.target.id, segment(node.annotation)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            name, annotation = node.targets[0].id, "None"
        else:
            continue
        if node.value is None:
            continue
        default = "".join(line.strip() for line in segment(node.value).splitlines())
        found[name] = {"type": (annotation or "None").strip("\"' "), "default": default,
                       "meaning": comments.get(node.end_lineno, "")}
    return found


def list_parameters(
    notebooks: str | os.PathLike | Sequence[str | os.PathLike] | None = None,
) -> pd.DataFrame:
    """Every parameter of the report notebooks: type, default, meaning and which notebooks.

    What ``evalkit report --list-parameters`` prints. A parameter whose default differs
    between notebooks lists each default with its notebooks.

    Parameters
    ----------
    notebooks : str, path-like or sequence of them, optional
        The notebooks, as for :func:`find_notebooks`; default: the project's.
    """
    rows: dict[str, dict] = {}
    for path in find_notebooks(notebooks):
        for name, p in notebook_parameters(path).items():
            row = rows.setdefault(name, {"type": p["type"], "meaning": p["meaning"],
                                         "defaults": {}, "notebooks": []})
            row["defaults"].setdefault(p["default"], []).append(path.stem[:2])
            row["notebooks"].append(path.stem[:2])
    table = pd.DataFrame.from_dict({
        name: {
            "type": row["type"],
            "default": row["defaults"] and (
                next(iter(row["defaults"])) if len(row["defaults"]) == 1 else "; ".join(
                    f"{d} ({', '.join(nbs)})" for d, nbs in row["defaults"].items())),
            "meaning": row["meaning"],
            "notebooks": ", ".join(row["notebooks"]),
        }
        for name, row in rows.items()
    }, orient="index")
    table.index.name = "parameter"
    return table


def _absolute(value: object) -> object:
    if isinstance(value, Mapping):
        return {k: _absolute(v) for k, v in value.items()}
    if isinstance(value, (str, os.PathLike)) and str(value) and "://" not in str(value):
        return str(Path(value).expanduser().resolve())
    return value  # empty, or a URI that Spark reads (s3://...)


def _resolve_parameters(data: str, parameters: Mapping[str, object]) -> dict[str, object]:
    """Check the parameters once, before any notebook runs, and make paths absolute."""
    unknown = sorted(set(parameters) - set(PARAMETERS))
    if unknown:
        raise ParameterError(
            f"run_reports: unknown parameter(s) {', '.join(unknown)}; the notebooks take "
            f"{', '.join(sorted(PARAMETERS))} (evalkit report --list-parameters)."
        )
    if {"DATASET", "HEADLINE_PATH", "RUNS_DIR"} & set(parameters):
        raise ParameterError("run_reports: pass the dataset as 'data' and the output folder as "
                             "'out'; DATASET, HEADLINE_PATH and RUNS_DIR are set by the runner.")
    params = dict(parameters)
    checked = check_parameters(DATASET=data, **params)
    for name in ("METRIC", "METRICS"):  # a label ("NDCG") reaches the notebooks as its name
        if name in params:
            params[name] = checked[name]
    if "SPLIT" in params and (params.get("TRAIN") is not None
                              or _split_folder(Path(data)) is not None):
        raise ParameterError(
            "run_reports: parameter SPLIT would be ignored: the report evaluates your own "
            "split (TRAIN and TEST, or a folder with train and test files) as given; leave "
            "SPLIT out, or give DATASET alone to have it split."
        )
    for name in PATH_PARAMETERS:
        if params.get(name) is not None:
            params[name] = _absolute(params[name])
    # notebooks run in their own directory: a relative data path must not change meaning
    # (a release name always means the release, even beside a folder of that name)
    if data != "sample" and data not in MOVIELENS_NAMES and Path(data).exists():
        data = str(Path(data).resolve())
    return {"DATASET": data, **params}


class _Lock:
    """An exclusive lock on an output folder: a second run into it is refused, not mixed."""

    def __init__(self, out: Path) -> None:
        self.path = out / ".evalkit-report.lock"

    def __enter__(self) -> _Lock:
        try:
            fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            holder = self.path.read_text().strip() if self.path.exists() else ""
            if holder.isdigit() and not _alive(int(holder)):
                self.path.unlink(missing_ok=True)  # left by a run that was killed
                return self.__enter__()
            raise ReportError(
                f"run_reports: another report run (process {holder or '?'}) is writing to "
                f"'{self.path.parent}'; wait for it, or choose another 'out'."
            ) from None
        with os.fdopen(fd, "w") as handle:
            handle.write(str(os.getpid()))
        return self

    def __exit__(self, *exc: object) -> None:
        self.path.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


_MANIFEST = ".evalkit-report.json"

#: The folder of the report that holds each system's saved run (``RUNS_DIR``).
RUNS = "runs"


def _publish(staging: Path, out: Path, names: list[str],
             seconds: Mapping[str, float] | None = None,
             peaks: Mapping[str, object] | None = None) -> None:
    """Move the finished run from ``staging`` into ``out``, index last; drop the files of an
    earlier run that this one did not write. The manifest (``.evalkit-report.json``) lists
    the files, each notebook's wall time in seconds (``seconds``) and the peak resident
    memory in GB of the run and while each notebook ran (``peak_gb``, where it was read)."""
    manifest = out / _MANIFEST
    earlier = json.loads(manifest.read_text()).get("files", []) if manifest.exists() else []
    for name in sorted(names, key=lambda n: n == "index.html"):
        if (staging / name).is_dir():  # the saved runs: the earlier folder moved aside first
            aside = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=out))
            if (out / name).exists():
                os.replace(out / name, aside / name)
            os.replace(staging / name, out / name)
            shutil.rmtree(aside, ignore_errors=True)
        else:
            os.replace(staging / name, out / name)
    for name in set(earlier) - set(names):
        if (out / name).is_dir():
            shutil.rmtree(out / name, ignore_errors=True)
        else:
            (out / name).unlink(missing_ok=True)
    record = {"files": sorted(names),
              "seconds": {k: round(v, 3) for k, v in sorted((seconds or {}).items())},
              **({"peak_gb": dict(peaks)} if peaks else {})}
    atomic_write_text(manifest, json.dumps(record, indent=1) + "\n")


@constrained(jobs=optional(POSITIVE_INT))
def run_reports(
    data: str = "sample",
    *,
    out: str | os.PathLike = "reports",
    notebooks: str | os.PathLike | Sequence[str | os.PathLike] | None = None,
    parameters: Mapping[str, object] | None = None,
    show_code: bool = False,
    progress: bool = True,
    jobs: int | None = None,
    spark: bool = False,
    resume: bool = False,
) -> list[Path]:
    """Run every notebook on ``data`` and render each to HTML in ``out``, plus an index.

    Parameters
    ----------
    data : str, default "sample"
        The ``DATASET`` parameter: ``"sample"``, a MovieLens release name, a path to a release
        folder or zip, or a folder holding your own ``train.csv`` and ``test.csv``.
    out : path, default "reports"
        Output folder: executed notebooks (``.ipynb``), HTML reports, headline JSON files and
        ``index.html``.
    notebooks : path or list of paths, optional
        A folder, whose numbered notebooks (``NN-name.ipynb``) are the reports (a scratch
        ``Untitled.ipynb`` beside them is not run), or a list of notebook files; default: the
        project's ``notebooks/``. A notebook whose metadata says it needs what the inputs do
        not have (``evalkit.needs``: ratings, a threshold, rating predictions) is left out,
        with the reason on the index (see Notes).
    parameters : dict, optional
        Notebook parameters (see :func:`list_parameters`), e.g.
        ``{"TRAIN": "train.csv", "TEST": "test.csv", "RECS": {"mine": "recs.parquet"}}``.
        They are checked before any notebook runs; each notebook receives those it declares.
        Relative paths are taken from the current directory.
    show_code : bool, default False
        Keep the code cells in the HTML (the environment variable ``EVALKIT_SHOW_CODE=1``
        does the same).
    progress : bool, default True
        Show a progress bar across notebooks.
    jobs : int, optional
        Notebooks run at the same time, each in its own kernel (1: one after the other). The
        notebooks do not depend on each other, so the reports are the same for any value; the
        last notebooks start first (see Notes). Default: 2; when the data holds more than
        :data:`SIDE_BY_SIDE_ROWS` (10 million) interactions, a second page starts only where
        the memory the two are expected to hold (:data:`PAGE_GB_PER_MILLION`, measured)
        fits under :data:`MEMORY_BUDGET_GB` (8 GB), which the index says. Given, ``jobs``
        pages run side by side regardless.
    spark : bool, default False
        Run the pages that need Spark (the at-scale page, whose metadata says ``spark``):
        they start a JVM and copy the data into it, which only pays at scale, so they run
        when asked (``evalkit report --spark``; ``make report`` asks) or when
        ``TRUTH_PARQUET`` names the analyst's Parquet; otherwise the index says how to ask.
    resume : bool, default False
        Finish the run that failed into ``out``: the pages it finished (kept in
        ``out/.failed``) are taken as they are and only the others run, then the whole set
        is published as by any run. Refused when nothing failed there, or when anything that
        decides the numbers differs from that run (data, parameters, their files' sizes and
        times, the notebooks, evalkit's version).

    Returns
    -------
    list of Path
        The HTML reports written, index last.

    Raises
    ------
    ParameterError
        For an unknown parameter or a bad value, before anything runs.
    ReportError
        When a notebook fails (naming the notebook and the cell; the partly executed
        notebooks are kept in ``out/.failed``), when the notebooks folder holds no notebook,
        or when another run holds ``out``.

    Notes
    -----
    Before any notebook runs, the headers of the analyst's files are read: a file without
    the columns it needs stops the run at once, naming the file and every column it has
    (``COLUMNS`` maps other names). Data without a rating column makes ``THRESHOLD`` None
    (every test interaction relevant, with binary gain) unless it is set, which is then
    refused; the pages that need ratings, a threshold or rating predictions are then left
    out, each with one line on the index saying why.

    The run writes into a staging folder inside ``out`` and moves its files into place only
    when every notebook has succeeded, the index last: a failed or interrupted run leaves the
    previous reports whole. With ``jobs`` above 1 the notebooks start from both ends of the
    list in turn (01, 09, 02, 08, ...): the at-scale report, which starts Spark and takes the
    longest, then runs beside the others instead of after them (the sample's reports take
    about 36 s instead of 57 s on two cores). The kernels share the cores: each one's BLAS
    and OpenMP thread pools get ``cores // jobs`` threads (at least one; the variables
    ``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS`` and ``MKL_NUM_THREADS``, unless the caller
    sets them), since BLAS threads that outnumber the cores spin while they wait (on two
    cores, about 41 s of CPU instead of 34 s for the sample). With more than one notebook to
    run, the kernels are forked from one process that has already imported what the
    notebooks import (ipykernel, pandas, matplotlib, evalkit): a kernel and the notebook's
    imports then take about 0.13 s of CPU instead of 1.4 s on two cores; a kernel that
    process cannot give (another Python, other thread settings) starts as usual. The
    kernels keep no IPython history: the reports' cells stay out of yours. When a notebook
    fails, the ones still running are stopped and the first failure is reported. A lock
    file refuses a second run into the same ``out`` while one is running.
    """
    params = _resolve_parameters(data, parameters or {})
    found = find_notebooks(notebooks)
    if not found:
        where = notebooks or PROJECT_NOTEBOOKS
        raise ReportError(f"run_reports: no report notebooks (NN-name.ipynb) in '{where}'; "
                          "nothing to run.")
    declared = {path: notebook_parameters(path) for path in found}
    files = check_files(str(params["DATASET"]), params)
    params, notes = _fit_to_files(params, files)
    params, notes = _fit_cutoff(params, declared, notes)
    jobs, notes, budget = _fit_jobs(jobs, files.rows, notes)
    skipped = skipped_pages(declared, params, files, spark=bool(spark))
    if len(skipped) == len(found):
        raise ParameterError(
            "run_reports: no report can run on these inputs: "
            + "; ".join(f"{nb.name}: {why}" for nb, why in skipped.items()) + ".")
    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    show_code = show_code or os.environ.get("EVALKIT_SHOW_CODE", "") not in ("", "0")
    manifest = _manifest(params, found, spark=bool(spark), show_code=show_code)
    with _Lock(out):
        done = _resumable(out, manifest, found, skipped) if resume else []
        for left in out.glob(".staging-*"):  # a run killed outright (the lock is ours now)
            shutil.rmtree(left, ignore_errors=True)
        staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=out))
        try:
            atomic_write_text(staging / _RUN, json.dumps(manifest, indent=1, sort_keys=True))
            for notebook in done:  # the pages the failed run finished, as they are
                for name in (notebook.name, f"{notebook.stem}.html", f"{notebook.stem}.json"):
                    if (out / ".failed" / name).exists():
                        shutil.copy2(out / ".failed" / name, staging / name)
            names, seconds, peaks = _run_all(found, declared, params, staging, out,
                                             show_code=show_code, progress=progress,
                                             data=data, jobs=jobs, skipped=skipped,
                                             notes=notes, done=done, budget=None
                                             if budget is None else (budget, files.rows))
        except ReportError:
            failed = out / ".failed"
            shutil.rmtree(failed, ignore_errors=True)
            shutil.rmtree(staging / ".shared", ignore_errors=True)  # the pages, not the data
            os.replace(staging, failed)
            raise
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        _publish(staging, out, names, seconds, peaks)
        shutil.rmtree(staging, ignore_errors=True)
        if resume:  # its pages are published: nothing is left to resume
            shutil.rmtree(out / ".failed", ignore_errors=True)
    return [out / n for n in names if n.endswith(".html") and n != "index.html"] + [
        out / "index.html"]


#: What a run records in its staging folder (so in ``.failed``) to be resumed.
_RUN = ".evalkit-run.json"


def _manifest(params: Mapping[str, object], found: list[Path], *, spark: bool,
              show_code: bool) -> dict[str, object]:
    """What decides a run's pages: the parameters, the size and modification time of every
    file they name and of every file in a folder they name (:func:`._shared.file_stamp`, as
    the pages' shared inputs are keyed), the notebooks (and their own times), evalkit's
    version."""
    return {
        "version": __version__,
        "parameters": {k: _jsonable(v) for k, v in params.items()},
        "files": {k: file_stamp(v) for k, v in params.items()
                  if k in PATH_PARAMETERS or k == "DATASET"},
        "notebooks": {nb.name: nb.stat().st_mtime_ns for nb in found},
        "spark": spark,
        "show_code": show_code,
    }


def _resumable(out: Path, manifest: Mapping[str, object], found: list[Path],
               skipped: Mapping[Path, str]) -> list[Path]:
    """The pages of the failed run in ``out/.failed`` that finished (their HTML was
    written), when that run is the one asked for now; else a ReportError saying why."""
    recorded = out / ".failed" / _RUN
    if not recorded.exists():
        raise ReportError(f"run_reports: nothing to resume in '{out}': no failed run is kept "
                          "there (.failed); run without resume.")
    earlier = json.loads(recorded.read_text())
    differ = [key for key in manifest if earlier.get(key) != json.loads(json.dumps(
        manifest[key]))]
    if differ:
        raise ReportError(
            f"run_reports: the failed run in '{out / '.failed'}' was made with other "
            f"{', '.join(differ)}; resuming would mix its pages with this run's. Run without "
            "resume (its pages are replaced), or with the same inputs.")
    return [nb for nb in found if nb not in skipped
            and (out / ".failed" / f"{nb.stem}.html").exists()]


def _fit_to_files(params: dict[str, object], files: FileCheck,
                  ) -> tuple[dict[str, object], list[str]]:
    """The parameters, checked against the columns of the files given (their headers only):
    ``THRESHOLD`` None for data without ratings, unless set, which is then refused. Returns
    them with the sentences the index states about what was decided."""
    notes = []
    if not files.has_ratings:
        if params.get("THRESHOLD") is not None:
            raise ParameterError(
                f"run_reports: parameter THRESHOLD={params['THRESHOLD']!r} needs ratings, and "
                "the data has no rating column; give THRESHOLD None (every test interaction "
                "is relevant), or data with a rating column (COLUMNS maps yours)."
            )
        if "THRESHOLD" not in params:
            params = {**params, "THRESHOLD": None}
            notes.append("The data has no rating column: every test interaction is relevant "
                         "(THRESHOLD None), with binary gain.")
    elif params.get("THRESHOLD", 0.0) is None:
        notes.append("THRESHOLD is None: every test interaction is relevant, with binary "
                     "gain.")
    if not files.has_timestamps:
        temporal = ("user_temporal", "global_temporal")
        asked = [s for s in [params.get("SPLIT"), *(params.get("STRATEGIES") or [])]
                 if s in temporal]
        if asked:
            raise ParameterError(
                f"run_reports: {', '.join(dict.fromkeys(asked))} needs timestamps, and the "
                "data has no timestamp column; choose among random and user_ratio (SPLIT, "
                "STRATEGIES), or give data with a timestamp column (COLUMNS maps yours)."
            )
        if "STRATEGIES" not in params:
            params = {**params, "STRATEGIES": ["random", "user_ratio"]}
            notes.append("The data has no timestamp column: the splitting page compares the "
                         "random and per-user splits only.")
    return params, notes


#: Interactions beyond which two pages run side by side only where the memory each is
#: expected to hold fits under :data:`MEMORY_BUDGET_GB` together (unless ``jobs`` is given).
SIDE_BY_SIDE_ROWS = 10_000_000
#: The memory in GB the pages running side by side are kept under, by their expected peaks.
MEMORY_BUDGET_GB = 8.0
#: Each page's peak memory in GB per million interactions: the report's process tree (the
#: runner and the page's kernel) while the page ran alone, as the run's manifest records it
#: (``peak_gb``), the larger of the two data shapes of ``benchmarks/report.py --users
#: 162541 --jobs 1`` (25 million ratings; ``--shape temporal`` and the default); each
#: includes the runner's own, so two pages' sum is an estimate from above. A page not listed (the
#: rating pages, which those runs leave out, a notebook of the analyst's) is expected to hold
#: as much as the largest.
PAGE_GB_PER_MILLION = {
    "01-data-exploration": 0.146,
    "02-splitting": 0.168,
    "05-ranking": 0.172,
    "06-beyond-accuracy": 0.121,
    "07-model-comparison": 0.229,
    "08-metrics-explained": 0.157,
}


def _fit_jobs(jobs: int | None, rows: int | None,
              notes: Sequence[str]) -> tuple[int, list[str], float | None]:
    """``jobs``, or the default for data of ``rows`` interactions, the notes for the index,
    and the memory budget in GB that pages side by side keep to (None: none)."""
    notes = list(notes)
    if jobs is not None:
        return jobs, notes, None
    if rows is not None and rows > SIDE_BY_SIDE_ROWS:
        notes.append(
            f"Two pages ran side by side only where the memory each is expected to hold "
            f"fit under {MEMORY_BUDGET_GB:g} GB together, otherwise one at a time: the data "
            f"holds about {rows:,} interactions, on which a page is expected to hold up to "
            f"about {max(PAGE_GB_PER_MILLION.values()) * rows / 1e6:.1f} GB (each page's peak "
            "measured at MovieLens-25M scale, scaled to these interactions). --jobs 2 runs "
            "two at a time regardless.")
        return 2, notes, MEMORY_BUDGET_GB
    return 2, notes, None


def expected_gb(notebook: Path, rows: int) -> float:
    """The memory ``notebook`` is expected to hold on data of ``rows`` interactions
    (:data:`PAGE_GB_PER_MILLION`)."""
    rate = PAGE_GB_PER_MILLION.get(notebook.stem, max(PAGE_GB_PER_MILLION.values()))
    return rate * rows / 1e6


def _next_page(waiting: Sequence[Path], running: Iterable[Path],
               expected: Mapping[Path, float] | None, budget: float | None) -> Path | None:
    """The page to start next: the first of ``waiting`` whose ``expected`` memory and that
    of the ``running`` pages fit under ``budget`` together (any page when none runs or
    there is no budget); None when none fits."""
    running = list(running)
    if not waiting:
        return None
    if not running or budget is None or expected is None:
        return waiting[0]
    held = sum(expected[page] for page in running)
    return next((page for page in waiting if held + expected[page] <= budget), None)


def _longest_list(notebooks: Sequence[Path], declared: Mapping[Path, Mapping[str, dict]],
                  params: Mapping[str, object]) -> int:
    """The longest list (``K_MAX``, ``K``, ``K_VALUES``) any of ``notebooks`` asks for, by
    the run's parameters or the notebook's defaults; 0 when none asks."""
    lengths = []
    for notebook in notebooks:
        for name in ("K_MAX", "K", "K_VALUES"):
            if name not in declared.get(notebook, {}):
                continue
            value = _value(name, params, declared[notebook])
            values = value if isinstance(value, list | tuple) else [value]
            lengths += [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
    return max(lengths, default=0)


def _fit_cutoff(params: dict[str, object], declared: Mapping[Path, Mapping[str, dict]],
                notes: list[str]) -> tuple[dict[str, object], list[str]]:
    """``K`` (the single-k views), when ``K_VALUES`` is given without it and does not hold
    the notebooks' default: the cutoff of ``K_VALUES`` nearest that default (the larger of
    two as near), stated on the index, rather than a cutoff the analyst did not ask for."""
    if "K_VALUES" not in params or "K" in params:
        return params, notes
    defaults = {int(d["K"]["default"]) for d in declared.values()
                if "K" in d and "K_VALUES" in d and d["K"]["default"].isdigit()}
    ks = [int(k) for k in params["K_VALUES"]]  # type: ignore[union-attr]
    if len(defaults) != 1 or not ks or defaults <= set(ks):
        return params, notes
    default = defaults.pop()
    chosen = min(ks, key=lambda k: (abs(k - default), -k))
    return {**params, "K": chosen}, [*notes, (
        f"K_VALUES {ks} does not hold the default K = {default}: the single-k views use "
        f"K = {chosen}, the nearest of them (set K to choose another).")]


#: The variables that size the thread pools of BLAS (OpenBLAS, MKL) and OpenMP.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def kernel_threads(jobs: int) -> dict[str, str]:
    """The thread-pool variables of each of ``jobs`` kernels running side by side: the cores
    shared out (at least one thread each), for the variables the caller has not set; none
    for one job."""
    if jobs == 1:
        return {}
    threads = str(max(1, (os.cpu_count() or 1) // jobs))
    return {name: threads for name in THREAD_VARIABLES if name not in os.environ}


def _logged_kernels(log: Path, env: dict[str, str] | None = None) -> type:
    """A kernel manager whose kernels write their own stderr (start-up notices, crashes, the
    noise of a shutdown in the middle of a cell after Ctrl-C) to ``log`` instead of the
    terminal; a failed run keeps it as ``.failed/kernel.log``. ``env`` is added to the
    kernels' environment. The class keeps its running kernels' processes in ``running``, so
    that a run can stop them all."""
    import uuid

    from jupyter_client.manager import AsyncKernelManager

    from . import _warm

    class LoggedKernelManager(AsyncKernelManager):
        running: dict[int, object] = {}
        stopped = False  # set by _stop_kernels: a kernel that starts later is killed at once
        lock = threading.Lock()

        async def _async_pre_start_kernel(self, **kw: object):
            if self.provisioner is None and env and env.get(_warm.SERVER):
                # forked by the run's kernel server (._warm), or started as usual
                self.kernel_id = self.kernel_id or kw.pop("kernel_id", str(uuid.uuid4()))
                self.provisioner = _warm.WarmProvisioner(
                    kernel_id=self.kernel_id, kernel_spec=self.kernel_spec, parent=self)
            return await super()._async_pre_start_kernel(**kw)

        async def _async_launch_kernel(self, kernel_cmd: list[str], **kw: object) -> None:
            if env:
                kw["env"] = {**(kw.get("env") or os.environ), **env}
            with open(log, "ab") as stream:  # the kernel keeps its own descriptor
                kw["stderr"] = stream
                done = await super()._async_launch_kernel(kernel_cmd, **kw)
            process = getattr(self.provisioner, "process", None)
            if process is not None:
                with self.lock:
                    self.running[id(self)] = process
                    if self.stopped:
                        process.kill()
            return done

        async def _async_cleanup_resources(self, restart: bool = False) -> None:
            with self.lock:
                self.running.pop(id(self), None)
            await super()._async_cleanup_resources(restart=restart)

    return LoggedKernelManager


def _stop_kernels(kernels: type) -> None:
    """Kill the kernels still running (their notebooks then fail at once, as when a kernel
    dies; a Spark JVM a kernel started exits with it)."""
    with kernels.lock:
        kernels.stopped = True
        processes = list(kernels.running.values())
    for process in processes:
        try:
            process.kill()
        except OSError:  # already gone
            pass


def _start_order(found: list[Path], jobs: int) -> list[Path]:
    """The order in which the notebooks start: as found for one job; for more, taken from
    the front and the back of the list in turn (01, 09, 02, 08, ...), so that the last
    notebooks, which build on the most (the at-scale report starts Spark), start at once
    rather than after all the others."""
    if jobs == 1:
        return list(found)
    order, front, back = [], 0, len(found) - 1
    while front <= back:
        order.append(found[front])
        if back != front:
            order.append(found[back])
        front, back = front + 1, back - 1
    return order


def _execute(notebook: Path, declared: set, params: dict, staging: Path,
             kernels: type, memory: MemoryWatch | None = None) -> float:
    """Run one notebook into ``staging``; its wall time in seconds. ``memory`` is told
    when it starts and ends."""
    import time

    started = time.perf_counter()
    given = {"HEADLINE_PATH": str(staging / f"{notebook.stem}.json"),
             "RUNS_DIR": str(staging / RUNS), **params}
    given = {k: v for k, v in given.items() if k in declared}
    if memory is not None:
        memory.running(notebook.name, True)
    try:
        for attempt in (1, 2):
            try:
                _papermill(notebook, given, staging, kernels)
                break
            except Exception as error:
                # a kernel that could not start (its port taken by another process between
                # jupyter_client's choice and the kernel's bind: reports run side by side)
                # is started again, once; nothing of the notebook ran
                if attempt == 2 or kernels.stopped or \
                        "before replying to kernel_info" not in str(error):
                    raise
    finally:
        if memory is not None:
            memory.running(notebook.name, False)
    return time.perf_counter() - started


def _papermill(notebook: Path, given: dict, staging: Path, kernels: type) -> None:
    """papermill's run of ``notebook`` with ``given`` into ``staging``, in a kernel of
    ``kernels``."""
    import papermill as pm

    pm.execute_notebook(
        str(notebook), str(staging / notebook.name), parameters=given,
        # the kernel starts in the notebook's folder; papermill's own cwd= would change this
        # process's working directory, which the notebooks running beside it share
        resources={"metadata": {"path": str(notebook.resolve().parent)}},
        progress_bar=False, kernel_name="python3", log_output=False,
        # written once, when it ends or fails, not after every cell: the staging folder is
        # never read while the run goes on
        request_save_on_cell_execute=False,
        # the kernel's own start-up notices would interleave with the progress bar; the
        # report's cells stay out of the analyst's IPython history (its SQLite file, which
        # kernels running side by side would otherwise take turns to write)
        extra_arguments=["--IPKernelApp.log_level=ERROR", "--HistoryManager.enabled=False"],
        kernel_manager_class=kernels,
    )


def _failed(notebook: Path, error: BaseException, out: Path) -> BaseException:
    """The error a failed notebook is reported with: a ReportError naming the notebook and
    the cell for an error in a cell, or saying that its kernel died (most often out of
    memory); an error of the runner itself as it is."""
    import papermill as pm

    if not isinstance(error, pm.PapermillExecutionError):
        if type(error).__name__ != "DeadKernelError" and "died" not in str(error).lower():
            return error
        return ReportError(
            f"run_reports: the kernel running notebook {notebook.name} died ({error}); its "
            f"last words are in {out / '.failed' / 'kernel.log'} (a kernel dies most often "
            "when the machine runs out of memory). The pages that finished are kept in "
            f"{out / '.failed'}; the reports in {out} are unchanged. Once the cause is "
            "fixed, --resume (resume=True) runs only the pages that did not finish."
        )
    first_line = (error.source or "").strip().splitlines()[:1]
    return ReportError(
        f"run_reports: notebook {notebook.name} failed in cell {error.exec_count} "
        f"[{first_line[0] if first_line else ''}] ({error.ename}: {error.evalue}); "
        f"the partly executed notebook is kept at {out / '.failed' / notebook.name}, with "
        f"the pages that finished; the reports in {out} are unchanged. Once it is fixed, "
        "--resume (resume=True) runs only the pages that did not finish."
    )


def _run_all(listed: list[Path], declared: dict, params: dict, staging: Path, out: Path, *,
             show_code: bool, progress: bool, data: str, jobs: int,
             skipped: Mapping[Path, str] | None = None,
             notes: Sequence[str] = (), done: Sequence[Path] = (),
             budget: tuple[float, int] | None = None
             ) -> tuple[list[str], dict[str, float], dict]:
    from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

    from tqdm import tqdm

    skipped = skipped or {}
    found = [nb for nb in listed if nb not in skipped]
    to_run = [nb for nb in found if nb not in done]
    kept = len(found) - len(to_run)  # pages an interrupted run finished, taken as they are

    # the inputs and baselines the notebooks share, read and computed once (._shared)
    cache = staging / ".shared"
    cache.mkdir(exist_ok=True)
    longest = _longest_list(to_run, declared, params)
    kernel_env = {**kernel_threads(jobs), ENVIRONMENT: str(cache),
                  **({LIST_LENGTH: str(longest)} if longest else {})}
    # the kernels are forked from one process that has imported what the notebooks import
    # (._warm): the run's own, even where the caller has one (the run's memory is measured
    # below this process, and the caller's may not have the run's thread settings)
    from . import _warm

    server = _warm.start_server({**os.environ, **kernel_env}) if len(to_run) > 1 else None
    kernel_env[_warm.SERVER] = server.path if server is not None else ""
    kernels = _logged_kernels(staging / "kernel.log", kernel_env)
    # the kernels of pages that run alone: the thread pools as the caller has them
    solo = _logged_kernels(staging / "kernel.log", {
        name: value for name, value in kernel_env.items() if name not in THREAD_VARIABLES})
    bar = tqdm(total=len(to_run), desc="notebooks", unit="nb", disable=not progress)
    failure: tuple[Path, BaseException] | None = None
    seconds: dict[str, float] = {}
    # papermill's log (a kernel stopped while it started: "Kernel died before replying to
    # kernel_info") goes to the kernel log, not above the error the run reports
    papermill_log = logging.getLogger("papermill")
    handler = logging.FileHandler(staging / "kernel.log", delay=True)
    papermill_log.addHandler(handler)
    propagate, papermill_log.propagate = papermill_log.propagate, False
    memory = MemoryWatch()
    try:
        with memory, ThreadPoolExecutor(max_workers=jobs,
                                        thread_name_prefix="evalkit-report") as pool:
            pending: dict = {}
            waiting = _start_order(to_run, jobs)
            # budget: (GB, interactions): two pages side by side only where their expected
            # memory fits
            expected = None if budget is None else {
                nb: expected_gb(nb, budget[1]) for nb in to_run}
            # a page that fits beside no other always runs alone: its kernel gets every core
            alone = set() if expected is None else {
                nb for nb in to_run
                if all(expected[nb] + expected[other] > budget[0]  # type: ignore[index]
                       for other in to_run if other != nb)}

            def start() -> None:  # as many pages as jobs and the budget allow
                while waiting and len(pending) < jobs:
                    nb = _next_page(waiting, pending.values(), expected,
                                    None if budget is None else budget[0])
                    if nb is None:
                        return
                    waiting.remove(nb)
                    pending[pool.submit(_execute, nb, declared[nb], params, staging,
                                        solo if nb in alone else kernels, memory)] = nb

            try:
                start()
                while pending and failure is None:
                    # a timeout, so that this thread gets back to Python often enough to see
                    # Ctrl-C (the signal may reach one of the kernels' client threads instead)
                    finished, _ = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                    for future in finished:
                        notebook = pending.pop(future)
                        if future.exception() is not None:
                            failure = failure or (notebook, future.exception())
                            continue
                        seconds[notebook.name] = future.result()
                        bar.set_postfix_str(notebook.name)
                        bar.update(1)
                        _render(notebook, found, staging, show_code=show_code)
                    if failure is None:
                        start()
            except BaseException:  # Ctrl-C: no notebook goes on running
                for future in pending:
                    future.cancel()
                _stop_kernels(kernels)
                _stop_kernels(solo)
                raise
            if failure is not None:  # the others stop too: the run has failed
                for future in pending:
                    future.cancel()
                _stop_kernels(kernels)
                _stop_kernels(solo)
    finally:
        if server is not None:
            server.stop()
        bar.close()
        papermill_log.removeHandler(handler)
        papermill_log.propagate = propagate
        handler.close()
    if failure is not None:
        raise _failed(*failure, out) from None
    names: list[str] = []
    for notebook in found:
        names += [notebook.name, f"{notebook.stem}.html"]
        if (staging / f"{notebook.stem}.json").exists():
            names.append(f"{notebook.stem}.json")
    if (staging / RUNS).is_dir():
        names.append(RUNS)
    atomic_write_text(staging / "index.html",
                      _index_html(staging, [(nb.stem, _title(nb)) for nb in listed],
                                  _shown_name(data, params), params,
                                  skipped={nb.stem: why for nb, why in skipped.items()},
                                  notes=[*notes, *_memory_note(memory, jobs, kept)],
                                  baselines=_baselines_run(
                                      [nb for nb in listed if nb not in skipped], params)))
    names.append("index.html")
    return names, seconds, _memory_record(memory)


def _memory_record(memory: MemoryWatch) -> dict:
    """The manifest's ``peak_gb``: the run's peak and each page's (empty where memory could
    not be read)."""
    if memory.peak is None:
        return {}
    return {"run": round(memory.peak / 1e9, 3),
            "by_notebook": {k: round(v / 1e9, 3) for k, v in sorted(memory.by_page.items())}}


def _memory_note(memory: MemoryWatch, jobs: int, kept: int) -> list[str]:
    """The index's sentence on the memory the run held (none where it could not be read)."""
    if memory.peak is None or not memory.by_page:
        return []
    largest = max(memory.by_page, key=memory.by_page.__getitem__)
    at_once = "one page at a time" if jobs == 1 else f"up to {jobs} pages at a time"
    each = (f"the most while {Path(largest).stem} ran" if jobs == 1
            else f"the most while {Path(largest).stem} ran, with the pages beside it")
    resumed = (f"; the {kept} page(s) kept from the interrupted run are not counted"
               if kept else "")
    return [f"Peak memory: {memory.peak / 1e9:.2f} GB resident for the runner and its "
            f"kernels together ({at_once}, sampled every {memory.interval:g} s; {each}"
            f"{resumed})."]


def _render(notebook: Path, found: list[Path], staging: Path, *, show_code: bool) -> None:
    """The HTML of an executed notebook, with links to the index and its neighbours."""
    i = found.index(notebook)
    nav = [("evalkit reports", "index.html")]
    nav += [(f"previous: {_title(found[i - 1])}", f"{found[i - 1].stem}.html")] if i else []
    nav += ([(f"next: {_title(found[i + 1])}", f"{found[i + 1].stem}.html")]
            if i + 1 < len(found) else [])
    _render_html(staging / notebook.name, staging / f"{notebook.stem}.html",
                 show_code=show_code, title=_title(notebook), nav=nav)


def _shown_name(data: str, params: Mapping[str, object] | None = None) -> str:
    """The dataset as the index names it, as the pages' run cards do: the analyst's train
    and test file names when given, else a release name or a file or folder name, never a
    full path."""
    params = params or {}
    if params.get("TRAIN") is not None and params.get("TEST") is not None:
        return f"{Path(str(params['TRAIN'])).name} + {Path(str(params['TEST'])).name}"
    return data if data == "sample" or data in MOVIELENS_NAMES else Path(data).name
