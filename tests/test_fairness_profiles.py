"""Other libraries' group metrics reproduced by evalkit.fairness.

Elliot: its ``RSP``, ``REO`` and the four MAD metrics transcribed below as literally as
possible, because Elliot cannot be run here (it is not on PyPI, and its repository cannot be
reached from the test machines); evalkit must give the transcription's numbers on a random
fixture with several groups and overlapping item groups, and hand-computed values on toy
cases. LensKit: ``entropy`` and ``rank_biased_entropy`` from the values LensKit 2025.8.1
computed in its own environment (``tests/references/fairness_lenskit.py``, fixture
``tests/references/fixtures/fairness_lenskit.json``).
"""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evalkit as ek
from evalkit import fairness
from evalkit.metrics import top_k

# --------------------------------------------------------------------------------------------
# Elliot, transcribed. Source: sisinflab/elliot at commit
# fc27efedaddf4a57294db14b4bcaa5553a0015d2 (the files last changed in 012692632dc1, 2021):
# elliot/evaluation/metrics/fairness/rsp/rsp.py (RSP), reo/reo.py (REO),
# MAD/UserMADranking.py, MAD/UserMADrating.py, MAD/ItemMADranking.py, MAD/ItemMADrating.py,
# and elliot/evaluation/relevance/relevance.py (BinaryRelevance, DiscountedRelevance).
# Elliot's inputs, as its evaluator builds them: recommendations {user: [(item, score), ...]}
# sorted by score, the test set {user: {item: rating}}, the training set {user: {item:
# rating}}, and a clustering file of "id<TAB>cluster" rows read with pandas. The method
# bodies below are Elliot's, with self._x attributes as local variables.
# --------------------------------------------------------------------------------------------


def _read_clustering(rows: list[tuple[int, int]]) -> pd.DataFrame:
    """What pd.read_csv(clustering_file, sep="\\t", header=None) gives for these rows."""
    return pd.DataFrame(rows)


def elliot_binary_relevance(test, rel_threshold):
    return {u: [i for i, r in test_items.items() if r >= rel_threshold]
            for u, test_items in test.items()}


def elliot_discounted_relevance(test, rel_threshold):
    return {u: {i: 2 ** (score - rel_threshold + 1) - 1
                for i, score in test_items.items() if score >= rel_threshold}
            for u, test_items in test.items()}


def elliot_logarithmic_ranking_discount(k):
    return 1 / math.log(k + 2) * math.log(2)


def elliot_rsp(recommendations, train_dict, clustering_rows, cutoff):
    item_clustering = _read_clustering(clustering_rows).set_axis(["id", "cluster"], axis=1)
    item_n_clusters = item_clustering["cluster"].nunique()
    item_clustering = item_clustering.groupby("cluster")["id"].apply(set).to_dict()
    num = np.zeros(item_n_clusters)
    den = np.zeros(item_n_clusters)

    def user_pop_rsp(user_recommendations, user_train, cutoff):
        recommended_items = set([i for i, _ in user_recommendations[:cutoff]])
        for i, i_set in item_clustering.items():
            num[i] += len(recommended_items & i_set)
            den[i] += len(i_set - user_train)

    for u, u_r in recommendations.items():
        user_pop_rsp(u_r, set(train_dict[u].keys()), cutoff)
    with np.errstate(divide="ignore", invalid="ignore"):
        pr = num / den
        return pr, np.std(pr) / np.mean(pr)


def elliot_reo(recommendations, train_dict, test, rel_threshold, clustering_rows, cutoff):
    relevance = elliot_binary_relevance(test, rel_threshold)
    item_clustering = _read_clustering(clustering_rows).set_axis(["id", "cluster"], axis=1)
    item_n_clusters = item_clustering["cluster"].nunique()
    item_clustering = item_clustering.groupby("cluster")["id"].apply(set).to_dict()
    num = np.zeros(item_n_clusters)
    den = np.zeros(item_n_clusters)

    def user_pop_reo(user_recommendations, user_train, cutoff, user_relevant_items):
        recommended_items = set([i for i, _ in user_recommendations[:cutoff]
                                 if i in user_relevant_items])
        for i, i_set in item_clustering.items():
            num[i] += len(recommended_items & i_set)
            den[i] += len((i_set & user_relevant_items) - user_train)

    for u, u_r in recommendations.items():
        if len(relevance.get(u, [])):
            user_pop_reo(u_r, set(train_dict[u].keys()), cutoff, set(relevance.get(u, [])))
    with np.errstate(divide="ignore", invalid="ignore"):
        pr = num / den
        return pr, np.std(pr) / np.mean(pr)


def _elliot_mad(avg, n_clusters):
    differences = []
    for i in range(n_clusters):
        for j in range(i + 1, n_clusters):
            differences.append(abs(avg[i] - avg[j]))
    return np.average(differences)


def elliot_user_mad_ranking(recommendations, test, rel_threshold, clustering_rows, cutoff):
    gains = elliot_discounted_relevance(test, rel_threshold)
    user_clustering = _read_clustering(clustering_rows)
    n_clusters = user_clustering[1].nunique()
    user_clustering = dict(zip(user_clustering[0], user_clustering[1]))
    sums = np.zeros(n_clusters)
    n_users = np.zeros(n_clusters)

    def get_rel(user, item):
        return gains.get(user, {}).get(item, 0)

    def compute_idcg(user, cutoff):
        g = sorted(list(gains.get(user, {}).values()))
        n = min(len(g), cutoff)
        m = len(g)
        return sum(map(lambda _, r: g[m - r - 1] * elliot_logarithmic_ranking_discount(r), g,
                       range(n)))

    def compute_user_ndcg(user_recommendations, user, cutoff):
        idcg = compute_idcg(user, cutoff)
        dcg = sum([get_rel(user, x) * elliot_logarithmic_ranking_discount(r)
                   for r, x in enumerate([item for item, _ in user_recommendations])
                   if r < cutoff])
        return dcg / idcg if dcg > 0 else 0

    for u, u_r in recommendations.items():
        if len(list(gains.get(u, {}).keys())):
            v = compute_user_ndcg(u_r, u, cutoff)
            cluster = user_clustering.get(u, None)
            if cluster is not None:
                sums[cluster] += v
                n_users[cluster] += 1
    avg = [sums[i] / n_users[i] for i in range(n_clusters)]
    return _elliot_mad(avg, n_clusters)


def elliot_user_mad_rating(recommendations, test, rel_threshold, clustering_rows, cutoff):
    relevance = elliot_binary_relevance(test, rel_threshold)
    user_clustering = _read_clustering(clustering_rows)
    n_clusters = user_clustering[1].nunique()
    user_clustering = dict(zip(user_clustering[0], user_clustering[1]))
    sums = np.zeros(n_clusters)
    n_users = np.zeros(n_clusters)
    for u, u_r in recommendations.items():
        if len(relevance.get(u, [])):
            v = np.average([i[1] for i in u_r[:cutoff]])
            cluster = user_clustering.get(u, None)
            if cluster is not None:
                sums[cluster] += v
                n_users[cluster] += 1
    avg = [sums[i] / n_users[i] for i in range(n_clusters)]
    return _elliot_mad(avg, n_clusters)


def elliot_item_mad(recommendations, test, rel_threshold, clustering_rows, cutoff, *,
                    ranking):
    """ItemMADranking (ranking=True: the discounted gain) or ItemMADrating (the score)."""
    gains = elliot_discounted_relevance(test, rel_threshold)
    relevance = elliot_binary_relevance(test, rel_threshold)
    item_clustering = _read_clustering(clustering_rows)
    n_clusters = item_clustering[1].nunique()
    item_clustering = dict(zip(item_clustering[0], item_clustering[1]))
    sums = np.zeros(n_clusters)
    n_items = np.zeros(n_clusters)
    item_count, item_gain = {}, {}
    for u, u_r in recommendations.items():
        if len(relevance.get(u, [])):
            for i, r in u_r[:cutoff]:
                item_count[i] = item_count.get(i, 0) + 1
                if ranking:
                    item_gain[i] = item_gain.get(i, 0) + gains.get(u, {}).get(i, 0)
                else:
                    item_gain[i] = item_gain.get(i, 0) + (r if i in relevance.get(u, [])
                                                          else 0)
    for item, gain in item_gain.items():
        v = gain / item_count[item]
        cluster = item_clustering.get(item, None)
        if cluster is not None:
            sums[cluster] += v
            n_items[cluster] += 1
    avg = [sums[i] / n_items[i] for i in range(n_clusters)]
    return _elliot_mad(avg, n_clusters)


# ------------------------------------------------------------------ the random fixture


THRESHOLD = 3.5


def _fixture(seed: int = 0):
    """60 users, 80 items; 4 item clusters, a quarter of the items in two; 3 user clusters
    (some users in none); 6 to 15 random scored items per user plus half of their test
    items. Every seventh user has training items among their test and listed items (Elliot's
    lists never hold them, but its code counts them as evalkit does: listed training items in
    the numerators of RSP and REO, relevant training items out of REO's denominator)."""
    rng = np.random.default_rng(seed)
    n_users, n_items = 60, 80
    users, items = np.arange(1, n_users + 1), np.arange(100, 100 + n_items)
    train_rows, truth_rows, rec_rows = [], [], []
    for u in users:
        seen = rng.choice(items, rng.integers(3, 12), replace=False)
        train_rows += [(u, i) for i in seen]
        # every seventh user may have training items among the test and listed items
        pool = np.setdiff1d(items, seen) if u % 7 else items
        tested = rng.choice(pool, rng.integers(0, 8), replace=False)
        if not u % 7:  # and a relevant training item, listed
            tested = np.concatenate([seen[:1], tested[tested != seen[0]]])
        truth_rows += [(u, i, 5.0 if i == seen[0] else float(rng.integers(1, 11)) / 2)
                       for i in tested]
        hits = tested[: (len(tested) + 1) // 2]  # half the test items listed, at random ranks
        others = rng.choice(np.setdiff1d(pool, hits), rng.integers(6, 16), replace=False)
        listed = rng.permutation(np.concatenate([hits, others]))
        scores = rng.permutation(len(listed)) + rng.random()
        rec_rows += [(u, i, float(s)) for i, s in zip(listed, scores)]
    train = pd.DataFrame(train_rows, columns=["user_id", "item_id"])
    truth = pd.DataFrame(truth_rows, columns=["user_id", "item_id", "rating"])
    recs = pd.DataFrame(rec_rows, columns=["user_id", "item_id", "score"])
    item_rows = [(int(i), int(rng.integers(0, 4))) for i in items]
    item_rows += [(i, (c + 1 + int(rng.integers(0, 3))) % 4) for i, c in item_rows[::4]]
    user_rows = [(int(u), int(rng.integers(0, 3))) for u in users if u % 9]
    return train, truth, recs, item_rows, user_rows


def _elliot_inputs(train, truth, recs):
    ordered = recs.sort_values(["user_id", "score"], ascending=[True, False])
    recommendations = {u: list(zip(g["item_id"], g["score"]))
                       for u, g in ordered.groupby("user_id")}
    train_dict = {u: {} for u in recommendations}
    for u, i in zip(train["user_id"], train["item_id"]):
        train_dict[u][i] = 1.0
    test = {u: dict(zip(g["item_id"], g["rating"])) for u, g in truth.groupby("user_id")}
    return recommendations, train_dict, test


@pytest.fixture(scope="module")
def data():
    train, truth, recs, item_rows, user_rows = _fixture()
    return train, truth, recs, item_rows, user_rows, _elliot_inputs(train, truth, recs)


def _pairs(rows) -> pd.Series:
    """Elliot's clustering rows as evalkit's item_groups / groups (one row per pair)."""
    return pd.Series([c for _, c in rows], index=[i for i, _ in rows])


@pytest.mark.parametrize("k", [1, 5, 10])
@pytest.mark.parametrize("with_train", [True, False])
def test_rsp_is_elliots(data, k, with_train) -> None:
    train, _, recs, item_rows, _, (recommendations, train_dict, _) = data
    if not with_train:
        train_dict = {u: {} for u in train_dict}
    pr, value = elliot_rsp(recommendations, train_dict, item_rows, k)
    got = fairness.rsp(recs, _pairs(item_rows), k=k, train=train if with_train else None)
    assert got.groups["probability"].sort_index().to_numpy() == pytest.approx(pr, abs=1e-15)
    assert got.value == pytest.approx(value, abs=1e-15)
    assert got.users == len(recommendations)


@pytest.mark.parametrize("k", [1, 5, 10])
def test_reo_is_elliots(data, k) -> None:
    train, truth, recs, item_rows, _, (recommendations, train_dict, test) = data
    pr, value = elliot_reo(recommendations, train_dict, test, THRESHOLD, item_rows, k)
    got = fairness.reo(truth, recs, _pairs(item_rows), k=k, train=train, threshold=THRESHOLD)
    assert got.groups["probability"].sort_index().to_numpy() == pytest.approx(pr, abs=1e-15)
    assert got.value == pytest.approx(value, abs=1e-15, nan_ok=True)
    # the same with the groups as label strings
    joined = _pairs(item_rows).astype(str).groupby(level=0).agg("|".join)
    again = fairness.reo(truth, recs, joined, k=k, train=train, threshold=THRESHOLD, sep="|")
    assert again.value == pytest.approx(value, abs=1e-15, nan_ok=True)


@pytest.mark.parametrize("k", [3, 10])
def test_user_mad_is_elliots(data, k) -> None:
    _, truth, recs, _, user_rows, (recommendations, _, test) = data
    groups = _pairs(user_rows)
    listed = recs["user_id"].unique()
    # UserMADranking: Elliot's nDCG as evaluate's, ratings shifted so that its gain
    # 2^(r - t + 1) - 1 is gain="exponential" at threshold 1 (the others' gain 0)
    shifted = truth.assign(rating=(truth["rating"] - THRESHOLD + 1).clip(lower=0))
    ndcg = ek.evaluate(shifted, recs[recs["user_id"].isin(truth["user_id"])], k=k,
                       metrics=["ndcg"], threshold=1.0, gain="exponential",
                       gain_scope="relevant", n_resamples=0).per_user[f"ndcg@{k}"]
    ndcg = ndcg[ndcg.index.isin(listed)]  # Elliot: the users with a list
    table = fairness.group_disparity(ndcg, groups, n_resamples=0, n_permutations=1)
    assert table.mad == pytest.approx(
        elliot_user_mad_ranking(recommendations, test, THRESHOLD, user_rows, k), abs=1e-15)
    # UserMADrating: the mean score of the top k, users with a relevant test item
    top = top_k(recs, k=k).merge(recs, on=["user_id", "item_id"])
    mean_score = top.groupby("user_id")["score"].mean()
    relevant_users = truth.loc[truth["rating"] >= THRESHOLD, "user_id"].unique()
    mean_score = mean_score[mean_score.index.isin(relevant_users)]
    table = fairness.group_disparity(mean_score, groups, n_resamples=0, n_permutations=1)
    assert table.mad == pytest.approx(
        elliot_user_mad_rating(recommendations, test, THRESHOLD, user_rows, k), abs=1e-13)


@pytest.mark.parametrize("ranking", [True, False])
def test_item_mad_is_elliots(data, ranking) -> None:
    _, truth, recs, item_rows, _, (recommendations, _, test) = data
    k = 5
    relevant = truth[truth["rating"] >= THRESHOLD]
    top = top_k(recs, k=k).merge(recs, on=["user_id", "item_id"])
    top = top[top["user_id"].isin(relevant["user_id"])]
    hit = top.merge(relevant, on=["user_id", "item_id"], how="left")
    value = (2 ** (hit["rating"] - THRESHOLD + 1) - 1 if ranking else hit["score"]).where(
        hit["rating"].notna(), 0.0)
    per_item = value.groupby(hit["item_id"].to_numpy()).mean()
    # Elliot keeps one cluster per item: the last row of its file
    one = pd.Series(dict(item_rows))
    table = fairness.group_disparity(per_item, one, n_resamples=0, n_permutations=1)
    assert table.mad == pytest.approx(
        elliot_item_mad(recommendations, test, THRESHOLD, item_rows, k, ranking=ranking),
        abs=1e-13)


def test_a_cluster_without_users_makes_elliots_mad_nan_and_evalkit_leaves_it_out() -> None:
    recommendations = {1: [(10, 2.0)], 2: [(10, 1.0)]}
    test = {1: {10: 5.0}, 2: {11: 5.0}}
    rows = [(1, 0), (2, 1), (3, 2)]  # cluster 2's only user has no list
    with np.errstate(invalid="ignore"):
        assert math.isnan(elliot_user_mad_ranking(recommendations, test, 4.0, rows, 1))
    per_user = pd.Series([1.0, 0.0], index=[1, 2])
    assert fairness.group_disparity(per_user, _pairs(rows), n_resamples=0,
                                    n_permutations=1).mad == 1.0


# ------------------------------------------------------------------ toy cases by hand

_GROUPS = pd.Series({1: "a", 2: "a", 3: "a", 4: "b", 5: "b", 6: "b"})


def test_rsp_by_hand() -> None:
    recs = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [2, 4, 1, 3], "rank": [1, 2, 1, 2]})
    train = pd.DataFrame({"user_id": [1, 2, 2, 2], "item_id": [1, 4, 5, 5]})  # a repeat
    got = fairness.rsp(recs, _GROUPS, k=2, train=train)
    # a: listed 1 + 2 of candidates 2 ({2, 3}) + 3; b: listed 1 + 0 of 3 + 1 ({6})
    assert got.groups["recommended"].tolist() == [3, 1]
    assert got.groups["candidates"].tolist() == [5, 4]
    assert got.groups["probability"].tolist() == pytest.approx([0.6, 0.25])
    assert got.value == pytest.approx(0.175 / 0.425)  # std 0.175, mean 0.425
    # without train every item of a group is a candidate for each of the 2 users
    assert fairness.rsp(recs, _GROUPS, k=2).groups["candidates"].tolist() == [6, 6]


def test_reo_by_hand_and_its_training_items() -> None:
    truth = pd.DataFrame({"user_id": [1, 1, 1, 1, 2, 2, 2, 3],
                          "item_id": [2, 3, 5, 4, 1, 4, 6, 1],
                          "rating": [5, 5, 5, 2, 5, 5, 5, 1.0]})
    recs = pd.DataFrame({"user_id": [1, 1, 2, 2, 3], "item_id": [2, 4, 4, 6, 1],
                         "rank": [1, 2, 1, 2, 1]})
    got = fairness.reo(truth, recs, _GROUPS, k=2)
    # relevant: user 1 {2, 3, 5}, user 2 {1, 4, 6}; user 3 has none and is not counted
    # a: ranked {2} of {2, 3} + {} of {1} = 1 / 3; b: {} of {5} + {4, 6} of {4, 6} = 2 / 3
    assert got.groups["probability"].tolist() == pytest.approx([1 / 3, 2 / 3])
    assert got.value == pytest.approx((1 / 6) / 0.5) and got.users == 2
    # a relevant training item leaves the denominator but stays in the numerator (Elliot)
    seen = fairness.reo(truth, recs, _GROUPS, k=2,
                        train=pd.DataFrame({"user_id": [2], "item_id": [4]}))
    assert seen.groups.loc["b", ["recommended", "candidates"]].tolist() == [2, 2]
    assert seen.value == pytest.approx((1 / 3) / (2 / 3))
    # threshold=None: every test row relevant (user 1's item 4 is then ranked and relevant)
    every = fairness.reo(truth, recs, _GROUPS, k=2, threshold=None)
    assert every.groups.loc["b", ["recommended", "candidates"]].tolist() == [3, 4]
    assert every.users == 3


def test_an_item_in_two_groups_counts_in_both() -> None:
    recs = pd.DataFrame({"user_id": 1, "item_id": [1, 4], "rank": [1, 2]})
    groups = pd.Series(["a", "b", "a", "b"], index=[1, 1, 2, 4])
    got = fairness.rsp(recs, groups, k=2)
    assert got.groups["recommended"].to_dict() == {"a": 1, "b": 2}
    assert got.groups["candidates"].to_dict() == {"a": 2, "b": 2}
    assert got.value == pytest.approx(0.25 / 0.75)


def test_a_group_without_candidates_makes_the_figure_nan() -> None:
    truth = pd.DataFrame({"user_id": [1], "item_id": [1], "rating": [5.0]})
    recs = pd.DataFrame({"user_id": 1, "item_id": [1, 4], "rank": [1, 2]})
    got = fairness.reo(truth, recs, _GROUPS, k=2)
    assert got.groups["candidates"].tolist() == [1, 0]
    assert np.isnan(got.groups.loc["b", "probability"]) and np.isnan(got.value)
    assert "reo@2" in repr(got)


@pytest.mark.parametrize(("call", "match"), [
    (lambda r, t: fairness.rsp(r, {1: "a"}), "rsp: 'item_groups' must be a pandas Series"),
    (lambda r, t: fairness.rsp(r, _GROUPS, k=0), "rsp: 'k' must be a positive integer"),
    (lambda r, t: fairness.rsp(r, _GROUPS, sep=""), "rsp: 'sep' must be a non-empty string"),
    (lambda r, t: fairness.rsp(r, pd.Series([np.nan], index=[1])), "gives no item a group"),
    (lambda r, t: fairness.rsp(r, _GROUPS.set_axis(_GROUPS.index.astype(str))),
     "rsp: 'item_id' holds string ids in 'item_groups' but integer ids in 'recs'"),
    (lambda r, t: fairness.rsp(r, _GROUPS, train=pd.DataFrame({"user_id": [1]})),
     "rsp: 'train'"),
    (lambda r, t: fairness.reo(t.drop(columns="rating"), r, _GROUPS), "reo: 'truth'"),
    (lambda r, t: fairness.reo(t, r, _GROUPS, threshold="4"), "reo: 'threshold' must be"),
    (lambda r, t: fairness.reo(t.astype({"user_id": str}), r, _GROUPS),
     "reo: 'user_id' holds string ids in 'truth' but integer ids in 'recs'"),
    (lambda r, t: fairness.reo(t, r.drop(columns="rank"), _GROUPS), "reo: 'recs' needs"),
    (lambda r, t: fairness.group_entropy(r, _GROUPS, smoothing=-1.0),
     "group_entropy: 'smoothing' must be"),
    (lambda r, t: fairness.group_entropy(r, _GROUPS, weight="exp"),
     "group_entropy: unknown weight 'exp'"),
])
def test_bad_input_is_refused_naming_function_and_argument(call, match) -> None:
    recs = pd.DataFrame({"user_id": 1, "item_id": [1, 4], "rank": [1, 2]})
    truth = pd.DataFrame({"user_id": [1], "item_id": [1], "rating": [5.0]})
    with pytest.raises(ek.InvalidParameterError, match=match):
        call(recs, truth)


def test_no_input_is_changed(data) -> None:
    train, truth, recs, item_rows, user_rows, _ = data
    groups = _pairs(item_rows)
    joined = groups.astype(str).groupby(level=0).agg("|".join)
    frames = [train, truth, recs, groups, joined]
    before = [f.copy(deep=True) for f in frames]
    fairness.rsp(recs, groups, k=5, train=train)
    fairness.reo(truth, recs, joined, k=5, train=train, sep="|")
    fairness.group_entropy(recs, groups, k=5)
    fairness.exposure_share(recs, joined, k=5, sep="|", target="train", train=train,
                            n_resamples=10)
    fairness.awrf(recs, groups, k=5, target="relevant", truth=truth)
    for old, new in zip(before, frames):
        if isinstance(old, pd.DataFrame):
            pd.testing.assert_frame_equal(old, new)
        else:
            pd.testing.assert_series_equal(old, new)


# ------------------------------------------------------------------ LensKit

REFS = Path(__file__).resolve().parent / "references"
LENSKIT = json.loads((REFS / "fixtures" / "fairness_lenskit.json").read_text())


def _beyond_inputs():
    spec = importlib.util.spec_from_file_location("beyond_inputs", REFS / "beyond_inputs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


INPUTS = _beyond_inputs()


def _lenskit_case(name: str, request):
    if name == "real":
        request.getfixturevalue("ml_latest_small_dir")
    train, recs, items = INPUTS.CASES[name]()
    assert INPUTS.fingerprint(train, recs, items) == LENSKIT["inputs"][name]
    genres = items.explode("genres").dropna(subset=["genres"])
    return recs, pd.Series(genres["genres"].to_numpy(), index=genres["item_id"].to_numpy())


@pytest.mark.parametrize("case", [
    "small", "ragged", pytest.param("real", marks=pytest.mark.slow)])
def test_group_entropy_is_lenskits(case, request) -> None:
    assert LENSKIT["library"] == "lenskit" and LENSKIT["version"] == "2025.8.1"
    recs, item_genres = _lenskit_case(case, request)
    entries = [e for e in LENSKIT["values"] if e["case"] == case]
    assert entries
    for entry in entries:
        spec = entry["evalkit"]
        assert spec["func"] == "group_entropy" and spec["reduce"] == "per_user"
        got = fairness.group_entropy(recs, item_genres, **spec["kwargs"])
        tol = entry.get("tolerance", LENSKIT["tolerance"])
        assert {str(u): v for u, v in got.items()} == pytest.approx(
            {u: (np.nan if v is None else v) for u, v in entry["per_user"].items()},
            abs=tol, nan_ok=True), entry["call"]
