"""Evaluation protocols other than ranking every item for every user, and their corrections.

A protocol changes what is measured, not how a metric is computed, so it lives beside
:mod:`evalkit.metrics` and reads the metrics' declarations:

- :mod:`evalkit.protocols.sampled`: each held-out item ranked among a few sampled negatives
  (RecBole's ``uni100``, ``pop100``), the sampled metric papers report, and estimates of the
  full-ranking metric from the sampled ranks (Krichene and Rendle, KDD 2020);
- :mod:`evalkit.protocols.debiased`: test interactions missing not at random, corrected by
  inverse propensity weighting (Yang et al., RecSys 2018) or popularity-stratified recall
  (Steck, RecSys 2011), with the verdict across the assumed bias and the bias estimated from
  logged lists.

>>> from evalkit.protocols import debiased, sampled
>>> sorted(sampled.SCHEMES)
['popularity', 'uniform']
"""

from __future__ import annotations

from . import debiased, sampled

__all__ = ["debiased", "sampled"]
