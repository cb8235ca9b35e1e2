"""Findings computed from the results: what a report's numbers say, and what they leave out.

:func:`findings` writes the block a report opens with. Each sentence is chosen by a condition
on the numbers it states (a best system is named only where its mean is the highest, a
difference is called significant only where the corrected test says so, a caveat appears only
when its condition holds), so the block stays true on any data.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from .._canonical import is_sorted, lexsort, sort_key
from .._checks import describe
from .._constraints import FRACTION, POSITIVE_INT, constrained
from .._errors import InvalidParameterError

__all__ = ["data_findings", "findings", "score_ties", "split_findings", "split_headline",
           "table_findings"]

_COMPARISON_COLUMNS = ("system", "column", "diff", "permutation_pvalue_holm", "significant")
_AUDIT_COLUMNS = ("check", "count", "share", "severity")


# -- wording helpers ---------------------------------------------------------------------------

def _join(words: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    words = list(words)
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _bold(names: Sequence[str]) -> str:
    return _join([f"**{n}**" for n in names])


def _n(count: int, singular: str, plural: str | None = None) -> str:
    """``1 user``, ``2 users``, ``1,200 users``."""
    return f"{count:,} {singular if count == 1 else (plural or singular + 's')}"


def _share(share: float) -> str:
    """A share as a percentage that never rounds a part to 0% or 100%."""
    if 0 < share < 0.001:
        return "<0.1%"
    if 0.999 < share < 1:
        return ">99.9%"
    return f"{share:.1%}"


def _interval(mean: float, low: float, high: float, digits: int, *, sign: bool = False) -> str:
    """``0.358 [0.343, 0.372]`` (``+0.358 ...`` with ``sign``); the mean alone without bounds."""
    f = f"{{:{'+' if sign else ''}.{digits}f}}"
    if np.isfinite(low) and np.isfinite(high):
        return f"{f.format(mean)} [{f.format(low)}, {f.format(high)}]"
    return f.format(mean)


# -- validation ----------------------------------------------------------------------------------

def _check_evaluations(evaluations: object, *, func: str) -> dict:
    if not isinstance(evaluations, Mapping) or not evaluations:
        raise InvalidParameterError(
            f"{func}: 'evaluations' must be a non-empty dict of system name to "
            f"evalkit Evaluation; got {describe(evaluations)}.")
    for name, ev in evaluations.items():
        if not all(hasattr(ev, a) for a in ("summary", "counts", "definitions")):
            raise InvalidParameterError(
                f"{func}: 'evaluations[{name!r}]' must be an evalkit Evaluation "
                f"(the result of evaluate); got {type(ev).__name__}.")
    first_name, first = next(iter(evaluations.items()))
    for name, ev in evaluations.items():
        if list(ev.summary.index) != list(first.summary.index):
            raise ValueError(
                f"{func}: every evaluation must hold the same metrics and cutoffs; "
                f"{name!r} has {', '.join(ev.summary.index)}, {first_name!r} has "
                f"{', '.join(first.summary.index)}.")
    return dict(evaluations)


def _selected_columns(summary: pd.DataFrame, k: object, *, func: str) -> list[str]:
    """The summary rows at cutoff ``k`` and those without a cutoff (all rows for None)."""
    if k is None:
        return list(summary.index)
    cutoffs = sorted({int(v) for v in summary["k"].dropna()})
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or int(k) not in cutoffs:
        raise ValueError(f"{func}: 'k' must be one of the cutoffs evaluated "
                         f"({', '.join(map(str, cutoffs)) or 'none'}) or None; "
                         f"got {describe(k)}.")
    at_k = summary["k"].eq(int(k)).fillna(False).to_numpy(bool)
    return list(summary.index[at_k | summary["k"].isna().to_numpy(bool)])


def _check_table(table: object, *, func: str, arg: str, required: Sequence[str]) -> pd.DataFrame:
    if not isinstance(table, pd.DataFrame):
        raise InvalidParameterError(
            f"{func}: '{arg}' must be a pandas DataFrame or None; "
            f"got {type(table).__name__}.")
    missing = [c for c in required if c not in table.columns]
    if missing:
        raise ValueError(f"{func}: '{arg}' is missing column(s) {', '.join(missing)}; it has "
                         f"{', '.join(map(str, table.columns)) or 'no columns'}.")
    return table


# -- the parts of the block ------------------------------------------------------------------------

def lower_note(metric: str) -> str:
    """`` (lower is better)`` for a ranking metric declared so, else nothing."""
    from ..metrics import RANKING_METRICS

    known = RANKING_METRICS.get(metric)
    return "" if known is None or known.higher_is_better else " (lower is better)"


def _labels(summary: pd.DataFrame) -> dict[str, str]:
    """Display label of each summary column: ``NDCG@10``, ``R-Prec``; a metric declared
    lower-is-better says so."""
    return {c: (f"{lab}@{int(k)}" if pd.notna(k) else str(lab)) + lower_note(m)
            for c, lab, k, m in zip(summary.index, summary["label"], summary["k"],
                                    summary["metric"])}


def _higher(summary: pd.DataFrame) -> dict[str, bool]:
    """Whether a higher mean is better, per summary column (from the metric's declaration)."""
    from ..metrics import RANKING_METRICS

    return {c: RANKING_METRICS[m].higher_is_better if m in RANKING_METRICS else True
            for c, m in zip(summary.index, summary["metric"])}


def _best(evaluations: dict, columns: list[str], labels: dict, digits: int):
    """Bullets naming the best mean of each metric (the highest, or the lowest for a metric
    declared lower-is-better), the metrics where the best interval overlaps another
    system's, and the metrics undefined for every user."""
    names = list(evaluations)
    higher = _higher(next(iter(evaluations.values())).summary)
    field = {f: pd.DataFrame({n: ev.summary.loc[columns, f].astype(float)
                              for n, ev in evaluations.items()})
             for f in ("mean", "ci_low", "ci_high")}
    mean, low, high = field["mean"], field["ci_low"], field["ci_high"]
    undefined = [c for c in columns if mean.loc[c].isna().all()]
    shown = [c for c in columns if c not in undefined]
    overlaps: list[tuple[str, str, list[str]]] = []
    if not shown:
        return [], overlaps, undefined
    if len(names) == 1:
        name = names[0]
        parts = [f"{labels[c]} "
                 f"{_interval(mean.at[c, name], low.at[c, name], high.at[c, name], digits)}"
                 for c in shown]
        return [f"Only {_bold([name])} is evaluated, so there is no best system to name: "
                + "; ".join(parts) + "."], overlaps, undefined
    groups: dict[tuple[tuple[str, ...], bool], list[str]] = {}
    for c in shown:  # one step per metric
        row = mean.loc[c]
        up = higher[c]
        top = row.max() if up else row.min()
        winners = tuple(n for n in names if row[n] == top)
        groups.setdefault((winners, up), []).append(c)
        if len(winners) == 1:
            best = winners[0]
            clear = low.at[c, best] if up else high.at[c, best]
            near = [n for n in names if n != best and pd.notna(row[n]) and np.isfinite(clear)
                    and (high.at[c, n] >= clear if up else low.at[c, n] <= clear)]
            if near:
                overlaps.append((c, best, near))
    lines = []
    for (winners, up), cols in groups.items():
        word = "highest" if up else "lowest"
        if len(winners) == 1:
            w = winners[0]
            parts = [f"{labels[c]} {_interval(mean.at[c, w], low.at[c, w], high.at[c, w], digits)}"
                     for c in cols]
            every = "every metric shown: " if len(cols) == len(shown) > 1 else ""
            lines.append(f"{_bold(winners)} has the {word} mean on {every}"
                         + "; ".join(parts) + ".")
        else:
            parts = [f"{labels[c]} ({mean.at[c, winners[0]]:.{digits}f})" for c in cols]
            lines.append(f"{_bold(winners)} share the {word} mean on {_join(parts)}.")
    return lines, overlaps, undefined


def _significance(comparison: pd.DataFrame, columns: list[str], labels: dict, alpha: float,
                  digits: int, *, func: str) -> tuple[list[str], list[str], set[frozenset]]:
    """The significance bullet (with one sub-bullet per pair), the floor caveat and the
    pairs of systems tested on the metrics shown."""
    table = comparison.reset_index(drop=True)
    if "against" in table.columns:
        against = table["against"]
    else:  # the reference layout: every row is against the table's first system
        against = pd.Series(table["system"].iloc[0], index=table.index).where(
            table["diff"].notna())
    pvalue = table["permutation_pvalue_holm"].astype(float)
    tested = pvalue.notna() & table["diff"].notna() & against.notna()
    family = int(tested.sum())
    if family == 0:
        return ["No pair of systems could be tested: no two systems share two evaluated "
                "users on any metric."], [], set()
    significant = table["significant"].astype("boolean").fillna(False).astype(bool)
    if (significant[tested] != (pvalue[tested] < alpha)).any():
        raise ValueError(f"{func}: 'alpha' is {alpha:g}, but the significant column of "
                         "'comparison' was decided at another level; pass the level the "
                         "comparison used.")
    shown = tested & table["column"].isin(columns)
    if not shown.any():
        shown = tested
    n_sig = int((significant & shown).sum())
    where = "" if shown.sum() == family else f" ({_n(int(shown.sum()), 'comparison')} shown)"
    head = (f"Paired tests, Holm-corrected across all {_n(family, 'comparison')} at level "
            f"{alpha:g}{where}: ")
    head += ("no difference is significant." if n_sig == 0 else
             f"{_n(n_sig, 'difference is', 'differences are')} significant.")
    has_ci = {"diff_ci_low", "diff_ci_high"} <= set(table.columns)
    pairs = list(dict.fromkeys(zip(table.loc[shown, "system"], against[shown])))
    bullets = []
    for system, other in pairs:  # one step per pair of systems
        rows = table[shown & table["system"].eq(system) & against.eq(other)]
        sig = significant[rows.index]

        def effect(r) -> str:
            low = r["diff_ci_low"] if has_ci else np.nan
            high = r["diff_ci_high"] if has_ci else np.nan
            shown_diff = _interval(r["diff"], low, high, digits, sign=True)
            return f"{labels.get(r['column'], r['column'])} ({shown_diff})"

        parts = []
        up = rows[sig & rows["diff"].gt(0)]
        down = rows[sig & rows["diff"].lt(0)]
        same = rows[~sig]
        if len(up):
            parts.append("higher on " + _join([effect(r) for _, r in up.iterrows()]))
        if len(down):
            parts.append("lower on " + _join([effect(r) for _, r in down.iterrows()]))
        if len(same):
            parts.append("no significant difference on "
                         + _join([labels.get(c, c) for c in same["column"]])
                         + _detectable(same, labels, digits))
        bullets.append(f"    - {_bold([system])} against {_bold([other])}: "
                       + "; ".join(parts) + ".")
    caveats = []
    if "p_at_floor" in table.columns:
        floor = table["p_at_floor"].astype("boolean").fillna(False).astype(bool) & tested
        if floor.any():
            bound = float(table.loc[floor, "permutation_pvalue"].max())
            many = _n(int(floor.sum()), "randomization p-value is", "randomization p-values are")
            caveats.append(
                f"{many} at the test's floor ({bound:.2g}, one over the number of sign flips "
                "plus one): the observed difference beat every random sign flip, so the true "
                "p-value is smaller than the test can resolve.")
    return [head] + bullets, caveats, {frozenset(pair) for pair in pairs}


def _detectable(rows: pd.DataFrame, labels: dict, digits: int) -> str:
    """`` (with 610 users it could only detect differences of at least 0.014 on NDCG@10 at
    80% power; to detect the differences observed it would take about 5,210 users on
    NDCG@10)`` for non-significant rows of a comparison with ``mde``; else nothing."""
    if "mde" not in rows.columns:
        return ""
    known = rows[rows["mde"].astype(float).notna()]
    if known.empty:
        return ""
    users = known["n_shared"].astype(int)
    at = [f"{m:.{digits}f} on {labels.get(c, c)}" + ("" if users.nunique() == 1 else
                                                     f" ({u:,} users)")
          for m, c, u in zip(known["mde"].astype(float), known["column"], users)]
    who = f"with {users.iloc[0]:,} users it" if users.nunique() == 1 else "it"
    text = f" ({who} could only detect differences of at least {_join(at)} at 80% power"
    if "users_needed" in known.columns:
        need = known[known["users_needed"].notna()]
        if len(need):
            text += ("; to detect the differences observed it would take about "
                     + _join([f"{int(u):,} users on {labels.get(c, c)}"
                              for u, c in zip(need["users_needed"], need["column"])]))
    return text + ")"


def _left_out(evaluations: dict, columns: list[str], labels: dict) -> list[str]:
    """Users left out of the means (undefined), without a list, only in the lists."""
    lines = []
    users = {n: int(ev.counts.get("users", 0)) for n, ev in evaluations.items()}
    total = max(users.values())
    defs = next(iter(evaluations.values())).definitions
    narrowed = defs.relevant_set != "truth" or defs.unknown_items == "drop"
    out = pd.DataFrame({n: users[n] - ev.summary.loc[columns, "n_users"].astype(int)
                        for n, ev in evaluations.items()})
    zeroed = pd.DataFrame({n: ev.summary.loc[columns, "undefined"].astype(int)
                           for n, ev in evaluations.items()}) - out
    zeroed = zeroed.clip(lower=0)
    if not out.to_numpy().any() and not zeroed.to_numpy().any():
        lines.append(f"Every metric shown is defined for each of the {_n(total, 'test user')}, "
                     "so every mean is over all of them.")
    for frame, verbs in ((out, ("leaves them out of its mean", "leave them out of their means")),
                         (zeroed, ("counts them as 0", "count them as 0"))):
        groups: dict[tuple[int, ...], list[str]] = {}
        for c in columns:  # one step per metric
            counts = tuple(int(v) for v in frame.loc[c])
            if any(counts):
                groups.setdefault(counts, []).append(c)
        for counts, cols in groups.items():
            if len(set(counts)) == 1:
                how_many = f"{counts[0]:,} of the {total:,} test users"
            else:
                how_many = "some test users (" + ", ".join(
                    f"{n}: {v:,}" for n, v in zip(evaluations, counts)) + ")"
            hlu = [c.startswith("half_life_utility") for c in cols]
            reasons = []
            if not all(hlu):
                reasons.append("no relevant test item" + (" left under the definitions in use"
                                                          if narrowed else ""))
            if any(hlu):
                reasons.append(("" if all(hlu) else "HLU: ")
                               + "no test rating above the neutral rating")
            many = len(cols) > 1
            lines.append(f"{_join([labels[c] for c in cols])} {'are' if many else 'is'} "
                         f"undefined for {how_many} ({'; '.join(reasons)}) and "
                         f"{verbs[many]}.")
    without = {n: int(ev.counts.get("users_without_recs", 0)) for n, ev in evaluations.items()}
    extra = {n: int(ev.counts.get("recs_only_users", 0)) for n, ev in evaluations.items()}
    if not any(without.values()) and not any(extra.values()):
        lines.append("Every system has a list for every test user, and none for anyone else.")
    for name, count in without.items():
        if count:
            lines.append(f"{_bold([name])} has no list for {count:,} of the {users[name]:,} "
                         "test users; they are evaluated with an empty list (scored 0).")
    for name, count in extra.items():
        if count:
            lines.append(f"{_bold([name])} has lists for {_n(count, 'user')} without a test "
                         "interaction; those lists are not evaluated.")
    return lines


def score_ties(recs: pd.DataFrame, ks: Sequence[int]) -> dict[int, int] | None:
    """Users whose list has two items with equal scores at positions k and k + 1, for each
    cutoff k: their values at k depend on the order of those items, which the file's
    ``rank`` (when it has one) or the tie rule decided. None when ``recs`` has no scores.

    The list is read in the order the evaluation uses: by ``rank`` when the file has one,
    else by score (descending).

    Parameters
    ----------
    recs : pandas.DataFrame
        One system's recommendations: ``user_id, item_id, score`` and optionally ``rank``.
    ks : sequence of int
        The cutoffs.

    Examples
    --------
    >>> recs = pd.DataFrame({"user_id": [1, 1, 1, 2, 2], "item_id": [1, 2, 3, 1, 2],
    ...                      "score": [0.9, 0.5, 0.5, 0.7, 0.6], "rank": [1, 2, 3, 1, 2]})
    >>> score_ties(recs, [1, 2])
    {1: 0, 2: 1}
    """
    if "score" not in recs.columns:
        return None
    if not len(recs):
        return {int(k): 0 for k in ks}
    users = sort_key(recs["user_id"])
    within = (sort_key(recs["rank"]) if "rank" in recs.columns
              else -recs["score"].to_numpy(np.float64))  # by rank, else best score first
    scores = recs["score"].to_numpy()
    if not is_sorted([users, within]):  # lists written best first need no sort
        order = lexsort([users, within])  # stable: ties in the file's order
        users, scores = users[order], scores[order]
    first = np.concatenate([[True], users[1:] != users[:-1]])  # a user's first row
    starts = np.flatnonzero(first)
    position = np.arange(len(users)) - starts[np.cumsum(first) - 1] + 1
    tied = (users[:-1] == users[1:]) & (scores[:-1] == scores[1:])
    return {int(k): int(np.count_nonzero(tied & (position[:-1] == k))) for k in ks}


def _ties(evaluations: dict, columns: list[str],
          systems: Mapping[str, pd.DataFrame] | None = None) -> list[str]:
    """Users whose tied scores straddle a cutoff, per system: from the scores of the lists
    when ``systems`` is given (also where the file's ranks ordered them), else from the
    evaluations (which see ties only in lists ranked by score)."""
    lines = []
    cutoffs: set[int] = set()
    unseen = []  # systems given by ranks alone: their ties cannot be seen
    cut: dict[int, list[str]] = {}  # lists that end at a cutoff: ties across it are unseen
    for name, ev in evaluations.items():  # one step per system
        s = ev.summary.loc[columns]
        s = s[s["k"].notna()]
        ks = sorted({int(v) for v in s["k"]})
        cutoffs |= set(ks)
        ranked = systems is not None and name in systems and "rank" in systems[name]
        if systems is not None and name in systems:
            lists = systems[name]
            beyond = getattr(systems, "beyond", {}).get(name)
            if beyond is not None and len(beyond):  # a baseline's next items: ties show
                lists = pd.concat([lists, beyond], ignore_index=True)
            counts = score_ties(lists, ks)
            if counts is None:
                unseen.append(name)
                continue
            longest = int(lists.groupby("user_id", sort=False).size().max()) \
                if len(lists) else 0
            for k in ks:
                if longest <= k:
                    cut.setdefault(k, []).append(name)
            tied = pd.Series({k: n for k, n in counts.items() if longest > k}, dtype=int)
        else:
            tied = s.groupby(s["k"].astype(int))["tied_users"].max()
        tied = tied[tied > 0]
        decided = ("the list's ranks ordered them" if ranked
                   else "the tie rule (`ties`, `tie_order`) ordered them")
        for k, count in tied.items():
            lines.append(f"For {_bold([name])}, tied scores straddle the cutoff {k} for "
                         f"{int(count):,} of the {int(ev.counts.get('users', 0)):,} test "
                         f"users: {decided}, and their values at that cutoff depend on it "
                         "(the ties table of the ranking report shows by how much).")
    for k, names in sorted(cut.items()):
        lines.append(f"The lists of {_bold(names)} end at the cutoff {k}: whether tied scores "
                     f"straddle it cannot be seen from them (longer lists would show it).")
    if not lines and cutoffs:
        at = _join([str(k) for k in sorted(cutoffs)])
        plural = "s" if len(cutoffs) > 1 else ""
        scored = [n for n in evaluations if n not in unseen]
        if scored and not unseen:
            lines.append(f"No system has tied scores straddling the cutoff{plural} {at}, so no "
                         "value shown depends on how ties are broken.")
        elif scored:
            lines.append(f"No system with scores ({_bold(scored)}) has tied scores straddling "
                         f"the cutoff{plural} {at}, so none of their values depends on how ties "
                         "are broken.")
    if unseen:
        lines.append(f"{_bold(unseen)} {'give' if len(unseen) > 1 else 'gives'} ranks "
                     "without scores: ties, if any, cannot be seen.")
    return lines


#: The audit checks whose count is a leak (their severity reads "ok" when the count is 0).
_LEAK_CHECKS = ("test_pairs_in_train", "dev_pairs_in_train", "test_pairs_in_dev")

_AUDIT_WORDING = {
    "test_pairs_in_train": "{count} of the {den} test rows ({share}) repeat a user-item pair "
                           "that is in training: the split leaks those answers to the models",
    "dev_pairs_in_train": "{count} of the {den} dev rows ({share}) repeat a user-item pair that "
                          "is in training: the split leaks",
    "test_pairs_in_dev": "{count} of the {den} test rows ({share}) repeat a user-item pair that "
                         "is in the dev set: the split leaks",
    "duplicate_pairs_train": "{count} of the {den} training rows ({share}) repeat a user-item "
                             "pair already in training",
    "duplicate_pairs_test": "{count} of the {den} test rows ({share}) repeat a user-item pair "
                            "already in the test set",
    "cold_users": "{count} of the {den} test users ({share}) have no training interaction: "
                  "a model that learns from training interactions knows nothing of them",
    "cold_items": "{count} of the {den} test items ({share}) never occur in training: a model "
                  "that recommends from training items cannot recommend them",
    "user_time_leakage": "{count} of the {den} training rows ({share}) are later than the same "
                         "user's first test interaction: the split does not follow time per "
                         "user, which matters when the question is predicting the future",
    "global_time_leakage": "{count} of the {den} training rows ({share}) are later than the "
                           "earliest test interaction: the split is not a cut in time",
}


def _audit(audit: pd.DataFrame) -> list[str]:
    """The leaks and warnings the split audit found."""
    rows = audit[audit["count"].astype(int) > 0]
    leaks = audit[audit["check"].isin(_LEAK_CHECKS) | audit["severity"].eq("leak")]
    lines = []
    if len(leaks) and not leaks["count"].astype(int).any():
        lines.append("The split audit finds no leak: no test interaction repeats a training "
                     "one.")
    for _, row in rows.iterrows():  # one step per audit check
        count, share = int(row["count"]), float(row["share"])
        den = round(count / share) if share > 0 else 0
        wording = _AUDIT_WORDING.get(row["check"])
        if wording is None:
            text = str(row.get("detail", f"{row['check']}: {count:,}")).rstrip(".")
        else:
            text = wording.format(count=f"{count:,}", den=f"{den:,}", share=_share(share))
        label = "Leak" if row["severity"] == "leak" else "Split audit"
        lines.append(f"{label}: {text}.")
    return lines


# -- the block -------------------------------------------------------------------------------------

@constrained(alpha=FRACTION, few_users=POSITIVE_INT, digits=POSITIVE_INT)
def findings(
    evaluations: Mapping[str, object],
    *,
    k: int | None = None,
    comparison: pd.DataFrame | None = None,
    audit: pd.DataFrame | None = None,
    alpha: float = 0.05,
    few_users: int = 100,
    digits: int = 3,
    systems: Mapping[str, pd.DataFrame] | None = None,
) -> str:
    """A short Markdown block of findings computed from the results, with computed caveats.

    Parameters
    ----------
    evaluations : dict of str to Evaluation
        :func:`evalkit.evaluate` of each system on the same test set (as
        :func:`evalkit.report.evaluate_systems` returns), with the same metrics and cutoffs.
    k : int, optional
        The cutoff whose metrics are stated (with the metrics that have no cutoff); default:
        every row of the summaries.
    comparison : pandas.DataFrame, optional
        A :func:`evalkit.compare` table of these systems; adds which differences are
        significant after the Holm correction, with their effect and its interval.
    audit : pandas.DataFrame, optional
        :func:`evalkit.audit` of the split the systems were evaluated on: adds the leaks and
        warnings it found.
    alpha : float, default 0.05
        The level ``comparison`` was decided at (checked against its ``significant`` column).
    few_users : int, default 100
        Fewer test users than this adds a caveat about the width of intervals and the power
        of tests.
    digits : int, default 3
        Decimals of the numbers stated.
    systems : dict of str to pandas.DataFrame, optional
        The lists evaluated: the ties are then counted from their scores (:func:`score_ties`),
        also where a file's ranks ordered tied scores, which the evaluations cannot see.

    Returns
    -------
    str
        Markdown: a ``## Findings`` heading, bullets (best system per metric with its
        interval; significant differences; users left out; ties; the split audit) and
        ``**Caveats**`` when one applies.

    Raises
    ------
    TypeError, ValueError
        For evaluations that are not :class:`~evalkit.Evaluation` results of the same metrics,
        a ``k`` that was not evaluated, tables without the needed columns, or an ``alpha``
        that does not match the comparison's ``significant`` column.

    Notes
    -----
    Every sentence is conditional on the numbers it states:

    - the best system of a metric is the one with the highest mean (the lowest for a metric
      declared lower-is-better, which its label says); systems with equal means share it;
      when another system's interval reaches the best one's bound, a caveat says the mark
      means little there;
    - a difference is called significant where the Holm-corrected randomization p-value of
      ``comparison`` is below ``alpha``, with its sign and, when the table has it, the
      bootstrap interval of the paired difference; where it is not, and the table has
      ``mde``, the smallest difference the test could have detected at 80% power;
    - users left out are counted from each summary: users for whom a metric is undefined
      (left out of its mean, or scored 0 under ``empty="zero"``), users without a list,
      users only in the lists, users whose tied scores straddle the cutoff;
    - audit rows are stated only when their count is above 0 (and "no leak" only when every
      leak check of the audit is 0).

    Examples
    --------
    >>> import evalkit as ek
    >>> truth = pd.DataFrame({"user_id": [1, 2], "item_id": [10, 20], "rating": [5.0, 4.0]})
    >>> good = pd.DataFrame({"user_id": [1, 2], "item_id": [10, 20], "rank": [1, 1]})
    >>> bad = pd.DataFrame({"user_id": [1, 2], "item_id": [11, 21], "rank": [1, 1]})
    >>> runs = {n: ek.evaluate(truth, r, k=1, metrics=["precision"], n_resamples=0)
    ...         for n, r in {"bad": bad, "good": good}.items()}
    >>> print(findings(runs).splitlines()[4])
    - **good** has the highest mean on P@1 1.000.
    """
    func = "findings"
    evaluations = _check_evaluations(evaluations, func=func)
    first = next(iter(evaluations.values()))
    columns = _selected_columns(first.summary, k, func=func)
    labels = _labels(first.summary)
    users = max(int(ev.counts.get("users", 0)) for ev in evaluations.values())
    level = first.bootstrap.get("confidence", 0.95)
    intervals = bool(first.bootstrap.get("n_resamples", 1))

    lead = f"Computed from these results on {_n(users, 'test user')}: means"
    lead += (f" with {round(100 * float(level))}% bootstrap intervals, `mean [low, high]`."
             if intervals else " (no intervals were computed).")
    bullets, caveats = [], []
    best, overlaps, undefined = _best(evaluations, columns, labels, digits)
    bullets += best
    tested: set[frozenset] = set()
    if comparison is not None and len(evaluations) > 1:
        comparison = _check_table(comparison, func=func, arg="comparison",
                                  required=_COMPARISON_COLUMNS)
        lines, floor, tested = _significance(comparison, columns, labels, alpha, digits,
                                             func=func)
        bullets += lines
        caveats += floor
    bullets += _left_out(evaluations, columns, labels)
    bullets += _ties(evaluations, columns, systems)
    if audit is not None:
        audit = _check_table(audit, func=func, arg="audit", required=_AUDIT_COLUMNS)
        bullets += _audit(audit)

    groups: dict[tuple[str, tuple[str, ...], bool], list[str]] = {}
    higher = _higher(first.summary)
    for c, best_name, near in overlaps:  # one step per metric
        groups.setdefault((best_name, tuple(near), higher[c]), []).append(c)
    for (best_name, near, up), cols in groups.items():
        where = ("every metric shown" if len(cols) == len(columns) - len(undefined) > 1
                 else _join([labels[c] for c in cols]))
        decided = all(frozenset((best_name, n)) in tested for n in near)
        tail = ("the paired tests above decide" if decided
                else "only a paired test can tell whether the difference is real")
        caveats.append(f"On {where}, the interval of the {'highest' if up else 'lowest'} mean "
                       f"({_bold([best_name])}) "
                       f"overlaps that of {_bold(near)}: there the mark of the best means "
                       f"little, and {tail}.")
    if undefined:
        caveats.append(f"{_join([labels[c] for c in undefined])} "
                       f"{'are' if len(undefined) > 1 else 'is'} undefined for every test "
                       "user: there is no mean to compare.")
    if users < few_users:
        caveats.append(f"Only {_n(users, 'test user is', 'test users are')} evaluated (fewer "
                       f"than {few_users:,}): intervals are wide and tests can miss real "
                       "differences.")
    for name, ev in evaluations.items():  # one step per system
        means = ev.summary.loc[columns, "mean"].astype(float).dropna()
        if len(means) and not means.to_numpy().any():
            caveats.append(f"{_bold([name])} scores 0 on every metric shown: it never places "
                           "a relevant test item in its lists; check that its user and item "
                           "ids match the data's.")
    text = "## Findings\n\n" + lead + "\n\n" + "\n".join(
        b if b.startswith("    - ") else f"- {b}" for b in bullets)
    if caveats:
        text += "\n\n**Caveats**\n\n" + "\n".join(f"- {c}" for c in caveats)
    return text


# -- findings of the rating, classification and beyond-accuracy reports ---------------------------


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def table_findings(results: Mapping[str, pd.DataFrame], *, better: Mapping[str, str | None],
                   labels: Mapping[str, str] | None = None, left_out: Mapping[str, int] | None
                   = None, unit: str = "test rating", digits: int = 3) -> str:
    """Findings from per-system tables of values with intervals (``value`` or ``mean``,
    ``ci_low``, ``ci_high``; one row per measure), as :func:`evalkit.metrics.rating_errors`,
    :func:`evalkit.metrics.classification_scores` and
    :func:`evalkit.metrics.tables.beyond_intervals` give them.

    Parameters
    ----------
    results : dict of str to pandas.DataFrame
        Each system's table, by name; the same rows in each.
    better : dict of row to {"higher", "lower", None}
        Which direction is better for each row stated; None states the range across systems
        without naming a best (novelty, popularity: more is not better in itself). Rows not
        in ``better`` are not stated.
    labels : dict of row to str, optional
        Display names of the rows.
    left_out : dict of str to int, optional
        For each system, the ``unit``\\ s its values leave out (e.g. test ratings without a
        prediction); systems with 0 are not mentioned.
    unit : str, default "test rating"
        What ``left_out`` counts.
    digits : int, default 3
        Decimals of the numbers stated.

    Returns
    -------
    str
        Markdown: ``## Findings``, bullets and, when one applies, ``**Caveats**``.

    Notes
    -----
    As :func:`findings`: the best system of a row is named only where its value is the best
    (ties shared); when another system's interval reaches the best one's bound, a caveat
    says the ranking there is not settled by the intervals; a row without a value for any
    system is said to be undefined.
    """
    func = "table_findings"
    if not isinstance(results, Mapping) or not results:
        raise InvalidParameterError(
            f"{func}: 'results' must map system names to tables; got "
            f"{describe(results)}.")
    labels = dict(labels or {})
    names = list(results)
    first = next(iter(results.values()))
    centre = "value" if "value" in first.columns else "mean"
    rows = [r for r in first.index if r in better]
    value = pd.DataFrame({n: t[centre].astype(float) for n, t in results.items()}).loc[rows]
    low = pd.DataFrame({n: t["ci_low"].astype(float) for n, t in results.items()}).loc[rows]
    high = pd.DataFrame({n: t["ci_high"].astype(float) for n, t in results.items()}).loc[rows]
    bullets, caveats, unsettled, undefined = [], [], [], []

    def stated(row: str, name: str) -> str:
        return _interval(value.at[row, name], low.at[row, name], high.at[row, name], digits)

    for row in rows:  # one step per measure
        label = labels.get(row, row)
        present = [n for n in names if pd.notna(value.at[row, n])]
        if not present:
            undefined.append(label)
            continue
        missing = [n for n in names if n not in present]
        if missing:
            bullets.append(f"{_cap(label)} is undefined for {_bold(missing)} (0/0 or no user "
                           "with a value).")
        if len(names) == 1:
            bullets.append(f"{_cap(label)} of {_bold(names)}: {stated(row, names[0])}.")
            continue
        if len(present) == 1:
            bullets.append(f"{_cap(label)} of {_bold(present)}: {stated(row, present[0])}.")
            continue
        direction = better[row]
        ordered = sorted(present, key=lambda n: value.at[row, n],
                         reverse=direction != "lower")
        if direction is None:
            top, bottom = ordered[0], ordered[-1]
            bullets.append(f"{_cap(label)} ranges from {value.at[row, bottom]:.{digits}f} "
                           f"({_bold([bottom])}) to {value.at[row, top]:.{digits}f} "
                           f"({_bold([top])}).")
            continue
        best_value = value.at[row, ordered[0]]
        winners = [n for n in present if value.at[row, n] == best_value]
        word = "highest" if direction == "higher" else "lowest"
        if len(winners) > 1:
            bullets.append(f"{_bold(winners)} share the {word} {label} "
                           f"({best_value:.{digits}f}).")
            continue
        best = winners[0]
        bullets.append(f"{_bold([best])} has the {word} {label}: {stated(row, best)}.")
        bound = low.at[row, best] if direction == "higher" else high.at[row, best]
        if np.isfinite(bound):
            near = [n for n in present if n != best and (
                high.at[row, n] >= bound if direction == "higher" else low.at[row, n] <= bound)]
            if near:
                unsettled.append((label, best, near))
    for name, count in (left_out or {}).items():
        if count:
            bullets.append(f"{_bold([name])} leaves out {_n(int(count), unit)} (no value for "
                           "them); its numbers are over the rest.")
    for label, best, near in unsettled:
        caveats.append(f"On {label}, the interval of **{best}** overlaps that of {_bold(near)}: "
                       "the intervals do not settle which is better there.")
    if undefined:
        caveats.append(f"{_join(undefined)} {'are' if len(undefined) > 1 else 'is'} undefined "
                       "for every system here.")
    text = "## Findings\n\n" + "\n".join(f"- {b}" for b in bullets)
    if caveats:
        text += "\n\n**Caveats**\n\n" + "\n".join(f"- {c}" for c in caveats)
    return text


def data_findings(ratings: pd.DataFrame, *, threshold: float | None = 4.0) -> str:
    """The findings the data report opens with: size and density, how concentrated activity
    is on users and items, and how much of it counts as relevant (each computed from
    ``ratings``).

    Parameters
    ----------
    ratings : pandas.DataFrame
        Every interaction: ``user_id, item_id`` and optionally ``rating``.
    threshold : float or None, default 4.0
        An interaction counts as relevant when its rating is at least this; None: every
        interaction.
    """
    from ..explore import summarize

    s = summarize(ratings)
    users, items, rows = int(s["users"]), int(s["items"]), int(s["interactions"])
    bullets = [f"{_n(rows, 'interaction')} of {_n(users, 'user')} on {_n(items, 'item')}: "
               f"{_share(float(s['density']))} of the user-item matrix is filled."]
    per_user = ratings.groupby("user_id").size()
    top = max(1, int(round(0.1 * users)))
    heavy = float(per_user.sort_values(ascending=False).iloc[:top].sum() / rows)
    bullets.append(f"The most active tenth of the users ({_n(top, 'user')}) hold "
                   f"{_share(heavy)} of the interactions; the median user has "
                   f"{int(per_user.median()):,}.")
    once = int((ratings.groupby("item_id").size() == 1).sum())
    bullets.append(f"The most popular tenth of the items hold "
                   f"{_share(float(s['top10pct_items_share']))} of the interactions; "
                   f"{_n(once, 'item')} {'occurs' if once == 1 else 'occur'} only once.")
    if "rating" in ratings.columns and threshold is not None:
        relevant = ratings["rating"].to_numpy() >= threshold
        per_user_relevant = pd.Series(relevant).groupby(ratings["user_id"].to_numpy()).sum()
        chance = float(per_user_relevant.mean() / items)
        bullets.append(f"{_share(float(relevant.mean()))} of the interactions are rated at "
                       f"least {threshold:g} (relevant in the reports that follow). That is not "
                       "what a random list would hit: an item drawn at random from the "
                       f"{_n(items, 'item')} is one of the user's relevant items with "
                       f"probability {_share(chance)} on average.")
    else:
        bullets.append("Every interaction counts as relevant (no rating threshold).")
    return "## Findings\n\n" + "\n".join(f"- {b}" for b in bullets)


_SPLIT_WORDING = {
    "test_pairs_in_train": "LEAK: {test_rows} ({share}) repeat a training pair",
    "dev_pairs_in_train": "LEAK: {dev_rows} ({share}) repeat a training pair",
    "test_pairs_in_dev": "LEAK: {test_rows} ({share}) repeat a dev pair",
    "duplicate_pairs_train": "{pairs} repeated in training ({share})",
    "duplicate_pairs_test": "{pairs} repeated in the test set ({share})",
    "cold_users": "{test_users} ({share}) without a training interaction",
    "cold_items": "{test_items} ({share}) new to training",
    "user_time_leakage": "{share} of the training rows come after the same user's first test "
                         "interaction",
    "global_time_leakage": "{share} of the training rows come after the earliest test "
                           "interaction",
}


#: What each audit check is, in a few words, for the index's one line per split.
_SPLIT_SHORT = {
    "test_pairs_in_train": "test pairs repeat training pairs",
    "dev_pairs_in_train": "dev pairs repeat training pairs",
    "test_pairs_in_dev": "test pairs repeat dev pairs",
    "duplicate_pairs_train": "pairs repeated in training",
    "duplicate_pairs_test": "pairs repeated in the test set",
    "cold_users": "test users new to training",
    "cold_items": "test items new to training",
    "user_time_leakage": "training rows after the user's first test interaction",
    "global_time_leakage": "training rows after the earliest test interaction",
}


def split_headline(splits: Mapping[str, object]) -> dict[str, str]:
    """The splitting report's headline: for each split, in words, what its audit finds:
    repeated pairs across train and test (the leaks) and the hazards with their shares, e.g.
    ``{"random split": "no repeated pair; test items new to training 2.5%, ..."}``.

    Parameters
    ----------
    splits : mapping of str to evalkit.split.Split
        The splits by name (:func:`make_splits`); a :class:`Splits` gives its audits, computed
        once.
    """
    from ..split import audit as audit_split

    out = {}
    for name, split in splits.items():  # one step per split strategy
        audit = splits.audit(name) if hasattr(splits, "audit") else audit_split(split)
        found = audit[audit["count"].astype(int) > 0]
        said = [f"{_SPLIT_SHORT.get(r.check, r.check.replace('_', ' '))} {_share(r.share)}"
                for r in found.itertuples(index=False)]
        leaks = found["severity"].eq("leak").any()
        out[f"{name.replace('_', ' ')} split"] = "; ".join(
            (["LEAKS"] if leaks else ["no repeated pair"]) + said)
    return out


def split_findings(splits: Mapping[str, object]) -> str:
    """The findings the splitting report opens with: for each split, its size and what its
    audit (:func:`evalkit.audit`) finds (leaks, cold users and items, time order), a caveat
    naming the splits that leak, and, for :func:`make_splits`' splits of a sample of users,
    what was drawn. The audits of a :class:`Splits` are its own, computed once.

    Parameters
    ----------
    splits : mapping of str to evalkit.split.Split
        The splits by name (:func:`make_splits`); a :class:`Splits` gives its audits, computed
        once.
    """
    from ..split import audit as audit_split

    bullets, leaking = [], []
    for name, split in splits.items():  # one step per split strategy
        audit = splits.audit(name) if hasattr(splits, "audit") else audit_split(split)
        train, test = len(split.train), len(split.test)
        found = []
        for _, row in audit[audit["count"].astype(int) > 0].iterrows():  # per audit check
            wording = _SPLIT_WORDING.get(row["check"], row["check"] + ": {count}")
            count = int(row["count"])
            found.append(wording.format(
                count=f"{count:,}", share=_share(float(row["share"])),
                test_rows=_n(count, "test row"), dev_rows=_n(count, "dev row"),
                pairs=_n(count, "pair"), test_users=_n(count, "test user"),
                test_items=_n(count, "test item")))
        leaks = audit[audit["severity"].eq("leak")]["count"].astype(int).sum()
        if leaks:
            leaking.append(name)
        tail = "; ".join(found) if found else "the audit finds nothing to report"
        bullets.append(f"**{name}**: {_share(test / max(train + test, 1))} of "
                       f"{_n(train + test, 'row')} held out; "
                       f"{'no leak; ' if not leaks else ''}{tail}.")
    text = "## Findings\n\n" + "\n".join(f"- {b}" for b in bullets)
    sample = getattr(splits, "sample", None)
    if sample:
        made = [name for name in splits if name != "given"]
        text += (f"\n\n{_bold(made)} split a seeded sample of {sample['users']:,} of the "
                 f"{sample['of_users']:,} users ({sample['rows']:,} of {sample['of_rows']:,} "
                 f"interactions, every interaction of each user drawn): the data has more "
                 f"than {sample['max_rows']:,} interactions, and strategies compare as well "
                 "on a sample of users, at a fraction of the time and memory"
                 + ("; your own split is audited whole." if "given" in splits else ".")
                 + " The other pages use all the data.")
    text += ("\n\nNew test items cannot be recommended by a model that learns from training "
             "items, and users without a training interaction get no personal list; time "
             "order matters when the question is predicting the future.")
    if leaking:
        text += ("\n\n**Caveats**\n\n- " + _bold(leaking) + " leak test answers into "
                 "training: their scores overstate what a model would do on unseen "
                 "interactions.")
    return text
