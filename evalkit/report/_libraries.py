"""The metrics-explained page: the libraries' profiles and each one's numbers on the report's
lists."""

from __future__ import annotations

import pandas as pd

from .._docstrings import fill_doc
from .._evaluation import evaluate
from ..definitions import resolve
from ..metrics import (
    RANKING_METRICS,
)
from ..metrics.ranking import sharing_tables, table_fields
from ..profiles import PROFILES
from ._docs import REPORT_DOCS
from ._quiet import shown_in_the_page

__all__ = ["library_table", "profile_table"]


@fill_doc(REPORT_DOCS)
def library_table(test: pd.DataFrame, recs: pd.DataFrame, *, k: int,
                  threshold: float | None = 4.0, train: pd.DataFrame | None = None,
                  digits: int = 4) -> pd.DataFrame:
    """What each library would report for these lists: per profile (:data:`evalkit.PROFILES`)
    the mean at ``k`` of every metric it reproduces, computed by :func:`evalkit.evaluate`
    with that profile's definitions (blank where the library has no such metric).

    The same recommendations, the same test truth and the same relevance threshold: every
    difference in a column is a difference of definitions, which :func:`profile_table` lists.

    Parameters
    ----------
    %(test_interactions)s
    recs : pandas.DataFrame
        One system's recommendations (``user_id, item_id`` and ``rank`` and/or ``score``).
    k : int
        The cutoff.
    %(threshold)s
    train : pandas.DataFrame, optional
        The training interactions, for the profiles that drop test items unseen in training.
    digits : int, default 4
        Decimals kept.
    """

    rows = {}
    # the compiled metrics of relevant items: half-life utility (of ratings, not of
    # relevance) and the metrics from hits (the first relevant rank, metrics of your own)
    # are evalkit's alone, not compared here
    shared = [m for m, metric in RANKING_METRICS.items()
              if metric.kernel and "threshold" in metric.reads]
    covered = {name: [m for m in shared if entry.covers(m)] for name, entry in PROFILES.items()}

    def tables(name: str) -> list:  # the hit tables a profile's metrics are computed from
        used = resolve(name, func="library_table", threshold=threshold)
        return sorted({table_fields(used.for_metric(m)) for m in covered[name]}, key=repr)

    with shown_in_the_page(), sharing_tables():
        # profiles whose metrics read the same hit tables one after the other: each table
        # is built once
        for name in sorted(PROFILES, key=lambda name: repr(tables(name))):
            metrics = covered[name]
            result = evaluate(test, recs, k=k, metrics=metrics, threshold=threshold,
                              train=train, definitions=name, n_resamples=0)
            rows[name] = {
                RANKING_METRICS[m].label + (f"@{k}" if RANKING_METRICS[m].at_k else ""):
                    result.mean(m, k if RANKING_METRICS[m].at_k else None)
                for m in metrics
            }
    order = [RANKING_METRICS[m].label + (f"@{k}" if RANKING_METRICS[m].at_k else "")
             for m in RANKING_METRICS if m in shared]
    table = pd.DataFrame.from_dict({name: rows[name] for name in PROFILES}, orient="index")
    table = table[[c for c in order if c in table.columns]].round(digits)
    table.index.name = "profile"
    return table


def profile_table() -> pd.DataFrame:
    """Each profile's library, version and the definitions where it differs from evalkit's."""

    def changes(entry) -> str:
        d = entry.definitions
        parts = [f"{k}={v!r}" for k, v in d.changed().items()]
        parts += [f"{m}: " + ", ".join(f"{k}={v!r}" for k, v in c.items())
                  for m, c in d.per_metric.items()]
        return "; ".join(parts) or "(evalkit's definitions)"

    table = pd.DataFrame({
        "library": [p.library for p in PROFILES.values()],
        "version": [p.version for p in PROFILES.values()],
        "definitions": [changes(p) for p in PROFILES.values()],
    }, index=pd.Index(list(PROFILES), name="profile"))
    return table
