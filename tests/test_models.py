"""Tests for evalkit.models: the baseline recommenders."""

from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sklearn.metrics.pairwise import cosine_similarity

from evalkit.models import EASE, BiasBaseline, ItemKNN, MostPopular, Random
from evalkit.models._base import top_k

ALL_MODELS = [
    lambda: Random(rng=0),
    lambda: MostPopular(),
    lambda: BiasBaseline(),
    lambda: ItemKNN(neighbors=3),
    lambda: EASE(l2=10.0),
]
MODEL_IDS = ["Random", "MostPopular", "BiasBaseline", "ItemKNN", "EASE"]


@pytest.fixture
def train() -> pd.DataFrame:
    """Six users, six items; item 30 is the most popular, 10 and 20 tie."""
    pairs = [
        (1, 10, 5.0), (1, 30, 4.0),
        (2, 20, 3.0), (2, 30, 5.0), (2, 40, 1.0),
        (3, 10, 4.0), (3, 30, 2.0), (3, 50, 4.5),
        (4, 20, 4.0), (4, 30, 3.5),
        (5, 60, 2.0),
        (6, 10, 1.0), (6, 20, 5.0), (6, 50, 4.0),
    ]  # fmt: skip
    frame = pd.DataFrame(pairs, columns=["user_id", "item_id", "rating"])
    frame["timestamp"] = np.arange(len(frame), dtype=np.int64)
    return frame


def dense_matrix(train: pd.DataFrame, threshold: float | None = None) -> np.ndarray:
    """Binary user x item matrix over sorted ids, built with a plain loop (reference)."""
    users = sorted(train["user_id"].unique())
    items = sorted(train["item_id"].unique())
    matrix = np.zeros((len(users), len(items)))
    for user, item, rating in train[["user_id", "item_id", "rating"]].itertuples(index=False):
        if threshold is None or rating >= threshold:
            matrix[users.index(user), items.index(item)] = 1.0
    return matrix


def naive_top_k(scores: np.ndarray, k: int) -> list[list[int]]:
    """Per-row ranking by descending score then ascending column, dropping -inf (reference)."""
    out = []
    for row in scores:
        order = sorted(range(len(row)), key=lambda j: (-row[j], j))
        out.append([j for j in order if row[j] > -np.inf][:k])
    return out


# ----------------------------------------------------------------------------------------------
# Shared protocol
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("make", ALL_MODELS, ids=MODEL_IDS)
def test_output_format_and_seen_exclusion(make, train):
    recs = make().fit(train).recommend([3, 1, 2, 3], k=2)
    assert list(recs.columns) == ["user_id", "item_id", "score", "rank"]
    assert recs["rank"].dtype == np.int64
    assert recs["user_id"].dtype == train["user_id"].dtype
    assert recs["item_id"].dtype == train["item_id"].dtype
    assert recs["score"].dtype == np.float64
    assert recs["user_id"].tolist() == [1, 1, 2, 2, 3, 3]  # duplicates merged, sorted
    assert recs["rank"].tolist() == [1, 2] * 3
    seen = set(zip(train["user_id"], train["item_id"]))
    assert not any(pair in seen for pair in zip(recs["user_id"], recs["item_id"]))
    # Within a user: scores non-increasing, ties by ascending item_id.
    for _, group in recs.groupby("user_id"):
        keys = list(zip(-group["score"], group["item_id"]))
        assert keys == sorted(keys)


@pytest.mark.parametrize("make", ALL_MODELS, ids=MODEL_IDS)
def test_short_lists_when_few_unseen_items(make, train):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        recs = make().fit(train).recommend(np.array([2, 3]), k=10)
    assert recs.groupby("user_id").size().tolist() == [3, 3]  # 6 items, 3 seen each
    assert recs["rank"].tolist() == [1, 2, 3, 1, 2, 3]
    everything = make().fit(train).recommend([2], k=10, exclude_seen=False)
    assert sorted(everything["item_id"]) == [10, 20, 30, 40, 50, 60]


@pytest.mark.parametrize("make", ALL_MODELS, ids=MODEL_IDS)
def test_inputs_unchanged(make, train):
    before = train.copy()
    users = pd.Series([4, 1, 99])
    users_before = users.copy()
    model = make().fit(train)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        model.recommend(users, k=3)
    if isinstance(model, BiasBaseline):
        pairs = pd.DataFrame({"user_id": [1, 7], "item_id": [20, 10]})
        pairs_before = pairs.copy()
        model.predict(pairs)
        pd.testing.assert_frame_equal(pairs, pairs_before)
    pd.testing.assert_frame_equal(train, before)
    pd.testing.assert_series_equal(users, users_before)


@pytest.mark.parametrize("make", ALL_MODELS, ids=MODEL_IDS)
def test_string_ids(make, train):
    named = train.assign(
        user_id=("u" + train["user_id"].astype(str)).astype("str"),
        item_id=("i" + train["item_id"].astype(str)).astype("str"),
    )
    numeric = make().fit(train).recommend([1, 2], k=3)
    recs = make().fit(named).recommend(["u2", "u1"], k=3)
    # "i10" < "i20" < ... < "i60": string order equals numeric order, so ties break the same.
    expected = numeric.assign(
        user_id=("u" + numeric["user_id"].astype(str)).astype("str"),
        item_id=("i" + numeric["item_id"].astype(str)).astype("str"),
    )
    pd.testing.assert_frame_equal(recs, expected)


@pytest.mark.parametrize("make", ALL_MODELS, ids=MODEL_IDS)
def test_empty_user_list(make, train):
    recs = make().fit(train).recommend([], k=5)
    assert list(recs.columns) == ["user_id", "item_id", "score", "rank"]
    assert len(recs) == 0


# ----------------------------------------------------------------------------------------------
# Top-k selection
# ----------------------------------------------------------------------------------------------


@settings(max_examples=50, deadline=None)
@given(
    st.integers(1, 6),
    st.integers(1, 12),
    st.integers(1, 14),
    st.integers(0, 2**32 - 1),
)
def test_top_k_matches_naive_ranking_with_ties(n_rows, n_cols, k, seed):
    gen = np.random.default_rng(seed)
    scores = gen.integers(0, 4, size=(n_rows, n_cols)).astype(float)  # many ties
    scores[gen.random((n_rows, n_cols)) < 0.2] = -np.inf
    cols, values = top_k(scores, k)
    got = [[int(c) for c, v in zip(r, vals) if v > -np.inf] for r, vals in zip(cols, values)]
    assert got == naive_top_k(scores, k)


# ----------------------------------------------------------------------------------------------
# MostPopular and Random
# ----------------------------------------------------------------------------------------------


def test_most_popular_order_and_ties(train):
    model = MostPopular().fit(train)
    # Distinct users per item: 10 -> 3, 20 -> 3, 30 -> 4, 40 -> 1, 50 -> 2, 60 -> 1.
    assert model.popularity_.to_dict() == {10: 3, 20: 3, 30: 4, 40: 1, 50: 2, 60: 1}
    recs = model.recommend([5], k=6)
    assert recs["item_id"].tolist() == [30, 10, 20, 50, 40]  # 60 seen; 10 before 20, 40 first
    assert recs["score"].tolist() == [4.0, 3.0, 3.0, 2.0, 1.0]
    unknown = model.recommend([99], k=3)
    assert unknown["item_id"].tolist() == [30, 10, 20]
    assert model.recommend([5], k=2, exclude_seen=False)["item_id"].tolist() == [30, 10]


def test_most_popular_threshold_counts_positive_only(train):
    model = MostPopular(threshold=4.0).fit(train)
    # Ratings >= 4: 10 (users 1, 3), 20 (4, 6), 30 (1, 2), 50 (3, 6); 40 and 60 none.
    assert model.popularity_.to_dict() == {10: 2, 20: 2, 30: 2, 40: 0, 50: 2, 60: 0}
    # Seen items include low ratings: user 3 rated 30 with 2.0 and it stays excluded.
    assert model.recommend([3], k=3)["item_id"].tolist() == [20, 40, 60]


def test_repeated_interactions_count_once(train):
    doubled = pd.concat([train, train.iloc[[0, 0]]], ignore_index=True)
    assert MostPopular().fit(doubled).popularity_.to_dict() == (
        MostPopular().fit(train).popularity_.to_dict()
    )


def test_random_is_deterministic_per_seed(train):
    users = [1, 2, 3, 4, 5, 6]
    first = Random(rng=42).fit(train).recommend(users, k=3)
    again = Random(rng=42).fit(train).recommend(users, k=3)
    pd.testing.assert_frame_equal(first, again)
    other = [Random(rng=s).fit(train).recommend(users, k=3)["item_id"].tolist() for s in range(5)]
    assert len({tuple(o) for o in other}) > 1
    generator = np.random.default_rng(1)
    model = Random(rng=generator).fit(train)
    draws = [model.recommend(users, k=3)["score"].tolist() for _ in range(2)]
    assert draws[0] != draws[1]  # a generator advances between calls
    assert ((first["score"] >= 0) & (first["score"] < 1)).all()


# ----------------------------------------------------------------------------------------------
# BiasBaseline
# ----------------------------------------------------------------------------------------------


def test_bias_baseline_matches_hand_computation():
    train = pd.DataFrame(
        {"user_id": [1, 1, 2, 2, 3], "item_id": [10, 20, 10, 30, 20],
         "rating": [5.0, 3.0, 4.0, 2.0, 1.0]}
    )  # fmt: skip
    model = BiasBaseline(damping_user=1.0, damping_item=2.0).fit(train)
    mu = 3.0  # (5 + 3 + 4 + 2 + 1) / 5
    b_10 = ((5 - mu) + (4 - mu)) / (2 + 2)  # 0.75
    b_20 = ((3 - mu) + (1 - mu)) / (2 + 2)  # -0.5
    b_30 = (2 - mu) / (1 + 2)  # -1/3
    b_1 = ((5 - mu - b_10) + (3 - mu - b_20)) / (2 + 1)
    b_2 = ((4 - mu - b_10) + (2 - mu - b_30)) / (2 + 1)
    b_3 = (1 - mu - b_20) / (1 + 1)
    assert model.global_mean_ == pytest.approx(mu)
    assert model.item_bias_.to_dict() == pytest.approx({10: b_10, 20: b_20, 30: b_30})
    assert model.user_bias_.to_dict() == pytest.approx({1: b_1, 2: b_2, 3: b_3})

    pairs = pd.DataFrame({"user_id": [3, 9, 1, 9], "item_id": [30, 20, 77, 77]}, index=[5, 6, 7, 8])
    predicted = model.predict(pairs)
    assert list(predicted.columns) == ["user_id", "item_id", "prediction"]
    assert predicted.index.tolist() == [5, 6, 7, 8]
    expected = [mu + b_3 + b_30, mu + b_20, mu + b_1, mu]  # unknown user / item: bias 0
    assert predicted["prediction"].tolist() == pytest.approx(expected)

    recs = model.recommend([3], k=2)
    assert recs["item_id"].tolist() == [10, 30]
    assert recs["score"].tolist() == pytest.approx([mu + b_3 + b_10, mu + b_3 + b_30])


def test_bias_baseline_unknown_user_warns_and_ranks_by_item_bias(train):
    model = BiasBaseline().fit(train)
    with pytest.warns(UserWarning, match=r"1 of 2 user\(s\) have no positive .*1 unknown"):
        recs = model.recommend([1, 99], k=6)
    unknown = recs[recs["user_id"] == 99]
    expected = model.item_bias_.sort_values(ascending=False, kind="stable").index.tolist()
    assert unknown["item_id"].tolist() == expected
    assert unknown["score"].tolist() == pytest.approx(
        (model.global_mean_ + model.item_bias_.loc[expected]).tolist()
    )


# ----------------------------------------------------------------------------------------------
# ItemKNN
# ----------------------------------------------------------------------------------------------


def test_item_knn_similarity_matches_sklearn_cosine(train):
    model = ItemKNN(neighbors=10).fit(train)
    expected = cosine_similarity(dense_matrix(train).T)
    np.fill_diagonal(expected, 0.0)
    np.testing.assert_allclose(model.similarity_.toarray(), expected, atol=1e-12)


def test_item_knn_keeps_top_neighbors_per_item(train):
    model = ItemKNN(neighbors=2).fit(train)
    full = cosine_similarity(dense_matrix(train).T)
    np.fill_diagonal(full, -np.inf)
    full[full <= 0] = -np.inf
    kept = model.similarity_.toarray()
    for j, neighbours in enumerate(naive_top_k(full.T, 2)):
        assert sorted(np.flatnonzero(kept[:, j])) == sorted(neighbours)
        np.testing.assert_allclose(kept[neighbours, j], full[neighbours, j])


def test_item_knn_shrinkage_min_similarity_and_scores(train):
    matrix = dense_matrix(train)
    model = ItemKNN(neighbors=10, shrinkage=2.0, min_similarity=0.3).fit(train)
    norms = np.sqrt(matrix.sum(axis=0))
    expected = matrix.T @ matrix / (np.outer(norms, norms) + 2.0)
    np.fill_diagonal(expected, 0.0)
    expected[expected <= 0.3] = 0.0
    np.testing.assert_allclose(model.similarity_.toarray(), expected, atol=1e-12)
    recs = model.recommend([1, 2, 3, 4, 5, 6], k=6, exclude_seen=False)
    scores = matrix @ expected
    got = recs.pivot(index="user_id", columns="item_id", values="score").fillna(0.0)
    np.testing.assert_allclose(got.to_numpy(), scores, atol=1e-12)


def test_item_knn_popularity_fallback(train):
    model = ItemKNN(neighbors=5, threshold=4.5).fit(train)
    # User 5 rated only 60 (2.0), below the threshold; user 99 is unknown.
    with pytest.warns(UserWarning, match=r"2 of 2 user\(s\).*\(1 unknown to the model\)"):
        recs = model.recommend([5, 99], k=3)
    popular = MostPopular(threshold=4.5).fit(train)
    expected = popular.recommend([5, 99], k=3)
    pd.testing.assert_frame_equal(recs, expected)


# ----------------------------------------------------------------------------------------------
# EASE
# ----------------------------------------------------------------------------------------------


def ease_constrained_ridge(matrix: np.ndarray, l2: float) -> np.ndarray:
    """B column by column: ridge regression of item j on the other items (b_jj = 0)."""
    m = matrix.shape[1]
    weights = np.zeros((m, m))
    for j in range(m):
        others = [i for i in range(m) if i != j]
        design = matrix[:, others]
        gram = design.T @ design + l2 * np.eye(m - 1)
        weights[others, j] = np.linalg.solve(gram, design.T @ matrix[:, j])
    return weights


def test_ease_matches_constrained_ridge_more_items_than_users(train):
    model = EASE(l2=3.0).fit(train)  # 6 users, 6 items: the primal path
    np.testing.assert_allclose(model.weights_, ease_constrained_ridge(dense_matrix(train), 3.0))
    assert model.weight_items_.tolist() == [10, 20, 30, 40, 50, 60]


@pytest.mark.parametrize("n_users, n_items", [(8, 25), (40, 12)])
def test_ease_matches_closed_form_both_paths(n_users, n_items):
    gen = np.random.default_rng(n_users)
    matrix = (gen.random((n_users, n_items)) < 0.35).astype(float)
    matrix[0] = 1.0  # every item has an interaction
    users, items = np.nonzero(matrix)
    frame = pd.DataFrame({"user_id": users + 100, "item_id": items * 7})
    model = EASE(l2=2.5).fit(frame)
    inverse = np.linalg.inv(matrix.T @ matrix + 2.5 * np.eye(n_items))
    closed_form = -inverse / np.diag(inverse)
    np.fill_diagonal(closed_form, 0.0)
    np.testing.assert_allclose(model.weights_, closed_form, atol=1e-10)
    np.testing.assert_allclose(model.weights_, ease_constrained_ridge(matrix, 2.5), atol=1e-10)
    recs = model.recommend(np.arange(n_users) + 100, k=n_items, exclude_seen=False)
    got = recs.pivot(index="user_id", columns="item_id", values="score")
    np.testing.assert_allclose(got.to_numpy(), matrix @ closed_form, atol=1e-10)


def test_ease_threshold_leaves_items_without_positives_out(train):
    model = EASE(l2=1.0, threshold=4.0).fit(train)
    positive = dense_matrix(train, threshold=4.0)
    active = positive.sum(axis=0) > 0
    assert model.weight_items_.tolist() == [10, 20, 30, 50]
    np.testing.assert_allclose(model.weights_, ease_constrained_ridge(positive[:, active], 1.0))
    recs = model.recommend([1], k=6, exclude_seen=False)
    scores = dict(zip(recs["item_id"], recs["score"]))
    assert scores[40] == 0.0 and scores[60] == 0.0


# ----------------------------------------------------------------------------------------------
# Errors
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("k", [0, -1, 2.5, True])
def test_bad_k(train, k):
    with pytest.raises(ValueError, match=r"MostPopular.recommend: 'k' must be a positive integer"):
        MostPopular().fit(train).recommend([1], k=k)


@pytest.mark.parametrize("make", ALL_MODELS, ids=MODEL_IDS)
def test_not_fitted(make):
    with pytest.raises(ValueError, match=r"\.recommend: the model is not fitted; call fit"):
        make().recommend([1])


def test_predict_before_fit():
    pairs = pd.DataFrame({"user_id": [1], "item_id": [2]})
    with pytest.raises(ValueError, match="BiasBaseline.predict: the model is not fitted"):
        BiasBaseline().predict(pairs)


def test_fit_bad_train(train):
    with pytest.raises(ValueError, match="'train' is missing column\\(s\\) item_id"):
        MostPopular().fit(train.drop(columns="item_id"))
    with pytest.raises(ValueError, match="missing column\\(s\\) rating"):
        BiasBaseline().fit(train.drop(columns="rating"))
    with pytest.raises(ValueError, match="missing column\\(s\\) rating"):
        ItemKNN(threshold=4.0).fit(train.drop(columns="rating"))
    ItemKNN().fit(train.drop(columns="rating"))  # implicit: no rating needed
    with pytest.raises(TypeError, match="must be a pandas DataFrame"):
        EASE().fit(train.to_numpy())
    with pytest.raises(ValueError, match="at least one interaction"):
        EASE().fit(train.iloc[:0])
    with pytest.raises(ValueError, match="NaN value"):
        BiasBaseline().fit(train.assign(rating=np.nan))
    with pytest.raises(TypeError, match="integer or string ids"):
        MostPopular().fit(train.assign(user_id=train["user_id"] + 0.5))


def test_bad_hyperparameters():
    with pytest.raises(ValueError, match="ItemKNN: 'neighbors' must be a positive integer"):
        ItemKNN(neighbors=0)
    with pytest.raises(ValueError, match="ItemKNN: 'shrinkage' must be >= 0"):
        ItemKNN(shrinkage=-1.0)
    with pytest.raises(ValueError, match="EASE: 'l2' must be > 0"):
        EASE(l2=0.0)
    with pytest.raises(ValueError, match="BiasBaseline: 'damping_item' must be >= 0"):
        BiasBaseline(damping_item=-2)
    with pytest.raises(TypeError, match="MostPopular: 'threshold' must be a real number or None"):
        MostPopular(threshold="4")
    with pytest.raises(TypeError, match=r"Random: 'rng' must be an integer >= 0, a numpy\.random"):
        Random(rng="seed")
    with pytest.raises(TypeError, match="positional argument"):
        EASE(100.0)  # type: ignore[misc]


def test_bad_users(train):
    model = MostPopular().fit(train)
    with pytest.raises(TypeError, match="'users' must be a one-dimensional array-like"):
        model.recommend(1)
    with pytest.raises(ValueError, match="'users' has 1 missing"):
        model.recommend([1.0, np.nan])
    with pytest.raises(TypeError, match="'exclude_seen' must be True or False"):
        model.recommend([1], exclude_seen="yes")
    with pytest.raises(ValueError, match="BiasBaseline.predict: 'pairs' is missing column"):
        BiasBaseline().fit(train).predict(pd.DataFrame({"user_id": [1]}))


# ----------------------------------------------------------------------------------------------
# Real data: ml-latest-small
# ----------------------------------------------------------------------------------------------


def ndcg_at_10(recs: pd.DataFrame, test: pd.DataFrame) -> float:
    """Mean binary NDCG@10 (relevant: rating >= 4) over test users with a relevant item."""
    relevant = test.loc[test["rating"] >= 4, ["user_id", "item_id"]]
    top = recs[recs["rank"] <= 10].merge(relevant.assign(hit=1.0), how="left")
    top["gain"] = top["hit"].fillna(0.0) / np.log2(top["rank"] + 1)
    dcg = top.groupby("user_id")["gain"].sum()
    n_relevant = relevant.groupby("user_id").size()
    ideal_discounts = np.cumsum(1 / np.log2(np.arange(2, 12)))
    idcg = pd.Series(ideal_discounts[np.minimum(n_relevant.to_numpy(), 10) - 1], n_relevant.index)
    return float((dcg.reindex(idcg.index, fill_value=0.0) / idcg).mean())


@pytest.mark.slow
def test_real_data_knn_and_ease_beat_popularity(ml_latest_small_dir):
    ratings = pd.read_csv(ml_latest_small_dir / "ratings.csv").rename(
        columns={"userId": "user_id", "movieId": "item_id"}
    )
    # Per-user random 80/20 split: shuffle with a seeded key, hold out round(20%) per user.
    key = np.random.default_rng(20240).random(len(ratings))
    shuffled = ratings.iloc[np.lexsort((key, ratings["user_id"].to_numpy()))]
    position = shuffled.groupby("user_id").cumcount()
    size = shuffled.groupby("user_id")["item_id"].transform("size")
    held_out = position < np.round(0.2 * size)
    train, test = shuffled[~held_out], shuffled[held_out]
    users = test["user_id"].unique()

    table = {}
    for model in [MostPopular(), ItemKNN(), EASE()]:
        start = time.perf_counter()
        recs = model.fit(train).recommend(users, k=10)
        table[type(model).__name__] = (ndcg_at_10(recs, test), time.perf_counter() - start)
        assert len(recs) == 10 * len(users)
    print("\n".join(f"{name}: NDCG@10 {v:.4f}, {t:.1f} s" for name, (v, t) in table.items()))
    popular = table["MostPopular"][0]
    assert 0.05 < popular < 0.4
    assert table["ItemKNN"][0] > popular + 0.03
    assert table["EASE"][0] > popular + 0.03


@pytest.mark.parametrize("name", ["MostPopular", "Random", "ItemKNN", "EASE", "BiasBaseline"])
def test_users_of_another_id_kind_than_training_are_refused(name) -> None:
    from evalkit.models import MODELS

    train = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [10, 11, 10, 12],
                          "rating": [5.0, 4.0, 3.0, 4.0]})
    model = MODELS[name]().fit(train)
    with pytest.raises(TypeError, match=rf"{name}.recommend: 'users' holds string ids and the "
                                        r"model was fitted on integer user ids"):
        model.recommend(["1"], k=2)
    as_text = MODELS[name]().fit(train.astype({"user_id": str}))
    with pytest.raises(TypeError, match="holds integer ids .* fitted on string user ids"):
        as_text.recommend([1], k=2)
    assert set(model.recommend([1], k=1)["user_id"]) == {1}


def _scored_per_user(model):
    """The same model ranking each user's whole row (the blocked path of every other
    model) by its item scores, as the reference of the global-order path."""
    class PerUser(type(model)):
        def _global_scores(self, codes):
            return None

        def _scores(self, codes):
            return np.tile(type(model)._global_scores(self, codes)[0], (len(codes), 1))

    clone = PerUser.__new__(PerUser)
    clone.__dict__.update(model.__dict__)
    return clone


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(1, 14), exclude=st.booleans(),
       tied=st.booleans())
def test_global_order_models_equal_ranking_every_user_s_row(seed, k, exclude, tied) -> None:
    """MostPopular and BiasBaseline rank every user from one global order, skipping the
    items each user has seen; the lists equal those of scoring and ranking each user's row
    (ties by item id), for users with many seen items, unknown users, and k past what is
    left."""
    rng = np.random.default_rng(seed)
    n = 120
    train = pd.DataFrame({"user_id": rng.integers(0, 15, n), "item_id": rng.integers(0, 12, n),
                          "rating": rng.choice([1.0, 3.0, 5.0] if tied else
                                               np.linspace(0.5, 5, 10), n)})
    train = train.drop_duplicates(["user_id", "item_id"])
    users = np.array([0, 3, 7, 14, 99, 100])  # 99 and 100 are unknown
    for model in (MostPopular(), BiasBaseline(damping_user=0.0, damping_item=0.0)):
        model.fit(train)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # unknown users: the fallback
            got = model.recommend(users, k=k, exclude_seen=exclude)
            want = _scored_per_user(model).recommend(users, k=k, exclude_seen=exclude)
        # a user's score is the item's plus the user's offset (BiasBaseline: mu + b_u)
        codes = model.users_.get_indexer(users)
        offset = dict(zip(users, model._global_scores(codes)[1]))
        want["score"] = want["score"] + want["user_id"].map(offset)
        pd.testing.assert_frame_equal(got, want)
        if isinstance(model, BiasBaseline):  # the scores are the model's own predictions
            known = got[got["user_id"].isin(model.users_)]
            predicted = model.predict(known[["user_id", "item_id"]])
            np.testing.assert_allclose(known["score"], predicted["prediction"], rtol=0,
                                       atol=1e-12)


def test_ease_refuses_a_matrix_larger_than_the_memory_available(train, monkeypatch) -> None:
    from evalkit.models import ModelTooLarge
    from evalkit.models import ease as ease_module

    model = EASE(l2=1.0)
    n_items = train["item_id"].nunique()
    need = model.memory_needed(train["user_id"].nunique(), n_items)
    assert need >= 8 * n_items * n_items
    monkeypatch.setattr(ease_module, "available_memory", lambda: need - 1)
    with pytest.raises(ModelTooLarge, match=rf"EASE.fit: the {n_items} x {n_items} item-item "
                       r"matrix of .* needs about [0-9.]+ GB of memory, and this machine has "
                       r"[0-9.]+ GB available; pass EASE\(max_items=...\)"):
        model.fit(train)
    assert not hasattr(model, "weights_")
    # at MovieLens-25M's size, the estimate is the m x m float64 matrix and a block
    big = EASE().memory_needed(162_541, 59_047)
    assert 8 * 59_047**2 <= big <= 8 * 59_047**2 + 2**26


def test_ease_over_the_most_popular_items_recommends_only_among_them(train) -> None:
    popular = train.groupby("item_id")["user_id"].nunique()
    kept = popular.sort_values(ascending=False, kind="stable").index[:3]
    model = EASE(l2=1.0, max_items=3).fit(train)
    assert sorted(model.weight_items_) == sorted(kept) or \
        set(model.weight_items_) <= set(popular[popular >= popular[kept].min()].index)
    lists = model.recommend(train["user_id"].unique(), k=5)
    assert set(lists["item_id"]) <= set(model.weight_items_)
    # over every item, the approximation is the model itself
    full = EASE(l2=1.0).fit(train)
    same = EASE(l2=1.0, max_items=train["item_id"].nunique()).fit(train)
    np.testing.assert_array_equal(full.weights_, same.weights_)


@settings(max_examples=25, deadline=None)
@example(seed=96, k=1, neighbors=3, shrinkage=2.0, exclude_seen=False)
@given(seed=st.integers(0, 10_000), k=st.sampled_from([1, 3, 8]),
       neighbors=st.sampled_from([1, 3, 50]), shrinkage=st.sampled_from([0.0, 2.0]),
       exclude_seen=st.booleans())
def test_item_knn_lists_do_not_depend_on_the_users_asked_beside(seed, k, neighbors,
                                                                 shrinkage,
                                                                 exclude_seen) -> None:
    """A user's list is the same bits asked alone or beside others, unknown users among
    them (a block holding an unknown user once summed each user's scores in another order,
    which changed ties in the last bit), and with one thread or several."""
    from evalkit.models import _base

    gen = np.random.default_rng(seed)
    n = int(gen.integers(5, 60))
    train = pd.DataFrame({"user_id": gen.integers(0, 12, n), "item_id": gen.integers(0, 25, n),
                          "rating": gen.integers(1, 6, n).astype(float)})
    model = ItemKNN(neighbors=neighbors, shrinkage=shrinkage).fit(train)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        together = model.recommend(np.arange(-1, 14), k=k, exclude_seen=exclude_seen)
        for user in range(12):
            alone = model.recommend([user], k=k, exclude_seen=exclude_seen)
            pd.testing.assert_frame_equal(
                alone, together[together["user_id"] == user].reset_index(drop=True))
        original = _base.block_rows
        try:  # one user per block: blocks on threads
            _base.block_rows = lambda n_cols: 1
            pd.testing.assert_frame_equal(
                model.recommend(np.arange(-1, 14), k=k, exclude_seen=exclude_seen), together)
        finally:
            _base.block_rows = original


@pytest.mark.parametrize("make", [lambda: Random(rng=3), MostPopular, BiasBaseline, ItemKNN,
                                  lambda: EASE(l2=50.0)])
def test_score_gives_the_scores_recommend_ranks_by(make) -> None:
    from evalkit.data import load_sample

    ratings = load_sample().ratings
    ratings = ratings[ratings["user_id"] <= 60]
    model = make().fit(ratings)
    users = ratings["user_id"].drop_duplicates().to_numpy()[:25]
    recs = model.recommend(users, k=30)
    pairs = recs[["user_id", "item_id"]].sample(frac=1.0, random_state=0)  # another order
    pairs = pd.concat([pairs, pd.DataFrame({"user_id": [users[0]], "item_id": [-5]})],
                      ignore_index=True)
    before = pairs.copy()
    scored = model.score(pairs)
    pd.testing.assert_frame_equal(pairs, before)
    assert list(scored["user_id"]) == list(pairs["user_id"])
    assert scored["score"].iloc[-1] == -np.inf  # an item the model never saw
    want = recs.set_index(["user_id", "item_id"])["score"]
    got = scored.iloc[:-1].set_index(["user_id", "item_id"])["score"]
    np.testing.assert_allclose(got.to_numpy(), want.reindex(got.index).to_numpy(), rtol=1e-12)
