"""The additive statistics behind compare (evalkit._paired) against scipy and against the
whole table: the tests of one piece equal scipy's, and partitions add up to the whole."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats

from evalkit._paired import paired_results, paired_sums
from evalkit._resample import user_streams

KEYS = dict(sign_key=12345, n_permutations=999, boot_key=678, n_resamples=400)


def _diffs(seed: int, n: int) -> np.ndarray:
    """Comparisons with ties, zeros, NaN (users not shared), constants and tiny samples."""
    gen = np.random.default_rng(seed)
    rows = [
        np.round(gen.normal(0.05, 0.3, n), 1),              # many ties and zeros
        gen.normal(0.0, 1.0, n),                             # no ties
        np.where(gen.random(n) < 0.3, np.nan, np.round(gen.normal(0.1, 0.2, n), 2)),
        np.full(n, 0.25),                                    # a nonzero constant
        np.zeros(n),                                         # identical systems
        np.where(np.arange(n) < 12, np.round(gen.normal(0, 1, n), 0), np.nan),  # 12 shared
        np.where(np.arange(n) < 1, 0.5, np.nan),             # one shared user: not tested
        np.where(np.arange(n) < 2, np.arange(n) * 0.4 - 0.1, np.nan),  # two shared users
        np.where(np.arange(n) % 3 == 0, np.nan, 0.3),        # a constant among absent users
        np.where(np.arange(n) == n // 2, 0.5, 0.0),          # one user differs
        np.where(np.arange(n) < 50, gen.normal(0, 1, n), np.nan),  # scipy's exact limit
    ]
    return np.vstack(rows)


@pytest.mark.parametrize("n", [40, 300])
def test_one_piece_gives_scipys_tests(n) -> None:
    diffs = _diffs(n, n)
    got = paired_results(paired_sums(diffs, user_streams(np.arange(n)), **KEYS),
                         n_permutations=KEYS["n_permutations"], confidence=0.95)
    for j, row in enumerate(diffs):
        d = row[~np.isnan(row)]
        assert got["n_shared"][j] == len(d)
        if len(d) < 2:
            assert not got["tested"][j] and np.isnan(got["t_pvalue"][j])
            assert np.isnan(got["diff"][j]) and np.isnan(got["effect_size"][j])
            assert np.isnan(got["diff_ci_low"][j]) and np.isnan(got["diff_ci_high"][j])
            continue
        assert got["diff"][j] == pytest.approx(d.mean(), rel=1e-12, abs=1e-15)
        if d.any():
            want = scipy.stats.wilcoxon(d, zero_method="wilcox").pvalue
            assert got["wilcoxon_pvalue"][j] == pytest.approx(want, rel=1e-12), j
        else:
            assert got["wilcoxon_pvalue"][j] == 1.0
        if d.min() < d.max():
            t = scipy.stats.ttest_rel(d, np.zeros(len(d)))
            assert got["t_pvalue"][j] == pytest.approx(t.pvalue, rel=1e-9), j
            assert got["effect_size"][j] == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)
            assert got["sd"][j] == pytest.approx(d.std(ddof=1), rel=1e-12)
            assert got["diff_ci_low"][j] < d.mean() < got["diff_ci_high"][j]
        else:
            assert got["t_pvalue"][j] == (1.0 if d[0] == 0 else 0.0)
            assert got["diff_ci_low"][j] == got["diff_ci_high"][j] == d[0]
            assert got["sd"][j] == 0.0
            assert got["effect_size"][j] == (0.0 if d[0] == 0 else np.copysign(np.inf, d[0]))


def _enumerated(d: np.ndarray) -> float:
    """The Wilcoxon signed-rank permutation p-value by its definition: every one of the 2**n
    sign flips of ``d``, the sum of the average ranks of |d| (zeros left out) of the positive
    differences, ``2 min(P(R+ <= r+), P(R+ >= r+))`` at most 1."""
    n = len(d)
    nonzero = d != 0
    ranks = np.zeros(n)
    ranks[nonzero] = scipy.stats.rankdata(np.abs(d[nonzero]))
    flips = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1) * 2 - 1
    sums = ((flips * d) > 0) @ ranks
    observed = ranks[d > 0].sum()
    return min(1.0, 2 * min(np.mean(sums <= observed), np.mean(sums >= observed)))


def test_small_samples_with_ties_or_zeros_enumerate_the_sign_flips_as_scipy_does() -> None:
    """Up to 13 differences with tied or zero |d|, scipy's wilcoxon (method="auto")
    enumerates every sign flip; the p-value of a comparison is that test's, computed from the
    distribution of the rank sum (checked against the enumeration on random samples and
    against scipy itself on a few, scipy taking about 0.3 s each)."""
    gen = np.random.default_rng(8)
    cases = [np.round(gen.normal(0.2, 1.0, n), int(gen.integers(0, 2)))
             for n in gen.integers(1, 14, 200)]
    cases += [np.array([0.0, 0.5, -0.5, 1.0, 1.0, 1.0, -2.0, 0.0, 3.0, 3.0, 0.5, 2.0, 1.5]),
              np.array([1.0, 1.0]), np.array([0.0, 0.0, 0.7]), np.array([-1.0, 0.0, 2.0])]
    cases = [d for d in cases if d.any() and len(d) >= 2]  # one shared user: not tested
    assert any(len(d) == 13 and (d == 0).any() for d in cases)
    diffs = np.full((len(cases), 13), np.nan)
    for j, d in enumerate(cases):
        diffs[j, :len(d)] = d
    got = paired_results(paired_sums(diffs, user_streams(np.arange(13)), **KEYS),
                         n_permutations=KEYS["n_permutations"], confidence=0.95)
    for j, d in enumerate(cases):
        assert got["wilcoxon_pvalue"][j] == pytest.approx(_enumerated(d), rel=1e-12), d
    for j in range(len(cases) - 4, len(cases)):
        want = scipy.stats.wilcoxon(cases[j], zero_method="wilcox").pvalue
        assert got["wilcoxon_pvalue"][j] == pytest.approx(want, rel=1e-12), cases[j]
    # from 14 differences on, scipy's p-value with ties or zeros is the normal approximation
    larger = np.array([[0.0, 0.5, -0.5, 1.0, 1.0, 1.0, -2.0, 0.0, 3.0, 3.0, 0.5, 2.0, 1.5,
                        1.0, *[np.nan] * 6], np.round(gen.normal(0.3, 1.0, 20), 0)])
    got = paired_results(paired_sums(larger, user_streams(np.arange(20)), **KEYS),
                         n_permutations=KEYS["n_permutations"], confidence=0.95)
    for j, row in enumerate(larger):
        want = scipy.stats.wilcoxon(row[~np.isnan(row)], zero_method="wilcox").pvalue
        assert got["wilcoxon_pvalue"][j] == pytest.approx(want, rel=1e-12), row


def test_partitions_add_up_to_the_whole() -> None:
    n = 500
    diffs = _diffs(7, n)
    ids = np.random.default_rng(3).permutation(10**6)[:n]
    whole = paired_results(paired_sums(diffs, user_streams(ids), **KEYS),
                           n_permutations=KEYS["n_permutations"], confidence=0.9)
    for cuts in ([250], [1, 2, 3, 400], [100, 200, 300, 400]):
        bounds = [0, *cuts, n]
        order = np.random.default_rng(len(cuts)).permutation(n)  # any users in any part
        parts = [order[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
        total = None
        for part in parts:
            piece = paired_sums(diffs[:, part], user_streams(ids[part]), **KEYS)
            total = piece if total is None else total + piece
        got = paired_results(total, n_permutations=KEYS["n_permutations"], confidence=0.9)
        for name, value in whole.items():
            if name in ("tested", "n_shared", "permutation_pvalue"):
                np.testing.assert_array_equal(got[name], value, err_msg=name)
            else:
                np.testing.assert_allclose(got[name], value, rtol=1e-10, atol=1e-12,
                                           err_msg=name)


def test_pieces_without_resampling_add_up_without_it() -> None:
    # compare with n_resamples=0 (no interval): the pieces carry no bootstrap sums, nor
    # does their total, whose tests are the whole's
    n = 200
    diffs = _diffs(11, n)
    ids = np.arange(n)
    keys = dict(KEYS, n_resamples=0)
    whole = paired_results(paired_sums(diffs, user_streams(ids), **keys),
                           n_permutations=keys["n_permutations"], confidence=0.9)
    total = paired_sums(diffs[:, :80], user_streams(ids[:80]), **keys) + \
        paired_sums(diffs[:, 80:], user_streams(ids[80:]), **keys)
    assert total.boot is None
    got = paired_results(total, n_permutations=keys["n_permutations"], confidence=0.9)
    for name in ("t_pvalue", "wilcoxon_pvalue", "permutation_pvalue", "diff"):
        np.testing.assert_allclose(got[name], whole[name], rtol=1e-10, atol=1e-12)


def test_each_replicate_and_each_flip_is_read_as_documented() -> None:
    # PairedSums whose bootstrap replicates all weigh every user once and whose sign-flip
    # sums are every sign vector: each replicate's mean and effect size (ddof 1) are then
    # the sample's, so the intervals are points, and the randomization p-value is the
    # exact one (the identity flip, a tie, counted)
    import dataclasses
    import itertools

    diffs = np.array([[0.3, -0.1, 0.5, 0.2, 0.0, 0.4, -0.2],
                      [1.0, 2.5, 0.5, 1.5, 3.0, 2.0, np.nan],  # a user not shared
                      [-0.4, 0.1, -0.6, -0.2, 0.3, -0.5, -0.1]])
    c, n = diffs.shape
    filled = np.nan_to_num(diffs)
    shared = (~np.isnan(diffs)).sum(axis=1)
    sums = paired_sums(diffs, user_streams(np.arange(n)), **KEYS)
    b = 5
    s = np.vstack([np.repeat(filled.sum(axis=1)[:, None], b, axis=1),
                   np.repeat((filled ** 2).sum(axis=1)[:, None], b, axis=1)])
    w = np.repeat(np.concatenate([shared, shared]).astype(float)[:, None], b, axis=1)
    bits = np.array(list(itertools.product((1.0, 0.0), repeat=n)))  # 1 keeps, 0 flips
    exact = dataclasses.replace(sums, boot=(s, w), signs=filled @ bits.T)
    got = paired_results(exact, n_permutations=len(bits), confidence=0.9)
    dz = np.nanmean(diffs, axis=1) / np.nanstd(diffs, axis=1, ddof=1)
    np.testing.assert_allclose(got["effect_size_ci_low"], dz, rtol=1e-12)
    np.testing.assert_allclose(got["effect_size_ci_high"], dz, rtol=1e-12)
    np.testing.assert_allclose(got["diff_ci_low"], np.nanmean(diffs, axis=1), rtol=1e-12)
    # replicates without spread (every draw the same user) have no effect size
    flat = dataclasses.replace(exact, boot=(np.vstack([filled[:, :1] * 2, filled[:, :1] ** 2 * 2]
                                                      ).repeat(b, axis=1),
                                            np.full((2 * c, b), 2.0)))
    assert np.isnan(paired_results(flat, n_permutations=len(bits),
                                   confidence=0.9)["effect_size_ci_low"]).all()
    flipped = np.abs(filled @ (2 * bits - 1).T)
    observed = np.abs(filled.sum(axis=1))[:, None]
    want = (1 + np.count_nonzero(flipped >= observed - 1e-12, axis=1)) / (1 + len(bits))
    np.testing.assert_allclose(got["permutation_pvalue"], want, rtol=1e-12)


def test_a_piece_of_one_user_keeps_its_extremes() -> None:
    # a comparison where one user differs, in a piece of its own: the total is not
    # "identical systems"
    n = 30
    diffs = np.vstack([np.where(np.arange(n) == 7, 0.5, 0.0), np.linspace(-1, 1, n)])
    ids = np.arange(n)
    whole = paired_results(paired_sums(diffs, user_streams(ids), **KEYS),
                           n_permutations=KEYS["n_permutations"], confidence=0.9)
    alone, rest = ids == 7, ids != 7
    total = paired_sums(diffs[:, alone], user_streams(ids[alone]), **KEYS) + \
        paired_sums(diffs[:, rest], user_streams(ids[rest]), **KEYS)
    got = paired_results(total, n_permutations=KEYS["n_permutations"], confidence=0.9)
    assert whole["t_pvalue"][0] < 1.0
    for name in ("t_pvalue", "wilcoxon_pvalue", "effect_size", "sd"):
        np.testing.assert_allclose(got[name], whole[name], rtol=1e-10, atol=1e-12,
                                   err_msg=name)


def test_the_statistics_do_not_depend_on_the_scale() -> None:
    # p-values, effect sizes and their intervals are those of differences a million times
    # larger (ties and the no-spread test are relative to the differences)
    n = 60
    diffs = _diffs(5, n)[:6]
    ids = user_streams(np.arange(n))
    one = paired_results(paired_sums(diffs, ids, **KEYS), n_permutations=999, confidence=0.9)
    small = paired_results(paired_sums(diffs * 1e-6, ids, **KEYS), n_permutations=999,
                           confidence=0.9)
    for name in ("t_pvalue", "wilcoxon_pvalue", "permutation_pvalue", "effect_size",
                 "effect_size_ci_low", "effect_size_ci_high"):
        np.testing.assert_allclose(small[name], one[name], rtol=1e-6, err_msg=name)
