"""The model comparison's protocol section (evalkit.report.protocol_check, protocol_note,
protocol_table): its sentences follow the results, a flip included."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd

from evalkit import report as rp
from evalkit.metrics import sampled as S
from evalkit.metrics.debiased import gamma_sensitivity
from tests.metrics.test_sampled import _world


def test_the_note_says_when_sampling_flips_the_winner_and_the_correction_restores_it() -> None:
    truth, train, scores_a, _ = _world(600, 400, lambda u: 15, seed=1)
    scores_b = _world(600, 400, lambda u: 1 if u % 2 else 360, seed=1)[2]
    comparison = S.compare_sampling({"a": scores_a, "b": scores_b}, truth, train,
                                    metric="hit_rate", k=10, seeds=(0,), n_resamples=20,
                                    catalog=np.arange(400))
    lists = {name: frame.sort_values(["user_id", "score"], ascending=[True, False])
             .groupby("user_id").head(10) for name, frame in (("a", scores_a), ("b", scores_b))}
    debiased = gamma_sensitivity(lists, truth, train, gammas=(-1.0, 1.0), threshold=None,
                                 n_resamples=20)
    check = rp.ProtocolCheck(sampled={"uniform": comparison}, debiased=debiased,
                             metric="hit_rate", k=10, n_negatives=100, users=600,
                             sampled_users=600, debiased_metric="recall")
    note = rp.protocol_note(check)
    assert "the winner changes from b (full ranking) to a" in note
    assert "the EM correction names b again" in note
    assert "the order of the baselines is different (a > b sampled, b > a full; Kendall's " \
        "tau -1.00)" in note
    assert "the best system is b at every assumed bias from gamma -1 (none) to 1" in note
    table = rp.protocol_table(check)
    assert list(table.index) == ["a", "b"]
    assert table.loc["a", "full ranking"] == 0.0 and np.isnan(table.loc["a", "uniform: x full"])
    assert table.loc["b", "uniform: x full"] == round(comparison.table.loc["b", "naive"]
                                                     / comparison.table.loc["b", "full"], 1)


def test_the_section_runs_on_small_inputs_and_can_be_switched_off() -> None:
    rng = np.random.default_rng(0)
    train = pd.DataFrame({"user_id": rng.integers(1, 40, 600), "item_id": rng.integers(0, 80, 600),
                          "rating": 4.0}).drop_duplicates(["user_id", "item_id"])
    test = pd.DataFrame({"user_id": np.arange(1, 40), "item_id": rng.integers(80, 90, 39),
                         "rating": 5.0})
    inputs = SimpleNamespace(test=test, train=train)
    lists = {"mine": test.assign(rank=1).drop(columns="rating")}
    check = rp.protocol_check(inputs, lists, ["MostPopular"], k=5, metric="precision",
                              n_negatives=10, schemes=["uniform"], seed=1, max_users=20)
    assert check.metric == "precision" and check.sampled_users == 20 and check.users == 39
    note = rp.protocol_note(check)
    assert "computed on 20 of the 39 test users" in note
    assert "Your systems (mine) are lists" in note
    assert rp.protocol_check(inputs, lists, [], k=5, metric="ndcg", n_negatives=0) is None
    assert "off" in rp.protocol_note(None) and rp.protocol_table(None) is None


def test_the_note_gives_the_biases_at_which_each_system_is_best_and_if_that_is_established(
) -> None:
    gammas = [-1.0, -1.0, 0.0, 0.0, 1.0, 1.0, 2.0, 2.0]
    table = pd.DataFrame({"gamma": gammas, "system": ["a", "b"] * 4,
                          "value": [.2, .1, .18, .12, .1, .15, .09, .3],
                          "ci_low": [.18, .08, .17, .11, .08, .12, .08, .28],
                          "ci_high": [.22, .12, .19, .13, .12, .18, .1, .32],
                          "rank": [1, 2, 1, 2, 2, 1, 2, 1]})
    table["best"] = table["gamma"].map({-1.0: "a", 0.0: "a", 1.0: "b", 2.0: "b"})
    check = rp.ProtocolCheck(sampled={}, debiased=table, metric="ndcg", k=10, n_negatives=100,
                             users=10, sampled_users=None, debiased_metric="recall")
    note = rp.protocol_note(check)
    assert "a from gamma -1 to 0; b from gamma 1 to 2" in note
    assert "At 1 of the 4 biases the intervals of the two best systems overlap" in note
    assert "(`BASELINES` is empty)" in note
