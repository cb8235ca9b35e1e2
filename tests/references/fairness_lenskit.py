"""Reference values from LensKit for the item-group distribution of lists:
``fixtures/fairness_lenskit.json``.

Run in an environment with LensKit (not evalkit's)::

    python3.11 -m venv /tmp/ref-lenskit
    /tmp/ref-lenskit/bin/pip install lenskit==2025.8.1 pandas
    /tmp/ref-lenskit/bin/python tests/references/fairness_lenskit.py

LensKit 2025.8.1 measures the categories of a list with two functions,
``entropy(items, categories, n=k)`` and ``rank_biased_entropy(items, categories, weight=...,
n=k)`` (``lenskit/metrics/ranking/_entropy.py``): ``categories`` is an item x category matrix
whose rows are the list's items in list order, cut to the first ``n`` rows. They are fed as
LensKit's data API gives that matrix: a ``Dataset`` whose items carry the genres of
``beyond_inputs.py`` as a list attribute, ``cat_matrix(normalize="distribution")`` of that
attribute (each item's row sums to 1: a multi-genre item splits its weight equally; an item
without genres has a zero row), and the rows of each list's items taken by their numbers in
the item vocabulary; per list, LensKit's value for every user of ``recs``. The genres go in
as their positions among the sorted genre names: ``cat_matrix`` fails on a list attribute of
strings (pyarrow refuses a zero-copy ``to_numpy`` of string values).

``cat_matrix`` holds float32 (a third is 0.33333334): the values carry a tolerance of 1e-6
(measured against evalkit: up to 1.3e-8). The unweighted ``entropy`` also sums the matrix
and adds its 1e-6 smoothing in float32 (whose spacing is 9.5e-7 between 8 and 16):
tolerance 5e-6 (measured: 6.6e-7). Without the smoothing evalkit's values differ by up to
1.3e-4.
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

import numpy as np  # noqa: E402
from lenskit.data import DatasetBuilder, ItemList  # noqa: E402
from lenskit.metrics import GeometricRankWeight, LogRankWeight  # noqa: E402
from lenskit.metrics.ranking import entropy, rank_biased_entropy  # noqa: E402

OUT = HERE / "fixtures" / "fairness_lenskit.json"
SOURCE_FILES = [
    "lenskit/metrics/ranking/_entropy.py",
    "lenskit/metrics/ranking/_weighting.py",
    "lenskit/data/attributes.py",
    "lenskit/data/matrix.py",
]
#: LensKit adds this to every category's (weighted) mass before normalising.
SMOOTHING = 1e-6
FLOAT32_TOL = 1e-6
ENTROPY_TOL = 5e-6
CASES = ("small", "ragged", "real")
#: The cutoffs: beyond_inputs.KS, with k = 10 only on ml-latest-small (a small fixture).
KS = {**bi.KS, "real": (10,)}


def run(case: str) -> list[dict]:
    _, recs, items = bi.CASES[case]()
    builder = DatasetBuilder()
    builder.add_entities("item", items["item_id"].to_numpy())
    # the genres as their positions among the sorted genre names (see the module docstring)
    names = sorted({g for gs in items["genres"] for g in gs})
    code = {g: i for i, g in enumerate(names)}
    builder.add_list_attribute("item", "genres", items["item_id"].to_numpy(),
                               [[code[g] for g in gs] for gs in items["genres"]])
    data = builder.build()
    item_set = data.entities("item")
    vocab = item_set.vocabulary
    matrix, _ = item_set.attribute("genres").cat_matrix(normalize="distribution")
    lists = bi.top_lists(recs, int(recs["rank"].max()))
    out = []
    for k in KS[case]:
        specs = {
            "entropy": (f"entropy(items, categories, n={k})",
                        lambda il, c, k=k: entropy(il, c, n=k), {"weight": "uniform"}),
            "rank_biased_entropy": (
                f"rank_biased_entropy(items, categories, n={k})",
                lambda il, c, k=k: rank_biased_entropy(il, c, n=k),
                {"weight": "geometric", "patience": 0.85}),
            "rank_biased_entropy:patience50": (
                f"rank_biased_entropy(items, categories, n={k}, "
                "weight=GeometricRankWeight(0.5))",
                lambda il, c, k=k: rank_biased_entropy(il, c, n=k,
                                                       weight=GeometricRankWeight(0.5)),
                {"weight": "geometric", "patience": 0.5}),
            "rank_biased_entropy:log_offset1": (
                f"rank_biased_entropy(items, categories, n={k}, "
                "weight=LogRankWeight(offset=1))",
                lambda il, c, k=k: rank_biased_entropy(il, c, n=k,
                                                       weight=LogRankWeight(offset=1)),
                {"weight": "log"}),
        }
        for label, (call, measure, options) in specs.items():
            per_user = {}
            for user, listed in lists.items():
                items_of = np.asarray(listed)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    per_user[user] = float(measure(ItemList(item_ids=items_of),
                                                   matrix[vocab.numbers(items_of), :]))
            e = bi.entry(case, k, f"{call} [categories: cat_matrix(normalize='distribution')]",
                         per_user, {"func": "group_entropy", "args": ["recs", "item_genres"],
                                    "kwargs": {"k": k, **options, "smoothing": SMOOTHING},
                                    "reduce": "per_user"})
            if label == "entropy":  # float32 sums plus 1e-6, in float32
                e["tolerance"] = ENTROPY_TOL
            out.append(e)
    return out


def main() -> None:
    values = [e for case in CASES for e in run(case)]
    bi.write_fixture(OUT, {
        "library": "lenskit",
        "version": version("lenskit"),
        "source_files": SOURCE_FILES,
        "inputs_description": "tests/references/beyond_inputs.py cases small, ragged, real; "
                              "item_genres = the case's items frame, one row per "
                              "(item, genre)",
        "tolerance": FLOAT32_TOL,
        "values": values,
    })
    print(f"wrote {OUT} ({len(values)} values)")


if __name__ == "__main__":
    main()
