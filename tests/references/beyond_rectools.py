"""Reference values from rectools (MTS) for the beyond-accuracy metrics:
``fixtures/beyond_rectools.json``.

Run in an environment with rectools (not evalkit's)::

    python3.11 -m venv /tmp/ref-rectools
    /tmp/ref-rectools/bin/pip install rectools==0.19.0
    /tmp/ref-rectools/bin/python tests/references/beyond_rectools.py

rectools reads ranks, never scores: ``reco`` is the recommendations with their ``rank``,
``prev_interactions`` the training rows (the repeated pair of the hand-made case included,
as given), ``catalog`` the distinct training items. Per-user values come from
``calc_per_user``; ``calc_metrics`` is called too and must give their mean.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import beyond_inputs as bi  # noqa: E402

# This folder holds the ranking references' rectools.py: drop it from the path before
# importing the library.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

import rectools  # noqa: E402
from rectools import Columns  # noqa: E402
from rectools.metrics import (  # noqa: E402
    AvgRecPopularity,
    CatalogCoverage,
    MeanInvUserFreq,
    calc_metrics,
)

OUT = HERE / "fixtures" / "beyond_rectools.json"
SOURCE_FILES = [
    "rectools/metrics/catalog.py",
    "rectools/metrics/popularity.py",
    "rectools/metrics/novelty.py",
    "rectools/metrics/scoring.py",
]


def run(case: str) -> list[dict]:
    train, recs, _ = bi.CASES[case]()
    reco = recs[["user_id", "item_id", "rank"]].rename(
        columns={"user_id": Columns.User, "item_id": Columns.Item, "rank": Columns.Rank}
    )
    prev = train.rename(columns={"user_id": Columns.User, "item_id": Columns.Item})
    catalog = prev[Columns.Item].unique()
    out = []
    for k in bi.KS[case]:
        unseen = bool((~reco.loc[reco[Columns.Rank] <= k, Columns.Item].isin(catalog)).any())
        metrics = {"count": CatalogCoverage(k=k), "share": CatalogCoverage(k=k, normalize=True),
                   "arp": AvgRecPopularity(k=k), "miuf": MeanInvUserFreq(k=k)}
        together = calc_metrics(metrics, reco=reco, prev_interactions=prev, catalog=catalog)
        for unit in ("count", "share"):
            value = metrics[unit].calc(reco, catalog)
            assert value == together[unit]
            out.append(bi.entry(
                case, k, f"CatalogCoverage(k={k}, normalize={unit == 'share'}).calc(reco, "
                         "catalog)", value,
                {"func": "catalog_coverage", "args": ["recs"],
                 "kwargs": {"k": k, "catalog": "@train", "coverage_unit": unit},
                 "reduce": "value"} if not unseen else None,
                "an item outside the catalog: rectools counts it, evalkit leaves it out"
                if unseen else None,
            ))
        arp = metrics["arp"].calc_per_user(reco, prev)
        assert abs(arp.mean() - together["arp"]) < 1e-12
        out.append(bi.entry(
            case, k, f"AvgRecPopularity(k={k}).calc_per_user(reco, prev_interactions)",
            arp.to_dict(),
            {"func": "average_recommended_popularity", "args": ["recs", "train"],
             "kwargs": {"k": k}, "reduce": "per_user"},
        ))
        miuf = metrics["miuf"].calc_per_user(reco, prev)
        assert abs(miuf.mean() - together["miuf"]) < 1e-12
        out.append(bi.entry(
            case, k, f"MeanInvUserFreq(k={k}).calc_per_user(reco, prev_interactions)",
            miuf.to_dict(),
            {"func": "novelty", "args": ["recs", "train"], "kwargs": {"k": k},
             "reduce": "per_user"} if not unseen else None,
            "an item unseen in training: rectools gives it p = 1/n, evalkit 1/(n + 1)"
            if unseen else None,
        ))
    return out


def main() -> None:
    values = [e for case in bi.CASES for e in run(case)]
    bi.write_fixture(OUT, {
        "library": "rectools",
        "version": rectools.__version__,
        "source_files": SOURCE_FILES,
        "inputs_description": "tests/references/beyond_inputs.py cases small, ragged, real",
        "tolerance": 1e-9,
        "values": values,
    })
    print(f"wrote {OUT} ({len(values)} values)")


if __name__ == "__main__":
    main()
