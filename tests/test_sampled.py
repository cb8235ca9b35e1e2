"""Sampled-candidate evaluation (evalkit.protocols.sampled): the sampler against the models it
claims (exhaustive enumeration, Monte Carlo against the analytic expectation), the corrections
against brute-force fits and the full ranking, a reversal the correction undoes, and RecBole's
own uni100 evaluation (its draws and numbers: tests/references/fixtures/recbole.json)."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalkit.metrics import RANKING_METRICS
from evalkit.protocols import sampled as S
from evalkit.protocols.sampled._draw import in_sorted_rows


def _world(n_users: int, n_items: int, true_rank, seed: int = 0):
    """Users with one held-out item and one seen (training) item each, and a score for every
    (user, item) pair that puts the held-out item at ``true_rank(u)`` among the items the user
    may be ranked against (every item but the seen one)."""
    rng = np.random.default_rng(seed)
    users = np.arange(1, n_users + 1)
    seen = rng.integers(0, n_items, n_users)
    positive = (seen + 1 + rng.integers(0, n_items - 1, n_users)) % n_items
    train = pd.DataFrame({"user_id": users, "item_id": seen})
    truth = pd.DataFrame({"user_id": users, "item_id": positive, "rating": 5.0})
    ranks = np.asarray([true_rank(u) for u in range(n_users)])
    rows = np.arange(n_users)
    score = rng.random((n_users, n_items))
    score[rows, seen] = 2.0  # above everything: a seen item must never count
    score[rows, positive] = -1.0
    others = -np.sort(-np.where(score < 1.5, score, -1.0), axis=1)  # the others, descending
    above = others[rows, np.maximum(ranks - 2, 0)]
    below = others[rows, ranks - 1]
    score[rows, positive] = np.where(ranks == 1, 1.0 + 1e-3, (above + below) / 2)
    scores = pd.DataFrame({"user_id": np.repeat(users, n_items),
                           "item_id": np.tile(np.arange(n_items), n_users),
                           "score": score.ravel()})
    return truth, train, scores, ranks


def test_the_sampling_matrix_is_the_sampling_law() -> None:
    n, m = 7, 3
    # without replacement: every set of m of the n - 1 other items, equally likely
    hyper = S.sampling_matrix(n, m, replace=False)
    for r in range(1, n + 1):
        above = set(range(r - 1))  # the r - 1 items ranked above the positive
        counts = np.zeros(m + 1)
        for chosen in itertools.combinations(range(n - 1), m):
            counts[len(above & set(chosen))] += 1
        np.testing.assert_allclose(hyper[r - 1], counts / counts.sum(), atol=1e-12)
    # with replacement: every sequence of m draws
    binom = S.sampling_matrix(n, m, replace=True)
    for r in range(1, n + 1):
        counts = np.zeros(m + 1)
        for drawn in itertools.product(range(n - 1), repeat=m):
            counts[sum(d < r - 1 for d in drawn)] += 1
        np.testing.assert_allclose(binom[r - 1], counts / counts.sum(), atol=1e-12)


@pytest.mark.parametrize("replace", [True, False])
def test_the_naive_metric_averages_to_its_expectation(replace) -> None:
    n_items, m, k, true = 60, 10, 3, 12
    truth, train, scores, _ = _world(3000, n_items, lambda u: true)
    candidates = S.sample_negatives(truth, train, n_negatives=m, replace=replace, rng=4)
    assert (candidates["n_possible"] == n_items - 2).all()
    ranks = S.sampled_ranks(scores, candidates)
    A = S.sampling_matrix(n_items - 1, m, replace=replace)
    for metric in ("hit_rate", "ndcg", "mrr"):
        per_rank = RANKING_METRICS[metric].per_rank
        expected = A[true - 1] @ per_rank(np.arange(1, m + 2, dtype=float), k)
        got = S.sampled_metric(ranks, metric=metric, k=k)
        sd = np.sqrt(A[true - 1] @ (per_rank(np.arange(1, m + 2, dtype=float), k)
                                    - expected) ** 2)
        assert abs(got.mean() - expected) < 4 * sd / math.sqrt(len(got)), metric


def test_candidates_follow_the_protocol() -> None:
    truth, train, _, _ = _world(50, 40, lambda u: 5)
    extra = pd.DataFrame({"user_id": [1], "item_id": [int(truth["item_id"].iloc[1])],
                          "rating": 4.0})
    truth = pd.concat([truth, extra], ignore_index=True)  # user 1 holds two positives
    c = S.sample_negatives(truth, train, n_negatives=30, replace=False, rng=1)
    negatives = c[~c["positive"]]
    seen = set(zip(train["user_id"], train["item_id"])) | set(zip(truth["user_id"],
                                                                   truth["item_id"]))
    assert not any(pair in seen for pair in zip(negatives["user_id"], negatives["item_id"]))
    assert not negatives.duplicated(["group", "item_id"]).any()
    assert (c.groupby("group")["positive"].sum() == 1).all()
    assert c.groupby("group").size().eq(31).all()
    pd.testing.assert_frame_equal(c, S.sample_negatives(truth, train, n_negatives=30,
                                                        replace=False, rng=1))
    per_user = S.sample_negatives(truth, train, n_negatives=5, per="user", rng=1)
    assert per_user.groupby("group")["user_id"].nunique().eq(1).all()
    assert int(per_user[per_user["user_id"] == 1]["positive"].sum()) == 2
    assert per_user["group"].nunique() == truth["user_id"].nunique()
    popular = S.sample_negatives(truth, pd.concat([train, train.assign(user_id=999)]),
                                 n_negatives=5, scheme="popularity", rng=1)
    drawn = popular[~popular["positive"]]
    assert drawn["item_id"].isin(train["item_id"]).all()  # items without training weight: never
    with pytest.raises(ValueError, match="needs 'train'"):
        S.sample_negatives(truth, None, scheme="popularity")
    with pytest.raises(ValueError, match="fewer items than the draws"):
        S.sample_negatives(truth, train, n_negatives=100, replace=False)
    with pytest.raises(ValueError, match="unknown scheme 'pop'"):
        S.sample_negatives(truth, train, scheme="pop")


def test_bv_minimises_bias_and_variance_and_gamma_one_is_the_posterior_mean() -> None:
    from scipy.optimize import minimize

    n, m, k = 300, 20, 5
    per_rank = RANKING_METRICS["ndcg"].per_rank
    A, values, prior = S._estimate._binned(n, m, True, per_rank, k)

    def loss(x: np.ndarray, gamma: float) -> float:
        # Krichene and Rendle: sum_r w_r (bias_r^2 + gamma var_r) of the estimate x[r~]
        mean = A @ x
        bias, var = mean - values, A @ (x * x) - mean * mean
        return float(prior @ (bias * bias + gamma * var))

    for gamma in (0.01, 0.3):
        closed = S._estimate._bv(A, values, prior, gamma)
        found = minimize(loss, np.zeros(m + 1), args=(gamma,), method="BFGS",
                         options={"gtol": 1e-12, "maxiter": 20000}).x
        assert loss(closed, gamma) <= loss(found, gamma) + 1e-12
        np.testing.assert_allclose(closed, found, atol=2e-4)
    posterior = (prior * values) @ A / (prior @ A)
    np.testing.assert_allclose(S._estimate._bv(A, values, prior, 1.0), posterior, rtol=1e-10)


def test_every_estimator_is_the_full_metric_when_every_item_is_a_candidate() -> None:
    truth, train, scores, ranks = _world(40, 30, lambda u: 1 + (7 * u) % 28)
    c = S.sample_negatives(truth, train, n_negatives="all", catalog=np.arange(30))
    assert (c.groupby("group").size() == 29).all()  # 30 items less the seen one
    got = S.sampled_ranks(scores, c)
    np.testing.assert_array_equal(got["rank"], ranks)
    np.testing.assert_array_equal(got["full_rank"], ranks)
    for metric, k in (("hit_rate", 10), ("ndcg", 5), ("mrr", None)):
        full = RANKING_METRICS[metric].per_rank(ranks.astype(float), k).mean()
        for estimator in S.ESTIMATORS:
            result = S.corrected_metric(got, metric=metric, k=k, estimator=estimator,
                                        n_resamples=0)
            assert result.value == pytest.approx(full, rel=1e-12), (metric, estimator)


def test_the_correction_restores_an_order_that_sampling_reverses() -> None:
    n_items, m, k = 1000, 100, 10
    # system a: every held-out item at rank 15 (never in the full top 10); system b: half at
    # rank 1, half at rank 900
    world_a = _world(1500, n_items, lambda u: 15, seed=1)
    world_b = _world(1500, n_items, lambda u: 1 if u % 2 else 900, seed=1)
    results = {}
    for name, (truth, train, scores, ranks) in (("a", world_a), ("b", world_b)):
        c = S.sample_negatives(truth, train, n_negatives=m, rng=0)
        got = S.sampled_ranks(scores, c)
        full = RANKING_METRICS["hit_rate"].per_rank(ranks.astype(float), k).mean()
        results[name] = (full, S.sampled_metric(got, metric="hit_rate", k=k).mean(),
                         S.corrected_metric(got, metric="hit_rate", k=k, n_resamples=50))
    (full_a, naive_a, fixed_a), (full_b, naive_b, fixed_b) = results["a"], results["b"]
    assert full_a < full_b and naive_a > naive_b  # sampling reverses the order
    assert fixed_a.value < fixed_b.value  # the correction restores it
    assert fixed_b.ci_low <= full_b <= fixed_b.ci_high
    assert abs(fixed_a.value - full_a) < 0.1 and abs(fixed_b.value - full_b) < 0.1
    # the same through compare_sampling, which scores every pair once (score frames here)
    truth, train = world_a[0], world_a[1]
    pd.testing.assert_frame_equal(truth, world_b[0])
    both = S.compare_sampling({"a": world_a[2], "b": world_b[2]}, truth, train,
                              metric="hit_rate", k=k, seeds=(0, 1), n_resamples=20,
                              catalog=np.arange(n_items))
    assert both.table.loc["a", "full"] == pytest.approx(full_a)
    assert both.table.loc["b", "full"] == pytest.approx(full_b)
    assert both.table.loc["a", "naive"] == pytest.approx(
        both.per_seed.loc[both.per_seed["system"] == "a", "naive"].mean())
    assert both.winner == {"full": "b", "naive": "a", "corrected": "b"}
    assert both.flips == {"naive": True, "corrected": False}
    assert both.tau["naive"] == -1.0 and both.tau["corrected"] == 1.0
    assert list(both.table["rank_full"]) == [2, 1]


def test_the_horvitz_thompson_rank_is_unbiased_under_popularity_sampling() -> None:
    n_items, m, true = 80, 5, 20
    truth, train, scores, _ = _world(2000, n_items, lambda u: true, seed=2)
    weights = pd.DataFrame({"user_id": -1, "item_id": np.repeat(np.arange(n_items),
                                                                np.arange(n_items) % 7 + 1)})
    c = S.sample_negatives(truth, pd.concat([train, weights]), n_negatives=m,
                           scheme="popularity", rng=3)
    got = S.sampled_ranks(scores, c)
    assert got["ht_rank"].mean() == pytest.approx(true, rel=0.05)
    uniform = S.sampled_ranks(scores, S.sample_negatives(truth, train, n_negatives=m, rng=3))
    np.testing.assert_allclose(uniform["ht_rank"],
                               1 + (uniform["rank"] - 1) * uniform["n_possible"] / m)


def test_bad_input_is_refused_naming_the_argument() -> None:
    truth, train, scores, _ = _world(10, 20, lambda u: 2)
    c = S.sample_negatives(truth, train, n_negatives=5)
    with pytest.raises(ValueError, match="have no score"):
        S.sampled_ranks(scores.iloc[5:], c)
    with pytest.raises(ValueError, match="two different scores"):
        S.sampled_ranks(pd.concat([scores, scores.iloc[:1].assign(score=5.0)]), c)
    pd.testing.assert_frame_equal(S.sampled_ranks(pd.concat([scores, scores.iloc[:3]]), c),
                                  S.sampled_ranks(scores, c))  # the same score twice: fine
    ranks = S.sampled_ranks(scores, c)
    with pytest.raises(ValueError, match="'metric' must be a ranking metric with a value"):
        S.corrected_metric(ranks, metric="f1")
    with pytest.raises(ValueError, match="'gamma'"):
        S.corrected_metric(ranks, gamma=2)
    big = _world(100, 1500, lambda u: 3 + u % 50)
    ranks = S.sampled_ranks(big[2], S.sample_negatives(big[0], big[1], n_negatives=50))
    with pytest.warns(UserWarning, match=r"outside HR@3's range \[0, 1\], so it is given as "
                                         "NaN"):
        out = S.corrected_metric(ranks, metric="hit_rate", k=3, estimator="cls",
                                 n_resamples=20)
    # an impossible value is never reported as an estimate
    assert np.isnan(out.value) and np.isnan(out.ci_low) and np.isnan(out.ci_high)


def test_the_command_line_writes_candidates_to_score(tmp_path, monkeypatch, capsys) -> None:
    from evalkit.cli import main

    truth, train, scores, ranks = _world(30, 40, lambda u: 1 + u % 20)
    truth.to_csv(tmp_path / "test.csv", index=False)
    train.to_csv(tmp_path / "train.csv", index=False)
    monkeypatch.chdir(tmp_path)
    assert main(["sample-candidates", "--truth", "test.csv", "--train", "train.csv", "--out",
                 "candidates.csv", "--n-negatives", "20", "--seed", "3"]) == 0
    assert "wrote 630 candidates (30 groups, 600 negatives)" in capsys.readouterr().out
    written = pd.read_csv(tmp_path / "candidates.csv")
    direct = S.sample_negatives(truth, train, n_negatives=20, rng=3)
    pd.testing.assert_frame_equal(written, direct, check_dtype=False)
    # the analyst scores the file and reads it back
    mine = written.merge(scores, on=["user_id", "item_id"])
    got = S.sampled_ranks(mine)
    assert (got["rank"] <= ranks).all()
    assert main(["sample-candidates", "--truth", "test.csv", "--out", "candidates.csv"]) == 2
    assert "exists" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:  # argparse names the option as typed
        main(["sample-candidates", "--truth", "test.csv", "--out", "c.parquet",
              "--n-negatives", "many"])
    assert exit_.value.code == 2
    assert ("argument --n-negatives: must be a positive integer or 'all'; got 'many'"
            in capsys.readouterr().err)
    assert not (tmp_path / "c.parquet").exists()


@pytest.mark.parametrize("per", ["positive", "user"])
@pytest.mark.parametrize("ties", ["pessimistic", "optimistic"])
def test_ranks_count_the_negatives_above_each_positive(per, ties) -> None:
    rng = np.random.default_rng(5)
    truth = pd.DataFrame({"user_id": np.repeat(np.arange(1, 21), 3),
                          "item_id": np.tile([0, 1, 2], 20) + np.repeat(np.arange(20), 3)})
    train = pd.DataFrame({"user_id": np.arange(1, 21), "item_id": 40 + np.arange(20)})
    c = S.sample_negatives(truth, train, n_negatives=12, per=per, catalog=np.arange(80),
                           rng=2)
    c = c.assign(score=rng.integers(0, 6, len(c)).astype(float))  # many ties
    got = S.sampled_ranks(c, ties=ties)
    # brute force: each positive against its own group's negatives
    want = []
    for row in c[c["positive"]].itertuples():
        negatives = c[(c["group"] == row.group) & ~c["positive"]]
        beats = (negatives["score"] >= row.score) if ties == "pessimistic" else \
            (negatives["score"] > row.score)
        want.append((row.user_id, row.item_id, 1 + int(beats.sum()),
                     1 + float((beats / negatives["probability"]).sum()) / row.n_negatives))
    want = pd.DataFrame(want, columns=["user_id", "item_id", "rank", "ht_rank"])
    merged = got.merge(want, on=["user_id", "item_id"], suffixes=("", "_want"))
    assert len(merged) == len(truth)
    np.testing.assert_array_equal(merged["rank"], merged["rank_want"])
    np.testing.assert_allclose(merged["ht_rank"], merged["ht_rank_want"], rtol=1e-12)


RECBOLE = Path(__file__).resolve().parent / "references" / "fixtures" / "recbole.json"


def _recbole() -> dict:
    """RecBole 1.2.1's uni100 evaluation of a fixed score per item on a small dataset
    (tests/references/recbole.py): its data, the negatives its sampler drew per user, its top
    10 per user and its metrics, as frames."""
    fixture = json.loads(RECBOLE.read_text())

    def pairs(rows: list) -> pd.DataFrame:
        return pd.DataFrame(rows, columns=["user_id", "item_id"], dtype=np.int64)

    drawn = fixture["negatives"]
    return {
        "k": fixture["k"], "m": fixture["n_negatives"], "metrics": fixture["metrics"],
        "catalog": np.asarray(fixture["catalog"]),
        "seen": pd.concat([pairs(fixture["train"]), pairs(fixture["valid"])], ignore_index=True),
        "truth": pairs(fixture["test"]).sort_values(["user_id", "item_id"],
                                                    ignore_index=True).assign(rating=5.0),
        "score": pd.Series(fixture["scores"]).rename(index=int),
        "negatives": pd.DataFrame({"user_id": np.repeat([int(u) for u in drawn],
                                                        [len(v) for v in drawn.values()]),
                                   "item_id": np.concatenate(list(drawn.values()))}),
        "top_k": {int(u): items for u, items in fixture["top_k"].items()},
    }


def test_recbole_uni100_numbers_are_evalkits_metrics_over_recboles_sampled_lists() -> None:
    import evalkit as ek

    rb = _recbole()
    truth, negatives, k = rb["truth"], rb["negatives"], rb["k"]
    # RecBole's candidates (each user's test items and the negatives it drew; 8,048 of the
    # 15,400 draws repeat an item already drawn for the user), scored by the stored scores,
    # listed and ranked by evalkit
    candidates = pd.concat([truth[["user_id", "item_id"]].assign(positive=True),
                            negatives.assign(positive=False)], ignore_index=True)
    used = pd.concat([rb["seen"], truth[["user_id", "item_id"]]]).drop_duplicates()
    n_possible = len(rb["catalog"]) - used.groupby("user_id").size()
    user = candidates["user_id"]
    candidates = candidates.assign(
        group=pd.factorize(user)[0],
        probability=np.where(candidates["positive"], np.nan,
                             1.0 / n_possible.loc[user].to_numpy()),
        n_negatives=rb["m"] * truth.groupby("user_id").size().loc[user].to_numpy(),
        n_possible=n_possible.loc[user].to_numpy(), replace=True)
    lists = S.sampled_lists(candidates.assign(
        score=rb["score"].loc[candidates["item_id"]].to_numpy()))
    top = lists[lists["rank"] <= k].groupby("user_id")["item_id"].agg(list)
    assert top.to_dict() == rb["top_k"]  # RecBole's torch.topk lists, item for item
    got = ek.evaluate(truth, lists, k=k, metrics=["recall", "ndcg", "hit_rate", "mrr"],
                      gain="binary", n_resamples=0)
    assert list(rb["metrics"]) == list(got.per_user.columns)
    for key, recbole in rb["metrics"].items():
        want = pd.Series(recbole["per_user"]).rename(index=int).sort_index()
        np.testing.assert_array_equal(got.per_user.index, want.index)
        np.testing.assert_allclose(got.per_user[key].to_numpy(), want.to_numpy(), rtol=0,
                                   atol=1e-12, err_msg=key)
        assert got.summary.loc[key, "mean"] == pytest.approx(recbole["mean"], rel=0, abs=1e-12)
    # users with one test item: the naive sampled metric of its rank among the draws is
    # RecBole's value too
    single = truth.groupby("user_id").size().loc[lambda n: n == 1].index
    assert len(single) >= 3
    ranks = S.sampled_ranks(candidates[candidates["user_id"].isin(single)].assign(
        score=lambda c: rb["score"].loc[c["item_id"]].to_numpy()))
    for key, metric in (("hit_rate@10", "hit_rate"), ("ndcg@10", "ndcg"), ("mrr@10", "mrr")):
        naive = S.sampled_metric(ranks, metric=metric, k=k)
        want = pd.Series(rb["metrics"][key]["per_user"]).rename(index=int).loc[naive.index]
        np.testing.assert_allclose(naive.to_numpy(), want.to_numpy(), rtol=0, atol=1e-12)


def test_a_repeated_negative_counts_per_draw_here_and_once_in_recboles_lists() -> None:
    import evalkit as ek

    # one user, one positive (item 0, score 0.5) and 12 draws: items 1..9 score above it,
    # item 1 drawn twice; two draws below. The sampled rank counts each draw above (11);
    # RecBole's lists, by item, put the positive 10th: a hit at 10 there, not here.
    drawn = [1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 20, 21]
    candidates = pd.DataFrame({
        "user_id": 7, "item_id": [0] + drawn, "positive": [True] + [False] * 12, "group": 0,
        "probability": [np.nan] + [1 / 50] * 12, "n_negatives": 12, "n_possible": 50,
        "replace": True})
    scores = {**dict(zip(range(1, 10), np.linspace(1.0, 0.6, 9))), 0: 0.5, 20: 0.1, 21: 0.2}
    scored = candidates.assign(score=candidates["item_id"].map(scores))
    ranks = S.sampled_ranks(scored)
    assert ranks["rank"].tolist() == [11]
    assert S.sampled_metric(ranks, metric="hit_rate", k=10).tolist() == [0.0]
    lists = S.sampled_lists(scored)
    assert lists.loc[lists["item_id"] == 0, "rank"].tolist() == [10]
    truth = pd.DataFrame({"user_id": [7], "item_id": [0]})
    got = ek.evaluate(truth, lists, k=10, metrics=["hit_rate"], threshold=None,
                      n_resamples=0)
    assert got.per_user["hit_rate@10"].tolist() == [1.0]


def test_recboles_uni100_draws_follow_evalkits_per_user_law() -> None:
    from scipy.stats import chisquare

    rb = _recbole()
    truth, seen, negatives, catalog, m = (rb["truth"], rb["seen"], rb["negatives"],
                                          rb["catalog"], rb["m"])
    mine = S.sample_negatives(truth, seen, n_negatives=m, per="user", catalog=catalog, rng=0)
    law = mine.groupby("user_id")[["n_negatives", "n_possible"]].first()
    # the number of draws: per user, 100 for each of its test items
    pd.testing.assert_series_equal(negatives.groupby("user_id").size(), law["n_negatives"],
                                   check_names=False)
    pd.testing.assert_series_equal(law["n_negatives"], m * truth.groupby("user_id").size(),
                                   check_names=False)
    # never an item of the user's train, validation or test rows; always a catalogue item
    used = pd.concat([seen, truth[["user_id", "item_id"]]]).drop_duplicates()
    for drawn in (negatives, mine[~mine["positive"]]):  # RecBole's draws and evalkit's
        hit = drawn.merge(used, on=["user_id", "item_id"], how="left", indicator=True)
        assert (hit["_merge"] == "left_only").all()
        assert drawn["item_id"].isin(catalog).all()
    # uniform over the allowed items: each item's expected count is the sum over users of
    # n_negatives / n_possible where it is allowed (evalkit's probability of one draw)
    allowed = pd.MultiIndex.from_product([law.index, catalog]).difference(
        pd.MultiIndex.from_frame(used))
    assert (pd.Series(1, allowed).groupby(level=0).sum() == law["n_possible"]).all()
    per_draw = (law["n_negatives"] / law["n_possible"]).loc[allowed.get_level_values(0)]
    expected = pd.Series(per_draw.to_numpy()).groupby(allowed.get_level_values(1)).sum()
    own = mine[~mine["positive"]]
    assert own["replace"].all()
    np.testing.assert_array_equal(own["probability"], 1.0 / own["n_possible"])
    for drawn in (negatives, own):  # RecBole's draws: p = 0.51
        observed = drawn["item_id"].value_counts().reindex(expected.index, fill_value=0)
        assert chisquare(observed, expected).pvalue > 1e-3


@pytest.mark.parametrize("per", ["positive", "user"])
@pytest.mark.parametrize("ties", ["pessimistic", "optimistic"])
def test_a_full_score_table_gives_the_full_rank_beside_the_sampled_one(per, ties) -> None:
    """sampled_ranks(table, candidates, train=train), the table holding a score for every
    (user, item) pair: full_rank is the rank sampled_ranks gives over n_negatives="all"
    candidates; a user whose table lacks one allowed item gets NaN."""
    rng = np.random.default_rng(8)
    train = pd.DataFrame({"user_id": rng.integers(1, 31, 600),
                          "item_id": rng.integers(0, 80, 600)}).drop_duplicates()
    truth = pd.DataFrame({"user_id": rng.integers(1, 31, 90), "item_id": rng.integers(0, 80, 90)})
    truth = truth.merge(train, how="left", indicator=True)
    truth = truth[truth["_merge"] == "left_only"].drop(columns="_merge").drop_duplicates()
    catalog = np.arange(80)
    users = np.sort(truth["user_id"].unique())
    table = pd.DataFrame({"user_id": np.repeat(users, 80), "item_id": np.tile(catalog, len(users))})
    table["score"] = rng.integers(0, 12, len(table)) / 4.0  # ties
    some = S.sample_negatives(truth, train, n_negatives=5, per=per, catalog=catalog, rng=1)
    every = S.sample_negatives(truth, train, n_negatives="all", per=per, catalog=catalog)
    # the table also scores items outside the catalogue the candidates came from: not counted
    wider = pd.concat([table, table.assign(item_id=table["item_id"] + 1000)], ignore_index=True)
    got = S.sampled_ranks(wider, some, train=train, catalog=catalog, ties=ties)
    want = S.sampled_ranks(table, every, ties=ties)
    key = ["user_id", "item_id"]
    merged = got.merge(want[key + ["rank"]], on=key, suffixes=("", "_all"))
    assert len(merged) == len(got) == len(truth)
    np.testing.assert_array_equal(merged["full_rank"], merged["rank_all"].astype(float))
    assert (merged["full_rank"] >= merged["rank"]).all()
    assert S.sampled_ranks(table, some, ties=ties)["full_rank"].isna().all()  # without train
    # one allowed item of the first user missing from the table: that user's full rank is
    # unknown, the others' unchanged
    first = users[0]
    seen = set(train.loc[train["user_id"] == first, "item_id"]) | set(
        truth.loc[truth["user_id"] == first, "item_id"])
    gap = next(i for i in catalog if i not in seen)
    holed = table[~((table["user_id"] == first) & (table["item_id"] == gap))]
    with pytest.warns(UserWarning, match=r"do not cover every item 1 of \d+ users"):
        partial = S.sampled_ranks(holed, some, train=train, catalog=catalog, ties=ties)
    mine = partial["user_id"] == first
    assert partial.loc[mine, "full_rank"].isna().all()
    np.testing.assert_array_equal(partial.loc[~mine, "full_rank"], got.loc[~mine, "full_rank"])


def test_popularity_draws_with_equal_counts_have_the_uniform_probability() -> None:
    """Every item with the same number of training interactions (2, not 1): a popularity
    draw's probability is 1 / the allowed items, and the Horvitz-Thompson rank counts the
    negatives above the positive that many times over."""
    train = pd.DataFrame({"user_id": np.repeat([10, 11], 6), "item_id": np.tile(np.arange(6), 2)})
    truth = pd.DataFrame({"user_id": [1, 2], "item_id": [0, 1]})
    drawn = S.sample_negatives(truth, train, n_negatives=3, scheme="popularity", rng=0)
    negatives = drawn[~drawn["positive"]]
    np.testing.assert_allclose(negatives["probability"], 1 / 5)  # 5 items besides the positive
    scored = drawn.assign(score=np.where(drawn["positive"], 0.5, 1.0))  # every negative above
    ranks = S.sampled_ranks(scored)
    np.testing.assert_allclose(ranks["ht_rank"], 1 + 5.0)  # all 5 other items above


def test_the_full_rank_arguments_are_checked() -> None:
    truth = pd.DataFrame({"user_id": [1, 2], "item_id": [0, 1]})
    train = pd.DataFrame({"user_id": [1, 2], "item_id": [2, 3]})
    candidates = S.sample_negatives(truth, train, n_negatives=2, rng=0)
    scored = candidates.assign(score=1.0)
    with pytest.raises(ValueError, match="sampled_ranks: 'train' .* needs 'candidates'"):
        S.sampled_ranks(scored, train=train)
    with pytest.raises(ValueError, match="sampled_ranks: 'catalog' is read with 'train'"):
        S.sampled_ranks(scored, candidates, catalog=[0, 1, 2, 3])
    with pytest.raises(ValueError, match="sampled_ranks: .*'train'.*item_id"):
        S.sampled_ranks(scored, candidates, train=train.rename(columns={"item_id": "i"}))


@pytest.mark.parametrize("replace", [True, False])
def test_the_correction_reads_each_users_own_number_of_candidates(replace) -> None:
    """Real data mixes users with few and many candidates. Here half the users rank their
    held-out item among 200 candidates, half among 2,000, with the same distribution of
    relative positions, so their true ranks differ tenfold. EM's estimate is near the true
    full-ranking HR@10 and NDCG@10 (the naive sampled values are far off); taking every user's
    count as the largest (2,000) would put it about 0.1 below."""
    rng = np.random.default_rng(5)
    n_users, m = 4000, 100
    n = np.where(np.arange(n_users) % 2 == 0, 200, 2000)
    r = 1 + np.round(rng.beta(0.3, 4.0, n_users) * (n - 1)).astype(int)
    sampled_rank = 1 + (rng.binomial(m, (r - 1) / (n - 1)) if replace
                        else rng.hypergeometric(r - 1, n - r, m))
    ranks = pd.DataFrame({"user_id": np.arange(n_users), "rank": sampled_rank,
                          "n_negatives": m, "n_possible": n - 1, "replace": replace})
    for metric, true in (("hit_rate", np.mean(r <= 10)),
                         ("ndcg", np.mean((r <= 10) / np.log2(r + 1)))):
        got = S.corrected_metric(ranks, metric=metric, k=10, estimator="em", n_resamples=0)
        assert abs(got.naive - true) > 0.2  # sampling inflates it: there is work to do
        assert got.value == pytest.approx(true, abs=0.03), (metric, got.value, true)


def test_in_sorted_rows_is_membership_in_each_users_row() -> None:
    """The sampling's rejection step against np.isin, user by user: rows of different
    lengths (one empty), items below, inside and above a row, and groups sharing a user."""
    rng = np.random.default_rng(4)
    rows = [np.sort(rng.choice(50, size, replace=False)) for size in (0, 1, 7, 30, 50)]
    offsets = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int64)
    flat = np.concatenate(rows).astype(np.int64)
    group_user = np.array([3, 0, 4, 1, 2, 3], dtype=np.int64)
    groups = rng.integers(0, len(group_user), 2_000)
    items = rng.integers(-2, 53, 2_000)
    got = in_sorted_rows(groups, group_user, items, offsets, flat)
    want = np.array([np.isin(i, rows[group_user[g]]) for g, i in zip(groups, items)])
    np.testing.assert_array_equal(got, want)
    assert got.any() and not got.all()
