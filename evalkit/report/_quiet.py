"""The warnings a report page does not repeat: those whose facts the page shows in its own
tables. Each is named by the words evalkit gives it; every other warning (string ids that
match only after normalization, a 0/0 outside the places that show it as an empty cell)
still reaches the analyst."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager

from ..metrics import TieWarning

__all__ = ["shown_in_the_page"]

#: The messages of the warnings whose counts the pages show: users only in the lists (the run
#: card), test pairs without a prediction (the coverage table), recommended items outside the
#: catalogue, users a baseline falls back for (its description).
_SHOWN = (
    r".*user\(s\) appear only in 'recs'",
    r".*test rating\(s\) without a prediction",
    r".*recommended item\(s\) are not in",
    r".*have no positive training interaction",
)
#: The messages of undefined values that a table shows as an empty cell (NaN).
_UNDEFINED = (
    r".* is 0/0",
    r".*no test rating is relevant, so recall is 0/0",
    r".*no user has a pair of test items",
    r".*undefined \(",
)


@contextmanager
def shown_in_the_page(*, ties: bool = True, undefined: bool = False) -> Iterator[None]:
    """Leave out the warnings whose facts the page shows: the ones above, tied scores at a
    cutoff with ``ties`` (the ranking page's tie table), and undefined values shown as empty
    cells with ``undefined``."""
    with warnings.catch_warnings():
        for message in _SHOWN:
            warnings.filterwarnings("ignore", message=message)
        if ties:
            warnings.simplefilter("ignore", TieWarning)
        if undefined:
            for message in _UNDEFINED:
                warnings.filterwarnings("ignore", message=message, category=RuntimeWarning)
        yield
