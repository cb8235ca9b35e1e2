"""The report layer's inputs, parameters and prose: checked once, named when wrong, true on
the data they describe."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evalkit as ek
from evalkit import report as rp
from evalkit.models import MostPopular
from evalkit.report import PARAMETERS, ParameterError, check_parameters

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "data" / "example"


# -- parameters ------------------------------------------------------------------------------

@pytest.mark.parametrize(("values", "message"), [
    ({"K_VALUES": []},
     r"parameter K_VALUES must be a non-empty list of positive integers; got \[\]"),
    ({"K_VALUES": [5, 0]}, r"parameter K_VALUES\[1\] must be an integer >= 1; got 0"),
    ({"K_VALUES": [5, 5]}, r"parameter K_VALUES must be a list of distinct"),
    ({"K": 2.5}, r"parameter K must be an integer >= 1; got 2.5"),
    ({"K": True}, r"parameter K must be an integer >= 1; got True"),
    ({"SEED": -1}, r"parameter SEED must be an integer >= 0; got -1"),
    ({"THRESHOLD": "4"}, r"parameter THRESHOLD must be a number or None"),
    ({"THRESHOLD": float("nan")}, r"parameter THRESHOLD must be a number or None"),
    ({"TEST_FRACTION": 0.5}, r"parameter TEST_FRACTION must be a number between 0 and 0.5"),
    ({"SPLIT": "temporal"}, r"parameter SPLIT must be one of 'random', 'user_ratio'"),
    ({"BASELINES": ["EASE", "Ease"]}, r"parameter BASELINES\[1\] must be one of .*'EASE'"),
    ({"METRIC": "nDCG"}, r"parameter METRIC: unknown metric 'nDCG'; valid metrics are "
                         r"precision \(P\), .* did you mean 'NDCG' or 'ndcg'\?"),
    ({"METRIC": "MAE"}, r"parameter METRIC: metric 'MAE' is 'mae', which parameter METRIC does "
                        r"not take; it takes precision \(P\)"),
    ({"METRICS": ["NDCG", "ndcg"]}, r"parameter METRICS must be a list of distinct metrics"),
    ({"RECS": ["recs.csv"]}, r"parameter RECS must be a mapping of system name to file path"),
    ({"RECS": {"mine": "/no/such/recs.csv"}}, r"parameter RECS\['mine'\] names no file: "
                                              r"'/no/such/recs.csv' does not exist"),
    ({"TRAIN": "/no/such/train.csv"}, r"parameter TRAIN names no file"),
    ({"HEADLINE_PATH": "out.txt"}, r"parameter HEADLINE_PATH must be None or the path of a .json"),
    ({"ALPHA": 1.0}, r"parameter ALPHA must be a number between 0 and 1"),
    ({"FOLDS": 1}, r"parameter FOLDS must be an integer >= 2; got 1"),
    ({"K_VALUES": [5, 50], "K_MAX": 20}, r"parameter K_MAX must be at least the largest cutoff "
                                         r"\(K_VALUES, K\), 50; got 20"),
    ({"K": 30, "K_MAX": 20}, r"parameter K_MAX must be at least the largest cutoff"),
    ({"TRAIN": str(EXAMPLE / "train.csv"), "TEST": None}, r"parameter TEST must be given with "
                                                          r"TRAIN"),
    ({"RECS": {}, "BASELINES": []}, r"parameters RECS and BASELINES name no system"),
    ({"PREDICTIONS": {}, "RATING_BASELINES": []}, r"parameters PREDICTIONS and RATING_BASELINES"),
    ({"RECS": {"EASE": str(EXAMPLE / "recs.csv")}, "BASELINES": ["EASE"]},
     r"parameters RECS and BASELINES both name 'EASE'; rename your system in RECS"),
    ({"RECS": {}, "BASELINES": ["EASE"], "REFERENCE": "ItemKNN"},
     r"parameter REFERENCE must name one of the systems \('EASE'\); got 'ItemKNN'"),
    ({"METRIC": "mrr", "METRICS": ["ndcg"]}, r"parameter METRIC must be one of METRICS"),
])
def test_a_bad_parameter_is_named_with_its_rule(values: dict, message: str) -> None:
    with pytest.raises(ParameterError, match=message):
        check_parameters(**values)


def test_good_parameters_pass_and_come_back_normalized() -> None:
    got = check_parameters(K_VALUES=(5, 10), K=10, K_MAX=10, THRESHOLD=4, TRAIN=None,
                           TEST=None, RECS={}, BASELINES=["EASE"], REFERENCE="EASE")
    assert got["K_VALUES"] == [5, 10] and got["THRESHOLD"] == 4.0
    assert isinstance(got["THRESHOLD"], float)


def test_metrics_are_named_by_registry_name_or_label_and_come_back_as_names() -> None:
    from evalkit.report._runner import _resolve_parameters

    got = check_parameters(METRIC="NDCG", METRICS=["P", "ndcg", "R-Prec"])
    assert got["METRIC"] == "ndcg"
    assert got["METRICS"] == ["precision", "ndcg", "r_precision"]
    # METRIC is one of METRICS whichever way each is written, and so for a profile's list
    assert check_parameters(METRIC="MRR", METRICS=["mrr"], PROFILE="trec_eval")["METRIC"] == "mrr"
    # the runner passes the notebooks the registry names, which every evalkit call takes
    resolved = _resolve_parameters("sample", {"METRIC": "NDCG", "METRICS": ["P", "NDCG"]})
    assert resolved["METRIC"] == "ndcg" and resolved["METRICS"] == ["precision", "ndcg"]


def test_a_namespace_is_checked_for_its_parameters_only() -> None:
    namespace = {"K": 0, "inputs": object(), "In": [], "_": None}
    with pytest.raises(ParameterError, match="parameter K must be"):
        check_parameters(namespace)
    assert check_parameters({"K": 3, "x": 1}) == {"K": 3}


def test_needs_refuses_none_for_this_report() -> None:
    with pytest.raises(ParameterError, match="parameter THRESHOLD must be given"):
        check_parameters({"THRESHOLD": None}, needs=["THRESHOLD"])


def test_every_notebook_states_each_parameter_as_the_registry_does() -> None:
    seen = set()
    for path in rp.find_notebooks():
        for name, p in rp.notebook_parameters(path).items():
            assert name in PARAMETERS, f"{path.name} declares {name}, which is not registered"
            assert p["meaning"] == PARAMETERS[name].meaning, (path.name, name)
            assert p["type"] == PARAMETERS[name].type, (path.name, name)
            seen.add(name)
    assert seen == set(PARAMETERS), set(PARAMETERS) - seen


def test_every_notebook_checks_its_parameters_in_its_first_cell() -> None:
    """... and goes on with the checked values: run by hand (papermill ``-p METRIC NDCG``),
    a notebook reads the names the runner would have passed it (``ndcg``)."""
    for path in rp.find_notebooks():
        cells = [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]
        tagged = next(i for i, c in enumerate(cells)
                      if "parameters" in c["metadata"].get("tags", []))
        if "DATASET" in rp.notebook_parameters(path):
            source = "".join(cells[tagged + 1]["source"])
            assert source.startswith("globals().update(rp.check_parameters(globals()"), path.name


def test_notebook_lines_are_short() -> None:
    for path in rp.find_notebooks():
        for cell in json.loads(path.read_text())["cells"]:
            if cell["cell_type"] == "code":
                for line in "".join(cell["source"]).splitlines():
                    assert len(line) <= 100, (path.name, line)


def test_list_parameters_agrees_with_papermill_help() -> None:
    table = rp.list_parameters()
    assert set(table.index) == set(PARAMETERS)
    assert table.loc["K_MAX", "meaning"] == PARAMETERS["K_MAX"].meaning
    assert "; " in table.loc["BASELINES", "default"]  # defaults differ between notebooks
    done = subprocess.run([sys.executable, "-m", "papermill", "--help-notebook",
                           str(ROOT / "notebooks" / "05-ranking.ipynb")],
                          capture_output=True, text=True, timeout=120)
    for name, p in rp.notebook_parameters(ROOT / "notebooks" / "05-ranking.ipynb").items():
        assert name in done.stdout and p["meaning"] in done.stdout.replace("\n ", " "), name


# -- inputs ----------------------------------------------------------------------------------

def test_a_split_folder_is_used_as_given_with_its_fingerprints() -> None:
    inputs = rp.load_inputs(str(EXAMPLE), split="user_temporal", seed=5)
    train = ek.load_interactions(EXAMPLE / "train.csv")
    test = ek.load_interactions(EXAMPLE / "test.csv")
    pd.testing.assert_frame_equal(inputs.train, train)
    pd.testing.assert_frame_equal(inputs.test, test)
    assert inputs.split.info["strategy"] == "given"
    assert inputs.files["test"]["sha256"] == ek.fingerprint(test)["sha256"]
    assert inputs.items is not None and inputs.items["genres"].map(len).sum() > 0
    card = rp.run_card(inputs, seed=5)["value"]
    assert card["test sha256"] == ek.fingerprint(test)["sha256"]
    assert card["split"] == "given (train=train.csv, test=test.csv)"


def test_train_and_test_files_replace_the_split(tmp_path: Path) -> None:
    inputs = rp.load_inputs("sample", train=EXAMPLE / "train.csv", test=EXAMPLE / "test.csv")
    assert inputs.name == "train.csv + test.csv"
    assert len(inputs.ratings) == len(inputs.train) + len(inputs.test)


def test_an_interactions_file_is_split_by_the_strategy(tmp_path: Path) -> None:
    data = pd.concat([pd.read_csv(EXAMPLE / "train.csv"), pd.read_csv(EXAMPLE / "test.csv")])
    data.to_parquet(tmp_path / "log.parquet")
    inputs = rp.load_inputs(str(tmp_path / "log.parquet"), split="user_temporal")
    want = ek.split.split_by(ek.load_interactions(tmp_path / "log.parquet"), "user_temporal")

    def rows(frame: pd.DataFrame) -> pd.DataFrame:  # the report orders a file's rows its way
        return frame.sort_values(list(frame.columns)).reset_index(drop=True)

    pd.testing.assert_frame_equal(rows(inputs.test), rows(want.test))
    assert inputs.items is None


def test_a_temporal_split_without_timestamps_names_split(tmp_path: Path) -> None:
    pd.read_csv(EXAMPLE / "train.csv").drop(columns="timestamp").to_csv(tmp_path / "x.csv",
                                                                       index=False)
    with pytest.raises(ParameterError, match=r"parameter SPLIT='user_temporal' needs timestamps"):
        rp.load_inputs(str(tmp_path / "x.csv"), split="user_temporal")
    inputs = rp.load_inputs(str(tmp_path / "x.csv"), split=None)
    with pytest.raises(ParameterError, match=r"STRATEGIES names global_temporal"):
        rp.make_splits(inputs, ["random", "global_temporal"])
    with pytest.raises(ParameterError, match=r"STRATEGIES is empty and no TRAIN/TEST"):
        rp.make_splits(inputs, [])


def test_systems_are_the_files_then_the_baselines_and_coverage_counts_every_user() -> None:
    inputs = rp.load_inputs(str(EXAMPLE))
    recs = ek.read_recommendations(EXAMPLE / "recs.csv")
    some = recs[recs["user_id"] > 50]
    extra = pd.DataFrame({"user_id": [10**6], "item_id": [1], "rank": [1]})
    systems = {"mine": some, "stray": pd.concat([some, extra])}
    systems |= rp.load_systems(inputs, baselines=["MostPopular"], k=7)
    assert list(systems) == ["mine", "stray", "MostPopular"]
    table = rp.coverage(systems, inputs.test)
    users = inputs.test["user_id"].nunique()
    with_list = inputs.test.loc[inputs.test["user_id"] > 50, "user_id"].nunique()
    assert table.loc["mine"].tolist()[:4] == [users, with_list, users - with_list, 0]
    assert table.loc["stray", "only in the list (ignored)"] == 1
    assert table.loc["MostPopular", "longest list"] == 7
    assert table.loc["MostPopular", "without a list (score 0)"] == 0
    # each baseline's next item, kept aside for the findings: the 8th of a list asked at 8
    popular = MostPopular().fit(inputs.train).recommend(inputs.test_users, k=8)
    loaded = rp.load_systems(inputs, baselines=["MostPopular"], k=7)
    pd.testing.assert_frame_equal(loaded.beyond["MostPopular"],
                                  popular[popular["rank"] == 8].reset_index(drop=True))


def test_ties_across_the_cutoff_of_a_baseline_are_seen_as_from_longer_lists() -> None:
    """A page that asks the baselines for k items says for how many users tied scores
    straddle k, the same count as a page whose lists are longer."""
    inputs = rp.load_inputs(str(EXAMPLE))
    short = rp.load_systems(inputs, baselines=["MostPopular"], k=10)
    longer = rp.load_systems(inputs, baselines=["MostPopular"], k=20)
    want = rp.score_ties(longer["MostPopular"], [10])[10]
    assert want > 0
    evaluations = {"MostPopular": ek.evaluate(inputs.test, short["MostPopular"], k=10,
                                              metrics=["ndcg"], n_resamples=0)}
    said = rp.findings(evaluations, k=10, systems=short)
    assert f"tied scores straddle the cutoff 10 for {want:,} of the" in said
    assert "cannot be seen" not in said


def test_predictions_files_need_a_prediction_column(tmp_path: Path) -> None:
    inputs = rp.load_inputs(str(EXAMPLE))
    pd.read_csv(EXAMPLE / "test.csv").to_csv(tmp_path / "p.csv", index=False)
    with pytest.raises(ParameterError, match=r"PREDICTIONS\['p'\]: 'p.csv' has no prediction "
                                             r"column"):
        rp.load_predictions(inputs, predictions={"p": tmp_path / "p.csv"})
    fitted = ek.models.predict_ratings(inputs.train, inputs.test)["item bias"].iloc[:10]
    fitted.to_csv(tmp_path / "q.csv", index=False)
    got = rp.load_predictions(inputs, predictions={"q": tmp_path / "q.csv"})
    cover = rp.prediction_coverage(got, inputs.test).loc["q"]
    assert cover["predicted"] == 10
    assert cover["without a prediction (left out)"] == len(inputs.test) - 10


# -- prose: each statement must follow the data ------------------------------------------------

def test_relevance_note_follows_the_data() -> None:
    r = pd.DataFrame({"user_id": [1, 1, 1, 1], "item_id": [1, 2, 3, 4],
                      "rating": [1.0, 2.0, 4.0, 5.0]})
    assert rp.relevance_note(r, threshold=4.0).startswith("50.0% of the 4 ratings")
    assert rp.relevance_note(r, threshold=5.0).startswith("25.0% of the 4 ratings")
    assert "every test interaction counts as relevant" in rp.relevance_note(r, threshold=None)
    assert "no ratings" in rp.relevance_note(r.drop(columns="rating"), threshold=4.0)


def _evaluations(truth: pd.DataFrame) -> dict:
    recs = pd.DataFrame({"user_id": [1, 2], "item_id": [10, 20], "rank": [1, 1]})
    return {"a": ek.evaluate(truth, recs, k=1, metrics=["precision", "recall"], n_resamples=10)}


def test_summary_note_counts_the_users_left_out_or_says_none_are() -> None:
    every = pd.DataFrame({"user_id": [1, 2], "item_id": [10, 20], "rating": [5.0, 4.0]})
    assert "Every metric is defined for every test user" in rp.summary_note(_evaluations(every))
    one_low = every.assign(rating=[5.0, 1.0])
    note = rp.summary_note(_evaluations(one_low))
    assert "R: 1 user(s)" in note and "Every metric" not in note
    assert "the 2 test users" in note


def test_summary_table_marks_the_best_mean_per_row() -> None:
    truth = pd.DataFrame({"user_id": [1, 2], "item_id": [10, 20], "rating": [5.0, 4.0]})
    good = pd.DataFrame({"user_id": [1, 2], "item_id": [10, 20], "rank": [1, 1]})
    bad = pd.DataFrame({"user_id": [1, 2], "item_id": [11, 21], "rank": [1, 1]})
    evals = rp.evaluate_systems(truth, {"bad": bad, "good": good}, k=[1])
    table = rp.summary_table(evals)
    assert table.loc["P@1", "good"].endswith(" *") and not table.loc["P@1", "bad"].endswith("*")
    evals = rp.evaluate_systems(truth, {"bad": good, "good": bad}, k=[1])
    assert rp.summary_table(evals).loc["P@1", "bad"].endswith(" *")


def test_cross_validation_and_comparison_notes_name_the_systems_in_use() -> None:
    note = rp.cross_validation_note(["EASE"], {"mine": "x.csv"}, folds=4)
    assert "**EASE** is trained on 3 of 4" in note
    assert "**EASE** and **ItemKNN** are each trained on 3 of 4" in \
        rp.cross_validation_note(["EASE", "ItemKNN"], {}, folds=4)
    assert "**mine**: recommendation files" in note
    assert "nothing is cross-validated" in rp.cross_validation_note([], {"m": "x"}, folds=3)
    assert "compared with **b**" in rp.comparison_note(["a", "b"], reference="b", alpha=0.01)
    assert "Every pair of the 2 systems is compared (1 pair)" in \
        rp.comparison_note(["a", "b"], reference=None, alpha=0.01)
    assert "Every pair of the 3 systems is compared (3 pairs)" in \
        rp.comparison_note(["a", "b", "c"], reference=None, alpha=0.01)
    assert "nothing to compare" in rp.comparison_note(["a"], reference=None, alpha=0.05)


def test_headline_is_written_only_where_asked(tmp_path: Path) -> None:
    shown = rp.write_headline(None, {"a": 1.23456789, "b": {"nested": 1}})
    assert shown.loc["a", "value"] == 1.23457 and "b" not in shown.index
    assert list(tmp_path.iterdir()) == []
    rp.write_headline(tmp_path / "h.json", {"a": 1.0})
    assert json.loads((tmp_path / "h.json").read_text()) == {"a": 1.0}


def test_the_run_card_says_when_and_with_what_and_nbval_masks_only_that() -> None:
    import configparser
    import re
    import subprocess

    inputs = rp.load_inputs("sample", seed=0)
    card = rp.run_card(inputs, seed=0)["value"]
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC", card["run at"])
    assert card["versions"].startswith("Python ") and "pandas " in card["versions"]
    root = Path(__file__).resolve().parents[1]
    if (root / ".git").exists():
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], text=True,
                              capture_output=True, check=True).stdout.strip()
        assert re.fullmatch(rf"commit {head[:12]}( \(modified\))?", card["evalkit source"])
    else:
        assert card["evalkit source"] == "commit unknown (not run from a git checkout)"
    # the notebooks' sanitizers mask these three values and nothing else of the card
    config = configparser.ConfigParser()
    config.read(root / "notebooks" / "sanitize.cfg")
    with pd.option_context("display.max_colwidth", 80):
        shown = rp.run_card(inputs, seed=0).to_html() + rp.run_card(inputs, seed=0).to_string()
    for section in config.sections():
        shown = re.sub(config[section]["regex"], config[section]["replace"], shown)
    assert card["versions, cont."].startswith("scipy ")
    for value in (card["run at"], card["versions"], card["versions"][:20],
                  card["versions, cont."], card["versions, cont."][:20]):
        assert value not in shown
    assert card["ratings sha256"] in shown and "RUN-TIME" in shown and "VERSIONS" in shown
    # a clean and a modified checkout, and no checkout, read the same after sanitizing
    from evalkit.report import _inputs

    variants = []
    for value in ("commit 0123456789ab", "commit 0123456789ab (modified)",
                  "commit unknown (not run from a git checkout)"):
        table = rp.run_card(inputs, seed=0).assign(
            value=lambda f, v=value: f["value"].where(f.index != "evalkit source", v))
        with pd.option_context("display.max_colwidth", 80):
            text = table.to_html() + table.to_string()
        for section in config.sections():
            text = re.sub(config[section]["regex"], config[section]["replace"], text)
        variants.append(text)
    assert variants[0] == variants[1] == variants[2]
    assert _inputs._git_commit(Path("/")) is None


def test_summary_note_spells_out_only_the_abbreviations_in_the_table() -> None:
    truth = pd.DataFrame({"user_id": [1, 2], "item_id": 1, "rating": 5.0})
    recs = pd.DataFrame({"user_id": [1, 2], "item_id": 1, "rank": 1})
    some = rp.summary_note({"a": ek.evaluate(truth, recs, k=1, metrics=["map", "ndcg"],
                                             n_resamples=0)})
    assert "MAP mean average precision; NDCG normalized DCG" in some
    assert "HLU" not in some and "R-Prec" not in some
    every = rp.summary_note({"a": ek.evaluate(truth, recs, k=1, n_resamples=0)})
    assert "HLU half-life utility" in every and "R-Prec R-precision" in every


def test_a_baseline_too_large_for_the_memory_is_left_out_with_its_reason(monkeypatch) -> None:
    from evalkit.models import ease as ease_module

    monkeypatch.setattr(ease_module, "available_memory", lambda: 1000)
    inputs = rp.load_inputs("sample", split="user_ratio", seed=0)
    systems = rp.load_systems(inputs, baselines=["MostPopular", "EASE"], k=5)
    assert list(systems) == ["MostPopular"]
    assert systems.left_out["EASE"].startswith("the ") and "0.0 GB available" in \
        systems.left_out["EASE"]
    table = rp.coverage(systems, inputs.test)
    assert list(table.index) == ["MostPopular", "EASE"]
    assert table.loc["EASE", "left out"] == systems.left_out["EASE"]
    assert table.loc["MostPopular", "left out"] == ""


def _documented_digest(frame: pd.DataFrame) -> str:
    """fingerprint's digest as its docstring defines it, computed with pandas' sort."""
    import hashlib

    keys = [c for c in ("user_id", "item_id", "timestamp", "rating") if c in frame]
    rows = frame.sort_values(keys, kind="stable")
    digest = hashlib.sha256()
    for column, dtype in (("user_id", "<i8"), ("item_id", "<i8"), ("rating", "<f8"),
                          ("timestamp", "<i8")):
        if column in rows:
            digest.update(column.encode() + b"\x00")
            values = rows[column]
            if dtype == "<f8" or pd.api.types.is_integer_dtype(values):
                digest.update(values.to_numpy().astype(dtype).tobytes())
            else:
                digest.update("\x00".join(values.astype(str)).encode())
    return digest.hexdigest()


@pytest.mark.parametrize("ids", ["small", "wide", "extreme", "text"])
@pytest.mark.parametrize("with_time", [True, False])
def test_the_fingerprint_is_the_documented_digest_in_any_row_order(ids, with_time) -> None:
    rng = np.random.default_rng(7)
    n = 400
    users = rng.integers(0, 30, n)
    items = rng.integers(0, 25, n)  # repeated (user, item) pairs: the timestamp orders them
    frame = pd.DataFrame({
        "user_id": {"small": users, "wide": users * 2**40 - 2**61,
                    "extreme": np.where(users % 2 == 1, 2**63 - 1 - users, -2**63 + users),
                    "text": [f"u{u}" for u in users]}[ids],
        "item_id": {"small": items, "wide": items * 2**39, "extreme": items,
                    "text": [f"i{i}" for i in items]}[ids],
        "rating": rng.integers(1, 11, n) / 2,
        "timestamp": rng.integers(0, 5, n) * 1000})
    if not with_time:
        frame = frame.drop(columns="timestamp")
    fp = ek.fingerprint(frame)
    assert fp["sha256"] == _documented_digest(frame)
    shuffled = frame.sample(frac=1.0, random_state=3)
    assert ek.fingerprint(shuffled)["sha256"] == fp["sha256"]
    changed = frame.copy()
    changed.loc[5, "rating"] += 0.5
    assert ek.fingerprint(changed)["sha256"] != fp["sha256"]


def test_item_ids_are_those_of_the_ratings_without_putting_them_together() -> None:
    given = rp.load_inputs("sample", train=EXAMPLE / "train.csv", test=EXAMPLE / "test.csv")
    ids = given.item_ids()
    assert given._ratings is None  # the split's frames were not put together
    np.testing.assert_array_equal(ids, pd.unique(given.ratings["item_id"]))
    made = rp.load_inputs("sample", split="user_ratio", test_fraction=0.2, seed=0)
    np.testing.assert_array_equal(made.item_ids(), pd.unique(made.ratings["item_id"]))
