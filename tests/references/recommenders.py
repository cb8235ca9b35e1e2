"""Reference values from Microsoft Recommenders on the shared inputs:
``fixtures/recommenders.json``.

Run in an environment with recommenders and pandas (not evalkit's)::

    python3.11 -m venv /tmp/ref-recommenders
    /tmp/ref-recommenders/bin/pip install recommenders pandas
    /tmp/ref-recommenders/bin/python tests/references/recommenders.py

How ``recommenders.evaluation.python_evaluation`` is fed, as its notebooks do (``rating_true``
the test frame, ``rating_pred`` the scored top-k frame, ``relevancy_method="top_k"``):

- ``rating_true``: the relevant test rows only (rating >= 4.0), columns ``user_id, item_id,
  rating``. The library has no relevance threshold: every row of ``rating_true`` is relevant,
  and the ``rating`` column is the graded gain of ``ndcg_at_k(score_type="raw"|"exp")``. Variants
  ``:all_test_rows`` (NDCG raw and exp only) pass every test row instead.
- ``rating_pred``: the 20 recommendations per user, columns ``user_id, item_id, prediction``
  with ``prediction`` = the list's score; rows in rank order (score desc, item id asc). The
  library ranks by ``prediction`` itself (``get_top_k_items``: a stable sort of the scores, so
  tied scores keep the row order, here item id ascending); this script checks that its ranks are
  the given ``rank``.

The library returns means only. Per-user values are the same function called on one user's
rows (``n_users`` is then 1); the mean is the call on all users.
"""

from __future__ import annotations

import math
import platform
import sys
from importlib.metadata import version
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import inputs  # noqa: E402

# This file is named like the library: drop its folder from the path before importing it.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

import numpy as np  # noqa: E402
from recommenders.evaluation import python_evaluation as pe  # noqa: E402

KS = (5, 10, 20)
OUT = HERE / "fixtures" / "recommenders.json"
SOURCE_FILES = [
    "recommenders/evaluation/python_evaluation.py",
    "recommenders/datasets/pandas_df_utils.py",
]
COLS = {"col_user": "user_id", "col_item": "item_id", "col_prediction": "prediction"}


def main() -> None:
    train, truth, recs = inputs.load()
    ordered = recs.sort_values(["user_id", "rank"], kind="stable")
    rating_pred = ordered[["user_id", "item_id", "score"]].rename(columns={"score": "prediction"})
    rating_pred = rating_pred.reset_index(drop=True)
    rated = truth[["user_id", "item_id", "rating"]].reset_index(drop=True)
    positives = rated[rated["rating"] >= inputs.THRESHOLD].reset_index(drop=True)

    # the library's own ranks of the tied scores are the given ranks
    ranked = pe.get_top_k_items(rating_pred.copy(), col_user="user_id",
                                col_rating="prediction", k=inputs.LIST_LENGTH)
    check = ranked.merge(ordered[["user_id", "item_id", "rank"]], on=["user_id", "item_id"],
                         suffixes=("_lib", ""))
    if len(check) != len(ordered) or not (check["rank_lib"] == check["rank"]).all():
        raise AssertionError("get_top_k_items does not reproduce the given ranks")

    specs: dict[str, tuple[str, object, dict, str]] = {}
    for k in KS:
        specs |= {
            f"precision@{k}": ("precision_at_k", pe.precision_at_k, {"k": k}, "positives"),
            f"recall@{k}": ("recall_at_k", pe.recall_at_k, {"k": k}, "positives"),
            f"r_precision@{k}:at_k": ("r_precision_at_k", pe.r_precision_at_k, {"k": k},
                                      "positives"),
            f"map@{k}": ("map_at_k", pe.map_at_k, {"k": k}, "positives"),
            f"map@{k}:map": ("map", pe.map, {"k": k}, "positives"),
        }
        for score_type in ("binary", "raw", "exp"):
            key = f"ndcg@{k}" if score_type == "binary" else f"ndcg@{k}:{score_type}"
            specs[key] = ("ndcg_at_k", pe.ndcg_at_k,
                          {"k": k, "col_rating": "rating", "score_type": score_type},
                          "positives")
        for score_type in ("raw", "exp"):
            specs[f"ndcg@{k}:{score_type}_all_test_rows"] = (
                "ndcg_at_k", pe.ndcg_at_k,
                {"k": k, "col_rating": "rating", "score_type": score_type}, "rated")

    true_frames = {"positives": positives, "rated": rated}
    by_user = {
        name: dict(tuple(frame.groupby("user_id"))) for name, frame in true_frames.items()
    }
    pred_by_user = dict(tuple(rating_pred.groupby("user_id")))

    metrics = {}
    for key, (func_name, func, options, true_name) in specs.items():
        rating_true = true_frames[true_name]
        mean = float(func(rating_true, rating_pred, **COLS, **options))
        per_user = {}
        for user, user_true in by_user[true_name].items():
            value = func(user_true.reset_index(drop=True),
                         pred_by_user[user].reset_index(drop=True), **COLS, **options)
            per_user[str(int(user))] = inputs.json_float(value)
        values = np.array([np.nan if v is None else v for v in per_user.values()])
        if func_name != "r_precision_at_k" and not math.isclose(
                mean, float(values.mean()), rel_tol=0, abs_tol=1e-12):
            raise AssertionError(f"{key}: mean {mean} is not the mean of the users")
        args = ", ".join(f"{a}={v!r}" for a, v in options.items())
        metrics[key] = {
            "call": (f"recommenders.evaluation.python_evaluation.{func_name}(rating_true="
                     f"{true_name}, rating_pred, col_user='user_id', col_item='item_id', "
                     f"col_prediction='prediction', {args}); per user: the same call on the "
                     "user's rows"),
            "mean": mean,
            "per_user": per_user,
        }

    fixture = {
        "library": "recommenders",
        "version": version("recommenders"),
        "python": platform.python_version(),
        "source_files": SOURCE_FILES,
        "inputs": inputs.fingerprint(train, truth, recs),
        "fed": {
            "rating_true": "positives: truth rows with rating >= 4.0, columns user_id, item_id, "
                           "rating (users without a positive are absent, so the library never "
                           "sees them); rated (':all_test_rows'): every truth row",
            "rating_pred": "recs columns user_id, item_id and prediction = score, all 20 rows per "
                           "user in rank order; the library ranks the scores itself (stable, so "
                           "ties keep the row order: item id ascending = the given rank)",
            "relevancy_method": "top_k (the default)",
            "train": "not used",
        },
        "metrics": metrics,
    }
    inputs.write_fixture(OUT, fixture)
    print(f"wrote {OUT} ({len(metrics)} metrics)")


if __name__ == "__main__":
    main()
