"""Who is served worse: gaps between user groups, and the exposure item groups get, with
intervals.

- :func:`group_disparity`: each group's mean of a per-user metric, its gap to a reference
  group with a bootstrap interval and a label-permutation p-value, optionally standardised
  for a second grouping (activity, say), and the mean absolute deviation between groups
  (Elliot's MAD).
- :func:`exposure_share`: the share of the attention of top-k lists that goes to each group of
  items, against a target share, with a user-bootstrap interval; :func:`awrf` and
  :func:`group_entropy` per list; :func:`expected_exposure` per user.
- :func:`rsp` and :func:`reo`: how likely an item of each group is to be ranked in the top k
  (Zhu et al. 2020), and their spread across the groups.

Item groups may overlap (genres): give ``item_groups`` one row per (item, group) pair, or
label strings such as ``"Action|Comedy"`` with ``sep="|"``.

Other libraries' group metrics by name (each checked against the library's code, see
``tests/test_fairness_profiles.py``):

========================================  ==================================================
Elliot ``RSP``, ``REO``                   :func:`rsp`, :func:`reo`
Elliot ``UserMADranking``,                ``group_disparity(per_user, user_groups).mad``
``UserMADrating``, ``ItemMADranking``,    with the per-user (per-item) values of
``ItemMADrating``                         :func:`group_disparity`'s Notes
LensKit ``entropy``,                      :func:`group_entropy` (``weight="uniform"``, or the
``rank_biased_entropy``                   weight; ``smoothing=1e-6``)
LensKit ``ExposureGini``, ``ListGini``    :func:`evalkit.metrics.exposure_gini`,
                                          :func:`evalkit.metrics.gini_index`
========================================  ==================================================
"""

from __future__ import annotations

from ._exposure import awrf, expected_exposure, exposure_share, group_entropy
from ._groups import DisparityTable, compare_disparity, group_disparity
from ._lists import slot_weights
from ._parity import RankingParity, reo, rsp

__all__ = ["DisparityTable", "RankingParity", "awrf", "compare_disparity", "expected_exposure",
           "exposure_share", "group_disparity", "group_entropy", "reo", "rsp", "slot_weights"]
