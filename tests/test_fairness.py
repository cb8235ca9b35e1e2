"""Group disparity and exposure (evalkit.fairness): means, gaps and MAD by hand, the
permutation p-value against exact enumeration, standardisation that removes a gap explained
by activity, and exposure shares by hand."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import evalkit as ek
from evalkit import fairness


def test_means_gaps_and_mad_are_the_groups() -> None:
    values = pd.Series([0.1, 0.3, 0.5, 0.2, 0.4, 0.9, 0.7, np.nan],
                       index=pd.Index(range(8), name="user_id"))
    groups = pd.Series(["a", "a", "a", "b", "b", "c", "c", "c"], index=range(8))
    table = fairness.group_disparity(values, groups, n_resamples=200, n_permutations=200)
    assert list(table["group"]) == ["a", "b", "c"]  # the largest first, then by size
    means = {"a": 0.3, "b": 0.3, "c": 0.8}
    for row in table.itertuples():
        assert row.mean == pytest.approx(means[row.group])
        assert row.gap == pytest.approx(means[row.group] - 0.3)
        assert row.ci_low <= row.mean <= row.ci_high
    assert table.mad == pytest.approx((0.5 + 0.0 + 0.5) / 3)
    assert table.dropped == {"undefined": 1, "no group": 0}
    assert table.reference == "a" and np.isnan(table["p_value"].iloc[0])
    ratio = fairness.group_disparity(values, groups, reference="b", stat="ratio",
                                     n_resamples=0, n_permutations=10)
    assert ratio.set_index("group").loc["c", "gap"] == pytest.approx(0.8 / 0.3)
    assert np.isnan(ratio["ci_low"]).all()


def test_the_permutation_p_value_is_the_exact_one_within_monte_carlo_error() -> None:
    rng = np.random.default_rng(3)
    x = np.round(rng.normal(0, 1, 12), 3)
    x[6:] += 0.9
    values = pd.Series(x, index=range(12))
    groups = pd.Series(["r"] * 6 + ["g"] * 6, index=range(12))
    observed = abs(x[6:].mean() - x[:6].mean())
    exact = np.mean([abs(x[list(c)].mean() - np.delete(x, list(c)).mean()) >= observed - 1e-12
                     for c in itertools.combinations(range(12), 6)])
    got = fairness.group_disparity(values, groups, reference="r", n_resamples=0,
                                   n_permutations=20000, rng=1)["p_value"].iloc[1]
    assert abs(got - exact) < 4 * np.sqrt(exact * (1 - exact) / 20000) + 1e-4


def test_standardising_for_activity_removes_a_gap_that_activity_explains() -> None:
    rng = np.random.default_rng(0)
    n = 4000
    group = rng.choice(["f", "m"], n)
    # m users are more active; the metric depends on activity alone
    active = np.where(group == "m", rng.random(n) < 0.7, rng.random(n) < 0.3)
    value = np.where(active, 0.6, 0.2) + rng.normal(0, 0.01, n)
    users = pd.Index(range(n), name="user_id")
    per_user, groups = pd.Series(value, index=users), pd.Series(group, index=users)
    strata = pd.Series(np.where(active, "high", "low"), index=users)
    table = fairness.group_disparity(per_user, groups, reference="m", adjust_for=strata,
                                     n_resamples=200, n_permutations=200).set_index("group")
    assert table.loc["f", "gap"] < -0.1 and table.loc["f", "p_value"] < 0.01
    assert abs(table.loc["f", "adjusted_gap"]) < 0.003
    assert table.loc["f", "adjusted_gap_ci_low"] <= 0 <= table.loc["f", "adjusted_gap_ci_high"]
    # the standardised mean: each group's stratum means at the pooled stratum shares
    share = strata.value_counts(normalize=True)
    f_means = per_user[groups == "f"].groupby(strata[groups == "f"]).mean()
    assert table.loc["f", "adjusted_mean"] == pytest.approx((f_means * share).sum())


def test_bad_groups_are_refused_naming_the_argument() -> None:
    values = pd.Series([0.1, 0.2], index=[1, 2])
    with pytest.raises(ValueError, match="at least two groups"):
        fairness.group_disparity(values, pd.Series(["a", "a"], index=[1, 2]))
    with pytest.raises(ValueError, match="'reference' 'z'"):
        fairness.group_disparity(values, pd.Series(["a", "b"], index=[1, 2]), reference="z")
    with pytest.raises(TypeError, match="'groups' must be a pandas Series"):
        fairness.group_disparity(values, ["a", "b"])


def test_exposure_shares_are_the_attention_each_group_gets() -> None:
    recs = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [10, 20, 20, 30],
                         "rank": [1, 2, 1, 2]})
    item_groups = pd.Series({10: "head", 20: "tail", 30: "tail", 40: "tail"})
    table = fairness.exposure_share(recs, item_groups, k=2, weight="log", n_resamples=100)
    w1, w2 = 1.0, 1 / np.log2(3)
    total = 2 * (w1 + w2)
    assert table.loc["head", "share"] == pytest.approx(w1 / total)
    assert table.loc["tail", "share"] == pytest.approx((w2 + w1 + w2) / total)
    assert table.loc["head", "target"] == pytest.approx(0.25)  # 1 of the 4 items
    assert table.loc["head", "ratio"] == pytest.approx(w1 / total / 0.25)
    assert (table["ci_low"] <= table["share"] + 1e-12).all()
    uniform = fairness.exposure_share(recs, item_groups, k=2, weight="uniform", n_resamples=0,
                                      target="train", train=pd.DataFrame({"item_id": [10, 10,
                                                                                       30]}))
    assert uniform.loc["head", "share"] == 0.25 and uniform.loc["head", "target"] == 2 / 3
    with pytest.raises(ValueError, match="needs 'truth'"):
        fairness.exposure_share(recs, item_groups, target="relevant")
    assert ek.fairness is fairness


def test_compare_disparity_says_which_system_has_the_smaller_gap() -> None:
    rng = np.random.default_rng(4)
    n = 3000
    users = pd.Index(range(n), name="user_id")
    groups = pd.Series(rng.choice(["x", "y"], n, p=[0.6, 0.4]), index=users)
    base = rng.random(n)
    wide = pd.Series(base + np.where(groups == "y", -0.2, 0.0), index=users)  # a 0.2 gap
    narrow = pd.Series(base + np.where(groups == "y", -0.02, 0.0), index=users)
    same = narrow.copy()
    table = fairness.compare_disparity({"wide": wide, "narrow": narrow, "same": same}, groups,
                                       n_resamples=300)
    assert list(zip(table["system"], table["against"])) == [
        ("narrow", "wide"), ("same", "wide"), ("same", "narrow")]
    row = table.iloc[0]
    assert row["group"] == "y"
    assert row["gap"] == pytest.approx(narrow[groups == "y"].mean() - narrow[groups == "x"].mean())
    assert row["difference"] < 0 and row["ci_high"] < 0 and row["smaller"] == "narrow"
    last = table.iloc[2]
    assert last["difference"] == 0 and last["smaller"] is None
    # the per-system gaps are group_disparity's
    alone = fairness.group_disparity(wide, groups, n_resamples=0, n_permutations=10)
    assert table.iloc[0]["gap_against"] == pytest.approx(alone.set_index("group").loc["y", "gap"])


def test_awrf_is_the_jensen_shannon_distance_to_the_target() -> None:
    from scipy.spatial.distance import jensenshannon

    rng = np.random.default_rng(2)
    items = np.arange(30)
    item_groups = pd.Series(rng.choice(["a", "b", "c"], 30), index=items)
    recs = pd.DataFrame({"user_id": np.repeat([1, 2, 3], 5),
                         "item_id": rng.choice(items, 15, replace=False),
                         "rank": np.tile(np.arange(1, 6), 3)})
    got = fairness.awrf(recs, item_groups, k=5)
    target = item_groups.value_counts(normalize=True)
    w = 1 / np.log2(np.arange(1, 6) + 1)
    for user, rows in recs.groupby("user_id"):
        p = pd.Series(w, index=item_groups[rows["item_id"]].to_numpy()).groupby(level=0).sum()
        names = target.index
        p = p.reindex(names).fillna(0) / w.sum()
        assert got[user] == pytest.approx(jensenshannon(p, target[names], base=2), abs=1e-12)


def test_expected_exposure_against_every_ideal_ranking_enumerated() -> None:
    """Expected exposure (Diaz et al., CIKM 2020) against its definition, not a closed form:
    the target exposure of an item is its mean exposure over every ideal ranking (each order
    of the user's relevant items, then each order of the rest), enumerated here; the system's
    is its list's position weights. Users with fewer, as many and more relevant items than
    k."""
    n_items, k, patience = 7, 4, 0.5
    recs = pd.DataFrame({"user_id": [1] * 4 + [2] * 4 + [3] * 4,
                         "item_id": [3, 0, 6, 5, 1, 2, 0, 4, 2, 6, 1, 0],
                         "rank": [1, 2, 3, 4] * 3})
    relevant = {1: [0, 5], 2: [1, 2, 3, 4], 3: [0, 1, 2, 3, 4]}
    truth = pd.DataFrame([(u, i) for u, items in relevant.items() for i in items],
                         columns=["user_id", "item_id"]).assign(rating=5.0)
    got = fairness.expected_exposure(recs, truth, n_items=n_items, k=k, patience=patience)

    def weight(position: int) -> float:  # position 0 is the top: patience^p, cut at k
        return patience ** position if position < k else 0.0

    for user, rel in relevant.items():
        rest = [i for i in range(n_items) if i not in rel]
        star, count = np.zeros(n_items), 0
        for top in itertools.permutations(rel):
            for bottom in itertools.permutations(rest):
                for position, item in enumerate(top + bottom):
                    star[item] += weight(position)
                count += 1
        star /= count
        e = np.zeros(n_items)
        for row in recs[recs["user_id"] == user].itertuples():
            e[row.item_id] = weight(row.rank - 1)
        row = got.loc[user]
        assert row["ee_l"] == pytest.approx(((e - star) ** 2).sum(), abs=1e-12)
        assert row["ee_d"] == pytest.approx((e ** 2).sum(), abs=1e-12)
        assert row["ee_r"] == pytest.approx(e @ star, abs=1e-12)


def test_with_random_labels_the_gap_interval_covers_zero_at_about_the_nominal_rate() -> None:
    rng = np.random.default_rng(8)
    n, labelings = 300, 80
    users = pd.Index(range(n), name="user_id")
    values = pd.Series(rng.exponential(1.0, n), index=users)  # skewed, as metrics are
    covered = 0
    for seed in range(labelings):  # each a fresh random labelling
        groups = pd.Series(np.random.default_rng(seed).choice(["a", "b"], n), index=users)
        row = fairness.group_disparity(values, groups, n_resamples=300, n_permutations=50,
                                       rng=seed).iloc[1]
        covered += row["gap_ci_low"] <= 0 <= row["gap_ci_high"]
    rate = covered / labelings
    assert abs(rate - 0.95) < 4 * np.sqrt(0.95 * 0.05 / labelings)


def test_a_planted_gap_is_found_with_its_size() -> None:
    rng = np.random.default_rng(9)
    n = 5000
    users = pd.Index(range(n), name="user_id")
    groups = pd.Series(rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2]), index=users)
    values = pd.Series(rng.normal(0.5, 0.1, n) - np.where(groups == "c", 0.05, 0.0),
                       index=users)
    table = fairness.group_disparity(values, groups, n_resamples=300,
                                     n_permutations=500).set_index("group")
    se = 0.1 * np.sqrt(1 / (groups == "c").sum() + 1 / (groups == "a").sum())
    assert abs(table.loc["c", "gap"] + 0.05) < 3 * se  # its size, within sampling error
    assert table.loc["c", "gap_ci_high"] < 0 and table.loc["c", "p_value"] < 0.01
    assert table.loc["b", "gap_ci_low"] <= 0 <= table.loc["b", "gap_ci_high"]


def test_a_random_recommenders_exposure_tends_to_the_catalogue_share_and_awrf_to_zero() -> None:
    rng = np.random.default_rng(10)
    items = np.arange(200)
    item_groups = pd.Series(np.where(items < 40, "head", "tail"), index=items)
    n_users, k = 3000, 10
    picks = np.argsort(rng.random((n_users, 200)), axis=1)[:, :k]
    recs = pd.DataFrame({"user_id": np.repeat(np.arange(n_users), k), "item_id": picks.ravel(),
                         "rank": np.tile(np.arange(1, k + 1), n_users)})
    table = fairness.exposure_share(recs, item_groups, k=k, weight="geometric", n_resamples=200)
    assert table.loc["head", "target"] == pytest.approx(0.2)
    assert table.loc["head", "ci_low"] <= 0.2 <= table.loc["head", "ci_high"]
    assert abs(table.loc["head", "share"] - 0.2) < 0.01
    # a list whose attention matches the target exactly has AWRF 0
    exact = pd.DataFrame({"user_id": 1, "item_id": [0, 50, 51, 52, 53], "rank": range(1, 6)})
    assert fairness.awrf(exact, item_groups, k=5, weight="uniform").iloc[0] == pytest.approx(
        0.0, abs=1e-12)


def test_large_groups_use_the_permutation_distributions_normal_limit() -> None:
    rng = np.random.default_rng(12)
    n = 4000
    users = pd.Index(range(n), name="user_id")
    groups = pd.Series(np.where(np.arange(n) < 2500, "r", "g"), index=users)
    values = pd.Series(rng.exponential(1.0, n) + np.where(groups == "g", 0.06, 0.0),
                       index=users)
    got = fairness.group_disparity(values, groups, reference="r", n_resamples=0).iloc[1]
    # the test by rounds: 4,000 random relabellings keeping the sizes
    x, labels = values.to_numpy(), groups.to_numpy()
    chosen = np.argpartition(np.random.default_rng(0).random((4000, n)), 1499, axis=1)[:, :1500]
    in_group = x[chosen].sum(axis=1)
    diffs = np.abs(in_group / 1500 - (x.sum() - in_group) / 2500)
    observed = abs(x[labels == "g"].mean() - x[labels == "r"].mean())
    mc = (1 + np.count_nonzero(diffs >= observed)) / 4001
    assert abs(got["p_value"] - mc) < 4 * np.sqrt(mc * (1 - mc) / 4000) + 2e-3


def test_an_item_in_several_groups_splits_its_attention_equally() -> None:
    recs = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [1, 2, 3, 9], "rank": [1, 2, 1, 2]})
    joined = pd.Series({1: "Action|Comedy", 2: "Drama", 3: "Action", 4: "Comedy|Drama|Action"})
    pairs = pd.Series(["Action", "Comedy", "Drama", "Action", "Comedy", "Drama", "Action"],
                      index=[1, 1, 2, 3, 4, 4, 4])
    w1, w2 = 1.0, 1 / np.log2(3)
    total = 2 * (w1 + w2)
    by_sep = fairness.exposure_share(recs, joined, k=2, sep="|", n_resamples=50)
    by_pairs = fairness.exposure_share(recs, pairs, k=2, n_resamples=50)
    pd.testing.assert_frame_equal(by_sep, by_pairs)
    share = {"Action": (w1 / 2 + w1) / total, "Comedy": w1 / 2 / total, "Drama": w2 / total,
             "(none)": w2 / total}  # item 9 has no group
    assert by_sep["share"].to_dict() == pytest.approx(share)
    assert by_sep["share"].sum() == pytest.approx(1.0)
    # the catalogue target splits each item the same way: Action 1/2 + 1 + 1/3 of 4 items
    assert by_sep["target"].to_dict() == pytest.approx(
        {"Action": (1 / 2 + 1 + 1 / 3) / 4, "Comedy": (1 / 2 + 1 / 3) / 4,
         "Drama": (1 + 1 / 3) / 4, "(none)": 0.0})
    train = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [1, 9, 2]})
    target = fairness.exposure_share(recs, joined, k=2, sep="|", target="train", train=train,
                                     n_resamples=0)["target"]
    assert target.to_dict() == pytest.approx(
        {"Action": 0.5 / 3, "Comedy": 0.5 / 3, "Drama": 1 / 3, "(none)": 1 / 3})
    # one label per item given with sep: the single-label numbers
    single = pd.Series({1: "head", 2: "tail", 3: "tail"})
    pd.testing.assert_frame_equal(
        fairness.exposure_share(recs, single, k=2, sep="|", n_resamples=50),
        fairness.exposure_share(recs, single, k=2, n_resamples=50))
    # awrf: the same split distribution against the target
    from scipy.spatial.distance import jensenshannon

    got = fairness.awrf(recs, pairs, k=2, weight="uniform")
    p = np.array([0.25, 0.25, 0.5, 0.0])  # user 1: Action, Comedy, Drama, (none)
    q = by_sep["target"].to_numpy()
    assert got[1] == pytest.approx(jensenshannon(p, q, base=2), abs=1e-12)


def test_group_entropy_is_the_entropy_of_the_lists_group_distribution() -> None:
    recs = pd.DataFrame({"user_id": [1, 1, 1, 2, 2], "item_id": [1, 2, 3, 9, 8],
                         "rank": [1, 2, 3, 1, 2]})
    groups = pd.Series(["a", "b", "a", "b", "c"], index=[1, 1, 2, 3, 5])
    got = fairness.group_entropy(recs, groups, k=3, weight="geometric", patience=0.5)
    # user 1: a = 1/2 + 1/2, b = 1/2 + 1/4 (weights 1, 1/2, 1/4); c never listed
    p = np.array([1.0, 0.75]) / 1.75
    assert got[1] == pytest.approx(-(p * np.log2(p)).sum())
    assert np.isnan(got[2])  # no listed item has a group
    smoothed = fairness.group_entropy(recs, groups, k=3, weight="uniform", smoothing=1.0)
    m = np.array([1.5, 1.5, 0.0]) + 1.0  # a, b, c, each + 1
    assert smoothed[1] == pytest.approx(-(m / m.sum() * np.log2(m / m.sum())).sum())
    assert smoothed[2] == pytest.approx(np.log2(3))  # only the smoothing: uniform


def test_labels_given_as_lists_are_one_row_per_label() -> None:
    """An items table's list column (genres) gives what its exploded form gives, in every
    function that takes item groups; an empty list is an item without a group."""
    recs = pd.DataFrame({"user_id": [1, 1, 1, 2, 2, 2], "item_id": [1, 2, 3, 3, 4, 1],
                         "rank": [1, 2, 3, 1, 2, 3]})
    truth = pd.DataFrame({"user_id": [1, 2, 2], "item_id": [2, 4, 5], "rating": 5.0})
    lists = pd.Series([["a", "b"], ["b"], [], ["a", "c"], ["c"]], index=[1, 2, 3, 4, 5])
    pairs = pd.Series(["a", "b", "b", "a", "c", "c"], index=[1, 1, 2, 4, 4, 5])
    before = lists.copy()
    pd.testing.assert_frame_equal(fairness.exposure_share(recs, lists, k=3, n_resamples=50),
                                  fairness.exposure_share(recs, pairs, k=3, n_resamples=50))
    pd.testing.assert_series_equal(fairness.awrf(recs, lists, k=3),
                                   fairness.awrf(recs, pairs, k=3))
    pd.testing.assert_series_equal(fairness.group_entropy(recs, lists, k=3),
                                   fairness.group_entropy(recs, pairs, k=3))
    assert fairness.rsp(recs, lists, k=2).value == fairness.rsp(recs, pairs, k=2).value
    assert fairness.reo(truth, recs, lists, k=2).value == fairness.reo(truth, recs, pairs,
                                                                        k=2).value
    # item 3's empty list: its slots go to "(none)", as an unlabelled item's do
    share = fairness.exposure_share(recs, lists, k=3, n_resamples=0)
    assert share.loc["(none)", "share"] > 0
    pd.testing.assert_series_equal(lists, before)  # the input is left as it was


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "uint64", "object"])
def test_item_groups_of_any_integer_index_dtype_give_the_same_shares(dtype) -> None:
    """The listed ids are int64; the groups' index may be another integer type (negative ids
    in a narrow type, unsigned ids beside a negative listed id) or objects: the shares are
    those of an int64 index, and an item without a group is "(none)"."""
    ids = np.array([-100, -5, 0, 3, 100, 120])
    groups = pd.Series(["a", "b", "a", "b", "c", "c"], index=ids)
    listed = [-100, 120, 100, 3, -1, 0] if dtype != "uint64" else [120, 100, 3, -1, 0, 5]
    recs = pd.DataFrame({"user_id": np.repeat([1, 2], 3), "item_id": listed,
                         "rank": np.tile([1, 2, 3], 2)})
    want = fairness.exposure_share(recs, groups, k=3, weight="uniform", n_resamples=0)
    if dtype == "uint64":
        given = groups[groups.index >= 0]
        given.index = given.index.astype("uint64")
        want = fairness.exposure_share(recs, groups[groups.index >= 0], k=3, weight="uniform",
                                       n_resamples=0)
    else:
        given = groups.set_axis(groups.index.astype(dtype))
    got = fairness.exposure_share(recs, given, k=3, weight="uniform", n_resamples=0)
    pd.testing.assert_frame_equal(got, want)
    ungrouped = 1 if dtype != "uint64" else 2  # item -1 (and 5): no group
    assert got.loc["(none)", "share"] == pytest.approx(ungrouped / 6)
    assert got.loc["c", "share"] > 0


@pytest.mark.parametrize("call", ["exposure_share", "awrf"])
def test_item_groups_of_another_id_kind_than_the_lists_are_refused(call) -> None:
    """String item ids in the groups, integer ids in the lists: nothing would match (every
    slot "(none)"), so it is refused, as rsp, reo and group_entropy refuse it."""
    recs = pd.DataFrame({"user_id": 1, "item_id": [1, 2], "rank": [1, 2]})
    groups = pd.Series(["a", "b"], index=["1", "2"])
    with pytest.raises(ValueError, match=rf"{call}: 'item_id' holds string ids in "
                                         r"'item_groups' but integer ids in 'recs'"):
        getattr(fairness, call)(recs, groups, k=2)


def test_compare_disparity_corrects_its_tests_by_holm_over_every_pair_and_group() -> None:
    """The correction is applied where the table is made: ``p_value_holm`` is Holm's over
    every (pair, group) row, and ``smaller`` is named exactly where it is below alpha."""
    from tests.holm_oracle import holm_by_hand

    rng = np.random.default_rng(9)
    n = 900
    users = pd.Index(range(n), name="user_id")
    groups = pd.Series(rng.choice(["x", "y", "z"], n, p=[0.5, 0.3, 0.2]), index=users)
    base = rng.random(n)
    systems = {f"s{j}": pd.Series(base + np.where(groups == "y", -0.03 * j, 0.0)
                                  + np.where(groups == "z", 0.02 * j, 0.0)
                                  + rng.normal(0, 0.05, n), index=users) for j in range(4)}
    table = fairness.compare_disparity(systems, groups, n_resamples=300)
    assert len(table) == 6 * 2
    want = holm_by_hand(list(table["p_value"]))
    assert table["p_value_holm"].to_numpy() == pytest.approx(want)
    assert (table["p_value_holm"] > table["p_value"]).any()  # the correction moved something
    named = table["smaller"].notna().to_numpy()
    assert (named == (np.asarray(want) < 0.05)).all()
