"""The splitting page: the strategies run on the report's data (on a sample of users above a size),
their audits and the test users by activity."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from .._constraints import POSITIVE_INT, constrained, optional
from ..segments import user_activity_bins
from ..split import audit, audit_many, split_by
from ._params import ParameterError

__all__ = ["SPLIT_SAMPLE_ROWS", "Splits", "make_splits", "test_users_by_activity"]


#: Interactions beyond which the splitting page's strategies split a sample of users.
SPLIT_SAMPLE_ROWS = 5_000_000


class Splits(dict):
    """The splits the splitting page compares, by name (a dict), with each one's audit
    computed once (:meth:`audit`, :meth:`audit_table`) and ``sample``: None, or how the
    strategies' splits were made from a sample of users (``users``, ``of_users``, ``rows``,
    ``of_rows``, ``max_rows``).

    Parameters
    ----------
    *args, **kwargs
        As for :class:`dict`: the splits (:class:`evalkit.split.Split`) by name.
    sample : dict or None, default None
        How the strategies' splits were made from a sample of users, or None.
    """

    def __init__(self, *args: object, sample: dict | None = None, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.sample = sample
        self._audits: dict[str, pd.DataFrame] = {}
        #: where a split's audit is already kept (the analyst's split: the report run's)
        self._audited: dict[str, Callable[[], pd.DataFrame]] = {}

    def audit(self, name: str) -> pd.DataFrame:
        """:func:`evalkit.split.audit` of split ``name``, computed on first use.

        Parameters
        ----------
        name : str
            The split's name.
        """

        if name not in self._audits:
            kept = self._audited.get(name)
            self._audits[name] = kept() if kept is not None else audit(self[name])
        return self._audits[name]

    def audit_table(self) -> pd.DataFrame:
        """:func:`evalkit.split.audit_many` of these splits, from the audits computed once."""

        return audit_many(self, audits={name: self.audit(name) for name in self})


def _user_sample(ratings: pd.DataFrame, max_rows: int, seed: int) -> tuple[pd.DataFrame, dict]:
    """A seeded sample of users whose interactions number about ``max_rows`` (every
    interaction of each user drawn), and its description."""
    users = pd.unique(ratings["user_id"])
    n = max(1, round(len(users) * max_rows / len(ratings)))
    chosen = np.random.default_rng(seed).choice(len(users), size=n, replace=False)
    sample = ratings[ratings["user_id"].isin(users[np.sort(chosen)])]
    return sample, {"users": int(n), "of_users": len(users), "rows": len(sample),
                    "of_rows": len(ratings), "max_rows": max_rows}


@constrained(max_rows=optional(POSITIVE_INT))
def make_splits(inputs, strategies: Sequence[str], *, test_fraction: float = 0.2,
                seed: int = 0, max_rows: int | None = SPLIT_SAMPLE_ROWS) -> Splits:
    """The splits the splitting report compares: the analyst's own (``"given"``), if any,
    then one per strategy in ``strategies`` (``STRATEGIES``).

    Parameters
    ----------
    inputs : ReportInputs
        From :func:`load_inputs`.
    strategies : sequence of str
        Strategies of :func:`evalkit.split.split_by`.
    test_fraction : float, default 0.2
        ``TEST_FRACTION``.
    seed : int, default 0
        Seed of the strategies (and of the sample of users).
    max_rows : int or None, default 5,000,000 (:data:`SPLIT_SAMPLE_ROWS`)
        Beyond this many interactions, the strategies split a seeded sample of users (every
        interaction of each one) holding about ``max_rows`` interactions: the page compares
        strategies, which a sample of users shows as well, at a fraction of the time and
        memory (four splits of MovieLens-25M are four copies of it). The analyst's own split
        is audited whole. ``Splits.sample`` says what was drawn, and :func:`split_findings`
        states it. None: never sample.

    Returns
    -------
    Splits
        A dict of name -> :class:`evalkit.split.Split`, each audited once.

    Raises
    ------
    ParameterError
        When there is nothing to compare, or a temporal strategy meets data without
        timestamps.
    """

    splits = Splits() if inputs.split is None else Splits({"given": inputs.split})
    if inputs.split is not None:  # audited once per report run, for every page
        splits._audited["given"] = inputs.audit
    temporal = [s for s in strategies if s in ("user_temporal", "global_temporal")]
    if temporal and not inputs.has_timestamps:
        raise ParameterError(
            f"parameter STRATEGIES names {', '.join(temporal)}, which need timestamps, and "
            f"{inputs.name} has no timestamp column; remove them from STRATEGIES."
        )
    if not strategies and not splits:
        raise ParameterError("parameter STRATEGIES is empty and no TRAIN/TEST is given: "
                             "there is no split to show.")
    ratings = inputs.ratings if strategies else None
    if strategies and max_rows is not None and len(ratings) > max_rows:
        ratings, splits.sample = _user_sample(ratings, max_rows, seed)
    for name in strategies:
        splits[name] = split_by(ratings, name, test_fraction=test_fraction, rng=seed)
    return splits


def test_users_by_activity(splits: Mapping[str, object]) -> pd.DataFrame:
    """Test users by their number of training interactions (activity bins), one column per
    split.

    Parameters
    ----------
    splits : mapping of str to evalkit.split.Split
        The splits by name (:func:`make_splits`); a :class:`Splits` gives its audits, computed
        once.
    """

    return pd.DataFrame({
        name: user_activity_bins(split.train, users=split.test["user_id"].unique())
        .value_counts().sort_index()
        for name, split in splits.items()
    }).fillna(0).astype(int)
