"""Seeded evaluation data at MovieLens-25M scale: held-out test sets and top-100 lists.

The full scale has the shape of MovieLens-25M: 162,541 users and 59,047 rated items (movie ids
sparse in 1..209,171). Every user gets

- a held-out test set whose size is heavy-tailed (lognormal: median 10, mean 30 items), with
  half-star ratings 0.5..5.0 drawn from MovieLens-25M's rating distribution, and items drawn
  without replacement from a Zipf-like popularity law;
- a top-100 list (``rank`` 1..100, ``score`` strictly descending) of distinct items drawn from
  a steeper Zipf-like law over the same popularity order, ordered by popularity plus user
  noise. Recommending popular items is what makes hits realistic (a few percent precision).

Everything is vectorized: the recommendation lists are one ``(users, 100)`` array; the test
sets are flat arrays with per-user offsets. Distinct items per user come from sorted uniforms
(normalized cumulative sums of exponentials, so no sort is needed), mapped through the
popularity law's inverse CDF and pushed apart by a running maximum.

Usage::

    python benchmarks/generate.py --scale full          # print the data's statistics
    python benchmarks/generate.py --scale small --out data/bench   # also write Parquet
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["SCALES", "generate", "describe"]

SCALES = {"tiny": 300, "small": 2_000, "medium": 20_000, "full": 162_541}
N_ITEMS = 59_047  # items rated in MovieLens-25M
MAX_ITEM_ID = 209_171  # largest movieId in MovieLens-25M
LIST_LENGTH = 100
MAX_TEST = 3_000  # cap of a test set (the lognormal tail beyond it is negligible)

TEST_MEDIAN = 10.0
TEST_MEAN = 30.0
TEST_ZIPF = 0.85  # exponent of the popularity law of test items
RECS_ZIPF = 1.05  # exponent of the popularity law of recommended items
RECS_NOISE = 2.0  # scale of the Gumbel noise added to log-popularity when ordering a list

# MovieLens-25M rating distribution, 0.5 .. 5.0 in half stars
RATINGS = np.arange(1, 11) / 2.0
RATING_P = np.array([1.57, 3.36, 1.60, 6.64, 5.02, 19.60, 12.58, 26.60, 8.48, 14.55])
RATING_P = RATING_P / RATING_P.sum()


def _zipf_ranks(u: np.ndarray, n_items: int, exponent: float) -> np.ndarray:
    """Map sorted uniforms ``u`` in [0, 1) to popularity ranks 1..n_items under ``r**-exponent``.

    Continuous inverse CDF of the density proportional to ``r**-exponent`` on ``[1, n+1)``.
    """
    top = float(n_items + 1)
    if np.isclose(exponent, 1.0):
        r = np.exp(u * np.log(top))
    else:
        e = 1.0 - exponent
        r = (1.0 + u * (top**e - 1.0)) ** (1.0 / e)
    return np.minimum(np.floor(r).astype(np.int64), n_items)


def _test_sets(
    n_users: int, n_items: int, gen: np.random.Generator, *, median: float = TEST_MEDIAN,
    mean: float = TEST_MEAN, smallest: int = 1, zipf: float = TEST_ZIPF,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-user test sets: (user index, popularity rank 1-based, rating), grouped by user;
    sizes lognormal with the given ``median`` and ``mean`` (at least ``smallest``), items by
    a Zipf-like law of exponent ``zipf``."""
    sigma = np.sqrt(2.0 * np.log(mean / median))
    sizes = np.rint(gen.lognormal(np.log(median), sigma, n_users)).astype(np.int64)
    sizes = np.clip(sizes, smallest, MAX_TEST)
    total = int(sizes.sum())
    user = np.repeat(np.arange(n_users, dtype=np.int64), sizes)
    starts = np.cumsum(sizes) - sizes
    j = np.arange(total, dtype=np.int64) - starts[user]  # position within the user's set

    # sorted uniforms per user: cumulative sums of n+1 exponentials, normalized by their total
    gaps = gen.standard_exponential(total + n_users)
    csum = np.cumsum(gaps)
    block_end = np.cumsum(sizes + 1) - 1  # index of each user's extra (normalizing) gap
    block_start = block_end - sizes
    base = np.where(block_start > 0, csum[np.maximum(block_start - 1, 0)], 0.0)
    flat = np.arange(total, dtype=np.int64) + user  # skip one slot per earlier user
    u = (csum[flat] - base[user]) / (csum[block_end] - base)[user]

    room = n_items - MAX_TEST  # leave room to push collisions apart
    r = _zipf_ranks(u, room, zipf)
    # strictly increasing within a user: running maximum of r - j, reset per user by an offset
    offset = user * (2 * n_items + 2 * MAX_TEST) + MAX_TEST
    ranks = np.maximum.accumulate(r - j + offset) - offset + j
    rating = gen.choice(RATINGS, size=total, p=RATING_P)
    return user, ranks, rating


def _lists(
    n_users: int, n_items: int, gen: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Top-100 lists as ``(n_users, 100)`` arrays: popularity rank and a descending score."""
    k = LIST_LENGTH
    gaps = gen.standard_exponential((n_users, k + 1))
    csum = np.cumsum(gaps, axis=1)
    u = csum[:, :k] / csum[:, k:]
    r = _zipf_ranks(u, n_items - k, RECS_ZIPF)
    j = np.arange(k)
    ranks = np.maximum.accumulate(r - j, axis=1) + j  # distinct and increasing per user
    score = -np.log(ranks) + RECS_NOISE * gen.gumbel(size=ranks.shape)
    order = np.argsort(-score, axis=1, kind="stable")
    ranks = np.take_along_axis(ranks, order, axis=1)
    score = np.take_along_axis(score, order, axis=1)
    return ranks, score


def generate(
    n_users: int = SCALES["full"],
    *,
    n_items: int = N_ITEMS,
    rng: int | np.random.Generator | None = 0,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Test truth and top-100 recommendation lists for ``n_users`` users.

    Parameters
    ----------
    n_users : int
        Number of users (ids ``1..n_users``).
    n_items : int
        Catalogue size; item ids are a seeded sample of ``1..209171`` (MovieLens movie ids).
    rng : int, numpy.random.Generator or None
        Seed; the same seed gives the same frames.

    Returns
    -------
    truth : pd.DataFrame
        ``user_id, item_id`` (int64), ``rating`` (float64), sorted by user.
    recs : pd.DataFrame
        ``user_id, item_id, rank`` (int64), ``score`` (float64), sorted by user and rank; 100
        rows per user.
    """
    if n_items <= MAX_TEST + LIST_LENGTH:
        raise ValueError(
            f"generate: 'n_items' must exceed {MAX_TEST + LIST_LENGTH}; got {n_items}.")
    gen = np.random.default_rng(rng)
    item_ids = np.sort(gen.choice(np.arange(1, max(MAX_ITEM_ID, n_items) + 1), n_items,
                                  replace=False))
    by_popularity = gen.permutation(item_ids)  # by_popularity[r - 1]: the item of rank r

    t_user, t_rank, t_rating = _test_sets(n_users, n_items, gen)
    truth = pd.DataFrame(
        {
            "user_id": t_user + 1,
            "item_id": by_popularity[t_rank - 1],
            "rating": t_rating,
        }
    )
    r_rank, r_score = _lists(n_users, n_items, gen)
    recs = pd.DataFrame(
        {
            "user_id": np.repeat(np.arange(1, n_users + 1, dtype=np.int64), LIST_LENGTH),
            "item_id": by_popularity[r_rank.ravel() - 1],
            "rank": np.tile(np.arange(1, LIST_LENGTH + 1, dtype=np.int64), n_users),
            "score": r_score.ravel(),
        }
    )
    return truth, recs


def describe(truth: pd.DataFrame, recs: pd.DataFrame, *, threshold: float = 4.0) -> dict:
    """Shape statistics of generated data (sizes, test-set size quantiles, hit rates)."""
    sizes = truth.groupby("user_id").size()
    merged = recs.merge(truth, on=["user_id", "item_id"], how="left")
    hit = merged["rating"].notna().to_numpy()
    relevant = (merged["rating"] >= threshold).to_numpy()
    top10 = merged["rank"].to_numpy() <= 10
    return {
        "users": int(truth["user_id"].nunique()),
        "items": int(pd.concat([truth["item_id"], recs["item_id"]]).nunique()),
        "truth_rows": len(truth),
        "recs_rows": len(recs),
        "test_size_median": float(sizes.median()),
        "test_size_mean": round(float(sizes.mean()), 2),
        "test_size_max": int(sizes.max()),
        "hit_rate@100": round(float(hit.mean()), 4),
        "precision@10": round(float(relevant[top10].mean()), 4),
        "precision@100": round(float(relevant.mean()), 4),
        "share_relevant": round(float((truth["rating"] >= threshold).mean()), 4),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", choices=list(SCALES), default="small")
    parser.add_argument("--users", type=int, default=None, help="overrides --scale")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None,
                        help="directory to write truth.parquet and recs.parquet into")
    args = parser.parse_args(argv)
    n_users = args.users or SCALES[args.scale]
    start = time.perf_counter()
    truth, recs = generate(n_users, rng=args.seed)
    elapsed = time.perf_counter() - start
    print(f"generated {n_users} users in {elapsed:.2f} s")
    for key, value in describe(truth, recs).items():
        print(f"  {key}: {value}")
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        truth.to_parquet(args.out / "truth.parquet", index=False)
        recs.to_parquet(args.out / "recs.parquet", index=False)
        print(f"wrote {args.out / 'truth.parquet'} and {args.out / 'recs.parquet'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
