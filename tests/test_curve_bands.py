"""Bootstrap bands on the metric@k curves and the precision-recall curve over k:
evalkit.report.curve_bands and the plots that draw them."""

from __future__ import annotations

import matplotlib

matplotlib.use("agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.collections import PolyCollection  # noqa: E402
from matplotlib.container import ErrorbarContainer  # noqa: E402

import evalkit as ek  # noqa: E402
from evalkit import plots  # noqa: E402
from evalkit import report as rp  # noqa: E402
from evalkit.stats import bootstrap_ci_frame  # noqa: E402

K_MAX = 8


@pytest.fixture(scope="module")
def data() -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    rng = np.random.default_rng(0)
    n_users, n_items = 70, 40
    truth = pd.DataFrame({"user_id": np.repeat(np.arange(n_users), 6),
                          "item_id": np.concatenate([rng.choice(n_items, 6, replace=False)
                                                     for _ in range(n_users)]),
                          "rating": rng.integers(1, 11, 6 * n_users) / 2})
    systems = {}
    for name, seed in (("a", 1), ("b", 2)):
        g = np.random.default_rng(seed)
        systems[name] = pd.DataFrame({
            "user_id": np.repeat(np.arange(n_users), K_MAX),
            "item_id": np.concatenate([g.choice(n_items, K_MAX, replace=False)
                                       for _ in range(n_users)]),
            "rank": np.tile(np.arange(1, K_MAX + 1), n_users)})
    return truth, systems


@pytest.fixture(scope="module")
def bands(data) -> dict[str, pd.DataFrame]:
    truth, systems = data
    return rp.curve_bands(truth, systems, k_max=K_MAX, seed=3, n_resamples=300)


def test_the_means_are_the_ranking_curves(data, bands) -> None:
    truth, systems = data
    for name, recs in systems.items():
        curves = ek.evaluate(truth, recs, k=1, curves=K_MAX, n_resamples=0).curves
        frame = bands[name]
        assert list(frame.index) == list(range(1, K_MAX + 1))
        for metric in ("precision", "recall", "map", "ndcg"):
            np.testing.assert_allclose(frame[metric], curves[metric], rtol=1e-12, atol=1e-15)
            assert (frame[f"{metric}_low"] <= frame[metric] + 1e-12).all()
            assert (frame[metric] <= frame[f"{metric}_high"] + 1e-12).all()


def test_each_band_is_the_bootstrap_interval_of_the_per_user_values_at_k(data, bands) -> None:
    truth, systems = data
    result = ek.evaluate(truth, systems["b"], k=list(range(1, K_MAX + 1)),
                         metrics=["precision", "recall", "map", "ndcg"], n_resamples=0)
    want = bootstrap_ci_frame(result.per_user, n_resamples=300, rng=3)
    for k in (1, 4, K_MAX):
        for metric in ("precision", "ndcg"):
            row = want.loc[f"{metric}@{k}"]
            assert bands["b"].loc[k, f"{metric}_low"] == pytest.approx(row["ci_low"], abs=1e-12)
            assert bands["b"].loc[k, f"{metric}_high"] == pytest.approx(row["ci_high"],
                                                                        abs=1e-12)


def test_the_level_and_the_profile_are_applied(data) -> None:
    truth, systems = data
    wide = rp.curve_bands(truth, {"a": systems["a"]}, k_max=3, confidence=0.99,
                          n_resamples=300)["a"]
    narrow = rp.curve_bands(truth, {"a": systems["a"]}, k_max=3, confidence=0.5,
                            n_resamples=300)["a"]
    assert ((wide["ndcg_high"] - wide["ndcg_low"]) > (narrow["ndcg_high"]
                                                       - narrow["ndcg_low"])).all()
    # a profile's definitions apply to every metric, also those its library lacks
    sklearn = rp.curve_bands(truth, {"a": systems["a"]}, k_max=3, profile="sklearn")["a"]
    defs = ek.profile("sklearn").replace(profile=None)
    want = ek.evaluate(truth, systems["a"], k=3, metrics=["precision", "ndcg"],
                       definitions=defs, n_resamples=0)
    assert sklearn.loc[3, "ndcg"] == pytest.approx(want.mean("ndcg", 3))
    assert sklearn.loc[3, "precision"] == pytest.approx(want.mean("precision", 3))


def test_metrics_at_k_draws_a_band_per_system_only_with_intervals(bands) -> None:
    fig = plots.metrics_at_k(bands)
    for ax, metric in zip(fig.axes, ("precision", "recall", "map", "ndcg")):
        polys = [c for c in ax.collections if isinstance(c, PolyCollection)]
        assert len(polys) == 2
        top = polys[0].get_paths()[0].vertices[:, 1].max()
        assert top == pytest.approx(bands["a"][f"{metric}_high"].max())
    plain = {n: f[["precision", "recall", "map", "ndcg"]] for n, f in bands.items()}
    fig = plots.metrics_at_k(plain)
    assert not any(isinstance(c, PolyCollection) for ax in fig.axes for c in ax.collections)
    ax = plots.metric_at_k(bands, "recall")
    assert len([c for c in ax.collections if isinstance(c, PolyCollection)]) == 2
    assert "bootstrap" in ax.get_legend().get_title().get_text()
    plt.close("all")


def test_precision_recall_curve_draws_precision_bands_and_recall_whiskers(bands) -> None:
    before = {n: f.copy() for n, f in bands.items()}
    ax = plots.precision_recall_curve(bands, mark_k=(1, 5))
    for name, frame in before.items():
        pd.testing.assert_frame_equal(bands[name], frame)
    polys = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(polys) == 2
    vertices = polys[0].get_paths()[0].vertices
    assert vertices[:, 1].max() == pytest.approx(bands["a"]["precision_high"].max())
    assert vertices[:, 1].min() == pytest.approx(bands["a"]["precision_low"].min())
    whiskers = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    assert len(whiskers) == 2
    segments = np.asarray(whiskers[0].lines[2][0].get_segments())
    np.testing.assert_allclose(np.sort(segments[:, :, 0], axis=1),
                               bands["a"].loc[[1, 5], ["recall_low", "recall_high"]])
    assert [line.get_label() for line in ax.get_legend().get_lines()] == ["a", "b"]
    plain = {n: f[["precision", "recall"]] for n, f in bands.items()}
    ax = plots.precision_recall_curve(plain)
    assert not ax.containers and not [c for c in ax.collections
                                      if isinstance(c, PolyCollection)]
    plt.close("all")


def test_curve_bands_rejects_a_bad_cutoff_naming_the_function(data) -> None:
    truth, systems = data
    with pytest.raises(ValueError, match="curve_bands: 'k_max' must be a positive integer"):
        rp.curve_bands(truth, systems, k_max=0)
    with pytest.raises(ValueError, match="curve_bands: unknown profile 'nope'"):
        rp.curve_bands(truth, systems, k_max=3, profile="nope")
