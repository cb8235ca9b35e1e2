"""Time sampled-candidate evaluation at MovieLens-25M scale: 100 negatives for one held-out
item per user (RecBole's uni100, leave-one-out), ranked, then corrected.

Data: ``generate.py``'s test sets (162,541 users at full scale, seed 0), each user's first
test item held out, and ``models.py``'s training pairs (excluded from the negatives). The
scores are a seeded function of the pair (a hash, as a model's would be: fixed per pair),
with the held-out items raised so that they rank high.

The calls timed, as a user makes them, with their defaults:

- ``sample_negatives(truth, train)`` then ``sampled_ranks(scores, candidates)`` (the scores
  computed outside the timing, one per candidate row in their order, as a model's
  ``score(candidates)`` returns them);
- ``corrected_metric(ranks, metric="ndcg", k=10)``: EM, 200 bootstrap resamples;
- the variant ``estimator="bv"``, labelled as such.

    .venv/bin/python benchmarks/sampled.py --scale full --repeats 3
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import SCALES, generate  # noqa: E402
from models import training  # noqa: E402

from evalkit.protocols import sampled  # noqa: E402


def pair_scores(frame: pd.DataFrame, boost: pd.DataFrame) -> np.ndarray:
    """A fixed pseudo-random score per (user, item), higher for the held-out pairs."""
    key = (frame["user_id"].to_numpy(np.uint64) * np.uint64(2654435761)
           ^ frame["item_id"].to_numpy(np.uint64) * np.uint64(40503))
    score = (key % np.uint64(1_000_003)).astype(np.float64) / 1_000_003
    held = frame.merge(boost.assign(_held=1.0), on=["user_id", "item_id"], how="left")
    return score + 0.9 * held["_held"].fillna(0.0).to_numpy()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", choices=list(SCALES), default="small")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    n_users = SCALES[args.scale]
    truth, _ = generate(n_users, rng=0)
    held = truth.groupby("user_id", sort=False).head(1)[["user_id", "item_id"]]
    train = training(n_users)
    train = train.merge(held, on=["user_id", "item_id"], how="left", indicator=True)
    train = train[train["_merge"] == "left_only"].drop(columns="_merge")
    runs: dict[str, list[float]] = {"sample_and_rank": [], "sample_negatives": [],
                                    "corrected_metric": [], "corrected_metric_bv": []}
    for _ in range(args.repeats):
        started = time.perf_counter()
        candidates = sampled.sample_negatives(held, train)
        drawn = time.perf_counter()
        # the model's part, untimed: a score per candidate row, in the candidates' order (as
        # a model's score(candidates) gives them)
        scores = candidates[["user_id", "item_id"]]
        scores = scores.assign(score=pair_scores(scores, held))
        ranked_at = time.perf_counter()
        ranks = sampled.sampled_ranks(scores, candidates)
        done = time.perf_counter()
        runs["sample_negatives"].append(drawn - started)
        runs["sample_and_rank"].append((drawn - started) + (done - ranked_at))
        started = time.perf_counter()
        result = sampled.corrected_metric(ranks, metric="ndcg", k=10)
        runs["corrected_metric"].append(time.perf_counter() - started)
        started = time.perf_counter()
        sampled.corrected_metric(ranks, metric="ndcg", k=10, estimator="bv")
        runs["corrected_metric_bv"].append(time.perf_counter() - started)
    medians = {name: float(np.median(times)) for name, times in runs.items()}
    for name, value in medians.items():
        print(f"{name}: median {value:.3f} s over {args.repeats} runs "
              f"({', '.join(f'{t:.3f}' for t in runs[name])})")
    print(result)
    out = args.out or Path(__file__).parent / "results" / f"sampled_{args.scale}.json"
    out.write_text(json.dumps({"scale": args.scale, "users": n_users,
                               "candidates": len(candidates), "train_rows": len(train),
                               "runs": runs, "medians": medians,
                               "estimate": {"value": result.value, "naive": result.naive,
                                            "ci": [result.ci_low, result.ci_high]}},
                              indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
