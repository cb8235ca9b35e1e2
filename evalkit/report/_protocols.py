"""Would another protocol change the verdict? The model comparison's section on sampled
candidates (full ranking, naive sampled, corrected) and popularity-debiased metrics."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

__all__ = ["ProtocolCheck", "protocol_check", "protocol_note", "protocol_table"]

#: The users a report's protocol section ranks every catalog item for, at most (seeded): the
#: full ranking scores users x catalogue pairs, and the section must stay cheap.
MAX_USERS = 300


@dataclass
class ProtocolCheck:
    """What :func:`protocol_check` found: ``sampled`` (scheme -> :class:`SamplingComparison`
    of the baselines), ``debiased`` (:func:`evalkit.metrics.debiased.gamma_sensitivity` of
    every system), and how it was computed."""

    sampled: dict
    debiased: pd.DataFrame | None
    metric: str
    k: int
    n_negatives: int
    users: int
    sampled_users: int | None
    debiased_metric: str
    unscored: list = field(default_factory=list)


def protocol_check(inputs: object, systems: Mapping[str, pd.DataFrame], baselines: Sequence[str],
                   *, k: int, metric: str, n_negatives: int = 100,
                   schemes: Sequence[str] = ("uniform", "popularity"),
                   threshold: float | None = 4.0, seed: int = 0,
                   max_users: int = MAX_USERS) -> ProtocolCheck | None:
    """The report's protocol section: for the ``baselines`` (fitted again on the training
    data, the systems that can score any candidate), ``metric@k`` over the full ranking, with
    ``n_negatives`` sampled negatives per held-out relevant item (each scheme), and corrected
    (EM for uniform negatives, the Horvitz-Thompson rank for popularity-sampled ones), on at
    most ``max_users`` users (seeded); and for every system, SNIPS recall (or DCG) at ``k``
    across the assumed popularity bias. None when ``n_negatives`` is 0."""
    from ..metrics import RANKING_METRICS
    from ..metrics.debiased import DECOMPOSABLE, gamma_sensitivity
    from ..metrics.sampled import compare_sampling
    from ..models import MODELS

    if not n_negatives:
        return None
    test, train = inputs.test, inputs.train
    relevant = test if threshold is None else test[test["rating"] >= threshold]
    sampled_metric = metric if RANKING_METRICS[metric].per_rank is not None else "ndcg"
    users = pd.unique(relevant["user_id"])
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
    debiased = gamma_sensitivity(systems, test, train, metric=debiased_metric, k=k,
                                 threshold=threshold, n_resamples=100, rng=seed) \
        if systems and len(relevant) else None
    return ProtocolCheck(sampled=sampled, debiased=debiased, metric=sampled_metric, k=k,
                         n_negatives=n_negatives, users=len(users),
                         sampled_users=len(chosen) if sampled else None,
                         debiased_metric=debiased_metric,
                         unscored=[n for n in systems if n not in models])


def protocol_table(check: ProtocolCheck | None, *, digits: int = 4) -> pd.DataFrame | None:
    """One row per baseline: the full-ranking value, and per scheme the naive sampled value,
    how many times the full one it is, and the corrected value with its interval."""
    if check is None or not check.sampled:
        return None
    first = next(iter(check.sampled.values()))
    out = pd.DataFrame({"full ranking": first.table["full"].round(digits)})
    for scheme, comparison in check.sampled.items():
        t = comparison.table
        out[f"{scheme}: sampled"] = t["naive"].round(digits)
        out[f"{scheme}: x full"] = (t["naive"] / t["full"].where(t["full"] > 0)).round(1)
        out[f"{scheme}: corrected"] = [
            f"{v:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]" if np.isfinite(lo)
            else f"{v:.{digits}f}" for v, lo, hi in
            zip(t["corrected"], t["corrected_low"], t["corrected_high"])]
    return out


def _order(table: pd.DataFrame, column: str) -> str:
    ranked = table.sort_values(f"rank_{column}")
    return " > ".join(ranked.index.astype(str))


def protocol_note(check: ProtocolCheck | None) -> str:
    """The section's findings, computed from :func:`protocol_check`'s results."""
    if check is None:
        return ("The protocol check is off (`SAMPLED_NEGATIVES` is 0).")
    from ..metrics import RANKING_METRICS

    label = RANKING_METRICS[check.metric].column_label(check.k)
    parts = []
    if not check.sampled:
        parts.append("No baseline can score sampled candidates here (`BASELINES` is empty), "
                     "so the sampled protocol is not shown.")
    for scheme, comparison in check.sampled.items():
        t = comparison.table
        ratio = (t["naive"] / t["full"]).replace([np.inf, -np.inf], np.nan).dropna()
        size = (f"{ratio.min():.1f} to {ratio.max():.1f} times" if len(ratio) > 1
                else f"{ratio.iloc[0]:.1f} times" if len(ratio) else "not comparable with")
        how = "EM correction" if scheme == "uniform" else "Horvitz-Thompson correction"
        flips = comparison.flips
        verdict = (f"the winner changes from {comparison.winner['full']} (full ranking) to "
                   f"{comparison.winner['naive']}" if flips["naive"]
                   else f"the winner stays {comparison.winner['full']}")
        restored = ("" if not flips["naive"] else
                    f"; the {how} names {comparison.winner['corrected']}"
                    + (" again" if not flips["corrected"] else ", not the full ranking's"))
        same = t["rank_naive"].equals(t["rank_full"])
        parts.append(
            f"- **{check.n_negatives} {scheme} negatives** per held-out item: the sampled "
            f"{label} is {size} the full-ranking value; the order of the baselines is "
            f"{'the same' if same else 'different'} ({_order(t, 'naive')} sampled, "
            f"{_order(t, 'full')} full; Kendall's tau {comparison.tau['naive']:.2f}), and "
            f"{verdict}{restored}.")
    if check.sampled_users is not None and check.sampled_users < check.users:
        parts.append(f"The sampled protocol is computed on {check.sampled_users:,} of the "
                     f"{check.users:,} test users with a relevant item (seeded), since the full "
                     "ranking scores every catalogue item for each.")
    if check.unscored:
        parts.append(f"Your systems ({', '.join(check.unscored)}) are lists, which cannot rank "
                     "sampled candidates: `evalkit sample-candidates` writes the candidates "
                     "for your model to score.")
    if check.debiased is not None:
        d = check.debiased
        best = d.drop_duplicates("gamma")[["gamma", "best"]]
        label_d = RANKING_METRICS[check.debiased_metric].column_label(check.k)
        if best["best"].nunique() == 1:
            parts.append(f"Under popularity debiasing (SNIPS {label_d}, propensity growing with "
                         "training popularity), the best system is "
                         f"{best['best'].iloc[0]} at every assumed bias from gamma "
                         f"{best['gamma'].min():g} (none) to {best['gamma'].max():g}.")
        else:
            runs = []  # consecutive gammas with the same best system
            for row in best.sort_values("gamma").itertuples():
                if runs and runs[-1][0] == row.best:
                    runs[-1][2] = row.gamma
                else:
                    runs.append([row.best, row.gamma, row.gamma])
            changes = "; ".join(f"{name} at gamma {low:g}" if low == high
                                else f"{name} from gamma {low:g} to {high:g}"
                                for name, low, high in runs)
            overlap = [g for g, rows in d.groupby("gamma") if len(rows) > 1 and (
                lambda top: top.iloc[1]["ci_high"] >= top.iloc[0]["ci_low"])(
                    rows.sort_values("rank"))]
            unsure = (f" At {len(overlap)} of the {d['gamma'].nunique()} biases the intervals "
                      "of the two best systems overlap, so their order there is not "
                      "established." if overlap else "")
            parts.append(f"Under popularity debiasing (SNIPS {label_d}, propensity growing with "
                         "training popularity) the best system depends on the assumed bias: "
                         f"{changes}. Gamma -1 is no bias (the ordinary metric); which gamma "
                         f"holds is an assumption about how the test data were observed.{unsure}")
    bullets = "\n".join(p for p in parts if p.startswith("- "))
    rest = [p for p in parts if not p.startswith("- ")]
    return "\n\n".join([bullets] * bool(bullets) + rest)
