"""Paired comparisons of per-user values as sums over users, for :func:`evalkit.compare`.

Everything a comparison table reports about a pair (mean difference, paired t-test, Wilcoxon
signed-rank test, randomization test, Cohen's d_z and the bootstrap intervals of both) is a
function of a few statistics of the per-user differences that add up over disjoint sets of
users: counts, sums, mean and sum of squared deviations (combined as Chan, Golub and LeVeque
1979), extremes, the counts of each distinct nonzero ``|d|`` by sign, the sign-flip sums and
the Poisson-bootstrap sums (both drawn from the user ids, :mod:`evalkit._resample`). A table
held in one piece gives :func:`paired_sums` once; a partitioned one (Spark) adds the
partitions' :class:`PairedSums` and gets the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.special

from ._resample import poisson_bootstrap_sums, quantile_interval, replicate_means, sign_flip_sums

__all__ = ["PairedSums", "paired_results", "paired_sums"]

_EXACT_WILCOXON = 50  # scipy's method="auto" is exact (or enumerates) up to this many values
_ENUMERATED_WILCOXON = 13  # with ties or zeros, scipy enumerates the 2**n sign flips up to this


@dataclass
class PairedSums:
    """Additive statistics of ``c`` columns of paired differences (see the module notes).

    ``ranks[j]`` holds column j's distinct nonzero ``|d|`` (sorted) with the counts of users
    whose difference is ``+|d|`` and ``-|d|``; ``signs`` is ``sum_u bit_ur d_uj`` (c, R);
    ``boot`` the Poisson sums of ``d`` and ``d^2`` and their weights, each (2c, B).
    """

    n: np.ndarray
    total: np.ndarray
    abs_total: np.ndarray
    mean: np.ndarray
    m2: np.ndarray
    low: np.ndarray
    high: np.ndarray
    ranks: list[tuple[np.ndarray, np.ndarray, np.ndarray]]
    signs: np.ndarray | None
    boot: tuple[np.ndarray, np.ndarray] | None

    def __add__(self, other: PairedSums) -> PairedSums:
        n = self.n + other.n
        delta = other.mean - self.mean
        share = np.divide(other.n, n, out=np.zeros(len(n)), where=n > 0)
        mean = np.where(other.n == 0, self.mean, np.where(self.n == 0, other.mean,
                                                           self.mean + delta * share))
        m2 = self.m2 + other.m2 + np.where((self.n > 0) & (other.n > 0),
                                           delta * delta * self.n * share, 0.0)
        return PairedSums(
            n=n, total=self.total + other.total, abs_total=self.abs_total + other.abs_total,
            mean=mean, m2=m2, low=np.fmin(self.low, other.low), high=np.fmax(self.high, other.high),
            ranks=[_merge_ranks(a, b) for a, b in zip(self.ranks, other.ranks)],
            signs=None if self.signs is None else self.signs + other.signs,
            boot=None if self.boot is None else (self.boot[0] + other.boot[0],
                                                 self.boot[1] + other.boot[1]))


def _merge_ranks(a: tuple, b: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    values, where = np.unique(np.concatenate([a[0], b[0]]), return_inverse=True)
    pos = np.bincount(where, weights=np.concatenate([a[1], b[1]]), minlength=len(values))
    neg = np.bincount(where, weights=np.concatenate([a[2], b[2]]), minlength=len(values))
    return values, pos.astype(np.int64), neg.astype(np.int64)


def _rank_counts(d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct nonzero ``|d|`` (sorted) and how many users have ``+|d|`` and ``-|d|``."""
    signed, counts = np.unique(d[d != 0], return_counts=True)  # one sort
    split = int(np.searchsorted(signed, 0.0))
    down, down_n = -signed[:split][::-1], counts[:split][::-1]  # |d| ascending
    up, up_n = signed[split:], counts[split:]
    values = np.union1d(down, up)  # both sorted: a merge of short arrays
    pos = np.zeros(len(values), np.int64)
    neg = np.zeros(len(values), np.int64)
    pos[np.searchsorted(values, up)] = up_n
    neg[np.searchsorted(values, down)] = down_n
    return values, pos, neg


def paired_sums(diffs: np.ndarray, streams: np.ndarray, *, sign_key: int, n_permutations: int,
                boot_key: int, n_resamples: int) -> PairedSums:
    """The :class:`PairedSums` of ``diffs`` (c, n): one row per comparison, one column per user
    (``streams``, as :func:`evalkit._resample.user_streams` names them), NaN where a user is
    not shared by the pair."""
    diffs = np.asarray(diffs, dtype=np.float64)
    c = diffs.shape[0]
    present = ~np.isnan(diffs)
    n = present.sum(axis=1).astype(np.int64)
    filled = np.where(present, diffs, 0.0)
    total = filled.sum(axis=1)
    mean = np.divide(total, n, out=np.zeros(c), where=n > 0)
    m2 = np.where(present, (diffs - mean[:, None]) ** 2, 0.0).sum(axis=1)
    low = np.where(n > 0, np.min(np.where(present, diffs, np.inf), axis=1), np.nan)
    high = np.where(n > 0, np.max(np.where(present, diffs, -np.inf), axis=1), np.nan)
    ranks = [_rank_counts(diffs[j, present[j]]) for j in range(c)]  # one step per comparison
    signs = sign_flip_sums(filled, sign_key, n_permutations, streams=streams)
    boot = None
    if n_resamples:
        # a comparison whose differences are all 0 here adds 0 to its sums: left out
        active = np.flatnonzero(np.any(filled != 0.0, axis=1))
        values = np.empty((filled.shape[1], 2 * len(active)))
        values[:, :len(active)] = filled[active].T
        np.square(values[:, :len(active)], out=values[:, len(active):])
        seen: dict[bytes, int] = {}
        which = np.array([seen.setdefault(np.packbits(row).tobytes(), len(seen))
                          for row in present], dtype=np.int64)  # one step per comparison
        first = {code: j for j, code in reversed(list(enumerate(which)))}
        mask = np.ascontiguousarray(present[[first[c] for c in range(len(seen))]].T,
                                    dtype=np.uint8)
        found, weights = poisson_bootstrap_sums(values, mask, boot_key, n_resamples,
                                                streams=streams)
        sums = np.zeros((2 * c, n_resamples))
        sums[np.concatenate([active, c + active])] = found
        boot = (sums, weights[np.concatenate([which, which])])
    return PairedSums(n=n, total=total, abs_total=np.abs(filled).sum(axis=1), mean=mean, m2=m2,
                      low=low, high=high, ranks=ranks, signs=signs, boot=boot)


def _wilcoxon_pvalue(values: np.ndarray, pos: np.ndarray, neg: np.ndarray, n: int) -> float:
    """scipy.stats.wilcoxon's two-sided p-value (zero_method="wilcox", no continuity
    correction, method="auto") of ``n`` differences given by their nonzero ``|d|`` counts."""
    ties = pos + neg
    if n <= _ENUMERATED_WILCOXON and (ties.sum() < n or (ties > 1).any()):
        return _enumerated_wilcoxon_pvalue(pos, ties)
    if n <= _EXACT_WILCOXON:  # small: the differences themselves, to scipy
        from scipy import stats  # imported on use: scipy.stats is slow to load

        d = np.concatenate([np.repeat(values, pos), -np.repeat(values, neg),
                            np.zeros(n - int(pos.sum() + neg.sum()))])
        return float(stats.wilcoxon(d, zero_method="wilcox").pvalue)
    count = float(ties.sum())
    before = np.cumsum(ties) - ties
    rank = before + (ties + 1) / 2.0  # average rank of each distinct |d|
    r_plus = float(np.sum(pos * rank))
    mn = count * (count + 1.0) * 0.25
    se = count * (count + 1.0) * (2.0 * count + 1.0)
    se = np.sqrt((se - float(np.sum(ties.astype(float) ** 3 - ties)) / 2) / 24)
    z = (r_plus - mn) / se
    return float(np.clip(2 * scipy.special.ndtr(-abs(z)), 0, 1))


def _enumerated_wilcoxon_pvalue(pos: np.ndarray, ties: np.ndarray) -> float:
    """The two-sided p-value scipy.stats.wilcoxon's method="auto" gives a sample of at most 13
    differences with tied or zero ``|d|``: its permutation test over all 2**n sign flips,
    ``2 min(P(R+ <= r+), P(R+ >= r+))`` (at most 1) for the sum ``R+`` of the ranks of the
    positive differences, computed from the distribution of ``R+`` rather than from the
    2**n flips (each distinct ``|d|`` in increasing order: ``pos`` positive of ``ties``
    nonzero; zeros flip to zeros and leave the distribution as it is)."""
    before = np.cumsum(ties) - ties
    doubled = 2 * before + ties + 1  # twice the average rank: integers
    ways = np.zeros(int(np.sum(ties * doubled)) + 1)
    ways[0] = 1.0
    for rank in np.repeat(doubled, ties):  # at most 13 nonzero differences
        ways[rank:] = ways[rank:] + ways[:-rank].copy()
    observed = int(np.sum(pos * doubled))
    p = 2.0 * min(ways[:observed + 1].sum(), ways[observed:].sum()) / ways.sum()
    return float(min(p, 1.0))


def paired_results(sums: PairedSums, *, n_permutations: int, confidence: float) -> dict:
    """Per comparison: ``n_shared``, ``tested`` (at least 2 shared users), ``diff``, ``sd``
    (of the paired differences; 0 when they are all equal),
    ``t_pvalue``, ``wilcoxon_pvalue``, ``effect_size``, ``permutation_pvalue`` and the
    intervals ``diff_ci_*`` and ``effect_size_ci_*`` (NaN where not tested or without
    resamples); the formulas are those of :func:`evalkit.compare_evaluations`' Notes."""
    c = len(sums.n)
    out = {name: np.full(c, np.nan) for name in (
        "diff", "t_pvalue", "wilcoxon_pvalue", "effect_size", "permutation_pvalue",
        "diff_ci_low", "diff_ci_high", "effect_size_ci_low", "effect_size_ci_high")}
    out["n_shared"] = sums.n.copy()
    tested = sums.n >= 2
    out["tested"] = tested
    n = sums.n.astype(np.float64)
    zero = tested & (sums.low == 0) & (sums.high == 0)
    constant = tested & (sums.low == sums.high) & ~zero
    varying = tested & (sums.low < sums.high)
    diff = np.divide(sums.total, n, out=np.full(c, np.nan), where=tested)
    out["diff"] = diff
    sd = np.sqrt(np.divide(sums.m2, n - 1, out=np.ones(c), where=varying))
    out["sd"] = np.where(varying, sd, np.where(tested, 0.0, np.nan))
    dz = np.divide(sums.mean, sd, out=np.full(c, np.nan), where=varying)
    t = dz * np.sqrt(n)
    out["t_pvalue"] = np.where(varying, 2 * scipy.special.stdtr(np.maximum(n - 1, 1), -np.abs(t)),
                               np.nan)
    out["effect_size"] = dz
    out["t_pvalue"][zero] = 1.0
    out["t_pvalue"][constant] = 0.0
    out["effect_size"][zero] = 0.0
    out["effect_size"][constant] = np.copysign(np.inf, sums.low[constant])
    for j in np.flatnonzero(tested):  # one step per comparison
        out["wilcoxon_pvalue"][j] = 1.0 if zero[j] else _wilcoxon_pvalue(*sums.ranks[j],
                                                                          int(sums.n[j]))
    if tested.any():
        # bit 1 keeps d_i, bit 0 flips it, so T* = sum(s_i d_i) = 2 sum(bit_i d_i) - sum(d)
        observed = np.abs(sums.total) - 1e-10 * sums.abs_total
        extreme = np.count_nonzero(
            np.abs(2.0 * sums.signs - sums.total[:, None]) >= observed[:, None], axis=1)
        out["permutation_pvalue"] = np.where(tested, (1 + extreme) / (1 + n_permutations),
                                             np.nan)
    if sums.boot is not None:
        fixed = zero | constant
        for name, value in (("diff_ci_low", sums.low), ("diff_ci_high", sums.low),
                            ("effect_size_ci_low", out["effect_size"]),
                            ("effect_size_ci_high", out["effect_size"])):
            out[name][fixed] = value[fixed]
        if varying.any():
            cols = np.flatnonzero(varying)
            s, w = sums.boot
            m1 = replicate_means(s[cols], w[cols])
            m2 = replicate_means(s[c + cols], w[c + cols])
            size = n[cols]
            variance = (m2 - m1 * m1) * size / (size - 1)
            spread = variance > 1e-12 * np.maximum(m2, np.finfo(float).tiny)
            ratio = np.full(m1.shape, np.nan)
            np.divide(m1, np.sqrt(np.where(spread, variance, 1.0)), out=ratio, where=spread)
            out["diff_ci_low"][cols], out["diff_ci_high"][cols] = quantile_interval(
                m1, confidence)
            out["effect_size_ci_low"][cols], out["effect_size_ci_high"][cols] = \
                quantile_interval(ratio, confidence)
    return out
