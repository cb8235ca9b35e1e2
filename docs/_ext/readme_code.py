"""The guide's Python runs at every build: the README's code blocks that the guide pages
include are executed, in README order, in one namespace (each section builds on the tour's
data, split and lists), in a temporary folder (the regression example saves a run there),
with matplotlib drawing off screen. A block that raises fails the build, naming its section
and the statement. The blocks of "Bring your own data and recommendations" (your files) and
"At scale: Spark" (a cluster's tables) read data that is not here and are not run; their
calls are the ones the tests run on files and local Spark.
"""

from __future__ import annotations

import ast
import contextlib
import io
import os
import re
import tempfile
import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sphinx.application import Sphinx

README = Path(__file__).resolve().parents[2] / "README.md"

#: The README sections whose Python blocks do not run here, and why.
NOT_RUN = {
    "## Bring your own data and recommendations": "reads your files",
    "## At scale: Spark": "reads a cluster's tables",
}

#: The README sections whose Python blocks run, in this order.
SECTIONS = (
    "## A short tour",
    "### Definitions, and other libraries' numbers",
    "### Metrics of your own",
    "### Is it better, are there enough users, did it regress?",
    "### Sampled candidates and popularity bias: would another protocol change the verdict?",
    "### Who is served worse?",
)


def blocks(text: str) -> list[tuple[str, str]]:
    """``(section, code)`` of every Python block of :data:`SECTIONS`, in order."""
    out = []
    for heading in SECTIONS:
        body = text.split("\n" + heading + "\n", 1)[1]
        body = re.split(r"\n#{2,3} ", body, maxsplit=1)[0]
        out += [(heading.lstrip("# "), code)
                for code in re.findall(r"```python\n(.*?)```", body, flags=re.S)]
    return out


def run_blocks(text: str) -> int:
    """Execute the blocks; return how many statements ran. Raises ``RuntimeError`` naming the
    section and statement that failed."""
    import matplotlib

    matplotlib.use("Agg")
    from evalkit.metrics import METRICS, unregister

    namespace: dict[str, object] = {"__name__": "__readme__"}
    registered = set(METRICS)
    count = 0
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)
        try:
            for section, code in blocks(text):
                for node in ast.parse(code).body:
                    statement = ast.get_source_segment(code, node) or ""
                    try:
                        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                            warnings.simplefilter("ignore")
                            exec(compile(ast.Module([node], []), f"README: {section}", "exec"),
                                 namespace)
                    except Exception as error:
                        raise RuntimeError(f"readme_code: the README's section {section!r} "
                                           f"fails at {statement.splitlines()[0]!r}: "
                                           f"{type(error).__name__}: {error}") from error
                    count += 1
        finally:
            os.chdir(here)
            for name in set(METRICS) - registered:  # "Metrics of your own" registers one
                unregister(name)
    return count


def _run(app: Sphinx, config: object) -> None:
    from sphinx.util import logging

    began = time.perf_counter()
    count = run_blocks(README.read_text())
    logging.getLogger(__name__).info(
        f"readme_code: {count} statements of the README's guide sections ran in "
        f"{time.perf_counter() - began:.0f} s")


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", _run)
    return {"parallel_read_safe": True}
