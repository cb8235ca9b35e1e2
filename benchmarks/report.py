"""Time ``evalkit report`` on MovieLens-shaped data of a given size: per-notebook wall time
and the peak memory of the whole process tree (the runner, its kernels, Spark if asked).

The data (Parquet, in a temporary folder): training pairs as ``models.py`` draws them,
``generate.py``'s test sets and top-100 lists (scores only, as an analyst's files often
are), with timestamps that put every test pair after its user's training pairs (as a
temporal split does), for ``--users`` users (8,700 give about 1M training pairs, 43,500
about 5M, 162,541 about 19M). The command is the one the README gives for an analyst's own files:
``evalkit report --train --test --recs mine=... --baselines MostPopular``.

``--shape temporal`` draws the data another way, as an analyst's log would come: every user's
ratings (lognormal activity, median 70 and mean 154 ratings, at least 20, as in
MovieLens-25M; items by a Zipf-like law; timestamps in a random order of the user's items)
cut per user in time, the last 20 % of each user's ratings held out
(:func:`evalkit.split.user_temporal_split`), and a top-100 list (scores only) for every test
user: at 162,541 users about 25M ratings, 20M for training and 5M for test.

    .venv/bin/python benchmarks/report.py --users 8700
    .venv/bin/python benchmarks/report.py --users 162541 --shape temporal \\
        --baselines MostPopular "user + item bias"
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import LIST_LENGTH, MAX_ITEM_ID, N_ITEMS, _lists, _test_sets, generate  # noqa: E402
from models import training  # noqa: E402

from evalkit.report._memory import tree_rss  # noqa: E402  (the runner's own measure)

ROOT = Path(__file__).resolve().parents[1]


def by_notebook(seconds: dict[str, float], timeline: list[tuple[float, int]],
                wall: float) -> dict[str, float]:
    """Peak memory of the process tree while each notebook ran, for a run of one notebook at
    a time: the notebooks' times are laid end to end back from the end of the run (what
    precedes the first is the runner's start and its checks of the files)."""
    out, end = {}, wall
    for name, took in reversed(list(seconds.items())):
        inside = [rss for t, rss in timeline if end - took <= t <= end]
        out[name] = round(max(inside, default=0) / 1e9, 2)
        end -= took
    return dict(reversed(list(out.items())))


def temporal_shape(n_users: int, *, seed: int = 0):
    """``(train, test, recs)`` of ``--shape temporal``: every user's ratings in time, split per
    user in time (the last 20 % held out), and a top-100 list per test user."""
    from evalkit.split import user_temporal_split

    gen = np.random.default_rng(seed)
    item_ids = np.sort(gen.choice(np.arange(1, MAX_ITEM_ID + 1), N_ITEMS, replace=False))
    by_popularity = gen.permutation(item_ids)
    user, rank, rating = _test_sets(n_users, N_ITEMS, gen, median=70.0, mean=154.0,
                                    smallest=20, zipf=0.9)
    # each user rates from a random start, a few days apart, the items in a random order
    counts = np.bincount(user, minlength=n_users)
    starts = np.cumsum(counts) - counts
    elapsed = np.cumsum(gen.exponential(3 * 86400.0, user.size))
    elapsed -= np.repeat(elapsed[starts], counts)  # from each user's first rating
    stamps = np.repeat(gen.integers(9 * 10**8, 15 * 10**8, n_users), counts) + \
        elapsed.astype(np.int64)
    shuffled = np.lexsort([gen.random(user.size), user])  # rows of a user, in random order
    timestamp = np.empty(user.size, np.int64)
    timestamp[shuffled] = stamps
    ratings = pd.DataFrame({"user_id": user + 1, "item_id": by_popularity[rank - 1],
                            "rating": rating, "timestamp": timestamp})
    split = user_temporal_split(ratings, test_fraction=0.2)
    users = np.sort(split.test["user_id"].unique())
    list_rank, score = _lists(users.size, N_ITEMS, gen)
    recs = pd.DataFrame({"user_id": np.repeat(users, LIST_LENGTH),
                         "item_id": by_popularity[list_rank.ravel() - 1],
                         "score": score.ravel()})
    return split.train, split.test, recs


def independent_shape(n_users: int):
    """``(train, test, recs)`` of the default shape (see the module's docstring)."""
    train = training(n_users)
    test, recs = generate(n_users, rng=0)
    recs = recs.drop(columns="rank")
    # a split's test pairs are not in training: those the independent draws share are dropped
    seen = train.set_index(["user_id", "item_id"]).index
    test = test[~test.set_index(["user_id", "item_id"]).index.isin(seen)]
    return train, test, recs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=8_700)
    parser.add_argument("--spark", action="store_true", help="run the Spark page too")
    parser.add_argument("--jobs", type=int, default=None,
                        help="evalkit report --jobs (a variant: default, the runner's)")
    parser.add_argument("--no-timestamps", action="store_true",
                        help="no timestamp column (the splitting page then makes two splits, "
                             "not four)")
    parser.add_argument("--shape", choices=["independent", "temporal"], default="independent",
                        help="how the data are drawn (see above)")
    parser.add_argument("--baselines", nargs="+", default=["MostPopular"],
                        help="evalkit report --baselines (default: MostPopular)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="evalkit-report-bench-"))
    if args.shape == "temporal":
        train, test, recs = temporal_shape(args.users)
    else:
        train, test, recs = independent_shape(args.users)
    if args.shape == "independent" and not args.no_timestamps:
        # as a temporal split leaves them: each test pair after training
        gen = np.random.default_rng(5)
        train["timestamp"] = gen.integers(10**9, 1.5 * 10**9, len(train))
        test = test.assign(timestamp=gen.integers(1.5 * 10**9, 1.6 * 10**9, len(test)))
    for name, frame in (("train", train), ("test", test), ("recs", recs)):
        frame.to_parquet(work / f"{name}.parquet", index=False)
    sizes = {"train_rows": len(train), "test_rows": len(test), "list_rows": len(recs),
             "timestamps": args.shape == "temporal" or not args.no_timestamps}
    del train, test, recs  # this process is not measured; the machine's memory is
    command = [sys.executable, "-m", "evalkit", "report", "--train", str(work / "train.parquet"),
               "--test", str(work / "test.parquet"), "--recs",
               f"mine={work / 'recs.parquet'}", "--baselines", *args.baselines,
               "--out", str(work / "out")] + (["--spark"] if args.spark else []) + (
                   ["--jobs", str(args.jobs)] if args.jobs else [])
    started = time.perf_counter()
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    peak, timeline = 0, []

    def watch() -> None:
        nonlocal peak
        while proc.poll() is None:
            rss = tree_rss(proc.pid) or 0  # 0: the command has just ended
            peak = max(peak, rss)
            timeline.append((time.perf_counter() - started, rss))
            time.sleep(0.5)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    stdout, stderr = proc.communicate()
    watcher.join()
    wall = time.perf_counter() - started
    record = {"users": args.users, "shape": args.shape, "baselines": args.baselines, **sizes,
              "jobs": args.jobs or "default",
              "returncode": proc.returncode,
              "wall_s": round(wall, 1),
              "peak_tree_rss_gb": round(peak / 1e9, 2)}
    manifest = work / "out" / ".evalkit-report.json"
    if manifest.exists():
        written = json.loads(manifest.read_text())
        record["seconds"] = written.get("seconds", {})
        # the runner's own samples: the run's peak and the peak while each page ran (with
        # the pages beside it)
        record["runner_peak_gb"] = written.get("peak_gb", {})
        if args.jobs == 1:  # one notebook at a time: the samples during each are its own
            record["peak_gb_by_notebook"] = by_notebook(record["seconds"], timeline, wall)
    else:
        record["stderr"] = stderr[-3000:]
    print(json.dumps(record, indent=1))
    suffix = "" if args.shape == "independent" else f"_{args.shape}"
    if args.baselines != ["MostPopular"]:  # other baselines: another record
        suffix += "".join("_" + re.sub(r"\W+", "-", name) for name in args.baselines)
    out = args.out or Path(__file__).parent / "results" / f"report_{args.users}{suffix}.json"
    out.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {out}; the reports are in {work / 'out'}")
    return 0 if proc.returncode == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
