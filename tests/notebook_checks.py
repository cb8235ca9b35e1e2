"""What each notebook's headline must be, for the parameter sets of the notebook grid
(tests/test_notebook_grid.py) and of the report command's run (tests/test_reports.py): the
analyst's files (the committed example in ``data/example`` and files derived from it), the
sets of parameters, the runs that must stop in their first cell, and each notebook's
headline recomputed by direct calls of evalkit on the same inputs."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evalkit as ek
from evalkit import compare_evaluations
from evalkit.report import find_notebooks

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "data" / "example"
NOTEBOOKS = {p.stem[:2]: p for p in find_notebooks()}
#: The set the report command runs (tests/test_reports.py: the README's ``make report`` on
#: the example folder), every notebook in a fresh kernel.
REPORT_SET = "own folder, my system beside the baselines"


def write_files(d: Path) -> dict[str, str]:
    """The analyst's files, written into ``d``: the example split and variants of it (the
    ``files`` fixture of tests/conftest.py)."""
    train = pd.read_csv(EXAMPLE / "train.csv")
    test = pd.read_csv(EXAMPLE / "test.csv")
    recs = pd.read_csv(EXAMPLE / "recs.csv")
    out = {"folder": str(EXAMPLE), "movies": str(EXAMPLE / "movies.csv"),
           "recs": str(EXAMPLE / "recs.csv"), "train": str(EXAMPLE / "train.csv"),
           "test": str(EXAMPLE / "test.csv")}

    def write(name: str, frame: pd.DataFrame) -> None:
        frame.to_csv(d / f"{name}.csv", index=False)
        out[name] = str(d / f"{name}.csv")

    write("ranks", recs.drop(columns="score"))
    write("ties", recs.drop(columns="rank").assign(score=recs["score"].round(1)))
    # ranks and tied scores: the ranks decide, and the ties are still reported
    write("ranked_ties", recs.assign(score=recs["score"].round(1)))
    write("nohits", recs.assign(item_id=recs["item_id"] + 10**6))
    write("interactions", pd.concat([train, test]).rename(columns={"user_id": "userId"}))
    write("notime", pd.concat([train, test]).drop(columns="timestamp"))
    write("implicit_train", train.drop(columns=["rating"]))
    write("implicit_test", test.drop(columns=["rating"]))
    preds = ek.models.predict_ratings(train, test)["item bias"]
    write("preds", preds.iloc[::2].rename(columns={"prediction": "score"}))  # half the pairs

    def parquet(name: str, frame: pd.DataFrame) -> None:
        frame.to_parquet(d / f"{name}.parquet", index=False)
        out[name] = str(d / f"{name}.parquet")

    parquet("truth_parquet", test)
    parquet("implicit_truth_parquet", test.drop(columns=["rating"]))
    ties = recs.drop(columns="rank").assign(score=recs["score"].round(1))
    parquet("systems_parquet", pd.concat([recs.assign(system="mine"),
                                          ties.assign(system="ties")], ignore_index=True))
    parquet("ranks_parquet", recs.drop(columns="score"))  # one system, no system column
    # the analyst's user attributes, their own column names
    user_ids = np.sort(pd.concat([train, test])["user_id"].unique())
    write("users", pd.DataFrame({"uid": user_ids, "age": np.where(user_ids % 3 == 0, "young",
                                                                  "old"),
                                 "gender": np.where(user_ids % 2 == 0, "F", "M")}))
    # a saved run of the analyst's system, as last week's report would have saved it
    ek.evaluate(ek.load_interactions(EXAMPLE / "test.csv"), recs, k=[1, 3, 25],
                metrics=["recall", "ndcg"], threshold=4.0).save(d / "baseline_run", name="mine")
    out["baseline_run"] = str(d / "baseline_run")
    return out


def shared_sets(f: dict[str, str]) -> dict[str, dict]:
    own = {"TRAIN": f["train"], "TEST": f["test"]}
    return {
        REPORT_SET: {"DATASET": f["folder"], "RECS": {"mine": f["recs"]}},
        "own files, no baselines, ranks only, ties, no hits, k past the lists": {
            **own, "RECS": {"ranks": f["ranks"], "ties": f["ties"], "nohits": f["nohits"],
                            "ranked ties": f["ranked_ties"]},
            "BASELINES": [], "PREDICTIONS": {"mine": f["preds"]}, "RATING_BASELINES": [],
            "K_VALUES": [1, 3, 25], "K": 3, "K_MAX": 30, "METRIC": "recall",
            "METRICS": ["recall", "ndcg"], "THRESHOLDS": [4.0],
            "BASELINE_RUN": f["baseline_run"], "MARGIN": 0.01,  # the same test data
        },
        "one baseline, temporal split of an interactions file": {
            "DATASET": f["interactions"], "SPLIT": "user_temporal", "BASELINES": ["MostPopular"],
            "RATING_BASELINES": ["user + item bias"], "STRATEGIES": ["user_temporal"],
            "K_VALUES": [20], "K": 20, "K_MAX": 20, "FOLDS": 2, "SEED": 3, "THRESHOLD": 3.5,
            "SAMPLED_NEGATIVES": 20, "SAMPLED_SCHEMES": ["popularity"],
        },
        "implicit data, every test item relevant": {
            "TRAIN": f["implicit_train"], "TEST": f["implicit_test"],
            "RECS": {"mine": f["recs"]}, "BASELINES": ["MostPopular"], "THRESHOLD": None,
            "K_MAX": 20, "FOLDS": 2, "SAMPLED_NEGATIVES": 0,
        },
        "no timestamps, temporal split asked": {
            "DATASET": f["notime"], "SPLIT": "global_temporal",
            "STRATEGIES": ["random", "global_temporal"], "BASELINES": ["MostPopular"],
        },
        "no timestamps, random split, reference system, ratings but THRESHOLD None": {
            "DATASET": f["notime"], "SPLIT": "random", "RECS": {"mine": f["recs"]},
            "THRESHOLD": None,
            "ITEMS": f["movies"],
            "BASELINES": ["MostPopular", "Random"], "REFERENCE": "Random",
            "STRATEGIES": ["random"], "K_MAX": 20, "FOLDS": 2, "ALPHA": 0.01,
            "BASELINE_RUN": f["baseline_run"],  # other test data: refused, with the reason
        },
        "a system named like a baseline": {
            "DATASET": f["folder"], "RECS": {"MostPopular": f["recs"]},
            "BASELINES": ["MostPopular"], "PREDICTIONS": {"item bias": f["preds"]},
            "RATING_BASELINES": ["item bias"],
        },
        "a cutoff list without cutoffs": {"DATASET": f["folder"], "K_VALUES": []},
        "another library's definitions": {
            "DATASET": f["folder"], "RECS": {"mine": f["ties"]}, "BASELINES": ["MostPopular"],
            "PROFILE": "cornac", "METRICS": ["precision", "ndcg"], "K_MAX": 20, "FOLDS": 2,
            "K": 5, "USERS": f["users"], "USER_GROUP": "age", "COLUMNS": {"uid": "user_id"},
        },
        "a profile without the metrics asked": {
            "DATASET": f["folder"], "PROFILE": "sklearn", "BASELINES": ["MostPopular"],
            "K_MAX": 20,
        },
    }


def spark_sets(f: dict[str, str]) -> dict[str, dict]:
    """The sets of the at-scale report (09), which runs only these and the shared sets that
    stop it in its first cell: each run that succeeds starts Spark jobs."""
    return {
        "own Parquet: two systems in one file, one partition": {
            "TRUTH_PARQUET": f["truth_parquet"], "RECS_PARQUET": f["systems_parquet"],
            "K_VALUES": [1, 3, 25], "K": 3, "K_MAX": 30, "PARTITIONS": 1,
        },
        "own Parquet: one system of ranks, implicit truth, not checked in memory": {
            "TRUTH_PARQUET": f["implicit_truth_parquet"], "RECS_PARQUET": f["ranks_parquet"],
            "THRESHOLD": None, "K_MAX": 20, "PARTITIONS": 7, "CHECK_IN_MEMORY": False,
        },
        "own folder written as Parquet, another library's definitions": {
            "DATASET": f["folder"], "RECS": {"mine": f["recs"]}, "BASELINES": ["MostPopular"],
            "PROFILE": "cornac", "K": 5, "K_MAX": 20, "PARTITIONS": 3, "SEED": 2,
        },
        "Parquet truth without recommendations": {"TRUTH_PARQUET": f["truth_parquet"]},
    }


#: Notebooks that run the sets of :func:`_spark_sets` instead of the shared ones.
SPARK_NOTEBOOKS = ("09",)
FILE_KEYS = ("train", "test", "folder", "movies", "recs", "ranks", "ties", "ranked_ties",
             "nohits",
             "interactions", "notime", "implicit_train", "implicit_test", "preds",
             "truth_parquet", "implicit_truth_parquet", "systems_parquet", "ranks_parquet",
             "baseline_run", "users")

#: (set, notebook) -> (parameter the first cell must name, message pattern); others succeed.
FAILS = {
    ("implicit data, every test item relevant", "03"): ("DATASET", r"needs ratings"),
    ("implicit data, every test item relevant", "04"): ("THRESHOLD", r"THRESHOLD must be given"),
    ("no timestamps, random split, reference system, ratings but THRESHOLD None", "04"): (
        "THRESHOLD", r"THRESHOLD must be given"),
    **{("no timestamps, temporal split asked", nb): ("SPLIT", r"SPLIT='global_temporal' needs "
                                                    r"timestamps")
       for nb in "03 04 05 06 07".split()},
    ("no timestamps, temporal split asked", "02"): ("STRATEGIES", r"STRATEGIES names "
                                                    r"global_temporal, which need timestamps"),
    **{("a system named like a baseline", nb): ("RECS", r"RECS and BASELINES both name "
                                               r"'MostPopular'") for nb in "04 05 06 07".split()},
    ("a system named like a baseline", "03"): ("PREDICTIONS", r"PREDICTIONS and "
                                               r"RATING_BASELINES both name 'item bias'"),
    **{("a cutoff list without cutoffs", nb): ("K_VALUES", r"K_VALUES must be a non-empty list")
       for nb in "05 07".split()},
    ("no timestamps, temporal split asked", "08"): ("SPLIT", r"SPLIT='global_temporal' needs "
                                                    r"timestamps"),
    ("a system named like a baseline", "08"): ("RECS", r"RECS and BASELINES both name "
                                               r"'MostPopular'"),
    ("a profile without the metrics asked", "07"): ("PROFILE", r"METRICS names 'precision', "
                                                    r"'recall', 'map', which PROFILE='sklearn'"),
    ("no timestamps, temporal split asked", "09"): ("SPLIT", r"SPLIT='global_temporal' needs "
                                                    r"timestamps"),
    ("a system named like a baseline", "09"): ("RECS", r"RECS and BASELINES both name "
                                               r"'MostPopular'"),
    ("a cutoff list without cutoffs", "09"): ("K_VALUES", r"K_VALUES must be a non-empty list"),
    ("Parquet truth without recommendations", "09"): ("RECS_PARQUET", r"RECS_PARQUET must be "
                                                      r"given with TRUTH_PARQUET"),
}



class Direct:
    """The same inputs as a notebook run, computed with evalkit's own functions."""

    def __init__(self, params: dict) -> None:
        self.p = {"DATASET": "sample", "SEED": 0, "SPLIT": "user_ratio", "TEST_FRACTION": 0.2,
                  "THRESHOLD": 4.0, "K": 10, "K_MAX": 50, "RECS": {}, "PREDICTIONS": {}} | params
        p = self.p
        if "TRAIN" in p or Path(p.get("DATASET", "")).is_dir():
            folder = Path(p.get("DATASET", ""))
            train = p.get("TRAIN") or folder / "train.csv"
            test = p.get("TEST") or folder / "test.csv"
            self.train, self.test = ek.load_interactions(train), ek.load_interactions(test)
            self.ratings = pd.concat([self.train, self.test], ignore_index=True)
        elif p["DATASET"] == "sample":  # the Parquet sets of 09 give no dataset
            self.ratings = ek.load_sample(seed=p["SEED"]).ratings
        else:
            self.ratings = ek.load_interactions(p["DATASET"])

    def __getattr__(self, name: str):  # train and test of the split, made when first asked
        if name not in ("train", "test"):
            raise AttributeError(name)
        split = ek.split.split_by(self.ratings, self.p["SPLIT"],
                                  test_fraction=self.p["TEST_FRACTION"], rng=self.p["SEED"])
        self.train, self.test = split.train, split.test
        return getattr(self, name)

    def definitions(self):
        """What the reports evaluate with: the profile's, else binary gain when every test
        interaction is relevant (THRESHOLD None), else evalkit's defaults."""
        if self.p.get("PROFILE") is not None:
            return self.p["PROFILE"]
        return ek.Definitions(threshold=None, gain="binary") if self.p["THRESHOLD"] is None \
            else None

    def systems(self, baselines: list[str], k: int) -> dict:
        own = {n: ek.read_recommendations(f) for n, f in self.p["RECS"].items()}
        users = self.test["user_id"].unique()
        return own | ek.models.recommend_all(self.p.get("BASELINES", baselines), self.train,
                                             users, k=k, rng=self.p["SEED"])

    def predictions(self, baselines: list[str]) -> dict:
        own = {n: pd.read_csv(f).rename(columns={"score": "prediction"})
               for n, f in self.p["PREDICTIONS"].items()}
        fitted = ek.models.predict_ratings(self.train, self.test)
        return own | {n: fitted[n] for n in self.p.get("RATING_BASELINES", baselines)}


def close(got: float, want: float) -> bool:
    if np.isnan(want):  # the headline JSON keeps NaN as NaN
        return got is not None and np.isnan(got)
    return got == pytest.approx(float(f"{want:.6g}"), rel=1e-9, abs=1e-12)


def _expect_01(headline: dict, d: Direct) -> None:
    assert headline["interactions"] == len(d.ratings)
    assert headline["users"] == d.ratings["user_id"].nunique()
    assert headline["items"] == d.ratings["item_id"].nunique()


def _expect_02(headline: dict, d: Direct) -> None:
    strategies = d.p.get("STRATEGIES", ["random", "user_ratio", "user_temporal", "global_temporal"])
    splits = {}
    if "TRAIN" in d.p or Path(d.p.get("DATASET", "")).is_dir():
        splits["given"] = ek.split.Split(train=d.train, test=d.test, info={})
    for s in strategies:
        splits[s] = ek.split.split_by(d.ratings, s, test_fraction=0.2, rng=d.p["SEED"])
    assert set(headline) == {f"{name.replace('_', ' ')} split" for name in splits}
    for name, split in splits.items():  # the audit's findings, as the headline words them
        audit = ek.split.audit(split)
        found = audit[audit["count"] > 0]
        parts = headline[f"{name.replace('_', ' ')} split"].split("; ")
        leaks = (found["severity"] == "leak").any()
        assert parts[0] == ("LEAKS" if leaks else "no repeated pair")
        assert len(parts) == 1 + len(found)  # one phrase per finding, with its share
        for part, share in zip(parts[1:], found["share"]):
            assert part.endswith("%") and "_" not in part, part
            if 0.001 <= share <= 0.999:
                assert part.endswith(f"{100 * share:.1f}%"), (part, share)


def _expect_03(headline: dict, d: Direct) -> None:
    preds = d.predictions(["global mean", "item bias", "user + item bias"])
    assert set(headline) - {"intervals"} == {f"RMSE {n}" for n in preds}
    for name, p in preds.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # the pairs without a prediction
            want = ek.metrics.rmse(d.test, p, missing="drop")
            table = ek.metrics.rating_errors(d.test, p, missing="drop", rng=d.p["SEED"])
        assert close(headline[f"RMSE {name}"], want), name
        low, high = headline["intervals"][f"RMSE {name}"]
        assert close(low, table.at["RMSE", "ci_low"])
        assert close(high, table.at["RMSE", "ci_high"])


def _expect_04(headline: dict, d: Direct) -> None:
    preds = d.predictions(["user + item bias"])
    assert set(headline) - {"intervals"} == {f"F1 {n}" for n in preds}
    for name, p in preds.items():
        keys = pd.MultiIndex.from_frame(p[["user_id", "item_id"]])
        scored = d.test[pd.MultiIndex.from_frame(d.test[["user_id", "item_id"]]).isin(keys)]
        c = ek.metrics.confusion(scored, p, threshold=d.p["THRESHOLD"])
        want = 2 * c["TP"] / (2 * c["TP"] + c["FP"] + c["FN"])
        assert close(headline[f"F1 {name}"], want), name
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            table = ek.metrics.classification_scores(d.test, p, threshold=d.p["THRESHOLD"],
                                                     missing="drop", rng=d.p["SEED"])
        if np.isfinite(table.at["f1", "ci_low"]):
            low, high = headline["intervals"][f"F1 {name}"]
            assert close(low, table.at["f1", "ci_low"])
            assert close(high, table.at["f1", "ci_high"])


def _expect_05(headline: dict, d: Direct) -> None:
    metric, k = d.p.get("METRIC", "ndcg"), d.p["K"]
    systems = d.systems(["MostPopular", "ItemKNN", "EASE"], d.p["K_MAX"])
    assert set(headline) - {"intervals"} == {f"{metric}@{k} {n}" for n in systems}
    for name, recs in systems.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ties and users only in the lists are reported
            got = ek.evaluate(d.test, recs, k=k, metrics=[metric], threshold=d.p["THRESHOLD"],
                              definitions=d.definitions(), train=d.train, rng=d.p["SEED"])
        key = f"{metric}@{k} {name}"
        assert close(headline[key], got.mean(metric, k)), name
        info = got.summary.loc[f"{metric}@{k}"]
        if np.isfinite(info["ci_low"]):
            low, high = headline["intervals"][key]
            assert close(low, info["ci_low"]) and close(high, info["ci_high"]), name


def _expect_06(headline: dict, d: Direct) -> None:
    k = d.p["K"]
    systems = d.systems(["Random", "MostPopular", "ItemKNN", "EASE"], k)
    assert set(headline) == {f"coverage {n}" for n in systems}
    for name, recs in systems.items():
        want = ek.metrics.catalog_coverage(recs, k=k, catalog=d.train)
        assert close(headline[f"coverage {name}"], want), name


def _expect_07(headline: dict, d: Direct) -> None:
    ks = sorted(set(d.p.get("K_VALUES", [10])) | {d.p["K"]})
    systems = d.systems(["MostPopular", "ItemKNN", "EASE"], max(ks))
    metrics = d.p.get("METRICS", ["precision", "recall", "map", "ndcg"])
    if len(systems) < 2:
        assert headline == {"paired tests": "one system: no pair to compare"}
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ties and users only in the lists are reported
        evaluations = {n: ek.evaluate(d.test, recs, k=ks, metrics=metrics,
                                      threshold=d.p["THRESHOLD"], rng=d.p["SEED"],
                                      definitions=d.definitions(), train=d.train)
                       for n, recs in systems.items()}
    reference = d.p.get("REFERENCE")  # None: every pair
    # the baselines first: each of the analyst's systems minus a baseline, not the reverse
    baselines = d.p.get("BASELINES", ["MostPopular", "ItemKNN", "EASE"])
    order = [n for n in evaluations if n in baselines] + \
        [n for n in evaluations if n not in baselines]
    evaluations = {n: evaluations[n] for n in order}
    table = compare_evaluations(
        evaluations, baseline=reference, pairs="all" if reference is None else "reference",
        alpha=d.p.get("ALPHA", 0.05), rng=d.p["SEED"])
    tested = table[table["against"].notna() & table["permutation_pvalue"].notna()]
    if reference is None:
        n = len(systems)
        assert len({(s, a) for s, a in zip(tested["system"], tested["against"])}) <= \
            n * (n - 1) // 2
    if tested.empty:
        assert headline == {}
        return
    column = f"{d.p.get('METRIC', 'ndcg')}@{d.p['K']}"
    column = column if column in set(tested["column"]) else tested["column"].iloc[0]
    rows = tested[tested["column"] == column]
    keys = [f"{column} {s} \u2212 {a}" for s, a in zip(rows["system"], rows["against"])]
    assert set(headline) - {"intervals"} == set(keys) | {"significant after Holm"}
    assert headline["significant after Holm"] == \
        f"{int(tested['significant'].sum())} of {len(tested)} tests"
    for key, diff, low, high in zip(keys, rows["diff"], rows["diff_ci_low"],
                                    rows["diff_ci_high"]):
        assert close(headline[key], diff), key
        bounds = headline["intervals"][key]
        assert close(bounds[0], low) and close(bounds[1], high), key


def _expect_08(headline: dict, d: Direct) -> None:
    truth, recs = ek.examples.ranked_list_example()
    assert close(headline["AP (seed list)"],
                  ek.metrics.average_precision_at_k(truth, recs, k=10).iloc[0])
    # what each library would report: the first system's lists under each profile
    k = d.p["K"]
    lists = next(iter(d.systems(["EASE"], k).values()))
    covering = [n for n, p in ek.PROFILES.items() if p.covers("ndcg")]
    assert {key for key in headline if key.startswith("NDCG@")} == \
        {f"NDCG@{k} {n}" for n in covering}
    for name in covering:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = ek.evaluate(d.test, lists, k=k, metrics=["ndcg"], definitions=name,
                               threshold=d.p["THRESHOLD"], train=d.train, n_resamples=0)
        assert headline[f"NDCG@{k} {name}"] == pytest.approx(round(want.mean("ndcg", k), 4),
                                                              abs=1e-12), name


def _expect_09(headline: dict, d: Direct) -> None:
    from evalkit.spark import missing

    reason = missing()
    if reason is not None:  # the notebook ran without its Spark cells and says why
        if os.environ.get("CI"):
            pytest.fail(f"{reason}, and CI always has it (.ci/run installs it)")
        assert headline == {"Spark": f"not run: {reason}"}
        return
    k = d.p["K"]
    if "TRUTH_PARQUET" in d.p:
        truth = pd.read_parquet(d.p["TRUTH_PARQUET"])
        recs = pd.read_parquet(d.p["RECS_PARQUET"])
        systems = ({n: g.drop(columns="system").dropna(axis=1, how="all")
                    for n, g in recs.groupby("system", sort=True)} if "system" in recs
                   else {Path(d.p["RECS_PARQUET"]).stem: recs})
        train = None
    else:
        truth, train = d.test, d.train
        systems = d.systems(["MostPopular", "EASE"], d.p["K_MAX"])
    want = {}
    for name, lists in systems.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ties and users only in the lists are reported
            got = ek.evaluate(truth, lists, k=k, metrics=["ndcg"], threshold=d.p["THRESHOLD"],
                              definitions=d.definitions(), train=train, rng=d.p["SEED"])
        want[f"ndcg@{k} {name}"] = got.mean("ndcg", k)
        low, high = headline["intervals"][f"ndcg@{k} {name}"]
        info = got.summary.loc[f"ndcg@{k}"]
        assert close(low, info["ci_low"]) and close(high, info["ci_high"]), name
    if d.p.get("CHECK_IN_MEMORY", True):
        want["same as in memory"] = True
    assert set(headline) - {"intervals"} == set(want)
    for key, value in want.items():
        assert headline[key] is value if isinstance(value, bool) else \
            close(headline[key], value), key


EXPECT = {"01": _expect_01, "02": _expect_02, "03": _expect_03, "04": _expect_04,
          "05": _expect_05, "06": _expect_06, "07": _expect_07, "08": _expect_08,
          "09": _expect_09}




def parameters(files: dict[str, str], name: str) -> dict:
    """The parameter set ``name`` (shared or at-scale) with the paths of ``files``."""
    return (spark_sets(files) | shared_sets(files))[name]
