"""Reference values from Cornac on the shared inputs: ``fixtures/cornac.json``.

Run in an environment with Cornac (not evalkit's)::

    python3.11 -m venv /tmp/ref-cornac
    /tmp/ref-cornac/bin/pip install cornac pandas
    /tmp/ref-cornac/bin/python tests/references/cornac.py

How Cornac is fed, as its users do: ``BaseMethod.from_splits(train_data, test_data,
rating_threshold=4.0, exclude_unknowns=...)`` with (user, item, rating) triplets of ``train`` and
``truth`` (all ratings: Cornac applies the threshold itself), and a ``cornac.Experiment`` with
one model, ``FixedLists``, a ``Recommender`` whose ``score(user_idx)`` returns the ``score`` of
each of the user's 20 listed items and, for every other known item, a score below all of them
(``min(score) - 1``). Cornac ranks the candidates itself (``Recommender.rank``:
``np.argpartition`` for the top ``max_k`` = 20, then ``np.argsort`` of their scores, reversed), so
the listed items come first in Cornac's own order among tied scores; the rank is not fed.

``ranking_eval`` evaluates every test user with at least one test item rated >= 4.0 among the
candidates (with ``exclude_unknowns=True``: among items seen in training). Per-user values are
``result.metric_user_results`` (keyed by Cornac's user index, mapped back to user ids), the mean is
``result.metric_avg_results``. Metrics without a cutoff (``MRR``, ``MAP``, ``AUC``) rank the whole
candidate set, which fixed 20-item lists do not define: they are not stored.

Three runs: ``exclude_unknowns=True`` (the default of ``BaseMethod`` and of the splitting eval
methods) gives the plain metric names; ``exclude_unknowns=False`` (the default of
``from_splits``) the ``:keep_unknowns`` variants; and ``:rank_order`` is the first with
``score = 21 - rank`` for the listed items, so the given rank order (item id ascending among
tied scores) decides instead of numpy's order among tied scores, which follows Cornac's internal
item indices and changes with the candidate set.
"""

from __future__ import annotations

import math
import platform
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import inputs  # noqa: E402

# This file is named like the library: drop its folder from the path before importing it.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

import cornac  # noqa: E402
import numpy as np  # noqa: E402
from cornac.eval_methods import BaseMethod  # noqa: E402
from cornac.metrics import NDCG, FMeasure, HitRatio, Precision, Recall  # noqa: E402
from cornac.models import Recommender  # noqa: E402

KS = (5, 10, 20)
OUT = HERE / "fixtures" / "cornac.json"
METRICS = {  # fixture name -> Cornac class (its name is "<Label>@k")
    "precision": Precision,
    "recall": Recall,
    "f1": FMeasure,
    "hit_rate": HitRatio,
    "ndcg": NDCG,
}
SOURCE_FILES = [
    "cornac/metrics/ranking.py",
    "cornac/eval_methods/base_method.py",
    "cornac/models/recommender.py",
    "cornac/experiment/experiment.py",
    "cornac/experiment/result.py",
    "cornac/data/dataset.py",
]


class FixedLists(Recommender):
    """A recommender that scores each user's given list and puts every other item below it."""

    def __init__(self, recs, name: str = "FixedLists"):
        super().__init__(name=name, trainable=True, verbose=False)
        self.recs = recs
        self.low = float(recs["score"].min()) - 1.0

    def fit(self, train_set, val_set=None):
        super().fit(train_set, val_set)
        self.user_scores = {}
        for user, lst in self.recs.groupby("user_id"):
            scores = np.full(train_set.num_items, self.low)
            scores[[train_set.iid_map[i] for i in lst["item_id"]]] = lst["score"].to_numpy()
            self.user_scores[train_set.uid_map[user]] = scores
        return self

    def score(self, user_idx, item_idx=None):
        scores = self.user_scores[user_idx]
        return scores if item_idx is None else scores[item_idx]


def triplets(frame) -> list[tuple[int, int, float]]:
    return list(zip(frame["user_id"].tolist(), frame["item_id"].tolist(),
                    frame["rating"].astype(float).tolist()))


def run(train, truth, recs, exclude_unknowns: bool, suffix: str) -> dict[str, dict]:
    method = BaseMethod.from_splits(train_data=triplets(train), test_data=triplets(truth),
                                    rating_threshold=inputs.THRESHOLD,
                                    exclude_unknowns=exclude_unknowns, seed=0)
    metric_objects = {f"{name}@{k}": cls(k=k) for k in KS for name, cls in METRICS.items()}
    experiment = cornac.Experiment(eval_method=method, models=[FixedLists(recs)],
                                   metrics=list(metric_objects.values()))
    experiment.run()
    result = experiment.result[0]
    user_ids = {idx: uid for uid, idx in method.train_set.uid_map.items()}
    out = {}
    for name, metric in metric_objects.items():
        per_user = result.metric_user_results[metric.name]
        out[name + suffix] = {
            "call": f"cornac.Experiment(BaseMethod.from_splits(train, test, rating_threshold=4.0, "
                    f"exclude_unknowns={exclude_unknowns}), models=[FixedLists(recs"
                    + (", score = 21 - rank" if suffix == ":rank_order" else "") + ")], "
                    f"metrics=[cornac.metrics.{type(metric).__name__}(k={metric.k})]).run(): "
                    "result.metric_user_results per user, result.metric_avg_results for the mean",
            "mean": float(result.metric_avg_results[metric.name]),
            "per_user": {str(int(u)): float(v) for u, v in
                         sorted((user_ids[i], v) for i, v in per_user.items())},
        }
        assert not any(math.isnan(v) for v in out[name + suffix]["per_user"].values())
    return out


def main() -> None:
    train, truth, recs = inputs.load()
    assert recs["item_id"].isin(train["item_id"]).all()
    metrics = run(train, truth, recs, exclude_unknowns=True, suffix="")
    metrics |= run(train, truth, recs, exclude_unknowns=False, suffix=":keep_unknowns")
    # Cornac's order among tied scores is numpy's (argpartition, argsort, reversed) over its
    # internal item indices; scores that decrease with the rank make the lists tie-free
    by_rank = recs.assign(score=(inputs.LIST_LENGTH + 1 - recs["rank"]).astype(float))
    metrics |= run(train, truth, by_rank, exclude_unknowns=True, suffix=":rank_order")

    fixture = {
        "library": "cornac",
        "version": cornac.__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
        "source_files": SOURCE_FILES,
        "inputs": inputs.fingerprint(train, truth, recs),
        "fed": {
            "train_data": "(user_id, item_id, rating) triplets of train, all rows",
            "test_data": "(user_id, item_id, rating) triplets of truth, all rows; Cornac keeps "
                         "items rated >= rating_threshold=4.0 as positives and evaluates users "
                         "with at least one positive",
            "model": "FixedLists: score(user) = the recs score of the user's 20 listed items, "
                     "min(score) - 1 for every other known item; Cornac ranks and breaks ties "
                     "itself (np.argpartition + np.argsort, reversed); no rank fed",
            "rank_order": "the ':rank_order' variants: the same with score = 21 - rank for the "
                          "listed items (tie-free: the given rank order) and exclude_unknowns=True",
            "exclude_unknowns": "True for the plain names (test items unseen in train dropped, "
                                "users left without a positive not evaluated); False for the "
                                "':keep_unknowns' variants",
        },
        "metrics": metrics,
    }
    inputs.write_fixture(OUT, fixture)
    print(f"wrote {OUT} ({len(metrics)} metrics)")


if __name__ == "__main__":
    main()
