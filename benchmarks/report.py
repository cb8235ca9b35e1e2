"""Time ``evalkit report`` on MovieLens-shaped data of a given size: per-notebook wall time
and the peak memory of the whole process tree (the runner, its kernels, Spark if asked).

The data (Parquet, in a temporary folder): training pairs as ``models.py`` draws them,
``generate.py``'s test sets and top-100 lists (scores only, as an analyst's files often
are), with timestamps that put every test pair after its user's training pairs (as a
temporal split does), for ``--users`` users (8,700 give about 1M training pairs, 43,500
about 5M, 162,541 about 19M). The command is the one the README gives for an analyst's own files:
``evalkit report --train --test --recs mine=... --baselines MostPopular``.

    .venv/bin/python benchmarks/report.py --users 8700
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import generate  # noqa: E402
from models import training  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def tree_rss(pid: int) -> int:
    """Resident bytes of ``pid`` and every process below it (Linux /proc)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    page = os.sysconf("SC_PAGE_SIZE")
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            rss[int(entry)] = int(fields[21]) * page
            children.setdefault(int(fields[1]), []).append(int(entry))
        except (OSError, IndexError, ValueError):
            continue
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        total += rss.get(p, 0)
        todo += children.get(p, [])
    return total


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=8_700)
    parser.add_argument("--spark", action="store_true", help="run the Spark page too")
    parser.add_argument("--jobs", type=int, default=None,
                        help="evalkit report --jobs (a variant: default, the runner's)")
    parser.add_argument("--no-timestamps", action="store_true",
                        help="no timestamp column (the splitting page then makes two splits, "
                             "not four)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="evalkit-report-bench-"))
    train = training(args.users)
    test, recs = generate(args.users, rng=0)
    recs = recs.drop(columns="rank")
    # a split's test pairs are not in training: those the independent draws share are dropped
    seen = train.set_index(["user_id", "item_id"]).index
    test = test[~test.set_index(["user_id", "item_id"]).index.isin(seen)]
    if not args.no_timestamps:  # as a temporal split leaves them: each test pair after training
        gen = np.random.default_rng(5)
        train["timestamp"] = gen.integers(10**9, 1.5 * 10**9, len(train))
        test = test.assign(timestamp=gen.integers(1.5 * 10**9, 1.6 * 10**9, len(test)))
    for name, frame in (("train", train), ("test", test), ("recs", recs)):
        frame.to_parquet(work / f"{name}.parquet", index=False)
    sizes = {"train_rows": len(train), "test_rows": len(test), "list_rows": len(recs),
             "timestamps": not args.no_timestamps}
    del train, test, recs, seen  # this process is not measured; the machine's memory is
    command = [sys.executable, "-m", "evalkit", "report", "--train", str(work / "train.parquet"),
               "--test", str(work / "test.parquet"), "--recs",
               f"mine={work / 'recs.parquet'}", "--baselines", "MostPopular",
               "--out", str(work / "out")] + (["--spark"] if args.spark else []) + (
                   ["--jobs", str(args.jobs)] if args.jobs else [])
    started = time.perf_counter()
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    peak, timeline = 0, []

    def watch() -> None:
        nonlocal peak
        while proc.poll() is None:
            rss = tree_rss(proc.pid)
            peak = max(peak, rss)
            timeline.append((time.perf_counter() - started, rss))
            time.sleep(0.5)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    stdout, stderr = proc.communicate()
    watcher.join()
    wall = time.perf_counter() - started
    record = {"users": args.users, **sizes, "jobs": args.jobs or "default",
              "returncode": proc.returncode,
              "wall_s": round(wall, 1),
              "peak_tree_rss_gb": round(peak / 1e9, 2)}
    manifest = work / "out" / ".evalkit-report.json"
    if manifest.exists():
        record["seconds"] = json.loads(manifest.read_text()).get("seconds", {})
        if args.jobs == 1:  # one notebook at a time: the samples during each are its own
            record["peak_gb_by_notebook"] = by_notebook(record["seconds"], timeline, wall)
    else:
        record["stderr"] = stderr[-3000:]
    print(json.dumps(record, indent=1))
    out = args.out or Path(__file__).parent / "results" / f"report_{args.users}.json"
    out.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {out}; the reports are in {work / 'out'}")
    return 0 if proc.returncode == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
