"""One vocabulary for metrics: a metric is named by its registry name (``ndcg``) or by the
label tables print (``NDCG``), at a cutoff as ``ndcg@10`` or ``NDCG@10``, read in one place
(:func:`evalkit.metrics.get_metric`, :func:`evalkit.metrics.parse_column`) by every entry
point that takes a metric."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evalkit as ek
from evalkit import plots
from evalkit.metrics import (
    METRICS,
    Metric,
    get_metric,
    parse_column,
    ranking_curves,
    register,
    unregister,
)
from evalkit.protocols import debiased, sampled


def test_every_declared_label_and_name_reads_back_as_its_metric() -> None:
    """Driven by the registry: what a table prints for a metric at any cutoff, and its
    registry name, read back as that metric and cutoff."""
    for metric in METRICS.values():
        assert get_metric(metric.name) is metric
        ks = (1, 10, 250) if metric.at_k else (None,)
        for k in ks:
            assert parse_column(metric.column_label(k)) == (metric, k)
            text = metric.name if k is None else f"{metric.name}@{k}"
            assert parse_column(text) == (metric, k)
        if sum(m.label == metric.label for m in METRICS.values()) == 1:
            assert get_metric(metric.label) is metric
    # R-Prec is the label of r_precision and r_precision_at_k: alone it is the one without a
    # cutoff (printed so), with a cutoff the other
    assert get_metric("R-Prec").name == "r_precision"
    assert parse_column("R-Prec@10")[0].name == "r_precision_at_k"


@pytest.mark.parametrize(("text", "message"), [
    ("nDCG", r"^f: 'm' names an unknown metric 'nDCG'; valid metrics are precision \(P\), .*"
             r"Names and labels are case-sensitive: did you mean 'NDCG' or 'ndcg'\?$"),
    ("ndgc", r"^f: 'm' names an unknown metric 'ndgc'; valid metrics are .*, each by its "
             r"registry name or its label\.$"),
    ("NDCG@10", r"^f: 'NDCG@10' in 'm' names 'ndcg' at a cutoff; name the metric alone "
                r"\('NDCG' or 'ndcg'\) and give the cutoff apart\.$"),
    (3, r"^f: a metric in 'm' is named by a string \(its registry name or label\); got 3 "),
])
def test_a_bad_metric_name_is_refused_listing_the_registry(text, message) -> None:
    with pytest.raises(ek.InvalidParameterError, match=message) as info:
        get_metric(text, func="f", arg="m")
    if isinstance(text, str) and "@" not in text:
        # a label a metric without a cutoff has too shows with its "@k" (R-Prec@k)
        assert all(f"{m.name} ({m.label})" in str(info.value) or f" {m.name}," in
                   str(info.value) or f"{m.name} ({m.label}@k)" in str(info.value)
                   for m in METRICS.values())


@pytest.mark.parametrize(("text", "message"), [
    ("MAE@10", r"^f: 'MAE@10' in 'm': metric 'mae' has no cutoff; name it 'MAE' or 'mae'\.$"),
    ("NDCG@0", r"^f: 'NDCG@0' in 'm': the cutoff must be a positive integer; got 0\.$"),
    ("Ndcg@10", r"^f: 'm' names an unknown metric 'Ndcg@10'; .*\(name@k or label@k at a "
                r"cutoff: ndcg@10, NDCG@10\)\. Names and labels are case-sensitive"),
])
def test_a_bad_column_is_refused_saying_why(text, message) -> None:
    with pytest.raises(ek.InvalidParameterError, match=message):
        parse_column(text, func="f", arg="m")


def test_a_label_two_metrics_share_is_refused_and_their_names_still_work() -> None:
    twin = Metric("ndcg_mine", per_user=lambda hits, k: hits.count(), label="NDCG",
                  bounds=(0, np.inf))
    register(twin)
    try:
        with pytest.raises(ek.InvalidParameterError,
                           match=r"metric 'NDCG' is ambiguous: it is the label of ndcg, "
                                 r"ndcg_mine; name one of them by its registry name"):
            get_metric("NDCG")
        with pytest.raises(ek.InvalidParameterError, match="'NDCG@10' in 'margins' is "
                                                           "ambiguous"):
            parse_column("NDCG@10", arg="margins")
        assert get_metric("ndcg").name == "ndcg"
        assert get_metric("ndcg_mine").name == "ndcg_mine"
        # where only one of them is taken, the label names that one
        assert get_metric("NDCG", choices=["ndcg", "precision"]).name == "ndcg"
    finally:
        unregister("ndcg_mine")


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    users = np.repeat(np.arange(1, 41), 4)
    truth = pd.DataFrame({"user_id": users, "item_id": rng.integers(0, 30, users.size),
                          "rating": rng.choice([2.0, 4.0, 5.0], users.size)})
    truth = truth.drop_duplicates(["user_id", "item_id"]).reset_index(drop=True)
    order = np.argsort(rng.random((40, 30)), axis=1)[:, :10]
    recs = pd.DataFrame({"user_id": np.repeat(np.arange(1, 41), 10), "item_id": order.ravel(),
                         "rank": np.tile(np.arange(1, 11), 40)})
    other = recs.assign(rank=11 - recs["rank"])
    return truth, recs, other


def test_every_entry_point_takes_a_label_as_its_name(data) -> None:
    truth, recs, other = data
    names, labels = ["ndcg", "precision", "r_precision"], ["NDCG", "P", "R-Prec"]
    by_name = ek.evaluate(truth, recs, k=[5, 10], metrics=names)
    by_label = ek.evaluate(truth, recs, k=[5, 10], metrics=labels)
    pd.testing.assert_frame_equal(by_label.summary, by_name.summary)
    assert by_label.mean("NDCG@10") == by_label.mean("NDCG", 10) == by_name.mean("ndcg", 10)
    assert by_label.mean("R-Prec") == by_name.mean("r_precision")
    pd.testing.assert_frame_equal(
        ek.compare({"a": recs, "b": other}, truth, k=5, metrics=labels, n_resamples=50,
                   n_permutations=99),
        ek.compare({"a": recs, "b": other}, truth, k=5, metrics=names, n_resamples=50,
                   n_permutations=99))
    pd.testing.assert_frame_equal(ranking_curves(truth, recs, k_max=5, metrics=["NDCG", "HR"]),
                                  ranking_curves(truth, recs, k_max=5, metrics=["ndcg",
                                                                                "hit_rate"]))
    folds = {m: ek.cross_validate(ek.models.MostPopular, truth, folds=2, k=5, metrics=[m],
                                  progress=False).summary for m in ("MRR", "mrr")}
    pd.testing.assert_frame_equal(folds["MRR"], folds["mrr"])
    drawn = sampled.sample_negatives(truth, None, n_negatives=5, rng=0)
    ranks = sampled.sampled_ranks(drawn.assign(score=np.arange(len(drawn), dtype=float)))
    pd.testing.assert_series_equal(sampled.sampled_metric(ranks, metric="NDCG", k=5),
                                   sampled.sampled_metric(ranks, metric="ndcg", k=5))
    assert sampled.corrected_metric(ranks, metric="HR", k=5, n_resamples=20).value == \
        sampled.corrected_metric(ranks, metric="hit_rate", k=5, n_resamples=20).value
    propensity = debiased.popularity_propensity(truth, gamma=0.5)
    pd.testing.assert_series_equal(debiased.ips_metric(truth, recs, propensity, metric="R"),
                                   debiased.ips_metric(truth, recs, propensity,
                                                       metric="recall"))
    with pytest.raises(ValueError, match="metric_at_k: metric 'MAE' in 'metric' is 'mae', "
                                         "which metric_at_k does not take; it takes precision"):
        plots.metric_at_k({"a": ranking_curves(truth, recs, k_max=3)}, "MAE")


def test_a_plot_takes_a_label(data) -> None:
    import matplotlib.pyplot as plt

    truth, recs, _ = data
    curves = {"a": ranking_curves(truth, recs, k_max=4)}
    plt.switch_backend("agg")
    by_label = plots.metric_at_k(curves, "NDCG")
    by_name = plots.metric_at_k(curves, "ndcg")
    assert by_label.get_title() == by_name.get_title()
    np.testing.assert_array_equal(by_label.lines[0].get_ydata(), by_name.lines[0].get_ydata())
    assert len(plots.metrics_at_k(curves, metrics=("P", "NDCG")).axes) == 2
    plt.close("all")


def test_evaluate_lists_the_metrics_it_takes_and_takes_a_metric_at_one_of_its_cutoffs() -> None:
    """The list of valid names in ``evaluate``'s message is the ranking metrics it takes (no
    MAE it would refuse next, R-Prec once and R-Prec@k once); ``"NDCG@10"`` is taken where 10
    is a cutoff, as margins take it; at another cutoff it is refused, naming the cutoffs."""
    import evalkit as ek
    from evalkit._errors import InvalidParameterError

    truth = pd.DataFrame({"user_id": [1, 2], "item_id": [1, 1], "rating": 5.0})
    recs = pd.DataFrame({"user_id": [1, 2], "item_id": [1, 2], "rank": 1})
    with pytest.raises(InvalidParameterError) as raised:
        ek.evaluate(truth, recs, k=10, metrics=["bogus"])
    message = str(raised.value)
    assert "mae" not in message and "Novelty" not in message
    assert message.count("(R-Prec)") == 1 and message.count("(R-Prec@k)") == 1
    a = ek.evaluate(truth, recs, k=[5, 10], metrics=["NDCG@10"], n_resamples=0)
    b = ek.evaluate(truth, recs, k=[5, 10], metrics=["ndcg"], n_resamples=0)
    pd.testing.assert_frame_equal(a.per_user, b.per_user)
    with pytest.raises(InvalidParameterError, match=r"'NDCG@3' in 'metrics' names the cutoff "
                                                    r"3, which is not among the cutoffs"):
        ek.evaluate(truth, recs, k=[5, 10], metrics=["NDCG@3"])
    with pytest.raises(InvalidParameterError, match=r"Call evalkit.metrics.rmse_per_user"):
        ek.evaluate(truth, recs, k=5, metrics=["RMSE"])


def test_movielens_column_names_are_refused_with_how_to_map_them() -> None:
    import evalkit as ek
    from evalkit._errors import InvalidParameterError

    truth = pd.DataFrame({"userId": [1], "movieId": [1], "rating": 5.0})
    recs = pd.DataFrame({"user_id": [1], "item_id": [1], "rank": 1})
    with pytest.raises(InvalidParameterError, match=r"Rename them with \.rename\(columns="
                                                    r"\{'userId': 'user_id', 'movieId': "
                                                    r"'item_id'\}\)"):
        ek.evaluate(truth, recs, k=5)
