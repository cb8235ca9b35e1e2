"""Tests for evalkit.stats: bootstrap intervals, paired tests and the Holm correction."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit import stats
from evalkit.stats import bootstrap_ci, bootstrap_ci_frame, holm, paired_tests

# ----------------------------------------------------------------------------------------------
# References written out in the test
# ----------------------------------------------------------------------------------------------


def holm_statsmodels(pvalues: np.ndarray) -> np.ndarray:
    """The Holm step-down adjustment as statsmodels.stats.multitest.multipletests defines it."""
    pvals = np.asarray(pvalues, dtype=float)
    sortind = np.argsort(pvals)
    pvals_sorted = pvals[sortind]
    ntests = len(pvals)
    corrected_raw = pvals_sorted * np.arange(ntests, 0, -1)
    corrected = np.maximum.accumulate(corrected_raw)
    corrected[corrected > 1] = 1
    out = np.empty_like(corrected)
    out[sortind] = corrected
    return out


def exact_sign_flip_pvalue(diff: np.ndarray) -> float:
    """Exact two-sided randomization p-value over all 2^n sign vectors (no smoothing)."""
    observed = abs(diff.sum())
    signs = np.array(list(itertools.product([-1.0, 1.0], repeat=len(diff))))
    null = np.abs(signs @ diff)
    return float(np.mean(null >= observed - 1e-12))


# ----------------------------------------------------------------------------------------------
# paired_tests
# ----------------------------------------------------------------------------------------------


@pytest.fixture
def paired_sample() -> tuple[np.ndarray, np.ndarray]:
    gen = np.random.default_rng(7)
    a = np.round(gen.uniform(0, 1, 40), 2)
    b = np.round(a - gen.normal(0.05, 0.1, 40), 2)
    b[:6] = a[:6]  # some zero differences
    return a, b


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
def test_paired_tests_match_scipy(paired_sample, zero_method):
    a, b = paired_sample
    result = paired_tests(a, b, zero_method=zero_method, n_permutations=200)
    t_test = scipy.stats.ttest_rel(a, b)
    wilcoxon = scipy.stats.wilcoxon(a - b, zero_method=zero_method)
    assert result["n"] == 40
    assert result["mean_a"] == pytest.approx(np.mean(a))
    assert result["mean_b"] == pytest.approx(np.mean(b))
    assert result["mean_diff"] == pytest.approx(np.mean(a) - np.mean(b))
    assert result["t_statistic"] == pytest.approx(t_test.statistic)
    assert result["t_pvalue"] == pytest.approx(t_test.pvalue)
    assert result["wilcoxon_statistic"] == pytest.approx(wilcoxon.statistic)
    assert result["wilcoxon_pvalue"] == pytest.approx(wilcoxon.pvalue)


def test_cohens_dz_is_mean_over_sample_sd():
    a = np.array([3.0, 5.0, 4.0, 6.0])
    b = np.array([2.0, 2.0, 3.0, 2.0])
    # d = 1, 3, 1, 4: mean 2.25, sample variance (1.5625 + 0.5625 + 1.5625 + 3.0625) / 3 = 2.25
    result = paired_tests(a, b, n_permutations=10)
    assert result["cohens_dz"] == pytest.approx(2.25 / 1.5)
    assert result["t_statistic"] == pytest.approx(2.25 / (1.5 / 2.0))


@pytest.mark.parametrize(
    "diff",
    [
        [0.8, -0.3, 0.5, 1.2, -0.6, 0.4, 0.9, -0.2, 0.1, 0.3],  # exact p = 136 / 1024
        [0.8, -0.9, 0.5, 1.2, -0.6, 0.4, 0.9, -0.7, 0.1, -0.3],  # exact p = 594 / 1024
        [0.5, -0.3, 0.5, 0.2, -0.6, 0.4, 0.9, -0.2, 0.1, 0.3],  # ties in |d|: 264 / 1024
    ],
)
def test_sign_flip_agrees_with_exact_enumeration(diff):
    diff = np.array(diff)
    exact = exact_sign_flip_pvalue(diff)
    n_perm = 20000
    b = np.linspace(0.0, 1.0, 10)  # a - b = diff
    result = paired_tests(b + diff, b, n_permutations=n_perm, rng=11)
    estimate = result["permutation_pvalue"]
    standard_error = np.sqrt(exact * (1 - exact) / n_perm)
    assert abs(estimate - exact) < 4 * standard_error + 1 / n_perm


def test_sign_flip_agrees_with_scipy_permutation_test():
    # scipy's paired ('samples') permutation test swaps a_i and b_i: the same sign flips of d_i.
    # Two-sided, it doubles the smaller tail; the sign-flip law is symmetric, so both estimate
    # P(|T*| >= |T|), each within Monte-Carlo error.
    gen = np.random.default_rng(12)
    a = gen.normal(0.0, 1.0, 120)
    b = a - gen.normal(0.2, 1.0, 120)
    n_perm = 20000
    ours = paired_tests(a, b, n_permutations=n_perm, rng=1)["permutation_pvalue"]
    theirs = scipy.stats.permutation_test(
        (a, b), lambda x, y, axis: np.mean(x - y, axis=axis), permutation_type="samples",
        n_resamples=n_perm, alternative="two-sided", random_state=np.random.default_rng(2),
    ).pvalue
    assert 0.01 < theirs < 0.5  # a p-value where the comparison has power
    standard_error = np.sqrt(2 * theirs * (1 - theirs) / n_perm)
    assert abs(ours - theirs) < 4 * standard_error + 2 / n_perm


def test_sign_flip_smallest_pvalue_for_one_sided_constant_sign():
    # All 10 differences positive and distinct: only the identity and the full flip reach |T|.
    diff = np.arange(1.0, 11.0)
    assert exact_sign_flip_pvalue(diff) == pytest.approx(2 / 1024)
    estimate = paired_tests(diff, np.zeros(10), n_permutations=20000, rng=0)["permutation_pvalue"]
    assert abs(estimate - 2 / 1024) < 4 * np.sqrt((2 / 1024) / 20000) + 1 / 20001


def test_sign_flip_add_one_smoothing_bounds():
    gen = np.random.default_rng(0)
    a, b = gen.normal(1, 1, 200), gen.normal(0, 1, 200)  # a huge effect: no replicate reaches it
    p = paired_tests(a, b, n_permutations=999, rng=0)["permutation_pvalue"]
    assert p == pytest.approx(1 / 1000)


def test_paired_tests_deterministic_per_seed(paired_sample):
    a, b = paired_sample
    first = paired_tests(a, b, n_permutations=500, rng=5)
    second = paired_tests(a, b, n_permutations=500, rng=5)
    assert first == second
    others = {paired_tests(a, b, n_permutations=500, rng=s)["permutation_pvalue"] for s in range(6)}
    assert len(others) > 1  # the seed matters


def test_paired_tests_all_zero_differences():
    a = np.array([0.2, 0.5, 0.7])
    result = paired_tests(a, a.copy())
    assert result["mean_diff"] == 0.0
    assert result["t_pvalue"] == 1.0
    assert result["wilcoxon_pvalue"] == 1.0
    assert result["permutation_pvalue"] == 1.0
    assert result["cohens_dz"] == 0.0
    assert result["t_statistic"] == 0.0


def test_paired_tests_constant_nonzero_difference():
    a = np.array([0.25, 0.5, 0.75, 1.0])
    result = paired_tests(a, a - 0.25, n_permutations=100)
    assert result["cohens_dz"] == np.inf
    assert result["t_statistic"] == np.inf
    assert result["t_pvalue"] == 0.0
    lower = paired_tests(a - 0.25, a, n_permutations=100)
    assert lower["cohens_dz"] == -np.inf


def test_paired_tests_inputs_unchanged(paired_sample):
    a, b = paired_sample
    a_copy, b_copy = a.copy(), b.copy()
    series_a, series_b = pd.Series(a), pd.Series(b)
    paired_tests(a, b, n_permutations=100)
    paired_tests(series_a, series_b, n_permutations=100)
    np.testing.assert_array_equal(a, a_copy)
    np.testing.assert_array_equal(b, b_copy)
    pd.testing.assert_series_equal(series_a, pd.Series(a_copy))


@pytest.mark.parametrize(
    ("a", "b", "options", "error", "match"),
    [
        ([1.0, 2.0], [1.0], {}, ValueError, "same length; got 2 and 1"),
        ([1.0], [2.0], {}, ValueError, "at least 2 values; got 1"),
        ([1.0, np.nan], [1.0, 2.0], {}, ValueError, "'a' must not contain NaN"),
        ([1.0, 2.0], [1.0, np.inf], {}, ValueError, "'b' must be finite"),
        (["x", "y"], [1.0, 2.0], {}, TypeError, "'a' must be numeric"),
        ([[1.0, 2.0]], [[1.0, 2.0]], {}, ValueError, "one-dimensional"),
        ([1.0, 2.0], [0.0, 1.0], {"n_permutations": 0}, ValueError, "'n_permutations' must be"),
        ([1.0, 2.0], [0.0, 1.0], {"zero_method": "drop"}, ValueError, "valid values are 'wilcox'"),
    ],
)
def test_paired_tests_bad_input(a, b, options, error, match):
    with pytest.raises(error, match=match):
        paired_tests(a, b, **options)


def test_paired_tests_rejects_misaligned_series():
    a = pd.Series([0.1, 0.2, 0.3], index=[1, 2, 3])
    b = pd.Series([0.1, 0.2, 0.3], index=[3, 2, 1])
    with pytest.raises(ValueError, match="indexes differ"):
        paired_tests(a, b)


# ----------------------------------------------------------------------------------------------
# holm
# ----------------------------------------------------------------------------------------------


def test_holm_worked_example():
    # Sorted: 0.005 * 4 = 0.02, 0.01 * 3 = 0.03, 0.03 * 2 = 0.06, 0.04 * 1 = 0.04 -> max 0.06.
    adjusted = holm([0.01, 0.04, 0.03, 0.005])
    np.testing.assert_allclose(adjusted, [0.03, 0.06, 0.06, 0.02])


def test_holm_caps_at_one_and_passes_nan():
    adjusted = holm(np.array([0.4, np.nan, 0.5, 0.01]))
    # Three comparisons: 0.01 * 3 = 0.03, 0.4 * 2 = 0.8, 0.5 * 1 = 0.5 -> 0.8.
    np.testing.assert_allclose(adjusted, [0.8, np.nan, 0.8, 0.03])
    np.testing.assert_allclose(holm([0.6, 0.7]), [1.0, 1.0])
    assert holm([]).shape == (0,)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=30))
def test_holm_matches_statsmodels_definition(pvalues):
    pvalues = np.array(pvalues)
    adjusted = holm(pvalues)
    np.testing.assert_allclose(adjusted, holm_statsmodels(pvalues))
    assert np.all(adjusted >= pvalues) and np.all(adjusted <= 1.0)
    order = np.argsort(pvalues, kind="stable")
    assert np.all(np.diff(adjusted[order]) >= 0)  # monotone in the p-value order


def test_holm_input_unchanged_and_errors():
    pvalues = np.array([0.2, 0.01])
    holm(pvalues)
    np.testing.assert_array_equal(pvalues, [0.2, 0.01])
    with pytest.raises(ValueError, match=r"must lie in \[0, 1\]; got 1.5 at position 1"):
        holm([0.1, 1.5])
    with pytest.raises(ValueError, match="one-dimensional"):
        holm([[0.1]])
    with pytest.raises(TypeError, match="numeric"):
        holm(["0.1"])


# ----------------------------------------------------------------------------------------------
# bootstrap_ci and bootstrap_ci_frame
# ----------------------------------------------------------------------------------------------


def test_bootstrap_ci_coverage_is_nominal():
    gen = np.random.default_rng(2024)
    samples = gen.normal(loc=1.5, scale=2.0, size=(400, 200))
    covered = 0
    for i, sample in enumerate(samples):
        low, high = bootstrap_ci(sample, confidence=0.95, n_resamples=1000, rng=i)
        covered += low <= 1.5 <= high
    assert abs(covered / 400 - 0.95) <= 0.03


@pytest.mark.parametrize("n", [100, 1000])
def test_bootstrap_ci_frame_coverage_is_nominal_with_nan_and_skew(n):
    # Known means: Bernoulli(0.3) with 20% of users missing, and a skewed exponential(1).
    gen = np.random.default_rng(n)
    covered = np.zeros(2)
    datasets = 600
    for i in range(datasets):
        hits = (gen.random(n) < 0.3).astype(float)
        hits[gen.random(n) < 0.2] = np.nan
        table = pd.DataFrame({"hit": hits, "wait": gen.exponential(1.0, n)})
        summary = bootstrap_ci_frame(table, n_resamples=1000, rng=i)
        covered += (summary["ci_low"] <= [0.3, 1.0]) & ([0.3, 1.0] <= summary["ci_high"])
    coverage = covered / datasets
    # 600 datasets: the standard error of a 0.95 coverage is 0.009
    assert np.all((0.92 <= coverage) & (coverage <= 0.98)), coverage


def test_bootstrap_ci_small_skewed_samples_cover_as_the_classical_bootstrap():
    # At n = 40 the percentile interval of an exponential mean runs short (about 0.92) for
    # the classical multinomial bootstrap too; the Poisson bootstrap must not do worse.
    gen = np.random.default_rng(40)
    datasets, n = 600, 40
    ours = classical = 0
    for i in range(datasets):
        x = gen.exponential(1.0, n)
        low, high = bootstrap_ci(x, rng=i)
        ours += low <= 1.0 <= high
        means = x[np.random.default_rng(10**6 + i).integers(0, n, (1000, n))].mean(axis=1)
        low, high = np.quantile(means, [0.025, 0.975])
        classical += low <= 1.0 <= high
    assert 0.88 <= ours / datasets <= 0.97
    assert abs(ours - classical) / datasets <= 0.02


def test_bootstrap_ci_shrinks_like_one_over_root_n():
    gen = np.random.default_rng(3)
    widths = {}
    for n in (500, 2000, 8000):
        low, high = bootstrap_ci(gen.normal(0.0, 1.0, n), rng=0)
        widths[n] = high - low
        # the normal-theory width 2 * 1.96 * sd / sqrt(n), within Monte-Carlo error
        assert widths[n] * np.sqrt(n) == pytest.approx(2 * 1.96, rel=0.12)
    assert widths[500] / widths[8000] == pytest.approx(4.0, rel=0.15)


def test_bootstrap_ci_frame_resamples_every_column_with_the_same_weights():
    # one design for the table: a shifted or scaled copy of a column gets the shifted or
    # scaled interval, to rounding (independent resamples would differ by Monte-Carlo error)
    x = np.random.default_rng(4).exponential(size=500)
    table = pd.DataFrame({"x": x, "x_plus_1": x + 1.0, "two_x": 2.0 * x})
    summary = bootstrap_ci_frame(table, rng=5)
    low, high = summary["ci_low"], summary["ci_high"]
    assert low["x_plus_1"] == pytest.approx(low["x"] + 1.0, abs=1e-12)
    assert high["x_plus_1"] == pytest.approx(high["x"] + 1.0, abs=1e-12)
    assert low["two_x"] == pytest.approx(2.0 * low["x"], rel=1e-12)
    assert high["two_x"] == pytest.approx(2.0 * high["x"], rel=1e-12)


def test_bootstrap_ci_agrees_with_scipy_percentile_bootstrap():
    sample = np.random.default_rng(1).exponential(size=150)
    low, high = bootstrap_ci(sample, confidence=0.9, n_resamples=20000, rng=0)
    reference = scipy.stats.bootstrap(
        (sample,), np.mean, confidence_level=0.9, n_resamples=20000, method="percentile",
        random_state=np.random.default_rng(5),
    ).confidence_interval
    scale = sample.std() / np.sqrt(len(sample))
    assert low == pytest.approx(reference.low, abs=0.05 * scale)
    assert high == pytest.approx(reference.high, abs=0.05 * scale)
    assert low < sample.mean() < high


def test_bootstrap_ci_deterministic_and_degenerate():
    values = np.random.default_rng(0).normal(size=50)
    assert bootstrap_ci(values, rng=3) == bootstrap_ci(values, rng=3)
    assert bootstrap_ci(values, rng=3) != bootstrap_ci(values, rng=4)
    assert bootstrap_ci([0.7], rng=0) == (0.7, 0.7)
    assert bootstrap_ci([0.25, 0.25, 0.25]) == (0.25, 0.25)
    # A narrower confidence gives a nested interval on the same resamples.
    wide, narrow = bootstrap_ci(values, confidence=0.95), bootstrap_ci(values, confidence=0.5)
    assert wide[0] <= narrow[0] <= narrow[1] <= wide[1]


def test_bootstrap_ci_accepts_series_and_booleans_and_leaves_input_unchanged():
    series = pd.Series([1.0, 0.0, 1.0, 1.0], index=[10, 20, 30, 40])
    before = series.copy()
    assert bootstrap_ci(series, rng=0) == bootstrap_ci(np.array([True, False, True, True]), rng=0)
    pd.testing.assert_series_equal(series, before)


@pytest.mark.parametrize(
    ("values", "options", "error", "match"),
    [
        ([1.0, np.nan], {}, ValueError, "must not contain NaN; got 1 NaN value"),
        ([1.0, np.inf], {}, ValueError, "must be finite"),
        ([], {}, ValueError, "at least one value"),
        ([[1.0, 2.0]], {}, ValueError, "one-dimensional"),
        (["a", "b"], {}, TypeError, "must be numeric"),
        ([1.0, 2.0], {"confidence": 1.0}, ValueError, "'confidence' must be in the open"),
        ([1.0, 2.0], {"n_resamples": 0}, ValueError, "'n_resamples' must be a positive"),
    ],
)
def test_bootstrap_ci_bad_input(values, options, error, match):
    with pytest.raises(error, match=match):
        bootstrap_ci(values, **options)


def test_bootstrap_ci_frame_columns_equal_single_column_calls():
    gen = np.random.default_rng(8)
    table = pd.DataFrame({"ndcg": gen.uniform(size=80), "recall": gen.uniform(size=80)})
    before = table.copy()
    summary = bootstrap_ci_frame(table, n_resamples=300, rng=9)
    assert list(summary.columns) == ["mean", "ci_low", "ci_high", "n", "n_missing"]
    assert list(summary.index) == ["ndcg", "recall"]
    for name in table.columns:
        low, high = bootstrap_ci(table[name], n_resamples=300, rng=9)
        assert summary.loc[name, "ci_low"] == pytest.approx(low)
        assert summary.loc[name, "ci_high"] == pytest.approx(high)
        assert summary.loc[name, "mean"] == pytest.approx(table[name].mean())
    pd.testing.assert_frame_equal(table, before)



def test_a_wide_table_of_mixed_dtypes_is_its_columns_one_by_one():
    # many columns are converted as one block: each must be what it is alone (ints, bools,
    # nullable integers with NA, floats with NaN), and a bad column is still named
    gen = np.random.default_rng(3)
    table = pd.DataFrame({f"m{j}": gen.uniform(size=60) for j in range(40)})
    table["hits"] = gen.integers(0, 5, 60)
    table["hit"] = gen.random(60) < 0.4
    table["nullable"] = pd.array(np.where(gen.random(60) < 0.2, None, gen.integers(0, 9, 60)),
                                 dtype="Int64")
    table.loc[gen.random(60) < 0.3, "m3"] = np.nan
    wide = bootstrap_ci_frame(table, n_resamples=200, rng=4)
    alone = pd.concat([bootstrap_ci_frame(table[[c]], n_resamples=200, rng=4)
                       for c in table.columns])
    pd.testing.assert_frame_equal(wide, alone, check_exact=True)
    table.loc[7, "m20"] = -np.inf
    table.loc[9, "m30"] = np.inf
    with pytest.raises(ValueError, match=r"frame\['m20'\]' must be finite"):
        bootstrap_ci_frame(table)

def test_bootstrap_ci_frame_drops_nan_per_column():
    table = pd.DataFrame(
        {
            "full": [0.1, 0.4, 0.6, 0.9, 0.5],
            "holes": [1.0, np.nan, 0.0, np.nan, 1.0],
            "empty": [np.nan] * 5,
        }
    )
    summary = bootstrap_ci_frame(table, rng=0)
    assert summary["n"].tolist() == [5, 3, 0]
    assert summary["n_missing"].tolist() == [0, 2, 5]
    assert summary["n"].dtype == np.int64
    assert summary.loc["holes", "mean"] == pytest.approx(2 / 3)
    assert np.isnan(summary.loc["empty", ["mean", "ci_low", "ci_high"]].astype(float)).all()
    assert 0.0 <= summary.loc["holes", "ci_low"] <= 2 / 3 <= summary.loc["holes", "ci_high"] <= 1


def test_bootstrap_ci_frame_bad_input():
    with pytest.raises(TypeError, match="'frame' must be a pandas DataFrame"):
        bootstrap_ci_frame(np.zeros((3, 2)))
    with pytest.raises(TypeError, match=r"frame\['name'\]' must be numeric"):
        bootstrap_ci_frame(pd.DataFrame({"name": ["a", "b"]}))
    with pytest.raises(ValueError, match="must be finite"):
        bootstrap_ci_frame(pd.DataFrame({"x": [1.0, np.inf]}))


def test_bootstrap_ci_frame_without_resamples_gives_means_and_no_intervals():
    table = pd.DataFrame({"a": [0.1, 0.5, np.nan], "b": [1.0, 1.0, 1.0]})
    summary = bootstrap_ci_frame(table, n_resamples=0)
    np.testing.assert_allclose(summary["mean"], [0.3, 1.0])
    assert summary["ci_low"].isna().all() and summary["ci_high"].isna().all()
    assert summary["n"].tolist() == [2, 3]
    with pytest.raises(ValueError, match="'n_resamples' must be a positive integer, or 0 for"):
        bootstrap_ci_frame(table, n_resamples=-1)
    with pytest.raises(ValueError, match="bootstrap_ci: 'n_resamples' must be a positive integer;"):
        bootstrap_ci([0.1, 0.2], n_resamples=0)


def test_user_bootstrap_sums_weigh_every_column_by_the_same_poisson_weights() -> None:
    from evalkit._resample import design_key, poisson_weights, user_streams

    rng = np.random.default_rng(2)
    users = rng.permutation(5000)[:300]
    columns = [rng.random(300), rng.integers(0, 5, 300).astype(float)]
    sums = stats.user_bootstrap_sums(columns, users, n_resamples=50, rng=7)
    weights = poisson_weights(user_streams(users), design_key(np.random.default_rng(7)), 50)
    assert sums.shape == (2, 50)
    for j, column in enumerate(columns):
        np.testing.assert_allclose(sums[j], column @ weights, rtol=1e-12)
    # the same seed as every evalkit interval: the design follows the users, not their order
    order = rng.permutation(300)
    again = stats.user_bootstrap_sums([c[order] for c in columns], users[order],
                                      n_resamples=50, rng=7)
    np.testing.assert_allclose(again, sums, rtol=1e-12)


def test_percentile_interval_is_numpys_quantiles_without_nan() -> None:
    rng = np.random.default_rng(3)
    replicates = rng.normal(size=(400, 3))
    replicates[:37, 1] = np.nan
    low, high = stats.percentile_interval(replicates, 0.9)
    for j in range(3):
        column = replicates[:, j][~np.isnan(replicates[:, j])]
        assert (low[j], high[j]) == pytest.approx(tuple(np.quantile(column, [0.05, 0.95])),
                                                  rel=1e-12)
    assert np.array_equal(stats.percentile_interval(replicates)[0],
                          stats.percentile_interval(replicates, 0.95)[0], equal_nan=True)


def test_the_randomization_test_counts_tied_sums_as_extreme() -> None:
    # differences of a few values: many sign patterns tie with the observed sum, and each
    # counts as at least as extreme (the exact test enumerates all 2^12)
    d = np.array([1.0, 2.0, -1.0, 1.0, 0.0, 2.0, 1.0, -2.0, 1.0, 1.0, -1.0, 2.0])
    signs = np.array(list(itertools.product([-1.0, 1.0], repeat=len(d))))
    exact = np.mean(np.abs(signs @ d) >= abs(d.sum()) - 1e-9)
    got = paired_tests(d, np.zeros(len(d)), n_permutations=40_000, rng=1)
    assert got["permutation_pvalue"] == pytest.approx(exact, abs=4 * np.sqrt(0.25 / 40_000))
    same = paired_tests(d, d)
    assert (same["t_pvalue"], same["wilcoxon_pvalue"], same["permutation_pvalue"]) == (1, 1, 1)
    assert same["wilcoxon_statistic"] == 0.0 and same["t_statistic"] == 0.0


def test_bootstrap_ci_frame_constant_columns_and_the_users_not_their_order():
    # a column whose values are all equal has that value as its interval (one user too);
    # the replicates follow the users (the index), not the rows' order
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"a": rng.normal(size=40), "b": 0.25,
                          "c": np.where(np.arange(40) == 3, 0.5, np.nan)},
                         index=pd.Index(rng.permutation(1000)[:40], name="user_id"))
    got = bootstrap_ci_frame(frame, n_resamples=200, rng=1)
    assert (got.loc["b", "ci_low"], got.loc["b", "ci_high"]) == (0.25, 0.25)
    assert (got.loc["c", "ci_low"], got.loc["c", "ci_high"]) == (0.5, 0.5)
    shuffled = bootstrap_ci_frame(frame.iloc[rng.permutation(40)], n_resamples=200, rng=1)
    pd.testing.assert_frame_equal(shuffled, got)


def test_the_randomization_p_value_does_not_depend_on_the_scale():
    # the tie tolerance is relative to the differences: differences a million times smaller
    # (or larger) give the same p-value, ties included
    a = np.round(np.random.default_rng(3).normal(0.05, 0.3, 30), 1)
    for scale in (1e-6, 1e6):
        assert paired_tests(a * scale, np.zeros(30), n_permutations=2000)["permutation_pvalue"] \
            == paired_tests(a, np.zeros(30), n_permutations=2000)["permutation_pvalue"]
