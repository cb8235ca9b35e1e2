"""Shared fixtures.

Tests that need the real MovieLens ml-latest-small release read it from the folder
``$EVALKIT_TEST_DATA`` names (the folder that holds ``ml-latest-small/``, or the release
folder itself), else from ``../shared/data`` beside the repository. Where it is absent they
skip with the reason, except under CI (``CI`` set), where the data is always present and
its absence is a failure.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _ml_latest_small() -> Path:
    given = os.environ.get("EVALKIT_TEST_DATA")
    if given:
        folder = Path(given).expanduser()
        return folder if folder.name == "ml-latest-small" else folder / "ml-latest-small"
    return ROOT.parent / "shared" / "data" / "ml-latest-small"


ML_LATEST_SMALL = _ml_latest_small()


def _require(path: Path) -> Path:
    if path.is_dir():
        return path
    reason = (f"the real MovieLens ml-latest-small release is not at {path} (set "
              "EVALKIT_TEST_DATA to the folder that holds it)")
    if os.environ.get("CI"):
        pytest.fail(f"{reason}, and CI always has it")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def ml_latest_small_dir() -> Path:
    """Directory of the real ml-latest-small release, verified against its SHA256SUMS."""
    path = _require(ML_LATEST_SMALL)
    sums = path / "SHA256SUMS"
    if sums.exists():
        for line in sums.read_text().splitlines():
            if not line.strip():
                continue
            digest, name = line.split(maxsplit=1)
            name = name.lstrip("*").strip()
            target = path / name
            if target.exists():
                actual = hashlib.sha256(target.read_bytes()).hexdigest()
                assert actual == digest, f"{target} does not match SHA256SUMS"
    return path


# The reference scripts run each library in its own environment (tests/references/README.md);
# they are not tests and import libraries that are not installed here.
collect_ignore_glob = ["references/*.py"]


@pytest.fixture(scope="session")
def files(tmp_path_factory) -> dict[str, str]:
    """The analyst's files of the notebook grid and the report command's run: the example
    split and variants of it (tests/notebook_checks.py), by name."""
    from tests.notebook_checks import write_files

    return write_files(tmp_path_factory.mktemp("own"))


def pytest_xdist_auto_num_workers(config) -> int:
    """``-n auto``: one worker more than the cores. Much of the suite waits on processes it
    starts (notebook kernels, Spark's JVM, the command line), and a third worker keeps both
    cores busy meanwhile (on two cores: about 7 s of 290 s less)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (cores or 1) + 1
