"""The notebooks of one report run share its inputs and baselines: read and computed once,
returned exactly as computed, recomputed when a file changes, never shared outside a run."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from evalkit.report import _shared
from evalkit.report._inputs import load_inputs, load_systems
from evalkit.report._shared import ENVIRONMENT, shared

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "data" / "example"


@pytest.fixture
def run_folder(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "shared"
    folder.mkdir()
    monkeypatch.setenv(ENVIRONMENT, str(folder))
    return folder


def _counting():
    calls = []

    def compute():
        calls.append(1)
        return pd.DataFrame({"x": [len(calls)]})

    return calls, compute


def test_a_value_is_computed_once_per_run_and_every_time_outside_one(run_folder,
                                                                     monkeypatch) -> None:
    calls, compute = _counting()
    first = shared("thing", "k1", compute)
    again = shared("thing", "k1", compute)
    assert len(calls) == 1
    pd.testing.assert_frame_equal(first, again)
    shared("thing", "k2", compute)  # another key: computed
    assert len(calls) == 2
    monkeypatch.delenv(ENVIRONMENT)
    shared("thing", "k1", compute)
    shared("thing", "k1", compute)
    assert len(calls) == 4


def test_an_error_leaves_nothing_and_a_damaged_entry_is_recomputed(run_folder) -> None:
    def fail():
        raise ValueError("load_inputs: no such file")

    with pytest.raises(ValueError, match="no such file"):
        shared("thing", "k", fail)
    assert not list(run_folder.glob("*.pickle")) and not list(run_folder.glob("*.part"))
    calls, compute = _counting()
    shared("thing", "k", compute)
    (entry,) = run_folder.glob("thing-k.pickle")
    entry.write_bytes(entry.read_bytes()[:10])
    assert shared("thing", "k", compute)["x"].tolist() == [2]


def test_a_changed_file_changes_the_key(tmp_path) -> None:
    path = tmp_path / "train.csv"
    path.write_text("user_id,item_id\n1,2\n")
    before = _shared.run_key("inputs", path)
    path.write_text("user_id,item_id\n1,2\n1,3\n")
    assert _shared.run_key("inputs", path) != before
    assert _shared.run_key("inputs", str(path)) == _shared.run_key("inputs", path)


@pytest.mark.parametrize("given", [False, True])
def test_shared_inputs_and_baselines_equal_those_computed_alone(run_folder, monkeypatch,
                                                                given) -> None:
    args = ({"train": EXAMPLE / "train.csv", "test": EXAMPLE / "test.csv"} if given
            else {"split": "user_ratio"})
    monkeypatch.delenv(ENVIRONMENT)
    alone = load_inputs("sample", **args)
    lists = load_systems(alone, baselines=["MostPopular"], k=5)
    monkeypatch.setenv(ENVIRONMENT, str(run_folder))
    load_systems(load_inputs("sample", **args), baselines=["MostPopular"], k=5)
    entries = sorted(p.name.split("-")[0] for p in run_folder.glob("*.pickle"))
    # a split is made from the unsplit data, which the pages that do not split share
    assert entries == (["baseline", "inputs"] if given else ["baseline", "inputs", "inputs"])
    again = load_inputs("sample", **args)  # from the run's folder
    for part in ("ratings", "train", "test"):
        pd.testing.assert_frame_equal(getattr(again, part), getattr(alone, part))
    assert again.fingerprint == alone.fingerprint and again.files == alone.files
    assert again.split.info == alone.split.info
    pd.testing.assert_frame_equal(
        load_systems(again, baselines=["MostPopular"], k=5)["MostPopular"],
        lists["MostPopular"])


def test_an_analyst_s_split_is_put_together_only_for_the_pages_that_ask() -> None:
    inputs = load_inputs("x", train=EXAMPLE / "train.csv", test=EXAMPLE / "test.csv")
    assert inputs._ratings is None  # the pickled inputs hold train and test once
    assert inputs.has_ratings and inputs.has_timestamps and inputs._ratings is None
    whole = pd.concat([inputs.train, inputs.test], ignore_index=True)
    pd.testing.assert_frame_equal(inputs.ratings, whole)
    from evalkit.data import fingerprint

    assert inputs.fingerprint == fingerprint(whole)


@pytest.mark.parametrize("name", ["Random", "MostPopular", "BiasBaseline", "ItemKNN", "EASE"])
def test_the_first_k_of_a_longer_list_are_the_top_k_list(run_folder, monkeypatch,
                                                         name) -> None:
    """A run computes each baseline's lists once, at the longest length any page asks for
    (LIST_LENGTH); a page's lists are their first k, equal to lists asked at k."""
    from evalkit.report._shared import LIST_LENGTH

    monkeypatch.delenv(ENVIRONMENT)
    inputs = load_inputs(str(EXAMPLE))  # the committed example split (8,689 training rows)
    alone = load_systems(inputs, baselines=[name], k=7, seed=3)[name]
    monkeypatch.setenv(ENVIRONMENT, str(run_folder))
    monkeypatch.setenv(LIST_LENGTH, "30")
    inputs = load_inputs(str(EXAMPLE))
    longest = load_systems(inputs, baselines=[name], k=30, seed=3)[name]
    assert longest["rank"].max() == 30
    cut = load_systems(inputs, baselines=[name], k=7, seed=3)[name]
    assert len(list(run_folder.glob("baseline-*.pickle"))) == 1  # computed once
    pd.testing.assert_frame_equal(cut, alone)


def test_the_split_audit_is_computed_once_per_run_and_equals_the_audit(run_folder,
                                                                      monkeypatch) -> None:
    from evalkit.split import audit

    inputs = load_inputs("x", train=EXAMPLE / "train.csv", test=EXAMPLE / "test.csv")
    first = inputs.audit()
    assert [p.name.split("-")[0] for p in run_folder.glob("audit-*.pickle")] == ["audit"]
    again = load_inputs("x", train=EXAMPLE / "train.csv", test=EXAMPLE / "test.csv").audit()
    pd.testing.assert_frame_equal(again, first)
    pd.testing.assert_frame_equal(first, audit(inputs.split))
    monkeypatch.delenv(ENVIRONMENT)  # outside a run: computed, nothing written
    pd.testing.assert_frame_equal(inputs.audit(), first)
    assert len(list(run_folder.glob("audit-*.pickle"))) == 1


def test_the_splitting_page_reads_the_run_s_audit_of_the_analyst_s_split(run_folder) -> None:
    from evalkit import report as rp
    from evalkit.split import audit

    inputs = load_inputs("x", train=EXAMPLE / "train.csv", test=EXAMPLE / "test.csv")
    splits = rp.make_splits(inputs, ["random"])
    pd.testing.assert_frame_equal(splits.audit("given"), audit(inputs.split))
    assert len(list(run_folder.glob("audit-*.pickle"))) == 1  # the page after reads it
    pd.testing.assert_frame_equal(splits.audit("random"), audit(splits["random"]))
