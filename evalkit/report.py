"""HTML reports: run the parameterized notebooks with papermill and render them with nbconvert.

``make report`` (or ``python -m evalkit report``) calls :func:`run_reports`. Inside the
notebooks, :func:`load_dataset` reads the ``DATASET`` parameter, :func:`run_card` states what
the report was computed on, and :func:`write_headline` saves the headline numbers that
``reports/index.html`` collects.
"""

from __future__ import annotations

import html
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from . import __version__
from ._io import atomic_write_text

__all__ = [
    "ReportError",
    "find_notebooks",
    "load_dataset",
    "read_headlines",
    "run_card",
    "run_reports",
    "tidy_notebooks",
    "write_headline",
]

PROJECT_NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


class ReportError(RuntimeError):
    """A notebook failed while running; the message names the notebook and the cell."""


def load_dataset(name_or_path: str, *, seed: int = 0):
    """Load the data a report runs on: ``"sample"``, a MovieLens name, or a path.

    Parameters
    ----------
    name_or_path : str
        ``"sample"`` for the embedded generator (:func:`evalkit.data.load_sample`), a MovieLens
        release name (``"ml-latest-small"``), or a path to a release directory or zip.
    seed : int, default 0
        Seed of the sample generator (ignored for real data).

    Returns
    -------
    evalkit.data.Dataset
        ``ratings``, ``items`` and ``name``.
    """
    from .data import load_movielens, load_sample

    if name_or_path == "sample":
        return load_sample(seed=seed)
    return load_movielens(name_or_path)


def run_card(dataset, *, split: Mapping | None = None, seed: int | None = None,
             definitions: Mapping | None = None) -> pd.DataFrame:
    """A two-column table stating what a report was computed on.

    Lists the dataset and its fingerprint (sha256 of the ratings, rows, users, items), the
    split, the seed, evalkit's version and the metric definitions, so every report says
    exactly what its numbers mean.
    """
    from .data import fingerprint

    fp = fingerprint(dataset.ratings)
    rows: list[tuple[str, object]] = [
        ("dataset", dataset.name),
        ("ratings sha256", fp["sha256"]),
        ("rows / users / items", f"{fp['rows']:,} / {fp['users']:,} / {fp['items']:,}"),
    ]
    if split is not None:
        params = dict(split.get("params", {}))
        if split.get("seed") is not None:
            params["seed"] = split["seed"]
        described = ", ".join(f"{k}={v}" for k, v in params.items())
        rows.append(("split", f"{split.get('strategy', '?')} ({described})"))
    if seed is not None:
        rows.append(("seed", seed))
    rows.append(("evalkit version", __version__))
    for key, value in (definitions or {}).items():
        rows.append((f"definition: {key}", value))
    return pd.DataFrame(rows, columns=["item", "value"]).set_index("item")


def write_headline(path: str | os.PathLike, numbers: Mapping[str, object]) -> dict:
    """Write a notebook's headline numbers to JSON (atomically) and return them.

    Floats are rounded to 6 significant digits so the file is stable across platforms.
    """
    clean = {str(k): _jsonable(v) for k, v in numbers.items()}
    atomic_write_text(path, json.dumps(clean, indent=2, sort_keys=True) + "\n")
    return clean


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


def find_notebooks(directory: str | os.PathLike | None = None) -> list[Path]:
    """The notebooks a report run executes: ``*.ipynb`` in ``directory``, sorted by name."""
    directory = Path(directory) if directory is not None else PROJECT_NOTEBOOKS
    return sorted(p for p in directory.glob("*.ipynb") if not p.name.startswith("."))


def tidy_notebooks(directory: str | os.PathLike | None = None) -> list[Path]:
    """Drop per-run execution timestamps from the cell metadata of the committed notebooks.

    ``make notebooks`` calls this after re-executing them, so that a diff shows only what
    changed in the outputs.
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
    """Headline JSON files written by the notebooks into ``out``, by notebook stem."""
    return {
        p.stem: json.loads(p.read_text())
        for p in sorted(Path(out).glob("*.json"))
    }


def _render_html(notebook: Path, target: Path, *, show_code: bool) -> None:
    import nbformat
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(template_name="lab")
    exporter.exclude_input = not show_code
    exporter.exclude_input_prompt = True
    exporter.exclude_output_prompt = True
    body, _ = exporter.from_notebook_node(nbformat.read(notebook, as_version=4))
    atomic_write_text(target, body)


def _index_html(out: Path, entries: list[tuple[str, str]], data: str) -> str:
    headlines = read_headlines(out)
    rows = []
    for stem, title in entries:
        numbers = headlines.get(stem, {})
        shown = ", ".join(
            f"{html.escape(k)} = {html.escape(str(v))}"
            for k, v in numbers.items() if not isinstance(v, (dict, list))
        )
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
th {{ background: #f4f4f4; }} a {{ color: #0b5cad; font-weight: 600; }}
</style></head><body>
<h1>evalkit reports</h1>
<p>Dataset: <b>{html.escape(data)}</b> &middot; evalkit {__version__}.
Each report states its dataset fingerprint, split, seed and metric definitions.</p>
<table><thead><tr><th>Report</th><th>Headline numbers</th></tr></thead>
<tbody>{''.join(rows)}</tbody></table></body></html>
"""


def _title(notebook: Path) -> str:
    nb = json.loads(notebook.read_text())
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "markdown":
            for line in "".join(cell.get("source", [])).splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return notebook.stem


def run_reports(
    data: str = "sample",
    *,
    out: str | os.PathLike = "reports",
    notebooks: str | os.PathLike | None = None,
    parameters: Mapping[str, object] | None = None,
    show_code: bool = False,
    progress: bool = True,
) -> list[Path]:
    """Run every notebook on ``data`` and render each to HTML in ``out``, plus an index.

    Parameters
    ----------
    data : str, default "sample"
        The ``DATASET`` parameter given to every notebook.
    out : path, default "reports"
        Output directory: executed notebooks (``.ipynb``), HTML reports, headline JSON files
        and ``index.html``.
    notebooks : path, optional
        Directory of notebooks; default: the project's ``notebooks/``.
    parameters : dict, optional
        Further parameters for every notebook (each notebook ignores those it lacks).
    show_code : bool, default False
        Keep the code cells in the HTML (the environment variable ``EVALKIT_SHOW_CODE=1``
        does the same).
    progress : bool, default True
        Show a progress bar across notebooks.

    Returns
    -------
    list of Path
        The HTML reports written, index last.

    Raises
    ------
    ReportError
        When a notebook fails: names the notebook and the cell, and keeps the partly executed
        notebook in ``out`` for inspection. Reports of the notebooks that ran stay in place.
    """
    import papermill as pm
    from tqdm import tqdm

    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    # notebooks run in their own directory: a relative data path must not change meaning
    if data != "sample" and Path(data).exists():
        data = str(Path(data).resolve())
    found = find_notebooks(notebooks)
    if not found:
        where = notebooks or PROJECT_NOTEBOOKS
        print(f"evalkit report: no notebooks in {where}; nothing to run.", file=sys.stderr)
    show_code = show_code or os.environ.get("EVALKIT_SHOW_CODE", "") not in ("", "0")
    written: list[Path] = []
    entries: list[tuple[str, str]] = []
    bar = tqdm(found, desc="notebooks", unit="nb", disable=not progress)
    for notebook in bar:
        bar.set_postfix_str(notebook.name)
        executed = out / notebook.name
        params = {"DATASET": str(data), "HEADLINE_PATH": str(out / f"{notebook.stem}.json")}
        params.update(parameters or {})
        try:
            pm.execute_notebook(
                str(notebook), str(executed), parameters=params, cwd=str(notebook.parent),
                progress_bar=False, kernel_name="python3", log_output=False,
                # the kernel's own start-up notices would interleave with the progress bar
                extra_arguments=["--IPKernelApp.log_level=ERROR"],
            )
        except pm.PapermillExecutionError as error:
            first_line = (error.source or "").strip().splitlines()[:1]
            raise ReportError(
                f"run_reports: notebook {notebook.name} failed in cell {error.exec_count} "
                f"[{first_line[0] if first_line else ''}] ({error.ename}: {error.evalue}); "
                f"the partly executed notebook is kept at {executed}."
            ) from None
        target = out / f"{notebook.stem}.html"
        _render_html(executed, target, show_code=show_code)
        written.append(target)
        entries.append((notebook.stem, _title(notebook)))
    index = out / "index.html"
    atomic_write_text(index, _index_html(out, entries, str(data)))
    written.append(index)
    return written
