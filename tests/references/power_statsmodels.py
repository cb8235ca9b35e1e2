"""Power, minimum detectable effect and users needed of the one-sample (paired) t-test, from
statsmodels' ``TTestPower``: the reference ``tests/test_power.py`` pins evalkit.stats to.

Run in an environment with statsmodels (not evalkit's: nothing of evalkit is imported):

    python -m venv /tmp/sm && /tmp/sm/bin/pip install statsmodels
    /tmp/sm/bin/python tests/references/power_statsmodels.py

It writes ``fixtures/power_statsmodels.json``. ``TTestPower`` is the t-test of one sample of
``nobs`` values (the paired differences), ``df = nobs - 1``, noncentrality ``d sqrt(nobs)``
with ``d = effect / sd``; its two-sided power counts both tails, as evalkit's does. The grid
holds small samples on purpose: there a wrong degree of freedom moves every number.
"""

from __future__ import annotations

import json
import math
import platform
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path = [p for p in sys.path if Path(p or ".").resolve() != HERE]  # not this folder

import statsmodels  # noqa: E402
from statsmodels.stats.power import TTestPower  # noqa: E402

#: evalkit's names of the alternatives -> statsmodels'
ALTERNATIVES = {"two-sided": "two-sided", "greater": "larger", "less": "smaller"}


def main() -> None:
    solver = TTestPower()
    power, mde, users = [], [], []
    for alternative, theirs in ALTERNATIVES.items():
        sign = -1.0 if alternative == "less" else 1.0
        for alpha in (0.05, 0.01):
            for n in (3, 5, 8, 12, 30, 200):
                for d in (0.3, 0.8, 1.5):
                    value = float(solver.power(effect_size=sign * d, nobs=n, alpha=alpha,
                                               alternative=theirs))
                    if math.isfinite(value):  # statsmodels gives NaN where power is ~1
                        power.append({"effect": sign * d, "n": n, "alpha": alpha,
                                      "alternative": alternative, "power": value})
                for target in (0.5, 0.8, 0.9):
                    try:
                        found = solver.solve_power(effect_size=None, nobs=n, alpha=alpha,
                                                   power=target, alternative=theirs)
                    except ValueError:  # out of reach of statsmodels' root finder
                        continue
                    found = float(found.item() if hasattr(found, "item") else found)
                    reached = solver.power(effect_size=found, nobs=n, alpha=alpha,
                                           alternative=theirs)
                    if abs(reached - target) > 1e-8:  # not converged: not a reference
                        continue
                    mde.append({"n": n, "alpha": alpha, "power": target,
                                "alternative": alternative,
                                "mde": abs(found)})
            for d in (0.2, 0.5, 1.0, 2.0):
                for target in (0.8, 0.9):
                    found = solver.solve_power(effect_size=sign * d, nobs=None, alpha=alpha,
                                               power=target, alternative=theirs)
                    found = float(found.item() if hasattr(found, "item") else found)
                    reached = solver.power(effect_size=sign * d, nobs=found, alpha=alpha,
                                           alternative=theirs)
                    if abs(reached - target) > 1e-8:  # not converged: not a reference
                        continue
                    users.append({"effect": sign * d, "alpha": alpha, "power": target,
                                  "alternative": alternative,
                                  "nobs": found})
    out = {"library": "statsmodels", "version": statsmodels.__version__,
           "python": platform.python_version(),
           "call": "statsmodels.stats.power.TTestPower().power / .solve_power",
           "power": power, "mde": mde, "users": users}
    target = HERE / "fixtures" / "power_statsmodels.json"
    target.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {target}: {len(power)} powers, {len(mde)} MDEs, {len(users)} user counts")


if __name__ == "__main__":
    main()
