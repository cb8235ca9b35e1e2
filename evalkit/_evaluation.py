"""Evaluate recommendations end to end: every ranking metric at every cutoff from one hit
table, with bootstrap confidence intervals, the definitions used and the users left out."""

from __future__ import annotations

import html
import json
import numbers
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ._checks import InvalidParameterError
from ._constraints import CUTOFF, CUTOFFS, FRACTION, RESAMPLES, SEED, constrained, optional
from ._display import CompactTable, CurveTable, metric_column
from ._docstrings import PER_USER_DOCS, fill_doc, fragments
from ._version import __version__
from .definitions import Definitions, takes_definitions
from .metrics import parse_column, rank
from .stats import bootstrap_ci_frame

__all__ = ["Evaluation", "Summary", "evaluate", "load_evaluation", "metric_column"]


#: The parameter entries that :class:`Evaluation`'s methods share with those of
#: :class:`evalkit.spark.SparkEvaluation`, which answer the same calls.
EVALUATION_DOCS = fragments(
    metric_k="""
    metric : str
        The metric's registry name, label or column (``"ndcg"``, ``"NDCG"``, ``"NDCG@10"``).
    k : int, optional
        The cutoff; None for a metric without one, or a column that names it.
    """,
    json="""
    path : str, optional
        A file to write the JSON to as well.
    indent : int, default 2
        Indentation of the JSON.
    overwrite : bool, default True
        Replace an existing file at ``path``; False raises ``FileExistsError`` instead.
    """,
)

#: The bootstrap settings as a single mapping with the definitions names them, and as
#: ``Evaluation.bootstrap`` does.
_BOOTSTRAP_KEYS = {"confidence": "confidence", "n_resamples": "n_resamples",
                   "bootstrap_seed": "rng"}


def definition_meanings() -> dict[str, str]:
    """What each entry of an evaluation's ``definitions`` means, for its table."""
    from dataclasses import fields

    meaning = {f.name: f.metadata.get("help", "") for f in fields(Definitions)}
    return meaning | {"confidence": "level of the bootstrap intervals",
                      "n_resamples": "bootstrap resamples of the intervals",
                      "bootstrap_seed": "seed of the bootstrap"}


class Summary(CompactTable):
    """An evaluation's summary: a DataFrame, one row per ``metric@k`` (see
    :attr:`Evaluation.summary` for its columns), that a notebook shows compactly.

    Shown in a notebook or printed, it gives each row's ``mean``, ``ci_low``, ``ci_high``,
    ``n_users``, ``dropped_undefined`` and ``tied_users`` (and ``undefined`` where it differs
    from ``dropped_undefined``) at 4 decimals, every row, with a line naming what the
    display leaves out; ``metric``, ``k`` and ``label`` are in the row names (``ndcg@10``).
    The values keep full precision (``summary["mean"]``, ``summary.loc["ndcg@10"]``), and
    :attr:`table` is every column as a plain DataFrame.
    """

    def compact(self) -> pd.DataFrame:
        """The columns the display shows."""
        shown = [c for c in ("mean", "ci_low", "ci_high", "n_users", "dropped_undefined",
                             "undefined", "tied_users") if c in self.columns]
        if {"undefined", "dropped_undefined"} <= set(shown) and \
                self["undefined"].equals(self["dropped_undefined"]):
            shown.remove("undefined")
        return pd.DataFrame(self)[shown]


@dataclass(frozen=True)
class Evaluation:
    """The result of :func:`evaluate`.

    Attributes
    ----------
    per_user : pd.DataFrame
        One row per evaluated user (index ``user_id``), one column per ``metric@k``. A user for
        whom a metric is undefined holds NaN there (``empty="drop"`` or ``"nan"``).
    summary : Summary
        A DataFrame, one row per ``metric@k``: ``metric``, ``k``, ``label``, ``mean``,
        ``ci_low``, ``ci_high``, ``n_users`` (users averaged), ``dropped_undefined`` (users
        for whom the metric is undefined and that ``empty="drop"`` left out), ``undefined``
        (users for whom it is undefined), ``tied_users`` (users whose tied scores straddle
        ``k``). A notebook shows it rounded to 4 decimals, without the columns the row names
        repeat; the values keep full precision, and ``summary.table`` is every column as a
        plain DataFrame.
    definitions : Definitions
        The definitions used (gain, discount, log base, AP denominator, ties, empty policy,
        threshold, half-life parameters, ...; a notebook shows them as a table with each
        field's meaning).
    counts : dict
        ``users`` evaluated, ``users_without_recs`` (scored 0), ``recs_only_users`` (ignored).
    curves : pd.DataFrame or None
        With ``evaluate(..., curves=K)``: the :func:`~evalkit.metrics.ranking_curves` table
        for k = 1..K (mean P, R, F1, HR, MAP, MRR and NDCG at every cutoff), else None.
    bootstrap : dict
        The intervals' settings: ``confidence``, ``n_resamples`` and ``rng`` (the seed when
        it was an integer, else None).
    provenance : dict
        Where a run read by :func:`evalkit.load_evaluation` comes from: ``fingerprints`` of
        its truth, recommendations and training data, ``split``, ``name``, ``saved`` (UTC
        time), ``evalkit_version``, ``path``; empty for a fresh evaluation (whose inputs
        :meth:`fingerprints` hashes on demand).
    """

    per_user: pd.DataFrame
    summary: pd.DataFrame
    definitions: Definitions = field(default_factory=Definitions)
    counts: dict = field(default_factory=dict)
    curves: pd.DataFrame | None = None
    bootstrap: dict = field(default_factory=dict)
    provenance: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        defs, boot = self.definitions, dict(self.bootstrap)
        if not isinstance(defs, Definitions):  # one mapping of both, as saved before
            defs = dict(defs)
            for key, name in _BOOTSTRAP_KEYS.items():
                if key in defs:
                    boot.setdefault(name, defs.pop(key))
            defs = Definitions.from_dict(defs, func="Evaluation")
        if not isinstance(self.summary, Summary):
            object.__setattr__(self, "summary", Summary(self.summary))
        if self.curves is not None and not isinstance(self.curves, CurveTable):
            object.__setattr__(self, "curves", CurveTable(self.curves))  # shown at 4 decimals
        object.__setattr__(self, "definitions", defs)
        object.__setattr__(self, "bootstrap", boot)

    def as_definitions(self) -> Definitions:
        """The :class:`~evalkit.Definitions` this evaluation used (``definitions``)."""
        return self.definitions

    def settings(self) -> dict:
        """The definitions and the bootstrap settings in one dict, as a notebook shows them
        (a table of each entry, its value and its meaning)."""
        from ._display import Record

        boot = {old: self.bootstrap[new] for old, new in _BOOTSTRAP_KEYS.items()
                if new in self.bootstrap}
        return Record(self.definitions.as_dict() | boot, meaning=definition_meanings())

    def directions(self) -> dict[str, bool]:
        """Per ``metric@k`` column: whether a higher value is better (from the metric's
        declaration; a saved run keeps the directions it was saved with, for metrics of your
        own that are not registered where it is read)."""
        from .metrics import RANKING_METRICS

        saved = self.provenance.get("higher_is_better", {})
        return {column: bool(RANKING_METRICS[metric].higher_is_better)
                if metric in RANKING_METRICS else bool(saved.get(column, True))
                for column, metric in zip(self.summary.index, self.summary["metric"])}

    def fingerprints(self) -> dict[str, dict]:
        """Fingerprints (:func:`evalkit.fingerprint`) of the ``truth``, ``recs`` and
        ``train`` this evaluation was computed from: those saved with a loaded run, else
        hashed now from the frames :func:`evaluate` was given (the same rows in any order
        give the same digest; a frame changed in place since then hashes as changed)."""
        if self.provenance.get("fingerprints"):
            return dict(self.provenance["fingerprints"])
        from ._runs import input_fingerprints

        return input_fingerprints(getattr(self, "_sources", {}))

    def lists(self) -> pd.DataFrame | None:
        """Each user's top-k list (k the largest cutoff): ``user_id``, ``item_id``,
        ``position``; from the recommendations :func:`evaluate` was given, or those saved with
        a loaded run; None when neither is at hand."""
        from ._runs import top_lists

        saved = self.provenance.get("lists")
        if saved:
            return pd.read_parquet(saved)
        recs = getattr(self, "_sources", {}).get("recs")
        if recs is None or self.summary["k"].isna().all():
            return None
        return top_lists(recs, int(self.summary["k"].max()))

    def catalog(self) -> pd.Index | None:
        """The training data's items (the catalog that coverage is a share of): from the
        training data :func:`evaluate` was given, or saved with a loaded run; else None."""
        saved = self.provenance.get("catalog")
        if saved:
            return pd.Index(pd.read_parquet(saved)["item_id"], name="item_id")
        train = getattr(self, "_sources", {}).get("train")
        if train is None:
            return None
        return pd.Index(pd.unique(getattr(train, "raw", train)["item_id"]), name="item_id")

    def save(self, path: str | os.PathLike, *, truth: pd.DataFrame | None = None,
             recs: pd.DataFrame | None = None, train: pd.DataFrame | None = None,
             split: object = None, name: str | None = None, overwrite: bool = False,
             lists: bool = True) -> Path:
        """Save this evaluation to the folder ``path``, atomically, to be read back exactly
        by :func:`evalkit.load_evaluation` (and compared or checked against later runs).

        Parameters
        ----------
        path : str or path
            The folder to create. It appears whole or not at all.
        truth, recs, train : pd.DataFrame, optional
            The data to fingerprint; default: the frames :func:`evaluate` was given (a loaded
            run keeps its fingerprints). Only a SHA-256 of each (ids, ratings, rank and
            score, sorted, so row order does not matter) is stored, not the data.
        split : Split, mapping or str, optional
            How the test data was made: an :class:`evalkit.Split` (its ``info`` is stored and
            its training data fingerprinted unless ``train`` is given), or a description.
        name : str, optional
            A name for the run (the system's, say).
        overwrite : bool, default False
            Replace an earlier saved run at ``path``; without it an existing folder raises
            ``FileExistsError``. A folder that is not a saved run is never replaced.
        lists : bool, default True
            Also save each user's top-k list (k the largest cutoff; ``lists.parquet``), which
            :func:`evalkit.regression_check` needs to check catalog coverage.

        Returns
        -------
        pathlib.Path
            The folder: ``run.json`` (definitions, bootstrap settings, counts, fingerprints,
            split, evalkit's version, the time, the summary), ``per_user.parquet``,
            ``summary.parquet``, ``curves.parquet`` when curves were computed and
            ``lists.parquet`` when the recommendations are at hand.
        """
        from ._runs import save_evaluation

        return save_evaluation(self, path, truth=truth, recs=recs, train=train, split=split,
                               name=name, overwrite=overwrite, lists=lists)

    @fill_doc(EVALUATION_DOCS)
    def mean(self, metric: str, k: int | None = None) -> float:
        """The summary mean of ``metric`` at ``k``: ``evaluation.mean("ndcg", 10)``, or by
        label or column, ``mean("NDCG", 10)``, ``mean("NDCG@10")`` (read as
        :func:`evalkit.metrics.parse_column` reads it).

        Parameters
        ----------
        %(metric_k)s
        """
        if metric not in self.summary.index:  # a saved run's own column needs no registry
            spec, at = parse_column(metric, func="Evaluation.mean", arg="metric")
            if at is not None and k is not None and at != k:
                raise InvalidParameterError(
                    f"Evaluation.mean: 'metric' {metric!r} names the cutoff {at} and 'k' is "
                    f"{k}; give the cutoff once.")
            metric = metric_column(spec.name, at if at is not None else k)
        elif k is not None:
            metric = metric_column(metric, k)
        return float(self.summary.loc[metric, "mean"])

    def to_dict(self) -> dict:
        """A JSON-ready dict: summary rows, definitions, bootstrap settings, counts, evalkit's
        version, and the curves' rows when they were computed."""
        summary = self.summary.reset_index(names="column")
        return {
            "evalkit_version": __version__,
            "definitions": self.definitions.as_dict(),
            "bootstrap": self.bootstrap,
            "counts": self.counts,
            "summary": json.loads(summary.to_json(orient="records", double_precision=15)),
        } | ({"provenance": self.provenance} if self.provenance else {}) | (
            {} if self.curves is None else {
            "curves": json.loads(self.curves.reset_index().to_json(orient="records",
                                                                   double_precision=15)),
        })

    @fill_doc(EVALUATION_DOCS)
    def to_json(self, path: str | None = None, *, indent: int = 2,
                overwrite: bool = True) -> str:
        """Serialize :meth:`to_dict` to JSON; also write it to ``path`` when given (atomically;
        with ``overwrite=False`` an existing file is never replaced, even by a run racing this
        one: ``FileExistsError``).

        Parameters
        ----------
        %(json)s
        """
        text = json.dumps(self.to_dict(), indent=indent, sort_keys=False)
        if path is not None:
            from ._io import atomic_write_text

            atomic_write_text(path, text + "\n", overwrite=overwrite)
        return text

    def table(self, *, digits: int = 4) -> pd.DataFrame:
        """The summary as an analyst reads it: label, mean and CI, users, rounded.

        Parameters
        ----------
        digits : int, default 4
            Decimals kept.
        """
        s = self.summary
        out = pd.DataFrame(
            {
                "metric": [
                    f"{lab}@{k}" if pd.notna(k) else lab for lab, k in zip(s["label"], s["k"])
                ],
                "mean": s["mean"].round(digits),
                "ci_low": s["ci_low"].round(digits),
                "ci_high": s["ci_high"].round(digits),
                "n_users": s["n_users"],
                "dropped": s["dropped_undefined"],
            }
        )
        return out.reset_index(drop=True)

    def _repr_html_(self) -> str:
        d = self.settings()
        c = self.counts
        caption = (
            f"{c.get('users', 0)} users evaluated; {c.get('users_without_recs', 0)} without "
            f"recommendations (scored 0); {c.get('recs_only_users', 0)} only in the "
            f"recommendations (ignored). "
            + (f"Profile {html.escape(str(d['profile']))}. " if d.get("profile") else "")
            + f"Relevance: rating &ge; {d.get('threshold')}; gain "
            f"{html.escape(str(d.get('gain')))}, discount {html.escape(str(d.get('discount')))}, "
            f"AP denominator {html.escape(str(d.get('ap_denominator')))}, ties "
            f"{html.escape(str(d.get('ties')))}, empty {html.escape(str(d.get('empty')))}; "
            + (f"{int(100 * d.get('confidence', 0.95))}% bootstrap CIs."
               if d.get("n_resamples", 1) else "no intervals (n_resamples=0).")
        )
        return (
            "<div><p><b>evalkit evaluation</b></p>"
            + self.table().to_html(index=False)
            + f"<p style='font-size:smaller'>{caption}</p></div>"
        )

    def __repr__(self) -> str:
        return f"Evaluation({len(self.per_user)} users)\n{self.table().to_string(index=False)}"


def load_evaluation(path: str | os.PathLike) -> Evaluation:
    """Read a run saved by :meth:`evalkit.Evaluation.save` (or ``evalkit evaluate --save``).

    Parameters
    ----------
    path : str or path
        The run's folder (the one holding ``run.json``).

    Returns
    -------
    Evaluation
        The evaluation as it was saved: ``per_user``, ``summary`` and ``curves`` bit for bit,
        the definitions and the bootstrap settings; ``provenance`` holds the fingerprints of
        its data, the split description, evalkit's version, the time it was saved, its name
        and the folder it was read from. :func:`evalkit.compare_evaluations` and
        :func:`evalkit.regression_check` take it like a fresh one.

    Raises
    ------
    FileNotFoundError
        When ``path`` is not a saved run's folder.
    ValueError
        When the folder was written by a newer evalkit, or its files disagree.
    """
    from ._runs import read_run

    return Evaluation(**read_run(path))


@constrained(k=CUTOFFS, rng=SEED, confidence=FRACTION, n_resamples=RESAMPLES,
             curves=optional(CUTOFF))
@takes_definitions
@fill_doc(PER_USER_DOCS)
def evaluate(
    truth: pd.DataFrame,
    recs: pd.DataFrame,
    *,
    k: int | Iterable[int] = 10,
    metrics: Iterable[str] | None = None,
    train: pd.DataFrame | None = None,
    definitions: Definitions | str | None = None,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    rng: int | np.random.Generator | None = 0,
    curves: int | None = None,
    **options: object,
) -> Evaluation:
    """Evaluate recommendations against test truth with every requested ranking metric.

    Parameters
    ----------
    %(truth_recs)s
    k : int or list of int, default 10
        Cutoff(s). Every metric is computed at each.
    metrics : list of str, optional
        Registry names (``evalkit.metrics.RANKING_METRICS``) or the labels tables print
        (``"ndcg"`` or ``"NDCG"``, case-sensitive; see :func:`evalkit.metrics.get_metric`);
        default: all of them, or under a profile those it reproduces.
    %(train)s
    definitions : Definitions or str, optional
        The definitions (:class:`evalkit.Definitions`) or a profile name (``"trec_eval"``,
        ``"lenskit"``, ... :data:`evalkit.PROFILES`); default: evalkit's. A profile refuses
        the metrics its library does not have.
    **options
        Any field of :class:`evalkit.Definitions` (``threshold``, ``gain``, ``discount``,
        ``log_base``, ``ap_denominator``, ``empty``, ``ties``, ...), overriding
        ``definitions``.
    confidence : float, default 0.95
        Level of the bootstrap confidence intervals.
    n_resamples : int, default 1000
        Bootstrap resamples (a Poisson bootstrap shared by every column, see
        :func:`evalkit.stats.bootstrap_ci_frame`); 0 computes no intervals (``ci_low`` and
        ``ci_high`` are NaN).
    rng : int, Generator or None, default 0
        Seed of the bootstrap; the same seed gives the same intervals.
    curves : int, optional
        Also compute :func:`~evalkit.metrics.ranking_curves` to ``k_max=curves``
        (``result.curves``) from the hit table the summary uses. The inputs are validated
        and joined once for both, not once per call as with two separate calls.

    Returns
    -------
    Evaluation
        ``per_user``, ``summary``, ``definitions``, ``counts``; ``to_json()`` and a rich HTML
        view in notebooks.

    Raises
    ------
    ValueError, TypeError
        For an unknown metric name, an empty ``truth``, a bad option, or invalid frames (see
        the metric functions).

    Notes
    -----
    The hit table is built once; every metric at every cutoff is a reduction of it, so the
    summary equals the means of the individual metric functions under the same options.
    ``r_precision`` has no cutoff and appears once. The summary mean is over users for whom
    the metric is defined (``empty="drop"`` or ``"nan"``) or over all users (``"zero"``).

    Examples
    --------
    >>> truth = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [10, 11, 10], "rating": 5.0})
    >>> recs = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [10, 12, 12, 10],
    ...                      "rank": [1, 2, 1, 2]})
    >>> result = evaluate(truth, recs, k=2, metrics=["precision", "mrr"])
    >>> result.summary[["mean", "n_users"]]
                 mean  n_users
    precision@2  0.50        2
    mrr@2        0.75        2
    """
    func = "evaluate"
    confidence, n_resamples = float(confidence), int(n_resamples)  # constrained
    ranked = rank(truth, recs, k=k, metrics=metrics, train=train, definitions=definitions,
                  curves=curves, caller=func)
    per_user = ranked.values
    ci = bootstrap_ci_frame(per_user, confidence=confidence, n_resamples=n_resamples, rng=rng)
    summary = ranked.columns.copy()
    summary["mean"] = ci["mean"]
    summary["ci_low"] = ci["ci_low"]
    summary["ci_high"] = ci["ci_high"]
    summary["n_users"] = ci["n"]
    summary = summary[
        ["metric", "k", "label", "mean", "ci_low", "ci_high", "n_users", "dropped_undefined",
         "undefined", "tied_users"]
    ]
    bootstrap = {"confidence": confidence, "n_resamples": n_resamples,
                 "rng": int(rng) if isinstance(rng, numbers.Integral) else None}
    result = Evaluation(per_user=per_user, summary=summary, definitions=ranked.definitions,
                        counts=ranked.counts, curves=ranked.curves, bootstrap=bootstrap)
    # the inputs, by reference, for fingerprints() and save(): hashed only when asked
    object.__setattr__(result, "_sources", {"truth": truth, "recs": recs, "train": train})
    return result
