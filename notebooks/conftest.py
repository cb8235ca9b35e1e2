"""nbval on the committed notebooks.

Only the report notebooks are collected: numbered ones (``NN-name.ipynb``, as the report
runner takes them) that git tracks, so that a scratch ``Untitled.ipynb`` or an uncommitted
draft in this folder is neither run as a test nor held to outputs it never had. Outside a git
checkout, every numbered notebook is collected.

The at-scale report's committed outputs come from a run with Spark. Where pyspark or Java is
missing, the notebook runs without its Spark cells and cannot reproduce them: its cells skip
with the reason, except under CI (``CI`` set), where both are installed (``.ci/run``) and
their absence is a failure.
"""

from __future__ import annotations

import functools
import os
import subprocess
from pathlib import Path

import pytest

#: Notebooks whose committed outputs need Spark.
NEEDS_SPARK = ("09-at-scale.ipynb",)


@functools.cache
def _spark_missing() -> str | None:
    from evalkit.spark import missing

    return missing()


@functools.cache
def _reports() -> frozenset[Path]:
    """The report notebooks of this folder, as the report runner finds them."""
    from evalkit.report import find_notebooks

    return frozenset(find_notebooks(Path(__file__).parent))


@functools.cache
def _tracked() -> frozenset[str] | None:
    """The notebook names git tracks in this folder; None outside a checkout."""
    here = Path(__file__).resolve().parent
    try:
        listed = subprocess.run(["git", "-C", str(here), "ls-files", "--", "*.ipynb"],
                                capture_output=True, text=True, timeout=30, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return frozenset(Path(line).name for line in listed.splitlines())


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if collection_path.suffix != ".ipynb" or collection_path.parent != Path(__file__).parent:
        return None
    if collection_path not in _reports():
        return True
    tracked = _tracked()
    return True if tracked is not None and collection_path.name not in tracked else None


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.path.name not in NEEDS_SPARK:
        return
    reason = _spark_missing()
    if reason is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{item.path.name} needs Spark: {reason}, and CI always has it "
                    "(.ci/run installs it)", pytrace=False)
    pytest.skip(f"{item.path.name} needs Spark to reproduce its outputs: {reason}")
