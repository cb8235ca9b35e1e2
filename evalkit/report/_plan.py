"""Before any notebook runs: what the analyst's files hold, and which pages they can feed.

:func:`check_files` reads the header of every file a report is given (never its rows), so
that a missing or unrecognised column stops the run in its first second, naming the
parameter, the file, what is missing and every column the file has. It also tells whether the
data has ratings: without them, no test interaction can be graded, so ``THRESHOLD`` becomes
None (every test interaction is relevant) unless the analyst set it, which is then an error.

:func:`skipped_pages` reads what each notebook needs from its metadata (``evalkit.needs``)
and says which pages the run leaves out and why, so that a report for implicit data runs the
pages it can and states the others on its index, instead of failing in a notebook's first
cell after the others have run.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ._params import ParameterError

__all__ = ["FileCheck", "NEEDS", "check_files", "columns_for", "notebook_needs",
           "skipped_pages"]

#: The canonical columns of each kind of file, and the names recognised without a mapping.
_KINDS = {
    "interactions": ("user_id", "item_id", "rating", "timestamp"),
    "recs": ("user_id", "item_id", "score", "rank"),
    "predictions": ("user_id", "item_id", "prediction"),
    "items": ("item_id", "title", "genres"),
}
#: Names of the prediction column of a predictions file, recognised without a mapping.
PREDICTION_COLUMNS = ("prediction", "score", "pred")


def _aliases(kind: str) -> dict[str, str]:
    from ..data.interactions import ALIASES
    from ..recs import RECS_ALIASES

    if kind == "recs":
        return dict(RECS_ALIASES)
    ids = {k: v for k, v in ALIASES.items() if v in ("user_id", "item_id")}
    if kind == "predictions":
        return ids | {name: "prediction" for name in PREDICTION_COLUMNS}
    if kind == "items":
        return {k: v for k, v in ids.items() if v == "item_id"} | {"title": "title",
                                                                    "genres": "genres"}
    return dict(ALIASES)


def columns_for(header: list[str], columns: Mapping[str, str] | None,
                kind: str) -> dict[str, str]:
    """The entries of a report's ``COLUMNS`` mapping (file column -> canonical name) that
    apply to a file of ``kind`` with these column names: those whose column the file has
    and whose target is a column of that kind (``score`` stands for ``prediction`` in a
    predictions file)."""
    canonical = _KINDS[kind]
    out = {}
    for source, target in (columns or {}).items():
        if kind == "predictions" and target == "score":
            target = "prediction"
        if source in header and target in canonical:
            out[source] = target
    return out


def _mapped(header: list[str], columns: Mapping[str, str] | None, kind: str) -> set[str]:
    """The canonical columns a file with ``header`` provides once ``columns`` and the usual
    names are applied."""
    explicit = columns_for(header, columns, kind)
    found = set(explicit.values())
    aliases = _aliases(kind)
    for name in header:
        if name in explicit:
            continue
        target = aliases.get(name)
        if target is not None:
            found.add(target)
    return found


def _needed(kind: str) -> list[tuple[str, ...]]:
    """Each column a file of ``kind`` must have, as the canonical names that can stand for
    it (one of them is enough)."""
    return {
        "interactions": [("user_id",), ("item_id",)],
        "recs": [("user_id",), ("item_id",), ("rank", "score")],
        "predictions": [("user_id",), ("item_id",), ("prediction",)],
        "items": [("item_id",)],
    }[kind]


def _alias_text(target: str, kind: str) -> str:
    names = [n for n, t in _aliases(kind).items() if t == target]
    return " or ".join(dict.fromkeys([target, *names]))


@dataclass(frozen=True)
class FileCheck:
    """What :func:`check_files` found.

    Attributes
    ----------
    has_ratings : bool
        Whether the interactions (the dataset, or TRAIN and TEST) have a rating column.
    has_timestamps : bool
        Whether they have a timestamp column.
    columns : dict
        By parameter (``"TEST"``, ``"RECS['mine']"``, ...): the file's column names.
    rows : int or None
        About how many interactions the data holds (:func:`estimated_rows`: exact for
        Parquet and the MovieLens releases by name, estimated from the size and the first
        lines for CSV); None when it cannot be told without reading the data.
    """

    has_ratings: bool
    columns: dict = field(default_factory=dict)
    has_timestamps: bool = True
    rows: int | None = None


#: Ratings in the MovieLens releases (from their READMEs; ml-latest as of its 2023 release).
MOVIELENS_ROWS = {"ml-100k": 100_000, "ml-1m": 1_000_209, "ml-10m": 10_000_054,
                  "ml-20m": 20_000_263, "ml-25m": 25_000_095, "ml-32m": 32_000_204,
                  "ml-latest-small": 100_836, "ml-latest": 33_832_162}


def estimated_rows(path: str | Path) -> int | None:
    """About how many rows an interactions file holds, without reading it: a Parquet file's
    metadata; for an uncompressed CSV or TSV, its size over the mean length of its first
    lines; None for other files (compressed, unreadable)."""
    path = Path(path)
    suffix = path.suffix.lower()
    try:
        if suffix in (".parquet", ".pq"):
            import pyarrow.parquet as pq

            return int(pq.ParquetFile(path).metadata.num_rows)
        if suffix in (".csv", ".tsv", ".dat"):
            with open(path, "rb") as handle:
                head = handle.read(1 << 16)
            lines = head.count(b"\n")
            if not lines:
                return 0 if not head.strip() else 1
            size = path.stat().st_size
            return max(0, round(size / (len(head) / lines)) - 1)  # less the header
    except (ImportError, OSError, ValueError):
        return None
    return None


def _data_rows(data: str, files: list[str]) -> int | None:
    """About how many interactions a run's data holds (see :class:`FileCheck`)."""
    if files:
        counts = [estimated_rows(f) for f in files]
        return None if None in counts else sum(counts)
    if data in MOVIELENS_ROWS:
        return MOVIELENS_ROWS[data]
    if data == "sample":
        return None
    folder = Path(data)
    for name in ("ratings.csv", "ratings.dat", "u.data"):
        if (folder / name).is_file():
            return estimated_rows(folder / name)
    return None


def _header(label: str, path: str) -> list[str]:
    from ..data.interactions import read_header

    try:
        return read_header(Path(path), func=f"parameter {label}")
    except (ValueError, TypeError) as error:
        raise ParameterError(str(error)) from None


def _check(label: str, path: str, kind: str, columns: Mapping[str, str] | None,
           found: dict) -> set[str]:
    header = _header(label, path)
    found[label] = header
    provided = _mapped(header, columns, kind)
    for choices in _needed(kind):
        if not provided.intersection(choices):
            wanted = " or ".join(_alias_text(c, kind) for c in choices)
            raise ParameterError(
                f"parameter {label}: '{Path(path).name}' has no {' or '.join(choices)} "
                f"column (a column named {wanted}); it has {', '.join(header) or 'no columns'}. "
                f"Map yours with COLUMNS (evalkit report --columns "
                f"{header[0] if header else 'NAME'}={choices[0]})."
            )
    return provided


def check_files(data: str, params: Mapping[str, object]) -> FileCheck:
    """Check the columns of every file a report run is given, from their headers.

    Parameters
    ----------
    data : str
        The ``DATASET``: ``"sample"``, a MovieLens name, a release folder or zip, an
        interactions file, or a folder with the analyst's ``train`` and ``test`` files.
    params : mapping
        The run's parameters (``TRAIN``, ``TEST``, ``ITEMS``, ``RECS``, ``PREDICTIONS`` and
        ``COLUMNS`` are read).

    Returns
    -------
    FileCheck

    Raises
    ------
    ParameterError
        When a file lacks a column it needs (user and item ids; rank or score for
        recommendations; a prediction for rating predictions; an item id for items), naming
        the parameter, the file and the columns it has; or when it cannot be read.
    """
    columns = params.get("COLUMNS") or {}
    found: dict[str, list[str]] = {}
    interactions: list[set[str]] = []
    data_files: list[str] = []
    train, test = params.get("TRAIN"), params.get("TEST")
    if train is None and test is None:
        folder = _split_folder(Path(data))
        if folder is not None:
            train, test = str(folder["train"]), str(folder["test"])
        elif _interactions_file(data):
            interactions.append(_check("DATASET", data, "interactions", columns, found))
            data_files.append(data)
    if train is not None and test is not None:
        data_files += [str(train), str(test)]
        interactions.append(_check("TRAIN", str(train), "interactions", columns, found))
        interactions.append(_check("TEST", str(test), "interactions", columns, found))
    for name, path in (params.get("RECS") or {}).items():
        _check(f"RECS[{name!r}]", str(path), "recs", columns, found)
    for name, path in (params.get("PREDICTIONS") or {}).items():
        _check(f"PREDICTIONS[{name!r}]", str(path), "predictions", columns, found)
    if params.get("ITEMS"):
        _check("ITEMS", str(params["ITEMS"]), "items", columns, found)
    # a MovieLens release and the sample always have ratings
    has_ratings = all("rating" in provided for provided in interactions)
    has_timestamps = all("timestamp" in provided for provided in interactions)
    return FileCheck(has_ratings=has_ratings, columns=found, has_timestamps=has_timestamps,
                     rows=_data_rows(data, data_files))


#: What a page can need, and the reason given on the index when the run cannot give it.
NEEDS = {
    "ratings": "the data has no rating column",
    "threshold": "THRESHOLD is None (every test interaction relevant), so no rating is "
                 "classified as relevant or not",
    "predictions": "no rating predictions to evaluate (PREDICTIONS and RATING_BASELINES are "
                   "empty)",
    "spark": "the Spark page runs when asked (evalkit report --spark, as make report does, "
             "or TRUTH_PARQUET)",
}


def notebook_needs(notebook: str | Path) -> list[str]:
    """What a notebook needs to run (its metadata's ``evalkit.needs``, names of
    :data:`NEEDS`)."""
    metadata = json.loads(Path(notebook).read_text()).get("metadata", {})
    needs = list((metadata.get("evalkit") or {}).get("needs", []))
    unknown = [n for n in needs if n not in NEEDS]
    if unknown:
        raise ParameterError(f"notebook {Path(notebook).name} needs {', '.join(unknown)}, "
                             f"which the runner does not know; it knows {', '.join(NEEDS)}.")
    return needs


def _value(name: str, params: Mapping[str, object], declared: Mapping[str, dict]) -> object:
    """A parameter's value in a notebook: the run's, else the notebook's default."""
    if name in params:
        return params[name]
    if name not in declared:
        return None
    try:
        return ast.literal_eval(declared[name]["default"])
    except (ValueError, SyntaxError):
        return declared[name]["default"]


def skipped_pages(notebooks: Mapping[Path, Mapping[str, dict]], params: Mapping[str, object],
                  files: FileCheck, *, spark: bool = False) -> dict[Path, str]:
    """The notebooks a run leaves out, each with the reason.

    Parameters
    ----------
    notebooks : mapping
        Each notebook's declared parameters (:func:`~evalkit.report.notebook_parameters`).
    params : mapping
        The run's parameters.
    files : FileCheck
        From :func:`check_files`.
    spark : bool, default False
        Whether the run asks for the Spark page (a page that needs ``spark`` also runs on the
        analyst's ``TRUTH_PARQUET``).
    """
    skipped = {}
    for notebook, declared in notebooks.items():
        for need in notebook_needs(notebook):
            if need == "ratings":
                lacking = not files.has_ratings
            elif need == "spark":
                lacking = not (spark or params.get("TRUTH_PARQUET"))
            elif need == "threshold":
                lacking = _value("THRESHOLD", params, declared) is None
            else:  # predictions
                lacking = not (_value("PREDICTIONS", params, declared)
                               or _value("RATING_BASELINES", params, declared))
            if lacking:
                skipped[notebook] = NEEDS[need]
                break
    return skipped


#: File names recognised in a folder that holds the analyst's own split.
SPLIT_FILES = {
    "train": ("train.csv", "train.parquet", "train.tsv"),
    "test": ("test.csv", "test.parquet", "test.tsv"),
    "items": ("movies.csv", "items.csv", "items.parquet"),
}


def _interactions_file(dataset: str) -> bool:
    path = Path(dataset)
    suffixes = [x.lower() for x in path.suffixes]
    return path.is_file() and any(x in (".csv", ".tsv", ".parquet", ".pq") for x in suffixes)


def _split_folder(path: Path) -> dict[str, Path] | None:
    if not path.is_dir():
        return None
    found = {role: next((path / n for n in names if (path / n).is_file()), None)
             for role, names in SPLIT_FILES.items()}
    if found["train"] is None or found["test"] is None:
        return None
    return {role: p for role, p in found.items() if p is not None}
