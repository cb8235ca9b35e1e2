"""Metrics of your own: :func:`register` declares one (a :class:`~evalkit.metrics.Metric`
with ``per_user``) and derives its public per-user function from the engine;
:func:`load_metrics` imports the modules that register them (``$EVALKIT_METRICS``, the
command line's ``--metrics-module``)."""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import os
import sys
from pathlib import Path

from .._checks import InvalidParameterError
from ._engine import per_user_function
from ._registry import METRICS, add, unregister
from ._spec import Metric

__all__ = ["METRICS_VARIABLE", "load_metrics", "register", "unregister"]

#: The environment variable naming the modules that register metrics of your own, loaded
#: when :mod:`evalkit.metrics` is first imported (so in every report notebook's kernel).
METRICS_VARIABLE = "EVALKIT_METRICS"


def register(metric: Metric, *, replace: bool = False) -> Metric:
    """Add a ranking metric of your own; it then works wherever a built-in one does.

    ``evaluate(..., metrics=[name])`` (per-user values, intervals), :func:`evalkit.compare`
    (which wins by the metric's direction), :func:`~evalkit.metrics.ranking_curves`
    (``metrics=[name]``, when declared with ``curves=True``), :func:`evalkit.metrics.rank`,
    the definition cards, the command line (``evalkit evaluate --metrics name``) and the
    reports' ``METRICS`` (name the module that registers it: ``EVALKIT_METRICS=my_metrics``
    or ``evalkit report --metrics-module my_metrics.py``). ``evalkit.metrics.<name>`` is not
    created; the metric's per-user function is ``get_metric(name).func``.

    Parameters
    ----------
    metric : Metric
        Declared with ``per_user=fn``, ``fn(hits, k)`` returning one float per user of
        ``hits.users`` (NaN where undefined); see :class:`~evalkit.metrics.Hits`.
    replace : bool, default False
        Replace a metric of your own registered earlier under the same name (a built-in
        metric is never replaced).

    Returns
    -------
    Metric
        The metric as registered (its ``func`` filled in).

    Examples
    --------
    Discounted hits: each hit counts ``1 / rank``, summed (a user can score above 1).

    >>> import numpy as np, pandas as pd
    >>> from evalkit import evaluate
    >>> from evalkit.metrics import Metric, register, unregister
    >>> def discounted_hits(hits, k):
    ...     return hits.sum(1.0 / hits.rank)
    >>> _ = register(Metric("dhits", per_user=discounted_hits, higher_is_better=True,
    ...                     label="DH", bounds=(0, np.inf), formula="sum over hits of 1/rank"))
    >>> truth = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [10, 11, 10], "rating": 5.0})
    >>> recs = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [10, 11, 12, 10],
    ...                      "rank": [1, 2, 1, 2]})
    >>> evaluate(truth, recs, k=2, metrics=["dhits"], n_resamples=0).per_user
             dhits@2
    user_id
    1            1.5
    2            0.5
    >>> unregister("dhits")
    """
    if not isinstance(metric, Metric):
        raise InvalidParameterError(
            f"register: 'metric' must be an evalkit.metrics.Metric; got "
            f"{type(metric).__name__}.")
    if metric.family != "ranking":
        raise InvalidParameterError(
            f"register: only ranking metrics (computed from each user's hits) can be "
            f"registered; {metric.name!r} has family {metric.family!r}.")
    if metric.kernel:
        raise InvalidParameterError(
            f"register: metric {metric.name!r} sets a kernel row, which only evalkit's built-in "
            "metrics have; declare it with per_user=fn.")
    if metric.per_user is None:
        raise InvalidParameterError(
            f"register: metric {metric.name!r} needs 'per_user', the function "
            "(hits, k) -> array that computes it from each user's hits.")
    # its public function, derived from the declaration (whatever 'function' it was given)
    metric = dataclasses.replace(metric, function=None)
    return add(dataclasses.replace(metric, function=per_user_function(metric)),
               replace=replace)


def load_metrics(source: str | os.PathLike, *, func: str = "load_metrics") -> list[str]:
    """Import the module(s) that register metrics of your own, returning the names they
    added.

    ``source``: a module name (``my_metrics``, importable from the current directory or
    ``sys.path``) or a ``.py`` file, or several separated by commas. The same source imported
    twice is not run again. ``EVALKIT_METRICS`` holds such a source for every process that
    imports evalkit (the report's notebooks included); ``evalkit evaluate`` and
    ``evalkit report`` take it as ``--metrics-module``.

    Parameters
    ----------
    source : str or path-like
        A module name or a ``.py`` file, or several separated by commas.
    func : str, default "load_metrics"
        The caller's name, for error messages.
    """
    before = set(METRICS)
    parts = [p.strip() for p in str(os.fspath(source)).split(",") if p.strip()]
    if not parts:
        raise InvalidParameterError(f"{func}: name a module or a .py file; got {source!r}.")
    for part in parts:
        path = Path(part).expanduser()
        try:
            if part.endswith(".py"):
                if not path.is_file():
                    raise FileNotFoundError(f"no such file: '{path}'")
                name = f"evalkit_metrics_{abs(hash(str(path.resolve())))}"
                if name in sys.modules:
                    continue
                spec = importlib.util.spec_from_file_location(name, path)
                module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
                sys.modules[name] = module
                try:
                    spec.loader.exec_module(module)  # type: ignore[union-attr]
                except BaseException:
                    del sys.modules[name]
                    raise
            else:
                if os.getcwd() not in sys.path and "" not in sys.path:
                    sys.path.append(os.getcwd())
                importlib.import_module(part)
        except Exception as error:
            raise ImportError(
                f"{func}: could not load the metrics of {part!r}: "
                f"{type(error).__name__}: {error}") from error
    return [name for name in METRICS if name not in before]
