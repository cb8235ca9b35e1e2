"""Sentences the reports print, written from the results so that they hold on any data.

Each function returns Markdown text; a notebook shows it with :func:`evalkit.report.md`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

__all__ = ["comparison_note", "cross_validation_note", "library_note", "relevance_note",
           "summary_note"]


def _names(names: Sequence[str]) -> str:
    names = [f"**{n}**" for n in names]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def relevance_note(ratings: pd.DataFrame, *, threshold: float | None) -> str:
    """What counts as relevant in these interactions, with the share it gives.

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


def summary_note(evaluations: Mapping[str, object]) -> str:
    """The heading and reading guide of the summary table: users, interval level, and which
    metrics leave users out of their means (undefined for them), with the counts."""
    first = next(iter(evaluations.values()))
    s = first.summary
    users = int(first.counts["users"])
    level = round(100 * float(first.definitions.get("confidence", 0.95)))
    dropped = s.groupby("label", sort=False)["dropped_undefined"].max()
    dropped = dropped[dropped > 0]
    text = (f"## Every ranking metric\n\nMeans over the {users:,} test users with {level}% "
            "bootstrap intervals, `mean [low, high]`; `*` marks the highest mean of each row "
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
    return text


def cross_validation_note(baselines: Sequence[str], recs: Mapping[str, object], *,
                          folds: int) -> str:
    """The heading and method of the cross-validation section, for the systems in use."""
    text = "## Cross-validation\n\n"
    if baselines:
        text += (f"{_names(baselines)} are each trained on {folds - 1} of {folds} user-aware "
                 "folds and tested on the remaining one, every fold in turn; the interval is a "
                 f"t-interval over the {folds} fold means: how much the result moves with the "
                 f"data. Each test user holds out 1/{folds} of their interactions here, so "
                 "training sets and test sets differ from the single split below, and so do "
                 "the means. ")
    else:
        text += "No baselines are named, so nothing is cross-validated. "
    if recs:
        text += (f"{_names(list(recs))}: recommendation files, not models, so they cannot be "
                 "refitted per fold; they appear in the paired tests only.")
    return text


def comparison_note(systems: Sequence[str], *, reference: str | None, alpha: float) -> str:
    """The heading and method of the paired tests, naming the reference system."""
    text = "## Paired tests on one split\n\n"
    if len(systems) < 2:
        return text + f"Only {_names(systems)} is evaluated: there is nothing to compare it with."
    reference = reference or systems[0]
    return text + (
        f"Each system is compared with {_names([reference])} on the users both are evaluated "
        "for: paired t-test, Wilcoxon signed-rank and a sign-flip randomization test, Holm "
        f"corrected across the whole table at level {alpha:g}. `effect_size` is Cohen's d_z of "
        "the per-user differences."
    )


def library_note(table: pd.DataFrame, *, system: str, k: int) -> str:
    """The heading and reading guide of :func:`evalkit.report.library_table`: whose lists,
    and the metric on which the libraries disagree most, with its range.

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
