"""Beyond-accuracy metrics of top-k lists: coverage, exposure inequality, popularity,
novelty, diversity, personalization and serendipity.

Every function here reads the top ``k`` of each user's recommendation list. When ``recs`` has
a ``rank`` column, the top k are the rows with ``rank <= k``; otherwise ranks come from the
``score`` column, descending within the user, tied scores in ``tie_order`` (item id ascending
by default), as the ranking metrics order them under ``ties="deterministic"``; a
:class:`~evalkit.metrics.TieWarning` counts the users whose tied scores straddle ``k``. The
relevance-based tie policies (``"optimistic"``, ``"pessimistic"``, ``"expected"``) have no
meaning for lists judged without relevance, so these metrics take ``tie_order`` only.

Other libraries define several of these metrics differently; each difference that
changes a number is a keyword here, and each docstring names the library, version and source
file an option reproduces, and how that library treats what evalkit treats otherwise (items
unseen in training, short lists, ties).
"""

from ._choices import (
    COVERAGE_UNITS,
    DIVERSITY_NORMS,
    EXPOSURE_WEIGHTS,
    GINI_SCALES,
    NOVELTY_NORMS,
    POPULARITY_UNITS,
)
from ._coverage import catalog_coverage, exposure_entropy, exposure_gini, gini_index, user_coverage
from ._diversity import intra_list_diversity, novelty, personalization
from ._popularity import average_recommended_popularity, mean_pop_rank
from ._serendipity import serendipity

__all__ = [
    "COVERAGE_UNITS",
    "DIVERSITY_NORMS",
    "EXPOSURE_WEIGHTS",
    "GINI_SCALES",
    "NOVELTY_NORMS",
    "POPULARITY_UNITS",
    "average_recommended_popularity",
    "catalog_coverage",
    "exposure_entropy",
    "exposure_gini",
    "gini_index",
    "intra_list_diversity",
    "mean_pop_rank",
    "novelty",
    "personalization",
    "serendipity",
    "user_coverage",
]
