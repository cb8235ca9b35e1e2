"""The choices of the beyond-accuracy metrics' options."""

from __future__ import annotations

from ...definitions import choices

#: ``catalog_coverage(coverage_unit=...)``: a share of the catalog or a count of items.
COVERAGE_UNITS = choices("coverage_unit")
#: ``gini_index(gini_scale=...)``: the plain Gini or the Gini times n / (n - 1).
GINI_SCALES = choices("gini_scale")
#: ``intra_list_diversity(diversity_norm=...)``: divide by the number of pairs or by |L|.
DIVERSITY_NORMS = choices("diversity_norm")
#: ``novelty(novelty_norm=...)``: bits, or bits over log2(number of training users).
NOVELTY_NORMS = choices("novelty_norm")
#: ``popularity=``: an item's distinct training users or its training rows.
POPULARITY_UNITS = choices("popularity")
#: ``exposure_gini(weight=...)``: how much attention each rank gets.
EXPOSURE_WEIGHTS = ("geometric", "log", "uniform")
