"""The inputs every library reference is computed on: a test split and tied recommendation
lists from the real ml-latest-small release.

Plain pandas and NumPy, no evalkit, so each reference script can import this module from its
own environment (``python tests/references/<library>.py``):

- ``truth``: the last 20% (at least one) of each user's ratings by (timestamp, movieId);
  ``train``: the rest.
- ``recs``: for every user, the 20 unseen items with the highest co-occurrence score
  ``x_u @ (X.T @ X)`` (integer counts of how often an item was rated together with the user's
  training items), listed by score descending and item id ascending. Integer scores tie often,
  also across the cutoffs 5, 10 and 20, which is what the tie conventions are tested on. Each
  row has its ``score`` and its 1-based ``rank`` in that order.

:func:`fingerprint` hashes the three frames so a fixture can say which inputs it was made from;
:func:`write_fixture` writes a fixture as every reference script does (:func:`dumps`), and
:func:`json_float` gives a per-user value as JSON holds it.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
DEFAULT_DIR = HERE.parents[2] / "shared" / "data" / "ml-latest-small"
TEST_SHARE = 0.2
LIST_LENGTH = 20
THRESHOLD = 4.0  # a test item is relevant when its rating is at least this


def data_dir() -> Path:
    """The ml-latest-small folder: ``$ML_LATEST_SMALL`` or ``../shared/data/ml-latest-small``."""
    return Path(os.environ.get("ML_LATEST_SMALL", DEFAULT_DIR))


def load(path: Path | None = None) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """``(train, truth, recs)`` with columns ``user_id, item_id, rating, timestamp`` (train and
    truth) and ``user_id, item_id, score, rank`` (recs), sorted by user."""
    ratings = pd.read_csv((path or data_dir()) / "ratings.csv")
    ratings = ratings.rename(columns={"userId": "user_id", "movieId": "item_id"})
    ratings = ratings.sort_values(["user_id", "timestamp", "item_id"], kind="stable")
    position = ratings.groupby("user_id").cumcount()
    size = ratings.groupby("user_id")["item_id"].transform("size")
    n_test = np.maximum(1, np.floor(size * TEST_SHARE + 0.5)).astype(int)
    is_test = position >= size - n_test
    train = ratings[~is_test].reset_index(drop=True)
    truth = ratings[is_test].reset_index(drop=True)
    return train, truth, _recommend(train)


def _recommend(train: pd.DataFrame) -> pd.DataFrame:
    users, u = np.unique(train["user_id"].to_numpy(), return_inverse=True)
    items, i = np.unique(train["item_id"].to_numpy(), return_inverse=True)
    x = np.zeros((users.size, items.size))
    x[u, i] = 1.0
    # (x @ x.T) @ x = x @ (x.T @ x), in float64 BLAS: exact, the counts are far below 2**53
    scores = (x @ x.T) @ x
    scores[x > 0] = -1  # seen items are never recommended
    # score descending, then item id ascending: a stable sort of -score over ascending items
    order = np.argsort(-scores, axis=1, kind="stable")[:, :LIST_LENGTH]
    top = np.take_along_axis(scores, order, axis=1)
    return pd.DataFrame({
        "user_id": np.repeat(users, LIST_LENGTH),
        "item_id": items[order].ravel(),
        "score": top.ravel(),
        "rank": np.tile(np.arange(1, LIST_LENGTH + 1), users.size),
    })


def fingerprint(*frames: pd.DataFrame) -> str:
    """sha256 of the frames' CSV text (columns and rows as given)."""
    digest = hashlib.sha256()
    for frame in frames:
        digest.update(frame.to_csv(index=False, float_format="%.6f").encode())
    return digest.hexdigest()


if __name__ == "__main__":
    train, truth, recs = load()
    print(f"train {len(train)} rows, truth {len(truth)} rows, recs {len(recs)} rows; "
          f"users {truth['user_id'].nunique()}; fingerprint {fingerprint(train, truth, recs)}")


def json_float(x: float) -> float | None:
    """A value for JSON: a float, None for NaN."""
    x = float(x)
    return None if math.isnan(x) else x


def dumps(fixture: dict, one_line: tuple[str, ...] = ()) -> str:
    """The fixture as JSON (indent 1) with each metric's per-user values on one line, and the
    value under each key of ``one_line`` (or each list of a dict of lists there) on one line
    too; floats in full repr, NaN as null."""
    lines = {}
    for key in one_line:
        value = fixture[key]
        if isinstance(value, dict) and all(isinstance(v, list) for v in value.values()):
            for sub, v in value.items():
                lines[f"{key}/{sub}"] = json.dumps(v)
                value[sub] = f"@@{key}/{sub}@@"
        else:
            lines[key] = json.dumps(value)
            fixture[key] = f"@@{key}@@"
    for name, m in fixture["metrics"].items():
        lines[f"metrics/{name}"] = json.dumps(m["per_user"])
        m["per_user"] = f"@@metrics/{name}@@"
    text = json.dumps(fixture, indent=1)
    for name, line in lines.items():
        text = text.replace(json.dumps(f"@@{name}@@"), line)
    return text + "\n"


def write_fixture(path: Path, fixture: dict, one_line: tuple[str, ...] = ()) -> None:
    """Write ``fixture`` to ``path`` as :func:`dumps` gives it (its folder made if needed)."""
    path.parent.mkdir(exist_ok=True)
    path.write_text(dumps(fixture, one_line))

