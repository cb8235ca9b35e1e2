"""Before any notebook runs, the report runner reads the headers of the analyst's files:
column problems stop it at once, naming the file and its columns; data without ratings gets
THRESHOLD None; pages that the inputs cannot feed are left out, each with its reason on the
index; only the numbered notebooks of a folder are reports."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pandas as pd
import pytest

from evalkit.cli import _parser as build_parser
from evalkit.cli import report_parameters
from evalkit.report import ParameterError, ReportError, find_notebooks, run_reports
from evalkit.report._plan import check_files, columns_for

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "data" / "example"


def _notebook(directory: Path, name: str, *, needs: list[str] | None = None) -> Path:
    """A notebook that writes the parameters it was given as its headline."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    if needs is not None:
        nb.metadata["evalkit"] = {"needs": needs}
    params = nbformat.v4.new_code_cell(
        'DATASET = "sample"\nTRAIN = None\nTEST = None\nTHRESHOLD = 4.0\n'
        "RATING_BASELINES = ['item bias']\nK_VALUES = [5, 10, 20]\nK = 10\n"
        "STRATEGIES = ['random', 'user_temporal']\nHEADLINE_PATH = None")
    params.metadata["tags"] = ["parameters"]
    nb.cells = [nbformat.v4.new_markdown_cell(f"# Page {name}"), params,
                nbformat.v4.new_code_cell(  # plain JSON: a kernel without evalkit starts sooner
                    "import json\nif HEADLINE_PATH:\n    with open(HEADLINE_PATH, 'w') as f:\n"
                    "        json.dump({'threshold': str(THRESHOLD), 'k': K,\n"
                    "                   'strategies': ' '.join(STRATEGIES)}, f)")]
    directory.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, directory / f"{name}.ipynb")
    return directory / f"{name}.ipynb"


@pytest.fixture(scope="module")
def implicit(tmp_path_factory) -> dict[str, Path]:
    """The example split without ratings or timestamps, with the analyst's own column names,
    and their recommendations with theirs."""
    d = tmp_path_factory.mktemp("implicit")
    names = {"user_id": "uid", "item_id": "sku"}
    out = {}
    for role in ("train", "test"):
        frame = pd.read_csv(EXAMPLE / f"{role}.csv").drop(columns=["rating", "timestamp"])
        frame = frame.rename(columns=names)
        frame.to_csv(d / f"{role}.csv", index=False)
        out[role] = d / f"{role}.csv"
    recs = pd.read_csv(EXAMPLE / "recs.csv").rename(columns={**names, "score": "relevance"})
    recs.to_csv(d / "recs.csv", index=False)
    out["recs"] = d / "recs.csv"
    return out


COLUMNS = {"uid": "user_id", "sku": "item_id", "relevance": "score"}


def test_a_file_without_its_id_columns_is_named_with_every_column_it_has(implicit) -> None:
    with pytest.raises(ParameterError) as info:
        check_files("sample", {"TRAIN": str(implicit["train"]), "TEST": str(implicit["test"])})
    assert str(info.value) == (
        "parameter TRAIN: 'train.csv' has no user_id column (a column named user_id or userId "
        "or userID or user); it has uid, sku. Map yours with COLUMNS (evalkit "
        "report --columns uid=user_id).")
    with pytest.raises(ParameterError, match=r"parameter RECS\['mine'\]: 'recs.csv' has no "
                       r"user_id column .*; it has uid, sku, relevance, rank\."):
        check_files("sample", {"RECS": {"mine": str(implicit["recs"])}})
    unranked = implicit["recs"].with_name("unranked.csv")
    pd.read_csv(implicit["recs"]).drop(columns="rank").to_csv(unranked, index=False)
    with pytest.raises(ParameterError, match=r"RECS\['mine'\]: 'unranked.csv' has no rank or "
                       r"score column .*; it has uid, sku, relevance\."):
        check_files("sample", {"RECS": {"mine": str(unranked)},
                               "COLUMNS": {"uid": "user_id", "sku": "item_id"}})


def test_columns_map_every_file_and_tell_whether_there_are_ratings(implicit) -> None:
    params = {"TRAIN": str(implicit["train"]), "TEST": str(implicit["test"]),
              "RECS": {"mine": str(implicit["recs"])}, "COLUMNS": COLUMNS}
    found = check_files("sample", params)
    assert not found.has_ratings
    assert found.columns["RECS['mine']"] == ["uid", "sku", "relevance", "rank"]
    assert check_files(str(EXAMPLE), {}).has_ratings
    assert check_files("sample", {}).has_ratings
    # each file takes the entries it has, for the columns of its kind
    assert columns_for(["uid", "sku", "relevance"], COLUMNS, "recs") == COLUMNS
    assert columns_for(["uid", "relevance"], COLUMNS, "interactions") == {"uid": "user_id"}
    assert columns_for(["uid", "relevance"], COLUMNS, "predictions") == {
        "uid": "user_id", "relevance": "prediction"}


def test_predictions_and_items_files_are_checked_too(tmp_path) -> None:
    (tmp_path / "p.csv").write_text("user_id,item_id,value\n1,2,3.5\n")
    (tmp_path / "i.csv").write_text("id,title\n1,x\n")
    with pytest.raises(ParameterError, match=r"PREDICTIONS\['m'\]: 'p.csv' has no prediction "
                       r"column .*prediction or score or pred\); it has user_id, item_id, value"):
        check_files("sample", {"PREDICTIONS": {"m": str(tmp_path / "p.csv")}})
    check_files("sample", {"PREDICTIONS": {"m": str(tmp_path / "p.csv")},
                           "COLUMNS": {"value": "prediction"}})
    with pytest.raises(ParameterError, match=r"ITEMS: 'i.csv' has no item_id column"):
        check_files("sample", {"ITEMS": str(tmp_path / "i.csv")})


@pytest.fixture(scope="module")
def implicit_run(implicit, tmp_path_factory) -> tuple[Path, Path]:
    """One run of four pages on implicit data without timestamps, with cutoffs that do not
    hold the default K: one page needs ratings, one a threshold, two nothing; a scratch
    notebook lies beside them."""
    base = tmp_path_factory.mktemp("plan")
    nbs = base / "nbs"
    _notebook(nbs, "01-any")
    _notebook(nbs, "02-rated", needs=["ratings"])
    _notebook(nbs, "03-classified", needs=["threshold"])
    _notebook(nbs, "04-last")
    _notebook(nbs, "Untitled")
    out = base / "out"
    run_reports("sample", out=out, notebooks=nbs, progress=False, parameters={
        "TRAIN": str(implicit["train"]), "TEST": str(implicit["test"]),
        "RECS": {"mine": str(implicit["recs"])}, "COLUMNS": COLUMNS, "K_VALUES": [5, 20]})
    return out, nbs


def test_pages_the_inputs_cannot_feed_are_left_out_and_said_so(implicit_run) -> None:
    out, _ = implicit_run
    names = sorted(p.name for p in out.iterdir() if p.suffix == ".html")
    assert names == ["01-any.html", "04-last.html", "index.html"]
    index = (out / "index.html").read_text()
    assert "Page 02-rated</td><td>not run: the data has no rating column.</td>" in index
    assert "Page 03-classified</td><td>not run: THRESHOLD is None" in index
    assert "The data has no rating column: every test interaction is relevant (THRESHOLD " \
        "None), with binary gain." in index
    assert "Dataset: <b>train.csv + test.csv</b>" in index
    assert "Untitled" not in index
    # the pages that ran got THRESHOLD None, the nearest cutoff as K and the splits without
    # timestamps, and link to each other past the skipped ones
    assert json.loads((out / "01-any.json").read_text()) == {
        "threshold": "None", "k": 5, "strategies": "random user_ratio"}
    assert "next: Page 04-last" in (out / "01-any.html").read_text()
    assert "K_VALUES [5, 20] does not hold the default K = 10: the single-k views use K = " \
        "5, the nearest of them (set K to choose another)." in index
    assert "The data has no timestamp column: the splitting page compares the random and " \
        "per-user splits only." in index


def test_a_threshold_set_for_data_without_ratings_is_refused_before_anything_runs(
        implicit, tmp_path) -> None:
    nbs = tmp_path / "nbs"
    _notebook(nbs, "01-any")
    out = tmp_path / "out"
    params = {"TRAIN": str(implicit["train"]), "TEST": str(implicit["test"]),
              "COLUMNS": COLUMNS}
    with pytest.raises(ParameterError, match=r"THRESHOLD=4.0 needs ratings, and the data has "
                       r"no rating column; give THRESHOLD None"):
        run_reports("sample", out=out, notebooks=nbs, progress=False,
                    parameters={**params, "THRESHOLD": 4.0})
    with pytest.raises(ParameterError, match=r"parameter SPLIT would be ignored"):
        run_reports("sample", out=out, notebooks=nbs, progress=False,
                    parameters={**params, "SPLIT": "random"})
    with pytest.raises(ParameterError, match=r"user_temporal needs timestamps, and the data "
                       r"has no timestamp column"):
        run_reports("sample", out=out, notebooks=nbs, progress=False,
                    parameters={**params, "THRESHOLD": None, "STRATEGIES": ["user_temporal"]})
    assert not check_files("sample", params).has_timestamps
    assert check_files("sample", {}).has_timestamps
    _notebook(nbs, "01-any", needs=["ratings"])
    with pytest.raises(ParameterError, match=r"no report can run on these inputs: 01-any."
                       r"ipynb: the data has no rating column"):
        run_reports("sample", out=out, notebooks=nbs, progress=False, parameters=params)
    assert not out.exists() or not any(out.iterdir())


def test_a_folder_s_reports_are_its_numbered_notebooks_or_a_list(tmp_path) -> None:
    for name in ("02-b", "01-a", "Untitled", "scratch-01"):
        _notebook(tmp_path, name)
    assert [p.name for p in find_notebooks(tmp_path)] == ["01-a.ipynb", "02-b.ipynb"]
    listed = find_notebooks([tmp_path / "Untitled.ipynb", tmp_path / "02-b.ipynb"])
    assert [p.name for p in listed] == ["02-b.ipynb", "Untitled.ipynb"]
    with pytest.raises(ReportError, match="not a notebook file"):
        find_notebooks([tmp_path / "missing.ipynb"])


def test_the_command_line_maps_columns() -> None:
    args = build_parser().parse_args(["report", "--columns", "uid=user_id", "sku=item_id",
                                      "--columns", "relevance=score,rank=rank"])
    assert report_parameters(args)["COLUMNS"] == {"uid": "user_id", "sku": "item_id",
                                                  "relevance": "score", "rank": "rank"}
    with pytest.raises(ValueError, match="--columns takes FILE_COLUMN=NAME"):
        report_parameters(build_parser().parse_args(["report", "--columns", "uid"]))


def test_notebook_parameters_read_as_papermill_reads_them() -> None:
    import papermill as pm

    from evalkit.report import notebook_parameters

    for path in find_notebooks():
        want = {name: {"type": p["inferred_type_name"], "default": p["default"],
                       "meaning": p["help"]}
                for name, p in pm.inspect_notebook(str(path)).items()}
        assert notebook_parameters(path) == want, path.name


def test_notebook_parameters_read_non_ascii_and_multi_line_cells_as_papermill(tmp_path) -> None:
    """Annotations and defaults that span lines or hold characters of several bytes (the
    parser slices the cell's lines by the byte offsets Python's ast gives)."""
    import nbformat
    import papermill as pm

    from evalkit.report import notebook_parameters

    cell = nbformat.v4.new_code_cell(
        'TITLE: str = "Évaluation — k ≥ 10"  # the title, « quoted »\n'
        "K_VALUES: list[int] = [1, 5,\n"
        "                       10, 20]  # cutoffs, ≤ 100\n"
        'NAMES: "dict[str, str]" = {"é": "ü",\n'
        '    "ß": "ø"}\n'
        "PLAIN = 3\n")
    cell.metadata["tags"] = ["parameters"]
    path = tmp_path / "params.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[cell], metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3", "language": "python"}}), path)
    want = {name: {"type": p["inferred_type_name"], "default": p["default"],
                   "meaning": p["help"]}
            for name, p in pm.inspect_notebook(str(path)).items()}
    assert notebook_parameters(path) == want
    assert want["K_VALUES"]["default"] == "[1, 5,10, 20]"


def test_a_failed_run_resumes_with_only_the_pages_it_did_not_finish(tmp_path) -> None:
    """The first page succeeds and the second fails; fixed, --resume runs the second only
    (the first page's files are those of the failed run), and publishes both."""
    nbs = tmp_path / "nbs"
    _notebook(nbs, "01-fine")
    flag = tmp_path / "broken"
    flag.write_text("")
    nb = nbformat.read(_notebook(nbs, "02-flaky"), as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(
        f"import pathlib\nassert not pathlib.Path({str(flag)!r}).exists(), 'still broken'"))
    nbformat.write(nb, nbs / "02-flaky.ipynb")
    out = tmp_path / "out"
    with pytest.raises(ReportError, match=r"02-flaky.ipynb failed .*--resume"):
        run_reports("sample", out=out, notebooks=nbs, progress=False, jobs=1)
    finished = (out / ".failed" / "01-fine.html").stat().st_mtime_ns
    with pytest.raises(ReportError, match=r"was made with other parameters; resuming would "
                       r"mix"):
        run_reports("sample", out=out, notebooks=nbs, progress=False, resume=True,
                    parameters={"THRESHOLD": 3.0})
    flag.unlink()
    written = run_reports("sample", out=out, notebooks=nbs, progress=False, resume=True)
    assert [p.name for p in written] == ["01-fine.html", "02-flaky.html", "index.html"]
    assert (out / "01-fine.html").stat().st_mtime_ns == finished  # taken, not run again
    assert "the 1 page(s) kept from the interrupted run are not counted" in (
        out / "index.html").read_text()  # in the peak memory the run states
    assert not (out / ".failed").exists()
    with pytest.raises(ReportError, match=r"nothing to resume"):
        run_reports("sample", out=out, notebooks=nbs, progress=False, resume=True)


def test_a_kernel_that_could_not_start_is_started_again_once(tmp_path, monkeypatch) -> None:
    from evalkit.report import _runner

    real, calls = _runner._papermill, []

    def flaky(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:  # as when another process took the kernel's port
            raise RuntimeError("Kernel died before replying to kernel_info")
        return real(*args, **kwargs)

    monkeypatch.setattr(_runner, "_papermill", flaky)
    _notebook(tmp_path / "nbs", "01-any")
    run_reports("sample", out=tmp_path / "out", notebooks=tmp_path / "nbs", progress=False)
    assert len(calls) == 2 and (tmp_path / "out" / "01-any.html").exists()


def test_the_data_s_size_is_told_from_metadata_or_the_first_lines(tmp_path) -> None:
    from evalkit.report._plan import MOVIELENS_ROWS, estimated_rows

    train = pd.read_csv(EXAMPLE / "train.csv")
    train.to_parquet(tmp_path / "train.parquet", index=False)
    assert estimated_rows(tmp_path / "train.parquet") == len(train)
    guess = estimated_rows(EXAMPLE / "train.csv")
    assert abs(guess - len(train)) <= 0.05 * len(train)
    (tmp_path / "empty.csv").write_text("user_id,item_id\n")
    assert estimated_rows(tmp_path / "empty.csv") == 0
    assert estimated_rows(tmp_path / "missing.csv") is None
    test = pd.read_csv(EXAMPLE / "test.csv")
    found = check_files("sample", {"TRAIN": str(tmp_path / "train.parquet"),
                                   "TEST": str(EXAMPLE / "test.csv")})
    assert abs(found.rows - len(train) - len(test)) <= 0.05 * len(test)
    assert check_files("ml-25m", {}).rows == MOVIELENS_ROWS["ml-25m"] == 25_000_095
    assert check_files("sample", {}).rows is None


def test_beyond_ten_million_interactions_the_pages_keep_to_a_memory_budget_unless_told(
        ) -> None:
    from evalkit.report._runner import MEMORY_BUDGET_GB, SIDE_BY_SIDE_ROWS, _fit_jobs

    assert _fit_jobs(None, None, ["a"]) == (2, ["a"], None)
    assert _fit_jobs(None, SIDE_BY_SIDE_ROWS, []) == (2, [], None)
    jobs, notes, budget = _fit_jobs(None, 23_055_542, [])
    assert jobs == 2 and budget == MEMORY_BUDGET_GB == 8.0
    assert notes[0].startswith("Two pages ran side by side only where the memory each is "
                               "expected to hold fit under 8 GB together, otherwise one at "
                               "a time: the data holds about 23,055,542 interactions")
    assert "on which a page is expected to hold up to about 5.3 GB" in notes[0]  # 0.229 GB/M
    assert "--jobs 2 runs two at a time regardless" in notes[0]
    assert _fit_jobs(2, 23_055_542, []) == (2, [], None)
    assert _fit_jobs(1, 23_055_542, []) == (1, [], None)


def test_a_rewritten_file_inside_the_data_folder_changes_what_a_resume_compares(
        tmp_path) -> None:
    import os

    from evalkit.report._runner import _manifest

    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "train.csv").write_text("user_id,item_id\n1,2\n")
    before = _manifest({"DATASET": str(folder)}, [], spark=False, show_code=False)
    stat = (folder / "train.csv").stat()
    (folder / "train.csv").write_text("user_id,item_id\n1,3\n")  # same size, new content
    os.utime(folder / "train.csv", ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    after = _manifest({"DATASET": str(folder)}, [], spark=False, show_code=False)
    assert after["files"] != before["files"]
