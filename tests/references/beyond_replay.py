"""Reference values from RePlay (Sber AI Lab, ``replay-rec``) for the beyond-accuracy metrics:
``fixtures/beyond_replay.json``.

Run in an environment with RePlay (not evalkit's)::

    python3.11 -m venv /tmp/ref-replay
    /tmp/ref-replay/bin/pip install replay-rec==0.22.0
    /tmp/ref-replay/bin/python tests/references/beyond_replay.py

RePlay reads scores: ``recommendations`` are ``query_id, item_id, rating`` with the score as
``rating`` (100 - rank: no ties, so RePlay's own tie order, item id descending, never acts);
``train`` is ``query_id, item_id``. Per-user values come from ``mode=PerUser()``, the mean
from the default mode.
"""

from __future__ import annotations

import sys
from importlib.metadata import version
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import beyond_inputs as bi  # noqa: E402

# This folder holds the ranking references' replay.py: drop it from the path before importing
# the library.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

from replay.metrics import Coverage, PerUser, Surprisal  # noqa: E402

OUT = HERE / "fixtures" / "beyond_replay.json"
SOURCE_FILES = ["replay/metrics/surprisal.py", "replay/metrics/coverage.py",
                "replay/metrics/base_metric.py"]


def run(case: str) -> list[dict]:
    train, recs, _ = bi.CASES[case]()
    recommendations = recs.rename(columns={"user_id": "query_id", "score": "rating"})
    recommendations = recommendations[["query_id", "item_id", "rating"]]
    train_frame = train.rename(columns={"user_id": "query_id"})
    ks = list(bi.KS[case])
    per_user = Surprisal(ks, mode=PerUser())(recommendations, train_frame)
    means = Surprisal(ks)(recommendations, train_frame)
    coverage = Coverage(ks)(recommendations, train_frame)
    out = []
    for k in ks:
        top = recs.loc[recs["rank"] <= k]
        full = bool(top.groupby("user_id").size().eq(k).all())
        unseen = bool((~top["item_id"].isin(train["item_id"])).any())
        values = per_user[f"Surprisal-PerUser@{k}"]
        assert abs(sum(values.values()) / len(values) - means[f"Surprisal@{k}"]) < 1e-12
        note = None
        if not full:
            note = "lists shorter than k: RePlay divides the sum by k"
        if unseen:
            note = (note + "; " if note else "") + "an item unseen in training weighs 1 (p = 1/n)"
        out.append(bi.entry(
            case, k, f"Surprisal({ks}, mode=PerUser())(recommendations, train)"
                     f"['Surprisal-PerUser@{k}']", values,
            None if note else
            {"func": "novelty", "args": ["recs", "train"],
             "kwargs": {"k": k, "novelty_norm": "log2_users"}, "reduce": "per_user"},
            note,
        ))
        out.append(bi.entry(
            case, k, f"Coverage({ks})(recommendations, train)['Coverage@{k}']",
            coverage[f"Coverage@{k}"],
            {"func": "catalog_coverage", "args": ["recs"], "kwargs": {"k": k, "catalog": "@train"},
             "reduce": "value"},
        ))
    return out


def main() -> None:
    values = [e for case in bi.CASES for e in run(case)]
    bi.write_fixture(OUT, {
        "library": "replay",
        "version": version("replay-rec"),
        "source_files": SOURCE_FILES,
        "inputs_description": "tests/references/beyond_inputs.py cases small, ragged, real",
        "tolerance": 1e-9,
        "values": values,
    })
    print(f"wrote {OUT} ({len(values)} values)")


if __name__ == "__main__":
    main()
