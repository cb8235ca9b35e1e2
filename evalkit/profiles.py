"""Profiles: the :class:`~evalkit.Definitions` that reproduce another library's numbers.

The same recommendations get different numbers from different libraries (SPEC section 16).
A profile states one library's conventions as evalkit definitions, so that

>>> import evalkit as ek
>>> ek.profile("trec_eval")                                    # doctest: +NORMALIZE_WHITESPACE
Definitions(profile='trec_eval', ap_denominator='relevant', empty='zero',
            tie_order='item_str_desc')

and ``ek.evaluate(test, recs, k=10, definitions="trec_eval")`` gives trec_eval's numbers for
the metrics the profile covers (a metric it does not cover raises, naming both). Each
:class:`Profile` says what the library does, where (source file and the version checked), how
to feed evalkit the same data, and what evalkit deliberately does not reproduce. The test
suite checks every profile against the library itself on the real ml-latest-small
(``tests/test_profiles.py``; ``tests/references/`` for libraries that do not install beside
evalkit).

The relevance threshold is never part of a profile: it is a property of the data (which
ratings count as relevant) that the user chooses, as in every library.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from .definitions import Definitions

__all__ = ["PROFILES", "Profile", "check_covered", "covers", "profile"]

#: Registry names of the ranking metrics, written out rather than imported from
#: :mod:`evalkit.metrics` (from evalkit this module loads only :mod:`evalkit.definitions`).
#: ``tests/test_profiles.py`` checks that every profile's metrics, these included (the
#: "evalkit" profile), are names in :data:`evalkit.metrics.RANKING_METRICS`; no test checks
#: that every registered name is here, so a new metric must be added by hand.
_RANKING = ("precision", "recall", "f1", "hit_rate", "mrr", "map", "dcg", "ndcg",
            "r_precision", "r_precision_at_k", "half_life_utility")


@dataclass(frozen=True)
class Profile:
    """One library's conventions as evalkit definitions.

    Attributes
    ----------
    name : str
        The profile's name (``definitions="<name>"``).
    library, version : str
        The library and the version whose source was read and whose numbers were checked.
    source : str
        The file(s) in that library that define the metrics.
    definitions : Definitions
        The definitions (``per_metric`` where the library is not consistent across metrics).
    metrics : tuple of str
        evalkit registry names of the metrics the profile reproduces, with the library's name
        for each in ``names``.
    names : dict
        evalkit metric name to the library's call.
    feed : str
        How to give evalkit the data the library was given (ranks or scores, which truth).
    differences : str
        What the library does that evalkit does not reproduce (known bugs are documented here,
        not copied).
    every_item_relevant : bool
        The library has no relevance threshold: every test item it is given counts as
        relevant. Its users usually give it every test interaction, and then its numbers are
        evalkit's with ``threshold=None`` (the default 4.0 keeps only ratings of 4 and up);
        :meth:`describe` says so first.
    """

    name: str
    library: str
    version: str
    source: str
    definitions: Definitions
    metrics: tuple[str, ...]
    names: Mapping[str, str] = field(default_factory=dict)
    feed: str = ""
    differences: str = ""
    every_item_relevant: bool = False

    def __repr__(self) -> str:
        return (f"Profile({self.name!r}: {self.library} {self.version}; metrics "
                f"{', '.join(self.metrics)}; {self.definitions!r})")

    def describe(self) -> str:
        """A paragraph for a report or a terminal (a str that a notebook shows as text);
        first, for a library without a relevance threshold, what to pass to match the
        numbers of its usual use."""
        from ._display import Text

        calls = "; ".join(f"{m}: {c}" for m, c in self.names.items())
        first = (f"{self.library} counts every test item it is given as relevant; given every "
                 f"test interaction, as its users usually give it, its numbers are "
                 f"evaluate(..., definitions={self.name!r}, threshold=None).\n"
                 if self.every_item_relevant else "")
        return Text(
            f"{first}{self.library} {self.version} ({self.source}). Metrics: {calls}. "
            f"Definitions: {self.definitions!r}. Feed: {self.feed} "
            f"Not reproduced: {self.differences or 'nothing known.'}"
        )


#: The profiles of libraries without a relevance threshold (every test item they are given
#: is relevant).
_EVERY_ITEM_RELEVANT = ("lenskit", "rectools", "replay", "rs_metrics", "recmetrics", "spark")


def _profile(name: str, library: str, version: str, source: str, metrics: Iterable[str],
             names: Mapping[str, str], feed: str, differences: str,
             per_metric: Mapping[str, Mapping[str, object]] | None = None,
             **fields: object) -> Profile:
    metrics = tuple(metrics)
    unknown = set(metrics) - set(_RANKING)
    assert not unknown, unknown  # a profile names registry metrics only
    return Profile(name=name, library=library, version=version, source=source,
                   definitions=Definitions(profile=name, per_metric=per_metric or {}, **fields),
                   metrics=metrics, names=dict(names), feed=feed, differences=differences,
                   every_item_relevant=name in _EVERY_ITEM_RELEVANT)


_ALL = _RANKING

_PROFILES = [
    _profile(
        "evalkit", "evalkit", "this version", "evalkit/definitions.py", _ALL,
        {m: f"evalkit.evaluate(metrics=[{m!r}])" for m in _ALL},
        "Any truth and any recommendations.", "",
    ),
    _profile(
        "trec_eval", "trec_eval (through pytrec_eval)", "pytrec_eval-terrier 0.5.11",
        "trec_eval m_P.c, m_recall.c, m_map_cut.c, m_recip_rank.c, m_ndcg_cut.c",
        ("precision", "recall", "map", "mrr", "ndcg"),
        {"precision": "P_k", "recall": "recall_k", "map": "map_cut_k",
         "mrr": "recip_rank (of the top k only)", "ndcg": "ndcg_cut_k"},
        "The qrels hold every test item with its grade and relevance_level set so that the "
        "relevant grades are those at or above the threshold; the run holds the lists with "
        "their scores (trec_eval orders ties by document id, as strings, descending).",
        "trec_eval's recip_rank is not cut at k: it equals mrr@k when the run holds the top k "
        "only. trec_eval without -c leaves out queries that are not in the run; evalkit scores "
        "such users 0 (as -c does). Grades are integers in trec_eval: scale half-star ratings "
        "(the gain scale cancels in NDCG).",
        ap_denominator="relevant", empty="zero", tie_order="item_str_desc",
    ),
    _profile(
        "ranx", "ranx", "0.3.21", "ranx/metrics/*.py",
        ("precision", "recall", "f1", "hit_rate", "mrr", "map", "dcg", "ndcg", "r_precision"),
        {"precision": "precision@k", "recall": "recall@k", "f1": "f1@k",
         "hit_rate": "hit_rate@k", "mrr": "mrr@k", "map": "map@k", "dcg": "dcg@k",
         "ndcg": "ndcg@k", "r_precision": "r-precision"},
        "Qrels: the relevant items (grade >= rel_lvl) for P, R, AP, RR; the test items with "
        "their ratings as grades for DCG and NDCG. Run: ranks or distinct scores (ranx keeps "
        "tied documents in the order they were given, which evalkit cannot know: give ranks).",
        "ranx drops graded judgements below rel_lvl before NDCG; evalkit's linear gain keeps "
        "every rated test item (set the threshold to rel_lvl's rating to match both).",
        ap_denominator="relevant", empty="zero",
    ),
    _profile(
        "ir_measures", "ir-measures", "0.4.3", "ir_measures/providers/pytrec_eval_provider.py, "
        "msmarco_provider.py", ("precision", "recall", "hit_rate", "map", "mrr", "ndcg"),
        {"precision": "P@k", "recall": "R@k", "hit_rate": "Success@k", "map": "AP@k",
         "mrr": "RR@k", "ndcg": "nDCG@k"},
        "As for trec_eval: qrels with grades, the run with scores.",
        "RR@k comes from the msmarco provider, which orders tied documents by id as strings "
        "ascending; the other measures from trec_eval (descending). Queries outside the run "
        "are left out by ir-measures and scored 0 by evalkit.",
        per_metric={"mrr": {"tie_order": "item_str"}},
        ap_denominator="relevant", empty="zero", tie_order="item_str_desc",
    ),
    _profile(
        "sklearn", "scikit-learn", "1.9.1", "sklearn/metrics/_ranking.py (ndcg_score, dcg_score)",
        ("dcg", "ndcg"), {"dcg": "dcg_score(k=k)", "ndcg": "ndcg_score(k=k)"},
        "y_true: the gain of every candidate item (its test rating, 0 for the others); y_score: "
        "the scores, every test item among the candidates.",
        "scikit-learn sees only the candidates in y_true: test items without a score are "
        "absent. dcg_score's log_base applies to DCG only, as in evalkit.",
        ties="expected", empty="zero",
    ),
    _profile(
        "lenskit", "LensKit (lenskit)", "2025.8.1",
        "lenskit/metrics/ranking/_pr.py, _hit.py, _recip.py, _map.py, _dcg.py, _weighting.py; "
        "lenskit/metrics/bulk.py",
        ("precision", "recall", "hit_rate", "mrr", "map", "dcg", "ndcg"),
        {"precision": "Precision(k)", "recall": "Recall(k)", "hit_rate": "Hit(k)",
         "mrr": "RecipRank(k)", "map": "AveragePrecision(k)", "dcg": "DCG(k)",
         "ndcg": "NDCG(k)"},
        "Test: the relevant items (LensKit counts every test item as relevant); outputs: "
        "ordered lists: give evalkit ranks. Means as RunAnalysis.list_summary() with its "
        "default fill of undefined values by 0.",
        "NDCG(gain='rating') is gain_scope='relevant' with gain='linear' (LogRankWeight"
        "(offset=1) is discount='log'). Known bugs, not copied: AveragePrecision divides by "
        "zero for a user without test items (evalkit leaves them out of MAP, the mean LensKit "
        "gives over the users it can score); DCG(gain='rating') fails on an empty test list; "
        "global_metrics() returns NaN when one list is NaN; Precision divides by the list "
        "length when a list is shorter than k (evalkit divides by k).",
        per_metric={"map": {"empty": "drop"}},
        recall_denominator="min", gain="binary", discount="breese", empty="zero",
    ),
    _profile(
        "rectools", "RecTools (rectools)", "0.19.0",
        "rectools/metrics/classification.py, ranking.py, base.py (merge_reco)",
        ("precision", "recall", "f1", "hit_rate", "mrr", "map", "ndcg"),
        {"precision": "Precision(k)", "recall": "Recall(k)", "f1": "F1Beta(k)",
         "hit_rate": "HitRate(k)", "mrr": "MRR(k)", "map": "MAP(k)", "ndcg": "NDCG(k)"},
        "interactions: the relevant test items (rectools has no threshold); reco: ranks.",
        "MAP(divide_by_k=True) is ap_denominator='k'; NDCG(divide_by_achievable=True) is "
        "ideal='truth'; Precision(r_precision=True) is evalkit's recall with "
        "recall_denominator='min', not R-precision. rectools never sees users without a "
        "relevant test item: evalkit leaves them out (precision_users='relevant').",
        precision_users="relevant", ap_denominator="relevant", gain="binary", ideal="k",
    ),
    _profile(
        "replay", "RePlay (replay-rec)", "0.22.0",
        "replay/metrics/base_metric.py, precision.py, recall.py, hitrate.py, mrr.py, map.py, "
        "ndcg.py",
        ("precision", "recall", "hit_rate", "mrr", "map", "ndcg"),
        {"precision": "Precision(k)", "recall": "Recall(k)", "hit_rate": "HitRate(k)",
         "mrr": "MRR(k)", "map": "MAP(k)", "ndcg": "NDCG(k)"},
        "ground_truth: the relevant test items; recommendations with their scores (RePlay "
        "orders ties by item id descending).",
        "RePlay evaluates only the users in ground_truth; evalkit leaves out those without a "
        "relevant test item (precision_users='relevant', empty='drop').",
        precision_users="relevant", tie_order="item_desc", gain="binary",
    ),
    _profile(
        "torchmetrics", "torchmetrics (retrieval)", "1.9.0",
        "torchmetrics/functional/retrieval/*.py, torchmetrics/retrieval/base.py",
        ("precision", "recall", "hit_rate", "mrr", "map", "ndcg", "r_precision"),
        {"precision": "RetrievalPrecision(top_k=k)", "recall": "RetrievalRecall(top_k=k)",
         "hit_rate": "RetrievalHitRate(top_k=k)", "mrr": "RetrievalMRR(top_k=k)",
         "map": "RetrievalMAP(top_k=k)", "ndcg": "RetrievalNormalizedDCG(top_k=k)",
         "r_precision": "RetrievalRPrecision()"},
        "One row per listed item: indexes = user, preds = score, target = 1 if relevant (the "
        "rating for graded NDCG: gain='linear'). torchmetrics sees only the listed items.",
        "torchmetrics computes in float32 (agreement to about 1e-7). The order torch.topk gives "
        "tied scores (MRR, MAP, and precision when a tie straddles k) is unspecified, so users "
        "whose tied group holds relevant and non-relevant items may differ (their values lie "
        "between ties='pessimistic' and 'optimistic'). Items with a score <= 0 never count as "
        "hits in precision, recall, MRR and MAP there; evalkit does not reproduce that.",
        per_metric={"ndcg": {"ties": "expected"}},
        relevant_set="listed", empty="zero", ap_denominator="hits", gain="binary",
    ),
    _profile(
        "cornac", "Cornac", "3.0.1",
        "cornac/metrics/ranking.py, cornac/eval_methods/base_method.py (ranking_eval)",
        ("precision", "recall", "f1", "hit_rate", "ndcg"),
        {"precision": "Precision(k)", "recall": "Recall(k)", "f1": "FMeasure(k)",
         "hit_rate": "HitRatio(k)", "ndcg": "NDCG(k)"},
        "The test ratings (Cornac applies rating_threshold) and the training data as train= "
        "(exclude_unknowns=True, its default, drops test items unseen in training).",
        "Cornac ranks every candidate item itself and orders tied scores by numpy's "
        "argpartition over its internal indices, which no tie_order states: give ranks. MRR, "
        "MAP and AUC rank the whole catalogue, without a cutoff, and are not covered. With "
        "exclude_unknowns=False use unknown_items='keep'.",
        precision_users="relevant", unknown_items="drop", gain="binary",
    ),
    _profile(
        "evidently", "Evidently (evidently)", "0.7.23",
        "evidently/legacy/metrics/recsys/precision_recall_k.py, mrr.py, ndcg_k.py, "
        "hit_rate_k.py; evidently/metrics/recsys.py",
        ("precision", "recall", "hit_rate", "mrr", "map", "ndcg"),
        {"precision": "PrecisionTopK(k)", "recall": "RecallTopK(k)", "hit_rate": "HitRate(k)",
         "mrr": "MRR(k)", "map": "MAP(k)", "ndcg": "NDCG(k)"},
        "As Evidently's cookbook feeds it: the recommended rows (ranks) merged with the test "
        "ratings, min_rel_score = the threshold; Evidently never sees the test items that "
        "were not recommended (relevant_set='listed'). Give evalkit ranks.",
        "FBetaTopK is F1 of the mean precision and mean recall, not a mean of F1 (not covered). "
        "The new API labels the NDCG@(k-1) and MRR@(k-1) series as k (a bug, not copied). Fed "
        "scores, Evidently gives every tied item the truncated mean position of its group, "
        "which no tie policy does: give ranks. With no_feedback_users=True use "
        "precision_users='all', empty='zero'. Its Gini and diversity: gini_scale='unbiased', "
        "diversity_norm='length'.",
        precision_users="relevant", relevant_set="listed", ap_denominator="relevant",
        gain="binary", gini_scale="unbiased", diversity_norm="length",
    ),
    _profile(
        "rs_metrics", "rs_metrics", "0.6.0", "rs_metrics/metrics.py, helpers.py, parallel.py",
        ("precision", "recall", "hit_rate", "mrr", "map", "ndcg"),
        {"precision": "precision(k=k)", "recall": "recall(k=k)", "hit_rate": "hitrate(k=k)",
         "mrr": "mrr(k=k)", "map": "mapr(k=k)", "ndcg": "ndcg(k=k)"},
        "true: the relevant test items; pred: the lists in rank order: give evalkit ranks.",
        "precision divides a list shorter than k by its length (evalkit by k).",
        precision_users="relevant", ap_denominator="relevant", gain="binary",
    ),
    _profile(
        "recmetrics", "recmetrics", "0.1.5", "recmetrics/metrics.py",
        ("precision", "recall", "map"),
        {"precision": "recommender_precision (lists cut at k)",
         "recall": "recommender_recall (lists cut at k)", "map": "mark(k=k)"},
        "actual: each user's relevant test items (users without one cannot be given); "
        "predicted: the lists in rank order: give evalkit ranks.",
        "recommender_precision and recommender_recall round each user's value to 4 decimals "
        "before averaging (evalkit does not; recall differs by up to 5e-5 per user); mark, "
        "'mean average recall', is AP@k over |R_u|. Precision divides a short list by its "
        "length.",
        precision_users="relevant", ap_denominator="relevant",
    ),
    _profile(
        "recommenders", "Microsoft recommenders", "1.2.1",
        "recommenders/evaluation/python_evaluation.py",
        ("precision", "recall", "map", "ndcg"),
        {"precision": "precision_at_k", "recall": "recall_at_k", "map": "map_at_k",
         "ndcg": "ndcg_at_k (score_type='binary')"},
        "rating_true: the relevant test rows with their ratings; rating_pred: the scores "
        "(the library sorts them stably, so ties keep the row order: give ranks, or rows "
        "sorted by item id).",
        "ndcg_at_k's natural-log discount is log_base=e (NDCG does not depend on it); "
        "score_type='raw' / 'exp' are gain='linear' / 'exponential' with "
        "gain_scope='relevant'; map (not map_at_k) is ap_denominator='relevant'. "
        "r_precision_at_k is evalkit's r_precision_at_k per user; its mean, over the users with "
        "a hit within the top min(|R|, k) only, is a bug, not copied. ndcg_at_k scores a test "
        "user without recommendations 0 where its other metrics leave them out. Its novelty: "
        "popularity='interactions'.",
        precision_users="relevant", gain="binary", log_base=2.718281828459045,
        popularity="interactions",
    ),
    _profile(
        "spark", "Apache Spark (pyspark)", "4.3.0",
        "pyspark.mllib.evaluation.RankingMetrics, pyspark.ml.evaluation.RankingEvaluator; "
        "mllib/src/main/scala/org/apache/spark/mllib/evaluation/RankingMetrics.scala, "
        "ml/evaluation/RankingEvaluator.scala",
        ("precision", "recall", "map", "ndcg"),
        {"precision": "precisionAt(k) / precisionAtK", "recall": "recallAt(k) / recallAtK",
         "map": "meanAveragePrecisionAt(k) / meanAveragePrecisionAtK",
         "ndcg": "ndcgAt(k) / ndcgAtK"},
        "One row per user: the recommended items in rank order and the relevant test items, "
        "joined on the user (users without a relevant item have no label row): give ranks.",
        "Binary relevance only: pyspark's Python RankingMetrics drops the relevance array of "
        "(prediction, label, relevance) rows and RankingEvaluator has none. "
        "meanAveragePrecision without k is map@k over the whole list with "
        "ap_denominator='relevant'. Rows kept for users without a relevant item score 0 "
        "(precision_users='all', empty='zero'). No MRR.",
        precision_users="relevant", gain="binary",
    ),
]

#: Every profile by name.
PROFILES: dict[str, Profile] = {p.name: p for p in _PROFILES}


def profile(name: str, *, func: str = "profile") -> Definitions:
    """The :class:`~evalkit.Definitions` of the profile ``name`` (see :data:`PROFILES`)."""
    if not isinstance(name, str) or name not in PROFILES:
        raise ValueError(
            f"{func}: unknown profile {name!r}; the profiles are "
            f"{', '.join(map(repr, PROFILES))}."
        )
    return PROFILES[name].definitions


def covers(definitions: Definitions, metric: str) -> bool:
    """Whether the profile behind ``definitions`` (if any) reproduces ``metric``."""
    name = definitions.profile
    return name is None or name not in PROFILES or metric in PROFILES[name].metrics


def check_covered(definitions: Definitions, metrics: Iterable[str], *, func: str) -> None:
    """Refuse metrics that the profile behind ``definitions`` does not reproduce."""
    name = definitions.profile
    if name is None or name not in PROFILES:
        return
    entry = PROFILES[name]
    missing = [m for m in metrics if m not in entry.metrics]
    if missing:
        raise ValueError(
            f"{func}: profile {name!r} ({entry.library}) does not cover "
            f"{', '.join(map(repr, missing))}: {entry.library} has no such metric or evalkit "
            f"cannot reproduce it. It covers {', '.join(entry.metrics)}; drop the others from "
            "'metrics', or use definitions=evalkit.profile(...).replace(profile=None) to "
            "apply its definitions anyway."
        )
