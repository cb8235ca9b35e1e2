"""What every ranking metric starts from: the call's definitions, the validated inputs and
their hit table (:func:`prepare`), and the count of users whose tied scores straddle a cutoff
(:func:`tie_check`). The engine (:mod:`._engine`) is their one caller for the metrics."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import pandas as pd

from .._checks import (
    as_dataframe,
    check_columns,
    check_item_pairs,
    check_rank_pairs,
)
from ..definitions import Definitions, resolve
from ._common import (
    check_id_dtypes,
    check_recs,
    check_truth,
    warn_id_formats,
    warn_ties,
)
from ._hits import HitTable, TruthSide, build_hits, listed_pairs, truth_side

__all__ = ["SharedTruth", "make_definitions", "prepare", "sharing_tables", "table_fields",
           "tie_check"]


def make_definitions(func: str, definitions: object = None, **options: object) -> Definitions:
    """The :class:`~evalkit.Definitions` of a call, validated once (see
    :func:`evalkit.definitions.resolve`)."""
    return resolve(definitions, func=func, **options)


class SharedTruth:
    """One test truth for several lists (the systems of :func:`evalkit.compare`): validated
    once per relevance mode and coded once (:class:`._hits.TruthSide`), then joined to each
    list. :func:`prepare` (so :func:`evalkit.evaluate`) takes it in place of the frame."""

    def __init__(self, truth: object) -> None:
        self.raw = truth
        self._frames: dict[bool, pd.DataFrame] = {}
        self._sides: dict[bool, TruthSide] = {}

    def frame(self, threshold: float | None, *, func: str) -> pd.DataFrame:
        """The validated frame (implicit data gets its ratings only with ``threshold=None``)."""
        implicit = threshold is None
        if implicit not in self._frames:
            self._frames[implicit] = check_truth(self.raw, func=func, threshold=threshold)
        return self._frames[implicit]

    def side(self, threshold: float | None) -> TruthSide:
        """The coded truth of :meth:`frame` (call that first)."""
        implicit = threshold is None
        if implicit not in self._sides:
            self._sides[implicit] = truth_side(self._frames[implicit])
        return self._sides[implicit]


#: The hit tables of a :func:`sharing_tables` block: (truth, recs, train, fields) -> table,
#: the most recent few only.
_TABLES: ContextVar[OrderedDict | None] = ContextVar("evalkit_hit_tables", default=None)
#: Hit tables a :func:`sharing_tables` block keeps (a table of 16M list rows is ~0.5 GB).
_KEPT = 2


@contextmanager
def sharing_tables() -> Iterator[None]:
    """Within the block, one hit table per list, test truth, training data (the same objects)
    and the definitions a table depends on (threshold, ties, tie order, unknown items,
    relevant set): several evaluations of the same lists under other definitions (the
    libraries' profiles) build each table once. The last few tables are kept, so a caller
    orders its evaluations by those definitions."""
    token = _TABLES.set(OrderedDict())
    try:
        yield
    finally:
        _TABLES.reset(token)


def table_fields(definitions: Definitions) -> tuple:
    """The definitions a hit table depends on."""
    return (definitions.threshold, definitions.unknown_items, definitions.relevant_set,
            definitions.ties, definitions.tie_order)


def prepare(
    truth: object, recs: object, definitions: Definitions, *, func: str,
    train: object = None,
) -> HitTable:
    """Validate ``truth`` (a frame or a :class:`SharedTruth`) and ``recs`` and build their hit
    table under ``definitions`` (once per :func:`sharing_tables` block).

    ``unknown_items="drop"`` removes the test items absent from ``train`` and
    ``relevant_set="listed"`` those absent from the user's list; the users stay (a user left
    with no test item is undefined wherever a metric needs one, see ``empty``).
    """
    tables = _TABLES.get()
    if tables is None:
        return _prepare(truth, recs, definitions, func=func, train=train)
    key = (id(truth), id(recs), id(train), table_fields(definitions))
    kept = tables.get(key)
    if kept is not None and kept[0] is truth and kept[1] is recs and kept[2] is train:
        tables.move_to_end(key)
        return kept[3]
    table = _prepare(truth, recs, definitions, func=func, train=train)
    tables[key] = (truth, recs, train, table)  # the objects too: an id is never reused
    while len(tables) > _KEPT:
        tables.popitem(last=False)
    return table


def _prepare(truth: object, recs: object, definitions: Definitions, *, func: str,
             train: object) -> HitTable:
    shared = truth if isinstance(truth, SharedTruth) else None
    truth = shared.frame(definitions.threshold, func=func) if shared is not None else \
        check_truth(truth, func=func, threshold=definitions.threshold)
    # the hit table finds repeated ranks (their order) and items (the join)
    recs = check_recs(recs, func=func, item_pairs=False, rank_pairs=False)
    check_id_dtypes(truth, recs, func=func)
    warn_id_formats(truth, recs, func=func)
    users = None
    if definitions.unknown_items == "drop":
        if train is None:
            raise ValueError(
                f"{func}: unknown_items='drop' removes the test items never seen in training, "
                "so it needs the training interactions: pass train= (--train on the command "
                "line)."
            )
        train = check_columns(as_dataframe(train), func=func, arg="train",
                              required=["item_id"])
        users = truth["user_id"].unique()
        truth = truth[truth["item_id"].isin(train["item_id"].unique())]
    if definitions.relevant_set == "listed":
        users = truth["user_id"].unique() if users is None else users
        truth = truth[listed_pairs(truth, recs)]
    if shared is not None and users is None:  # the truth as validated: coded once
        truth = shared.side(definitions.threshold)
    table = build_hits(truth, recs, threshold=definitions.threshold, ties=definitions.ties,
                       tie_order=definitions.tie_order, users=users)
    if table.repeats_rank:
        check_rank_pairs(recs, func=func)  # raises, naming the first repeated rank
    if table.repeats_item:
        check_item_pairs(recs, func=func)  # raises, naming the first repeated pair
    return table


def tie_check(table: HitTable, k: int, definitions: Definitions, *, func: str) -> int:
    """Count (and warn about) users whose tied scores straddle ``k``."""
    n = table.n_straddling(k)
    if definitions.ties != "expected":
        warn_ties(n, k, func=func)
    return n
