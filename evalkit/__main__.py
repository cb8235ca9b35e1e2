"""``python -m evalkit``: see :mod:`evalkit.cli`."""

from __future__ import annotations

import sys

from evalkit.cli import main

if __name__ == "__main__":
    sys.exit(main())
