"""The metrics of top-k lists (beyond accuracy, ``confusion_at_k``) order tied scores as the
ranking metrics do under ``ties="deterministic"`` (``tie_order``), and warn the same way.

Each metric on score-only lists must equal the metric on the same lists ranked here by
pandas in the chosen order, and those ranks must be the ones the ranking metrics use (their
precision on both agrees); the warning counts the users whose tied scores straddle k and
points at the caller's line.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from evalkit import Definitions
from evalkit.metrics import TieWarning, precision_at_k
from evalkit.metrics.beyond import (
    average_recommended_popularity,
    catalog_coverage,
    exposure_entropy,
    exposure_gini,
    gini_index,
    intra_list_diversity,
    mean_pop_rank,
    novelty,
    personalization,
    serendipity,
    user_coverage,
)
from evalkit.metrics.classification import confusion_at_k
from evalkit.metrics.tables import beyond_accuracy, beyond_intervals, list_intervals

ORDERS = ["item", "item_desc", "item_str", "item_str_desc"]
K = 3


def frames():
    rng = np.random.default_rng(4)
    rows = [(u, i, float(rng.integers(0, 3))) for u in range(1, 9)
            for i in rng.choice(12, size=6, replace=False)]
    recs = pd.DataFrame(rows, columns=["user_id", "item_id", "score"])
    truth = pd.DataFrame({"user_id": np.repeat(np.arange(1, 9), 3),
                          "item_id": rng.integers(0, 12, size=24),
                          "rating": rng.choice([1.0, 3.0, 4.0, 5.0], size=24)})
    truth = truth.drop_duplicates(["user_id", "item_id"], ignore_index=True)
    train = pd.DataFrame({"user_id": rng.integers(20, 40, size=60),
                          "item_id": rng.integers(0, 12, size=60)}).drop_duplicates()
    items = pd.DataFrame({"item_id": np.arange(12),
                          "genres": [["a"], ["b"], ["a", "c"], ["c"]] * 3})
    return truth, recs, train, items


def ranked(recs: pd.DataFrame, order: str) -> pd.DataFrame:
    """The lists ranked by descending score, ties in ``order``, by pandas."""
    key = recs["item_id"].astype(str) if order.startswith("item_str") else recs["item_id"]
    frame = recs.assign(_key=key).sort_values(
        ["user_id", "score", "_key"], ascending=[True, False, not order.endswith("_desc")])
    frame["rank"] = frame.groupby("user_id").cumcount() + 1
    return frame.drop(columns=["score", "_key"]).reset_index(drop=True)


def straddling(recs: pd.DataFrame, k: int) -> int:
    """Users whose k-th and (k+1)-th scores are equal (the ties that decide the top k)."""
    n = 0
    for _, group in recs.groupby("user_id"):  # the reference: a loop over a few users
        scores = sorted(group["score"], reverse=True)
        n += len(scores) > k and scores[k - 1] == scores[k]
    return n


truth, recs, train, items = frames()
CALLS = {
    "catalog_coverage": lambda r, **o: catalog_coverage(r, k=K, catalog=train, **o),
    "user_coverage": lambda r, **o: user_coverage(truth, r, k=K, **o),
    "gini_index": lambda r, **o: gini_index(r, k=K, catalog=train, **o),
    "exposure_gini": lambda r, **o: exposure_gini(r, k=K, catalog=train, **o),
    "exposure_entropy": lambda r, **o: exposure_entropy(r, k=K, **o),
    "average_recommended_popularity":
        lambda r, **o: average_recommended_popularity(r, train, k=K, **o),
    "mean_pop_rank": lambda r, **o: mean_pop_rank(r, train, k=K, **o),
    "novelty": lambda r, **o: novelty(r, train, k=K, **o),
    "intra_list_diversity": lambda r, **o: intra_list_diversity(r, items, k=K, **o),
    "personalization": lambda r, **o: personalization(r, k=K, **o),
    "serendipity": lambda r, **o: serendipity(truth, r, train, k=K, **o),
    "confusion_at_k": lambda r, **o: confusion_at_k(truth, r, k=K, **o),
}


def calm(call, *args, **kw):
    """A call whose other warnings (items outside the catalog, ...) are not under test."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(*args, **kw)


def test_the_data_has_ties_at_the_cutoff() -> None:
    assert 0 < straddling(recs, K) < recs["user_id"].nunique()


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("name", list(CALLS))
def test_tied_scores_follow_tie_order_and_warn(name: str, order: str) -> None:
    call = CALLS[name]
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        got = call(recs, tie_order=order)
    ties = [w for w in record if issubclass(w.category, TieWarning)]
    assert len(ties) == 1, [str(w.message) for w in record]
    message = str(ties[0].message)
    assert message.startswith(f"{name}: {straddling(recs, K)} user(s) have tied scores "
                              f"straddling the cutoff k={K}; tie_order={order!r}"), message
    assert ties[0].filename == __file__  # points at the caller's line
    want = calm(call, ranked(recs, order))
    if isinstance(want, pd.Series):
        pd.testing.assert_series_equal(got, want)
    else:
        assert got == pytest.approx(want, nan_ok=True)


@pytest.mark.parametrize("order", ORDERS)
def test_the_ranks_are_those_of_the_ranking_metrics(order: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TieWarning)
        engine = precision_at_k(truth, recs, k=K, tie_order=order)
    pd.testing.assert_series_equal(engine, precision_at_k(truth, ranked(recs, order), k=K))
    # and the orders differ on these lists, so the comparison can fail
    if order != "item":
        assert not ranked(recs, order).equals(ranked(recs, "item"))


def test_no_warning_without_a_tie_at_the_cutoff() -> None:
    distinct = recs.assign(score=np.arange(len(recs), dtype=float))
    for call in CALLS.values():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            warnings.simplefilter("error", TieWarning)  # checked first: a tie would fail
            call(distinct)


@pytest.mark.parametrize("table", ["beyond_accuracy", "beyond_intervals", "list_intervals"])
def test_tables_cut_the_lists_once_and_warn_once(table: str) -> None:
    calls = {
        "beyond_accuracy": lambda r, **o: beyond_accuracy(truth, r, train=train, items=items,
                                                          k=K, **o),
        "beyond_intervals": lambda r, **o: beyond_intervals(truth, r, train=train, items=items,
                                                            k=K, n_resamples=50, **o),
        "list_intervals": lambda r, **o: list_intervals(r, train=train, k=K, n_resamples=50,
                                                        **o),
    }
    call = calls[table]
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        got = call(recs, definitions=Definitions(tie_order="item_desc"))
    ties = [w for w in record if issubclass(w.category, TieWarning)]
    assert [re.match(r"(\w+):", str(w.message)).group(1) for w in ties] == [table]
    assert ties[0].filename == __file__
    want = calm(call, ranked(recs, "item_desc"))
    pd.testing.assert_frame_equal(pd.DataFrame(got), pd.DataFrame(want))
