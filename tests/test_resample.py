"""The compiled resampling design (evalkit._resample) against a NumPy statement of it.

The reference below recomputes every bootstrap weight and every random sign from the formulas
in the docstrings (splitmix64 of a Weyl sequence, Poisson(1) by inversion of a 32-bit uniform,
one bit per user), with NumPy's wrapping uint64 arithmetic and scipy's Poisson law, so the
kernels, the documented formulas and the statistics built on them are held to each other.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.stats

import evalkit._resample as resample
from evalkit._resample import design_key
from evalkit.stats import _sign_flip_pvalues, bootstrap_ci, bootstrap_ci_frame

GAMMA = np.uint64(0x9E3779B97F4A7C15)


def mix(z: np.ndarray) -> np.ndarray:
    """The splitmix64 finalizer, on uint64 arrays (wrapping arithmetic)."""
    z = z.astype(np.uint64)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def stream(key: int, index: np.ndarray) -> np.ndarray:
    return mix(np.uint64(key) + (index.astype(np.uint64) + np.uint64(1)) * GAMMA)


def reference_weights(key: int, n: int, n_resamples: int) -> np.ndarray:
    """(n, B) Poisson(1) weights: replicates 256q + i and 256q + 128 + i (i < 128) are the low
    and high 32 bits of mix(stream(u) + (128q + i + 1) g), inverted through the Poisson CDF."""
    b = np.arange(n_resamples)
    q, s = b // 256, b % 256
    counter = (128 * q + s % 128 + 1).astype(np.uint64)
    with np.errstate(over="ignore"):
        h = mix(stream(key, np.arange(n))[:, None] + counter[None, :] * GAMMA)
    v = np.where(s >= 128, h >> np.uint64(32), h & np.uint64(0xFFFFFFFF))
    cdf = scipy.stats.poisson.cdf(np.arange(40), 1.0)
    thresholds = np.round(cdf[cdf < 1 - 2.0**-33] * 2.0**32).astype(np.uint64)
    return np.searchsorted(thresholds, v, side="right").astype(np.float64)


def reference_bits(key: int, n: int, n_rounds: int, streams: np.ndarray | None = None
                   ) -> np.ndarray:
    """(R, n) coins: bit r mod 64 of mix(stream(s_u) + (floor(r / 64) + 1) g), s_u the user's
    stream (default: its position)."""
    streams = np.arange(n, dtype=np.uint64) if streams is None else streams
    rounds = np.arange(n_rounds, dtype=np.uint64)
    with np.errstate(over="ignore"):
        words = mix(stream(key, streams)[None, :]
                    + (rounds[:, None] // np.uint64(64) + np.uint64(1)) * GAMMA)
    return ((words >> (rounds % np.uint64(64))[:, None]) & np.uint64(1)).astype(np.float64)


def reference_interval(frame: pd.DataFrame, seed: int, n_resamples: int,
                       confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    key = design_key(seed)
    w = reference_weights(key, len(frame), n_resamples)
    low, high = [], []
    alpha = 1 - confidence
    for name in frame.columns:
        x = frame[name].to_numpy(float)
        present = ~np.isnan(x)
        means = (w[present] * x[present, None]).sum(0) / w[present].sum(0)
        lo, hi = np.quantile(means, [alpha / 2, 1 - alpha / 2])
        low.append(lo)
        high.append(hi)
    return np.array(low), np.array(high)


# ----------------------------------------------------------------------------------------------
# The design, value by value
# ----------------------------------------------------------------------------------------------


def test_thresholds_are_the_poisson_cdf_to_32_bits() -> None:
    cdf = scipy.stats.poisson.cdf(np.arange(len(resample.POISSON_THRESHOLDS)), 1.0)
    np.testing.assert_array_equal(resample.POISSON_THRESHOLDS, np.round(cdf * 2.0**32))
    # the weights stop at len(T): the mass the law puts above that is below 2^-33
    assert 1 - scipy.stats.poisson.cdf(len(resample.POISSON_THRESHOLDS), 1.0) < 2.0**-33


@pytest.mark.parametrize("n_resamples", [1, 255, 256, 700])
def test_bootstrap_weights_follow_the_documented_hash(n_resamples: int) -> None:
    n, key = 37, 0x1234_5678_9ABC_DEF0
    # an identity matrix of values returns every single weight: sums[j, b] = w_jb
    sums, weights = resample.poisson_bootstrap_sums(
        np.eye(n), np.ones((n, 1), np.uint8), key, n_resamples)
    expected = reference_weights(key, n, n_resamples)
    np.testing.assert_array_equal(sums, expected)
    np.testing.assert_array_equal(weights[0], expected.sum(0))


def test_bootstrap_weights_are_poisson_one_and_independent() -> None:
    n, n_resamples = 64, 4000
    w = reference_weights(design_key(3), n, n_resamples)
    sums, _ = resample.poisson_bootstrap_sums(np.eye(n), np.ones((n, 1), np.uint8),
                                              design_key(3), n_resamples)
    np.testing.assert_array_equal(sums, w)
    counts = np.bincount(w.astype(np.int64).ravel(), minlength=7)[:7]
    expected = scipy.stats.poisson.pmf(np.arange(7), 1.0) * w.size
    expected[-1] += (1 - scipy.stats.poisson.cdf(6, 1.0)) * w.size
    counts[-1] += int((w > 6).sum())
    assert scipy.stats.chisquare(counts, expected).pvalue > 1e-3
    # users and replicates uncorrelated: the correlation matrix of users is near identity
    corr = np.corrcoef(w)
    off = corr[~np.eye(n, dtype=bool)]
    assert np.abs(off).max() < 5 / np.sqrt(n_resamples)


def test_bootstrap_weights_do_not_depend_on_chunks_threads_or_other_users() -> None:
    gen = np.random.default_rng(0)
    n, m = 5_003, 4
    values = gen.normal(size=(n, m))
    values[gen.random((n, m)) < 0.3] = 0.0
    present = (gen.random((n, 2)) < 0.9).astype(np.uint8)
    present[:, 0] = 1
    key = 99
    first = resample.poisson_bootstrap_sums(values, present, key, 300, threads=1)
    again = resample.poisson_bootstrap_sums(values, present, key, 300, threads=2)
    np.testing.assert_array_equal(first[0], again[0])  # thread count: bit for bit
    np.testing.assert_array_equal(first[1], again[1])
    for chunk in (2, 1_000, 4_096):
        other = resample.poisson_bootstrap_sums(values, present, key, 300, chunk=chunk,
                                                threads=2)
        np.testing.assert_allclose(other[0], first[0], rtol=1e-12, atol=1e-9)
        np.testing.assert_array_equal(other[1], first[1])  # integer sums: exact
    # a user's weights are the same in a smaller table
    small = resample.poisson_bootstrap_sums(np.eye(10), np.ones((10, 1), np.uint8), key, 300)[0]
    large = resample.poisson_bootstrap_sums(np.eye(20), np.ones((20, 1), np.uint8), key, 300)[0]
    np.testing.assert_array_equal(small, large[:10])


def test_sign_flip_sums_follow_the_documented_hash_and_do_not_depend_on_chunks() -> None:
    gen = np.random.default_rng(1)
    n, c, rounds = 203, 3, 333
    diffs = gen.normal(size=(c, n))
    diffs[1, ::3] = 0.0
    diffs[2, 8:40] = 0.0  # whole groups of 8 without a difference
    key = design_key(4)
    bits = reference_bits(key, n, rounds)
    got = resample.sign_flip_sums(diffs, key, rounds)
    np.testing.assert_allclose(got, (bits @ diffs.T).T, rtol=1e-12, atol=1e-12)
    for chunk, threads in ((64, 2), (128, 1), (1_024, 2)):
        np.testing.assert_allclose(
            resample.sign_flip_sums(diffs, key, rounds, chunk=chunk, threads=threads), got,
            rtol=0, atol=1e-12)
    np.testing.assert_array_equal(resample.sign_flip_sums(diffs, key, rounds, threads=1), got)
    # users named by their ids: a user's coins follow it, and disjoint sets add up
    ids = gen.permutation(10**6)[:n].astype(np.int64)
    streams = resample.user_streams(ids)
    np.testing.assert_allclose(resample.sign_flip_sums(diffs, key, rounds, streams=streams),
                               (reference_bits(key, n, rounds, streams) @ diffs.T).T,
                               rtol=1e-12, atol=1e-12)
    order = gen.permutation(n)
    first, rest = order[:70], order[70:]
    parts = sum(resample.sign_flip_sums(diffs[:, part], key, rounds, streams=streams[part])
                for part in (first, rest))
    np.testing.assert_allclose(parts, resample.sign_flip_sums(diffs, key, rounds,
                                                              streams=streams),
                               rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="sign_flip_sums: 'chunk' must be a multiple of 64"):
        resample.sign_flip_sums(diffs, key, rounds, chunk=10)
    # the coins are fair and independent across users and rounds
    flips = reference_bits(key, 640, 2000)
    assert abs(flips.mean() - 0.5) < 4 * np.sqrt(0.25 / flips.size)
    corr = np.corrcoef(flips.T[:64])
    assert np.abs(corr[~np.eye(64, dtype=bool)]).max() < 5 / np.sqrt(2000)


# ----------------------------------------------------------------------------------------------
# The statistics, against the reference weights and signs
# ----------------------------------------------------------------------------------------------


def test_bootstrap_ci_frame_is_the_reference_poisson_bootstrap_with_nan_columns() -> None:
    gen = np.random.default_rng(5)
    n = 300
    frame = pd.DataFrame({
        "full": gen.uniform(size=n),
        "holes": np.where(gen.random(n) < 0.3, np.nan, gen.exponential(size=n)),
        "other_holes": np.where(gen.random(n) < 0.5, np.nan, gen.normal(size=n)),
    })
    summary = bootstrap_ci_frame(frame, n_resamples=600, rng=11)
    low, high = reference_interval(frame, 11, 600)
    np.testing.assert_allclose(summary["ci_low"], low, rtol=1e-12)
    np.testing.assert_allclose(summary["ci_high"], high, rtol=1e-12)
    # a column's mean is over its own non-NaN users only
    np.testing.assert_allclose(summary["mean"], frame.mean())
    low, high = bootstrap_ci(frame["full"], n_resamples=600, rng=11)
    assert (low, high) == (summary.loc["full", "ci_low"], summary.loc["full", "ci_high"])


def test_bootstrap_ci_frame_does_not_depend_on_the_thread_count(monkeypatch) -> None:
    gen = np.random.default_rng(6)
    frame = pd.DataFrame(gen.uniform(size=(40_000, 3)), columns=["a", "b", "c"])
    frame.iloc[::7, 1] = np.nan
    results = []
    for threads in (1, 2, 4):
        monkeypatch.setattr(resample, "_threads", lambda threads=threads: threads)
        results.append(bootstrap_ci_frame(frame, n_resamples=200, rng=2))
    pd.testing.assert_frame_equal(results[0], results[1])
    pd.testing.assert_frame_equal(results[0], results[2])


def test_sign_flip_pvalues_are_the_reference_randomization_test() -> None:
    gen = np.random.default_rng(7)
    n, rounds = 150, 3000
    diffs = np.round(gen.normal(0.1, 1.0, size=(3, n)), 2)
    diffs[2, 100:] = 0.0  # a comparison on fewer users
    key = design_key(8)
    signs = 2 * reference_bits(key, n, rounds) - 1
    null = signs @ diffs.T  # (R, 3)
    observed = np.abs(diffs.sum(1)) - 1e-10 * np.abs(diffs).sum(1)
    expected = (1 + (np.abs(null) >= observed).sum(0)) / (1 + rounds)
    np.testing.assert_array_equal(_sign_flip_pvalues(diffs, rounds, key), expected)


# ----------------------------------------------------------------------------------------------
# Users named by their ids: no dependence on row order, subsets or partitions
# ----------------------------------------------------------------------------------------------


def test_user_streams_are_the_documented_values() -> None:
    # integers are themselves (two's complement), integral floats too
    np.testing.assert_array_equal(resample.user_streams(pd.Index([0, 7, -1])),
                                  np.array([0, 7, 2**64 - 1], dtype=np.uint64))
    np.testing.assert_array_equal(resample.user_streams(np.array([7, 3], dtype=np.int32)),
                                  [7, 3])
    np.testing.assert_array_equal(resample.user_streams([7.0, -0.0]), [7, 0])
    np.testing.assert_array_equal(resample.user_streams(np.array([2**63 + 5], np.uint64)),
                                  [2**63 + 5])
    # strings: FNV-1a 64 of the UTF-8 bytes (the published test vectors)
    vectors = {"": 0xCBF29CE484222325, "a": 0xAF63DC4C8601EC8C, "foobar": 0x85944171F73967E8}
    got = resample.user_streams(np.array(list(vectors), dtype=object))
    np.testing.assert_array_equal(got, np.array(list(vectors.values()), dtype=np.uint64))
    # every spelling of the same strings gives the same streams
    for same in (pd.Index(list(vectors)), pd.Index(list(vectors), dtype="string"),
                 pd.Series(list(vectors), dtype="category"), np.array(list(vectors))):
        np.testing.assert_array_equal(resample.user_streams(same), got)
    # non-ASCII: the UTF-8 bytes
    word = "Zoë"
    h = 0xCBF29CE484222325
    for byte in word.encode("utf-8"):
        h = ((h ^ byte) * 0x100000001B3) % 2**64
    assert int(resample.user_streams([word])[0]) == h
    # a mixed object column: each label by its kind
    mixed = resample.user_streams(np.array([5, "a", 2.5, b"a"], dtype=object))
    assert list(mixed[:2]) == [5, 0xAF63DC4C8601EC8C] and mixed[3] == mixed[1]
    assert mixed[2] == resample.user_streams([2.5])[0]


def test_bootstrap_weights_follow_the_users_streams() -> None:
    n, n_resamples, key = 23, 300, 0xFEED
    ids = np.random.default_rng(0).integers(-(2**40), 2**40, n)
    sums, _ = resample.poisson_bootstrap_sums(np.eye(n), np.ones((n, 1), np.uint8), key,
                                              n_resamples, streams=ids.view(np.uint64))
    b = np.arange(n_resamples)
    counter = (128 * (b // 256) + b % 128 + 1).astype(np.uint64)
    with np.errstate(over="ignore"):
        h = mix(stream(key, ids.view(np.uint64))[:, None] + counter[None, :] * GAMMA)
    v = np.where(b % 256 >= 128, h >> np.uint64(32), h & np.uint64(0xFFFFFFFF))
    np.testing.assert_array_equal(
        sums, np.searchsorted(resample.POISSON_THRESHOLDS, v, side="right"))


def test_partition_sums_add_up_to_the_whole_table() -> None:
    gen = np.random.default_rng(3)
    n = 2_000
    ids = gen.permutation(10 * n)[:n].astype(np.uint64)
    values = gen.uniform(size=(n, 3))
    present = np.ones((n, 1), np.uint8)
    key = design_key(5)
    whole = resample.poisson_bootstrap_sums(values, present, key, 400, streams=ids)
    parts = np.array_split(gen.permutation(n), 7)
    sums = sum(resample.poisson_bootstrap_sums(values[p], present[p], key, 400,
                                               streams=ids[p])[0] for p in parts)
    weights = sum(resample.poisson_bootstrap_sums(values[p], present[p], key, 400,
                                                  streams=ids[p])[1] for p in parts)
    np.testing.assert_allclose(sums, whole[0], rtol=1e-13)
    np.testing.assert_array_equal(weights, whole[1])  # integer sums: exact


@pytest.mark.parametrize("labels", ["int", "str"])
def test_bootstrap_ci_frame_does_not_depend_on_the_order_of_the_rows(labels: str) -> None:
    gen = np.random.default_rng(9)
    n = 500
    ids = gen.permutation(5 * n)[:n]
    index = pd.Index(ids if labels == "int" else [f"user-{i}" for i in ids], name="user_id")
    frame = pd.DataFrame({"a": gen.uniform(size=n),
                          "b": np.where(gen.random(n) < 0.3, np.nan, gen.normal(size=n))},
                         index=index)
    summary = bootstrap_ci_frame(frame, n_resamples=500, rng=4)
    shuffled = bootstrap_ci_frame(frame.iloc[gen.permutation(n)], n_resamples=500, rng=4)
    pd.testing.assert_frame_equal(shuffled, summary, check_exact=False, rtol=1e-12, atol=1e-15)
    # the weights follow the labels: relabelling the users changes the intervals
    relabelled = bootstrap_ci_frame(frame.set_axis(index[::-1]), n_resamples=500, rng=4)
    assert not np.allclose(relabelled["ci_low"], summary["ci_low"], rtol=1e-9)
    # and a frame indexed 0..n-1 is the positional design of bootstrap_ci
    low, high = bootstrap_ci(frame["a"].to_numpy(), n_resamples=500, rng=4)
    plain = bootstrap_ci_frame(frame.reset_index(drop=True)[["a"]], n_resamples=500, rng=4)
    assert (low, high) == (plain.loc["a", "ci_low"], plain.loc["a", "ci_high"])


@pytest.mark.parametrize("labels", ["int", "str"])
def test_evaluate_intervals_do_not_depend_on_the_order_of_users_or_rows(labels: str) -> None:
    import evalkit as ek

    gen = np.random.default_rng(2)
    n_users, n_items = 300, 40
    rows = [(u, i, gen.integers(1, 11) / 2) for u in range(n_users)
            for i in gen.choice(n_items, 8, replace=False)]
    truth = pd.DataFrame(rows, columns=["user_id", "item_id", "rating"])
    recs = truth[["user_id", "item_id"]].assign(score=gen.random(len(truth)))
    recs = recs[gen.random(len(recs)) < 0.8]
    if labels == "str":
        truth["user_id"] = "u" + truth["user_id"].astype(str)
        recs["user_id"] = "u" + recs["user_id"].astype(str)
    first = ek.evaluate(truth, recs, k=[3, 5], rng=6, n_resamples=400).summary
    shuffled = ek.evaluate(truth.sample(frac=1, random_state=1),
                           recs.sample(frac=1, random_state=2), k=[3, 5], rng=6,
                           n_resamples=400).summary
    pd.testing.assert_frame_equal(shuffled, first, check_exact=False, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("n_resamples", [1, 255, 300, 700])
def test_poisson_weights_are_the_weights_of_the_bootstrap_sums(n_resamples: int) -> None:
    """The weights themselves, as the sums see them: ``weights.T @ values`` is
    poisson_bootstrap_sums' result, across several chunks of users."""
    from evalkit._resample import poisson_weights

    gen = np.random.default_rng(n_resamples)
    streams = gen.integers(0, 2**63, 40_000, dtype=np.int64).astype(np.uint64)
    values = gen.random((streams.size, 2))
    weights = poisson_weights(streams, 99, n_resamples)
    assert weights.shape == (streams.size, n_resamples) and weights.dtype == np.float32
    sums, totals = resample.poisson_bootstrap_sums(values, np.ones((streams.size, 1), np.uint8), 99,
                                          n_resamples, streams=streams)
    np.testing.assert_allclose(weights.T.astype(np.float64) @ values, sums.T, rtol=1e-12)
    np.testing.assert_array_equal(weights.sum(axis=0, dtype=np.float64), totals[0])
