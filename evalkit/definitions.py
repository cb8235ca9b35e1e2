"""Every option that changes a number, in one frozen object: :class:`Definitions`.

Libraries disagree on almost every metric (SPEC "Why this matters"): AP@k has five
denominators in the wild, recall two, NDCG four knobs, and ties let row order decide results.
evalkit states each choice as a field here, validates it once, records the whole object next
to every result, and accepts it everywhere a number is computed:

>>> import evalkit as ek
>>> ek.Definitions(threshold=3.5, gain="exponential")          # doctest: +ELLIPSIS
Definitions(threshold=3.5, gain='exponential')

Functions take ``definitions=`` (a :class:`Definitions` or the name of a profile, see
:mod:`evalkit.profiles`) and the same fields as flat keywords, which override it::

    ek.evaluate(test, recs, k=10, definitions="lenskit", empty="zero")

The field list below is the only place the options are written out: signatures, the
command line, the notebooks' parameters and the error messages are built from it.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import json
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from ._errors import InvalidParameterError

__all__ = ["OPTION_NAMES", "UNSET", "Definitions", "resolve", "takes_definitions",
           "uses_definitions"]


def _choice(default: str, choices: tuple[str, ...], help: str) -> Any:  # noqa: A002
    return field(default=default, metadata={"choices": choices, "help": help})


def _number(default: float | None, help: str, check: Callable[[float], bool], rule: str,  # noqa: A002
            optional: bool = False) -> Any:
    return field(default=default, metadata={"check": check, "rule": rule, "help": help,
                                            "optional": optional})


@dataclass(frozen=True)
class Definitions:
    """The definitions behind every number evalkit computes (SPEC "Relevance and gain" to
    "Beyond accuracy", and section 16 for the conventions of other libraries).

    Build one with keywords (unknown names and invalid values raise at once, naming the field
    and the valid values), take a library's from :func:`evalkit.profile`, or change a few
    fields of either with :meth:`replace`. ``repr`` shows only the fields that differ from the
    defaults; :meth:`as_dict` / :meth:`from_dict` round-trip through JSON.

    Parameters
    ----------
    threshold : float or None, default 4.0
        A test item is relevant when its rating is at least this; None: every test item is
        relevant (implicit feedback).
    gain : {"linear", "exponential", "binary"}, default "linear"
        Gain of a test item in DCG and NDCG: its rating, ``2**rating - 1``, or 1 if relevant.
    gain_scope : {"rated", "relevant"}, default "rated"
        Which test items get a rating-valued gain: every rated one, or only the relevant ones
        (0 for the others; LensKit ``gain="rating"``, recommenders ``score_type="raw"``).
    discount : {"log", "breese"}, default "log"
        ``log_b(i + 1)``, or Breese's ``max(1, log_b(i))`` (the first b ranks undiscounted).
    log_base : float, default 2.0
        The base b of the discount.
    ideal : {"truth", "k"}, default "truth"
        The ideal DCG: of the user's test items sorted by gain, cut at k; or of k relevant
        items whatever the user has (rectools ``NDCG``; needs ``gain="binary"``).
    ap_denominator : {"min", "relevant", "hits", "k"}, default "min"
        D in ``AP@k = sum_i hit_i P@i / D``: ``min(k, |R_u|)``, ``|R_u|`` (trec_eval, ranx),
        the hits in the top k (torchmetrics), or k (rectools ``divide_by_k=True``).
    recall_denominator : {"relevant", "min"}, default "relevant"
        ``R@k = hits / |R_u|``, or ``hits / min(|R_u|, k)`` (LensKit). F1 uses the same recall.
    precision_users : {"all", "relevant"}, default "all"
        Users over whom P@k and HR@k are averaged: every test user, or those with a relevant
        test item (the others are undefined and follow ``empty``; rectools, Cornac, RePlay,
        recommenders, Evidently: libraries that are fed only the relevant items).
    relevant_set : {"truth", "listed"}, default "truth"
        The user's test items: all of them, or only those in the user's list (torchmetrics,
        which sees the targets of the scored items only: recall's denominator and the ideal DCG
        come from the listed items).
    unknown_items : {"keep", "drop"}, default "keep"
        Test items never seen in training: kept, or removed before evaluating (Cornac
        ``exclude_unknowns=True``); "drop" needs the training data (``train=``).
    empty : {"drop", "zero", "nan"}, default "drop"
        Users for whom a metric is undefined: left out of the mean (and counted), scored 0
        (trec_eval ``-c``, ranx), or kept as NaN.
    ties : {"deterministic", "optimistic", "pessimistic", "expected"}, default "deterministic"
        Items with equal scores (when ``recs`` has no ``rank``): in ``tie_order``, relevant
        first, relevant last, or the expected value over random orders.
    tie_order : {"item", "item_desc", "item_str", "item_str_desc"}, default "item"
        The order of tied items under the deterministic policy (and after relevance under the
        optimistic and pessimistic ones): item id ascending, descending (RePlay), as a string
        ascending (ir-measures' msmarco provider) or descending (trec_eval).
    neutral : float, default 3.0
        Half-life utility's neutral rating d: only ratings above it add utility.
    half_life : float, default 5.0
        Half-life utility's alpha, the rank with a 50% chance of being viewed (above 1).
    gini_scale : {"standard", "unbiased"}, default "standard"
        Gini index of exposure as is, or times ``n / (n - 1)`` (Evidently).
    diversity_norm : {"pairs", "length"}, default "pairs"
        Intra-list diversity: summed dissimilarity over the number of pairs, or over the list
        length (Evidently).
    novelty_norm : {"none", "log2_users"}, default "none"
        Novelty in bits, or divided by ``log2`` of the number of training users (RePlay
        ``Surprisal``).
    popularity : {"users", "interactions"}, default "users"
        An item's popularity: the share of training users who rated it, or its share of the
        training interactions (recommenders ``novelty``).
    coverage_unit : {"share", "count"}, default "share"
        Catalog coverage as a share of the catalog, or as a count of items (rectools).
    profile : str or None
        The profile these definitions came from (a label; it changes no number).
    """

    threshold: float | None = _number(
        4.0, "relevant when the test rating is at least this; None: every test item",
        lambda v: bool(np.isfinite(v)), "a finite number or None", optional=True)
    gain: str = _choice("linear", ("linear", "exponential", "binary"),
                        "gain of a test item in DCG: rating, 2**rating - 1, or 1 if relevant")
    gain_scope: str = _choice("rated", ("rated", "relevant"),
                              "rating-valued gain for every rated test item, or relevant only")
    discount: str = _choice("log", ("log", "breese"),
                            "log_b(i + 1), or Breese's max(1, log_b(i))")
    log_base: float = _number(2.0, "base of the DCG discount",
                              lambda v: 1 < v < np.inf, "a finite number greater than 1")
    ideal: str = _choice("truth", ("truth", "k"),
                         "ideal DCG from the user's test items, or from k relevant items")
    ap_denominator: str = _choice("min", ("min", "relevant", "hits", "k"),
                                  "AP@k divisor: min(k, |R|), |R|, hits in the top k, or k")
    recall_denominator: str = _choice("relevant", ("relevant", "min"),
                                      "R@k divisor: |R|, or min(|R|, k)")
    precision_users: str = _choice("all", ("all", "relevant"),
                                   "P@k and HR@k over every user, or users with a relevant item")
    relevant_set: str = _choice("truth", ("truth", "listed"),
                                "the user's test items: all, or only those in the list")
    unknown_items: str = _choice("keep", ("keep", "drop"),
                                 "test items unseen in training: kept, or removed")
    empty: str = _choice("drop", ("drop", "zero", "nan"),
                         "users with an undefined metric: left out, scored 0, or NaN")
    ties: str = _choice("deterministic", ("deterministic", "optimistic", "pessimistic",
                                          "expected"),
                        "order of tied scores: tie_order, relevant first or last, or expected")
    tie_order: str = _choice("item", ("item", "item_desc", "item_str", "item_str_desc"),
                             "tied items by id ascending, descending, or as strings")
    neutral: float = _number(3.0, "half-life utility: neutral rating",
                             lambda v: bool(np.isfinite(v)), "a finite number")
    half_life: float = _number(5.0, "half-life utility: rank viewed with probability 1/2",
                               lambda v: 1 < v < np.inf, "a finite number greater than 1")
    gini_scale: str = _choice("standard", ("standard", "unbiased"),
                              "Gini of exposure as is, or times n/(n-1)")
    diversity_norm: str = _choice("pairs", ("pairs", "length"),
                                  "intra-list diversity over the pairs, or over the length")
    novelty_norm: str = _choice("none", ("none", "log2_users"),
                                "novelty in bits, or divided by log2(training users)")
    popularity: str = _choice("users", ("users", "interactions"),
                              "popularity: share of training users, or of interactions")
    coverage_unit: str = _choice("share", ("share", "count"),
                                 "catalog coverage as a share, or as a count of items")
    per_metric: Mapping[str, Mapping[str, object]] = field(
        default_factory=dict, metadata={"help": "fields that differ for some metrics"})
    profile: str | None = field(default=None, compare=False,
                                metadata={"help": "the profile these came from (a label)"})

    def __post_init__(self) -> None:
        for name, value in _checked(self._option_dict(), func="Definitions").items():
            object.__setattr__(self, name, value)
        _consistent(self._option_dict(), func="Definitions")
        if not isinstance(self.per_metric, Mapping):
            raise TypeError("Definitions: 'per_metric' must map metric names to fields; got "
                            f"{type(self.per_metric).__name__}.")
        frozen = {}
        for metric, changes in self.per_metric.items():
            if not isinstance(changes, Mapping):
                raise TypeError(f"Definitions: per_metric[{metric!r}] must map fields to "
                                f"values; got {type(changes).__name__}.")
            checked = _checked(changes, func=f"Definitions (per_metric[{metric!r}])")
            _consistent({**self._option_dict(), **checked}, func="Definitions")
            frozen[str(metric)] = _FrozenDict(checked)
        object.__setattr__(self, "per_metric", _FrozenDict(frozen))

    def __hash__(self) -> int:
        return hash((tuple(self._option_dict().items()), self.per_metric))

    def for_metric(self, name: str) -> Definitions:
        """The definitions one metric uses: these, with ``per_metric[name]`` applied."""
        changes = self.per_metric.get(name)
        if not changes:
            return self if not self.per_metric else dataclasses.replace(self, per_metric={})
        return dataclasses.replace(self, per_metric={}, **changes)

    # -- views ---------------------------------------------------------------------------
    def _option_dict(self) -> dict[str, object]:
        return {name: getattr(self, name) for name in OPTION_NAMES}

    def as_dict(self) -> dict[str, object]:
        """Every field, JSON-ready (the profile label included)."""
        out: dict[str, object] = {**self._option_dict(), "profile": self.profile}
        if self.per_metric:
            out["per_metric"] = {m: dict(c) for m, c in self.per_metric.items()}
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, object], *, func: str = "Definitions.from_dict"
                  ) -> Definitions:
        """The inverse of :meth:`as_dict`; unknown keys raise, missing ones take defaults."""
        if not isinstance(data, Mapping):
            raise TypeError(f"{func}: expected a mapping of definitions; got "
                            f"{type(data).__name__}.")
        data = dict(data)
        profile = data.pop("profile", None)
        per_metric = data.pop("per_metric", None) or {}
        return cls(profile=profile, per_metric=per_metric, **_checked(data, func=func))

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), sort_keys=False)

    def changed(self) -> dict[str, object]:
        """The fields that differ from evalkit's defaults."""
        base = _DEFAULTS
        return {k: v for k, v in self._option_dict().items() if v != base[k]}

    def replace(self, **changes: object) -> Definitions:
        """A copy with ``changes`` applied (validated); the profile label is kept unless
        ``profile=`` is among them."""
        extra = {k: changes.pop(k) for k in ("profile", "per_metric") if k in changes}
        return dataclasses.replace(self, **extra, **_checked(changes, func="Definitions.replace"))

    def __repr__(self) -> str:
        parts = [f"{k}={v!r}" for k, v in self.changed().items()]
        if self.per_metric:
            parts.append(f"per_metric={ {m: dict(c) for m, c in self.per_metric.items()} !r}")
        if self.profile is not None:
            parts.insert(0, f"profile={self.profile!r}")
        return f"Definitions({', '.join(parts)})"

    def describe(self) -> str:
        """One line per field: name, value and what it means (defaults marked); a str that
        a notebook shows as text."""
        from ._display import Text

        lines = []
        for f in fields(self):
            if f.name in ("profile", "per_metric"):
                continue
            value = getattr(self, f.name)
            mark = "" if value == f.default else "  (changed)"
            lines.append(f"{f.name:<19} {value!r:<16} {f.metadata['help']}{mark}")
        return Text("\n".join(lines))


class _FrozenDict(dict):
    """A read-only, hashable dict (for ``per_metric``)."""

    def _refuse(self, *args: object, **kwargs: object) -> None:
        raise TypeError("Definitions are frozen; use Definitions.replace().")

    __setitem__ = __delitem__ = update = pop = popitem = clear = setdefault = _refuse  # type: ignore

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted((k, v if not isinstance(v, dict) else hash(_FrozenDict(v)))
                                 for k, v in self.items())))


OPTION_NAMES: tuple[str, ...] = tuple(
    f.name for f in fields(Definitions) if f.name not in ("profile", "per_metric"))
_FIELDS = {f.name: f for f in fields(Definitions)}
_DEFAULTS = {name: _FIELDS[name].default for name in OPTION_NAMES}


def choices(name: str) -> tuple[str, ...] | None:
    """The valid values of an option with a fixed set of values (None for numbers)."""
    return _FIELDS[name].metadata.get("choices")


def help_text(name: str) -> str:
    """The one-line meaning of an option."""
    return _FIELDS[name].metadata["help"]


def default(name: str) -> object:
    return _DEFAULTS[name]


def _check_value(name: str, value: object, *, func: str) -> object:
    meta = _FIELDS[name].metadata
    if "choices" in meta:
        valid = meta["choices"]
        if not isinstance(value, str) or value not in valid:
            listed = ", ".join(repr(c) for c in valid)
            raise ValueError(f"{func}: unknown {name} {value!r}; valid values are {listed}.")
        return value
    if value is None and meta["optional"]:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        kind = meta["rule"]
        raise TypeError(f"{func}: '{name}' must be {kind}; got {value!r}.")
    if not meta["check"](float(value)):
        raise ValueError(f"{func}: '{name}' must be {meta['rule']}; got {value!r}.")
    return float(value)


def _checked(options: Mapping[str, object], *, func: str) -> dict[str, object]:
    """Each option validated (unknown names raise, listing the valid ones)."""
    unknown = [name for name in options if name not in _DEFAULTS]
    if unknown:
        raise TypeError(
            f"{func}: unknown definition(s) {', '.join(map(repr, unknown))}; the definitions "
            f"are {', '.join(OPTION_NAMES)} (see evalkit.Definitions)."
        )
    return {name: _check_value(name, value, func=func) for name, value in options.items()}


def _consistent(options: Mapping[str, object], *, func: str) -> None:
    """Rules between fields."""
    if options["ideal"] == "k" and options["gain"] != "binary":
        raise ValueError(
            f"{func}: ideal='k' (the ideal list is k relevant items) needs gain='binary'; got "
            f"gain={options['gain']!r}. A rating-valued gain has no fixed ideal item."
        )


class _Unset:
    """Marks a flat keyword that was not given (so the definitions decide)."""

    _instance = None

    def __new__(cls) -> _Unset:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "<from definitions>"

    def __reduce__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()


def resolve(definitions: object = None, *, func: str, **overrides: object) -> Definitions:
    """The :class:`Definitions` a call uses: ``definitions`` (an object, a profile name or
    None for the defaults) with the flat keywords that were given (not :data:`UNSET`) applied.
    """
    given = {k: v for k, v in overrides.items() if v is not UNSET}
    if definitions is None:
        base = None
    elif isinstance(definitions, Definitions):
        base = definitions
    elif isinstance(definitions, str):
        from .profiles import profile  # profiles are built on this module

        base = profile(definitions, func=func)
    elif isinstance(definitions, Mapping):
        base = Definitions.from_dict(definitions, func=func)
    else:
        raise TypeError(
            f"{func}: 'definitions' must be an evalkit.Definitions, a profile name or a "
            f"mapping of fields; got {type(definitions).__name__}."
        )
    checked = _checked(given, func=func)
    if base is None:
        _consistent({**_DEFAULTS, **checked}, func=func)
        return Definitions(**checked)
    if not checked:
        return base
    _consistent({**base._option_dict(), **checked}, func=func)
    return dataclasses.replace(base, **checked)


def takes_definitions(function: Callable | None = None, *,
                      reads: tuple[str, ...] | None = None) -> Callable:
    """Give ``function(..., definitions=None, **options)`` a signature that lists each
    definition it takes as a keyword (default :data:`UNSET`), and refuse other keywords.

    ``reads`` (the fields a metric reads, from its :class:`~evalkit.metrics.Metric`) limits
    the keywords to those fields; default: every field. ``definitions=`` still takes a whole
    :class:`Definitions` or a profile. The wrapped function receives the resolved
    :class:`Definitions` as ``definitions``. Used bare (``@takes_definitions``) or with
    ``reads`` (``@takes_definitions(reads=...)``); :func:`limit_definitions` limits an
    already wrapped function.
    """
    if function is None:
        return lambda f: takes_definitions(f, reads=reads)
    signature = inspect.signature(function)
    params = [p for p in signature.parameters.values() if p.kind is not p.VAR_KEYWORD]
    base = list(params)
    name = function.__name__
    fixed = {p.name for p in params}
    state = {"reads": OPTION_NAMES}

    @functools.wraps(function)
    def wrapper(*args: object, definitions: object = None, **kwargs: object) -> object:
        allowed = state["reads"]
        options = {k: kwargs.pop(k) for k in list(kwargs) if k in allowed}
        unknown = sorted(set(kwargs) - fixed)
        if unknown:
            fields_ = [k for k in unknown if k in _DEFAULTS]
            if fields_:
                raise InvalidParameterError(
                    f"{name}: {', '.join(map(repr, fields_))} "
                    f"{'does' if len(fields_) == 1 else 'do'} not change this metric; the "
                    f"definitions it reads are {', '.join(allowed) or 'none'}.")
            raise TypeError(
                f"{name}: unexpected keyword argument(s) {', '.join(map(repr, unknown))}; the "
                f"definitions it takes are {', '.join(allowed)}."
            )
        resolved = resolve(definitions, func=name, **options)
        return function(*args, definitions=resolved, **kwargs)

    def limit(fields_: tuple[str, ...]) -> None:
        state["reads"] = tuple(f for f in OPTION_NAMES if f in fields_)
        wrapper.__signature__ = signature.replace(parameters=base + [  # type: ignore[attr-defined]
            inspect.Parameter(f, inspect.Parameter.KEYWORD_ONLY, default=UNSET,
                              annotation=_FIELDS[f].type) for f in state["reads"]])

    wrapper._limit_definitions = limit  # type: ignore[attr-defined]
    limit(OPTION_NAMES if reads is None else tuple(reads))
    return wrapper


def limit_definitions(function: Callable, reads: tuple[str, ...]) -> None:
    """Limit a :func:`takes_definitions` function's keywords to the fields ``reads``."""
    function._limit_definitions(reads)  # type: ignore[attr-defined]


def uses_definitions(*names: str) -> Callable[[Callable], Callable]:
    """For a function whose keyword options ``names`` are fields of :class:`Definitions`: add
    ``definitions=`` (an object or a profile name), from which each of those options is taken
    unless it is given as a keyword. Their defaults become evalkit's definitions."""

    def decorate(function: Callable) -> Callable:
        signature = inspect.signature(function)
        params = []
        for p in signature.parameters.values():
            if p.name in names:
                p = p.replace(default=UNSET)
            params.append(p)
        position = next(i for i, p in enumerate(params) if p.name in names)
        params.insert(position, inspect.Parameter("definitions", inspect.Parameter.KEYWORD_ONLY,
                                                  default=None,
                                                  annotation="Definitions | str | None"))
        func = function.__name__

        @functools.wraps(function)
        def wrapper(*args: object, definitions: object = None, **kwargs: object) -> object:
            given = {n: kwargs.pop(n) for n in names if n in kwargs}
            resolved = resolve(definitions, func=func, **given)
            kwargs.update({n: getattr(resolved, n) for n in names})
            return function(*args, **kwargs)

        wrapper.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
        return wrapper

    return decorate
