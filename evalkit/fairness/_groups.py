"""User groups: each group's mean of a per-user metric, its gap to a reference group with
intervals and permutation p-values, and whether one system's gaps are smaller than another's
(see :mod:`evalkit.fairness`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._constraints import FRACTION, POSITIVE_INT, RESAMPLES, SEED, choice, constrained
from .._display import TableFrame
from .._errors import InvalidParameterError
from .._resample import design_key, poisson_bootstrap_sums, quantile_interval, user_streams


class DisparityTable(TableFrame):
    """The table of :func:`group_disparity` (a DataFrame, one row per group), with the summary
    attributes ``mad`` (mean absolute deviation between the groups' means, over every pair),
    ``mad_ci_low``, ``mad_ci_high``, ``reference`` (the reference group), ``stat`` and
    ``dropped`` (users left out, by reason)."""

    _metadata = ["mad", "mad_ci_low", "mad_ci_high", "reference", "stat", "dropped"]


def _as_series(values: object, *, func: str, arg: str) -> pd.Series:
    if not isinstance(values, pd.Series):
        raise InvalidParameterError(
            f"{func}: '{arg}' must be a pandas Series indexed by user_id; got "
            f"{type(values).__name__}.")
    if values.index.has_duplicates:
        raise ValueError(f"{func}: '{arg}' names {int(values.index.duplicated().sum())} user(s) "
                         "twice; give one value per user.")
    return values


@constrained(stat=choice("difference", "ratio"), confidence=FRACTION, n_resamples=RESAMPLES,
             n_permutations=POSITIVE_INT, rng=SEED)
def group_disparity(
    per_user: pd.Series,
    groups: pd.Series,
    *,
    reference: object = None,
    stat: str = "difference",
    adjust_for: pd.Series | None = None,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    n_permutations: int = 2000,
    rng: int | np.random.Generator | None = 0,
) -> DisparityTable:
    """Is a group of users served worse? Each group's mean of a per-user metric and its gap
    to a reference group.

    Parameters
    ----------
    per_user : pd.Series
        A per-user metric (a :class:`~evalkit.metrics.MetricSeries`, a column of
        ``Evaluation.per_user``), indexed by user; NaN (undefined) users are left out and
        counted.
    groups : pd.Series
        Each user's group label (gender, age band, ...), indexed by user. Users of
        ``per_user`` without a label are left out and counted.
    reference : label, optional
        The group the others are compared with; default: the largest.
    stat : {"difference", "ratio"}, default "difference"
        ``gap`` = group mean minus the reference's, or divided by it.
    adjust_for : pd.Series, optional
        A second grouping by user (activity bins, say): each group's mean is standardised to
        the pooled distribution of it (``sum_s share_s mean_{g,s}``, ``share_s`` the share of
        all users in stratum ``s``; a stratum a group has no user in is left out of that
        group's sum and the shares renormalised), and the table adds the adjusted mean and
        gap beside the raw ones.
    confidence : float, default 0.95
        Level of the intervals: a Poisson bootstrap of users, each group's mean from its own
        users' weights (stratified by group).
    n_resamples : int, default 1000
        Bootstrap resamples; 0: no intervals.
    rng : int, Generator or None, default 0
        Seed of the bootstrap and of the permutations.
    n_permutations : int, default 2000
        Label permutations of each group's test against the reference: the users of both
        pooled and relabelled at random, keeping the two sizes. When both groups hold at
        least 1,000 users the test uses the permutation distribution's normal limit (its
        exact mean and variance) instead of rounds, which would cost rounds x users.

    Returns
    -------
    DisparityTable
        One row per group (the reference first, then by size): ``group``, ``n_users``,
        ``mean``, ``ci_low``, ``ci_high``, ``gap``, ``gap_ci_low``, ``gap_ci_high``,
        ``p_value`` (two-sided permutation test of the raw gap; NaN for the reference), and
        with ``adjust_for`` also ``adjusted_mean``, ``adjusted_gap``,
        ``adjusted_gap_ci_low``, ``adjusted_gap_ci_high``. Attributes ``mad`` (with
        ``mad_ci_low``, ``mad_ci_high``), ``reference``, ``stat``, ``dropped``.

    Notes
    -----
    MAD = mean over every pair of groups of ``|mean_g - mean_h|``, i.e. ``2 / (G (G - 1))
    sum_{g < h} |mean_g - mean_h|`` over the G groups (Deldjoo et al. 2020). With B
    permutations the p-value is ``(1 + #{|gap*| >= |gap|}) / (B + 1)``.

    Elliot (``elliot/evaluation/metrics/fairness/MAD/*.py``) averages ``|avg_i - avg_j|``
    over the pairs ``i < j`` of its clusters in the same way; only its per-user (per-item)
    values and its set of users differ. ``table.mad`` is Elliot's value when ``per_user``
    holds, for the users with a list and at least one relevant test item (rating >=
    threshold ``t``; Elliot leaves out every other user):

    - ``UserMADranking``: Elliot's nDCG@k, gain ``2^(r - t + 1) - 1`` for a relevant test
      rating ``r`` (0 otherwise), discount ``1 / log2(p + 1)``, ideal from the relevant
      items: ``evaluate(truth.assign(rating=(truth["rating"] - t + 1).clip(lower=0)),
      recs, k=k, metrics=["ndcg"], threshold=1, gain="exponential",
      gain_scope="relevant")``'s per-user values, restricted to the users of ``recs``.
    - ``UserMADrating``: the mean score of the user's top k, ``top_k(recs, k=k)`` (from
      :mod:`evalkit.metrics`) joined to the scores, averaged per user.

    and ``groups`` holds Elliot's user clusters. ``ItemMADranking`` / ``ItemMADrating`` are
    the same call over items: ``per_user`` by item, each recommended item's mean, over its
    top-k appearances in those users' lists, of that gain (or of its score) when the item is
    relevant to the user and 0 otherwise, and ``groups`` the item clusters (Elliot keeps one
    cluster per item, the last in its file). Not reproduced: Elliot counts every cluster of
    its file, so a cluster without an evaluated user (item) makes its MAD NaN, where
    evalkit leaves that group out; Elliot needs clusters numbered 0 to G - 1.
    """
    func = "group_disparity"
    per_user = _as_series(per_user, func=func, arg="per_user")
    groups = _as_series(groups, func=func, arg="groups")
    values = per_user.astype(float)
    dropped = {"undefined": int(values.isna().sum())}
    values = values.dropna()
    label = groups.reindex(values.index)
    dropped["no group"] = int(label.isna().sum())
    keep = label.notna()
    if adjust_for is not None:
        adjust_for = _as_series(adjust_for, func=func, arg="adjust_for")
        stratum_label = adjust_for.reindex(values.index)
        dropped["no stratum"] = int((keep & stratum_label.isna()).sum())
        keep &= stratum_label.notna()
    values, label = values[keep], label[keep]
    if label.nunique() < 2:
        raise ValueError(f"{func}: 'groups' must give at least two groups to the users with a "
                         f"value; got {label.nunique()}.")
    sizes = label.value_counts()
    if reference is None:
        reference = sizes.index[0]
    elif reference not in sizes.index:
        raise ValueError(f"{func}: 'reference' {reference!r} is not a group of the users with a "
                         f"value; the groups are {', '.join(map(repr, sizes.index))}.")
    order = [reference] + [g for g in sizes.index if g != reference]
    codes = pd.Index(order).get_indexer(label)
    x = values.to_numpy(np.float64)
    n_groups = len(order)
    generator = np.random.default_rng(rng)
    users = values.index
    boot = n_resamples
    key = design_key(generator)
    # per group (and per stratum) sums over blocks of users: column 0 the data
    strata = None
    if adjust_for is not None:
        strata_index = pd.Index(pd.unique(stratum_label[keep]))
        strata = strata_index.get_indexer(stratum_label[keep])
        cell = codes * len(strata_index) + strata
        n_cells = n_groups * len(strata_index)
    else:
        cell, n_cells = codes, n_groups
    sums, mass = _cell_sums(users, cell, x, n_cells, boot, key)
    with np.errstate(invalid="ignore", divide="ignore"):
        if strata is None:
            means = sums / mass  # (groups, 1 + B)
            adjusted = None
        else:
            n_strata = len(strata_index)
            cell_sums = sums.reshape(n_groups, n_strata, -1)
            cell_mass = mass.reshape(n_groups, n_strata, -1)
            means = cell_sums.sum(axis=1) / cell_mass.sum(axis=1)
            share = np.bincount(strata, minlength=n_strata) / len(strata)  # pooled, observed
            cell_means = cell_sums / cell_mass
            present = np.isfinite(cell_means)
            weight = np.where(present, share[None, :, None], 0.0)
            adjusted = (np.where(present, cell_means, 0.0) * weight).sum(axis=1) \
                / weight.sum(axis=1)

    def gaps(m: np.ndarray) -> np.ndarray:
        return m - m[0] if stat == "difference" else m / m[0]

    def interval(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if not boot:
            return np.full(len(rows), np.nan), np.full(len(rows), np.nan)
        return quantile_interval(rows[:, 1:].T, confidence)

    table = pd.DataFrame({"group": order, "n_users": sizes.reindex(order).to_numpy(),
                          "mean": means[:, 0]})
    table["ci_low"], table["ci_high"] = interval(means)
    gap = gaps(means)
    table["gap"] = gap[:, 0]
    table["gap_ci_low"], table["gap_ci_high"] = interval(gap)
    table.loc[0, ["gap_ci_low", "gap_ci_high"]] = table.loc[0, "gap"]
    table["p_value"] = np.r_[np.nan, [_permutation_pvalue(x[codes == 0], x[codes == g],
                                                         n_permutations, generator)
                                      for g in range(1, n_groups)]]
    if adjusted is not None:
        table["adjusted_mean"] = adjusted[:, 0]
        adjusted_gap = gaps(adjusted)
        table["adjusted_gap"] = adjusted_gap[:, 0]
        table["adjusted_gap_ci_low"], table["adjusted_gap_ci_high"] = interval(adjusted_gap)
    pairs = np.triu_indices(n_groups, k=1)
    mad = np.abs(means[pairs[0]] - means[pairs[1]]).mean(axis=0)
    out = DisparityTable(table)
    out.mad = float(mad[0])
    out.mad_ci_low, out.mad_ci_high = ((float(v[0]) for v in
                                        quantile_interval(mad[1:, None], confidence))
                                       if boot else (np.nan, np.nan))
    out.reference, out.stat, out.dropped = reference, stat, dropped
    return out


def _cell_sums(users: pd.Index, cell: np.ndarray, x: np.ndarray, n_cells: int, boot: int,
               key: int) -> tuple[np.ndarray, np.ndarray]:
    """Per cell, the sums of w x and of w over its users, for the data (column 0, w = 1) and
    ``boot`` Poisson replicates drawn from the users' ids under ``key`` (so the same users
    weigh the same in every call with that key): one compiled pass over the users."""


    sums = np.zeros((n_cells, 1 + boot))
    mass = np.zeros((n_cells, 1 + boot))
    sums[:, 0] = np.bincount(cell, weights=x, minlength=n_cells)
    mass[:, 0] = np.bincount(cell, minlength=n_cells)
    if boot:
        rows = np.arange(len(x))
        values = np.zeros((len(x), n_cells))
        values[rows, cell] = x
        present = np.zeros((len(x), n_cells), dtype=np.uint8)
        present[rows, cell] = 1
        found, weights = poisson_bootstrap_sums(values, present, key, boot,
                                                streams=user_streams(users))
        sums[:, 1:], mass[:, 1:] = found, weights
    return sums, mass


@constrained(alpha=FRACTION, confidence=FRACTION, n_resamples=RESAMPLES, rng=SEED)
def compare_disparity(
    systems: dict[str, pd.Series],
    groups: pd.Series,
    *,
    reference: object = None,
    alpha: float = 0.05,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    rng: int | np.random.Generator | None = 0,
) -> pd.DataFrame:
    """Is one system's gap between user groups smaller than another's? Paired over the same
    users, with Holm's correction over every pair of systems and group.

    Parameters
    ----------
    systems : dict of str to pd.Series
        Each system's per-user metric, by user (users with a value in every system are used,
        the others left out).
    groups : pd.Series
        Each user's group label.
    reference : label, optional
        The reference group of the gaps (default: the largest).
    alpha : float, default 0.05
        Level of the Holm-corrected tests.
    confidence : float, default 0.95
        Level of the intervals of the paired user bootstrap (one design: a user weighs the
        same in every system in a replicate).
    n_resamples : int, default 1000
        Bootstrap resamples.
    rng : int, Generator or None, default 0
        Seed of the bootstrap.

    Returns
    -------
    pd.DataFrame
        One row per pair of systems (each later against each earlier one) and group other
        than the reference: ``system``, ``against``, ``group``, ``gap``, ``gap_against``
        (each group's mean minus the reference group's), ``difference`` = ``|gap| -
        |gap_against|`` with ``ci_low``, ``ci_high``, ``p_value`` (the bootstrap's two-sided
        percentile test), ``p_value_holm`` and ``smaller`` (the system whose gap is
        significantly smaller, else None).
    """
    from ..stats import holm

    func = "compare_disparity"
    if not isinstance(systems, dict) or len(systems) < 2:
        raise ValueError(f"{func}: 'systems' must map at least two names to per-user "
                         "metrics.")
    groups = _as_series(groups, func=func, arg="groups")
    frames = {name: _as_series(v, func=func, arg=f"systems[{name!r}]").astype(float)
              for name, v in systems.items()}
    table = pd.concat(frames, axis=1).dropna()
    label = groups.reindex(table.index)
    table, label = table[label.notna()], label[label.notna()]
    sizes = label.value_counts()
    if len(sizes) < 2:
        raise ValueError(f"{func}: 'groups' must give at least two groups to the shared users.")
    reference = sizes.index[0] if reference is None else reference
    if reference not in sizes.index:
        raise ValueError(f"{func}: 'reference' {reference!r} is not a group of the shared "
                         "users.")
    order = [reference] + [g for g in sizes.index if g != reference]
    codes = pd.Index(order).get_indexer(label)
    boot = n_resamples
    key = design_key(np.random.default_rng(rng))
    gaps = {}
    for name in frames:  # one bootstrap design for every system
        sums, mass = _cell_sums(table.index, codes, table[name].to_numpy(np.float64),
                                len(order), boot, key)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = sums / mass
        gaps[name] = means[1:] - means[0]  # (groups - 1, 1 + B)
    names = list(frames)
    rows = []
    for j in range(1, len(names)):
        for i in range(j):
            d = np.abs(gaps[names[j]]) - np.abs(gaps[names[i]])
            for g in range(len(order) - 1):
                reps = d[g, 1:]
                reps = reps[np.isfinite(reps)]
                low = high = p = np.nan
                if len(reps):
                    low, high = np.quantile(reps, [(1 - confidence) / 2, (1 + confidence) / 2])
                    p = min(1.0, 2 * min((1 + np.count_nonzero(reps <= 0)) / (len(reps) + 1),
                                         (1 + np.count_nonzero(reps >= 0)) / (len(reps) + 1)))
                rows.append({"system": names[j], "against": names[i], "group": order[g + 1],
                             "gap": gaps[names[j]][g, 0], "gap_against": gaps[names[i]][g, 0],
                             "difference": d[g, 0], "ci_low": low, "ci_high": high,
                             "p_value": p})
    out = pd.DataFrame(rows)
    out["p_value_holm"] = holm(out["p_value"].to_numpy(float))
    out["smaller"] = pd.Series([None if not (p < alpha) else (s if diff < 0 else a)
                                for s, a, diff, p in zip(out["system"], out["against"],
                                                         out["difference"],
                                                         out["p_value_holm"])], dtype=object)
    return out


#: Both groups at least this large: the permutation test's normal limit instead of rounds.
_NORMAL_FROM = 1000


def _permutation_pvalue(reference: np.ndarray, group: np.ndarray, n_permutations: int,
                        generator: np.random.Generator) -> float:
    """Two-sided label-permutation p-value of the difference of two groups' means: the users
    of both pooled, ``len(group)`` of them drawn at random as the group (blocks of rounds);
    when both groups hold at least 1,000 users, the normal distribution with the permutation
    distribution's exact mean (0) and variance ``N^2 s^2 / (n_g n_r (N - 1))`` (``s^2`` the
    pooled values' variance about their mean, divided by N)."""
    pooled = np.concatenate([reference, group])
    n, size = len(pooled), len(group)
    if min(len(reference), size) >= _NORMAL_FROM:
        from scipy.special import ndtr

        variance = n * n * pooled.var() / (size * len(reference) * (n - 1))
        observed = abs(group.mean() - reference.mean())
        if variance <= 0:
            return 1.0 if observed == 0 else 0.0
        return float(2 * ndtr(-observed / np.sqrt(variance)))
    observed = abs(group.mean() - reference.mean())
    total = pooled.sum()
    extreme = 0
    tol = 1e-12 * (np.abs(pooled).sum() + 1.0)
    block = max(1, min(n_permutations, 2_000_000 // max(n, 1)))
    done = 0
    while done < n_permutations:  # blocks of rounds, each a matrix of random keys
        rounds = min(block, n_permutations - done)
        keys = generator.random((rounds, n))
        chosen = np.argpartition(keys, size - 1, axis=1)[:, :size] if size < n else \
            np.broadcast_to(np.arange(n), (rounds, n))
        in_group = pooled[chosen].sum(axis=1)
        diff = np.abs(in_group / size - (total - in_group) / (n - size))
        extreme += int(np.count_nonzero(diff >= observed - tol))
        done += rounds
    return (1 + extreme) / (n_permutations + 1)
