"""Compare systems with paired significance tests (each against a reference, or every pair),
and cross-validate a model factory."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from ._checks import (
    InvalidParameterError,
    check_fraction,
    check_ks,
    check_resamples,
    describe,
)
from ._constraints import (
    CUTOFFS,
    FRACTION,
    POSITIVE_INT,
    RESAMPLES,
    SEED,
    choice,
    constrained,
    integer,
    optional,
)
from ._display import DIGITS, TableFrame, format_pvalue
from ._display import progress as show_progress
from ._docstrings import PER_USER_DOCS, fill_doc, fragments
from ._evaluation import Evaluation, evaluate
from ._paired import PairedSums, paired_results, paired_sums
from ._power import t_mde, t_users
from ._resample import design_key, user_streams
from ._runs import check_comparable
from .definitions import Definitions, takes_definitions
from .metrics import RANKING_METRICS
from .metrics.ranking import SharedTruth
from .split import kfold_folds
from .stats import bootstrap_ci_frame, holm

__all__ = ["PAIRS", "Comparison", "CrossValidation", "compare", "compare_evaluations",
           "cross_validate", "format_pvalue"]


#: How :func:`compare` pairs the systems: each against the reference, or every pair.
PAIRS = ("reference", "all")

#: The docstring entries of the comparisons, :func:`compare`, :func:`compare_evaluations`,
#: :func:`cross_validate` and :func:`evalkit.spark.compare`
#: (:func:`evalkit._docstrings.fill_doc`).
COMPARE_DOCS = fragments(
    baseline_pairs="""
    baseline : str, optional
        The reference system; default: the first one. With ``pairs="all"`` it only comes
        first in the order.
    pairs : {"reference", "all"}, default "reference"
        ``"reference"``: every other system against the baseline; ``"all"``: every pair of
        systems, each later system (in the order, baseline first) against each earlier one.
    """,
    k_metrics="""
    k : int or list of int, default 10
        Cutoff(s), as for :func:`evalkit.evaluate`.
    metrics : list of str, optional
        As for :func:`evalkit.evaluate`; default: P, R, MAP, MRR and NDCG.
    """,
    definitions="""
    definitions : Definitions or str, optional
        The definitions or a profile name, as for :func:`evalkit.evaluate`.
    """,
    options="""
    **options
        Fields of :class:`evalkit.Definitions`, overriding ``definitions``: every field (or
        a profile name) applies to every system.
    """,
    alpha="""
    alpha : float, default 0.05
        Family-wise significance level after the Holm correction.
    """,
    intervals="""
    confidence : float, default 0.95
        Level of the bootstrap confidence intervals of each system's mean and of each
        paired difference and effect size.
    n_resamples : int, default 1000
        Their bootstrap resamples.
    """,
    n_permutations="""
    n_permutations : int, default 10000
        Sign flips of the paired randomization test.
    """,
    rng="""
    rng : int, Generator or None, default 0
        Seed for bootstrap and randomization; the same seed gives the same table.
    """,
)
# ``alpha`` to ``rng``, as compare takes them
COMPARE_DOCS["tests"] = "\n".join(
    COMPARE_DOCS[name] for name in ("alpha", "intervals", "n_permutations", "rng"))

#: Columns of a comparison table, in order.
_COLUMNS = ["system", "against", "metric", "k", "column", "mean", "ci_low", "ci_high",
            "n_users", "n_shared", "diff", "diff_ci_low", "diff_ci_high", "t_pvalue",
            "wilcoxon_pvalue", "permutation_pvalue", "p_at_floor", "t_pvalue_holm",
            "wilcoxon_pvalue_holm", "permutation_pvalue_holm", "effect_size",
            "effect_size_ci_low", "effect_size_ci_high", "significant", "better", "mde",
            "users_needed"]


class Comparison(TableFrame):
    """The table of :func:`compare` and :func:`compare_evaluations`: a DataFrame (one row per
    system's own means, then one per compared pair and metric@k; see
    :func:`compare_evaluations` for every column) that displays as an analyst reads it.

    Shown in a notebook or printed, it gives what a comparison answers (:meth:`readable`):
    per pair and metric, the difference (system minus the one it is compared with) with its
    interval, the Holm-adjusted p-value and whether it is significant, with one line saying
    how to read intervals beside corrected p-values. :attr:`table` is the full table as a
    plain DataFrame; anything derived from a comparison (``c[c["significant"]]``) is a plain
    DataFrame too. To compare one with a plain DataFrame, pass ``check_frame_type=False`` to
    ``pandas.testing.assert_frame_equal``.

    Attributes
    ----------
    alpha : float
        The family-wise level the ``significant`` column was decided at.
    confidence : float
        The level of the intervals.
    """

    _metadata = ["alpha", "confidence"]

    def readable(self, *, digits: int = DIGITS) -> pd.DataFrame:
        """One row per tested pair and metric: ``system``, ``against``, ``metric`` (marked
        "lower is better" where it is), the ``difference`` (system minus against) and Cohen's
        ``d_z`` with their intervals, the Holm-adjusted randomization ``p (Holm)``
        (:func:`evalkit.format_pvalue`: ``< 0.001`` below 0.001, ``< bound`` at the test's
        floor, see :meth:`reading`), ``significant``, the ``better`` system where the
        difference is significant, the smallest difference the test could detect
        (``detectable``, the table's ``mde``) and the ``users`` shared; text, for display.
        Differences and ``detectable`` show ``digits`` decimals, ``d_z`` (in standard
        deviations) two.

        Parameters
        ----------
        digits : int, default 4
            Decimals of the differences and of ``detectable``.
        """
        rows = self[self["against"].notna()]

        def interval(mean, low, high, decimals: int = digits) -> list[str]:
            fmt = f"{{:+.{decimals}f}}"
            return [fmt.format(m) + (f" [{fmt.format(lo)}, {fmt.format(hi)}]"
                                     if np.isfinite(lo) and np.isfinite(hi) else "")
                    if np.isfinite(m) else "" for m, lo, hi in zip(mean, low, high)]

        labels = [RANKING_METRICS[m].column_label(None if pd.isna(k) else int(k))
                  + ("" if RANKING_METRICS[m].higher_is_better else " (lower is better)")
                  if m in RANKING_METRICS else c
                  for m, k, c in zip(rows["metric"], rows["k"], rows["column"])]
        pvalues = rows["permutation_pvalue_holm"]
        return pd.DataFrame({
            "system": rows["system"].to_numpy(),
            "against": rows["against"].to_numpy(),
            "metric": labels,
            "difference": interval(rows["diff"], rows["diff_ci_low"], rows["diff_ci_high"]),
            "d_z": interval(rows["effect_size"], rows["effect_size_ci_low"],
                            rows["effect_size_ci_high"], 2),
            "p (Holm)": [format_pvalue(p, at_floor=bool(f)) for p, f in
                         zip(pvalues, rows["p_at_floor"])],
            "significant": ["yes" if sig else "no" if np.isfinite(p) else "not tested"
                            for sig, p in zip(rows["significant"], pvalues)],
            "better": [b if isinstance(b, str) else "" for b in rows["better"]]
            if "better" in rows.columns else "",
            "detectable": [f"{m:.{digits}f}" if np.isfinite(m) else "" for m in rows["mde"]]
            if "mde" in rows.columns else "",
            "users": rows["n_shared"].to_numpy(),
        })

    def reading(self) -> str:
        """The sentence printed above :meth:`readable`: what the differences, intervals and
        p-values are, and why an interval clear of 0 can stand beside a p-value above
        ``alpha``."""
        tested = int(self["permutation_pvalue"].notna().sum())
        confidence = getattr(self, "confidence", None)
        alpha = getattr(self, "alpha", None)
        level = f"{round(100 * confidence)}% " if confidence is not None else ""
        at = f" at {alpha:g}" if alpha is not None else ""
        return (f"Differences are system minus against. Each interval is a {level}paired "
                "bootstrap interval of that one comparison; the p-values (randomization test) "
                f"are Holm-adjusted over all {tested} tests, and significance{at} is decided "
                "by them, so an interval that excludes 0 can stand beside a non-significant "
                f"p-value.{self._floor_note()} Every column, at full precision: .table.")

    def _floor_note(self) -> str:
        """What a ``< bound`` p-value means, where one is shown: the smallest p-value the
        randomization test can give, and the correction that multiplied it."""
        floor = self["p_at_floor"].fillna(False).astype(bool) if "p_at_floor" in self else []
        if not len(floor) or not floor.any():
            return ""
        smallest = float(self.loc[floor, "permutation_pvalue"].max())
        flips = round(1 / smallest) - 1
        return (f" A p-value shown as '< bound' is at the floor of the test: the observed "
                f"difference beat all {flips:,} random sign flips, and {flips:,} flips give no "
                f"p-value below 1/{flips + 1:,}; the bound is that floor after the Holm "
                "correction, rounded up.")

    def __repr__(self) -> str:
        if "against" not in self.columns or not self["against"].notna().any():
            return pd.DataFrame.__repr__(self)
        with pd.option_context("display.width", 200, "display.max_columns", 20):
            return f"{self.reading()}\n{self.readable().to_string(index=False)}"

    def _repr_html_(self) -> str:
        if "against" not in self.columns or not self["against"].notna().any():
            return pd.DataFrame(self)._repr_html_()
        import html

        return (f"<p>{html.escape(self.reading())}</p>"
                + self.readable().to_html(index=False))


@constrained(pairs=choice(*PAIRS), k=CUTOFFS, alpha=FRACTION, rng=SEED, confidence=FRACTION,
             n_resamples=RESAMPLES, n_permutations=POSITIVE_INT)
@takes_definitions
@fill_doc(COMPARE_DOCS, train=PER_USER_DOCS["train"])
def compare(
    systems: Mapping[str, pd.DataFrame],
    truth: pd.DataFrame,
    *,
    baseline: str | None = None,
    pairs: str = "reference",
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
    """Compare recommenders on the same test truth: each against a baseline, or every pair.

    Parameters
    ----------
    systems : dict of str to pd.DataFrame
        Recommendations of each system, by display name.
    truth : pd.DataFrame
        Test interactions shared by all systems.
    %(baseline_pairs)s
    %(k_metrics)s
    %(train)s
    %(definitions)s
    %(options)s
    %(tests)s

    Returns
    -------
    pd.DataFrame
        The table of :func:`compare_evaluations`: one row per (system, metric@k) of the
        first system in the order, then one per (pair, metric@k).

    Raises
    ------
    ValueError
        With fewer than two systems, a baseline that is not one of them, or an unknown
        ``pairs``.

    Notes
    -----
    Every system is evaluated with :func:`evalkit.evaluate` (so every definition matches
    it) and the evaluations are compared by :func:`compare_evaluations`, whose Notes give
    the tests, the correction and the intervals. Every system's interval comes from one
    resampling design (the same users resampled in each replicate, for every system), so
    with an integer ``rng`` each system's ``mean``, ``ci_low`` and ``ci_high`` are those of
    ``evaluate(truth, recs, ..., rng=rng)``; the generator seeded by ``rng`` then serves the
    comparison.

    Examples
    --------
    >>> truth = pd.DataFrame({"user_id": [1, 2, 3, 4], "item_id": 10, "rating": 5.0})
    >>> good = pd.DataFrame({"user_id": [1, 2, 3, 4], "item_id": 10, "rank": 1})
    >>> bad = pd.DataFrame({"user_id": [1, 2, 3, 4], "item_id": 11, "rank": 1})
    >>> table = compare({"bad": bad, "good": good}, truth, k=1, metrics=["precision"])
    >>> table[["system", "against", "mean", "diff"]]
      system against  mean  diff
    0    bad    None   0.0   NaN
    1   good     bad   1.0   1.0
    """
    func = "compare"
    names = check_systems(systems, func=func, arg="systems")
    order = baseline_first(names, baseline, func=func)
    alpha, confidence = float(alpha), float(confidence)  # constrained
    n_resamples = int(n_resamples)
    generator = np.random.default_rng(rng)
    design = systems_design(generator, n_resamples)
    shared = SharedTruth(truth)  # validated and coded once for every system
    results: dict[str, Evaluation] = {}
    for name in names:
        try:
            # the intervals come after, for every system in one pass
            results[name] = evaluate(
                shared, systems[name], k=k, metrics=metrics, train=train,
                definitions=definitions, confidence=confidence, n_resamples=0,
            )
        except (ValueError, TypeError) as exc:
            if type(exc) not in (ValueError, TypeError, InvalidParameterError):
                raise
            # evaluate names its own arguments ('recs' is systems[name]); say which system
            raise type(exc)(f"{func}: evaluating systems[{name!r}]: {exc}") from exc
    if n_resamples:
        _shared_intervals(results, names, confidence, n_resamples, design)
    return comparison_table(results, order, pairs=pairs, alpha=alpha, confidence=confidence,
                    n_resamples=n_resamples, n_permutations=n_permutations,
                    generator=generator, func=func)


@constrained(pairs=choice(*PAIRS), rng=SEED, alpha=FRACTION, confidence=optional(FRACTION),
             n_resamples=optional(RESAMPLES), n_permutations=POSITIVE_INT)
@fill_doc(COMPARE_DOCS)
def compare_evaluations(
    evaluations: Mapping[str, Evaluation],
    *,
    baseline: str | None = None,
    pairs: str = "reference",
    alpha: float = 0.05,
    confidence: float | None = None,
    n_resamples: int | None = None,
    n_permutations: int = 10000,
    rng: int | np.random.Generator | None = 0,
) -> pd.DataFrame:
    """Paired comparison of systems already evaluated on the same test users.

    Parameters
    ----------
    evaluations : dict of str to Evaluation
        :func:`evalkit.evaluate` of each system on the same truth, with the same metrics and
        cutoffs.
    %(baseline_pairs)s
    %(alpha)s
    confidence : float, optional
        Level of the intervals of the differences and effect sizes; default: the level of
        the evaluations' intervals.
    n_resamples : int, optional
        Bootstrap resamples of those intervals (0: none); default: the evaluations'.
    %(n_permutations)s
    rng : int, Generator or None, default 0
        Seed for the randomization test and the bootstrap.

    Returns
    -------
    pd.DataFrame
        One row per metric@k of the first system in the order (``against`` is None, no
        test), then one row per (pair, metric@k), each holding:

        - ``system``, ``against``, ``metric``, ``k``, ``column``;
        - the system's own ``mean``, ``ci_low``, ``ci_high`` and ``n_users`` (from its
          evaluation);
        - on the users both systems are evaluated for (``n_shared``): ``diff`` (mean of
          system minus against) with its paired bootstrap interval ``diff_ci_low``,
          ``diff_ci_high``; ``effect_size`` (Cohen's d_z) with ``effect_size_ci_low``,
          ``effect_size_ci_high``;
        - ``t_pvalue``, ``wilcoxon_pvalue``, ``permutation_pvalue`` and their Holm-corrected
          versions (``*_holm``, corrected across every test in the table); ``p_at_floor``:
          the randomization p-value is its smallest possible value, 1 / (n_permutations + 1);
        - ``significant``: permutation p after Holm < ``alpha``;
        - ``better``: where significant, the system with the better mean by the metric's
          direction (the lower one for a lower-is-better metric such as
          ``first_relevant_rank``), else None;
        - ``mde``: the smallest true mean difference the paired t-test detects with 80%
          power on these users (:func:`evalkit.stats.mde`, at ``alpha`` over the number of
          tests: Holm's first step, conservative), and ``users_needed``: how many shared
          users it would take to detect the observed difference so
          (:func:`evalkit.stats.required_users`). A non-significant difference smaller than
          ``mde`` is one these users could not have shown.

    Raises
    ------
    TypeError, ValueError
        With fewer than two evaluations, evaluations of other users or metrics, a baseline
        that is not one of them, an unknown ``pairs``, or a bad option.

    Notes
    -----
    Tests are two-sided and paired on shared users (users for whom the metric is defined in
    both), as in :func:`evalkit.stats.paired_tests`; pairs with fewer than 2 shared users
    are not tested. The Holm correction runs over the whole family: every pair and every
    metric@k in the table (so asking for all pairs makes each test stricter).

    The randomization tests of the whole table run as one batch that shares its random
    signs: in replicate r, the difference of the user at position i of the first system's
    evaluation has the same sign in every comparison (users outside a comparison contribute
    0), so each p-value is the paired randomization test of its comparison, and the table
    costs one pass over the signs. With B sign flips the p-value is
    ``(1 + #{|T*| >= |T|}) / (B + 1)``, so it is at least ``1 / (B + 1)``; at that floor the
    observed difference beat every flip and the true p-value is smaller still.

    The intervals of ``diff`` and ``effect_size`` come from one paired Poisson bootstrap over
    users (:func:`evalkit.stats.bootstrap_ci_frame` gives the method): replicate b weighs
    user i by ``w_ib`` in every comparison, and gives ``m1 = sum w d / sum w``,
    ``m2 = sum w d^2 / sum w`` over the shared users; ``diff``'s interval is the percentile
    interval of ``m1``, ``effect_size``'s that of
    ``m1 / sqrt((m2 - m1^2) n / (n - 1))`` (n shared users; replicates without spread are
    left out). Differences that are all equal give the interval (d, d), and ``d_z`` = 0 (all
    zero) or +-inf.

    Examples
    --------
    >>> import evalkit as ek
    >>> truth = pd.DataFrame({"user_id": [1, 2, 3, 4], "item_id": 10, "rating": 5.0})
    >>> lists = {name: pd.DataFrame({"user_id": [1, 2, 3, 4], "item_id": item, "rank": 1})
    ...          for name, item in [("a", 11), ("b", 10), ("c", 10)]}
    >>> runs = {n: ek.evaluate(truth, r, k=1, metrics=["precision"]) for n, r in lists.items()}
    >>> table = compare_evaluations(runs, pairs="all")
    >>> table[["system", "against", "diff"]]
      system against  diff
    0      a    None   NaN
    1      b       a   1.0
    2      c       a   1.0
    3      c       b   0.0
    """
    func = "compare_evaluations"
    names = check_systems(evaluations, func=func, arg="evaluations")
    for name in names:
        if not isinstance(evaluations[name], Evaluation):
            raise InvalidParameterError(
                f"{func}: 'evaluations[{name!r}]' must be an evalkit Evaluation; "
                f"got {type(evaluations[name]).__name__}.")
    order = baseline_first(names, baseline, func=func)
    alpha = float(alpha)  # constrained
    first = evaluations[order[0]]
    if confidence is None:
        confidence = float(first.bootstrap.get("confidence", 0.95))
    confidence = check_fraction(confidence, func=func, arg="confidence")
    if n_resamples is None:
        n_resamples = int(first.bootstrap.get("n_resamples", 1000))
    n_resamples = check_resamples(n_resamples, func=func)
    users = first.per_user.index
    for name in order[1:]:
        other = evaluations[name]
        if list(other.summary.index) != list(first.summary.index):
            raise ValueError(
                f"{func}: every evaluation must hold the same metrics and cutoffs; {name!r} "
                f"has {', '.join(other.summary.index)}, {order[0]!r} has "
                f"{', '.join(first.summary.index)}.")
        # saved runs: the same test data (fingerprints) and the same definitions
        if other.provenance or first.provenance:
            check_comparable(other, first, func=func, names=(name, order[0]),
                             hash_inputs=False)
        if len(other.per_user.index) != len(users) or not other.per_user.index.isin(users).all():
            raise ValueError(
                f"{func}: every evaluation must be of the same test users; {name!r} has "
                f"{len(other.per_user):,} users, {order[0]!r} {len(users):,}, and not the "
                "same ones. Evaluate every system on the same truth.")
    return comparison_table(dict(evaluations), order, pairs=pairs, alpha=alpha,
                    confidence=confidence, n_resamples=n_resamples, n_permutations=n_permutations,
                    generator=np.random.default_rng(rng), func=func)


def systems_design(generator: np.random.Generator, n_resamples: int) -> np.random.Generator:
    """The generator every system's interval draws its resampling design from: a copy of
    ``generator`` as it is, which then moves past that one draw (none without resamples).

    Every system of a comparison thus resamples the same users in each replicate, and with
    an integer seed each system's interval is the one ``evaluate(..., rng=seed)`` gives.
    """
    design = copy.deepcopy(generator)
    if n_resamples:
        design_key(generator)
    return design


def _shared_intervals(results: dict[str, Evaluation], names: list[str], confidence: float,
                      n_resamples: int, design: np.random.Generator) -> None:
    """Fill each system's interval columns from one bootstrap pass over every system's
    per-user table (one design: see :func:`systems_design`); column by column, the values
    of each system's own ``bootstrap_ci_frame`` with that design."""
    # the systems' columns side by side, in order (the same users index every table)
    stacked = pd.concat([results[name].per_user for name in names], axis=1, ignore_index=True)
    ci = bootstrap_ci_frame(stacked, confidence=confidence, n_resamples=n_resamples, rng=design)
    start = 0
    for name in names:
        summary = results[name].summary
        part = ci.iloc[start:start + len(summary)]
        summary["ci_low"] = part["ci_low"].to_numpy()
        summary["ci_high"] = part["ci_high"].to_numpy()
        start += len(summary)


def check_systems(systems: object, *, func: str, arg: str) -> list[str]:
    if not isinstance(systems, Mapping) or len(systems) < 2:
        got = len(systems) if isinstance(systems, Mapping) else type(systems).__name__
        raise ValueError(f"{func}: '{arg}' must map at least two names to "
                         f"{'recommendations' if arg == 'systems' else 'evaluations'}; got {got}.")
    return list(systems)


def baseline_first(names: list[str], baseline: str | None, *, func: str) -> list[str]:
    """The systems with the baseline first."""
    baseline = names[0] if baseline is None else baseline
    if baseline not in names:
        raise ValueError(
            f"{func}: 'baseline' must be one of {', '.join(map(repr, names))}; got {baseline!r}."
        )
    return [baseline] + [n for n in names if n != baseline]


def comparison_table(results: Mapping[str, object], order: list[str], *, pairs: str, alpha: float,
             confidence: float, n_resamples: int, n_permutations: int,
             generator: np.random.Generator, func: str,
             sums: Callable[..., PairedSums] | None = None) -> pd.DataFrame:
    """The comparison table of validated evaluations (see :func:`compare_evaluations`).

    ``results`` need a ``summary``; the statistics of the pairs come from ``sums(comparisons,
    sign_key=, n_permutations=, boot_key=, n_resamples=)`` (a partitioned table adds its
    partitions' :class:`evalkit._paired.PairedSums`), by default from the per-user tables.
    """
    n_permutations = int(n_permutations)  # checked by each caller
    if pairs == "reference":
        pair_list = [(name, order[0]) for name in order[1:]]
    else:
        pair_list = [(order[j], order[i]) for j in range(1, len(order)) for i in range(j)]
    first = results[order[0]]
    comparisons = [(name, against, column) for name, against in pair_list
                   for column in first.summary.index]
    keys = dict(sign_key=design_key(generator), n_permutations=n_permutations,
                boot_key=design_key(generator), n_resamples=n_resamples)
    if sums is None:
        users = first.per_user.index

        columns = list(first.summary.index)
        # each system's table once, one row per column, in the first system's user order
        tables = {name: np.ascontiguousarray(
            results[name].per_user[columns].reindex(users).to_numpy(np.float64).T)
            for name in order}
        diffs = np.empty((len(comparisons), len(users)))
        for j, (name, against, column) in enumerate(comparisons):  # one step per comparison
            i = columns.index(column)
            np.subtract(tables[name][i], tables[against][i], out=diffs[j])
        found = paired_sums(diffs, user_streams(users), **keys)
    else:
        found = sums(comparisons, **keys)
    stats = paired_results(found, n_permutations=n_permutations, confidence=confidence)

    def own(name: str, against: str | None, column: str, info: pd.Series) -> dict:
        return {"system": name, "against": against, "metric": info["metric"], "k": info["k"],
                "column": column, "mean": info["mean"], "ci_low": info["ci_low"],
                "ci_high": info["ci_high"], "n_users": info["n_users"]}

    rows = [own(order[0], None, column, info) for column, info in first.summary.iterrows()]
    tested = ("diff", "t_pvalue", "wilcoxon_pvalue", "permutation_pvalue", "effect_size",
              "diff_ci_low", "diff_ci_high", "effect_size_ci_low", "effect_size_ci_high")
    for j, (name, against, column) in enumerate(comparisons):  # per pair and metric@k
        row = own(name, against, column, results[name].summary.loc[column])
        row["n_shared"] = int(stats["n_shared"][j])
        if stats["tested"][j]:
            row.update({field: stats[field][j] for field in tested})
        rows.append(row)
    table = pd.DataFrame(rows).reindex(columns=_COLUMNS)
    numeric = [c for c in _COLUMNS if c not in ("system", "against", "metric", "column",
                                                  "p_at_floor", "significant")]
    table[numeric] = table[numeric].astype("Float64").astype(float)  # k of R-precision: NA
    table["p_at_floor"] = table["permutation_pvalue"] == 1.0 / (n_permutations + 1)
    for col in ("t_pvalue", "wilcoxon_pvalue", "permutation_pvalue"):
        table[f"{col}_holm"] = holm(table[col].to_numpy(dtype=float))
    table["significant"] = table["permutation_pvalue_holm"] < alpha
    table["against"] = table["against"].astype(object).where(table["against"].notna(), None)
    table["better"] = _better(table)
    table["mde"], table["users_needed"] = _detectable(table, stats, comparisons, alpha)
    table["n_users"] = table["n_users"].astype("Int64")
    table["n_shared"] = table["n_shared"].astype("Int64")
    table["k"] = table["k"].astype("Int64")
    table = Comparison(table)
    table.alpha, table.confidence = alpha, confidence
    return table


def _detectable(table: pd.DataFrame, stats: dict, comparisons: list, alpha: float
                ) -> tuple[np.ndarray, pd.array]:
    """Per pair row: the minimum detectable difference of its paired t-test at 80% power,
    and the users it would need to detect the difference it observed, at the level of
    Holm's first step (``alpha`` over the number of tests in the table); all solved at
    once."""
    mdes = np.full(len(table), np.nan)
    needed = np.full(len(table), -1, dtype=np.int64)
    tested = stats["tested"] & (stats["sd"] > 0)
    level = alpha / max(int(np.count_nonzero(stats["tested"])), 1)
    rows = len(table) - len(comparisons) + np.flatnonzero(tested)  # own rows come first
    if rows.size:
        sd, n = stats["sd"][tested], stats["n_shared"][tested]
        mdes[rows] = t_mde(sd, n, level, 0.8)
        diff = np.abs(stats["diff"][tested])
        some = diff > 0
        if some.any():
            needed[rows[some]] = t_users(diff[some], sd[some], level, 0.8, "two-sided", 10**9)
    return mdes, _users_column(needed)


def _users_column(needed: np.ndarray) -> pd.array:
    out = pd.array(needed, dtype="Int64")
    out[needed <= 0] = pd.NA
    return out


def _better(table: pd.DataFrame) -> list:
    """Per row: the better system of a significant difference, by the metric's direction
    (for a lower-is-better metric, the lower mean wins); None where nothing is decided."""
    out = []
    for system, against, metric, diff, sig in zip(table["system"], table["against"],
                                                   table["metric"], table["diff"],
                                                   table["significant"]):
        known = RANKING_METRICS.get(metric)
        higher = known.higher_is_better if known is not None else True
        if against is None or not sig or not np.isfinite(diff) or diff == 0:
            out.append(None)
        else:
            out.append(system if (diff > 0) == higher else against)
    return out


class CrossValidation:
    """The result of :func:`cross_validate`.

    Parameters
    ----------
    folds : list of Evaluation
        The evaluation of each fold.
    confidence : float
        Level of the t-interval over the fold means.

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
        from scipy import stats as sps  # imported on use: scipy.stats is slow to load

        half = sps.t.ppf(0.5 + confidence / 2, n - 1) * std / np.sqrt(n)
        self.summary = pd.DataFrame(
            {"mean": mean, "std": std, "ci_low": mean - half, "ci_high": mean + half, "folds": n}
        )

    def __repr__(self) -> str:
        return f"CrossValidation({len(self.folds)} folds)\n{self.summary.round(4).to_string()}"

    def _repr_html_(self) -> str:
        return self.summary.round(4).to_html()


@constrained(folds=integer(2), k=CUTOFFS, confidence=FRACTION, rng=SEED)
@takes_definitions
@fill_doc(COMPARE_DOCS)
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
    %(k_metrics)s
    %(definitions)s
    **options
        Fields of :class:`evalkit.Definitions`, overriding ``definitions`` (each fold's
        training part is its ``train``).
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
    test part. A fold's training and test frames hold its rows in evalkit's canonical order
    (user, time, item, rating; :func:`evalkit.split.kfold_folds`), whatever the order of
    ``data``: a model whose fit depends on the order of its rows sees them in that order.
    The interval is ``mean +- t_{n-1} * sd / sqrt(n)`` over the ``n`` fold means.
    """
    func = "cross_validate"
    if not callable(model_factory):
        raise InvalidParameterError(
            f"{func}: 'model_factory' must be callable; got {type(model_factory).__name__}.")
    confidence = float(confidence)  # constrained, as k and rng
    ks = check_ks(k, func=func)
    generator = np.random.default_rng(rng)
    splits = kfold_folds(data, folds=folds, rng=generator, order="canonical")
    return fold_evaluations({None: (model_factory, generator)}, splits, ks=ks,
                            metrics=metrics, definitions=definitions, confidence=confidence,
                            progress=progress)[None]


def fold_evaluations(systems: Mapping[object, tuple[Callable[[], object], np.random.Generator]],
                     splits: Sequence, *, ks: list[int], metrics: object,
                     definitions: Definitions, confidence: float,
                     progress: bool = False,
                     sources: bool = True) -> dict[object, CrossValidation]:
    """:func:`cross_validate` of checked arguments for each system, by name: its model
    factory and a generator in the state the draw of the folds left it in (its fold
    evaluations' bootstraps go on from it), on folds already drawn (``splits``, made one at a
    time by :class:`evalkit.split.Folds`: each fold's frames are made once for every
    system and let go before the next fold's, unless the evaluations keep them: ``sources``,
    each fold's :class:`Evaluation` keeps its inputs for ``fingerprints()`` and ``save()``, as
    :func:`evaluate`'s do)."""
    func = "cross_validate"
    results: dict[object, list] = {name: [] for name in systems}
    # by position, so that no reference to a fold outlives its turn (a progress bar's loop
    # would hold the last fold while the next is made)
    for i in show_progress(range(len(splits)), desc="folds", enabled=progress):
        split = splits[i]
        train, test = split.train, split.test
        users = test["user_id"].unique()
        for name, (model_factory, generator) in systems.items():
            model = model_factory()
            if not (callable(getattr(model, "fit", None))
                    and callable(getattr(model, "recommend", None))):
                raise InvalidParameterError(
                    f"{func}: 'model_factory' must return a new model with fit and recommend "
                    f"(such as evalkit.models.MostPopular); it returned {describe(model)}.")
            model = model.fit(train)
            recs = model.recommend(users, k=max(ks))
            result = evaluate(test, recs, k=ks, metrics=metrics, train=train,
                              definitions=definitions, rng=generator)
            if not sources:
                object.__setattr__(result, "_sources", {})
            results[name].append(result)
            del model, recs, result
        del split, train, test
    return {name: CrossValidation(found, confidence) for name, found in results.items()}
