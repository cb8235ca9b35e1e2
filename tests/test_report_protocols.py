"""The model comparison's protocol section (evalkit.report.protocol_check, protocol_note,
protocol_table): its sentences follow the results, a flip included."""

from __future__ import annotations

import re
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from evalkit import report as rp
from evalkit.protocols import sampled as S
from evalkit.protocols.debiased import gamma_sensitivity
from tests.test_sampled import _world


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
    assert "the highest mean changes from b's (full ranking) to a's" in note
    assert "the EM correction names b again" in note
    assert "the order of the baselines' means is different (a > b sampled, b > a full; " \
        "Kendall's tau -1.00)" in note
    assert "b has the highest mean at every assumed bias, gamma -1 (no bias) to 1" in note
    table = rp.protocol_table(check)
    assert list(table.index) == ["a", "b"]
    ratio = table["uniform: sampled / full"]
    assert table.loc["a", "full ranking"] == 0.0 and np.isnan(ratio["a"])
    assert ratio["b"] == round(comparison.table.loc["b", "naive"]
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
    # the paired lead of the best over the second: clear but at gamma 1
    table["lead"] = table["gamma"].map({-1.0: .1, 0.0: .06, 1.0: .05, 2.0: .21})
    table["lead_ci_low"] = table["gamma"].map({-1.0: .05, 0.0: .01, 1.0: -.01, 2.0: .15})
    table["lead_ci_high"] = table["lead"] + .05
    check = rp.ProtocolCheck(sampled={}, debiased=table, metric="ndcg", k=10, n_negatives=100,
                             users=10, sampled_users=None, debiased_metric="recall")
    note = rp.protocol_note(check)
    assert "a from gamma -1 to 0; b from gamma 1 to 2" in note
    assert "at 1 of the 4 biases (gamma 1) the best system's lead over the second is not " \
        "established by paired evidence" in note
    assert "simultaneous over the 4 biases (Bonferroni, family-wise level 0.05)" in note
    assert "(`BASELINES` is empty)" in note


def _three_systems(n: int = 400, seed: int = 0):
    """Train and test data and three systems' top 10: ``b`` finds what ``a`` finds and, for
    a fifth of the users, one relevant item more (so b's lead over a is clear when paired,
    while their own intervals overlap); ``c`` finds little."""
    rng = np.random.default_rng(seed)
    users = np.arange(1, n + 1)
    relevant = np.column_stack([rng.permutation(60)[:3] for _ in users])
    test = pd.DataFrame({"user_id": np.tile(users, 3), "item_id": relevant.ravel(),
                         "rating": 5.0})
    train = pd.DataFrame({"user_id": np.repeat(users, 8),
                          "item_id": rng.zipf(1.3, 8 * n) % 260}).drop_duplicates()
    train = train.merge(test, how="left", indicator=True)
    train = train[train["_merge"] == "left_only"][["user_id", "item_id"]]

    def lists(hits: np.ndarray) -> pd.DataFrame:
        items = rng.integers(60, 260, (n, 10))
        items[:, 0] = np.where(hits[:, 0], relevant[0], items[:, 0])
        items[:, 9] = np.where(hits[:, 1], relevant[1], items[:, 9])
        frame = pd.DataFrame({"user_id": np.repeat(users, 10), "item_id": items.ravel(),
                              "rank": np.tile(np.arange(1, 11), n)})
        return frame.drop_duplicates(["user_id", "item_id"])

    found = rng.random(n) < 0.4
    more = rng.random(n) < 0.08
    systems = {"a": lists(np.column_stack([found, np.zeros(n, bool)])),
               "b": lists(np.column_stack([found, more])),
               "c": lists(np.column_stack([rng.random(n) < 0.05, np.zeros(n, bool)])),
               "d": lists(np.column_stack([rng.random(n) < 0.2, np.zeros(n, bool)])),
               "e": lists(np.column_stack([rng.random(n) < 0.1, rng.random(n) < 0.1]))}
    return SimpleNamespace(train=train, test=test), systems


def _plain_verdict(note: str) -> str | None:
    """What the note says of gamma -1 from the paired table: "significant", "not
    significant", or None when it does not cite the table."""
    found = re.search(r"the verdict is the paired table's for \w+ and \w+ \(p \(Holm\) "
                      r"[^:]+: (significant|not significant)\)", note)
    return found and found[1]


def test_statements_about_order_need_two_systems_and_rest_on_paired_evidence() -> None:
    """With one system the section orders nothing and prints no NaN statistic; with two,
    three and five, every order it states is the table's, the ordinary metric's order (gamma
    -1) is the paired comparison table's verdict for the same pair and metric, and at the
    other biases an order is said to be established exactly where the simultaneous paired
    interval of the lead excludes 0."""
    import evalkit as ek

    inputs, systems = _three_systems()
    for names, baselines in ((["a"], ["MostPopular"]),
                             (["a", "b"], ["MostPopular", "ItemKNN"]),
                             (["a", "b", "c"], ["MostPopular", "ItemKNN", "Random"]),
                             (["a", "b", "c", "d", "e"], ["MostPopular", "ItemKNN"])):
        chosen = {n: systems[n] for n in names}
        check = rp.protocol_check(inputs, chosen, baselines, k=10, metric="recall",
                                  n_negatives=20, schemes=["uniform", "popularity"],
                                  threshold=None,
                                  seed=0, max_users=100)
        evaluations = {n: ek.evaluate(inputs.test, s, k=10, metrics=["recall", "ndcg"],
                                      threshold=None, n_resamples=0)
                       for n, s in chosen.items()}
        table = rp.compare_systems(evaluations, reference=None, alpha=0.05)
        note = rp.protocol_note(check, comparison=table)
        assert "nan" not in note.lower() and ", ;" not in note and ", ." not in note
        t = check.sampled["uniform"].table
        d = check.debiased
        if len(names) == 1:
            assert "one system: no order" in note and "highest mean" not in note
            assert note.count("With one baseline there is no order") == 1 and "tau" not in note
            assert d["lead"].isna().all()
            continue
        order = " > ".join(t.sort_values("rank_full").index)
        assert f"{order} full" in note
        best = d.drop_duplicates("gamma")
        assert (best["lead"] > 0).all()
        # the lead at gamma -1 (no bias) is the mean paired difference of the plain metric
        plain = {n: ek.evaluate(inputs.test, s, k=10, metrics=["recall"], threshold=None,
                                n_resamples=0).per_user["recall@10"] for n, s in chosen.items()}
        top = d[d["gamma"] == -1].sort_values("rank")["system"].tolist()
        lead = (plain[top[0]] - plain[top[1]]).mean()
        assert best.loc[best["gamma"] == -1, "lead"].iloc[0] == pytest.approx(lead)
        assert top[:2] == ["b", "a"]  # b's extra hits: ahead of a, paired, at every gamma
        # gamma -1 is the ordinary recall@10: the table's verdict on b against a, named
        row = table[(table["column"] == "recall@10") & (table[["system", "against"]].apply(
            frozenset, axis=1) == frozenset("ab"))].iloc[0]
        said = _plain_verdict(note)
        assert said == ("significant" if row["significant"] else "not significant"), note
        established = (best["lead_ci_low"] > 0).to_numpy().copy()
        established[best["gamma"].to_numpy() == -1] = row["significant"]
        overlapping = d[d["system"] == "b"]["ci_low"].to_numpy() \
            <= d[d["system"] == "a"]["ci_high"].to_numpy()
        assert overlapping.any()  # unpaired intervals overlap, the paired lead is clear
        if established.all():
            assert "at every gamma the best system's lead over the second is established" \
                in note
        elif not established.any():
            assert "at no gamma is the best system's lead" in note
        else:
            unsure = ", ".join(f"{g:g}" for g in best["gamma"][~established])
            assert f"at {int((~established).sum())} of the {len(best)} biases (gamma " \
                f"{unsure})" in note


def test_the_ordinary_metrics_order_is_the_tables_even_where_an_interval_says_otherwise(
        ) -> None:
    """The case the page got wrong: the lead's interval at gamma -1 excludes 0, but the
    paired table (Holm over every pair and metric) finds the same pair's difference not
    significant. The note follows the table, and says so; without the table it follows the
    interval, simultaneous over the biases."""
    inputs, systems = _three_systems()
    chosen = {n: systems[n] for n in ("a", "b")}
    check = rp.protocol_check(inputs, chosen, ["MostPopular"], k=10, metric="recall",
                              n_negatives=20, schemes=["uniform"], threshold=None, seed=0,
                              max_users=100)
    best = check.debiased.drop_duplicates("gamma").set_index("gamma")
    assert best.loc[-1.0, "lead_ci_low"] > 0  # the interval alone would call it established
    table = pd.DataFrame({"system": ["b"], "against": ["a"], "column": ["recall@10"],
                          "permutation_pvalue_holm": [0.05], "p_at_floor": [False],
                          "significant": [False]})
    note = rp.protocol_note(check, comparison=table)
    assert _plain_verdict(note) == "not significant"
    assert re.search(r"biases \(gamma -1[,)]", note), note
    alone = rp.protocol_note(check)
    assert _plain_verdict(alone) is None and "simultaneous over the 7 biases" in alone


def test_the_protocol_sections_leads_are_simultaneous_over_the_biases() -> None:
    """The correction where it is applied: the section's lead intervals are the paired
    bootstrap's at 1 - alpha / (number of biases), as gamma_sensitivity gives them."""
    inputs, systems = _three_systems()
    chosen = {n: systems[n] for n in ("a", "b")}
    check = rp.protocol_check(inputs, chosen, [], k=10, metric="recall", n_negatives=20,
                              threshold=None, seed=0, alpha=0.1)
    gammas = sorted(check.debiased["gamma"].unique())
    want = gamma_sensitivity(chosen, inputs.test, inputs.train, gammas=gammas, k=10,
                             threshold=None, n_resamples=100, rng=0,
                             lead_confidence=1 - 0.1 / len(gammas))
    pd.testing.assert_frame_equal(check.debiased, want)
    pointwise = gamma_sensitivity(chosen, inputs.test, inputs.train, gammas=gammas, k=10,
                                  threshold=None, n_resamples=100, rng=0)
    assert (check.debiased["lead_ci_low"] < pointwise["lead_ci_low"]).all()
