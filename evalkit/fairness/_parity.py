"""Elliot's ranking-based statistical parity (RSP) and equal opportunity (REO) over item
groups (see :mod:`evalkit.fairness`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._checks import (
    check_id_dtypes,
    check_interactions,
    check_threshold,
    check_truth,
    pairs_in,
)
from .._constraints import POSITIVE_INT, constrained
from ._lists import (
    _check_item_kind,
    _group_counts,
    _membership,
    _top_positions,
)


@dataclass(frozen=True, eq=False)
class RankingParity:
    """The result of :func:`rsp` and :func:`reo`.

    Attributes
    ----------
    metric : str
        ``"rsp"`` or ``"reo"``.
    k : int
        The cutoff.
    value : float
        ``std / mean`` of ``groups["probability"]`` over the groups (population standard
        deviation; 0 when every group is equally likely to be ranked, lower is fairer).
    groups : pd.DataFrame
        By group: ``recommended`` (the numerator's count), ``candidates`` (the
        denominator's) and ``probability`` (their ratio, NaN without a candidate).
    users : int
        The users counted.
    """

    metric: str
    k: int
    value: float
    groups: pd.DataFrame
    users: int

    def __repr__(self) -> str:
        return (f"RankingParity({self.metric}@{self.k} = {self.value:.6g} over {self.users} "
                f"users)\n{self.groups.to_string()}")


def _parity(metric: str, k: int, names: pd.Index, recommended: np.ndarray,
            candidates: np.ndarray, users: int) -> RankingParity:
    probability = np.divide(recommended, candidates, out=np.full(len(names), np.nan),
                            where=candidates > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = float(np.std(probability) / np.mean(probability))
    table = pd.DataFrame({"recommended": recommended, "candidates": candidates,
                          "probability": probability}, index=pd.Index(names, name="group"))
    return RankingParity(metric, k, value if np.isfinite(value) else np.nan, table, users)


def _seen_pairs(train: object, users: np.ndarray, *, func: str) -> pd.DataFrame:
    """The distinct (user, item) pairs of ``train`` of the given users."""
    train = check_interactions(train, func=func, arg="train")
    seen = train.loc[train["user_id"].isin(users), ["user_id", "item_id"]]
    return seen.drop_duplicates()


@constrained(k=POSITIVE_INT)
def rsp(recs: pd.DataFrame, item_groups: pd.Series, *, k: int = 10,
        train: pd.DataFrame | None = None, sep: str | None = None) -> RankingParity:
    """Ranking-based statistical parity (Zhu et al. 2020): is an item of every group equally
    likely to be ranked in the top k? As Elliot's ``RSP``.

    Parameters
    ----------
    recs : pd.DataFrame
        Recommendations (``user_id``, ``item_id``, ``rank`` and/or ``score``); every user
        with a list is counted.
    item_groups : pd.Series
        Each item's group, indexed by item: the catalogue of each group. An item in several
        groups counts in each (a list of labels, the item repeated in the index, one row per
        pair, or see ``sep``); items without a group are in none.
    k : int, default 10
        The cutoff: the top ``k`` of each list.
    train : pd.DataFrame, optional
        ``user_id, item_id``: a user's training items are not candidates for them.
    sep : str, optional
        Labels are strings joining several groups with ``sep`` (``"Action|Comedy"``).

    Returns
    -------
    RankingParity
        ``value`` (RSP, lower is fairer) and ``groups`` (``recommended``, ``candidates``,
        ``probability`` by group).

    Raises
    ------
    InvalidParameterError
        On a malformed ``recs`` or ``train``, a non-positive ``k``, an ``item_groups`` that
        is not a Series or labels no item, or item ids of another kind than ``recs``'.

    Notes
    -----
    Over the users U with a list and each group G,

    ``P(R@k | G) = sum_u |top_k(u) & G| / sum_u |G - train(u)|``

    and ``RSP = std_G P(R@k | G) / mean_G P(R@k | G)``, the standard deviation with
    denominator #groups. The numerator counts every listed item of G, training items
    included (Elliot's lists never hold them); the denominator every item of G in
    ``item_groups`` that is not among the user's training items. The groups are every group
    of ``item_groups``: one without a candidate has no probability, and RSP is then NaN (as
    Elliot's). This is Elliot's ``RSP`` (``elliot/evaluation/metrics/fairness/rsp/rsp.py``,
    sisinflab/elliot at fc27efed), its clustering file being ``item_groups``.

    References
    ----------
    Zhu, Wang and Caverlee (2020), Measuring and mitigating item under-recommendation bias
    in personalized ranking systems, SIGIR. Anelli et al. (2021), Elliot, SIGIR.

    Examples
    --------
    >>> import pandas as pd
    >>> recs = pd.DataFrame({"user_id": [1, 2], "item_id": [1, 3], "rank": 1})
    >>> groups = pd.Series({1: "a", 2: "a", 3: "b", 4: "b"})
    >>> rsp(recs, groups, k=1).groups["probability"].tolist()  # 1 of 2 x 2, 1 of 2 x 2
    [0.25, 0.25]
    """
    func = "rsp"
    groups = _membership(item_groups, func=func, sep=sep)
    listed = _top_positions(recs, k, func=func)
    _check_item_kind(groups, listed, func=func)
    users = listed.users
    recommended = _group_counts(groups, listed.item_id)
    candidates = len(users) * np.bincount(groups.group, minlength=len(groups.names))
    if train is not None:
        candidates = candidates - _group_counts(
            groups, _seen_pairs(train, users, func=func)["item_id"].to_numpy())
    return _parity("rsp", k, groups.names, recommended, candidates, len(users))


@constrained(k=POSITIVE_INT)
def reo(truth: pd.DataFrame, recs: pd.DataFrame, item_groups: pd.Series, *, k: int = 10,
        train: pd.DataFrame | None = None, threshold: float | None = 4.0,
        sep: str | None = None) -> RankingParity:
    """Ranking-based equal opportunity (Zhu et al. 2020): is a relevant item of every group
    equally likely to be ranked in the top k? As Elliot's ``REO``.

    Parameters
    ----------
    truth : pd.DataFrame
        Test interactions ``user_id, item_id, rating``; relevant: ``rating >= threshold``
        (every row when ``threshold`` is None).
    recs : pd.DataFrame
        Recommendations (``user_id``, ``item_id``, ``rank`` and/or ``score``).
    item_groups : pd.Series
        Each item's group, indexed by item; an item in several groups counts in each (a list
        of labels, the item repeated in the index, or see ``sep``); items without a group are
        in none.
    k : int, default 10
        The cutoff: the top ``k`` of each list.
    train : pd.DataFrame, optional
        ``user_id, item_id``: a user's relevant items that are also training items are not
        candidates for them.
    threshold : float or None, default 4.0
        A test item is relevant when its rating is at least this; None: every test item.
    sep : str, optional
        Labels are strings joining several groups with ``sep``.

    Returns
    -------
    RankingParity
        ``value`` (REO, lower is fairer) and ``groups`` (``recommended``, ``candidates``,
        ``probability`` by group).

    Raises
    ------
    InvalidParameterError
        On a malformed ``truth``, ``recs`` or ``train``, a non-positive ``k``, a bad
        ``threshold``, an ``item_groups`` that is not a Series or labels no item, or item
        ids of another kind than ``recs``'.

    Notes
    -----
    Over the users U with a list and at least one relevant test item, with R(u) their
    relevant test items and each group G,

    ``P(R@k | G, y=1) = sum_u |top_k(u) & R(u) & G| / sum_u |(R(u) & G) - train(u)|``

    and ``REO = std_G P / mean_G P`` (population standard deviation). As in Elliot, the
    numerator keeps a relevant item that is also a training item of the user while the
    denominator drops it (with lists that exclude training items, as Elliot's do, the two
    agree). Every group of ``item_groups`` counts: one without a candidate has no
    probability, and REO is then NaN (as Elliot's). This is Elliot's ``REO``
    (``elliot/evaluation/metrics/fairness/reo/reo.py``, sisinflab/elliot at fc27efed), its
    clustering file being ``item_groups`` and its relevance threshold ``threshold``.

    References
    ----------
    Zhu, Wang and Caverlee (2020), Measuring and mitigating item under-recommendation bias
    in personalized ranking systems, SIGIR. Anelli et al. (2021), Elliot, SIGIR.

    Examples
    --------
    >>> import pandas as pd
    >>> truth = pd.DataFrame({"user_id": [1, 1], "item_id": [1, 3], "rating": 5.0})
    >>> recs = pd.DataFrame({"user_id": 1, "item_id": [1, 2], "rank": [1, 2]})
    >>> groups = pd.Series({1: "a", 2: "a", 3: "b"})
    >>> result = reo(truth, recs, groups, k=2)
    >>> result.groups["probability"].tolist(), result.value  # 1 of 1, 0 of 1
    ([1.0, 0.0], 1.0)
    """
    func = "reo"
    threshold = check_threshold(threshold, func=func)
    truth = check_truth(truth, func=func, threshold=threshold)
    groups = _membership(item_groups, func=func, sep=sep)
    listed = _top_positions(recs, k, func=func)
    check_id_dtypes(truth, pd.DataFrame({"user_id": listed.users[:1],
                                         "item_id": listed.item_id[:1]}), func=func)
    _check_item_kind(groups, listed, func=func)
    relevant = truth if threshold is None else truth[truth["rating"] >= threshold]
    relevant = relevant.loc[relevant["user_id"].isin(listed.users), ["user_id", "item_id"]]
    n_users = int(relevant["user_id"].nunique())
    hit = pairs_in(pd.DataFrame({"user_id": listed.users[listed.user_code],
                                 "item_id": listed.item_id}), relevant)
    recommended = _group_counts(groups, listed.item_id[hit])
    if train is not None:
        seen = _seen_pairs(train, relevant["user_id"].unique(), func=func)
        relevant = relevant[~pairs_in(relevant, seen)]
    candidates = _group_counts(groups, relevant["item_id"].to_numpy())
    return _parity("reo", k, groups.names, recommended, candidates, n_users)
