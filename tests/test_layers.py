"""The package layers: every import in ``src/winoscope`` points down the stack, never up.

Each module's imports are read with :mod:`ast` (at module level, inside functions and under
``TYPE_CHECKING`` alike: a lazy or type-only import is still a dependency) and mapped to their
*unit*: the package or top-level module below ``winoscope`` (``datasets``, ``report``,
``runs``, ``limit`` ...). A unit may import from units in lower layers only; units of the same
layer do not import each other. The order, bottom first:

- foundation: the version and errors; the registry (every registry is one of its class);
  records, languages, JSON files, extras, tags
- the local stand-ins for tests (``testing``: they answer with records) beside datasets
- datasets (loading and validating rows), then protocols (requests in, predictions out)
- occupations (real-world shares, corpus association), then scoring
- backends, then tasks (data, protocol bindings and a scorer)
- the result objects (``results/``), the prompt templates and the thin API over tasks; then
  report, which draws every page
- a run (``runs/``: config, plan, stages, record, outcome; asks report to write), beside the
  occupation pipelines (a corpus scan or a correlation, with their figures) and compare (reads
  run directories and computes; report draws its pages)
- studies: what runs many runs (sweeps, prompt sensitivity, the demo, grids over Slurm)
- the families (``families/<name>/``: data, checks, tasks, scorer, cross-lingual join) beside
  cli: nothing below imports a family and the command line does not either; both reach the
  families through the registries, which import them on their first look-up by the explicit
  list that the package's ``__init__`` hands to :func:`winoscope.registry.builtin_families`
- the package's lazy ``__init__``

A string import counts as an import: ``importlib.import_module("winoscope.x")`` (or a
relative name with its package) and ``__import__("winoscope.x")``; one whose name is not
written out is allowed only in :data:`OPAQUE_IMPORTS`. winoscope declares no entry points of
its own (plugins do, in ``winoscope.plugins``): an import hidden in the metadata would escape
these checks.
"""

from __future__ import annotations

import ast
import tomllib
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "winoscope"

LAYERS: list[set[str]] = [
    {"_version", "errors"},
    {"registry"},
    {"extras", "progress", "records", "languages", "jsonio", "tags", "environment"},
    {"outputs"},
    {"datasets", "testing"},
    {"protocols", "limit"},
    {"occupations"},
    {"scoring"},
    {"backends"},
    {"tasks"},
    # what the public functions return (results/), beside the templates and the API over tasks
    {"prompt_templates", "results", "api"},
    {"report"},
    # a run: config, plan, stages, record, outcome (runs/); the occupation pipelines; compare
    # (computes from run directories, asks report to draw its pages)
    {"runs", "occupation_pipeline", "compare"},
    # what runs many runs: sweeps, prompt sensitivity, the demo, study grids over Slurm
    {"studies"},
    # the families sit beside the command line: neither imports the other, and nothing below
    # imports a family (the registries import them through the package's __init__)
    {"cli", "families"},
    {"__init__", "__main__"},
]


def module_name(path: Path, src: Path = SRC) -> str:
    rel = path.relative_to(src.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def import_statements(path: Path, src: Path = SRC) -> Iterator[tuple[str, list[str]]]:
    """(module imported from, the names imported) for every import statement of ``path``, at
    any depth; relative imports resolved (``import a.b`` gives ``("a.b", [])``)."""
    name = module_name(path, src)
    package = (name if path.name == "__init__.py" else name.rpartition(".")[0]).split(".")
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, []
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            yield target, [a.name for a in node.names]
        elif isinstance(node, ast.Call) and (named := string_import(node, package)):
            yield named, []


def import_call(node: ast.Call) -> bool:
    """A call of ``importlib.import_module``, ``import_module`` or ``__import__``."""
    f = node.func
    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
    return name in ("import_module", "__import__")


def string_import(node: ast.Call, package: list[str]) -> str:
    """The module an import call names in a string (relative names resolved against
    ``package``); ``""`` for any other call, and ``"?"`` when the name is not written out."""
    if not import_call(node):
        return ""
    arg = node.args[0] if node.args else None
    if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
        return "?"
    name: str = arg.value
    if name.startswith("."):
        level = len(name) - len(name.lstrip("."))
        base = package[: len(package) - level + 1]
        return ".".join(base + ([name.lstrip(".")] if name.lstrip(".") else []))
    return name


#: modules that import a module named at run time, none of winoscope's: an optional
#: dependency by :func:`winoscope.extras.require`, a study's factory (the user's module)
OPAQUE_IMPORTS = {"winoscope.extras", "winoscope.studies.job"}


def opaque_imports(src: Path = SRC) -> list[str]:
    """Modules outside :data:`OPAQUE_IMPORTS` that import a module whose name is not written."""
    return sorted(
        module_name(p, src)
        for p in sorted(src.rglob("*.py"))
        if module_name(p, src) not in OPAQUE_IMPORTS
        and any(t == "?" for t, _ in import_statements(p, src))
    )


def imports_of(path: Path, src: Path = SRC) -> set[str]:
    """Every ``winoscope.*`` name imported anywhere in the module, relative imports resolved."""
    found: set[str] = set()
    for target, names in import_statements(path, src):
        found.add(target)
        found.update(f"{target}.{n}" for n in names)
    return {f for f in found if f == "winoscope" or f.startswith("winoscope.")}


def unit(name: str) -> str:
    parts = name.split(".")
    return "__init__" if len(parts) == 1 else parts[1]


def layer_of() -> dict[str, int]:
    return {u: i for i, layer in enumerate(LAYERS) for u in layer}


def unit_imports(src: Path = SRC) -> dict[tuple[str, str], set[str]]:
    """(importing unit, imported unit) -> the importing modules, for units that differ."""
    edges: dict[tuple[str, str], set[str]] = defaultdict(set)
    for path in sorted(src.rglob("*.py")):
        mod = module_name(path, src)
        for target in imports_of(path, src):
            a, b = unit(mod), unit(target)
            if target == "winoscope":  # ``from winoscope import x`` names a submodule or name
                continue
            if a != b:
                edges[(a, b)].add(mod)
    return edges


def violations(src: Path = SRC) -> dict[tuple[str, str], set[str]]:
    """(module, imported unit) pairs whose import points up or sideways."""
    rank = layer_of()
    out: dict[tuple[str, str], set[str]] = {}
    for (a, b), mods in unit_imports(src).items():
        if rank.get(b, len(rank)) >= rank.get(a, -1):
            for m in mods:
                out.setdefault((m, b), set()).add(a)
    return out


def test_every_unit_has_a_layer() -> None:
    rank = layer_of()
    units = {unit(module_name(p)) for p in SRC.rglob("*.py")}
    assert sorted(units - set(rank)) == [], "add new packages and top-level modules to LAYERS"
    assert sorted(set(rank) - units) == [], "LAYERS names units that no longer exist"


def test_imports_point_down_the_layers() -> None:
    """No exceptions: a unit imports only from lower layers. (A cycle between units needs an
    import that points up or sideways, so this also rules out every cycle between units.)"""
    rank = layer_of()
    found = {f"{m} imports {b} (layer {rank[b]} >= {rank[unit(m)]})" for (m, b) in violations()}
    assert sorted(found) == []


def test_the_reader_sees_relative_and_type_only_imports() -> None:
    """The import reader on a module whose imports are known: relative, one under
    ``TYPE_CHECKING``."""
    path = SRC / "report" / "writer.py"
    assert "winoscope.results.run.RunResult" in imports_of(path)  # under TYPE_CHECKING
    assert "winoscope.jsonio" in imports_of(path)
    assert unit("winoscope.report.writer") == "report" and unit("winoscope") == "__init__"


def module_imports(path: Path, modules: set[str], src: Path = SRC) -> set[str]:
    """The modules ``path`` imports: ``from . import x`` is module ``x`` (not the package it
    sits in), ``from .m import name`` is ``m``."""
    name = module_name(path, src)
    out: set[str] = set()
    for target, names in import_statements(path, src):
        out.update(f"{target}.{n}" if f"{target}.{n}" in modules else target for n in names or [""])
    resolved = set()
    for target in out:
        while target and target not in modules:
            target = target.rpartition(".")[0]
        if target and target != name:
            resolved.add(target)
    return resolved


def module_cycles(src: Path = SRC) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    paths = {module_name(p, src): p for p in src.rglob("*.py")}
    graph = {m: module_imports(p, set(paths), src) for m, p in paths.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for m in sorted(graph):
        if m not in index:
            connect(m)
    return groups


def test_no_import_cycle_between_modules() -> None:
    """Not even inside one unit (which the layers allow), lazy and type-only imports included."""
    assert module_cycles() == []


def plant(src: Path, files: dict[str, str]) -> None:
    """Write a planted tree: each relative path with its text."""
    for name, text in files.items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(text, encoding="utf-8")


def test_the_checks_catch_a_planted_upward_import_and_a_planted_cycle(tmp_path: Path) -> None:
    """A small tree with the two faults these tests exist for: errors (the lowest layer)
    importing report lazily, and two report modules importing each other (one under
    TYPE_CHECKING)."""
    src = tmp_path / "winoscope"
    files = {
        "__init__.py": "",
        "errors.py": "def f():\n    from .report.a import x\n",
        "report/__init__.py": "",
        "report/a.py": "from .b import y\nx = 1\n",
        "report/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import a\ny = 2\n",
        "tags.py": "from .errors import f\n",
    }
    plant(src, files)
    assert violations(src) == {("winoscope.errors", "report"): {"errors"}}
    assert module_cycles(src) == [["winoscope.report.a", "winoscope.report.b"]]


def test_no_module_imports_a_name_it_does_not_write() -> None:
    assert opaque_imports() == []


def test_the_checks_read_string_imports(tmp_path: Path) -> None:
    """A tree where errors imports report by a string, tags by ``__import__`` and records a
    name held in a variable."""
    src = tmp_path / "src" / "winoscope"
    files = {
        "__init__.py": "",
        "errors.py": "import importlib\n\ndef f():\n    importlib.import_module('.report.a', 'winoscope')\n",
        "tags.py": "def g():\n    __import__('winoscope.report')\n",
        "records.py": "from importlib import import_module\nname = 'x'\nimport_module(name)\n",
        "report/__init__.py": "",
        "report/a.py": "x = 1\n",
    }
    plant(src, files)
    assert violations(src) == {
        ("winoscope.errors", "report"): {"errors"},
        ("winoscope.tags", "report"): {"tags"},
    }
    assert opaque_imports(src) == ["winoscope.records"]


def test_winoscope_declares_no_entry_points_of_its_own() -> None:
    """Its families come in through the explicit list (:mod:`winoscope.families`), so a new
    family needs no reinstall; only the console script is declared."""
    project = tomllib.loads((SRC.parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"].get("entry-points", {}) == {}
    assert list(project["project"]["scripts"]) == ["winoscope"]


def test_module_reader_on_a_known_module() -> None:
    """report.writer imports jsonio and (for types) results, and nothing else among these."""
    modules = {"winoscope.report.writer", "winoscope.jsonio", "winoscope.results.run"}
    got = module_imports(SRC / "report" / "writer.py", modules)
    assert got == {"winoscope.jsonio", "winoscope.results.run"}


#: the most lines a module may have: one that grows past it holds two things and is split
MAX_LINES = 400


def long_modules(src: Path = SRC) -> dict[str, int]:
    """Modules over :data:`MAX_LINES` lines, with their line counts."""
    counts = {
        module_name(p, src): len(p.read_text(encoding="utf-8").splitlines())
        for p in sorted(src.rglob("*.py"))
    }
    return {name: n for name, n in counts.items() if n > MAX_LINES}


def test_every_module_is_under_the_line_limit() -> None:
    assert long_modules() == {}


def test_the_line_limit_sees_a_planted_long_module(tmp_path: Path) -> None:
    src = tmp_path / "winoscope"
    (src / "report").mkdir(parents=True)
    (src / "__init__.py").write_text("", encoding="utf-8")
    (src / "report" / "long.py").write_text("x = 1\n" * (MAX_LINES + 1), encoding="utf-8")
    (src / "report" / "fits.py").write_text("x = 1\n" * MAX_LINES, encoding="utf-8")
    assert long_modules(src) == {"winoscope.report.long": MAX_LINES + 1}


#: the units that may import a language's own modules (``winoscope.languages.<code>``): the
#: languages package itself and the families, whose tasks are written in one language
LANGUAGE_IMPORTERS = ("languages", "families")


def language_codes(src: Path = SRC) -> set[str]:
    """The language folders: the packages directly under ``languages/``."""
    return {p.parent.name for p in (src / "languages").glob("*/__init__.py")}


def language_module_imports(src: Path = SRC) -> dict[str, set[str]]:
    """Module -> the ``winoscope.languages.<code>`` modules it imports, for the modules outside
    :data:`LANGUAGE_IMPORTERS` (``winoscope.languages`` and ``languages.base`` are for all)."""
    codes = language_codes(src)
    out: dict[str, set[str]] = {}
    for path in sorted(src.rglob("*.py")):
        mod = module_name(path, src)
        if unit(mod) in LANGUAGE_IMPORTERS:
            continue
        found = set()
        for target in imports_of(path, src):
            parts = target.split(".")
            if parts[:2] == ["winoscope", "languages"] and len(parts) > 2 and parts[2] in codes:
                found.add(".".join(parts[:3]))
        if found:
            out[mod] = found
    return out


def test_only_languages_and_families_import_a_language_module() -> None:
    """A language lives in its folder: everything else asks its record (``get_language``)."""
    assert language_module_imports() == {}


def test_the_language_rule_sees_a_planted_import(tmp_path: Path) -> None:
    """A protocol importing a language's prompts (relative, and lazily in a function) and a
    lexicon reader importing one absolutely are caught; the package, ``languages.base``, another
    languages module and a family's import of a language are not."""
    src = tmp_path / "winoscope"
    files = {
        "__init__.py": "",
        "languages/__init__.py": "from . import xx\n",
        "languages/base.py": "",
        "languages/tables.py": "",
        "languages/xx/__init__.py": "from . import prompts\n",
        "languages/xx/prompts.py": "",
        "protocols/__init__.py": "",
        "protocols/a.py": "from ..languages import base\nfrom ..languages.xx import prompts\n",
        "protocols/b.py": "def f():\n    from ..languages.xx.prompts import P\n",
        "protocols/c.py": "from ..languages import get_language\nfrom ..languages.tables import t\n",
        "occupations/__init__.py": "import winoscope.languages.xx\n",
        "families/__init__.py": "",
        "families/f/__init__.py": "from ...languages.xx import prompts\n",
    }
    plant(src, files)
    assert language_codes(src) == {"xx"}
    assert language_module_imports(src) == {
        "winoscope.protocols.a": {"winoscope.languages.xx"},
        "winoscope.protocols.b": {"winoscope.languages.xx"},
        "winoscope.occupations": {"winoscope.languages.xx"},
    }
