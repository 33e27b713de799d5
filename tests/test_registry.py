"""The registry's discovery: the owner's own components, winoscope's own families (by the
explicit list, no entry point) and the plugins, on the first look-up; and the one
:class:`~winoscope.registry.Registry` class behind tasks, backends, metrics, languages and
prompt templates alike.

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

THINGS.discover_with(_builtin, deprecated="winoscope.test-no-such-group")
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


def test_the_builtin_families_come_from_the_explicit_list_without_entry_points() -> None:
    """With no entry point at all in the installed metadata (an install made before a family
    was added, or none), every family of :data:`winoscope.families.BUILTIN` is registered on
    the first look-up, and the list names every family folder."""
    probe = textwrap.dedent(
        """
        import importlib.metadata as md
        md.entry_points = lambda **kw: []   # no group holds anything
        import pathlib
        from winoscope.families import BUILTIN, __file__ as where
        from winoscope.tasks import TASKS
        from winoscope.tasks.family import FAMILIES
        from winoscope.compare.links import linked_pairs
        from winoscope.scoring.metric import get_metric
        folders = sorted(p.parent.name for p in pathlib.Path(where).parent.glob("*/__init__.py"))
        print(folders == sorted(BUILTIN), FAMILIES.names() == sorted(BUILTIN))
        print("winobias-uk" in TASKS, "stereoset-uk" in TASKS, len(linked_pairs()))
        print(get_metric("icat").declared)
        """
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:3] == ["True True", "True True 3", "True"]


def test_the_families_load_on_the_first_lookup_only() -> None:
    """Importing winoscope or a registry's package imports no family; the first look-up in
    any registry the families fill imports every one."""
    probe = textwrap.dedent(
        """
        import sys
        import winoscope.scoring.metric, winoscope.datasets.releases
        def families():
            return sorted(m for m in sys.modules if m.count(".") == 2
                          and m.startswith("winoscope.families."))
        print(families())
        winoscope.datasets.releases.RELEASES.names()
        print(families())
        """
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    from winoscope.families import BUILTIN

    before, after = done.stdout.split("\n")[:2]
    assert before == "[]"
    assert after == str([f"winoscope.families.{f}" for f in BUILTIN])


def test_a_second_record_is_kept_refused_or_replaced_by_the_registrys_policy() -> None:
    reg: Registry[tuple[int, ...]] = Registry(
        "pair", ValueError, same=lambda a, b: a == b, twice=lambda n, old: f"{n} holds {old}"
    )
    first = (1, 2)
    assert reg.add("p", first) is first
    assert reg.add("p", tuple([1, 2])) is first  # an equal record again keeps the first
    with pytest.raises(ValueError, match=r"^p holds \(1, 2\)$"):
        reg.add("p", (3, 4))
    assert reg.add("p", (3, 4), replace=True) == (3, 4) == reg.get("p")
    assert reg.get("q", None) is None and reg.peek("q") is None
    with pytest.raises(ValueError, match=r"unknown pair 'q' \(known: p\)"):
        reg.get("q")
    assert reg.items() == [("p", (3, 4))] and reg.values() == [(3, 4)] and len(reg) == 1


def test_peek_discovers_nothing_and_order_follows_the_registry() -> None:
    calls: list[int] = []
    reg: Registry[int] = Registry("thing", ordered=False)
    reg.discover_with(lambda: calls.append(1) or [reg.add(n, 0) for n in ("b", "a")])
    reg.add("c", 1)
    assert reg.peek("c") == 1 and calls == []  # a registered name, no discovery
    assert reg.names() == ["c", "b", "a"] and calls == [1]  # registration order
    assert list(reg) == ["c", "b", "a"] and calls == [1]  # discovered once
    reg.rebuild()
    assert reg.names() == ["b", "a"] and calls == [1, 1]


def test_metrics_and_languages_are_registries_with_their_errors() -> None:
    from winoscope.languages import LANGUAGES, Language, get_language, register_language
    from winoscope.scoring.metric import METRICS, get_metric, metric

    assert isinstance(METRICS, Registry) and isinstance(LANGUAGES, Registry)
    metric("registry_test_rate", kind="rate", direction="lower")
    metric("registry_test_rate", kind="rate", direction="lower")  # the same meaning again
    with pytest.raises(ValueError, match="'registry_test_rate' is already declared with another"):
        metric("registry_test_rate", kind="rate", direction="higher")
    assert get_metric("registry_test_rate").direction == "lower"
    assert METRICS.get("registry_test_rate") is get_metric("registry_test_rate")

    lang = Language(code="zz-registry", name="Test")
    assert register_language(lang) is lang
    assert register_language(Language(code="zz-registry", name="Test")) is lang  # equal: kept
    other = Language(code="zz-registry", name="Other")
    with pytest.raises(ValueError, match=r"'zz-registry' is already registered \(Test\); pass"):
        register_language(other)
    try:
        assert register_language(other, replace=True) is other is get_language("zz-registry")
        assert "zz-registry" in LANGUAGES and LANGUAGES.names()[-1] == "zz-registry"
    finally:
        LANGUAGES.remove("zz-registry")


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
