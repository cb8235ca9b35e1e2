"""The benchmark scripts keep working: generator statistics, and the timing script at a tiny
scale, whose cross-system agreement check must pass. Nothing here is timed."""

from __future__ import annotations

import gc
import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


def load_script(name: str):
    """``benchmarks/<name>.py`` as a module (the folder is not a package)."""
    spec = importlib.util.spec_from_file_location(f"benchmarks_{name}", BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(BENCH))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCH))
    return module


def run_main(name: str, argv: list[str]) -> int:
    """``benchmarks/<name>.py``'s ``main(argv)`` in this process. The scripts collect garbage
    before each timing; with the test process's objects frozen out of the collector that scans
    only the script's own (milliseconds per call instead of most of a second)."""
    gc.freeze()
    try:
        return load_script(name).main(argv)
    finally:
        gc.unfreeze()


@pytest.fixture(scope="module")
def generate():
    return load_script("generate")


def test_generator_is_seeded_and_shaped(generate) -> None:
    truth, recs = generate.generate(400, rng=3)
    again_truth, again_recs = generate.generate(400, rng=3)
    pd.testing.assert_frame_equal(truth, again_truth)
    pd.testing.assert_frame_equal(recs, again_recs)
    other, _ = generate.generate(400, rng=4)
    assert not truth.equals(other)

    assert list(truth.columns) == ["user_id", "item_id", "rating"]
    assert list(recs.columns) == ["user_id", "item_id", "rank", "score"]
    assert [str(t) for t in recs.dtypes] == ["int64", "int64", "int64", "float64"]
    assert [str(t) for t in truth.dtypes] == ["int64", "int64", "float64"]
    # every user: a top-100 list, ranks 1..100, distinct items, strictly descending scores
    assert len(recs) == 400 * 100
    assert (recs.groupby("user_id")["rank"].agg(list).map(lambda r: r == list(range(1, 101)))).all()
    assert not recs.duplicated(["user_id", "item_id"]).any()
    assert not truth.duplicated(["user_id", "item_id"]).any()
    score = recs["score"].to_numpy().reshape(400, 100)
    assert (np.diff(score, axis=1) < 0).all()
    # half-star ratings, every user has a test set, items from a MovieLens-sized id range
    assert set(truth["rating"].unique()) <= set(np.arange(1, 11) / 2)
    assert set(truth["user_id"]) == set(range(1, 401))
    assert truth["item_id"].between(1, generate.MAX_ITEM_ID).all()


def test_generator_statistics_are_realistic(generate) -> None:
    truth, recs = generate.generate(5_000, rng=0)
    stats = generate.describe(truth, recs)
    assert 8 <= stats["test_size_median"] <= 12  # heavy tail: median ~10, mean ~30
    assert 24 <= stats["test_size_mean"] <= 36
    assert 0.01 <= stats["precision@10"] <= 0.15  # a few percent, not ~0
    assert 0.40 <= stats["share_relevant"] <= 0.60
    # popularity is Zipf-like: the top 1% of items hold a large share of recommendations
    counts = recs["item_id"].value_counts().to_numpy()
    assert counts[: max(1, counts.size // 100)].sum() / counts.sum() > 0.2


def test_naive_pandas_matches_a_hand_computed_user() -> None:
    run = load_script("run")
    truth = pd.DataFrame({"user_id": 1, "item_id": [1, 3, 9], "rating": [5.0, 4.0, 2.0]})
    recs = pd.DataFrame({"user_id": 1, "item_id": [1, 2, 3, 4], "rank": [1, 2, 3, 4],
                         "score": [4.0, 3.0, 2.0, 1.0]})
    got = run.naive_pandas(truth, recs, ks=(2, 4)).iloc[0]
    assert got["P@2"] == 0.5 and got["P@4"] == 0.5
    assert got["R@4"] == 1.0
    assert got["AP_min@4"] == pytest.approx((1 + 2 / 3) / 2)
    assert got["RR@2"] == 1.0
    dcg = 5 + 4 / np.log2(4)
    idcg = 5 + 4 / np.log2(3) + 2 / np.log2(4)
    assert got["NDCG@4"] == pytest.approx(dcg / idcg)


def test_timing_script_runs_and_systems_agree(tmp_path: Path) -> None:
    """run.py at the tiny scale (its main, in this process). ranx is left out here: a process
    that calls it compiles ranx's typed dictionaries (seconds), so its runner is checked in
    the process of tests/metrics/test_ranking_crosscheck.py, which has compiled them."""
    pytest.importorskip("pytrec_eval")
    out = tmp_path / "results.json"
    code = run_main("run", [
        "--scale", "tiny", "--inline", "--repeats", "1", "--n-resamples", "2",
        "--check-users", "300", "--systems", "evalkit,trec_eval,pandas", "--out", str(out)])
    assert code == 0
    record = json.loads(out.read_text())
    assert record["users"] == 300
    assert {row["system"] for row in record["table"]} == {"evalkit", "trec_eval", "pandas"}
    for system in ("trec_eval", "pandas"):
        diffs = record["agreement"][system]
        assert len(diffs) >= 9, system  # P, R, AP, RR, NDCG compared at both cutoffs
        assert max(diffs.values()) < 1e-9, (system, diffs)
    means = record["results"]["evalkit"]["means"]
    assert 0 < means["precision@10"] < 1


def test_the_ab_script_times_both_checkouts_in_turn(tmp_path: Path) -> None:
    """benchmarks/ab.py with this checkout on both sides, one round of one call each, at 300
    users: every call of run.py's options is timed on both sides."""
    import subprocess

    out = tmp_path / "ab.json"
    root = BENCH.parent
    done = subprocess.run([sys.executable, str(BENCH / "ab.py"), "--a", str(root), "--b",
                           str(root), "--rounds", "1", "--repeats", "1", "--users", "300",
                           "--out", str(out)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    record = json.loads(out.read_text())
    assert set(record["summary"]) == {"evaluate", "suite_plus_curves", "ties_expected",
                                      "ties_expected_tied_scores", "exponential_gain",
                                      "half_life_utility", "every_metric"}
    for side in ("a", "b"):
        assert all(len(times) == 1 and times[0] > 0 for times in record["runs"][side].values())
    assert "B/A" in done.stdout
