"""Checks shared by the segment functions."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._checks import check_columns, check_ids


def check_interactions(frame: object, *, func: str, arg: str, column: str) -> pd.DataFrame:
    """A DataFrame whose ``column`` holds usable ids (see :func:`evalkit._checks.check_ids`)."""
    frame = check_columns(frame, func=func, arg=arg, required=(column,))
    check_ids(frame, func=func, arg=arg, columns=(column,))
    return frame


def plain(value: object) -> object:
    """A numpy scalar as the Python scalar it holds, for readable messages."""
    return value.item() if isinstance(value, np.generic) else value
