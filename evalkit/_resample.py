"""Compiled resampling for :mod:`evalkit.stats`: Poisson bootstrap sums and sign-flip sums.

Every random draw is a counter-based hash of ``(key, user, replicate)``: the splitmix64
finalizer applied to a Weyl sequence (Steele, Lea and Flood 2014). A draw therefore depends on
nothing but its own coordinates, not on the order in which users or replicates are visited, how
they are chunked, or how many threads run. Both designs name a user by a 64-bit integer of
its id (:func:`user_streams`: an integer id is itself, a string the FNV-1a hash of its UTF-8
bytes), so a user draws the same weights and coins wherever it sits: in any row order, in any
subset of the users, in any partition of a distributed table, on any machine. The kernels
release the GIL and run on fixed chunks of users on a thread per core; partial results are
combined in chunk order, so results do not depend on the thread count.

- :func:`poisson_bootstrap_sums`: for every replicate b and column j, ``sum_u w_ub x_uj`` and
  ``sum_u w_ub`` over the users present in column j, where ``w_ub ~ Poisson(1)``.
- :func:`sign_flip_sums`: for every replicate r and column j, ``sum_u bit_ur d_uj`` with
  ``bit_ur`` a fair coin, from tables of the 256 subset sums of each group of 8 users.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
import pandas as pd
from numba import njit

from ._parallel import KERNEL_OPTIONS, available_threads, run_parallel

__all__ = ["CHUNK_USERS", "POISSON_THRESHOLDS", "design_key", "poisson_bootstrap_sums",
           "poisson_column_sums", "poisson_means", "poisson_weights", "quantile_interval",
           "replicate_means", "sign_flip_sums", "user_streams"]

_OPTIONS = KERNEL_OPTIONS
CHUNK_USERS = 1 << 14  # users per bootstrap task (even)
_BLOCK = 256  # bootstrap replicates kept in cache at a time (even)

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_LOW = np.uint64(0xFFFFFFFF)
_S8 = np.uint64(8)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_S20 = np.uint64(20)
_S52 = np.uint64(52)
_BYTE = np.uint64(255)
_ONE = np.uint64(1)


def design_key(rng: int | np.random.Generator | None) -> int:
    """The 64-bit key of a resampling design: one draw from ``np.random.default_rng(rng)``."""
    return int(np.random.default_rng(rng).integers(0, 2**64, dtype=np.uint64))


def _poisson_thresholds() -> np.ndarray:
    """``T_k = round(2^32 P(X <= k))`` for X ~ Poisson(1), for every k with
    ``P(X > k) >= 2^-33``: a 32-bit uniform ``v`` gives the weight ``#{k: v >= T_k}``."""
    thresholds = []
    cdf, term, k = 0.0, math.exp(-1.0), 0
    while True:
        cdf += term
        if 1.0 - cdf < 2.0**-33:
            break
        thresholds.append(round(cdf * 2.0**32))
        k += 1
        term /= k
    return np.asarray(thresholds, dtype=np.uint64)


POISSON_THRESHOLDS = _poisson_thresholds()


def _poisson_lookup() -> np.ndarray:
    """The weight of every 32-bit uniform whose top 12 bits are the index, or -1 where a
    threshold falls inside that range of uniforms (then the thresholds decide)."""
    low = np.arange(1 << 12, dtype=np.uint64) << _S20
    first = np.searchsorted(POISSON_THRESHOLDS, low, side="right")
    last = np.searchsorted(POISSON_THRESHOLDS, low + np.uint64((1 << 20) - 1), side="right")
    return np.where(first == last, first, -1).astype(np.float64)


_POISSON_LOOKUP = _poisson_lookup()


_threads = available_threads


def _parallel(tasks: list, threads: int | None) -> list:
    """Call each task, on up to ``threads`` threads (default: one per core); results in order."""
    return run_parallel(tasks, threads or _threads())


@njit(inline="always")
def _mix(z):  # pragma: no cover - compiled
    """The splitmix64 finalizer: a bijection of 64-bit integers that mixes every bit."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(inline="always")
def _stream(key, index):  # pragma: no cover - compiled
    """The start of the stream of ``index`` (a user or a block of users) under ``key``."""
    return _mix(key + (np.uint64(index) + _ONE) * _GAMMA)


@njit(inline="always")
def _refine(v, thresholds):  # pragma: no cover - compiled
    """``#{k: v >= thresholds[k]}``."""
    count = 0
    for k in range(thresholds.size):
        count += 1 if v >= thresholds[k] else 0
    return count


@njit(**_OPTIONS)
def _poisson_weights(base, counter, lookup, thresholds, hashes, w):  # pragma: no cover
    """One user's weights in a block of replicates (see :func:`poisson_bootstrap_sums`)."""
    half = hashes.size
    z = base + counter * _GAMMA
    for i in range(half):  # vectorized
        z += _GAMMA
        hashes[i] = _mix(z)
    for i in range(half):
        h = hashes[i]
        a = lookup[(h & _LOW) >> _S20]
        b = lookup[h >> _S52]
        w[i] = a if a >= 0 else _refine(h & _LOW, thresholds)
        w[half + i] = b if b >= 0 else _refine(h >> _S32, thresholds)


@njit(**_OPTIONS)
def _poisson_block(values, present, streams, key, lookup, thresholds, n_resamples, u0, u1,
                   sums, weights):  # pragma: no cover - compiled
    """Write users ``u0..u1-1``'s weighted sums into ``sums`` and ``weights``.

    Users are taken two at a time (``u0`` even) and the replicates in blocks of fixed length,
    so the loops over replicates vectorize; a zero value adds nothing and is skipped.
    """
    m, p = values.shape[1], present.shape[1]
    hashes = np.empty(_BLOCK // 2, np.uint64)
    w0 = np.zeros(_BLOCK)
    w1 = np.zeros(_BLOCK)
    acc = np.zeros((m, _BLOCK))
    total = np.zeros((p, _BLOCK))
    for q in range((n_resamples + _BLOCK - 1) // _BLOCK):
        acc[:] = 0.0
        total[:] = 0.0
        counter = np.uint64(q * (_BLOCK // 2))
        for u in range(u0, u1, 2):
            pair = u + 1 < u1
            _poisson_weights(_stream(key, streams[u]), counter, lookup, thresholds, hashes, w0)
            if pair:
                _poisson_weights(_stream(key, streams[u + 1]), counter, lookup, thresholds,
                                 hashes, w1)
            for j in range(m):
                x0 = values[u, j]
                x1 = values[u + 1, j] if pair else 0.0
                if x0 != 0.0 and x1 != 0.0:
                    for t in range(_BLOCK):
                        acc[j, t] += w0[t] * x0 + w1[t] * x1
                elif x0 != 0.0:
                    for t in range(_BLOCK):
                        acc[j, t] += w0[t] * x0
                elif x1 != 0.0:
                    for t in range(_BLOCK):
                        acc[j, t] += w1[t] * x1
            for g in range(p):
                a = present[u, g] != 0
                b = pair and present[u + 1, g] != 0
                if a and b:
                    for t in range(_BLOCK):
                        total[g, t] += w0[t] + w1[t]
                elif a:
                    for t in range(_BLOCK):
                        total[g, t] += w0[t]
                elif b:
                    for t in range(_BLOCK):
                        total[g, t] += w1[t]
        b0 = q * _BLOCK
        size = min(_BLOCK, n_resamples - b0)
        for j in range(m):
            for t in range(size):
                sums[j, b0 + t] = acc[j, t]
        for g in range(p):
            for t in range(size):
                weights[g, b0 + t] = total[g, t]


def _streams(streams: np.ndarray | None, n: int, *, func: str, what: str) -> np.ndarray:
    """The users' streams as contiguous uint64 (default: the positions ``0..n-1``)."""
    if streams is None:
        return np.arange(n, dtype=np.uint64)
    streams = np.ascontiguousarray(streams, dtype=np.uint64)
    if streams.shape != (n,):
        raise ValueError(f"{func}: 'streams' must hold one value per {what} ({n}); "
                         f"got shape {streams.shape}.")
    return streams


def poisson_bootstrap_sums(values: np.ndarray, present: np.ndarray, key: int, n_resamples: int,
                           *, streams: np.ndarray | None = None, threads: int | None = None,
                           chunk: int = CHUNK_USERS) -> tuple[np.ndarray, np.ndarray]:
    """Weighted sums of every column under Poisson(1) bootstrap weights.

    Parameters
    ----------
    values : (n, m) float64, C order
        One row per user; missing values set to 0.
    present : (n, p) uint8, C order
        The distinct patterns of present values (1 where a user counts).
    key : int
        64-bit key of the resampling design.
    n_resamples : int
        Number of replicates B.
    streams : (n,) uint64, optional
        The user of each row, as :func:`user_streams` names it; default: the row positions
        ``0..n-1``.
    threads, chunk : int
        Threads to use (default: one per core) and users per task. The weights do not depend
        on either; the sums depend on ``chunk`` only through the rounding of floating-point
        additions, and not at all on ``threads``.

    Returns
    -------
    sums : (m, B) float64
        ``sum_u w_ub values[u, j]``.
    weights : (p, B) float64
        ``sum_u w_ub present[u, q]``.

    Notes
    -----
    Replicates come in blocks of 256. The weights of user ``u`` (its stream, ``streams[row]``)
    in replicates ``256 q + i`` and ``256 q + 128 + i`` (``0 <= i < 128``) are the low and high
    32 bits ``v`` of ``h = mix(mix(key + (u + 1) g) + (128 q + i + 1) g)`` (``mix`` the splitmix64
    finalizer, ``g`` the golden-ratio increment), each turned into a Poisson(1) count by
    inversion, ``w = #{k: v >= T_k}`` with ``T_k = round(2^32 P(X <= k))``: every probability
    of the Poisson(1) law to within 2^-32 (a table of the top 12 bits of ``v`` answers all but
    7 in 4,096 draws).
    """
    n, m = values.shape
    p = present.shape[1]
    key = np.uint64(key)
    streams = _streams(streams, n, func="poisson_bootstrap_sums", what="row")
    bounds = list(range(0, n, chunk)) + [n]

    def task(u0: int, u1: int) -> tuple[np.ndarray, np.ndarray]:
        sums = np.zeros((m, n_resamples))
        weights = np.zeros((p, n_resamples))
        _poisson_block(values, present, streams, key, _POISSON_LOOKUP, POISSON_THRESHOLDS,
                       n_resamples, u0, u1, sums, weights)
        return sums, weights

    parts = _parallel([lambda a=a, b=b: task(a, b) for a, b in zip(bounds[:-1], bounds[1:])],
                      threads)
    sums = np.zeros((m, n_resamples))
    weights = np.zeros((p, n_resamples))
    for part_sums, part_weights in parts:  # chunk order
        sums += part_sums
        weights += part_weights
    return sums, weights


def poisson_column_sums(columns: list[np.ndarray], n_resamples: int, key: int,
                         streams: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Poisson-bootstrap sums of equally long float columns, NaN = missing.

    Returns ``sums`` and ``weights``, both shape (m, n_resamples): ``sum(w x)`` and ``sum(w)``
    over each column's present users, with one set of weights ``w`` per replicate shared by
    every column, drawn for the users ``streams`` (:func:`user_streams`;
    default: the positions). Sums over disjoint sets of users add up to the sums over their
    union, which is how a partitioned table gets the intervals of the whole.
    """
    n, m = len(columns[0]), len(columns)
    values = np.empty((n, m))  # one row per user, missing values 0
    pattern_of: dict[bytes, int] = {}  # distinct sets of present users share weight sums
    which = np.empty(m, dtype=np.int64)
    patterns = []
    for j, column in enumerate(columns):  # one step per column, not per user
        missing = np.isnan(column)
        values[:, j] = column
        if missing.any():
            np.copyto(values[:, j], 0.0, where=missing)
        which[j] = pattern_of.setdefault(np.packbits(missing).tobytes(), len(pattern_of))
        if which[j] == len(patterns):
            patterns.append(~missing)
    present = np.empty((n, len(patterns)), dtype=np.uint8)
    for g, mask in enumerate(patterns):
        present[:, g] = mask
    sums, weights = poisson_bootstrap_sums(values, present, key, n_resamples, streams=streams)
    return sums, weights[which]


def replicate_means(sums: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Shape (n_resamples, m): ``sums / weights``, NaN where a column's users all drew 0."""
    means = np.full(sums.shape, np.nan)
    np.divide(sums, weights, out=means, where=weights > 0)
    return means.T


def poisson_means(columns: list[np.ndarray], n_resamples: int, key: int,
                   streams: np.ndarray | None = None) -> np.ndarray:
    """Poisson-bootstrap means of equally long float columns, NaN = missing.

    Returns shape (n_resamples, m): ``sum(w x) / sum(w)`` over each column's present users,
    with one set of weights ``w`` per replicate shared by every column (see
    :func:`poisson_column_sums`); NaN where a column's users all drew weight 0.
    """
    return replicate_means(*poisson_column_sums(columns, n_resamples, key, streams))


def quantile_interval(means: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """The alpha/2 and 1 - alpha/2 quantiles of each column of ``means`` (NaN rows skipped;
    NaN for a column without a value, such as a metric no user has)."""
    alpha = 1.0 - confidence
    if not np.isnan(means).any():
        low, high = np.quantile(means, [alpha / 2, 1 - alpha / 2], axis=0)
        return low, high
    some = ~np.isnan(means).all(axis=0)
    low, high = np.full(means.shape[1:], np.nan), np.full(means.shape[1:], np.nan)
    if some.any():
        low[some], high[some] = np.nanquantile(means[:, some], [alpha / 2, 1 - alpha / 2],
                                               axis=0)
    return low, high


@njit(**_OPTIONS)
def _weight_rows(streams, key, lookup, thresholds, n_resamples, u0, u1, out):  # pragma: no cover
    """Write users ``u0..u1-1``'s weights in every replicate into rows of ``out``."""
    hashes = np.empty(_BLOCK // 2, np.uint64)
    w = np.zeros(_BLOCK)
    for u in range(u0, u1):
        base = _stream(key, streams[u])
        for q in range((n_resamples + _BLOCK - 1) // _BLOCK):
            _poisson_weights(base, np.uint64(q * (_BLOCK // 2)), lookup, thresholds, hashes, w)
            b0 = q * _BLOCK
            for t in range(min(_BLOCK, n_resamples - b0)):
                out[u - u0, b0 + t] = w[t]


def poisson_weights(streams: np.ndarray, key: int, n_resamples: int, *,
                    threads: int | None = None) -> np.ndarray:
    """The Poisson(1) bootstrap weights themselves: ``(n, B)`` float32, row ``u`` holding user
    ``streams[u]``'s weight in each replicate, the weights of :func:`poisson_bootstrap_sums`
    under the same ``key`` (so ``weights.T @ values`` are its sums).

    For statistics built from many weighted sums at once (personalization sums each item's
    weighted users); ``n * B`` floats, so callers take the users in chunks where there are
    many (weights depend on the user's stream alone, so chunks change nothing).
    """
    streams = _streams(streams, len(streams), func="poisson_weights", what="user")
    n = streams.size
    out = np.empty((n, n_resamples), dtype=np.float32)
    bounds = list(range(0, n, CHUNK_USERS)) + [n]

    def task(u0: int, u1: int) -> None:
        _weight_rows(streams, np.uint64(key), _POISSON_LOOKUP, POISSON_THRESHOLDS, n_resamples,
                     u0, u1, out[u0:u1])

    _parallel([lambda a=a, b=b: task(a, b) for a, b in zip(bounds[:-1], bounds[1:])], threads)
    return out


_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)
_INT64_LIMIT = 2.0**63


@njit(**_OPTIONS)
def _fnv1a(offsets, data, out):  # pragma: no cover - compiled
    """``out[i]`` = the 64-bit FNV-1a hash of ``data[offsets[i]:offsets[i + 1]]``."""
    for i in range(out.size):
        h = _FNV_OFFSET
        for j in range(offsets[i], offsets[i + 1]):
            h = (h ^ np.uint64(data[j])) * _FNV_PRIME
        out[i] = h


def _fnv1a_bytes(items: list[bytes]) -> np.ndarray:
    """FNV-1a of each byte string."""
    offsets = np.zeros(len(items) + 1, dtype=np.int64)
    np.cumsum([len(b) for b in items], out=offsets[1:])
    data = np.frombuffer(b"".join(items), dtype=np.uint8)
    out = np.empty(len(items), dtype=np.uint64)
    _fnv1a(offsets, data, out)
    return out


def _fnv1a_strings(values: np.ndarray) -> np.ndarray:
    """FNV-1a of the UTF-8 bytes of each string of an object array of str, read from one
    Arrow buffer (no Python loop over the strings)."""
    import pyarrow as pa

    array = pa.array(values, type=pa.large_string())
    if isinstance(array, pa.ChunkedArray):  # pragma: no cover - one chunk for an ndarray
        array = array.combine_chunks()
    _, offsets, data = array.buffers()
    offsets = np.frombuffer(offsets, dtype=np.int64)[array.offset: array.offset + len(array) + 1]
    data = np.zeros(0, np.uint8) if data is None else np.frombuffer(data, dtype=np.uint8)
    out = np.empty(len(array), dtype=np.uint64)
    _fnv1a(offsets, data, out)
    return out


def _float_streams(values: np.ndarray) -> np.ndarray:
    """Integral floats as the integer, others as FNV-1a of their 8 little-endian bytes."""
    values = values.astype(np.float64) + 0.0  # -0.0 becomes 0.0
    integral = np.isfinite(values) & (np.floor(values) == values) & (np.abs(values) < _INT64_LIMIT)
    out = np.zeros(len(values), dtype=np.uint64)
    out[integral] = values[integral].astype(np.int64).view(np.uint64)
    other = np.flatnonzero(~integral)
    if other.size:
        out[other] = _fnv1a_bytes([values[i].astype("<f8").tobytes() for i in other])
    return out


def _label_stream(label: object) -> int:
    """The stream of one id of an object array (the slow path for mixed kinds)."""
    if isinstance(label, (bool, np.bool_, numbers.Integral)):
        return int(label) & 0xFFFF_FFFF_FFFF_FFFF
    if isinstance(label, numbers.Real):
        return int(_float_streams(np.array([float(label)]))[0])
    if isinstance(label, str):
        data = label.encode("utf-8")
    elif isinstance(label, bytes):
        data = label
    else:
        data = repr(label).encode("utf-8")
    return int(_fnv1a_bytes([data])[0])


def user_streams(ids: object) -> np.ndarray:
    """The 64-bit integer that names each user in the bootstrap (one per id, uint64).

    Parameters
    ----------
    ids : array-like, pandas Index or Series
        User ids.

    Returns
    -------
    (n,) uint64

    Notes
    -----
    An integer id is itself (two's complement for negative ids), and so is a float id with an
    integral value (``3.0`` as ``3``, as the joins match them); a string is the FNV-1a hash of
    its UTF-8 bytes (offset basis 0xcbf29ce484222325, prime 0x100000001b3), bytes the hash of
    themselves, another float the hash of its 8 little-endian bytes, booleans 0 and 1, dates
    their int64 nanoseconds, and any other label the hash of the UTF-8 bytes of its ``repr``.
    The value depends on the id alone: on no other user, no position, no machine.
    """
    if isinstance(ids, (pd.Series, pd.Index)) and isinstance(ids.dtype, pd.CategoricalDtype):
        ids = np.asarray(ids.astype(ids.dtype.categories.dtype))
    values = np.asarray(ids)
    if values.ndim != 1:
        values = values.ravel()
    kind = values.dtype.kind
    if kind in "bu":
        return values.astype(np.uint64)
    if kind in "Mm":  # dates and durations: int64 nanoseconds
        values = values.astype(f"{values.dtype.str[1:3]}[ns]").view(np.int64)
        kind = "i"
    if kind == "i":
        return values.astype(np.int64).view(np.uint64)
    if kind == "f":
        return _float_streams(values)
    if kind in "US":
        values = values.astype(object)
    inferred = pd.api.types.infer_dtype(values, skipna=False)
    if inferred == "string":
        return _fnv1a_strings(values)
    if inferred == "bytes":
        return _fnv1a_bytes(list(values))
    return np.fromiter((_label_stream(v) for v in values), dtype=np.uint64, count=len(values))


@njit(inline="always")
def _transpose8(x):  # pragma: no cover - compiled
    """Transpose the 8 x 8 bit matrix held in ``x`` (byte i = row i, bit j of a byte =
    column j): bit j of byte i becomes bit i of byte j (Hacker's Delight, 7-3)."""
    t = (x ^ (x >> np.uint64(7))) & np.uint64(0x00AA00AA00AA00AA)
    x = x ^ t ^ (t << np.uint64(7))
    t = (x ^ (x >> np.uint64(14))) & np.uint64(0x0000CCCC0000CCCC)
    x = x ^ t ^ (t << np.uint64(14))
    t = (x ^ (x >> np.uint64(28))) & np.uint64(0x00000000F0F0F0F0)
    return x ^ t ^ (t << np.uint64(28))


@njit(inline="always")
def _subset_sums(diffs, j, first, hi, table, slot):  # pragma: no cover - compiled
    """``table[slot, e]`` = the sum of ``diffs[j, first + bit]`` over the set bits of e."""
    table[slot, 0] = 0.0
    for bit in range(8):
        u = first + bit
        d = diffs[j, u] if u < hi else 0.0
        span = 1 << bit
        for e in range(span):
            table[slot, span + e] = table[slot, e] + d


@njit(**_OPTIONS)
def _coin_words(streams, key, lo, hi, n_rounds, words):  # pragma: no cover - compiled
    """``words[r]``: byte g, bit i = the coin of user ``lo + 8 g + i`` in replicate r (0 for
    users past ``hi``). A user's hash gives its coins of 64 replicates; the 8 x 8 bit blocks
    of 8 users' hashes are transposed into one byte per replicate."""
    n_words = (n_rounds + 63) // 64
    base = np.zeros(64, np.uint64)
    h = np.zeros(64, np.uint64)
    for u in range(lo, hi):
        base[u - lo] = _stream(key, streams[u])
    words[:] = 0
    for word in range(n_words):
        counter = (np.uint64(word) + _ONE) * _GAMMA
        for u in range(hi - lo):
            h[u] = _mix(base[u] + counter)
        for g in range(8):
            if 8 * g >= hi - lo:
                break
            for p in range(8):
                shift = np.uint64(8 * p)
                x = np.uint64(0)
                for i in range(8):
                    x |= ((h[8 * g + i] >> shift) & _BYTE) << np.uint64(8 * i)
                x = _transpose8(x)  # byte q: bit i = coin of user 8 g + i in replicate 8 p + q
                r0 = 64 * word + 8 * p
                for q in range(min(8, n_rounds - r0)):
                    words[r0 + q] |= ((x >> np.uint64(8 * q)) & _BYTE) << np.uint64(8 * g)


@njit(**_OPTIONS)
def _sign_flip_users(diffs, streams, key, n_rounds, u0, u1, out):  # pragma: no cover
    """Add users ``u0..u1-1`` into ``out`` (c, R), see :func:`sign_flip_sums`. Users go in
    blocks of 64: each replicate's 64 coins are one word, summed as 8 look-ups in tables of
    the 256 subset sums of each group of 8 users; groups whose differences are all 0 are left
    out, and a word with at most 4 groups that count is summed from those 4 tables."""
    c = diffs.shape[0]
    words = np.empty(n_rounds, np.uint64)
    table = np.empty((8, 256))
    counted = np.zeros(8, np.int64)
    shifts = np.zeros(4, np.uint64)
    for lo in range(u0, u1, 64):
        hi = min(lo + 64, u1)
        any_nonzero = False
        for j in range(c):
            for u in range(lo, hi):
                if diffs[j, u] != 0.0:
                    any_nonzero = True
                    break
        if not any_nonzero:
            continue
        _coin_words(streams, key, lo, hi, n_rounds, words)
        for j in range(c):
            used = 0
            for g in range(8):
                counted[g] = 0
                for u in range(lo + 8 * g, min(lo + 8 * g + 8, hi)):
                    if diffs[j, u] != 0.0:
                        counted[g] = 1
                used += counted[g]
            if used == 0:
                continue
            row = out[j]
            if used > 4:
                for g in range(8):
                    _subset_sums(diffs, j, lo + 8 * g, hi, table, g)
                for t in range(n_rounds):
                    w = words[t]
                    row[t] += (((table[0, w & _BYTE] + table[1, (w >> _S8) & _BYTE])
                                + (table[2, (w >> np.uint64(16)) & _BYTE]
                                   + table[3, (w >> np.uint64(24)) & _BYTE]))
                               + ((table[4, (w >> np.uint64(32)) & _BYTE]
                                   + table[5, (w >> np.uint64(40)) & _BYTE])
                                  + (table[6, (w >> np.uint64(48)) & _BYTE]
                                     + table[7, w >> np.uint64(56)])))
                continue
            slot = 0
            for g in range(8):
                if counted[g]:
                    _subset_sums(diffs, j, lo + 8 * g, hi, table, slot)
                    shifts[slot] = np.uint64(8 * g)
                    slot += 1
            for i in range(slot, 4):  # empty slots: a zero table
                table[i, :] = 0.0
                shifts[i] = np.uint64(0)
            s0, s1, s2, s3 = shifts[0], shifts[1], shifts[2], shifts[3]
            for t in range(n_rounds):
                w = words[t]
                row[t] += ((table[0, (w >> s0) & _BYTE] + table[1, (w >> s1) & _BYTE])
                           + (table[2, (w >> s2) & _BYTE] + table[3, (w >> s3) & _BYTE]))


def sign_flip_sums(diffs: np.ndarray, key: int, n_rounds: int, *,
                   streams: np.ndarray | None = None, threads: int | None = None,
                   chunk: int = CHUNK_USERS) -> np.ndarray:
    """``out[j, r] = sum_u bit_ur diffs[j, u]`` for ``n_rounds`` replicates of fair coins.

    Parameters
    ----------
    diffs : (c, n) float64, C order
        One row per comparison, one column per user (0 where a user takes no part).
    key : int
        64-bit key of the randomization design.
    n_rounds : int
        Number of replicates R.
    streams : (n,) uint64, optional
        The user of each column, as :func:`user_streams` names it; default: the positions
        ``0..n-1``.
    threads, chunk : int
        Threads to use (default: one per core) and users per task (a multiple of 64). The coins
        depend on neither; the sums depend on ``chunk`` only through the rounding of
        floating-point additions, and not at all on ``threads``.

    Returns
    -------
    (c, R) float64

    Notes
    -----
    The coin of user ``u`` (its stream ``s``) in replicate ``r`` is bit ``r mod 64`` of
    ``mix(mix(key + (s + 1) g) + (floor(r / 64) + 1) g)``, shared by every comparison. It
    depends on the user's id and the replicate only, so the sums over disjoint sets of users
    add up to the sums over their union (a partitioned table adds its partitions' sums). Users
    are summed in blocks of 64: the 64 coins of a replicate form one word (8 x 8 bit transposes
    of the users' hashes), summed as 8 look-ups in tables of the 256 subset sums of each group
    of 8 users; a group whose differences in a comparison are all 0 is left out.
    """
    diffs = np.ascontiguousarray(diffs, dtype=np.float64)
    c, n = diffs.shape
    key = np.uint64(key)
    streams = _streams(streams, n, func="sign_flip_sums", what="column")
    if chunk % 64:
        raise ValueError(f"sign_flip_sums: 'chunk' must be a multiple of 64; got {chunk}.")
    bounds = list(range(0, n, chunk)) + [n]

    def task(u0: int, u1: int) -> np.ndarray:
        out = np.zeros((c, n_rounds))
        _sign_flip_users(diffs, streams, key, n_rounds, u0, u1, out)
        return out

    parts = _parallel([lambda a=a, b=b: task(a, b) for a, b in zip(bounds[:-1], bounds[1:])],
                      threads)
    total = np.zeros((c, n_rounds))
    for part in parts:  # chunk order
        total += part
    return total
