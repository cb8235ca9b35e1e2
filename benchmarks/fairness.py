"""Time the group metrics at MovieLens-25M scale: ``group_disparity`` over 7 user groups and
``exposure_share`` of 16M recommendation rows, each with its defaults (1,000 bootstrap
resamples; the permutation test as it runs at that size).

Data: ``generate.py``'s test sets and top-100 lists (162,541 users, seed 0), each user's
NDCG@10 (``evaluate``, untimed), 7 seeded user groups of unequal sizes, and item groups by
training popularity (``models.py``'s training pairs, head / mid / tail, untimed).

    .venv/bin/python benchmarks/fairness.py --scale full --repeats 3
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

import evalkit as ek  # noqa: E402
from evalkit import fairness  # noqa: E402
from evalkit.segments import item_popularity_buckets  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", choices=list(SCALES), default="small")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    n_users = SCALES[args.scale]
    truth, recs = generate(n_users, rng=0)
    per_user = ek.evaluate(truth, recs, k=10, metrics=["ndcg"], n_resamples=0).per_user
    scores = per_user["ndcg@10"]
    share = np.array([0.3, 0.2, 0.15, 0.12, 0.1, 0.08, 0.05])
    groups = pd.Series(np.random.default_rng(1).choice([f"g{i}" for i in range(7)],
                                                       len(scores), p=share),
                       index=scores.index)
    buckets = item_popularity_buckets(training(n_users))
    runs: dict[str, list[float]] = {"group_disparity": [], "exposure_share": []}
    for _ in range(args.repeats):
        started = time.perf_counter()
        table = fairness.group_disparity(scores, groups)
        runs["group_disparity"].append(time.perf_counter() - started)
        started = time.perf_counter()
        exposure = fairness.exposure_share(recs, buckets, k=100)
        runs["exposure_share"].append(time.perf_counter() - started)
    medians = {name: float(np.median(times)) for name, times in runs.items()}
    for name, value in medians.items():
        print(f"{name}: median {value:.3f} s over {args.repeats} runs "
              f"({', '.join(f'{t:.3f}' for t in runs[name])})")
    print(table.round(4).to_string(index=False))
    print(exposure.round(4).to_string())
    out = args.out or Path(__file__).parent / "results" / f"fairness_{args.scale}.json"
    out.write_text(json.dumps({"scale": args.scale, "users": n_users, "rec_rows": len(recs),
                               "runs": runs, "medians": medians}, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
