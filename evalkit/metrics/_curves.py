"""The engine's reductions of one :class:`HitTable`: the compiled ranking metrics at chosen
cutoffs, and their means over users at every cutoff ``1..k_max``.

:class:`RankingCurves` is the call into the compiled kernels and their cache. P, R, F1, HR,
RR, AP, DCG, NDCG, R-precision (cut at k, or at each user's own ``|R_u|``) and half-life
utility come from one walk over each user's positions (:func:`._kernels.rank_reduce` at
chosen cutoffs, :func:`._kernels.rank_sums` for the means at every cutoff), users in parallel
chunks, under every definition and tie policy (``ties="expected"`` included), with no
``(n_users, k)`` matrix. The gains and the ideal list's gains that the kernels and
:func:`~._spec.hits_of` read are :func:`gains` and :func:`truth_gains`.

``tests/metrics/matrix_forms.py`` states every metric again as whole-array NumPy operations
on dense matrices; ``tests/metrics/test_curves_paths.py`` holds the two to 1e-12.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

import numpy as np

from ..definitions import Definitions
from . import _kernels
from ._common import n_counted
from ._hits import HitTable

__all__ = ["HALF_LIFE", "RATIOS", "ROWS", "RankingCurves", "gains", "mean_over_users",
           "truth_gains"]

#: The row of Breese's half-life utility: the kernels' ratio of discounted sums (their NDCG
#: row) under its own gains and discounts (see ``RankingCurves._inputs``).
HALF_LIFE = "half_life"
_KERNEL_ROW = {HALF_LIFE: "ndcg"}
#: The rows the compiled kernels compute: a compiled metric's declaration names one
#: (:attr:`evalkit.metrics.Metric.kernel`).
ROWS = _kernels.AT_METRICS + (HALF_LIFE,)
#: The rows that are ratios to an ideal sum, undefined where that sum is 0.
RATIOS = ("ndcg", HALF_LIFE)

#: The largest rating whose exponential gain, 2**rating - 1, is finite in float64.
_MAX_EXP_RATING = 1023

_RULES = {"ap": (_kernels.AP_RULES, "ap_denominator"),
          "recall": (_kernels.RECALL_RULES, "recall_denominator"),
          "ideal": (_kernels.IDEAL_RULES, "ideal")}


def discount(definitions: Definitions, positions: np.ndarray) -> np.ndarray:
    """DCG's discount at 1-based ``positions``: ``log_b(i + 1)``, or ``max(1, log_b i)``."""
    base = np.log(definitions.log_base)
    if definitions.discount == "breese":
        return np.maximum(1.0, np.log(positions) / base)
    return np.log(positions + 1.0) / base


def gains(definitions: Definitions, rating: np.ndarray, relevant: np.ndarray,
          present: np.ndarray) -> np.ndarray:
    """The gain of items with test ratings ``rating`` (``relevant``: above the threshold;
    ``present``: in the test set at all)."""
    kind = definitions.gain
    if kind == "binary":
        return relevant.astype(np.float64)
    if definitions.gain_scope == "relevant":
        present = present & relevant
    if kind == "exponential":
        return np.where(present, np.exp2(rating) - 1.0, 0.0)
    return np.where(present, rating, 0.0)


def truth_gains(table: HitTable, definitions: Definitions) -> np.ndarray:
    """Gain of each test item in the table's ideal order (the ideal list's gains)."""
    t = table
    if definitions.gain == "binary":
        # the ideal list puts the relevant items first, whatever their ratings
        return (t.truth_rank <= t.n_rel[t.truth_ucode]).astype(np.float64)
    if definitions.gain == "linear" and definitions.gain_scope == "rated":
        return t.truth_rating
    threshold = definitions.threshold
    truth_rel = (np.ones(t.truth_rating.size, dtype=bool) if threshold is None
                 else t.truth_rating >= threshold)
    return gains(definitions, t.truth_rating, truth_rel, np.ones(truth_rel.size, dtype=bool))


class RankingCurves:
    """The compiled ranking metrics of one hit table under one set of definitions.

    :meth:`at` gives per-user values at chosen cutoffs (any cutoffs: a cutoff past every list
    costs nothing more); :meth:`means`, the mean over users at each cutoff ``1..k_max``;
    :meth:`r_precision`, R-precision at each user's ``|R_u|``. Each kernel call is made once
    and cached.
    """

    def __init__(self, table: HitTable, k_max: int, definitions: Definitions) -> None:
        self.table = table
        self.k_max = k_max
        self.definitions = definitions
        self._cache: dict[tuple, object] = {}

    @cached_property
    def _longest(self) -> int:
        """The last position that holds a recommendation or an item of an ideal list."""
        t = self.table
        listed = t.n_per_user > 0
        last = t.pos[t.row_start[1:][listed] - 1] if listed.any() else np.zeros(1, np.int64)
        return max(int(last.max()), int(t.n_truth.max()) if t.n_truth.size else 0, 1)

    def check_gains(self, *, func: str) -> None:
        """Refuse test ratings that the gain cannot turn into a meaningful DCG: negative
        ratings under a rating-valued gain (NDCG would leave [0, 1]), and ratings whose
        exponential gain overflows float64."""
        # every test rating is among the codes' ratings (a rating level or a row's rating),
        # so their extremes decide without ordering the truth
        gain, ratings = self.definitions.gain, self.table.code_rating[1:]
        if gain == "binary" or ratings.size == 0:
            return
        if ratings.min() < 0:
            n_negative = int((self.table.truth_rating < 0).sum())
            raise ValueError(
                f"{func}: gain={gain!r} needs non-negative test ratings (a rating is an item's "
                f"worth); {n_negative} are negative (lowest {ratings.min():g}). "
                "Use gain='binary', or shift the ratings to start at 0."
            )
        if gain == "exponential" and ratings.max() > _MAX_EXP_RATING:
            raise ValueError(
                f"{func}: gain='exponential' (2**rating - 1) overflows for ratings above "
                f"{_MAX_EXP_RATING}; the highest test rating is {ratings.max():g}. Use "
                "gain='linear', or rescale the ratings."
            )

    # -- the kernels ---------------------------------------------------------------------
    def _inputs(self, depth: int, unit_cutoffs: np.ndarray, half_life: bool
                ) -> tuple[_kernels.Lists, _kernels.Scoring]:
        """The kernels' arguments: positions ``1..depth`` discounted, the unit ideal DCG at
        ``unit_cutoffs`` (under ``ideal="k"``).

        With ``half_life`` the gains and discounts are those of Breese's half-life utility
        (``max(rating - neutral, 0)``, weight ``2^(-(i - 1) / (alpha - 1))`` at position i,
        the ideal list from every test item), whose ratio the kernels return as their NDCG.
        """
        t, o = self.table, self.definitions
        positions = np.arange(1, depth + 1, dtype=np.float64)
        rules = {key: names.index(getattr(o, field)) for key, (names, field) in _RULES.items()}
        if half_life:
            gain_of = np.maximum(t.code_rating - o.neutral, 0.0)
            gain_of[0] = 0.0  # code 0: not in the test set
            disc = np.exp2((positions - 1.0) / (o.half_life - 1.0))
            rules["ideal"] = _kernels.IDEAL_TRUTH
        else:
            gain_of = gains(o, t.code_rating, t.code_rel > 0, np.arange(t.code_rating.size) > 0)
            disc = discount(o, positions)
        unit_ideal = np.zeros(0)
        if rules["ideal"] == _kernels.IDEAL_K and unit_cutoffs.size:
            last = int(unit_cutoffs.max())
            every = np.cumsum(1.0 / (disc if last <= depth else
                                     discount(o, np.arange(1, last + 1, dtype=np.float64))))
            unit_ideal = every[unit_cutoffs - 1]
        lists = _kernels.Lists(
            r_start=t.row_start, pos=t.pos, code=t.code, t_start=t.truth_start,
            t_code=t.truth_code, n_rel=t.n_rel,
            tie=t.tie_group if t.expected else np.zeros(0, dtype=np.int64))
        scoring = _kernels.Scoring(
            gain_of=gain_of, rel_of=t.code_rel, monotone=t.monotone, disc=disc,
            unit_ideal=unit_ideal, expected=t.expected, **rules)
        return lists, scoring

    def _tied(self, u0: int, u1: int) -> np.ndarray:
        """The kernels' buffer for the tie-group averages of users ``u0..u1-1``' rows."""
        t = self.table
        return np.empty((4, t.row_start[u1] - t.row_start[u0] if t.expected else 0))

    def _at_kernel(self, ks: np.ndarray, half_life: bool) -> tuple[np.ndarray, np.ndarray]:
        """:func:`._kernels.rank_reduce` at the increasing cutoffs ``ks``: ``(at, idcg_at)``."""
        key = ("at", half_life, tuple(ks.tolist()))
        if key not in self._cache:
            n_users = self.table.n_users
            depth = min(int(ks[-1]), self._longest) if ks.size else 0
            lists, scoring = self._inputs(depth, ks, half_life)
            at = np.empty((len(_kernels.AT_METRICS), n_users, ks.size))
            idcg_at = np.empty((n_users, ks.size))
            _kernels.over_users(n_users, lambda u0, u1: _kernels.rank_reduce(
                lists, scoring, ks, at, idcg_at, self._tied(u0, u1), u0, u1))
            self._cache[key] = at, idcg_at
        return self._cache[key]

    def _sums(self, half_life: bool) -> tuple[np.ndarray, np.ndarray]:
        """:func:`._kernels.rank_sums` at ``1..k_max``, chunks added in order, increments
        cumulated: ``(sums, ndcg_count)``."""
        key = ("sums", half_life)
        if key not in self._cache:
            cutoffs = np.arange(1, self.k_max + 1, dtype=np.int64)
            lists, scoring = self._inputs(self.k_max, cutoffs, half_life)
            sums = np.zeros((len(_kernels.AT_METRICS), self.k_max))
            count = np.zeros(self.k_max, dtype=np.int64)
            for part, part_count in _kernels.over_users(
                    self.table.n_users,
                    lambda u0, u1: _kernels.rank_sums(lists, scoring, self._tied(u0, u1),
                                                      u0, u1)):  # in order
                sums += part
                count += part_count
            for row in _kernels.INCREMENTS:
                if row != _kernels.R or self.definitions.recall_denominator == "relevant":
                    np.cumsum(sums[row], out=sums[row])
            self._cache[key] = sums, count
        return self._cache[key]

    # -- the views -----------------------------------------------------------------------
    # Each view takes a row of the kernels (:data:`ROWS`) and whether the metric is undefined
    # for a user without a relevant test item (its declaration says, see
    # :meth:`evalkit.metrics.Metric.undefined_without_relevant`); a ratio row (:data:`RATIOS`)
    # is undefined where its ideal sum is 0 instead.
    @property
    def longest(self) -> int:
        """A cutoff past every list and every ideal list: a row there is its value over each
        user's whole list (R-precision from ``r_precision_at_k``)."""
        return self._longest

    def at(self, row: str, ks: Sequence[int], *, without_relevant: bool = False
           ) -> tuple[np.ndarray, np.ndarray | None]:
        """Per-user values of ``row`` at cutoffs ``ks`` (any order, repeats allowed), as
        ``(n_users, len(ks))`` values and undefined marks (None: defined for every user)."""
        ks = np.asarray(ks, dtype=np.int64)
        distinct, cols = np.unique(ks, return_inverse=True)
        at, idcg_at = self._at_kernel(distinct, row == HALF_LIFE)
        values = at[_kernels.AT_METRICS.index(_KERNEL_ROW.get(row, row))][:, cols]
        if row in RATIOS:  # undefined where the ideal sum is 0
            return values, idcg_at[:, cols] <= 0
        if without_relevant:
            return values, np.repeat((self.table.n_rel == 0)[:, None], ks.size, axis=1)
        return values, None

    def counts(self, row: str, *, without_relevant: bool = False) -> np.ndarray:
        """Users averaged into ``row``'s mean at every cutoff ``1..k_max``, under the empty
        policy (all users under ``empty="zero"``; otherwise those for whom it is defined)."""
        n_users = self.table.n_users
        if row in RATIOS:  # undefined where the ideal sum is 0
            _, count = self._sums(row == HALF_LIFE)
            counted = n_counted(n_users, n_users - count, self.definitions.empty)
            return np.broadcast_to(counted, (self.k_max,)).astype(np.int64)
        if without_relevant:
            n_defined = n_counted(n_users, int(np.count_nonzero(self.table.n_rel == 0)),
                                  self.definitions.empty)
            return np.full(self.k_max, n_defined, dtype=np.int64)
        return np.full(self.k_max, n_users, dtype=np.int64)

    def means(self, row: str, *, without_relevant: bool = False) -> np.ndarray:
        """Mean over users of ``row`` at every cutoff ``1..k_max``, under the empty policy,
        from the kernel's sums over users (users without a relevant item add 0 to every
        sum: only the divisor, :meth:`counts`, depends on them)."""
        sums, _ = self._sums(row == HALF_LIFE)
        sums = sums[_kernels.AT_METRICS.index(_KERNEL_ROW.get(row, row))]
        if row == "precision":  # the kernel sums hits at each cutoff
            sums = sums / np.arange(1, self.k_max + 1)
        counts = self.counts(row, without_relevant=without_relevant)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(counts > 0, sums / counts, np.nan)


def mean_over_users(values: np.ndarray, undefined: np.ndarray | None, empty: str) -> np.ndarray:
    """Column means over users under the ``empty`` policy."""
    if values.shape[0] == 0:
        return np.full(values.shape[1], np.nan)
    if undefined is None:
        return values.mean(axis=0)
    counts = n_counted(values.shape[0], np.count_nonzero(undefined, axis=0), empty)
    sums = np.where(undefined, 0.0, values).sum(axis=0)  # undefined users add 0 either way
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(counts > 0, sums / counts, np.nan)
