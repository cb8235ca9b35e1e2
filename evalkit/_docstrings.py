"""Docstring text that several docstrings share, stated once and substituted into each.

A family of functions keeps the parameter entries its docstrings have in common (or a
Returns or Raises entry) as named fragments (:func:`fragments`). A docstring names one by a
line holding only ``%(name)s``, and :func:`fill_doc` replaces that line by the fragment,
every line of it indented as the placeholder was: the entry reads in ``help()``, in numpydoc
and on the site as if it were written there. A placeholder may also stand for a description
alone, under an entry's own first line, or be followed by lines of the entry's own.

Only such lines are touched: braces, ``%`` signs and backslashes elsewhere in a docstring are
literal text (this is neither ``str.format`` nor ``%``-formatting), and a placeholder that no
fragment fills raises when the module is imported, so none can reach a reader.

Apply :func:`fill_doc` below every decorator that copies the docstring
(``functools.wraps``: ``constrained``, ``takes_definitions``, ...), so that each copy is the
finished text; :func:`evalkit.definitions.uses_definitions` fills ``%(definitions)s`` itself
and goes below :func:`fill_doc`.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Mapping
from typing import TypeVar

__all__ = ["PER_USER_DOCS", "fill_doc", "fragments", "substitute"]

T = TypeVar("T")

#: A line holding only a placeholder: its indentation and the fragment's name.
_PLACEHOLDER = re.compile(r"^([ \t]*)%\((\w+)\)s[ \t]*$", re.MULTILINE)


def fragments(**texts: str) -> dict[str, str]:
    """Named fragments from texts written indented in the source (triple-quoted): each
    dedented, without its blank first and last lines or trailing spaces.

    Parameters
    ----------
    **texts : str
        The fragments' texts, by name.

    Returns
    -------
    dict of str to str
        The fragments, by name, as :func:`substitute` inserts them.
    """
    out = {}
    for name, text in texts.items():
        lines = textwrap.dedent(text).strip("\n").splitlines()
        out[name] = "\n".join(line.rstrip() for line in lines)
    return out


def substitute(doc: str, table: Mapping[str, str], *, strict: bool = True,
               where: str = "docstring") -> str:
    """``doc`` with each placeholder line ``%(name)s`` replaced by ``table[name]``, every
    line of it indented as the placeholder was.

    Parameters
    ----------
    doc : str
        The docstring.
    table : mapping of str to str
        The fragments, by name (:func:`fragments`).
    strict : bool, default True
        Raise for a placeholder ``table`` has no fragment for; False leaves it as it is (for
        a decorator that fills only its own).
    where : str, default "docstring"
        What ``doc`` is, for the error message.

    Returns
    -------
    str
        The docstring with the fragments in place.

    Raises
    ------
    KeyError
        With ``strict``, for a placeholder that ``table`` has no fragment for.
    """

    def fill(match: re.Match) -> str:
        indent, name = match.groups()
        if name not in table:
            if strict:
                raise KeyError(f"{where}: no docstring fragment named {name!r} "
                               f"(known: {', '.join(sorted(table)) or 'none'}).")
            return match.group(0)
        return "\n".join(indent + line if line else "" for line in table[name].splitlines())

    return _PLACEHOLDER.sub(fill, doc)


def fill_doc(*tables: Mapping[str, str], **more: str) -> Callable[[T], T]:
    """A decorator that fills the placeholders of a function's (or class's) docstring from
    ``tables`` and ``more``, the later ones winning a shared name.

    Parameters
    ----------
    *tables : mapping of str to str
        Families of fragments (:func:`fragments`).
    **more : str
        Fragments of this docstring alone, as written for :func:`fragments`.

    Returns
    -------
    callable
        The decorator: it sets ``__doc__`` and returns the object itself.
    """
    table: dict[str, str] = {}
    for t in tables:
        table.update(t)
    table.update(fragments(**more))

    def decorate(obj: T) -> T:
        if obj.__doc__:  # None under python -OO
            obj.__doc__ = substitute(obj.__doc__, table, where=getattr(
                obj, "__qualname__", repr(obj)))
        return obj

    return decorate


#: The docstring entries of the per-user ranking functions (:mod:`evalkit.metrics.ranking`'s
#: and those of metrics declared from hits), which :func:`evalkit.metrics.rank`,
#: :func:`evalkit.metrics.ranking_curves`, :func:`evalkit.evaluate` and :func:`evalkit.compare`
#: share for the same inputs. ``parameters`` is the whole usual list.
PER_USER_DOCS = fragments(
    truth_recs="""
    truth : pd.DataFrame
        Test interactions: ``user_id, item_id, rating``. Every user here is evaluated.
    recs : pd.DataFrame
        Recommendations: ``user_id, item_id`` and ``rank`` (1-based) and/or ``score``.
    """,
    k="""
    k : int, default 10
        Cutoff: only the top ``k`` positions count.
    """,
    train="""
    train : pd.DataFrame, optional
        Training interactions; needed only by ``unknown_items="drop"``.
    """,
    definitions="""
    definitions : Definitions or str, optional
        The definitions (:class:`evalkit.Definitions`) or a profile name (``"trec_eval"``,
        ``"lenskit"``, ... see :data:`evalkit.PROFILES`); default: evalkit's.
    """,
    options="""
    **options
        The fields of :class:`evalkit.Definitions` this metric reads (``threshold``, ``empty``,
        ``ties``, ...; the metric's card lists them: ``evalkit.metrics.definition_cards()``),
        overriding ``definitions``. Other fields and unknown names raise.
    """,
    returns="""
    MetricSeries
        Per-user values indexed by ``user_id``, with ``dropped``, ``n_users``, ``k``,
        ``definitions``, ``tied_users`` and ``users_without_recs`` (see
        :class:`~evalkit.metrics.MetricSeries`).
    """,
    raises="""
    ValueError, TypeError
        For missing columns, NaN or infinite scores, duplicate pairs or ranks, mismatched id
        types, ``k`` that is not a positive integer, or an unknown option. A field of
        :class:`evalkit.Definitions` the metric does not read raises
        :class:`evalkit.InvalidParameterError`, a subclass of both.
    """,
)
PER_USER_DOCS["parameters"] = "\n".join(
    PER_USER_DOCS[name] for name in ("truth_recs", "k", "train", "definitions", "options"))
