"""Every option that changes a number, in one frozen object: :class:`Definitions`.

Libraries disagree on almost every metric: AP@k has five
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
import textwrap
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from ._docstrings import substitute
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
    """The definitions behind every number evalkit computes (relevance and
    gain, ranking, ties, which users are averaged, beyond accuracy), and through profiles the
    conventions of other libraries.

    Build one with keywords (unknown names and invalid values raise at once, naming the field
    and the valid values), take a library's from :func:`evalkit.profile`, or change a few
    fields of either with :meth:`replace`. ``repr`` shows only the fields that differ from the
    defaults; a notebook (or IPython) shows every field in force as a table, with its value,
    its default where the value differs, and its meaning. :meth:`as_dict` /
    :meth:`from_dict` round-trip through JSON.

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
    per_metric : mapping of str to mapping, default {}
        Fields that differ for some metrics: metric name -> {field: value}, for a library whose
        conventions differ between its metrics (:meth:`for_metric` applies them).
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
            raise InvalidParameterError(
                "Definitions: 'per_metric' must map metric names to fields; got "
                f"{type(self.per_metric).__name__}.")
        frozen = {}
        for metric, changes in self.per_metric.items():
            if not isinstance(changes, Mapping):
                raise InvalidParameterError(
                    f"Definitions: per_metric[{metric!r}] must map fields to "
                    f"values; got {type(changes).__name__}.")
            checked = _checked(changes, func=f"Definitions (per_metric[{metric!r}])")
            _consistent({**self._option_dict(), **checked}, func="Definitions")
            frozen[str(metric)] = _FrozenDict(checked)
        object.__setattr__(self, "per_metric", _FrozenDict(frozen))

    def __hash__(self) -> int:
        return hash((tuple(self._option_dict().items()), self.per_metric))

    def for_metric(self, name: str) -> Definitions:
        """The definitions one metric uses: these, with ``per_metric[name]`` applied.

        Parameters
        ----------
        name : str
            The metric's registry name.
        """
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
        """The inverse of :meth:`as_dict`; unknown keys raise, missing ones take defaults.

        Parameters
        ----------
        data : mapping
            The fields, as :meth:`as_dict` gives them.
        func : str, default "Definitions.from_dict"
            The caller's name, for error messages.
        """
        if not isinstance(data, Mapping):
            raise InvalidParameterError(
                f"{func}: expected a mapping of definitions; got "
                f"{type(data).__name__}.")
        data = dict(data)
        profile = data.pop("profile", None)
        per_metric = data.pop("per_metric", None) or {}
        return cls(profile=profile, per_metric=per_metric, **_checked(data, func=func))

    def to_json(self) -> str:
        """:meth:`as_dict` as a JSON string."""
        return json.dumps(self.as_dict(), sort_keys=False)

    def changed(self) -> dict[str, object]:
        """The fields that differ from evalkit's defaults."""
        base = _DEFAULTS
        return {k: v for k, v in self._option_dict().items() if v != base[k]}

    def replace(self, **changes: object) -> Definitions:
        """A copy with ``changes`` applied (validated); the profile label is kept unless
        ``profile=`` is among them.

        Parameters
        ----------
        **changes
            Fields of :class:`Definitions`, ``profile`` and ``per_metric`` included.
        """
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

    def _record(self) -> dict:
        """Every field in force, with its default where it differs and its meaning."""
        from ._display import Record

        meaning = {f.name: f.metadata.get("help", "") for f in fields(self)}
        return Record(self.as_dict(), meaning=meaning,
                      defaults=_DEFAULTS | {"profile": None, "per_metric": {}})

    def _heading(self) -> str:
        changed = list(self.changed()) + (["per_metric"] if self.per_metric else [])
        if not changed:
            return "Definitions in force: evalkit's defaults"
        return (f"Definitions in force: {len(changed)} "
                f"{'differs' if len(changed) == 1 else 'differ'} from evalkit's defaults "
                f"({', '.join(changed)}; the defaults in the column 'default')")

    def _repr_html_(self) -> str:
        import html

        return (f"<div><p><b>{html.escape(self._heading())}</b></p>"
                f"{self._record()._repr_html_()}</div>")

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        # alone, every field as a table; inside a container, the short form of repr
        if cycle or len(getattr(printer, "stack", ())) > 1:
            printer.text(repr(self))
            return
        printer.text(f"{self!r}\n{self._heading()}\n")
        self._record()._repr_pretty_(printer, cycle)


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
        raise InvalidParameterError(f"{func}: '{name}' must be {kind}; got {value!r}.")
    if not meta["check"](float(value)):
        raise ValueError(f"{func}: '{name}' must be {meta['rule']}; got {value!r}.")
    return float(value)


def _checked(options: Mapping[str, object], *, func: str) -> dict[str, object]:
    """Each option validated (unknown names raise, listing the valid ones)."""
    unknown = [name for name in options if name not in _DEFAULTS]
    if unknown:
        raise InvalidParameterError(
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

    Parameters
    ----------
    definitions : Definitions, str, mapping or None, default None
        An object, a profile name, a mapping of fields, or None for the defaults.
    func : str
        The caller's name, for error messages.
    **overrides
        Fields given as keywords; those that are :data:`UNSET` were not given.
    """
    given = {k: v for k, v in overrides.items() if v is not UNSET}
    if definitions is None:
        base = None
    elif isinstance(definitions, Definitions):
        base = definitions
    elif isinstance(definitions, str):
        base = profile(definitions, func=func)
    elif isinstance(definitions, Mapping):
        base = Definitions.from_dict(definitions, func=func)
    else:
        raise InvalidParameterError(
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

    Parameters
    ----------
    function : callable, optional
        The function to wrap; None: a decorator is returned (``@takes_definitions(reads=...)``).
    reads : tuple of str, optional
        The fields it takes as keywords; default: every field.
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
            raise InvalidParameterError(
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
    unless it is given as a keyword. Their defaults become evalkit's definitions. A line
    ``%(definitions)s`` in the function's docstring becomes the entry of ``definitions``,
    naming those options (:func:`evalkit._docstrings.fill_doc` fills the others, above this).

    Parameters
    ----------
    *names : str
        The function's keyword options that are fields of :class:`Definitions`.
    """
    listed = [f"``{name}``" for name in names]
    listed = ", ".join(listed[:-1]) + " and " + listed[-1] if len(listed) > 1 else listed[0]
    entry = "definitions : Definitions or str, optional\n" + textwrap.fill(
        f"The definitions (:class:`evalkit.Definitions`) or a profile name, from which "
        f"{listed} {'are' if len(names) > 1 else 'is'} taken unless given as a keyword; "
        "default: evalkit's.", width=88, initial_indent="    ", subsequent_indent="    ")

    def decorate(function: Callable) -> Callable:
        if function.__doc__:
            function.__doc__ = substitute(function.__doc__, {"definitions": entry}, strict=False)
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


# -- profiles: the definitions of other libraries (the public home is evalkit.profiles) --

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
        for each in ``names`` (``tests/test_profiles.py`` checks that each is a registered
        ranking metric); empty for evalkit's own profile, which covers every metric
        (:meth:`covers`).
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

    def covers(self, metric: str) -> bool:
        """Whether the profile reproduces ``metric`` (evalkit's own covers every metric,
        built in or registered).

        Parameters
        ----------
        metric : str
            The metric's registry name.
        """
        return self.name == "evalkit" or metric in self.metrics

    def __repr__(self) -> str:
        covered = ", ".join(self.metrics) if self.name != "evalkit" else "every metric"
        return (f"Profile({self.name!r}: {self.library} {self.version}; metrics "
                f"{covered}; {self.definitions!r})")

    def describe(self) -> str:
        """A paragraph for a report or a terminal (a str that a notebook shows as text);
        first, for a library without a relevance threshold, what to pass to match the
        numbers of its usual use."""
        from ._display import Text

        calls = "; ".join(f"{m}: {c}" for m, c in self.names.items()) or \
            "every metric, built in or registered: evalkit.evaluate(metrics=[...])"
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
    return Profile(name=name, library=library, version=version, source=source,
                   definitions=Definitions(profile=name, per_metric=per_metric or {}, **fields),
                   metrics=tuple(metrics), names=dict(names), feed=feed, differences=differences,
                   every_item_relevant=name in _EVERY_ITEM_RELEVANT)


_PROFILES = [
    _profile(
        "evalkit", "evalkit", "this version", "evalkit/definitions.py", (), {},
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
    """The :class:`~evalkit.Definitions` of the profile ``name`` (see :data:`PROFILES`).

    Parameters
    ----------
    name : str
        The profile's name.
    func : str, default "profile"
        The caller's name, for the error message.
    """
    if not isinstance(name, str) or name not in PROFILES:
        raise ValueError(
            f"{func}: unknown profile {name!r}; the profiles are "
            f"{', '.join(map(repr, PROFILES))}."
        )
    return PROFILES[name].definitions


def covers(definitions: Definitions, metric: str) -> bool:
    """Whether the profile behind ``definitions`` (if any) reproduces ``metric`` (evalkit's
    own profile covers every registered metric).

    Parameters
    ----------
    definitions : Definitions
        The definitions; their ``profile`` label names the profile.
    metric : str
        The metric's registry name.
    """
    name = definitions.profile
    return name is None or name not in PROFILES or PROFILES[name].covers(metric)


def check_covered(definitions: Definitions, metrics: Iterable[str], *, func: str) -> None:
    """Refuse metrics that the profile behind ``definitions`` does not reproduce.

    Parameters
    ----------
    definitions : Definitions
        The definitions; their ``profile`` label names the profile.
    metrics : iterable of str
        The metrics' registry names.
    func : str
        The caller's name, for the error message.
    """
    name = definitions.profile
    if name is None or name not in PROFILES:
        return
    entry = PROFILES[name]
    missing = [m for m in metrics if not entry.covers(m)]
    if missing:
        raise ValueError(
            f"{func}: profile {name!r} ({entry.library}) does not cover "
            f"{', '.join(map(repr, missing))}: {entry.library} has no such metric or evalkit "
            f"cannot reproduce it. It covers {', '.join(entry.metrics)}; drop the others from "
            "'metrics', or use definitions=evalkit.profile(...).replace(profile=None) to "
            "apply its definitions anyway."
        )
