"""nbval on the committed notebooks.

The at-scale report's committed outputs come from a run with Spark. Where pyspark or Java is
missing, the notebook runs without its Spark cells and cannot reproduce them: its cells skip
with the reason, except under CI (``CI`` set), where both are installed (``.ci/run``) and
their absence is a failure.
"""

from __future__ import annotations

import functools
import os

import pytest

#: Notebooks whose committed outputs need Spark.
NEEDS_SPARK = ("09-at-scale.ipynb",)


@functools.cache
def _spark_missing() -> str | None:
    from evalkit.spark import missing

    return missing()


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
