"""Shared docstring text (:mod:`evalkit._docstrings`): a placeholder line becomes the fragment
at its indentation, the rest of the docstring stays literal, and no placeholder is left."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import pytest

import evalkit
import evalkit.metrics as metrics
from evalkit._docstrings import fill_doc, fragments
from evalkit.definitions import uses_definitions

ENTRY = fragments(k="""
    k : int, default 10
        Cutoff: only the top ``k`` positions count.
""")


def test_a_fragment_takes_the_placeholder_indentation_and_the_rest_stays_literal() -> None:
    @fill_doc(ENTRY)
    def f() -> None:
        """Summary {with braces}, 50% and $x$.

        Parameters
        ----------
        %(k)s
            More of its own.
        """

    assert f.__doc__ == """Summary {with braces}, 50% and $x$.

        Parameters
        ----------
        k : int, default 10
            Cutoff: only the top ``k`` positions count.
            More of its own.
        """


def test_a_placeholder_without_a_fragment_raises_at_decoration() -> None:
    with pytest.raises(KeyError, match="'kk'"):
        @fill_doc(ENTRY)
        def f() -> None:
            """Summary.

            %(kk)s
            """


def test_uses_definitions_writes_the_definitions_entry_naming_its_options() -> None:
    @uses_definitions("empty", "tie_order")
    def f(*, empty: str = "drop", tie_order: str = "item") -> None:
        """Summary.

        Parameters
        ----------
        %(definitions)s
        """

    assert "definitions : Definitions or str, optional\n" in f.__doc__
    assert "``empty`` and ``tie_order`` are taken" in f.__doc__


def test_no_docstring_keeps_a_placeholder() -> None:
    placeholder = re.compile(r"^\s*%\(\w+\)s\s*$", re.MULTILINE)
    left = []
    for info in pkgutil.walk_packages(evalkit.__path__, "evalkit."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and \
                    obj.__module__.startswith("evalkit") and placeholder.search(obj.__doc__ or ""):
                left.append(f"{info.name}.{name}")
    left += [m.name for m in metrics.RANKING_METRICS.values()
             if m.func is not None and placeholder.search(m.func.__doc__ or "")]
    assert not left
