"""The same data gives the same numbers, whatever the row order of its frames and whether it
comes from a CSV or a Parquet file: splits, evaluate, compare, the sampled and debiased
protocols, and the inputs of every report page (from which each page's numbers follow).

Every comparison here is exact: a draw given to another row, or a sum taken in another
order, changes the last bits of a number, and that is what these tests are for."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evalkit as ek
from evalkit import report as rp
from evalkit.models import MostPopular, Random
from evalkit.protocols import debiased, sampled


def _shuffled(frame: pd.DataFrame, seed: int) -> pd.DataFrame:
    out = frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    assert not out.equals(frame.reset_index(drop=True))  # the order did change
    return out


def _rows(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows as a set: sorted by every column, index dropped."""
    return frame.sort_values(list(frame.columns)).reset_index(drop=True)


def _equal(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(a, b, check_exact=True)


@pytest.fixture(scope="module")
def real(ml_latest_small_dir) -> dict:
    """ml-latest-small split per user at random (whose draws depend on which row is which),
    two baselines' lists, and the same three frames with their rows shuffled."""
    ratings = ek.load_movielens(ml_latest_small_dir).ratings
    split = ek.user_ratio_split(ratings, test_fraction=0.2, rng=0)
    users = np.sort(split.test["user_id"].unique())
    systems = {"pop": MostPopular().fit(split.train).recommend(users, k=20),
               "knn": Random(rng=3).fit(split.train).recommend(users, k=20)}
    return {"ratings": ratings, "train": split.train, "test": split.test, "systems": systems,
            "shuffled": {"ratings": _shuffled(ratings, 1), "train": _shuffled(split.train, 2),
                         "test": _shuffled(split.test, 3),
                         "systems": {n: _shuffled(s, 4) for n, s in systems.items()}}}


@pytest.mark.parametrize("strategy", ["random", "user_ratio", "kfold", "train_dev_test"])
def test_a_seeded_split_is_the_same_for_the_same_rows_in_any_order(real, strategy) -> None:
    def made(ratings: pd.DataFrame):
        if strategy == "kfold":
            return ek.split.kfold_split(ratings, folds=3, rng=5)
        return ek.split.split_by(ratings, strategy, rng=5)

    a, b = made(real["ratings"]), made(real["shuffled"]["ratings"])
    for x, y in zip(a if isinstance(a, list) else [a], b if isinstance(b, list) else [b]):
        for part in ("train", "test") + (("dev",) if getattr(x, "dev", None) is not None
                                         else ()):
            _equal(_rows(getattr(x, part).reset_index(drop=True)),
                   _rows(getattr(y, part).reset_index(drop=True)))


def test_evaluate_and_compare_give_the_same_numbers(real) -> None:
    s = real["shuffled"]
    a = ek.evaluate(real["test"], real["systems"]["knn"], k=[5, 10], train=real["train"])
    b = ek.evaluate(s["test"], s["systems"]["knn"], k=[5, 10], train=s["train"])
    _equal(a.summary.table, b.summary.table)
    _equal(a.per_user, b.per_user)
    a = ek.compare(real["systems"], real["test"], k=10, n_permutations=500, n_resamples=200)
    b = ek.compare(s["systems"], s["test"], k=10, n_permutations=500, n_resamples=200)
    _equal(a.table, b.table)


@pytest.mark.parametrize("per", ["positive", "user"])
def test_the_sampled_protocol_gives_the_same_numbers(real, per) -> None:
    """The draws go to the same held-out items (the issue found MostPopular's uniform
    sampled NDCG@10 at 0.3876 from a Parquet split and 0.3893 from the same split as CSV)."""
    s = real["shuffled"]
    model = MostPopular().fit(real["train"])
    out = []
    for test, train in ((real["test"], real["train"]), (s["test"], s["train"])):
        relevant = test[test["rating"] >= 4.0]
        candidates = sampled.sample_negatives(relevant, train, n_negatives=50, per=per, rng=3)
        scores = model.score(candidates[["user_id", "item_id"]])
        ranks = sampled.sampled_ranks(scores, candidates)
        # (pooled per user, each user's draws differ in number: the correction is slow)
        corrected = sampled.corrected_metric(ranks, metric="ndcg", k=10, n_resamples=50) \
            if per == "positive" else None
        out.append((candidates, ranks, sampled.sampled_metric(ranks, metric="ndcg", k=10),
                    corrected))
    (ca, ra, na, ea), (cb, rb, nb, eb) = out
    _equal(ca, cb)
    _equal(ra, rb)
    pd.testing.assert_series_equal(na, nb, check_exact=True)
    if ea is not None:
        assert (ea.value, ea.ci_low, ea.ci_high) == (eb.value, eb.ci_low, eb.ci_high)


def test_the_debiased_metrics_give_the_same_numbers(real) -> None:
    s = real["shuffled"]
    a = debiased.gamma_sensitivity(real["systems"], real["test"], real["train"],
                                   n_resamples=100)
    b = debiased.gamma_sensitivity(s["systems"], s["test"], s["train"], n_resamples=100)
    _equal(a, b)


def test_a_report_reads_the_same_data_from_csv_in_any_order_as_from_parquet(real, tmp_path
                                                                            ) -> None:
    """The analyst's split and lists as Parquet files, and as CSV files with their rows
    shuffled: the inputs of every page are the same frames, row for row, so every number a
    page computes from them (fits, splits, draws, sums, the headline) is the same; the
    protocol section, whose draws the issue caught, is compared too."""
    folders = {}
    s = real["shuffled"]
    for name, (train, test, recs) in {
            "parquet": (real["train"], real["test"], real["systems"]["knn"]),
            "csv": (s["train"], s["test"], s["systems"]["knn"])}.items():
        folder = tmp_path / name
        folder.mkdir()
        for part, frame in (("train", train), ("test", test), ("recs", recs)):
            if name == "parquet":
                frame.to_parquet(folder / f"{part}.parquet")
            else:
                frame.to_csv(folder / f"{part}.csv", index=False)
        folders[name] = folder
    loaded = {}
    for name, folder in folders.items():
        suffix = "parquet" if name == "parquet" else "csv"
        inputs = rp.load_inputs(str(folder))
        systems = rp.load_systems(inputs, recs={"mine": str(folder / f"recs.{suffix}")},
                                  baselines=["MostPopular"], k=10)
        protocols = rp.protocol_check(inputs, systems, ["MostPopular"], k=10, metric="ndcg",
                                      max_users=100)
        loaded[name] = (inputs, systems, protocols)
    (ia, sa, pa), (ib, sb, pb) = loaded["parquet"], loaded["csv"]
    assert ia.fingerprint == ib.fingerprint
    _equal(ia.train, ib.train)
    _equal(ia.test, ib.test)
    assert list(sa) == list(sb)
    for name in sa:
        _equal(sa[name], sb[name])
    _equal(rp.protocol_table(pa), rp.protocol_table(pb))
    _equal(pa.debiased, pb.debiased)
    assert rp.protocol_note(pa) == rp.protocol_note(pb)


def test_every_baseline_fits_the_same_model_from_the_rows_in_any_order() -> None:
    """The baselines' lists and scores, and the rating baselines' predictions, exactly equal
    for the training rows in any order (the sample: small, every model fits in a moment)."""
    from evalkit.models import MODELS, predict_ratings

    ratings = ek.load_sample().ratings
    ratings = ratings[ratings["user_id"] <= ratings["user_id"].unique()[199]]  # 200 users
    split = ek.user_ratio_split(ratings, test_fraction=0.2, rng=0)
    shuffled = _shuffled(split.train, 5)
    users = np.sort(split.test["user_id"].unique())[:100]
    for name, model in MODELS.items():
        options = {"rng": 0} if name == "Random" else {}
        a = model(**options).fit(split.train).recommend(users, k=10)
        b = model(**options).fit(shuffled).recommend(users, k=10)
        _equal(a.reset_index(drop=True), b.reset_index(drop=True))
    pairs = split.test[["user_id", "item_id"]]
    a, b = predict_ratings(split.train, pairs), predict_ratings(shuffled, pairs)
    for name in a:
        _equal(a[name].reset_index(drop=True), b[name].reset_index(drop=True))
