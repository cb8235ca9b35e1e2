"""Parameter constraints as data (in the manner of scikit-learn's ``validate_params``).

A public function states what each of its plain parameters may be, once, beside its
signature::

    @constrained(k=CUTOFF, rng=SEED)
    def ndcg_at_k(truth, recs, *, k=10, ...): ...

and every call is checked against those constraints before the function runs: a value a
constraint refuses raises :class:`evalkit.InvalidParameterError` naming the function, the
argument, the rule and what was received. A constraint carries values it refuses, so the
common test (``tests/test_constraints.py``) calls every constrained function with each of
them, generated from the declarations: a new constrained parameter is tested without a new
test. What a constraint cannot say (the columns of a frame, how two arguments fit together)
is checked in the function, and the bad-input table (``tests/test_bad_input_table.py``)
holds those cases.

The statistics that ``make mutation`` mutates (:mod:`evalkit.stats`, the power and MDE
functions, :func:`evalkit.regression_check`) call the same checks at the top of their bodies
instead: mutmut leaves a decorated function unmutated, and those functions' decisions are
what mutation testing is for. Their refused values are in the tests of each.
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
import weakref
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ._checks import (
    check_choice,
    check_cutoff,
    check_fraction,
    check_ks,
    check_nonnegative_int,
    check_positive_int,
    check_real,
    check_resamples,
    check_rng,
    describe,
)
from ._errors import InvalidParameterError

__all__ = ["BOOL", "CONSTRAINED", "CUTOFF", "CUTOFFS", "FRACTION", "NONNEGATIVE_INT",
           "POSITIVE_INT", "RESAMPLES", "SEED", "Constraint", "choice", "constrained",
           "integer", "optional", "real"]


@dataclass(frozen=True)
class Constraint:
    """What one parameter may be.

    Attributes
    ----------
    check : callable
        ``check(value, func=..., arg=...)``: raises :class:`InvalidParameterError` for a
        value it refuses (evalkit's checks of :mod:`evalkit._checks`, so the messages are
        theirs).
    refused : tuple
        Values the constraint refuses: the common test passes each to every function that
        declares the constraint.
    """

    check: Callable[..., object]
    refused: tuple[object, ...]


def _check_bool(value: object, *, func: str, arg: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidParameterError(
            f"{func}: '{arg}' must be True or False; got {describe(value)}.")
    return bool(value)


def _check_cutoffs(value: object, *, func: str, arg: str) -> list[int]:
    if arg != "k":
        raise AssertionError("CUTOFFS constrains the cutoffs 'k'")  # its messages name 'k'
    if isinstance(value, (list, tuple)) and not value:
        raise InvalidParameterError(
            f"{func}: 'k' must be a positive integer or a non-empty list of them; got [].")
    return check_ks(value, func=func)


#: An integer >= 1.
POSITIVE_INT = Constraint(check_positive_int, (0, -3, 2.5, "10", True, None))
#: An integer >= 0.
NONNEGATIVE_INT = Constraint(check_nonnegative_int, (-1, 2.5, "3", True, None))
#: A cutoff: an integer from 1 to evalkit's largest cutoff.
CUTOFF = Constraint(check_cutoff, (0, -1, 2.5, "10", True, None, 10**9))
#: One cutoff or a non-empty list of them.
CUTOFFS = Constraint(_check_cutoffs, (0, [], [5, 0], "10", 2.5, [True], None))
#: A number strictly between 0 and 1 (a confidence level, a test fraction).
FRACTION = Constraint(check_fraction, (0, 1, 1.5, -0.1, "0.9", True, None, math.nan))
#: A number of bootstrap resamples, or 0 for none.
RESAMPLES = Constraint(
    lambda value, *, func, arg: check_resamples(value, func=func),
    (-1, 2.5, "100", True, None))
#: A seed: an integer >= 0, a ``numpy.random.Generator`` or None.
SEED = Constraint(check_rng, (-1, 2.5, "seed", True))
#: True or False.
BOOL = Constraint(_check_bool, ("yes", 1, None))


def integer(minimum: int) -> Constraint:
    """An integer (not a bool) at least ``minimum``."""

    def check(value: object, *, func: str, arg: str) -> int:
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
            raise InvalidParameterError(
                f"{func}: '{arg}' must be an integer >= {minimum}; got {describe(value)}.")
        return int(value)

    return Constraint(check, (minimum - 1, float(minimum), str(minimum), True, None))


def choice(*options: str) -> Constraint:
    """One of ``options`` (the message lists them)."""

    def check(value: object, *, func: str, arg: str) -> str:
        return check_choice(value, func=func, arg=arg, choices=options)

    return Constraint(check, ("not-an-option", None, 3))


def real(*, minimum: float | None = None, maximum: float | None = None, strict: bool = False,
         strict_maximum: bool = False) -> Constraint:
    """A finite real number, at least ``minimum`` (above it where ``strict``) and at most
    ``maximum`` (below it where ``strict_maximum``), where given."""

    def check(value: object, *, func: str, arg: str) -> float:
        number = check_real(value, func=func, arg=arg, minimum=minimum, strict=strict)
        if maximum is not None and (number >= maximum if strict_maximum else number > maximum):
            rule = f"< {maximum:g}" if strict_maximum else f"<= {maximum:g}"
            raise InvalidParameterError(f"{func}: '{arg}' must be {rule}; got {number!r}.")
        return number

    refused: tuple[object, ...] = ("1", True, None, math.nan, math.inf)
    if minimum is not None:
        refused += (minimum if strict else minimum - 1,)
    if maximum is not None:
        refused += (maximum if strict_maximum else maximum + 1,)
    return Constraint(check, refused)


def optional(constraint: Constraint) -> Constraint:
    """The constraint, or None."""

    def check(value: object, *, func: str, arg: str) -> object:
        if value is None:
            return None
        try:
            return constraint.check(value, func=func, arg=arg)
        except InvalidParameterError as error:  # "must be a real number or None; got 'x'."
            raise InvalidParameterError(str(error).replace("; got ", " or None; got ", 1)) from None

    return Constraint(check, tuple(v for v in constraint.refused if v is not None))


#: Every constrained public function (the common test reads it), a metric of your own's
#: while it is alive.
CONSTRAINED: weakref.WeakSet = weakref.WeakSet()


def constrained(**constraints: Constraint) -> Callable[[Callable], Callable]:
    """Check the named parameters of every call against their constraints, before the
    function runs. Apply it outermost (above ``takes_definitions``), so that the signature
    it reads is the one users call."""

    def decorate(function: Callable) -> Callable:
        signature = inspect.signature(function)
        unknown = set(constraints) - set(signature.parameters)
        if unknown:
            raise AssertionError(f"{function.__name__} has no parameter {sorted(unknown)}")
        method = next(iter(signature.parameters), None) == "self"

        @functools.wraps(function)
        def wrapper(*args: object, **kwargs: object) -> object:
            try:
                given = signature.bind_partial(*args, **kwargs).arguments
            except TypeError:  # the function's own message says what was wrong
                given = {}
            if any(arg in given for arg in constraints):
                name = called_name(wrapper, given.get("self")) if method else function.__name__
                for arg, constraint in constraints.items():
                    if arg in given:
                        constraint.check(given[arg], func=name, arg=arg)
            return function(*args, **kwargs)

        # the signature is the wrapped function's, as it is now (takes_definitions may limit
        # it later to the definitions a metric reads)
        wrapper.__dict__.pop("__signature__", None)
        wrapper.constraints = dict(constraints)  # type: ignore[attr-defined]
        CONSTRAINED.add(wrapper)
        return wrapper

    return decorate


def called_name(function: Callable, instance: object = None) -> str:
    """The name a constrained function's messages give it: its own, or for a method the
    class of the instance it is called on (``EASE`` for a constructor, ``EASE.recommend``;
    without an instance, the class that defines it)."""
    function = getattr(function, "__wrapped__", function)
    owner, _, name = function.__qualname__.rpartition(".")
    if not owner:
        return name
    if instance is not None:
        owner = type(instance).__name__
    return owner if name == "__init__" else f"{owner}.{name}"
