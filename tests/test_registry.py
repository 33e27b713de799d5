"""The registry's discovery: modules of a package found by a walk, imported on first look-up.

A real package is written into ``tmp_path`` (its ``__init__`` holds a registry; two modules
register, one helper does not and fails if imported) and imported from there.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from winoscope.errors import TaskError
from winoscope.registry import Registry, builtin_modules

INIT = """
from winoscope.registry import Registry
THINGS = Registry("thing")
THINGS.discover_with(__name__, "winoscope.test-no-such-group", registers=r"THINGS\\.add")
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


def write_package(root: Path, name: str, **modules: str) -> None:
    pkg = root / name
    pkg.mkdir()
    (pkg / "__init__.py").write_text(INIT, encoding="utf-8")
    for mod, text in modules.items():
        (pkg / f"{mod}.py").write_text(text, encoding="utf-8")


@pytest.fixture
def on_path(tmp_path: Path):  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(tmp_path))
    yield tmp_path
    sys.path.remove(str(tmp_path))
    for m in [m for m in sys.modules if m.startswith("regdemo")]:
        del sys.modules[m]


def test_walk_imports_registering_modules_on_first_lookup(on_path: Path) -> None:
    write_package(on_path, "regdemo", alpha=ALPHA, beta=BETA, helper=HELPER)
    import regdemo

    assert "regdemo.alpha" not in sys.modules  # nothing imported before a look-up
    assert regdemo.THINGS.names() == ["alpha", "beta"]
    assert regdemo.THINGS.get("beta") == 2
    assert "regdemo.helper" not in sys.modules
    assert builtin_modules("regdemo") == ["regdemo.alpha", "regdemo.beta", "regdemo.helper"]


def test_failed_discovery_is_reported_again_on_the_next_lookup(on_path: Path) -> None:
    broken = "from . import THINGS\nTHINGS.add('gamma', 3)\nraise ValueError('bad module')\n"
    write_package(on_path, "regdemo", gamma=broken)
    import regdemo

    for _ in range(2):
        with pytest.raises(ValueError, match="bad module"):
            regdemo.THINGS.get("gamma")


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


def test_backend_walk_skips_no_registering_module() -> None:
    """Importing every backends module afterwards (torch included) registers nothing more than
    the filtered walk found."""
    probe = textwrap.dedent(
        """
        import importlib, pkgutil
        import winoscope.backends as b
        found = b.BACKENDS.names()
        for m in pkgutil.iter_modules(b.__path__):
            importlib.import_module("winoscope.backends." + m.name)
        print(found == sorted(b.BACKENDS._items), found)
        """
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.startswith("True ["), done.stdout
