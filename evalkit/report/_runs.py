"""Saved runs in the reports: each system's evaluation saved under the report's ``runs/``
folder (``RUNS_DIR``, set by the runner), and the regression check of every system against a
saved baseline run (``BASELINE_RUN``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from .._docstrings import fill_doc
from ._docs import REPORT_DOCS

__all__ = ["regression_checks", "regression_note", "regression_table", "save_runs"]


def _folder_names(names: list[str]) -> dict[str, str]:
    """A folder name for each system: its name with anything but letters, digits, '.', '-'
    and '_' replaced by '_', made unique."""
    out: dict[str, str] = {}
    for name in names:
        base = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "system"
        folder, n = base, 2
        while folder in out.values():
            folder, n = f"{base}_{n}", n + 1
        out[name] = folder
    return out


@fill_doc(REPORT_DOCS)
def save_runs(evaluations: Mapping[str, object], folder: str | None, *,
              inputs: object = None, systems: Mapping[str, pd.DataFrame] | None = None
              ) -> dict[str, str]:
    """Save each system's evaluation (:meth:`evalkit.Evaluation.save`) to ``folder/NAME``,
    with the fingerprints of the test data, its recommendations and the training data and
    the split's description; nothing when ``folder`` is None (a notebook run by hand).
    Returns each system's folder name (``runs/NAME`` of the report folder).

    Parameters
    ----------
    %(evaluations)s
    folder : str or None
        The folder to save in; None: nothing is saved.
    inputs : ReportInputs, optional
        The report's data, whose split is described with each run.
    systems : mapping of str to pandas.DataFrame, optional
        Each system's recommendations, whose fingerprint is saved with its run.
    """
    if folder is None:
        return {}
    from .._runs import save_evaluation

    names = _folder_names(list(evaluations))
    split = getattr(inputs, "split", None)
    known: dict = {}  # the test and training data, fingerprinted once for every system
    for name, evaluation in evaluations.items():
        save_evaluation(evaluation, Path(folder) / names[name], name=name, split=split,
                        recs=None if systems is None else systems.get(name), known=known)
    return names


@fill_doc(REPORT_DOCS)
def regression_checks(evaluations: Mapping[str, object], baseline: str | None, *,
                      alpha: float = 0.05, margin: float = 0.0) -> dict[str, object]:
    """:func:`evalkit.regression_check` of every system against the saved run ``baseline``
    (``BASELINE_RUN``), at ``alpha``, with ``margin`` for every metric. A system that
    cannot be checked (other test data, definitions or metrics) gets the reason, as text,
    in place of its check. Empty without a baseline.

    Parameters
    ----------
    %(evaluations)s
    baseline : str or None
        ``BASELINE_RUN``: the folder of the saved run to check against; None: no check.
    alpha : float, default 0.05
        Significance level of the tests.
    margin : float, default 0.0
        ``MARGIN``: the non-inferiority margin of every metric; 0: none.
    """
    from .._evaluation import load_evaluation
    from .._regression import regression_check
    from .._runs import IncomparableRunsError

    if baseline is None:
        return {}
    run = load_evaluation(baseline)
    out: dict[str, object] = {}
    for name, evaluation in evaluations.items():
        try:
            out[name] = regression_check(evaluation, run, alpha=alpha, margins=margin or None,
                                         coverage=True)
        except IncomparableRunsError as error:
            out[name] = str(error).split(": ", 1)[-1]
    return out


def regression_note(checks: Mapping[str, object], baseline: str | None, *,
                    runs: Mapping[str, str] | None = None) -> str:
    """What the regression checks found, one sentence per system, and where this report's
    runs are saved (to be a later report's baseline).

    Parameters
    ----------
    checks : mapping of str to evalkit.RegressionCheck or str
        Each system's check (:func:`regression_checks`), or why it could not be checked.
    baseline : str or None
        ``BASELINE_RUN``: the folder of the saved run checked against; None: none was given.
    runs : mapping of str to str, optional
        Where this report saved each system's run (:func:`save_runs`).
    """
    intro, lines = "", []
    if baseline is None:
        intro = ("No baseline run was given (parameter `BASELINE_RUN`), so no system is "
                 "checked for regressions here.")
    else:
        from .._evaluation import load_evaluation

        info = load_evaluation(baseline).provenance
        what = f"`{info.get('name')}`" if info.get("name") else "the baseline run"
        when = f", saved {info['saved']}" if info.get("saved") else ""
        margins = [float(c.table["margin"].max()) for c in checks.values()
                   if not isinstance(c, str)]
        within = (" A metric shown to be worse by less than the margin (`MARGIN`, "
                  f"{max(margins):g}) is *non-inferior*, and *unchanged* when shown within it "
                  "both ways." if margins and max(margins) > 0 else "")
        intro = (f"Each system is checked against {what}{when} (`BASELINE_RUN`), paired by "
                 "user: a metric *regressed* when it is significantly worse, *improved* when "
                 "significantly better (paired t-test, Holm-corrected over the metrics), "
                 "*unchanged* when every user's value is the same, and *inconclusive* when "
                 f"these users cannot tell.{within}")
        for name, check in checks.items():
            if isinstance(check, str):
                lines.append(f"- **{name}** cannot be checked against it: {check}")
                continue
            counts = check.table["verdict"].value_counts()
            verdicts = ", ".join(f"{int(n)} {v}" for v, n in counts.items())
            failed = check.table[check.table["column"].isin(check.failed)]
            worse = "; ".join(
                f"{c} {d:+.4f} [{lo:+.4f}, {hi:+.4f}]" for c, d, lo, hi in
                zip(failed["column"], failed["diff"], failed["diff_ci_low"],
                    failed["diff_ci_high"]))
            lines.append(f"- **{name}**: {'passed' if check.passed else 'FAILED'} "
                         f"({verdicts})" + (f"; regressed: {worse}." if worse else "."))
    saved = ""
    if runs:
        shown = ", ".join(f"`runs/{folder}`" for folder in runs.values())
        first = next(iter(runs.values()))
        saved = (f"This report saved each system's run in its folder ({shown}): a later "
                 f"report checks against one with `-p BASELINE_RUN <this folder>/runs/{first}`,"
                 f" and `evalkit check --baseline <this folder>/runs/{first} --current DIR` "
                 "does it on the command line.")
    return "\n\n".join(part for part in (intro, "\n".join(lines), saved) if part)


def regression_table(checks: Mapping[str, object], *, digits: int = 4) -> pd.DataFrame | None:
    """Every system's verdicts against the baseline run, one row per system and metric
    (None without checks).

    Parameters
    ----------
    checks : mapping of str to evalkit.RegressionCheck or str
        Each system's check (:func:`regression_checks`), or why it could not be checked.
    digits : int, default 4
        Decimals shown.
    """
    frames = []
    for name, check in checks.items():
        if isinstance(check, str):
            continue
        rows = check.readable(digits=digits)
        frames.append(rows.drop(columns=["p non-inferior"] if not
                                (check.table["margin"] > 0).any() else [])
                      .assign(system=name))
    if not frames:
        return None
    table = pd.concat(frames, ignore_index=True)
    return table[["system"] + [c for c in table.columns if c != "system"]].replace(
        {np.nan: ""})
