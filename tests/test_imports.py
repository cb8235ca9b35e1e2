"""The package's seams: no module imports a private module or name of another package (its
own package's and its ancestors' private helpers, such as ``evalkit._checks``, are fine), and
no import cycle exists, function-local imports included. Read from the source, so a new
import that breaks either rule fails here, naming it."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _modules() -> dict[str, tuple[Path, bool]]:
    """Every module of the package: dotted name -> (file, is a package)."""
    out = {}
    for path in sorted((ROOT / "evalkit").rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        package = parts[-1] == "__init__"
        out[".".join(parts[:-1] if package else parts)] = (path, package)
    return out


MODULES = _modules()


def _package(module: str) -> str:
    return module if MODULES[module][1] else module.rsplit(".", 1)[0]


def _imports(module: str) -> list[tuple[str, str | None, int]]:
    """``(module imported, name imported from it or None, line)`` for every import of an
    evalkit module anywhere in ``module``'s source."""
    path, _ = MODULES[module]
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = _package(module).split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                if f"{target}.{alias.name}" in MODULES:
                    found.append((f"{target}.{alias.name}", None, node.lineno))
                elif target in MODULES:
                    found.append((target, alias.name, node.lineno))
        elif isinstance(node, ast.Import):
            found += [(a.name, None, node.lineno) for a in node.names if a.name in MODULES]
    return found


def _private(dotted: str) -> bool:
    return any(part.startswith("_") and part != "__init__" for part in dotted.split("."))


def test_no_module_imports_another_packages_private_parts() -> None:
    wrong = []
    for module in MODULES:
        own = _package(module).split(".")
        allowed = {".".join(own[:i]) for i in range(1, len(own) + 1)}  # its package, ancestors
        for target, name, line in _imports(module):
            if _package(target) in allowed and not MODULES[target][1] or target in allowed:
                continue
            if _private(target.removeprefix("evalkit.")) or (name and name.startswith("_")):
                wrong.append(f"{module}:{line} imports {target}{'.' + name if name else ''}")
    assert not wrong, "\n".join(wrong)


def test_no_import_cycle() -> None:
    edges = {m: {t for t, _, _ in _imports(m) if t != m} for m in MODULES}
    cycles = []
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            # a package importing its own modules and one of them the package is not a
            # cycle of modules: a package's __init__ is its public face
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in MODULES:
        if module not in index:
            visit(module)
    assert not cycles, cycles


def test_the_checks_see_what_they_check() -> None:
    # the rules fire on the imports they are about (so a passing test means something)
    assert ("evalkit.metrics._kernels", None) in {
        (t, n) for t, n, _ in _imports("evalkit.metrics._curves")}
    assert _private("metrics._kernels") and not _private("metrics.ranking")
    assert len(MODULES) > 80
