"""The README's other commands (see tests/test_reports.py, which runs the first, ``make
report``): ``evalkit report`` on implicit data with the analyst's own column names, and the
parameter list. A module of their own, so that they run beside the first."""

from __future__ import annotations

import json
import re

import pytest

import evalkit as ek
from tests.test_reports import check_readme_run, readme_commands, run_readme_commands


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    return run_readme_commands(tmp_path_factory.mktemp("readme"), slice(1, None))


@pytest.mark.slow
def test_the_other_readme_commands_produce_their_reports(runs) -> None:
    assert [command for command, _, _ in runs] == readme_commands()[1:]
    for command, done, out in runs:
        check_readme_run(command, done, out)
    # the implicit data: no ratings, so the two pages that need them are left out, saying so,
    # and the Spark page, not asked for (make report asks for it)
    command, done, out = runs[0]
    index = (out / "index.html").read_text()
    assert f"wrote 6 report(s) and {out / 'index.html'}" in done.stdout
    assert index.count("not run: the data has no rating column.") == 2
    assert "not run: the Spark page runs when asked (evalkit report --spark" in index
    assert "Dataset: <b>train.csv + test.csv</b>" in index
    assert "my-model (my-model.csv)" in index
    ranking = json.loads((out / "05-ranking.json").read_text())
    truth = ek.load_interactions(out.parent / "my" / "test.csv",
                                 columns={"uid": "user_id", "sku": "item_id"})
    recs = ek.read_recommendations(out.parent / "runs" / "my-model.csv",
                                   columns={"uid": "user_id", "sku": "item_id",
                                            "relevance": "score"})
    want = ek.evaluate(truth, recs, k=10, metrics=["ndcg"], threshold=None, gain="binary")
    assert ranking["ndcg@10 my-model"] == pytest.approx(float(f"{want.mean('ndcg', 10):.6g}"))
    # the files' user and item ids are the embedded sample's, and DATASET keeps its default
    # ("sample"): still no page shows the sample's users' attributes or its items' titles
    sample = ek.load_sample()
    words = {"gender", *(set(sample.users["occupation"]) - {"other"}), *sample.items["title"]}
    # one pattern of every word, standing alone (a search for each of the 2,350 took 80 s
    # over six pages); the alternation backtracks into every word, so it matches wherever one
    # of them would
    any_word = re.compile(rf"(?<!\w)(?:{'|'.join(map(re.escape, words))})(?!\w)")
    for page in sorted(out.glob("*.html")):
        text = re.sub(r"<[^>]+>", " ", page.read_text())
        assert not any_word.findall(text), page.name
    groups = (out / "07-model-comparison.html").read_text()
    assert "User groups are not shown: the data has no user attributes" in groups
