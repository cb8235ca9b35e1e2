"""The notebook parameters: one registry of what each parameter means and accepts.

Every notebook's ``parameters`` cell declares a subset of :data:`PARAMETERS`, with the same
meaning in its comment (a test checks this), so ``papermill --help-notebook``,
``evalkit report --list-parameters`` and the checks below agree. :func:`check_parameters`
runs in each notebook's first cell: a bad value stops the notebook there, with a message
naming the parameter, instead of failing deep in a later cell.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = ["PARAMETERS", "Parameter", "ParameterError", "check_parameters"]


class ParameterError(ValueError):
    """A notebook parameter has a value the notebook cannot use; the message names it."""


@dataclass(frozen=True)
class Parameter:
    """A notebook parameter: its type as written in the parameters cell, and its meaning.

    Attributes
    ----------
    type : str
        Its type as written in the parameters cell (``"int"``, ``"list"``, ...).
    meaning : str
        What it means.
    check : callable
        ``check(name, value)``: the value normalized, or :class:`ParameterError` naming the
        parameter and the rule.
    """

    type: str
    meaning: str
    check: Callable[[str, object], object]


def _fail(name: str, rule: str, value: object) -> ParameterError:
    return ParameterError(f"parameter {name} must be {rule}; got {value!r}.")


def _str(name: str, value: object) -> str:
    if not isinstance(value, str) or not value:
        raise _fail(name, "a non-empty string", value)
    return value


def _optional_file(name: str, value: object) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise _fail(name, "a file path (a string) or None", value)
    if not Path(value).expanduser().is_file():
        raise ParameterError(f"parameter {name} names no file: '{value}' does not exist.")
    return value


def _int(name: str, value: object, *, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise _fail(name, f"an integer >= {low}", value)
    return int(value)


def _positive_int(name: str, value: object) -> int:
    return _int(name, value, low=1)


def _seed(name: str, value: object) -> int:
    return _int(name, value, low=0)


def _fraction(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < value < 0.5:
        raise _fail(name, "a number between 0 and 0.5 (exclusive)", value)
    return float(value)


def _threshold(name: str, value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or value != value:
        raise _fail(name, "a number or None (every test item relevant)", value)
    return float(value)


def _list_of(name: str, value: object, item: Callable[[str, object], object], *,
             what: str, empty: bool) -> list:
    if not isinstance(value, (list, tuple)) or (not empty and not value):
        raise _fail(name, f"a {'' if empty else 'non-empty '}list of {what}", value)
    out = [item(f"{name}[{i}]", v) for i, v in enumerate(value)]
    if len(set(map(repr, out))) != len(out):
        raise _fail(name, f"a list of distinct {what}", value)
    return out


def _ks(name: str, value: object) -> list[int]:
    return _list_of(name, value, _positive_int, what="positive integers", empty=False)


def _thresholds(name: str, value: object) -> list[float]:
    return _list_of(name, value, _threshold, what="numbers", empty=False)


def _choices(options: Callable[[], Mapping | list]) -> Callable[[str, object], str]:
    def check(name: str, value: object) -> str:
        valid = list(options())
        if value not in valid:
            raise ParameterError(
                f"parameter {name} must be one of {', '.join(map(repr, valid))}; got {value!r}."
            )
        return value  # type: ignore[return-value]

    return check


def _baseline_names() -> list[str]:
    from ..models import MODELS

    return list(MODELS)


def _rating_baseline_names() -> list[str]:
    from ..models import RATING_BASELINES

    return list(RATING_BASELINES)


def _split_names() -> list[str]:
    from ..split import SPLITS

    return [name for name in SPLITS if name != "kfold"]


def _metric(name: str, value: object) -> str:
    """A ranking metric by registry name or by the label tables print (``"ndcg"`` or
    ``"NDCG"``, case-sensitive; :func:`evalkit.metrics.get_metric`), as its registry name."""
    from ..metrics import RANKING_METRICS, get_metric

    try:
        return get_metric(value, func=f"parameter {name}", choices=RANKING_METRICS).name
    except ValueError as error:
        raise ParameterError(str(error)) from None


def _metrics(name: str, value: object) -> list[str]:
    return _list_of(name, value, _metric, what="metrics", empty=False)


def _names(choices: Callable[[], Mapping | list], *, empty: bool) -> Callable[[str, object], list]:
    def check(name: str, value: object) -> list:
        return _list_of(name, value, _choices(choices), what="names", empty=empty)

    return check


def _files(name: str, value: object) -> dict[str, str]:
    if not isinstance(value, Mapping):
        raise _fail(name, "a mapping of system name to file path", value)
    out = {}
    for system, path in value.items():
        if not isinstance(system, str) or not system.strip():
            raise _fail(name, "a mapping whose keys are non-empty system names", value)
        checked = _optional_file(f"{name}[{system!r}]", path)
        if checked is None:
            raise _fail(f"{name}[{system!r}]", "a file path", path)
        out[system] = checked
    return out


#: The names a column of the analyst's files can be mapped to (COLUMNS).
COLUMN_TARGETS = ("user_id", "item_id", "rating", "timestamp", "score", "rank", "prediction")


def _columns(name: str, value: object) -> dict[str, str]:
    if not isinstance(value, Mapping) or not all(isinstance(k, str) and k for k in value):
        raise _fail(name, "a mapping of your column names to evalkit's", value)
    for source, target in value.items():
        if target not in COLUMN_TARGETS:
            raise ParameterError(
                f"parameter {name} maps {source!r} to {target!r}, which is not a column "
                f"evalkit reads; the targets are {', '.join(COLUMN_TARGETS)}."
            )
    return dict(value)


def _optional_str(name: str, value: object) -> str | None:
    return None if value is None else _str(name, value)


def _profile_names() -> list[str]:
    from ..profiles import PROFILES

    return list(PROFILES)


def _profile(name: str, value: object) -> str | None:
    return None if value is None else _choices(_profile_names)(name, value)


def _alpha(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < value < 1:
        raise _fail(name, "a number between 0 and 1 (exclusive)", value)
    return float(value)


#: A URI that Spark reads (s3://, hdfs://, file:///...): passed on without a local check.
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def _parquet(name: str, value: object) -> str:
    """A Spark path: "" (none), a URI such as ``s3://...`` (not checked here), or a local
    Parquet file or folder that exists."""
    if value is None or value == "":
        return ""
    if not isinstance(value, str):
        raise _fail(name, 'a path (a string) or "" (none)', value)
    if _URI.match(value):
        return value
    if not Path(value).expanduser().exists():
        raise ParameterError(f"parameter {name} names no Parquet file or folder: '{value}' "
                             "does not exist.")
    return value


def _bool(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise _fail(name, "True or False", value)
    return value


def _headline(name: str, value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.endswith(".json"):
        raise _fail(name, "None or the path of a .json file", value)
    return value


def _saved_run(name: str, value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise _fail(name, "None or the folder of a saved run", value)
    if not (Path(value).expanduser() / "run.json").is_file():
        raise ParameterError(
            f"parameter {name} must be the folder of a saved run (Evaluation.save, evalkit "
            f"evaluate --save, or a report's runs/NAME); '{value}' holds no run.json.")
    return value


def _runs_dir(name: str, value: object) -> str | None:
    if value is not None and not isinstance(value, str):
        raise _fail(name, "None or a folder path", value)
    return value


def _margin(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value >= 0 \
            or not math.isfinite(value):
        raise _fail(name, "a number >= 0", value)
    return float(value)


#: Every notebook parameter, by name. The notebooks' parameter comments repeat ``meaning``.
PARAMETERS: dict[str, Parameter] = {
    "DATASET": Parameter(
        "str", '"sample", a MovieLens name, a path, or a train/test folder', _str),
    "SEED": Parameter("int", "seed of the sample, the split, the baselines and the bootstrap",
                      _seed),
    "TRAIN": Parameter("Optional[str]", "your training interactions (CSV/Parquet), with TEST",
                       _optional_file),
    "TEST": Parameter("Optional[str]", "your test interactions (CSV/Parquet), with TRAIN",
                      _optional_file),
    "COLUMNS": Parameter("dict", "your files' column names -> evalkit's, e.g. "
                         '{"uid": "user_id"}', _columns),
    "ITEMS": Parameter("Optional[str]", "item table (item_id, title, genres); default: the "
                       "dataset's", _optional_file),
    "SPLIT": Parameter("str", "split strategy when TRAIN/TEST are not given",
                       _choices(_split_names)),
    "STRATEGIES": Parameter("list", "split strategies to compare",
                            _names(_split_names, empty=True)),
    "TEST_FRACTION": Parameter(
        "float", "share of interactions (per user for per-user splits) held out", _fraction),
    "RECS": Parameter("dict", "your systems: name -> recommendations file (rank and/or score)",
                      _files),
    "BASELINES": Parameter("list", "evalkit baselines evaluated beside RECS",
                           _names(_baseline_names, empty=True)),
    "PREDICTIONS": Parameter(
        "dict", "your rating predictions: name -> file (user_id, item_id, prediction)", _files),
    "RATING_BASELINES": Parameter("list", "rating baselines evaluated beside PREDICTIONS",
                                  _names(_rating_baseline_names, empty=True)),
    "K": Parameter("int", "cutoff k of the single-k views (the list length scored there)",
                   _positive_int),
    "K_VALUES": Parameter("list", "cutoffs of the summary tables", _ks),
    "K_MAX": Parameter("int", "largest k of the curves; length of the baselines' lists",
                       _positive_int),
    "THRESHOLD": Parameter("Optional[float]", "relevant when the test rating is at least this; "
                           "None: all are", _threshold),
    "THRESHOLDS": Parameter("list", "relevance thresholds compared in the table", _thresholds),
    "METRIC": Parameter("str", "metric of the per-user, by-segment, comparison and trade-off "
                        "charts", _metric),
    "METRICS": Parameter("list", "ranking metrics compared", _metrics),
    "FOLDS": Parameter("int", "user-aware cross-validation folds (at least 2)",
                       lambda n, v: _int(n, v, low=2)),
    "ALPHA": Parameter("float", "family-wise significance level after the Holm correction",
                       _alpha),
    "REFERENCE": Parameter("Optional[str]", "system the others are compared with; None: "
                           "every pair", _optional_str),
    "PROFILE": Parameter("Optional[str]", "another library's definitions (evalkit.PROFILES); "
                         "None: evalkit's", _profile),
    "TRUTH_PARQUET": Parameter("str", 'test interactions as Parquet (a Spark path); "": made '
                               "from the data", _parquet),
    "RECS_PARQUET": Parameter("str", "recommendations as Parquet (a Spark path), given with "
                              "TRUTH_PARQUET", _parquet),
    "SPARK_MASTER": Parameter("str", "Spark master: local[n] runs here, or a cluster's URL",
                              _str),
    "PARTITIONS": Parameter("int", "buckets of users, one Spark task each (results do not "
                            "depend on it)", _positive_int),
    "CHECK_IN_MEMORY": Parameter("bool", "also evaluate in memory (collects the data) and "
                                 "compare", _bool),
    "HEADLINE_PATH": Parameter("Optional[str]", "headline-number JSON (set by the runner); "
                               "None: no file", _headline),
    "RUNS_DIR": Parameter("Optional[str]", "folder of the systems' saved runs (set by the "
                          "runner)", _runs_dir),
    "BASELINE_RUN": Parameter("Optional[str]", "saved run each system is checked against; "
                              "None: none", _saved_run),
    "MARGIN": Parameter("float", "loss the regression check accepts (metric units)", _margin),
    "USERS": Parameter("Optional[str]", "user attributes file (user_id, gender, ...); "
                       "default: the dataset's", _optional_file),
    "USER_GROUP": Parameter("Optional[str]", "user attribute of the groups; None: gender, or "
                            "the first", _optional_str),
    "SAMPLED_NEGATIVES": Parameter("int", "negatives per held-out item, sampled protocol; "
                                   "0: no protocol check",
                                   lambda n, v: _int(n, v, low=0)),
    "SAMPLED_SCHEMES": Parameter("list", "how the sampled negatives are drawn",
                                 _names(lambda: ["uniform", "popularity"], empty=False)),
}


def check_parameters(namespace: Mapping[str, object] | None = None, /, *,
                     needs: tuple[str, ...] | list[str] = (),
                     **values: object) -> dict[str, object]:
    """Check notebook parameter values; return them normalized.

    Each keyword is a parameter of :data:`PARAMETERS` (``check_parameters(K_VALUES=[5, 10])``).
    A notebook passes its namespace instead, ``check_parameters(globals())``: every name in it
    that is a parameter is checked. ``needs`` names parameters that this notebook cannot take
    as None (``needs=["THRESHOLD"]``).
    Besides each parameter's own rule, the rules between parameters are checked: ``TRAIN``
    and ``TEST`` come together, and so do ``TRUTH_PARQUET`` and ``RECS_PARQUET``; ``K_MAX``
    is at least every cutoff; the systems of ``RECS`` and ``BASELINES`` (or ``PREDICTIONS``
    and ``RATING_BASELINES``) are at least one and have distinct names; ``REFERENCE`` names
    one of them. ``METRIC`` and ``METRICS`` take registry names or labels (``"NDCG"``) and
    are returned as registry names (``"ndcg"``), which :func:`evalkit.report.run_reports`
    passes the notebooks.

    Parameters
    ----------
    namespace : mapping of str to object, optional
        A notebook's namespace (``globals()``): every name in it that is a parameter is checked.
    needs : sequence of str, default ()
        The parameters this notebook cannot take as None.
    **values
        Parameters by name (``K_VALUES=[5, 10]``), taken over those of ``namespace``.

    Raises
    ------
    ParameterError
        Naming the parameter, the rule and the value received.

    Examples
    --------
    >>> check_parameters(K_VALUES=[5, 10], K_MAX=20)["K_VALUES"]
    [5, 10]
    >>> check_parameters(K_VALUES=[5, 50], K_MAX=20)
    Traceback (most recent call last):
    ...
    evalkit.report._params.ParameterError: parameter K_MAX must be at least the largest cutoff
    (K_VALUES, K), 50; got 20.
    """
    if namespace is not None:
        values = {k: v for k, v in namespace.items() if k in PARAMETERS} | values
    out: dict[str, object] = {}
    for name, value in values.items():
        if name not in PARAMETERS:
            raise ParameterError(
                f"check_parameters: unknown parameter {name!r}; known: {', '.join(PARAMETERS)}."
            )
        out[name] = PARAMETERS[name].check(name, value)
    for name in needs:
        if out.get(name) is None:
            raise ParameterError(f"parameter {name} must be given (not None) in this report.")
    if ("TRAIN" in out or "TEST" in out) and \
            (out.get("TRAIN") is None) != (out.get("TEST") is None):
        given, other = ("TRAIN", "TEST") if out.get("TRAIN") is not None else ("TEST", "TRAIN")
        raise ParameterError(f"parameter {other} must be given with {given} (your own split); "
                             f"got {given}={out[given]!r} and {other}=None.")
    if ("TRUTH_PARQUET" in out or "RECS_PARQUET" in out) and \
            bool(out.get("TRUTH_PARQUET")) != bool(out.get("RECS_PARQUET")):
        given, other = (("TRUTH_PARQUET", "RECS_PARQUET") if out.get("TRUTH_PARQUET")
                        else ("RECS_PARQUET", "TRUTH_PARQUET"))
        raise ParameterError(f"parameter {other} must be given with {given}; got "
                             f"{given}={out[given]!r} and {other}={out.get(other, '')!r}.")
    if "K_MAX" in out:
        ks = list(out.get("K_VALUES") or []) + ([out["K"]] if "K" in out else [])
        if ks and max(ks) > out["K_MAX"]:  # type: ignore[operator]
            raise ParameterError(
                f"parameter K_MAX must be at least the largest cutoff (K_VALUES, K), "
                f"{max(ks)}; got {out['K_MAX']}."
            )
    if out.get("METRIC") is not None and out.get("METRICS") is not None \
            and out["METRIC"] not in out["METRICS"]:  # type: ignore[operator]
        raise ParameterError(f"parameter METRIC must be one of METRICS {out['METRICS']!r}; "
                             f"got {out['METRIC']!r}.")
    if out.get("PROFILE") is not None:
        from ..profiles import PROFILES

        entry = PROFILES[out["PROFILE"]]  # type: ignore[index]
        covered = entry.metrics
        for name in ("METRICS", "METRIC"):
            asked = out.get(name)
            asked = [asked] if isinstance(asked, str) else list(asked or [])
            missing = [m for m in asked if not entry.covers(m)]
            if missing:
                raise ParameterError(
                    f"parameter {name} names {', '.join(map(repr, missing))}, which "
                    f"PROFILE={out['PROFILE']!r} does not reproduce; it covers "
                    f"{', '.join(covered)}."
                )
    for own, built in (("RECS", "BASELINES"), ("PREDICTIONS", "RATING_BASELINES")):
        if own in out and built in out:
            systems = list(out[own]) + list(out[built])  # type: ignore[call-overload]
            if not systems:
                raise ParameterError(
                    f"parameters {own} and {built} name no system: give your files in {own} "
                    f"or name baselines in {built}."
                )
            clash = sorted(set(out[own]) & set(out[built]))  # type: ignore[call-overload]
            if clash:
                raise ParameterError(
                    f"parameters {own} and {built} both name {', '.join(map(repr, clash))}; "
                    f"rename your system in {own}."
                )
            if out.get("REFERENCE") is not None and out["REFERENCE"] not in systems:
                raise ParameterError(
                    f"parameter REFERENCE must name one of the systems "
                    f"({', '.join(map(repr, systems))}); got {out['REFERENCE']!r}."
                )
    return out
