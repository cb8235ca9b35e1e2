"""Helpers shared by the segment functions."""

from __future__ import annotations

import numpy as np


def plain(value: object) -> object:
    """A numpy scalar as the Python scalar it holds, for readable messages."""
    return value.item() if isinstance(value, np.generic) else value
