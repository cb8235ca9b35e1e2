"""Every notebook under a grid of parameter values, as an analyst would pass them.

Each run either succeeds, and then its headline numbers equal direct calls of evalkit on the
same input, or stops in its first cell (the one after the parameters) with an error naming
the parameter. The inputs are the committed example in ``data/example`` and files derived
from it: recommendations with ranks only, with tied scores, a system that never hits,
implicit data without ratings, data without timestamps (tests/notebook_checks.py holds the
sets and the expected headlines).

The runs share one warm kernel per test worker (a first cell resets its namespace),
so that a run costs the notebook's work rather than a kernel start and the imports. The set
:data:`REPORT_SET` is not run here: tests/test_reports.py runs it through the report command,
in fresh kernels, and checks every headline with the same expectations.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from evalkit.report import notebook_parameters
from tests.notebook_checks import (
    EXPECT,
    FAILS,
    FILE_KEYS,
    NOTEBOOKS,
    REPORT_SET,
    ROOT,
    SPARK_NOTEBOOKS,
    Direct,
    parameters,
    shared_sets,
    spark_sets,
)


def _runs(*, with_report_set: bool = False) -> list[tuple[str, str]]:
    """(notebook, set) of every grid run; ``with_report_set`` adds the runs of
    :data:`REPORT_SET`, which the report command makes."""
    names = {k: k for k in FILE_KEYS}  # names stand for the files here
    shared, at_scale = shared_sets(names), spark_sets(names)
    runs, seen = [], set()
    for nb, path in NOTEBOOKS.items():
        declared = notebook_parameters(path)
        if nb in SPARK_NOTEBOOKS:
            runs += [(nb, name) for name in shared if (name, nb) in FAILS]
            runs += [(nb, name) for name in at_scale]
            runs += [(nb, REPORT_SET)] if with_report_set else []
            continue
        for name, params in shared.items():
            key = (nb, json.dumps({k: v for k, v in params.items() if k in declared},
                                  sort_keys=True))
            if key not in seen:  # a set that sets none of the notebook's parameters repeats
                seen.add(key)
                if name != REPORT_SET or with_report_set:
                    runs.append((nb, name))
    return runs


@pytest.fixture(scope="session")
def kernel():
    """The worker's warm kernel, for the whole session: xdist hands the grid's classes out
    one at a time among other scopes, and a module's fixture would end with each class (a
    kernel start and the imports, about 4.5 s of CPU, for every notebook)."""
    from jupyter_client.manager import KernelManager

    km = KernelManager(kernel_name="python3")
    km.start_kernel(cwd=str(ROOT / "notebooks"),  # as the report command starts kernels
                    extra_arguments=["--IPKernelApp.log_level=ERROR",
                                     "--HistoryManager.enabled=False"])
    yield km
    km.shutdown_kernel(now=True)


#: The first cell of every grid run: the previous run's names and figures are gone. Not
#: ``%reset -f`` or ``InteractiveShell.reset``: both end in a full garbage collection of a
#: kernel holding pandas, matplotlib and numba, a fifth of the grid's time; the names the
#: notebooks define are what must not leak from one run into the next.
_RESET = """def _forget(shell=get_ipython()):
    for name in [n for n in shell.user_ns if n not in shell.user_ns_hidden]:
        del shell.user_ns[name]
    shell.user_ns["_oh"].clear()


_forget()
import matplotlib.pyplot as plt
plt.close("all")
del plt"""


def _execute(km, notebook: Path, params: dict, out: Path):
    import nbformat
    import papermill as pm

    nb = nbformat.read(notebook, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(_RESET))
    try:  # the output is written once, at the end (or at the failing cell)
        pm.execute_notebook(nb, str(out), parameters=params, km=km, kernel_name="python3",
                            progress_bar=False, log_output=False,
                            request_save_on_cell_execute=False)
    except pm.PapermillExecutionError as error:
        return error
    return None


def _first_cell_after_parameters(out: Path) -> int:
    cells = [c for c in json.loads(out.read_text())["cells"] if c["cell_type"] == "code"]
    tags = [c["metadata"].get("tags", []) for c in cells]
    injected = next(i for i, t in enumerate(tags) if "injected-parameters" in t)
    return cells[injected + 1]["execution_count"]


def _check(nb: str, name: str, files, kernel, tmp_path) -> None:
    notebook = NOTEBOOKS[nb]
    declared = notebook_parameters(notebook)
    params = {k: v for k, v in parameters(files, name).items() if k in declared}
    if "HEADLINE_PATH" in declared:
        params["HEADLINE_PATH"] = str(tmp_path / "headline.json")
    error = _execute(kernel, notebook, params, tmp_path / "out.ipynb")
    if (name, nb) in FAILS:
        parameter, pattern = FAILS[(name, nb)]
        assert error is not None, f"{nb} ran under {name!r}; it should stop at {parameter}"
        assert error.exec_count == _first_cell_after_parameters(tmp_path / "out.ipynb")
        assert parameter in error.evalue and re.search(pattern, error.evalue), error.evalue
        assert not (tmp_path / "headline.json").exists()
        return
    assert error is None, f"{nb} failed under {name!r}: {error}"
    headline = json.loads((tmp_path / "headline.json").read_text())
    EXPECT[nb](headline, Direct(parameters(files, name)))


def _grid_class(nb: str) -> type:
    """One test class per notebook, so that ``pytest -n --dist loadscope`` spreads the
    notebooks over the workers."""

    @pytest.mark.slow
    @pytest.mark.parametrize("name", [n for b, n in _runs() if b == nb])
    def test_under_parameters(self, name: str, files, kernel, tmp_path) -> None:
        _check(nb, name, files, kernel, tmp_path)

    return type(f"TestNotebook{nb}", (), {"test_under_parameters": test_under_parameters})


for _nb in NOTEBOOKS:
    globals()[f"TestNotebook{_nb}"] = _grid_class(_nb)
del _nb


def test_a_grid_run_starts_without_the_names_of_the_run_before(kernel, tmp_path) -> None:
    import nbformat

    def notebook(name: str, source: str) -> Path:
        path = tmp_path / name
        nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)]),
                       path)
        return path

    first = notebook("first.ipynb", "import pandas as pd\nleaked = pd.DataFrame()\nleaked")
    second = notebook("second.ipynb", (
        "assert not {'leaked', 'pd'} & set(globals()), sorted(globals())\n"
        "assert not Out and callable(get_ipython)"))
    assert _execute(kernel, first, {}, tmp_path / "first-out.ipynb") is None
    assert _execute(kernel, second, {}, tmp_path / "second-out.ipynb") is None


def test_every_notebook_gets_six_parameter_sets_or_takes_none() -> None:
    counts = pd.Series([nb for nb, _ in _runs(with_report_set=True)]).value_counts()
    for nb, path in NOTEBOOKS.items():
        takes_data = "DATASET" in notebook_parameters(path)
        assert counts[nb] >= (6 if takes_data else 1), (nb, counts[nb])


_NO_PYSPARK = '''import importlib.abc
import sys


class _NoPyspark(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "pyspark" or name.startswith("pyspark."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, _NoPyspark())
'''


@pytest.mark.slow
@pytest.mark.parametrize("without", ["java", "pyspark"])
def test_the_at_scale_report_runs_without_spark_and_says_why(without, tmp_path,
                                                             monkeypatch) -> None:
    """A machine without Java (JAVA_HOME pointing at none) or without pyspark (its import
    blocked in the kernel): the notebook runs in a fresh kernel, names what is missing and
    how to install it, skips its Spark cells and writes that in its headline."""
    import papermill as pm

    if without == "java":
        monkeypatch.setenv("JAVA_HOME", str(tmp_path))
        from evalkit.spark import missing

        expected = f"not run: {missing()}"
    else:
        (tmp_path / "sitecustomize.py").write_text(_NO_PYSPARK)
        monkeypatch.setenv("PYTHONPATH", str(tmp_path))
        expected = ("not run: pyspark is not installed (pip install pyspark; in a clone of "
                    "evalkit, make spark-setup)")
    out = tmp_path / "out.ipynb"
    pm.execute_notebook(str(NOTEBOOKS["09"]), str(out), kernel_name="python3",
                        parameters={"HEADLINE_PATH": str(tmp_path / "headline.json")},
                        cwd=str(ROOT / "notebooks"), progress_bar=False)
    headline = json.loads((tmp_path / "headline.json").read_text())
    assert list(headline) == ["Spark"] and headline["Spark"].startswith(expected)
    outputs = [o for c in json.loads(out.read_text())["cells"] if c["cell_type"] == "code"
               for o in c["outputs"]]
    assert not [o for o in outputs if o["output_type"] in ("error", "stream")]
    assert not [o for o in outputs if "image/png" in o.get("data", {})]  # no chart drawn
    note = "".join(outputs[0]["data"]["text/markdown"])
    assert note.startswith(f"**Spark cannot run here: {headline['Spark'][len('not run: '):]}")
    assert "`pip install pyspark`" in note and "Java 17 or later" in note
