"""compare(pairs="all"), compare_evaluations, the paired intervals of differences and effect
sizes, and the randomization floor."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from evalkit import compare, compare_evaluations, evaluate
from evalkit._resample import design_key
from evalkit.stats import bootstrap_ci_frame, holm


def make_systems(seed: int = 0):
    """80 users with 6 rated items each; a random, a noisy and an oracle ranking of them."""
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


def _evaluations(truth, systems, *, rng=0, metrics=("ndcg", "precision"), k=(3, 5)):
    """Each system evaluated with the seed itself (compare resamples every system with one
    design, the seed's), and the generator as compare leaves it for the comparison: past
    that one draw."""
    generator = np.random.default_rng(rng)
    design_key(generator)
    return {n: evaluate(truth, r, k=list(k), metrics=list(metrics), rng=rng)
            for n, r in systems.items()}, generator


def test_all_pairs_tests_every_pair_once_later_against_earlier() -> None:
    truth, systems = make_systems()
    table = compare(systems, truth, pairs="all", k=5, metrics=["ndcg", "mrr"], rng=3)
    pairs = list(dict.fromkeys(zip(table["system"], table["against"])))
    assert pairs == [("random", None), ("noisy", "random"), ("oracle", "random"),
                     ("oracle", "noisy")]
    assert len(table) == 4 * 2
    for _, row in table[table["against"].notna()].iterrows():
        a = evaluate(truth, systems[row["system"]], k=5, metrics=[row["metric"]])
        b = evaluate(truth, systems[row["against"]], k=5, metrics=[row["metric"]])
        pair = pd.concat([a.per_user[row["column"]], b.per_user[row["column"]]],
                         axis=1).dropna()
        d = pair.iloc[:, 0] - pair.iloc[:, 1]
        assert row["n_shared"] == len(pair)
        assert row["diff"] == pytest.approx(d.mean())
        assert row["t_pvalue"] == pytest.approx(sps.ttest_rel(pair.iloc[:, 0],
                                                              pair.iloc[:, 1]).pvalue)
        assert row["effect_size"] == pytest.approx(d.mean() / d.std(ddof=1))
        assert row["mean"] == pytest.approx(a.mean(row["metric"], 5), abs=1e-12)


def test_the_baseline_comes_first_in_every_layout() -> None:
    truth, systems = make_systems()
    table = compare(systems, truth, pairs="all", baseline="oracle", k=5, metrics=["ndcg"])
    assert list(zip(table["system"], table["against"])) == [
        ("oracle", None), ("random", "oracle"), ("noisy", "oracle"), ("noisy", "random")]
    table = compare(systems, truth, baseline="noisy", k=5, metrics=["ndcg"])
    assert list(zip(table["system"], table["against"])) == [
        ("noisy", None), ("random", "noisy"), ("oracle", "noisy")]


def test_holm_runs_over_the_whole_family_and_all_pairs_is_stricter() -> None:
    truth, systems = make_systems(2)
    ref = compare(systems, truth, k=[3, 5], metrics=["ndcg", "precision"], rng=4,
                  n_permutations=999)
    every = compare(systems, truth, pairs="all", k=[3, 5], metrics=["ndcg", "precision"],
                    rng=4, n_permutations=999)
    for table, family in ((ref, 8), (every, 12)):
        tested = table["permutation_pvalue"].notna()
        assert tested.sum() == family
        np.testing.assert_allclose(table.loc[tested, "permutation_pvalue_holm"],
                                   holm(table.loc[tested, "permutation_pvalue"]))
        assert (table["significant"] == (table["permutation_pvalue_holm"] < 0.05)).all()
    # the same seed gives the same signs: the pairs with the reference keep their raw p-values
    keys = ["system", "against", "column"]
    merged = ref.dropna(subset=["against"]).merge(every, on=keys, suffixes=("", "_all"))
    assert len(merged) == 8
    np.testing.assert_array_equal(merged["permutation_pvalue"],
                                  merged["permutation_pvalue_all"])
    assert (merged["permutation_pvalue_holm_all"] >= merged["permutation_pvalue_holm"]).all()


def test_compare_is_evaluate_then_compare_evaluations() -> None:
    truth, systems = make_systems(1)
    direct = compare(systems, truth, pairs="all", k=[3, 5], metrics=["ndcg", "precision"],
                     rng=5, n_permutations=999)
    evaluations, generator = _evaluations(truth, systems, rng=5)
    again = compare_evaluations(evaluations, pairs="all", rng=generator, n_permutations=999)
    pd.testing.assert_frame_equal(direct, again)


def test_difference_intervals_are_the_paired_bootstrap_of_the_differences() -> None:
    truth, systems = make_systems(3)
    evaluations, _ = _evaluations(truth, systems)
    table = compare_evaluations(evaluations, pairs="all", rng=7, n_resamples=500)
    tested = table[table["against"].notna()]
    frame = pd.DataFrame({
        i: evaluations[r["system"]].per_user[r["column"]]
        - evaluations[r["against"]].per_user[r["column"]] for i, r in tested.iterrows()})
    generator = np.random.default_rng(7)
    generator.integers(0, 2**64, dtype=np.uint64)  # the key of the sign flips comes first
    want = bootstrap_ci_frame(frame, n_resamples=500, rng=generator)
    np.testing.assert_allclose(tested["diff_ci_low"], want["ci_low"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(tested["diff_ci_high"], want["ci_high"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(tested["diff"], want["mean"], rtol=1e-12)


def test_effect_size_intervals_agree_with_a_plain_bootstrap() -> None:
    truth, systems = make_systems(4)
    evaluations, _ = _evaluations(truth, systems, metrics=["ndcg"], k=[5])
    table = compare_evaluations(evaluations, n_resamples=4000, rng=1)
    rng = np.random.default_rng(2)
    for _, row in table[table["against"].notna()].iterrows():
        d = (evaluations[row["system"]].per_user[row["column"]]
             - evaluations[row["against"]].per_user[row["column"]]).dropna().to_numpy()
        draws = rng.integers(0, len(d), size=(4000, len(d)))
        sample = d[draws]
        dz = sample.mean(axis=1) / sample.std(axis=1, ddof=1)
        low, high = np.quantile(dz, [0.025, 0.975])
        assert row["effect_size_ci_low"] <= row["effect_size"] <= row["effect_size_ci_high"]
        assert row["effect_size_ci_low"] == pytest.approx(low, abs=0.08)
        assert row["effect_size_ci_high"] == pytest.approx(high, abs=0.08)


def test_identical_systems_differ_by_zero_with_a_zero_interval() -> None:
    truth, systems = make_systems()
    same = {"a": systems["noisy"], "b": systems["noisy"].copy()}
    row = compare(same, truth, k=5, metrics=["ndcg"]).iloc[1]
    assert row["diff"] == 0 and row["diff_ci_low"] == 0 and row["diff_ci_high"] == 0
    assert row["effect_size"] == 0 and row["effect_size_ci_low"] == 0
    assert row["permutation_pvalue"] == 1 and not row["p_at_floor"]
    assert not row["significant"]


def test_p_values_at_the_randomization_floor_are_flagged() -> None:
    truth, systems = make_systems()
    table = compare(systems, truth, k=5, metrics=["ndcg"], n_permutations=199)
    oracle = table.set_index("system").loc["oracle"]
    assert oracle["permutation_pvalue"] == pytest.approx(1 / 200)
    assert oracle["p_at_floor"]
    assert not table.loc[table["against"].isna(), "p_at_floor"].any()
    assert table["p_at_floor"].dtype == bool
    above = table[table["permutation_pvalue"] > 1 / 200]
    assert not above["p_at_floor"].any()


def test_without_resamples_there_are_no_intervals() -> None:
    truth, systems = make_systems()
    table = compare(systems, truth, k=5, metrics=["ndcg"], n_resamples=0)
    assert table[["diff_ci_low", "effect_size_ci_high"]].isna().all().all()
    assert table["diff"].notna().sum() == 2


@pytest.mark.parametrize(("change", "error", "message"), [
    ({"pairs": "some"}, ValueError, r"compare_evaluations: unknown pairs 'some'; valid values "
                                    r"are 'reference', 'all'"),
    ({"baseline": "x"}, ValueError, r"compare_evaluations: 'baseline' must be one of"),
    ({"alpha": 2.0}, ValueError, r"compare_evaluations: 'alpha'"),
    ({"n_permutations": 0}, ValueError, r"compare_evaluations: 'n_permutations'"),
])
def test_compare_evaluations_bad_options(change, error, message) -> None:
    truth, systems = make_systems()
    evaluations, _ = _evaluations(truth, systems)
    with pytest.raises(error, match=message):
        compare_evaluations(evaluations, **change)


def test_compare_evaluations_bad_evaluations() -> None:
    truth, systems = make_systems()
    evaluations, _ = _evaluations(truth, systems)
    with pytest.raises(ValueError, match="compare_evaluations: 'evaluations' must map at "
                                         "least two names to evaluations; got 1"):
        compare_evaluations({"a": evaluations["noisy"]})
    with pytest.raises(TypeError, match=r"compare_evaluations: 'evaluations\['b'\]' must be an "
                                        r"evalkit Evaluation; got DataFrame"):
        compare_evaluations({"a": evaluations["noisy"], "b": truth})
    with pytest.warns(UserWarning, match="appear only in 'recs'"):
        fewer = evaluate(truth[truth["user_id"] < 40], systems["noisy"], k=[3, 5],
                         metrics=["ndcg", "precision"])
    with pytest.raises(ValueError, match="compare_evaluations: every evaluation must be of the "
                                         "same test users; 'b' has 40 users"):
        compare_evaluations({"a": evaluations["noisy"], "b": fewer})
    other = evaluate(truth, systems["noisy"], k=5, metrics=["ndcg"])
    with pytest.raises(ValueError, match="compare_evaluations: every evaluation must hold the "
                                         "same metrics"):
        compare_evaluations({"a": evaluations["noisy"], "b": other})
    with pytest.raises(ValueError, match="compare: unknown pairs 'every'"):
        compare(systems, truth, pairs="every")


def test_inputs_are_unchanged() -> None:
    truth, systems = make_systems()
    evaluations, _ = _evaluations(truth, systems)
    before = {n: e.per_user.copy() for n, e in evaluations.items()}
    compare_evaluations(evaluations, pairs="all")
    for name, frame in before.items():
        pd.testing.assert_frame_equal(evaluations[name].per_user, frame)
