"""Did it regress? A paired, direction-aware check of a run against a baseline run, with a
verdict per metric: improved, unchanged, non-inferior, regressed or inconclusive."""

from __future__ import annotations

import html
import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import scipy.special

from ._checks import check_choice, check_fraction, check_positive_int, check_resamples, check_rng
from ._display import DIGITS, format_pvalue
from ._errors import InvalidParameterError
from ._evaluation import Evaluation, load_evaluation
from ._resample import (
    design_key,
    poisson_column_sums,
    poisson_weights,
    quantile_interval,
    replicate_means,
    sign_flip_sums,
    user_streams,
)
from ._runs import IncomparableRunsError, check_comparable
from .stats import holm

__all__ = ["TESTS", "VERDICTS", "IncomparableRunsError", "RegressionCheck", "regression_check"]

#: The tests :func:`regression_check` runs on the paired per-user differences.
TESTS = ("t", "randomization", "bootstrap")

#: The verdicts, best first.
VERDICTS = ("improved", "unchanged", "non-inferior", "inconclusive", "regressed")

#: Multiple-comparison corrections over the metrics.
_CORRECTIONS = ("holm", "bonferroni", "none")

_COLUMNS = ["column", "metric", "k", "higher_is_better", "n_users", "baseline", "current",
            "diff", "diff_ci_low", "diff_ci_high", "ci_level", "margin", "p_value",
            "p_value_adj",
            "p_noninferior", "p_noninferior_adj", "p_equivalent", "p_equivalent_adj", "verdict"]


@dataclass(frozen=True)
class RegressionCheck:
    """The result of :func:`regression_check`.

    Attributes
    ----------
    table : pd.DataFrame
        One row per ``metric@k`` both runs hold (see :func:`regression_check`).
    passed : bool
        No metric regressed (and, with ``strict``, none is inconclusive).
    strict : bool
        Whether an inconclusive metric fails the check too (as given to
        :func:`regression_check`, like the settings below).
    alpha : float
        The level of every test, after the correction.
    test : {"t", "randomization", "bootstrap"}
        The paired test.
    correction : {"holm", "bonferroni", "none"}
        The correction applied to each family of tests.
    confidence : float or None
        The level of the intervals; None: simultaneous over each family.
    n_permutations, n_resamples : int
        Sign flips of the randomization test; bootstrap resamples.
    current, baseline : str
        What the runs are called in the messages (their folders or names).
    notes : tuple of str
        What was not compared (metrics only one run holds) and other remarks.

    Shown in a notebook (or printed) a check gives its verdict, the sentence of
    :meth:`summary` and one row per metric (:meth:`readable`: means and differences at 4
    decimals, p-values as :func:`evalkit.format_pvalue` prints them); :attr:`table` holds
    every number at full precision.
    """

    table: pd.DataFrame
    passed: bool
    strict: bool
    alpha: float
    test: str
    correction: str
    confidence: float | None
    current: str = "current"
    baseline: str = "baseline"
    notes: tuple = field(default_factory=tuple)
    n_permutations: int = 10000
    n_resamples: int = 1000

    @property
    def failed(self) -> list[str]:
        """The ``metric@k`` columns that make the check fail."""
        bad = {"regressed", "inconclusive"} if self.strict else {"regressed"}
        return [c for c, v in zip(self.table["column"], self.table["verdict"]) if v in bad]

    # Display (what a person reads; the numbers are in the table): not mutation-tested.
    # pragma: no mutate start
    def _floors(self, metric: str) -> tuple[float, float]:
        """The smallest two-sided and one-sided p-values the test of ``metric``'s row can
        give, before the correction (0 for the t-test): a randomization test of B flips,
        1 / (B + 1) both; a bootstrap test of B resamples (catalog coverage's, whatever the
        test), 2 / (B + 1) and 1 / (B + 1)."""
        resamples = self.n_resamples or 1000
        if metric == "catalog_coverage" or self.test == "bootstrap":
            return 2 / (resamples + 1), 1 / (resamples + 1)
        if self.test == "randomization":
            return (1 / (self.n_permutations + 1),) * 2
        return 0.0, 0.0

    def _at_floor(self) -> tuple[np.ndarray, np.ndarray]:
        """Per row, whether its two-sided and its non-inferiority p-value are at the floor
        of the test (an upper bound, shown as ``< bound``)."""
        floors = np.array([self._floors(m) for m in self.table["metric"]]).reshape(-1, 2)
        raw = self.table[["p_value", "p_noninferior"]].to_numpy(np.float64)
        at = (raw <= floors * (1 + 1e-9)) & (floors > 0)
        return at[:, 0], at[:, 1]

    def _notes(self) -> list[str]:
        """The notes, and what a ``< bound`` p-value means where one is shown."""
        two, one = self._at_floor()
        bounded = two | one
        if not bounded.any():
            return list(self.notes)
        coverage = self.table["metric"].eq("catalog_coverage").to_numpy()
        how = []
        if self.test == "randomization" and (bounded & ~coverage).any():
            flips = self.n_permutations
            how.append(f"{flips:,} random sign flips give no p-value below 1/{flips + 1:,}")
        if (self.test == "bootstrap" and bounded.any()) or (bounded & coverage).any():
            draws = self.n_resamples or 1000
            how.append(f"{draws:,} bootstrap resamples none below 1/{draws + 1:,} one-sided, "
                       f"2/{draws + 1:,} two-sided")
        after = "" if self.correction == "none" else \
            f" after the {self.correction.capitalize()} correction"
        return list(self.notes) + [
            "A p-value shown as '< bound' is at the floor of its test: the observed "
            "difference beat every random draw, and " + "; ".join(how)
            + f"; the bound is that floor{after}, rounded up."]

    def _rows(self, digits: int = DIGITS) -> list[list[str]]:
        from .metrics import METRICS

        out = []
        floor_two, floor_one = self._at_floor()
        for j, row in enumerate(self.table.itertuples(index=False)):
            spec = METRICS.get(row.metric)
            k = None if pd.isna(row.k) else int(row.k)
            label = spec.column_label(k) if spec is not None else row.column
            if not row.higher_is_better:
                label += " (lower is better)"
            interval = (f" [{row.diff_ci_low:+.{digits}f}, {row.diff_ci_high:+.{digits}f}]"
                        if np.isfinite(row.diff_ci_low) and np.isfinite(row.diff_ci_high)
                        else "")
            out.append([
                label, f"{row.baseline:.{digits}f}", f"{row.current:.{digits}f}",
                f"{row.diff:+.{digits}f}{interval}" if np.isfinite(row.diff) else "",
                f"{row.margin:.{digits}g}",
                format_pvalue(row.p_value_adj, at_floor=bool(floor_two[j])),
                format_pvalue(row.p_noninferior_adj, at_floor=bool(floor_one[j]))
                if row.margin > 0 else "",
                row.verdict])
        return out

    _HEADER = ["metric", "baseline", "current", "difference", "margin", "p (adjusted)",
               "p non-inferior", "verdict"]

    def readable(self, *, digits: int = DIGITS) -> pd.DataFrame:
        """One row per metric as a person reads it (text): the metric (marked "lower is
        better" where it is), the two means, the difference with its interval, the margin,
        the corrected p-values and the verdict; what :meth:`to_markdown` and the HTML view
        show.

        Parameters
        ----------
        digits : int, default 4
            Decimals shown.
        """
        return pd.DataFrame(self._rows(digits), columns=self._HEADER)

    def summary(self) -> str:
        """One sentence: passed or failed, and why."""
        counts = self.table["verdict"].value_counts()
        verdicts = ", ".join(f"{int(counts[v])} {v}" for v in VERDICTS if v in counts)
        mode = ("strict: fails on a regressed or inconclusive metric" if self.strict
                else "lenient: fails on a regressed metric")
        users = int(self.table["n_users"].max()) if len(self.table) else 0
        word = "PASSED" if self.passed else "FAILED"
        failed = set(self.failed)
        failing = ", ".join(column_label(c, m) for c, m in
                            zip(self.table["column"], self.table["metric"]) if c in failed)
        failing = f" Failing: {failing}." if failing else ""
        test = {"t": "paired t-test", "randomization": "paired randomization test",
                "bootstrap": "paired bootstrap test"}[self.test]
        corrected = {"holm": "Holm-corrected", "bonferroni": "Bonferroni-corrected",
                     "none": "uncorrected"}[self.correction]
        return (f"{word}: {self.current} against {self.baseline}, {users:,} users paired; "
                f"{verdicts}.{failing} {test.capitalize()}, {corrected} over "
                f"{len(self.table)} metrics at alpha {self.alpha:g}; {mode}; differences are "
                f"current minus baseline with {self._levels()}.")

    def _levels(self) -> str:
        """The intervals' levels, in words."""
        def pct(level: float) -> str:
            return f"{100 * level:.3g}%"

        if self.confidence is not None or not len(self.table):
            return f"{pct(self.confidence or 1 - self.alpha)} intervals"
        with_margin = self.table["margin"].to_numpy() > 0
        levels = self.table["ci_level"].to_numpy()
        parts = [f"{pct(levels[~with_margin][0])} for a metric without a margin "
                 "(two-sided test)"] if (~with_margin).any() else []
        if with_margin.any():
            parts.append(f"{pct(levels[with_margin][0])} for one with (two one-sided tests "
                         "against the margin)")
        simultaneous = (" simultaneous over the metrics of each family (Bonferroni)"
                        if self.correction != "none" else "")
        return f"intervals{simultaneous}: {'; '.join(parts)}"

    def to_markdown(self, *, digits: int = DIGITS) -> str:
        """The check as Markdown, for a pull-request comment: a heading with the outcome,
        the sentence of :meth:`summary`, and a table of every metric's verdict.

        Parameters
        ----------
        digits : int, default 4
            Decimals shown.
        """
        lines = [f"### evalkit regression check: {'passed' if self.passed else 'FAILED'}", "",
                 self.summary(), ""]
        lines.append("| " + " | ".join(self._HEADER) + " |")
        lines.append("|" + "|".join(["---"] + ["---:"] * 6 + ["---"]) + "|")
        for row in self._rows(digits):
            row[-1] = f"**{row[-1]}**" if row[-1] in ("regressed", "inconclusive") else row[-1]
            lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |")
        lines += [""] + [f"- {note}" for note in self._notes()]
        return "\n".join(lines).rstrip() + "\n"

    def _repr_html_(self) -> str:
        colours = {"improved": "#1a7f37", "regressed": "#b42318", "inconclusive": "#9a6700",
                   "unchanged": "#444", "non-inferior": "#0b5cad"}
        head = "".join(f"<th>{html.escape(h)}</th>" for h in self._HEADER)
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row[:-1])
            + f"<td style='color:{colours.get(row[-1], '#222')};font-weight:600'>"
            f"{html.escape(row[-1])}</td></tr>" for row in self._rows())
        notes = "".join(f"<li>{html.escape(n)}</li>" for n in self._notes())
        return (f"<div><p><b>evalkit regression check: "
                f"{'passed' if self.passed else 'FAILED'}</b></p>"
                f"<p>{html.escape(self.summary())}</p><table><thead><tr>{head}</tr></thead>"
                f"<tbody>{body}</tbody></table>" + (f"<ul>{notes}</ul>" if notes else "")
                + "</div>")

    def __repr__(self) -> str:
        rows = self.readable()
        with pd.option_context("display.width", 200, "display.max_columns", 20):
            return "\n".join([self.summary(), rows.to_string(index=False)]
                              + [f"- {note}" for note in self._notes()])
    # pragma: no mutate end


def _as_run(value: object, *, arg: str, func: str) -> tuple[Evaluation, str]:
    if isinstance(value, Evaluation):
        name = value.provenance.get("name") or value.provenance.get("path") or arg
        return value, str(name)
    if isinstance(value, (str, os.PathLike)):
        return load_evaluation(value), str(value)
    raise InvalidParameterError(
        f"{func}: '{arg}' must be an evalkit Evaluation or the folder of a saved "
        f"run; got {type(value).__name__}.")


def column_label(column: str, metric: str) -> str:
    """A ``metric@k`` column as tables print it (``NDCG@10``); the column itself for a metric
    that is not registered here."""
    from .metrics import METRICS

    spec = METRICS.get(metric)
    if spec is None:
        return column
    return spec.column_label(None if column == metric else int(column.rpartition("@")[2]))


def margin_targets(keys: Iterable[object], columns: list[str], metrics: list[str], *,
                   func: str, arg: str, holder: str = "the runs share"
                   ) -> dict[object, tuple[bool, list[int]]]:
    """What each key of a margins mapping sets: ``(at one cutoff, positions in columns)``.

    A key is a column (``ndcg@10`` or ``NDCG@10``) or a metric at every cutoff (``ndcg`` or
    ``NDCG``), by registry name or label as :func:`evalkit.metrics.parse_column` reads them;
    the runs' own columns and metrics are taken as they are (a metric of your own that is
    not registered here included). A key naming none of ``columns`` (what ``holder``, in
    the message), or what another key names, is refused.
    """
    from .metrics import parse_column

    ks = [None if c == m else int(c.rpartition("@")[2]) for c, m in zip(columns, metrics)]
    shown = arg if arg.startswith("-") else f"'{arg}'"
    out: dict[object, tuple[bool, list[int]]] = {}
    named: dict[tuple[str, int | None], object] = {}
    unknown = []
    for key in keys:
        if key in columns:
            target = (metrics[columns.index(key)], ks[columns.index(key)])
        elif key in metrics:
            target = (key, None)
        else:
            spec, k = parse_column(key, func=func, arg=arg)
            target = (spec.name, k)
        positions = [j for j, (m, k) in enumerate(zip(metrics, ks))
                     if m == target[0] and (target[1] is None or k == target[1])]
        if not positions:
            unknown.append(key)
            continue
        if target in named:
            what = column_label(columns[positions[0]], target[0]) if target[1] is not None \
                else target[0]
            raise ValueError(f"{func}: {shown} names {what} twice ({named[target]!r} and "
                             f"{key!r}); give it once.")
        named[target] = key
        out[key] = (target[1] is not None, positions)
    if unknown:
        held = ", ".join(c if column_label(c, m) == c else f"{column_label(c, m)} ({c})"
                         for c, m in zip(columns, metrics))
        raise ValueError(f"{func}: {shown} names {', '.join(map(repr, unknown))}, which "
                         f"is not among the metrics {holder}: {held}.")
    return out


def _margins(margins: object, columns: list[str], metrics: list[str], base: np.ndarray, *,
             func: str) -> np.ndarray:
    """Per column, the margin in the metric's units (a "1%" text is relative to the
    baseline's mean); a key for one cutoff wins over a key for every cutoff."""
    out = np.zeros(len(columns))
    if margins is None:
        return out
    if isinstance(margins, (int, float, str)) and not isinstance(margins, bool):
        margins = dict.fromkeys(columns, margins)
    if not isinstance(margins, Mapping):
        raise InvalidParameterError(
            f"{func}: 'margins' must be a number, a text such as '1%', or a "
            f"mapping of metric@k (or metric) to one; got {type(margins).__name__}.")
    chosen: list[object] = [None] * len(columns)
    targets = margin_targets(margins, columns, metrics, func=func, arg="margins")
    for key, (_, positions) in sorted(targets.items(), key=lambda item: item[1][0]):
        for j in positions:
            chosen[j] = key
    for j, key in enumerate(chosen):
        if key is not None:
            out[j] = _margin_value(margins[key], base[j], key=str(key), func=func)
    return out


def _margin_value(value: object, base: float, *, key: str, func: str) -> float:
    text = value.strip() if isinstance(value, str) else None
    try:
        number = float(text[:-1]) / 100 * abs(base) if text and text.endswith("%") \
            else float(value)
    except (TypeError, ValueError):
        number = math.nan
    if not math.isfinite(number) or number < 0:
        raise ValueError(f"{func}: the margin of {key} must be a number >= 0 or a "
                         f"percentage such as '1%'; got {value!r}.")
    return number


def regression_check(
    current: Evaluation | str | os.PathLike,
    baseline: Evaluation | str | os.PathLike,
    *,
    margins: float | str | Mapping[str, float | str] | None = None,
    alpha: float = 0.05,
    test: str = "t",
    correction: str = "holm",
    strict: bool = False,
    coverage: bool = False,
    confidence: float | None = None,
    n_permutations: int = 10000,
    n_resamples: int = 1000,
    rng: int | np.random.Generator | None = 0,
) -> RegressionCheck:
    """Check a run against a baseline run: paired by user, one verdict per metric.

    Parameters
    ----------
    current, baseline : Evaluation or path
        The runs: :func:`evalkit.evaluate` results or the folders of saved runs
        (:meth:`evalkit.Evaluation.save`, ``evalkit evaluate --save``). They must be of the
        same test data (truth fingerprints, else the same users) under the same definitions;
        the metrics both hold are checked.
    margins : float, str or mapping, optional
        The loss you accept, per ``metric@k`` (or per metric, for every cutoff), in the
        metric's units (``{"ndcg@10": 0.005}``) or relative to the baseline's mean
        (``"1%"``); one value for every metric; default 0 (none). A key is a registry name
        or the label tables print (``"NDCG@10"`` is ``"ndcg@10"``, ``"P"`` every cutoff of
        ``"precision"``; case-sensitive, see :func:`evalkit.metrics.parse_column`); a key for
        one cutoff wins over a key for every cutoff, and two keys for the same are refused.
        For a lower-is-better metric the margin is an accepted increase.
    alpha : float, default 0.05
        Level of every test, after the correction.
    test : {"t", "randomization", "bootstrap"}, default "t"
        The paired test: Student's t on the per-user differences; a sign-flip randomization
        test (``n_permutations`` flips, shared by every metric); or the Poisson bootstrap of
        the mean difference (``n_resamples``).
    correction : {"holm", "bonferroni", "none"}, default "holm"
        Correction applied to each family of tests separately: the difference over every
        metric; non-inferiority and equivalence over the metrics that have a margin (a
        metric without one is not tested against a margin, so one margin is one test).
    strict : bool, default False
        Fail on an inconclusive metric too, not only on a regressed one.
    coverage : bool, default False
        Also check catalog coverage at each cutoff (a metric of the system, without per-user
        values) when both runs hold their top-k lists (:meth:`evalkit.Evaluation.lists`),
        through the paired user bootstrap. It reads both runs' lists: at 162,541 users with
        top-100 lists it adds about 15 s, which is why it is asked for.
    confidence : float, optional
        Level of every interval of the differences. Default: intervals simultaneous over
        the family each verdict is decided in (Bonferroni), so that an interval agrees with
        its verdict: ``1 - alpha / m`` over the ``m`` metrics for a metric without a margin
        (an interval that excludes 0 is a significant difference), ``1 - 2 alpha / m_M``
        over the ``m_M`` metrics with a margin for one with (the two one-sided tests read
        from its ends: an interval within ``+-margin`` is non-inferior, and unchanged
        unless it excludes 0 too). Holm's step-down can reach a verdict that a Bonferroni
        interval does not show; never the other way round.
    n_permutations : int, default 10000
        Sign flips of the randomization test.
    n_resamples : int, default 1000
        Bootstrap resamples of the intervals (t: the
        t interval, no resampling) and of the bootstrap test. ``n_resamples=0`` (no
        resampling) is refused with ``test="bootstrap"`` or ``coverage=True``, whose tests
        are the bootstrap.
    rng : int, Generator or None, default 0
        Seed of the flips and resamples.

    Returns
    -------
    RegressionCheck
        ``.passed``, ``.table``, ``.failed``, ``.summary()``, ``.to_markdown()`` and an HTML
        view in notebooks. The table has one row per ``metric@k``: ``column``, ``metric``,
        ``k``, ``higher_is_better``, ``n_users`` (users with a value in both runs),
        ``baseline`` and ``current`` (their means over those users), ``diff`` (current minus
        baseline) with ``diff_ci_low``/``diff_ci_high`` at level ``ci_level``, ``margin``,
        ``p_value`` (two-sided, no difference), ``p_noninferior`` (one-sided: the loss is
        smaller than the margin), ``p_equivalent`` (two one-sided tests: the difference is
        within +-margin), each with its ``*_adj`` corrected version (NaN for the margin tests
        of a metric without a margin), and ``verdict``; then, with ``coverage=True``, one row
        per cutoff for ``catalog_coverage`` (``n_users`` all users, ``baseline`` and
        ``current`` the two runs' coverage).

    Raises
    ------
    IncomparableRunsError
        (a ValueError) When the runs differ in test data, users or definitions, naming what
        differs, or share no metric.
    TypeError, ValueError
        For a bad option.

    Notes
    -----
    Write ``g`` for the per-user difference in the metric's better direction (current minus
    baseline; baseline minus current for a lower-is-better metric) and ``m`` for the margin.
    The verdicts, from the corrected p-values at ``alpha``:

    - **unchanged**: every user's value is the same in both runs; or, with ``m > 0``, no
      significant difference and ``|mean g| < m`` shown (two one-sided tests);
    - **improved**: ``mean g > 0``, significantly (two-sided test);
    - **non-inferior**: ``mean g > -m`` shown (one-sided test), though the run may be worse
      by less than the margin;
    - **regressed**: significantly worse (two-sided test), and not shown to be within the
      margin;
    - **inconclusive**: none of these: the users cannot tell. Without a margin a run that is
      not significantly different is inconclusive: nothing shows it is not worse.

    ``passed`` is false when a metric regressed (with ``strict``, also when one is
    inconclusive). A difference whose per-user values are all equal is known exactly (its
    p-values are 0 or 1). Catalog coverage, a metric of the system without per-user values, is
    the share of the catalogue (the training data's items when both runs saved the same
    ones, else every item either run lists) recommended in some top k; its interval and
    p-values come from the paired user bootstrap (``n_resamples`` replicates, every user
    weighted alike in both runs), centred on the observed difference, since a resample of
    users covers fewer items than all of them.

    Examples
    --------
    >>> import evalkit as ek
    >>> truth = pd.DataFrame({"user_id": [1, 2, 3, 4], "item_id": 10, "rating": 5.0})
    >>> recs = pd.DataFrame({"user_id": [1, 2, 3, 4], "item_id": 10, "rank": 1})
    >>> run = ek.evaluate(truth, recs, k=1, metrics=["precision"])
    >>> check = regression_check(run, run, coverage=True)
    >>> check.passed, list(check.table["column"]), list(check.table["verdict"])
    (True, ['precision@1', 'catalog_coverage@1'], ['unchanged', 'unchanged'])
    """
    func = "regression_check"
    now, current_name = _as_run(current, arg="current", func=func)
    then, baseline_name = _as_run(baseline, arg="baseline", func=func)
    alpha = check_fraction(alpha, func=func, arg="alpha")
    test = check_choice(test, func=func, arg="test", choices=TESTS)
    correction = check_choice(correction, func=func, arg="correction", choices=_CORRECTIONS)
    if not isinstance(strict, bool):
        raise InvalidParameterError(f"{func}: 'strict' must be True or False; got {strict!r}.")
    if confidence is not None:
        confidence = check_fraction(confidence, func=func, arg="confidence")
    n_permutations = check_positive_int(n_permutations, func=func, arg="n_permutations")
    n_resamples = check_resamples(n_resamples, func=func)
    if not n_resamples and (test == "bootstrap" or coverage):
        needs = "test='bootstrap'" if test == "bootstrap" else "coverage=True"
        raise InvalidParameterError(
            f"{func}: {needs} resamples users (its test is the bootstrap), so 'n_resamples' "
            "must be at least 1; got 0.")
    check_rng(rng, func=func)
    check_comparable(now, then, func=func)
    columns = [c for c in now.summary.index if c in then.summary.index]
    notes = [f"{column_label(c, str(run.summary.loc[c, 'metric']))} is only in the {side} "
             "run; not checked." for side, run, other in
             (("current", now, then), ("baseline", then, now))
             for c in run.summary.index if c not in other.summary.index]
    if not columns:
        raise IncomparableRunsError(f"{func}: the runs share no metric: 'current' has "
                                    f"{', '.join(now.summary.index)}, 'baseline' "
                                    f"{', '.join(then.summary.index)}.")
    users = now.per_user.index
    a = now.per_user[columns].to_numpy(np.float64)
    b = then.per_user[columns].reindex(users).to_numpy(np.float64)
    directions = now.directions()
    sign = np.array([1.0 if directions[c] else -1.0 for c in columns])
    d = (a - b).T  # (c, n): current minus baseline
    present = ~np.isnan(d)
    n = present.sum(axis=1)
    filled = np.where(present, d, 0.0)
    diff = np.divide(filled.sum(axis=1), n, out=np.full(len(columns), np.nan), where=n > 0)
    base_mean = np.divide(np.where(present, b.T, 0.0).sum(axis=1), n,
                          out=np.full(len(columns), np.nan), where=n > 0)
    metrics = [str(m) for m in now.summary.loc[columns, "metric"]]
    generator = np.random.default_rng(rng)
    ks = sorted({int(k) for k in now.summary.loc[columns, "k"].dropna()})
    shared = _coverage(now, then, users, ks, n_resamples, generator) \
        if coverage and ks else None
    if coverage and ks and shared is None:
        notes.append("Catalog coverage is not checked: a run does not hold its lists (save "
                     "runs with their recommendations at hand).")
    cov_columns = [f"catalog_coverage@{k}" for k in ks] if shared is not None else []
    all_columns = columns + cov_columns
    cov_base = shared["baseline"] if shared is not None else np.zeros(0)
    margin_all = _margins(margins, all_columns, metrics + ["catalog_coverage"] * len(cov_columns),
                          np.concatenate([base_mean, cov_base]), func=func)
    margin = margin_all[:len(columns)]
    level = (_levels(margin_all, alpha, correction) if confidence is None
             else np.full(len(all_columns), confidence))

    stats = _tests(filled * sign[:, None], present, n, margin, test=test, alpha=alpha,
                   confidence=level[:len(columns)], n_permutations=n_permutations,
                   n_resamples=n_resamples, generator=generator, users=users)
    low, high = stats["g_low"] * sign + 0.0, stats["g_high"] * sign + 0.0  # no -0.0
    table = pd.DataFrame({
        "column": columns, "metric": metrics,
        "k": now.summary.loc[columns, "k"].to_numpy(),
        "higher_is_better": sign > 0, "n_users": n,
        "baseline": base_mean, "current": base_mean + diff, "diff": diff,
        "diff_ci_low": np.fmin(low, high), "diff_ci_high": np.fmax(low, high),
        "margin": margin,
    })
    if shared is not None:
        extra = _coverage_tests(shared, margin_all[len(columns):], level[len(columns):])
        notes.append(f"Catalog coverage is the share of the {shared['catalog']:,} items of "
                     f"{shared['catalog_from']} recommended in the top k of at least one user; "
                     "its test is the paired user bootstrap (each replicate recomputes it on "
                     "the users drawn, in both runs, centred on the observed difference).")
        table = pd.concat([table, pd.DataFrame({
            "column": cov_columns, "metric": "catalog_coverage", "k": ks,
            "higher_is_better": True, "n_users": len(users), "baseline": shared["baseline"],
            "current": shared["current"], "diff": shared["current"] - shared["baseline"],
            "diff_ci_low": extra["low"], "diff_ci_high": extra["high"],
            "margin": margin_all[len(columns):]})], ignore_index=True)
        for name in ("p_value", "p_noninferior", "p_equivalent", "identical", "gain"):
            stats[name] = np.concatenate([stats[name], extra[name]])
    adjust = {"holm": holm, "none": np.asarray,
              "bonferroni": lambda p: np.minimum(np.asarray(p) * np.isfinite(p).sum(), 1.0)
              }[correction]
    # the families: every metric for the difference; the metrics with a margin for
    # non-inferiority and equivalence (a metric without one is not tested so)
    with_margin = table["margin"].to_numpy() > 0
    for name in ("p_value", "p_noninferior", "p_equivalent"):
        table[name] = stats[name]
        values = np.asarray(stats[name], dtype=float)
        if name == "p_value":
            table[f"{name}_adj"] = adjust(values)
        else:
            adjusted = np.full(len(values), np.nan)
            adjusted[with_margin] = adjust(values[with_margin])
            table[f"{name}_adj"] = adjusted
    table["ci_level"] = level
    table["verdict"] = _verdicts(table, stats["identical"], stats["gain"], alpha)
    table["k"] = table["k"].astype("Int64")
    table = table[_COLUMNS]
    bad = {"regressed", "inconclusive"} if strict else {"regressed"}
    passed = not bool(table["verdict"].isin(bad).any())
    return RegressionCheck(table=table, passed=passed, strict=strict, alpha=alpha, test=test,
                           correction=correction, confidence=confidence,
                           current=current_name, baseline=baseline_name, notes=tuple(notes),
                           n_permutations=n_permutations, n_resamples=n_resamples)


#: An item in more lists than this is covered in every bootstrap replicate: the chance that
#: every one of its users draws weight 0 is below e^-30.
_ALWAYS_COVERED = 30


def _coverage(now: Evaluation, then: Evaluation, users: pd.Index, ks: list[int],
              n_resamples: int, generator: np.random.Generator) -> dict | None:
    """Catalog coverage at each cutoff in both runs, and its paired user-bootstrap
    replicates (one Poisson design for both runs); None when a run has no lists."""
    lists = [now.lists(), then.lists()]
    if any(listed is None for listed in lists):
        return None
    catalogs = [run.catalog() for run in (now, then)]
    if catalogs[0] is not None and catalogs[1] is not None and catalogs[0].sort_values().equals(
            catalogs[1].sort_values()):
        items_of = catalogs[0]
        lists = [lst[lst["item_id"].isin(items_of)] for lst in lists]
        catalog, source = len(items_of), "the training data"
    else:
        catalog = len(pd.unique(np.concatenate([lst["item_id"].to_numpy() for lst in lists])))
        source = "either run's lists"
    weights = poisson_weights(user_streams(users), design_key(generator), n_resamples) > 0
    out = {"catalog": catalog, "catalog_from": source}
    for side, listed in zip(("current", "baseline"), lists):
        listed = listed[listed["user_id"].isin(users)]
        codes = users.get_indexer(listed["user_id"])
        values, replicates = [], []
        for k in ks:
            top = listed["position"].to_numpy() <= k
            items, item_of = np.unique(listed["item_id"].to_numpy()[top], return_inverse=True)
            per_item = np.bincount(item_of, minlength=len(items))
            rare = per_item[item_of] <= _ALWAYS_COVERED
            always = int(np.count_nonzero(per_item > _ALWAYS_COVERED))
            # the rare items' pairs, by item: an item is covered when one of its users drew
            order = np.argsort(item_of[rare], kind="stable")
            rare_items = item_of[rare][order]
            rare_users = codes[top][rare][order]
            covered = np.full(n_resamples, always, dtype=np.int64)
            if len(rare_items):
                starts = np.flatnonzero(np.r_[True, rare_items[1:] != rare_items[:-1]])
                for lo in range(0, len(starts), 2048):  # blocks of items
                    hi = min(lo + 2048, len(starts))
                    end = starts[hi] if hi < len(starts) else len(rare_items)
                    block = weights[rare_users[starts[lo]:end]]
                    hit = np.logical_or.reduceat(block, starts[lo:hi] - starts[lo], axis=0)
                    covered += hit.sum(axis=0)
            values.append(len(items) / catalog)
            replicates.append(covered / catalog)
        out[side] = np.asarray(values)
        out[f"{side}_replicates"] = np.asarray(replicates)
    return out


def _intervals(means: np.ndarray, confidence: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`quantile_interval` of each column of ``means`` at its own ``confidence``."""
    confidence = np.broadcast_to(np.asarray(confidence, np.float64), (means.shape[1],))
    low, high = np.full(means.shape[1], np.nan), np.full(means.shape[1], np.nan)
    for level in np.unique(confidence):
        at = confidence == level
        low[at], high[at] = quantile_interval(means[:, at], float(level))
    return low, high


def _levels(margin: np.ndarray, alpha: float, correction: str) -> np.ndarray:
    """The confidence of each column's interval, simultaneous over the family its verdict is
    decided in (Bonferroni): ``1 - alpha / m`` over the ``m`` metrics for a metric without a
    margin (the two-sided test), ``1 - 2 alpha / m_M`` over the ``m_M`` metrics with a margin
    for one with (the two one-sided tests, read from the interval's ends); ``1 - alpha`` and
    ``1 - 2 alpha`` without a correction."""
    with_margin = margin > 0
    m = len(margin) if correction != "none" else 1
    m_margin = max(int(with_margin.sum()), 1) if correction != "none" else 1
    return np.where(with_margin, 1 - 2 * alpha / m_margin, 1 - alpha / m)


def _coverage_tests(shared: dict, margin: np.ndarray, confidence: np.ndarray) -> dict:
    """The p-values and interval of each coverage difference, from its bootstrap replicates
    centred on the observed difference (the percentile test)."""
    diff = shared["current"] - shared["baseline"]
    d = shared["current_replicates"] - shared["baseline_replicates"]  # (ks, B)
    # a user drawn twice adds nothing to coverage, so resampled coverage runs low: the
    # replicates are shifted to centre on the observed difference
    d = d - d.mean(axis=1, keepdims=True) + diff[:, None]
    b = d.shape[1]

    def below(x: np.ndarray) -> np.ndarray:
        return (1 + np.count_nonzero(d <= x[:, None], axis=1)) / (b + 1)

    def above(x: np.ndarray) -> np.ndarray:
        return (1 + np.count_nonzero(d >= x[:, None], axis=1)) / (b + 1)

    zero = np.zeros(len(diff))
    identical = (diff == 0) & np.all(d == 0, axis=1)
    p_two = np.where(identical, 1.0, np.minimum(1.0, 2 * np.minimum(below(zero), above(zero))))
    p_ni = np.where(identical, np.where(margin > 0, 0.0, 1.0), below(-margin))
    p_eq = np.where(margin > 0, np.maximum(p_ni, above(margin)), np.nan)
    low, high = _intervals(d.T, confidence)
    return {"p_value": p_two, "p_noninferior": p_ni, "p_equivalent": p_eq,
            "identical": identical, "gain": diff, "low": low, "high": high}


def _verdicts(table: pd.DataFrame, identical: np.ndarray, gain: np.ndarray,
              alpha: float) -> list[str]:
    out = []
    for j, row in enumerate(table.itertuples(index=False)):
        differs = row.p_value_adj < alpha
        shown_within = row.margin > 0 and row.p_noninferior_adj < alpha
        if identical[j]:
            out.append("unchanged")
        elif row.n_users < 2:
            out.append("inconclusive")
        elif differs and gain[j] > 0:
            out.append("improved")
        elif shown_within:
            out.append("unchanged" if not differs and row.p_equivalent_adj < alpha
                       else "non-inferior")
        elif differs:
            out.append("regressed")
        else:
            out.append("inconclusive")
    return out


def _tests(g: np.ndarray, present: np.ndarray, n: np.ndarray, margin: np.ndarray, *,
           test: str, alpha: float, confidence: float, n_permutations: int, n_resamples: int,
           generator: np.random.Generator, users: pd.Index) -> dict[str, np.ndarray]:
    """The p-values and intervals of the mean gain ``g`` (c, n; 0 where absent) of every
    column: two-sided against 0, one-sided against ``-margin`` (non-inferiority) and the
    larger of the two one-sided p-values against ``-margin`` and ``+margin`` (equivalence)."""
    c = g.shape[0]
    nf = n.astype(np.float64)
    mean = np.divide(g.sum(axis=1), nf, out=np.full(c, np.nan), where=n > 0)
    dev = np.where(present, g - mean[:, None], 0.0)
    sd = np.sqrt(np.divide((dev * dev).sum(axis=1), nf - 1, out=np.zeros(c), where=n > 1))
    low = np.where(present, g, np.inf).min(axis=1)
    high = np.where(present, g, -np.inf).max(axis=1)
    identical = (n > 0) & (low == 0) & (high == 0)
    constant = (n > 1) & (low == high) & ~identical
    varying = (n > 1) & (low < high)
    out = {"identical": identical, "gain": mean}

    if test == "t":
        se = np.where(varying, sd / np.sqrt(np.maximum(nf, 1)), np.nan)
        df = np.maximum(nf - 1, 1)

        def tail(null: np.ndarray, above: bool) -> np.ndarray:
            t = (mean - null) / se
            return scipy.special.stdtr(df, -t if above else t)

        quantile = scipy.special.stdtrit(df, 0.5 + np.asarray(confidence) / 2)
        g_low, g_high = mean - quantile * se, mean + quantile * se
    elif test == "randomization":
        streams = user_streams(users)
        bits = sign_flip_sums(np.vstack([g, present.astype(np.float64)]),
                              design_key(generator), n_permutations, streams=streams)
        sums, counts = bits[:c], bits[c:]
        total = g.sum(axis=1)

        def tail(null: np.ndarray, above: bool) -> np.ndarray:
            # T*(null) = sum s (g - null), s = 2 bit - 1: the flipped sums of g - null
            observed = total - nf * null
            flipped = 2.0 * (sums - null[:, None] * counts) - observed[:, None]
            tol = (1e-10 * (np.abs(g).sum(axis=1) + np.abs(null) * nf))[:, None]
            hits = (flipped >= observed[:, None] - tol) if above else \
                (flipped <= observed[:, None] + tol)
            return (1 + np.count_nonzero(hits, axis=1)) / (n_permutations + 1)

        def two_sided(null: np.ndarray) -> np.ndarray:  # as compare's: |T*| >= |T|
            observed = total - nf * null
            flipped = 2.0 * (sums - null[:, None] * counts) - observed[:, None]
            tol = (1e-10 * (np.abs(g).sum(axis=1) + np.abs(null) * nf))[:, None]
            hits = np.abs(flipped) >= np.abs(observed)[:, None] - tol
            return (1 + np.count_nonzero(hits, axis=1)) / (n_permutations + 1)

        g_low, g_high = _bootstrap_interval(g, present, n_resamples, confidence, generator,
                                            users)
    else:
        means = _bootstrap_means(g, present, n_resamples, generator, users)
        valid = np.isfinite(means).sum(axis=0)

        def tail(null: np.ndarray, above: bool) -> np.ndarray:
            # the percentile test: the share of replicates on the null's side
            beyond = means <= null[None, :] if above else means >= null[None, :]
            return (1 + np.count_nonzero(beyond, axis=0)) / (valid + 1)

        g_low, g_high = _intervals(means, confidence)

    zero = np.zeros(c)
    if test == "randomization":
        p_two = two_sided(zero)
    else:
        p_two = np.minimum(1.0, 2 * np.minimum(tail(zero, True), tail(zero, False)))
    p_ni = tail(-margin, True)
    p_eq = np.maximum(p_ni, tail(margin, False))
    # differences known exactly (all equal): p-values 0 or 1, the interval a point
    for fixed in (identical, constant):
        p_two = np.where(fixed, np.where(mean != 0, 0.0, 1.0), p_two)
        p_ni = np.where(fixed, np.where(mean > -margin, 0.0, 1.0), p_ni)
        p_eq = np.where(fixed, np.where(np.abs(mean) < margin, 0.0, 1.0), p_eq)
        g_low, g_high = np.where(fixed, mean, g_low), np.where(fixed, mean, g_high)
    untested = (n < 2) & ~identical
    p_eq = np.where(margin > 0, p_eq, np.nan)
    for name, values in (("p_value", p_two), ("p_noninferior", p_ni), ("p_equivalent", p_eq),
                         ("g_low", g_low), ("g_high", g_high)):
        out[name] = np.where(untested, np.nan, values)
    return out


def _bootstrap_means(g: np.ndarray, present: np.ndarray, n_resamples: int,
                     generator: np.random.Generator, users: pd.Index) -> np.ndarray:
    """(n_resamples, c) Poisson-bootstrap means of each column's gains over its users."""
    columns = [np.where(present[j], g[j], np.nan) for j in range(g.shape[0])]
    key = design_key(generator)
    return replicate_means(*poisson_column_sums(columns, n_resamples, key,
                                                user_streams(users)))


def _bootstrap_interval(g: np.ndarray, present: np.ndarray, n_resamples: int,
                        confidence: float, generator: np.random.Generator, users: pd.Index
                        ) -> tuple[np.ndarray, np.ndarray]:
    if not n_resamples:
        return np.full(g.shape[0], np.nan), np.full(g.shape[0], np.nan)
    return _intervals(_bootstrap_means(g, present, n_resamples, generator, users),
                      confidence)
