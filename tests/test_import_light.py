"""``import winoscope`` stays light: heavy libraries load only in the code that uses them.

Timing is left to ``benchmarks/bench_import.py``; this checks what a fresh interpreter has
loaded after the import, which fails the same way on any machine.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# heavy or optional: each is imported inside the function that needs it
HEAVY = ("scipy", "matplotlib", "torch", "transformers", "datasets", "ahocorasick_rs", "zstandard")


def loaded_after(statement: str) -> list[str]:
    probe = (
        f"import sys, json\n{statement}\n"
        f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & set({list(HEAVY)!r}))))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return list(json.loads(done.stdout))


@pytest.mark.parametrize(
    "statement",
    [
        "import winoscope",
        "import winoscope; winoscope.run",  # everything a run needs: tasks, backends, runner
        "import winoscope.cli",
        "from winoscope.tasks import get_task; get_task('winobias-uk')",
        "from winoscope.backends import create_backend; create_backend('baseline:agreement')",
    ],
)
def test_heavy_libraries_are_not_imported(statement: str) -> None:
    assert loaded_after(statement) == []


def test_registering_the_backends_leaves_the_network_stack_out() -> None:
    """Every run looks its backend up among all of them: the openai backend's asyncio, ssl and
    urllib.request load when it asks a model, not when it registers."""
    probe = (
        "import sys; from winoscope.backends import create_backend; "
        "create_backend('baseline:agreement'); "
        "print(sorted(m for m in ('asyncio', 'ssl', 'urllib.request') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_the_probe_sees_an_import() -> None:
    assert loaded_after("import zstandard") == ["zstandard"]


def test_bare_import_defers_even_pandas() -> None:
    probe = (
        "import sys, winoscope; print('pandas' in sys.modules, 'winoscope.tasks' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False"]


def test_command_line_defers_pandas() -> None:
    """``winoscope --help`` and argument errors need typer only: the commands import the
    library (pandas, the tasks) inside their functions."""
    probe = "import sys, winoscope.cli; print('pandas' in sys.modules, 'winoscope.tasks' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False"]


def test_no_public_name_is_also_a_submodule() -> None:
    """A public function named like a submodule (``winoscope.sweep`` the function and a module
    ``sweep.py``) is replaced by the module once anything imports it; the names must differ."""
    import importlib.util

    import winoscope

    clashes = [n for n in winoscope._LAZY if importlib.util.find_spec(f"winoscope.{n}") is not None]
    assert clashes == []
    import winoscope.cli.sweep
    import winoscope.studies.sweep

    assert callable(winoscope.sweep)
