"""Reference values from recmetrics on the shared inputs: ``fixtures/recmetrics.json``.

Run in an environment with recmetrics and pandas (not evalkit's)::

    python3.11 -m venv /tmp/ref-recmetrics
    /tmp/ref-recmetrics/bin/pip install recmetrics pandas
    /tmp/ref-recmetrics/bin/python tests/references/recmetrics.py

How recmetrics is fed, as its README and example notebook do: ``actual`` is a list (one per
user) of the user's relevant test items (rating >= 4.0; recmetrics has no ratings and no
threshold, so users without a relevant item are left out: an empty ``actual`` would divide by
zero in ``recommender_recall``), ``predicted`` the user's recommended items in rank order (score
desc, item id asc). ``recommender_precision`` and ``recommender_recall`` take no k: they are
given the first k items of each list; ``mark`` takes ``k`` and cuts the lists itself. The users
are in ascending id order. Per-user values come from the same function called on a one-user list
(``recommender_precision([p], [a])``, ``mark([a], [p], k)``); the mean from one call on all users.
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

import recmetrics  # noqa: E402

KS = (5, 10, 20)
OUT = HERE / "fixtures" / "recmetrics.json"
SOURCE_FILES = ["recmetrics/metrics.py"]


def main() -> None:
    train, truth, recs = inputs.load()
    positives = truth[truth["rating"] >= inputs.THRESHOLD]
    relevant = positives.groupby("user_id")["item_id"].agg(list)
    ordered = recs.sort_values(["user_id", "rank"], kind="stable")
    listed = ordered.groupby("user_id")["item_id"].agg(list)
    users = sorted(relevant.index)
    actual = [[int(i) for i in relevant[u]] for u in users]
    predicted = [[int(i) for i in listed[u]] for u in users]

    metrics = {}

    def store(key: str, call: str, mean: float, per_user: list[float]) -> None:
        mean = float(mean)
        if not math.isclose(mean, sum(per_user) / len(per_user), rel_tol=0, abs_tol=1e-12):
            raise AssertionError(f"{key}: mean {mean} is not the mean of the users")
        metrics[key] = {"call": call, "mean": mean,
                        "per_user": {str(int(u)): float(v) for u, v in zip(users, per_user)}}

    for k in KS:
        top = [p[:k] for p in predicted]
        store(f"precision@{k}",
              "recmetrics.recommender_precision(predicted_k, actual) with predicted_k = each "
              f"list's first {k} items; per user: recommender_precision([p_k], [a])",
              recmetrics.recommender_precision(top, actual),
              [recmetrics.recommender_precision([p], [a]) for p, a in zip(top, actual)])
        store(f"recall@{k}",
              "recmetrics.recommender_recall(predicted_k, actual) with predicted_k = each "
              f"list's first {k} items; per user: recommender_recall([p_k], [a])",
              recmetrics.recommender_recall(top, actual),
              [recmetrics.recommender_recall([p], [a]) for p, a in zip(top, actual)])
        store(f"map@{k}:mark",
              f"recmetrics.mark(actual, predicted, k={k}); per user: mark([a], [p], k={k})",
              recmetrics.mark(actual, predicted, k=k),
              [recmetrics.mark([a], [p], k=k) for p, a in zip(predicted, actual)])

    fixture = {
        "library": "recmetrics",
        "version": version("recmetrics"),
        "python": platform.python_version(),
        "source_files": SOURCE_FILES,
        "inputs": inputs.fingerprint(train, truth, recs),
        "fed": {
            "actual": "per user (ascending id), the list of truth items with rating >= 4.0; users "
                      "without one are left out",
            "predicted": "per user, recs item ids in rank order (score desc, item id asc), all 20; "
                         "cut to the first k for recommender_precision / recommender_recall, "
                         "whole for mark (which cuts at k)",
            "train": "not used",
        },
        "metrics": metrics,
    }
    inputs.write_fixture(OUT, fixture)
    print(f"wrote {OUT} ({len(metrics)} metrics, {len(users)} users)")


if __name__ == "__main__":
    main()
