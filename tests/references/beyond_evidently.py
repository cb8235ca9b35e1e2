"""Reference values from Evidently for the beyond-accuracy metrics:
``fixtures/beyond_evidently.json``.

Run in an environment with Evidently (not evalkit's); Evidently 0.7.23 needs pandas < 3::

    python3.11 -m venv /tmp/ref-evidently
    /tmp/ref-evidently/bin/pip install evidently==0.7.23 "pandas<3"
    /tmp/ref-evidently/bin/python tests/references/beyond_evidently.py

Evidently is fed as its users do, through a (legacy) ``Report``: the current data are the
recommendations with their ``rank`` as the prediction (``RecomType.RANK``), a dummy target and
one 0/1 column per genre (``item_features`` of ``DiversityMetric``); the training data go in
``additional_data={"current_train_data": ...}``. The new API's ``Personalization``,
``Diversity``, ``Novelty`` and ``PopularityBiasMetric`` wrap these legacy metrics.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import beyond_inputs as bi  # noqa: E402

# This folder may hold a module named like the library (the ranking references'): drop it
# from the path before importing the library.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

import evidently  # noqa: E402
from evidently.legacy.metrics import (  # noqa: E402
    DiversityMetric,
    NoveltyMetric,
    PersonalizationMetric,
    PopularityBias,
)
from evidently.legacy.pipeline.column_mapping import ColumnMapping, RecomType  # noqa: E402
from evidently.legacy.report import Report  # noqa: E402

OUT = HERE / "fixtures" / "beyond_evidently.json"
SOURCE_FILES = [
    "evidently/legacy/metrics/recsys/personalisation.py",
    "evidently/legacy/metrics/recsys/diversity.py",
    "evidently/legacy/metrics/recsys/pairwise_distance.py",
    "evidently/legacy/metrics/recsys/novelty.py",
    "evidently/legacy/metrics/recsys/popularity_bias.py",
    "evidently/legacy/metrics/recsys/train_stats.py",
]


def run(case: str) -> list[dict]:
    train, recs, items = bi.CASES[case]()
    genres = bi.genre_matrix(items)
    features = list(genres.columns)
    current = recs[["user_id", "item_id", "rank"]].merge(
        genres, left_on="item_id", right_index=True, how="left"
    )
    current[features] = current[features].fillna(0)
    current["target"] = 0
    train_data = train.merge(genres, left_on="item_id", right_index=True, how="left")
    mapping = ColumnMapping(user_id="user_id", item_id="item_id", prediction="rank",
                            target="target", recommendations_type=RecomType.RANK)
    out = []
    for k in bi.KS[case]:
        report = Report(metrics=[PersonalizationMetric(k=k),
                                 DiversityMetric(k=k, item_features=features),
                                 NoveltyMetric(k=k), PopularityBias(k=k)])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            report.run(reference_data=None, current_data=current, column_mapping=mapping,
                       additional_data={"current_train_data": train_data})
        result = {m["metric"]: m["result"] for m in report.as_dict()["metrics"]}
        top = recs.loc[recs["rank"] <= k]
        full = bool(top.groupby("user_id").size().eq(k).all())
        unseen = bool((~top["item_id"].isin(train["item_id"])).any())
        out.append(bi.entry(
            case, k, f"PersonalizationMetric(k={k}): current_value",
            result["PersonalizationMetric"]["current_value"],
            {"func": "personalization", "args": ["recs"], "kwargs": {"k": k}, "reduce": "value"}
            if full else None,
            None if full else "lists shorter than k: Evidently subtracts m*k, not the rows",
        ))
        out.append(bi.entry(
            case, k, f"DiversityMetric(k={k}, item_features=<genre columns>): current_value",
            result["DiversityMetric"]["current_value"],
            {"func": "intra_list_diversity", "args": ["recs", "items"],
             "kwargs": {"k": k, "diversity_norm": "length", "empty": "zero"}, "reduce": "mean"},
        ))
        out.append(bi.entry(
            case, k, f"NoveltyMetric(k={k}): current_value",
            result["NoveltyMetric"]["current_value"],
            None if unseen else
            {"func": "novelty", "args": ["recs", "train"], "kwargs": {"k": k}, "reduce": "mean"},
            "an item unseen in training: Evidently drops it from the user's mean"
            if unseen else None,
        ))
        bias = result["PopularityBias"]
        out.append(bi.entry(
            case, k, f"PopularityBias(k={k}): current_apr", bias["current_apr"],
            None if unseen else
            {"func": "average_recommended_popularity", "args": ["recs", "train_unique"],
             "kwargs": {"k": k}, "reduce": "mean"},
            "an item unseen in training: Evidently drops it from the user's mean"
            if unseen else None,
        ))
        out.append(bi.entry(
            case, k, f"PopularityBias(k={k}): current_gini", bias["current_gini"],
            {"func": "gini_index", "args": ["recs"], "kwargs": {"k": k, "gini_scale": "unbiased"},
             "reduce": "value"},
        ))
        out.append(bi.entry(
            case, k, f"PopularityBias(k={k}): current_coverage", bias["current_coverage"],
            {"func": "catalog_coverage", "args": ["recs"], "kwargs": {"k": k, "catalog": "@train"},
             "reduce": "value"},
        ))
    return out


def main() -> None:
    values = [e for case in bi.CASES for e in run(case)]
    bi.write_fixture(OUT, {
        "library": "evidently",
        "version": evidently.__version__,
        "source_files": SOURCE_FILES,
        "inputs_description": "tests/references/beyond_inputs.py cases small, ragged, real",
        "tolerance": 1e-9,
        "values": values,
    })
    print(f"wrote {OUT} ({len(values)} values)")


if __name__ == "__main__":
    main()
