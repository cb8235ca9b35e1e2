"""The regression gate's tests, column by column, against independent computations: the
paired t-test, its one-sided tests against the margin and its interval (scipy), the sign-flip
randomization test (every flip enumerated), the bootstrap's percentile test (its replicates
counted again); and the differences known exactly (every user's the same), where the
p-values are 0 or 1 and the interval a point."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from evalkit._regression import _bootstrap_means, _tests

MARGIN = np.array([0.0, 0.05, 0.2])


def _gains(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Three columns of per-user gains (0 where absent): a clear gain, a small loss, noise;
    one user absent from the second column."""
    rng = np.random.default_rng(seed)
    g = np.vstack([rng.normal(0.08, 0.1, n), rng.normal(-0.02, 0.1, n),
                   rng.normal(0.0, 0.1, n)])
    present = np.ones_like(g, dtype=bool)
    present[1, 0] = False
    return np.where(present, g, 0.0), present


def _run(g, present, test, margin=MARGIN, **how):
    how = {"alpha": 0.05, "confidence": 0.9, "n_permutations": 999, "n_resamples": 400} | how
    return _tests(g, present, present.sum(axis=1), margin, test=test,
                  generator=np.random.default_rng(3),
                  users=pd.Index(np.arange(g.shape[1]), name="user_id"), **how)


def test_the_t_tests_are_scipys() -> None:
    g, present = _gains(30, 1)
    out = _run(g, present, "t")
    for j in range(3):
        x = g[j][present[j]]
        assert out["p_value"][j] == pytest.approx(sps.ttest_1samp(x, 0).pvalue, rel=1e-9)
        ni = sps.ttest_1samp(x, -MARGIN[j], alternative="greater").pvalue
        assert out["p_noninferior"][j] == pytest.approx(ni, rel=1e-9)
        if MARGIN[j] > 0:
            below = sps.ttest_1samp(x, MARGIN[j], alternative="less").pvalue
            assert out["p_equivalent"][j] == pytest.approx(max(ni, below), rel=1e-9)
        else:
            assert np.isnan(out["p_equivalent"][j])
        low, high = sps.t.interval(0.9, len(x) - 1, x.mean(), sps.sem(x))
        assert (out["g_low"][j], out["g_high"][j]) == pytest.approx((low, high), rel=1e-9)
        assert out["gain"][j] == pytest.approx(x.mean(), rel=1e-12)


def _exact_sign_flips(x: np.ndarray, null: float) -> dict[str, float]:
    """Every one of the 2^n sign patterns of x - null."""
    d = x - null
    signs = np.array(list(itertools.product([-1.0, 1.0], repeat=len(d))))
    flipped, observed = signs @ d, d.sum()
    tol = 1e-9
    return {"two": np.mean(np.abs(flipped) >= abs(observed) - tol),
            "above": np.mean(flipped >= observed - tol),
            "below": np.mean(flipped <= observed + tol)}


@pytest.mark.parametrize("discrete", [False, True])
def test_the_randomization_tests_approach_the_exact_sign_flip_test(discrete) -> None:
    g, present = _gains(12, 2)
    if discrete:  # gains of a few values: many flipped sums tie with the observed one
        g = np.where(present, np.round(g * 10) / 10, 0.0)
    flips = 40_000
    out = _run(g, present, "randomization", n_permutations=flips)
    slack = 4 * np.sqrt(0.25 / flips) + 1 / flips
    for j in range(3):
        x = g[j][present[j]]
        exact = _exact_sign_flips(x, 0.0)
        assert out["p_value"][j] == pytest.approx(exact["two"], abs=slack)
        ni = _exact_sign_flips(x, -MARGIN[j])["above"]
        assert out["p_noninferior"][j] == pytest.approx(ni, abs=slack)
        if MARGIN[j] > 0:
            eq = max(ni, _exact_sign_flips(x, MARGIN[j])["below"])
            assert out["p_equivalent"][j] == pytest.approx(eq, abs=slack)
    # each p-value is (1 + flips as extreme) / (flips + 1)
    for name in ("p_value", "p_noninferior"):
        counts = out[name] * (flips + 1)
        np.testing.assert_allclose(counts, np.round(counts), rtol=0, atol=1e-6)


@pytest.mark.parametrize("discrete", [False, True])
def test_the_bootstrap_test_counts_its_replicates(discrete) -> None:
    g, present = _gains(40, 3)
    if discrete:  # gains of -0.2, 0 and 0.2: replicate means tie with the nulls
        g = np.where(present, np.sign(np.round(g * 10)) * 0.2, 0.0)
    out = _run(g, present, "bootstrap", n_resamples=2000)
    users = pd.Index(np.arange(g.shape[1]), name="user_id")
    means = _bootstrap_means(g, present, 2000, np.random.default_rng(3), users)
    for j in range(3):
        m = means[:, j][np.isfinite(means[:, j])]
        b = len(m)
        above, below = (1 + np.sum(m <= 0)) / (b + 1), (1 + np.sum(m >= 0)) / (b + 1)
        assert out["p_value"][j] == pytest.approx(min(1.0, 2 * min(above, below)), rel=1e-12)
        ni = (1 + np.sum(m <= -MARGIN[j])) / (b + 1)
        assert out["p_noninferior"][j] == pytest.approx(ni, rel=1e-12)
        if MARGIN[j] > 0:
            eq = max(ni, (1 + np.sum(m >= MARGIN[j])) / (b + 1))
            assert out["p_equivalent"][j] == pytest.approx(eq, rel=1e-12)
        low, high = np.quantile(m, [0.05, 0.95])
        assert (out["g_low"][j], out["g_high"][j]) == pytest.approx((low, high), rel=0.02)


@pytest.mark.parametrize("test", ["t", "randomization", "bootstrap"])
def test_differences_known_exactly_give_p_values_of_0_or_1(test) -> None:
    # every user's gain the same: 0 (identical), 0.03 (within the 0.05 margin), -0.1
    # (beyond it); a column of one user (untested), one of one user without a change
    # (identical), one of two users that differ (tested) and one at the margin (0.25 of
    # 0.25: not within it)
    n = 6
    g = np.array([[0.0] * n, [0.03] * n, [-0.1] * n, [0.2] + [0.0] * (n - 1),
                  [0.0] * n, [0.1, 0.3] + [0.0] * (n - 2), [0.25] * n])
    present = np.ones_like(g, dtype=bool)
    present[3:5, 1:] = False
    present[5, 2:] = False
    margin = np.array([0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.25])
    out = _run(g, present, test, margin=margin)
    assert out["identical"].tolist() == [True, False, False, False, True, False, False]
    assert (out["p_value"][4], out["p_noninferior"][4], out["p_equivalent"][4]) == (1, 0, 0)
    assert 0 < out["p_value"][5] <= 1 and out["g_low"][5] < 0.2 < out["g_high"][5]
    assert (out["p_value"][6], out["p_noninferior"][6], out["p_equivalent"][6]) == (0, 0, 1)
    np.testing.assert_array_equal(out["p_value"][:3], [1.0, 0.0, 0.0])
    np.testing.assert_array_equal(out["p_noninferior"][:3], [0.0, 0.0, 1.0])
    np.testing.assert_array_equal(out["p_equivalent"][:3], [0.0, 0.0, 1.0])
    np.testing.assert_allclose(out["g_low"][:3], [0.0, 0.03, -0.1], rtol=1e-12)
    np.testing.assert_allclose(out["g_high"][:3], [0.0, 0.03, -0.1], rtol=1e-12)
    assert all(np.isnan(out[name][3]) for name in
               ("p_value", "p_noninferior", "p_equivalent", "g_low", "g_high"))
    # without a margin the equivalence test is not made, non-inferiority is the sign's
    out = _run(g[:3], present[:3], test, margin=np.zeros(3))
    assert np.isnan(out["p_equivalent"]).all()
    np.testing.assert_array_equal(out["p_noninferior"], [1.0, 0.0, 1.0])


def test_catalog_coverage_replicates_count_the_items_a_drawn_user_keeps() -> None:
    """Each replicate's coverage, counted again by brute force from the same bootstrap
    weights: an item is covered when at least one user with weight > 0 has it in the top k.
    Some items are listed for more users than the always-covered threshold, most for few."""
    import evalkit as ek
    from evalkit._regression import _ALWAYS_COVERED, _coverage
    from evalkit._resample import design_key, poisson_weights, user_streams

    rng = np.random.default_rng(4)
    n_users, k_max = 80, 6
    train = pd.DataFrame({"user_id": 0, "item_id": np.arange(60)})  # the catalogue: 0..59

    def lists(popular: int) -> pd.DataFrame:
        # item 0 in every list (always covered), then items from a pool of ``popular``
        rest = np.argsort(rng.random((n_users, popular)), axis=1)[:, :k_max - 1] + 1
        items = np.column_stack([np.zeros(n_users, dtype=int), rest])
        return pd.DataFrame({"user_id": np.repeat(np.arange(n_users), k_max),
                             "item_id": items.ravel(),
                             "rank": np.tile(np.arange(1, k_max + 1), n_users)})

    truth = pd.DataFrame({"user_id": np.arange(n_users), "item_id": 0})
    now, then = (ek.evaluate(truth, recs, k=[3, 6], metrics=["precision"], train=train,
                             threshold=None, n_resamples=0)
                 for recs in (lists(50), lists(30)))
    users = now.per_user.index
    assert (now.lists()["item_id"] == 0).sum() > _ALWAYS_COVERED
    b = 300
    got = _coverage(now, then, users, [3, 6], b, np.random.default_rng(9))
    weights = poisson_weights(user_streams(users), design_key(np.random.default_rng(9)), b) > 0
    assert got["catalog"] == 60 and got["catalog_from"] == "the training data"
    for side, run in (("current", now), ("baseline", then)):
        listed = run.lists()
        for j, k in enumerate([3, 6]):
            top = listed[listed["position"] <= k]
            assert got[side][j] == top["item_id"].nunique() / 60
            rows = users.get_indexer(top["user_id"])
            kept = weights[rows]  # (pairs, b): the pair's user drawn in the replicate
            covered = pd.DataFrame(kept).groupby(top["item_id"].to_numpy()).any().sum()
            np.testing.assert_array_equal(got[f"{side}_replicates"][j], covered / 60)


def test_the_coverage_tests_are_percentile_tests_of_the_centred_replicates() -> None:
    from evalkit._regression import _coverage_tests

    rng = np.random.default_rng(5)
    b = 500
    shared = {"current": np.array([0.40, 0.30, 0.25]), "baseline": np.array([0.35, 0.30, 0.25])}
    shared["current_replicates"] = shared["current"][:, None] - rng.gamma(2.0, 0.01, (3, b))
    shared["baseline_replicates"] = shared["baseline"][:, None] - rng.gamma(2.0, 0.01, (3, b))
    shared["current_replicates"][2] = shared["baseline_replicates"][2]  # no change at all
    margin = np.array([0.0, 0.02, 0.02])
    confidence = np.array([0.9, 0.8, 0.8])
    out = _coverage_tests(shared, margin, confidence)
    diff = shared["current"] - shared["baseline"]
    d = shared["current_replicates"] - shared["baseline_replicates"]
    d = d - d.mean(axis=1, keepdims=True) + diff[:, None]  # centred on the observed change
    for j in range(2):
        below = (1 + np.sum(d[j] <= 0)) / (b + 1)
        above = (1 + np.sum(d[j] >= 0)) / (b + 1)
        assert out["p_value"][j] == pytest.approx(min(1.0, 2 * min(below, above)), rel=1e-12)
        ni = (1 + np.sum(d[j] <= -margin[j])) / (b + 1)
        assert out["p_noninferior"][j] == pytest.approx(ni, rel=1e-12)
        low, high = np.quantile(d[j], [(1 - confidence[j]) / 2, (1 + confidence[j]) / 2])
        assert (out["low"][j], out["high"][j]) == pytest.approx((low, high), rel=1e-12)
    assert np.isnan(out["p_equivalent"][0])
    eq = max((1 + np.sum(d[1] <= -0.02)) / (b + 1), (1 + np.sum(d[1] >= 0.02)) / (b + 1))
    assert out["p_equivalent"][1] == pytest.approx(eq, rel=1e-12)
    # the unchanged cutoff: identical, p 1, non-inferior within its margin
    assert out["identical"].tolist() == [False, False, True]
    assert (out["p_value"][2], out["p_noninferior"][2]) == (1.0, 0.0)
    np.testing.assert_array_equal(out["gain"], diff)


def test_each_verdict_follows_from_its_p_values() -> None:
    from evalkit._regression import _verdicts

    a = 0.05
    rows = [  # p, p non-inferior, p equivalent, margin, users, gain: verdict
        (0.01, 1.00, np.nan, 0.00, 50, 0.02, "improved"),
        (0.01, 1.00, np.nan, 0.00, 50, -0.02, "regressed"),
        (0.05, 1.00, np.nan, 0.00, 50, -0.02, "inconclusive"),  # p = alpha: not below
        (0.01, 0.01, 0.01, 0.01, 50, -0.002, "non-inferior"),   # differs, within the margin
        (0.30, 0.01, 0.01, 0.01, 50, -0.002, "unchanged"),      # equivalent, no difference
        (0.30, 0.01, 0.05, 0.01, 50, -0.002, "non-inferior"),   # equivalence p = alpha
        (0.30, 0.05, 0.05, 0.01, 50, -0.002, "inconclusive"),   # non-inferiority p = alpha
        (0.30, 0.01, 0.01, 0.00, 50, -0.002, "inconclusive"),   # no margin: nothing shown
        (0.01, 1.00, np.nan, 0.00, 50, 0.0, "regressed"),       # a 0 gain never improves
        (0.01, 0.01, 0.01, 0.01, 1, 0.02, "inconclusive"),      # one user
        (0.01, 0.01, 0.01, 0.01, 2, 0.02, "improved"),          # two users: tested
        (1.00, 0.00, 0.00, 0.01, 50, 0.0, "unchanged"),         # identical
    ]
    table = pd.DataFrame(rows, columns=["p_value_adj", "p_noninferior_adj",
                                        "p_equivalent_adj", "margin", "n_users", "gain",
                                        "want"])
    identical = np.arange(len(rows)) == len(rows) - 1
    got = _verdicts(table, identical, table["gain"].to_numpy(), a)
    assert got == table["want"].tolist()


def test_the_intervals_levels_and_margins_of_each_column() -> None:
    from evalkit._regression import _intervals, _levels, _margin_value

    rng = np.random.default_rng(6)
    means = rng.normal(size=(1000, 3))
    low, high = _intervals(means, np.array([0.9, 0.8, 0.9]))
    for j, level in enumerate([0.9, 0.8, 0.9]):
        want = np.quantile(means[:, j], [(1 - level) / 2, (1 + level) / 2])
        assert (low[j], high[j]) == pytest.approx(tuple(want), rel=1e-12)
    margin = np.array([0.0, 0.01, 0.0, 0.02])
    np.testing.assert_allclose(_levels(margin, 0.05, "none"), [0.95, 0.9, 0.95, 0.9])
    for correction in ("holm", "bonferroni"):
        np.testing.assert_allclose(_levels(margin, 0.05, correction),
                                   [1 - 0.05 / 4, 1 - 0.1 / 2, 1 - 0.05 / 4, 1 - 0.1 / 2])
    assert _margin_value(0.0, 0.3, key="ndcg@10", func="f") == 0.0  # no margin: allowed
    assert _margin_value("10%", -0.3, key="ndcg@10", func="f") == pytest.approx(0.03)
    with pytest.raises(ValueError, match="margin of ndcg@10 must be a number >= 0"):
        _margin_value(-0.01, 0.3, key="ndcg@10", func="f")
    # no resamples: no bootstrap interval for the randomization test
    g, present = _gains(10, 8)
    out = _run(g, present, "randomization", n_resamples=0)
    assert out["g_low"].shape == (3,) and np.isnan(out["g_low"]).all()
    assert np.isnan(out["g_high"]).all() and np.isfinite(out["p_value"]).all()


def test_the_bootstrap_follows_the_users_not_their_order() -> None:
    g, present = _gains(30, 9)
    users = pd.Index(np.random.default_rng(1).permutation(1000)[:30], name="user_id")
    order = np.random.default_rng(2).permutation(30)
    first = _bootstrap_means(g, present, 200, np.random.default_rng(3), users)
    again = _bootstrap_means(g[:, order], present[:, order], 200, np.random.default_rng(3),
                             users[order])
    np.testing.assert_allclose(again, first, rtol=1e-12)


def test_the_checks_name_their_runs_and_refuse_no_resamples(tmp_path) -> None:
    import evalkit as ek

    truth = pd.DataFrame({"user_id": np.arange(20), "item_id": 0, "rating": 5.0})
    recs = pd.DataFrame({"user_id": np.repeat(np.arange(20), 2),
                         "item_id": np.tile([0, 1], 20), "rank": np.tile([1, 2], 20)})
    run = ek.evaluate(truth, recs, k=2, metrics=["precision"], n_resamples=0)
    assert (ek.regression_check(run, run).current, ek.regression_check(run, run).baseline) \
        == ("current", "baseline")
    folder = run.save(tmp_path / "saved", name="mine")
    named = ek.load_evaluation(folder)
    check = ek.regression_check(named, str(folder))
    assert (check.current, check.baseline) == ("mine", str(folder))
    for how, needs in ((dict(test="bootstrap"), "test='bootstrap'"),
                       (dict(coverage=True), "coverage=True")):
        with pytest.raises(ValueError, match=f"regression_check: {needs} resamples users"):
            ek.regression_check(run, run, n_resamples=0, **how)


def test_strict_fails_on_inconclusive_and_the_result_keeps_its_settings() -> None:
    import evalkit as ek

    rng = np.random.default_rng(12)
    truth = pd.DataFrame({"user_id": np.arange(40), "item_id": 0, "rating": 5.0})

    def run():
        items = np.argsort(rng.random((40, 8)), axis=1)[:, :4]
        recs = pd.DataFrame({"user_id": np.repeat(np.arange(40), 4), "item_id": items.ravel(),
                             "rank": np.tile(np.arange(1, 5), 40)})
        return ek.evaluate(truth, recs, k=4, metrics=["precision", "ndcg"], n_resamples=0)

    now, then = run(), run()
    lenient = ek.regression_check(now, then, n_resamples=123, confidence=0.8)
    strict = ek.regression_check(now, then, strict=True)
    assert "inconclusive" in set(strict.table["verdict"])
    assert lenient.passed and not strict.passed and strict.strict and not lenient.strict
    assert strict.failed == list(strict.table.loc[strict.table["verdict"] == "inconclusive",
                                                  "column"])
    assert (lenient.n_resamples, lenient.confidence) == (123, 0.8)
    assert (lenient.table["ci_level"] == 0.8).all()
    assert str(strict.table["k"].dtype) == "Int64"


def test_the_profile_label_alone_does_not_make_runs_incomparable() -> None:
    # the label changes no number: the same definitions under a profile's name and without
    # it are compared; other definitions are refused
    import evalkit as ek

    truth = pd.DataFrame({"user_id": np.arange(20), "item_id": 0, "rating": 5.0})
    recs = pd.DataFrame({"user_id": np.repeat(np.arange(20), 2),
                         "item_id": np.tile([0, 1], 20), "rank": np.tile([1, 2], 20)})
    plain = ek.evaluate(truth, recs, k=2, metrics=["precision"], n_resamples=0)
    labelled = ek.evaluate(truth, recs, k=2, metrics=["precision"], n_resamples=0,
                           definitions=plain.definitions.replace(profile="my team's"))
    assert labelled.definitions.as_dict()["profile"] == "my team's"
    assert ek.regression_check(labelled, plain).passed
    assert ek.regression_check(plain, labelled).passed
    other = ek.evaluate(truth, recs, k=2, metrics=["precision"], n_resamples=0,
                        definitions=plain.definitions.replace(threshold=3.0))
    with pytest.raises(ek.IncomparableRunsError, match="different definitions"):
        ek.regression_check(other, plain)


def test_edge_columns_of_few_users_and_of_gains_up_to_zero() -> None:
    # two users with different gains are t-tested with one degree of freedom; two users
    # with the same gain are a difference known exactly; gains that are all <= 0 with a
    # largest gain of exactly 0 are not "identical"
    g = np.array([[0.1, 0.3, 0, 0, 0, 0], [0.2, 0.2, 0, 0, 0, 0],
                  [-0.1, 0.0, -0.3, -0.2, 0.0, -0.1]])
    present = np.array([[True, True, False, False, False, False],
                        [True, True, False, False, False, False], [True] * 6])
    margin = np.zeros(3)
    out = _run(g, present, "t", margin=margin)
    assert out["identical"].tolist() == [False, False, False]
    assert out["p_value"][0] == pytest.approx(sps.ttest_1samp([0.1, 0.3], 0).pvalue,
                                              rel=1e-9)
    assert (out["p_value"][1], out["g_low"][1], out["g_high"][1]) == (0.0, 0.2, 0.2)
    assert out["p_value"][2] == pytest.approx(sps.ttest_1samp(g[2], 0).pvalue, rel=1e-9)


def test_the_randomization_test_follows_the_users_not_their_order() -> None:
    g, present = _gains(30, 10)
    users = pd.Index(np.random.default_rng(1).permutation(1000)[:30], name="user_id")
    order = np.random.default_rng(2).permutation(30)
    kw = dict(alpha=0.05, confidence=0.9, n_permutations=499, n_resamples=0,
              test="randomization")
    first = _tests(g, present, present.sum(axis=1), MARGIN, generator=np.random.default_rng(3),
                   users=users, **kw)
    again = _tests(g[:, order], present[:, order], present.sum(axis=1), MARGIN,
                   generator=np.random.default_rng(3), users=users[order], **kw)
    for name in ("p_value", "p_noninferior", "p_equivalent"):
        np.testing.assert_array_equal(again[name], first[name], err_msg=name)


def _two_runs(regress: float = 0.0):
    import evalkit as ek

    rng = np.random.default_rng(21)
    truth = pd.DataFrame({"user_id": np.repeat(np.arange(60), 2),
                          "item_id": np.tile([0, 1], 60), "rating": 5.0})
    hits = rng.random(60) < 0.6

    def run(lose: float):
        lost = rng.random(60) < lose
        first = np.where(hits & ~lost, 0, 2 + np.arange(60) % 5)
        items = np.column_stack([first, 10 + np.arange(60) % 7, 20 + np.arange(60) % 3])
        recs = pd.DataFrame({"user_id": np.repeat(np.arange(60), 3), "item_id": items.ravel(),
                             "rank": np.tile([1, 2, 3], 60)})
        return ek.evaluate(truth, recs, k=[1, 3], metrics=["precision", "recall"],
                           n_resamples=0)

    return run(regress), run(0.0)


def test_strict_fails_on_a_regression_and_the_levels_are_corrected() -> None:
    import evalkit as ek

    now, then = _two_runs(regress=0.9)
    check = ek.regression_check(now, then, strict=True, n_permutations=777)
    assert "regressed" in set(check.table["verdict"]) and not check.passed
    assert check.n_permutations == 777
    # without margins the non-inferiority and equivalence tests are not made: NaN, as floats
    for name in ("p_noninferior_adj", "p_equivalent_adj"):
        assert check.table[name].dtype == np.float64 and check.table[name].isna().all()
    # Holm over the four columns: the intervals are at 1 - alpha / 4
    assert len(check.table) == 4
    np.testing.assert_allclose(check.table["ci_level"], 1 - 0.05 / 4)
    none = ek.regression_check(now, then, correction="none")
    np.testing.assert_allclose(none.table["ci_level"], 0.95)


def test_the_coverage_note_only_when_coverage_is_asked_for(tmp_path) -> None:
    import evalkit as ek

    now, then = _two_runs()
    saved = ek.load_evaluation(now.save(tmp_path / "now", name="now", lists=False))
    note = "Catalog coverage is not checked"
    assert saved.lists() is None  # a loaded run without its lists
    assert any(note in text for text in ek.regression_check(saved, then, coverage=True).notes)
    assert not any(note in text for text in ek.regression_check(saved, then).notes)
    assert not any(note in text for text in ek.regression_check(now, then).notes)


def test_a_margin_for_one_cutoff_wins_over_one_for_every_cutoff() -> None:
    import evalkit as ek

    now, then = _two_runs()
    for margins in ({"P@3": 0.2, "precision": 0.1}, {"precision": 0.1, "P@3": 0.2},
                    {"precision@3": 0.2, "precision": 0.1}):
        table = ek.regression_check(now, then, margins=margins).table.set_index("column")
        assert table.loc["precision@3", "margin"] == 0.2, margins
        assert table.loc["precision@1", "margin"] == 0.1, margins


@pytest.mark.parametrize("test", ["t", "randomization", "bootstrap"])
def test_a_column_without_users_has_no_numbers(test) -> None:
    # recall is undefined for every user (nothing relevant at the threshold): its row has
    # no gain, no baseline, no interval and no p-value, and is inconclusive
    import evalkit as ek

    truth = pd.DataFrame({"user_id": [0, 1, 2], "item_id": [0, 1, 2], "rating": [1.0, 2, 5]})
    recs = pd.DataFrame({"user_id": [0, 0, 1, 1, 2, 2], "item_id": [0, 2, 1, 3, 2, 0],
                         "rank": [1, 2, 1, 2, 1, 2]})
    run = ek.evaluate(truth, recs, k=2, metrics=["precision", "recall"], threshold=6.0,
                      n_resamples=0)
    row = ek.regression_check(run, run, test=test, n_resamples=50).table.set_index(
        "column").loc["recall@2"]
    assert row["n_users"] == 0 and row["verdict"] == "inconclusive"
    for name in ("baseline", "current", "diff", "diff_ci_low", "diff_ci_high", "p_value"):
        assert np.isnan(row[name]), name


def test_ties_with_the_null_count_in_either_tail() -> None:
    # two users with gains 0.1 and 0.2 and a margin of 0.15: against +0.15 the differences
    # are -0.05 and +0.05, whose four sign patterns give -0.1, 0, 0, +0.1 against an
    # observed 0 (to rounding): three of four are at or below it, so equivalence is not
    # shown (p about 0.75); the bootstrap's two-sided p-value of two users of opposite
    # gains, whose replicate means are often exactly 0, stays at most 1
    g = np.array([[0.1, 0.2]])
    present = np.ones_like(g, dtype=bool)
    out = _run(g, present, "randomization", margin=np.array([0.15]), n_permutations=4000)
    assert out["p_equivalent"][0] == pytest.approx(0.75, abs=0.03)
    g = np.zeros((1, 40))
    g[0, :2] = [0.1, -0.1]
    out = _run(g, np.ones_like(g, dtype=bool), "bootstrap", margin=np.zeros(1))
    assert out["p_value"][0] == 1.0


def test_a_column_of_one_user_and_a_metric_without_a_cutoff() -> None:
    # recall and R-precision are defined for one user only: their gain is that user's, the
    # relative margin is of that user's baseline, and R-precision (no @k) takes a margin
    import evalkit as ek

    truth = pd.DataFrame({"user_id": [0, 1, 2, 2], "item_id": [0, 1, 2, 5],
                          "rating": [1.0, 2, 5, 4]})

    def run(second):
        recs = pd.DataFrame({"user_id": [0, 0, 1, 1, 2, 2], "item_id": [0, 2, 1, 3, 2, second],
                             "rank": [1, 2, 1, 2, 1, 2]})
        return ek.evaluate(truth, recs, k=2, metrics=["precision", "recall", "r_precision"],
                           threshold=4.0, n_resamples=0)

    now, then = run(5), run(0)  # user 2's second item: relevant now, not before
    table = ek.regression_check(now, then, margins={"recall": "10%", "r_precision": 0.01}
                                ).table.set_index("column")
    assert table.loc["recall@2", "n_users"] == 1
    assert table.loc["recall@2", "diff"] == pytest.approx(0.5)
    assert table.loc["recall@2", "baseline"] == pytest.approx(0.5)
    assert table.loc["recall@2", "margin"] == pytest.approx(0.05)
    assert table.loc["r_precision", "margin"] == 0.01
    assert table.loc["recall@2", "verdict"] == "inconclusive"


def test_margins_for_coverage_and_unreadable_margins() -> None:
    import evalkit as ek

    now, then = _two_runs(regress=0.5)
    check = ek.regression_check(now, then, coverage=True, n_resamples=100,
                                margins={"catalog_coverage": 0.05, "precision@1": 0.2,
                                         "precision": 0.1})
    table = check.table.set_index("column")
    covered = [c for c in table.index if c.startswith("catalog_coverage")]
    assert covered and (table.loc[covered, "margin"] == 0.05).all()
    assert table.loc["precision@1", "margin"] == 0.2  # the cutoff's key wins, in any order
    assert table.loc["precision@3", "margin"] == 0.1
    # the same seed, the same coverage test
    again = ek.regression_check(now, then, coverage=True, n_resamples=100,
                                margins={"catalog_coverage": 0.05, "precision@1": 0.2,
                                         "precision": 0.1})
    pd.testing.assert_frame_equal(again.table, check.table)
    with pytest.raises(ValueError, match="margin of precision must be a number"):
        ek.regression_check(now, then, margins={"precision": "a lot"})


def test_an_identical_coverage_without_a_margin_is_not_shown_non_inferior() -> None:
    from evalkit._regression import _coverage_tests

    same = np.full((1, 50), 0.3)
    shared = {"current": np.array([0.3]), "baseline": np.array([0.3]),
              "current_replicates": same, "baseline_replicates": same.copy()}
    out = _coverage_tests(shared, np.zeros(1), np.array([0.9]))
    assert out["identical"].tolist() == [True]
    assert (out["p_value"][0], out["p_noninferior"][0]) == (1.0, 1.0)


def test_catalog_coverage_replicates_over_blocks_of_items() -> None:
    """As the brute-force count above, with more rarely listed items than one block of the
    computation holds (2,048): every block's items and their ends are counted."""
    import evalkit as ek
    from evalkit._regression import _coverage
    from evalkit._resample import design_key, poisson_weights, user_streams

    rng = np.random.default_rng(11)
    n_users, k = 600, 10
    train = pd.DataFrame({"user_id": 0, "item_id": np.arange(5000)})
    truth = pd.DataFrame({"user_id": np.arange(n_users), "item_id": 0})

    def lists() -> pd.DataFrame:
        items = np.argsort(rng.random((n_users, 5000)), axis=1)[:, :k]
        return pd.DataFrame({"user_id": np.repeat(np.arange(n_users), k),
                             "item_id": items.ravel(), "rank": np.tile(np.arange(1, k + 1),
                                                                       n_users)})

    now, then = (ek.evaluate(truth, lists(), k=k, metrics=["precision"], train=train,
                             threshold=None, n_resamples=0) for _ in range(2))
    users = now.per_user.index
    b = 20
    got = _coverage(now, then, users, [k], b, np.random.default_rng(9))
    weights = poisson_weights(user_streams(users), design_key(np.random.default_rng(9)), b) > 0
    for side, run in (("current", now), ("baseline", then)):
        top = run.lists()
        assert top["item_id"].nunique() > 2048
        kept = weights[users.get_indexer(top["user_id"])]
        covered = pd.DataFrame(kept).groupby(top["item_id"].to_numpy()).any().sum()
        np.testing.assert_array_equal(got[f"{side}_replicates"][0], covered / 5000)


def test_the_randomization_tests_do_not_depend_on_the_scale() -> None:
    # gains and margins a million times smaller: the same p-values (the tie tolerance is
    # relative to the gains and the null)
    g, present = _gains(12, 2)
    g = np.where(present, np.round(g * 10) / 10, 0.0)
    one = _run(g, present, "randomization", n_permutations=999)
    small = _run(g * 1e-6, present, "randomization", margin=MARGIN * 1e-6, n_permutations=999)
    for name in ("p_value", "p_noninferior", "p_equivalent"):
        np.testing.assert_array_equal(small[name], one[name], err_msg=name)


def test_catalog_coverage_counts_the_training_catalogue_only_when_both_runs_have_it() -> None:
    import evalkit as ek

    truth = pd.DataFrame({"user_id": np.arange(30), "item_id": 0, "rating": 5.0})
    recs = pd.DataFrame({"user_id": np.repeat(np.arange(30), 2),
                         "item_id": np.arange(60) % 7, "rank": np.tile([1, 2], 30)})
    train = pd.DataFrame({"user_id": 0, "item_id": np.arange(20)})
    other = pd.DataFrame({"user_id": 0, "item_id": np.arange(25)})

    def run(catalogue):
        return ek.evaluate(truth, recs, k=2, metrics=["precision", "r_precision"],
                           train=catalogue, n_resamples=0)

    def source(a, b):
        note = " ".join(ek.regression_check(run(a), run(b), coverage=True,
                                            n_resamples=20).notes)
        return "training data" if "of the training data" in note else "lists"

    assert source(train, train) == "training data"
    for a, b in ((train, None), (None, train), (train, other)):
        assert source(a, b) == "lists", (a is None, b is None)
    # a metric without a cutoff in one run only is named in a note
    alone = ek.evaluate(truth, recs, k=2, metrics=["precision"], n_resamples=0)
    notes = ek.regression_check(run(None), alone).notes
    assert any("only in the current run" in note for note in notes)
