"""What a metric is: :class:`Metric`, its one declaration, and :class:`Hits`, what a ranking
metric of your own is computed from.

Every property of a metric that any part of evalkit needs (its label in tables and on axes,
its formula on the definition cards, the fields of :class:`evalkit.Definitions` that change
it, its range, its direction, whether it has curves) is a field of its :class:`Metric`; the
cards, the plots, the reports' parameter checks, the command line and the family-wide tests
read them from there.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from .._checks import InvalidParameterError
from ..definitions import OPTION_NAMES, Definitions
from ._curves import ROWS, discount, gains, truth_gains
from ._hits import HitTable

__all__ = ["Hits", "Metric", "from_hits", "hits_of"]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
FAMILIES = ("ranking", "rating", "classification", "correlation", "beyond")


@dataclass(frozen=True)
class Metric:
    """One metric, declared once.

    A ranking metric of your own needs ``name``, ``per_user`` and ``higher_is_better``; the
    rest has defaults. Pass it to :func:`evalkit.metrics.register` and it works wherever a
    built-in metric does (see the example there).

    Attributes
    ----------
    name : str
        Registry name, a Python identifier (``"ndcg"``); columns are ``name@k``.
    per_user : callable, optional
        For a ranking metric computed from each user's hits: ``per_user(hits, k)`` returns
        one float per user of ``hits.users`` (NaN where the metric is undefined for the user,
        which the ``empty`` definition then handles). See :class:`Hits`.
    higher_is_better : bool, default True
        Direction of improvement: :func:`evalkit.compare` and the reports say which system
        is better by it.
    label : str, optional
        Short label for tables (``"NDCG"``; ``@k`` is appended where it applies); default:
        the name.
    long_label : str, optional
        Label for axes and prose (``"Hit rate"``); default: ``label``.
    formula : str
        The definition in plain text, as the definition cards and tables show it.
    latex : str
        The definition as a LaTeX formula, as the documentation typesets it (the metric
        reference page); where both are given they state the same definition.
    reference : str
        The publication the metric comes from (authors, year, title, venue), as the
        documentation cites it.
    reads : tuple of str
        The fields of :class:`evalkit.Definitions` that change the metric's value. Its
        function accepts these as keywords and refuses the others.
    bounds : tuple of float, default (-inf, inf)
        Smallest and largest possible per-user value.
    defined_without_relevant : bool, default True
        Whether a user without a relevant test item has a value (False: undefined, and the
        ``empty`` definition decides).
    curves : bool, default False
        Whether :func:`evalkit.metrics.ranking_curves` and the reports' curves draw it at
        every cutoff.
    at_k : bool, default True
        Whether the metric takes a cutoff ``k``.
    family : str, default "ranking"
        ``"ranking"``, ``"rating"``, ``"classification"``, ``"correlation"`` or ``"beyond"``.
    function : str or callable, optional
        The metric's public function: for a built-in metric its name in
        :mod:`evalkit.metrics` (``"ndcg_at_k"``), so that the declaration imports none of the
        code that computes it; for a metric of your own, :func:`~evalkit.metrics.register`
        derives it from ``per_user`` (what is given here is replaced). :attr:`func` is the
        function itself.
    kernel : str, optional
        For evalkit's built-in ranking metrics computed by the compiled engine (which also
        gives them ``ties="expected"``): the kernels' row that computes it
        (:data:`evalkit.metrics._curves.ROWS`: ``"ndcg"``, or ``"r_precision_at_k"`` for
        R-precision, which has no cutoff and is read past every list). A metric with
        ``per_user`` is computed from :class:`Hits`.
    system_level : bool, default False
        Its function returns one number for the system, not per-user values.
    inputs : tuple of str
        What its function takes, in order: ``truth``, ``recs``, ``predictions``, ``train``,
        ``items``.
    per_rank : callable, optional
        The metric's value for one relevant item at rank ``r`` (a float array, 1-based; a
        rank may be fractional where it is estimated), cut at ``k`` (None: no cutoff):
        ``per_rank(r, k)``. Sampled-candidate evaluation
        (:mod:`evalkit.protocols.sampled`) ranks each held-out item among sampled negatives
        and needs it; a metric without one is refused there.
    """

    name: str
    per_user: Callable[[Hits, int], np.ndarray] | None = None
    higher_is_better: bool = True
    label: str | None = None
    long_label: str | None = None
    formula: str = ""
    reads: tuple[str, ...] = ()
    bounds: tuple[float, float] = (-math.inf, math.inf)
    defined_without_relevant: bool = True
    curves: bool = False
    at_k: bool = True
    family: str = "ranking"
    function: str | Callable | None = field(default=None, compare=False)
    kernel: str | None = None
    system_level: bool = False
    inputs: tuple[str, ...] = ("truth", "recs")
    per_rank: Callable[[np.ndarray, int | None], np.ndarray] | None = field(
        default=None, compare=False)
    latex: str = ""
    reference: str = ""

    def __post_init__(self) -> None:
        where = "Metric"
        if not isinstance(self.name, str) or not _NAME.match(self.name):
            raise InvalidParameterError(
                f"{where}: 'name' must be a Python identifier (it names columns such as "
                f"'name@10'); got {self.name!r}.")
        where = f"Metric({self.name!r})"
        if self.per_user is not None and not callable(self.per_user):
            raise InvalidParameterError(
                f"{where}: 'per_user' must be a function (hits, k) -> array; got "
                f"{type(self.per_user).__name__}.")
        if not (self.function is None or callable(self.function)
                or (isinstance(self.function, str) and _NAME.match(self.function))):
            raise InvalidParameterError(
                f"{where}: 'function' must be the name of a function of evalkit.metrics or a "
                f"function; got {self.function!r}.")
        if self.kernel is not None and self.kernel not in ROWS:
            raise InvalidParameterError(
                f"{where}: 'kernel' must be one of the compiled kernels' rows "
                f"({', '.join(ROWS)}), or None for a metric computed from hits; got "
                f"{self.kernel!r}.")
        if not isinstance(self.higher_is_better, (bool, np.bool_)):
            raise InvalidParameterError(
                f"{where}: 'higher_is_better' must be True or False; got "
                f"{self.higher_is_better!r}.")
        for arg in ("label", "long_label", "formula", "latex", "reference"):
            value = getattr(self, arg)
            if value is not None and not isinstance(value, str):
                raise InvalidParameterError(
                    f"{where}: {arg!r} must be a string; got {type(value).__name__}.")
        if self.family not in FAMILIES:
            raise InvalidParameterError(
                f"{where}: 'family' must be one of {', '.join(FAMILIES)}; got {self.family!r}.")
        reads = (self.reads,) if isinstance(self.reads, str) else tuple(self.reads)
        unknown = [r for r in reads if r not in OPTION_NAMES]
        if unknown:
            raise InvalidParameterError(
                f"{where}: 'reads' names {', '.join(map(repr, unknown))}, which "
                f"{'is not a field' if len(unknown) == 1 else 'are not fields'} of "
                f"evalkit.Definitions; the fields are {', '.join(OPTION_NAMES)}.")
        object.__setattr__(self, "reads", reads)
        try:
            low, high = (float(b) for b in self.bounds)
        except (TypeError, ValueError):
            raise InvalidParameterError(
                f"{where}: 'bounds' must be two numbers (low, high); got {self.bounds!r}."
            ) from None
        if not low <= high:
            raise InvalidParameterError(
                f"{where}: 'bounds' must have low <= high; got {self.bounds!r}.")
        object.__setattr__(self, "bounds", (low, high))
        if self.label is None:
            object.__setattr__(self, "label", self.name)
        if self.long_label is None:
            object.__setattr__(self, "long_label", self.label)

    @property
    def func(self) -> Callable | None:
        """The public function: ``evalkit.metrics.<function>`` for a built-in metric, the
        derived one for a metric of your own (None before it is registered)."""
        if isinstance(self.function, str):
            return getattr(sys.modules["evalkit.metrics"], self.function)
        return self.function

    @property
    def expected_ties(self) -> bool:
        """Whether the metric takes ``ties="expected"`` (the engine's metrics do; a metric
        from hits is computed in one order of the tied items)."""
        return self.kernel is not None

    def undefined_without_relevant(self, definitions: Definitions) -> bool:
        """Whether a user without a relevant test item has no value under ``definitions``:
        when the metric is declared so (``defined_without_relevant=False``), or it reads
        ``precision_users`` and that is ``"relevant"`` (precision and hit rate then average
        the users with a relevant item only).

        Parameters
        ----------
        definitions : evalkit.Definitions
            The definitions the metric is computed under.
        """
        return not self.defined_without_relevant or (
            "precision_users" in self.reads and definitions.precision_users == "relevant")

    @property
    def better(self) -> str:
        """``"higher"`` or ``"lower"``."""
        return "higher" if self.higher_is_better else "lower"

    def column_label(self, k: int | None) -> str:
        """The label of the metric at ``k`` in tables: ``"NDCG@10"``.

        Parameters
        ----------
        k : int or None
            The cutoff; None (or a metric without cutoffs) gives the label alone.
        """
        return self.label + (f"@{k}" if self.at_k and k is not None else "")


@dataclass(frozen=True, eq=False)
class Hits:
    """Each user's hits at a cutoff: the relevant test items found in the top ``k``.

    The input of a ranking metric of your own (:class:`Metric` ``per_user``). Arrays are flat,
    one entry per hit, grouped by user in the order of ``users`` and sorted by rank within a
    user: the hits of the user at position ``j`` are ``offsets[j]:offsets[j + 1]``. A user
    with no hit (or no recommendations) has an empty range. Lists are in the order the
    definitions give them (``ties`` ``"deterministic"``, ``"optimistic"`` or
    ``"pessimistic"``; a metric from hits has no expectation over tie orders, so
    ``ties="expected"`` is refused for it on lists with tied scores, and is their one order
    on lists without).

    Attributes
    ----------
    users : pandas.Index
        The evaluated users (every user in the truth), sorted.
    k : int
        The cutoff.
    offsets : numpy.ndarray
        ``n_users + 1`` int64 offsets into the per-hit arrays.
    rank : numpy.ndarray
        Per hit: its 1-based rank in the user's list (at most ``k``), int64.
    gain : numpy.ndarray
        Per hit: its gain under the definitions (``gain``, ``gain_scope``), float64.
    n_relevant : numpy.ndarray
        Per user: relevant test items, int64.
    n_listed : numpy.ndarray
        Per user: recommendations within the top ``k``, int64.
    ideal_offsets, ideal_gain : numpy.ndarray
        Per user (``ideal_offsets``, ``n_users + 1`` entries): the gains of every one of the
        user's test items, largest first: the ideal list's gains (as NDCG's ideal uses them).
    definitions : evalkit.Definitions
        The definitions in force.

    Examples
    --------
    The rank of each user's first hit, NaN without one:

    >>> def first_rank(hits, k):
    ...     return hits.first(hits.rank.astype(float))
    """

    users: pd.Index
    k: int
    offsets: np.ndarray
    rank: np.ndarray
    gain: np.ndarray
    n_relevant: np.ndarray
    n_listed: np.ndarray
    ideal_offsets: np.ndarray
    ideal_gain: np.ndarray
    definitions: Definitions

    @property
    def n_users(self) -> int:
        """The number of users: the length of ``users``."""
        return len(self.users)

    @cached_property
    def user(self) -> np.ndarray:
        """Per hit: the position of its user in ``users``."""
        return np.repeat(np.arange(self.n_users), np.diff(self.offsets))

    def count(self) -> np.ndarray:
        """Per user: the number of hits (float64)."""
        return np.diff(self.offsets).astype(np.float64)

    def sum(self, values: np.ndarray) -> np.ndarray:  # noqa: A003 - a reduction's name
        """Per user: the sum of a per-hit array (0 for a user without hits).

        Parameters
        ----------
        values : numpy.ndarray
            One number per hit, in the order of the hits (``hits.gain``, a function of
            ``hits.rank``, ...).
        """
        return np.bincount(self.user, weights=np.asarray(values, dtype=np.float64),
                           minlength=self.n_users)

    def first(self, values: np.ndarray, default: float = np.nan) -> np.ndarray:
        """Per user: a per-hit array's value at the user's first (best ranked) hit, else
        ``default``.

        Parameters
        ----------
        values : numpy.ndarray
            One number per hit, in the order of the hits.
        default : float, default NaN
            The value of a user without hits.
        """
        out = np.full(self.n_users, default, dtype=np.float64)
        has = self.offsets[1:] > self.offsets[:-1]
        out[has] = np.asarray(values, dtype=np.float64)[self.offsets[:-1][has]]
        return out

    def discount(self, positions: np.ndarray) -> np.ndarray:
        """The definitions' DCG discount at 1-based ``positions`` (``discount``,
        ``log_base``): ``log_b(i + 1)``, or Breese's ``max(1, log_b(i))``.

        Parameters
        ----------
        positions : numpy.ndarray
            Ranks, 1 for the top of the list.
        """
        return discount(self.definitions, np.asarray(positions, dtype=np.float64))

    def _cut(self, k: int, n_listed: np.ndarray) -> Hits:
        """The hits within a smaller cutoff ``k`` (``n_listed``: recommendations within it)."""
        keep = self.rank <= k
        counts = np.bincount(self.user[keep], minlength=self.n_users)
        offsets = np.zeros(self.n_users + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        return Hits(self.users, k, offsets, self.rank[keep], self.gain[keep], self.n_relevant,
                    n_listed, self.ideal_offsets, self.ideal_gain,
                    self.definitions)


def hits_of(table: HitTable, k: int, definitions: Definitions, *, metric: str,
            func: str) -> Hits:
    """The :class:`Hits` of a hit table at cutoff ``k``. Under ``ties="expected"`` the
    lists' one order is the expectation when no two items of a list share a score (a
    ``rank`` column, or distinct scores); tied scores are refused, since hits hold one
    order of them."""
    if table.expected and table.has_ties:
        raise ValueError(
            f"{func}: metric {metric!r} is computed from each user's hits in one order of "
            "the tied items and has no expectation over their orders, so it cannot take "
            "ties='expected' on lists with tied scores; use ties='deterministic', "
            "'optimistic' or 'pessimistic' (or lists without ties).")
    t = table
    hit = (t.rel > 0) & (t.pos <= k)
    rows = np.flatnonzero(hit)
    n_users = t.n_users
    offsets = np.zeros(n_users + 1, dtype=np.int64)
    np.cumsum(np.bincount(t.ucode[rows], minlength=n_users), out=offsets[1:])
    every = np.ones(rows.size, dtype=bool)
    gain = gains(definitions, t.rating[rows], every, every).astype(np.float64)
    ideal_offsets = np.searchsorted(t.truth_ucode, np.arange(n_users + 1)).astype(np.int64)
    listed = np.bincount(t.ucode[t.pos <= k], minlength=n_users).astype(np.int64)
    return Hits(t.users, int(k), offsets, t.pos[rows].astype(np.int64), gain,
                np.rint(t.n_rel).astype(np.int64), listed, ideal_offsets,
                np.asarray(truth_gains(t, definitions), dtype=np.float64), definitions)


def from_hits(metric: Metric, hits: Hits, *, func: str) -> tuple[np.ndarray, np.ndarray]:
    """``(values, undefined)`` of a metric declared with ``per_user``, checked."""
    low, high = metric.bounds
    if hits.definitions.empty == "zero" and not low <= 0 <= high:
        raise ValueError(
            f"{func}: empty='zero' would score the users for whom {metric.name!r} is "
            f"undefined 0, outside its range [{low:g}, {high:g}]; use empty='drop' (leave "
            "them out) or 'nan'.")
    try:
        out = metric.per_user(hits, hits.k)
    except Exception as error:  # the user's own error, saying whose function raised it
        error.add_note(f"{func}: in metric {metric.name!r}'s per_user function")
        raise
    try:
        values = np.array(out, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise ValueError(
            f"{func}: metric {metric.name!r}'s per_user function must return one number per "
            f"user; got {type(out).__name__}.") from None
    if values.size != hits.n_users or np.ndim(out) != 1:
        raise ValueError(
            f"{func}: metric {metric.name!r}'s per_user function must return one value per "
            f"user ({hits.n_users}, in the order of hits.users); got shape {np.shape(out)}.")
    undefined = np.isnan(values)
    outside = ~undefined & ((values < low) | (values > high))
    if outside.any():
        first = int(np.flatnonzero(outside)[0])
        raise ValueError(
            f"{func}: metric {metric.name!r} gave {int(outside.sum())} value(s) outside its "
            f"declared bounds [{low:g}, {high:g}] (user {hits.users[first]!r}: "
            f"{values[first]:g}); fix the function or its bounds.")
    if metric.undefined_without_relevant(hits.definitions):
        undefined |= hits.n_relevant == 0
    values[undefined] = 0.0
    return values, undefined
