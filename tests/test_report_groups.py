"""The model comparison's user-group section (evalkit.report.group_check, group_note,
group_table): sentences follow the results."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd

import evalkit as ek
from evalkit import report as rp


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
    assert "sys gives the tail" in note
    assert "Significant gaps after Holm's correction over every system and group: F (sys)." \
        in note
    shown = rp.group_table(check)
    assert list(shown["gender"]) == ["M", "F"] and shown.loc[0, "gap"] == "(reference)"
    none = rp.group_check(inputs, evaluations, {"sys": recs}, None, metric="ndcg", k=10)
    assert "the data has no user attributes" in rp.group_note(none)
    assert rp.group_table(none) is None


def test_a_users_file_is_read_with_the_analysts_column_names(tmp_path) -> None:
    _, _, attributes = _world()
    attributes.rename(columns={"user_id": "uid"}).to_csv(tmp_path / "users.csv", index=False)
    read = rp.user_attributes("sample", str(tmp_path / "users.csv"), columns={"uid": "user_id"})
    pd.testing.assert_frame_equal(read, attributes)
    assert list(rp.user_attributes("sample").columns) == ["user_id", "gender", "age",
                                                          "occupation", "zip"]
