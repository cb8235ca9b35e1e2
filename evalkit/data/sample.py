"""An embedded, MovieLens-like sample data set generated offline in a fraction of a second.

``load_sample`` mimics MovieLens ml-latest-small (610 users rating 9,742 movies with half-star
ratings from 1996 to 2018) at a similar number of ratings on a smaller catalogue. It is a
simulation, not real data: use it for examples, tests and notebooks that must run without files
or network, and use `load_movielens` for results.

How the data are made (all vectorized, deterministic for a seed):

* Genres and tastes. Each of the 19 ml-latest genres loads on five taste factors (thrills,
  serious, light, family, dark). A movie has 1-3 genres (the first drawn by the genre's frequency
  in MovieLens, the others favouring genres close to it, as Action goes with Adventure) and a
  latent vector: the mean of its genres' loadings (centred) plus noise, plus four free factors.
  A user likes one or two genres and gets a latent vector the same way.
* Which movies a user rates. A Zipf-like base popularity times ``exp(beta * affinity)``, where
  the affinity is the dot product of user and movie vectors, and only movies released before the
  user's last rating; the movies are drawn without replacement (Gumbel top-k), so a user's
  choices follow their tastes as well as popularity.
* How many. 20 plus a log-normal number (heavy-tailed, as in MovieLens, where every user has at
  least 20 ratings), at most 30% of the movies available to the user.
* When. Each user is active over a period (half of them within about an hour, the others for
  days to years) between 1996 and 2018; a rating falls between the later of the period's start
  and the movie's release, and the period's end. Rows are in time order within each user.
* Ratings. Score = user bias + movie bias (popular movies are rated higher) + taste affinity +
  noise, mapped by rank onto the half-star distribution of ml-latest-small, so whole stars are
  more common than half stars, the mode is 4.0 and the mean is 3.50.
* Titles like "The Silent River" and release years (median 2002) are generated.

Measured statistics (``load_sample(seed=0)`` against the real ml-latest-small; top-10% share is
the share of ratings on the 10% most-rated movies, Gini is that of ratings per movie, both over
the movies that have ratings; HR@10 holds out 5 random ratings per user and ranks the unseen
movies by training popularity or by a rank-20 truncated SVD of the binary user-movie matrix;
genre taste concentration is the spread over users of each genre's share of the user's ratings,
divided by that spread when each rating's movie is redrawn by popularity alone, averaged over
genres):

==========================  ====================  ======================
statistic                   sample (seed 0)       ml-latest-small
==========================  ====================  ======================
users                       850                   610
movies with ratings         3,480                 9,724 (9,742 listed)
ratings                     99,132                100,836
density                     0.0335                0.0170
mean rating                 3.4993                3.5016
ratings 0.5 / 1.0 / 1.5 %   1.4 / 2.8 / 1.8       1.4 / 2.8 / 1.8
ratings 2.0 / 2.5 / 3.0 %   7.5 / 5.5 / 19.9      7.5 / 5.5 / 19.9
ratings 3.5 / 4.0 / 4.5 %   13.0 / 26.6 / 8.5     13.0 / 26.6 / 8.5
ratings 5.0 %               13.0                  13.1
ratings per user min/med    20 / 66               20 / 70.5
ratings per user max        1,027                 2,698
top-10% movies' share       0.606                 0.600
Gini of movie popularity    0.715                 0.716
median user activity span   0.33 days             0.05 days
HR@10 most-popular / SVD    0.721 / 0.938         0.311 / 0.546
genre taste concentration   2.01                  1.92
==========================  ====================  ======================

The catalogue is smaller than MovieLens' (so the sample is twice as dense, and recommending is
easier: compare methods on it, not absolute numbers with published ones), to keep the generator
fast; the popularity skew and the rating distribution match.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalkit._constraints import SEED, constrained
from evalkit.data._common import Dataset, genres_from_flags

__all__ = ["GENRES", "load_sample"]

#: The ml-latest genre vocabulary, with the share of movies carrying each genre there.
GENRES: dict[str, float] = {
    "Drama": 0.448, "Comedy": 0.386, "Thriller": 0.194, "Action": 0.188, "Romance": 0.164,
    "Adventure": 0.130, "Crime": 0.123, "Sci-Fi": 0.101, "Horror": 0.100, "Fantasy": 0.080,
    "Children": 0.068, "Animation": 0.063, "Mystery": 0.059, "Documentary": 0.045,
    "War": 0.039, "Musical": 0.034, "Western": 0.017, "IMAX": 0.016, "Film-Noir": 0.009,
}  # fmt: skip

# Loadings of each genre on five taste factors: thrills, serious, light, family, dark.
_LOADINGS: dict[str, tuple[float, float, float, float, float]] = {
    "Drama": (0, 1, 0.2, 0, 0), "Comedy": (0, 0, 1, 0.2, 0), "Thriller": (0.6, 0, 0, 0, 0.7),
    "Action": (1, 0, 0, 0, 0.1), "Romance": (0, 0.3, 0.8, 0, 0), "Adventure": (1, 0, 0, 0.4, 0),
    "Crime": (0.3, 0.6, 0, 0, 0.4), "Sci-Fi": (0.7, 0, 0, 0, 0.4), "Horror": (0, 0, 0, 0, 1),
    "Fantasy": (0.4, 0, 0, 0.7, 0), "Children": (0, 0, 0.3, 1, 0), "Animation": (0, 0, 0.2, 1, 0),
    "Mystery": (0, 0.4, 0, 0, 0.7), "Documentary": (0, 0.8, 0, 0, 0), "War": (0.5, 0.7, 0, 0, 0),
    "Musical": (0, 0, 0.7, 0.5, 0), "Western": (0.6, 0.2, 0, 0, 0), "IMAX": (0.8, 0, 0, 0.3, 0),
    "Film-Noir": (0, 0.8, 0, 0, 0.4),
}  # fmt: skip

# Share of ratings per half star in ml-latest-small, 0.5 .. 5.0.
_RATING_SHARES = np.array([1.37, 2.79, 1.77, 7.55, 5.50, 19.88, 13.03, 26.60, 8.48, 13.03])
_STARS = np.arange(1, 11) / 2.0

_ADJECTIVES = (
    "Silent Dark Broken Golden Last Hidden Lost Crimson Wild Frozen Secret Burning Empty "
    "Eternal Fallen Forgotten Hollow Iron Midnight Quiet Restless Savage Shattered Stolen "
    "Strange Sweet Twisted Velvet Wandering Bitter Distant Electric Final Gentle Haunted Lonely "
    "Perfect Scarlet Endless Northern"
).split()
_NOUNS = (
    "River Road Garden Kingdom Shadow Promise Harbor Mirror Storm Station Letter Island Horizon "
    "City Dream Heart Frontier Voyage Witness Empire Canyon Orchard Lighthouse Circus Legacy "
    "Symphony Bridge Forest Desert Valley Tower Star Night Summer Game Stranger Season House "
    "Journey Winter"
).split()

_N_USERS = 850
_N_ITEMS = 4000
_N_FREE = 4
_START = 827_000_000  # 1996-03-17, a little before the first ml-latest-small rating
_END = 1_537_800_000  # 2018-09-24, its last rating
_YEAR = 365.25 * 86400
_ZIPF = 1.8  # exponent of the base popularity
_ACTIVITY = (52.0, 1.2)  # median and sigma of the log-normal number of ratings above 20
_CAP = 0.3  # largest share of the available movies a user rates
_BETA = 3.5  # weight of taste in the choice of movies
_ITEM_NOISE = 0.15
_USER_NOISE = 0.35
_FREE_SD = 0.3


def _unit_rows(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _gumbel_order(logits: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Column order of each row for sampling without replacement (Gumbel top-k)."""
    keys = logits + rng.gumbel(size=logits.shape)
    return np.argsort(-keys, axis=1, kind="stable")


def _genres(n_items: int, loadings: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Boolean (items x genres) matrix: 1-3 genres per movie, related genres together."""
    freq = np.array(list(GENRES.values()))
    n_genres = len(freq)
    primary = rng.choice(n_genres, size=n_items, p=freq / freq.sum())
    closeness = loadings @ loadings.T
    logits = np.log(freq)[None, :] + 3.0 * closeness[primary]
    logits[np.arange(n_items), primary] = np.inf
    order = _gumbel_order(logits, rng)
    count = rng.choice([1, 2, 3], size=n_items, p=[0.33, 0.38, 0.29])
    flags = np.zeros((n_items, n_genres), dtype=bool)
    rows = np.repeat(np.arange(n_items), count)
    ranks = np.arange(rows.size) - np.repeat(np.cumsum(count) - count, count)
    flags[rows, order[rows, ranks]] = True
    return flags


def _titles(n_items: int, rng: np.random.Generator) -> np.ndarray:
    adjective = np.array(_ADJECTIVES, dtype=object)[rng.integers(len(_ADJECTIVES), size=n_items)]
    noun = np.array(_NOUNS, dtype=object)[rng.integers(len(_NOUNS), size=n_items)]
    other = np.array(_NOUNS, dtype=object)[rng.integers(len(_NOUNS), size=n_items)]
    pattern = rng.choice(4, size=n_items, p=[0.4, 0.3, 0.2, 0.1])
    titles = np.where(pattern == 0, "The " + adjective + " " + noun, adjective + " " + noun)
    titles = np.where(pattern == 2, "The " + noun + " of the " + other, titles)
    titles = np.where(pattern == 3, "The " + noun, titles)
    sequel = rng.random(n_items) < 0.04
    return np.where(sequel, titles + " " + rng.choice(["2", "II", "3"], size=n_items), titles)


@constrained(seed=SEED)
def load_sample(*, seed: int | np.random.Generator | None = 0) -> Dataset:
    """Generate a MovieLens-like data set offline, deterministically for a seed.

    Parameters
    ----------
    seed : int, numpy.random.Generator or None, default 0
        Seed of the generator (``np.random.default_rng(seed)`` is called once). The same seed
        gives the same data.

    Returns
    -------
    Dataset
        ``ratings`` (``user_id``, ``item_id``, ``rating``, ``timestamp``; sorted by user, then
        time), ``items`` (``item_id``, ``title``, ``year``, ``genres``; the movies that have
        ratings) and the name ``"sample"``.

    Notes
    -----
    About 850 users, 3,500 rated movies (of 4,000) and 100,000 half-star ratings (0.5-5.0,
    mean 3.5, mode 4.0), with long-tail movie popularity, heavy-tailed user activity (at least
    20 ratings per user) and genre-linked latent tastes, so that a personalized recommender
    beats most-popular. The module documentation describes the model and compares its
    statistics with ml-latest-small.

    Examples
    --------
    >>> data = load_sample()
    >>> data.ratings.columns.tolist()
    ['user_id', 'item_id', 'rating', 'timestamp']
    >>> bool(data.ratings.groupby("user_id").size().min() >= 20)
    True
    >>> round(float(data.ratings["rating"].mean()), 1)
    3.5
    """
    rng = np.random.default_rng(seed)
    n_users, n_items = _N_USERS, _N_ITEMS
    loadings = _unit_rows(np.array(list(_LOADINGS.values()), dtype=np.float64) + 0.05)
    n_factors = loadings.shape[1]

    # Movies: genres, latent vectors, popularity, release.
    flags = _genres(n_items, loadings, rng)
    item_genre = (flags @ loadings) / flags.sum(axis=1, keepdims=True)
    center = item_genre.mean(axis=0)  # centred, so tastes also say what a user avoids
    item_genre = item_genre - center
    item_vec = np.hstack(
        [
            _unit_rows(item_genre + rng.normal(0.0, _ITEM_NOISE, (n_items, n_factors))),
            rng.normal(0.0, _FREE_SD, (n_items, _N_FREE)),
        ]
    )
    log_pop = -_ZIPF * np.log(rng.permutation(n_items) + 1.0)
    year = np.maximum(2018 - np.floor(rng.exponential(20.0, n_items)), 1902).astype(np.int64)
    release = ((year - 1970) * _YEAR + rng.uniform(0, _YEAR, n_items)).astype(np.int64)

    # Users: tastes from one or two favourite genres, activity period, number of ratings.
    freq = np.array(list(GENRES.values()))
    favourite = _gumbel_order(np.broadcast_to(np.log(freq), (n_users, freq.size)), rng)
    second = rng.random(n_users) < 0.5
    user_genre = loadings[favourite[:, 0]] + second[:, None] * loadings[favourite[:, 1]]
    user_genre = user_genre / (1.0 + second[:, None]) - center
    user_vec = np.hstack(
        [
            _unit_rows(user_genre + rng.normal(0.0, _USER_NOISE, (n_users, n_factors))),
            rng.normal(0.0, _FREE_SD, (n_users, _N_FREE)),
        ]
    )
    session = rng.random(n_users) < 0.5
    span = np.where(
        session,
        np.exp(rng.normal(np.log(3600.0), 1.0, n_users)),
        np.exp(rng.normal(np.log(90 * 86400.0), 2.0, n_users)),
    )
    span = np.minimum(span, 0.8 * (_END - _START))
    start = _START + rng.uniform(0, 1, n_users) ** 0.9 * (_END - _START - span)
    end = start + span

    available = release[None, :] < end[:, None]
    n_available = available.sum(axis=1)
    wanted = 20 + np.floor(rng.lognormal(np.log(_ACTIVITY[0]), _ACTIVITY[1], n_users))
    cap = np.floor(_CAP * n_available)
    n_rated = np.maximum(np.minimum(wanted, cap), 20).astype(np.int64)

    # Which movies: Gumbel top-k over popularity x taste, among the movies already released.
    affinity = user_vec @ item_vec.T
    logits = np.where(available, log_pop[None, :] + _BETA * affinity, -np.inf).astype(np.float32)
    noise = rng.standard_exponential(logits.shape, dtype=np.float32)
    keys = logits - np.log(np.maximum(noise, np.finfo(np.float32).tiny))
    threshold = np.sort(keys, axis=1)[np.arange(n_users), n_items - n_rated]
    users, items = np.nonzero(keys >= threshold[:, None])

    # Ratings: biases + taste + noise, mapped by rank onto the MovieLens half-star shares.
    user_bias = rng.normal(0.0, 0.45, n_users)
    z_pop = (log_pop - log_pop.mean()) / log_pop.std()
    item_bias = 0.3 * z_pop + rng.normal(0.0, 0.4, n_items)
    score = (
        user_bias[users]
        + item_bias[items]
        + 1.2 * affinity[users, items]
        + rng.normal(0.0, 0.6, users.size)
    )
    quantile = (np.argsort(np.argsort(score, kind="stable"), kind="stable") + 0.5) / score.size
    cuts = np.cumsum(_RATING_SHARES)[:-1] / _RATING_SHARES.sum()
    rating = _STARS[np.searchsorted(cuts, quantile)]

    # When: uniform between the later of period start and release, and the period end.
    low = np.maximum(start[users], release[items])
    timestamp = (low + rng.uniform(0, 1, users.size) * (end[users] - low)).astype(np.int64)

    ratings = pd.DataFrame(
        {
            "user_id": users.astype(np.int64) + 1,
            "item_id": items.astype(np.int64) + 1,
            "rating": rating,
            "timestamp": timestamp,
        }
    )
    ratings = ratings.sort_values(["user_id", "timestamp", "item_id"], kind="stable")
    ratings = ratings.reset_index(drop=True)

    rated = np.flatnonzero(np.bincount(items, minlength=n_items) > 0)
    titles = _titles(n_items, rng)
    item_table = pd.DataFrame(
        {
            "item_id": rated.astype(np.int64) + 1,
            "title": pd.Series(titles[rated], dtype="str"),
            "year": pd.array(year[rated], dtype="Int64"),
            "genres": genres_from_flags(flags[rated], list(GENRES)),
        }
    )
    return Dataset(ratings=ratings, items=item_table, name="sample",
                   users=_synthetic_users(np.bincount(users, minlength=n_users), rng))


#: ml-1m's age bands, the sample's synthetic users are drawn from.
_AGE_BANDS = np.array(["Under 18", "18-24", "25-34", "35-44", "45-49", "50-55", "56+"])
_OCCUPATIONS = np.array(["student", "engineer", "educator", "other", "retired", "artist"])


def _synthetic_users(activity: np.ndarray, rng: np.random.Generator) -> pd.DataFrame:
    """Invented attributes for the sample's users, drawn after everything else (so the
    ratings do not depend on them): gender (F with chance 0.3), an age band whose older bands
    grow likelier with the user's number of ratings, an occupation and no zip code. They
    describe no one; they exist so that the sample's reports can show groups."""
    n = activity.size
    gender = np.where(rng.random(n) < 0.3, "F", "M")
    busy = (np.argsort(np.argsort(activity, kind="stable"), kind="stable") + 0.5) / n
    band = np.clip(np.floor(rng.normal(2.0 + 1.6 * busy, 1.1)), 0, len(_AGE_BANDS) - 1)
    occupation = _OCCUPATIONS[rng.integers(0, len(_OCCUPATIONS), n)]
    return pd.DataFrame({"user_id": np.arange(1, n + 1, dtype=np.int64), "gender": gender,
                         "age": _AGE_BANDS[band.astype(int)], "occupation": occupation,
                         "zip": pd.Series([None] * n, dtype=object)})
