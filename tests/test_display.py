"""What a notebook shows of evalkit's results: a comparison as its answer (differences,
intervals, Holm p-values, with a sentence on reading intervals beside corrected p-values),
audits with their text whole, descriptions as text, progress that leaves nothing behind."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pandas as pd

import evalkit as ek
from evalkit._display import Text, WideTable, progress


def _disagreeing() -> tuple[dict, pd.DataFrame]:
    """Two systems that differ for 6 of 40 users, on five metrics: each interval excludes 0
    (a bootstrap sample without one of the six has probability (34/40)^40), while the
    randomization p-value, 2/64 at best, exceeds 0.05 once Holm multiplies it by 5."""
    users = np.arange(40)
    truth = pd.DataFrame({"user_id": users, "item_id": 1, "rating": 5.0})
    a = pd.DataFrame({"user_id": users, "item_id": np.where(users < 20, 1, 2), "rank": 1})
    b = pd.DataFrame({"user_id": users, "item_id": np.where(users < 26, 1, 2), "rank": 1})
    return {"a": a, "b": b}, truth


def test_a_comparison_shows_its_answer_and_reconciles_intervals_with_holm() -> None:
    systems, truth = _disagreeing()
    table = ek.compare(systems, truth, k=1)
    assert isinstance(table, ek.Comparison)
    pairs = table[table["against"].notna()]
    assert len(pairs) == 5
    assert (pairs["diff_ci_low"] > 0).all() and not pairs["significant"].any()
    shown = table.readable()
    assert list(shown.columns) == ["system", "against", "metric", "difference", "d_z",
                                   "p (Holm)", "significant", "better", "detectable", "users"]
    assert set(shown["significant"]) == {"no"} and (shown["system"] == "b").all()
    assert shown["difference"].iloc[0].startswith("+0.1500 [+")  # 6 of 40 users, above 0
    assert re.fullmatch(r"\+\d\.\d\d \[\+\d\.\d\d, \+\d\.\d\d\]", shown["d_z"].iloc[0])
    text = repr(table)
    assert "Holm-adjusted over all 5 tests" in text
    assert "an interval that excludes 0 can stand beside a non-significant p-value" in text
    html = table._repr_html_()
    assert html.count("<tr") == 6 and "against" in html and "ci_low" not in html
    # the full table one attribute away; anything derived is a plain DataFrame
    assert type(table.table) is pd.DataFrame and table.table.shape == (10, 27)
    assert type(table[table["significant"]]) is pd.DataFrame


def test_audits_show_their_detail_whole_and_descriptions_show_as_text() -> None:
    data = ek.load_sample()
    audit = ek.audit(ek.user_ratio_split(data.ratings, test_fraction=0.2, rng=0))
    assert isinstance(audit, WideTable)
    longest = max(audit["detail"], key=len)
    assert len(longest) > 50 and longest in audit._repr_html_().replace("&#x27;", "'")
    described = ek.PROFILES["lenskit"].describe()
    assert isinstance(described, Text) and repr(described) == str(described)
    assert described.splitlines()[0] == (
        "LensKit (lenskit) counts every test item it is given as relevant; given every test "
        "interaction, as its users usually give it, its numbers are evaluate(..., "
        "definitions='lenskit', threshold=None).")
    assert not ek.PROFILES["trec_eval"].describe().startswith("trec_eval counts")
    assert isinstance(ek.Definitions().describe(), Text)


def test_progress_outside_a_notebook_is_a_text_bar_and_inside_one_a_widget_or_nothing(
        capsys) -> None:
    assert list(progress(range(3), desc="folds")) == [0, 1, 2]
    assert "folds" in capsys.readouterr().err
    assert list(progress(range(3), desc="folds", enabled=False)) == [0, 1, 2]
    assert capsys.readouterr().err == ""
    # in a notebook kernel without ipywidgets: no text bar on stderr
    code = ("import sys, types\n"
            "class ZMQInteractiveShell: pass\n"
            "shell = ZMQInteractiveShell()\n"
            "sys.modules['IPython'] = types.SimpleNamespace(get_ipython=lambda: shell)\n"
            "sys.modules['ipywidgets'] = None\n"
            "from evalkit._display import progress\n"
            "print(list(progress(range(3), desc='folds')))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[0, 1, 2]" and done.stderr == ""


def test_an_evaluation_s_definitions_show_as_a_table_with_their_meaning() -> None:
    from IPython.lib.pretty import pretty

    systems, truth = _disagreeing()
    result = ek.evaluate(truth, systems["a"], k=1, gain="exponential")
    assert isinstance(result.definitions, ek.Definitions)
    assert result.definitions.gain == "exponential" and result.bootstrap["n_resamples"] == 1000
    settings = result.settings()  # the definitions and the bootstrap settings, as a table
    assert settings["gain"] == "exponential" and settings["n_resamples"] == 1000
    html = settings._repr_html_()
    assert "<th>gain</th>" in html and "'exponential'" in html
    assert "gain of a test item in DCG" in html and "bootstrap resamples" in html
    text = pretty(settings)
    assert text.splitlines()[0].split() == ["value", "meaning"]
    assert any(line.startswith("gain") and "'exponential'" in line
               for line in text.splitlines())


def test_a_summary_shows_4_decimals_and_keeps_full_precision_one_attribute_away() -> None:
    systems, truth = _disagreeing()
    result = ek.evaluate(truth, systems["b"], k=1, metrics=["precision", "ndcg"])
    summary = result.summary
    assert summary.loc["precision@1", "mean"] == 26 / 40  # 0.65, the value itself
    assert type(summary.table) is pd.DataFrame and list(summary.table.columns) == list(
        summary.columns)
    assert type(summary[["mean"]]) is pd.DataFrame and type(summary.copy()) is pd.DataFrame
    page = summary._repr_html_()
    assert "<th>label</th>" not in page and "<th>mean</th>" in page
    assert "0.6500" in page and ".table holds every column (metric, k, label" in page
    assert not re.search(r"\d\.\d{5,}", page + repr(summary))


def test_a_regression_check_at_the_randomization_floor_shows_a_plain_bound_and_why() -> None:
    systems, truth = _disagreeing()
    users = truth["user_id"]
    better = pd.DataFrame({"user_id": users, "item_id": 1, "rank": 1})  # every user hits
    now = ek.evaluate(truth, better, k=[1, 2], metrics=["precision", "ndcg", "mrr"])
    then = ek.evaluate(truth, systems["a"], k=[1, 2], metrics=["precision", "ndcg", "mrr"])
    check = ek.regression_check(now, then, test="randomization", n_permutations=999)
    # 20 of 40 users gain 1, the rest 0: no flip reaches it; 6 metrics x 1/1000 after Holm
    assert (check.table["p_value"] == 1 / 1000).all()
    assert set(check.readable()["p (adjusted)"]) == {"< 0.006"}
    text = check.to_markdown()
    assert "999 random sign flips give no p-value below 1/1,000" in text
    assert "after the Holm correction, rounded up" in text and "0.006" in repr(check)
    assert "< 0.006" in check._repr_html_().replace("&lt;", "<")
    plain = ek.regression_check(now, then)  # the t-test: no floor, no note
    assert set(plain.readable()["p (adjusted)"]) == {"< 0.001"} and not plain.notes


def test_curves_and_rating_errors_show_4_decimals_as_the_readme_promises() -> None:
    """``ranking_curves``, ``Evaluation.curves`` and ``rating_errors`` show their floats at 4
    decimals in a notebook (values at full precision, ``.table`` a plain DataFrame)."""
    truth = pd.DataFrame({"user_id": [1, 1, 2, 3], "item_id": [1, 2, 1, 3],
                          "rating": [5.0, 4.0, 3.0, 5.0]})
    recs = pd.DataFrame({"user_id": [1, 1, 1, 2, 3, 3], "item_id": [2, 4, 1, 5, 6, 3],
                         "rank": [1, 2, 3, 1, 1, 2]})
    predictions = truth.assign(prediction=[4.1234567, 3.3333333, 2.7777777, 4.4444444])
    shown = {"ranking_curves": ek.metrics.ranking_curves(truth, recs, k_max=3),
             "curves": ek.evaluate(truth, recs, k=3, curves=3, n_resamples=0).curves,
             "rating_errors": ek.metrics.rating_errors(truth, predictions, n_resamples=20)}
    for name, table in shown.items():
        page, text = table._repr_html_(), repr(table)
        assert re.search(r"\d\.\d{4}\b", page), name
        assert not re.search(r"\d\.\d{5,}", page + text), (name, text)
        assert type(table.table) is pd.DataFrame, name
        assert (table.to_numpy(np.float64) != np.round(table.to_numpy(np.float64), 4)).any()
