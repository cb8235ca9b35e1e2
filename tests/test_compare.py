"""compare() and cross_validate()."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from evalkit import InvalidParameterError, compare, cross_validate, evaluate
from evalkit.models import MostPopular, Random
from evalkit.split import kfold_split
from evalkit.stats import holm, paired_tests


def make_systems(seed: int = 0):
    rng = np.random.default_rng(seed)
    n_users, n_items = 80, 30
    truth = pd.concat(
        [pd.DataFrame({"user_id": u, "item_id": rng.choice(n_items, 6, replace=False),
                       "rating": rng.integers(2, 11, 6) / 2}) for u in range(n_users)],
        ignore_index=True,
    )
    good = truth.sort_values(["user_id", "rating"], ascending=[True, False]).assign(
        rank=lambda f: f.groupby("user_id").cumcount() + 1)[["user_id", "item_id", "rank"]]
    noisy = truth.assign(score=truth["rating"] + rng.normal(0, 1.5, len(truth)))[
        ["user_id", "item_id", "score"]]
    rand = truth.assign(score=rng.random(len(truth)))[["user_id", "item_id", "score"]]
    return truth, {"random": rand, "noisy": noisy, "oracle": good}


def test_compare_matches_separate_evaluations_and_paired_tests() -> None:
    truth, systems = make_systems()
    table = compare(systems, truth, baseline="random", k=5, metrics=["ndcg", "mrr"], rng=3)
    assert list(table["system"].unique()) == ["random", "noisy", "oracle"]
    for _, row in table.iterrows():
        result = evaluate(truth, systems[row["system"]], k=5, metrics=[row["metric"]])
        assert row["mean"] == pytest.approx(result.mean(row["metric"], 5), abs=1e-12)
        if row["system"] == "random":
            assert pd.isna(row["t_pvalue"])
            continue
        base = evaluate(truth, systems["random"], k=5, metrics=[row["metric"]])
        pair = pd.concat([result.per_user[row["column"]], base.per_user[row["column"]]],
                         axis=1).dropna()
        assert row["n_shared"] == len(pair)
        t = sps.ttest_rel(pair.iloc[:, 0], pair.iloc[:, 1])
        w = sps.wilcoxon(pair.iloc[:, 0] - pair.iloc[:, 1])
        assert row["t_pvalue"] == pytest.approx(t.pvalue)
        assert row["wilcoxon_pvalue"] == pytest.approx(w.pvalue)
        assert row["diff"] == pytest.approx((pair.iloc[:, 0] - pair.iloc[:, 1]).mean())
    tested = table["t_pvalue"].notna()
    np.testing.assert_allclose(table.loc[tested, "t_pvalue_holm"],
                               holm(table.loc[tested, "t_pvalue"]))
    oracle = table[(table["system"] == "oracle") & (table["metric"] == "ndcg")].iloc[0]
    assert oracle["significant"] and oracle["mean"] == pytest.approx(1.0)


def test_compare_is_deterministic_per_seed() -> None:
    truth, systems = make_systems(1)
    a = compare(systems, truth, k=[1, 5], metrics=["precision"], rng=5)
    b = compare(systems, truth, k=[1, 5], metrics=["precision"], rng=5)
    pd.testing.assert_frame_equal(a, b)


def test_compare_randomization_matches_paired_tests_within_monte_carlo_error() -> None:
    truth, systems = make_systems(2)
    n_perm = 20000
    table = compare(systems, truth, baseline="random", k=[3, 6], metrics=["ndcg", "precision"],
                    n_permutations=n_perm, rng=4)
    tested = table[table["permutation_pvalue"].notna()]
    assert len(tested) == 8
    for _, row in tested.iterrows():
        pair = pd.concat([evaluate(truth, systems[name], k=[3, 6], metrics=[row["metric"]])
                          .per_user[row["column"]] for name in (row["system"], "random")],
                         axis=1).dropna()
        reference = paired_tests(pair.iloc[:, 0], pair.iloc[:, 1], n_permutations=n_perm,
                                 rng=9)["permutation_pvalue"]
        # two independent Monte-Carlo estimates of the same p-value
        standard_error = np.sqrt(2 * reference * (1 - reference) / n_perm)
        assert abs(row["permutation_pvalue"] - reference) < 4 * standard_error + 3 / n_perm


def test_compare_randomization_shares_signs_across_comparisons() -> None:
    # one batch of random signs for the table: two systems with the same per-user values get
    # the same p-value, not two independent estimates of it
    truth, systems = make_systems(3)
    noise = np.random.default_rng(30).normal(0, 1.5, len(truth))
    other = truth.assign(score=truth["rating"] + noise)[["user_id", "item_id", "score"]]
    runs = {"noisy": systems["noisy"], "other": other, "other_again": other.copy()}
    table = compare(runs, truth, k=5, metrics=["ndcg"], n_permutations=999, rng=1)
    p = table.set_index("system")["permutation_pvalue"]
    assert 0.05 < p["other"] < 0.95  # a p-value that Monte-Carlo error would move
    assert p["other"] == p["other_again"]


@pytest.mark.parametrize(
    ("systems", "baseline", "message"),
    [({"one": None}, None, "at least two"), (None, "missing", "'baseline' must be one of")],
)
def test_compare_bad_input(systems, baseline, message) -> None:
    truth, all_systems = make_systems()
    with pytest.raises(ValueError, match=f"compare: .*{message}"):
        compare(systems or all_systems, truth, baseline=baseline)


def test_cross_validate_per_fold_and_summary() -> None:
    rng = np.random.default_rng(0)
    data = pd.DataFrame({"user_id": np.repeat(np.arange(50), 12),
                         "item_id": rng.integers(0, 40, 600)}).drop_duplicates()
    data = data.assign(rating=rng.integers(1, 11, len(data)) / 2)
    data = data[data.groupby("user_id")["item_id"].transform("size") >= 5]
    cv = cross_validate(MostPopular, data, folds=5, k=[5, 10], metrics=["ndcg", "recall"],
                        progress=False, rng=11)
    assert len(cv.folds) == 5
    assert set(cv.per_fold["column"]) == {"ndcg@5", "ndcg@10", "recall@5", "recall@10"}
    # the folds are the seeded k-fold split: recompute the first one independently
    first = kfold_split(data, folds=5, rng=np.random.default_rng(11))[0]
    recs = MostPopular().fit(first.train).recommend(first.test["user_id"].unique(), k=10)
    expected = evaluate(first.test, recs, k=10, metrics=["ndcg"]).mean("ndcg", 10)
    got = cv.per_fold.query("fold == 0 and column == 'ndcg@10'")["mean"].iloc[0]
    assert got == pytest.approx(expected, abs=1e-12)
    means = cv.per_fold.query("column == 'ndcg@10'")["mean"]
    low, high = sps.t.interval(0.95, len(means) - 1, loc=means.mean(), scale=sps.sem(means))
    row = cv.summary.loc["ndcg@10"]
    assert row["mean"] == pytest.approx(means.mean())
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high))


def test_cross_validate_checks_the_folds() -> None:
    data = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [1, 2, 1, 2]})
    with pytest.raises(InvalidParameterError, match="cross_validate: 'folds' must be an "
                       "integer >= 2; got 1"):
        cross_validate(MostPopular, data, folds=1, progress=False)
    with pytest.raises(ValueError, match=r"kfold_folds: 'folds' is 3, but 2 user\(s\)"):
        cross_validate(MostPopular, data, folds=3, progress=False)


def test_cross_validate_rejects_a_non_callable() -> None:
    with pytest.raises(TypeError, match="cross_validate: 'model_factory' must be callable"):
        cross_validate(Random(), pd.DataFrame({"user_id": [1], "item_id": [1]}))
