"""Time the beyond-accuracy metrics of top-k lists at MovieLens-25M scale, beside the
default ``evaluate`` call on the same lists.

Data: ``generate.py``'s test sets and top-100 lists (162,541 users, seed 0) with their ranks
dropped (lists ranked by score, as an analyst's files often are), the training pairs of
``models.py`` and a seeded genre table (one to three of 18 genres per item).
``metrics.tables.beyond_accuracy`` computes every metric of one system at k = 10 (catalog
and user coverage, Gini, personalization, exposure entropy and Gini, novelty, average
recommended popularity, mean popularity rank, intra-list diversity, serendipity).

    .venv/bin/python benchmarks/beyond.py --scale full --repeats 3
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import SCALES, generate  # noqa: E402
from models import training  # noqa: E402

import evalkit as ek  # noqa: E402
from evalkit.metrics import tables  # noqa: E402

GENRES = [f"genre{g}" for g in range(18)]


def genres(items: np.ndarray, seed: int = 0) -> pd.DataFrame:
    """One to three distinct genres per item, seeded."""
    gen = np.random.default_rng(seed)
    count = gen.integers(1, 4, len(items))
    picks = [list(gen.choice(GENRES, n, replace=False)) for n in count]  # setup, not timed
    return pd.DataFrame({"item_id": items, "genres": picks})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", choices=list(SCALES), default="small")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    n_users = SCALES[args.scale]
    truth, recs = generate(n_users, rng=0)
    recs = recs.drop(columns="rank")
    train = training(n_users)
    items = genres(np.union1d(train["item_id"].unique(), recs["item_id"].unique()))
    warnings.simplefilter("ignore")  # items outside the catalogue, ties: counted, not timed
    runs: dict[str, list[float]] = {"beyond_accuracy": [], "evaluate": []}
    for _ in range(args.repeats):
        started = time.perf_counter()
        tables.beyond_accuracy(truth, recs, train=train, items=items, k=10)
        runs["beyond_accuracy"].append(time.perf_counter() - started)
        started = time.perf_counter()
        ek.evaluate(truth, recs, k=[10, 100])
        runs["evaluate"].append(time.perf_counter() - started)
    medians = {name: float(np.median(times)) for name, times in runs.items()}
    for name, value in medians.items():
        print(f"{name}: median {value:.2f} s over {args.repeats} runs")
    print(f"ratio: {medians['beyond_accuracy'] / medians['evaluate']:.2f}")
    out = args.out or Path(__file__).parent / "results" / f"beyond_{args.scale}.json"
    out.write_text(json.dumps({"scale": args.scale, "users": n_users, "list_rows": len(recs),
                               "train_rows": len(train), "runs": runs, "medians": medians},
                              indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
