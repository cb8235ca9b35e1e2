"""The package metadata agrees with itself: environment.yml, pyproject.toml, constraints.txt."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~ \[]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _pyproject() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = project["dependencies"] + project["optional-dependencies"]["test"]
    return {_name(r): r.replace(" ", "") for r in reqs}


def _environment() -> dict[str, str]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    out = {}
    for dep in env["dependencies"]:
        entries = dep["pip"] if isinstance(dep, dict) else [dep]
        for entry in entries:
            if entry.startswith("-e") or _name(entry) in ("python", "pip"):
                continue
            out[_name(entry)] = entry.replace(" ", "")
    return out


def test_environment_yml_lists_exactly_the_pyproject_packages() -> None:
    pyproject, environment = _pyproject(), _environment()
    assert sorted(environment) == sorted(pyproject)
    for name, requirement in pyproject.items():
        assert environment[name] == requirement, name


def test_every_package_is_pinned_in_constraints() -> None:
    pins = {_name(line): line for line in (ROOT / "constraints.txt").read_text().splitlines()
            if "==" in line}
    missing = sorted(set(_pyproject()) - set(pins))
    assert not missing, f"not pinned in constraints.txt: {missing}"


def test_import_and_the_command_line_load_no_heavy_optional_module() -> None:
    """``import evalkit`` (so every CLI call, notebook kernel and Spark worker) leaves out the
    modules only some calls need: scipy.stats (0.45 s to load; the paired tests and the
    cross-validation interval import it on use), plotting, notebooks and Spark."""
    import subprocess
    import sys

    heavy = ["scipy.stats", "matplotlib", "seaborn", "papermill", "nbformat", "pyspark"]
    code = ("import sys, evalkit, evalkit.cli, evalkit.report; "
            f"print(','.join(m for m in {heavy!r} if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "", f"import evalkit loads {done.stdout.strip()}"


def test_import_evalkit_and_the_commands_help_load_no_library() -> None:
    """``import evalkit`` loads its exports on first use: the package itself, the command
    line's parser and its help load neither pandas nor numba nor the metrics (a command's
    errors and help come at once); the first use of a name loads its module."""
    import subprocess
    import sys

    code = ("import sys, evalkit, evalkit.cli\n"
            "try:\n    evalkit.cli.main(['evaluate', '--help'])\nexcept SystemExit:\n    pass\n"
            "heavy = ['pandas', 'numba', 'scipy', 'evalkit.metrics']\n"
            "before = [m for m in heavy if m in sys.modules]\n"
            "evalkit.evaluate\n"
            "print(before, 'evalkit.metrics' in sys.modules, file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stderr.strip() == "[] True", done.stderr


def test_every_export_is_its_modules_object_and_nothing_else_is_there() -> None:
    import importlib

    import pytest

    import evalkit

    assert set(evalkit.__all__) == {*evalkit._NAMES, *evalkit._MODULES, "__version__"}
    for name, module in evalkit._NAMES.items():
        assert getattr(evalkit, name) is getattr(importlib.import_module(module), name), name
    for name in evalkit._MODULES:
        assert getattr(evalkit, name) is importlib.import_module(f"evalkit.{name}"), name
    assert set(evalkit.__all__) <= set(dir(evalkit))
    with pytest.raises(AttributeError, match="module 'evalkit' has no attribute 'evaluat'"):
        evalkit.evaluat  # noqa: B018
    from evalkit import evaluate, load_sample  # noqa: F401  (from-imports resolve too)


def test_no_public_name_hides_a_module() -> None:
    """Every name evalkit exports is the object its module path gives: ``evalkit.evaluate``
    is the function and no module of that name exists for it to hide (``import
    evalkit.evaluate as m`` would otherwise give the function, not the module)."""
    import importlib
    import pkgutil

    import evalkit

    modules = {info.name.rsplit(".", 1)[-1]: info.name
               for info in pkgutil.iter_modules(evalkit.__path__, "evalkit.")}
    for name in evalkit.__all__:
        if name in modules:
            assert getattr(evalkit, name) is importlib.import_module(modules[name]), name


def test_public_modules_take_no_private_name_from_another_package() -> None:
    """A public module (no ``_`` in its dotted path) imports private names (a ``_`` module or
    a ``_`` name) only from its own package or from the shared modules at the top of evalkit
    (``evalkit._checks``, ``evalkit._resample``, ...), never from another package's insides."""
    import ast

    package = ROOT / "evalkit"
    found = []
    for path in sorted(package.rglob("*.py")):
        parts = ("evalkit",) + path.relative_to(package).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if any(p.startswith("_") for p in parts[1:]):
            continue  # a private module may reach into its neighbours
        own = parts[:-1] if path.name != "__init__.py" else parts
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom):
                continue
            base = list(own[: len(own) - node.level + 1]) if node.level else []
            target = tuple(base + (node.module.split(".") if node.module else []))
            if target[:1] != ("evalkit",) or len(target) < 2:
                continue
            shared = len(target) == 2  # evalkit._checks and the like
            same_package = target[:2] == parts[:2]
            private = [a.name for a in node.names if a.name.startswith("_")]
            if any(p.startswith("_") for p in target[1:]) or private:
                if not shared and not same_package:
                    found.append(f"{'.'.join(parts)} <- {'.'.join(target)} {private}")
    assert found == [], found


def test_private_names_are_taken_only_from_private_modules_of_the_same_package() -> None:
    """``from X import _name`` inside evalkit only where X is a private module (``_`` in its
    last part) of the importer's own package: what several packages share lives in a private
    module under a public name (``evalkit._resample.quantile_interval``), never as a public
    module's private helper. Private submodules (``from . import _kernels``) are modules, not
    names, and may be imported from their package; ``__version__`` comes from
    ``evalkit._version``, not through the package's ``__init__``."""
    import ast

    package = ROOT / "evalkit"
    found = []
    for path in sorted(package.rglob("*.py")):
        parts = ("evalkit",) + path.relative_to(package).with_suffix("").parts
        own = parts[:-1]  # the package the module belongs to (its folder)
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom):
                continue
            base = list(own[: len(own) - node.level + 1]) if node.level else []
            target = tuple(base + (node.module.split(".") if node.module else []))
            if target[:1] != ("evalkit",):
                continue
            folder = package.joinpath(*target[1:])
            names = [a.name for a in node.names if a.name.startswith("_")
                     and not (folder / f"{a.name}.py").exists()]
            if names == ["__version__"]:
                allowed = target == ("evalkit", "_version")
            else:
                allowed = not names or (target[:-1] == own and target[-1].startswith("_"))
            if not allowed:
                found.append(f"{'.'.join(parts)} <- {'.'.join(target)} {names}")
    assert found == [], found


def test_a_new_process_loads_the_report_calls_kernels_from_numbas_cache() -> None:
    """After ``python -m evalkit._compile`` (which ``make setup`` runs before the tests), a new
    process's evaluate, compare and beyond-accuracy calls load every compiled kernel they use
    from numba's cache and compile none: each kernel is cacheable, and the warm-up reaches
    it. (Outside ``make test``, run ``python -m evalkit._compile`` first.)"""
    import subprocess
    import sys

    code = """
import warnings
warnings.simplefilter("ignore")
from numba.core.registry import CPUDispatcher
import evalkit as ek
from evalkit import _duplicates, _resample
from evalkit.metrics import _kernels
from evalkit.metrics.tables import beyond_intervals
ratings = ek.load_sample(seed=1).ratings
split = ek.split.split_by(ratings, "user_ratio", test_fraction=0.2, rng=1)
systems = ek.models.recommend_all(["MostPopular", "EASE"], split.train,
                                  split.test["user_id"].unique(), k=20, rng=1)
ek.evaluate(split.test, systems["EASE"], k=[10, 20], threshold=4.0, curves=20)
ek.compare(systems, split.test, k=10, threshold=4.0)
beyond_intervals(split.test, systems["EASE"], train=split.train, k=10)
used = [f for m in (_kernels, _resample, _duplicates) for f in vars(m).values()
        if isinstance(f, CPUDispatcher) and f.signatures]
print(len(used), sum(sum(f.stats.cache_misses.values()) for f in used),
      sum(sum(f.stats.cache_hits.values()) for f in used))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    used, misses, hits = map(int, done.stdout.split())
    assert used >= 5 and hits >= used, done.stdout
    assert misses == 0, (f"{misses} kernel signature(s) compiled in a new process after "
                         "make setup's warm-up (python -m evalkit._compile)")


def test_import_evalkit_beside_a_clone_named_evalkit_finds_the_package(tmp_path) -> None:
    """From the folder that holds a clone named ``evalkit`` (a folder without an
    ``__init__.py``), ``import evalkit`` finds the installed package, not an empty namespace
    package (make setup installs in setuptools' compat mode)."""
    (tmp_path / "evalkit").symlink_to(ROOT, target_is_directory=True)
    done = subprocess.run([sys.executable, "-c", "import evalkit; print(evalkit.__file__)"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(ROOT / "evalkit" / "__init__.py")
