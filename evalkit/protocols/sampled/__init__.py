"""Sampled-candidate evaluation, and its correction.

Many papers rank each held-out item against a few sampled negatives (100 is common: RecBole's
``uni100`` and ``pop100``) instead of the whole catalogue. The number they report, the
*sampled* metric, estimates something else than the metric over the full ranking, and the
order of two systems can differ between the two (Krichene and Rendle, KDD 2020). This module
draws the candidates (:func:`sample_negatives`), ranks each held-out item among them
(:func:`sampled_ranks`), gives the naive number (:func:`sampled_metric`) and estimates the
full-ranking metric from the sampled ranks (:func:`corrected_metric`), with intervals from the
user bootstrap.

The model (Krichene and Rendle, *On Sampled Metrics for Item Recommendation*, KDD 2020). A
held-out item has true rank ``r`` among ``n`` candidates (itself and the ``n - 1`` items it
could be ranked against) and sampled rank ``r~`` among ``m`` sampled negatives. Drawn with
replacement, ``r~ - 1 ~ Binomial(m, (r - 1) / (n - 1))``; without replacement, hypergeometric:
``P(r~ - 1 = j | r) = C(r-1, j) C(n-r, m-j) / C(n-1, m)``. A metric of one relevant item at
rank ``r``, ``M(r)``, comes from the metric's declaration (:attr:`Metric.per_rank
<evalkit.metrics.Metric>`): HR@k = [r <= k], NDCG@k = [r <= k] / log2(r + 1), RR = 1 / r, ...
"""

from ._compare import SamplingComparison, compare_sampling
from ._draw import SCHEMES, sample_negatives
from ._estimate import (
           ESTIMATORS,
           CorrectedMetric,
           corrected_metric,
           sampled_metric,
           sampling_matrix,
)
from ._rank import sampled_lists, sampled_ranks

__all__ = ["SCHEMES", "ESTIMATORS", "CorrectedMetric", "SamplingComparison", "compare_sampling",
           "corrected_metric", "sample_negatives", "sampled_lists", "sampled_metric",
           "sampled_ranks", "sampling_matrix"]
