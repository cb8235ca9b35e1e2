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
                 f"-{i}", marks=[pytest.mark.slow] if e["case"] == "real" else [])
    for path in FIXTURES
    for i, e in enumerate(_fixture(path)["values"])
    if e["evalkit"] is not None
]


@pytest.mark.slow
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


# ------------------------------------------------ values no option reproduces: the relation


def _unseen_share(recs, train, k):
    """Per user: the share of the top-k items never seen in training."""
    top = recs.loc[recs["rank"] <= k]
    unseen = ~top["item_id"].isin(train["item_id"])
    return unseen.groupby(top["user_id"]).mean()


def _relation(library: str, entry: dict, request):
    """The library's value from evalkit's, by the relation the docstrings state."""
    train, recs, items = case(entry["case"], request)
    k, call = entry["k"], entry["call"]
    top = recs.loc[recs["rank"] <= k]
    seen = recs.loc[recs["item_id"].isin(train["item_id"])]
    n_users = train["user_id"].nunique()
    outside = int((~pd.Index(top["item_id"].unique()).isin(train["item_id"])).sum())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if library == "evidently" and call.startswith("Personalization"):
            c = top["item_id"].value_counts().to_numpy(dtype=np.float64)
            m = top["user_id"].nunique()
            return 1 - (np.sum(c**2) - m * k) / (k * m * (m - 1))
        if library == "evidently" and call.startswith("Novelty"):
            return beyond.novelty(seen, train, k=k).mean()  # unseen items dropped
        if library == "evidently" and call.startswith("PopularityBias"):
            return beyond.average_recommended_popularity(seen, train.drop_duplicates(), k=k).mean()
        if library == "replay":  # sum over the list, divided by k; an unseen item weighs 1
            value = beyond.novelty(recs, train, k=k, novelty_norm="log2_users")
            size = top.groupby("user_id").size()
            unseen = _unseen_share(recs, train, k) * size
            fix = 1 - np.log2(n_users + 1) / np.log2(n_users)
            return ((value * size + fix * unseen) / k).to_dict()
        if library in ("rectools", "rs_metrics") and "Coverage" in call:
            count = beyond.catalog_coverage(recs, k=k, catalog=train, coverage_unit="count")
            total = count + outside
            return total / train["item_id"].nunique() if "normalize=True" in call else total
        if library in ("rectools", "rs_metrics"):  # unseen items as seen by one user: p = 1/n
            value = beyond.novelty(recs, train, k=k)
            value = value + (np.log2(n_users) - np.log2(n_users + 1)) * _unseen_share(
                recs, train, k)
            return value.to_dict() if library == "rectools" else value.mean()
        if library == "recommenders" and call.startswith("novelty"):
            value = beyond.novelty(seen, train, k=k, popularity="interactions")
            rows = seen.loc[seen["rank"] <= k].groupby("user_id").size()
            return float((value * rows).sum() / len(top))  # unseen rows add 0, still counted
        if library == "recommenders" and call.startswith("catalog_coverage"):
            count = beyond.catalog_coverage(recs, k=k, catalog=train, coverage_unit="count")
            return (count + outside) / train["item_id"].nunique()
    raise AssertionError(f"no stated relation for {library}: {call}")


DOCUMENTED = [
    pytest.param(path.name, i, id=f"{path.stem}-{e['case']}-k{e['k']}-{e['call'].split('(')[0]}"
                 f"-{i}", marks=[pytest.mark.slow] if e["case"] == "real" else [])
    for path in FIXTURES
    for i, e in enumerate(_fixture(path)["values"])
    if e["evalkit"] is None
]


@pytest.mark.parametrize(("name", "index"), DOCUMENTED)
def test_documented_difference(name, index, request):
    fixture = _fixture(REFS / "fixtures" / name)
    entry = fixture["values"][index]
    expected = _relation(fixture["library"], entry, request)
    if "per_user" in entry:
        assert {str(u): v for u, v in expected.items()} == pytest.approx(entry["per_user"],
                                                                          abs=1e-9)
    else:
        assert float(expected) == pytest.approx(entry["value"], abs=1e-9), entry["note"]
