"""evalkit.Definitions: one object, validated once, accepted the same way everywhere."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pandas as pd
import pytest

import evalkit as ek
from evalkit import metrics
from evalkit.definitions import OPTION_NAMES, UNSET, choices, resolve

ROOT = Path(__file__).resolve().parents[1]


def small() -> tuple[pd.DataFrame, pd.DataFrame]:
    truth = pd.DataFrame({"user_id": [1, 1, 2, 3], "item_id": [10, 11, 10, 12],
                          "rating": [5.0, 3.0, 4.0, 2.0]})
    recs = pd.DataFrame({"user_id": [1, 1, 2, 2, 3], "item_id": [11, 10, 12, 10, 12],
                         "score": [2.0, 2.0, 1.0, 0.5, 1.0]})
    return truth, recs


def test_defaults_repr_and_round_trip() -> None:
    d = ek.Definitions()
    assert repr(d) == "Definitions()"
    assert d.changed() == {}
    e = ek.Definitions(threshold=3.5, gain="exponential", ap_denominator="relevant")
    assert repr(e) == "Definitions(threshold=3.5, gain='exponential', ap_denominator='relevant')"
    assert ek.Definitions.from_dict(json.loads(json.dumps(e.as_dict()))) == e
    assert set(e.as_dict()) == set(OPTION_NAMES) | {"profile"}
    assert hash(e) == hash(ek.Definitions.from_dict(e.as_dict()))
    with pytest.raises(Exception):
        e.gain = "binary"  # frozen


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"gain": "log"}, ValueError, r"Definitions: unknown gain 'log'; valid values are "
                                  r"'linear', 'exponential', 'binary'"),
    ({"log_base": 1.0}, ValueError, r"'log_base' must be a finite number greater than 1"),
    ({"threshold": "4"}, TypeError, r"'threshold' must be a finite number or None"),
    ({"half_life": True}, TypeError, r"'half_life'"),
    ({"ideal": "k"}, ValueError, r"ideal='k'.*needs gain='binary'"),
    ({"tresh": 4.0}, TypeError, r"tresh"),
])
def test_bad_definitions_name_the_field(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        ek.Definitions(**kwargs)


def test_flat_keywords_override_definitions_and_profiles() -> None:
    base = ek.Definitions(gain="binary", empty="zero")
    assert resolve(base, func="f", empty="nan") == ek.Definitions(gain="binary", empty="nan")
    lenskit = resolve("lenskit", func="f", empty="drop")
    assert lenskit.profile == "lenskit" and lenskit.empty == "drop"
    assert lenskit.recall_denominator == "min"  # the rest of the profile stays
    assert resolve(None, func="f", gain=UNSET) == ek.Definitions()
    with pytest.raises(ValueError, match="f: ideal='k'"):
        resolve(None, func="f", ideal="k")  # the rule between fields, named by the caller
    with pytest.raises(TypeError, match="'definitions' must be an evalkit.Definitions"):
        resolve(3, func="f")


def test_every_entry_point_takes_the_same_options() -> None:
    # a metric's function takes the fields its declaration reads; the calls that compute
    # several metrics take them all
    for metric in metrics.RANKING_METRICS.values():
        params = inspect.signature(metric.func).parameters
        assert "definitions" in params, metric.name
        assert {n for n, p in params.items() if p.default is UNSET} == set(metric.reads)
    assert len(metrics.RANKING_METRICS["ndcg"].reads) < len(OPTION_NAMES)
    for function in (metrics.ranking_curves, metrics.rank, ek.evaluate, ek.compare,
                     ek.cross_validate):
        params = inspect.signature(function).parameters
        assert "definitions" in params, function.__name__
        options = {n for n, p in params.items() if p.default is UNSET}
        assert options == set(OPTION_NAMES), function.__name__
    # the command line: one flag per option, with the valid values of the definitions
    from evalkit.cli import _parser as build_parser

    parser = build_parser()
    evaluate = parser._subparsers._group_actions[0].choices["evaluate"]  # noqa: SLF001
    flags = {a.dest[4:]: a for a in evaluate._actions if a.dest.startswith("def_")}
    assert set(flags) == set(OPTION_NAMES)
    for name, action in flags.items():
        assert (tuple(action.choices) if action.choices else None) == choices(name)
    # beyond-accuracy functions: the options that apply to them
    assert {"definitions", "gini_scale"} <= set(inspect.signature(metrics.gini_index).parameters)
    assert {"definitions", "novelty_norm", "popularity"} <= set(
        inspect.signature(metrics.novelty).parameters)


def test_unknown_keyword_lists_the_definitions() -> None:
    truth, recs = small()
    with pytest.raises(TypeError, match="precision_at_k: .*threshhold.*the definitions it takes"):
        metrics.precision_at_k(truth, recs, threshhold=4.0)
    # a definition the metric does not read is refused, naming those it reads
    with pytest.raises(ek.InvalidParameterError,
                       match=r"ndcg_at_k: 'gini_scale' does not change this metric; the "
                             r"definitions it reads are threshold, gain, .*tie_order\."):
        metrics.ndcg_at_k(truth, recs, gini_scale="fixed")
    with pytest.raises(ValueError, match="'ap_denominator', 'gain' do not change"):
        metrics.recall_at_k(truth, recs, ap_denominator="hits", gain="binary")


def test_evaluate_records_the_whole_object() -> None:
    truth, recs = small()
    result = ek.evaluate(truth, recs, k=2, definitions="trec_eval", n_resamples=0)
    assert result.definitions == result.as_definitions() == ek.profile("trec_eval")
    assert result.definitions.profile == "trec_eval"
    assert result.bootstrap == {"confidence": 0.95, "n_resamples": 0, "rng": 0}
    saved = result.to_dict()
    assert set(OPTION_NAMES) <= set(saved["definitions"]) and saved["bootstrap"] == \
        result.bootstrap
    # a mapping of both (results saved before the two were separate) is split again
    again = ek.Evaluation(result.per_user, result.summary,
                          definitions=saved["definitions"] | {"confidence": 0.9,
                                                              "bootstrap_seed": 3})
    assert again.definitions == result.definitions
    assert again.bootstrap == {"confidence": 0.9, "rng": 3}
    # a profile's default metrics are those it reproduces
    assert set(result.summary["metric"]) == set(ek.PROFILES["trec_eval"].metrics)


def test_flat_keyword_and_definitions_give_the_same_numbers() -> None:
    truth, recs = small()
    a = ek.evaluate(truth, recs, k=2, gain="binary", ties="optimistic", n_resamples=0)
    b = ek.evaluate(truth, recs, k=2, definitions=ek.Definitions(gain="binary",
                                                                  ties="optimistic"),
                    n_resamples=0)
    c = ek.evaluate(truth, recs, k=2, definitions={"gain": "binary", "ties": "optimistic"},
                    n_resamples=0)
    pd.testing.assert_frame_equal(a.per_user, b.per_user)
    pd.testing.assert_frame_equal(a.per_user, c.per_user)


@pytest.mark.filterwarnings("ignore::evalkit.metrics.TieWarning")
def test_per_metric_definitions_apply_to_their_metric_only() -> None:
    truth, recs = small()
    d = ek.Definitions(per_metric={"mrr": {"tie_order": "item_desc"}})
    result = ek.evaluate(truth, recs, k=1, metrics=["precision", "mrr"], definitions=d,
                         n_resamples=0)
    desc = ek.evaluate(truth, recs, k=1, metrics=["mrr"], tie_order="item_desc",
                       n_resamples=0)
    asc = ek.evaluate(truth, recs, k=1, metrics=["precision"], n_resamples=0)
    pd.testing.assert_series_equal(result.per_user["mrr@1"], desc.per_user["mrr@1"])
    pd.testing.assert_series_equal(result.per_user["precision@1"], asc.per_user["precision@1"])
    # user 1's tie (items 10 and 11) decides: ascending puts the relevant 10 first
    assert result.per_user.loc[1, "precision@1"] == 1.0 and result.per_user.loc[1, "mrr@1"] == 0.0


def test_compare_and_cross_validate_use_the_definitions() -> None:
    truth, recs = small()
    other = recs.assign(score=-recs["score"])
    table = ek.compare({"a": recs, "b": other}, truth, k=2, metrics=["ndcg"],
                       definitions="rectools", n_resamples=0, n_permutations=10)
    want = ek.evaluate(truth, recs, k=2, metrics=["ndcg"], definitions="rectools",
                       n_resamples=0).mean("ndcg", 2)
    assert table.loc[table["system"] == "a", "mean"].item() == pytest.approx(want)


def test_cli_profile_is_recorded(tmp_path: Path) -> None:
    truth, recs = small()
    truth.to_csv(tmp_path / "t.csv", index=False)
    recs.to_csv(tmp_path / "r.csv", index=False)
    out = tmp_path / "o.json"
    from evalkit.cli import main  # the command's entry point, in this process

    assert main(["evaluate", "--truth", str(tmp_path / "t.csv"), "--recs",
                 str(tmp_path / "r.csv"), "--profile", "rectools", "--k", "2",
                 "--out", str(out)]) == 0
    recorded = json.loads(out.read_text())["definitions"]
    assert recorded["profile"] == "rectools" and recorded["ideal"] == "k"
    # and read back with --definitions, a flag overriding one field
    again = tmp_path / "o2.json"
    assert main(["evaluate", "--truth", str(tmp_path / "t.csv"), "--recs",
                 str(tmp_path / "r.csv"), "--definitions", str(out), "--k", "2",
                 "--empty", "zero", "--out", str(again)]) == 0
    second = json.loads(again.read_text())["definitions"]
    assert second["empty"] == "zero" and second["ideal"] == "k" and second["profile"] == "rectools"


def test_the_kernel_codes_every_value_of_its_options() -> None:
    # the compiled kernel numbers the rules it implements; they must be exactly the values
    # the definitions allow (a new value needs a kernel branch)
    from evalkit.metrics import _kernels

    assert set(_kernels.AP_RULES) == set(choices("ap_denominator"))
    assert set(_kernels.RECALL_RULES) == set(choices("recall_denominator"))
    assert set(_kernels.IDEAL_RULES) == set(choices("ideal"))
