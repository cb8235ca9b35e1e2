"""A second oracle for the compiled ranking reductions: every metric at every cutoff as
whole-array NumPy operations on ``(n_users, k_max)`` matrices of one hit table.

The engine (:class:`evalkit.metrics._curves.RankingCurves`, one compiled walk over each
user's positions) and this module read the same :class:`~evalkit.metrics._hits.HitTable`
but share no arithmetic: here the per-position values are scattered into dense matrices and
each metric is a cumulative sum or a ratio of them, expected ties are averaged with
``bincount`` and the first relevant item's chance under ties comes from binomial
coefficients. ``tests/metrics/naive.py`` is the other, independent oracle: one user and one
order at a time from the frames, without the hit table.

``MatrixForms(table, k_max, definitions).metric(name)`` returns ``(values, undefined)``, two
``(n_users, k_max)`` arrays (``undefined`` None where every user has a value), column
``k - 1`` holding the metric at k; ``r_precision`` has one column.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
from scipy.special import gammaln

from evalkit.definitions import Definitions
from evalkit.metrics._hits import HitTable

__all__ = ["MatrixForms", "mean_over_users"]


class MatrixForms:
    """Per-user values of the engine's ranking metrics at cutoffs ``1..k_max``."""

    def __init__(self, table: HitTable, k_max: int, definitions: Definitions) -> None:
        self.table = table
        self.k_max = k_max
        self.definitions = definitions
        self.ks = np.arange(1, k_max + 1, dtype=np.float64)

    # -- the table as matrices -------------------------------------------------------------
    @cached_property
    def group(self) -> np.ndarray:
        """Tie group of each row (each row alone when the lists carry ranks)."""
        t = self.table
        if t.tie_group is None:
            return np.arange(t.pos.size)
        return np.unique(t.tie_group, return_inverse=True)[1].reshape(-1)  # 0, 1, ...

    @cached_property
    def group_size(self) -> np.ndarray:
        return np.bincount(self.group, minlength=self.group.max() + 1 if self.group.size else 0)

    @cached_property
    def first_of_group(self) -> np.ndarray:
        return np.concatenate([[0], np.cumsum(self.group_size)[:-1]]).astype(np.int64)

    def effective(self, values: np.ndarray) -> np.ndarray:
        """Values as the metrics see them: averaged over tie groups under expected ties."""
        if not self.table.expected:
            return values
        sums = np.bincount(self.group, weights=values, minlength=self.group_size.size)
        return (sums / self.group_size)[self.group]

    def dense(self, values: np.ndarray) -> np.ndarray:
        """Per-row ``values`` as an ``(n_users, k_max)`` matrix (0 past the list)."""
        t = self.table
        out = np.zeros((t.n_users, self.k_max))
        keep = t.pos <= self.k_max
        out[t.ucode[keep], t.pos[keep] - 1] = values[keep]
        return out

    def ideal_matrix(self, values: np.ndarray) -> np.ndarray:
        """Per-test-row ``values`` (ideal order) as an ``(n_users, k_max)`` matrix."""
        t = self.table
        out = np.zeros((t.n_users, self.k_max))
        keep = t.truth_rank <= self.k_max
        out[t.truth_ucode[keep], t.truth_rank[keep] - 1] = values[keep]
        return out

    def first_relevant(self) -> np.ndarray:
        """Per row: the chance that it holds the user's first relevant item.

        Under expected ties the first tie group holding a relevant item spreads it: with
        ``g`` items of which ``r`` are relevant, the first relevant one sits ``t`` places into
        the group with probability ``C(g-1-t, r-1) / C(g, r)``.
        """
        t = self.table
        rel = t.rel
        out = np.zeros(t.pos.size)
        if t.pos.size == 0:
            return out
        if not t.expected:
            hits = np.flatnonzero(rel > 0)
            users = t.ucode[hits]
            first = np.ones(hits.size, dtype=bool)
            first[1:] = users[1:] != users[:-1]
            out[hits[first]] = 1.0
            return out
        n_groups = self.group_size.size
        group_user = t.ucode[self.first_of_group]
        group_start = t.pos[self.first_of_group]
        r = np.bincount(self.group, weights=rel, minlength=n_groups)
        with_rel = np.flatnonzero(r > 0)
        _, first = np.unique(group_user[with_rel], return_index=True)
        is_first = np.zeros(n_groups, dtype=bool)
        is_first[with_rel[first]] = True
        sel = np.flatnonzero(is_first[self.group])
        g = self.group_size[self.group[sel]].astype(np.float64)
        rr = np.rint(r[self.group[sel]])
        offset = (t.pos[sel] - group_start[self.group[sel]]).astype(np.float64)
        ok = offset <= g - rr
        n1 = np.where(ok, g - 1 - offset, 0.0)
        log_p = (
            gammaln(n1 + 1) - gammaln(rr) - gammaln(np.maximum(n1 - rr + 2, 1.0))
            - (gammaln(g + 1) - gammaln(rr + 1) - gammaln(g - rr + 1))
        )
        out[sel] = np.where(ok, np.exp(log_p), 0.0)
        return out

    def expected_rel_times_hits(self) -> np.ndarray:
        """Per row: E[rel_i * hits_i] over random orders of each tie group.

        For the position ``t`` places into a group of ``g`` items holding ``r`` relevant ones,
        with ``H`` relevant items before the group:
        ``E = (r/g) * (1 + H) + t * r (r - 1) / (g (g - 1))``. Summed over positions and
        divided by a fixed D this is the exact expected AP.
        """
        t = self.table
        if t.pos.size == 0:
            return np.zeros(0)
        group, size = self.group, self.group_size
        rel = t.rel
        r = np.bincount(group, weights=rel, minlength=size.size)
        before = np.cumsum(rel) - rel  # relevant rows before each row, across users
        first = self.first_of_group
        user_first = np.searchsorted(t.ucode, np.arange(t.n_users))
        h = before[first] - before[user_first[t.ucode[first]]]
        g = size.astype(np.float64)
        pair = np.divide(r * (r - 1), g * (g - 1), out=np.zeros_like(g), where=g > 1)
        offset = t.pos - t.pos[first][group]
        return (r / g * (1.0 + h))[group] + offset * pair[group]

    # -- building blocks -------------------------------------------------------------------
    @cached_property
    def rel(self) -> np.ndarray:
        return self.dense(self.effective(self.table.rel))

    @cached_property
    def hits(self) -> np.ndarray:
        return np.cumsum(self.rel, axis=1)

    @cached_property
    def n_rel(self) -> np.ndarray:
        return self.table.n_rel.astype(np.float64)[:, None]

    @cached_property
    def no_relevant(self) -> np.ndarray:
        t = self.table
        return np.broadcast_to((t.n_rel == 0)[:, None], (t.n_users, self.k_max))

    def _discount(self, positions: np.ndarray) -> np.ndarray:
        base = np.log(self.definitions.log_base)
        if self.definitions.discount == "breese":
            return np.maximum(1.0, np.log(positions) / base)
        return np.log(positions + 1.0) / base

    def _gain(self, rating: np.ndarray, relevant: np.ndarray, present: np.ndarray) -> np.ndarray:
        kind = self.definitions.gain
        if kind == "binary":
            return relevant.astype(np.float64)
        if self.definitions.gain_scope == "relevant":
            present = present & relevant
        if kind == "exponential":
            return np.where(present, np.exp2(rating) - 1.0, 0.0)
        return np.where(present, rating, 0.0)

    def _gain_of_truth(self) -> np.ndarray:
        """Gain of each test item in ideal order."""
        t = self.table
        if self.definitions.gain == "binary":
            return (t.truth_rank <= t.n_rel[t.truth_ucode]).astype(np.float64)
        threshold = self.definitions.threshold
        truth_rel = (np.ones(t.truth_rating.size, dtype=bool) if threshold is None
                     else t.truth_rating >= threshold)
        return self._gain(t.truth_rating, truth_rel, np.ones(truth_rel.size, dtype=bool))

    @cached_property
    def _disc(self) -> np.ndarray:
        return self._discount(self.ks)

    @cached_property
    def _dcg(self) -> np.ndarray:
        t = self.table
        gain = self._gain(t.rating, t.rel > 0, t.code > 0)
        dcg = self.dense(self.effective(gain)) / self._disc
        return np.cumsum(dcg, axis=1)

    @cached_property
    def _idcg(self) -> np.ndarray:
        if self.definitions.ideal == "k":  # k relevant items of gain 1, for users with one
            return np.where(self.no_relevant, 0.0, np.cumsum(1.0 / self._disc))
        return np.cumsum(self.ideal_matrix(self._gain_of_truth()) / self._disc, axis=1)

    @staticmethod
    def _ratio(num: np.ndarray, den: np.ndarray, undefined: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            out = num / den
        return np.where(undefined, 0.0, out)

    @property
    def _undefined_without_relevant(self) -> tuple[str, ...]:
        if self.definitions.precision_users == "relevant":
            return ("precision", "hit_rate", "recall", "f1", "mrr", "map")
        return ("recall", "f1", "mrr", "map")

    def _users_with_relevant(self, name: str) -> np.ndarray | None:
        return self.no_relevant if name in self._undefined_without_relevant else None

    # -- metrics: each returns (values, undefined) -------------------------------------------
    def precision(self) -> tuple[np.ndarray, np.ndarray | None]:
        return self.hits / self.ks, self._users_with_relevant("precision")

    def recall(self) -> tuple[np.ndarray, np.ndarray | None]:
        denominator = self.n_rel
        if self.definitions.recall_denominator == "min":
            denominator = np.minimum(self.ks, denominator)
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.hits / denominator, self.no_relevant

    def f1(self) -> tuple[np.ndarray, np.ndarray | None]:
        p = self.precision()[0]
        r, undefined = self.recall()
        total = p + r
        return self._ratio(2 * p * r, total, ~(total > 0)), undefined

    def hit_rate(self) -> tuple[np.ndarray, np.ndarray | None]:
        first = self.dense(self.first_relevant())
        return np.cumsum(first, axis=1), self._users_with_relevant("hit_rate")

    def mrr(self) -> tuple[np.ndarray, np.ndarray | None]:
        first = self.dense(self.first_relevant())
        return np.cumsum(first / self.ks, axis=1), self.no_relevant

    def map(self) -> tuple[np.ndarray, np.ndarray | None]:  # noqa: A003 - registry name
        rule = self.definitions.ap_denominator
        if self.table.expected and rule != "hits":
            summand = self.dense(self.expected_rel_times_hits()) / self.ks
        else:
            summand = self.rel * self.hits / self.ks
        summed = np.cumsum(summand, axis=1)
        hits = self.hits
        if rule == "relevant":
            denominator = np.broadcast_to(self.n_rel, hits.shape)
        elif rule == "hits":
            denominator = hits
        elif rule == "k":
            denominator = np.broadcast_to(self.ks, hits.shape)
        else:
            denominator = np.minimum(self.ks, self.n_rel)
        zero = hits <= 0 if rule == "hits" else np.broadcast_to(self.n_rel <= 0, hits.shape)
        return self._ratio(summed, denominator, zero), self.no_relevant

    def dcg(self) -> tuple[np.ndarray, np.ndarray | None]:
        return self._dcg, None

    def ndcg(self) -> tuple[np.ndarray, np.ndarray | None]:
        undefined = self._idcg <= 0
        return self._ratio(self._dcg, self._idcg, undefined), undefined

    def half_life_utility(self) -> tuple[np.ndarray, np.ndarray | None]:
        t = self.table
        d, alpha = self.definitions.neutral, self.definitions.half_life
        weight = np.exp2(-(self.ks - 1.0) / (alpha - 1.0))
        utility = self.effective(np.where(t.code > 0, np.maximum(t.rating - d, 0.0), 0.0))
        num = np.cumsum(self.dense(utility) * weight, axis=1)
        ideal = self.ideal_matrix(np.maximum(t.truth_rating - d, 0.0))
        den = np.cumsum(ideal * weight, axis=1)
        undefined = den <= 0
        return self._ratio(num, den, undefined), undefined

    def r_precision_at_k(self) -> tuple[np.ndarray, np.ndarray]:
        """``hits(min(|R_u|, k)) / |R_u|`` at every cutoff k."""
        n_rel = self.table.n_rel
        cut = np.minimum(self.ks[None, :], n_rel[:, None]).astype(np.int64)
        hits = np.take_along_axis(self.hits, np.maximum(cut - 1, 0), axis=1)
        hits = np.where(cut > 0, hits, 0.0)
        undefined = self.no_relevant
        return self._ratio(hits, n_rel[:, None], undefined), undefined

    def r_precision(self) -> tuple[np.ndarray, np.ndarray]:
        """Per-user R-precision, P@|R_u| (one column; needs ``k_max`` >= every |R_u|)."""
        t = self.table
        assert self.k_max >= (t.n_rel.max() if t.n_users else 0)
        values, undefined = self.r_precision_at_k()
        return values[:, -1:], undefined[:, -1:]

    def metric(self, name: str) -> tuple[np.ndarray, np.ndarray | None]:
        """``(values, undefined)`` of a metric at every cutoff: ``(n_users, k_max)``."""
        return getattr(self, name)()


def mean_over_users(values: np.ndarray, undefined: np.ndarray | None, empty: str) -> np.ndarray:
    """Column means over users under the ``empty`` policy (written here again, not imported,
    so that the oracle's means do not rest on the engine's)."""
    if values.shape[0] == 0:
        return np.full(values.shape[1], np.nan)
    if undefined is None:
        return values.mean(axis=0)
    n_undefined = np.count_nonzero(undefined, axis=0)
    counts = np.full(values.shape[1], values.shape[0]) if empty == "zero" \
        else values.shape[0] - n_undefined
    sums = np.where(undefined, 0.0, values).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(counts > 0, sums / counts, np.nan)
