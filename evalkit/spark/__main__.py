"""``python -m evalkit.spark``: say whether Spark can run here and, when it can, record the
archive of Spark's JVM classes now (see :mod:`evalkit.spark._classes`) rather than at the end
of the first session, so that the first report's session starts as fast as the later ones."""

from __future__ import annotations

import sys

from ._session import missing, record


def main() -> int:
    reason = missing()
    if reason:
        print(f"evalkit.spark: Spark cannot run here: {reason}")
        return 0
    try:
        path = record()
    except RuntimeError as error:
        print(f"evalkit.spark: Spark's class archive was not recorded ({error}); sessions "
              "start without it")
        return 0
    print(f"evalkit.spark: Spark runs here; its class archive is {path}" if path else
          "evalkit.spark: Spark runs here; no class archive (turned off by "
          "EVALKIT_SPARK_CLASSES, or another session is recording it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
