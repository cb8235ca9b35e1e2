"""The guide's Python runs at every build: the code blocks of the guide pages are executed,
in the order of :data:`PAGES`, in one namespace (each page builds on the tour's data, split
and lists), in a temporary folder (the regression example saves a run there), with
matplotlib drawing off screen. A block that raises fails the build, naming its page, section
and statement. The blocks of the sections in :data:`NOT_RUN` read data that is not here (your
files, a cluster's tables); their calls are the ones the tests run on files and local Spark.
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

DOCS = Path(__file__).resolve().parents[1]

#: The pages whose Python blocks run, in this order (each builds on the ones before).
PAGES = (
    "getting-started.md",
    "guide/definitions.md",
    "guide/own-recommender.md",
    "guide/decisions.md",
    "guide/protocols.md",
    "guide/groups.md",
    "guide/at-scale.md",
)

#: The sections (``page: heading``) whose Python blocks do not run here, and why.
NOT_RUN = {
    "guide/own-recommender.md: ## Bring your own data and recommendations": "reads your files",
    "guide/at-scale.md: ## Spark": "reads a cluster's tables",
}


def sections(text: str) -> list[tuple[str, str]]:
    """``(heading, body)`` of each section of a page (the text before the first ``##``
    heading under the page's title), headings of levels 2 and 3."""
    parts = re.split(r"\n(?=#{2,3} )", "\n" + text)
    return [(part.splitlines()[0] if part.startswith("#") else "", part) for part in parts]


def blocks(docs: Path = DOCS) -> list[tuple[str, str]]:
    """``(where, code)`` of every Python block that runs, in order; ``where`` is
    ``page: heading``."""
    out = []
    for page in PAGES:
        for heading, body in sections((docs / page).read_text()):
            where = f"{page}: {heading}" if heading else page
            if where in NOT_RUN:
                continue
            out += [(where, code)
                    for code in re.findall(r"```python\n(.*?)```", body, flags=re.S)]
    return out


def run_blocks(docs: Path = DOCS) -> int:
    """Execute the blocks; return how many statements ran. Raises ``RuntimeError`` naming the
    section and statement that failed."""
    import matplotlib

    matplotlib.use("Agg")
    from evalkit.metrics import METRICS, unregister

    namespace: dict[str, object] = {"__name__": "__guide__"}
    registered = set(METRICS)
    count = 0
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)
        try:
            for section, code in blocks(docs):
                for node in ast.parse(code).body:
                    statement = ast.get_source_segment(code, node) or ""
                    try:
                        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                            warnings.simplefilter("ignore")
                            exec(compile(ast.Module([node], []), f"{section}", "exec"),
                                 namespace)
                    except Exception as error:
                        raise RuntimeError(f"guide_code: {section!r} "
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
    count = run_blocks()
    logging.getLogger(__name__).info(
        f"guide_code: {count} statements of the guide's pages ran in "
        f"{time.perf_counter() - began:.0f} s")


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", _run)
    return {"parallel_read_safe": True}
