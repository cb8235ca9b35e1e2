"""The ranking engine's one call: :func:`rank` validates the inputs, joins them once and
reduces the hit table to every requested metric at every cutoff.

:func:`evalkit.evaluate` adds intervals to its result; :func:`evalkit.compare` evaluates each
system through it; the per-user functions and :func:`ranking_curves` are views of it. A
metric declared with a ``kernel`` row runs in the compiled reductions
(:class:`._curves.RankingCurves`); one declared with ``per_user`` is computed from the
user's :class:`~._spec.Hits`.
"""

from __future__ import annotations

import textwrap
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._checks import check_ks, warn
from .._constraints import CUTOFF, CUTOFFS, POSITIVE_INT, constrained, optional
from .._display import CURVE_USERS, CurveTable, metric_column
from .._docstrings import PER_USER_DOCS, fill_doc, substitute
from .._errors import InvalidParameterError
from ..definitions import Definitions, takes_definitions
from ..profiles import check_covered, covers
from ._common import fill_undefined, finish_per_user, n_counted, n_dropped
from ._curves import RankingCurves
from ._hits import HitTable
from ._prepare import SharedTruth, prepare, tie_check
from ._registry import CURVE_METRICS, RANKING_METRICS, parse_column
from ._result import MetricSeries
from ._spec import Hits, Metric, from_hits, hits_of

__all__ = ["RankResult", "check_metrics", "default_metrics", "metric_column", "per_user",
           "per_user_function", "rank", "ranking_curves"]

@takes_definitions
def default_metrics(*, definitions: Definitions | str | None = None,
                    **options: object) -> list[str]:
    """The metrics :func:`rank` and :func:`evalkit.evaluate` compute when none are named:
    the built-in ranking metrics of the engine (metrics from hits, built in or registered,
    are asked for by name), under a profile those it reproduces.

    Parameters
    ----------
    definitions : Definitions or str, optional
        The definitions (:class:`evalkit.Definitions`) or a profile name; under a profile, the
        metrics it reproduces. Default: evalkit's.
    **options
        Fields of :class:`evalkit.Definitions`, overriding ``definitions``.
    """
    return [name for name, m in RANKING_METRICS.items()
            if m.kernel and covers(definitions, name)]


def check_metrics(metrics: object, *, func: str, ks: Sequence[int] | None = None
                  ) -> list[str]:
    """Registry names of ranking metrics, distinct, in the order given (None: the defaults);
    each named by its registry name or its label, or at one of the cutoffs ``ks`` as margins
    name it (``"NDCG@10"``, :func:`~evalkit.metrics.parse_column`); unknown names list the
    ranking metrics only."""
    if metrics is None:
        return default_metrics()
    if isinstance(metrics, str):
        metrics = [metrics]
    names = []
    for text in metrics:
        metric, k = parse_column(text, func=func, arg="metrics", choices=RANKING_METRICS)
        if k is not None and (ks is None or k not in ks):
            raise InvalidParameterError(
                f"{func}: {text!r} in 'metrics' names the cutoff {k}, which is not among the "
                f"cutoffs k={list(ks or [])}; give k={k}, or name the metric alone "
                f"({metric.label!r}) to have it at every cutoff.")
        names.append(metric.name)
    if not names:
        raise ValueError(f"{func}: 'metrics' must name at least one metric; got [].")
    return list(dict.fromkeys(names))


@dataclass(frozen=True)
class RankResult:
    """What :func:`rank` computes.

    Attributes
    ----------
    users : pandas.Index
        The evaluated users (every user in the truth), sorted.
    values : pandas.DataFrame
        One row per user, one column per ``metric@k``; an undefined value is 0 under
        ``empty="zero"``, else NaN.
    columns : pandas.DataFrame
        One row per column of ``values``: ``metric``, ``k``, ``label``, ``undefined`` (users
        for whom it is undefined), ``dropped_undefined`` (those ``empty="drop"`` leaves out)
        and ``tied_users`` (users whose tied scores straddle ``k``).
    counts : dict
        ``users`` evaluated, ``users_without_recs`` (scored 0), ``recs_only_users`` (ignored).
    curves : pandas.DataFrame or None
        With ``curves=K``: the :func:`~evalkit.metrics.ranking_curves` table for 1..K.
    definitions : evalkit.Definitions
        The definitions used.
    tie_users : numpy.ndarray or None
        Asked for (``run(..., tie_users=True)``): per user of ``users``, whether a value of
        ``values`` can depend on the tie policy (:meth:`._hits.HitTable.users_with_ties`).
    """

    users: pd.Index
    values: pd.DataFrame
    columns: pd.DataFrame
    counts: dict
    curves: pd.DataFrame | None
    definitions: Definitions
    tie_users: np.ndarray | None = None


class _Engine:
    """One hit table and its reductions per distinct definitions (a profile may define some
    metrics differently; usually there is one)."""

    def __init__(self, truth: object, recs: object, train: object, k_max: int,
                 ks: Sequence[int], *, func: str, warn_ties: bool = True) -> None:
        self.truth, self.recs, self.train = truth, recs, train
        self.k_max, self.ks, self.func, self.warn_ties = k_max, ks, func, warn_ties
        self._tables: dict[Definitions, tuple] = {}
        self._hits: dict[tuple, Hits] = {}

    def table(self, defs: Definitions) -> tuple[HitTable, RankingCurves, dict]:
        if defs not in self._tables:
            table = prepare(self.truth, self.recs, defs, func=self.func, train=self.train)
            reductions = RankingCurves(table, self.k_max, defs)
            with warnings.catch_warnings():
                if not self.warn_ties:
                    warnings.simplefilter("ignore")
                tied = {kk: tie_check(table, kk, defs, func=self.func)
                        for kk in self.ks}
            self._tables[defs] = (table, reductions, tied)
        return self._tables[defs]

    def hits(self, defs: Definitions, k: int, metric: str) -> Hits:
        key = (defs, k)
        if key not in self._hits:
            table = self.table(defs)[0]
            longest = (defs, self.k_max)
            if longest in self._hits or k == self.k_max:
                if longest not in self._hits:
                    self._hits[longest] = hits_of(table, self.k_max, defs, metric=metric,
                                                  func=self.func)
                listed = np.bincount(table.ucode[table.pos <= k], minlength=table.n_users)
                self._hits[key] = self._hits[longest]._cut(k, listed.astype(np.int64))
            else:
                self._hits[key] = hits_of(table, k, defs, metric=metric, func=self.func)
        return self._hits[key]

    def metric(self, metric: Metric, defs: Definitions, ks: Sequence[int]
               ) -> tuple[np.ndarray, np.ndarray | None]:
        """``(n_users, len(ks))`` values and undefined marks (None: defined everywhere)."""
        _, reductions, _ = self.table(defs)
        if metric.kernel:
            if "gain" in metric.reads:
                reductions.check_gains(func=self.func)
            without = metric.undefined_without_relevant(defs)
            if not metric.at_k:  # its row over each user's whole list (R-precision)
                return reductions.at(metric.kernel, [reductions.longest],
                                     without_relevant=without)
            return reductions.at(metric.kernel, ks, without_relevant=without)
        columns = [from_hits(metric, self.hits(defs, int(kk), metric.name), func=self.func)
                   for kk in ks]
        return (np.column_stack([c[0] for c in columns]),
                np.column_stack([c[1] for c in columns]))

    def curve(self, metric: Metric, defs: Definitions, k_max: int
              ) -> tuple[np.ndarray, np.ndarray]:
        """Mean over users at every cutoff ``1..k_max``, and the users each mean counts."""
        _, reductions, _ = self.table(defs)
        if metric.kernel:
            if "gain" in metric.reads:
                reductions.check_gains(func=self.func)
            without = metric.undefined_without_relevant(defs)
            return (reductions.means(metric.kernel, without_relevant=without)[:k_max],
                    reductions.counts(metric.kernel, without_relevant=without)[:k_max])
        values, undefined = self.metric(metric, defs, range(1, k_max + 1))
        counts = n_counted(values.shape[0], np.count_nonzero(undefined, axis=0), defs.empty)
        counts = np.broadcast_to(counts, (k_max,)).astype(np.int64)
        sums = np.where(undefined, 0.0, values).sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(counts > 0, sums / counts, np.nan), counts


def users_column(name: str) -> str:
    """The column of :func:`ranking_curves` that counts the users in ``name``'s means:
    ``"n_users_ndcg"``."""
    return f"{CURVE_USERS}{name}"


def curve_table(engine: _Engine, definitions: Definitions, k_max: int,
                names: Sequence[str]) -> pd.DataFrame:
    """The :func:`ranking_curves` table, k = 1..k_max, of the metrics ``names``."""
    curves = {name: engine.curve(RANKING_METRICS[name], definitions.for_metric(name), k_max)
              for name in names}
    columns = {name: means for name, (means, _) in curves.items()}
    columns |= {users_column(name): counts for name, (_, counts) in curves.items()}
    frame = pd.DataFrame(columns, index=pd.RangeIndex(1, k_max + 1, name="k"))
    return CurveTable(frame)  # a DataFrame shown at 4 decimals


def check_curve_metrics(metrics: object, *, func: str) -> list[str]:
    """Names of metrics with curves (None: the built-in ones)."""
    if metrics is None:
        return list(CURVE_METRICS)
    names = check_metrics(metrics, func=func)
    flat = [n for n in names if not RANKING_METRICS[n].curves]
    if flat:
        with_curves = [n for n, m in RANKING_METRICS.items() if m.curves]
        raise ValueError(
            f"{func}: {', '.join(map(repr, flat))} has no curve over cutoffs; the metrics "
            f"with curves are {', '.join(with_curves)}.")
    return names


def run(truth: object, recs: object, *, ks: list[int], names: list[str], train: object,
        definitions: Definitions, curves: int | None, curve_metrics: Sequence[str] = (),
        func: str, warn_ties: bool = True, tie_users: bool = False) -> RankResult:
    """:func:`rank` on checked arguments; ``tie_users``: also mark the users whose values can
    depend on the tie policy (:attr:`RankResult.tie_users`)."""
    check_covered(definitions, names, func=func)
    raw = truth.raw if isinstance(truth, SharedTruth) else truth
    if isinstance(raw, pd.DataFrame) and len(raw) == 0:
        raise ValueError(f"{func}: 'truth' is empty; there are no users to evaluate.")
    k_max = max(ks + [curves or 1])
    engine = _Engine(truth, recs, train, k_max, ks, func=func, warn_ties=warn_ties)
    table, _, _ = engine.table(definitions.for_metric(names[0]))
    if table.n_recs_only:
        warn(
            f"{func}: {table.n_recs_only} user(s) appear only in 'recs', not in 'truth'; they "
            "are ignored (counted in counts['recs_only_users']).",
            UserWarning)
    columns: dict[str, np.ndarray] = {}
    rows: list[dict] = []
    for name in names:
        metric = RANKING_METRICS[name]
        defs = definitions.for_metric(name)
        values, undefined = engine.metric(metric, defs, ks if metric.at_k else [None])
        tied = engine.table(defs)[2]
        for j, kk in enumerate(ks if metric.at_k else [None]):
            col = metric_column(name, kk)
            undef = None if undefined is None else undefined[:, j]
            n_undefined = 0 if undef is None else int(undef.sum())
            columns[col] = fill_undefined(values[:, j], undef, defs.empty)
            rows.append({"column": col, "metric": name, "k": kk, "label": metric.label,
                         "dropped_undefined": n_dropped(n_undefined, defs.empty),
                         "undefined": n_undefined,
                         "tied_users": tied[kk] if kk is not None else 0})
    frame = pd.DataFrame(rows).set_index("column")
    frame.index.name = None
    frame["k"] = frame["k"].astype("Int64")
    counts = {"users": table.n_users, "users_without_recs": table.n_without_recs,
              "recs_only_users": table.n_recs_only}
    curve_frame = None
    if curves is not None:
        extra = [n for n in curve_metrics if n not in CURVE_METRICS]
        curve_frame = curve_table(engine, definitions, curves, list(CURVE_METRICS) + extra)
    moved = None
    if tie_users:  # tie groups are the lists' equal scores, whatever the definitions
        whole = not all(RANKING_METRICS[name].at_k for name in names)  # R-precision: all
        moved = table.users_with_ties(None if whole else k_max)
    return RankResult(users=table.users, values=pd.DataFrame(columns, index=table.users),
                      columns=frame, counts=counts, curves=curve_frame,
                      definitions=definitions, tie_users=moved)


def per_user(name: str, truth: object, recs: object, k: object, definitions: Definitions,
             *, train: object, func: str) -> MetricSeries:
    """One ranking metric per user at the cutoff ``k`` (None for a metric without one): what
    every public per-user function returns (:func:`evalkit.metrics.ndcg_at_k`,
    :func:`~evalkit.metrics.r_precision`, a registered metric's), through the engine."""
    metric = RANKING_METRICS[name]
    ks = [int(k)] if metric.at_k else []  # k constrained by the public function
    engine = _Engine(truth, recs, train, max(ks, default=1), ks, func=func)
    table, _, tied = engine.table(definitions)
    values, undefined = engine.metric(metric, definitions, ks or [None])
    info = {"k": ks[0], "tied_users": tied[ks[0]], "users_without_recs": table.n_without_recs
            } if ks else {}
    return finish_per_user(
        values[:, 0], table.users, name=name,
        undefined=None if undefined is None else undefined[:, 0], empty=definitions.empty,
        extra_counts={"recs_only": table.n_recs_only} if table.n_recs_only else None,
        definitions=definitions, **info)


def per_user_function(metric: Metric) -> Callable:
    """The public per-user function of a metric declared with ``per_user`` (computed from
    each user's :class:`~evalkit.metrics.Hits`), accepting the fields it reads."""
    name = metric.name

    def function(truth: pd.DataFrame, recs: pd.DataFrame, *, k: int = 10,
                 train: pd.DataFrame | None = None,
                 definitions: Definitions | str | None = None, **options: object) -> pd.Series:
        return per_user(name, truth, recs, k, definitions, train=train, func=name)

    function.__name__ = function.__qualname__ = name
    function.__module__ = "evalkit.metrics"
    label = metric.long_label
    reads = textwrap.fill("This metric reads " + (
        ", ".join(f"``{field}``" for field in metric.reads) or "none of them") + ".",
        width=88, subsequent_indent=" " * 8)
    function.__doc__ = substitute(f"""{label} at k, per user (``evalkit.metrics.Metric`` {name!r}).

    Parameters
    ----------
    %(parameters)s
        {reads}

    Returns
    -------
    %(returns)s

    Raises
    ------
    %(raises)s

    Notes
    -----
    %(formula)s
    """, {**PER_USER_DOCS, "formula": metric.formula}, where=name)
    return constrained(k=POSITIVE_INT)(takes_definitions(function, reads=metric.reads))



@constrained(k=CUTOFFS, curves=optional(CUTOFF))
@takes_definitions
@fill_doc(PER_USER_DOCS)
def rank(
    truth: pd.DataFrame,
    recs: pd.DataFrame,
    *,
    k: int | Iterable[int] = 10,
    metrics: Iterable[str] | None = None,
    train: pd.DataFrame | None = None,
    definitions: Definitions | str | None = None,
    curves: int | None = None,
    caller: str = "rank",
    **options: object,
) -> RankResult:
    """Every requested ranking metric at every cutoff, per user, from one validation and one
    join: the engine behind :func:`evalkit.evaluate` (which adds intervals), without
    intervals.

    Parameters
    ----------
    %(truth_recs)s
    k : int or list of int, default 10
        Cutoff(s); every metric is computed at each.
    metrics : list of str, optional
        As for :func:`evalkit.evaluate`; may name metrics of your own
        (:func:`evalkit.metrics.register`).
    %(train)s
    definitions : Definitions or str, optional
        The definitions or a profile name, as for :func:`evalkit.evaluate`.
    curves : int, optional
        Also compute the curves to ``k_max=curves``, as for :func:`evalkit.evaluate`; a
        metric's curve is added when it has one.
    **options
        Fields of :class:`evalkit.Definitions`, overriding ``definitions``.
    caller : str, default "rank"
        The function named in error messages and warnings (``"evaluate"`` when
        :func:`evalkit.evaluate` calls this).

    Returns
    -------
    RankResult
        ``users``, ``values`` (per user and ``metric@k``), ``columns`` (what each column is
        and how many users it leaves out), ``counts``, ``curves`` and ``definitions``.

    Examples
    --------
    >>> truth = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [10, 11, 10], "rating": 5.0})
    >>> recs = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [10, 12, 12, 10],
    ...                      "rank": [1, 2, 1, 2]})
    >>> rank(truth, recs, k=2, metrics=["mrr", "first_relevant_rank"]).values
             mrr@2  first_relevant_rank@2
    user_id
    1          1.0                    1.0
    2          0.5                    2.0
    """
    func = caller
    ks = check_ks(k, func=func)
    names = default_metrics(definitions=definitions) if metrics is None else \
        check_metrics(metrics, func=func, ks=ks)
    curves = None if curves is None else int(curves)  # constrained
    return run(truth, recs, ks=ks, names=names, train=train, definitions=definitions,
               curves=curves, curve_metrics=[n for n in names if RANKING_METRICS[n].curves],
               func=func)


@constrained(k_max=CUTOFF)
@takes_definitions
@fill_doc(PER_USER_DOCS)
def ranking_curves(
    truth: pd.DataFrame,
    recs: pd.DataFrame,
    *,
    k_max: int = 20,
    metrics: Iterable[str] | None = None,
    train: pd.DataFrame | None = None,
    definitions: Definitions | str | None = None,
    **options: object,
) -> pd.DataFrame:
    """Mean P, R, F1, HR, MAP, MRR and NDCG at every cutoff k = 1..k_max, in one pass.

    Parameters
    ----------
    %(truth_recs)s
    %(train)s
    definitions : Definitions or str, optional
        The definitions or a profile name, as for the per-user functions.
    **options
        Fields of :class:`evalkit.Definitions`, overriding ``definitions``.
    k_max : int, default 20
        The largest cutoff.
    metrics : list of str, optional
        The metrics with curves to compute (``evalkit.metrics.CURVE_METRICS`` by default;
        metrics of your own declared with ``curves=True`` may be named).

    Returns
    -------
    pd.DataFrame
        One row per ``k`` (index ``k``), one column per metric (by default ``precision,
        recall, f1, hit_rate, map, mrr, ndcg``) holding means over users, then for each metric
        ``n_users_<metric>``: the users its mean at ``k`` counts (all users under
        ``empty="zero"``; otherwise those for whom the metric is defined, so recall's count
        leaves out users without a relevant item, and a metric of your own counts the users
        its function gives a value). The precision-recall curve is the
        ``(recall, precision)`` points. A notebook shows it at 4 decimals; ``.table`` is a
        plain DataFrame.

    Notes
    -----
    Each column at ``k`` equals the mean of the matching per-user function at ``k`` under the
    same options. Users for whom a metric is undefined are left out of its mean under
    ``empty="drop"`` or ``"nan"`` and count as 0 under ``"zero"``. No tie warning is raised
    here: every tie group of two or more items straddles some cutoff.

    The built-in metrics' means come from the compiled kernel's sums over users at every
    cutoff: one walk over each user's positions, users in parallel chunks, no
    ``(n_users, k_max)`` matrix; a metric of your own is computed at each cutoff from the
    hits.
    ``evaluate(..., curves=k_max)`` returns this table together with the per-user summary
    from one validation and one join.

    Examples
    --------
    Sacharidis's lecture example, the list R,NR,R,R,NR,R,NR,NR,NR,R with five relevant items:

    >>> truth = pd.DataFrame({"user_id": 1, "item_id": [1, 3, 4, 6, 10], "rating": 5.0})
    >>> recs = pd.DataFrame({"user_id": 1, "item_id": range(1, 11), "rank": range(1, 11)})
    >>> ranking_curves(truth, recs, k_max=4)[["precision", "recall"]].round(3)
       precision  recall
    k
    1      1.000     0.2
    2      0.500     0.2
    3      0.667     0.4
    4      0.750     0.6
    """
    func = "ranking_curves"
    k_max = int(k_max)  # constrained
    names = check_curve_metrics(metrics, func=func)
    engine = _Engine(truth, recs, train, k_max, [], func=func)
    return curve_table(engine, definitions, k_max, names)
