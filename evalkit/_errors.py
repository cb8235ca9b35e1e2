"""The exception of invalid arguments, in a module that imports nothing (the command line's
parser and :mod:`evalkit.definitions` load it without pandas)."""

from __future__ import annotations

__all__ = ["InvalidParameterError"]


class InvalidParameterError(ValueError, TypeError):
    """An argument of an evalkit function is invalid: of the wrong type, or a value out of
    its domain. The message names the function, the argument, the rule and what was
    received. It is both a ``ValueError`` and a ``TypeError`` (as scikit-learn's error of the
    same name), so ``except ValueError`` and ``except TypeError`` both catch it.

    Examples
    --------
    >>> from evalkit import InvalidParameterError
    >>> from evalkit._checks import check_positive_int
    >>> try:
    ...     check_positive_int("a", func="ndcg_at_k", arg="k")
    ... except TypeError as error:
    ...     print(error, isinstance(error, ValueError))
    ndcg_at_k: 'k' must be a positive integer; got 'a'. True
    """
