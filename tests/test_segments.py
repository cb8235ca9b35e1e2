"""Tests for evalkit.segments: activity bins, popularity buckets and the tables built on them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.segments import (
    exposure_by_popularity,
    item_popularity_buckets,
    metrics_by_segment,
    popularity_curve,
    user_activity_bins,
)
from evalkit.stats import bootstrap_ci_frame


def interactions(user_counts: dict[int, int]) -> pd.DataFrame:
    """One row per interaction, ``n`` rows for each user; item ids are distinct."""
    users = np.repeat(list(user_counts), list(user_counts.values()))
    return pd.DataFrame({"user_id": users, "item_id": np.arange(len(users)), "rating": 4.0})


def item_interactions(item_counts: dict[int, int]) -> pd.DataFrame:
    """``n`` interactions with each item, by distinct users."""
    items = np.repeat(list(item_counts), list(item_counts.values()))
    return pd.DataFrame({"user_id": np.arange(len(items)), "item_id": items, "rating": 4.0})


# ----------------------------------------------------------------------------------------------
# user_activity_bins
# ----------------------------------------------------------------------------------------------


def test_activity_bins_default_edges_and_labels() -> None:
    train = interactions({1: 19, 2: 20, 3: 49, 4: 50, 5: 149, 6: 150, 7: 1000})
    copy = train.copy()
    bins = user_activity_bins(train, users=[7, 1, 2, 3, 4, 5, 6, 99])
    pd.testing.assert_frame_equal(train, copy)
    assert bins.index.tolist() == [7, 1, 2, 3, 4, 5, 6, 99]
    assert bins.index.name == "user_id" and bins.name == "activity"
    assert bins.tolist() == [
        "heavy (150+)", "cold (<20)", "light (20-49)", "light (20-49)",
        "medium (50-149)", "medium (50-149)", "heavy (150+)",
        "cold (<20)",  # absent from train: 0 interactions
    ]
    assert bins.cat.ordered
    assert bins.cat.categories.tolist() == [
        "cold (<20)", "light (20-49)", "medium (50-149)", "heavy (150+)"
    ]


def test_activity_bins_default_users_are_train_users_sorted() -> None:
    train = interactions({5: 3, 2: 30})
    bins = user_activity_bins(train)
    assert bins.index.tolist() == [2, 5]
    assert bins.tolist() == ["light (20-49)", "cold (<20)"]


def test_activity_bins_custom_edges_and_labels() -> None:
    train = interactions({1: 1, 2: 2, 3: 5})
    bins = user_activity_bins(train, bins=[1, 2, 5, 6], labels=["one", "few", "five"])
    assert bins.tolist() == ["one", "few", "five"]
    auto = user_activity_bins(train, bins=[1, 2, 5, 6])
    assert auto.cat.categories.tolist() == ["light (1)", "medium (2-4)", "heavy (5)"]


def test_activity_bins_quantiles() -> None:
    # counts 1..8: the median is 4.5, rounded up to the edge 5
    train = interactions({u: u for u in range(1, 9)})
    bins = user_activity_bins(train, bins=2)
    assert bins.cat.categories.tolist() == ["light (<5)", "heavy (5+)"]
    assert bins.value_counts(sort=False).tolist() == [4, 4]


def test_activity_bins_quantiles_merge_duplicate_edges() -> None:
    train = interactions({1: 3, 2: 3, 3: 3, 4: 3, 5: 10})
    bins = user_activity_bins(train, bins=4)
    # the quantiles are 3, 3, 3: one inner edge
    assert bins.cat.categories.tolist() == ["light (<3)", "heavy (3+)"]
    assert (bins == "heavy (3+)").all()


@pytest.mark.parametrize(
    "bins", [[20, 0, 50], [0], [0, 2.5, 10], [-1, 5], [0, np.inf, 10], "0,10"]
)
def test_activity_bins_rejects_bad_edges(bins: object) -> None:
    with pytest.raises((ValueError, TypeError), match="user_activity_bins: 'bins'"):
        user_activity_bins(interactions({1: 3}), bins=bins)


def test_activity_bins_count_outside_edges_is_an_error() -> None:
    with pytest.raises(ValueError, match=r"user_activity_bins: 1 user\(s\).*user 2 with 0"):
        user_activity_bins(interactions({1: 3}), bins=[1, 10], users=[1, 2])
    with pytest.raises(ValueError, match="outside the bins"):
        user_activity_bins(interactions({1: 30}), bins=[0, 10])


def test_activity_bins_bad_labels_and_frame() -> None:
    with pytest.raises(ValueError, match="'labels' must hold 4 distinct labels"):
        user_activity_bins(interactions({1: 3}), labels=["a", "b"])
    with pytest.raises(ValueError, match="missing column"):
        user_activity_bins(pd.DataFrame({"item_id": [1]}))


@settings(max_examples=50, deadline=None)
@given(st.dictionaries(st.integers(0, 40), st.integers(1, 200), min_size=1, max_size=15))
def test_activity_bins_match_a_naive_rule(counts: dict[int, int]) -> None:
    bins = user_activity_bins(interactions(counts))
    expected = {}
    for user, n in counts.items():
        if n < 20:
            expected[user] = "cold (<20)"
        elif n < 50:
            expected[user] = "light (20-49)"
        elif n < 150:
            expected[user] = "medium (50-149)"
        else:
            expected[user] = "heavy (150+)"
    assert bins.astype(str).to_dict() == expected


# ----------------------------------------------------------------------------------------------
# item_popularity_buckets / popularity_curve
# ----------------------------------------------------------------------------------------------


def test_buckets_hand_example() -> None:
    # total 20; head: item 1 alone holds 8/20 >= 0.2; tail: count 1 holds 3/20 <= 0.2,
    # counts <= 2 would hold 7/20 > 0.2
    train = item_interactions({1: 8, 2: 4, 3: 2, 4: 2, 5: 1, 6: 1, 7: 1, 8: 1})
    train = train.iloc[:-1]  # item 8 gone: total 19, count-1 items 5, 6, 7 hold 3/19
    copy = train.copy()
    buckets = item_popularity_buckets(train)
    pd.testing.assert_frame_equal(train, copy)
    assert buckets.to_dict() == {
        1: "head", 2: "mid", 3: "mid", 4: "mid", 5: "tail", 6: "tail", 7: "tail"
    }
    assert buckets.index.name == "item_id" and buckets.name == "popularity"
    assert buckets.cat.categories.tolist() == ["head", "mid", "tail"] and buckets.cat.ordered


def test_buckets_keep_ties_together() -> None:
    # head share 0.5: item 1 holds 3/9, item 2 brings it to 6/9, and item 3 ties with item 2
    train = item_interactions({1: 3, 2: 2, 3: 2, 4: 1, 5: 1})
    buckets = item_popularity_buckets(train, head=0.5, tail=0.25)
    assert buckets.to_dict() == {1: "head", 2: "head", 3: "head", 4: "tail", 5: "tail"}


def test_buckets_empty_tail_when_rarest_count_holds_too_much() -> None:
    train = item_interactions({1: 5, 2: 5, 3: 5, 4: 5})
    buckets = item_popularity_buckets(train, head=0.2, tail=0.2)
    assert (buckets == "head").all()
    train = item_interactions({1: 10, 2: 5, 3: 5})
    assert item_popularity_buckets(train, head=0.3, tail=0.2).tolist() == ["head", "mid", "mid"]
    assert item_popularity_buckets(train, head=0.3, tail=0.0).tolist() == ["head", "mid", "mid"]


@pytest.mark.parametrize("head, tail", [(0.0, 0.2), (1.5, 0.2), (0.2, 1.0), (0.7, 0.5), ("a", 0.2)])
def test_buckets_reject_bad_shares(head: object, tail: object) -> None:
    with pytest.raises((ValueError, TypeError), match="item_popularity_buckets: 'head'|'tail'"):
        item_popularity_buckets(item_interactions({1: 2}), head=head, tail=tail)


@settings(max_examples=50, deadline=None)
@given(
    st.dictionaries(st.integers(0, 60), st.integers(1, 30), min_size=1, max_size=25),
    st.floats(0.05, 0.6),
    st.floats(0.0, 0.35),
)
def test_buckets_properties(counts: dict[int, int], head: float, tail: float) -> None:
    train = item_interactions(counts)
    buckets = item_popularity_buckets(train, head=head, tail=tail)
    n = pd.Series(counts)
    total = n.sum()
    b = buckets.reindex(n.index)
    head_share = n[b == "head"].sum() / total
    tail_share = n[b == "tail"].sum() / total
    assert head_share >= head - 1e-9
    assert tail_share <= tail + 1e-9
    # a bucket depends only on the count, and more popular items never sit in a lower bucket
    codes = b.cat.codes
    order = np.argsort(-n.to_numpy(), kind="stable")
    assert np.all(np.diff(codes.to_numpy()[order]) >= 0)
    assert (b.groupby(n).nunique() == 1).all()
    # the head is minimal: dropping its least popular count group leaves less than `head`
    head_counts = n[b == "head"]
    assert (head_counts.sum() - head_counts[head_counts == head_counts.min()].sum()) / total < head


def test_popularity_curve_hand_example() -> None:
    train = item_interactions({7: 1, 3: 4, 9: 4, 1: 1})
    curve = popularity_curve(train, head=0.4, tail=0.2)
    assert curve["item_id"].tolist() == [3, 9, 1, 7]  # ties by item_id
    assert curve["rank"].tolist() == [1, 2, 3, 4]
    assert curve["count"].tolist() == [4, 4, 1, 1]
    np.testing.assert_allclose(curve["share"], [0.4, 0.4, 0.1, 0.1])
    np.testing.assert_allclose(curve["cumulative_share"], [0.4, 0.8, 0.9, 1.0])
    assert curve["bucket"].astype(str).tolist() == ["head", "head", "tail", "tail"]
    pd.testing.assert_series_equal(
        curve.set_index("item_id")["bucket"],
        item_popularity_buckets(train, head=0.4, tail=0.2),
        check_names=False,
    )


# ----------------------------------------------------------------------------------------------
# exposure_by_popularity
# ----------------------------------------------------------------------------------------------


@pytest.fixture
def buckets() -> pd.Series:
    return pd.Series(
        pd.Categorical(["head", "mid", "tail"], categories=["head", "mid", "tail"], ordered=True),
        index=pd.Index([10, 20, 30], name="item_id"),
    )


def test_exposure_hand_example(buckets: pd.Series) -> None:
    a = pd.DataFrame({"user_id": [1, 1, 1, 2, 2, 2], "item_id": [10, 20, 30, 10, 40, 20],
                      "rank": [1, 2, 3, 1, 2, 3]})
    b = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [10, 30, 30], "score": [0.1, 0.9, 0.5]})
    train = pd.DataFrame({"user_id": [1, 2, 3, 4, 5], "item_id": [10, 10, 10, 20, 30]})
    inputs = [a.copy(), b.copy(), train.copy(), buckets.copy()]
    table = exposure_by_popularity({"A": a, "B": b}, buckets, k=2, train=train)
    for before, after in zip(inputs, [a, b, train, buckets]):
        assert before.equals(after)
    assert table["system"].tolist() == ["train"] * 3 + ["A"] * 3 + ["B"] * 3
    assert table["bucket"].astype(str).tolist() == ["head", "mid", "tail"] * 3
    # A's top 2: user 1 -> 10, 20; user 2 -> 10, 40 (40 has no bucket: tail)
    # B's top 2 by score: user 1 -> 30, 10; user 2 -> 30
    assert table["slots"].tolist() == [3, 1, 1, 2, 1, 1, 1, 0, 2]
    np.testing.assert_allclose(
        table["share"], [0.6, 0.2, 0.2, 0.5, 0.25, 0.25, 1 / 3, 0.0, 2 / 3]
    )


def test_exposure_single_frame_and_errors(buckets: pd.Series) -> None:
    recs = pd.DataFrame({"user_id": [1], "item_id": [20], "rank": [1]})
    table = exposure_by_popularity(recs, buckets, k=1)
    assert table["system"].unique().tolist() == ["recs"]
    assert table["slots"].tolist() == [0, 1, 0]
    with pytest.raises(ValueError, match="exposure_by_popularity: 'k' must be a positive integer"):
        exposure_by_popularity(recs, buckets, k=0)
    with pytest.raises(ValueError,
                       match=r"exposure_by_popularity: 'recs\['A'\]' needs a 'rank' or"):
        exposure_by_popularity({"A": recs.drop(columns="rank")}, buckets)
    with pytest.raises(ValueError, match="named 'train'"):
        exposure_by_popularity({"train": recs}, buckets, train=recs)
    with pytest.raises(TypeError, match="'buckets' must be a pandas Series"):
        exposure_by_popularity(recs, buckets.to_dict())


def test_exposure_plain_series_buckets() -> None:
    buckets = pd.Series(["b", "a"], index=[1, 2])
    recs = pd.DataFrame({"user_id": [1, 1, 1], "item_id": [1, 2, 3], "rank": [1, 2, 3]})
    table = exposure_by_popularity({"S": recs}, buckets, k=3)
    assert table["bucket"].astype(str).tolist() == ["a", "b"]
    assert table["slots"].tolist() == [1, 2]  # item 3 goes to the last category, "b"


# ----------------------------------------------------------------------------------------------
# metrics_by_segment
# ----------------------------------------------------------------------------------------------


@pytest.fixture
def per_user() -> pd.DataFrame:
    return pd.DataFrame(
        {"ndcg@10": [0.2, 0.4, 0.6, 1.0, 0.5], "recall@10": [0.0, 1.0, np.nan, 0.5, 0.5]},
        index=pd.Index([1, 2, 3, 4, 5], name="user_id"),
    )


@pytest.fixture
def segments() -> pd.Series:
    cats = pd.CategoricalDtype(["cold", "warm", "hot"], ordered=True)
    return pd.Series(["warm", "cold", "warm", "warm", "cold", "hot"],
                     index=pd.Index([1, 2, 3, 4, 5, 6], name="user_id"), dtype=cats)


def test_metrics_by_segment_hand_means(per_user: pd.DataFrame, segments: pd.Series) -> None:
    inputs = per_user.copy(), segments.copy()
    table = metrics_by_segment(per_user, segments, n_resamples=200, rng=1)
    pd.testing.assert_frame_equal(per_user, inputs[0])
    pd.testing.assert_series_equal(segments, inputs[1])
    assert table.columns.tolist() == ["segment", "column", "mean", "ci_low", "ci_high", "n_users"]
    # "hot" has no evaluated user: left out; segment order follows the categories
    assert table["segment"].astype(str).tolist() == ["cold", "cold", "warm", "warm"]
    assert table["segment"].cat.categories.tolist() == ["cold", "warm", "hot"]
    assert table["column"].tolist() == ["ndcg@10", "recall@10"] * 2
    # cold = users 2, 5; warm = users 1, 3, 4 (user 3's recall undefined)
    np.testing.assert_allclose(table["mean"], [0.45, 0.75, 0.6, 0.25])
    assert table["n_users"].tolist() == [2, 2, 3, 2]
    assert (table["ci_low"] <= table["mean"]).all() and (table["mean"] <= table["ci_high"]).all()


def test_metrics_by_segment_interval_is_the_bootstrap_of_the_segment() -> None:
    # one segment: the table's interval is bootstrap_ci_frame's on the same seed
    values = pd.DataFrame({"ndcg@10": np.linspace(0, 1, 30)},
                          index=pd.RangeIndex(30, name="user_id"))
    segments = pd.Series("all", index=values.index)
    table = metrics_by_segment(values, segments, rng=3)
    expected = bootstrap_ci_frame(values, rng=3)
    np.testing.assert_allclose(table[["ci_low", "ci_high"]].to_numpy(),
                               expected[["ci_low", "ci_high"]].to_numpy())


def test_metrics_by_segment_constant_segment_has_a_point_interval(segments: pd.Series) -> None:
    per_user = pd.DataFrame({"p@1": [1.0, 0.0, 1.0, 1.0, 0.0]}, index=[1, 2, 3, 4, 5])
    table = metrics_by_segment(per_user, segments)
    np.testing.assert_allclose(table["ci_low"], [0.0, 1.0])
    np.testing.assert_allclose(table["ci_high"], [0.0, 1.0])


def test_metrics_by_segment_systems_and_seed(per_user: pd.DataFrame, segments: pd.Series) -> None:
    systems = {"A": per_user, "B": per_user * 0.5}
    table = metrics_by_segment(systems, segments, n_resamples=100, rng=0)
    again = metrics_by_segment(systems, segments, n_resamples=100, rng=0)
    pd.testing.assert_frame_equal(table, again)
    assert table["system"].tolist() == ["A"] * 4 + ["B"] * 4
    np.testing.assert_allclose(table["mean"].iloc[4:], table["mean"].iloc[:4] * 0.5)


def test_metrics_by_segment_unlabelled_user_is_an_error(per_user: pd.DataFrame) -> None:
    segments = pd.Series(["a", "b"], index=[1, 2])
    with pytest.raises(ValueError, match=r"metrics_by_segment: 3 user\(s\) of 'per_user\['A'\]'"):
        metrics_by_segment({"A": per_user}, segments)
    with pytest.raises(ValueError, match="unique user ids"):
        metrics_by_segment(per_user, pd.Series(["a", "b"], index=[1, 1]))
    with pytest.raises(TypeError, match="'segments' must be a pandas Series"):
        metrics_by_segment(per_user, {1: "a"})


def test_user_activity_bins_feed_metrics_by_segment() -> None:
    train = interactions({1: 5, 2: 30, 3: 60})
    per_user = pd.DataFrame({"ndcg@10": [0.1, 0.5, 0.9, 0.3]}, index=[1, 2, 3, 4])
    segments = user_activity_bins(train, users=per_user.index)
    table = metrics_by_segment(per_user, segments, n_resamples=50)
    assert table["segment"].astype(str).tolist() == ["cold (<20)", "light (20-49)",
                                                     "medium (50-149)"]
    np.testing.assert_allclose(table["mean"], [0.2, 0.5, 0.9])  # cold: users 1 and 4


# ------------------------------------------------------------------------------ recall by bucket


def _long_tail_case(seed: int = 0):
    gen = np.random.default_rng(seed)
    train = pd.DataFrame({"user_id": gen.integers(0, 200, 5000),
                          "item_id": (gen.pareto(1.0, 5000) * 3).astype(int) % 150}
                         ).drop_duplicates()
    truth = pd.DataFrame({"user_id": np.repeat(np.arange(120), 6),
                          "item_id": gen.integers(0, 180, 720),  # 150..179: new items
                          "rating": gen.integers(1, 6, 720).astype(float)}
                         ).drop_duplicates(["user_id", "item_id"])
    scores = pd.DataFrame({"user_id": np.repeat(np.arange(125), 30),
                           "item_id": np.concatenate([gen.choice(180, 30, replace=False)
                                                      for _ in range(125)]),
                           "score": gen.integers(0, 8, 3750).astype(float)})
    return train, truth, scores


def test_recall_by_popularity_counts_every_relevant_item_once_by_hand() -> None:
    from evalkit.segments import NEW_ITEMS, recall_by_popularity

    train, truth, scores = _long_tail_case()
    buckets = item_popularity_buckets(train)
    table = recall_by_popularity(truth, {"s": scores}, buckets, k=10, n_resamples=200)
    relevant = truth[truth["rating"] >= 4.0]
    ordered = scores.sort_values(["user_id", "score", "item_id"], ascending=[True, False, True])
    top = ordered.groupby("user_id").head(10)
    merged = relevant.merge(top[["user_id", "item_id"]].assign(hit=True), how="left",
                            on=["user_id", "item_id"])
    merged["segment"] = merged["item_id"].map(buckets).astype(object).fillna(NEW_ITEMS)
    want = merged.groupby("segment").agg(relevant=("item_id", "size"),
                                         hits=("hit", lambda h: int(h.notna().sum())),
                                         users=("user_id", "nunique"))
    got = table.set_index(table["segment"].astype(str))
    assert set(got.index) == set(want.index)
    for segment, row in want.iterrows():
        assert got.loc[segment, "relevant"] == row["relevant"]
        assert got.loc[segment, "hits"] == row["hits"]
        assert got.loc[segment, "n_users"] == row["users"]
        assert got.loc[segment, "mean"] == pytest.approx(row["hits"] / row["relevant"])
    assert got["hits"].sum() <= got["relevant"].sum() == len(relevant)
    defined = got[got["hits"] > 0]
    assert ((defined["ci_low"] <= defined["mean"]) & (defined["mean"] <= defined["ci_high"])).all()
    # the same lists given as ranks give the same table
    ranks = top.assign(rank=top.groupby("user_id").cumcount() + 1).drop(columns="score")
    again = recall_by_popularity(truth, {"s": ranks}, buckets, k=10, n_resamples=200)
    pd.testing.assert_frame_equal(again, table)


def test_recall_by_popularity_interval_is_a_user_bootstrap_of_the_ratio() -> None:
    from evalkit.segments import recall_by_popularity

    train, truth, scores = _long_tail_case(1)
    truth = pd.concat([truth, truth.assign(user_id=truth["user_id"] + 1000)])
    scores = pd.concat([scores, scores.assign(user_id=scores["user_id"] + 1000)])
    buckets = item_popularity_buckets(train)
    table = recall_by_popularity(truth, scores, buckets, k=15, threshold=None,
                                 n_resamples=3000, rng=4).set_index("segment")
    head = truth[truth["item_id"].map(buckets).eq("head")]
    ordered = scores.sort_values(["user_id", "score", "item_id"], ascending=[True, False, True])
    top = ordered.groupby("user_id").head(15)
    hit = head.merge(top[["user_id", "item_id"]], on=["user_id", "item_id"], how="left",
                     indicator=True)["_merge"].eq("both").to_numpy()
    users, codes = np.unique(head["user_id"].to_numpy(), return_inverse=True)
    rel = np.bincount(codes).astype(float)
    got = np.bincount(codes, weights=hit)
    draws = np.random.default_rng(0).integers(0, len(users), size=(3000, len(users)))
    low, high = np.quantile(got[draws].sum(1) / rel[draws].sum(1), [0.025, 0.975])
    width = high - low
    assert table.loc["head", "ci_low"] == pytest.approx(low, abs=0.1 * width)
    assert table.loc["head", "ci_high"] == pytest.approx(high, abs=0.1 * width)
    assert "system" not in table.columns  # one frame: no system column


def test_recall_by_popularity_on_implicit_truth() -> None:
    from evalkit.segments import recall_by_popularity

    train, truth, scores = _long_tail_case(2)
    buckets = item_popularity_buckets(train)
    implicit = recall_by_popularity(truth.drop(columns="rating"), scores, buckets, threshold=None)
    explicit = recall_by_popularity(truth, scores, buckets, threshold=None)
    pd.testing.assert_frame_equal(implicit, explicit)
    with pytest.raises(ValueError, match="recall_by_popularity: 'truth' is missing column rating"):
        recall_by_popularity(truth.drop(columns="rating"), scores, buckets)
