"""How large a difference a paired comparison can detect: power, minimum detectable effect
and the users needed, for the paired per-user differences of two systems (the public names
are in :mod:`evalkit.stats`).

The t method is exact for normal differences: the paired t-test's statistic follows a
noncentral t distribution with ``n - 1`` degrees of freedom and noncentrality
``effect * sqrt(n) / sd``. The simulation method makes no such assumption: it resamples the
observed per-user differences (centred, then shifted to the effect) and runs the test itself
(the t-test or the Wilcoxon signed-rank test), so that it holds for skewed metrics (reciprocal
rank, hit rate). ``n_tests`` divides ``alpha`` by the number of tests, which is the level the
first step of Holm's procedure uses: conservative for the others.

"Observed power" (the power at the difference the data showed) is not offered: it is a
function of the p-value alone, so it says nothing the p-value does not, and a non-significant
result always has low observed power. What a non-significant comparison can tell is the
smallest difference it could have detected (:func:`mde`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ._checks import (
    InvalidParameterError,
    as_vector,
    check_choice,
    check_fraction,
    check_positive_int,
    check_rng,
    describe,
)
from ._docstrings import fill_doc, fragments

__all__ = ["mde", "power", "power_curve", "required_users", "t_mde", "t_users"]

ALTERNATIVES = ("two-sided", "greater", "less")
METHODS = ("t", "simulation")
TESTS = ("t", "wilcoxon", "randomization")
#: Random sign flips of the simulated randomization test (its p-values are multiples of
#: 1 / 1,000: enough to decide at the usual levels, not at alpha / many tests).
_FLIPS = 999
_CHUNK = 256  # simulated samples per block (memory: block x users)

#: The docstring entries :func:`power`, :func:`mde`, :func:`required_users` and
#: :func:`power_curve` share (:func:`evalkit._docstrings.fill_doc`).
_DOCS = fragments(
    diffs="""
    diffs : array-like, optional
        The paired per-user differences of a comparison (NaN dropped): their standard
        deviation, their number (unless ``n_users`` is given) and, for the simulation
        method, their shape.
    """,
    sd="""
    sd : float, optional
        Instead of ``diffs``: the standard deviation of the per-user differences.
    """,
    n_users="""
    n_users : int, optional
        The number of users (default: the number of ``diffs``).
    """,
    alpha="""
    alpha : float, default 0.05
        The test's level, divided by ``n_tests``.
    """,
    power="""
    power : float, default 0.8
        The probability of detection to reach.
    """,
    alternative="""
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        The alternative hypothesis: a true mean difference other than 0, above 0, or below
        0.
    """,
    n_tests="""
    n_tests : int, default 1
        The number of tests corrected for (Holm's first step: ``alpha / n_tests``; the
        power of the later steps is higher, so this is conservative).
    """,
    simulation="""
    method : {"t", "simulation"}, default "t"
        ``"t"``: exact for normal differences (noncentral t). ``"simulation"``: resample
        ``diffs`` (centred, then shifted to the effect) and run ``test`` on each sample.
    test : {"t", "wilcoxon", "randomization"}, default "t"
        The test the simulation runs (the randomization test with 999 random sign flips,
        so its p-values cannot go below 0.001).
    n_simulations : int, default 2000
        Samples of the simulation method (its Monte-Carlo error is about
        ``sqrt(p (1 - p) / n_simulations)``, 0.009 at p = 0.8).
    rng : int, Generator or None, default 0
        Seed of the simulation.
    """,
)


def _spread(diffs: object, sd: object, n_users: object, *, func: str,
            need_n: bool = True) -> tuple[np.ndarray | None, float, int | None]:
    """``(differences or None, sd, n)`` from the per-user differences or from ``sd`` and
    ``n_users``."""
    if diffs is not None:
        if sd is not None:
            raise InvalidParameterError(f"{func}: give 'diffs' or 'sd', not both.")
        values = as_vector(diffs, func=func, arg="diffs", allow_nan=True)
        values = values[~np.isnan(values)]
        if values.size < 2:
            raise InvalidParameterError(
                f"{func}: 'diffs' needs at least two users with a difference; got "
                f"{values.size}.")
        spread = float(np.std(values, ddof=1))
        if values.min() == values.max():
            raise InvalidParameterError(
                f"{func}: the differences in 'diffs' are all equal (standard deviation 0): "
                "there is no noise to detect a difference against.")
        n = values.size if n_users is None else _users(n_users, func=func)
        return values, spread, n
    if sd is None:
        raise InvalidParameterError(
            f"{func}: give the paired per-user differences ('diffs') or their standard "
            "deviation ('sd').")
    if isinstance(sd, bool) or not isinstance(sd, (int, float, np.integer, np.floating)) \
            or not math.isfinite(float(sd)) or not float(sd) > 0:
        raise InvalidParameterError(
            f"{func}: 'sd' must be a positive finite number; got {describe(sd)}.")
    if n_users is None:
        if need_n:
            raise InvalidParameterError(f"{func}: with 'sd', give 'n_users' too.")
        return None, float(sd), None
    return None, float(sd), _users(n_users, func=func)


def _users(n_users: object, *, func: str) -> int:
    n = check_positive_int(n_users, func=func, arg="n_users")
    if n < 2:
        raise InvalidParameterError(f"{func}: 'n_users' must be at least 2; got {n}.")
    return n


def _level(alpha: object, n_tests: object, *, func: str) -> float:
    alpha = check_fraction(alpha, func=func, arg="alpha")
    return alpha / check_positive_int(n_tests, func=func, arg="n_tests")


def _upper(c: np.ndarray | float, df: np.ndarray | float, nc: np.ndarray) -> np.ndarray:
    """``P(T > c)`` for T noncentral t: scipy's survival function, its complement of the
    distribution function where that fails, and where both fail (far in a tail, where
    scipy's series give NaN) 1 or 0 by which side of ``c`` the noncentrality lies."""
    from scipy import special
    from scipy import stats as sps

    p = np.asarray(sps.nct.sf(c, df, nc), dtype=np.float64)
    bad = np.isnan(p)
    if bad.any():
        p = np.where(bad, 1.0 - special.nctdtr(df, nc, c), p)
        bad = np.isnan(p)
        if bad.any():
            p = np.where(bad, np.where(nc > c, 1.0, 0.0), p)
    return p


def _detection(power: object, alternative: object, alpha: object, n_tests: object, *,
               func: str) -> tuple[float, str, float]:
    """The checked target power, alternative and per-test level of an MDE, refusing a power
    that does not exceed the level (any effect, even none, is detected that often)."""
    target = check_fraction(power, func=func, arg="power")
    alternative = check_choice(alternative, func=func, arg="alternative", choices=ALTERNATIVES)
    level = _level(alpha, n_tests, func=func)
    if not target > level:
        raise InvalidParameterError(
            f"{func}: 'power' must exceed the test's level ({level:g}); got {target:g}.")
    return target, alternative, level

def t_power(noncentrality: np.ndarray | float, df: np.ndarray | float, alpha: float,
            alternative: str) -> np.ndarray:
    """Power of a t-test at level ``alpha`` whose statistic is noncentral t with ``df``
    degrees of freedom and this noncentrality (both tails of the two-sided test)."""
    from scipy import stats as sps  # on use: scipy.stats is slow to load

    nc = np.asarray(noncentrality, dtype=np.float64)
    if alternative == "two-sided":
        c = sps.t.ppf(1 - alpha / 2, df)
        return _upper(c, df, nc) + _upper(c, df, -nc)  # P(T > c) + P(T < -c)
    c = sps.t.ppf(1 - alpha, df)
    return _upper(c, df, nc if alternative == "greater" else -nc)


def t_mde(sd: np.ndarray, n: np.ndarray, level: float, target: float,
          alternative: str = "two-sided") -> np.ndarray:
    """The t method's minimum detectable effect (a magnitude) for each ``sd`` and ``n``, all
    solved together by bisection (to 1e-10 of each ``sd``)."""
    sd, n = np.asarray(sd, dtype=np.float64), np.asarray(n, dtype=np.float64)
    sign = -1.0 if alternative == "less" else 1.0

    def rate(e: np.ndarray) -> np.ndarray:
        return t_power(sign * e * np.sqrt(n) / sd, n - 1, level, alternative)

    low, high = np.zeros_like(sd), sd / np.sqrt(n)
    short = rate(high) < target
    while short.any():  # double until every upper bound is detected
        low, high = np.where(short, high, low), np.where(short, 2 * high, high)
        short = rate(high) < target
    # each bisection stops at its own tolerance: a value does not depend on the others
    # solved beside it (a frame's MDEs are those of single calls)
    open_ = high - low > 1e-10 * sd
    while open_.any():
        middle = (low + high) / 2
        enough = rate(middle) >= target
        high = np.where(open_ & enough, middle, high)
        low = np.where(open_ & ~enough, middle, low)
        open_ = high - low > 1e-10 * sd
    return high


def t_users(effect: np.ndarray, sd: np.ndarray, level: float, target: float,
            alternative: str, limit: int) -> np.ndarray:
    """The fewest users (at least 2) with which the t-test detects each ``effect``; -1 where
    more than ``limit`` would be needed."""
    effect, sd = np.asarray(effect, dtype=np.float64), np.asarray(sd, dtype=np.float64)

    def enough(n: np.ndarray) -> np.ndarray:
        return t_power(effect * np.sqrt(n) / sd, n - 1, level, alternative) >= target

    low = np.full(effect.shape, 2.0)
    high = low.copy()
    short = ~enough(high)
    while short.any():
        low, high = np.where(short, high, low), np.where(short, 2 * high, high)
        short = ~enough(high) & (high <= limit)
    beyond = ~enough(np.minimum(high, limit))
    high = np.minimum(high, limit)
    found = enough(low)
    while np.any(high - low > 1):
        middle = np.floor((low + high) / 2)
        ok = enough(middle)
        high, low = np.where(ok, middle, high), np.where(ok, low, middle)
    out = np.where(found, low, high).astype(np.int64)
    out[beyond] = -1
    return out


def _simulated(values: np.ndarray, effects: np.ndarray, n: int, alpha: float,
               alternative: str, test: str, n_simulations: int, seed: object) -> np.ndarray:
    """Rejection rates of ``test`` at each effect, over ``n_simulations`` samples of ``n``
    users drawn with replacement from the centred differences; every effect uses the same
    samples (so the rates grow with the effect)."""
    from scipy import stats as sps

    generator = np.random.default_rng(seed)
    centred = values - values.mean()
    rejected = np.zeros(effects.size)
    # the randomization test's sign flips: one set for every sample and effect
    signs = (2.0 * generator.integers(0, 2, size=(_FLIPS, n)) - 1.0) if \
        test == "randomization" else None
    for start in range(0, n_simulations, _CHUNK):  # blocks of samples, not users
        rows = min(_CHUNK, n_simulations - start)
        sample = centred[generator.integers(0, centred.size, size=(rows, n))]
        for j, effect in enumerate(effects):
            shifted = sample + effect
            if test == "t":
                p = sps.ttest_1samp(shifted, 0.0, axis=1, alternative=alternative).pvalue
            elif test == "wilcoxon":
                p = sps.wilcoxon(shifted, axis=1, alternative=alternative).pvalue
            else:
                p = _sign_flip_p(shifted, signs, alternative)
            rejected[j] += np.count_nonzero(p < alpha)
    return rejected / n_simulations


def _sign_flip_p(samples: np.ndarray, signs: np.ndarray, alternative: str) -> np.ndarray:
    """The sign-flip randomization test's p-value of each row of ``samples`` (the sum of
    the differences against its sums under random signs), as :func:`evalkit.compare`'s."""
    observed = samples.sum(axis=1)
    flipped = samples @ signs.T  # (rows, flips)
    if alternative == "two-sided":
        extreme = np.abs(flipped) >= np.abs(observed)[:, None] - 1e-12
    elif alternative == "greater":
        extreme = flipped >= observed[:, None] - 1e-12
    else:
        extreme = flipped <= observed[:, None] + 1e-12
    return (1.0 + np.count_nonzero(extreme, axis=1)) / (1.0 + signs.shape[0])


@fill_doc(_DOCS)
def power(effect: float, *, diffs: object = None, sd: float | None = None,
          n_users: int | None = None, alpha: float = 0.05, alternative: str = "two-sided",
          n_tests: int = 1, method: str = "t", test: str = "t", n_simulations: int = 2000,
          rng: int | np.random.Generator | None = 0) -> float:
    """The probability that a paired test of ``n_users`` users detects a true mean
    difference of ``effect``.

    Parameters
    ----------
    effect : float
        The true mean per-user difference (system minus the other; negative ones are
        detectable under ``alternative="less"``).
    %(diffs)s
    %(sd)s
    %(n_users)s
    %(alpha)s
    %(alternative)s
    %(n_tests)s
    %(simulation)s

    Returns
    -------
    float
        The probability that the test detects ``effect``.

    Examples
    --------
    >>> round(power(0.5, sd=1.0, n_users=34), 3)
    0.808
    """
    func = "power"
    check_rng(rng, func=func)  # refused even where method="t" draws nothing
    method = check_choice(method, func=func, arg="method", choices=METHODS)
    alternative = check_choice(alternative, func=func, arg="alternative", choices=ALTERNATIVES)
    level = _level(alpha, n_tests, func=func)
    effect = _effect(effect, func=func)
    values, spread, n = _spread(diffs, sd, n_users, func=func)
    if method == "t":
        return float(t_power(effect * math.sqrt(n) / spread, n - 1, level, alternative))
    values = _need_diffs(values, func=func)
    test = check_choice(test, func=func, arg="test", choices=TESTS)
    n_simulations = check_positive_int(n_simulations, func=func, arg="n_simulations")
    _reachable(test, level, func=func)
    return float(_simulated(values, np.array([effect]), n, level, alternative, test,
                            n_simulations, rng)[0])


def _effect(effect: object, *, func: str) -> float:
    if isinstance(effect, bool) or not isinstance(effect, (int, float, np.integer, np.floating)) \
            or not math.isfinite(float(effect)):
        raise InvalidParameterError(f"{func}: 'effect' must be a finite number; got "
                                    f"{describe(effect)}.")
    return float(effect)


def _reachable(test: str, level: float, *, func: str) -> None:
    """Refuse a level the simulated randomization test cannot reach (its smallest p-value
    is one over the flips plus one)."""
    if test == "randomization" and level <= 1.0 / (_FLIPS + 1):
        raise InvalidParameterError(
            f"{func}: the simulated randomization test's smallest p-value is "
            f"{1.0 / (_FLIPS + 1):g}, not below the level {level:g} (alpha / n_tests); use "
            "test='t' or 'wilcoxon'.")


def _need_diffs(values: np.ndarray | None, *, func: str) -> np.ndarray:
    if values is None:
        raise InvalidParameterError(
            f"{func}: method='simulation' resamples the per-user differences: give 'diffs'.")
    return values


@fill_doc(_DOCS)
def mde(diffs: object = None, *, sd: float | None = None, n_users: int | None = None,
        alpha: float = 0.05, power: float = 0.8, alternative: str = "two-sided",
        n_tests: int = 1, method: str = "t", test: str = "t", n_simulations: int = 2000,
        rng: int | np.random.Generator | None = 0) -> float:
    """The minimum detectable effect: the smallest true mean difference that a paired test
    of ``n_users`` users detects with probability ``power``.

    The result is a magnitude: the detectable difference in the tested direction (below 0
    under ``alternative="less"``, where this returns its size).

    Parameters
    ----------
    %(diffs)s
    %(sd)s
    %(n_users)s
    %(alpha)s
    %(power)s
    %(alternative)s
    %(n_tests)s
    %(simulation)s

    Returns
    -------
    float
        The smallest ``effect`` with ``power(effect, ...) >= power`` (solved to 1e-10 for the
        t method; on the simulation's grid of common samples, by bisection, otherwise).

    Notes
    -----
    Use it to read a non-significant comparison: the data could only have detected a
    difference of at least this size. There is no "observed power" (the power at the
    difference the data showed): it is a function of the p-value alone, so it adds nothing
    to it, and a non-significant result always has low observed power.

    Examples
    --------
    With 610 users whose NDCG@10 differences have a standard deviation of 0.12:

    >>> round(mde(sd=0.12, n_users=610), 4)
    0.0136
    """
    func = "mde"
    check_rng(rng, func=func)  # refused even where method="t" draws nothing
    method = check_choice(method, func=func, arg="method", choices=METHODS)
    target, alternative, level = _detection(power, alternative, alpha, n_tests, func=func)
    values, spread, n = _spread(diffs, sd, n_users, func=func)
    sign = -1.0 if alternative == "less" else 1.0
    if method == "t":
        return float(t_mde(np.array([spread]), np.array([n]), level, target, alternative)[0])
    else:
        values = _need_diffs(values, func=func)
        test = check_choice(test, func=func, arg="test", choices=TESTS)
        n_simulations = check_positive_int(n_simulations, func=func, arg="n_simulations")
        _reachable(test, level, func=func)

        def rate(e: float) -> float:  # the same samples at every effect: monotone
            return float(_simulated(values, np.array([sign * e]), n, level, alternative, test,
                                    n_simulations, rng)[0])
    low, high = 0.0, spread / math.sqrt(n)
    for _ in range(64):
        if rate(high) >= target:
            break
        low, high = high, 2 * high
    else:
        raise InvalidParameterError(
            f"{func}: the simulated {test} test does not reach power {target:g} at any "
            f"effect up to {high:g}; use more users or method='t'.")
    tolerance = 1e-4 * spread / math.sqrt(n)
    while high - low > tolerance:  # bisection: the power grows with the effect
        middle = (low + high) / 2
        if rate(middle) >= target:
            high = middle
        else:
            low = middle
    return high


@fill_doc(_DOCS)
def required_users(effect: float, *, diffs: object = None, sd: float | None = None,
                   alpha: float = 0.05, power: float = 0.8, alternative: str = "two-sided",
                   n_tests: int = 1, max_users: int = 10**9) -> int:
    """The fewest users with which a paired t-test detects ``effect`` with probability
    ``power`` (the t method; ``diffs`` or ``sd`` give the spread of the differences).

    Parameters
    ----------
    effect : float
        The true mean per-user difference to detect (system minus the other).
    diffs : array-like, optional
        The paired per-user differences of a comparison (NaN dropped): their standard
        deviation.
    %(sd)s
    %(alpha)s
    %(power)s
    %(alternative)s
    %(n_tests)s
    max_users : int, default 1000000000
        The most users considered; needing more raises.

    Examples
    --------
    R's ``power.t.test(delta = 0.5, sd = 1, power = 0.8, type = "one.sample")`` gives
    n = 33.37:

    >>> required_users(0.5, sd=1.0)
    34
    """
    func = "required_users"
    target = check_fraction(power, func=func, arg="power")
    alternative = check_choice(alternative, func=func, arg="alternative", choices=ALTERNATIVES)
    level = _level(alpha, n_tests, func=func)
    effect = _effect(effect, func=func)
    _, spread, _ = _spread(diffs, sd, None, func=func, need_n=False)
    limit = check_positive_int(max_users, func=func, arg="max_users")
    if effect == 0 or (alternative == "greater" and effect < 0) or (
            alternative == "less" and effect > 0):
        raise InvalidParameterError(
            f"{func}: no number of users detects an effect of {effect:g} with "
            f"alternative={alternative!r}.")

    found = int(t_users(np.array([effect]), np.array([spread]), level, target, alternative,
                        limit)[0])
    if found < 0:
        raise InvalidParameterError(
            f"{func}: more than max_users={limit:,} users would be needed.")
    return found


@fill_doc(_DOCS)
def power_curve(diffs: object = None, *, sd: float | None = None,
                n_users: object = None, alpha: float = 0.05, power: float = 0.8,
                alternative: str = "two-sided", n_tests: int = 1) -> pd.DataFrame:
    """The minimum detectable effect (t method) at each number of users: a frame with
    ``n_users`` and ``mde``, for a chart of users against detectable difference.

    Parameters
    ----------
    diffs : array-like, optional
        The paired per-user differences of a comparison (NaN dropped): their standard
        deviation, and their number for the default ``n_users``.
    %(sd)s
    n_users : int or sequence of int, optional
        The numbers of users; default: 12 values from 10 to 100 times the number of ``diffs``
        (or of 1,000), evenly spaced on a log scale.
    %(alpha)s
    %(power)s
    %(alternative)s
    %(n_tests)s
    """
    func = "power_curve"
    values, spread, n0 = _spread(diffs, sd, None, func=func, need_n=False)
    if n_users is None:
        base = n0 or 1000
        n_users = np.unique(np.geomspace(10, 100 * base, 12).round().astype(int))
    elif isinstance(n_users, (int, np.integer)):
        n_users = [n_users]
    counts = [_users(n, func=func) for n in n_users]
    target, alternative, level = _detection(power, alternative, alpha, n_tests, func=func)
    found = t_mde(np.full(len(counts), spread), np.array(counts, dtype=np.float64), level,
                  target, alternative)  # all together: each as mde alone solves it
    return pd.DataFrame({"n_users": counts, "mde": found})
