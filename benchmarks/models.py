"""Time the baselines' ``recommend`` at MovieLens-25M scale (the call the reports make).

Training data: four seeded MovieLens-25M-shaped interaction sets drawn as ``generate.py``
draws its test sets (seeds 1 to 4, one catalogue), duplicates dropped: at ``--scale full``,
162,541 users and 18,619,567 training pairs over 56,047 items. Each model is fitted once, then
``recommend(every user, k=100)`` (seen items excluded, the default) is timed ``--repeats``
times; the JSON records every run, the median and the list rows.

    .venv/bin/python benchmarks/models.py --scale full --repeats 3
    .venv/bin/python benchmarks/models.py --scale full --repeats 1 --models ItemKNN
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import MAX_ITEM_ID, N_ITEMS, SCALES, _test_sets  # noqa: E402

from evalkit.models import MODELS  # noqa: E402


def training(n_users: int) -> pd.DataFrame:
    """Four interaction sets drawn as ``generate`` draws its test sets (seeds 1 to 4) over
    one catalogue (``generate``'s of seed 0), duplicate pairs dropped."""
    gen = np.random.default_rng(0)  # the catalogue, as generate(rng=0) draws it
    item_ids = np.sort(gen.choice(np.arange(1, MAX_ITEM_ID + 1), N_ITEMS, replace=False))
    by_popularity = gen.permutation(item_ids)
    parts = []
    for seed in range(1, 5):
        user, rank, rating = _test_sets(n_users, N_ITEMS, np.random.default_rng(seed))
        parts.append(pd.DataFrame({"user_id": user + 1, "item_id": by_popularity[rank - 1],
                                   "rating": rating}))
    return pd.concat(parts, ignore_index=True).drop_duplicates(["user_id", "item_id"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", choices=list(SCALES), default="small")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--k", type=int, default=100)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--models", nargs="+", default=["MostPopular", "BiasBaseline"],
                        choices=sorted(MODELS), help="default: MostPopular BiasBaseline")
    args = parser.parse_args(argv)
    n_users = SCALES[args.scale]
    started = time.perf_counter()
    train = training(n_users)
    users = np.sort(train["user_id"].unique())
    print(f"training data: {len(train):,} pairs, {len(users):,} users, "
          f"{train['item_id'].nunique():,} items ({time.perf_counter() - started:.1f} s)")
    results = {"scale": args.scale, "k": args.k, "train_rows": len(train),
               "users": len(users), "items": int(train["item_id"].nunique()),
               "python": platform.python_version(), "models": {}}
    for name in args.models:
        model = MODELS[name]()
        started = time.perf_counter()
        model.fit(train)
        fit = time.perf_counter() - started
        runs = []
        for _ in range(args.repeats):
            started = time.perf_counter()
            lists = model.recommend(users, k=args.k)
            runs.append(time.perf_counter() - started)
        results["models"][name] = {"fit_s": fit, "recommend_s": runs,
                                   "recommend_median_s": float(np.median(runs)),
                                   "rows": len(lists)}
        print(f"{name}: fit {fit:.1f} s; recommend({len(users):,} users, k={args.k}) "
              f"median {np.median(runs):.2f} s over {args.repeats} runs, {len(lists):,} rows")
    default = f"models_{args.scale}.json" if args.models == ["MostPopular", "BiasBaseline"] \
        else f"models_{args.scale}_{'_'.join(args.models)}.json"
    out = args.out or Path(__file__).parent / "results" / default
    out.write_text(json.dumps(results, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
