"""The model comparison's user-group section (evalkit.report.group_check, group_note,
group_table): sentences follow the results."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

import evalkit as ek
from evalkit import report as rp
from evalkit.models import MostPopular
from evalkit.segments import item_popularity_buckets


def _world(seed: int = 0):
    rng = np.random.default_rng(seed)
    n = 600
    users = np.arange(1, n + 1)
    train = pd.DataFrame({"user_id": np.repeat(users, 5), "item_id": rng.integers(0, 50, 5 * n),
                          "rating": 4.0}).drop_duplicates(["user_id", "item_id"])
    truth = pd.DataFrame({"user_id": users, "item_id": 100 + users % 10, "rating": 5.0})
    gender = np.where(users % 3 == 0, "F", "M")
    # the system finds the held-out item for M users, rarely for F users
    hit = np.where(gender == "M", rng.random(n) < 0.6, rng.random(n) < 0.1)
    recs = pd.DataFrame({"user_id": np.repeat(users, 2),
                         "item_id": np.column_stack([np.where(hit, 100 + users % 10, 60),
                                                     np.full(n, 61)]).ravel(),
                         "rank": np.tile([1, 2], n)})
    attributes = pd.DataFrame({"user_id": users, "gender": gender})
    return SimpleNamespace(train=train, test=truth), recs, attributes


def test_the_note_names_the_group_served_worse_and_the_exposure() -> None:
    inputs, recs, attributes = _world()
    evaluations = {"sys": ek.evaluate(inputs.test, recs, k=[10], metrics=["ndcg"])}
    check = rp.group_check(inputs, evaluations, {"sys": recs}, attributes, metric="ndcg", k=10)
    assert check.group == "gender" and check.disparities["sys"].reference == "M"
    table = check.disparities["sys"].set_index("group")
    assert table.loc["F", "gap_ci_high"] < 0
    note = rp.group_note(check)
    assert f"the largest shortfall is F's, NDCG@10 {table.loc['F', 'gap']:+.4f}" in note
    assert "(an interval below 0)" in note and "(600 of the 600 test users have it)" in note
    exposure = check.exposure["sys"]
    assert f"sys gives the tail {exposure.loc['tail', 'share']:.1%} of the attention" in note
    shown = rp.exposure_table(check)
    assert shown.loc[("sys", "tail"), "share of the catalogue"] == \
        f"{exposure.loc['tail', 'target']:.1%}"
    buckets = item_popularity_buckets(inputs.train).astype(str)
    tail_item = buckets[buckets == "tail"].index[0]
    two = rp.group_check(inputs, {"sys": evaluations["sys"], "other": evaluations["sys"]},
                         {"sys": recs, "other": recs.assign(item_id=recs["item_id"].where(
                             recs["rank"] == 1, tail_item))},
                         attributes, metric="ndcg", k=10)
    tails = {n: t.loc["tail", "share"] for n, t in two.exposure.items()}
    most = max(tails, key=tails.get)
    assert f"{most} gives the tail the largest share, {tails[most]:.1%}" in rp.group_note(two)
    assert rp.group_note(two).count("gives the tail") == 1  # a table, not a sentence each
    assert "Significant gaps after Holm's correction over every system and group: F (sys)." \
        in note
    shown = rp.group_table(check)
    # indexed by system and group (no bare 0..n column on the page)
    assert shown.index.names == ["system", "gender"]
    assert list(shown.index.get_level_values("gender")) == ["M", "F"]
    assert shown["gap"].iloc[0] == "(reference)"
    none = rp.group_check(inputs, evaluations, {"sys": recs}, None, metric="ndcg", k=10)
    assert "the data has no user attributes" in rp.group_note(none)
    assert rp.group_table(none) is None


def test_a_users_file_is_read_with_the_analysts_column_names(tmp_path) -> None:
    _, _, attributes = _world()
    attributes.rename(columns={"user_id": "uid"}).to_csv(tmp_path / "users.csv", index=False)
    sample = rp.load_inputs("sample", split=None)
    read = rp.user_attributes(sample, str(tmp_path / "users.csv"), columns={"uid": "user_id"})
    pd.testing.assert_frame_equal(read, attributes)
    assert list(rp.user_attributes(sample).columns) == ["user_id", "gender", "age",
                                                        "occupation", "zip"]


def test_the_analysts_own_files_never_get_the_samples_users(tmp_path) -> None:
    """Own files whose user ids are the sample's: DATASET keeps its default ("sample"), and
    still no attribute of the sample's users is joined to them; only USERS gives some."""
    sample = ek.load_sample()
    ratings = sample.ratings[sample.ratings["user_id"].isin(sample.users["user_id"][:50])]
    split = ek.user_ratio_split(ratings, test_fraction=0.2, rng=0)
    split.train.to_csv(tmp_path / "train.csv", index=False)
    split.test.to_csv(tmp_path / "test.csv", index=False)
    ratings.to_csv(tmp_path / "ratings.csv", index=False)
    own = [rp.load_inputs("sample", train=tmp_path / "train.csv", test=tmp_path / "test.csv"),
           rp.load_inputs(str(tmp_path / "ratings.csv")),
           rp.load_inputs(str(tmp_path / "ratings.csv"), split=None)]
    for inputs in own:
        assert rp.user_attributes(inputs) is None
        recs = MostPopular().fit(inputs.train).recommend(inputs.test_users, k=10) \
            if inputs.split is not None else None
        if recs is None:
            continue
        evaluations = {"pop": ek.evaluate(inputs.test, recs, k=10, metrics=["ndcg"],
                                          n_resamples=50)}
        check = rp.group_check(inputs, evaluations, {"pop": recs},
                               rp.user_attributes(inputs), metric="ndcg", k=10)
        note = rp.group_note(check)
        assert note.startswith("User groups are not shown: the data has no user attributes")
        assert "-p USERS" in note and "gender" not in note and rp.group_table(check) is None
    sample.users.iloc[:50, [0, 2]].to_csv(tmp_path / "users.csv", index=False)
    given = rp.user_attributes(own[0], tmp_path / "users.csv")
    assert list(given.columns) == ["user_id", "age"] and len(given) == 50


def test_the_group_tests_are_corrected_by_holm_over_every_system_and_group() -> None:
    """Page 07's group table: each gap's ``p_value_holm`` is Holm's over the tests of every
    system and every group against its reference, and the note's list of significant gaps
    reads those."""
    from tests.holm_oracle import holm_by_hand

    inputs, recs, attributes = _world()
    plans = np.array(["basic", "plus", "pro"])[attributes["user_id"].to_numpy() % 3]
    attributes = attributes.assign(plan=plans)
    other = recs.assign(item_id=recs["item_id"].where((recs["user_id"] % 4 != 0)
                                                      | (recs["rank"] != 1), 62))
    systems = {"sys": recs, "other": other}
    evaluations = {n: ek.evaluate(inputs.test, s, k=[10], metrics=["ndcg"])
                   for n, s in systems.items()}
    check = rp.group_check(inputs, evaluations, systems, attributes, group="plan",
                           metric="ndcg", k=10)
    tables = list(check.disparities.values())
    assert len(tables) == 2 and all(len(t) == 3 for t in tables)
    raw = [p for t in tables for p in t["p_value"].iloc[1:]]
    adjusted = [p for t in tables for p in t["p_value_holm"].iloc[1:]]
    assert adjusted == pytest.approx(holm_by_hand(raw))
    assert any(a > r for a, r in zip(adjusted, raw))
