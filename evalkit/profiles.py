"""Profiles: the :class:`~evalkit.Definitions` that reproduce another library's numbers.

The same recommendations get different numbers from different libraries.
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

from .definitions import PROFILES, Profile, check_covered, covers, profile

__all__ = ["PROFILES", "Profile", "check_covered", "covers", "profile"]
