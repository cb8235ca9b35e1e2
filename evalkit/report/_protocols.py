"""Would another protocol change the verdict? The model comparison's section on sampled
candidates (full ranking, naive sampled, corrected) and popularity-debiased metrics."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._docstrings import fill_doc
from ._docs import REPORT_DOCS

__all__ = ["ProtocolCheck", "protocol_check", "protocol_note", "protocol_table"]

#: The users a report's protocol section ranks every catalog item for, at most (seeded): the
#: full ranking scores users x catalogue pairs, and the section must stay cheap.
MAX_USERS = 300


@dataclass
class ProtocolCheck:
    """What :func:`protocol_check` found: ``sampled`` (scheme -> :class:`SamplingComparison`
    of the baselines), ``debiased`` (:func:`evalkit.protocols.debiased.gamma_sensitivity` of
    every system), and how it was computed.

    Attributes
    ----------
    sampled : dict of str to evalkit.protocols.sampled.SamplingComparison
        By scheme: the baselines' values over the full ranking, with sampled negatives and
        corrected; empty without a baseline.
    debiased : pandas.DataFrame or None
        :func:`evalkit.protocols.debiased.gamma_sensitivity` of every system; None without a
        system or a relevant test item.
    metric : str
        The metric of the sampled protocol: the report's, or ``"ndcg"`` for a metric the
        correction does not take.
    k : int
        The cutoff.
    n_negatives : int
        Sampled negatives per held-out relevant item.
    users : int
        Test users with a relevant item.
    sampled_users : int or None
        The users the sampled protocol ran on (at most ``max_users``); None when it did not
        run.
    debiased_metric : str
        The metric of the debiased protocol: ``"recall"`` or ``"dcg"``.
    unscored : list of str
        The systems that are not baselines (recommendation files): they cannot score sampled
        candidates.
    alpha : float, default 0.05
        Family-wise level of the debiased lead's simultaneous intervals.
    """

    sampled: dict
    debiased: pd.DataFrame | None
    metric: str
    k: int
    n_negatives: int
    users: int
    sampled_users: int | None
    debiased_metric: str
    unscored: list = field(default_factory=list)
    alpha: float = 0.05


@fill_doc(REPORT_DOCS)
def protocol_check(inputs: object, systems: Mapping[str, pd.DataFrame], baselines: Sequence[str],
                   *, k: int, metric: str, n_negatives: int = 100,
                   schemes: Sequence[str] = ("uniform", "popularity"),
                   threshold: float | None = 4.0, seed: int = 0,
                   max_users: int = MAX_USERS, alpha: float = 0.05) -> ProtocolCheck | None:
    """The report's protocol section: for the ``baselines`` (fitted again on the training
    data, the systems that can score any candidate), ``metric@k`` over the full ranking, with
    ``n_negatives`` sampled negatives per held-out relevant item (each scheme), and corrected
    (EM for uniform negatives, the Horvitz-Thompson rank for popularity-sampled ones), on at
    most ``max_users`` users (seeded); and for every system, SNIPS recall (or DCG) at ``k``
    across the assumed popularity bias, the best system's paired lead over the second with
    intervals simultaneous over the biases at family-wise level ``alpha`` (``ALPHA``;
    Bonferroni). None when ``n_negatives`` is 0.

    Parameters
    ----------
    %(inputs)s
    %(systems)s
    baselines : sequence of str
        The baselines (:data:`evalkit.models.MODELS`), fitted again on the training data, whose
        scores the sampled protocol needs.
    k : int
        The cutoff.
    metric : str
        The ranking metric (its registry name).
    n_negatives : int, default 100
        Sampled negatives per held-out relevant item; 0: no check (None is returned).
    schemes : sequence of str, default ("uniform", "popularity")
        How the negatives are drawn (:data:`evalkit.protocols.sampled.SCHEMES`).
    %(threshold)s
    seed : int, default 0
        Seed of the users drawn, the negatives, the ``Random`` baseline and the bootstrap.
    max_users : int, default MAX_USERS
        At most this many users (drawn with ``seed``) in the sampled protocol.
    alpha : float, default 0.05
        Family-wise level of the debiased lead's simultaneous intervals.
    """
    from ..metrics import RANKING_METRICS
    from ..models import MODELS
    from ..protocols.debiased import DECOMPOSABLE, gamma_sensitivity
    from ..protocols.sampled import compare_sampling

    if not n_negatives:
        return None
    test, train = inputs.test, inputs.train
    relevant = test if threshold is None else test[test["rating"] >= threshold]
    sampled_metric = metric if RANKING_METRICS[metric].per_rank is not None else "ndcg"
    users = np.sort(pd.unique(relevant["user_id"]))  # the choice below: by id, not row order
    chosen = users
    if len(users) > max_users:
        chosen = np.random.default_rng(seed).choice(users, max_users, replace=False)
    held = relevant[relevant["user_id"].isin(chosen)]
    models = {name: (MODELS[name](rng=seed) if name == "Random" else MODELS[name]()).fit(train)
              for name in baselines}
    sampled = {}
    if models and len(held):  # one full ranking for every scheme
        sampled = compare_sampling(
            models, held, train, metric=sampled_metric, k=k, n_negatives=n_negatives,
            scheme=list(schemes), estimator={"uniform": "em", "popularity": "ht"},
            seeds=(seed,), n_resamples=100)
    debiased_metric = metric if metric in ("recall", "dcg") else "recall"
    if DECOMPOSABLE[debiased_metric] == "one":
        debiased_metric = "recall"
    gammas = (-1.0, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0)
    debiased = gamma_sensitivity(systems, test, train, gammas=gammas, metric=debiased_metric,
                                 k=k, threshold=threshold, n_resamples=100, rng=seed,
                                 lead_confidence=1 - alpha / len(gammas)) \
        if systems and len(relevant) else None
    return ProtocolCheck(sampled=sampled, debiased=debiased, metric=sampled_metric, k=k,
                         n_negatives=n_negatives, users=len(users),
                         sampled_users=len(chosen) if sampled else None,
                         debiased_metric=debiased_metric,
                         unscored=[n for n in systems if n not in models], alpha=alpha)


#: How each scheme's sampled ranks are corrected, as the section names it.
_CORRECTION = {"uniform": "EM", "popularity": "Horvitz-Thompson"}


def protocol_table(check: ProtocolCheck | None, *, digits: int = 4) -> pd.DataFrame | None:
    """One row per baseline: the full-ranking value, and per scheme the naive sampled value,
    how many times the full one it is, and the corrected value with its interval.

    Parameters
    ----------
    check : ProtocolCheck or None
        What :func:`protocol_check` found; None when the check is off.
    digits : int, default 4
        Decimals shown.
    """
    if check is None or not check.sampled:
        return None
    first = next(iter(check.sampled.values()))
    out = pd.DataFrame({"full ranking": first.table["full"].round(digits)})
    for scheme, comparison in check.sampled.items():
        t = comparison.table
        out[f"{scheme}: sampled"] = t["naive"].round(digits)
        out[f"{scheme}: sampled / full"] = (t["naive"] / t["full"].where(t["full"] > 0)
                                            ).round(1)
        out[f"{scheme}: corrected ({_CORRECTION.get(scheme, 'corrected')})"] = [
            f"{v:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]" if np.isfinite(lo)
            else f"{v:.{digits}f}" for v, lo, hi in
            zip(t["corrected"], t["corrected_low"], t["corrected_high"])]
    return out


def _order(table: pd.DataFrame, column: str) -> str:
    ranked = table.sort_values(f"rank_{column}")
    return " > ".join(ranked.index.astype(str))


def _interval(value: float, low: float, high: float) -> str:
    return (f"{value:.4f} [{low:.4f}, {high:.4f}]" if np.isfinite(low) and np.isfinite(high)
            else f"{value:.4f}")


def _sampled_part(check: ProtocolCheck, scheme: str, comparison, label: str) -> str:
    """One scheme's bullet: how far the sampled value is from the full one, what the
    correction gives, and (with two baselines or more) whether the order of their means
    changes."""
    t = comparison.table
    how = _CORRECTION.get(scheme, "the")
    ratio = (t["naive"] / t["full"]).replace([np.inf, -np.inf], np.nan).dropna()
    if len(t) == 1:
        name, row = t.index[0], t.iloc[0]
        size = (f"{ratio.iloc[0]:.1f} times" if len(ratio) else "not comparable with")
        return (f"- **{check.n_negatives} {scheme} negatives** per held-out item: "
                f"{name}'s sampled {label} is {row['naive']:.4f}, {size} its full-ranking "
                f"value {row['full']:.4f}; the {how} correction gives "
                f"{_interval(row['corrected'], row['corrected_low'], row['corrected_high'])}"
                ".")
    size = (f"{ratio.min():.1f} to {ratio.max():.1f} times" if len(ratio) > 1
            else f"{ratio.iloc[0]:.1f} times" if len(ratio) else "not comparable with")
    if t["full"].nunique() == 1:
        return (f"- **{check.n_negatives} {scheme} negatives** per held-out item: the sampled "
                f"{label} is {size} the full-ranking value; the baselines' full-ranking "
                f"values are all {t['full'].iloc[0]:.4f}, so there is no order to keep or "
                "change.")
    same = t["rank_naive"].equals(t["rank_full"])
    tau = comparison.tau["naive"]
    tau_text = f"; Kendall's tau {tau:.2f}" if np.isfinite(tau) else ""
    flips = comparison.flips
    verdict = (f"the highest mean changes from {comparison.winner['full']}'s (full ranking) "
               f"to {comparison.winner['naive']}'s" if flips["naive"]
               else f"{comparison.winner['full']} has the highest mean under both")
    restored = ("" if not flips["naive"] else
                f"; the {how} correction names {comparison.winner['corrected']}"
                + (" again" if not flips["corrected"] else ", not the full ranking's"))
    return (f"- **{check.n_negatives} {scheme} negatives** per held-out item: the sampled "
            f"{label} is {size} the full-ranking value; the order of the baselines' means is "
            f"{'the same' if same else 'different'} ({_order(t, 'naive')} sampled, "
            f"{_order(t, 'full')} full{tau_text}), and {verdict}{restored}.")


def _table_verdict(comparison: pd.DataFrame | None, pair: tuple[str, str], column: str
                   ) -> tuple[bool, str] | None:
    """The paired table's verdict on ``pair`` (either way round) for ``column``: whether the
    difference is significant, and its Holm-adjusted p-value as the table prints it; None
    when the table does not hold that pair and metric."""
    from .._display import format_pvalue

    if comparison is None or "against" not in comparison:
        return None
    rows = comparison[(comparison["column"] == column) & (
        ((comparison["system"] == pair[0]) & (comparison["against"] == pair[1]))
        | ((comparison["system"] == pair[1]) & (comparison["against"] == pair[0])))]
    if rows.empty or not np.isfinite(rows["permutation_pvalue_holm"].iloc[0]):
        return None
    row = rows.iloc[0]
    return bool(row["significant"]), format_pvalue(row["permutation_pvalue_holm"],
                                                   at_floor=bool(row["p_at_floor"]))


def _debiased_part(check: ProtocolCheck, comparison: pd.DataFrame | None = None) -> str:
    """The debiased paragraph: one system's values across gamma, or with several which system
    is best at each gamma and whether its paired lead over the second is established: at
    gamma -1 (the ordinary metric) by the paired table's verdict on the same pair and metric
    where the table has it, elsewhere by the lead's simultaneous interval."""
    from ..metrics import RANKING_METRICS

    d = check.debiased
    label = RANKING_METRICS[check.debiased_metric].column_label(check.k)
    gammas = np.sort(d["gamma"].unique())
    span = f"gamma {gammas.min():g} (no bias) to {gammas.max():g}"
    if d["system"].nunique() == 1:
        name = d["system"].iloc[0]
        values = d.sort_values("gamma")["value"]
        return (f"Debiased, {name}'s SNIPS {label} goes from {values.iloc[0]:.4f} to "
                f"{values.iloc[-1]:.4f} across the assumed bias, {span} (one system: no "
                "order to compare).")
    best = d.drop_duplicates("gamma").sort_values("gamma").reset_index(drop=True)
    established = (best["lead_ci_low"] > 0).to_numpy().copy()
    table_says = ""
    plain = np.flatnonzero(best["gamma"].to_numpy() == -1)
    if len(plain):
        at = plain[0]
        first = d[d["gamma"] == -1].sort_values("rank", kind="stable")["system"].tolist()
        verdict = _table_verdict(comparison, (first[0], first[1]),
                                 f"{check.debiased_metric}@{check.k}")
        if verdict is not None:
            established[at] = verdict[0]
            table_says = (f" At gamma -1 this is the ordinary {label}, and the verdict is the "
                          f"paired table's for {first[0]} and {first[1]} (p (Holm) "
                          f"{verdict[1]}: {'significant' if verdict[0] else 'not significant'}"
                          "); at the other biases, the lead's paired interval, simultaneous "
                          f"over the {len(best)} biases (Bonferroni, family-wise level "
                          f"{check.alpha:g}).")
    if not table_says:
        table_says = (f" The lead's paired intervals are simultaneous over the {len(best)} "
                      f"biases (Bonferroni, family-wise level {check.alpha:g}).")
    unsure = best[~established]
    if unsure.empty:
        evidence = ("at every gamma the best system's lead over the second is established "
                    "by paired evidence")
    elif len(unsure) == len(best):
        evidence = ("at no gamma is the best system's lead over the second established by "
                    "paired evidence")
    else:
        evidence = (f"at {len(unsure)} of the {len(best)} biases (gamma "
                    f"{', '.join(f'{g:g}' for g in unsure['gamma'])}) the best system's lead "
                    "over the second is not established by paired evidence")
    paired = (f"{table_says} The lead is paired over the users both are evaluated for, as "
              "the paired tests above are, so it can be clear where the two systems' own "
              "intervals overlap.")
    if best["best"].nunique() == 1:
        return (f"Under popularity debiasing (SNIPS {label}), {best['best'].iloc[0]} has the "
                f"highest mean at every assumed bias, {span}; {evidence}.{paired}")
    runs = []  # consecutive gammas with the same best system
    for row in best.itertuples():
        if runs and runs[-1][0] == row.best:
            runs[-1][2] = row.gamma
        else:
            runs.append([row.best, row.gamma, row.gamma])
    changes = "; ".join(f"{name} at gamma {low:g}" if low == high
                        else f"{name} from gamma {low:g} to {high:g}"
                        for name, low, high in runs)
    return (f"Under popularity debiasing (SNIPS {label}) the system with the highest mean "
            f"depends on the assumed bias: {changes}. Which gamma holds is an assumption "
            f"about how the test data were observed; {evidence}.{paired}")


def protocol_note(check: ProtocolCheck | None, comparison: pd.DataFrame | None = None) -> str:
    """The section's findings, computed from :func:`protocol_check`'s results: a statement
    about the order of systems only where there are two or more to order, and a statement
    about an order established only from paired evidence: for the ordinary metric, the
    verdict of the paired ``comparison`` table (:func:`compare_systems`) on the same pair and
    metric, so that the page gives one answer per pair.

    Parameters
    ----------
    check : ProtocolCheck or None
        What :func:`protocol_check` found; None when the check is off.
    comparison : pandas.DataFrame or None, optional
        The paired comparison (:func:`compare_systems`), whose verdict on the same pair and
        metric the note gives.
    """
    if check is None:
        return ("The protocol check is off (`SAMPLED_NEGATIVES` is 0).")
    from ..metrics import RANKING_METRICS

    label = RANKING_METRICS[check.metric].column_label(check.k)
    parts = []
    if not check.sampled:
        parts.append("No baseline can score sampled candidates here (`BASELINES` is empty), "
                     "so the sampled protocol is not shown.")
    for scheme, sampling in check.sampled.items():
        parts.append(_sampled_part(check, scheme, sampling, label))
    if check.sampled and len(next(iter(check.sampled.values())).table) == 1:
        parts.append("With one baseline there is no order of baselines to compare.")
    if check.sampled:
        parts.append("In the table, *sampled / full* is how many times the full-ranking value "
                     "the sampled one is; *corrected* estimates the full-ranking value from the "
                     "sampled ranks: EM (Jin et al., AAAI 2021) estimates how the held-out "
                     "items' ranks among all items are distributed, and Horvitz-Thompson "
                     "weights each popularity-drawn negative by the inverse of its chance of "
                     "being drawn; the interval resamples users. The full-ranking value ranks "
                     "each held-out relevant item on its own among every item its user has not "
                     "interacted with (one positive at a time, as the sampled protocol ranks "
                     f"it): another number than the {label} of the tables above, which "
                     "scores a user's list against all of the user's relevant items at once.")
        if any("Kendall's tau" in p for p in parts):
            parts.append("Kendall's tau is the rank correlation of the baselines' order under "
                         "the sampled protocol with their order under the full ranking: 1 when "
                         "the orders agree, -1 when one reverses the other.")
    if check.sampled_users is not None and check.sampled_users < check.users:
        parts.append(f"The sampled protocol is computed on {check.sampled_users:,} of the "
                     f"{check.users:,} test users with a relevant item (seeded), since the full "
                     "ranking scores every catalogue item for each.")
    if check.unscored:
        parts.append(f"Your systems ({', '.join(check.unscored)}) are lists, which cannot rank "
                     "sampled candidates: `evalkit sample-candidates` writes the candidates "
                     "for your model to score.")
    if check.debiased is not None:
        parts.append(_debiased_part(check, comparison))
    bullets = "\n".join(p for p in parts if p.startswith("- "))
    rest = [p for p in parts if not p.startswith("- ")]
    return "\n\n".join([bullets] * bool(bullets) + rest)
