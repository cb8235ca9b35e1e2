"""Reference values from rs_metrics for the beyond-accuracy metrics:
``fixtures/beyond_rs_metrics.json``.

Run in an environment with rs_metrics (not evalkit's)::

    python3.11 -m venv /tmp/ref-rsmetrics
    /tmp/ref-rsmetrics/bin/pip install rs_metrics==0.6.0
    /tmp/ref-rsmetrics/bin/python tests/references/beyond_rs_metrics.py

rs_metrics takes ``user_id, item_id`` frames: the recommendations in rank order (it groups
them into lists in row order and cuts at k), the training rows as ``log``, and for
``coverage`` the distinct training items. Its ``popularity`` and ``surprisal`` return the mean
over users only.
"""

from __future__ import annotations

import sys
from importlib.metadata import version
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import beyond_inputs as bi  # noqa: E402

# This folder holds the ranking references' rs_metrics.py: drop it from the path before
# importing the library.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

import rs_metrics  # noqa: E402

OUT = HERE / "fixtures" / "beyond_rs_metrics.json"
SOURCE_FILES = ["rs_metrics/metrics.py", "rs_metrics/statistics.py", "rs_metrics/parallel.py",
                "rs_metrics/helpers.py"]


def run(case: str) -> list[dict]:
    train, recs, _ = bi.CASES[case]()
    pred = recs.sort_values(["user_id", "rank"])[["user_id", "item_id"]]
    items = train["item_id"].unique()
    out = []
    for k in bi.KS[case]:
        unseen = bool((~recs.loc[recs["rank"] <= k, "item_id"].isin(items)).any())
        out.append(bi.entry(
            case, k, f"popularity(train, recs, k={k})", rs_metrics.popularity(train, pred, k=k),
            {"func": "average_recommended_popularity", "args": ["recs", "train"],
             "kwargs": {"k": k, "popularity": "users"}, "reduce": "mean"},
        ))
        out.append(bi.entry(
            case, k, f"surprisal(train, recs, k={k})", rs_metrics.surprisal(train, pred, k=k),
            None if unseen else
            {"func": "novelty", "args": ["recs", "train"], "kwargs": {"k": k}, "reduce": "mean"},
            "an item unseen in training: rs_metrics gives it log2(n), i.e. p = 1/n"
            if unseen else None,
        ))
        out.append(bi.entry(
            case, k, f"coverage(<train items>, recs, k={k})",
            rs_metrics.coverage(items, pred, k=k),
            {"func": "catalog_coverage", "args": ["recs"], "kwargs": {"k": k, "catalog": "@train"},
             "reduce": "value"},
        ))
    return out


def main() -> None:
    values = [e for case in bi.CASES for e in run(case)]
    bi.write_fixture(OUT, {
        "library": "rs_metrics",
        "version": version("rs_metrics"),
        "source_files": SOURCE_FILES,
        "inputs_description": "tests/references/beyond_inputs.py cases small, ragged, real",
        "tolerance": 1e-9,
        "values": values,
    })
    print(f"wrote {OUT} ({len(values)} values)")


if __name__ == "__main__":
    main()
