"""Power and minimum detectable effect (evalkit.stats): against R's power.t.test, against
themselves (power at the MDE is the target), and the simulation method against its own
rejection rate within Monte-Carlo error."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

import evalkit as ek
from evalkit import stats
from evalkit._power import t_power


def test_the_t_method_reproduces_r() -> None:
    # power.t.test(delta = 0.5, sd = 1, power = 0.8, type = "one.sample"): n = 33.37
    assert stats.required_users(0.5, sd=1.0) == 34
    assert stats.power(0.5, sd=1.0, n_users=33) < 0.8 < stats.power(0.5, sd=1.0, n_users=34)
    # power.t.test(n = 20, delta = 1): 0.8689528 (two-sample, df 38; R's default strict=FALSE
    # counts the upper tail only, which is the one-sided test at alpha / 2)
    upper = t_power(1.0 * math.sqrt(20 / 2), 38, 0.025, "greater")
    assert float(upper) == pytest.approx(0.8689528, abs=5e-8)
    both = t_power(1.0 * math.sqrt(20 / 2), 38, 0.05, "two-sided")
    assert 0 < both - upper < 1e-6  # the lower tail, which strict=TRUE adds


@pytest.mark.parametrize(("sd", "n", "alpha", "target", "alternative", "n_tests"), [
    (1.0, 34, 0.05, 0.8, "two-sided", 1),
    (0.12, 610, 0.05, 0.8, "two-sided", 6),
    (0.3, 50, 0.01, 0.9, "greater", 1),
    (2.0, 12, 0.1, 0.5, "less", 3),
])
def test_power_at_the_mde_is_the_target(sd, n, alpha, target, alternative, n_tests) -> None:
    kw = dict(sd=sd, n_users=n, alpha=alpha, alternative=alternative, n_tests=n_tests)
    found = stats.mde(power=target, **kw)
    effect = -found if alternative == "less" else found
    assert stats.power(effect, **kw) == pytest.approx(target, abs=1e-6)
    assert stats.power(effect * 0.99, **kw) < target
    # the noncentral t, not the normal approximation: they differ at few users
    z = (sps.norm.ppf(1 - alpha / n_tests / (2 if alternative == "two-sided" else 1))
         + sps.norm.ppf(target)) * sd / math.sqrt(n)
    assert found > z
    # n_tests divides alpha (Holm's first step)
    alone = stats.mde(power=target, **(kw | {"n_tests": 1, "alpha": alpha / n_tests}))
    assert alone == pytest.approx(found, rel=1e-9)


def test_diffs_give_the_spread_and_the_users() -> None:
    rng = np.random.default_rng(0)
    diffs = rng.normal(0.01, 0.1, 400)
    with_nan = np.append(diffs, [np.nan, np.nan])
    want = stats.mde(sd=float(np.std(diffs, ddof=1)), n_users=400)
    assert stats.mde(with_nan) == pytest.approx(want, rel=1e-12)  # NaN users dropped
    assert stats.mde(diffs, n_users=1600) == pytest.approx(want / 2, rel=0.01)
    curve = stats.power_curve(diffs, n_users=[100, 400])
    assert curve["mde"].iloc[1] == pytest.approx(want, rel=1e-12)
    assert curve["mde"].is_monotonic_decreasing



@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_a_curve_is_mde_at_each_number_of_users(alternative) -> None:
    # solved together, each point is the value of mde alone, to the last bit: one bisection
    # does not run on past its own tolerance because another point has not reached its own
    counts = np.unique(np.geomspace(2, 40_000, 24).round().astype(int))
    curve = stats.power_curve(sd=0.37, n_users=counts, alpha=0.01, power=0.9, n_tests=3,
                              alternative=alternative)
    want = [stats.mde(sd=0.37, n_users=int(n), alpha=0.01, power=0.9, n_tests=3,
                      alternative=alternative) for n in counts]
    assert curve["n_users"].tolist() == counts.tolist()
    assert curve["mde"].tolist() == want
    with pytest.raises(ValueError, match=r"^power_curve: 'power' must exceed the test's level"):
        stats.power_curve(sd=0.1, power=0.04, alpha=0.05)

@pytest.mark.parametrize("shape", ["normal", "skewed"])
def test_the_simulation_detects_the_mde_at_the_target_rate(shape) -> None:
    rng = np.random.default_rng(5)
    diffs = rng.normal(0, 0.1, 300) if shape == "normal" else rng.exponential(0.1, 300) - 0.1
    found = stats.mde(diffs, method="simulation", n_simulations=800, rng=1)
    # at its MDE, the rejection rate of new samples (another seed) is the target, within
    # Monte-Carlo error (three standard errors of 0.014 at 1000 samples)
    rate = stats.power(found, diffs=diffs, method="simulation", n_simulations=1000, rng=2)
    assert abs(rate - 0.8) < 3 * math.sqrt(0.8 * 0.2 / 1000) + 3 * math.sqrt(0.16 / 800)
    if shape == "normal":  # and for normal differences it is the t method's
        assert found == pytest.approx(stats.mde(diffs), rel=0.08)


def test_the_randomization_simulation_agrees_with_the_t_test_on_normal_differences() -> None:
    # for normal differences the sign-flip test and the t-test have nearly the same power
    rng = np.random.default_rng(8)
    diffs = rng.normal(0, 0.1, 150)
    flips = stats.mde(diffs, method="simulation", test="randomization", n_simulations=300,
                      rng=0)
    assert flips == pytest.approx(stats.mde(diffs), rel=0.1)
    # and its rejection rate at that effect is the target, within Monte-Carlo error
    rate = stats.power(flips, diffs=diffs, method="simulation", test="randomization",
                       n_simulations=600, rng=3)
    assert abs(rate - 0.8) < 3 * math.sqrt(0.16 / 600) + 3 * math.sqrt(0.16 / 300)


def test_the_wilcoxon_simulation_needs_more_for_skewed_differences() -> None:
    rng = np.random.default_rng(3)
    diffs = rng.exponential(0.1, 200) - 0.1  # mean 0, median below it
    t = stats.mde(diffs, method="simulation", n_simulations=300, rng=0)
    signed_rank = stats.mde(diffs, method="simulation", test="wilcoxon", n_simulations=300,
                            rng=0)
    assert signed_rank > t


@pytest.mark.parametrize(("call", "message"), [
    (lambda: stats.mde(), "give the paired per-user differences"),
    (lambda: stats.mde(sd=0.1), "with 'sd', give 'n_users' too"),
    (lambda: stats.mde([0.1, 0.2], sd=0.1), "give 'diffs' or 'sd', not both"),
    (lambda: stats.mde([0.1]), "at least two users"),
    (lambda: stats.mde([0.2, 0.2, 0.2]), "standard deviation 0"),
    (lambda: stats.mde(sd=-1, n_users=10), "'sd' must be a positive finite number"),
    (lambda: stats.mde(sd=1, n_users=10, power=0.01, alpha=0.05), "'power' must exceed"),
    (lambda: stats.mde(sd=1, n_users=10, method="simulation"), "give 'diffs'"),
    (lambda: stats.power("big", sd=1, n_users=10), "'effect' must be a finite number"),
    (lambda: stats.required_users(0.1, sd=1, alternative="less"), "no number of users"),
    (lambda: stats.required_users(1e-6, sd=1, max_users=1000), "more than max_users"),
    (lambda: stats.mde(sd=1, n_users=10, alternative="both"), "unknown alternative 'both'"),
    (lambda: stats.mde([0.1, 0.3, 0.2], method="simulation", test="randomization",
                       n_tests=100), "smallest p-value is 0.001, not below the level"),
])
def test_bad_arguments_are_named(call, message) -> None:
    with pytest.raises(ek.InvalidParameterError, match=message):
        call()


def test_a_comparison_states_what_it_could_detect() -> None:
    import evalkit.report as rp

    rng = np.random.default_rng(4)
    users = np.arange(300)
    truth = pd.DataFrame({"user_id": np.repeat(users, 3), "item_id": np.tile([0, 1, 2], 300),
                          "rating": 5.0})
    systems = {}
    for name in ("a", "b"):  # random lists over 20 items: no real difference
        items = np.argsort(rng.random((300, 20)), axis=1)[:, :5]
        systems[name] = pd.DataFrame({"user_id": np.repeat(users, 5), "item_id": items.ravel(),
                                      "rank": np.tile(np.arange(1, 6), 300)})
    table = ek.compare(systems, truth, k=5, metrics=["precision", "ndcg"], n_resamples=50)
    pairs = table[table["against"].notna()].set_index("metric")
    runs = {n: ek.evaluate(truth, r, k=5, metrics=["precision", "ndcg"], n_resamples=0)
            for n, r in systems.items()}
    for metric in ("precision", "ndcg"):
        diffs = (runs["b"].per_user[f"{metric}@5"] - runs["a"].per_user[f"{metric}@5"]).dropna()
        want = stats.mde(diffs, alpha=0.05, n_tests=2)  # two tests in the table: Holm's first
        assert pairs.loc[metric, "mde"] == pytest.approx(want, rel=1e-9)
        assert pairs.loc[metric, "users_needed"] == stats.required_users(
            abs(diffs.mean()), diffs=diffs, n_tests=2)
    assert table.loc[table["against"].isna(), "mde"].isna().all()  # the systems' own rows
    shown = table.readable()
    assert shown["detectable"].tolist() == [f"{m:.4f}" for m in pairs["mde"]]
    assert not pairs["significant"].any()  # two random systems (seeded)
    text = rp.findings(runs, comparison=table, k=5)
    assert (f"with 300 users it could only detect differences of at least "
            f"{pairs.loc['precision', 'mde']:.3f} on P@5") in text
    assert (f"to detect the differences observed it would take about "
            f"{int(pairs.loc['precision', 'users_needed']):,} users on P@5") in text


@pytest.mark.parametrize("n", [30, 850, 1024, 5000, 100_000])
def test_required_users_inverts_the_mde(n) -> None:
    # at 99 tests the lower tail of the noncentral t is where scipy's series give NaN
    # (n = 1024 here): the power must still be computed there
    found = stats.mde(sd=0.1, n_users=n, n_tests=99)
    assert stats.required_users(found, sd=0.1, n_tests=99) == n
    assert np.isfinite(stats.power(found, sd=0.1, n_users=n, n_tests=99))


def _statsmodels() -> dict:
    import json
    from pathlib import Path

    path = Path(__file__).parent / "references" / "fixtures" / "power_statsmodels.json"
    return json.loads(path.read_text())


def test_power_mde_and_users_agree_with_statsmodels_on_small_samples() -> None:
    """Every t-method path against statsmodels' ``TTestPower`` (fixture and the script that
    made it: tests/references/power_statsmodels.py), on samples as small as 3 users, where a
    degree of freedom of n instead of n - 1 moves each number far beyond the tolerance."""
    ref = _statsmodels()
    for row in ref["power"]:
        got = stats.power(row["effect"], sd=1.0, n_users=row["n"], alpha=row["alpha"],
                          alternative=row["alternative"])
        assert got == pytest.approx(row["power"], rel=1e-7, abs=1e-10), row
    assert len(ref["mde"]) >= 30
    for row in ref["mde"]:
        got = stats.mde(sd=1.0, n_users=row["n"], alpha=row["alpha"], power=row["power"],
                        alternative=row["alternative"])
        assert got == pytest.approx(row["mde"], rel=1e-6), row
    for row in ref["users"]:  # the fewest whole users reaching the target
        got = stats.required_users(row["effect"], sd=1.0, alpha=row["alpha"],
                                   power=row["power"], alternative=row["alternative"])
        assert got == max(2, math.ceil(row["nobs"] - 1e-9)), row


def test_the_noncentral_tail_falls_back_where_scipy_gives_nan(monkeypatch) -> None:
    # Far in a tail scipy's series can give NaN (older releases do); the survival function
    # then comes from the distribution function, and where that fails too, from the side of
    # c the noncentrality lies on.
    import scipy.special
    import scipy.stats

    from evalkit import _power

    c, df = 2.0, 30.0
    nc = np.array([-40.0, 0.5, 3.0, 40.0])
    want = scipy.stats.nct.sf(c, df, nc)
    sf, cdf = scipy.stats.nct.sf, scipy.special.nctdtr
    far = np.abs(nc) > 10
    monkeypatch.setattr(scipy.stats.nct, "sf",
                        lambda c, df, nc: np.where(np.abs(nc) > 2, np.nan, sf(c, df, nc)))
    np.testing.assert_allclose(_power._upper(c, df, nc), want, rtol=1e-9, atol=1e-12)
    monkeypatch.setattr(scipy.special, "nctdtr",
                        lambda df, nc, c: np.where(np.abs(nc) > 10, np.nan, cdf(df, nc, c)))
    got = _power._upper(c, df, nc)
    np.testing.assert_allclose(got[~far], want[~far], rtol=1e-9)
    assert got[far].tolist() == [0.0, 1.0]


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_required_users_is_the_first_number_of_users_with_the_power(alternative) -> None:
    # against a scan of every number of users: the first n whose t-test power reaches the
    # target, for effects needing from 3 to about 2,500 users
    n = np.arange(2, 4000, dtype=np.float64)
    for effect in (2.0, 0.9, 0.31, 0.13, 0.057):
        power_at = t_power(effect * np.sqrt(n) / 1.0, n - 1, 0.05, alternative)
        want = int(n[np.argmax(power_at >= 0.8)])
        assert stats.required_users(effect, sd=1.0, alternative=alternative) == want, effect
        # and one user fewer falls short
        assert stats.power(effect, sd=1.0, n_users=want - 1, alternative=alternative) < 0.8 \
            or want == 2
    # the last effect needs `want` users: a limit below it refuses, the limit itself does not
    with pytest.raises(ValueError, match="more than max_users=1,000"):
        stats.required_users(0.057, sd=1.0, max_users=1000, alternative=alternative)
    assert stats.required_users(0.057, sd=1.0, max_users=want, alternative=alternative) == want


def test_power_curves_default_grid_and_the_smallest_numbers_of_users() -> None:
    diffs = np.random.default_rng(4).normal(0.0, 0.1, 50)
    for given, base in ((dict(diffs=diffs), 50), (dict(sd=0.1), 1000)):
        curve = stats.power_curve(**given)
        want = np.unique(np.round(np.geomspace(10, 100 * base, 12)).astype(int))
        np.testing.assert_array_equal(curve["n_users"], want)
    one = stats.power_curve(diffs, n_users=500)
    assert one["n_users"].tolist() == [500]
    assert one["mde"].iloc[0] == pytest.approx(stats.mde(diffs, n_users=500), rel=1e-12)
    # two users are enough to test (one is not)
    assert np.isfinite(stats.mde(sd=1.0, n_users=2))
    with pytest.raises(ValueError, match="'n_users' must be at least 2"):
        stats.mde(sd=1.0, n_users=1)
    with pytest.raises(ValueError, match="no number of users"):
        stats.required_users(0.0, sd=1.0)


def _exact_sign_flip_p(sample: list[int], alternative: str) -> float:
    """The add-one p-value of the sign-flip test over every sign vector, in integers."""
    import itertools

    observed = sum(sample)
    count = 0
    for signs in itertools.product((1, -1), repeat=len(sample)):
        flipped = sum(s * x for s, x in zip(signs, sample))
        count += (abs(flipped) >= abs(observed) if alternative == "two-sided" else
                  flipped >= observed if alternative == "greater" else flipped <= observed)
    return (1 + count) / (1 + 2 ** len(sample))


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_the_simulated_sign_flip_p_value_counts_ties_and_each_tail(alternative) -> None:
    # the simulation's randomization test, given every sign vector, against the count in
    # integers: tenths whose floating sums break ties by rounding, each tail, the add-one
    from evalkit._power import _sign_flip_p

    tenths = [[1, 2, 3, -3, 5, 1], [3, -1, -2, 4, 1, 1], [-2, -3, -1, 1, 3, 2]]
    signs = np.array(list(__import__("itertools").product((1.0, -1.0), repeat=6)))
    got = _sign_flip_p(np.array(tenths, dtype=np.float64) / 10, signs, alternative)
    want = [_exact_sign_flip_p(row, alternative) for row in tenths]
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_the_randomization_levels_reachable_and_not() -> None:
    # the smallest p-value of 999 flips is 1/1000: a level at it is refused, one above is not
    diffs = np.random.default_rng(1).normal(0.1, 1.0, 20)
    kw = dict(diffs=diffs, method="simulation", test="randomization", n_simulations=3)
    for level in (0.001, 0.000999):
        with pytest.raises(ek.InvalidParameterError, match="smallest p-value is 0.001"):
            stats.power(0.1, alpha=level, **kw)
    assert 0 <= stats.power(0.1, alpha=0.001001, **kw) <= 1


@pytest.mark.parametrize(("call", "message"), [
    (lambda: stats.mde(sd=0.0, n_users=10), "'sd' must be a positive finite number"),
    (lambda: stats.mde(sd=True, n_users=10), "'sd' must be a positive finite number"),
    (lambda: stats.mde(sd="0.1", n_users=10), "'sd' must be a positive finite number"),
    (lambda: stats.mde(sd=1, n_users=10, power=0.05), "'power' must exceed"),
    (lambda: stats.required_users(-0.1, sd=1, alternative="greater"), "no number of users"),
])
def test_more_bad_arguments_are_named(call, message) -> None:
    with pytest.raises(ek.InvalidParameterError, match=message):
        call()


def test_two_differences_are_enough() -> None:
    # the spread of two differences is their standard deviation (ddof 1), for two users
    assert stats.mde([0.1, 0.3]) == pytest.approx(
        stats.mde(sd=float(np.std([0.1, 0.3], ddof=1)), n_users=2), rel=1e-12)


def test_a_low_power_target_and_mixed_starts_in_one_call() -> None:
    # at power 0.1 one standard error already has the power (the search's first upper
    # bound); at 2 users it does not: both in one vectorized call, as compare makes it
    from evalkit._power import t_mde

    sd, n = np.array([1.0, 1.0, 0.5]), np.array([2, 400, 30])
    together = t_mde(sd, n, 0.05, 0.1)
    for j in range(3):
        alone = t_mde(sd[j:j + 1], n[j:j + 1], 0.05, 0.1)[0]
        assert together[j] == pytest.approx(alone, rel=1e-9)
        assert float(t_power(together[j] * math.sqrt(n[j]) / sd[j], n[j] - 1, 0.05,
                             "two-sided")) == pytest.approx(0.1, abs=1e-8)


def test_the_simulated_mde_is_the_bisection_of_its_own_rates() -> None:
    # the simulation's MDE is the smallest effect whose rate (the same samples: the same
    # seed) reaches the target, to 1e-4 standard errors; at a low target too, where the
    # first upper bound already has the power
    diffs = np.random.default_rng(2).exponential(0.1, 60) - 0.1
    se = float(np.std(diffs, ddof=1)) / math.sqrt(60)
    for target in (0.8, 0.1):
        kw = dict(diffs=diffs, method="simulation", n_simulations=200, rng=4)
        found = stats.mde(power=target, **kw)
        assert stats.power(found, **kw) >= target
        assert stats.power(found - 1.01e-4 * se, **kw) < target


def test_the_simulated_mde_under_less_mirrors_greater() -> None:
    # alternative="less" detects negative effects: the MDE of the differences is that of
    # their negatives under "greater" (the same samples, mirrored)
    diffs = np.random.default_rng(6).exponential(0.1, 40) - 0.1
    for test in ("t", "randomization"):
        kw = dict(method="simulation", test=test, n_simulations=100, rng=3)
        less = stats.mde(diffs, alternative="less", **kw)
        assert less == pytest.approx(stats.mde(-diffs, alternative="greater", **kw),
                                     rel=1e-9)


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_the_simulated_tests_take_their_alternative(alternative) -> None:
    # on normal differences the simulated t and Wilcoxon tests have about the t method's
    # power, one-sided as two-sided (Monte-Carlo error 0.011 at 2,000 samples; the
    # Wilcoxon test's efficiency is 0.955 of the t-test's)
    diffs = np.random.default_rng(9).normal(0.0, 1.0, 400)
    kw = dict(diffs=diffs, n_users=25, alternative=alternative)
    want = stats.power(0.45, **kw)
    for test, slack in (("t", 0.045), ("wilcoxon", 0.07)):
        got = stats.power(0.45, method="simulation", test=test, **kw)
        assert abs(got - want) < slack, (test, got, want)


def test_the_simulation_resamples_every_user() -> None:
    # differences of +1 and -1: every sample draws from both (a sample of one value has no
    # spread, and its t-test no p-value); at a huge effect every sample is detected
    kw = dict(diffs=[1.0, -1.0], n_users=20, method="simulation", n_simulations=300)
    assert abs(stats.power(0.5, **kw) - stats.power(0.5, sd=1.0, n_users=20)) < 0.1
    assert stats.power(1e6, **kw) == 1.0


def test_the_simulated_mde_takes_its_documented_number_of_samples() -> None:
    diffs = np.random.default_rng(10).normal(0.0, 1.0, 30)
    assert stats.mde(diffs, method="simulation") == \
        stats.mde(diffs, method="simulation", n_simulations=2000)


def test_a_p_value_at_the_level_is_not_a_rejection() -> None:
    # every sample of a constant difference has the randomization p-value 1/1000 (no
    # random sign vector of 20 users here is all one sign): at the level 1/1000 nothing is
    # rejected, as compare rejects only below the level
    from evalkit._power import _simulated

    rates = _simulated(np.ones(5), np.array([1.0]), 20, 0.001, "two-sided", "randomization",
                       10, 0)
    assert rates.tolist() == [0.0]
    assert _simulated(np.ones(5), np.array([1.0]), 20, 0.0011, "two-sided", "randomization",
                      10, 0).tolist() == [1.0]


def test_two_users_can_be_enough() -> None:
    # the search starts at two users: an effect far beyond the spread needs no more
    assert stats.required_users(100.0, sd=1.0) == 2
    assert stats.power(100.0, sd=1.0, n_users=2) >= 0.8


def test_the_simulated_mde_scales_with_the_differences() -> None:
    # differences ten times larger have a ten times larger MDE (the search's bracket and
    # tolerance scale with their standard error, which here exceeds 1)
    diffs = np.random.default_rng(12).normal(0.0, 1.0, 8)
    kw = dict(method="simulation", n_simulations=100, rng=0)
    assert stats.mde(10 * diffs, **kw) == pytest.approx(10 * stats.mde(diffs, **kw), rel=1e-3)
