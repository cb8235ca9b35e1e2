"""What a report evaluates: the data, the split (made, or the analyst's own), and the systems
(the analyst's recommendation or prediction files beside evalkit's baselines).

Each notebook's first cell calls these with its parameters; the arguments mirror the
notebook parameters (``load_inputs(DATASET, train=TRAIN, test=TEST, ...)``) and the errors
name the parameters, so a bad value stops the notebook at the top with a message saying what
to change.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from .._canonical import in_canonical_order
from .._checks import pairs_in
from .._display import TableFrame
from .._docstrings import fill_doc
from .._version import __version__
from ._docs import REPORT_DOCS
from ._params import ParameterError
from ._plan import _interactions_file, _split_folder, columns_for
from ._shared import list_length, run_key, shared

__all__ = [
    "ReportInputs",
    "coverage",
    "load_dataset",
    "load_inputs",
    "load_predictions",
    "load_systems",
    "prediction_coverage",
    "run_card",
]


def load_dataset(name_or_path: str, *, seed: int = 0):
    """Load the data a report runs on: ``"sample"``, a MovieLens name, or a path.

    Parameters
    ----------
    name_or_path : str
        ``"sample"`` for the embedded generator (:func:`evalkit.data.load_sample`), a MovieLens
        release name (``"ml-latest-small"``), or a path to a release directory or zip.
    seed : int, default 0
        Seed of the sample generator (ignored for real data).

    Returns
    -------
    evalkit.data.Dataset
        ``ratings``, ``items`` and ``name``.
    """
    from ..data import load_movielens, load_sample

    if name_or_path == "sample":
        return load_sample(seed=seed)
    return load_movielens(name_or_path)


class ReportInputs:
    """The data of one report run.

    Attributes
    ----------
    name : str
        The dataset's name (a release name, ``"sample"``, or the analyst's file names).
    ratings : pd.DataFrame
        Every interaction: the dataset, or the analyst's train and test together (put
        together when first asked for, so the pages that do not need them do not hold a
        second copy of the data).
    items : pd.DataFrame or None
        ``item_id, title, genres`` when the dataset or ``ITEMS`` has them, else None.
    users : pd.DataFrame or None
        The named dataset's own user attributes (``user_id`` and attribute columns: the
        sample's synthetic ones, ml-100k's and ml-1m's), else None: the analyst's files
        (``TRAIN``/``TEST``, an interactions file, a folder of their own split) bring none,
        and another dataset's are never joined to them by id.
    split : evalkit.split.Split or None
        The train/test split: made by ``SPLIT``, or the analyst's own (``strategy="given"``);
        None when the notebook asked for none.
    files : dict
        For each file the analyst gave (role -> info): its name, sha256 fingerprint and rows.
    fingerprint : dict or None
        :func:`evalkit.data.fingerprint` of ``ratings``, computed once (None: not computed).
    key : str or None
        What the inputs were loaded from (arguments and files' size and time), which the
        notebooks of one report run use to share them and the baselines' lists.
    """

    def __init__(self, name: str, ratings: pd.DataFrame | None, items: pd.DataFrame | None,
                 split: object | None = None, files: dict | None = None,
                 fingerprint: dict | None = None, key: str | None = None,
                 users: pd.DataFrame | None = None) -> None:
        if ratings is None and split is None:
            raise ValueError("ReportInputs: give the ratings, or a split whose train and test "
                             "are all of them.")
        self.name, self.items, self.split, self.users = name, items, split, users
        self.files = dict(files or {})
        self.fingerprint, self.key = fingerprint, key
        self._ratings = ratings

    def __repr__(self) -> str:
        parts = [f"name={self.name!r}"]
        if self.split is not None:
            parts.append(f"train={len(self.split.train):,} rows, "
                         f"test={len(self.split.test):,} rows")
        elif self._ratings is not None:
            parts.append(f"ratings={len(self._ratings):,} rows")
        return f"ReportInputs({', '.join(parts)})"

    @property
    def ratings(self) -> pd.DataFrame:
        """Every interaction (see the class's attributes)."""
        if self._ratings is None:
            split = self._split()
            self._ratings = pd.concat([split.train, split.test], ignore_index=True)
        return self._ratings

    def item_ids(self) -> np.ndarray:
        """The distinct item ids of :attr:`ratings`, in order of first appearance, without
        putting the train and test interactions together when they are apart."""
        if self._ratings is not None:
            return pd.unique(self._ratings["item_id"])
        split = self._split()
        return pd.unique(pd.concat([split.train["item_id"], split.test["item_id"]],
                                   ignore_index=True))

    def _replace(self, **changes: object) -> ReportInputs:
        fields = {"name": self.name, "ratings": self._ratings, "items": self.items,
                  "split": self.split, "files": self.files, "fingerprint": self.fingerprint,
                  "key": self.key, "users": self.users}
        return ReportInputs(**{**fields, **changes})

    @property
    def train(self) -> pd.DataFrame:
        """Training interactions of the split."""
        return self._split().train

    @property
    def test(self) -> pd.DataFrame:
        """Test interactions of the split."""
        return self._split().test

    def audit(self) -> pd.DataFrame:
        """:func:`evalkit.split.audit` of the split; in a report run, computed by the first
        page that asks and read by the others (as the inputs are)."""
        from ..split import audit

        split = self._split()
        if self.key is None:
            return audit(split)
        return shared("audit", run_key("audit", self.key), lambda: audit(split))

    @property
    def test_users(self) -> np.ndarray:
        """Distinct test users, in order of first appearance."""
        return self.test["user_id"].unique()

    @property
    def has_timestamps(self) -> bool:
        """Whether the interactions carry a ``timestamp`` column."""
        return "timestamp" in self._columns()

    @property
    def has_ratings(self) -> bool:
        """Whether the interactions carry a ``rating`` column (explicit feedback)."""
        return "rating" in self._columns()

    def _columns(self) -> pd.Index:
        if self._ratings is not None:
            return self._ratings.columns
        return self._split().train.columns.union(self._split().test.columns)

    def _split(self):
        if self.split is None:
            raise ValueError("ReportInputs: this report was loaded without a split "
                             "(load_inputs(..., split=None)).")
        return self.split


def _read_items(path: Path, columns: Mapping[str, str] | None = None) -> pd.DataFrame:
    frame = pd.read_parquet(path) if path.suffix in (".parquet", ".pq") else pd.read_csv(path)
    usual = {"movieId": "item_id", "itemId": "item_id", "item": "item_id",
             "movie_id": "item_id", "itemID": "item_id"}
    mapped = set((columns or {}).values())
    frame = frame.rename(columns={**{k: v for k, v in usual.items() if v not in mapped},
                                  **(columns or {})})
    if "item_id" not in frame.columns:
        raise ParameterError(
            f"parameter ITEMS: '{path.name}' has no item id column (item_id or movieId); "
            f"it has {', '.join(map(str, frame.columns))}."
        )
    genres = frame["genres"] if "genres" in frame.columns else pd.Series("", index=frame.index)
    genres = genres.fillna("").astype(str).replace("(no genres listed)", "")
    return pd.DataFrame({
        "item_id": frame["item_id"],
        "title": (frame["title"].astype(str) if "title" in frame.columns
                  else frame["item_id"].astype(str)),
        "genres": genres.str.findall(r"[^|]+"),
    })


def _mapping(path: str | os.PathLike, columns: Mapping[str, str] | None,
             kind: str) -> dict[str, str] | None:
    """The part of ``COLUMNS`` that applies to the file at ``path`` (from its header)."""
    from ..data.interactions import read_header
    if not columns:
        return None
    return columns_for(read_header(Path(path)), columns, kind) or None


def _interactions(path: str | os.PathLike, columns: Mapping[str, str] | None) -> pd.DataFrame:
    from ..data import load_interactions

    # in the canonical order: every page's numbers (splits, fits, sums, draws) are then the
    # same for the same interactions, whatever the file's row order or format
    return in_canonical_order(load_interactions(path,
                                                columns=_mapping(path, columns, "interactions")))


def _file_info(path: Path, frame: pd.DataFrame) -> dict:
    from ..data import fingerprint

    fp = fingerprint(frame)
    return {"file": path.name, "sha256": fp["sha256"], "rows": fp["rows"],
            "users": fp["users"], "items": fp["items"]}


def load_inputs(
    dataset: str = "sample",
    *,
    train: str | os.PathLike | None = None,
    test: str | os.PathLike | None = None,
    items: str | os.PathLike | None = None,
    split: str | None = "user_ratio",
    test_fraction: float = 0.2,
    seed: int = 0,
    columns: Mapping[str, str] | None = None,
) -> ReportInputs:
    """Load a report's data and split it, or take the analyst's own split.

    Parameters
    ----------
    dataset : str, default "sample"
        ``DATASET``: ``"sample"``, a MovieLens release name, a release folder or zip, a
        CSV/Parquet file of interactions (split by ``split``), or a folder holding the
        analyst's own split (``train.csv`` and ``test.csv``, or ``.parquet``;
        optionally ``movies.csv`` or ``items.csv``), which is used as given.
    train, test : path, optional
        ``TRAIN`` and ``TEST``: the analyst's own split (CSV or Parquet with the columns
        :func:`evalkit.load_interactions` recognises). When given, ``dataset`` and ``split``
        are not used and no split is made.
    items : path, optional
        ``ITEMS``: an item table (``item_id``/``movieId``, ``title``, ``genres`` separated by
        ``|``) for diversity and titles. Default: the dataset's items, if it has any.
    split : str or None, default "user_ratio"
        ``SPLIT``: the strategy of :func:`evalkit.split.split_by`; None for no split.
    test_fraction : float, default 0.2
        ``TEST_FRACTION``.
    seed : int, default 0
        ``SEED``: of the sample generator and the split.
    columns : mapping, optional
        ``COLUMNS``: your files' column names -> evalkit's (``{"uid": "user_id"}``); each
        file takes the entries whose column it has.

    Returns
    -------
    ReportInputs
        The interactions of a file come in one order (each user's in time order, then by
        item and rating), whatever the file's row order or format: the same data gives the
        same report.

    Raises
    ------
    ParameterError
        When a temporal ``SPLIT`` meets data without timestamps, or ``ITEMS`` has no item id.
    ValueError, TypeError
        From the loaders, for unreadable files (naming the file).
    """
    folder = _split_folder(Path(dataset)) if train is None and test is None else None
    if folder is not None:
        train, test = folder["train"], folder["test"]
        items = items if items is not None else folder.get("items")
    if train is not None and test is not None:  # the analyst's split: SPLIT is not used
        split = None
    loaded = _shared_inputs(dataset, train=train, test=test, folder=folder, split=split,
                            test_fraction=test_fraction, seed=seed, columns=columns)
    if items is None:
        return loaded
    items_path = Path(items)
    table = _read_items(items_path, _mapping(items_path, columns, "items"))
    return loaded._replace(items=table, files={
        **loaded.files, "items": {"file": items_path.name, "rows": len(table)}})


def _shared_inputs(dataset, *, train, test, folder, split, test_fraction, seed,
                   columns) -> ReportInputs:
    """:func:`_load_inputs`, once per report run for the same arguments and files."""
    if split is None:
        test_fraction = None
    key = run_key("inputs", dataset, train, test, split, test_fraction, seed, columns)
    return shared("inputs", key, lambda: _load_inputs(
        dataset, train=train, test=test, folder=folder, split=split,
        test_fraction=test_fraction, seed=seed, columns=columns, key=key))


def _load_inputs(dataset, *, train, test, folder, split, test_fraction, seed, columns,
                 key) -> ReportInputs:
    from ..data import fingerprint
    from ..split import Split, split_by

    files: dict[str, dict] = {}
    if train is not None and test is not None:
        train_path, test_path = Path(train), Path(test)
        train_frame, test_frame = _interactions(train_path, columns), _interactions(test_path,
                                                                                 columns)
        files["train"] = _file_info(train_path, train_frame)
        files["test"] = _file_info(test_path, test_frame)
        name = (Path(dataset).name if folder is not None
                else f"{train_path.name} + {test_path.name}")
        made = Split(train=train_frame, test=test_frame, info={
            "strategy": "given", "params": {"train": train_path.name, "test": test_path.name},
            "seed": None, "sizes": {"train": len(train_frame), "test": len(test_frame)},
        })
        ratings = pd.concat([train_frame, test_frame], ignore_index=True)
        fp = fingerprint(ratings)
        del ratings  # put together again only by the pages that use it (ReportInputs.ratings)
        return ReportInputs(name=str(name), ratings=None, items=None, split=made, files=files,
                            fingerprint=fp, key=key)
    if split is not None:  # the unsplit data, shared with the pages that do not split
        whole = _shared_inputs(dataset, train=None, test=None, folder=None, split=None,
                               test_fraction=None, seed=seed, columns=columns)
        name, ratings, item_table = whole.name, whole.ratings, whole.items
        files, users = dict(whole.files), whole.users
        if split in ("user_temporal", "global_temporal") and "timestamp" not in ratings:
            raise ParameterError(
                f"parameter SPLIT={split!r} needs timestamps, and {name} has no timestamp "
                "column; choose SPLIT='user_ratio' or 'random', or give TRAIN and TEST."
            )
        made = split_by(ratings, split, test_fraction=test_fraction, rng=seed)
        return ReportInputs(name=str(name), ratings=ratings, items=item_table, split=made,
                            files=files, fingerprint=whole.fingerprint, key=key, users=users)
    users = None  # an interactions file brings no user attributes
    if _interactions_file(dataset):
        name, ratings, item_table = Path(dataset).name, _interactions(dataset, columns), None
        files["dataset"] = _file_info(Path(dataset), ratings)
    else:
        data = load_dataset(dataset, seed=seed)
        name, ratings, item_table, users = data.name, data.ratings, data.items, data.users
    return ReportInputs(name=str(name), ratings=ratings, items=item_table, split=None,
                        files=files, fingerprint=fingerprint(ratings), key=key, users=users)


def load_systems(
    inputs: ReportInputs,
    *,
    recs: Mapping[str, str | os.PathLike] | None = None,
    baselines: Sequence[str] = (),
    k: int = 10,
    seed: int = 0,
    columns: Mapping[str, str] | None = None,
) -> dict[str, pd.DataFrame]:
    """The recommendation lists a report evaluates: the analyst's files, then the baselines.

    Parameters
    ----------
    inputs : ReportInputs
        From :func:`load_inputs`, with a split.
    recs : mapping of str to path, optional
        ``RECS``: system name -> recommendations file, read with
        :func:`evalkit.read_recommendations` (``rank`` and/or ``score``).
    baselines : sequence of str
        ``BASELINES``: names of :data:`evalkit.models.MODELS`, fitted on the training set
        and asked for ``k`` items per test user (their (k + 1)-th items are kept in
        ``beyond``, so that the findings see a tie across the cutoff k as an analyst's longer
        lists show it).
    k : int, default 10
        ``K_MAX``: length of the baselines' lists. The analyst's lists are kept as given.
    seed : int, default 0
        ``SEED`` of the ``Random`` baseline.
    columns : mapping, optional
        ``COLUMNS``, as for :func:`load_inputs`.

    Returns
    -------
    Systems
        A dict of str to pd.DataFrame, in the order: ``recs``, then ``baselines`` (the rows
        of a file in one order, as :func:`load_inputs` orders interactions);
        :func:`coverage` says which users each list covers. A baseline too large for the
        machine's memory (:class:`evalkit.models.ModelTooLarge`, e.g. EASE over a catalogue
        of tens of thousands of items) is left out, with the reason in ``left_out``.
    """
    from ..models import ModelTooLarge, recommend_all
    from ..recs import read_recommendations

    def read(path: str | os.PathLike) -> pd.DataFrame:
        mapping = _mapping(path, columns, "recs")
        # in one order (each user's list by rank, then item), whatever the file's
        return shared("recs", run_key("recs", path, mapping),
                      lambda: in_canonical_order(read_recommendations(path, columns=mapping),
                                                 ("user_id", "rank", "item_id", "score")))

    def baseline(name: str) -> dict[str, pd.DataFrame]:
        # one item more than asked, so that a tie across the cutoff k can be seen
        length = max(k, list_length() or 0) + 1

        def compute() -> dict[str, pd.DataFrame]:
            return recommend_all([name], inputs.train, inputs.test_users, k=length, rng=seed)

        if getattr(inputs, "key", None) is None:
            lists = compute()
        else:
            lists = shared("baseline", run_key("baseline", inputs.key, name, length, seed),
                           compute)
        # the first k of each list (one ranking per user) are its top-k list; the next
        # item is kept aside, for the findings to see a tie across the cutoff
        systems.beyond.update({n: frame[frame["rank"] == k + 1].reset_index(drop=True)
                               for n, frame in lists.items()})
        return {n: frame[frame["rank"] <= k].reset_index(drop=True)
                for n, frame in lists.items()}

    systems = Systems({name: read(path) for name, path in (recs or {}).items()})
    for name in baselines:  # one model at a time: one that does not fit is left out
        try:
            systems.update(baseline(name))
        except ModelTooLarge as error:
            systems.left_out[name] = str(error).split(": ", 1)[-1]
    return systems


class Systems(dict):
    """The lists a report evaluates, by system name (a dict); ``left_out``: the
    baselines that could not be fitted here (a model too large for the machine's memory),
    each with the reason, which :func:`coverage` shows; and ``beyond``: each baseline's
    item after its last (rank k + 1 per user), which no metric reads and from which the
    findings tell whether tied scores straddle the cutoff k."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.left_out: dict[str, str] = {}
        self.beyond: dict[str, pd.DataFrame] = {}


def _user_counts(truth_users: np.ndarray, list_users: np.ndarray) -> dict[str, int]:
    in_test = np.isin(list_users, truth_users)
    return {
        "test users": int(len(truth_users)),
        "with a list": int(in_test.sum()),
        "without a list (score 0)": int(len(truth_users) - in_test.sum()),
        "only in the list (ignored)": int((~in_test).sum()),
    }


@fill_doc(REPORT_DOCS)
def coverage(systems: Mapping[str, pd.DataFrame], test: pd.DataFrame) -> pd.DataFrame:
    """Which test users each system's lists cover, and how long the lists are.

    A test user without a list scores 0 on every ranking metric; a user who has a list but
    no test interaction is not evaluated. Both are counted here, per system, so that nobody
    is dropped without saying so.

    Parameters
    ----------
    %(systems)s
    test : pandas.DataFrame
        The test interactions (``user_id, item_id``, ...).

    Returns
    -------
    pd.DataFrame
        One row per system: ``test users``, ``with a list``, ``without a list (score 0)``,
        ``only in the list (ignored)``, and the shortest, median and longest list; and, when
        :func:`load_systems` left a baseline out, a row for it with the reason under
        ``left out``.

    Examples
    --------
    >>> test = pd.DataFrame({"user_id": [1, 2], "item_id": [5, 6]})
    >>> recs = pd.DataFrame({"user_id": [1, 3], "item_id": [5, 5], "rank": [1, 1]})
    >>> coverage({"mine": recs}, test).iloc[0].tolist()
    [2, 1, 1, 1, 1, 1, 1]
    """
    truth_users = pd.unique(test["user_id"])
    rows = {}
    for name, recs in systems.items():
        lengths = recs.groupby("user_id", sort=False).size()
        rows[name] = _user_counts(truth_users, lengths.index.to_numpy()) | {
            "shortest list": int(lengths.min()) if len(lengths) else 0,
            "median list": int(lengths.median()) if len(lengths) else 0,
            "longest list": int(lengths.max()) if len(lengths) else 0,
        }
    out = pd.DataFrame.from_dict(rows, orient="index")
    left_out = getattr(systems, "left_out", {})
    if left_out:
        out["left out"] = ""
        for name, reason in left_out.items():
            out.loc[name, "left out"] = reason
    out.index.name = "system"
    return out


def load_predictions(
    inputs: ReportInputs,
    *,
    predictions: Mapping[str, str | os.PathLike] | None = None,
    baselines: Sequence[str] = (),
    columns: Mapping[str, str] | None = None,
) -> dict[str, pd.DataFrame]:
    """The rating predictions a report evaluates: the analyst's files, then the baselines.

    Parameters
    ----------
    inputs : ReportInputs
        From :func:`load_inputs`, with a split and ratings.
    predictions : mapping of str to path, optional
        ``PREDICTIONS``: system name -> file with ``user_id``, ``item_id`` and ``prediction``
        (or ``score``/``pred``).
    baselines : sequence of str
        ``RATING_BASELINES``: names of :data:`evalkit.models.RATING_BASELINES`, fitted on the
        training set and asked for every test pair.
    columns : mapping, optional
        ``COLUMNS``, as for :func:`load_inputs` (a column mapped to ``prediction`` or
        ``score`` is the prediction).

    Returns
    -------
    dict of str to pd.DataFrame
        ``user_id, item_id, prediction`` by system name.
    """
    from ..models import predict_ratings

    if not inputs.has_ratings:
        raise ParameterError(
            f"rating prediction needs ratings, and {inputs.name} has no rating column; "
            "this report needs explicit ratings (DATASET, or TRAIN/TEST with a rating column)."
        )
    out: dict[str, pd.DataFrame] = {}
    for name, path in (predictions or {}).items():
        mapping = _mapping(path, columns, "predictions") or {}
        ids = {k: v for k, v in mapping.items() if v in ("user_id", "item_id")}
        frame = _interactions(path, ids or None)
        chosen = [k for k, v in mapping.items() if v == "prediction"]
        column = next((c for c in chosen + ["prediction", "score", "pred"]
                       if c in frame.columns), None)
        if column is None:
            raise ParameterError(
                f"parameter PREDICTIONS[{name!r}]: '{Path(path).name}' has no prediction column "
                f"(prediction, score or pred); it has {', '.join(map(str, frame.columns))}."
            )
        out[name] = pd.DataFrame({"user_id": frame["user_id"], "item_id": frame["item_id"],
                                  "prediction": pd.to_numeric(frame[column], errors="raise")})
    if baselines:
        def compute() -> dict[str, pd.DataFrame]:
            return predict_ratings(inputs.train, inputs.test[["user_id", "item_id"]])

        fitted = (compute() if getattr(inputs, "key", None) is None
                  else shared("predictions", run_key("predictions", inputs.key), compute))
        out.update({name: fitted[name] for name in baselines})
    return out


@fill_doc(REPORT_DOCS)
def prediction_coverage(predictions: Mapping[str, pd.DataFrame],
                        test: pd.DataFrame) -> pd.DataFrame:
    """Which test ratings each system predicts: the rest are left out of its errors, counted.

    Parameters
    ----------
    %(predictions)s
    %(test_ratings)s

    Returns
    -------
    pd.DataFrame
        One row per system: ``test ratings``, ``predicted``, ``without a prediction (left out)``,
        ``predictions not in test (ignored)``.
    """
    rows = {}
    for name, frame in predictions.items():
        hit = pairs_in(test, frame)
        rows[name] = {
            "test ratings": len(test),
            "predicted": int(hit.sum()),
            "without a prediction (left out)": int((~hit).sum()),
            "predictions not in test (ignored)": int((~pairs_in(frame, test)).sum()),
        }
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "system"
    return out


_PACKAGES = ("numpy", "pandas", "scipy", "numba", "matplotlib")


def _git_commit(directory: Path) -> str | None:
    """``commit <hash>`` of the git checkout holding ``directory`` (``(modified)`` when it has
    uncommitted changes), or None outside a checkout or without git."""
    import subprocess

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(directory), *args], capture_output=True,
                              text=True, timeout=10, check=True).stdout.strip()

    try:
        commit = git("rev-parse", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no", "--", "evalkit")
    except (OSError, subprocess.SubprocessError):
        return None
    return f"commit {commit[:12]}" + (" (modified)" if dirty else "")


def _provenance() -> list[tuple[str, object]]:
    """When and with what a report ran: the time (UTC), evalkit's git commit where evalkit
    runs from a checkout, and the versions of Python and the numeric packages."""
    import datetime
    import platform
    from importlib.metadata import PackageNotFoundError, version

    rows: list[tuple[str, object]] = [
        ("run at", datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))]
    commit = _git_commit(Path(__file__).resolve().parents[2])
    rows.append(("evalkit source", commit or "commit unknown (not run from a git checkout)"))
    found = []
    for name in _PACKAGES:
        try:
            found.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            continue
    found = [f"Python {platform.python_version()}", *found]
    rows.append(("versions", ", ".join(found[:3])))  # two rows, so no cell is cut short
    if found[3:]:
        rows.append(("versions, cont.", ", ".join(found[3:])))
    return rows


class RunCard(TableFrame):
    """The table of :func:`run_card`: shown folded under one line (what it holds and the
    dataset), so that a page opens with its findings; a click shows every row. Anything
    derived from it is a plain DataFrame."""

    def _repr_html_(self) -> str | None:
        import html

        dataset = self["value"].get("dataset")
        named = f"<b>{html.escape(str(dataset))}</b>, its fingerprint, " if dataset else ""
        return (f"<details><summary>What this report was computed on: {named}the files, the "
                f"split, the systems, the versions and the definitions ({len(self)} rows; "
                f"click to show)</summary>{pd.DataFrame(self)._repr_html_()}</details>")


def run_card(
    inputs: ReportInputs,
    *,
    seed: int | None = None,
    definitions: Mapping | None = None,
    recs: Mapping[str, str | os.PathLike] | None = None,
    baselines: Sequence[str] = (),
) -> pd.DataFrame:
    """A two-column table stating what a report was computed on (a :class:`RunCard`, shown
    folded in a notebook).

    Lists the dataset and its fingerprint (sha256 of the ratings, rows, users, items), the
    analyst's files with their fingerprints, the split, the seed, the systems, evalkit's
    version, when the report ran (UTC), evalkit's git commit when it runs from a checkout,
    the versions of Python and the numeric packages, and the metric definitions, so every
    report says exactly what its numbers mean and how it was made.

    Parameters
    ----------
    inputs : ReportInputs or evalkit.data.Dataset
        What the report loaded.
    seed : int, optional
        The seed used.
    definitions : mapping, optional
        Metric definitions (``Evaluation.definitions``) or other settings to state.
    recs : mapping, optional
        The analyst's systems (``RECS`` or ``PREDICTIONS``): name -> file.
    baselines : sequence of str
        The baselines evaluated beside them.
    """
    from ..data import fingerprint

    fp = getattr(inputs, "fingerprint", None) or fingerprint(inputs.ratings)
    rows: list[tuple[str, object]] = [
        ("dataset", inputs.name),
        ("ratings sha256", fp["sha256"]),
        ("rows / users / items", f"{fp['rows']:,} / {fp['users']:,} / {fp['items']:,}"),
    ]
    for role, info in getattr(inputs, "files", {}).items():
        rows.append((f"{role} file", f"{info['file']} ({info['rows']:,} rows)"))
        if "sha256" in info:
            rows.append((f"{role} sha256", info["sha256"]))
    split = getattr(inputs, "split", None)
    if split is not None:
        info = split.info
        params = dict(info.get("params", {}))
        if info.get("seed") is not None:
            params["seed"] = info["seed"]
        described = ", ".join(f"{k}={v}" for k, v in params.items())
        rows.append(("split", f"{info.get('strategy', '?')} ({described})"))
        rows.append(("train / test rows", f"{len(split.train):,} / {len(split.test):,}"))
    if seed is not None:
        rows.append(("seed", seed))
    for name, path in (recs or {}).items():
        rows.append((f"system: {name}", f"file {Path(path).name}"))
    if baselines:
        rows.append(("baselines", ", ".join(baselines)))
    rows.append(("evalkit version", __version__))
    rows.extend(_provenance())
    for key, value in (definitions or {}).items():
        rows.append((f"definition: {key}", value))
    return RunCard(pd.DataFrame(rows, columns=["item", "value"]).set_index("item"))
