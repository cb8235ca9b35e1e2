"""What the exposure and parity measures share: position weights, item groups (one label or
several per item) and each user's top k as arrays (see :mod:`evalkit.fairness`)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from .._checks import (
    check_same_kind,
)
from .._constraints import choice, real
from .._errors import InvalidParameterError


def slot_weights(k: int, *, weight: str = "log", patience: float = 0.85) -> np.ndarray:
    """The attention a list gives each of its first ``k`` slots: ``1 / log2(p + 1)``
    (``"log"``), ``patience^(p - 1)`` (``"geometric"``) or 1 (``"uniform"``).

    Parameters
    ----------
    k : int
        The number of slots.
    weight : {"log", "geometric", "uniform"}, default "log"
        The form of the attention.
    patience : float, default 0.85
        The geometric form's patience.
    """
    p = np.arange(1, k + 1, dtype=np.float64)
    if weight == "log":
        return 1.0 / np.log2(p + 1.0)
    if weight == "geometric":
        return patience ** (p - 1.0)
    return np.ones(k)


#: The attention of a list's slots (:func:`slot_weights`), and the geometric model's patience.
WEIGHT = choice("log", "geometric", "uniform")
PATIENCE = real(minimum=0.0, strict=True, maximum=1.0)


class _Membership(NamedTuple):
    """Every (item, group) pair of ``item_groups``, pairs sorted by item."""

    names: pd.Index  # the groups, in order of first appearance
    items: pd.Index  # the labelled items
    starts: np.ndarray  # item j's groups are group[starts[j]:starts[j + 1]]
    group: np.ndarray  # group code of each pair

    @property
    def sizes(self) -> np.ndarray:
        """Each labelled item's number of groups."""
        return np.diff(self.starts)


def _exploded(item_groups: pd.Series) -> pd.Series:
    """Labels given as lists (an item's genres) as one row per (item, label); other Series
    unchanged (strings are not split here: that is ``sep``'s)."""
    return item_groups.explode() if item_groups.dtype == object else item_groups


def _item_groups(item_groups: object, *, func: str, sep: object) -> pd.Series:
    """``item_groups`` as a Series, one row per (item, group) label (NaN rows dropped)."""
    if not isinstance(item_groups, pd.Series):
        raise InvalidParameterError(
            f"{func}: 'item_groups' must be a pandas Series of group labels indexed by item_id; "
            f"got {type(item_groups).__name__}.")
    if sep is not None and (not isinstance(sep, str) or not sep):
        raise InvalidParameterError(
            f"{func}: 'sep' must be a non-empty string (the separator of several labels in one "
            f"string, such as '|') or None; got {sep!r}.")
    labels = _exploded(item_groups).dropna()
    if sep is not None:
        labels = labels.astype(str).str.split(sep, regex=False).explode()
        labels = labels[labels != ""]
    return labels.astype(object)


def _membership(item_groups: pd.Series, *, func: str, sep: object,
                require: bool = True) -> _Membership:
    """The item-group pairs of ``item_groups`` (repeated items, or ``sep``-joined labels:
    several groups per item); duplicate pairs count once."""
    labels = _item_groups(item_groups, func=func, sep=sep)
    if require and not len(labels):
        raise InvalidParameterError(
            f"{func}: 'item_groups' gives no item a group (every label "
            "is missing).")
    pairs = pd.DataFrame({"item": labels.index, "group": labels.to_numpy()}).drop_duplicates()
    names = pd.Index(pd.unique(pairs["group"]))
    item_code, items = pd.factorize(pairs["item"])
    order = np.argsort(item_code, kind="stable")
    starts = np.concatenate([[0], np.cumsum(np.bincount(item_code, minlength=len(items)))])
    return _Membership(names, pd.Index(items), starts,
                       names.get_indexer(pairs["group"].to_numpy())[order])


def _split_rows(m: _Membership, items: np.ndarray
                ) -> tuple[pd.Index, np.ndarray, np.ndarray, np.ndarray]:
    """Each of ``items``' rows split over its groups in equal parts: ``(names, row, group,
    part)``, one entry per (row, group) with ``part = 1 / #groups of the item``; an item
    without a group is one entry of the group ``"(none)"`` (added to ``names`` when used)."""
    item_codes, distinct = pd.factorize(items)
    code = m.items.get_indexer(distinct)[item_codes]  # -1: no group
    names = m.names.append(pd.Index(["(none)"])) if (code < 0).any() else m.names
    # code -1 reads the last entry: one pair, at a position holding the code of "(none)"
    count = np.append(m.sizes, 1)[code]
    first = np.append(m.starts[:-1], len(m.group))[code]
    row = np.repeat(np.arange(len(items)), count)
    pair = np.repeat(first - (np.cumsum(count) - count), count) + np.arange(len(row))
    group = np.append(m.group, len(names) - 1)[pair]
    return names, row, group, 1.0 / count[row]


def _group_counts(m: _Membership, items: np.ndarray) -> np.ndarray:
    """Per group, how many of ``items`` (with repeats) belong to it: an item counts once in
    each of its groups."""
    codes, distinct = pd.factorize(items)
    count = np.append(np.bincount(codes, minlength=len(distinct)), 0)
    per_item = count[pd.Index(distinct).get_indexer(m.items)]  # -1: not among items, 0
    return np.bincount(m.group, weights=np.repeat(per_item, m.sizes).astype(np.float64),
                       minlength=len(m.names)).round().astype(np.int64)


class _Lists(NamedTuple):
    """The first k items of every list, as arrays in list order."""

    item_id: np.ndarray
    position: np.ndarray  # 1-based
    user_code: np.ndarray  # into users
    users: np.ndarray


def _top_positions(recs: pd.DataFrame, k: int, *, func: str) -> _Lists:
    """Each user's top ``k`` as the ranking metrics order lists
    (:func:`evalkit.metrics.top_k`), as arrays."""
    from .._checks import check_recs
    from ..metrics import top_k

    top = top_k(check_recs(recs, func=func), k=k)
    user = top["user_id"].to_numpy()
    # top_k gives each user's rows together: a user's code counts the runs before it
    new_run = np.ones(len(user), bool)
    new_run[1:] = user[1:] != user[:-1]
    codes = np.cumsum(new_run) - 1
    return _Lists(top["item_id"].to_numpy(), top["rank"].to_numpy(), codes, user[new_run])


def _group_codes(item_groups: pd.Series, items: np.ndarray) -> tuple[pd.Index, np.ndarray]:
    """The group names (every labelled group, then ``"(none)"`` for listed items without a
    label) and each listed item's group code."""
    names = pd.Index(pd.unique(item_groups.dropna().astype(object)))
    ids = item_groups.index.to_numpy()
    both = ids.dtype == np.int64 and items.dtype == np.int64 and len(items) > 0
    lo = int(items.min()) if both else 0
    span = int(items.max()) - lo + 1 if both else -1
    if both and 0 < span <= 8 * len(ids) + (1 << 20):
        # integer ids in a dense range: a lookup table, no hashing of every listed item
        table = np.full(span, -1, dtype=np.int64)
        inside = (ids >= lo) & (ids < lo + span)
        table[ids[inside] - lo] = names.get_indexer(
            item_groups.to_numpy()[inside].astype(object))
        code = table[items - lo]
    else:
        item_codes, distinct = pd.factorize(items)  # each distinct item looked up once
        code = names.get_indexer(item_groups.reindex(distinct).astype(object))[item_codes]
    if (code < 0).any():
        names = names.append(pd.Index(["(none)"]))
        code = np.where(code < 0, len(names) - 1, code)
    return names, code


def _list_attention(listed: _Lists, m: _Membership, attention: np.ndarray, *,
                    unlabelled: bool) -> tuple[pd.Index, np.ndarray]:
    """Per list, the attention each group gets, an item in n groups giving each 1/n of its
    slot's: ``(names, mass)``, ``mass`` users x groups. ``unlabelled``: items without a group
    form ``"(none)"``; otherwise they are left out."""
    names, row, group, part = _split_rows(m, listed.item_id)
    if not unlabelled and len(names) > len(m.names):
        keep = group < len(m.names)
        names, row, group, part = m.names, row[keep], group[keep], part[keep]
    n_users = len(listed.users)
    mass = np.bincount(listed.user_code[row] * len(names) + group,
                       weights=attention[row] * part,
                       minlength=n_users * len(names)).reshape(n_users, len(names))
    return names, mass


def _lists_and_groups(recs: pd.DataFrame, item_groups: object, k: int, *, sep: object,
                      func: str) -> tuple[pd.Series, _Membership | None, _Lists]:
    """What the exposure measures read: ``item_groups`` (label lists exploded), its
    item-group pairs when an item may have several groups (else None: one label each), and
    each user's top ``k``; group ids of another kind than the lists' are refused."""
    if not isinstance(item_groups, pd.Series):
        raise InvalidParameterError(
            f"{func}: 'item_groups' must be a pandas Series indexed by item_id; "
            f"got {type(item_groups).__name__}.")
    item_groups = _exploded(item_groups)
    multi = sep is not None or item_groups.index.has_duplicates
    m = _membership(item_groups, func=func, sep=sep, require=False) if multi else None
    listed = _top_positions(recs, k, func=func)
    check_same_kind(pd.Series(item_groups.index), "item_groups", pd.Series(listed.item_id),
                    "recs", func=func, column="item_id")
    return item_groups, m, listed


def _check_item_kind(groups: _Membership, listed: _Lists, *, func: str) -> None:
    """Refuse item ids of another kind (integer, string) than the lists': none would match."""
    check_same_kind(pd.Series(groups.items), "item_groups", pd.Series(listed.item_id), "recs",
                    func=func, column="item_id")
