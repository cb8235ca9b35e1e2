"""Every public name's docstring passes numpydoc's validation (``numpydoc.validate``) on the
checks a reader of the API reference depends on (:data:`CHECKS`): the names are those the
reference documents (``api_page()`` of ``docs/_ext/evalkit_pages.py``), and each class's own
public methods and properties. A failure lists every name, check and message."""

from __future__ import annotations

import functools
import importlib
import inspect
import re
import sys
import types
from collections.abc import Iterator
from pathlib import Path

from numpydoc.docscrape import get_doc_object
from numpydoc.validate import Validator, validate

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))
pages = importlib.import_module("evalkit_pages")

#: The checks that keep what a reader needs: each name has a docstring (GL08) whose summary
#: line is there and reads as a sentence (SS01-SS04); every parameter a call can pass is
#: documented, none that it cannot (PR01, PR02), each with its type and a meaning, the type
#: spelled as numpydoc renders it (PR04-PR07, PR10: the site shows no type hints,
#: ``autodoc_typehints = "none"``, so the Parameters section is the only place a reader finds
#: a type); a Returns entry says what is returned (RT03); a section heading numpydoc does not
#: know is not rendered as a section (GL06). When this test was written they failed 316
#: times on 181 of the 316 names (PR01 142 names, 425 parameters; PR04 158 entries, most in
#: "a, b, c / As for f" groups; PR07 11; RT03 3; GL08 2), and the docstrings were fixed.
#: Left out, as form rather than content, against the way evalkit's docstrings are written,
#: or a hundred rewrites and more for little gain to a reader (failures then): SA01 See Also (314),
#: EX01 Examples (199), ES01 extended summary (151), SS06 one-line summary (142: many
#: summaries are two lines of prose), RT01 Returns section (126: many functions say what
#: they return in their summary, "The table of ..."), GL02 and the other blank-line checks
#: (79), PR03 documented order (12: keyword-only parameters are grouped by meaning, e.g.
#: ``catalog`` beside ``truth`` and ``train``), SS05 infinitive verb (11: a summary says what
#: a name *is*), PR08/PR09 and RT04/RT05 capital letter and full stop (4), GL07 section order
#: (1), YD01 Yields of a context manager (1).
CHECKS = frozenset({
    "GL06", "GL08",
    "SS01", "SS02", "SS03", "SS04",
    "PR01", "PR02", "PR04", "PR05", "PR06", "PR07", "PR10",
    "RT03",
})

#: Names whose docstrings are allowed to fail for a while (a test fails when a name here
#: passes, so the set only shrinks); empty: every public docstring passes.
PENDING: set[str] = set()


def public_names() -> list[tuple[str, object]]:
    """``(module.name, object)`` for every name the API reference documents, as
    ``api_page()`` chooses them: each public module's ``__all__`` without modules, and a name
    the top level re-exports from another public module only at that module."""
    elsewhere = {id(getattr(importlib.import_module(module), name))
                 for module in pages.API if module != "evalkit"
                 for name in importlib.import_module(module).__all__}
    out = []
    for module_name in pages.API:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if isinstance(obj, types.ModuleType):
                continue
            if module_name == "evalkit" and id(obj) in elsewhere:
                continue
            out.append((f"{module_name}.{name}", obj))
    return out


def _members(path: str, cls: type) -> Iterator[tuple[str, object]]:
    """A class's public methods and properties that evalkit defines (on it or on an evalkit
    base class), not those it inherits from pandas, dict or an exception."""
    seen = set()
    for base in inspect.getmro(cls):
        if not base.__module__.startswith("evalkit"):
            continue
        for name, value in vars(base).items():
            if name.startswith("_") or name in seen:
                continue
            function = value.__func__ if isinstance(value, classmethod | staticmethod) else value
            if isinstance(function, property) or inspect.isfunction(function):
                seen.add(name)
                yield f"{path}.{name}", function


@functools.cache
def targets() -> tuple[tuple[str, object], ...]:
    """Every object validated: the public functions and classes, and each class's members.
    Data (``METRICS``, ``PROFILES``, ...) is left out: its reference entry is its ``#:``
    comment, and numpydoc would read the docstring of its type."""
    out, seen = [], set()
    for path, obj in public_names():
        if not (inspect.isfunction(obj) or inspect.isclass(obj)):
            continue
        for target in [(path, obj), *(_members(path, obj) if inspect.isclass(obj) else [])]:
            if id(target[1]) not in seen:  # a method inherited by two public classes: once
                seen.add(id(target[1]))
                out.append(target)
    return tuple(out)


def _constructor_is_evalkits(cls: type) -> bool:
    """Whether the class's ``__init__``/``__new__`` is evalkit's (a class of its own, a
    dataclass or a named tuple) rather than pandas' or an exception's."""
    for base in inspect.getmro(cls):
        if "__init__" in vars(base) or "__new__" in vars(base):
            return base.__module__.startswith("evalkit")
    return False


class EvalkitValidator(Validator):
    """numpydoc's validator, reading two of evalkit's conventions as a reader of the site
    does.

    - A metric's definition keywords (``ties=``, ``empty=``, ...): ``takes_definitions``
      lists each one in the signature, and the docstring documents them once as ``**options``
      (the fields of :class:`evalkit.Definitions` it reads, each documented there), so the
      function's parameters are those of its ``def``.
    - A class's constructor parameter is documented under ``Parameters`` or as the attribute
      of the same name under ``Attributes`` (a dataclass's or named tuple's fields, a result
      that keeps what it was given); a class whose constructor is pandas' or an exception's
      has no parameters of evalkit's to document.
    """

    def __init__(self, obj_name: str, obj: object, made: list | None = None) -> None:
        # show_class_members=False as in the site's numpydoc configuration: an empty
        # Attributes section is not filled in from the class's properties
        super().__init__(get_doc_object(obj, config={"show_class_members": False}))
        self.path = obj_name
        if made is not None:
            made.append(self)

    def undescribed(self) -> list[tuple[str, str]]:
        """PR07 where numpydoc does not check it: a parameter whose type lists its choices
        (``{"log", "breese"}``) and that has no description."""
        return [("PR07", f'Parameter "{name}" has no description')
                for name, (type_, desc) in self.doc_all_parameters.items()
                if "{" in type_ and not "".join(desc).strip()]

    @property
    def name(self) -> str:
        return self.path

    # No ``# numpydoc ignore=`` comments: PENDING is the one list of exceptions. (Looking
    # for them tokenizes an object's whole module, the most of this test's time.)
    source_file_name = None
    source_file_def_line = None

    # read again and again by numpydoc's checks: parsed once
    section_titles = functools.cached_property(Validator.section_titles.fget)

    @property
    def signature_parameters(self) -> tuple[str, ...]:
        if inspect.isclass(self.obj) and not _constructor_is_evalkits(self.obj):
            return ()
        if hasattr(self.obj, "_limit_definitions"):  # evalkit.definitions.takes_definitions
            signature = inspect.signature(inspect.unwrap(self.obj))
            return tuple(f"**{p.name}" if p.kind is p.VAR_KEYWORD else
                         f"*{p.name}" if p.kind is p.VAR_POSITIONAL else p.name
                         for p in signature.parameters.values())
        return super().signature_parameters

    @functools.cached_property
    def doc_all_parameters(self) -> dict:
        params = super().doc_all_parameters
        if inspect.isclass(self.obj):
            fields = set(self.signature_parameters)
            for name, entry in self._doc_parameters(["Attributes"]).items():
                if name in fields:
                    params.setdefault(name, entry)
        return params


def errors(path: str, obj: object) -> list[tuple[str, str]]:
    """Every ``(code, message)`` numpydoc gives ``path`` (with PR07 where it has none)."""
    made: list[EvalkitValidator] = []
    result = validate(path, validator_cls=EvalkitValidator, obj=obj, made=made)
    return result["errors"] + made[0].undescribed()


def failures(checks: frozenset[str] = CHECKS) -> list[tuple[str, str, str]]:
    """``(name, code, message)`` of every failed check in ``checks``, PENDING left out."""
    return [(path, code, message) for path, obj in targets() if path not in PENDING
            for code, message in errors(path, obj) if code in checks]


def _where(path: str) -> str:
    obj = dict(targets())[path]
    obj = inspect.unwrap(obj.fget if isinstance(obj, property) else obj)
    try:
        return (f"{Path(inspect.getsourcefile(obj)).relative_to(ROOT)}:"
                f"{inspect.getsourcelines(obj)[1]}")
    except (TypeError, OSError, ValueError):
        return "?"


def test_the_checked_names_are_the_api_references() -> None:
    listed = set()
    for section in re.findall(r"\.\. currentmodule:: (\S+)\n\n\.\. autosummary::\n"
                              r"   :toctree: api\n\n((?:   \S+\n)+)", pages.api_page()):
        module, names = section
        listed |= {f"{module}.{name.strip()}" for name in names.splitlines()}
    assert listed == {path for path, _ in public_names()}
    assert len(targets()) > 250


def test_every_public_docstring_passes_numpydocs_checks() -> None:
    found = failures()
    lines = [f"{path} [{_where(path)}] {code}: {message}" for path, code, message in found]
    assert not found, f"{len(found)} failed checks:\n" + "\n".join(lines)


def test_every_pending_name_is_checked_and_still_fails() -> None:
    """A name fixed, renamed or removed leaves PENDING, so that the set only shrinks."""
    paths = dict(targets())
    assert PENDING <= set(paths), PENDING - set(paths)
    for path in PENDING:
        codes = {code for code, _ in errors(path, paths[path])}
        assert codes & CHECKS, f"{path} passes now: remove it from PENDING"


if __name__ == "__main__":  # a table of failures by check, over every check numpydoc has
    from collections import Counter

    from numpydoc.validate import ERROR_MSGS

    counts = Counter(code for _, code, _ in failures(frozenset(ERROR_MSGS)))
    for code in sorted(counts):
        print(f"{code}  {counts[code]:4d}  {'chosen' if code in CHECKS else ''}")
