"""The result of a per-user metric: its values, and what the computation left out.

A per-user metric (``ndcg_at_k``, ``mae_per_user``, ``spearman``, ``novelty``, ...) returns a
:class:`MetricSeries`: a pandas Series of per-user values indexed by ``user_id`` that also
carries, as attributes, the counts a reader needs to trust its mean (users dropped, by
reason; users evaluated) and the definitions that produced it. Arithmetic, selection and
reductions give plain pandas objects: the counts describe this result, not a value derived
from it, so they never travel into a filtered or rescaled Series where they would be false
(as pandas' ``attrs`` do).
"""

from __future__ import annotations

import pandas as pd

__all__ = ["MetricSeries"]

#: What a result may also record, None where it does not apply.
_INFO = ("k", "definitions", "tied_users", "users_without_recs")


class MetricSeries(pd.Series):
    """Per-user metric values (a ``pd.Series``), with what the computation left out.

    Everything a Series does works as usual; these attributes are added:

    Attributes
    ----------
    dropped : dict of str to int
        Users left out of the result, by reason (only reasons that occurred):
        ``"undefined"`` (the metric has no value for them, e.g. no relevant test item, and
        ``empty="drop"``), ``"no_prediction"`` (rating metrics: none of their test ratings
        has a prediction), ``"recs_only"`` (users of ``recs`` or ``predictions`` without test
        data; they are ignored, never scored).
    n_users : int
        Users with a value (not NaN): the users a mean of this Series counts.
    k : int or None
        The cutoff, for metrics at a cutoff.
    definitions : Definitions or None
        The definitions used, for the ranking metrics.
    tied_users : int or None
        Users whose tied scores straddle the cutoff (the tie policy decided), for the
        ranking metrics at a cutoff.
    users_without_recs : int or None
        Test users without any recommendation (they score 0), for the ranking metrics at a
        cutoff.

    Notes
    -----
    A value derived from the result (``s * 2``, ``s[s > 0]``, ``s.mean()``) is a plain pandas
    object without these attributes. ``pd.Series(s)`` is the values alone; compare a result
    with a plain Series by ``pd.testing.assert_series_equal(..., check_series_type=False)``
    (the default also compares the classes).

    Examples
    --------
    >>> from evalkit.metrics import recall_at_k
    >>> truth = pd.DataFrame({"user_id": [1, 2], "item_id": [10, 20], "rating": [5.0, 2.0]})
    >>> recs = pd.DataFrame({"user_id": [1, 2, 3], "item_id": [10, 30, 40], "rank": 1})
    >>> recall = recall_at_k(truth, recs, k=5, threshold=4.0, empty="drop")
    >>> recall.tolist(), recall.dropped, recall.n_users, recall.k
    ([1.0], {'recs_only': 1, 'undefined': 1}, 1, 5)
    >>> recall
    user_id
    1    1.0
    Name: recall, dtype: float64
    Users counted: 1; left out: 2 (recs_only 1, undefined 1)
    >>> type(recall * 2).__name__, "dropped" in dir(recall * 2)
    ('Series', False)
    """

    #: What the result carries beyond the values (pandas' own ``_name`` first).
    _metadata = [*pd.Series._metadata, "dropped", "n_users", *_INFO]

    @property
    def _constructor(self):
        return pd.Series

    @property
    def _constructor_expanddim(self):
        return pd.DataFrame

    @classmethod
    def of(cls, values: object, index: pd.Index, *, name: str, dropped: dict[str, int],
           n_users: int | None = None, dtype: object = None, **info: object) -> MetricSeries:
        """A :class:`MetricSeries` of ``values`` with what it carries: the users ``dropped``
        by reason, ``n_users`` (by default the values that are not NaN, one per user) and the
        optional attributes ``info`` (``k``, ``definitions``, ``tied_users``,
        ``users_without_recs``), as a metric of your own or a protocol returns its values.

        Parameters
        ----------
        values : array-like
            The per-user values.
        index : pandas.Index
            The users (``user_id``).
        name : str
            The metric's name.
        dropped : dict of str to int
            Users left out, by reason.
        n_users : int, optional
            Users counted; default: the values that are not NaN.
        dtype : dtype, optional
            As for :class:`pandas.Series`.
        **info
            The optional attributes ``k``, ``definitions``, ``tied_users`` and
            ``users_without_recs``; another name raises ``TypeError``.

        Examples
        --------
        >>> import pandas as pd
        >>> series = MetricSeries.of([0.5, float("nan")], pd.Index([1, 2], name="user_id"),
        ...                          name="mine", dropped={"undefined": 1}, k=10)
        >>> series.n_users, series.dropped, series.k
        (1, {'undefined': 1}, 10)
        """
        series = cls(values, index=index, name=name, dtype=dtype)
        series.dropped = dict(dropped)
        series.n_users = int(series.notna().sum()) if n_users is None else int(n_users)
        for attribute in _INFO:
            setattr(series, attribute, info.pop(attribute, None))
        if info:
            raise TypeError(f"MetricSeries.of: unknown attribute(s) {', '.join(sorted(info))}")
        return series

    def __repr__(self) -> str:
        text = super().__repr__()
        dropped = getattr(self, "dropped", None) or {}
        n_users = getattr(self, "n_users", None)
        counted = f"Users counted: {n_users:,}; " if n_users is not None else ""
        if dropped:
            parts = ", ".join(f"{reason} {n:,}" for reason, n in dropped.items())
            text += f"\n{counted}left out: {sum(dropped.values()):,} ({parts})"
        else:
            text += f"\n{counted}none left out"
        return text
