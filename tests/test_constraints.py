"""Every constrained public function refuses every value its declared constraints refuse,
before it runs, naming itself and the argument; and accepts its own defaults. The cases are
generated from the declarations (``evalkit._constraints``): a parameter constrained later is
tested here without a new test."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import evalkit
from evalkit import InvalidParameterError
from evalkit._constraints import CONSTRAINED, called_name

for _module in pkgutil.walk_packages(evalkit.__path__, "evalkit."):
    if not _module.name.startswith("evalkit.spark"):  # needs pyspark to import
        importlib.import_module(_module.name)

FUNCTIONS = sorted(CONSTRAINED, key=lambda f: (f.__module__, f.__qualname__))
CASES = [(f, arg, value) for f in FUNCTIONS for arg, c in f.constraints.items()
         for value in c.refused]
IDS = [f"{called_name(f)}-{a}-{v!r}" for f, a, v in CASES]


def test_the_public_functions_are_constrained() -> None:
    names = {called_name(f) for f in FUNCTIONS}
    assert {"evaluate", "rank", "ranking_curves", "ndcg_at_k", "novelty",
            "classification_scores", "rating_errors", "compare", "kfold_split", "EASE",
            "Recommender.recommend", "group_disparity", "exposure_share", "metric_at_k",
            "popularity_propensity", "recall_by_popularity", "findings",
            "download_movielens"} <= names
    assert len(CASES) > 100


@pytest.mark.parametrize("function, arg, value", CASES,
                         ids=IDS)
def test_a_refused_value_is_named_before_the_function_runs(function, arg, value) -> None:
    # the data arguments are left out: the constraint is checked before anything else
    with pytest.raises(InvalidParameterError) as caught:
        function(**{arg: value})
    message = str(caught.value)
    # a method is named by its class (EASE, EASE.recommend); a choice names its argument
    # as "unknown <arg> <value>; valid values are ..."
    assert message.startswith(f"{called_name(function)}: "), message
    assert f"'{arg}'" in message or f": unknown {arg} " in message, message


@pytest.mark.parametrize("function", FUNCTIONS, ids=called_name)
def test_the_defaults_meet_the_constraints(function) -> None:
    parameters = inspect.signature(function).parameters
    for arg, constraint in function.constraints.items():
        default = parameters[arg].default
        if default is not inspect.Parameter.empty:
            constraint.check(default, func=called_name(function), arg=arg)
