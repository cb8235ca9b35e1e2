"""Reference values from LensKit for the beyond-accuracy metrics:
``fixtures/beyond_lenskit.json``.

Run in an environment with LensKit (not evalkit's)::

    python3.11 -m venv /tmp/ref-lenskit
    /tmp/ref-lenskit/bin/pip install lenskit==2025.8.1
    /tmp/ref-lenskit/bin/python tests/references/beyond_lenskit.py

LensKit is fed as its users do: the outputs are ``ItemListCollection.from_df(recs sorted by
user and rank, "user_id")``, measured with ``RunAnalysis().measure(outputs, outputs)`` (these
metrics never read the test lists). ``ExposureGini`` and ``ListGini`` get ``items=`` the
number of items in the case's items frame (every recommended item is one of them; LensKit
fails when more distinct items are recommended than ``items`` says) and are read from
``global_metrics()``. ``MeanPopRank`` gets a ``Dataset`` of the training rows built with
``DatasetBuilder.add_interactions(..., allow_repeats=True)``, so that its ``count="users"`` and
``count="interactions"`` differ on the repeated pair, and is read per list from
``list_metrics()``. LensKit sums exposures in float32: ``ExposureGini`` values carry a
tolerance of 1e-6.
"""

from __future__ import annotations

import sys
import warnings
from importlib.metadata import version
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import beyond_inputs as bi  # noqa: E402

# This folder holds the ranking references' lenskit.py: drop it from the path before importing
# the library.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

from lenskit.data import DatasetBuilder, ItemListCollection  # noqa: E402
from lenskit.metrics import GeometricRankWeight, LogRankWeight, RunAnalysis  # noqa: E402
from lenskit.metrics.ranking import ExposureGini, ListGini, MeanPopRank  # noqa: E402

OUT = HERE / "fixtures" / "beyond_lenskit.json"
SOURCE_FILES = [
    "lenskit/metrics/ranking/_gini.py",
    "lenskit/metrics/ranking/_pop.py",
    "lenskit/metrics/ranking/_weighting.py",
    "lenskit/stats.py",
    "lenskit/data/dataset.py",
]
FLOAT32_TOL = 1e-6


def run(case: str) -> list[dict]:
    train, recs, items = bi.CASES[case]()
    builder = DatasetBuilder()
    builder.add_interactions("interaction", train, entities=["user", "item"], missing="insert",
                             allow_repeats=True, default=True)
    data = builder.build()
    ordered = recs.sort_values(["user_id", "rank"])[["user_id", "item_id", "score", "rank"]]
    outputs = ItemListCollection.from_df(ordered, "user_id")
    n_items = len(items)
    out = []
    for k in bi.KS[case]:
        specs = {
            "ExposureGini": (f"ExposureGini(n={k}, items={n_items})",
                             ExposureGini(n=k, items=n_items),
                             {"weight": "geometric"}, FLOAT32_TOL),
            "ExposureGini:patience50": (
                f"ExposureGini(n={k}, items={n_items}, weight=GeometricRankWeight(0.5))",
                ExposureGini(n=k, items=n_items, weight=GeometricRankWeight(0.5)),
                {"weight": "geometric", "patience": 0.5}, FLOAT32_TOL),
            "ExposureGini:log": (
                f"ExposureGini(n={k}, items={n_items}, weight=LogRankWeight())",
                ExposureGini(n=k, items=n_items, weight=LogRankWeight()),
                {"weight": "log"}, FLOAT32_TOL),
            "ListGini": (f"ListGini(n={k}, items={n_items})", ListGini(n=k, items=n_items),
                         None, None),
        }
        pop_specs = {
            "MeanPopRank": (f"MeanPopRank(data, n={k})", MeanPopRank(data, n=k), "users"),
            "MeanPopRank:interactions": (
                f'MeanPopRank(data, n={k}, count="interactions")',
                MeanPopRank(data, n=k, count="interactions"), "interactions"),
        }
        analysis = RunAnalysis()
        for label, spec in (specs | pop_specs).items():
            analysis.add_metric(spec[1], label=label)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = analysis.measure(outputs, outputs)
            global_values = result.global_metrics()
            per_list = result.list_metrics()
        for label, (call, _, options, tol) in specs.items():
            if options is None:
                evalkit = {"func": "gini_index", "args": ["recs"],
                           "kwargs": {"k": k, "catalog": "@items"}, "reduce": "value"}
            else:
                evalkit = {"func": "exposure_gini", "args": ["recs"],
                           "kwargs": {"k": k, "catalog": "@items", **options}, "reduce": "value"}
            e = bi.entry(case, k, f"RunAnalysis({call}).measure(...).global_metrics()",
                         global_values[label], evalkit)
            if tol is not None:
                e["tolerance"] = tol
            out.append(e)
        for label, (call, _, unit) in pop_specs.items():
            out.append(bi.entry(
                case, k, f"RunAnalysis({call}).measure(...).list_metrics()",
                per_list[label].astype(float).to_dict(),
                {"func": "mean_pop_rank", "args": ["recs", "train"],
                 "kwargs": {"k": k, "popularity": unit}, "reduce": "per_user"},
            ))
    return out


def main() -> None:
    values = [e for case in bi.CASES for e in run(case)]
    bi.write_fixture(OUT, {
        "library": "lenskit",
        "version": version("lenskit"),
        "source_files": SOURCE_FILES,
        "inputs_description": "tests/references/beyond_inputs.py cases small, ragged, real; "
                              "catalog = the case's items frame",
        "tolerance": 1e-9,
        "values": values,
    })
    print(f"wrote {OUT} ({len(values)} values)")


if __name__ == "__main__":
    main()
