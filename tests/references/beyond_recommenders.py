"""Reference values from Microsoft recommenders for the beyond-accuracy metrics:
``fixtures/beyond_recommenders.json``.

Run in an environment with recommenders (not evalkit's)::

    python3.11 -m venv /tmp/ref-recommenders
    /tmp/ref-recommenders/bin/pip install recommenders==1.2.1
    /tmp/ref-recommenders/bin/python tests/references/beyond_recommenders.py

recommenders reads every row it is given, so ``reco_df`` is each user's top k (``user_id,
item_id``); ``train_df`` is the training rows as given (the repeated pair of the hand-made case
included: ``novelty`` counts rows). ``user_diversity`` gets ``item_sim_measure=
"item_feature_vector"`` and a ``features`` column of 0/1 genre vectors for the recommended
items (its item-by-item cross join over the whole catalog would take hours) that have a genre
(a zero vector divides by zero there; a pair it lacks gets similarity 0, as in evalkit).
"""

from __future__ import annotations

import sys
import warnings
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import beyond_inputs as bi  # noqa: E402

# This folder holds the ranking references' recommenders.py: drop it from the path before
# importing the library.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

from recommenders.evaluation.python_evaluation import (  # noqa: E402
    catalog_coverage,
    distributional_coverage,
    novelty,
    user_diversity,
)

OUT = HERE / "fixtures" / "beyond_recommenders.json"
SOURCE_FILES = ["recommenders/evaluation/python_evaluation.py"]
COLS = {"col_user": "user_id", "col_item": "item_id"}


def run(case: str) -> list[dict]:
    train, recs, items = bi.CASES[case]()
    genres = bi.genre_matrix(items)
    out = []
    for k in bi.KS[case]:
        top = recs.loc[recs["rank"] <= k, ["user_id", "item_id"]].reset_index(drop=True)
        unseen = bool((~top["item_id"].isin(train["item_id"])).any())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = novelty(train, top, **COLS)
        out.append(bi.entry(
            case, k, "novelty(train_df, reco_df)", value,
            None if unseen else
            {"func": "novelty", "args": ["recs", "train"],
             "kwargs": {"k": k, "popularity": "interactions"}, "reduce": "row_mean"},
            "an item unseen in training: recommenders adds 0 for it but counts its row"
            if unseen else None,
        ))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = distributional_coverage(train, top, **COLS)
        out.append(bi.entry(
            case, k, "distributional_coverage(train_df, reco_df)", value,
            {"func": "exposure_entropy", "args": ["recs"], "kwargs": {"k": k}, "reduce": "value"},
        ))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = catalog_coverage(train, top, **COLS)
        out.append(bi.entry(
            case, k, "catalog_coverage(train_df, reco_df)", value,
            None if unseen else
            {"func": "catalog_coverage", "args": ["recs"], "kwargs": {"k": k, "catalog": "@train"},
             "reduce": "value"},
            "an item outside the training items: recommenders counts it" if unseen else None,
        ))
        if k >= 2:
            # an item without genres would divide by zero there; left out, its pairs get
            # similarity 0 (recommenders fills missing pairs with 0), as in evalkit
            shown = genres.loc[genres.index.isin(top["item_id"]) & (genres.sum(axis=1) > 0)]
            features = pd.DataFrame({
                "item_id": shown.index.to_numpy(),
                "features": [np.asarray(row, dtype=np.float64) for row in shown.to_numpy()],
            })
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                per_user = user_diversity(train, top, item_feature_df=features,
                                          item_sim_measure="item_feature_vector", **COLS)
            out.append(bi.entry(
                case, k, "user_diversity(train_df, reco_df, item_feature_df, "
                         "item_sim_measure='item_feature_vector')",
                dict(zip(per_user["user_id"], per_user["user_diversity"])),
                {"func": "intra_list_diversity", "args": ["recs", "items"], "kwargs": {"k": k},
                 "reduce": "per_user"},
            ))
    return out


def main() -> None:
    values = [e for case in bi.CASES for e in run(case)]
    bi.write_fixture(OUT, {
        "library": "recommenders",
        "version": version("recommenders"),
        "source_files": SOURCE_FILES,
        "inputs_description": "tests/references/beyond_inputs.py cases small, ragged, real; "
                              "user_diversity from k = 2 (a list needs a pair)",
        "tolerance": 1e-9,
        "values": values,
    })
    print(f"wrote {OUT} ({len(values)} values)")


if __name__ == "__main__":
    main()
