"""Ranking metrics at every cutoff 1..k, as reductions of one :class:`HitTable`.

:class:`RankingCurves` computes each intermediate (hit matrix, cumulative hits, DCG, ...) at
most once, lazily, so asking for one metric costs only what that metric needs and asking for
all of them at every cutoff costs one pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ._hits import HitTable

__all__ = ["RankingCurves", "RankingOptions"]


@dataclass(frozen=True)
class RankingOptions:
    """The definitions a ranking evaluation uses (see SPEC "Ranking metrics")."""

    threshold: float | None = 4.0
    gain: str = "linear"
    discount: str = "log"
    log_base: float = 2.0
    ap_denominator: str = "min"
    empty: str = "drop"
    ties: str = "deterministic"
    neutral: float = 3.0
    half_life: float = 5.0

    def as_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


class RankingCurves:
    """Per-user values of every ranking metric at cutoffs ``1..k_max``.

    Each metric is an ``(n_users, k_max)`` array, column ``k - 1`` holding the metric at ``k``,
    paired with a boolean array marking users for whom it is undefined (see ``undefined``).
    """

    def __init__(self, table: HitTable, k_max: int, options: RankingOptions) -> None:
        self.table = table
        self.k_max = k_max
        self.options = options
        self.ks = np.arange(1, k_max + 1, dtype=np.float64)

    # -- building blocks -----------------------------------------------------------------
    # Intermediates are computed once and shared; results are built in place in fresh
    # arrays (the same floating-point operations as the textbook expressions, fewer passes
    # over memory). Arrays from ``HitTable.dense`` may be read-only views: never written.
    @cached_property
    def rel(self) -> np.ndarray:
        t = self.table
        return t.dense(t.effective(t.rel), self.k_max)

    @cached_property
    def hits(self) -> np.ndarray:
        return np.cumsum(self.rel, axis=1)

    @cached_property
    def _precision(self) -> np.ndarray:
        return self.hits / self.ks

    @cached_property
    def n_rel(self) -> np.ndarray:
        return self.table.n_rel.astype(np.float64)[:, None]

    @cached_property
    def no_relevant(self) -> np.ndarray:
        return np.broadcast_to((self.table.n_rel == 0)[:, None], (self.table.n_users, self.k_max))

    def _discount(self, positions: np.ndarray) -> np.ndarray:
        base = np.log(self.options.log_base)
        if self.options.discount == "breese":
            return np.maximum(1.0, np.log(positions) / base)
        return np.log(positions + 1.0) / base

    def _gain(self, rating: np.ndarray, relevant: np.ndarray, present: np.ndarray) -> np.ndarray:
        kind = self.options.gain
        if kind == "binary":
            return relevant.astype(np.float64)
        if kind == "exponential":
            return np.where(present, np.exp2(rating) - 1.0, 0.0)
        return np.where(present, rating, 0.0)

    @cached_property
    def _dcg_and_ideal(self) -> tuple[np.ndarray, np.ndarray]:
        t = self.table
        disc = self._discount(self.ks)
        if self.options.gain == "linear":
            gain = t.rating  # the table's rating is already 0 outside the test set
        else:
            gain = self._gain(t.rating, t.rel > 0, t.in_truth)
        dcg = t.dense(t.effective(gain), self.k_max) / disc
        np.cumsum(dcg, axis=1, out=dcg)
        threshold = self.options.threshold
        if self.options.gain == "binary":
            # the ideal list puts the relevant items first, whatever their ratings
            ideal_gain = self._binary_ideal()
        elif self.options.gain == "linear":
            ideal_gain = t.truth_rating
        else:
            truth_rel = (
                np.ones(t.truth_rating.size, dtype=bool)
                if threshold is None
                else t.truth_rating >= threshold
            )
            ideal_gain = self._gain(t.truth_rating, truth_rel, np.ones(truth_rel.size, dtype=bool))
        idcg = t.ideal(ideal_gain, self.k_max)
        idcg /= disc
        np.cumsum(idcg, axis=1, out=idcg)
        return dcg, idcg

    def _binary_ideal(self) -> np.ndarray:
        t = self.table
        return (t.truth_rank <= t.n_rel[t.truth_ucode]).astype(np.float64)

    @cached_property
    def _first(self) -> np.ndarray:
        t = self.table
        return t.dense(t.first_relevant(), self.k_max)

    @staticmethod
    def _ratio(num: np.ndarray, den: np.ndarray, undefined: np.ndarray) -> np.ndarray:
        """``where(undefined, 0, num / den)``, computed into ``num`` (a fresh array)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            np.divide(num, den, out=num)
        np.copyto(num, 0.0, where=undefined)
        return num

    # -- metrics: each returns (values, undefined) ----------------------------------------
    def precision(self) -> tuple[np.ndarray, np.ndarray | None]:
        return self._precision, None

    def recall(self) -> tuple[np.ndarray, np.ndarray | None]:
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.hits / self.n_rel, self.no_relevant

    def f1(self) -> tuple[np.ndarray, np.ndarray | None]:
        p, _ = self.precision()
        r, undefined = self.recall()
        total = p + r
        f = 2 * p
        f *= r
        return self._ratio(f, total, ~(total > 0)), undefined

    def hit_rate(self) -> tuple[np.ndarray, np.ndarray | None]:
        return np.cumsum(self._first, axis=1), None

    def mrr(self) -> tuple[np.ndarray, np.ndarray | None]:
        rr = self._first / self.ks
        np.cumsum(rr, axis=1, out=rr)
        return rr, self.no_relevant

    def _expected_rel_times_hits(self) -> np.ndarray:
        """Per position i: E[rel_i * hits_i] over random orders of each tie group.

        For the position ``t`` places into a group of ``g`` items holding ``r`` relevant ones,
        with ``H`` relevant items before the group:
        ``E = (r/g) * (1 + H) + t * r (r - 1) / (g (g - 1))``. Summed over positions and
        divided by a fixed D this is the exact expected AP.
        """
        t = self.table
        if t.pos.size == 0:
            return np.zeros(0)
        group, size = t.group, t.group_size
        rel = t.rel
        r = np.bincount(group, weights=rel, minlength=size.size)
        before = np.cumsum(rel) - rel  # relevant rows before each row, across users
        first = t._first_of_group
        user_first = np.searchsorted(t.ucode, np.arange(t.n_users))
        h = before[first] - before[user_first[t.group_user]]
        g = size.astype(np.float64)
        pair = np.divide(r * (r - 1), g * (g - 1), out=np.zeros_like(g), where=g > 1)
        offset = t.pos - t.group_start[group]
        return (r / g * (1.0 + h))[group] + offset * pair[group]

    def map(self) -> tuple[np.ndarray, np.ndarray | None]:  # noqa: A003 - registry name
        rule = self.options.ap_denominator
        if self.table.expected and rule != "hits":
            summed = self.table.dense(self._expected_rel_times_hits(), self.k_max) / self.ks
        else:
            summed = self.rel * self._precision
        np.cumsum(summed, axis=1, out=summed)
        if rule == "relevant":
            denominator = self.n_rel
        elif rule == "hits":
            denominator = self.hits
        else:
            denominator = np.minimum(self.ks, self.n_rel)
        # D > 0 exactly when the user has a relevant item (k >= 1), or a hit for "hits"
        zero = self.hits <= 0 if rule == "hits" else self.n_rel <= 0
        return self._ratio(summed, denominator, zero), self.no_relevant

    def dcg(self) -> tuple[np.ndarray, np.ndarray | None]:
        return self._dcg_and_ideal[0], None

    def ndcg(self) -> tuple[np.ndarray, np.ndarray | None]:
        dcg, idcg = self._dcg_and_ideal
        undefined = idcg <= 0
        with np.errstate(divide="ignore", invalid="ignore"):
            ndcg = dcg / idcg
        np.copyto(ndcg, 0.0, where=undefined)
        return ndcg, undefined

    def half_life_utility(self) -> tuple[np.ndarray, np.ndarray | None]:
        num, den = self.half_life_parts()
        undefined = den <= 0
        return self._ratio(num, den, undefined), undefined

    def half_life_parts(self) -> tuple[np.ndarray, np.ndarray]:
        """Cumulative ``R_u`` and ``R_u^max`` of Breese's half-life utility."""
        t = self.table
        d, alpha = self.options.neutral, self.options.half_life
        weight = np.exp2(-(self.ks - 1.0) / (alpha - 1.0))
        utility = t.effective(np.where(t.in_truth, np.maximum(t.rating - d, 0.0), 0.0))
        num = t.dense(utility, self.k_max) * weight
        np.cumsum(num, axis=1, out=num)
        ideal = np.maximum(t.truth_rating - d, 0.0)
        den = t.ideal(ideal, self.k_max)
        den *= weight
        np.cumsum(den, axis=1, out=den)
        return num, den

    def r_precision(self) -> tuple[np.ndarray, np.ndarray]:
        """Per-user R-precision, P@|R_u| (not a curve: the cutoff is each user's own)."""
        t = self.table
        rel = t.effective(t.rel)
        sel = t.pos <= t.n_rel[t.ucode]
        hits = np.bincount(t.ucode[sel], weights=rel[sel], minlength=t.n_users)
        undefined = t.n_rel == 0
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(undefined, 0.0, hits / t.n_rel), undefined

    def metric(self, name: str) -> tuple[np.ndarray, np.ndarray | None]:
        return getattr(self, name)()
