"""Sentences the reports print, written from the results so that they hold on any data.

Each function returns Markdown text; a notebook shows it with :func:`evalkit.report.md`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from .._docstrings import fill_doc
from ._docs import REPORT_DOCS

__all__ = ["comparison_note", "cross_validation_note", "library_note", "relevance_note",
           "summary_note", "zero_note"]


def _names(names: Sequence[str]) -> str:
    names = [f"**{n}**" for n in names]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def relevance_note(ratings: pd.DataFrame, *, threshold: float | None) -> str:
    """What counts as relevant in these interactions, with the share it gives.

    Parameters
    ----------
    ratings : pandas.DataFrame
        The interactions: ``user_id, item_id`` and optionally ``rating``.
    threshold : float or None
        A rating is relevant when it is at least this; None: every interaction.

    Examples
    --------
    >>> r = pd.DataFrame({"user_id": [1, 1], "item_id": [1, 2], "rating": [5.0, 2.0]})
    >>> relevance_note(r, threshold=4.0).split(":")[0]
    '50.0% of the 2 ratings are at or above the relevance threshold of 4'
    """
    if "rating" not in ratings.columns:
        return ("These interactions carry no ratings (implicit feedback): every test "
                "interaction counts as relevant.")
    low, high = float(ratings["rating"].min()), float(ratings["rating"].max())
    if threshold is None:
        return (f"Ratings run from {low:g} to {high:g}. No relevance threshold is set, so every "
                "test interaction counts as relevant, whatever its rating.")
    share = float((ratings["rating"] >= threshold).mean())
    return (f"{share:.1%} of the {len(ratings):,} ratings are at or above the relevance "
            f"threshold of {threshold:g}: the share of test interactions that count as relevant "
            f"(ratings run from {low:g} to {high:g}). It is not the precision a list would "
            "reach: a recommended item that the user never rated counts as not relevant.")


@fill_doc(REPORT_DOCS)
def summary_note(evaluations: Mapping[str, object]) -> str:
    """The heading and reading guide of the summary table: users, interval level, and which
    metrics leave users out of their means (undefined for them), with the counts.

    Parameters
    ----------
    %(evaluations)s
    """
    first = next(iter(evaluations.values()))
    s = first.summary
    users = int(first.counts["users"])
    level = round(100 * float(first.bootstrap.get("confidence", 0.95)))
    dropped = s.groupby("label", sort=False)["dropped_undefined"].max()
    dropped = dropped[dropped > 0]
    lower = _lower_is_better(s["metric"])
    best = ("the best mean of each row (the highest; the lowest where the row says lower is "
            "better)" if lower else "the highest mean of each row")
    text = (f"## Every ranking metric\n\nMeans over the {users:,} test users with {level}% "
            f"bootstrap intervals, `mean [low, high]`; `*` marks {best} "
            "(the comparison report tests whether a difference is real). ")
    if dropped.empty:
        text += "Every metric is defined for every test user, so every mean is over all of them."
    else:
        groups = dropped.groupby(dropped, sort=True).groups
        parts = [f"{', '.join(labels)}: {int(n):,} user(s)" for n, labels in groups.items()]
        why = "users without a relevant test item"
        if "HLU" in dropped.index:
            why += " (for HLU: without a test rating above the neutral rating)"
        text += (f"Some metrics are undefined for {why}; they are left out of those means "
                 f"({'; '.join(parts)}), and `users` gives the count each mean is over.")
    present = [label for label in dict.fromkeys(s["label"]) if label in _NAMES]
    if present:
        text += (" Abbreviations: " + "; ".join(f"{label} {_NAMES[label]}" for label in present)
                 + " (the metrics report gives each one's formula and conventions).")
    return text


#: What the summary table's labels stand for.
_NAMES = {"P": "precision", "R": "recall", "F1": "harmonic mean of P and R",
          "HR": "hit rate", "R-Prec": "R-precision (precision at the number of relevant items)",
          "MAP": "mean average precision", "MRR": "mean reciprocal rank",
          "DCG": "discounted cumulative gain", "NDCG": "normalized DCG",
          "HLU": "half-life utility of Breese et al."}


@fill_doc(REPORT_DOCS)
def zero_note(evaluations: Mapping[str, object], column: str) -> str:
    """The share of users who score exactly 0 on ``column`` for each system, and how to read
    the cumulative distribution drawn below it (higher values are better for every ranking
    metric).

    Parameters
    ----------
    %(evaluations)s
    column : str
        The metric@k (e.g. ``"ndcg@10"``).
    """
    from ..plots import metric_label

    parts = []
    for name, evaluation in evaluations.items():
        values = evaluation.per_user[column].dropna()
        if len(values):
            parts.append(f"{name} {float((values == 0).mean()):.0%} of {len(values):,}")
    label = metric_label(column)
    if not parts:
        return f"No user has a value of {label}."
    return (f"Users at {label} = 0 (no hit within the cutoff): "
            f"{'; '.join(parts)}. Each curve below gives, for every value, the share of users "
            "at or below it: a curve lower and further right has more users at high values.")


def _design(train: pd.DataFrame, test: pd.DataFrame, threshold: float | None) -> dict:
    """Training share, test users, and test (and relevant) interactions per test user."""
    users = test["user_id"].nunique()
    row = {"share": len(train) / max(len(train) + len(test), 1), "users": users,
           "rows": len(test) / max(users, 1), "relevant": np.nan}
    if "rating" in test.columns:
        relevant = len(test) if threshold is None else int((test["rating"] >= threshold).sum())
        row["relevant"] = relevant / max(users, 1)
    return row


def _fold_designs(folds: object, threshold: float | None) -> pd.DataFrame:
    """:func:`_design` of every fold (:class:`evalkit.split.Folds`), one row per fold,
    counted from the fold of each row without making the folds' frames."""
    fold_of, k = folds.fold_of, folds.folds  # type: ignore[attr-defined]
    data = folds.data  # type: ignore[attr-defined]
    rows = np.bincount(fold_of, minlength=k)
    n_users = int(folds.user_codes.max(initial=-1)) + 1  # type: ignore[attr-defined]
    pairs = np.bincount(fold_of * n_users + folds.user_codes,  # type: ignore[attr-defined]
                        minlength=k * n_users).reshape(k, n_users)
    users = (pairs > 0).sum(axis=1)
    design = pd.DataFrame({"share": (len(fold_of) - rows) / max(len(fold_of), 1),
                           "users": users, "rows": rows / np.maximum(users, 1),
                           "relevant": np.nan})
    if "rating" in data.columns:
        relevant = rows if threshold is None else np.bincount(
            fold_of, weights=(data["rating"].to_numpy() >= threshold), minlength=k)
        design["relevant"] = relevant / np.maximum(users, 1)
    return design


def _spread(values: pd.Series, fmt: str) -> str:
    """``fmt`` of the mean, with the range over the folds when they differ."""
    low, high = values.min(), values.max()
    text = fmt.format(values.mean())
    if fmt.format(low) != fmt.format(high):
        text += f" ({fmt.format(low)} to {fmt.format(high)} over the folds)"
    return text


@fill_doc(REPORT_DOCS)
def cross_validation_note(baselines: Sequence[str], recs: Mapping[str, object], *,
                          folds: int, inputs: object | None = None, seed: int = 0,
                          threshold: float | None = 4.0) -> str:
    """The heading and method of the cross-validation section, for the systems in use, and
    with ``inputs`` (:func:`evalkit.report.load_inputs`) what differs between the folds and
    the single split: training share, users tested, test and relevant interactions per user.

    The folds are those of :func:`evalkit.report.cross_validate_baselines` with the same
    ``seed`` (:func:`evalkit.kfold_split` of every interaction), so the numbers are the
    folds' own.

    Parameters
    ----------
    baselines : sequence of str
        The baselines cross-validated (``BASELINES``).
    recs : mapping of str to object
        The analyst's recommendation files by system name (``RECS``), which are not refitted.
    folds : int
        Number of folds.
    inputs : ReportInputs, optional
        The report's data and split (:func:`load_inputs`); without it (or without a split), the
        note leaves out how the folds and the split differ.
    seed : int, default 0
        Seed of the folds, as given to :func:`cross_validate_baselines`.
    %(threshold)s
    """
    text = "## Cross-validation\n\n"
    if baselines:
        text += (f"{_names(baselines)} {'is' if len(baselines) == 1 else 'are each'} trained "
                 f"on {folds - 1} of {folds} user-aware folds and tested on the remaining one, "
                 "every fold in turn; the interval is a t-interval over the "
                 f"{folds} fold means: how much the result moves with the data. ")
    else:
        text += "No baselines are named, so nothing is cross-validated. "
    if recs:
        text += (f"{_names(list(recs))}: recommendation files, not models, so they cannot be "
                 "refitted per fold; they appear in the paired tests only.")
    split = getattr(inputs, "split", None)
    if not baselines or split is None:
        return text
    from ._comparing import folds_of

    ratings = inputs.ratings
    splits, _ = folds_of(ratings, folds, seed, keep=True)  # the table below uses them again
    fold = _fold_designs(splits, threshold)
    one = _design(split.train, split.test, threshold)
    text += (f"\n\n**Folds and the single split below.** The folds re-split all "
             f"{len(ratings):,} interactions (the split's training and test rows together). "
             f"Each fold trains on {_spread(fold['share'], '{:.1%}')} of them, the split on "
             f"{one['share']:.1%}; each fold tests {_spread(fold['users'], '{:,.0f}')} users, "
             f"the split {one['users']:,}, with {_spread(fold['rows'], '{:.1f}')} test "
             f"interactions per user (the split: {one['rows']:.1f})")
    if np.isfinite(one["relevant"]):
        text += (f", {_spread(fold['relevant'], '{:.1f}')} of them relevant (the split: "
                 f"{one['relevant']:.1f})")
    alike = (abs(fold["share"].mean() - one["share"]) < 0.005
             and abs(fold["users"].mean() - one["users"]) < 0.5
             and abs(fold["rows"].mean() / one["rows"] - 1) < 0.05)
    text += (". The folds and the split are alike in these respects." if alike else
             ". A fold mean and a split mean differ for these reasons as well as by chance: "
             "compare systems within one table, not across them.")
    in_time = _follows_time(split)
    if in_time:
        text += (f"\n\n**The folds ignore time; the split does not.** Every interaction goes "
                 f"to a fold at random, while the split {in_time}: each fold trains on "
                 "interactions later than some it tests, which the split never does, and "
                 "favours models that use what comes later. The fold means estimate a "
                 "different quantity from the split's, not the same one with more data.")
    return text


def _follows_time(split: object) -> str:
    """How ``split`` follows time ("is per-user temporal", ...), or "" when it does not or
    has no timestamps: its strategy when it was made so, else what its timestamps show (no
    training interaction later than the same user's first test one, or than the first test
    one)."""
    info = getattr(split, "info", {}) or {}
    strategy = info.get("strategy")
    if strategy == "user_temporal":
        return "is per-user temporal (each user's latest interactions are tested)"
    if strategy == "global_temporal":
        return "is a cut in time (every test interaction is later than every training one)"
    train, test = split.train, split.test  # type: ignore[attr-defined]
    if strategy != "given" or "timestamp" not in train or "timestamp" not in test \
            or train.empty or test.empty:
        return ""
    if train["timestamp"].max() <= test["timestamp"].min():
        return "is a cut in time (no training interaction is later than a test one)"
    first = test.groupby("user_id")["timestamp"].min()
    later = train["timestamp"].to_numpy() > first.reindex(train["user_id"]).to_numpy()
    if not later.any():
        return ("follows time per user (no training interaction is later than the same "
                "user's first test one)")
    return ""


def _lower_is_better(metrics: Sequence[str]) -> list[str]:
    """The metrics among ``metrics`` declared lower-is-better."""
    from ..metrics import RANKING_METRICS

    return [m for m in dict.fromkeys(metrics)
            if m in RANKING_METRICS and not RANKING_METRICS[m].higher_is_better]


def comparison_note(systems: Sequence[str], *, reference: str | None, alpha: float,
                    baselines: Sequence[str] = (), metrics: Sequence[str] = ()) -> str:
    """The heading and method of the paired tests: every pair (``reference`` None; the
    ``baselines`` first, so that each of the analyst's systems is compared against them) or
    each system against ``reference``, and how to read the comparison table, intervals
    beside Holm-adjusted p-values included. ``metrics``: the metrics compared (a
    lower-is-better one changes what ``*`` and ``better`` mean).

    Parameters
    ----------
    systems : sequence of str
        The systems compared, by name.
    reference : str or None
        The system every other one is compared with; None: every pair.
    alpha : float
        Significance level of the tests, after Holm's correction.
    baselines : sequence of str, default ()
        The systems that are baselines.
    metrics : sequence of str, default ()
        The metrics compared.
    """
    text = "## Paired tests on one split\n\n"
    if len(systems) < 2:
        return text + f"Only {_names(systems)} is evaluated: there is nothing to compare it with."
    if reference is None:
        n_pairs = len(systems) * (len(systems) - 1) // 2
        own = [s for s in systems if s not in baselines]
        order = ("your systems against the baselines, and within each group the later system "
                 "against the earlier one" if own and len(own) < len(systems)
                 else "the later system in the order against the earlier one")
        who = (f"Every pair of the {len(systems)} systems is compared "
               f"({n_pairs} pair{'s' if n_pairs > 1 else ''}), {order},")
    else:
        who = f"Each system is compared with {_names([reference])}"
    return text + (
        f"{who} on the users both are evaluated for: paired t-test, Wilcoxon signed-rank and "
        "a sign-flip randomization test, Holm corrected across every pair and metric at "
        f"level {alpha:g}. The first table gives each system's means (`*`: "
        + ("the best of the row: the highest, or the lowest where the row says lower is "
           "better" if _lower_is_better(metrics) else "the highest of the row")
        + "), the second the comparisons: `difference` is the mean per-user difference "
        "(system minus the one it is compared with) and `d_z` Cohen's d_z of those "
        "differences, each with a paired bootstrap interval; `p (Holm)` is the "
        "randomization p-value after the correction, shown as `< bound` where the observed "
        "difference beat every random sign flip (the smallest p-value the test can give); "
        "`users` are the users shared. Each interval is that one comparison's, not "
        "corrected for the others, while `significant` follows the corrected p-value: an "
        "interval that excludes 0 can stand beside a `no`. Where a difference is "
        "significant, `better` names the system with the better mean"
        + (" (the lower one on a metric where lower is better)" if _lower_is_better(metrics)
           else "")
        + "; `detectable` is the smallest true difference the paired t-test would detect "
        "with 80% power on the users shared (at the level of Holm's first step): a "
        "non-significant difference below it is one these users could not have shown."
    )


def library_note(table: pd.DataFrame, *, system: str, k: int) -> str:
    """The heading and reading guide of :func:`evalkit.report.library_table`: whose lists,
    and the metric on which the libraries disagree most, with its range.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`library_table`'s table.
    system : str
        The system whose lists it scores.
    k : int
        The cutoff.

    Examples
    --------
    >>> t = pd.DataFrame({"NDCG@10": [0.5, 0.4, 0.6], "DCG@10": [1.0, 9.0, 3.0]},
    ...                  index=["evalkit", "a", "b"])
    >>> library_note(t, system="EASE", k=10).splitlines()[-1]
    'Of the metrics bounded by 1, NDCG@10 differs most: from 0.400 (a) to 0.600 (b).'
    """
    text = (f"## What each library would report\n\nThe same top-{k} lists of **{system}**, "
            "the same test set and the same relevance threshold, scored with the definitions "
            "of each library (its profile: `evaluate(..., definitions=\"<profile>\")` "
            "reproduces that library's numbers). Blank: the library has no such metric.\n\n")
    bounded = table[[c for c in table.columns if not str(c).startswith("DCG")]]
    spread = (bounded.max() - bounded.min()).dropna()
    spread = spread[spread > 0]
    if spread.empty:
        return text + "The libraries report the same values of the metrics bounded by 1 here."
    column = spread.idxmax()
    values = table[column].dropna()
    return text + (f"Of the metrics bounded by 1, {column} differs most: from "
                   f"{values.min():.3f} ({values.idxmin()}) to {values.max():.3f} "
                   f"({values.idxmax()}).")
