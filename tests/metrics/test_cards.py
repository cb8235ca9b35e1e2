"""Definition cards: a card for every ranking metric, read from its declaration, and each
declaration names every convention that changes the metric (changing any other field leaves
every per-user value unchanged)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import evalkit as ek
from evalkit.definitions import OPTION_NAMES, choices
from evalkit.metrics import RANKING_METRICS, definition_cards

ALTERNATIVES = {"threshold": [3.0, None], "log_base": [10.0], "neutral": [2.0], "half_life": [2.0]}


def _case():
    gen = np.random.default_rng(3)
    rows = [(u, i, gen.integers(1, 11) / 2) for u in range(60)
            for i in gen.choice(30, gen.integers(1, 8), replace=False)]
    truth = pd.DataFrame(rows, columns=["user_id", "item_id", "rating"])
    recs = pd.concat([pd.DataFrame({"user_id": u, "item_id": gen.choice(35, 8, replace=False),
                                    "score": gen.integers(0, 4, 8).astype(float)})
                      for u in range(60)], ignore_index=True)
    train = pd.DataFrame({"user_id": 0, "item_id": np.arange(28)})
    return truth, recs, train


def test_every_ranking_metric_has_a_card() -> None:
    cards = definition_cards()
    assert list(cards.index) == list(RANKING_METRICS)
    assert cards.loc["ndcg", "range"] == "[0, 1]" and cards.loc["dcg", "range"] == "[0, inf)"
    assert cards.loc["first_relevant_rank", "range"] == "[1, inf)"
    assert (cards["better"] == [m.better for m in RANKING_METRICS.values()]).all()
    assert cards.loc["first_relevant_rank", "better"] == "lower"
    assert (cards.drop(index="first_relevant_rank")["better"] == "higher").all()
    assert all(cards["formula"].str.len() > 20)
    assert "gain='linear'" in cards.loc["ndcg", "conventions"]
    assert "ap_denominator='relevant'" in definition_cards("trec_eval").loc["map", "conventions"]


@pytest.mark.parametrize("metric", list(RANKING_METRICS))
def test_fields_left_off_a_card_do_not_change_the_metric(metric) -> None:
    truth, recs, train = _case()
    listed = set(RANKING_METRICS[metric].reads)

    def values(**options):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ek.evaluate(truth, recs, k=[3, 8], metrics=[metric], train=train,
                               n_resamples=0, empty="nan", **options).per_user
    base = values()
    changed = []
    for field in OPTION_NAMES:
        if field == "empty":
            continue  # every value is kept as NaN here; 'empty' is listed where it applies
        for value in ALTERNATIVES.get(field, choices(field) or []):
            if field == "unknown_items" and value == "drop":
                options = {"unknown_items": "drop"}
            else:
                options = {field: value}
            try:
                other = values(**options)
            except ValueError:
                continue  # a combination the metric refuses (e.g. a threshold it needs)
            if not base.equals(other):
                changed.append(field)
    assert set(changed) <= listed, (metric, set(changed) - listed)
