"""Train/test splits of interaction data, and an audit of their hazards.

Every strategy takes an interactions frame first (canonical columns ``user_id``, ``item_id``,
plus ``timestamp`` for the temporal ones) and options keyword-only, and returns a
:class:`Split` (``kfold_split`` returns one per fold). Output frames keep the input's columns,
dtypes, index labels and row order. Random strategies take ``rng`` (an int seed, a
``numpy.random.Generator`` or None): the same seed gives the same split, for the same rows in
any order (each row's random key is drawn in one order of the rows: each user's interactions in
time order, then by item and rating).

=====================  ==========================================================
``random``             :func:`random_split`, a global random fraction of rows
``user_ratio``         :func:`user_ratio_split`, a random fraction of every user
``user_temporal``      :func:`user_temporal_split`, the end of every user's history
``global_temporal``    :func:`global_temporal_split`, everything from a cutoff time
``kfold``              :func:`kfold_split`, k user-aware folds (:func:`kfold_folds`: the
                       same folds, each made when reached)
``train_dev_test``     :func:`train_dev_test_split`, with a dev set (80:10:10)
=====================  ==========================================================

:func:`audit` reports leakage and other hazards of any split.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from evalkit._checks import check_choice
from evalkit._constraints import SEED, constrained

from ._audit import audit
from ._base import Split
from ._random import (
    Folds,
    kfold_folds,
    kfold_split,
    random_split,
    train_dev_test_split,
    user_ratio_split,
)
from ._temporal import global_temporal_split, user_temporal_split

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "SPLITS",
    "Folds",
    "Split",
    "audit",
    "audit_many",
    "describe",
    "get_split_strategy",
    "global_temporal_split",
    "kfold_folds",
    "kfold_split",
    "random_split",
    "split_by",
    "train_dev_test_split",
    "user_ratio_split",
    "user_temporal_split",
]

#: Split strategies by name. ``kfold`` returns a list of splits, the others one :class:`Split`.
SPLITS: dict[str, Callable[..., Split | list[Split]]] = {
    "random": random_split,
    "user_ratio": user_ratio_split,
    "user_temporal": user_temporal_split,
    "global_temporal": global_temporal_split,
    "kfold": kfold_split,
    "train_dev_test": train_dev_test_split,
}


def get_split_strategy(name: str) -> Callable[..., Split | list[Split]]:
    """Return the split function registered under ``name`` in :data:`SPLITS`.

    Parameters
    ----------
    name : str
        One of the keys of :data:`SPLITS`.

    Returns
    -------
    callable
        The strategy; call it with the data and that strategy's own keyword options.

    Raises
    ------
    ValueError
        For an unknown name; the message lists the valid ones.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalkit.split import get_split_strategy
    >>> data = pd.DataFrame({"user_id": [1, 1, 1, 1, 1], "item_id": [1, 2, 3, 4, 5]})
    >>> get_split_strategy("user_ratio")(data, test_fraction=0.4, rng=0)
    Split(strategy='user_ratio', train=3 rows, test=2 rows, test_fraction=0.4, min_train=1, seed=0)
    """
    return SPLITS[check_choice(name, func="get_split_strategy", arg="strategy", choices=SPLITS)]


@constrained(rng=SEED)  # here, not in the strategy (a temporal one ignores it)
def split_by(
    data,
    strategy: str,
    *,
    test_fraction: float = 0.2,
    rng: int | None = None,
) -> Split:
    """One train/test split by strategy name, with a test fraction: what a notebook parameter
    such as ``SPLIT = "user_temporal"`` needs.

    Parameters
    ----------
    data : pd.DataFrame
        Interactions (``timestamp`` needed by the temporal strategies).
    strategy : {"random", "user_ratio", "user_temporal", "global_temporal", "train_dev_test"}
        The strategy; ``train_dev_test`` splits ``1 - 2 f : f : f`` and keeps the dev set.
        For k folds call :func:`kfold_split`.
    test_fraction : float, default 0.2
        Share of interactions (of each user's, for the per-user strategies) held out.
    rng : int or None
        Seed of the random strategies (ignored by the temporal ones).

    Returns
    -------
    Split
        The train and test interactions (and the dev set for ``train_dev_test``).

    Examples
    --------
    >>> import pandas as pd
    >>> data = pd.DataFrame({"user_id": [1] * 5, "item_id": range(5), "timestamp": range(5)})
    >>> split_by(data, "user_temporal", test_fraction=0.4).test["item_id"].tolist()
    [3, 4]
    """
    func = "split_by"
    names = [name for name in SPLITS if name != "kfold"]
    check_choice(strategy, func=func, arg="strategy", choices=names)
    if strategy == "user_temporal":
        return user_temporal_split(data, test_fraction=test_fraction)
    if strategy == "global_temporal":
        return global_temporal_split(data, test_fraction=test_fraction)
    if strategy == "train_dev_test":
        return train_dev_test_split(
            data, fractions=(1 - 2 * test_fraction, test_fraction, test_fraction), rng=rng
        )
    return SPLITS[strategy](data, test_fraction=test_fraction, rng=rng)



def audit_many(splits: dict, *, audits: dict | None = None) -> pd.DataFrame:
    """The :func:`audit` of several splits side by side: one row per check, one column per
    split, each cell ``count (severity)``. ``audits`` (name -> :func:`audit` result) gives
    audits already computed, which are not computed again.

    Parameters
    ----------
    splits : dict of str to Split
        The splits by name.
    audits : dict of str to pandas.DataFrame, optional
        Audits already computed, by split name.

    Examples
    --------
    >>> import pandas as pd
    >>> data = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [1, 2, 1, 3]})
    >>> table = audit_many({"random": random_split(data, test_fraction=0.5, rng=0)})
    >>> table.loc["test_pairs_in_train", "random"]
    '0 (ok)'
    """
    import pandas as pd

    columns, audits = {}, audits or {}
    for name, split in splits.items():  # one audit per split
        found = audits.get(name)
        table = (audit(split) if found is None else found).set_index("check")
        columns[name] = table["count"].astype(str) + " (" + table["severity"] + ")"
    out = pd.DataFrame(columns)
    out.index.name = "check"
    return out


def describe(splits: dict) -> pd.DataFrame:
    """Sizes of several splits side by side: rows, users and items of train and test, the test
    share, and the dev rows where there is a dev set.

    Parameters
    ----------
    splits : dict of str to Split
        The splits by name.

    Examples
    --------
    >>> import pandas as pd
    >>> data = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [1, 2, 1, 3]})
    >>> describe({"random": random_split(data, test_fraction=0.5, rng=0)})["random"].tolist()
    [2, 2, 0.5, 2, 2, 2, 1, 0]
    """
    import pandas as pd

    rows = {}
    for name, split in splits.items():  # one row of counts per split
        total = len(split.train) + len(split.test) + (0 if split.dev is None else len(split.dev))
        rows[name] = {
            "train rows": len(split.train),
            "test rows": len(split.test),
            "test share": round(len(split.test) / total, 4) if total else float("nan"),
            "train users": split.train["user_id"].nunique(),
            "test users": split.test["user_id"].nunique(),
            "train items": split.train["item_id"].nunique(),
            "test items": split.test["item_id"].nunique(),
            "dev rows": 0 if split.dev is None else len(split.dev),
        }
    return pd.DataFrame({name: pd.Series(row, dtype=object) for name, row in rows.items()})
