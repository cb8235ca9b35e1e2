"""The docstring entries the beyond-accuracy metrics share (:func:`evalkit._docstrings.fill_doc`;
``definitions`` is written by :func:`evalkit.definitions.uses_definitions`, naming the options
each metric takes from it)."""

from __future__ import annotations

from ..._docstrings import fragments

BEYOND_DOCS = fragments(
    recs="""
    recs : pandas.DataFrame
        ``user_id, item_id`` and ``rank`` and/or ``score``.
    """,
    train="""
    train : pandas.DataFrame
        Training interactions ``user_id, item_id`` (other columns ignored).
    """,
    k="""
    k : int, default 10
        Cutoff of each user's list.
    """,
    tie_order="""
    tie_order : {"item", "item_desc", "item_str", "item_str_desc"}, default "item"
        With scores only, the order of tied scores, as under the ranking metrics'
        ``ties="deterministic"``; a :class:`~evalkit.metrics.TieWarning` counts the users
        whose tied scores straddle ``k``.
    """,
)
