"""Time evalkit's ranking suite against ranx, trec_eval (pytrec_eval) and naive pandas.

One run generates the seeded data of ``generate.py`` at the chosen scale and times, for each
system in a fresh subprocess (so that peak memory is the system's own):

- evalkit: the default call ``evaluate(truth, recs, k=[10, 100], metrics=[precision, recall,
  map, mrr, ndcg], threshold=4.0)``, bootstrap intervals included at the default 1,000
  resamples, and, labelled apart, the same call without intervals (``n_resamples=0``);
  ``ranking_curves(truth, recs, k_max=100)``, the suite plus curves in one call
  (``evaluate(..., curves=100)``, intervals included) and as the two calls, the single-k
  suite ``k=[10]``, and the default call with ``ties="expected"`` on the lists without their
  ranks (as generated, with distinct scores, and with the scores rounded to 0.1, so with tie
  groups), with ``gain="exponential"``, with half-life utility beside the five metrics and
  with every registered ranking metric (``metrics=None``); plus a breakdown into input
  validation, hit table, reductions and the bootstrap. ``compare`` of three systems (the lists
  and two re-rankings of them with noise) with paired tests, 10,000 randomization rounds and
  Holm, and its randomization alone. No conversion: evalkit reads the frames as they are.
- ranx: conversion ``Qrels.from_df`` / ``Run.from_df`` (string ids, as ranx requires), then
  ``ranx.evaluate(qrels, run, [precision, recall, map, mrr at 10 and 100 with relevance level
  8, ndcg at 10 and 100])``.
- trec_eval: conversion to the qrels / run dicts, then ``RelevanceEvaluator(qrels, measures,
  relevance_level=8).evaluate(run)`` (evaluator construction and evaluation timed apart and
  together).
- pandas: a readable ``groupby().apply(python function)`` computing the same metrics, on a
  seeded subsample of users at the larger scales, extrapolated linearly to all users.

Peak memory is sampled (every 2 ms, from a thread) during the conversion and one warm-up
evaluation; the timed runs come after, without the sampler.

Relevance grades for ranx and trec_eval are ``2 * rating`` (integers 1..10), so
``relevance_level=8`` is evalkit's ``threshold=4.0`` and NDCG's linear gain is the rating
scaled by 2, which NDCG does not see. Values are compared per user on a sample where the
definitions agree (benchmarks/README.md, "Definitions compared"), and the largest absolute
difference is printed.

Usage::

    python benchmarks/run.py --scale small        # small | medium | full (default full)
    python benchmarks/run.py --scale full --systems evalkit,trec_eval --repeats 5
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import SCALES, generate  # noqa: E402

SYSTEMS = ("evalkit", "ranx", "trec_eval", "pandas")
KS = (10, 100)
METRICS = ["precision", "recall", "map", "mrr", "ndcg"]
THRESHOLD = 4.0
LEVEL = 8  # integer grade 2 * rating; 8 is rating 4.0
RANX_METRICS = [f"{m}@{k}-l{LEVEL}" for m in ("precision", "recall", "map", "mrr") for k in KS]
RANX_METRICS += [f"ndcg@{k}" for k in KS]
TREC_MEASURES = {"P_10", "P_100", "recall_10", "recall_100", "map_cut_10", "map_cut_100",
                 "recip_rank", "ndcg_cut_10", "ndcg_cut_100"}
PANDAS_USERS = {"tiny": None, "small": None, "medium": 5_000, "full": 5_000}  # None: all
SEED = 0


# -- measuring -------------------------------------------------------------------------------
class PeakRSS:
    """Peak resident memory of this process while the block runs, sampled every 2 ms.

    ``above`` is the peak minus the resident memory on entry (the inputs already loaded).
    """

    def __init__(self, interval: float = 0.002) -> None:
        import psutil

        self._proc = psutil.Process()
        self.interval = interval
        self.start = self.peak = 0

    def _sample(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self._proc.memory_info().rss)
            self._stop.wait(self.interval)

    def __enter__(self) -> PeakRSS:
        gc.collect()
        self.start = self.peak = self._proc.memory_info().rss
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._proc.memory_info().rss)

    @property
    def above(self) -> int:
        return self.peak - self.start


def timed(func, repeats: int) -> tuple[list[float], object]:
    """Wall times of ``repeats`` calls of ``func`` (after the caller's warm-up) and the last
    result."""
    times, result = [], None
    for _ in range(repeats):
        result = None
        gc.collect()
        start = time.perf_counter()
        result = func()
        times.append(time.perf_counter() - start)
    return times, result


def timed_cpu(func, repeats: int) -> tuple[list[float], list[float]]:
    """Wall and process CPU times (all threads) of ``repeats`` calls of ``func``: on an idle
    2-core machine a call that keeps both cores busy takes CPU = 2 x wall; when other work
    holds the cores, wall grows towards CPU."""
    walls, cpus = [], []
    for _ in range(repeats):
        gc.collect()
        start, cpu = time.perf_counter(), time.process_time()
        func()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return walls, cpus


def median(values: list[float]) -> float:
    return float(np.median(values)) if values else float("nan")


# -- naive pandas reference ------------------------------------------------------------------
def naive_pandas(truth: pd.DataFrame, recs: pd.DataFrame, ks=KS,
                 threshold: float = THRESHOLD) -> pd.DataFrame:
    """P, R, AP (D = min(k, |R_u|)), RR and NDCG (linear gain) at each k, one user at a time.

    The way such code is often written: a ``groupby().apply`` of a Python function per user.
    Users without a relevant test item get NaN for recall, AP and RR (evalkit's default).
    """
    test = {u: dict(zip(g["item_id"].tolist(), g["rating"].tolist()))
            for u, g in truth.groupby("user_id", sort=False)}

    def one_user(group: pd.DataFrame) -> pd.Series:
        ratings = test.get(group.name, {})
        items = group.sort_values("rank")["item_id"].tolist()
        n_rel = sum(r >= threshold for r in ratings.values())
        ideal = sorted(ratings.values(), reverse=True)
        out = {}
        for k in ks:
            top = items[:k]
            hits, ap, rr, dcg = 0, 0.0, 0.0, 0.0
            for i, item in enumerate(top, start=1):
                rating = ratings.get(item)
                if rating is None:
                    continue
                dcg += rating / np.log2(i + 1)
                if rating >= threshold:
                    hits += 1
                    ap += hits / i
                    if rr == 0.0:
                        rr = 1.0 / i
            idcg = sum(r / np.log2(i + 1) for i, r in enumerate(ideal[:k], start=1))
            out[f"P@{k}"] = hits / k
            out[f"R@{k}"] = hits / n_rel if n_rel else np.nan
            out[f"AP_min@{k}"] = ap / min(k, n_rel) if n_rel else np.nan
            out[f"RR@{k}"] = rr if n_rel else np.nan
            out[f"NDCG@{k}"] = dcg / idcg if idcg > 0 else np.nan
        return pd.Series(out)

    return recs.groupby("user_id").apply(one_user)


# -- the systems -----------------------------------------------------------------------------
def _sample_users(truth: pd.DataFrame, n: int | None) -> np.ndarray:
    users = np.sort(truth["user_id"].unique())
    if n is None or n >= users.size:
        return users
    return np.sort(np.random.default_rng(SEED + 1).choice(users, n, replace=False))


def _check_frame(values: dict[str, pd.Series], users: np.ndarray) -> dict[str, list]:
    return {col: s.reindex(users).astype(float).tolist() for col, s in values.items()}


def rerank(recs: pd.DataFrame, noise: float, seed: int) -> pd.DataFrame:
    """Another system: each top-100 list re-ranked by its score plus normal noise."""
    n_users = recs["user_id"].nunique()
    score = recs["score"].to_numpy().reshape(n_users, -1)
    noisy = score + noise * np.random.default_rng(seed).standard_normal(score.shape)
    order = np.argsort(-noisy, axis=1, kind="stable")
    items = np.take_along_axis(recs["item_id"].to_numpy().reshape(n_users, -1), order, axis=1)
    return pd.DataFrame({"user_id": recs["user_id"].to_numpy(), "item_id": items.ravel(),
                         "rank": recs["rank"].to_numpy(),
                         "score": np.take_along_axis(noisy, order, axis=1).ravel()})


def run_evalkit(truth, recs, *, repeats, check, n_resamples, n_permutations, **_) -> dict:
    from evalkit import compare, evaluate
    from evalkit._resample import design_key
    from evalkit.metrics import average_precision_at_k, ranking_curves
    from evalkit.metrics._common import check_recs, check_truth
    from evalkit.metrics._curves import RankingCurves
    from evalkit.metrics._hits import build_hits
    from evalkit.metrics._prepare import make_definitions
    from evalkit.stats import _sign_flip_pvalues, bootstrap_ci_frame

    def suite(ks=list(KS), n_resamples=n_resamples):
        return evaluate(truth, recs, k=ks, metrics=METRICS, threshold=THRESHOLD,
                        n_resamples=n_resamples)

    def curves():
        return ranking_curves(truth, recs, k_max=max(KS))

    def both():  # the suite and the curves from one hit table
        result = evaluate(truth, recs, k=list(KS), metrics=METRICS, threshold=THRESHOLD,
                          n_resamples=n_resamples, curves=max(KS))
        return result, result.curves

    def two_calls():
        return suite(), curves()

    options = make_definitions("benchmark")

    def validate():
        check_truth(truth, func="benchmark")
        check_recs(recs, func="benchmark")

    def hits():
        return build_hits(truth, recs, threshold=options.threshold, ties=options.ties)

    table = hits()

    def reduce_suite():
        c = RankingCurves(table, max(KS), options)
        for name in METRICS:
            c.at(name, list(KS))

    def reduce_curves():
        c = RankingCurves(table, max(KS), options)
        for name in ("precision", "recall", "f1", "hit_rate", "map", "mrr", "ndcg"):
            c.means(name)

    systems = {"lists": recs, "rerank_0.5": rerank(recs, 0.5, SEED + 2),
               "rerank_1.5": rerank(recs, 1.5, SEED + 3)}

    def compare_three():
        return compare(systems, truth, k=list(KS), metrics=METRICS, threshold=THRESHOLD,
                       n_resamples=n_resamples, n_permutations=n_permutations)

    with PeakRSS() as mem:
        both()  # warm-up
    t_both, (result, _) = timed(both, repeats)
    t_suite, result = timed(suite, repeats)
    t_bare, _ = timed(lambda: suite(n_resamples=0), repeats)
    t_curves, _ = timed(curves, repeats)
    t_two_calls, _ = timed(two_calls, repeats)
    t_single, _ = timed(lambda: suite([10]), repeats)
    # the options the engine must handle as fast (each with intervals, as a user calls it):
    # ties averaged over tie groups (score-only lists), graded exponential gain, and every
    # registered ranking metric (half-life utility, R-precision, DCG, ... included)
    scored = recs.drop(columns="rank")
    t_expected, _ = timed(lambda: evaluate(truth, scored, k=list(KS), metrics=METRICS,
                                           threshold=THRESHOLD, ties="expected"), repeats)
    # the same on scores rounded to 0.1: real tie groups (the generated scores are distinct),
    # listed in score order but in no order within a group
    tied = scored.assign(score=scored["score"].round(1))
    t_expected_tied, _ = timed(lambda: evaluate(truth, tied, k=list(KS), metrics=METRICS,
                                                threshold=THRESHOLD, ties="expected"), repeats)
    t_exponential, _ = timed(lambda: evaluate(truth, recs, k=list(KS), metrics=METRICS,
                                              threshold=THRESHOLD, gain="exponential"),
                             repeats)
    t_half_life, _ = timed(lambda: evaluate(truth, recs, k=list(KS),
                                            metrics=METRICS + ["half_life_utility"],
                                            threshold=THRESHOLD), repeats)
    t_every, _ = timed(lambda: evaluate(truth, recs, k=list(KS), metrics=None,
                                        threshold=THRESHOLD), repeats)
    t_validate, _ = timed(validate, repeats)
    t_hits, _ = timed(hits, repeats)
    t_reduce, _ = timed(reduce_suite, repeats)
    t_reduce_curves, _ = timed(reduce_curves, repeats)
    t_boot, cpu_boot = timed_cpu(
        lambda: bootstrap_ci_frame(result.per_user, n_resamples=n_resamples), repeats)
    _, cpu_suite = timed_cpu(suite, repeats)
    compare_three()  # warm-up
    t_compare, cpu_compare = timed_cpu(compare_three, repeats)
    # compare's randomization alone: the 20 comparisons' per-user differences, as compare
    # stacks them (users outside a comparison contribute 0)
    tables = {name: evaluate(truth, r, k=list(KS), metrics=METRICS, threshold=THRESHOLD,
                             n_resamples=0).per_user for name, r in systems.items()}
    base = tables["lists"]
    diffs = np.vstack([np.nan_to_num(tables[name][col].to_numpy() - base[col].to_numpy())
                       for name in list(systems)[1:] for col in base.columns])
    t_randomization, cpu_randomization = timed_cpu(
        lambda: _sign_flip_pvalues(diffs, n_permutations, design_key(SEED)), repeats)

    # the regression check of two saved runs (10 metric columns), as `evalkit check` runs
    # it: both folders read back, then the randomization test; and with the default t-test
    from evalkit import regression_check

    with tempfile.TemporaryDirectory() as folder:
        for name in ("lists", "rerank_0.5"):
            evaluate(truth, systems[name], k=list(KS), metrics=METRICS, threshold=THRESHOLD,
                     n_resamples=0).save(Path(folder) / name)

        def check_runs(test: str):
            return regression_check(Path(folder) / "rerank_0.5", Path(folder) / "lists",
                                    test=test, n_permutations=n_permutations,
                                    n_resamples=n_resamples)

        check_runs("randomization")  # warm-up
        t_check, _ = timed(lambda: check_runs("randomization"), repeats)
        t_check_t, _ = timed(lambda: check_runs("t"), repeats)

    per_user = result.per_user
    values = {}
    for k in KS:
        values[f"P@{k}"] = per_user[f"precision@{k}"]
        values[f"R@{k}"] = per_user[f"recall@{k}"]
        values[f"AP_min@{k}"] = per_user[f"map@{k}"]
        values[f"RR@{k}"] = per_user[f"mrr@{k}"]
        values[f"NDCG@{k}"] = per_user[f"ndcg@{k}"]
        # ranx and trec_eval divide AP by |R_u|: evalkit's ap_denominator="relevant" (untimed)
        sub_t = truth[truth["user_id"].isin(check)]
        sub_r = recs[recs["user_id"].isin(check)]
        values[f"AP@{k}"] = average_precision_at_k(sub_t, sub_r, k=k, ap_denominator="relevant",
                                                   empty="nan")
    return {
        "convert": [],
        "evaluate": t_suite,
        "evaluate_no_intervals": t_bare,
        "suite_plus_curves": t_both,
        "suite_and_curves_two_calls": t_two_calls,
        "curves": t_curves,
        "single_k_suite": t_single,
        "ties_expected": t_expected,
        "ties_expected_tied_scores": t_expected_tied,
        "exponential_gain": t_exponential,
        "half_life_utility": t_half_life,
        "every_metric": t_every,
        "validate": t_validate,
        "build_hits": t_hits,
        "reduce_suite": t_reduce,
        "reduce_curves": t_reduce_curves,
        "bootstrap": t_boot,
        "compare_3_systems": t_compare,
        "randomization": t_randomization,
        "regression_check_randomization": t_check,
        "regression_check_t": t_check_t,
        "cpu": {"evaluate": cpu_suite, "bootstrap": cpu_boot, "compare_3_systems": cpu_compare,
                "randomization": cpu_randomization},
        "randomization_comparisons": int(diffs.shape[0]),
        "n_resamples": n_resamples,
        "n_permutations": n_permutations,
        "peak_above_inputs": mem.above,
        "means": {c: float(result.summary.loc[c, "mean"]) for c in result.summary.index},
        "check": _check_frame(values, check),
    }


def run_ranx(truth, recs, *, repeats, check, **_) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import ranx

        def convert():
            qrels = ranx.Qrels.from_df(
                pd.DataFrame({"q_id": truth["user_id"].astype(str).astype(object),
                              "doc_id": truth["item_id"].astype(str).astype(object),
                              "score": (2 * truth["rating"]).round().astype(np.int64)}))
            run = ranx.Run.from_df(
                pd.DataFrame({"q_id": recs["user_id"].astype(str).astype(object),
                              "doc_id": recs["item_id"].astype(str).astype(object),
                              "score": recs["score"].astype(np.float64)}))
            return qrels, run

        # compile ranx's numba kernels on a few users first (not timed)
        few = _sample_users(truth, 20)
        small_t, small_r = truth[truth["user_id"].isin(few)], recs[recs["user_id"].isin(few)]
        q = ranx.Qrels.from_df(pd.DataFrame({
            "q_id": small_t["user_id"].astype(str).astype(object),
            "doc_id": small_t["item_id"].astype(str).astype(object),
            "score": (2 * small_t["rating"]).round().astype(np.int64)}))
        r = ranx.Run.from_df(pd.DataFrame({"q_id": small_r["user_id"].astype(str).astype(object),
                                           "doc_id": small_r["item_id"].astype(str).astype(object),
                                           "score": small_r["score"].astype(np.float64)}))
        ranx.evaluate(q, r, RANX_METRICS)

        with PeakRSS() as mem:
            t_convert, (qrels, run) = timed(convert, 1)
            ranx.evaluate(qrels, run, RANX_METRICS)  # warm-up
        t_eval, means = timed(lambda: ranx.evaluate(qrels, run, RANX_METRICS), repeats)
    names = {"precision": "P", "recall": "R", "map": "AP", "mrr": "RR", "ndcg": "NDCG"}
    values = {}
    for metric in RANX_METRICS:
        name, k = metric.split("-")[0].split("@")
        scores = run.scores[metric]
        values[f"{names[name]}@{k}"] = pd.Series(
            [scores[str(u)] for u in check.tolist()], index=check)
    return {"convert": t_convert, "evaluate": t_eval, "peak_above_inputs": mem.above,
            "means": {m: float(v) for m, v in means.items()},
            "check": _check_frame(values, check)}


def run_trec_eval(truth, recs, *, repeats, check, **_) -> dict:
    import pytrec_eval

    def convert():
        qrels: dict = {}
        grade = (2 * truth["rating"]).round().astype(int)
        for u, i, g in zip(truth["user_id"].astype(str).tolist(),
                           truth["item_id"].astype(str).tolist(), grade.tolist()):
            qrels.setdefault(u, {})[i] = g
        run: dict = {}
        for u, i, s in zip(recs["user_id"].astype(str).tolist(),
                           recs["item_id"].astype(str).tolist(), recs["score"].tolist()):
            run.setdefault(u, {})[i] = s
        return qrels, run

    def construct():
        return pytrec_eval.RelevanceEvaluator(qrels, TREC_MEASURES, relevance_level=LEVEL)

    with PeakRSS() as mem:
        t_convert, (qrels, run) = timed(convert, 1)
        construct().evaluate(run)  # warm-up
    t_construct, evaluator = timed(construct, repeats)
    t_eval_only, results = timed(lambda: evaluator.evaluate(run), repeats)
    t_eval, results = timed(lambda: construct().evaluate(run), repeats)
    names = {"P_10": "P@10", "P_100": "P@100", "recall_10": "R@10", "recall_100": "R@100",
             "map_cut_10": "AP@10", "map_cut_100": "AP@100", "recip_rank": "RR@100",
             "ndcg_cut_10": "NDCG@10", "ndcg_cut_100": "NDCG@100"}  # recip_rank: the whole list
    values = {col: pd.Series([results[str(u)][m] for u in check.tolist()], index=check)
              for m, col in names.items()}
    means = {m: float(np.mean([v[m] for v in results.values()])) for m in sorted(TREC_MEASURES)}
    return {"convert": t_convert, "evaluate": t_eval, "construct": t_construct,
            "evaluate_only": t_eval_only, "peak_above_inputs": mem.above, "means": means,
            "check": _check_frame(values, check)}


def run_pandas(truth, recs, *, repeats, check, pandas_users, **_) -> dict:
    users = np.union1d(_sample_users(truth, pandas_users), check)
    sub_t = truth[truth["user_id"].isin(users)]
    sub_r = recs[recs["user_id"].isin(users)]
    n_all = truth["user_id"].nunique()
    with PeakRSS() as mem:
        naive_pandas(sub_t, sub_r)  # warm-up
    t_eval, frame = timed(lambda: naive_pandas(sub_t, sub_r), repeats)
    scale = n_all / users.size
    values = {col: frame[col] for col in frame.columns}
    return {"convert": [], "evaluate": [t * scale for t in t_eval], "measured": t_eval,
            "users_measured": int(users.size), "extrapolation": scale,
            "peak_above_inputs": mem.above, "means": {},
            "check": _check_frame(values, check)}


RUNNERS = {"evalkit": run_evalkit, "ranx": run_ranx, "trec_eval": run_trec_eval,
           "pandas": run_pandas}


def worker(system: str, args: argparse.Namespace) -> dict:
    n_users = args.users or SCALES[args.scale]
    truth, recs = generate(n_users, rng=SEED)
    gc.collect()
    check = _sample_users(truth, args.check_users)
    pandas_users = PANDAS_USERS.get(args.scale) if args.users is None else min(n_users, 5_000)
    load_before = os.getloadavg()
    out = RUNNERS[system](truth, recs, repeats=args.repeats, check=check,
                          n_resamples=args.n_resamples, n_permutations=args.n_permutations,
                          pandas_users=pandas_users)
    out["load_before"] = load_before
    out["load_after"] = os.getloadavg()
    out["input_bytes"] = int(truth.memory_usage(deep=True).sum()
                             + recs.memory_usage(deep=True).sum())
    out["check_users"] = check.tolist()
    return out


# -- agreement -------------------------------------------------------------------------------
def agreement(results: dict[str, dict]) -> dict[str, dict[str, float]]:
    """Largest |evalkit - other| per metric over the check users where evalkit is defined."""
    if "evalkit" not in results:
        return {}
    ours = {col: np.asarray(v, dtype=float) for col, v in results["evalkit"]["check"].items()}
    out: dict[str, dict[str, float]] = {}
    for system, res in results.items():
        if system == "evalkit":
            continue
        diffs = {}
        for col, theirs in res["check"].items():
            if col not in ours:
                continue
            a, b = ours[col], np.asarray(theirs, dtype=float)
            defined = ~np.isnan(a)
            diffs[col] = float(np.max(np.abs(a[defined] - b[defined]))) if defined.any() else 0.0
        out[system] = diffs
    return out


# -- report ----------------------------------------------------------------------------------
def table(results: dict[str, dict]) -> pd.DataFrame:
    base = median(results["evalkit"]["evaluate"]) if "evalkit" in results else np.nan
    rows = []
    for system, res in results.items():
        ev = median(res["evaluate"])
        rows.append({
            "system": system,
            "conversion_s": round(median(res["convert"]), 2) if res["convert"] else 0.0,
            "evaluate_s": round(ev, 3),
            "peak_mem_above_inputs_MB": round(res["peak_above_inputs"] / 2**20),
            "evaluate_ratio_vs_evalkit": round(ev / base, 1),
        })
    return pd.DataFrame(rows).set_index("system")


def machine() -> dict:
    import psutil

    return {"python": platform.python_version(), "platform": platform.platform(),
            "cpus": os.cpu_count(), "memory_GB": round(psutil.virtual_memory().total / 2**30, 1),
            "cpu": platform.processor() or _cpu_name(),
            "numpy": np.__version__, "pandas": pd.__version__}


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", choices=list(SCALES), default="full")
    parser.add_argument("--users", type=int, default=None, help="overrides --scale")
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--repeats", type=int, default=3, help="timed warm runs per system")
    parser.add_argument("--n-resamples", type=int, default=1000,
                        help="bootstrap resamples inside evalkit's evaluate (its default)")
    parser.add_argument("--n-permutations", type=int, default=10000,
                        help="randomization rounds inside evalkit's compare (its default)")
    parser.add_argument("--check-users", type=int, default=2_000,
                        help="users on which values are compared across systems")
    parser.add_argument("--out", type=Path, default=None, help="results JSON path")
    parser.add_argument("--inline", action="store_true",
                        help="run every system in this process (faster; memory less meaningful)")
    parser.add_argument("--worker", choices=SYSTEMS, help=argparse.SUPPRESS)
    parser.add_argument("--worker-out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker:
        res = worker(args.worker, args)
        args.worker_out.write_text(json.dumps(res))
        return 0

    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    unknown = sorted(set(systems) - set(SYSTEMS))
    if unknown:
        parser.error(f"unknown system(s) {', '.join(unknown)}; valid: {', '.join(SYSTEMS)}")
    n_users = args.users or SCALES[args.scale]
    print(f"scale {args.scale}: {n_users} users; load average {os.getloadavg()}", flush=True)
    results: dict[str, dict] = {}
    for system in systems:
        start = time.perf_counter()
        if args.inline:
            results[system] = worker(system, args)
        else:
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / "result.json"
                cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", system,
                       "--worker-out", str(path), "--scale", args.scale,
                       "--repeats", str(args.repeats), "--n-resamples", str(args.n_resamples),
                       "--n-permutations", str(args.n_permutations),
                       "--check-users", str(args.check_users)]
                if args.users:
                    cmd += ["--users", str(args.users)]
                subprocess.run(cmd, check=True)
                results[system] = json.loads(path.read_text())
        res = results[system]
        print(f"{system:10s} evaluate median {median(res['evaluate']):8.3f} s  "
              f"convert {median(res['convert']) if res['convert'] else 0:8.2f} s  "
              f"peak +{res['peak_above_inputs'] / 2**20:7.0f} MB  "
              f"(wall {time.perf_counter() - start:.0f} s, load {res['load_before'][0]:.2f}"
              f" -> {res['load_after'][0]:.2f})", flush=True)

    summary = table(results)
    agree = agreement(results)
    print()
    print(summary.to_markdown() if _has_tabulate() else summary.to_string())
    if "evalkit" in results:
        ev = results["evalkit"]
        print()
        for key in ("evaluate", "evaluate_no_intervals", "suite_plus_curves",
                    "suite_and_curves_two_calls", "curves", "single_k_suite",
                    "ties_expected", "ties_expected_tied_scores", "exponential_gain",
                    "half_life_utility", "every_metric", "validate",
                    "build_hits", "reduce_suite", "reduce_curves", "bootstrap",
                    "compare_3_systems", "randomization", "regression_check_randomization",
                    "regression_check_t"):
            print(f"evalkit {key:26s} median {median(ev[key]):7.3f} s  "
                  f"runs {', '.join(f'{t:.3f}' for t in ev[key])}")
        for key, cpus in ev["cpu"].items():
            print(f"evalkit {key:26s} CPU (all threads) median {median(cpus):7.3f} s  "
                  f"runs {', '.join(f'{t:.3f}' for t in cpus)}")
    print()
    for system, diffs in agree.items():
        worst = max(diffs.values()) if diffs else float("nan")
        print(f"agreement with {system:9s} max |diff| {worst:.2e}  ({', '.join(sorted(diffs))})")

    record = {
        "scale": args.scale, "users": n_users, "repeats": args.repeats,
        "n_resamples": args.n_resamples, "n_permutations": args.n_permutations,
        "machine": machine(),
        "table": summary.reset_index().to_dict(orient="records"),
        "agreement": agree,
        "results": {s: {k: v for k, v in r.items() if k != "check"} for s, r in results.items()},
    }
    out = args.out or (HERE / "results"
                       / f"results_{args.scale if not args.users else args.users}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, indent=2) + "\n")
    print(f"\nwrote {out}")
    bad = [s for s, d in agree.items() if d and max(d.values()) > 1e-9]
    if bad:
        print(f"values disagree with {', '.join(bad)}", file=sys.stderr)
        return 1
    return 0


def _has_tabulate() -> bool:
    try:
        import tabulate  # noqa: F401
    except ImportError:
        return False
    return True


if __name__ == "__main__":
    sys.exit(main())
