"""The inputs every beyond-accuracy reference is computed on (``beyond_<library>.py``).

Plain pandas and NumPy, no evalkit, so each reference script can import this module from the
library's own environment, and the evalkit test computes the same frames.

Cases, each ``(train, recs, items)``: ``train`` has ``user_id, item_id``, ``recs`` has
``user_id, item_id, score, rank`` (score = 100 - rank: no ties, the same order for libraries
that read scores and for those that read ranks), ``items`` has ``item_id`` and ``genres`` (a
list of labels).

- ``small``: 7 users, 8 items, 4 items per list, one training pair repeated (user 4, item 5)
  so that counting distinct users and counting rows differ; every recommended item was seen
  in training and no list holds one of the user's training items.
- ``ragged``: ``small`` with lists of different lengths (user 1 keeps 2 items, user 7 one)
  and user 3 given a fifth item, 9, that nobody saw in training.
- ``real``: ml-latest-small. ``train`` is each user's ratings but the last 20% (at least one)
  by (timestamp, movieId), as the ranking references split it; ``recs`` are, for every user,
  the 20 unseen items with the highest co-occurrence score ``x_u @ X.T @ X`` (score
  descending, item id ascending), given by rank; ``items`` are movies.csv genres, with
  ``(no genres listed)`` as no genre.

:func:`fingerprint` hashes a case so that a fixture says which inputs it was made from.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
DEFAULT_DIR = HERE.parents[2] / "shared" / "data" / "ml-latest-small"
TEST_SHARE = 0.2
LIST_LENGTH = 20
KS = {"small": (1, 2, 3, 4), "ragged": (1, 2, 3, 5), "real": (5, 10, 20)}

_TRAIN = {1: [1, 2, 3], 2: [1, 2, 8], 3: [1, 4], 4: [1, 5, 5], 5: [2, 6], 6: [1, 7], 7: [3]}
_RECS = {
    1: [4, 5, 6, 7],
    2: [3, 4, 5, 6],
    3: [2, 3, 5, 8],
    4: [2, 3, 4, 6],
    5: [1, 3, 4, 7],
    6: [2, 3, 4, 5],
    7: [1, 2, 4, 8],
}
_GENRES = {
    1: ["Action", "Comedy"],
    2: ["Action"],
    3: ["Drama"],
    4: ["Drama", "Romance"],
    5: ["Comedy"],
    6: [],
    7: ["Action", "Drama", "Thriller"],
    8: ["Romance"],
    9: ["Comedy", "Drama"],
}


def data_dir() -> Path:
    """The ml-latest-small folder: ``$ML_LATEST_SMALL`` or ``../shared/data/ml-latest-small``."""
    return Path(os.environ.get("ML_LATEST_SMALL", DEFAULT_DIR))


def _recs_frame(lists: dict[int, list[int]]) -> pd.DataFrame:
    rows = [(u, i, r) for u, items in lists.items() for r, i in enumerate(items, 1)]
    recs = pd.DataFrame(rows, columns=["user_id", "item_id", "rank"])
    recs.insert(2, "score", (100 - recs["rank"]).astype(np.float64))
    return recs


def _items_frame(genres: dict[int, list[str]]) -> pd.DataFrame:
    return pd.DataFrame({"item_id": list(genres), "genres": list(genres.values())})


def small() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    train = pd.DataFrame(
        [(u, i) for u, items in _TRAIN.items() for i in items], columns=["user_id", "item_id"]
    )
    return train, _recs_frame(_RECS), _items_frame({i: _GENRES[i] for i in range(1, 9)})


def ragged() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    train, _, _ = small()
    lists = dict(_RECS)
    lists[1] = _RECS[1][:2]
    lists[7] = _RECS[7][:1]
    lists[3] = _RECS[3] + [9]
    return train, _recs_frame(lists), _items_frame(_GENRES)


def real(path: Path | None = None) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    folder = path or data_dir()
    ratings = pd.read_csv(folder / "ratings.csv")
    ratings = ratings.rename(columns={"userId": "user_id", "movieId": "item_id"})
    ratings = ratings.sort_values(["user_id", "timestamp", "item_id"], kind="stable")
    position = ratings.groupby("user_id").cumcount()
    size = ratings.groupby("user_id")["item_id"].transform("size")
    n_test = np.maximum(1, np.floor(size * TEST_SHARE + 0.5)).astype(int)
    train = ratings.loc[position < size - n_test, ["user_id", "item_id"]]
    train = train.reset_index(drop=True)

    users, u = np.unique(train["user_id"].to_numpy(), return_inverse=True)
    item_ids, i = np.unique(train["item_id"].to_numpy(), return_inverse=True)
    x = np.zeros((users.size, item_ids.size), dtype=np.float64)
    x[u, i] = 1.0
    # x @ (X.T @ X) without the items-by-items matrix; float64 holds these integer counts
    # exactly (far below 2**53), and its matrix product is fast
    scores = np.rint((x @ x.T) @ x).astype(np.int64)
    scores[x > 0] = -1  # seen items are never recommended
    order = np.argsort(-scores, axis=1, kind="stable")[:, :LIST_LENGTH]  # ties: item id asc
    recs = pd.DataFrame({
        "user_id": np.repeat(users, LIST_LENGTH),
        "item_id": item_ids[order].ravel(),
        "rank": np.tile(np.arange(1, LIST_LENGTH + 1), users.size),
    })
    recs.insert(2, "score", (100 - recs["rank"]).astype(np.float64))

    movies = pd.read_csv(folder / "movies.csv")
    genres = movies["genres"].replace("(no genres listed)", "").str.split("|")
    genres = genres.map(lambda g: [x for x in g if x])
    items = pd.DataFrame({"item_id": movies["movieId"].to_numpy(), "genres": genres.to_list()})
    return train, recs, items


CASES = {"small": small, "ragged": ragged, "real": real}


def fingerprint(train: pd.DataFrame, recs: pd.DataFrame, items: pd.DataFrame) -> str:
    """sha256 of the case's CSV text (genres joined with ``|``)."""
    digest = hashlib.sha256()
    flat = items.assign(genres=items["genres"].map("|".join))
    for frame in (train, recs, flat):
        digest.update(frame.to_csv(index=False, float_format="%.6f").encode())
    return digest.hexdigest()


def top_lists(recs: pd.DataFrame, k: int) -> dict[int, list[int]]:
    """User -> the items of ranks 1..k, in rank order (for libraries fed lists)."""
    top = recs.loc[recs["rank"] <= k].sort_values(["user_id", "rank"])
    return {int(u): [int(i) for i in g] for u, g in top.groupby("user_id")["item_id"]}


def genre_matrix(items: pd.DataFrame) -> pd.DataFrame:
    """One 0/1 column per genre, indexed by item id (for libraries fed feature columns)."""
    labels = sorted({g for gs in items["genres"] for g in gs})
    rows = [[int(g in set(gs)) for g in labels] for gs in items["genres"]]
    return pd.DataFrame(rows, index=items["item_id"].to_numpy(), columns=labels)


if __name__ == "__main__":
    for name, make in CASES.items():
        train, recs, items = make()
        print(f"{name}: train {len(train)} rows, recs {len(recs)} rows, "
              f"{recs['user_id'].nunique()} users; fingerprint {fingerprint(train, recs, items)}")


def entry(case: str, k: int, call: str, value: object, evalkit: dict | None,
          note: str | None = None) -> dict:
    """One reference value: the library ``call`` on ``case`` at cutoff ``k`` gave ``value`` (a
    number, or a ``{user: value}`` dict). ``evalkit`` says which evalkit call reproduces it:
    ``func``, ``args`` (names among ``recs``, ``train``, ``train_unique`` = train without
    repeated pairs, ``items``), ``kwargs`` (``"@train"`` as a value passes the train frame)
    and ``reduce`` (``value``, ``per_user``, ``mean`` of the users, ``row_mean`` = mean
    weighted by list length, ``one_minus_mean``). None: no evalkit option reproduces it, and
    ``note`` says why (the tests check the documented relation instead)."""
    out = {"case": case, "k": k, "call": call, "evalkit": evalkit}
    if note:
        out["note"] = note
    if isinstance(value, dict):
        out["per_user"] = {str(int(u)): (None if v != v else float(v)) for u, v in value.items()}
    else:
        out["value"] = None if value != value else float(value)
    return out


def write_fixture(path: Path, fixture: dict) -> None:
    """JSON, one line per entry, full float repr; NaN as null."""
    import json
    import platform

    fixture = {"python": platform.python_version(), **fixture}
    fixture["inputs"] = {
        name: fingerprint(*CASES[name]()) for name in sorted({e["case"] for e in fixture["values"]})
    }
    values = fixture.pop("values")
    head = json.dumps(fixture, indent=1)
    body = ",\n".join("  " + json.dumps(e) for e in values)
    path.parent.mkdir(exist_ok=True)
    path.write_text(head[:-2] + ',\n "values": [\n' + body + "\n ]\n}\n")
