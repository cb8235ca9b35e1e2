"""The result of ``make mutation``: the share of mutants killed, and every survivor with the
reason it cannot change a result (or marked UNEXPLAINED).

Reads mutmut's cache (``mutants/**/*.meta``, what ``mutmut results`` reads) and the reasons
written by hand in ``benchmarks/results/mutation-explained.txt`` (a ``[key] reason`` line per
kind of survivor, then one ``NAME key`` line per survivor, with ``# why`` where the kind
needs the case); writes
``benchmarks/results/mutation-survivors.txt``. Exits 1 when fewer than 90% of the mutants are
killed (a timeout counts as killed: the mutant was detected) or a survivor is unexplained.

    .venv/bin/python benchmarks/mutation_survivors.py
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXPLAINED = ROOT / "benchmarks" / "results" / "mutation-explained.txt"
OUT = ROOT / "benchmarks" / "results" / "mutation-survivors.txt"
TARGET = 0.90
# mutmut 3.8's meaning of the exit codes it stores (mutmut.__main__.status_by_exit_code)
KILLED = {1, 3}
TIMEOUT = {24, -24, 36, 152, 255}


def _statuses() -> dict[str, int | None]:
    codes: dict[str, int | None] = {}
    for meta in sorted((ROOT / "mutants").rglob("*.meta")):
        codes.update(json.loads(meta.read_text())["exit_code_by_key"])
    return codes


def _explanations() -> tuple[dict[str, str], dict[str, str]]:
    reasons: dict[str, str] = {}
    which: dict[str, str] = {}
    for line in EXPLAINED.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        match = re.fullmatch(r"\[([\w-]+)\]\s+(.+)", line)
        if match:
            reasons[match[1]] = match[2]
            continue
        name, _, why = line.partition("#")
        name, key = name.split()
        if key not in reasons:
            raise SystemExit(f"{EXPLAINED.name}: {name} gives the reason {key!r}, not defined "
                             "above it.")
        which[name] = f"{key}  # {why.strip()}" if why.strip() else key
    return reasons, which


def main() -> int:
    codes = _statuses()
    if not codes:
        raise SystemExit("no mutmut results in mutants/: run `make mutation` first.")
    reasons, which = _explanations()
    kinds = Counter("killed" if c in KILLED else "timeout" if c in TIMEOUT else
                    "survived" if c == 0 else "not checked" if c is None else f"exit {c}"
                    for c in codes.values())
    survivors = sorted(name for name, code in codes.items() if code == 0)
    unexplained = [name for name in survivors if name not in which]
    detected = kinds["killed"] + kinds["timeout"]
    share = detected / len(codes)
    lines = [
        f"# mutmut: {len(codes):,} mutants; {kinds['killed']:,} killed, {kinds['timeout']:,} "
        f"timed out (detected), {kinds['survived']:,} survived"
        + "".join(f", {count:,} {kind}" for kind, count in sorted(kinds.items())
                  if kind not in ("killed", "timeout", "survived")),
        f"# detected: {share:.1%} (target {TARGET:.0%}); survivors explained: "
        f"{len(survivors) - len(unexplained):,} of {len(survivors):,}",
        "#",
        "# the reasons (benchmarks/results/mutation-explained.txt):",
        *(f"# [{key}] {text}" for key, text in reasons.items()),
        "",
        *(f"{name}: {which.get(name, 'UNEXPLAINED')}" for name in survivors),
    ]
    tmp = OUT.with_name(OUT.name + ".tmp")
    tmp.write_text("\n".join(lines) + "\n")
    tmp.replace(OUT)
    print("\n".join(lines[:2]))
    stale = sorted(set(which) - set(survivors))
    if stale:
        print(f"{len(stale)} explained mutants no longer survive (killed since, or renumbered): "
              + ", ".join(stale[:5]) + (" ..." if len(stale) > 5 else ""))
    for name in unexplained:
        print(f"UNEXPLAINED: {name}  (.venv/bin/mutmut show {name})")
    return 0 if share >= TARGET and not unexplained else 1


if __name__ == "__main__":
    sys.exit(main())
