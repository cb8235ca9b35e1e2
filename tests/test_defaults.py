"""The defaults a docstring states are the defaults in force: each decision function called
without an argument gives exactly what it gives with the documented value written out (a
changed default, a seed or a number of resamples, changes the numbers)."""

from __future__ import annotations

import ast
import inspect
import re

import numpy as np
import pandas as pd
import pytest

import evalkit as ek
from evalkit import stats

_PARAM = re.compile(r"^    (\w+(?:, \w+)*) : .*\bdefault (.+)$")
_INLINE = re.compile(r"``(\w+)``[^(`]*\(default ([^)]+)\)")


def documented_defaults(func) -> dict:
    """``name : type, default value`` lines of a numpydoc Parameters section, ``name`` ...
    ``(default value)`` in the prose, and for "Parameters are as for :func:`power`" the
    defaults :func:`power` documents for the parameters this function has."""
    doc = inspect.getdoc(func) or ""
    found = {}
    if ":func:`power`" in doc:
        found.update({name: value for name, value in documented_defaults(stats.power).items()
                      if name in inspect.signature(func).parameters})
    for line in doc.splitlines():
        match = _PARAM.match("    " + line)
        if match:
            for name in match[1].split(", "):
                found[name] = ast.literal_eval(match[2].strip())
    for name, value in _INLINE.findall(doc):
        found[name] = ast.literal_eval(value)
    return found


_RNG = np.random.default_rng(0)
_A, _B = _RNG.random(40), _RNG.random(40)
_DIFFS = _A - _B
_FRAME = pd.DataFrame({"a": _A, "b": _B})


def _runs():
    truth = pd.DataFrame({"user_id": np.repeat(np.arange(30), 3),
                          "item_id": _RNG.integers(0, 12, 90), "rating": 5.0}
                         ).drop_duplicates(["user_id", "item_id"])

    def lists():
        items = np.argsort(_RNG.random((30, 12)), axis=1)[:, :5]
        return pd.DataFrame({"user_id": np.repeat(np.arange(30), 5), "item_id": items.ravel(),
                             "rank": np.tile(np.arange(1, 6), 30)})

    return [ek.evaluate(truth, lists(), k=5, metrics=["ndcg", "precision"], n_resamples=0)
            for _ in range(2)]


_NOW, _THEN = _runs()

# each function's calls: its positional arguments, and variants with fixed keywords where a
# default only matters for another method or test
CALLS = {
    stats.bootstrap_ci: [(lambda f, **kw: f(_A, **kw), {})],
    stats.bootstrap_ci_frame: [(lambda f, **kw: f(_FRAME, **kw), {})],
    stats.paired_tests: [(lambda f, **kw: f(_A, _B, **kw), {})],
    stats.power: [(lambda f, **kw: f(0.05, **kw), {"diffs": _DIFFS}),
                  (lambda f, **kw: f(0.05, **kw), {"diffs": _DIFFS, "method": "simulation"})],
    stats.mde: [(lambda f, **kw: f(_DIFFS, **kw), {}),
                (lambda f, **kw: f(_DIFFS, **kw), {"method": "simulation",
                                                   "test": "randomization"})],
    stats.required_users: [(lambda f, **kw: f(0.05, **kw), {"diffs": _DIFFS}),
                           (lambda f, **kw: f(0.5, **kw), {"sd": 1.0, "max_users": 33})],
    stats.power_curve: [(lambda f, **kw: f(_DIFFS, **kw), {})],
    ek.regression_check: [(lambda f, **kw: f(_NOW, _THEN, **kw).table, {"test": test})
                          for test in ("t", "randomization", "bootstrap")],
}


def _result(call, func, **kwargs):
    call, fixed = call
    try:
        return call(func, **fixed, **kwargs)
    except ValueError as error:  # a refusal is a result too (max_users)
        return str(error)


def _same(x, y) -> bool:
    if isinstance(x, pd.DataFrame) and isinstance(y, pd.DataFrame):
        return x.equals(y)
    if isinstance(x, dict) and isinstance(y, dict):
        return x.keys() == y.keys() and np.array_equal(list(x.values()), list(y.values()),
                                                       equal_nan=True)
    if isinstance(x, str) or isinstance(y, str):
        return x == y
    return np.array_equal(x, y, equal_nan=True)


@pytest.mark.parametrize("func", list(CALLS), ids=lambda f: f.__name__)
def test_the_documented_defaults_are_in_force(func) -> None:
    documented = documented_defaults(func)
    signature = inspect.signature(func).parameters
    defaulted = {name for name, p in signature.items()
                 if p.default is not inspect.Parameter.empty and p.default is not None}
    assert defaulted <= documented.keys(), f"undocumented: {defaulted - documented.keys()}"
    for name, value in documented.items():
        assert signature[name].default == value, name
    changed = set()
    for call in CALLS[func]:
        given = {name: value for name, value in documented.items() if name not in call[1]}
        plain = _result(call, func)
        assert _same(plain, _result(call, func, **given))
        # and each number matters somewhere: another value changes the result
        for name, value in given.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                other = (2 * value or 1) if isinstance(value, int) else value * 0.9
                if not _same(plain, _result(call, func, **{name: other})):
                    changed.add(name)
    numbers = {name for name, value in documented.items()  # (a limit: not reached here)
               if isinstance(value, (int, float)) and not isinstance(value, bool)
               and name != "max_users"}
    assert changed == numbers, f"no call shows the default of {numbers - changed}"
