"""Full, sampled and corrected metrics of several systems side by side: :func:`compare_sampling`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.special
import scipy.stats

from ..._checks import (
    check_choice,
    check_columns,
    check_rng,
)
from ..._errors import InvalidParameterError
from ..._resample import quantile_interval
from ...metrics import RANKING_METRICS
from ._draw import SCHEMES, sample_negatives
from ._estimate import _per_rank, corrected_metric, sampled_metric
from ._rank import sampled_ranks


@dataclass(frozen=True)
class SamplingComparison:
    """The result of :func:`compare_sampling`.

    Attributes
    ----------
    table : pd.DataFrame
        One row per system (index ``system``): ``full`` (the metric over every allowed item),
        ``naive`` (the sampled metric, mean over the seeds) with ``naive_sd`` (its spread over
        them), ``corrected`` (the estimator's value, mean over the seeds) with
        ``corrected_sd`` and ``corrected_low``/``corrected_high`` (the user-bootstrap interval
        of that mean: every seed resamples the same users in a replicate), and the rank of the
        system under each (``rank_full``, ``rank_naive``, ``rank_corrected``; 1 = best).
    per_seed : pd.DataFrame
        ``system``, ``seed``, ``naive``, ``corrected`` for every seed.
    tau : dict
        Kendall's tau between the full order and the naive (``"naive"``) and corrected
        (``"corrected"``) ones.
    winner : dict
        The best system under ``"full"``, ``"naive"`` and ``"corrected"``.
    flips : dict
        Whether the naive and the corrected protocols name another winner than the full
        ranking.
    label : str
        The metric and the protocol, for titles.
    """

    table: pd.DataFrame
    per_seed: pd.DataFrame
    tau: dict
    winner: dict
    flips: dict
    label: str

    def __repr__(self) -> str:
        return (f"{self.label}\n{self.table.round(4).to_string()}\nKendall tau with the full "
                f"order: naive {self.tau['naive']:.2f}, corrected {self.tau['corrected']:.2f}; "
                f"winner: full {self.winner['full']}, naive {self.winner['naive']}, corrected "
                f"{self.winner['corrected']}.")


def compare_sampling(
    systems: dict,
    truth: pd.DataFrame,
    train: pd.DataFrame | None,
    *,
    metric: str = "ndcg",
    k: int = 10,
    n_negatives: int = 100,
    scheme: str | Sequence[str] = "uniform",
    per: str = "positive",
    estimator: str | dict = "em",
    seeds: tuple[int, ...] | list[int] = (0, 1, 2),
    catalog: object = None,
    confidence: float = 0.95,
    n_resamples: int = 200,
) -> SamplingComparison | dict:
    """Would the sampled protocol change the verdict? Each system's metric over the full
    ranking, as papers report it with sampled negatives, and corrected.

    Parameters
    ----------
    systems : dict of str to model or pd.DataFrame
        Each system: a fitted model with ``score(pairs)`` (every evalkit baseline), or a frame
        of ``user_id, item_id, score`` for every pair of the user and every catalog item.
    truth : pd.DataFrame
        The held-out interactions, as for :func:`sample_negatives`.
    train : pd.DataFrame or None
        Training interactions, as for :func:`sample_negatives`.
    catalog : array-like, optional
        The items to draw from, as for :func:`sample_negatives`.
    metric : str, default "ndcg"
        As for :func:`corrected_metric`.
    k : int, default 10
        The cutoff.
    estimator : {"em", "bv", "cls", "ht"} or dict, default "em"
        As for :func:`corrected_metric` (``estimator="ht"`` with ``scheme="popularity"``); a
        dict maps each scheme to its estimator.
    n_negatives : int, default 100
        The sampled protocol (RecBole's ``uni100``: the defaults of these three): negatives
        drawn per positive or per user, as for :func:`sample_negatives`.
    scheme : {"uniform", "popularity"} or sequence of them, default "uniform"
        How the negatives are drawn. Several schemes (``scheme=["uniform", "popularity"]``)
        share the full ranking and give a dict of results by scheme.
    per : {"positive", "user"}, default "positive"
        Negatives drawn for each positive, or pooled per user.
    seeds : sequence of int, default (0, 1, 2)
        Seeds of the sampling; the naive and corrected values are averaged over them, and
        the first seed's bootstrap gives the interval.
    confidence : float, default 0.95
        Level of the corrected value's user-bootstrap interval.
    n_resamples : int, default 200
        Bootstrap resamples.

    Returns
    -------
    SamplingComparison
        ``table``, ``per_seed``, ``tau``, ``winner``, ``flips``.

    Notes
    -----
    The full metric ranks each held-out item among every item the user may be ranked against
    (the catalog less the user's training and other held-out items), from the same scores,
    so the three numbers differ only by the protocol. It scores users x catalog pairs: for
    large catalogues, a sample of users.
    """
    func = "compare_sampling"
    if not isinstance(systems, dict) or not systems:
        raise ValueError(f"{func}: 'systems' must map names to fitted models or score frames; "
                         f"got {type(systems).__name__}.")
    if not seeds:
        raise ValueError(f"{func}: 'seeds' must hold at least one seed.")
    for i, seed in enumerate(seeds):
        check_rng(seed, func=func, arg=f"seeds[{i}]")
    metric = _per_rank(metric, func=func).name

    def scored(system: object, pairs: pd.DataFrame) -> np.ndarray:
        """The system's score of each pair, in the pairs' order."""
        if not isinstance(system, pd.DataFrame) and callable(getattr(system, "score", None)):
            return system.score(pairs)["score"].to_numpy(np.float64)
        if isinstance(system, pd.DataFrame):
            check_columns(system, func=func, arg="systems[...]",
                          required=["user_id", "item_id", "score"])
            given = system[["user_id", "item_id", "score"]].drop_duplicates(
                ["user_id", "item_id"])
            return pairs.merge(given, on=["user_id", "item_id"], how="left")[
                "score"].to_numpy(np.float64)
        raise InvalidParameterError(
            f"{func}: each system must be a fitted model with score(pairs) or a "
            f"frame of scores; got {type(system).__name__}.")

    schemes = [scheme] if isinstance(scheme, str) else list(scheme)
    for name in schemes:
        check_choice(name, func=func, arg="scheme", choices=SCHEMES)
    estimators = {name: estimator.get(name, "em") if isinstance(estimator, dict) else estimator
                  for name in schemes}
    # the full ranking: each user's allowed items once (a positive's rank among them is the
    # same whichever positive's group it is in)
    everything = sample_negatives(truth, train, n_negatives="all", per="user", catalog=catalog)
    draws = {(name, seed): sample_negatives(truth, train, n_negatives=n_negatives, scheme=name,
                                            per=per, catalog=catalog, rng=seed)
             for name in schemes for seed in seeds}
    # every sampled candidate is among all of them: score each pair once, look the rest up
    users, items = pd.Index(pd.unique(everything["user_id"])), pd.Index(
        pd.unique(everything["item_id"]))

    def keys(frame: pd.DataFrame) -> np.ndarray:
        return (users.get_indexer(frame["user_id"]).astype(np.int64) * len(items)
                + items.get_indexer(frame["item_id"]))

    all_keys = keys(everything)
    order = np.argsort(all_keys, kind="stable")
    sorted_keys = all_keys[order]
    located = {key: order[np.searchsorted(sorted_keys, keys(c))] for key, c in draws.items()}
    pairs = everything[["user_id", "item_id"]]
    rows: dict[str, list] = {name: [] for name in schemes}
    table: dict[str, dict] = {name: {} for name in schemes}
    for system_name, system in systems.items():
        score = scored(system, pairs)
        full_ranks = sampled_ranks(everything.assign(score=score))
        full = float(sampled_metric(full_ranks, metric=metric, k=k).mean())
        for name in schemes:
            replicates = []
            for seed in seeds:
                ranks = sampled_ranks(draws[name, seed].assign(
                    score=score[located[name, seed]]))
                # one bootstrap design for every seed: replicate b resamples the same users
                fixed = corrected_metric(ranks, metric=metric, k=k, estimator=estimators[name],
                                         confidence=confidence, n_resamples=n_resamples,
                                         rng=seeds[0])
                replicates.append(fixed.replicates)
                rows[name].append({"system": system_name, "seed": seed, "naive": fixed.naive,
                                   "corrected": fixed.value})
            low = high = math.nan
            if n_resamples:
                low, high = (float(v[0]) for v in quantile_interval(
                    np.mean(replicates, axis=0)[:, None], confidence))
            table[name][system_name] = {"full": full, "low": low, "high": high}
    found = {name: _sampling_summary(rows[name], table[name], metric=metric, k=k,
                                     n_negatives=n_negatives, scheme=name, per=per,
                                     estimator=estimators[name], several=len(seeds) > 1)
             for name in schemes}
    return found[scheme] if isinstance(scheme, str) else found


def _sampling_summary(rows: list, table: dict, *, metric: str, k: int, n_negatives: int,
                      scheme: str, per: str, estimator: str, several: bool
                      ) -> SamplingComparison:
    per_seed = pd.DataFrame(rows)
    means = per_seed.groupby("system", sort=False)[["naive", "corrected"]].mean()
    spread = per_seed.groupby("system", sort=False)[["naive", "corrected"]].std(ddof=1) \
        if several else means * np.nan
    out = pd.DataFrame({
        "full": [table[n]["full"] for n in means.index],
        "naive": means["naive"].to_numpy(), "naive_sd": spread["naive"].to_numpy(),
        "corrected": means["corrected"].to_numpy(),
        "corrected_sd": spread["corrected"].to_numpy(),
        "corrected_low": [table[n]["low"] for n in means.index],
        "corrected_high": [table[n]["high"] for n in means.index],
    }, index=pd.Index(means.index, name="system"))
    better = RANKING_METRICS[metric].higher_is_better
    for column in ("full", "naive", "corrected"):
        out[f"rank_{column}"] = out[column].rank(ascending=not better, method="min").astype(int)
    tau = {c: (float(scipy.stats.kendalltau(out["full"], out[c]).statistic)
               if len(out) > 1 else math.nan) for c in ("naive", "corrected")}
    winner = {c: str(out[c].idxmax() if better else out[c].idxmin())
              for c in ("full", "naive", "corrected")}
    flips = {c: winner[c] != winner["full"] for c in ("naive", "corrected")}
    label = (f"{RANKING_METRICS[metric].column_label(k)}: full ranking, {n_negatives} "
             f"{scheme} negatives per {per} (naive), and corrected ({estimator})")
    return SamplingComparison(table=out, per_seed=per_seed, tau=tau, winner=winner,
                              flips=flips, label=label)
