"""Time ``evaluate`` as ``run.py`` calls it in two checkouts of evalkit, alternating processes.

Run-to-run spread on a shared two-core machine (10 to 30 % between medians of separate
``run.py`` runs, even for code that did not change) hides a change of a few per cent. This
script times the same calls in checkout A and checkout B in alternating fresh processes
(A, B, A, B, ...) and reports, per call, the fastest and the median time over every round:
the fastest is what the code costs when the machine lets it run.

    PYTHONPATH=. .venv/bin/python benchmarks/ab.py --a /path/to/before --b . --rounds 3 \
        --out benchmarks/results/ab.json

The calls are ``run.py``'s options as a user calls them (intervals included, 1,000
resamples): the default call, with curves to 100, ``ties="expected"`` on the lists without
ranks (distinct scores, and scores rounded to 0.1), graded exponential gain, half-life
utility beside the five metrics, and every registered ranking metric.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def calls(truth, recs):
    """The timed calls, by name (``run.py``'s, with the same arguments)."""
    from run import KS, METRICS, THRESHOLD

    from evalkit import evaluate

    ks = list(KS)
    scored = recs.drop(columns="rank")
    tied = scored.assign(score=scored["score"].round(1))
    return {
        "evaluate": lambda: evaluate(truth, recs, k=ks, metrics=METRICS, threshold=THRESHOLD),
        "suite_plus_curves": lambda: evaluate(truth, recs, k=ks, metrics=METRICS,
                                              threshold=THRESHOLD, curves=max(KS)),
        "ties_expected": lambda: evaluate(truth, scored, k=ks, metrics=METRICS,
                                          threshold=THRESHOLD, ties="expected"),
        "ties_expected_tied_scores": lambda: evaluate(truth, tied, k=ks, metrics=METRICS,
                                                      threshold=THRESHOLD, ties="expected"),
        "exponential_gain": lambda: evaluate(truth, recs, k=ks, metrics=METRICS,
                                             threshold=THRESHOLD, gain="exponential"),
        "half_life_utility": lambda: evaluate(truth, recs, k=ks,
                                              metrics=METRICS + ["half_life_utility"],
                                              threshold=THRESHOLD),
        "every_metric": lambda: evaluate(truth, recs, k=ks, metrics=None, threshold=THRESHOLD),
    }


def worker(users: int, repeats: int, out: Path) -> None:
    """Time each call ``repeats`` times after one warm-up, in this process."""
    import warnings

    warnings.simplefilter("ignore")
    sys.path.insert(0, str(HERE))
    from generate import generate
    from run import SEED

    import evalkit

    truth, recs = generate(users, rng=SEED)
    times = {}
    for name, call in calls(truth, recs).items():
        call()
        runs = []
        for _ in range(repeats):
            began = time.perf_counter()
            call()
            runs.append(time.perf_counter() - began)
        times[name] = runs
    out.write_text(json.dumps({"evalkit": evalkit.__file__, "times": times}))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--a", type=Path, required=True, help="checkout A (evalkit/ inside)")
    parser.add_argument("--b", type=Path, required=True, help="checkout B")
    parser.add_argument("--rounds", type=int, default=3, help="processes per checkout")
    parser.add_argument("--repeats", type=int, default=7, help="timed calls per process")
    parser.add_argument("--users", type=int, default=162_541)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--worker-out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.users, args.repeats, args.worker_out)
        return 0
    runs: dict[str, dict[str, list[float]]] = {"a": {}, "b": {}}
    with tempfile.TemporaryDirectory() as folder:
        for round_ in range(args.rounds):
            for side in ("a", "b"):
                tree = (args.a if side == "a" else args.b).resolve()
                out = Path(folder) / f"{side}{round_}.json"
                env = {**os.environ, "PYTHONPATH": str(tree)}
                subprocess.run([sys.executable, __file__, "--worker", "--a", str(args.a),
                                "--b", str(args.b), "--users", str(args.users),
                                "--repeats", str(args.repeats), "--worker-out", str(out)],
                               check=True, env=env)
                record = json.loads(out.read_text())
                if not record["evalkit"].startswith(str(tree)):
                    raise SystemExit(f"ab: checkout {side} imported {record['evalkit']}")
                for name, times in record["times"].items():
                    runs[side].setdefault(name, []).extend(times)
    summary = {}
    print(f"{'call':28s} {'A fastest':>10s} {'B fastest':>10s} {'B/A':>6s}   "
          f"{'A median':>9s} {'B median':>9s} {'B/A':>6s}")
    for name in runs["a"]:
        a, b = runs["a"][name], runs["b"][name]
        row = {"a_min": min(a), "b_min": min(b), "a_median": statistics.median(a),
               "b_median": statistics.median(b)}
        summary[name] = row
        print(f"{name:28s} {row['a_min']:10.3f} {row['b_min']:10.3f} "
              f"{row['b_min'] / row['a_min']:6.2f}   {row['a_median']:9.3f} "
              f"{row['b_median']:9.3f} {row['b_median'] / row['a_median']:6.2f}")
    if args.out is not None:
        args.out.write_text(json.dumps({"a": str(args.a), "b": str(args.b),
                                        "rounds": args.rounds, "repeats": args.repeats,
                                        "users": args.users, "summary": summary,
                                        "runs": runs}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
