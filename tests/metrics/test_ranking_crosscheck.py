"""Ranking metrics on the real MovieLens ml-latest-small against trec_eval (pytrec_eval), ranx
and scikit-learn, per user, to 1e-9.

The data are split per user 80/20 at random (seeded, written here so that the test depends on
nothing else in evalkit), and two top-20 lists are built for every user, both excluding the
user's training items: (a) most popular in train, ties broken by item id, given as ranks;
(b) 20 items drawn from the user's test items and the 60 most popular unseen items, with
integer scores 0..4, so that most lists have tie groups straddling the cutoff.

Definitions that differ between the libraries, and how each test converts:

- Relevance: evalkit takes ``rating >= threshold``. trec_eval wants integer grades: we pass
  ``2 * rating`` (1..10) with ``relevance_level=8`` (rating 4.0). ranx counts a grade of at
  least 1 as relevant, so it gets binary qrels for P, R, AP and RR.
- NDCG gain: trec_eval's ndcg uses the grade linearly as gain, *including* grades below
  ``relevance_level`` (checked in test_trec_eval_ndcg_ignores_relevance_level); that is
  evalkit's ``gain="linear"`` (every test item gains its rating), scaled by 2, which NDCG does
  not see. ranx's ``ndcg`` is the same linear gain, but ranx first drops grades below its
  ``rel_lvl`` (default 1, so nothing is lost here). ranx's ``ndcg_burges`` uses 2^grade - 1,
  i.e. evalkit's ``gain="exponential"`` only if the grade is the rating itself: we compare it
  on integer ratings (``floor``). Binary NDCG is trec_eval's ndcg on binary qrels.
- AP: trec_eval ``map_cut_k`` and ranx ``map@k`` divide by |R_u| (evalkit
  ``ap_denominator="relevant"``; evalkit's default ``min(k, |R_u|)`` differs).
- RR: trec_eval ``recip_rank`` is not cut at k, so it gets only the top-k of each list.
- Ties: trec_eval orders equal scores by document id *descending* (as strings), ranx keeps
  the order in which documents were given (stable sort), evalkit by item id ascending.
  Both get distinct scores derived from evalkit's order (1 / position), except in
  test_trec_eval_tie_order, which states trec_eval's rule as evalkit ranks.
  scikit-learn's ``ndcg_score`` averages over tied scores, which is evalkit's
  ``ties="expected"``: it is compared on the raw tied scores.
- Users: trec_eval (without -c) scores only queries in both the run and the qrels and gives 0
  to a query without relevant documents; ranx needs the same query set in both; evalkit leaves
  users without relevant items out (``empty="drop"``). Every user here has recommendations,
  and metrics undefined in evalkit are compared on the users it evaluates.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalkit.metrics import (
    TieWarning,
    average_precision_at_k,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank_at_k,
)

pytestmark = pytest.mark.slow

K = 10
TOL = 1e-9
SEED = 20240611


# -- data ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def ratings(ml_latest_small_dir: Path) -> pd.DataFrame:
    frame = pd.read_csv(ml_latest_small_dir / "ratings.csv")
    return frame.rename(columns={"userId": "user_id", "movieId": "item_id"})


@pytest.fixture(scope="module")
def split(ratings: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per user, a random 20% of the ratings (rounded) go to test."""
    rng = np.random.default_rng(SEED)
    order = np.lexsort((rng.random(len(ratings)), ratings["user_id"].to_numpy()))
    shuffled = ratings.iloc[order].reset_index(drop=True)
    position = shuffled.groupby("user_id").cumcount()
    size = shuffled.groupby("user_id")["item_id"].transform("size")
    is_test = position < np.round(0.2 * size)
    train, test = shuffled[~is_test], shuffled[is_test]
    assert test.groupby("user_id").size().min() >= 4  # every user has >= 20 ratings
    return train.reset_index(drop=True), test.reset_index(drop=True)


def _unseen_popular(train: pd.DataFrame, users: np.ndarray, n: int) -> pd.DataFrame:
    """Per user, the ``n`` most popular train items the user has not rated in train."""
    counts = train.groupby("item_id").size()
    pop = pd.DataFrame({"item_id": counts.index, "count": counts.to_numpy()})
    pop = pop.sort_values(["count", "item_id"], ascending=[False, True])["item_id"].to_numpy()
    col = pd.Series(np.arange(pop.size), index=pop)
    seen = np.zeros((users.size, pop.size), dtype=bool)
    seen[np.searchsorted(users, train["user_id"].to_numpy()),
         col.loc[train["item_id"]].to_numpy()] = True
    unseen = ~seen
    position = np.cumsum(unseen, axis=1)
    u, c = np.nonzero(unseen & (position <= n))
    return pd.DataFrame({"user_id": users[u], "item_id": pop[c], "rank": position[u, c]})


@pytest.fixture(scope="module")
def pop_recs(split) -> pd.DataFrame:
    train, test = split
    return _unseen_popular(train, np.unique(test["user_id"]), 20)


@pytest.fixture(scope="module")
def tied_recs(split) -> pd.DataFrame:
    train, test = split
    rng = np.random.default_rng(SEED + 1)
    users = np.unique(test["user_id"])
    pool = pd.concat([test[["user_id", "item_id"]],
                      _unseen_popular(train, users, 60)[["user_id", "item_id"]]])
    pool = pool.drop_duplicates().reset_index(drop=True)
    pool = pool.iloc[np.lexsort((rng.random(len(pool)), pool["user_id"].to_numpy()))]
    recs = pool[pool.groupby("user_id").cumcount() < 20].reset_index(drop=True)
    return recs.assign(score=rng.integers(0, 5, len(recs)).astype(np.float64))


def evalkit_order(recs: pd.DataFrame) -> pd.DataFrame:
    """Recs with the positions evalkit uses: descending score, then item id ascending."""
    if "rank" in recs.columns:
        return recs.sort_values(["user_id", "rank"]).assign(position=lambda f: f["rank"])
    out = recs.sort_values(["user_id", "score", "item_id"], ascending=[True, False, True])
    return out.assign(position=out.groupby("user_id").cumcount() + 1)


def qrels_from(test: pd.DataFrame, grade: pd.Series) -> dict:
    qrels: dict = {}
    for u, i, g in zip(test["user_id"].tolist(), test["item_id"].tolist(), grade.tolist()):
        qrels.setdefault(str(u), {})[str(i)] = int(g)
    return qrels


def run_from(recs: pd.DataFrame, score: pd.Series) -> dict:
    run: dict = {}
    for u, i, s in zip(recs["user_id"].tolist(), recs["item_id"].tolist(), score.tolist()):
        run.setdefault(str(u), {})[str(i)] = float(s)
    return run


def per_query(results: dict, measure: str) -> pd.Series:
    return pd.Series({int(q): v[measure] for q, v in results.items()}).sort_index()


def assert_per_user(ours: pd.Series, theirs: pd.Series, label: str) -> None:
    """Equal to TOL on the users evalkit evaluates; every one of them is in ``theirs``."""
    ours = ours.dropna()
    assert len(ours) > 500, label
    assert ours.index.isin(theirs.index).all(), label
    np.testing.assert_allclose(ours.to_numpy(), theirs.loc[ours.index].to_numpy(),
                               rtol=TOL, atol=TOL, err_msg=label)


def evalkit_all(test: pd.DataFrame, recs: pd.DataFrame, **kw: object) -> dict[str, pd.Series]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TieWarning)
        return {
            "P": precision_at_k(test, recs, k=K, **kw),
            "R": recall_at_k(test, recs, k=K, **kw),
            "AP": average_precision_at_k(test, recs, k=K, ap_denominator="relevant", **kw),
            "RR": reciprocal_rank_at_k(test, recs, k=K, **kw),
            "NDCG": ndcg_at_k(test, recs, k=K, **kw),
            "NDCG_binary": ndcg_at_k(test, recs, k=K, gain="binary", **kw),
        }


def test_real_lists_exercise_the_hard_cases(split, pop_recs, tied_recs) -> None:
    train, test = split
    assert (pop_recs.groupby("user_id").size() == 20).all()
    for recs in (pop_recs, tied_recs):
        both = recs.merge(train, on=["user_id", "item_id"])
        assert both.empty  # no training item is recommended
    # most tied lists have a tie group straddling k, and users without relevant items exist
    ordered = evalkit_order(tied_recs)
    s = ordered.pivot(index="user_id", columns="position", values="score")
    assert (s[K] == s[K + 1]).mean() > 0.5
    assert (test.groupby("user_id")["rating"].max() < 4.0).sum() > 0


# -- trec_eval -------------------------------------------------------------------------------
TREC_MEASURES = {"P_10": "P", "recall_10": "R", "map_cut_10": "AP", "ndcg_cut_10": "NDCG"}


@pytest.mark.parametrize("lists", ["pop", "tied"])
def test_trec_eval(split, pop_recs, tied_recs, lists: str) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    _, test = split
    recs = pop_recs if lists == "pop" else tied_recs
    ours = evalkit_all(test, recs)
    ordered = evalkit_order(recs)
    run = run_from(ordered, 1.0 / ordered["position"])  # distinct scores in evalkit's order
    graded = qrels_from(test, (2 * test["rating"]).round())
    results = pytrec_eval.RelevanceEvaluator(graded, set(TREC_MEASURES),
                                             relevance_level=8).evaluate(run)
    for measure, name in TREC_MEASURES.items():
        assert_per_user(ours[name], per_query(results, measure), f"{lists} {measure}")
    # recip_rank is not cut at k in trec_eval: give it the top k only
    top = ordered[ordered["position"] <= K]
    rr = pytrec_eval.RelevanceEvaluator(graded, {"recip_rank"}, relevance_level=8)
    assert_per_user(ours["RR"], per_query(rr.evaluate(run_from(top, 1.0 / top["position"])),
                                          "recip_rank"), f"{lists} recip_rank")
    # binary gain: trec_eval's ndcg on 0/1 qrels
    binary = qrels_from(test, (test["rating"] >= 4.0).astype(int))
    nb = pytrec_eval.RelevanceEvaluator(binary, {"ndcg_cut_10"}).evaluate(run)
    assert_per_user(ours["NDCG_binary"], per_query(nb, "ndcg_cut_10"), f"{lists} binary ndcg")


def test_trec_eval_ndcg_ignores_relevance_level() -> None:
    # A grade-1 document still gains 1 when relevance_level=2: trec_eval's ndcg uses every
    # positive grade, as evalkit's linear gain uses every test rating whatever the threshold.
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels = {"q": {"a": 1, "c": 2}}
    run = {"q": {"a": 2.0, "x": 1.0}}
    want = 1.0 / (2.0 + 1.0 / np.log2(3.0))
    for level in (1, 2):
        got = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_2"}, relevance_level=level)
        assert got.evaluate(run)["q"]["ndcg_cut_2"] == pytest.approx(want, abs=TOL)
    truth = pd.DataFrame({"user_id": 1, "item_id": ["a", "c"], "rating": [1.0, 2.0]})
    recs = pd.DataFrame({"user_id": 1, "item_id": ["a", "x"], "rank": [1, 2]})
    assert ndcg_at_k(truth, recs, k=2, threshold=2.0).iloc[0] == pytest.approx(want, abs=TOL)


def test_trec_eval_tie_order(split, tied_recs) -> None:
    # trec_eval given the raw tied scores orders each tie group by document id descending
    # (string comparison: "99" > "1000"). Stated as evalkit ranks, the results agree.
    pytrec_eval = pytest.importorskip("pytrec_eval")
    _, test = split
    trec_order = tied_recs.assign(docno=tied_recs["item_id"].astype(str)).sort_values(
        ["user_id", "score", "docno"], ascending=[True, False, False])
    ranked = trec_order.assign(rank=trec_order.groupby("user_id").cumcount() + 1)
    ranked = ranked.drop(columns=["score", "docno"])
    graded = qrels_from(test, (2 * test["rating"]).round())
    results = pytrec_eval.RelevanceEvaluator(graded, {"P_10", "ndcg_cut_10"},
                                             relevance_level=8).evaluate(
        run_from(tied_recs, tied_recs["score"]))
    assert_per_user(precision_at_k(test, ranked, k=K), per_query(results, "P_10"), "P ties")
    assert_per_user(ndcg_at_k(test, ranked, k=K), per_query(results, "ndcg_cut_10"), "NDCG ties")
    # and evalkit's own order differs from it for some users
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TieWarning)
        mine = ndcg_at_k(test, tied_recs, k=K)
    assert (mine - per_query(results, "ndcg_cut_10").loc[mine.index]).abs().max() > 1e-3


# -- ranx ------------------------------------------------------------------------------------
RANX_METRICS = {"precision@10": "P", "recall@10": "R", "map@10": "AP", "mrr@10": "RR"}

# Small synthetic queries evaluated in the same ranx calls as the real users (each ranx call
# costs seconds): tie order (one relevant document "a" among three tied) and rel_lvl.
TIE_ORDERS = {"tie1": ["a", "b", "c"], "tie2": ["c", "b", "a"], "tie3": ["b", "a", "c"]}


def _key(q: str) -> int | str:
    return int(q) if q.isdigit() else q


@pytest.fixture(scope="module")
def ranx_results(split, pop_recs) -> dict[str, pd.Series]:
    """ranx per query on the popularity lists, given distinct scores in evalkit's order."""
    ranx = pytest.importorskip("ranx")
    _, test = split
    ordered = evalkit_order(pop_recs)
    run = run_from(ordered, 1.0 / ordered["position"])
    binary = qrels_from(test, (test["rating"] >= 4.0).astype(int))  # every user, 0/1 grades
    graded = qrels_from(test, (2 * test["rating"]).round())
    whole = qrels_from(test, np.floor(test["rating"]))
    runs = {
        "binary": ({**binary, **{q: {"a": 1} for q in TIE_ORDERS}},
                   {**run, **{q: {d: 1.0 for d in docs} for q, docs in TIE_ORDERS.items()}},
                   list(RANX_METRICS)),
        "graded": ({**graded, "lvl": {"a": 1, "c": 2}}, {**run, "lvl": {"a": 2.0, "x": 1.0}},
                   ["ndcg@10", "ndcg@10-l2"]),
        "whole": (whole, run, ["ndcg_burges@10"]),
    }
    out: dict[str, pd.Series] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's type-safety notes
        for qrels, run_dict, metrics in runs.values():
            r = ranx.Run(run_dict)
            ranx.evaluate(ranx.Qrels(qrels), r, metrics, return_mean=False,
                          make_comparable=True, threads=1)
            for m in metrics:
                out[m] = pd.Series({_key(q): v for q, v in r.scores[m].items()})
    return out


def test_ranx(split, pop_recs, ranx_results) -> None:
    _, test = split
    ours = evalkit_all(test, pop_recs)
    for metric, name in RANX_METRICS.items():
        assert_per_user(ours[name], ranx_results[metric], metric)
    assert_per_user(ours["NDCG"], ranx_results["ndcg@10"], "ndcg")
    # exponential gain 2^grade - 1 is evalkit's only when the grade is the rating itself
    whole = test.assign(rating=np.floor(test["rating"]))
    assert_per_user(ndcg_at_k(whole, pop_recs, k=K, gain="exponential"),
                    ranx_results["ndcg_burges@10"], "ndcg_burges")


def test_ranx_definitions(ranx_results) -> None:
    # Tied scores keep the order the documents were given in (a stable sort) ...
    mrr = ranx_results["mrr@10"]
    assert mrr.loc[list(TIE_ORDERS)].tolist() == pytest.approx([1.0, 1 / 3, 0.5])
    # ... and NDCG drops the grades below rel_lvl before computing gains (trec_eval keeps
    # them): "a" (grade 1) at rank 1 gains 1 at level 1 and nothing at level 2.
    assert ranx_results["ndcg@10"].loc["lvl"] == pytest.approx(
        1.0 / (2.0 + 1.0 / np.log2(3.0)))
    assert ranx_results["ndcg@10-l2"].loc["lvl"] == 0.0


# -- scikit-learn ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def candidates(split, tied_recs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per user (rows): the ratings and scores of the candidate items, padded.

    Candidates are the 20 recommended items, then the user's other test items (sklearn needs
    them for the ideal DCG) scored below every recommended one. Padding has rating NaN and
    the lowest score; it ties with nothing above position 20.
    """
    _, test = split
    others = test.merge(tied_recs[["user_id", "item_id"]], how="left", indicator=True)
    others = others.loc[others["_merge"] == "left_only", ["user_id", "item_id"]]
    cand = pd.concat([tied_recs[["user_id", "item_id", "score"]],
                      others.assign(score=-1.0)], ignore_index=True)
    cand = cand.merge(test[["user_id", "item_id", "rating"]], how="left")
    cand = cand.sort_values("user_id", kind="stable")
    users, row = np.unique(cand["user_id"].to_numpy(), return_inverse=True)
    col = cand.groupby("user_id").cumcount().to_numpy()
    rating = np.full((users.size, col.max() + 1), np.nan)
    score = np.full(rating.shape, -2.0)
    rating[row, col] = cand["rating"].to_numpy()
    score[row, col] = cand["score"].to_numpy()
    return users, rating, score


@pytest.mark.parametrize("gain", ["linear", "binary"])
def test_sklearn_ndcg_averages_ties_like_expected(split, tied_recs, candidates,
                                                  gain: str) -> None:
    # ndcg_score averages DCG over tied scores (McSherry and Najork 2008), which is evalkit's
    # ties="expected"; y_true is the gain of each candidate item (0 outside the test set).
    metrics = pytest.importorskip("sklearn.metrics")
    _, test = split
    ours = ndcg_at_k(test, tied_recs, k=K, gain=gain, ties="expected")
    users, rating, score = candidates
    if gain == "linear":
        gains = np.nan_to_num(rating)
    elif gain == "exponential":
        gains = np.nan_to_num(2.0**rating - 1.0)
    else:
        gains = (np.nan_to_num(rating) >= 4.0).astype(float)
    theirs = {
        u: metrics.ndcg_score(g[None, :], s[None, :], k=K)
        for u, g, s in zip(users.tolist(), gains, score)
        if g.max() > 0  # IDCG = 0: undefined in evalkit, 0 in scikit-learn
    }
    assert_per_user(ours, pd.Series(theirs), f"sklearn {gain}")
    # and the deterministic order gives different numbers on these tied lists
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TieWarning)
        det = ndcg_at_k(test, tied_recs, k=K, gain=gain)
    assert (det - ours).abs().max() > 1e-3


def test_the_timing_scripts_ranx_runner_agrees(ranx_results, tmp_path) -> None:
    """benchmarks/run.py with evalkit and ranx at the tiny scale, in this process (after the
    ranx tests above, which compiled ranx's typed dictionaries here): its per-user values
    agree (tests/test_benchmarks.py runs the script with the other systems)."""
    import json

    from tests.test_benchmarks import run_main

    out = tmp_path / "results.json"
    code = run_main("run", ["--scale", "tiny", "--inline", "--repeats", "1",
                            "--n-resamples", "2", "--check-users", "300",
                            "--systems", "evalkit,ranx", "--out", str(out)])
    assert code == 0
    diffs = json.loads(out.read_text())["agreement"]["ranx"]
    assert len(diffs) >= 9  # P, R, AP, RR, NDCG compared at both cutoffs
    assert max(diffs.values()) < 1e-9, diffs
