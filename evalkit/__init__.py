"""evalkit: explicit, fast, tested evaluation of recommender systems.

The package is organised by concern; the names most analysts need are re-exported here:

- data: :func:`load_movielens`, :func:`load_interactions`, :func:`load_sample`,
  :func:`fingerprint`;
- splits: :func:`random_split`, :func:`user_ratio_split`, :func:`user_temporal_split`,
  :func:`global_temporal_split`, :func:`kfold_split`, :func:`train_dev_test_split`,
  :func:`audit`;
- evaluation: :func:`evaluate` (:class:`Evaluation`), :func:`load_evaluation` (a saved run),
  :func:`regression_check` (:class:`RegressionCheck`), :func:`compare` (:class:`Comparison`),
  :func:`compare_evaluations`, :func:`cross_validate` (:class:`CrossValidation`),
  :func:`format_pvalue`, :func:`metric_column`, :func:`read_recommendations`;
- metric functions live in :mod:`evalkit.metrics`, baselines in :mod:`evalkit.models`,
  statistics in :mod:`evalkit.stats`, plots in :mod:`evalkit.plots`, reports in
  :mod:`evalkit.report`; sampled-candidate and popularity-debiased evaluation in
  :mod:`evalkit.protocols`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from evalkit._version import __version__

#: The subpackages and modules exported by name.
_MODULES = ("data", "examples", "explore", "fairness", "metrics", "models", "plots", "protocols",
            "report", "segments", "spark", "split", "stats")

#: Where each exported function, class and constant lives. They are imported on first use
#: (PEP 562), so that ``import evalkit``, which every command-line call, notebook kernel and
#: Spark worker makes, loads only what the caller then uses: ``python -m evalkit --help``
#: takes a tenth of a second instead of most of a second.
_NAMES = {
    **dict.fromkeys(["PAIRS", "Comparison", "CrossValidation", "compare",
                     "compare_evaluations", "cross_validate", "format_pvalue"],
                    "evalkit._comparison"),
    "Definitions": "evalkit.definitions",
    "InvalidParameterError": "evalkit._errors",
    **dict.fromkeys(["PROFILES", "Profile", "profile"], "evalkit.profiles"),
    **dict.fromkeys(["Dataset", "fingerprint", "load_interactions", "load_movielens",
                     "load_sample"], "evalkit.data"),
    **dict.fromkeys(["Evaluation", "evaluate", "load_evaluation", "metric_column"],
                    "evalkit._evaluation"),
    "read_recommendations": "evalkit.recs",
    **dict.fromkeys(["RegressionCheck", "regression_check"], "evalkit._regression"),
    "IncomparableRunsError": "evalkit._runs",
    **dict.fromkeys(["Split", "audit", "global_temporal_split", "kfold_split", "random_split",
                     "train_dev_test_split", "user_ratio_split", "user_temporal_split"],
                    "evalkit.split"),
}


def __getattr__(name: str) -> object:
    if name in _MODULES:
        return importlib.import_module(f"evalkit.{name}")
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'evalkit' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # the next lookup finds it directly
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # what static tools see; at run time the names above are loaded on use
    from evalkit import (
        data,
        examples,
        explore,
        fairness,
        metrics,
        models,
        plots,
        protocols,
        report,
        segments,
        spark,
        split,
        stats,
    )
    from evalkit._comparison import (
        PAIRS,
        Comparison,
        CrossValidation,
        compare,
        compare_evaluations,
        cross_validate,
        format_pvalue,
    )
    from evalkit._errors import InvalidParameterError
    from evalkit._evaluation import Evaluation, evaluate, load_evaluation, metric_column
    from evalkit._regression import RegressionCheck, regression_check
    from evalkit._runs import IncomparableRunsError
    from evalkit.data import Dataset, fingerprint, load_interactions, load_movielens, load_sample
    from evalkit.definitions import Definitions
    from evalkit.profiles import PROFILES, Profile, profile
    from evalkit.recs import read_recommendations
    from evalkit.split import (
        Split,
        audit,
        global_temporal_split,
        kfold_split,
        random_split,
        train_dev_test_split,
        user_ratio_split,
        user_temporal_split,
    )

__all__ = [
    "PAIRS",
    "PROFILES",
    "Comparison",
    "CrossValidation",
    "Dataset",
    "Definitions",
    "Evaluation",
    "IncomparableRunsError",
    "InvalidParameterError",
    "RegressionCheck",
    "Split",
    "__version__",
    "audit",
    "compare",
    "compare_evaluations",
    "cross_validate",
    "data",
    "evaluate",
    "examples",
    "explore",
    "fairness",
    "fingerprint",
    "format_pvalue",
    "global_temporal_split",
    "kfold_split",
    "load_evaluation",
    "load_interactions",
    "load_movielens",
    "load_sample",
    "metric_column",
    "metrics",
    "models",
    "plots",
    "profile",
    "Profile",
    "protocols",
    "random_split",
    "read_recommendations",
    "regression_check",
    "report",
    "segments",
    "spark",
    "split",
    "stats",
    "train_dev_test_split",
    "user_ratio_split",
    "user_temporal_split",
]
