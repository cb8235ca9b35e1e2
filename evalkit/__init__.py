"""evalkit: explicit, fast, tested evaluation of recommender systems.

The package is organised by concern; the names most analysts need are re-exported here:

- data: :func:`load_movielens`, :func:`load_interactions`, :func:`load_sample`,
  :func:`fingerprint`;
- splits: :func:`random_split`, :func:`user_ratio_split`, :func:`user_temporal_split`,
  :func:`global_temporal_split`, :func:`kfold_split`, :func:`train_dev_test_split`,
  :func:`audit`;
- evaluation: :func:`evaluate` (:class:`Evaluation`), :func:`compare`,
  :func:`compare_evaluations`, :func:`cross_validate` (:class:`CrossValidation`),
  :func:`format_pvalue`, :func:`metric_column`, :func:`read_recommendations`;
- metric functions live in :mod:`evalkit.metrics`, baselines in :mod:`evalkit.models`,
  statistics in :mod:`evalkit.stats`, plots in :mod:`evalkit.plots`, reports in
  :mod:`evalkit.report`.
"""

from __future__ import annotations

from evalkit._version import __version__  # noqa: E402

from evalkit import examples, explore, metrics, models, segments, split, stats  # noqa: E402
from evalkit._comparison import (  # noqa: E402
    PAIRS,
    CrossValidation,
    compare,
    compare_evaluations,
    cross_validate,
    format_pvalue,
)
from evalkit.definitions import Definitions  # noqa: E402
from evalkit.profiles import PROFILES, Profile, profile  # noqa: E402
from evalkit.data import (  # noqa: E402
    Dataset,
    fingerprint,
    load_interactions,
    load_movielens,
    load_sample,
)
from evalkit._evaluation import Evaluation, evaluate, metric_column  # noqa: E402
from evalkit.recs import read_recommendations  # noqa: E402
from evalkit.split import (  # noqa: E402
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
    "CrossValidation",
    "Dataset",
    "Definitions",
    "Evaluation",
    "Split",
    "__version__",
    "audit",
    "compare",
    "compare_evaluations",
    "cross_validate",
    "evaluate",
    "examples",
    "explore",
    "fingerprint",
    "format_pvalue",
    "global_temporal_split",
    "kfold_split",
    "load_interactions",
    "load_movielens",
    "load_sample",
    "metric_column",
    "metrics",
    "models",
    "profile",
    "Profile",
    "random_split",
    "read_recommendations",
    "segments",
    "split",
    "stats",
    "train_dev_test_split",
    "user_ratio_split",
    "user_temporal_split",
]
