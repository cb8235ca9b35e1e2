"""Every profile against the library it reproduces, on the real ml-latest-small.

The inputs are ``tests/references/inputs.py``: a per-user temporal split and 20 co-occurrence
recommendations per user whose integer scores tie often. evalkit is always given the whole
test truth with its ratings and relevance threshold 4.0, and the profile does what the library
does with what it is given (see each profile's ``feed``).

- Libraries that install beside evalkit (trec_eval through pytrec_eval, ranx, ir-measures,
  scikit-learn) run live here.
- The others ran in their own environments (``tests/references/<library>.py``); their values
  are committed fixtures with the library's version, and the fixture records the fingerprint
  of the inputs it was computed on, which is checked first.

Each fixture key ``<metric>@<k>[:variant]`` maps to the profile's definitions, with the
variant's changes below. Per user to 1e-9 (float32 libraries at 1e-6) on the users the
library reports, and the mean. Where a library's order of tied scores cannot be stated (torch
``topk``, Cornac's ``argpartition``), the users whose tied group holds both relevant and
non-relevant items within the cutoff are compared by bounds instead: the library's value lies
between evalkit's ``ties="pessimistic"`` and ``"optimistic"`` values.
"""

from __future__ import annotations

import importlib.util
import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evalkit as ek
from evalkit.metrics import RANKING_METRICS, TieWarning

HERE = Path(__file__).resolve().parent
REFERENCES = HERE / "references"
FIXTURES = REFERENCES / "fixtures"
KS = (5, 10, 20)


def _inputs_module():
    spec = importlib.util.spec_from_file_location("reference_inputs", REFERENCES / "inputs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def inputs(ml_latest_small_dir: Path) -> dict:
    module = _inputs_module()
    train, truth, recs = module.load(ml_latest_small_dir)
    return {
        "train": train, "truth": truth, "recs": recs,
        "fingerprint": module.fingerprint(train, truth, recs),
        "score": recs[["user_id", "item_id", "score"]],
        "rank": recs[["user_id", "item_id", "rank"]],
    }


def tie_sensitive(truth: pd.DataFrame, recs: pd.DataFrame, k: int,
                  known: set | None = None) -> set:
    """Users with a group of equal scores that starts within the top k and holds a relevant
    and a non-relevant item (relevance: rating >= 4, among ``known`` items if given)."""
    relevant = truth[truth["rating"] >= 4.0]
    if known is not None:
        relevant = relevant[relevant["item_id"].isin(known)]
    r = recs.merge(relevant[["user_id", "item_id"]].assign(rel=1), how="left",
                   on=["user_id", "item_id"]).fillna({"rel": 0})
    groups = r.groupby(["user_id", "score"]).agg(start=("rank", "min"), rel=("rel", "sum"),
                                                 size=("rel", "size")).reset_index()
    mixed = groups[(groups["start"] <= k) & (groups["rel"] > 0) & (groups["rel"] < groups["size"])]
    return set(mixed["user_id"].tolist())


# -- fixtures of libraries that do not install beside evalkit ----------------------------------

#: Per library: the profile, how evalkit is fed, and per variant (the part after ":" in a key)
#: the metric it is (if not the key's), the definitions that change, the feed, and whether
#: the library reports a subset of the users evalkit averages (then the mean is compared over
#: the library's users).
LIBRARIES: dict[str, dict] = {
    "rectools": {"feed": "rank", "variants": {
        "r_precision": {"metric": "recall", "changes": {"recall_denominator": "min"}},
        "divide_by_k": {"changes": {"ap_denominator": "k"}},
        "divide_by_achievable": {"changes": {"ideal": "truth"}},
    }},
    "lenskit": {"feed": "rank", "variants": {
        "offset1": {"changes": {"discount": "log"}},
        "graded": {"changes": {"gain": "linear", "gain_scope": "relevant"}},
        "graded_offset1": {"changes": {"gain": "linear", "gain_scope": "relevant",
                                       "discount": "log"}},
    }, "subset": {"dcg:graded", "dcg:graded_offset1"}},  # LensKit fails on empty test lists
    "replay": {"feed": "score", "variants": {}},
    "torchmetrics": {"feed": "score", "tolerance": 1e-6, "ties_unstated": {"mrr", "map"},
                     "variants": {"graded": {"changes": {"gain": "linear"}}}},
    "cornac": {"feed": "score", "ties_unstated": {"ndcg"}, "variants": {
        "rank_order": {"feed": "rank", "ties_stated": True},
        "keep_unknowns": {"changes": {"unknown_items": "keep"}},
    }},
    "evidently": {"feed": "rank", "not_covered": {"f1"}, "variants": {
        "graded": {"changes": {"gain": "linear", "threshold": None}},
        "no_feedback_users": {"changes": {"precision_users": "all", "empty": "zero"}},
        "outer": {"changes": {"relevant_set": "truth"}},
        "new_api_row_k": {"k_shift": -1},  # its row k holds the value at k - 1
        "score": None,  # truncated mean positions of tie groups: not reproduced
    }},
    "rs_metrics": {"feed": "rank", "variants": {}},
    "recmetrics": {"feed": "rank", "rounds": {"recall": 4},  # rounds per user, then averages
                   "variants": {"mark": {}}},
    "recommenders": {"feed": "rank", "variants": {
        "map": {"changes": {"ap_denominator": "relevant"}},
        "raw": {"changes": {"gain": "linear", "gain_scope": "relevant"}},
        "exp": {"changes": {"gain": "exponential", "gain_scope": "relevant"}},
        "raw_all_test_rows": {"changes": {"gain": "linear", "threshold": None}},
        "exp_all_test_rows": {"changes": {"gain": "exponential", "threshold": None}},
        # r_precision_at_k per user; its mean (over users with a hit there) is a bug, not
        # copied, and it returns NaN for users whose hits all lie below rank min(|R|, k)
        "at_k": {"metric": "r_precision_at_k", "per_user_only": True},
    }},
    "spark": {"fixture": "pyspark", "feed": "rank", "variants": {
        "evaluator": {},
        "all_users": {"changes": {"precision_users": "all", "empty": "zero"}},
        "evaluator_all_users": {"changes": {"precision_users": "all", "empty": "zero"}},
        "no_cutoff": {"changes": {"ap_denominator": "relevant"}},
        "no_cutoff_evaluator": {"changes": {"ap_denominator": "relevant"}},
        "no_cutoff_all_users": {"changes": {"ap_denominator": "relevant",
                                            "precision_users": "all", "empty": "zero"}},
        "no_cutoff_evaluator_all_users": {"changes": {"ap_denominator": "relevant",
                                                      "precision_users": "all",
                                                      "empty": "zero"}},
        "with_relevance": {},  # the relevance is dropped by pyspark: binary as the others
    }},
}


def _fixture(library: str) -> dict:
    name = LIBRARIES[library].get("fixture", library)
    return json.loads((FIXTURES / f"{name}.json").read_text())


def _cases() -> list[tuple[str, str]]:
    """Every stored value that a profile reproduces (the others are listed, with why, in
    ``LIBRARIES`` and the profile's ``differences``)."""
    out = []
    for library, spec in LIBRARIES.items():
        for key in _fixture(library)["metrics"]:
            name, _, variant = _parse(key)
            if name in spec.get("not_covered", ()) or \
                    (variant and spec["variants"].get(variant, {}) is None):
                continue
            out.append((library, key))
    return out


def _parse(key: str) -> tuple[str, int | None, str | None]:
    head, _, variant = key.partition(":")
    name, _, k = head.partition("@")
    return name, (int(k) if k else None), (variant or None)


def _evaluate(inputs: dict, metric: str, k: int | None, definitions: ek.Definitions,
              feed: str, **extra: object) -> pd.Series:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TieWarning)
        result = ek.evaluate(inputs["truth"], inputs[feed], k=k or 10, metrics=[metric],
                             train=inputs["train"], definitions=definitions, n_resamples=0,
                             **extra)
    column = metric if not RANKING_METRICS[metric].at_k else f"{metric}@{k}"
    return result.per_user[column]


def test_fixtures_cover_every_library_profile() -> None:
    for library, spec in LIBRARIES.items():
        assert library in ek.PROFILES
        assert _fixture(library)["version"] == ek.PROFILES[library].version, library
        for variant in spec["variants"]:  # every variant named here exists in the fixture
            assert any(key.endswith(f":{variant}") for key in _fixture(library)["metrics"])


@pytest.mark.parametrize(("library", "key"), _cases())
def test_profile_reproduces_the_library(inputs: dict, library: str, key: str) -> None:
    fixture = _fixture(library)
    assert fixture["inputs"] == inputs["fingerprint"], "the fixture was made from other inputs"
    spec = LIBRARIES[library]
    name, k, variant = _parse(key)
    entry = spec["variants"].get(variant, {}) if variant else {}
    metric = entry.get("metric", name)
    base = ek.profile(library)
    definitions = base.replace(**entry.get("changes", {}))
    if metric not in ek.PROFILES[library].metrics:  # a variant that is another metric
        definitions = definitions.replace(profile=None)
    feed = entry.get("feed", spec["feed"])
    tolerance = spec.get("tolerance", 1e-9)
    if isinstance(tolerance, dict):
        tolerance = tolerance.get(metric, 1e-9)
    if k is not None:
        k += entry.get("k_shift", 0)
    ours = _evaluate(inputs, metric, k, definitions, feed)
    if metric in spec.get("rounds", {}):  # the library's documented rounding, applied to ours
        ours = ours.round(spec["rounds"][metric])
    stored = fixture["metrics"][key]
    theirs = pd.Series({int(u): np.nan if v is None else v
                        for u, v in (stored["per_user"] or {}).items()}, dtype=float)

    skip: set = set()
    if name in spec.get("ties_unstated", ()) and not entry.get("ties_stated"):
        known = set(inputs["train"]["item_id"]) \
            if definitions.for_metric(metric).unknown_items == "drop" else None
        skip = tie_sensitive(inputs["truth"], inputs["recs"], k or 20, known)
        low = _evaluate(inputs, metric, k, definitions, feed, ties="pessimistic")
        high = _evaluate(inputs, metric, k, definitions, feed, ties="optimistic")
        users = sorted(skip & set(theirs.index))
        assert (theirs[users] >= low[users] - tolerance).all(), key
        assert (theirs[users] <= high[users] + tolerance).all(), key

    if entry.get("per_user_only"):
        theirs = theirs.dropna()
        assert len(theirs) > 100
        np.testing.assert_allclose(ours[theirs.index].to_numpy(), theirs.to_numpy(), rtol=0,
                                   atol=tolerance, err_msg=key)
        return
    if len(theirs):
        # the same users: those the library scores are those evalkit averages
        subset = f"{name}:{variant}" in spec.get("subset", set())
        if not subset:
            assert set(ours.dropna().index) == set(theirs.index), key
        compared = theirs.drop(index=sorted(skip & set(theirs.index)))
        np.testing.assert_allclose(ours[compared.index].to_numpy(), compared.to_numpy(),
                                   rtol=0, atol=tolerance, err_msg=key)
        if not skip:
            mean = ours[theirs.index].mean() if subset else ours.mean()
            assert mean == pytest.approx(stored["mean"], abs=tolerance), key
    else:
        assert ours.mean() == pytest.approx(stored["mean"], abs=tolerance), key


# -- libraries that run here ------------------------------------------------------------------

def _qrels(truth: pd.DataFrame, grade: pd.Series) -> dict:
    out: dict = {}
    for u, i, g in zip(truth["user_id"], truth["item_id"], grade):
        out.setdefault(str(u), {})[str(i)] = int(g)
    return out


def _run(recs: pd.DataFrame) -> dict:
    out: dict = {}
    for u, i, s in zip(recs["user_id"], recs["item_id"], recs["score"]):
        out.setdefault(str(u), {})[str(i)] = float(s)
    return out


TREC = {"precision": "P_{k}", "recall": "recall_{k}", "map": "map_cut_{k}",
        "ndcg": "ndcg_cut_{k}"}


@pytest.mark.parametrize("k", KS)
def test_trec_eval_profile(inputs: dict, k: int) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    truth, recs = inputs["truth"], inputs["score"]
    # trec_eval's grades are integers: twice the rating, relevant from grade 8 (rating 4.0)
    qrels = _qrels(truth, (2 * truth["rating"]).round())
    measures = {m.format(k=k) for m in TREC.values()}
    got = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=8).evaluate(_run(recs))
    for metric, measure in TREC.items():
        ours = _evaluate(inputs, metric, k, ek.profile("trec_eval"), "score")
        theirs = pd.Series({int(u): v[measure.format(k=k)] for u, v in got.items()})
        np.testing.assert_allclose(ours[theirs.index], theirs, atol=1e-9, err_msg=metric)
        assert ours.mean() == pytest.approx(theirs.mean(), abs=1e-9)
    # recip_rank is not cut at k: give trec_eval the top k only (ties included: the k items
    # trec_eval itself ranks first)
    top = recs.assign(docno=recs["item_id"].astype(str)).sort_values(
        ["user_id", "score", "docno"], ascending=[True, False, False])
    top = top.groupby("user_id").head(k)
    rr = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}, relevance_level=8)
    theirs = pd.Series({int(u): v["recip_rank"] for u, v in rr.evaluate(_run(top)).items()})
    ours = _evaluate(inputs, "mrr", k, ek.profile("trec_eval"), "score")
    np.testing.assert_allclose(ours[theirs.index], theirs, atol=1e-9)


def test_trec_eval_profile_needs_its_tie_order(inputs: dict) -> None:
    # the tied lists must make the tie order matter, or the test above proves nothing about it
    default = _evaluate(inputs, "ndcg", 10, ek.profile("trec_eval").replace(tie_order="item"),
                        "score")
    assert not np.allclose(default, _evaluate(inputs, "ndcg", 10, ek.profile("trec_eval"),
                                              "score"))


IR_MEASURES = {"precision": "P@{k}", "recall": "R@{k}", "hit_rate": "Success@{k}",
               "map": "AP@{k}", "mrr": "RR@{k}", "ndcg": "nDCG@{k}"}


@pytest.mark.parametrize("k", KS)
def test_ir_measures_profile(inputs: dict, k: int) -> None:
    ir_measures = pytest.importorskip("ir_measures")
    truth, recs = inputs["truth"], inputs["score"]
    qrels = pd.DataFrame({"query_id": truth["user_id"].astype(str),
                          "doc_id": truth["item_id"].astype(str),
                          "relevance": (2 * truth["rating"]).round().astype(int)})
    run = pd.DataFrame({"query_id": recs["user_id"].astype(str),
                        "doc_id": recs["item_id"].astype(str), "score": recs["score"]})
    for metric, name in IR_MEASURES.items():
        measure = ir_measures.parse_measure(name.format(k=k))
        if metric != "ndcg":
            measure = measure(rel=8)  # relevant from grade 8 (rating 4.0)
        theirs = pd.Series({int(m.query_id): m.value
                            for m in ir_measures.iter_calc([measure], qrels, run)})
        ours = _evaluate(inputs, metric, k, ek.profile("ir_measures"), "score")
        np.testing.assert_allclose(ours[theirs.index], theirs, atol=1e-9, err_msg=metric)


RANX = {"precision": "precision@{k}", "recall": "recall@{k}", "f1": "f1@{k}",
        "hit_rate": "hit_rate@{k}", "mrr": "mrr@{k}", "map": "map@{k}"}


def test_ranx_profile(inputs: dict) -> None:
    ranx = pytest.importorskip("ranx")
    truth = inputs["truth"]
    # ranx keeps tied documents in the order given: give it distinct scores in rank order
    recs = inputs["rank"].assign(score=lambda f: 1.0 / f["rank"])
    relevant = truth[truth["rating"] >= 4.0]
    qrels = ranx.Qrels(_qrels(relevant, pd.Series(1, index=relevant.index)))
    run = ranx.Run(_run(recs))
    k = 10
    metrics = [m.format(k=k) for m in RANX.values()] + ["r-precision"]
    got = ranx.evaluate(qrels, run, metrics, return_mean=False, make_comparable=True)
    for metric, name in {**RANX, "r_precision": "r-precision"}.items():
        theirs = pd.Series(got[name.format(k=k)], index=[int(q) for q in run.keys()])
        ours = _evaluate(inputs, metric, k, ek.profile("ranx"), "rank")
        # ranx sees the users with a relevant item (its qrels); evalkit scores the others 0
        np.testing.assert_allclose(ours[theirs.index], theirs, atol=1e-9, err_msg=metric)


def test_sklearn_profile(inputs: dict) -> None:
    metrics = pytest.importorskip("sklearn.metrics")
    truth, recs = inputs["truth"], inputs["score"]
    # candidates: every listed item and every test item; items outside the list score below
    # the list, so the test items the list misses are ranked last (in tied order)
    listed = recs.merge(truth[["user_id", "item_id", "rating"]], how="left").fillna(
        {"rating": 0.0})
    missing = truth.merge(recs[["user_id", "item_id"]], how="left", indicator=True)
    missing = missing[missing["_merge"] == "left_only"].assign(score=-1.0)
    candidates = pd.concat([listed, missing[["user_id", "item_id", "score", "rating"]]])
    for k in KS:
        ours_ndcg = _evaluate(inputs, "ndcg", k, ek.profile("sklearn"), "score")
        ours_dcg = _evaluate(inputs, "dcg", k, ek.profile("sklearn"), "score")
        for u, group in list(candidates.groupby("user_id"))[:120]:
            y_true = group["rating"].to_numpy()[None, :]
            y_score = group["score"].to_numpy()[None, :]
            assert ours_ndcg[u] == pytest.approx(metrics.ndcg_score(y_true, y_score, k=k),
                                                 abs=1e-9)
            assert ours_dcg[u] == pytest.approx(metrics.dcg_score(y_true, y_score, k=k),
                                                abs=1e-9)


# -- profiles as a user meets them --------------------------------------------------------------

def test_a_profile_refuses_metrics_its_library_lacks() -> None:
    truth = pd.DataFrame({"user_id": [1], "item_id": [1], "rating": [5.0]})
    recs = pd.DataFrame({"user_id": [1], "item_id": [1], "rank": [1]})
    with pytest.raises(ValueError, match="profile 'sklearn'.*does not cover 'precision'"):
        ek.evaluate(truth, recs, metrics=["precision"], definitions="sklearn")
    with pytest.raises(ValueError, match="unknown profile 'lenskitt'.*'lenskit'"):
        ek.evaluate(truth, recs, definitions="lenskitt")


def test_every_profile_is_documented() -> None:
    for name, entry in ek.PROFILES.items():
        assert entry.definitions.profile == name
        assert entry.library and entry.version and entry.source and entry.feed
        assert set(entry.names) == set(entry.metrics)
        assert set(entry.metrics) <= set(RANKING_METRICS)
        assert name in entry.describe() or entry.library in entry.describe()
    required = {"trec_eval", "ranx", "ir_measures", "sklearn", "lenskit", "recommenders",
                "rectools", "replay", "torchmetrics", "cornac", "evidently", "rs_metrics",
                "recmetrics", "spark", "evalkit"}
    assert required <= set(ek.PROFILES)


@pytest.mark.parametrize("library", ["cornac", "evidently", "lenskit", "pyspark", "recbole",
                                     "recmetrics", "recommenders", "rectools", "replay",
                                     "rs_metrics", "torchmetrics"])
def test_each_committed_fixture_is_what_the_shared_writer_writes(library: str) -> None:
    """The reference scripts write their fixtures through one function
    (``tests/references/inputs.py``: ``write_fixture``); each committed fixture read and
    written again by it is the same text, so a script changed to use it writes what it did."""
    import ast

    folder = Path(__file__).resolve().parent / "references"
    spec = importlib.util.spec_from_file_location("reference_inputs", folder / "inputs.py")
    inputs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(inputs)
    script = (folder / f"{library}.py").read_text()
    assert "inputs.write_fixture(OUT, fixture" in script and "def dumps" not in script
    one_line = next((ast.literal_eval(node.value) for node in ast.parse(script).body
                     if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "")
                     == "ONE_LINE"), ())
    text = (folder / "fixtures" / f"{library}.json").read_text()
    written = inputs.dumps(json.loads(text), one_line)
    # the first differing line, not pytest's diff of two texts of megabytes
    differ = next((i for i, (a, b) in enumerate(zip(written.splitlines(), text.splitlines()))
                   if a != b), None)
    same = written == text
    line = written.splitlines()[differ or 0][:200]
    assert same, f"{library}.json differs from what write_fixture writes at line {differ}: {line!r}"
