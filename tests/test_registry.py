"""The registry's discovery: the owner's own components and the entry points, on the first
look-up.

A real package is written into ``tmp_path`` (its ``__init__`` holds a registry whose built-in
components are imported by a registration module, which imports two registering modules; a
third module, which fails if imported, is not named) and imported from there. Nothing reads
source text or walks folders.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from winoscope.errors import TaskError
from winoscope.registry import Registry

INIT = """
from winoscope.registry import Registry
THINGS = Registry("thing")

def _builtin():
    from . import registration

THINGS.discover_with("winoscope.test-no-such-group", builtin=_builtin)
"""
REGISTRATION = """
from . import alpha, beta  # noqa: F401
"""
ALPHA = """
from . import THINGS
THINGS.add("alpha", 1)
"""
BETA = """
from . import THINGS
THINGS.add("beta", THINGS.get("alpha") + 1)   # a look-up while discovery runs
"""
HELPER = """
raise RuntimeError("a module that registers nothing is not imported")
"""


def write_package(root: Path, name: str, registration: str = REGISTRATION, **modules: str) -> None:
    pkg = root / name
    pkg.mkdir()
    (pkg / "__init__.py").write_text(INIT, encoding="utf-8")
    (pkg / "registration.py").write_text(registration, encoding="utf-8")
    for mod, text in modules.items():
        (pkg / f"{mod}.py").write_text(text, encoding="utf-8")


@pytest.fixture
def on_path(tmp_path: Path):  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(tmp_path))
    yield tmp_path
    sys.path.remove(str(tmp_path))
    for m in [m for m in sys.modules if m.startswith("regdemo")]:
        del sys.modules[m]


def test_registration_module_imports_named_modules_on_first_lookup(on_path: Path) -> None:
    write_package(on_path, "regdemo", alpha=ALPHA, beta=BETA, helper=HELPER)
    import regdemo

    assert "regdemo.alpha" not in sys.modules  # nothing imported before a look-up
    assert regdemo.THINGS.names() == ["alpha", "beta"]
    assert regdemo.THINGS.get("beta") == 2
    assert "regdemo.helper" not in sys.modules  # a module the registration does not name


def test_registry_sources_hold_no_source_reading_or_frames() -> None:
    """Discovery and metric declarations name modules explicitly: no module of the package
    reads Python source to decide what to import, or inspects a caller's frame."""
    src = Path(__file__).resolve().parents[1] / "src" / "winoscope"
    found = [
        f"{p.relative_to(src)}: {needle}"
        for p in sorted(src.rglob("*.py"))
        for needle in ("_getframe", "get_source(", "iter_modules(", "inspect.stack")
        if needle in p.read_text(encoding="utf-8")
    ]
    assert found == []


def test_failed_discovery_is_reported_again_on_the_next_lookup(on_path: Path) -> None:
    broken = "from . import THINGS\nTHINGS.add('gamma', 3)\nraise ValueError('bad module')\n"
    write_package(on_path, "regdemo", registration="from . import gamma\n", gamma=broken)
    import regdemo

    for _ in range(2):
        with pytest.raises(ValueError, match="bad module"):
            regdemo.THINGS.get("gamma")


def test_a_group_winoscope_declares_must_hold_its_entry_points() -> None:
    """Metadata written before winoscope declared its own entry points (an editable install
    that predates them) is told apart from a registry that is merely empty."""
    reg: Registry[object] = Registry("thing")
    reg.discover_with("winoscope.test-no-such-group", own=True)
    with pytest.raises(TaskError, match=r"no entry points of group .* reinstall it"):
        reg.names()
    empty: Registry[object] = Registry("thing")
    empty.discover_with("winoscope.test-no-such-group")
    assert empty.names() == []


def test_unknown_names_and_second_registrations() -> None:
    reg: Registry[object] = Registry("thing")
    one = object()
    reg.add("one", one)
    reg.add("one", one)  # the same object again (an entry point read twice) is no error
    with pytest.raises(TaskError, match=r"unknown thing 'two' \(known: one\)"):
        reg.get("two")
    with pytest.raises(TaskError, match="registered twice"):
        reg.add("one", object())


def test_tasks_and_backends_load_on_first_lookup() -> None:
    probe = textwrap.dedent(
        """
        import sys
        import winoscope.tasks, winoscope.backends
        def loaded(pkg):
            return sorted(m for m in sys.modules if m.startswith(pkg + ".") and m != pkg + ".base")
        print(loaded("winoscope.tasks"), loaded("winoscope.backends"))
        winoscope.tasks.TASKS.names(); winoscope.backends.BACKENDS.names()
        print(bool(loaded("winoscope.tasks")), bool(loaded("winoscope.backends")))
        """
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split("\n")[:2] == ["[] []", "True True"]


def test_every_registering_backend_module_is_named_by_the_registration() -> None:
    """Importing every backends module afterwards (torch included) registers nothing more than
    the registration module did: no backend kind is left out of it."""
    pytest.importorskip("torch")  # the hf modules import it
    probe = textwrap.dedent(
        """
        import importlib, pathlib
        import winoscope.backends as b
        found = b.BACKENDS.names()
        root = pathlib.Path(b.__file__).parent
        for p in sorted(root.rglob("*.py")):
            rel = p.relative_to(root.parent.parent).with_suffix("")
            importlib.import_module(".".join(rel.parts).removesuffix(".__init__"))
        print(found == sorted(b.BACKENDS._items), found)
        """
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.startswith("True ["), done.stdout


def test_every_task_module_is_registered_by_its_family() -> None:
    """The same for tasks: importing every module of the families afterwards adds no task (a
    family's package imports every module that registers one)."""
    probe = textwrap.dedent(
        """
        import importlib, pathlib
        import winoscope.families as f
        from winoscope.tasks import TASKS
        found = TASKS.names()
        root = pathlib.Path(f.__file__).parent
        for p in sorted(root.rglob("*.py")):
            rel = p.relative_to(root.parent.parent).with_suffix("")
            importlib.import_module(".".join(rel.parts).removesuffix(".__init__"))
        print(found == sorted(TASKS._items), len(found))
        """
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.startswith("True "), done.stdout


def test_the_demo_runs_the_tasks_the_families_rank_in_their_order() -> None:
    from winoscope.studies.demo import demo_tasks

    assert demo_tasks() == (
        "winobias-uk",
        "winopron-uk",
        "swewinogender/nli",
        "swewinogender/resolution",
        "winobias-uk/coref",
        "winopron-uk/coref",
    )


def test_scorer_options_are_declared_by_the_scorer_and_checked_generically() -> None:
    from winoscope.scoring.options import scorer_options
    from winoscope.tasks import TASKS

    declared = {n: [o.name for o in TASKS.get(n).scorer_options] for n in TASKS.names()}
    assert declared["winobias-en"] == ["keep_unpaired"]
    assert declared["swewinogender/nli"] == ["labels", "alpha_invalid"]
    assert declared["winopron-uk"] == [] and declared["winobias-uk/coref"] == []
    nli = TASKS.get("swewinogender/nli").scorer_options
    assert scorer_options("t", nli, {"labels": "superlim"}) == {"labels": "superlim"}
    # scoring a file takes the declared default for files; a run does not
    assert scorer_options("t", nli, {}, scoring_file=True) == {"labels": "superlim"}
    assert scorer_options("t", nli, {}) == {}
    flag = TASKS.get("winobias-en").scorer_options
    assert scorer_options("t", flag, {"keep_unpaired": "yes"}) == {"keep_unpaired": True}
    with pytest.raises(TaskError, match=r"give true or false"):
        scorer_options("t", flag, {"keep_unpaired": "maybe"})
    with pytest.raises(
        TaskError, match=r"unknown scorer option\(s\) labels \(known: keep_unpaired\)"
    ):
        scorer_options("t", flag, {"labels": "binary"})
