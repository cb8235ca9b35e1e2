"""Ranking metrics at every cutoff 1..k, as reductions of one :class:`HitTable`.

:class:`RankingCurves` computes each intermediate (hit matrix, cumulative hits, DCG, ...) at
most once, lazily, so asking for one metric costs only what that metric needs and asking for
all of them at every cutoff costs one pass.

Three views of each metric: :meth:`RankingCurves.metric`, the per-user values at every cutoff
(the reference form); :meth:`RankingCurves.at`, per-user values at chosen cutoffs (what
``evaluate`` and the per-user functions use); :meth:`RankingCurves.means`, the mean over users
at every cutoff (what ``ranking_curves`` uses). For P, R, F1, HR, RR, AP, DCG, NDCG and
half-life utility the last two run a compiled kernel (:func:`._kernels.rank_reduce`), under
every definition and tie policy (``ties="expected"`` included): one walk over each user's
positions, users in parallel chunks, no ``(n_users, k_max)`` matrix at all. R-precision at k
at chosen cutoffs is summed from the rows that score; the other metrics and means take the
full matrices. Every route is tested against :meth:`RankingCurves.metric`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

import numpy as np

from ..definitions import Definitions
from . import _kernels
from ._common import n_counted
from ._hits import HitTable

__all__ = ["RankingCurves", "mean_over_users"]


#: The metrics the compiled kernel computes (half-life utility as a ratio of discounted sums
#: with its own gains and discounts, see ``RankingCurves._kernel``).
_COMPILED = _kernels.AT_METRICS + ("half_life_utility",)

#: The largest rating whose exponential gain, 2**rating - 1, is finite in float64.
_MAX_EXP_RATING = 1023


class RankingCurves:
    """Per-user values of every ranking metric at cutoffs ``1..k_max``.

    Each metric is an ``(n_users, k_max)`` array, column ``k - 1`` holding the metric at ``k``,
    paired with a boolean array marking users for whom it is undefined (see ``undefined``).
    """

    def __init__(self, table: HitTable, k_max: int, definitions: Definitions) -> None:
        self.table = table
        self.k_max = k_max
        self.definitions = definitions
        self.ks = np.arange(1, k_max + 1, dtype=np.float64)

    # -- the compiled kernel -------------------------------------------------------------
    def _kernel(self, ks: np.ndarray | None, half_life: bool = False) -> dict[str, np.ndarray]:
        """:func:`._kernels.rank_reduce` at increasing cutoffs ``ks``, or (None) its sums over
        users at every cutoff; each computed once.

        With ``half_life`` the gains and discounts are those of Breese's half-life utility
        (``max(rating - neutral, 0)``, weight ``2^(-(i - 1) / (alpha - 1))`` at position i,
        the ideal list from every test item), whose ratio the kernel returns as its NDCG.
        """
        cache = self.__dict__.setdefault("_kernel_cache", {})
        key = (half_life, None if ks is None else tuple(ks.tolist()))
        if key not in cache:
            t = self.table
            n_ks = 0 if ks is None else ks.size
            o = self.definitions
            if half_life:
                gain_of = np.maximum(t.code_rating - o.neutral, 0.0)
                gain_of[0] = 0.0  # code 0: not in the test set
                disc = np.exp2((self.ks - 1.0) / (o.half_life - 1.0))
                rules = (0, 0, 0)  # only the DCG-like rows are read; ideal from the truth
            else:
                gain_of = self._gain(t.code_rating, t.code_rel > 0,
                                     np.arange(t.code_rating.size) > 0)
                disc = self._disc
                rules = (_kernels.AP_RULES.index(o.ap_denominator),
                         _kernels.RECALL_RULES.index(o.recall_denominator),
                         _kernels.IDEAL_RULES.index(o.ideal))
            out = {
                "at": np.empty((len(_kernels.AT_METRICS), t.n_users, n_ks)),
                "idcg_at": np.empty((t.n_users, n_ks)),
                "sums": np.zeros((len(_kernels.AT_METRICS), self.k_max)),
                "ndcg_count": np.zeros(self.k_max, dtype=np.int64),
            }
            kernel_ks = np.zeros(0, dtype=np.int64) if ks is None else ks.astype(np.int64)
            no_ties = np.zeros((4, 0))

            def task(u0: int, u1: int) -> tuple[np.ndarray, np.ndarray]:
                sums = np.zeros((len(_kernels.AT_METRICS), self.k_max))
                count = np.zeros(self.k_max, dtype=np.int64)
                tied = no_ties
                if t.expected:  # the chunk's rows averaged over their tie groups
                    tied = np.empty((4, t.row_start[u1] - t.row_start[u0]))
                    _kernels.tied_values(t.row_start, t.pos, t.code, t.code_rel, gain_of,
                                         t.tie_group, u0, u1, tied)
                _kernels.rank_reduce(
                    t.row_start, t.pos, t.code, gain_of, t.code_rel, t.truth_start,
                    t.truth_code, t.monotone, t.n_rel, disc, tied, kernel_ks, self.k_max,
                    *rules, out["at"], out["idcg_at"], ks is None, sums, count, u0, u1)
                return sums, count

            for sums, count in _kernels.over_users(t.n_users, task):  # in user order
                out["sums"] += sums
                out["ndcg_count"] += count
            # per-position increments: cumulate (recall capped at k sums its values)
            increments = tuple(row for row in _kernels.INCREMENTS
                               if rules[1] == 0 or row != _kernels.R)
            for row in increments:
                np.cumsum(out["sums"][row], out=out["sums"][row])
            cache[key] = out
        return cache[key]

    def _compiled_at(self, name: str, ks: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        distinct, cols = np.unique(ks, return_inverse=True)
        out = self._kernel(distinct, half_life=name == "half_life_utility")
        row = "ndcg" if name == "half_life_utility" else name
        values = out["at"][_kernels.AT_METRICS.index(row)][:, cols]
        if row == "ndcg":  # undefined where the ideal sum is 0
            return values, out["idcg_at"][:, cols] <= 0
        if name in self._undefined_without_relevant:
            return values, self._no_relevant_at(ks)
        return values, None

    @property
    def _undefined_without_relevant(self) -> tuple[str, ...]:
        """The metrics undefined for a user without a relevant test item (NDCG aside)."""
        if self.definitions.precision_users == "relevant":
            return ("precision", "hit_rate", "recall", "f1", "mrr", "map")
        return ("recall", "f1", "mrr", "map")

    def _compiled_means(self, name: str) -> np.ndarray:
        half_life = name == "half_life_utility"
        out = self._kernel(None, half_life=half_life)
        if half_life:
            name = "ndcg"  # the kernel's ratio of discounted sums, as for NDCG
        sums = out["sums"][_kernels.AT_METRICS.index(name)]
        n_users = self.table.n_users
        # users without a relevant item add 0 to every sum: only the divisor depends on them
        if name == "precision":
            return self._divide(sums / self.ks, self._n_counted()
                                if "precision" in self._undefined_without_relevant else n_users)
        if name in self._undefined_without_relevant:
            return self._divide(sums, self._n_counted())
        if name == "ndcg":  # undefined where the ideal DCG is 0, counted per cutoff
            counts = n_counted(n_users, n_users - out["ndcg_count"], self.definitions.empty)
            with np.errstate(divide="ignore", invalid="ignore"):
                return np.where(counts > 0, sums / counts, np.nan)
        return self._divide(sums, n_users)

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
        base = np.log(self.definitions.log_base)
        if self.definitions.discount == "breese":
            return np.maximum(1.0, np.log(positions) / base)
        return np.log(positions + 1.0) / base

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
        """Gain of each test item, in the table's ideal order (the ideal list's gains)."""
        t = self.table
        if self.definitions.gain == "binary":
            # the ideal list puts the relevant items first, whatever their ratings
            return (t.truth_rank <= t.n_rel[t.truth_ucode]).astype(np.float64)
        if self.definitions.gain == "linear" and self.definitions.gain_scope == "rated":
            return t.truth_rating
        threshold = self.definitions.threshold
        truth_rel = (
            np.ones(t.truth_rating.size, dtype=bool) if threshold is None
            else t.truth_rating >= threshold
        )
        return self._gain(t.truth_rating, truth_rel, np.ones(truth_rel.size, dtype=bool))

    @cached_property
    def _disc(self) -> np.ndarray:
        return self._discount(self.ks)

    @cached_property
    def _dcg(self) -> np.ndarray:
        """Cumulative DCG: column ``k - 1`` is DCG@k."""
        t = self.table
        if self.definitions.gain == "linear" and self.definitions.gain_scope == "rated":
            gain = t.rating  # the table's rating is already 0 outside the test set
        else:
            gain = self._gain(t.rating, t.rel > 0, t.in_truth)
        dcg = t.dense(t.effective(gain), self.k_max) / self._disc
        np.cumsum(dcg, axis=1, out=dcg)
        return dcg

    def _cumulative_ideal(self) -> np.ndarray:
        """Cumulative ideal DCG, a fresh array: column ``k - 1`` is IDCG@k."""
        if self.definitions.ideal == "k":  # k relevant items of gain 1, for users with one
            return np.where(self.no_relevant, 0.0, np.cumsum(1.0 / self._disc))
        idcg = self.table.ideal(self._gain_of_truth(), self.k_max)
        idcg /= self._disc
        np.cumsum(idcg, axis=1, out=idcg)
        return idcg

    @cached_property
    def _idcg(self) -> np.ndarray:
        return self._cumulative_ideal()

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
    def _users_with_relevant(self, name: str) -> np.ndarray | None:
        return self.no_relevant if name in self._undefined_without_relevant else None

    def precision(self) -> tuple[np.ndarray, np.ndarray | None]:
        return self._precision, self._users_with_relevant("precision")

    def recall(self) -> tuple[np.ndarray, np.ndarray | None]:
        denominator = self.n_rel
        if self.definitions.recall_denominator == "min":
            denominator = np.minimum(self.ks, denominator)
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.hits / denominator, self.no_relevant

    def f1(self) -> tuple[np.ndarray, np.ndarray | None]:
        return self._f1(self.precision()[0], *self.recall())

    def _f1(self, p: np.ndarray, r: np.ndarray, undefined: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray]:
        total = p + r
        f = 2 * p
        f *= r
        return self._ratio(f, total, ~(total > 0)), undefined

    def hit_rate(self) -> tuple[np.ndarray, np.ndarray | None]:
        return np.cumsum(self._first, axis=1), self._users_with_relevant("hit_rate")

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
        summed = self._ap_numerator()
        np.cumsum(summed, axis=1, out=summed)
        return self._ap(summed, self.ks, self.hits), self.no_relevant

    def _ap(self, summed: np.ndarray, ks: np.ndarray, hits: np.ndarray) -> np.ndarray:
        """AP from its cumulated numerators (a fresh array, overwritten) at cutoffs ``ks``."""
        # D > 0 exactly when the user has a relevant item (k >= 1), or a hit for "hits"
        zero = hits <= 0 if self.definitions.ap_denominator == "hits" else self.n_rel <= 0
        zero = np.broadcast_to(zero, summed.shape)
        return self._ratio(summed, self._ap_denominator(ks, hits), zero)

    def dcg(self) -> tuple[np.ndarray, np.ndarray | None]:
        return self._dcg, None

    def ndcg(self) -> tuple[np.ndarray, np.ndarray | None]:
        return self._ndcg(self._dcg, self._idcg)

    @staticmethod
    def _ndcg(dcg: np.ndarray, idcg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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
        d, alpha = self.definitions.neutral, self.definitions.half_life
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
        rows = self._scoring_rows()
        ucode = t.ucode[rows]
        sel = t.pos[rows] <= t.n_rel[ucode]
        hits = np.bincount(ucode[sel], weights=self._scoring_rel(rows)[sel],
                           minlength=t.n_users)
        undefined = t.n_rel == 0
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(undefined, 0.0, hits / t.n_rel), undefined

    def r_precision_at_k(self) -> tuple[np.ndarray, np.ndarray]:
        """R-precision cut at k: ``hits(min(|R_u|, k)) / |R_u|`` at every cutoff k (recall@k
        once ``k < |R_u|``, R-precision from ``k = |R_u|`` on)."""
        n_rel = self.table.n_rel
        cut = np.minimum(self.ks[None, :], n_rel[:, None]).astype(np.int64)
        hits = np.take_along_axis(self.hits, np.maximum(cut - 1, 0), axis=1)
        undefined = self.no_relevant
        with np.errstate(divide="ignore", invalid="ignore"):
            values = hits / n_rel[:, None]
        np.copyto(values, 0.0, where=undefined)
        return values, undefined

    def metric(self, name: str) -> tuple[np.ndarray, np.ndarray | None]:
        """``(values, undefined)`` of a metric at every cutoff: ``(n_users, k_max)`` arrays.

        This is the reference form; :meth:`at` and :meth:`means` return parts of it more
        cheaply and are tested against it.
        """
        return getattr(self, name)()

    # -- chosen cutoffs ------------------------------------------------------------------
    def at(self, name: str, ks: Sequence[int]) -> tuple[np.ndarray, np.ndarray | None]:
        """Columns ``ks - 1`` of :meth:`metric` (each ``k <= k_max``), as ``(n_users, len(ks))``.

        P, R, F1, HR, RR, AP, DCG, NDCG and half-life utility come from the compiled kernel;
        R-precision at k from its rows (``_at_r_precision_at_k``); the others take the columns
        of :meth:`metric`.
        """
        ks = np.asarray(ks, dtype=np.int64)
        if name in _COMPILED:
            return self._compiled_at(name, ks)
        fast = getattr(self, f"_at_{name}", None)
        if fast is not None:
            return fast(ks)
        values, undefined = self.metric(name)
        cols = ks - 1
        return values[:, cols], None if undefined is None else np.asarray(undefined[:, cols])

    def _per_user_at(self, ks: np.ndarray, rows: np.ndarray, user: np.ndarray,
                     values: np.ndarray, limit: np.ndarray | None = None) -> np.ndarray:
        """``(n_users, len(ks))``: per user, the sum of ``values`` over the rows whose
        position ``rows`` is at most k (and at most ``limit``, per row, where given)."""
        out = np.empty((self.table.n_users, ks.size))
        longest = int(rows.max()) if rows.size else 0
        for j, k in enumerate(ks):  # a loop over cutoffs, not users
            if limit is None and k >= longest:
                out[:, j] = np.bincount(user, weights=values, minlength=self.table.n_users)
                continue
            keep = rows <= k if limit is None else rows <= np.minimum(limit, k)
            out[:, j] = np.bincount(user[keep], weights=values[keep],
                                    minlength=self.table.n_users)
        return out

    def _scoring_rows(self) -> np.ndarray | slice:
        """The rows where a per-row value that is 0 outside the test set can be nonzero: the
        rows of test items, or every row under ``ties="expected"``, which spreads values
        over tie groups."""
        return slice(None) if self.table.expected else np.flatnonzero(self.table.code > 0)

    def _scoring_rel(self, rows: np.ndarray | slice) -> np.ndarray:
        """The (expected) relevance of :meth:`_scoring_rows`."""
        t = self.table
        return t.effective(t.rel)[rows] if t.expected else t.code_rel[t.code[rows]]

    def _at_r_precision_at_k(self, ks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """R-precision cut at each k from the rows: hits in the top ``min(|R_u|, k)`` over
        ``|R_u|``, without the full matrices."""
        t = self.table
        rows = self._scoring_rows()
        ucode = t.ucode[rows]
        hits = self._per_user_at(ks, t.pos[rows], ucode, self._scoring_rel(rows),
                                 t.n_rel[ucode])
        undefined = self._no_relevant_at(ks)
        with np.errstate(divide="ignore", invalid="ignore"):
            hits /= t.n_rel[:, None]
        np.copyto(hits, 0.0, where=undefined)
        return hits, undefined

    def _no_relevant_at(self, ks: np.ndarray) -> np.ndarray:
        return np.repeat((self.table.n_rel == 0)[:, None], ks.size, axis=1)

    def _ap_numerator(self) -> np.ndarray:
        """Per position i: the summand of AP, ``rel_i * P@i`` (its expectation under ties)."""
        if self.table.expected and self.definitions.ap_denominator != "hits":
            return self.table.dense(self._expected_rel_times_hits(), self.k_max) / self.ks
        if "hits" in self.__dict__:
            summand = self.rel * self.hits
        else:  # one fresh matrix, not two
            summand = np.cumsum(self.rel, axis=1)
            summand *= self.rel
        summand /= self.ks
        return summand

    def _ap_denominator(self, ks: np.ndarray, hits: np.ndarray) -> np.ndarray:
        rule = self.definitions.ap_denominator
        if rule == "relevant":
            return np.broadcast_to(self.n_rel, hits.shape)
        if rule == "hits":
            return hits
        if rule == "k":
            return np.broadcast_to(np.asarray(ks, dtype=np.float64), hits.shape)
        return np.minimum(ks, self.n_rel)

    # -- means over users at every cutoff -------------------------------------------------
    def means(self, name: str) -> np.ndarray:
        """Mean over users of a metric at every cutoff ``1..k_max``, under the empty policy.

        Equal to ``mean_over_users(*metric(name), empty)``: from the compiled kernel's sums
        over users for the metrics it knows, else from the full matrices.
        """
        if name in _COMPILED:
            return self._compiled_means(name)
        return mean_over_users(*self.metric(name), self.definitions.empty)

    def _n_counted(self) -> int:
        """Users in a mean of a metric undefined for users without relevant items."""
        t = self.table
        return n_counted(t.n_users, int(np.count_nonzero(t.n_rel == 0)), self.definitions.empty)

    @staticmethod
    def _divide(sums: np.ndarray, n: int) -> np.ndarray:
        return np.full(sums.shape, np.nan) if n == 0 else sums / n


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
