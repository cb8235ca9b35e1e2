"""evalkit's time against the number of users, on a log-log plot with a fitted slope.

For each user count the seeded data of ``generate.py`` are timed (median of warm runs) for
the suite (``evaluate`` at k = 10 and 100 with its default 1,000-resample bootstrap) plus
the curves to k = 100, in one call (``evaluate(..., curves=100)``), and for the engine alone
(hit table and reductions, inputs validated beforehand).
A slope of 1 on the log-log plot is linear growth.

Usage::

    python benchmarks/scaling.py                      # 1k, 5k, 20k, 80k, 162,541 users
    python benchmarks/scaling.py --users 1000 5000    # other counts
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import SCALES, generate  # noqa: E402

USERS = (1_000, 5_000, 20_000, 80_000, SCALES["full"])
KS = [10, 100]
METRICS = ["precision", "recall", "map", "mrr", "ndcg"]


def _median_time(func, repeats: int) -> float:
    func()  # warm-up
    times = []
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def measure(users: list[int], *, repeats: int = 3, n_resamples: int = 1000) -> list[dict]:
    """Median warm times of the suite plus curves, and of the engine, for each user count."""
    from evalkit import evaluate
    from evalkit.metrics import CURVE_METRICS
    from evalkit.metrics._curves import RankingCurves
    from evalkit.metrics._hits import build_hits
    from evalkit.metrics._prepare import make_definitions

    options = make_definitions("scaling")
    rows = []
    for n in users:
        truth, recs = generate(n, rng=0)

        def suite_and_curves():  # one call: one validation, one hit table
            evaluate(truth, recs, k=KS, metrics=METRICS, n_resamples=n_resamples,
                     curves=max(KS))

        def engine():
            table = build_hits(truth, recs, threshold=options.threshold, ties=options.ties)
            curves = RankingCurves(table, max(KS), options)
            for name in METRICS:
                curves.at(name, KS)
            for name in CURVE_METRICS:
                curves.means(name)

        rows.append({
            "users": n,
            "rows": len(recs),
            "suite_plus_curves_s": _median_time(suite_and_curves, repeats),
            "engine_s": _median_time(engine, repeats),
            "load": os.getloadavg()[0],
        })
        print(rows[-1], flush=True)
    return rows


def slope(users: list[int], seconds: list[float]) -> float:
    """Least-squares slope of log(seconds) against log(users)."""
    return float(np.polyfit(np.log(users), np.log(seconds), 1)[0])


def plot(rows: list[dict], path: Path) -> dict[str, float]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    users = [r["users"] for r in rows]
    fits = {}
    fig, ax = plt.subplots(figsize=(6, 4.2))
    for key, label, marker in (("suite_plus_curves_s", "evaluate(..., curves=100)", "o"),
                               ("engine_s", "engine (hit table + suite + curves)", "s")):
        seconds = [r[key] for r in rows]
        fits[key] = slope(users, seconds)
        ax.loglog(users, seconds, marker=marker, label=f"{label}: slope {fits[key]:.2f}")
    ref = np.array([users[0], users[-1]], dtype=float)
    t0 = rows[-1]["suite_plus_curves_s"]
    ax.loglog(ref, t0 * ref / ref[-1], ls=":", color="grey", label="linear (slope 1)")
    ax.set_xlabel("users (100 recommendations each)")
    ax.set_ylabel("seconds (median of warm runs)")
    ax.set_title("evalkit ranking metrics: time against users")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return fits


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, nargs="+", default=list(USERS))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args(argv)
    rows = measure(sorted(args.users), repeats=args.repeats)
    fits = plot(rows, args.out / "scaling.png")
    print(f"fitted log-log slopes: {fits}")
    (args.out / "scaling.json").write_text(
        json.dumps({"rows": rows, "slopes": fits}, indent=2) + "\n")
    print(f"wrote {args.out / 'scaling.png'} and {args.out / 'scaling.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
