"""The report pages leave out only the warnings whose facts they show (users only in the
lists, ties where the tie table shows them, ...); a warning about the data itself, such as
string ids that match only after normalization, still reaches the analyst."""

from __future__ import annotations

import warnings

import pandas as pd

from evalkit.report import evaluate_systems


def _caught(test: pd.DataFrame, recs: pd.DataFrame) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluate_systems(test, {"mine": recs}, k=[2], metrics=["precision"])
    return [str(w.message) for w in caught]


def test_counted_facts_are_not_repeated_but_a_format_mismatch_is_shown() -> None:
    test = pd.DataFrame({"user_id": ["u1", "u1", "u2"], "item_id": ["10", "11", "10"],
                         "rating": [5.0, 4.0, 5.0]})
    # a user only in the lists and tied scores at the cutoff: the page shows both
    recs = pd.DataFrame({"user_id": ["u1", "u1", "u1", "u2", "u3"],
                         "item_id": ["10", "12", "13", "10", "10"],
                         "score": [0.9, 0.5, 0.5, 0.8, 0.7]})
    assert _caught(test, recs) == []
    # the lists' item ids written with leading zeros: they would never match
    padded = recs.assign(item_id=recs["item_id"].str.zfill(4))
    messages = _caught(test, padded)
    assert any("only after removing spaces, case or leading zeros" in m for m in messages), \
        messages
