"""Compare systems with paired significance tests, and cross-validate a model factory."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

import numpy as np
import pandas as pd
from scipy import stats as sps
from tqdm import tqdm

from ._checks import check_fraction
from .definitions import Definitions, takes_definitions
from .evaluate import Evaluation, _check_ks, evaluate
from .split import kfold_split
from .stats import _design_key, _paired_statistics, _sign_flip_pvalues, holm

__all__ = ["CrossValidation", "compare", "cross_validate"]


@takes_definitions
def compare(
    systems: Mapping[str, pd.DataFrame],
    truth: pd.DataFrame,
    *,
    baseline: str | None = None,
    k: int | Iterable[int] = 10,
    metrics: Iterable[str] | None = ("precision", "recall", "map", "mrr", "ndcg"),
    train: pd.DataFrame | None = None,
    definitions: Definitions | str | None = None,
    alpha: float = 0.05,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    n_permutations: int = 10000,
    rng: int | np.random.Generator | None = 0,
    **options: object,
) -> pd.DataFrame:
    """Compare recommenders on the same test truth, each against a baseline.

    Parameters
    ----------
    systems : dict of str to pd.DataFrame
        Recommendations of each system, by display name.
    truth : pd.DataFrame
        Test interactions shared by all systems.
    baseline : str, optional
        The system the others are tested against; default: the first one.
    k, metrics, train, definitions, **options
        As for :func:`evalkit.evaluate`: every field of :class:`evalkit.Definitions` (or a
        profile name) applies to every system.
    alpha : float, default 0.05
        Family-wise significance level after the Holm correction.
    confidence, n_resamples
        Bootstrap confidence intervals of each system's mean.
    n_permutations : int, default 10000
        Sign flips of the paired randomization test.
    rng : int, Generator or None, default 0
        Seed for bootstrap and randomization; the same seed gives the same table.

    Returns
    -------
    pd.DataFrame
        One row per (system, metric@k): ``system``, ``metric``, ``k``, ``column``, ``mean``,
        ``ci_low``, ``ci_high``, ``n_users``; and for systems other than the baseline, on the
        users both systems are evaluated for: ``n_shared``, ``diff`` (system minus baseline),
        ``t_pvalue``, ``wilcoxon_pvalue``, ``permutation_pvalue``, their Holm-corrected
        versions (``*_holm``, corrected across every comparison in the table), ``effect_size``
        (Cohen's d_z) and ``significant`` (permutation p after Holm < ``alpha``).

    Raises
    ------
    ValueError
        With fewer than two systems, or a baseline that is not one of them.

    Notes
    -----
    Per-user values come from :func:`evalkit.evaluate`, so every definition matches it. Tests
    are two-sided and paired on shared users (users for whom the metric is defined in both),
    as in :func:`evalkit.stats.paired_tests`. The randomization tests of the whole table run
    as one batch that shares its random signs: in replicate r, the difference of the user at
    position i of the baseline's evaluation has the same sign in every comparison (users
    outside a comparison contribute 0), so each p-value is the paired randomization test of
    its comparison, and the table costs one pass over the signs.

    Examples
    --------
    >>> truth = pd.DataFrame({"user_id": [1, 2, 3, 4], "item_id": 10, "rating": 5.0})
    >>> good = pd.DataFrame({"user_id": [1, 2, 3, 4], "item_id": 10, "rank": 1})
    >>> bad = pd.DataFrame({"user_id": [1, 2, 3, 4], "item_id": 11, "rank": 1})
    >>> table = compare({"bad": bad, "good": good}, truth, k=1, metrics=["precision"])
    >>> table[["system", "mean", "diff"]]
      system  mean  diff
    0    bad   0.0   NaN
    1   good   1.0   1.0
    """
    func = "compare"
    if not isinstance(systems, Mapping) or len(systems) < 2:
        got = len(systems) if isinstance(systems, Mapping) else type(systems).__name__
        raise ValueError(f"{func}: 'systems' must map at least two names to recommendations; got {got}.")
    names = list(systems)
    baseline = names[0] if baseline is None else baseline
    if baseline not in systems:
        raise ValueError(
            f"{func}: 'baseline' must be one of {', '.join(map(repr, names))}; got {baseline!r}."
        )
    alpha = check_fraction(alpha, func=func, arg="alpha")
    generator = np.random.default_rng(rng)
    results: dict[str, Evaluation] = {
        name: evaluate(
            truth, recs, k=k, metrics=metrics, train=train, definitions=definitions,
            confidence=confidence, n_resamples=n_resamples, rng=generator,
        )
        for name, recs in systems.items()
    }
    rows = []
    base = results[baseline]
    diffs, tested = [], []  # randomization: one row of differences per tested comparison
    for name in [baseline] + [n for n in names if n != baseline]:
        result = results[name]
        for column, info in result.summary.iterrows():
            row = {
                "system": name, "metric": info["metric"], "k": info["k"], "column": column,
                "mean": info["mean"], "ci_low": info["ci_low"], "ci_high": info["ci_high"],
                "n_users": info["n_users"],
            }
            if name != baseline:
                ours = result.per_user[column].reindex(base.per_user.index).to_numpy(float)
                theirs = base.per_user[column].to_numpy(float)
                diff = ours - theirs
                shared = ~np.isnan(diff)
                row["n_shared"] = int(shared.sum())
                if row["n_shared"] >= 2:
                    test = _paired_statistics(ours[shared], theirs[shared], zero_method="wilcox")
                    row.update(
                        diff=test["mean_diff"], t_pvalue=test["t_pvalue"],
                        wilcoxon_pvalue=test["wilcoxon_pvalue"],
                        permutation_pvalue=np.nan,  # below, for the whole table at once
                        effect_size=test["cohens_dz"],
                    )
                    diffs.append(np.where(shared, diff, 0.0))
                    tested.append(len(rows))
            rows.append(row)
    if tested:
        pvalues = _sign_flip_pvalues(np.vstack(diffs), n_permutations, _design_key(generator))
        for position, pvalue in zip(tested, pvalues):
            rows[position]["permutation_pvalue"] = float(pvalue)
    table = pd.DataFrame(rows)
    for col in ("n_shared", "diff", "t_pvalue", "wilcoxon_pvalue", "permutation_pvalue",
                "effect_size"):
        if col not in table:
            table[col] = np.nan
    for col in ("t_pvalue", "wilcoxon_pvalue", "permutation_pvalue"):
        table[f"{col}_holm"] = holm(table[col].to_numpy(dtype=float))
    table["significant"] = table["permutation_pvalue_holm"] < alpha
    table["n_shared"] = table["n_shared"].astype("Int64")
    table["k"] = table["k"].astype("Int64")
    return table


class CrossValidation:
    """The result of :func:`cross_validate`.

    Attributes
    ----------
    per_fold : pd.DataFrame
        One row per (fold, metric@k): ``fold``, ``column``, ``metric``, ``k``, ``mean``,
        ``n_users``.
    summary : pd.DataFrame
        One row per metric@k: ``mean`` over folds, ``std``, and a t-based confidence interval
        over the fold means (``ci_low``, ``ci_high``).
    folds : list of Evaluation
        The full evaluation of each fold.
    """

    def __init__(self, folds: list[Evaluation], confidence: float) -> None:
        self.folds = folds
        frames = []
        for i, result in enumerate(folds):
            s = result.summary[["metric", "k", "mean", "n_users"]].copy()
            s.insert(0, "fold", i)
            frames.append(s.reset_index(names="column"))
        self.per_fold = pd.concat(frames, ignore_index=True)
        grouped = self.per_fold.groupby("column", sort=False)["mean"]
        mean, std, n = grouped.mean(), grouped.std(ddof=1), grouped.count()
        half = sps.t.ppf(0.5 + confidence / 2, n - 1) * std / np.sqrt(n)
        self.summary = pd.DataFrame(
            {"mean": mean, "std": std, "ci_low": mean - half, "ci_high": mean + half, "folds": n}
        )

    def __repr__(self) -> str:
        return f"CrossValidation({len(self.folds)} folds)\n{self.summary.round(4).to_string()}"

    def _repr_html_(self) -> str:
        return self.summary.round(4).to_html()


@takes_definitions
def cross_validate(
    model_factory: Callable[[], object],
    data: pd.DataFrame,
    *,
    folds: int = 5,
    k: int | Iterable[int] = 10,
    metrics: Iterable[str] | None = ("precision", "recall", "map", "mrr", "ndcg"),
    definitions: Definitions | str | None = None,
    confidence: float = 0.95,
    progress: bool = True,
    rng: int | np.random.Generator | None = 0,
    **options: object,
) -> CrossValidation:
    """User-aware k-fold cross-validation of a recommender.

    Parameters
    ----------
    model_factory : callable
        Returns a fresh, unfitted model with ``fit(train)`` and ``recommend(users, k)``, e.g.
        ``lambda: EASE(l2=200.0)``.
    data : pd.DataFrame
        All interactions (``user_id, item_id, rating``).
    folds : int, default 5
        Number of folds (:func:`evalkit.split.kfold_split`).
    k, metrics, definitions, **options
        As for :func:`evalkit.evaluate` (each fold's training part is its ``train``).
    confidence : float, default 0.95
        Level of the t-interval over fold means.
    progress : bool, default True
        Show a progress bar over folds.
    rng : int, Generator or None, default 0
        Seed of the fold assignment (and of the bootstrap inside each fold).

    Returns
    -------
    CrossValidation
        ``per_fold`` and ``summary`` tables, and each fold's :class:`Evaluation`.

    Notes
    -----
    Each fold trains on the other folds and recommends ``max(k)`` items to every user of its
    test part. The interval is ``mean +- t_{n-1} * sd / sqrt(n)`` over the ``n`` fold means.
    """
    func = "cross_validate"
    if not callable(model_factory):
        raise TypeError(f"{func}: 'model_factory' must be callable; got {type(model_factory).__name__}.")
    confidence = check_fraction(confidence, func=func, arg="confidence")
    ks = _check_ks(k, func=func)
    generator = np.random.default_rng(rng)
    splits = kfold_split(data, folds=folds, rng=generator)
    results = []
    for split in tqdm(splits, desc="folds", disable=not progress, leave=False):
        model = model_factory().fit(split.train)
        users = split.test["user_id"].unique()
        recs = model.recommend(users, k=max(ks))
        results.append(
            evaluate(split.test, recs, k=ks, metrics=metrics, train=split.train,
                     definitions=definitions, rng=generator)
        )
    return CrossValidation(results, confidence)
