"""The embedded sample: shape, distributions, determinism and a learnable taste structure."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest

from evalkit.data import load_sample
from evalkit.data.sample import GENRES


@pytest.fixture(scope="module")
def sample():
    return load_sample(seed=0)


def test_columns_and_dtypes(sample) -> None:
    ratings, items = sample.ratings, sample.items
    assert list(ratings.columns) == ["user_id", "item_id", "rating", "timestamp"]
    assert list(ratings.dtypes.astype(str)) == ["int64", "int64", "float64", "int64"]
    assert list(items.columns) == ["item_id", "title", "year", "genres"]
    assert str(items["year"].dtype) == "Int64"
    assert sample.name == "sample"


def test_sizes_like_movielens(sample) -> None:
    ratings = sample.ratings
    assert 600 <= ratings["user_id"].nunique() <= 1000
    assert 2000 <= ratings["item_id"].nunique() <= 4000
    assert 85_000 <= len(ratings) <= 115_000
    assert not ratings.duplicated(["user_id", "item_id"]).any()
    # the item table lists exactly the rated items
    assert set(sample.items["item_id"]) == set(ratings["item_id"])
    assert sample.items["item_id"].is_unique


def test_rating_distribution(sample) -> None:
    rating = sample.ratings["rating"]
    assert set(rating.unique()) <= set(np.arange(1, 11) / 2)
    assert rating.mean() == pytest.approx(3.5, abs=0.05)
    counts = rating.value_counts()
    assert counts.idxmax() == 4.0
    whole = counts[counts.index % 1 == 0].sum()
    assert whole > 0.65 * len(rating)
    for star in (1.0, 2.0, 3.0, 4.0, 5.0):  # each whole star beats the half star below it
        assert counts[star] > counts[star - 0.5]


def test_long_tail_and_user_activity(sample) -> None:
    ratings = sample.ratings
    per_item = np.sort(ratings.groupby("item_id").size().to_numpy())[::-1]
    top = per_item[: int(np.ceil(0.1 * per_item.size))].sum() / per_item.sum()
    assert top > 0.4
    per_user = ratings.groupby("user_id").size()
    assert per_user.min() >= 20
    assert per_user.max() > 8 * per_user.median()  # heavy tail
    assert per_user.mean() > 1.3 * per_user.median()


def test_items_titles_years_genres(sample) -> None:
    items = sample.items
    lengths = items["genres"].str.len()
    assert lengths.between(1, 3).all()
    assert set(items["genres"].explode()) <= set(GENRES)
    assert items["title"].str.len().gt(0).all()
    assert not items["title"].str.contains(r"\(\d{4}\)").any()
    assert items["year"].between(1900, 2018).all()
    # the commonest genres of MovieLens stay the commonest
    share = items["genres"].explode().value_counts(normalize=True)
    assert set(share.index[:2]) == {"Drama", "Comedy"}


def test_timestamps_within_periods_and_after_release(sample) -> None:
    ratings = sample.ratings
    assert ratings["timestamp"].min() >= 820_000_000  # 1996
    assert ratings["timestamp"].max() <= 1_540_000_000  # 2018
    # rows are in time order within each user
    same_user = ratings["user_id"].to_numpy()[1:] == ratings["user_id"].to_numpy()[:-1]
    assert (np.diff(ratings["timestamp"].to_numpy())[same_user] >= 0).all()
    assert (np.diff(ratings["user_id"].to_numpy()) >= 0).all()
    # nobody rates a movie before the start of its release year
    years = ratings["item_id"].map(sample.items.set_index("item_id")["year"]).astype(int)
    rated_year = pd.to_datetime(ratings["timestamp"], unit="s").dt.year
    assert (rated_year >= years).all()
    # users differ in how long they are active
    span = ratings.groupby("user_id")["timestamp"].agg(lambda s: s.max() - s.min())
    assert span.quantile(0.25) < 86400 < 30 * 86400 < span.quantile(0.9)


def test_deterministic_per_seed() -> None:
    a, b, c = load_sample(seed=3), load_sample(seed=3), load_sample(seed=4)
    pd.testing.assert_frame_equal(a.ratings, b.ratings)
    pd.testing.assert_frame_equal(a.items, b.items)
    assert not a.ratings.equals(c.ratings)
    gen = load_sample(seed=np.random.default_rng(3))
    pd.testing.assert_frame_equal(a.ratings, gen.ratings)


def test_fast() -> None:
    load_sample(seed=1)
    best = min(_timed(load_sample) for _ in range(3))
    assert best < 1.0


def _timed(func) -> float:
    start = time.perf_counter()
    func(seed=2)
    return time.perf_counter() - start


def _hit_rate_at_10(scores: np.ndarray, train: np.ndarray, test: np.ndarray) -> float:
    scores = np.where(train, -np.inf, scores)
    top = np.argsort(-scores, axis=1, kind="stable")[:, :10]
    return float(np.take_along_axis(test, top, axis=1).any(axis=1).mean())


@pytest.mark.parametrize("seed", [0, 1])
def test_personalized_beats_most_popular(seed: int) -> None:
    ratings = load_sample(seed=seed).ratings
    users = ratings["user_id"].to_numpy()
    _, user = np.unique(users, return_inverse=True)
    _, item = np.unique(ratings["item_id"].to_numpy(), return_inverse=True)
    # hold out 5 random ratings of each user
    rng = np.random.default_rng(42)
    order = np.lexsort((rng.random(len(ratings)), user))
    starts = np.searchsorted(user[order], np.arange(user.max() + 1))
    position = np.empty(len(ratings), dtype=np.int64)
    position[order] = np.arange(len(ratings)) - np.repeat(starts, np.bincount(user))
    held = position < 5
    shape = (user.max() + 1, item.max() + 1)
    train = np.zeros(shape, dtype=bool)
    train[user[~held], item[~held]] = True
    test = np.zeros(shape, dtype=bool)
    test[user[held], item[held]] = True

    popular = np.broadcast_to(train.sum(axis=0).astype(float), shape)
    # rank-20 truncated SVD: project onto the top left singular vectors (eigenvectors of X X')
    x = train.astype(float)
    _, vectors = np.linalg.eigh(x @ x.T)
    top_k = vectors[:, -20:]
    svd = top_k @ (top_k.T @ x)
    co = x.T @ x  # item-item co-occurrence, cosine-normalized
    np.fill_diagonal(co, 0.0)
    norm = np.sqrt(np.maximum(train.sum(axis=0), 1.0))
    cooccurrence = x @ (co / norm[:, None] / norm[None, :])

    hr_pop = _hit_rate_at_10(popular, train, test)
    assert _hit_rate_at_10(svd, train, test) > hr_pop + 0.1
    assert _hit_rate_at_10(cooccurrence, train, test) > hr_pop + 0.03


def test_choices_follow_genre_tastes(sample) -> None:
    """Users' genre mixes differ more than popularity alone would make them differ."""
    ratings, items = sample.ratings, sample.items
    exploded = items[["item_id", "genres"]].explode("genres")
    table = ratings[["user_id", "item_id"]].merge(exploded, on="item_id")
    shares = pd.crosstab(table["user_id"], table["genres"], normalize="index")
    # the same statistic for a null model: each user's items replaced by a popularity draw
    rng = np.random.default_rng(0)
    popularity = ratings["item_id"].value_counts(normalize=True)
    null_items = rng.choice(popularity.index.to_numpy(), size=len(ratings), p=popularity.to_numpy())
    null = pd.DataFrame({"user_id": ratings["user_id"].to_numpy(), "item_id": null_items})
    null_table = null.merge(exploded, on="item_id")
    null_shares = pd.crosstab(null_table["user_id"], null_table["genres"], normalize="index")
    assert shares.std().mean() > 1.5 * null_shares.std().mean()  # 2.0 here, 1.9 in MovieLens


def test_documented_statistics_are_current(sample) -> None:
    """The table in the module docstring reports seed 0: its first rows must still hold."""
    import evalkit.data.sample as module

    rows = {line[:28].strip(): line[28:50].strip() for line in module.__doc__.splitlines()}
    ratings = sample.ratings
    assert rows["users"] == f"{ratings['user_id'].nunique():,}"
    assert rows["movies with ratings"] == f"{ratings['item_id'].nunique():,}"
    assert rows["ratings"] == f"{len(ratings):,}"
    assert rows["mean rating"] == f"{ratings['rating'].mean():.4f}"
