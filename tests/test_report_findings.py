"""evalkit.report.findings: every statement must follow the data, so each test changes the
data and checks that the statement changes with it."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import evalkit as ek
from evalkit import report as rp
from evalkit.split import Split


def _truth(n_users: int = 40, *, low_users: int = 0) -> pd.DataFrame:
    """Each user rated items 0..4 with 5.0; the first ``low_users`` rated them 1.0 (nothing
    relevant at the default threshold of 4)."""
    users = np.repeat(np.arange(n_users), 5)
    rating = np.where(users < low_users, 1.0, 5.0)
    return pd.DataFrame({"user_id": users, "item_id": np.tile(np.arange(5), n_users),
                         "rating": rating})


def _lists(truth: pd.DataFrame, hits: float, *, seed: int = 0) -> pd.DataFrame:
    """Top-5 lists: for a share ``hits`` of the users the list is their test items, for the
    others five items nobody rated."""
    rng = np.random.default_rng(seed)
    users = truth["user_id"].unique()
    hit = rng.random(len(users)) < hits
    frame = pd.DataFrame({"user_id": np.repeat(users, 5), "rank": np.tile(np.arange(1, 6),
                                                                           len(users))})
    frame["item_id"] = np.tile(np.arange(5), len(users)) + np.where(
        np.repeat(hit, 5), 0, 100)
    return frame


def _evaluate(truth, systems, **options) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {n: ek.evaluate(truth, r, k=[1, 5], metrics=["precision", "ndcg"], rng=0,
                               n_resamples=200, **options)
                for n, r in systems.items()}


def _bullets(text: str) -> list[str]:
    return [line[2:] for line in text.splitlines() if line.startswith("- ")]


# -- best system -------------------------------------------------------------------------------

def test_the_best_system_is_the_one_with_the_highest_mean() -> None:
    truth = _truth()
    good, bad = _lists(truth, 0.9), _lists(truth, 0.1)
    text = rp.findings(_evaluate(truth, {"a": good, "b": bad}), k=5)
    assert "**a** has the highest mean on every metric shown: P@5 " in text
    text = rp.findings(_evaluate(truth, {"a": bad, "b": good}), k=5)
    assert "**b** has the highest mean on every metric shown: P@5 " in text
    assert "**a** has" not in text


def test_the_best_is_stated_with_its_interval() -> None:
    truth = _truth()
    evaluations = _evaluate(truth, {"a": _lists(truth, 0.9), "b": _lists(truth, 0.1)})
    row = evaluations["a"].summary.loc["precision@5"]
    text = rp.findings(evaluations, k=5)
    assert f"P@5 {row['mean']:.3f} [{row['ci_low']:.3f}, {row['ci_high']:.3f}]" in text
    assert "95% bootstrap intervals" in text


def test_equal_means_share_the_best() -> None:
    truth = _truth()
    same = _lists(truth, 0.5)
    text = rp.findings(_evaluate(truth, {"a": same, "b": same.copy()}), k=5)
    assert "**a** and **b** share the highest mean on P@5" in text
    assert "has the highest mean" not in text


def test_the_best_can_differ_per_metric() -> None:
    # "top" puts a hit first and misses after it; "deep" misses first and hits after it
    truth = _truth()
    users = np.repeat(truth["user_id"].unique(), 5)
    rank = np.tile(np.arange(1, 6), len(users) // 5)
    top = pd.DataFrame({"user_id": users, "rank": rank,
                        "item_id": np.where(rank == 1, 0, 100 + rank)})
    deep = pd.DataFrame({"user_id": users, "rank": rank,
                         "item_id": np.where(rank == 1, 100, rank - 2)})
    text = rp.findings(_evaluate(truth, {"top": top, "deep": deep}), k=5)
    assert "**deep** has the highest mean on every metric shown: P@5" in text
    text = rp.findings(_evaluate(truth, {"top": top, "deep": deep}), k=1)
    assert "**top** has the highest mean on every metric shown: P@1" in text
    text = rp.findings(_evaluate(truth, {"top": top, "deep": deep}))
    assert "**top** has the highest mean on P@1" in text
    assert "**deep** has the highest mean on P@5" in text


def test_a_single_system_is_not_called_the_best() -> None:
    truth = _truth()
    text = rp.findings(_evaluate(truth, {"only": _lists(truth, 0.5)}), k=5)
    assert "Only **only** is evaluated, so there is no best system" in text
    assert "highest mean" not in text


# -- caveats on the best -----------------------------------------------------------------------

def test_overlapping_intervals_make_the_best_mark_mean_little() -> None:
    truth = _truth(200)
    close = _evaluate(truth, {"a": _lists(truth, 0.52, seed=1), "b": _lists(truth, 0.5, seed=2)})
    far = _evaluate(truth, {"a": _lists(truth, 0.95, seed=1), "b": _lists(truth, 0.05, seed=2)})
    assert close["a"].mean("precision", 5) != close["b"].mean("precision", 5)
    text = rp.findings(close, k=5)
    assert "On every metric shown, the interval of the highest mean (**a**) overlaps that of " \
           "**b**: there the mark of the best means little, and only a paired test" in text
    assert "means little" not in rp.findings(far, k=5)
    table = _comparison([False, False], [0.01, 0.01])
    assert "little, and the paired tests above decide" in rp.findings(close, k=5,
                                                                      comparison=table)


def test_few_test_users_give_a_caveat() -> None:
    small, large = _truth(30), _truth(150)
    text = rp.findings(_evaluate(small, {"a": _lists(small, 0.5)}), k=5)
    assert "Only 30 test users are evaluated (fewer than 100)" in text
    assert "fewer than" not in rp.findings(_evaluate(large, {"a": _lists(large, 0.5)}), k=5)
    assert "fewer than 20" not in rp.findings(_evaluate(small, {"a": _lists(small, 0.5)}), k=5,
                                               few_users=20)


def test_a_system_that_never_hits_is_named() -> None:
    truth = _truth()
    text = rp.findings(_evaluate(truth, {"a": _lists(truth, 0.5), "none": _lists(truth, 0.0)}),
                       k=5)
    assert "**none** scores 0 on every metric shown" in text
    assert "scores 0" not in rp.findings(_evaluate(truth, {"a": _lists(truth, 0.5)}), k=5)


# -- significance ------------------------------------------------------------------------------

def _comparison(significant: list[bool], diff: list[float], *, floor: bool = False,
                against: bool = True) -> pd.DataFrame:
    p = [0.001 if s else 0.4 for s in significant]
    table = pd.DataFrame({
        "system": ["a", "b", "b"], "column": ["ndcg@5", "ndcg@5", "precision@5"],
        "diff": [np.nan] + diff, "diff_ci_low": [np.nan] + [d - 0.01 for d in diff],
        "diff_ci_high": [np.nan] + [d + 0.01 for d in diff],
        "permutation_pvalue": [np.nan] + [x / 2 for x in p],
        "permutation_pvalue_holm": [np.nan] + p,
        "significant": [False] + significant,
        "p_at_floor": [False, floor, False],
    })
    if against:
        table.insert(1, "against", [None, "a", "a"])
    return table


@pytest.mark.parametrize("against", [True, False])
def test_significance_appears_and_disappears_with_the_test(against: bool) -> None:
    truth = _truth()
    evaluations = _evaluate(truth, {"a": _lists(truth, 0.5), "b": _lists(truth, 0.6)})
    some = rp.findings(evaluations, k=5,
                       comparison=_comparison([True, False], [0.1, 0.02], against=against))
    assert "1 difference is significant" in some
    assert "**b** against **a**: higher on NDCG@5 (+0.100 [+0.090, +0.110]); no significant " \
           "difference on P@5." in some
    none = rp.findings(evaluations, k=5,
                       comparison=_comparison([False, False], [0.1, 0.02], against=against))
    assert "no difference is significant" in none and "higher on" not in none
    lower = rp.findings(evaluations, k=5, comparison=_comparison([True, True], [-0.1, -0.2]))
    assert "2 differences are significant" in lower
    assert "lower on NDCG@5 (-0.100 [-0.110, -0.090]) and P@5 (-0.200" in lower


def test_significance_from_compare_itself() -> None:
    truth = _truth(120)
    systems = {"weak": _lists(truth, 0.1, seed=1), "strong": _lists(truth, 0.9, seed=2)}
    evaluations = _evaluate(truth, systems)
    table = ek.compare(systems, truth, k=[1, 5], metrics=["precision", "ndcg"],
                       n_permutations=999, n_resamples=200)
    text = rp.findings(evaluations, k=5, comparison=table)
    assert "Holm-corrected across all 4 comparisons" in text and "(2 comparisons shown)" in text
    assert "**strong** against **weak**: higher on P@5" in text


def test_alpha_must_match_the_comparison() -> None:
    truth = _truth()
    evaluations = _evaluate(truth, {"a": _lists(truth, 0.5), "b": _lists(truth, 0.6)})
    with pytest.raises(ValueError, match="findings: 'alpha' is 0.0001, but the significant"):
        rp.findings(evaluations, k=5, comparison=_comparison([True, False], [0.1, 0.0]),
                    alpha=0.0001)


def test_p_values_at_the_floor_give_a_caveat() -> None:
    truth = _truth()
    evaluations = _evaluate(truth, {"a": _lists(truth, 0.5), "b": _lists(truth, 0.6)})
    at = rp.findings(evaluations, k=5, comparison=_comparison([True, False], [0.1, 0.0],
                                                              floor=True))
    assert "1 randomization p-value is at the test's floor (0.0005" in at
    assert "floor" not in rp.findings(evaluations, k=5,
                                      comparison=_comparison([True, False], [0.1, 0.0]))


# -- what was left out -------------------------------------------------------------------------

def test_users_without_a_relevant_item_are_counted_or_none_are() -> None:
    every, some = _truth(), _truth(low_users=3)
    text = rp.findings(_evaluate(every, {"a": _lists(every, 0.5)}), k=5)
    assert "Every metric shown is defined for each of the 40 test users" in text
    # precision is defined for every user, and NDCG's linear gain counts the low ratings;
    # recall is undefined for a user without a relevant item
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = {"a": ek.evaluate(some, _lists(some, 0.5), k=5, metrics=["recall", "precision"],
                               n_resamples=0)}
    text = rp.findings(ev, k=5)
    assert "R@5 is undefined for 3 of the 40 test users (no relevant test item) and leaves " \
           "them out of its mean." in text
    assert "Every metric shown is defined" not in text and "P@5 is undefined" not in text
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = {"a": ek.evaluate(some, _lists(some, 0.5), k=5, metrics=["recall"], empty="zero",
                               n_resamples=0)}
    assert "R@5 is undefined for 3 of the 40 test users (no relevant test item) and counts " \
           "them as 0." in rp.findings(ev, k=5)


def test_users_without_lists_and_lists_without_users() -> None:
    truth = _truth()
    full = _lists(truth, 0.5)
    text = rp.findings(_evaluate(truth, {"a": full}), k=5)
    assert "Every system has a list for every test user, and none for anyone else." in text
    short = full[full["user_id"] >= 4]
    extra = pd.concat([full, full[full["user_id"] < 2].assign(user_id=lambda f: f["user_id"]
                                                                + 1000)])
    text = rp.findings(_evaluate(truth, {"short": short, "extra": extra}), k=5)
    assert "Every system has a list" not in text
    assert "**short** has no list for 4 of the 40 test users" in text
    assert "**extra** has lists for 2 users without a test interaction" in text


def test_tied_scores_across_the_cutoff_are_counted() -> None:
    truth = _truth()
    ranked = _lists(truth, 0.5)
    tied = ranked.drop(columns="rank").assign(score=1.0)  # every item tied
    text = rp.findings(_evaluate(truth, {"ranked": ranked, "tied": tied}), k=1)
    assert "For **tied**, tied scores straddle the cutoff 1 for 40 of the 40 test users" in text
    assert "**ranked**, tied" not in text
    text = rp.findings(_evaluate(truth, {"ranked": ranked}), k=1)
    assert "No system has tied scores straddling the cutoff 1" in text


# -- the split audit ---------------------------------------------------------------------------

def test_a_leaking_split_is_reported_and_a_clean_one_is_not() -> None:
    truth = _truth()
    evaluations = _evaluate(truth, {"a": _lists(truth, 0.5)})
    train = pd.DataFrame({"user_id": np.arange(40), "item_id": 50, "rating": 5.0})
    clean = ek.audit(Split(train=train, test=truth))
    text = rp.findings(evaluations, k=5, audit=clean)
    assert "The split audit finds no leak" in text and "Leak:" not in text
    leaking = ek.audit(Split(train=pd.concat([train, truth.iloc[:4]]), test=truth))
    text = rp.findings(evaluations, k=5, audit=leaking)
    assert "no leak" not in text
    assert "Leak: 4 of the 200 test rows (2.0%) repeat a user-item pair that is in training" \
        in text


def test_audit_warnings_are_stated_only_when_counted() -> None:
    truth = _truth()
    evaluations = _evaluate(truth, {"a": _lists(truth, 0.5)})
    train = pd.DataFrame({"user_id": np.arange(38), "item_id": 0, "rating": 5.0})
    text = rp.findings(evaluations, k=5, audit=ek.audit(Split(train=train, test=truth)))
    assert "2 of the 40 test users (5.0%) have no training interaction" in text
    assert "4 of the 5 test items (80.0%) never occur in training" in text
    train = pd.DataFrame({"user_id": np.r_[np.arange(40), [99] * 5],
                          "item_id": np.r_[[7] * 40, np.arange(5)], "rating": 5.0})
    text = rp.findings(evaluations, k=5, audit=ek.audit(Split(train=train, test=truth)))
    assert "no training interaction" not in text and "never occur in training" not in text


# -- arguments ---------------------------------------------------------------------------------

def test_bad_arguments_name_the_function_and_argument() -> None:
    truth = _truth()
    evaluations = _evaluate(truth, {"a": _lists(truth, 0.5)})
    with pytest.raises(ValueError, match=r"findings: 'k' must be one of the cutoffs evaluated "
                                         r"\(1, 5\) or None; got 3"):
        rp.findings(evaluations, k=3)
    with pytest.raises(TypeError, match="findings: 'evaluations' must be a non-empty dict"):
        rp.findings({})
    with pytest.raises(TypeError, match=r"findings: 'evaluations\['a'\]' must be an evalkit"):
        rp.findings({"a": truth})
    with pytest.raises(ValueError, match="findings: 'comparison' is missing column"):
        rp.findings(evaluations | {"b": evaluations["a"]}, comparison=truth)
    with pytest.raises(ValueError, match="findings: 'audit' is missing column"):
        rp.findings(evaluations, audit=truth)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        other = ek.evaluate(truth, _lists(truth, 0.5), k=5, metrics=["recall"], n_resamples=0)
    with pytest.raises(ValueError, match="findings: every evaluation must hold the same"):
        rp.findings(evaluations | {"b": other})


def test_inputs_are_unchanged() -> None:
    truth = _truth()
    evaluations = _evaluate(truth, {"a": _lists(truth, 0.5), "b": _lists(truth, 0.6)})
    table = _comparison([True, False], [0.1, 0.0])
    before = {n: e.summary.copy() for n, e in evaluations.items()}, table.copy()
    rp.findings(evaluations, k=5, comparison=table)
    for name, summary in before[0].items():
        pd.testing.assert_frame_equal(evaluations[name].summary, summary)
    pd.testing.assert_frame_equal(table, before[1])


def test_ties_are_counted_from_the_lists_scores_even_where_ranks_ordered_them() -> None:
    truth = _truth()
    ranked = _lists(truth, 0.5)
    tied = ranked.assign(score=1.0)  # ranks given, every score equal: the ranks decided
    systems = {"ranked": ranked, "tied": tied}
    evaluations = _evaluate(truth, systems)
    longest = int(tied.groupby("user_id").size().max())
    assert longest > 1
    text = rp.findings(evaluations, k=1, systems=systems)
    assert "For **tied**, tied scores straddle the cutoff 1 for 40 of the 40 test users: " \
        "the list's ranks ordered them" in text
    assert "No system has tied scores" not in text
    # without the lists, the evaluations (which used the ranks) see no tie
    assert "No system has tied scores straddling the cutoff 1" in \
        rp.findings(evaluations, k=1)
    # lists that end at the cutoff cannot show a tie across it
    text = rp.findings(evaluations, k=longest, systems=systems)
    assert f"end at the cutoff {longest}: whether tied scores straddle it cannot be seen" \
        in text and "No system has tied scores" not in text


def _score_ties_by_pandas(recs: pd.DataFrame, ks: list[int]) -> dict[int, int]:
    """The tie count as pandas sorts the lists (the oracle)."""
    keys = ["user_id", "rank"] if "rank" in recs.columns else ["user_id", "score"]
    ordered = recs.sort_values(keys, ascending=[True, "rank" in recs.columns], kind="stable")
    users, scores = ordered["user_id"].to_numpy(), ordered["score"].to_numpy()
    position = ordered.groupby("user_id", sort=False).cumcount().to_numpy() + 1
    tied = (users[:-1] == users[1:]) & (scores[:-1] == scores[1:])
    return {k: int(np.count_nonzero(tied & (position[:-1] == k))) for k in ks}


@pytest.mark.parametrize("seed", range(12))
def test_score_ties_counts_the_ties_at_each_cutoff_as_pandas_orders_the_lists(seed) -> None:
    # lists in any row order, ranked or by score only, with string or integer users and
    # scores tied on purpose (coarse values, signed zeros)
    gen = np.random.default_rng(seed)
    n = int(gen.integers(0, 300))
    recs = pd.DataFrame({"user_id": gen.integers(0, 25, n),
                         "item_id": np.arange(n),
                         "score": np.round(gen.normal(size=n), 1) * (gen.random(n) < 0.8)})
    if seed % 3 == 0:
        recs["user_id"] = "u" + recs["user_id"].astype(str)
    if seed % 2:
        recs["rank"] = recs.groupby("user_id").cumcount() + 1
        recs = recs.iloc[gen.permutation(n)]
    ks = [1, 2, 3, 5, 10]
    assert rp.score_ties(recs, ks) == _score_ties_by_pandas(recs, ks)
    # and written best first, as the lists usually are (read without a sort)
    ranked = "rank" in recs.columns
    best_first = recs.sort_values(["user_id", "rank" if ranked else "score"],
                                  ascending=[True, ranked], kind="stable")
    assert rp.score_ties(best_first, ks) == _score_ties_by_pandas(best_first, ks)
