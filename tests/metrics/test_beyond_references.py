"""Beyond-accuracy metrics against the libraries' own code: the values committed in
``tests/references/fixtures/beyond_<library>.json`` (made by ``tests/references/
beyond_<library>.py`` in each library's environment) are recomputed with evalkit.

Every fixture entry names the evalkit call that reproduces it (function, options, how the
per-user values are reduced: a library's mean over users, or Microsoft recommenders' mean over
rows). Entries without one are values no evalkit option reproduces; the tests at the end
check the relation the docstrings state for them (Evidently's personalization of short lists,
RePlay's division by k, rectools' and rs_metrics' unseen items as seen by one user).

The inputs (``tests/references/beyond_inputs.py``): a hand-made case, the same case with lists
of different lengths and an item nobody saw in training, and ml-latest-small with top-20
co-occurrence lists. Each fixture stores the fingerprint of the inputs it was made from.
"""

from __future__ import annotations

import importlib.util
import json
import math
import warnings
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalkit.metrics import beyond

REFS = Path(__file__).resolve().parents[1] / "references"
FIXTURES = sorted((REFS / "fixtures").glob("beyond_*.json"))


def _load_inputs():
    spec = importlib.util.spec_from_file_location("beyond_inputs", REFS / "beyond_inputs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


INPUTS = _load_inputs()


@cache
def _case(name: str) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    return INPUTS.CASES[name]()


def case(name: str, request: pytest.FixtureRequest):
    if name == "real":
        request.getfixturevalue("ml_latest_small_dir")  # skips (or fails in CI) without it
    return _case(name)


def _fixture(path: Path) -> dict:
    return json.loads(path.read_text())


ENTRIES = [
    pytest.param(path.name, i, id=f"{path.stem}-{e['case']}-k{e['k']}-{e['call'].split('(')[0]}"
                 f"-{i}")
    for path in FIXTURES
    for i, e in enumerate(_fixture(path)["values"])
    if e["evalkit"] is not None
]


@pytest.mark.parametrize("name", [p.name for p in FIXTURES])
def test_fixture_inputs_are_ours(name, request):
    fixture = _fixture(REFS / "fixtures" / name)
    assert fixture["library"] in name
    assert fixture["version"]
    for case_name, digest in fixture["inputs"].items():
        assert INPUTS.fingerprint(*case(case_name, request)) == digest, case_name


def evalkit_value(spec: dict, case_name: str, k: int, request):
    train, recs, items = case(case_name, request)
    frames = {"recs": recs, "train": train, "train_unique": train.drop_duplicates(),
              "items": items}
    args = [frames[a] for a in spec["args"]]
    kwargs = {key: frames[v[1:]] if isinstance(v, str) and v.startswith("@") else v
              for key, v in spec["kwargs"].items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = getattr(beyond, spec["func"])(*args, **kwargs)
    reduce = spec["reduce"]
    if reduce == "value":
        return float(result)
    if reduce == "per_user":
        return {str(u): v for u, v in result.items()}
    if reduce == "mean":
        return float(result.mean())
    if reduce == "one_minus_mean":
        return 1.0 - float(result.mean())
    if reduce == "row_mean":
        sizes = recs.loc[recs["rank"] <= k].groupby("user_id").size()
        return float(np.average(result, weights=sizes.reindex(result.index)))
    raise AssertionError(f"unknown reduce {reduce!r}")


@pytest.mark.parametrize(("name", "index"), ENTRIES)
def test_library_value(name, index, request):
    fixture = _fixture(REFS / "fixtures" / name)
    entry = fixture["values"][index]
    tol = entry.get("tolerance", fixture["tolerance"])
    got = evalkit_value(entry["evalkit"], entry["case"], entry["k"], request)
    if "per_user" in entry:
        expected = {u: (math.nan if v is None else v) for u, v in entry["per_user"].items()}
        assert got.keys() == expected.keys()
        for user, value in expected.items():
            assert got[user] == pytest.approx(value, abs=tol, rel=tol, nan_ok=True), user
    else:
        assert got == pytest.approx(entry["value"], abs=tol, rel=tol), entry["call"]
