"""Reference values from recmetrics for the beyond-accuracy metrics:
``fixtures/beyond_recmetrics.json``.

Run in an environment with recmetrics (not evalkit's). recmetrics 0.1.5 pins pandas < 2, which
needs NumPy < 2, and imports seaborn 0.11, which needs matplotlib < 3.9::

    python3.11 -m venv /tmp/ref-recmetrics
    /tmp/ref-recmetrics/bin/pip install recmetrics==0.1.5 "numpy<2" "scikit-learn<1.6" \\
        "scipy<1.14" "matplotlib<3.9"
    /tmp/ref-recmetrics/bin/python tests/references/beyond_recmetrics.py

recmetrics takes lists of lists: each user's top-k items in rank order. Lists shorter than the
longest are padded with ``None`` (a ragged list of lists fails in ``np.array``); one ``None``
is not an item (its pivot drops it), two in one list make the pivot fail on duplicate
entries, so ``personalization`` is compared where lengths differ by at most one.
``intra_list_similarity`` gets the 0/1 genre matrix indexed by item id; ``novelty`` gets each
item's number of distinct training users, the number of training users and the list length.
"""

from __future__ import annotations

import sys
import warnings
from importlib.metadata import version
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import beyond_inputs as bi  # noqa: E402

# This folder may hold a module named like the library (the ranking references'): drop it
# from the path before importing the library.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

import recmetrics  # noqa: E402

OUT = HERE / "fixtures" / "beyond_recmetrics.json"
SOURCE_FILES = ["recmetrics/metrics.py"]


def run(case: str) -> list[dict]:
    train, recs, items = bi.CASES[case]()
    genres = bi.genre_matrix(items)
    pop = train.drop_duplicates().groupby("item_id")["user_id"].nunique().to_dict()
    n_users = train["user_id"].nunique()
    out = []
    for k in bi.KS[case]:
        lists = list(bi.top_lists(recs, k).values())
        longest = max(map(len, lists))
        if longest - min(map(len, lists)) <= 1:  # two Nones in a row break its pivot
            padded = [items_ + [None] * (longest - len(items_)) for items_ in lists]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                value = recmetrics.personalization(padded)
            out.append(bi.entry(
                case, k, "personalization(<top-k lists, padded with None>)", value,
                {"func": "personalization", "args": ["recs"], "kwargs": {"k": k},
                 "reduce": "value"},
            ))
        if min(map(len, lists)) >= 2:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ils = recmetrics.intra_list_similarity(lists, genres)
            out.append(bi.entry(
                case, k, "intra_list_similarity(<top-k lists>, <genre matrix>)", ils,
                {"func": "intra_list_diversity", "args": ["recs", "items"], "kwargs": {"k": k},
                 "reduce": "one_minus_mean"},
            ))
        full = all(len(x) == k for x in lists)
        seen = all(i in pop for x in lists for i in x)
        if full and seen:
            value, _ = recmetrics.novelty(lists, pop, n_users, k)
            out.append(bi.entry(
                case, k, f"novelty(<top-k lists>, <distinct users per item>, {n_users}, {k})",
                value,
                {"func": "novelty", "args": ["recs", "train"], "kwargs": {"k": k},
                 "reduce": "mean"},
            ))
    return out


def main() -> None:
    values = [e for case in bi.CASES for e in run(case)]
    bi.write_fixture(OUT, {
        "library": "recmetrics",
        "version": version("recmetrics"),
        "source_files": SOURCE_FILES,
        "inputs_description": "tests/references/beyond_inputs.py cases small, ragged, real; "
                              "intra_list_similarity only where every list has 2 items or more "
                              "(a one-item list gives NaN), novelty only where every list has k "
                              "items seen in training (recmetrics divides by the n it is given "
                              "and fails on unseen items)",
        "tolerance": 1e-9,
        "values": values,
    })
    print(f"wrote {OUT} ({len(values)} values)")


if __name__ == "__main__":
    main()
