"""Saved evaluations: a run written to a folder atomically and read back exactly.

A saved run is a folder:

- ``run.json``: what the run is (format version, evalkit's version, the time it was saved,
  its name), the definitions, the bootstrap settings, the counts, each metric's direction,
  the fingerprints of the data it was computed from, the split description, and the summary
  rows for a person to read;
- ``per_user.parquet``: the per-user values (index ``user_id``, one column per ``metric@k``),
  bit for bit;
- ``summary.parquet``: the summary table, bit for bit;
- ``curves.parquet``: the curves, when the evaluation computed them;
- ``lists.parquet``: each user's top-k list (k the largest cutoff; ``user_id``, ``item_id``,
  ``position``), when the recommendations are at hand, for the checks of system-level
  metrics such as catalog coverage, and ``catalog.parquet``: the training data's items (the
  catalog coverage is a share of), when the training data is at hand.

The folder is written beside its destination under a temporary name and renamed into place,
so it appears whole or not at all; an existing run is never replaced unless asked.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd

from ._errors import InvalidParameterError
from ._io import atomic_write_text
from ._version import __version__

__all__ = ["RUN_FILE", "IncomparableRunsError", "check_comparable", "input_fingerprints",
           "read_run", "save_evaluation"]

#: The file that marks a folder as a saved run.
RUN_FILE = "run.json"

#: The version of the folder's layout; a newer one is refused by an older evalkit.
_FORMAT = 1

#: The columns each input's fingerprint hashes besides ``user_id`` and ``item_id``: what the
#: evaluation reads of it.
_HASHED = {"truth": ["rating"], "recs": ["rank", "score"], "train": ["rating"]}


class IncomparableRunsError(ValueError):
    """Two runs that cannot be compared: other test data, other definitions, other users."""


def check_comparable(first: object, second: object, *, func: str,
                     names: tuple[str, str] = ("current", "baseline"),
                     hash_inputs: bool = True) -> None:
    """Refuse two evaluations of other test data (their truth fingerprints; with
    ``hash_inputs=False`` only those saved with a loaded run), under other definitions, or of
    other users, naming what differs."""
    mine, theirs = (run.fingerprints() if hash_inputs else run.provenance.get("fingerprints", {})
                    for run in (first, second))
    mine, theirs = mine.get("truth"), theirs.get("truth")
    one, two = names
    if mine and theirs and mine["sha256"] != theirs["sha256"]:
        raise IncomparableRunsError(
            f"{func}: the runs were evaluated on different test data: the truth's fingerprint "
            f"is {mine['sha256'][:12]}... ({mine['rows']:,} rows, {mine['users']:,} users) in "
            f"{one!r} and {theirs['sha256'][:12]}... ({theirs['rows']:,} rows, "
            f"{theirs['users']:,} users) in {two!r}. Evaluate both on the same test data.")
    a, b = first.definitions.as_dict(), second.definitions.as_dict()
    a.pop("profile", None)
    b.pop("profile", None)
    differ = [f"{key} {a.get(key)!r} ({one}) vs {b.get(key)!r} ({two})"
              for key in dict.fromkeys([*a, *b]) if a.get(key) != b.get(key)]
    if differ:
        raise IncomparableRunsError(
            f"{func}: the runs were evaluated under different definitions: "
            f"{'; '.join(differ)}. Evaluate both with the same definitions.")
    users, other = first.per_user.index, second.per_user.index
    if len(users) != len(other) or not users.isin(other).all():
        shared = int(users.isin(other).sum())
        raise IncomparableRunsError(
            f"{func}: the runs are of different test users: {len(users):,} in {one!r}, "
            f"{len(other):,} in {two!r}, {shared:,} in both. Evaluate both on the same "
            "test data.")


def _frame_of(value: object) -> object:
    """The frame behind an input (a shared truth holds the frame it was given)."""
    return getattr(value, "raw", value)


def input_fingerprints(inputs: Mapping[str, object], *,
                       known: dict | None = None) -> dict[str, dict]:
    """Fingerprints (:func:`evalkit.fingerprint`) of the given ``truth``, ``recs`` and
    ``train`` frames, each over the columns the evaluation reads (ids, and the truth's and
    training data's ratings, the recommendations' rank and score): the same rows in any order
    give the same digest.

    ``known``: a dict kept by a caller saving several runs of the same data (the systems of
    a report), in which each frame's fingerprint is computed once; it holds the frames
    themselves, so a key is never taken by another frame."""
    from .data import fingerprint

    out = {}
    for name, columns in _HASHED.items():
        frame = inputs.get(name)
        if frame is None:
            continue
        key = (name, id(frame))
        if known is not None and key in known and known[key][0] is frame:
            out[name] = dict(known[key][1])
            continue
        out[name] = fingerprint(_frame_of(frame), columns=columns)
        if known is not None:
            known[key] = (frame, dict(out[name]))
    return out


# Saving and reading a run's folder (storage: the round trips, atomic writes and refusals
# are tested in tests/test_runs.py), outside the decision functions make mutation tests.
# pragma: no mutate start
def top_lists(recs: object, k: int) -> pd.DataFrame:
    """Each user's top ``k`` as the ranking metrics order lists
    (:func:`evalkit.metrics.top_k`): ``user_id``, ``item_id``, ``position`` (1-based)."""
    from ._checks import check_recs
    from .metrics import top_k

    top = top_k(check_recs(_frame_of(recs), func="Evaluation.save"), k=k)
    return top.rename(columns={"rank": "position"})


def _split_record(split: object) -> dict | None:
    """A JSON-ready description of a split: a :class:`evalkit.Split`'s ``info``, or the
    mapping or text given."""
    if split is None:
        return None
    info = getattr(split, "info", split)
    if isinstance(info, str):
        return {"description": info}
    if not isinstance(info, Mapping):
        raise InvalidParameterError(
            "Evaluation.save: 'split' must be an evalkit Split, a mapping or a "
            f"text describing the split; got {type(split).__name__}.")
    return json.loads(json.dumps(dict(info), default=str))


def save_evaluation(evaluation: object, path: str | os.PathLike, *, truth: object = None,
                    recs: object = None, train: object = None, split: object = None,
                    name: str | None = None, overwrite: bool = False,
                    lists: bool = True, known: dict | None = None) -> Path:
    """Write ``evaluation`` to the folder ``path`` (see :meth:`evalkit.Evaluation.save`);
    ``known`` as for :func:`input_fingerprints`."""
    func = "Evaluation.save"
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise FileExistsError(f"{func}: 'path' '{target}' is a file; give a folder path.")
    if target.is_dir() and any(target.iterdir()):
        if not overwrite:
            raise FileExistsError(
                f"{func}: 'path' '{target}' exists (an earlier run?); pass overwrite=True to "
                "replace it, or choose another path.")
        if not (target / RUN_FILE).is_file():
            raise FileExistsError(
                f"{func}: 'path' '{target}' holds files that are not a saved run; it is left "
                "as it is. Choose another path.")
    if name is not None and not isinstance(name, str):
        raise InvalidParameterError(f"{func}: 'name' must be a string; got {type(name).__name__}.")
    given = {"truth": truth, "recs": recs, "train": train}
    if train is None and getattr(split, "train", None) is not None:
        given["train"] = split.train
    sources = dict(getattr(evaluation, "_sources", {}))
    fingerprints = dict(evaluation.provenance.get("fingerprints", {}))
    fingerprints.update(input_fingerprints(
        {key: given[key] if given[key] is not None else sources.get(key) for key in given},
        known=known))
    summary = evaluation.summary
    record = {
        "format": _FORMAT,
        "evalkit_version": __version__,
        "saved": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "name": name if name is not None else evaluation.provenance.get("name"),
        "definitions": evaluation.definitions.as_dict(),
        "bootstrap": dict(evaluation.bootstrap),
        "counts": dict(evaluation.counts),
        "higher_is_better": evaluation.directions(),
        "fingerprints": fingerprints,
        "split": _split_record(split) if split is not None
        else evaluation.provenance.get("split"),
        "users": int(len(evaluation.per_user)),
        "summary": json.loads(summary.reset_index(names="column").to_json(
            orient="records", double_precision=15)),
    }
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".part",
                                    dir=target.parent))
    try:
        evaluation.per_user.to_parquet(staging / "per_user.parquet")
        summary.to_parquet(staging / "summary.parquet")
        if evaluation.curves is not None:
            evaluation.curves.to_parquet(staging / "curves.parquet")
        listed = evaluation.lists() if recs is None else top_lists(
            recs, int(evaluation.summary["k"].max()))
        if lists and listed is not None:
            listed.to_parquet(staging / "lists.parquet", index=False)
            training = given["train"] if given["train"] is not None else sources.get("train")
            catalog = evaluation.catalog() if training is None else pd.Index(
                pd.unique(_frame_of(training)["item_id"]), name="item_id")
            if catalog is not None:
                catalog.to_frame(index=False).to_parquet(staging / "catalog.parquet")
        atomic_write_text(staging / RUN_FILE, json.dumps(record, indent=1) + "\n")
        os.chmod(staging, 0o777 & ~_umask())
        _move_into_place(staging, target, overwrite=overwrite, func=func)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _move_into_place(staging: Path, target: Path, *, overwrite: bool, func: str) -> None:
    """Rename the finished folder to ``target``; an earlier run there is moved aside first
    and removed only once the new one is in place."""
    if target.is_dir() and not any(target.iterdir()):
        target.rmdir()  # an empty folder made for the run
    aside = None
    if target.exists():
        if not overwrite:
            raise FileExistsError(f"{func}: '{target}' appeared while the run was being "
                                  "written (another run?); it was left as it is.")
        aside = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old",
                                      dir=target.parent))
        os.replace(target, aside / target.name)
    try:
        os.rename(staging, target)
    except OSError:
        if aside is not None:  # put the earlier run back
            os.replace(aside / target.name, target)
            shutil.rmtree(aside, ignore_errors=True)
        if target.exists():
            raise FileExistsError(f"{func}: '{target}' appeared while the run was being "
                                  "written (another run?); it was left as it is.") from None
        raise
    if aside is not None:
        shutil.rmtree(aside, ignore_errors=True)


def read_run(path: str | os.PathLike, *, func: str = "load_evaluation") -> dict:
    """The parts of a saved run (the keyword arguments of :class:`evalkit.Evaluation`)."""
    from .definitions import Definitions


    folder = Path(path)
    if not (folder / RUN_FILE).is_file():
        raise FileNotFoundError(
            f"{func}: 'path' '{folder}' is not a saved run (no {RUN_FILE}); save one with "
            "Evaluation.save(path) or evalkit evaluate --save DIR.")
    record = json.loads((folder / RUN_FILE).read_text(encoding="utf-8"))
    if not isinstance(record, dict) or int(record.get("format", 0)) > _FORMAT:
        raise ValueError(f"{func}: '{folder}' was saved by a newer evalkit (format "
                         f"{record.get('format')!r}); upgrade evalkit to read it.")
    per_user = pd.read_parquet(folder / "per_user.parquet")
    summary = pd.read_parquet(folder / "summary.parquet")
    if list(per_user.columns) != list(summary.index):
        raise ValueError(f"{func}: '{folder}' is damaged: its per-user columns are not its "
                         "summary's rows.")
    if len(per_user) != int(record.get("users", len(per_user))):
        raise ValueError(f"{func}: '{folder}' is damaged: {len(per_user):,} per-user rows, "
                         f"run.json says {record.get('users')}.")
    curves = (pd.read_parquet(folder / "curves.parquet")
              if (folder / "curves.parquet").is_file() else None)
    lists = (folder / "lists.parquet") if (folder / "lists.parquet").is_file() else None
    catalog = (folder / "catalog.parquet") if (folder / "catalog.parquet").is_file() else None
    provenance = {
        "name": record.get("name"),
        "saved": record.get("saved"),
        "evalkit_version": record.get("evalkit_version"),
        "fingerprints": record.get("fingerprints") or {},
        "split": record.get("split"),
        "higher_is_better": record.get("higher_is_better") or {},
        "path": str(folder),
        "lists": None if lists is None else str(lists),
        "catalog": None if catalog is None else str(catalog),
    }
    return dict(per_user=per_user, summary=summary,
                definitions=Definitions.from_dict(record["definitions"], func=func),
                counts=record.get("counts") or {}, curves=curves,
                bootstrap=record.get("bootstrap") or {}, provenance=provenance)
# pragma: no mutate end
