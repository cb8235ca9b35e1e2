"""Exposure of item groups in ranked lists: shares against a target with intervals, AWRF,
category entropy and expected exposure (see :mod:`evalkit.fairness`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from numba import njit

from .._checks import (
    check_choice,
    check_truth,
)
from .._constraints import FRACTION, POSITIVE_INT, RESAMPLES, SEED, constrained, real
from .._resample import design_key, poisson_bootstrap_sums, quantile_interval, user_streams
from ._lists import (
    PATIENCE,
    WEIGHT,
    _check_item_kind,
    _group_codes,
    _list_attention,
    _lists_and_groups,
    _Membership,
    _membership,
    _split_rows,
    _top_positions,
    slot_weights,
)


@constrained(k=POSITIVE_INT, weight=WEIGHT, patience=PATIENCE, confidence=FRACTION,
             n_resamples=RESAMPLES, rng=SEED)
def exposure_share(
    recs: pd.DataFrame,
    item_groups: pd.Series,
    *,
    k: int = 10,
    weight: str = "log",
    patience: float = 0.85,
    target: str | pd.Series = "catalog",
    truth: pd.DataFrame | None = None,
    train: pd.DataFrame | None = None,
    sep: str | None = None,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    rng: int | np.random.Generator | None = 0,
) -> pd.DataFrame:
    """Which share of the lists' attention goes to each group of items, against a target.

    Parameters
    ----------
    recs : pd.DataFrame
        Recommendations (``user_id``, ``item_id``, ``rank`` and/or ``score``).
    item_groups : pd.Series
        Each item's group label (popularity head/mid/tail, a genre, a provider), indexed by
        item. Listed items without a label form the group ``"(none)"``. An item in several
        groups: a list of labels (as ``Dataset.items["genres"]`` holds them), the item
        repeated in the index, one row per (item, group), or see ``sep``.
    k : int, default 10
        The cutoff: the top ``k`` of each list.
    weight : {"log", "geometric", "uniform"}, default "log"
        The attention of slot p (:func:`slot_weights`); ``patience`` for ``"geometric"``.
    patience : float, default 0.85
        The geometric attention's patience: slot p gets ``patience^(p - 1)``.
    target : {"catalog", "train", "relevant"} or pd.Series, default "catalog"
        Each group's fair share: its share of the items in ``item_groups``, of the training
        interactions (``train``), of the relevant test items (``truth``, every row), or given
        (a Series by group, normalised to sum to 1).
    truth : pd.DataFrame, optional
        Test interactions, for ``target="relevant"``.
    train : pd.DataFrame, optional
        Training interactions, for ``target="train"``.
    sep : str, optional
        Labels are strings holding several groups joined by ``sep`` (MovieLens genres,
        ``"Action|Comedy"`` with ``sep="|"``); empty labels are no group.
    confidence : float, default 0.95
        Level of the share's user-bootstrap interval.
    n_resamples : int, default 1000
        Bootstrap resamples.
    rng : int, Generator or None, default 0
        Seed of the bootstrap.

    Returns
    -------
    pd.DataFrame
        Indexed by group: ``share`` (of the total attention), ``target``, ``ratio`` (share /
        target), ``ci_low``, ``ci_high`` (of the share).

    Notes
    -----
    The exposure of group G is ``E_G = sum_lists sum_{p <= k} w(p) a(i_p, G)`` and its share
    ``E_G / sum_H E_H``. With one group per item ``a(i, G) = 1[i in G]``. An item in ``n_i``
    groups gives each of them ``a(i, G) = 1 / n_i`` of its slot's attention, so every slot
    hands out exactly its attention and the shares sum to 1. This is LensKit's item-category
    matrix ``cat_matrix(normalize="distribution")``, which the ``Entropy`` and
    ``RankBiasedEntropy`` metric classes of LensKit's development source use; the TREC Fair
    Ranking 2021 AWRF instead gives each group the full weight and normalises the sums, which
    weighs an item by its number of groups. The targets split each item the same way:
    catalogue share ``sum_i a(i, G) / #items``, training and relevant shares ``sum_rows
    a(i_row, G) / #rows``.
    """
    func = "exposure_share"
    item_groups, m, listed = _lists_and_groups(recs, item_groups, k, sep=sep, func=func)
    slots = slot_weights(k, weight=weight, patience=patience)
    user_code, users = listed.user_code, listed.users
    if m is None:
        names, group_code = _group_codes(item_groups, listed.item_id)
        per_user = _attention_by_cell(user_code, listed.position.astype(np.int64, copy=False),
                                      group_code.astype(np.int64, copy=False), slots,
                                      len(users), len(names))
    else:
        names, row, group_code, part = _split_rows(m, listed.item_id)
        cell = user_code[row] * len(names) + group_code
        attention = slots[listed.position - 1][row] * part
        per_user = np.bincount(cell, weights=attention, minlength=len(users) * len(names)
                               ).reshape(len(users), len(names))
    totals = per_user.sum(axis=0)
    share = totals / totals.sum()
    low = high = np.full(len(names), np.nan)
    if n_resamples:
        key = design_key(np.random.default_rng(rng))
        found, _ = poisson_bootstrap_sums(np.ascontiguousarray(per_user),
                                          np.ones((len(users), 1), dtype=np.uint8), key,
                                          n_resamples, streams=user_streams(pd.Index(users)))
        sums = found.T  # (B, groups)
        whole = sums.sum(axis=1, keepdims=True)  # 0 where every user drew weight 0
        replicate = np.divide(sums, whole, out=np.full(sums.shape, np.nan), where=whole > 0)
        low, high = quantile_interval(replicate, confidence)
    wanted = _target_shares(target, item_groups, names, truth=truth, train=train, func=func,
                            membership=m)
    out = pd.DataFrame({"share": share, "target": wanted,
                        "ratio": np.divide(share, wanted, out=np.full(len(names), np.nan),
                                           where=wanted > 0),
                        "ci_low": low, "ci_high": high}, index=pd.Index(names, name="group"))
    return out


@njit(cache=True, nogil=True)
def _attention_by_cell(user_code, position, group_code, slots, n_users, n_groups
                       ):  # pragma: no cover
    """Each user's attention to each group, ``(n_users, n_groups)``: the slot weight
    ``slots[position - 1]`` of every listed row added to its (user, group) cell, row by row
    (``np.bincount``'s order of addition) in one pass, without an array per step."""
    out = np.zeros(n_users * n_groups)
    for i in range(user_code.size):
        out[user_code[i] * n_groups + group_code[i]] += slots[position[i] - 1]
    return out.reshape((n_users, n_groups))


def _target_shares(target: object, item_groups: pd.Series, names: pd.Index, *,
                   truth: pd.DataFrame | None, train: pd.DataFrame | None,
                   func: str, membership: _Membership | None = None) -> np.ndarray:
    if isinstance(target, pd.Series):
        given = target.reindex(names).fillna(0.0).to_numpy(np.float64)
        if given.sum() <= 0:
            raise ValueError(f"{func}: 'target' gives no group a positive share.")
        return given / given.sum()
    target = check_choice(target, func=func, arg="target",
                          choices=("catalog", "train", "relevant"))
    frame = None
    if target != "catalog":
        frame = train if target == "train" else truth
        if frame is None:
            raise ValueError(f"{func}: target={target!r} needs "
                             f"'{'train' if target == 'train' else 'truth'}'.")
    m = membership
    if m is None:
        if frame is None:
            items = item_groups.dropna().astype(object)
        else:
            items = item_groups.reindex(frame["item_id"]).astype(object).fillna("(none)")
        counts = items.value_counts().reindex(names).fillna(0.0).to_numpy(np.float64)
    else:  # each item split equally over its groups
        if frame is None:
            by_group = pd.Series(np.bincount(m.group, weights=np.repeat(1.0 / m.sizes, m.sizes),
                                             minlength=len(m.names)), index=m.names)
        else:
            own, _, group, part = _split_rows(m, frame["item_id"].to_numpy())
            by_group = pd.Series(np.bincount(group, weights=part, minlength=len(own)),
                                 index=own)
        counts = by_group.reindex(names).fillna(0.0).to_numpy(np.float64)
    return counts / counts.sum() if counts.sum() > 0 else counts


@constrained(k=POSITIVE_INT, weight=WEIGHT, patience=PATIENCE)
def awrf(recs: pd.DataFrame, item_groups: pd.Series, *, k: int = 10, weight: str = "log",
         patience: float = 0.85, target: str | pd.Series = "catalog",
         truth: pd.DataFrame | None = None, train: pd.DataFrame | None = None,
         sep: str | None = None) -> pd.Series:
    """Attention-weighted rank fairness (Sapiezynski et al. 2019), per user: the
    Jensen-Shannon distance (base 2, in [0, 1]; lower is fairer) between the list's
    attention-weighted distribution over item groups and the target distribution
    (:func:`exposure_share`'s ``target``). Listed items without a group form ``"(none)"``;
    an item in several groups (repeated in ``item_groups``' index, or ``sep``) splits its
    attention equally among them, as in :func:`exposure_share`.

    Returns a Series by user (name ``"awrf"``).

    Parameters
    ----------
    recs : pandas.DataFrame
        Recommendations (``user_id``, ``item_id``, ``rank`` and/or ``score``).
    item_groups : pandas.Series
        Each item's group label, indexed by item, as for :func:`exposure_share`.
    k : int, default 10
        The cutoff: the top ``k`` of each list.
    weight : {"log", "geometric", "uniform"}, default "log"
        The attention of slot p (:func:`slot_weights`).
    patience : float, default 0.85
        The geometric attention's patience: slot p gets ``patience^(p - 1)``.
    target : {"catalog", "train", "relevant"} or pandas.Series, default "catalog"
        Each group's fair share, as for :func:`exposure_share`.
    truth : pandas.DataFrame, optional
        Test interactions, for ``target="relevant"``.
    train : pandas.DataFrame, optional
        Training interactions, for ``target="train"``.
    sep : str, optional
        Labels are strings joining several groups with ``sep`` (``"Action|Comedy"``).
    """
    func = "awrf"
    item_groups, groups, listed = _lists_and_groups(recs, item_groups, k, sep=sep, func=func)
    attention = slot_weights(k, weight=weight, patience=patience)[listed.position - 1]
    users = listed.users
    if groups is None:
        names, group_code = _group_codes(item_groups, listed.item_id)
        dist = np.bincount(listed.user_code * len(names) + group_code, weights=attention,
                           minlength=len(users) * len(names)).reshape(len(users), len(names))
    else:
        names, dist = _list_attention(listed, groups, attention, unlabelled=True)
    dist /= dist.sum(axis=1, keepdims=True)
    q = _target_shares(target, item_groups, names, truth=truth, train=train, func=func,
                       membership=groups)
    m = (dist + q[None, :]) / 2

    def kl(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(a > 0, a * np.log2(a / b), 0.0).sum(axis=1)

    distance = np.sqrt(np.clip(0.5 * kl(dist, m) + 0.5 * kl(np.broadcast_to(q, dist.shape), m),
                               0.0, None))
    return pd.Series(distance, index=pd.Index(users, name="user_id"), name="awrf")


@constrained(k=POSITIVE_INT, weight=WEIGHT, patience=PATIENCE, smoothing=real(minimum=0.0))
def group_entropy(recs: pd.DataFrame, item_groups: pd.Series, *, k: int = 10,
                  weight: str = "log", patience: float = 0.85, sep: str | None = None,
                  smoothing: float = 0.0) -> pd.Series:
    """How evenly each list's attention spreads over the item groups (genres, providers):
    the Shannon entropy, in bits, of its attention-weighted group distribution (higher is
    more varied).

    Parameters
    ----------
    recs : pd.DataFrame
        Recommendations (``user_id``, ``item_id``, ``rank`` and/or ``score``).
    item_groups : pd.Series
        Each item's group, indexed by item; an item in several groups: a list of labels,
        repeated in the index (one row per pair), or see ``sep``. Items without a group are
        left out of the distribution.
    k : int, default 10
        The cutoff: the top ``k`` of each list.
    weight : {"log", "geometric", "uniform"}, default "log"
        The attention of slot p (:func:`slot_weights`); ``patience`` for ``"geometric"``.
    patience : float, default 0.85
        The geometric attention's patience: slot p gets ``patience^(p - 1)``.
    sep : str, optional
        Labels are strings joining several groups with ``sep`` (``"Action|Comedy"``).
    smoothing : float, default 0
        Added to every group's attention before normalising (LensKit adds 1e-6).

    Returns
    -------
    pd.Series
        By user (name ``"group_entropy"``), in ``[0, log2 G]`` for G groups; NaN for a list
        without a grouped item (when ``smoothing`` is 0).

    Raises
    ------
    InvalidParameterError
        On a malformed ``recs``, a non-positive ``k``, an unknown ``weight``, a ``patience``
        outside (0, 1], a negative ``smoothing``, an ``item_groups`` that is not a Series or
        labels no item, or item ids of another kind than ``recs``'.

    Notes
    -----
    ``m_G = s + sum_{p <= k} w(p) a(i_p, G)`` over every group G of ``item_groups``, with
    ``a(i, G) = 1 / n_i`` for an item in ``n_i`` groups (as :func:`exposure_share`), ``s``
    the smoothing; ``q_G = m_G / sum_H m_H`` and ``H = -sum_G q_G log2 q_G`` (``0 log 0 =
    0``). LensKit 2025.8.1's ``entropy(items, categories, n=k)`` is ``weight="uniform"``
    and ``rank_biased_entropy(items, categories, n=k, weight=...)`` is ``"geometric"``
    (``GeometricRankWeight(patience)``, its default 0.85) or ``"log"``
    (``LogRankWeight(offset=1)``), both with ``smoothing=1e-6``, when ``categories`` are the
    list's rows of ``cat_matrix(normalize="distribution")`` (``lenskit/metrics/ranking/
    _entropy.py``). LensKit weights by the position in the list, evalkit by the rank (the
    same without gaps), and its matrix holds float32 (agreement to 1e-6).

    References
    ----------
    Shannon (1948); LensKit for Python, ``lenskit.metrics.ranking.rank_biased_entropy``.

    Examples
    --------
    >>> import pandas as pd
    >>> recs = pd.DataFrame({"user_id": 1, "item_id": [1, 2], "rank": [1, 2]})
    >>> genres = pd.Series({1: "Action|Comedy", 2: "Drama"})
    >>> group_entropy(recs, genres, k=2, weight="uniform", sep="|")  # 1/4, 1/4, 1/2
    user_id
    1    1.5
    Name: group_entropy, dtype: float64
    """
    func = "group_entropy"
    groups = _membership(item_groups, func=func, sep=sep)
    listed = _top_positions(recs, k, func=func)
    _check_item_kind(groups, listed, func=func)
    attention = slot_weights(k, weight=weight, patience=patience)[listed.position - 1]
    _, mass = _list_attention(listed, groups, attention, unlabelled=False)
    users = listed.users
    mass = mass + float(smoothing)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = mass / mass.sum(axis=1, keepdims=True)
        value = -np.where(q > 0, q * np.log2(q), 0.0).sum(axis=1)
    value[~np.isfinite(q).all(axis=1)] = np.nan
    return pd.Series(value, index=pd.Index(users, name="user_id"), name="group_entropy")


@constrained(k=POSITIVE_INT, n_items=POSITIVE_INT, patience=PATIENCE)
def expected_exposure(recs: pd.DataFrame, truth: pd.DataFrame, *, n_items: int, k: int = 10,
                      patience: float = 0.5, threshold: float | None = 4.0) -> pd.DataFrame:
    """Expected exposure (Diaz et al. 2020) of deterministic top-k lists, per user.

    Exposure of the item at position p: ``patience^(p - 1)`` (the RBP browsing model), 0
    beyond k. The target gives every relevant item the same exposure (they share the first
    ``min(|R_u|, k)`` slots) and every other of the ``n_items`` catalogue items the same share of
    the slots left. Per user: ``EE-D = |e|^2`` (disparity), ``EE-R = e . e*`` (relevance) and
    ``EE-L = |e - e*|^2 = EE-D - 2 EE-R + |e*|^2`` (loss; lower is better).

    Returns a DataFrame by user (users of ``truth`` with a relevant item) with ``ee_l``,
    ``ee_d``, ``ee_r``.

    Parameters
    ----------
    recs : pandas.DataFrame
        Recommendations (``user_id``, ``item_id``, ``rank`` and/or ``score``).
    truth : pandas.DataFrame
        Test interactions (``user_id``, ``item_id``, ``rating`` unless ``threshold`` is None).
    n_items : int
        The number of items in the catalogue.
    k : int, default 10
        The cutoff: exposure is 0 beyond it.
    patience : float, default 0.5
        The browsing model's patience: position p's exposure is ``patience^(p - 1)``.
    threshold : float or None, default 4.0
        A test item is relevant when its rating is at least this; None: every test item.
    """
    func = "expected_exposure"
    truth = check_truth(truth, func=func, threshold=threshold)
    relevant = truth if threshold is None else truth[truth["rating"] >= threshold]
    listed = _top_positions(recs, k, func=func)
    w = slot_weights(k, weight="geometric", patience=patience)
    users = pd.Index(pd.unique(relevant["user_id"]), name="user_id")
    r = relevant.groupby("user_id").size().reindex(users).to_numpy(np.float64)
    cumulative = np.concatenate([[0.0], np.cumsum(w)])
    top = np.minimum(r, k).astype(int)
    e_rel = cumulative[top] / r  # each relevant item's target exposure
    rest = cumulative[k] - cumulative[top]
    others = np.maximum(n_items - r, 1.0)
    e_other = rest / others
    target_norm = r * e_rel ** 2 + others * e_other ** 2
    frame = pd.DataFrame({"user_id": listed.users[listed.user_code],
                          "item_id": listed.item_id, "position": listed.position})
    frame = frame[frame["user_id"].isin(users)]
    code = users.get_indexer(frame["user_id"])
    e = w[frame["position"].to_numpy() - 1]
    hit = frame.merge(relevant[["user_id", "item_id"]].assign(_rel=True),
                      on=["user_id", "item_id"], how="left")["_rel"].fillna(False).to_numpy(bool)
    ee_d = np.bincount(code, weights=e * e, minlength=len(users))
    ee_r = np.bincount(code, weights=e * np.where(hit, e_rel[code], e_other[code]),
                       minlength=len(users))
    return pd.DataFrame({"ee_l": ee_d - 2 * ee_r + target_norm, "ee_d": ee_d, "ee_r": ee_r},
                        index=users)
