"""The metrics-explained page's library table: each profile's numbers are its own evaluation
of the lists, although the profiles share the hit tables they have in common."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import evalkit as ek
from evalkit import report as rp
from evalkit.metrics import RANKING_METRICS, _prepare
from evalkit.profiles import PROFILES
from tests.metrics.naive import random_frames


@pytest.fixture(scope="module")
def data():
    truth, recs = random_frames(np.random.default_rng(7), n_users=80, max_list=12)
    recs = recs.drop(columns="rank", errors="ignore")  # scores only: tie orders matter
    train = truth[truth["item_id"] < 15].assign(rating=3.0)  # half the items unknown
    return truth, recs, train


@pytest.fixture
def built(monkeypatch) -> list:
    """One entry per hit table built from here on."""
    tables: list = []
    real = _prepare._prepare
    monkeypatch.setattr(_prepare, "_prepare", lambda *a, **kw: tables.append(1) or real(*a, **kw))
    return tables


def test_each_profile_is_its_own_evaluation(data, built) -> None:
    truth, recs, train = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = rp.library_table(truth, recs, k=5, threshold=4.0, train=train, digits=15)
    n_built = len(built)
    shared = [m for m, metric in RANKING_METRICS.items()
              if metric.kernel and "threshold" in metric.reads]
    fields = set()
    for name, entry in PROFILES.items():
        metrics = [m for m in shared if entry.covers(m)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            alone = ek.evaluate(truth, recs, k=5, metrics=metrics, threshold=4.0, train=train,
                                definitions=name, n_resamples=0)
        for m in metrics:
            label = RANKING_METRICS[m].label + ("@5" if RANKING_METRICS[m].at_k else "")
            want = alone.mean(m, 5 if RANKING_METRICS[m].at_k else None)
            assert got.loc[name, label] == pytest.approx(round(want, 15), rel=0, abs=0,
                                                         nan_ok=True), (name, m)
        used = ek.definitions.resolve(name, func="test", threshold=4.0)
        fields |= {_prepare.table_fields(used.for_metric(m)) for m in metrics}
    assert list(got.index) == list(PROFILES)
    assert n_built == len(fields) < len(PROFILES)  # each hit table built once


def test_outside_a_block_every_evaluation_builds_its_own_table(data, built) -> None:
    truth, recs, _ = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(2):
            ek.evaluate(truth, recs, k=5, n_resamples=0)
        with _prepare.sharing_tables():
            first = ek.evaluate(truth, recs, k=5, n_resamples=0)
            again = ek.evaluate(truth, recs, k=5, n_resamples=0)
            copy = ek.evaluate(truth, recs.copy(), k=5, n_resamples=0)  # other lists: built
    assert len(built) == 4
    pd.testing.assert_frame_equal(first.per_user, again.per_user)
    pd.testing.assert_frame_equal(first.per_user, copy.per_user)
