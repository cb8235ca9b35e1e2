"""Tests for evalkit.plots: every plot carries its input's data, fails clearly on bad input,
leaves its inputs and the global matplotlib state unchanged, and saves to a file."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.container import BarContainer, ErrorbarContainer  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from evalkit import plots  # noqa: E402
from evalkit.metrics import ranking_curves  # noqa: E402
from evalkit.metrics.classification import precision_recall_curve as classification_pr  # noqa: E402
from evalkit.segments import (  # noqa: E402
    exposure_by_popularity,
    item_popularity_buckets,
    metrics_by_segment,
    popularity_curve,
    user_activity_bins,
)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# ----------------------------------------------------------------------------------------------
# small inputs
# ----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def truth() -> pd.DataFrame:
    gen = np.random.default_rng(0)
    users = np.repeat(np.arange(1, 31), 6)
    items = np.concatenate([gen.choice(40, 6, replace=False) for _ in range(30)])
    return pd.DataFrame({"user_id": users, "item_id": items,
                         "rating": gen.choice([1.0, 2.0, 3.0, 4.0, 5.0], size=users.size)})


@pytest.fixture(scope="module")
def recs(truth: pd.DataFrame) -> dict[str, pd.DataFrame]:
    gen = np.random.default_rng(1)
    out = {}
    for name, n_items in (("good", 12), ("poor", 40)):
        rows = [
            pd.DataFrame({"user_id": u, "item_id": gen.permutation(n_items)[:10],
                          "rank": np.arange(1, 11)})
            for u in range(1, 31)
        ]
        out[name] = pd.concat(rows, ignore_index=True)
    return out


@pytest.fixture(scope="module")
def curves(truth: pd.DataFrame, recs: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    return {name: ranking_curves(truth, r, k_max=10, threshold=None) for name, r in recs.items()}


@pytest.fixture(scope="module")
def predictions(truth: pd.DataFrame) -> pd.DataFrame:
    gen = np.random.default_rng(2)
    return truth[["user_id", "item_id"]].assign(
        prediction=np.clip(truth["rating"].to_numpy() + gen.normal(0, 0.8, len(truth)), 0.5, 5.0)
    )


@pytest.fixture
def compare_table() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "system": ["base", "a", "b", "base", "a", "b"],
            "column": ["ndcg@10"] * 3 + ["recall@10"] * 3,
            "mean": [0.30, 0.42, 0.31, 0.2, 0.25, 0.21],
            "ci_low": [0.27, 0.38, 0.28, 0.18, 0.22, 0.19],
            "ci_high": [0.33, 0.46, 0.34, 0.22, 0.28, 0.23],
            "diff": [np.nan, 0.12, 0.01, np.nan, 0.05, 0.01],
            "permutation_pvalue_holm": [np.nan, 0.001, 0.6, np.nan, 0.01, 0.7],
            "significant": [False, True, False, False, True, False],
        }
    )


def snapshot(*objects: object) -> list[object]:
    return [o.copy() if hasattr(o, "copy") else o for o in objects]


def assert_unchanged(before: list[object], after: list[object]) -> None:
    for a, b in zip(before, after):
        if isinstance(a, dict):
            assert a.keys() == b.keys()
            for key in a:
                pd.testing.assert_frame_equal(a[key], b[key])
        elif isinstance(a, pd.DataFrame):
            pd.testing.assert_frame_equal(a, b)


# ----------------------------------------------------------------------------------------------
# style
# ----------------------------------------------------------------------------------------------


def test_plots_leave_global_style_alone(curves: dict[str, pd.DataFrame]) -> None:
    before = dict(plt.rcParams)
    ax = plots.metric_at_k(curves)
    assert dict(plt.rcParams) == before
    # the figure was made in the house style
    assert ax.figure.get_dpi() == 110
    np.testing.assert_allclose(ax.figure.get_size_inches(), plots.FIGSIZE)
    assert ax.lines[0].get_color().lower() == plots.PALETTE[0].lower()


def test_use_style_sets_and_restores() -> None:
    size = plt.rcParams["font.size"]
    with plots.use_style():
        assert plt.rcParams["figure.dpi"] == 110
        assert plt.rcParams["axes.prop_cycle"].by_key()["color"] == list(plots.PALETTE)
    assert plt.rcParams["font.size"] == size


def test_the_style_starts_from_seaborns_whitegrid_notebook_theme() -> None:
    """The written-out base of the house style is seaborn's, as the installed seaborn has it
    (a seaborn that changes its theme fails here, and the constant follows)."""
    import seaborn as sns

    from evalkit.plots._style import _SEABORN_BASE

    want = dict(sns.axes_style("whitegrid")) | dict(sns.plotting_context("notebook"))
    assert _SEABORN_BASE == want


def test_palette_is_distinct() -> None:
    assert len(set(c.lower() for c in plots.PALETTE)) == len(plots.PALETTE)


# ----------------------------------------------------------------------------------------------
# ranking curves
# ----------------------------------------------------------------------------------------------


def test_precision_recall_curve_data(curves: dict[str, pd.DataFrame]) -> None:
    before = snapshot(curves)
    ax = plots.precision_recall_curve(curves, mark_k=(1, 5, 10, 20))
    assert_unchanged(before, [curves])
    assert isinstance(ax, Axes)
    assert len(ax.lines) == len(curves)
    for line, (name, frame) in zip(ax.lines, curves.items()):
        assert line.get_label() == name
        np.testing.assert_allclose(line.get_xdata(), frame["recall"].to_numpy())
        np.testing.assert_allclose(line.get_ydata(), frame["precision"].to_numpy())
        assert list(line.get_markevery()) == [0, 4, 9]  # k = 1, 5, 10 (20 is absent)
    labels = {t.get_text() for t in ax.texts}
    assert {"1", "5", "10"} <= labels
    assert "Recall" in ax.get_xlabel() and "Precision" in ax.get_ylabel()


def test_precision_recall_curve_reads_k_from_the_index_order(
        curves: dict[str, pd.DataFrame]) -> None:
    shuffled = {"x": curves["good"].iloc[::-1]}
    ax = plots.precision_recall_curve(shuffled)
    np.testing.assert_allclose(ax.lines[0].get_xdata(), curves["good"]["recall"].to_numpy())


def test_metric_at_k_data_and_given_axes(curves: dict[str, pd.DataFrame]) -> None:
    fig, given = plt.subplots()
    ax = plots.metric_at_k(curves, "map", ax=given)
    assert ax is given
    assert len(ax.lines) == 2
    for line, frame in zip(ax.lines, curves.values()):
        np.testing.assert_allclose(line.get_xdata(), np.arange(1, 11))
        np.testing.assert_allclose(line.get_ydata(), frame["map"].to_numpy())
    assert "MAP" in ax.get_ylabel() and "k" in ax.get_xlabel()


def test_metrics_at_k_grid(curves: dict[str, pd.DataFrame]) -> None:
    fig = plots.metrics_at_k(curves)
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 4
    for ax, metric in zip(fig.axes, ("precision", "recall", "map", "ndcg")):
        assert len(ax.lines) == 2
        np.testing.assert_allclose(ax.lines[1].get_ydata(), curves["poor"][metric].to_numpy())
    assert len(fig.legends) == 1
    odd = plots.metrics_at_k(curves, metrics=("precision", "recall", "ndcg"))
    assert len(odd.axes) == 3


def test_metric_at_k_bad_input(curves: dict[str, pd.DataFrame]) -> None:
    with pytest.raises(ValueError, match="metric_at_k: 'metric' names an unknown metric 'nDCG'; "
                                         "valid metrics are precision"):
        plots.metric_at_k(curves, "nDCG")
    with pytest.raises(ValueError,
                       match=r"metric_at_k: 'curves\['good'\]' is missing column\(s\) ndcg"):
        plots.metric_at_k({"good": curves["good"].drop(columns="ndcg")})
    with pytest.raises(TypeError, match="metric_at_k: 'curves' must be a non-empty dict"):
        plots.metric_at_k(curves["good"])
    with pytest.raises(TypeError, match="metric_at_k: 'ax' must be a matplotlib Axes"):
        plots.metric_at_k(curves, ax="left")


# ----------------------------------------------------------------------------------------------
# per-user distributions and comparisons
# ----------------------------------------------------------------------------------------------


@pytest.fixture
def per_user() -> dict[str, pd.DataFrame]:
    index = pd.Index(np.arange(1, 9), name="user_id")
    return {
        "A": pd.DataFrame({"ndcg@10": [0.0, 0.1, 0.2, 0.4, 0.4, 0.9, 1.0, np.nan]}, index=index),
        "B": pd.DataFrame({"ndcg@10": [0.3, 0.3, 0.5, 0.5, 0.6, 0.6, 0.7, 0.8]}, index=index),
    }


def test_per_user_hist_counts(per_user: dict[str, pd.DataFrame]) -> None:
    before = snapshot(per_user)
    ax = plots.per_user_distribution(per_user, "ndcg@10", kind="hist", bins=5)
    assert_unchanged(before, [per_user])
    pooled = np.concatenate([f["ndcg@10"].dropna().to_numpy() for f in per_user.values()])
    edges = np.linspace(pooled.min(), pooled.max(), 6)
    assert len(ax.patches) == 2
    for patch, frame in zip(ax.patches, per_user.values()):
        values, got_edges, _ = patch.get_data()
        expected, _ = np.histogram(frame["ndcg@10"].dropna(), bins=edges)
        np.testing.assert_allclose(got_edges, edges)
        np.testing.assert_array_equal(values, expected)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["A (n=7)", "B (n=8)"]


def test_per_user_violin_means(per_user: dict[str, pd.DataFrame]) -> None:
    ax = plots.per_user_distribution(per_user, "ndcg@10")
    means = ax.collections[-1].get_offsets()
    np.testing.assert_allclose(means, [[0, np.nanmean(per_user["A"]["ndcg@10"])],
                                       [1, per_user["B"]["ndcg@10"].mean()]])
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert ticks == ["A\n(n=7)", "B\n(n=8)"]


def test_per_user_ecdf_steps_through_every_user_and_gives_the_share_at_zero(
        per_user: dict[str, pd.DataFrame]) -> None:
    ax = plots.per_user_distribution(per_user, "ndcg@10", kind="ecdf")
    assert len(ax.lines) == 2
    for line, frame in zip(ax.lines, per_user.values()):
        x, y = line.get_data()
        values = np.sort(frame["ndcg@10"].dropna().to_numpy())
        np.testing.assert_allclose(x, values)
        np.testing.assert_allclose(y, np.arange(1, values.size + 1) / values.size)
        assert line.get_drawstyle() == "steps-post"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["A (n=7; 14% at 0)", "B (n=8; 0% at 0)"]


def test_per_user_single_frame_and_errors(per_user: dict[str, pd.DataFrame]) -> None:
    ax = plots.per_user_distribution(per_user["B"], kind="hist")
    assert ax.patches[0].get_data().values.sum() == 8
    with pytest.raises(ValueError,
                       match=r"per_user_distribution: 'per_user' is missing column\(s\) recall@5"):
        plots.per_user_distribution(per_user["B"], "recall@5")
    with pytest.raises(ValueError, match="per_user_distribution: unknown kind 'box'"):
        plots.per_user_distribution(per_user, kind="box")


def errorbar_segments(container: ErrorbarContainer) -> np.ndarray:
    """The (n, 2, 2) segments of an error-bar container's bars."""
    return np.asarray(container.lines[2][0].get_segments())


def test_comparison_marks_significant_systems(compare_table: pd.DataFrame) -> None:
    before = snapshot(compare_table)
    ax = plots.comparison(compare_table, "ndcg@10")
    assert_unchanged(before, [compare_table])
    bars = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    assert len(bars) == 3
    rows = compare_table[compare_table["column"] == "ndcg@10"]
    for container, (_, row) in zip(bars, rows.iterrows()):
        (segment,) = errorbar_segments(container)
        np.testing.assert_allclose(sorted(segment[:, 0]), [row["ci_low"], row["ci_high"]])
        np.testing.assert_allclose(container.lines[0].get_xdata(), [row["mean"]])
    stars = [c for c in ax.collections if c.get_label().startswith("significant")]
    assert len(stars) == 1
    np.testing.assert_allclose(stars[0].get_offsets()[:, 1], [1.0])  # system "a" only
    texts = [t.get_text() for t in ax.texts]
    assert "p=0.001" in texts and "n.s. p=0.6" in texts
    assert [t.get_text() for t in ax.get_yticklabels()] == ["base\n(baseline)", "a", "b"]
    baseline = [line for line in ax.lines if line.get_label().startswith("baseline")]
    np.testing.assert_allclose(baseline[0].get_xdata(), [0.30, 0.30])


def test_comparison_never_stars_the_baseline(compare_table: pd.DataFrame) -> None:
    table = compare_table.assign(significant=True)
    ax = plots.comparison(table, "recall@10")
    stars = [c for c in ax.collections if c.get_label().startswith("significant")]
    np.testing.assert_allclose(stars[0].get_offsets()[:, 1], [1.0, 2.0])


def test_comparison_errors(compare_table: pd.DataFrame) -> None:
    with pytest.raises(ValueError, match="comparison: 'column' 'map@10' is not in 'table'; "
                                         "it has 'ndcg@10', 'recall@10'"):
        plots.comparison(compare_table, "map@10")
    with pytest.raises(ValueError, match=r"comparison: 'table' is missing column\(s\) significant"):
        plots.comparison(compare_table.drop(columns="significant"))


def test_comparison_on_compare_output(truth: pd.DataFrame, recs: dict[str, pd.DataFrame]) -> None:
    from evalkit import compare

    table = compare(recs, truth, k=10, metrics=["ndcg"], threshold=None, n_resamples=100,
                    n_permutations=500)
    ax = plots.comparison(table, "ndcg@10")
    assert len([c for c in ax.containers if isinstance(c, ErrorbarContainer)]) == 2


# ----------------------------------------------------------------------------------------------
# segments
# ----------------------------------------------------------------------------------------------


@pytest.fixture
def segment_table() -> pd.DataFrame:
    cats = pd.CategoricalDtype(["cold", "warm"], ordered=True)
    return pd.DataFrame(
        {
            "system": ["A", "A", "B", "B"],
            "segment": pd.Series(["warm", "cold", "warm", "cold"], dtype=cats),
            "column": "ndcg@10",
            "mean": [0.5, 0.2, 0.6, 0.3],
            "ci_low": [0.45, 0.1, 0.5, 0.25],
            "ci_high": [0.55, 0.3, 0.7, 0.4],
            "n_users": [10, 5, 10, 5],
        }
    )


def test_metric_by_segment_bars_and_intervals(segment_table: pd.DataFrame) -> None:
    before = snapshot(segment_table)
    ax = plots.metric_by_segment(segment_table, "ndcg@10")
    assert_unchanged(before, [segment_table])
    bars = [c for c in ax.containers if isinstance(c, BarContainer)]
    errors = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    assert len(bars) == 2 and len(errors) == 2
    # segment order follows the categories: cold, then warm
    expected = {"A": ([0.2, 0.5], [0.1, 0.45], [0.3, 0.55]),
                "B": ([0.3, 0.6], [0.25, 0.5], [0.4, 0.7])}
    for bar, err, name in zip(bars, errors, ("A", "B")):
        mean, low, high = expected[name]
        assert bar.get_label() == name
        np.testing.assert_allclose([p.get_height() for p in bar], mean)
        segments = errorbar_segments(err)
        np.testing.assert_allclose(segments[:, :, 1].min(axis=1), low)
        np.testing.assert_allclose(segments[:, :, 1].max(axis=1), high)
        centers = [p.get_x() + p.get_width() / 2 for p in bar]
        np.testing.assert_allclose(segments[:, 0, 0], centers)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["cold\nn=5", "warm\nn=10"]


def test_metric_by_segment_without_systems_and_errors(segment_table: pd.DataFrame) -> None:
    one = segment_table[segment_table["system"] == "A"].drop(columns=["system", "n_users"])
    ax = plots.metric_by_segment(one)
    assert len([c for c in ax.containers if isinstance(c, BarContainer)]) == 1
    assert ax.get_legend() is None
    with pytest.raises(ValueError,
                       match=r"metric_by_segment: 'table' is missing column\(s\) ci_low"):
        plots.metric_by_segment(one.drop(columns="ci_low"))


def test_metric_by_segment_on_segments_output() -> None:
    train = pd.DataFrame({"user_id": np.repeat([1, 2, 3, 4], [5, 5, 30, 30]),
                          "item_id": np.arange(70)})
    per_user = {"S": pd.DataFrame({"recall@5": [0.1, 0.3, 0.6, 0.8]}, index=[1, 2, 3, 4])}
    table = metrics_by_segment(per_user, user_activity_bins(train), n_resamples=50)
    ax = plots.metric_by_segment(table, "recall@5")
    bars = [c for c in ax.containers if isinstance(c, BarContainer)][0]
    np.testing.assert_allclose([p.get_height() for p in bars], [0.2, 0.7])


def test_long_tail(tmp_path) -> None:
    train = pd.DataFrame({"user_id": np.arange(20),
                          "item_id": np.repeat([1, 2, 3, 4, 5, 6], [8, 4, 3, 2, 2, 1])})
    curve = popularity_curve(train)
    before = snapshot(curve)
    ax = plots.long_tail(curve)
    assert_unchanged(before, [curve])
    line = ax.lines[0]
    np.testing.assert_allclose(line.get_xdata(), curve["rank"])
    np.testing.assert_allclose(line.get_ydata(), curve["count"])
    assert ax.get_yscale() == "log"
    # one filled area per bucket, and a boundary at the first rank of mid and of tail
    assert len(ax.collections) == 3
    starts = curve.groupby("bucket", observed=True)["rank"].min()
    boundaries = [line.get_xdata()[0] for line in ax.lines[1:]]
    np.testing.assert_allclose(boundaries, starts.iloc[1:].to_numpy())
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(text.startswith("head: 1 items") for text in legend)
    linear = plots.long_tail(curve[["rank", "count"]], log_y=False)
    assert linear.get_yscale() == "linear" and len(linear.collections) == 0
    with pytest.raises(ValueError, match=r"long_tail: 'curve' is missing column\(s\) count"):
        plots.long_tail(curve.drop(columns="count"))


def test_exposure_shares() -> None:
    train = pd.DataFrame({"user_id": np.arange(10), "item_id": [1] * 5 + [2] * 3 + [3, 4]})
    recs = {"S": pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [1, 3, 1, 2],
                               "rank": [1, 2, 1, 2]})}
    table = exposure_by_popularity(recs, item_popularity_buckets(train), k=2, train=train)
    before = snapshot(table)
    ax = plots.exposure_shares(table)
    assert_unchanged(before, [table])
    bars = [c for c in ax.containers if isinstance(c, BarContainer)]
    assert [b.get_label() for b in bars] == ["head", "mid", "tail"]
    widths = np.array([[p.get_width() for p in b] for b in bars])
    # rows: buckets; columns: train, S
    np.testing.assert_allclose(widths, [[50, 50], [30, 25], [20, 25]])
    lefts = np.array([[p.get_x() for p in b] for b in bars])
    np.testing.assert_allclose(lefts[2], [80, 75])
    assert [t.get_text() for t in ax.get_yticklabels()] == ["train\n(interactions)", "S"]
    with pytest.raises(ValueError,
                       match=r"exposure_shares: 'exposure' is missing column\(s\) share"):
        plots.exposure_shares(table.drop(columns="share"))


# ----------------------------------------------------------------------------------------------
# rating predictions
# ----------------------------------------------------------------------------------------------


def test_rating_errors(truth: pd.DataFrame, predictions: pd.DataFrame) -> None:
    before = snapshot(truth, predictions)
    ax = plots.rating_errors(truth, predictions, bins=12)
    assert_unchanged(before, [truth, predictions])
    error = predictions["prediction"].to_numpy() - truth["rating"].to_numpy()
    expected, edges = np.histogram(error, bins=12)
    values, got_edges, _ = ax.patches[-1].get_data()
    np.testing.assert_array_equal(values, expected)
    np.testing.assert_allclose(got_edges, edges)
    mean = [line for line in ax.lines if line.get_label().startswith("mean error")][0]
    np.testing.assert_allclose(mean.get_xdata()[0], error.mean())
    legend = " ".join(t.get_text() for t in ax.get_legend().get_texts())
    assert f"MAE {np.abs(error).mean():.3f}" in legend
    assert f"RMSE {np.sqrt((error ** 2).mean()):.3f}" in legend


def test_rating_errors_missing_prediction(truth: pd.DataFrame, predictions: pd.DataFrame) -> None:
    with pytest.raises(ValueError, match="rating_errors: 1 of 180 test rating"):
        plots.rating_errors(truth, predictions.iloc[1:])
    with pytest.warns(UserWarning, match="dropped 1"):
        ax = plots.rating_errors(truth, predictions.iloc[1:], missing="drop")
    assert ax.patches[-1].get_data().values.sum() == 179
    with pytest.raises(ValueError,
                       match=r"rating_errors: 'predictions' is missing column\(s\) prediction"):
        plots.rating_errors(truth, predictions.rename(columns={"prediction": "pred"}))


def test_predicted_vs_actual_boxes(truth: pd.DataFrame, predictions: pd.DataFrame) -> None:
    ax = plots.predicted_vs_actual(truth, predictions)
    joined = truth.merge(predictions, on=["user_id", "item_id"])
    groups = {r: g["prediction"].to_numpy() for r, g in joined.groupby("rating")}
    means = ax.collections[0].get_offsets()
    np.testing.assert_allclose(means[:, 0], sorted(groups))
    np.testing.assert_allclose(means[:, 1], [groups[r].mean() for r in sorted(groups)])
    # medians: a horizontal line centred on each rating at the median prediction
    horizontal = {
        (round(float(np.mean(line.get_xdata())), 6), round(float(line.get_ydata()[0]), 6))
        for line in ax.lines
        if len(line.get_ydata()) == 2 and line.get_ydata()[0] == line.get_ydata()[1]
    }
    for rating, values in groups.items():
        assert (round(rating, 6), round(float(np.median(values)), 6)) in horizontal
        # whiskers reach the most extreme prediction within 1.5 IQR of the box
        q1, q3 = np.percentile(values, [25, 75])
        low = values[values >= q1 - 1.5 * (q3 - q1)].min()
        assert (round(rating, 6), round(float(low), 6)) in horizontal  # the lower cap
    assert len(ax.patches) == len(groups)
    diagonal = [line for line in ax.lines if line.get_label() == "perfect prediction"][0]
    np.testing.assert_allclose(diagonal.get_xdata(), diagonal.get_ydata())


def test_predicted_vs_actual_hexbin(truth: pd.DataFrame, predictions: pd.DataFrame) -> None:
    ax = plots.predicted_vs_actual(truth, predictions, kind="hexbin")
    assert ax.collections[0].get_array().sum() == len(truth)
    with pytest.raises(ValueError, match="predicted_vs_actual: unknown kind 'scatter'"):
        plots.predicted_vs_actual(truth, predictions, kind="scatter")


def test_pr_curve_cutoff(truth: pd.DataFrame, predictions: pd.DataFrame) -> None:
    curve = classification_pr(truth, predictions, threshold=4.0)
    before = snapshot(curve)
    ax = plots.pr_curve_cutoff(curve.iloc[::-1], mark_cutoffs=[2.0, 3.5, 99.0])
    assert_unchanged(before, [curve])
    line = ax.lines[0]
    np.testing.assert_allclose(line.get_xdata(), curve["recall"])
    np.testing.assert_allclose(line.get_ydata(), curve["precision"])
    cutoffs = curve["cutoff"].to_numpy()
    # "prediction >= c" is the row of the smallest cutoff >= c; 99 is beyond the range
    expected = [int(np.flatnonzero(cutoffs >= c)[0]) for c in (2.0, 3.5)]
    assert list(line.get_markevery()) == expected
    assert {t.get_text() for t in ax.texts} == {"\u22652", "\u22653.5"}
    # everything predicted relevant: precision is the share of relevant test ratings
    reference = ax.lines[1]
    np.testing.assert_allclose(reference.get_ydata()[0], (truth["rating"] >= 4.0).mean())


def test_pr_curve_cutoff_accepts_any_frame_and_checks_columns() -> None:
    curve = pd.DataFrame({"cutoff": [1.0, 2.0], "precision": [0.5, 1.0], "recall": [1.0, 0.5]})
    ax = plots.pr_curve_cutoff(curve)
    assert len(ax.lines[0].get_markevery()) >= 1
    with pytest.raises(ValueError, match=r"pr_curve_cutoff: 'curve' is missing column\(s\) cutoff"):
        plots.pr_curve_cutoff(curve.drop(columns="cutoff"))
    with pytest.raises(TypeError, match="pr_curve_cutoff: 'curve' column 'recall' must be numeric"):
        plots.pr_curve_cutoff(curve.assign(recall=["a", "b"]))


# ----------------------------------------------------------------------------------------------
# every plot saves
# ----------------------------------------------------------------------------------------------


def test_every_plot_saves(tmp_path, curves, truth, predictions, per_user, compare_table,
                          segment_table) -> None:
    train = pd.DataFrame({"user_id": np.arange(20),
                          "item_id": np.repeat([1, 2, 3, 4, 5, 6], [8, 4, 3, 2, 2, 1])})
    exposure = exposure_by_popularity(
        {"S": pd.DataFrame({"user_id": [1, 1], "item_id": [1, 6], "rank": [1, 2]})},
        item_popularity_buckets(train), k=2, train=train,
    )
    made = {
        "pr": plots.precision_recall_curve(curves),
        "metric": plots.metric_at_k(curves),
        "grid": plots.metrics_at_k(curves),
        "violin": plots.per_user_distribution(per_user),
        "hist": plots.per_user_distribution(per_user, kind="hist"),
        "ecdf": plots.per_user_distribution(per_user, kind="ecdf"),
        "comparison": plots.comparison(compare_table),
        "segments": plots.metric_by_segment(segment_table),
        "long_tail": plots.long_tail(popularity_curve(train)),
        "exposure": plots.exposure_shares(exposure),
        "errors": plots.rating_errors(truth, predictions),
        "scatter": plots.predicted_vs_actual(truth, predictions),
        "pr_cutoff": plots.pr_curve_cutoff(classification_pr(truth, predictions)),
    }
    for name, made_obj in made.items():
        fig = made_obj if isinstance(made_obj, Figure) else made_obj.figure
        path = tmp_path / f"{name}.png"
        fig.savefig(path)
        assert path.stat().st_size > 5000, name
        assert fig.axes[0].get_title() or (isinstance(made_obj, Figure) and fig.get_suptitle())


def test_use_style_restores_only_its_own_settings() -> None:
    # The first pyplot call of a notebook turns interactive mode on (which is what makes the
    # inline backend display figures); leaving the style must not switch it off again.
    import matplotlib

    from evalkit.plots import use_style

    before = matplotlib.is_interactive()
    try:
        matplotlib.interactive(False)
        with use_style():
            matplotlib.interactive(True)
        assert matplotlib.is_interactive()
    finally:
        matplotlib.interactive(before)


def test_accuracy_tradeoff_puts_each_system_at_its_point_with_its_interval() -> None:
    points = pd.DataFrame({"catalog_coverage": [0.01, 0.30, 0.9],
                           "ndcg@10": [0.20, 0.35, 0.01],
                           "ndcg@10_low": [0.18, 0.30, 0.0],
                           "ndcg@10_high": [0.23, 0.37, 0.02]},
                          index=["MostPopular", "EASE", "Random"])
    before = snapshot({"p": points})
    ax = plots.accuracy_tradeoff(points, x="catalog_coverage", y="ndcg@10")
    assert_unchanged(before, [{"p": points}])
    assert len(ax.containers) == 3
    for container, (_, row) in zip(ax.containers, points.iterrows()):
        x, y = container.lines[0].get_data()
        assert (x[0], y[0]) == (row["catalog_coverage"], row["ndcg@10"])
        segment = np.asarray(container.lines[2][0].get_segments())[0]
        np.testing.assert_allclose(segment[:, 1], [row["ndcg@10_low"], row["ndcg@10_high"]])
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(points.index)
    assert ax.get_xlabel() == "Catalog coverage" and ax.get_ylabel() == "NDCG@10"
    with pytest.raises(ValueError,
                       match=r"accuracy_tradeoff: 'points' is missing column\(s\) novelty"):
        plots.accuracy_tradeoff(points, x="novelty", y="ndcg@10")


def test_metric_by_segment_names_what_the_segments_and_bars_are(segment_table) -> None:
    ax = plots.metric_by_segment(segment_table, segment_table["column"].iloc[0],
                                 segment="item popularity", value="pooled over users")
    assert ax.get_xlabel() == "Item popularity"
    assert "pooled over users" in ax.get_ylabel() and ax.get_title().endswith("item popularity")


# ----------------------------------------------------------------------------------------------
# in a notebook kernel
# ----------------------------------------------------------------------------------------------

_COUNT_RENDERS = """
import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg

renders = []
_draw = FigureCanvasAgg.draw


def _counted(self):  # a rendering that runs to its end (print_figure also starts one
    done = _draw(self)  # only to get a renderer, stopped at once)
    renders.append(id(self.figure))
    return done


FigureCanvasAgg.draw = _counted
import matplotlib.pyplot as plt
import pandas as pd
from evalkit import plots
activity = pd.Series([1, 2, 2, 3, 5, 8, 13], name="interactions")
"""


def _kernel_cell(client, code: str) -> list[dict]:
    """Run ``code`` in the kernel; its output messages (an error fails the test)."""
    msg_id = client.execute(code)
    outputs = []
    while True:
        msg = client.get_iopub_msg(timeout=60)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "error":
            pytest.fail("\n".join(msg["content"]["traceback"]))
        if msg["msg_type"] in ("display_data", "stream", "execute_result"):
            outputs.append(msg["content"])
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            return outputs


@pytest.mark.slow
def test_a_figure_is_rendered_once_per_cell_in_a_notebook_kernel() -> None:
    """In a Jupyter kernel with the inline backend, a figure drawn with plain pyplot is
    rendered twice after its cell (pyplot's redraw, then the PNG shown); after an evalkit
    plot, every figure, evalkit's and the analyst's own, is rendered once, and shown."""
    from jupyter_client.manager import start_new_kernel

    km, client = start_new_kernel(kernel_name="python3",
                                  extra_arguments=["--IPKernelApp.log_level=ERROR"])
    try:
        _kernel_cell(client, _COUNT_RENDERS)

        def rendered(code: str) -> int:
            outputs = _kernel_cell(client, code)
            assert sum("image/png" in o.get("data", {}) for o in outputs) == 1, outputs
            count = _kernel_cell(client, "print(len(renders), len(set(renders)))")
            _kernel_cell(client, "renders.clear()")
            # a printed line may come in more than one stream message
            n, figures = map(int, "".join(o.get("text", "") for o in count).split())
            assert figures == 1
            return n

        own = "fig, ax = plt.subplots(layout='constrained'); ax.plot([1, 2, 3]);"
        assert rendered(own) == 2  # what evalkit's plots undo, as matplotlib ships
        assert rendered("plots.user_activity(activity);") == 1
        assert rendered(own) == 1
        assert rendered("plots.user_activity(activity);") == 1
    finally:
        client.stop_channels()
        km.shutdown_kernel(now=True)


def test_render_once_inline_does_nothing_outside_a_kernel() -> None:
    from evalkit.plots._style import render_once_inline

    assert render_once_inline() is False
    plots.user_activity(pd.Series([1, 2, 3]))  # and a plot function still works
