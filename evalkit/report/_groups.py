"""Who is served worse? The model comparison's section on user groups (the gap of each group
to the largest, raw and standardised for activity) and on item exposure (the attention the
popularity head, middle and tail get against their share of the catalogue)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .._comparison import format_pvalue
from .._docstrings import fill_doc
from ._docs import REPORT_DOCS

__all__ = ["GroupCheck", "exposure_table", "group_check", "group_note", "group_table",
           "user_attributes"]


def user_attributes(inputs: object, users: str | os.PathLike | None = None, *,
                    columns: Mapping[str, str] | None = None) -> pd.DataFrame | None:
    """The users' attributes: ``USERS`` (a CSV or Parquet file of ``user_id`` and attribute
    columns; ``COLUMNS`` renames), else the named dataset's own (``inputs.users``: the
    sample's synthetic ones, ml-100k's and ml-1m's), else None.

    The attributes come only from what the run was given: on the analyst's own files
    (``TRAIN``/``TEST``, an interactions file, a folder of their own split) there are none
    unless ``USERS`` gives them, whatever ``DATASET`` says, since another dataset's users
    joined by id to the analyst's would be invented groups.

    Parameters
    ----------
    inputs : ReportInputs
        The report's data (:func:`load_inputs`); its dataset's own attributes
        (``inputs.users``) are those used when ``users`` is None.
    users : str or path-like, optional
        ``USERS``: a CSV or Parquet file of ``user_id`` and one column per attribute.
    columns : mapping of str to str, optional
        ``COLUMNS``: the file's column names -> the names to give them.
    """
    if users is not None:
        path = Path(users)
        frame = pd.read_parquet(path) if path.suffix.lower() in (".parquet", ".pq") \
            else pd.read_csv(path)
        frame = frame.rename(columns={k: v for k, v in (columns or {}).items()
                                      if k in frame.columns})
        frame = frame.rename(columns={"userId": "user_id"})
        if "user_id" not in frame.columns:
            raise ValueError(f"parameter USERS: '{path.name}' has no user_id column (or "
                             "COLUMNS mapping to it); it has "
                             f"{', '.join(map(str, frame.columns))}.")
        if frame["user_id"].duplicated().any():
            raise ValueError(f"parameter USERS: '{path.name}' names "
                             f"{int(frame['user_id'].duplicated().sum())} user(s) twice.")
        return frame
    return getattr(inputs, "users", None)


@dataclass
class GroupCheck:
    """What :func:`group_check` found: the attribute, each system's
    :class:`~evalkit.fairness.DisparityTable`, the comparison of the systems' gaps, each
    system's exposure shares by item popularity, and how many test users have the attribute.

    Attributes
    ----------
    group : str or None
        The user attribute whose groups are compared; None when the data has no attributes.
    label : str
        The metric's label at the cutoff (``"NDCG@10"``), for the tables.
    disparities : dict of str to evalkit.fairness.DisparityTable
        Each system's groups against the largest (:func:`evalkit.fairness.group_disparity`),
        with ``p_value_holm`` (Holm's correction over every system and group); a system whose
        users fall in fewer than two groups is left out.
    comparison : pandas.DataFrame or None
        The systems' gaps compared (:func:`evalkit.fairness.compare_disparity`); None with
        fewer than two systems to compare.
    exposure : dict of str to pandas.DataFrame
        Each system's share of attention to the popularity head, middle and tail
        (:func:`evalkit.fairness.exposure_share`).
    users_with_group : int
        Test users with a value of ``group``.
    users : int
        Test users evaluated.
    reason : str, default ""
        Why no group is shown (empty when groups are shown).
    k : int, default 10
        The cutoff.
    """

    group: str | None
    label: str
    disparities: dict
    comparison: pd.DataFrame | None
    exposure: dict
    users_with_group: int
    users: int
    reason: str = ""
    k: int = 10


@fill_doc(REPORT_DOCS)
def group_check(inputs: object, evaluations: Mapping[str, object],
                systems: Mapping[str, pd.DataFrame], attributes: pd.DataFrame | None, *,
                group: str | None = None, metric: str = "ndcg", k: int = 10,
                seed: int = 0) -> GroupCheck:
    """Each system's ``metric@k`` by the user attribute ``group`` (``USER_GROUP``; default:
    ``gender`` when the attributes have it, else their first column), against the largest
    group, raw and standardised for training activity (the report's activity bins), with
    the systems' gaps compared; and each system's share of attention to the popularity head,
    middle and tail (:func:`evalkit.fairness.exposure_share`, log weights at k) against their
    share of the catalogue.

    Parameters
    ----------
    %(inputs)s
    %(evaluations)s
    %(systems)s
    attributes : pandas.DataFrame or None
        The users' attributes (:func:`user_attributes`); None: the data has none, and only the
        exposure is computed.
    group : str, optional
        ``USER_GROUP``: the attribute (a column of ``attributes``) whose groups are compared.
    metric : str, default "ndcg"
        The ranking metric compared across groups, at ``k``.
    k : int, default 10
        The cutoff, of the metric and of the exposure.
    seed : int, default 0
        Seed of the bootstrap and permutation resamples.
    """
    from ..fairness import compare_disparity, exposure_share, group_disparity
    from ..metrics import RANKING_METRICS
    from ..segments import item_popularity_buckets, user_activity_bins

    column = f"{metric}@{k}"
    label = RANKING_METRICS[metric].column_label(k) if metric in RANKING_METRICS else column
    n_users = len(next(iter(evaluations.values())).per_user) if evaluations else 0
    exposure = {}
    buckets = item_popularity_buckets(inputs.train).astype(str)
    for name, recs in systems.items():
        exposure[name] = exposure_share(recs, buckets, k=k, n_resamples=200, rng=seed)
    if attributes is None:
        return GroupCheck(None, label, {}, None, exposure, 0, n_users, k=k,
                          reason="the data has no user attributes; give them as a USERS "
                          "file, user_id and one column per attribute (evalkit report "
                          "-p USERS users.csv)")
    names = [c for c in attributes.columns if c != "user_id"]
    if group is None:
        group = "gender" if "gender" in names else (names[0] if names else None)
    if group is None or group not in names:
        raise ValueError(f"parameter USER_GROUP: {group!r} is not an attribute of the users; "
                         f"they have {', '.join(names) or 'none'}.")
    labels = attributes.set_index("user_id")[group]
    disparities = {}
    per_user = {}
    for name, evaluation in evaluations.items():
        if column not in evaluation.per_user.columns:
            continue
        values = evaluation.per_user[column]
        per_user[name] = values
    if not per_user:
        return GroupCheck(group, label, {}, None, exposure, 0, n_users, k=k,
                          reason=f"no system has {label} per user")
    users = next(iter(per_user.values())).index
    known = labels.reindex(users).notna()
    activity = user_activity_bins(inputs.train, bins=4, users=users).astype(str)
    for name, values in per_user.items():
        if labels.reindex(values.dropna().index).nunique() < 2:
            continue
        disparities[name] = group_disparity(values, labels, adjust_for=activity,
                                            n_resamples=200, n_permutations=1000, rng=seed)
    # Holm over every system's tests of every group against the reference
    from ..stats import holm

    pvalues = np.concatenate([t["p_value"].to_numpy(float)[1:] for t in disparities.values()]) \
        if disparities else np.zeros(0)
    adjusted = iter(holm(pvalues)) if len(pvalues) else iter(())
    for table in disparities.values():
        table["p_value_holm"] = [np.nan] + [next(adjusted) for _ in range(len(table) - 1)]
    comparison = compare_disparity(per_user, labels, n_resamples=200, rng=seed) \
        if len(disparities) > 1 and len(per_user) > 1 else None
    reason = "" if disparities else \
        f"the users with a {label} fall in fewer than two {group} groups"
    return GroupCheck(group, label, disparities, comparison, exposure, int(known.sum()),
                      len(users), reason=reason, k=k)


def group_table(check: GroupCheck) -> pd.DataFrame | None:
    """One row per system and group: users, mean with its interval, the gap to the largest
    group with its interval and p-value, and the gap standardised for activity.

    Parameters
    ----------
    check : GroupCheck
        What :func:`group_check` found.
    """
    if not check.disparities:
        return None
    rows = []
    for name, table in check.disparities.items():
        for row in table.itertuples(index=False):
            reference = row.group == table.reference
            rows.append({
                "system": name, check.group: row.group, "users": row.n_users,
                check.label: f"{row.mean:.4f} [{row.ci_low:.4f}, {row.ci_high:.4f}]",
                "gap": "(reference)" if reference else
                f"{row.gap:+.4f} [{row.gap_ci_low:+.4f}, {row.gap_ci_high:+.4f}]",
                "p": "" if reference else format_pvalue(row.p_value),
                "p (Holm)": "" if reference else format_pvalue(row.p_value_holm),
                "gap at equal activity": "(reference)" if reference else
                f"{row.adjusted_gap:+.4f} [{row.adjusted_gap_ci_low:+.4f}, "
                f"{row.adjusted_gap_ci_high:+.4f}]"})
    return pd.DataFrame(rows).set_index(["system", check.group])  # no bare 0..n index


def exposure_table(check: GroupCheck) -> pd.DataFrame | None:
    """One row per system and popularity group (head, mid, tail): the share of the lists'
    attention with its interval, and the group's share of the catalogue.

    Parameters
    ----------
    check : GroupCheck
        What :func:`group_check` found.
    """
    if not check.exposure:
        return None
    rows = []
    for name, table in check.exposure.items():
        for group, row in table.iterrows():
            rows.append({"system": name, "items": group,
                         "share of attention": f"{row['share']:.1%} [{row['ci_low']:.1%}, "
                                               f"{row['ci_high']:.1%}]",
                         "share of the catalogue": f"{row['target']:.1%}"})
    return pd.DataFrame(rows).set_index(["system", "items"])


def group_note(check: GroupCheck) -> str:
    """The section's findings, computed from :func:`group_check`'s results.

    Parameters
    ----------
    check : GroupCheck
        What :func:`group_check` found.
    """
    parts = []
    if not check.disparities:
        parts.append(f"User groups are not shown: {check.reason}.")
    else:
        first = next(iter(check.disparities.values()))
        parts.append(
            f"Users by **{check.group}** ({check.users_with_group:,} of the {check.users:,} "
            f"test users have it), each group against the largest ({first.reference}); the gap "
            "is the group's mean minus the reference's, with a 95% bootstrap interval and a "
            "label-permutation p-value (the share of random reassignments of the group labels "
            "to the same users that give a gap at least as large), and again with every group "
            "given the activity mix of all users (standardised over four bins of training "
            "interactions), since a difference in activity between groups can explain a gap. "
            "The mean absolute deviation is the mean of the gaps' sizes over every pair of "
            "groups (0 when every group has the same mean).")
        for name, table in check.disparities.items():
            others = table.iloc[1:]
            worst = others.loc[others["gap"].idxmin()]
            adjusted = worst.get("adjusted_gap", np.nan)
            interval = (f"{check.label} {worst['gap']:+.4f} [{worst['gap_ci_low']:+.4f}, "
                        f"{worst['gap_ci_high']:+.4f}]")
            if worst["gap"] < 0:
                clear = ("an interval below 0" if worst["gap_ci_high"] < 0
                         else "an interval that includes 0")
                said = f"the largest shortfall is {worst['group']}'s, {interval} ({clear})"
            else:
                said = (f"no group is below {table.reference}; the smallest gap is "
                        f"{worst['group']}'s, {interval}")
            parts.append(f"- **{name}**: {said}, {adjusted:+.4f} at equal activity; mean "
                         f"absolute deviation between groups {table.mad:.4f}.")
        significant = [f"{row.group} ({name})" for name, table in check.disparities.items()
                       for row in table.iloc[1:].itertuples() if row.p_value_holm < 0.05]
        parts.append("Significant gaps after Holm's correction over every system and group: "
                     + (", ".join(significant) + "." if significant else "none."))
        if check.comparison is not None:
            decided = check.comparison[check.comparison["smaller"].notna()]
            if decided.empty:
                parts.append("No system's gap is significantly smaller than another's "
                             "(paired bootstrap, Holm-corrected).")
            else:
                said = "; ".join(f"{r.smaller}'s gap for {r.group} is smaller than "
                                 f"{r.against if r.smaller == r.system else r.system}'s"
                                 for r in decided.itertuples())
                parts.append(f"Significantly smaller gaps (Holm-corrected): {said}.")
    if check.exposure:
        tail = {name: table.loc["tail"] for name, table in check.exposure.items()
                if "tail" in table.index}
        said = ""
        if len(tail) > 1 and len({round(r["share"], 3) for r in tail.values()}) == 1:
            row = next(iter(tail.values()))
            said = (f" Every system gives the tail {row['share']:.1%} of the attention against "
                    f"{row['target']:.1%} of the catalogue.")
        elif len(tail) > 1:
            most = max(tail, key=lambda n: tail[n]["share"])
            said = (f" {most} gives the tail the largest share, {tail[most]['share']:.1%} "
                    f"against {tail[most]['target']:.1%} of the catalogue.")
        elif tail:
            (name, row), = tail.items()
            said = (f" {name} gives the tail {row['share']:.1%} of the attention against "
                    f"{row['target']:.1%} of the catalogue.")
        parts.append("Item exposure, in the last table: the share of the lists' attention "
                     "that goes to the items of the popularity head, middle and tail (by "
                     "training interactions), an item at position p of the top "
                     f"{check.k} getting attention 1/log2(p + 1), against each group's share "
                     f"of the catalogue, with 95% bootstrap intervals over the lists.{said}")
    bullets = "\n".join(p for p in parts if p.startswith("- "))
    rest = [p for p in parts if not p.startswith("- ")]
    return "\n\n".join(rest[:1] + [bullets] * bool(bullets) + rest[1:])
