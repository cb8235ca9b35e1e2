"""The ranking page: each system evaluated, the curves with their bands, the summary, the ties at
the cutoff, the headline and sample lists."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from .._checks import check_recs
from .._constraints import CUTOFF, constrained
from .._docstrings import fill_doc
from .._evaluation import evaluate
from ..definitions import Definitions
from ..metrics import (
    RANKING_METRICS,
    default_metrics,
)
from ..metrics.ranking import SharedTruth
from ..metrics.tables import (
    tie_report,
)
from ..profiles import profile as profile_definitions
from ._docs import REPORT_DOCS
from ._findings import lower_note
from ._quiet import shown_in_the_page
from ._show import interval_table

__all__ = ["curve_bands", "evaluate_systems", "ranking_headline",
           "report_definitions", "sample_lists", "summary_table", "tie_table"]


@fill_doc(REPORT_DOCS)
def evaluate_systems(test: pd.DataFrame, systems: Mapping[str, pd.DataFrame], *,
                     k: Sequence[int], metrics: Sequence[str] | None = None,
                     threshold: float | None = 4.0,
                     curves: int | None = None, seed: int = 0, profile: str | None = None,
                     train: pd.DataFrame | None = None, focus: str | None = None) -> dict:
    """:func:`evalkit.evaluate` for every system, with the same cutoffs, metrics (default:
    evaluate's, the built-in ranking metrics of the engine, or those the profile
    reproduces), threshold, profile (another library's definitions, :data:`evalkit.PROFILES`)
    and seed. ``focus``, the metric a page's charts show (``METRIC``), is added to the
    metrics when they do not hold it (a metric from hits, or one of your own).

    Tie warnings are not shown here: the tie table and the findings report them per system.

    Parameters
    ----------
    %(test_interactions)s
    %(systems)s
    k : sequence of int
        The cutoffs.
    metrics : sequence of str, optional
        The metrics' names; default as above.
    %(threshold)s
    curves : int, optional
        Also the curves to this cutoff (:func:`evalkit.evaluate`'s ``curves``).
    %(seed)s
    %(profile)s
    %(train)s
    focus : str, optional
        ``METRIC``: the metric the page's charts show.
    """

    if focus is not None:
        if metrics is None:
            metrics = default_metrics(definitions=report_definitions(profile, threshold))
        if focus not in metrics:
            metrics = [*metrics, focus]

    with shown_in_the_page():
        return {name: evaluate(test, recs, k=list(k), threshold=threshold, rng=seed,
                               metrics=None if metrics is None else list(metrics),
                               curves=curves, definitions=report_definitions(profile, threshold),
                               train=train)
                for name, recs in systems.items()}


@constrained(k_max=CUTOFF)
@fill_doc(REPORT_DOCS)
def curve_bands(test: pd.DataFrame, systems: Mapping[str, pd.DataFrame], *, k_max: int,
                metrics: Sequence[str] = ("precision", "recall", "map", "ndcg"),
                threshold: float | None = 4.0, seed: int = 0, profile: str | None = None,
                train: pd.DataFrame | None = None, confidence: float = 0.95,
                n_resamples: int = 1000) -> dict[str, pd.DataFrame]:
    """Each system's ranking metrics at every cutoff k = 1..``k_max``, with bootstrap bands.

    Parameters
    ----------
    %(test_interactions)s
    %(systems)s
    k_max : int
        Largest cutoff.
    metrics : sequence of str, default ("precision", "recall", "map", "ndcg")
        Metrics of the curves.
    %(threshold)s
    %(seed)s
    profile : str, optional
        ``PROFILE``: a library profile (:data:`evalkit.PROFILES`). Under a profile every
        metric is computed with the profile's definitions, also those its library lacks (as
        :func:`evalkit.metrics.ranking_curves` does).
    %(train)s
    confidence : float, default 0.95
        Level of the intervals.
    n_resamples : int, default 1000
        Bootstrap resamples of the intervals.

    Returns
    -------
    dict of str to pandas.DataFrame
        Per system, one row per k (index ``k``): for each metric ``m`` the columns ``m``
        (mean over the users it is defined for, as in
        :func:`~evalkit.metrics.ranking_curves`), ``m_low`` and ``m_high``; what
        :func:`evalkit.plots.metrics_at_k` and :func:`evalkit.plots.precision_recall_curve`
        draw as bands.

    Notes
    -----
    The values at every cutoff come from one :func:`evalkit.evaluate` per system with
    ``k = 1..k_max``, whose bootstrap shares one resampling design over every column: the
    band at each k is that k's percentile interval (pointwise, not a simultaneous band).
    """

    k_max = int(k_max)  # constrained
    definitions = _band_definitions(profile, func="curve_bands", threshold=threshold)
    out = {}
    with shown_in_the_page():
        for name, recs in systems.items():  # one evaluation per system
            result = evaluate(test, recs, k=list(range(1, k_max + 1)), metrics=list(metrics),
                              threshold=threshold, rng=seed, definitions=definitions,
                              train=train, confidence=confidence, n_resamples=n_resamples)
            out[name] = _bands(result.summary, k_max, metrics)
    return out


def report_definitions(profile: str | None, threshold: float | None):
    """The ``definitions`` a report evaluates with: the profile's name under ``PROFILE``
    (its library's conventions, gain included); without one, evalkit's, with binary gain
    when ``THRESHOLD`` is None, so that "every test interaction is relevant" reaches NDCG
    too (a rating-valued gain would still grade the relevant items); None for the defaults.

    Parameters
    ----------
    profile : str or None
        ``PROFILE``: a library profile's name, or None.
    threshold : float or None
        ``THRESHOLD``: a test item is relevant when its rating is at least this; None: every
        test item.

    Examples
    --------
    >>> report_definitions(None, None)
    Definitions(threshold=None, gain='binary')
    >>> report_definitions(None, 4.0) is None, report_definitions("lenskit", None)
    (True, 'lenskit')
    """

    if profile is not None:
        return profile
    return Definitions(threshold=None, gain="binary") if threshold is None else None


def _band_definitions(profile: str | None, *, func: str, threshold: float | None = 4.0):
    """The definitions of the curves under ``profile``: the profile's, for every metric
    (also those its library lacks); else as :func:`report_definitions`."""

    return report_definitions(None, threshold) if profile is None else \
        profile_definitions(profile, func=func).replace(profile=None)


def _bands(summary: pd.DataFrame, k_max: int, metrics: Sequence[str]) -> pd.DataFrame:
    """A summary over k = 1..``k_max`` as one row per k: ``m``, ``m_low``, ``m_high``."""
    frame = pd.DataFrame(index=pd.RangeIndex(1, k_max + 1, name="k"))
    for metric in metrics:  # one step per metric
        rows = summary[summary["metric"].eq(metric)].sort_values("k")
        frame[metric] = rows["mean"].to_numpy()
        frame[f"{metric}_low"] = rows["ci_low"].to_numpy()
        frame[f"{metric}_high"] = rows["ci_high"].to_numpy()
    return frame


@fill_doc(REPORT_DOCS)
def summary_table(evaluations: Mapping[str, object], *, digits: int = 3) -> pd.DataFrame:
    """One compact table: ``mean [low, high]`` per metric (rows) and system (columns), then
    the users each mean is over.

    The best mean of each row is marked with ``*``: the highest, or the lowest for a metric
    declared lower-is-better (its row says so); when the best system's interval overlaps
    another's, the mark means little, and the comparison report tests the difference.

    Parameters
    ----------
    %(evaluations)s
    digits : int, default 3
        Decimals shown.
    """

    results = {}
    for name, ev in evaluations.items():
        s = ev.summary
        labels = [(f"{lab}@{int(k)}" if pd.notna(k) else lab) + lower_note(m)
                  for lab, k, m in zip(s["label"], s["k"], s["metric"])]
        higher = [RANKING_METRICS[m].higher_is_better if m in RANKING_METRICS else True
                  for m in s["metric"]]
        results[name] = pd.DataFrame({"value": s["mean"].to_numpy(float),
                                      "ci_low": s["ci_low"].to_numpy(float),
                                      "ci_high": s["ci_high"].to_numpy(float),
                                      "n_users": s["n_users"].to_numpy()}, index=labels)
    table = interval_table(results, higher_is_better=higher, digits=digits,
                            counts=("n_users",))
    table.index.name = "metric"
    return table


@fill_doc(REPORT_DOCS)
def tie_table(test: pd.DataFrame, systems: Mapping[str, pd.DataFrame], *, k: int,
              threshold: float | None = 4.0,
              profile: str | None = None) -> pd.DataFrame | None:
    """:func:`evalkit.metrics.tables.tie_report` for every system with scores, its ranks
    set aside: what each tie policy would give.

    The row the report's other numbers come from is marked ``(shown above)``: the
    deterministic policy for a list ranked by score alone, or ranked in that order; for a list
    whose ranks order its ties otherwise, an extra first row, ``the list's ranks``, which the
    other tables use. The definitions are
    the report's (:func:`report_definitions`); under a ``profile`` the rows are evalkit's
    and none is marked (the profile's own conventions may need what the table does not
    have). A system of ranks without scores has no ties to show and is left out; None when
    no system has scores.

    Parameters
    ----------
    %(test_interactions)s
    %(systems)s
    %(k_lists)s
    %(threshold)s
    profile : str, optional
        ``PROFILE``: under a profile no row is marked as the one shown.
    """

    definitions = report_definitions(None, threshold)
    shown = " (shown above)" if profile is None else ""
    reports = {}
    test = SharedTruth(test)  # validated and coded once for every system
    for name, recs in systems.items():
        if "score" not in recs.columns:
            continue
        report = tie_report(test, recs.drop(columns=["rank"], errors="ignore"), k=k,
                            threshold=threshold, definitions=definitions)
        as_ranked = None
        if "rank" in recs.columns:
            as_ranked = tie_report(test, recs, k=k, threshold=threshold,
                                   definitions=definitions).iloc[[0]]
            as_ranked["tied_users"] = report["tied_users"].iloc[0]
            if as_ranked.iloc[0].equals(report.loc["deterministic"]):
                as_ranked = None  # the ranks give the deterministic order's numbers
        if as_ranked is not None:
            as_ranked.index = [f"the list's ranks{shown}"]
            report = pd.concat([as_ranked, report])
        else:
            report = report.rename(index={"deterministic": f"deterministic{shown}"})
        reports[name] = report
    if not reports:
        return None
    return pd.concat(reports, names=["system", "ties"])


@fill_doc(REPORT_DOCS)
def ranking_headline(evaluations: Mapping[str, object], *, metric: str, k: int
                     ) -> dict[str, object]:
    """The ranking report's headline numbers: ``metric@k`` of each system (where its
    evaluation has it), and under ``"intervals"`` each one's bootstrap interval ``[low,
    high]``, which the report index shows beside it.

    Parameters
    ----------
    %(evaluations)s
    metric : str
        The metric's registry name (``"ndcg"``).
    k : int
        The cutoff.
    """
    column = f"{metric}@{k}"
    out: dict[str, object] = {}
    intervals: dict[str, list[float]] = {}
    for name, evaluation in evaluations.items():
        if column not in evaluation.summary.index:
            continue
        info = evaluation.summary.loc[column]
        out[f"{column} {name}"] = float(info["mean"])
        if np.isfinite(info["ci_low"]) and np.isfinite(info["ci_high"]):
            intervals[f"{column} {name}"] = [float(info["ci_low"]), float(info["ci_high"])]
    if intervals:
        out["intervals"] = intervals
    return out


class SampleLists:
    """A table of a few users' lists, shown as a searchable HTML table (see
    :func:`sample_lists`); ``frame`` holds the same rows as a DataFrame."""

    _SCRIPT = (
        "<script>(function(){{var box=document.getElementById('{id}-q'),"
        "rows=document.querySelectorAll('#{id} tbody tr');box.addEventListener('input',"
        "function(){{var q=box.value.toLowerCase();rows.forEach(function(r){{"
        "r.style.display=r.textContent.toLowerCase().indexOf(q)<0?'none':'';}});}});}})();"
        "</script>")

    def __init__(self, frame: pd.DataFrame, cells: list[list[str]], caption: str,
                 search: str = "title, user or system") -> None:
        self.frame = frame
        self._cells = cells
        self._caption = caption
        self._search = search

    def _repr_html_(self) -> str:
        import hashlib
        import html

        ident = "evalkit-lists-" + hashlib.sha256(
            repr(self._cells).encode("utf-8")).hexdigest()[:10]
        head = "".join(f"<th style='text-align: left'>{html.escape(c)}</th>"
                       for c in self.frame.columns)
        style = ["text-align: left; vertical-align: top"] * 3 + [
            "text-align: left; vertical-align: top; min-width: 20em"] * 2
        body = "".join("<tr>" + "".join(f"<td style='{css}'>{cell}</td>"
                                        for css, cell in zip(style, row)) + "</tr>"
                       for row in self._cells)
        return (f"<div><p>{html.escape(self._caption)}</p>"
                f"<label>Search the lists: <input id='{ident}-q' type='search' "
                f"placeholder='{html.escape(self._search)}'></label>"
                f"<table id='{ident}' class='dataframe'><thead><tr>{head}</tr></thead>"
                f"<tbody>{body}</tbody></table></div>" + self._SCRIPT.format(id=ident))

    def __repr__(self) -> str:
        return self._caption + "\n" + self.frame.to_string(index=False)


@fill_doc(REPORT_DOCS)
def sample_lists(inputs, systems: Mapping[str, pd.DataFrame], *, k: int, users: int = 5,
                 threshold: float | None = 4.0, seed: int = 0) -> SampleLists:
    """The top-k lists of a few test users, one row per (user, system), with each user's test
    items, for reading the lists themselves.

    Items show their title where the dataset has one (else their id); an item of the list
    that is a relevant test item of the user is marked ``✓`` (rated at least ``threshold``,
    or any test item when it is None), one the user rated lower ``·``. The users are a
    seeded sample of the test users (``users`` of them). In a notebook or an HTML report the
    table has a search box that filters its rows as you type (a few lines of inline script;
    nothing is fetched).

    Parameters
    ----------
    %(inputs)s
    %(systems)s
    %(k_lists)s
    users : int, default 5
        How many test users are shown.
    %(threshold)s
    seed : int, default 0
        Seed of the users drawn.
    """
    import html


    test = inputs.test
    titles: dict = {}
    items = getattr(inputs, "items", None)
    if items is not None and "title" in items.columns:
        titles = dict(zip(items["item_id"], items["title"].astype(str)))
    pool = np.sort(pd.unique(test["user_id"]))
    chosen = np.sort(np.random.default_rng(seed).choice(pool, min(users, len(pool)),
                                                        replace=False))
    mine = test[test["user_id"].isin(chosen)]
    has_rating = "rating" in mine.columns
    rated = {(u, i): (r if has_rating else None) for u, i, r in zip(
        mine["user_id"], mine["item_id"], mine["rating"] if has_rating else [None] * len(mine))}

    def relevant(rating: object) -> bool:
        return threshold is None or rating is None or rating >= threshold

    def name(item: object) -> str:
        return titles.get(item, str(item))

    rows, cells = [], []
    for user in chosen:  # a handful of users, by design
        truth_items = [(i, r) for (u, i), r in rated.items() if u == user]
        shown = "; ".join(f"{name(i)}" + ("" if r is None else f" ({r:g})")
                          for i, r in sorted(truth_items, key=lambda t: str(name(t[0]))))
        for system, frame in systems.items():
            frame = check_recs(frame, func="sample_lists", arg=f"systems[{system!r}]")
            mine_recs = frame[frame["user_id"] == user]
            if "rank" in mine_recs.columns:
                top = mine_recs.sort_values(["rank", "item_id"]).head(k)
            else:
                top = mine_recs.sort_values(["score", "item_id"], ascending=[False, True]).head(k)
            marks, plain = [], []
            for item in top["item_id"]:
                key = (user, item)
                mark = "" if key not in rated else (" ✓" if relevant(rated[key]) else " ·")
                plain.append(name(item) + mark)
                text = html.escape(name(item))
                marks.append(f"<b>{text} ✓</b>" if mark == " ✓" else
                             f"<i>{text} ·</i>" if mark else text)
            hits = sum(m.endswith("✓") for m in plain)
            rows.append({"user": user, "system": system, "hits": hits,
                         "list": "; ".join(plain), "test items": shown})
            numbered = "<br>".join(f"{r}. {m}" for r, m in enumerate(marks, start=1))
            cells.append([html.escape(str(user)), html.escape(str(system)), str(hits),
                          numbered or "<i>no list</i>", html.escape(shown)])
    legend = ("✓ a test item of the user" if threshold is None else
              f"✓ a relevant test item of the user (rated at least {threshold:g}), · a test "
              "item the user rated lower")
    caption = (f"Each system's top {k} for {len(chosen)} test users chosen at random "
               f"(seed {seed}): "
               f"{legend}; the last column is the user's test items"
               f"{' with their ratings' if has_rating else ''}.")
    return SampleLists(pd.DataFrame(rows, columns=["user", "system", "hits", "list",
                                                   "test items"]), cells, caption,
                       search=("title" if titles else "item id") + ", user or system")
