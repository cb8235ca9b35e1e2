"""The registry: the one declaration of every metric (:class:`~._spec.Metric`), at the foot
of the metrics: it imports none of the functions that compute them (a declaration names its
public function, ``function="ndcg_at_k"``), so the engine, the per-user functions, the plots
and the cards all read it. Metrics of your own join it through
:func:`evalkit.metrics.register`.

Everything else about a metric is read from its declaration: ``evaluate``'s choices and
columns, the definition cards (formula, range, direction, the definitions it reads), the
labels of tables and plots, the curves drawn, the reports' ``METRICS`` and the command line's
``--metrics``, the fields each per-user function accepts, and the family-wide tests (bounds,
direction, whether a user without relevant items has a value).

A built-in ranking metric is computed by the engine's compiled reductions (``kernel=`` a
row of :data:`evalkit.metrics._curves.ROWS`) or from each user's hits (``per_user``, as
:data:`first_relevant_rank <RANKING_METRICS>` and metrics of your own are). Its reference
implementation lives in ``tests/metrics/naive.py``; the reference and card tests fail until
it has one.

Ranking metrics use their short names (``precision``, ``map``, ``ndcg``, ...); the other
families keep their function names. Wherever a metric is named (``evaluate``'s ``metrics``,
margins, the command line, the reports' parameters, the plots), its registry name and its label
(``NDCG``, at a cutoff ``NDCG@10``) both name it, read in one place: :func:`get_metric` and
:func:`parse_column`. The classification functions ``precision``, ``recall``
and ``f1`` of :mod:`evalkit.metrics.classification` compute one number from a confusion table,
not per-user values, and are not registered, so those names mean the ranking metrics.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterable

import numpy as np

from .._checks import InvalidParameterError, describe
from ._spec import Hits, Metric

__all__ = ["CURVE_METRICS", "METRICS", "RANKING_METRICS", "Metric", "add", "get_metric",
           "parse_column", "unregister"]

_INF = math.inf
#: The definitions that change every ranking metric: which test items count and how lists
#: are ordered.
_COMMON = ("threshold", "relevant_set", "unknown_items", "ties", "tie_order")
_GAINS = ("gain", "gain_scope", "discount", "log_base")

#: The publications the declarations cite more than once.
_HERLOCKER = ("Herlocker, Konstan, Terveen and Riedl (2004), Evaluating col"
              "laborative filtering recommender systems, *ACM TOIS* 22(1)")
_IIR = ("Manning, Raghavan and Schütze (2008), *Introduction to Information Ret"
        "rieval*, Cambridge University Press, section 8.4")
_GE = ("Ge, Delgado-Battenfeld and Jannach (2010), Beyond accuracy: "
       "evaluating recommender systems by coverage and serendipity, *RecSys*")
_KOREN = "Koren (2008), Factorization meets the neighborhood, *KDD*"
_VOORHEES = "Voorhees (1999), The TREC-8 question answering track report, *TREC-8*"
_JARVELIN = ("Järvelin and Kekäläinen (2002), Cumulated gain-based evaluat"
             "ion of IR techniques, *ACM TOIS* 20(4)")


def _first_relevant_rank(hits: Hits, k: int) -> np.ndarray:
    return hits.first(hits.rank, default=k + 1)


# Each metric for one relevant item at rank r (the sampled-metric corrections of Krichene and
# Rendle, KDD 2020, read these).
def _inside(r: np.ndarray, k: int | None) -> np.ndarray:
    return np.ones(np.shape(r), bool) if k is None else np.asarray(r) <= k


def _hit_at(r: np.ndarray, k: int | None) -> np.ndarray:
    return _inside(r, k).astype(np.float64)


def _precision_at(r: np.ndarray, k: int | None) -> np.ndarray:
    return _inside(r, k) / float(k if k is not None else 1)


def _reciprocal_at(r: np.ndarray, k: int | None) -> np.ndarray:
    return np.where(_inside(r, k), 1.0 / np.asarray(r, dtype=np.float64), 0.0)


def _ndcg_at(r: np.ndarray, k: int | None) -> np.ndarray:
    return np.where(_inside(r, k), 1.0 / np.log2(np.asarray(r, dtype=np.float64) + 1.0), 0.0)


def _first_rank_at(r: np.ndarray, k: int | None) -> np.ndarray:
    r = np.asarray(r, dtype=np.float64)
    return r if k is None else np.where(r <= k, r, k + 1.0)


_RANKING = (
    Metric("precision", function="precision_at_k",
           per_rank=_precision_at, label="P", long_label="Precision",
           formula="P@k = (hits in the top k) / k, also when the list is shorter than k",
           reads=_COMMON + ("precision_users", "empty"), bounds=(0, 1), curves=True,
           kernel="precision",
           latex=r"\mathrm{P@}k = \frac{1}{k} \sum_{i=1}^{k} \mathrm{rel}_i",
           reference=_HERLOCKER),
    Metric("recall", function="recall_at_k",
           per_rank=_hit_at, label="R", long_label="Recall",
           formula="R@k = (hits in the top k) / D, D = |R_u| (or min(k, |R_u|))",
           reads=_COMMON + ("recall_denominator", "empty"), bounds=(0, 1),
           defined_without_relevant=False, curves=True, kernel="recall",
           latex=r"\mathrm{R@}k = \frac{1}{|R_u|} \sum_{i=1}^{k} \mathrm{rel}_i",
           reference=_HERLOCKER),
    Metric("f1", function="f1_at_k", label="F1", long_label="F1",
           formula="F1@k = 2 P@k R@k / (P@k + R@k), 0 when both are 0",
           reads=_COMMON + ("recall_denominator", "empty"), bounds=(0, 1),
           defined_without_relevant=False, curves=True, kernel="f1",
           latex=r"\mathrm{F1@}k = \frac{2\, \mathrm{P@}k\, \mathrm{R@}k}{\mathrm{P@}k + "
                 r"\mathrm{R@}k}",
           reference="van Rijsbergen (1979), *Information Retrieval*, 2nd ed., Butterworths, "
                     "chapter 7"),
    Metric("hit_rate", function="hit_rate_at_k",
           per_rank=_hit_at, label="HR", long_label="Hit rate",
           formula="HR@k = 1 when the top k holds a relevant item, else 0",
           reads=_COMMON + ("precision_users", "empty"), bounds=(0, 1), curves=True,
           kernel="hit_rate",
           latex=r"\mathrm{HR@}k = \mathbb{1}\Big[\sum_{i=1}^{k} \mathrm{rel}_i > 0\Big]",
           reference="Deshpande and Karypis (2004), Item-based top-N recommendation algorithms, "
                     "*ACM TOIS* 22(1)"),
    Metric("r_precision", function="r_precision", label="R-Prec", long_label="R-precision",
           formula="R-Prec = P@|R_u|: hits in the top |R_u| / |R_u|",
           reads=_COMMON + ("empty",), bounds=(0, 1), defined_without_relevant=False,
           at_k=False, kernel="r_precision_at_k",
           latex=r"\mathrm{R\text{-}Prec} = \frac{1}{|R_u|} \sum_{i=1}^{|R_u|} \mathrm{rel}_i",
           reference=_IIR),
    Metric("r_precision_at_k", function="r_precision_at_k", label="R-Prec",
           long_label="R-precision cut at k",
           formula="R-Prec@k = hits in the top min(k, |R_u|) / |R_u|",
           reads=_COMMON + ("empty",), bounds=(0, 1), defined_without_relevant=False,
           kernel="r_precision_at_k",
           latex=r"\mathrm{R\text{-}Prec@}k = \frac{1}{|R_u|} \sum_{i=1}^{\min(k, |R_u|)} "
                 r"\mathrm{rel}_i",
           reference=_IIR),
    Metric("map", function="average_precision_at_k",
           per_rank=_reciprocal_at, label="MAP", long_label="MAP",
           formula="AP@k = (1 / D) sum_{i<=k} hit_i P@i, D = min(k, |R_u|) (or |R_u|, hits, "
                   "k); MAP = mean of AP",
           reads=_COMMON + ("ap_denominator", "empty"), bounds=(0, 1),
           defined_without_relevant=False, curves=True, kernel="map",
           latex=r"\mathrm{AP@}k = \frac{1}{\min(k, |R_u|)} \sum_{i=1}^{k} \mathrm{rel}_i\, "
                 r"\mathrm{P@}i, \qquad \mathrm{MAP@}k = \frac{1}{|U|} \sum_u \mathrm{AP@}k(u)",
           reference=_IIR),
    Metric("mrr", function="reciprocal_rank_at_k",
           per_rank=_reciprocal_at, label="MRR", long_label="MRR",
           formula="RR@k = 1 / rank of the first relevant item in the top k, 0 if none; MRR "
                   "= mean of RR",
           reads=_COMMON + ("empty",), bounds=(0, 1), defined_without_relevant=False,
           curves=True, kernel="mrr",
           latex=r"\mathrm{RR@}k = \max_{i \le k} \frac{\mathrm{rel}_i}{i}, \qquad \mathrm{MRR@}k "
                 r"= \frac{1}{|U|} \sum_u \mathrm{RR@}k(u)",
           reference=_VOORHEES),
    Metric("dcg", function="dcg_at_k", per_rank=_ndcg_at, label="DCG", long_label="DCG",
           formula="DCG@k = sum_{i<=k} gain_i / disc(i), disc(i) = log_b(i + 1) (or max(1, "
                   "log_b i))",
           reads=_COMMON + _GAINS + ("empty",), bounds=(0, _INF), kernel="dcg",
           latex=r"\mathrm{DCG@}k = \sum_{i=1}^{k} \frac{g_i}{\log_b(i + 1)}",
           reference=_JARVELIN),
    Metric("ndcg", function="ndcg_at_k",
           per_rank=_ndcg_at, label="NDCG", long_label="NDCG",
           formula="NDCG@k = DCG@k / IDCG@k, IDCG@k the DCG of the user's test items sorted "
                   "by gain (or of the ideal top k)",
           reads=_COMMON + _GAINS + ("ideal", "empty"), bounds=(0, 1),
           defined_without_relevant=False, curves=True, kernel="ndcg",
           latex=r"\mathrm{NDCG@}k = \frac{\mathrm{DCG@}k}{\mathrm{IDCG@}k}",
           reference=_JARVELIN),
    Metric("half_life_utility", function="half_life_utility", label="HLU",
           long_label="Half-life utility",
           formula="HLU_u = sum_j max(r_uj - d, 0) / 2^((j - 1) / (a - 1)) over the list, "
                   "divided by its maximum; d the neutral rating, a the half-life",
           reads=("relevant_set", "unknown_items", "ties", "tie_order", "neutral",
                  "half_life", "empty"), bounds=(0, 1), defined_without_relevant=False,
           kernel="half_life",
           latex=r"\mathrm{HLU}_u = \frac{\sum_{j} \max(r_{u,j} - d, 0) / "
                 r"2^{(j-1)/(a-1)}}{\max_{\text{order of } R_u} \sum_{j} \max(r_{u,j} - d, 0) / "
                 r"2^{(j-1)/(a-1)}}",
           reference="Breese, Heckerman and Kadie (1998), Empirical analysis of predictive "
                     "algorithms "
                     "for collaborative filtering, *UAI*"),
    Metric("first_relevant_rank", per_user=_first_relevant_rank,
           function="first_relevant_rank",
           per_rank=_first_rank_at, higher_is_better=False,
           label="1st rank", long_label="Rank of the first relevant item",
           formula="FRR@k = rank of the first relevant item if it is in the top k, else k + 1; "
                   "lower is better; mean over users with a relevant item",
           reads=_COMMON + ("empty",), bounds=(1, _INF), defined_without_relevant=False,
           latex=r"\mathrm{FRR@}k = \min\big(\{i \le k : \mathrm{rel}_i = 1\} \cup \{k + 1\}\big)",
           reference=_VOORHEES),
)

_PRED = ("truth", "predictions")
_OTHERS = (
    Metric("mae", function="mae_per_user", label="MAE", family="rating", bounds=(0, _INF),
           higher_is_better=False, at_k=False, inputs=_PRED,
           latex=r"\mathrm{MAE}_u = \frac{1}{|T_u|} \sum_{i \in T_u} |r_{ui} - \hat r_{ui}|",
           reference=_HERLOCKER),
    Metric("rmse", function="rmse_per_user", label="RMSE", family="rating", bounds=(0, _INF),
           higher_is_better=False, at_k=False, inputs=_PRED,
           latex=r"\mathrm{RMSE}_u = \sqrt{\frac{1}{|T_u|} \sum_{i \in T_u} (r_{ui} - \hat "
                 r"r_{ui})^2}",
           reference=_HERLOCKER),
    Metric("spearman", function="spearman", label="Spearman", family="correlation",
           bounds=(-1, 1), at_k=False, inputs=_PRED,
           latex=r"\rho_u = \operatorname{corr}\big(\operatorname{rank}(r_{u\cdot}), "
                 r"\operatorname{rank}(\hat r_{u\cdot})\big)",
           reference="Spearman (1904), The proof and measurement of association between two "
                     "things, *American Journal of Psychology* 15(1)"),
    Metric("kendall", function="kendall", label="Kendall", family="correlation",
           bounds=(-1, 1), at_k=False, inputs=_PRED,
           latex=r"\tau_b = \frac{n_c - n_d}{\sqrt{(n_0 - n_1)(n_0 - n_2)}}",
           reference="Kendall (1945), The treatment of ties in ranking problems, *Biometrika* "
                     "33(3)"),
    Metric("fcp", function="fcp", label="FCP", family="correlation", bounds=(0, 1),
           at_k=False, inputs=_PRED,
           latex=r"\mathrm{FCP}_u = \frac{n_c(u)}{n_c(u) + n_d(u)}",
           reference=_KOREN),
    Metric("fcp_global", function="fcp_global", label="FCP (global)",
           family="correlation", bounds=(0, 1), at_k=False, system_level=True, inputs=_PRED,
           latex=r"\mathrm{FCP} = \frac{\sum_u n_c(u)}{\sum_u n_c(u) + n_d(u)}",
           reference=_KOREN),
    Metric("novelty", function="novelty", label="Novelty", family="beyond", bounds=(0, _INF),
           inputs=("recs", "train"),
           latex=r"\mathrm{novelty}_u = \frac{1}{|L_u|} \sum_{i \in L_u} -\log_2 p_i, \qquad p_i "
                 r"= \frac{N_i}{N}",
           reference="Zhou, Kuscsik, Liu, Medo, Wakeling and Zhang (2010), Solving the apparent "
                     "diversity-accuracy dilemma of recommender systems, *PNAS* 107(10)"),
    Metric("intra_list_diversity", function="intra_list_diversity", label="ILD",
           family="beyond", bounds=(0, 1), inputs=("recs", "items"),
           latex=r"\mathrm{ILD}(L_u) = 1 - \frac{2}{n(n-1)} \sum_{i<j} \frac{g_i \cdot "
                 r"g_j}{\lVert g_i \rVert\, \lVert g_j \rVert}",
           reference="Ziegler, McNee, Konstan and Lausen (2005), Improving recommendation lists "
                     "through topic diversification, *WWW*"),
    Metric("serendipity", function="serendipity", label="Serendipity", family="beyond",
           bounds=(0, 1), inputs=("truth", "recs", "train"),
           latex=r"\mathrm{serendipity}_u = \frac{|\{i \in L_u : i \in R_u,\ i \notin B_u\}|}{k}",
           reference=_GE),
    Metric("catalog_coverage", function="catalog_coverage", label="Catalog coverage",
           family="beyond", bounds=(0, 1), system_level=True, inputs=("recs",),
           latex=r"\mathrm{coverage} = \frac{|\{i \in C : i \in L_u \text{ for some } u\}|}{|C|}",
           reference=_GE),
    Metric("user_coverage", function="user_coverage", label="User coverage", family="beyond",
           bounds=(0, 1), system_level=True,
           latex=r"\mathrm{user\ coverage} = \frac{|\{u \in U_{test} : L_u \neq "
                 r"\emptyset\}|}{|U_{test}|}",
           reference=_GE),
    Metric("gini_index", function="gini_index", label="Gini", family="beyond", bounds=(0, 1),
           higher_is_better=False, system_level=True, inputs=("recs",),
           latex=r"G = \frac{\sum_{i=1}^{n} (2i - n - 1)\, x_{(i)}}{n \sum_{i} x_{(i)}}",
           reference="Fleder and Hosanagar (2009), Blockbuster culture's next rise or fall: the "
                     "impact of recommender systems on sales diversity, *Management Science* "
                     "55(5)"),
)

#: The ranking metrics by name: the built-in ones, then those registered.
RANKING_METRICS: dict[str, Metric] = {}
#: Every metric by name.
METRICS: dict[str, Metric] = {}
#: The metrics with curves over cutoffs (``ranking_curves``' columns), built in.
CURVE_METRICS: tuple[str, ...] = tuple(m.name for m in _RANKING if m.curves)
_BUILT_IN = frozenset(m.name for m in _RANKING + _OTHERS)


def _add(metric: Metric) -> Metric:
    if metric.family == "ranking":
        if metric.per_user is None and not metric.kernel:
            raise InvalidParameterError(
                f"register: metric {metric.name!r} needs 'per_user', the function "
                "(hits, k) -> array that computes it from each user's hits.")
        RANKING_METRICS[metric.name] = metric
    METRICS[metric.name] = metric
    return metric


for _metric in _RANKING + _OTHERS:
    _add(_metric)
del _metric


def add(metric: Metric, *, replace: bool = False) -> Metric:
    """Add a metric of your own (checked by :func:`evalkit.metrics.register`, which derives
    its function); a built-in metric is never replaced."""
    if metric.name in _BUILT_IN:
        raise InvalidParameterError(
            f"register: {metric.name!r} is a built-in metric; choose another name.")
    if metric.name in METRICS and not replace:
        raise InvalidParameterError(
            f"register: a metric named {metric.name!r} is registered already; pass "
            "replace=True to replace it.")
    return _add(metric)


def unregister(name: str) -> None:
    """Remove a metric registered with :func:`register` (built-in metrics stay).

    Parameters
    ----------
    name : str
        The registry name the metric was registered under.
    """
    if name in _BUILT_IN:
        raise InvalidParameterError(f"unregister: {name!r} is a built-in metric.")
    if name not in METRICS:
        raise InvalidParameterError(f"unregister: no metric named {name!r} is registered.")
    del METRICS[name]
    RANKING_METRICS.pop(name, None)


#: ``label@k`` / ``name@k``: a metric at a cutoff.
_AT_CUTOFF = re.compile(r"(?P<metric>.+)@(?P<k>[0-9]+)\Z")


def _quoted(arg: str) -> str:
    """An argument as a message names it: a flag as typed (``--margin``), else quoted."""
    return arg if arg.startswith("-") else f"'{arg}'"


def _listed(names: Iterable[str] | None = None) -> str:
    """``precision (P), recall (R), ...``: each metric's name and, where it differs, label."""
    chosen = METRICS.values() if names is None else [METRICS[n] for n in names if n in METRICS]
    flat_labels = {m.label for m in METRICS.values() if not m.at_k}

    def label(m: Metric) -> str:  # a label a metric without a cutoff has too: with its "@k"
        return f"{m.label}@k" if m.at_k and m.label in flat_labels else m.label

    return ", ".join(m.name if label(m) == m.name else f"{m.name} ({label(m)})" for m in chosen)


def _matches(text: str, choices: Collection[str] | None, *, at_k: bool) -> list[Metric]:
    """The metrics ``text`` names: the one of that registry name, else those of that label
    (only metrics with a cutoff when ``at_k``). Among several, those in ``choices`` are kept
    when some are; a label shared by a metric without a cutoff and metrics with one (R-Prec:
    ``r_precision`` and ``r_precision_at_k``) alone names the one without, as tables print
    it."""
    if text in METRICS and (METRICS[text].at_k or not at_k):
        return [METRICS[text]]
    found = [m for m in METRICS.values() if m.label == text and (m.at_k or not at_k)]
    if len(found) > 1 and choices is not None and any(m.name in choices for m in found):
        found = [m for m in found if m.name in choices]
    if len(found) > 1 and not at_k and sum(not m.at_k for m in found) == 1:
        found = [m for m in found if not m.at_k]
    return found


def _where(arg: str | None) -> str:
    return "" if arg is None else f" in {_quoted(arg)}"


def _one(text: str, found: list[Metric], *, func: str, arg: str | None,
         choices: Collection[str] | None, shown: str | None = None) -> Metric:
    """The metric of ``found`` (the metrics ``text`` names), or the error: ambiguous, unknown,
    or not one of ``choices``; ``shown`` is the text as given (with its cutoff)."""
    where = _where(arg)
    cutoff = shown is not None
    shown = text if shown is None else shown
    if len(found) > 1:
        raise InvalidParameterError(
            f"{func}: metric {shown!r}{where} is ambiguous: it is the label of "
            f"{', '.join(m.name for m in found)}; name one of them by its registry name.")
    if not found:
        folded = [m for m in METRICS.values() if text.casefold() in
                  (m.name.casefold(), m.label.casefold())]
        hint = (f" Names and labels are case-sensitive: did you mean "
                f"{' or '.join(repr(n) for m in folded for n in dict.fromkeys((m.label, m.name)))}?"
                if folded else "")
        at = " (name@k or label@k at a cutoff: ndcg@10, NDCG@10)" if cutoff else ""
        raise InvalidParameterError(
            f"{func}: {'' if arg is None else _quoted(arg) + ' names an '}unknown metric "
            f"{shown!r}; valid metrics are {_listed(choices)}, each by its registry name or its "
            f"label{at}.{hint}")
    metric = found[0]
    if choices is not None and metric.name not in choices:
        direct = metric.function if isinstance(metric.function, str) else None
        raise InvalidParameterError(
            f"{func}: metric {shown!r}{where} is {metric.name!r}, which {func} does not take; "
            f"it takes {_listed(choices)}."
            + (f" Call evalkit.metrics.{direct} for {metric.name}." if direct else ""))
    return metric


def get_metric(name: object, *, func: str = "get_metric", arg: str | None = None,
               choices: Iterable[str] | None = None) -> Metric:
    """The metric a text names: its registry name (``"ndcg"``) or its label as tables print
    it (``"NDCG"``); unknown names list the valid ones.

    This is the one place where evalkit reads a metric's name: ``evaluate(metrics=...)``,
    :func:`evalkit.compare`, the metric arguments of the plots, the sampled and debiased
    metrics, ``evalkit evaluate --metrics`` and the reports' ``METRIC`` and ``METRICS`` all
    call it (a name with a cutoff, as in margins, goes through :func:`parse_column`).

    Parameters
    ----------
    name : str
        A registry name or a label; both are case-sensitive (``"nDCG"`` is refused, naming
        ``"NDCG"`` and ``"ndcg"``). A registry name always means its metric; a label shared by
        several metrics is refused as ambiguous, except that a label shared by a metric
        without a cutoff and metrics with one (``"R-Prec"``) names the one without
        (``r_precision``), as tables print it.
    func, arg : str
        The function (or command) and the argument the messages name (a flag such as
        ``--metrics`` is shown as typed).
    choices : iterable of str, optional
        The registry names taken here; another metric is refused, listing these.

    Returns
    -------
    Metric
        The metric's declaration.

    Raises
    ------
    evalkit.InvalidParameterError
        For a text that is not a string, names no metric or several, names a metric at a
        cutoff (``"NDCG@10"``: the cutoff is given apart), or a metric not in ``choices``.

    Examples
    --------
    >>> get_metric("NDCG").name, get_metric("P").name, get_metric("R-Prec").name
    ('ndcg', 'precision', 'r_precision')
    """
    where = _where(arg)
    choices = None if choices is None else tuple(choices)
    if not isinstance(name, str):
        raise InvalidParameterError(
            f"{func}: a metric{where} is named by a string (its registry name or label); got "
            f"{describe(name)}.")
    found = _matches(name, choices, at_k=False)
    cut = _AT_CUTOFF.match(name)
    if not found and cut:
        at = _matches(cut["metric"], choices, at_k=True)
        if len(at) == 1:
            metric = at[0]
            raise InvalidParameterError(
                f"{func}: {name!r}{where} names {metric.name!r} at a cutoff; name the metric "
                f"alone ({metric.label!r} or {metric.name!r}) and give the cutoff apart.")
    return _one(name, found, func=func, arg=arg, choices=choices)


def parse_column(text: object, *, func: str = "parse_column", arg: str | None = None,
                 choices: Iterable[str] | None = None) -> tuple[Metric, int | None]:
    """The metric and cutoff a column's text names: ``"NDCG@10"`` or ``"ndcg@10"`` (a metric
    at a cutoff), ``"R-Prec"`` or ``"mae"`` (a metric without one), or ``"NDCG"`` (a metric
    with cutoffs, named alone: the caller decides what that means, e.g. every cutoff).

    The metric is read as :func:`get_metric` reads it (registry name or label,
    case-sensitive); before the ``@`` only metrics with a cutoff are looked for, so
    ``"R-Prec@10"`` is ``r_precision_at_k`` at 10.

    Parameters
    ----------
    text : str
        The column's text.
    func, arg : str
        As :func:`get_metric`: the function and argument the messages name.
    choices : iterable of str, optional
        As :func:`get_metric`: the registry names taken here.

    Returns
    -------
    tuple of (Metric, int or None)
        The metric, and the cutoff (None when the text gives none).

    Raises
    ------
    evalkit.InvalidParameterError
        As :func:`get_metric`, and for a cutoff on a metric without one (``"MAE@10"``) or a
        cutoff below 1.

    Examples
    --------
    >>> [(m.name, k) for m, k in map(parse_column, ["NDCG@10", "ndcg@10", "R-Prec", "MAP"])]
    [('ndcg', 10), ('ndcg', 10), ('r_precision', None), ('map', None)]
    """
    where = _where(arg)
    choices = None if choices is None else tuple(choices)
    cut = _AT_CUTOFF.match(text) if isinstance(text, str) else None
    if cut is None or _matches(text, choices, at_k=False):
        return get_metric(text, func=func, arg=arg, choices=choices), None
    found = _matches(cut["metric"], choices, at_k=True)
    if not found:
        flat = _matches(cut["metric"], choices, at_k=False)
        if len(flat) == 1:
            raise InvalidParameterError(
                f"{func}: {text!r}{where}: metric {flat[0].name!r} has no cutoff; name it "
                f"{flat[0].label!r} or {flat[0].name!r}.")
    metric = _one(cut["metric"], found, func=func, arg=arg, choices=choices, shown=text)
    k = int(cut["k"])
    if k < 1:
        raise InvalidParameterError(
            f"{func}: {text!r}{where}: the cutoff must be a positive integer; got {k}.")
    return metric, k
