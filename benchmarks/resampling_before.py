"""The intervals and the randomization test before and after the compiled Poisson bootstrap.

Takes evalkit's per-user table of the default call at the chosen scale (``evaluate(truth,
recs, k=[10, 100], metrics=[precision, recall, map, mrr, ndcg], threshold=4.0,
n_resamples=0).per_user``) and times, wall and process CPU (all threads):

- ``bootstrap_ci_frame(per_user)`` at 1,000 resamples, now and as of commit ``69397d1``
  (index-matrix resampling), read with ``git show`` into a temporary module;
- the randomization test of one comparison at 10,000 rounds (``ndcg@100`` against the same
  column shifted by one user), now (``stats._sign_flip_pvalues``) and then
  (``_sign_flip_pvalue``).

With ``--now-only`` only the current implementation is timed, ``--repeats`` times each
(after a warm-up), with the default ``evaluate`` call and the call without intervals.

Usage::

    python benchmarks/resampling_before.py --scale full
    python benchmarks/resampling_before.py --scale full --now-only --repeats 5
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import SCALES, generate  # noqa: E402

BEFORE = "69397d1"
METRICS = ["precision", "recall", "map", "mrr", "ndcg"]


def _old_stats():
    text = subprocess.run(["git", "show", f"{BEFORE}:evalkit/stats.py"], cwd=HERE, check=True,
                          capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp()) / "stats_before.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("stats_before", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _time(label: str, func, repeats: int = 1) -> None:
    func()  # warm-up (compilation)
    for _ in range(repeats):
        start, cpu = time.perf_counter(), time.process_time()
        func()
        print(f"{label:44s} wall {time.perf_counter() - start:7.3f} s  "
              f"CPU {time.process_time() - cpu:7.3f} s  load {os.getloadavg()[0]:.2f}",
              flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", choices=list(SCALES), default="full")
    parser.add_argument("--now-only", action="store_true", help="skip the old implementation")
    parser.add_argument("--repeats", type=int, default=1, help="timed runs of each call")
    args = parser.parse_args(argv)

    from evalkit import evaluate
    from evalkit._resample import design_key
    from evalkit.stats import _sign_flip_pvalues, bootstrap_ci_frame

    truth, recs = generate(SCALES[args.scale], rng=0)
    per_user = evaluate(truth, recs, k=[10, 100], metrics=METRICS, threshold=4.0,
                        n_resamples=0).per_user
    column = np.nan_to_num(per_user["ndcg@100"].to_numpy())
    diff = column - np.roll(column, 1)
    repeats = args.repeats

    if args.now_only:
        _time("evaluate, default call", lambda: evaluate(
            truth, recs, k=[10, 100], metrics=METRICS, threshold=4.0), repeats)
        _time("evaluate, n_resamples=0", lambda: evaluate(
            truth, recs, k=[10, 100], metrics=METRICS, threshold=4.0, n_resamples=0), repeats)
    _time("bootstrap_ci_frame, now", lambda: bootstrap_ci_frame(per_user), repeats)
    _time("randomization, one comparison, now",
          lambda: _sign_flip_pvalues(diff[None, :], 10000, design_key(0)), repeats)
    if args.now_only:
        return 0
    old = _old_stats()
    _time(f"bootstrap_ci_frame, {BEFORE}", lambda: old.bootstrap_ci_frame(per_user), repeats)
    _time(f"randomization, one comparison, {BEFORE}",
          lambda: old._sign_flip_pvalue(diff, 10000, np.random.default_rng(0)), repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
