"""Command line: ``python -m evalkit {evaluate,report,sample,check,sample-candidates}``."""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

__all__ = ["main"]

_DESCRIPTION = """\
evalkit: explicit, fast, tested evaluation of recommender systems.

commands:
  evaluate  score a recommendation file against a test file; prints the summary table
            and writes it as JSON (with --save, as a saved run in a folder)
  report    run every notebook on a dataset and render HTML reports
  sample    write the embedded MovieLens-like sample (and a split of it) to CSV files
  check     check a saved run against a saved baseline run (did it regress?); Markdown
            on stdout, exit status 0 when it passes, 1 when it fails
  sample-candidates
            draw negatives for each held-out item (RecBole's uni100 by default) and write
            the candidates for your model to score
"""


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose usage errors are the one line that matters and where to
    read more, not the whole usage (30 lines for ``report``) before it."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n(see {self.prog} --help)\n")


def _prog() -> str:
    """The command as it was typed: ``evalkit`` for the installed script, else
    ``python -m evalkit``."""
    return "evalkit" if Path(sys.argv[0]).name == "evalkit" else "python -m evalkit"


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=_prog(),
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--debug", action="store_true",
                        help="show the full traceback of an error instead of one line")
    sub = parser.add_subparsers(dest="command", metavar="command", parser_class=_Parser)

    ev = sub.add_parser(
        "evaluate",
        help="score recommendations against test truth",
        description="Score a recommendation file against a test file with every ranking "
        "metric (or those named by --metrics), print the summary with bootstrap confidence "
        "intervals, and write it as JSON (--out), or save the run to a folder (--save DIR), "
        "or both.",
    )
    ev.add_argument("--truth", required=True, type=Path,
                    help="test interactions, CSV or Parquet (user_id, item_id, rating; "
                    "MovieLens names such as userId/movieId are recognised)")
    ev.add_argument("--recs", required=True, type=Path,
                    help="recommendations, CSV or Parquet (user_id, item_id, rank and/or score)")
    ev.add_argument("--k", type=_cutoff, nargs="+", default=[10],
                    help="cutoff(s) (default: 10)")
    ev.add_argument("--metrics", nargs="+", default=None,
                    help="registry names or the labels tables print, case-sensitive (ndcg or "
                    "NDCG, precision or P; default: every built-in ranking metric of the "
                    "engine; first_relevant_rank and metrics of your own by name)")
    ev.add_argument("--metrics-module", action="append", default=[], metavar="MODULE",
                    help="a module or .py file that registers metrics of your own "
                    "(evalkit.metrics.register); repeat for several")
    ev.add_argument("--train", type=Path, default=None,
                    help="training interactions, CSV or Parquet (needed by --unknown-items "
                    "drop and the cornac profile)")
    _definition_arguments(ev)
    ev.add_argument("--seed", type=_seed, default=0, help="bootstrap seed (default: 0)")
    ev.add_argument("--curves", type=_positive_int, default=None, metavar="K_MAX",
                    help="also write the mean P, R, F1, HR, MAP, MRR and NDCG at every cutoff "
                         "1..K_MAX to the JSON ('curves')")
    ev.add_argument("--out", type=Path, default=None,
                    help="JSON output path (default: the recommendations file's name with "
                    ".evaluation.json for its suffix, beside it; with --save, no JSON unless "
                    "--out is given)")
    ev.add_argument("--save", type=Path, default=None, metavar="DIR",
                    help="save the run to the folder DIR (per-user values, definitions, "
                    "fingerprints of the data), for evalkit check and evalkit.load_evaluation; "
                    "nothing is written outside DIR unless --out is given too")
    ev.add_argument("--name", default=None,
                    help="the run's name in DIR (default: the recommendations file's name)")
    ev.add_argument("--force", action="store_true",
                    help="replace an existing output file or saved run (default: refuse)")

    sc = sub.add_parser(
        "sample-candidates",
        help="write sampled candidates for your model to score",
        description="Draw negatives for each held-out item (evalkit.protocols.sampled."
        "sample_negatives; the defaults are RecBole's uni100) and write the candidates: "
        "user_id, item_id, positive, group, probability, n_negatives, n_possible, replace. "
        "Add a 'score' column from your model and read it back with "
        "evalkit.protocols.sampled.sampled_ranks to get the sampled and corrected metrics.",
        epilog="example: evalkit sample-candidates --truth test.csv --train train.csv "
        "--out candidates.csv --n-negatives 100 --scheme popularity",
    )
    sc.add_argument("--truth", required=True, type=Path, help="held-out interactions")
    sc.add_argument("--train", type=Path, default=None,
                    help="training interactions (excluded from the negatives; the popularity "
                    "scheme's weights)")
    sc.add_argument("--out", required=True, type=Path, help="candidates file (CSV or Parquet)")
    sc.add_argument("--n-negatives", type=_negatives, default=100,
                    help="negatives per positive (or per user), or 'all' (default: 100)")
    sc.add_argument("--scheme", choices=["uniform", "popularity"], default="uniform",
                    help="how negatives are drawn (default: uniform)")
    sc.add_argument("--per", choices=["positive", "user"], default="positive",
                    help="one draw per held-out item or per user (default: positive)")
    sc.add_argument("--keep-seen", action="store_true",
                    help="let training items be negatives (default: excluded)")
    sc.add_argument("--without-replacement", action="store_true",
                    help="draw without replacement (uniform scheme only)")
    sc.add_argument("--seed", type=_seed, default=0, help="seed of the draws (default: 0)")
    sc.add_argument("--force", action="store_true", help="replace an existing --out file")

    ck = sub.add_parser(
        "check",
        help="check a saved run against a saved baseline run",
        description="Pair the users of two saved runs (evalkit evaluate --save) and give each "
        "metric a verdict: improved, unchanged, non-inferior, regressed or inconclusive "
        "(evalkit.regression_check). Prints Markdown (for a pull-request comment); exit "
        "status 0 when the check passes, 1 when it fails (a regressed metric; with --strict "
        "also an inconclusive one), 2 for usage errors and runs that cannot be compared "
        "(other test data, other definitions).",
        epilog="example: evalkit check --baseline runs/main --current runs/branch "
        "--margin NDCG@10=0.005 --margin precision=1%%",
    )
    ck.add_argument("--baseline", required=True, type=_saved_run, metavar="DIR",
                    help="the saved baseline run")
    ck.add_argument("--current", required=True, type=_saved_run, metavar="DIR",
                    help="the saved run to check")
    ck.add_argument("--margin", action="append", default=[], metavar="METRIC@K=VALUE",
                    help="the loss you accept for a metric at a cutoff (ndcg@10=0.005), for a "
                    "metric at every cutoff (ndcg=0.005), or relative to the baseline "
                    "(ndcg@10=1%%); the metric by registry name or by the label the tables "
                    "print, case-sensitive (NDCG@10=0.005, P=0.01); a cutoff's margin wins over "
                    "the metric's, and a bare VALUE applies to every other metric; repeat for "
                    "several (default: 0)")
    ck.add_argument("--strict", action="store_true",
                    help="fail on an inconclusive metric too, not only on a regressed one")
    ck.add_argument("--coverage", action="store_true",
                    help="also check catalog coverage at each cutoff, from the runs' saved "
                    "lists (paired user bootstrap)")
    ck.add_argument("--alpha", type=_level, default=0.05,
                    help="level of the tests after the correction (default: 0.05)")
    ck.add_argument("--test", choices=["t", "randomization", "bootstrap"], default="t",
                    help="the paired test (default: t)")
    ck.add_argument("--correction", choices=["holm", "bonferroni", "none"], default="holm",
                    help="correction over the metrics (default: holm)")
    ck.add_argument("--seed", type=_seed, default=0,
                    help="seed of the randomization and bootstrap (default: 0)")

    rp = sub.add_parser(
        "report",
        help="run the notebooks into HTML reports",
        description="Run every notebook in notebooks/ with papermill and render each to HTML "
        "in OUT, with an index page linking them (pages your inputs cannot feed, such as "
        "rating prediction without ratings, are left out, with the reason on the index). "
        "The data is DATA, split by the notebooks, "
        "or your own split (--train/--test); the systems are your recommendation files "
        "(--recs) beside evalkit's baselines (--baselines).",
        epilog="example: evalkit report --train data/example/train.csv --test "
        "data/example/test.csv --recs mine=data/example/recs.csv --out reports-mine",
    )
    rp.add_argument("--data", default="sample",
                    help="'sample' (default), a MovieLens name such as ml-latest-small, a "
                    "release folder or zip, or a folder with train.csv and test.csv")
    rp.add_argument("--train", default=None, metavar="FILE",
                    help="your training interactions (CSV/Parquet); with --test, no split is made")
    rp.add_argument("--test", default=None, metavar="FILE",
                    help="your test interactions (CSV/Parquet)")
    rp.add_argument("--items", default=None, metavar="FILE",
                    help="item table (item_id, title, genres) for diversity")
    rp.add_argument("--recs", action="append", default=[], metavar="NAME=FILE",
                    help="a system to evaluate: its name and recommendations file (user_id, "
                    "item_id, rank and/or score); repeat for several")
    rp.add_argument("--predictions", action="append", default=[], metavar="NAME=FILE",
                    help="rating predictions of a system (user_id, item_id, prediction); repeat")
    rp.add_argument("--columns", nargs="+", action="extend", default=[],
                    metavar="FILE_COLUMN=NAME",
                    help="your files' column names for evalkit's (user_id, item_id, rating, "
                    "timestamp, score, rank, prediction): --columns uid=user_id sku=item_id; "
                    "each file takes the ones it has")
    rp.add_argument("--baselines", nargs="*", default=None, metavar="NAME",
                    help="evalkit baselines beside your systems, ranking (MostPopular, ...) or "
                    "rating ('user + item bias', ...) (default: each notebook's; "
                    "none: give the flag alone)")
    rp.add_argument("-p", "--parameter", nargs=2, action="append", default=[],
                    metavar=("NAME", "VALUE"),
                    help="any notebook parameter; VALUE is read as YAML: -p K_VALUES '[5, 10]', "
                    "-p THRESHOLD None (see --list-parameters)")
    rp.add_argument("--list-parameters", action="store_true",
                    help="print every notebook parameter with its type, default and meaning")
    rp.add_argument("--out", type=Path, default=Path("reports"), help="output directory")
    rp.add_argument("--notebooks", type=Path, nargs="+", default=None,
                    help="a folder, whose numbered notebooks (NN-name.ipynb) are run, or "
                    "notebook files (default: the project's notebooks/)")
    rp.add_argument("--show-code", action="store_true", help="keep code cells in the HTML")
    rp.add_argument("--resume", action="store_true",
                    help="finish the run that failed into --out: run only the pages it did "
                    "not finish (kept in OUT/.failed), with the same inputs, then publish all")
    rp.add_argument("--spark", action="store_true",
                    help="also run the at-scale page on Spark (starts a JVM; make report asks "
                    "for it)")
    rp.add_argument("--metrics-module", action="append", default=[], metavar="MODULE",
                    help="a module or .py file that registers metrics of your own, for "
                    "-p METRICS (every notebook loads it); repeat for several")
    rp.add_argument("--jobs", type=_positive_int, default=None, metavar="N",
                    help="notebooks run at the same time (default: 2; beyond 10 million "
                    "interactions two only where their expected memory fits under 8 GB; "
                    "1: one after the other)")

    sm = sub.add_parser(
        "sample",
        help="write the embedded sample to CSV",
        description="Write the embedded MovieLens-like sample to OUT/ratings.csv and "
        "OUT/movies.csv, plus a per-user 80/20 split (train.csv, test.csv) and the top 20 of "
        "an EASE model (l2=50) for the test users (recs.csv), so the evaluate and report "
        "commands can be tried on your own files' shapes.",
    )
    sm.add_argument("--out", type=Path, required=True, help="output directory")
    sm.add_argument("--seed", type=_seed, default=0, help="generator seed (default: 0)")
    sm.add_argument("--users", type=int, default=None,
                    help="keep only this many users (those with the smallest ids)")
    sm.add_argument("--force", action="store_true",
                    help="replace files of the same names in OUT (default: refuse)")
    return parser


_DATA_SUFFIXES = (".csv", ".tsv", ".parquet", ".pq", ".gz", ".bz2", ".zip", ".xz", ".zst")


def default_output(recs: Path) -> Path:
    """``runs/m.v1.csv.gz`` -> ``runs/m.v1.evaluation.json``: only the file-type suffixes are
    dropped, so differently named inputs never share an output."""
    name = recs.name
    while Path(name).suffix.lower() in _DATA_SUFFIXES:
        name = name[: -len(Path(name).suffix)]
    return recs.with_name(f"{name}.evaluation.json")


def _check_output(out: Path, *, inputs: tuple[Path, ...], force: bool,
                  folder: bool = False) -> None:
    flag = "--save" if folder else "--out"
    if any(out.resolve() == Path(p).resolve() for p in inputs):
        raise ValueError(f"{flag} '{out}' names an input file; choose another path.")
    if folder:
        if out.exists() and not out.is_dir():
            raise ValueError(f"--save '{out}' is a file; give a folder path.")
        if out.is_dir() and any(out.iterdir()) and not force:
            raise ValueError(f"--save '{out}' exists (an earlier run?); pass --force to "
                             "replace it, or choose another folder.")
        return
    if out.is_dir():
        raise ValueError(f"--out '{out}' is a directory; give a file path.")
    if out.exists() and not force:
        raise ValueError(f"--out '{out}' exists (an earlier evaluation?); pass --force to "
                         "replace it, or choose another path.")


def _definition_arguments(parser: argparse.ArgumentParser) -> None:
    """--profile, --definitions FILE.json and one flag per field of evalkit.Definitions,
    built from the definitions themselves (names, valid values, meanings, defaults)."""
    from .definitions import OPTION_NAMES, choices, default, help_text
    from .profiles import PROFILES

    group = parser.add_argument_group(
        "definitions", "What the numbers mean (evalkit.Definitions). A flag overrides "
        "--definitions, which overrides --profile; unset flags keep evalkit's default.")
    group.add_argument("--profile", choices=list(PROFILES), default=None,
                       help="reproduce another library's conventions")
    group.add_argument("--definitions", type=Path, default=None, metavar="FILE.json",
                       help="definitions as JSON (Definitions.as_dict(), e.g. the "
                       "'definitions' of an earlier evaluation's JSON)")
    for name in OPTION_NAMES:
        valid = choices(name)
        kwargs: dict = {"default": None, "dest": f"def_{name}"}
        if valid:
            kwargs["choices"] = list(valid)
        else:
            kwargs["type"] = _definition_number(name)
            kwargs["metavar"] = "NUMBER"
        group.add_argument(f"--{name.replace('_', '-')}",
                           help=f"{help_text(name)} (default: {default(name)})", **kwargs)
    group.add_argument("--all-relevant", action="store_true",
                       help="every test item is relevant (implicit data): threshold None")


def _definitions_from(args: argparse.Namespace) -> object:
    """The Definitions the flags describe, validated (errors name the flag's field)."""
    import json

    from .definitions import OPTION_NAMES, Definitions, resolve

    base: object = args.profile
    if args.definitions is not None:
        data = json.loads(Path(args.definitions).read_text(encoding="utf-8"))
        data = data.get("definitions", data) if isinstance(data, dict) else data
        if isinstance(data, dict):  # an evaluation's JSON also records the bootstrap
            data = {k: v for k, v in data.items()
                    if k not in ("confidence", "n_resamples", "bootstrap_seed")}
        base = Definitions.from_dict(data, func="evalkit evaluate --definitions")
        if args.profile is not None:
            base = resolve(args.profile, func="evalkit evaluate",
                           **{k: getattr(base, k) for k in base.changed()})
    flags = {name: getattr(args, f"def_{name}") for name in OPTION_NAMES
             if getattr(args, f"def_{name}") is not None}
    if args.all_relevant:
        flags["threshold"] = None
    return resolve(base, func="evalkit evaluate", **flags)


def _evaluate(args: argparse.Namespace) -> int:
    from ._evaluation import evaluate
    from .data import load_interactions
    from .recs import read_recommendations

    _load_metric_modules(args)
    metrics = None
    if args.metrics is not None:
        from .metrics import RANKING_METRICS, get_metric

        metrics = [get_metric(m, func="evalkit evaluate", arg="--metrics",
                              choices=RANKING_METRICS).name for m in args.metrics]
    truth = load_interactions(args.truth)
    recs = read_recommendations(args.recs)
    definitions = _definitions_from(args)
    train = None if args.train is None else load_interactions(args.train)
    result = evaluate(
        truth, recs, k=args.k, metrics=metrics, train=train, definitions=definitions,
        rng=args.seed, curves=args.curves,
    )
    # --save alone writes into its folder only; the JSON beside the input is the default
    # of a command without --save
    out = args.out if args.out is not None or args.save is not None \
        else default_output(args.recs)
    inputs = tuple(p for p in (args.truth, args.recs, args.train, args.definitions)
                   if p is not None)
    if out is not None:
        _check_output(out, inputs=inputs, force=args.force)
    if args.save is not None:
        _check_output(args.save, inputs=inputs + ((out,) if out is not None else ()),
                      force=args.force, folder=True)
    if out is not None:
        result.to_json(out, overwrite=args.force)
    if args.save is not None:
        files = {"truth": str(args.truth), "recs": str(args.recs)} | (
            {} if args.train is None else {"train": str(args.train)})
        result.save(args.save, train=train, split={"files": files},
                    name=args.name or default_output(args.recs).name[:-len(".evaluation.json")],
                    overwrite=args.force)
    print(result.table().to_string(index=False))
    c = result.counts
    print(
        f"\n{c['users']} users evaluated, {c['users_without_recs']} without recommendations "
        f"(scored 0), {c['recs_only_users']} only in the recommendations (ignored)."
    )
    wrote = ([] if out is None else [str(out)]) + (
        [] if args.save is None else [f"the run to {args.save}"])
    print(f"wrote {' and '.join(wrote)}")
    return 0


def _margin_arguments(values: list[str]) -> dict[str, str]:
    """``--margin ndcg@10=0.005 --margin precision=1%`` as ``{key: value}`` (the key ``""``
    for a bare VALUE), each value a number >= 0 or a percentage."""
    out: dict[str, str] = {}
    for value in values:
        key, sep, number = value.rpartition("=")
        if not sep:
            if "" in out:
                raise ValueError("--margin gives a value for every metric twice.")
            key, number = "", value
        elif not key or not number:
            raise ValueError(f"--margin takes METRIC@K=VALUE (e.g. --margin ndcg@10=0.005); "
                             f"got {value!r}.")
        if key in out:
            raise ValueError(f"--margin names {key!r} twice.")
        text = number.strip()
        try:
            amount = float(text[:-1] if text.endswith("%") else text)
        except ValueError:
            amount = math.nan
        if not math.isfinite(amount) or amount < 0:
            raise ValueError(f"--margin takes a VALUE that is a number >= 0 or a percentage "
                             f"of the baseline such as 1%; got {value!r}.")
        out[key] = number
    return out


def _margins_of(args: argparse.Namespace) -> dict[str, str] | None:
    """The margin of each column of the baseline run that ``--margin`` sets: a cutoff's own
    margin, else its metric's, else the bare VALUE (keys read as regression_check reads
    them, the errors naming --margin)."""
    from ._regression import margin_targets
    from ._runs import read_run

    given = _margin_arguments(args.margin)
    every = given.pop("", None)
    if not given and every is None:
        return None
    summary = read_run(args.baseline, func="evalkit check --baseline")["summary"]
    columns = list(summary.index)
    metrics = [str(m) for m in summary["metric"]]
    named = columns + ([f"catalog_coverage@{k}" for k in sorted(
        {int(k) for k in summary["k"].dropna()})] if args.coverage else [])
    targets = margin_targets(given, named, metrics + ["catalog_coverage"] * (len(named)
                             - len(columns)), func="evalkit check", arg="--margin",
                             holder="the baseline run holds")
    # a bare VALUE is every row's the check reports, catalog coverage included (as the API)
    margins = dict.fromkeys(named, every) if every is not None else {}
    for key, (_, positions) in sorted(targets.items(), key=lambda item: item[1][0]):
        margins.update(dict.fromkeys((named[j] for j in positions), given[key]))
    return margins


def _sample_candidates(args: argparse.Namespace) -> int:
    from ._io import atomic_write_bytes
    from .data import load_interactions
    from .protocols.sampled import sample_negatives

    _check_output(args.out, inputs=tuple(p for p in (args.truth, args.train) if p is not None),
                  force=args.force)
    suffix = args.out.suffix.lower()
    if suffix not in (".csv", ".parquet", ".pq"):
        raise ValueError(f"--out '{args.out}' must end in .csv or .parquet.")
    if args.without_replacement and args.scheme == "popularity":
        raise ValueError("--without-replacement takes --scheme uniform only: the popularity "
                         "scheme draws with replacement (each draw's probability is the item's "
                         "share of the allowed popularity).")
    truth = load_interactions(args.truth)
    train = None if args.train is None else load_interactions(args.train)
    candidates = sample_negatives(truth, train, n_negatives=args.n_negatives, scheme=args.scheme,
                                  per=args.per, exclude_seen=not args.keep_seen,
                                  replace=not args.without_replacement, rng=args.seed)
    if suffix == ".csv":
        data = candidates.to_csv(index=False).encode("utf-8")
    else:
        import io

        buffer = io.BytesIO()
        candidates.to_parquet(buffer, index=False)
        data = buffer.getvalue()
    atomic_write_bytes(args.out, data, overwrite=args.force)
    groups = candidates["group"].nunique()
    print(f"wrote {len(candidates):,} candidates ({groups:,} groups, "
          f"{int((~candidates['positive']).sum()):,} negatives) to {args.out}")
    return 0


def _check(args: argparse.Namespace) -> int:
    from ._regression import regression_check
    from ._runs import IncomparableRunsError

    margins = _margins_of(args)
    try:
        check = regression_check(args.current, args.baseline, margins=margins or None,
                                 alpha=args.alpha, test=args.test, correction=args.correction,
                                 strict=args.strict, coverage=args.coverage, rng=args.seed)
    except IncomparableRunsError as error:  # exit 2, never 1 ("regressed") for a CI gate
        print(f"evalkit check: error: {str(error).removeprefix('evalkit check: ')}",
              file=sys.stderr)
        return 2
    print(check.to_markdown(), end="")
    return 0 if check.passed else 1


def _named_files(values: list[str], *, flag: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for value in values:
        name, sep, path = value.partition("=")
        if not sep or not name.strip() or not path:
            raise ValueError(f"{flag} takes NAME=FILE (e.g. {flag} mine=recs.csv); got {value!r}.")
        if name in out:
            raise ValueError(f"{flag} names {name!r} twice.")
        out[name] = path
    return out


def _notebook_args(paths: list[Path] | None) -> Path | list[Path] | None:
    """``--notebooks``: one folder (or notebook) as it is, several notebooks as a list."""
    return paths[0] if paths and len(paths) == 1 else paths


def _column_pairs(values: list[str]) -> dict[str, str]:
    """``--columns uid=user_id sku=item_id`` (or ``uid=user_id,sku=item_id``) as a mapping."""
    out: dict[str, str] = {}
    for value in (v for text in values for v in text.split(",") if v):
        source, sep, target = value.partition("=")
        if not sep or not source or not target:
            raise ValueError(f"--columns takes FILE_COLUMN=NAME (e.g. --columns uid=user_id); "
                             f"got {value!r}.")
        if source in out:
            raise ValueError(f"--columns maps {source!r} twice.")
        out[source] = target
    return out


# The options' values, checked as argparse reads them: its message names the option as the
# user typed it ("argument --seed: must be a non-negative integer; got '-1'"), never the
# Python argument it becomes.

def _integer(text: str, *, low: int, high: int | None = None, rule: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or value < low or (high is not None and value > high):
        raise argparse.ArgumentTypeError(f"must be {rule}; got {text!r}")
    return value


def _positive_int(text: str) -> int:
    """An option's value as an integer >= 1."""
    return _integer(text, low=1, rule="a positive integer")


def _seed(text: str) -> int:
    """A seed: an integer >= 0."""
    return _integer(text, low=0, rule="a non-negative integer")


def _cutoff(text: str) -> int:
    """A cutoff k: an integer from 1 to evalkit's largest cutoff."""
    from ._checks import MAX_CUTOFF

    return _integer(text, low=1, high=MAX_CUTOFF,
                    rule=f"a positive integer at most {MAX_CUTOFF:,}")


def _negatives(text: str) -> int | str:
    """Negatives per positive: an integer >= 1, or 'all'."""
    if text == "all":
        return text
    return _integer(text, low=1, rule="a positive integer or 'all'")


def _level(text: str) -> float:
    """A significance level: a number strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be a number between 0 and 1 (exclusive); "
                                         f"got {text!r}")
    return value


def _saved_run(text: str) -> Path:
    """The folder of a saved run (it holds run.json)."""
    from ._runs import RUN_FILE

    if not (Path(text) / RUN_FILE).is_file():
        raise argparse.ArgumentTypeError(
            f"'{text}' is not a saved run (no {RUN_FILE}); save one with evalkit evaluate "
            "--save DIR")
    return Path(text)


def _definition_number(name: str) -> Callable[[str], float]:
    """The value of the flag of a numeric field of evalkit.Definitions, checked by the rule
    the field declares."""
    import dataclasses

    from .definitions import Definitions

    meta = next(f.metadata for f in dataclasses.fields(Definitions) if f.name == name)

    def number(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not meta["check"](value):
            raise argparse.ArgumentTypeError(f"must be {meta['rule']}; got {text!r}")
        return value

    return number


def _yaml_value(text: str) -> object:
    import yaml

    if text in ("None", "none", "null", "~"):
        return None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return text


def report_parameters(args: argparse.Namespace) -> dict[str, object]:
    """The notebook parameters that ``evalkit report``'s options stand for."""
    params: dict[str, object] = {}
    for flag, name in (("train", "TRAIN"), ("test", "TEST"), ("items", "ITEMS")):
        if getattr(args, flag) is not None:
            params[name] = getattr(args, flag)
    if args.recs:
        params["RECS"] = _named_files(args.recs, flag="--recs")
    if args.predictions:
        params["PREDICTIONS"] = _named_files(args.predictions, flag="--predictions")
    if args.baselines is not None:  # every baseline of the run, ranking and rating alike:
        # a rating baseline's name goes to RATING_BASELINES, any other to BASELINES, so that
        # --baselines alone leaves out the rating pages' baselines too
        from .models import RATING_BASELINES

        params["BASELINES"] = [b for b in args.baselines if b not in RATING_BASELINES]
        params["RATING_BASELINES"] = [b for b in args.baselines if b in RATING_BASELINES]
    if getattr(args, "columns", None):
        params["COLUMNS"] = _column_pairs(args.columns)
    for name, value in args.parameter:
        if name in params:
            raise ValueError(f"parameter {name} is given twice (by an option and by -p).")
        params[name] = _yaml_value(value)
    return params


#: The report parameters ``evalkit report`` sets through an option of its own.
_REPORT_FLAGS = {"TRAIN": "--train", "TEST": "--test", "ITEMS": "--items", "RECS": "--recs",
                 "PREDICTIONS": "--predictions", "BASELINES": "--baselines",
                 "COLUMNS": "--columns"}


def _as_flags(message: str) -> str:
    """A report error in the words of the command line: the parameters the command sets
    through options named by those options (``--train``, not ``parameter TRAIN``), quoted
    values (file names, column names) left as they are."""
    names = "|".join(_REPORT_FLAGS)
    parts = re.split(r"('[^']*')", message)
    for i in range(0, len(parts), 2):  # the even parts lie outside quotes
        part = re.sub(rf"\bparameters? (?=(?:{names})\b)", "", parts[i])
        parts[i] = re.sub(rf"\b({names})\b", lambda m: _REPORT_FLAGS[m[1]], part)
    return "".join(parts)


def _load_metric_modules(args: argparse.Namespace) -> None:
    """Load ``--metrics-module`` here and, through ``EVALKIT_METRICS``, in every process this
    one starts (the report's notebooks)."""
    if not args.metrics_module:
        return
    import os

    from .metrics import load_metrics

    paths = [str(Path(m).resolve()) if m.endswith(".py") else m for m in args.metrics_module]
    for source in paths:
        load_metrics(source, func="--metrics-module")
    known = [p for p in os.environ.get("EVALKIT_METRICS", "").split(",") if p.strip()]
    os.environ["EVALKIT_METRICS"] = ",".join(dict.fromkeys(known + paths))


def _without_iri_grammar() -> None:
    """Keep jsonschema, in this command's own process, from importing ``rfc3987_syntax``.

    papermill and nbconvert read and write notebooks with nbformat, which imports jsonschema;
    jsonschema imports ``rfc3987_syntax`` where it is installed (JupyterLab's jupyter-events
    installs it) to check the "iri" string format, and that module compiles a grammar as it is
    imported: about 2.2 s of CPU in every ``evalkit report``. nbformat validates notebooks
    with the draft 4 validator and no format checker, which never checks "iri" (a format of
    draft 7 on). Only the report command does this, in its own process, and only before
    jsonschema is imported: a program's jsonschema already in use is left as it is."""
    if "jsonschema" not in sys.modules:
        sys.modules.setdefault("rfc3987_syntax", None)  # None: an ImportError, as if absent


def _report(args: argparse.Namespace) -> int:
    _without_iri_grammar()
    from .report import ReportError, list_parameters, run_reports

    _load_metric_modules(args)
    if args.list_parameters:
        import pandas as pd

        with pd.option_context("display.max_colwidth", 100, "display.width", 250):
            table = list_parameters(_notebook_args(args.notebooks))
            for name, row in table.iterrows():
                print(f"{name} ({row['type']}, default {row['default']}; notebooks "
                      f"{row['notebooks']})\n    {row['meaning']}")
        return 0
    try:
        written = run_reports(args.data, out=args.out, notebooks=_notebook_args(args.notebooks),
                              parameters=report_parameters(args), show_code=args.show_code,
                              jobs=args.jobs, spark=args.spark, resume=args.resume)
    except ReportError as error:
        print(f"evalkit report: error: {_as_flags(str(error))}", file=sys.stderr)
        return 1
    except ValueError as error:  # a parameter's error: told by main, in the options' words
        raise ValueError(_as_flags(str(error))) from error
    print(f"wrote {len(written) - 1} report(s) and {written[-1]}")
    return 0


def _sample(args: argparse.Namespace) -> int:
    from ._io import atomic_write_text
    from .data import load_sample
    from .models import EASE
    from .split import user_ratio_split

    files = ["ratings.csv", "movies.csv", "train.csv", "test.csv", "recs.csv"]
    existing = [f for f in files if (args.out / f).exists()]
    if existing and not args.force:
        raise ValueError(
            f"--out '{args.out}' already holds {', '.join(existing)}; choose an empty folder, "
            "or pass --force to replace them."
        )
    data = load_sample(seed=args.seed)
    ratings, items = data.ratings, data.items
    if args.users is not None:
        if args.users < 2:
            raise ValueError(f"--users must be at least 2; got {args.users}.")
        keep = ratings["user_id"].drop_duplicates().nsmallest(args.users)
        ratings = ratings[ratings["user_id"].isin(keep)].reset_index(drop=True)
        items = items[items["item_id"].isin(ratings["item_id"])].reset_index(drop=True)
    split = user_ratio_split(ratings, test_fraction=0.2, rng=args.seed)
    recs = EASE(l2=50.0).fit(split.train).recommend(split.test["user_id"].unique(), k=20)
    items = items.assign(genres=items["genres"].str.join("|"))
    # every file's text first, then the writes one after another (each atomic), so that an
    # interrupted --force run leaves no mix of old and new files but for a few milliseconds
    texts = {f"{name}.csv": frame.to_csv(index=False)
             for name, frame in [("ratings", ratings), ("movies", items),
                                 ("train", split.train), ("test", split.test), ("recs", recs)]}
    for name, text in texts.items():
        atomic_write_text(args.out / name, text)
    print(f"wrote {', '.join(files)} to {args.out}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m evalkit`` and the ``evalkit`` script."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    handler = {"evaluate": _evaluate, "report": _report, "sample": _sample,
               "check": _check, "sample-candidates": _sample_candidates}[args.command]
    try:
        return handler(args)
    except KeyboardInterrupt:
        if args.debug:
            raise
        kept = (f"'{args.out}' holds the earlier reports, unchanged" if args.command == "report"
                else "every file is written whole or not at all")
        print(f"evalkit {args.command}: interrupted; {kept}.", file=sys.stderr)
        return 130
    except (ValueError, TypeError, OSError) as error:
        if args.debug:
            raise
        if isinstance(error, OSError) and error.filename is not None:
            what = f"{error.strerror or type(error).__name__}: '{error.filename}'"
        else:
            what = str(error)
        what = what.removeprefix(f"evalkit {args.command}: ")  # said once, below
        print(f"evalkit {args.command}: error: {what}", file=sys.stderr)
        return 2
