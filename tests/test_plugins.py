"""Third-party tasks, backends, metrics and languages through entry points, with a real
installed distribution.

The distribution is written into ``tmp_path`` the way an installer leaves it (the package plus
``winoscope_plugin_demo-0.1.0.dist-info/{METADATA,entry_points.txt}``) and put on
``PYTHONPATH`` of a fresh ``winoscope`` process, so ``importlib.metadata`` finds it exactly as it
finds one installed with pip. Through the one group ``winoscope.plugins`` it names modules that
register a task, a metric, a language and a backend kind ``demo`` whose one model, ``last``,
always picks the last option. Through the deprecated groups (``winoscope.tasks``,
``winoscope.backends``, still read) it registers a task (the bundled WinoBias-UK sample under
another name) by naming the task object, a second one (WinoPron-UK's) by naming a module that
registers it, and the same backend by naming its factory.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PLUGIN_INIT = '''
"""A winoscope plugin: one task and one backend (importing the package registers both)."""
import dataclasses

from winoscope.tasks import get_task, task

from . import backend  # noqa: F401  (registers the backend kind)

TASK = task(
    dataclasses.replace(
        get_task("winobias-uk"),
        name="demo-uk",
        description="WinoBias-UK's bundled sample, registered by a plugin",
    )
)
'''

PLUGIN_BACKEND = '''
"""Backend kind ``demo``: model ``last`` answers every request with its last option."""
from dataclasses import dataclass, field
from typing import Any

from winoscope.backends import backend
from winoscope.backends.base import reject_unknown
from winoscope.records import CHOICE_PROTOCOLS, NO_MODES, Description, Response


@dataclass
class LastOption:
    model: str
    params: dict[str, Any] = field(default_factory=dict)
    kind: str = "demo"
    cacheable: bool = False
    protocols: frozenset[str] = CHOICE_PROTOCOLS
    mode = None  # no mode option
    modes = NO_MODES

    def describe(self) -> Description:
        return Description()

    def respond(self, requests):
        for req in requests:
            yield Response(
                request_id=req.request_id,
                backend=self.kind,
                model=self.model,
                choice=req.options[-1].label,
            )


@backend("demo")
def make_demo(name: str, *, seed: int = 0, **unknown: Any) -> LastOption:
    reject_unknown("demo", unknown, ("seed",))
    return LastOption(model=name)
'''

PLUGIN_MORE = '''
"""A module entry point: importing it registers its task itself."""
import dataclasses

from winoscope.tasks import get_task, task

task(dataclasses.replace(get_task("winopron-uk"), name="demo-pron"))
'''

PLUGIN_ONE = '''
"""Everything through the one group: importing the module registers a task, its metric, a
language and a backend kind with the usual decorators."""
import dataclasses

from winoscope.backends import backend
from winoscope.languages import Language, register_language
from winoscope.scoring.metric import metric
from winoscope.tasks import get_task, task

from .backend import make_demo

metric("demo_lean", kind="gap", direction="zero", components=("pro_accuracy", "anti_accuracy"),
       label="demo lean", card="A plugin's gap.")
task(dataclasses.replace(get_task("winobias-uk"), name="demo-one"))
register_language(Language(code="zz-demo", name="Demo", answer_words=("answer",)))
backend("demo-one")(make_demo)
'''

ONE_GROUP = """\
[winoscope.plugins]
demo = winoscope_plugin_demo.one
"""

# the worked example of docs/plugins.md: the package registers its task and its backend kind
PLUGINS = """\
[winoscope.plugins]
demo = winoscope_plugin_demo
"""

# the same package through the deprecated groups: a task object, a module, a factory
DEPRECATED = """\
[winoscope.tasks]
demo-uk = winoscope_plugin_demo:TASK
more = winoscope_plugin_demo.more

[winoscope.backends]
demo = winoscope_plugin_demo.backend:make_demo
"""

METADATA = "Metadata-Version: 2.1\nName: winoscope-plugin-demo\nVersion: 0.1.0\n"


def install_plugin(root: Path, entry_points: str = PLUGINS) -> Path:
    pkg = root / "winoscope_plugin_demo"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(PLUGIN_INIT, encoding="utf-8")
    (pkg / "backend.py").write_text(PLUGIN_BACKEND, encoding="utf-8")
    (pkg / "more.py").write_text(PLUGIN_MORE, encoding="utf-8")
    (pkg / "one.py").write_text(PLUGIN_ONE, encoding="utf-8")
    info = root / "winoscope_plugin_demo-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(METADATA, encoding="utf-8")
    (info / "entry_points.txt").write_text(entry_points, encoding="utf-8")
    return root


def winoscope(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(root), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["COLUMNS"] = "200"
    return subprocess.run(
        [sys.executable, "-m", "winoscope.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


@pytest.fixture(scope="module")
def plugin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return install_plugin(tmp_path_factory.mktemp("site"))


def test_plugin_task_is_listed(plugin: Path) -> None:
    done = winoscope(plugin, "tasks", "--json")
    assert done.returncode == 0, done.stderr
    rows = {r["task"]: r for r in json.loads(done.stdout)}
    assert rows["demo-uk"]["description"] == "WinoBias-UK's bundled sample, registered by a plugin"
    assert "winobias-uk" in rows  # the built-in tasks are still there


def test_the_deprecated_groups_are_still_read(tmp_path: Path) -> None:
    """A task object, a module and a backend factory named in ``winoscope.tasks`` and
    ``winoscope.backends``, as plugins declared them before ``winoscope.plugins``."""
    root = install_plugin(tmp_path, DEPRECATED)
    done = winoscope(root, "tasks", "--json")
    assert done.returncode == 0, done.stderr
    rows = {r["task"]: r for r in json.loads(done.stdout)}
    assert rows["demo-uk"]["description"] == "WinoBias-UK's bundled sample, registered by a plugin"
    assert rows["demo-pron"]["metrics"] == rows["winopron-uk"]["metrics"]  # the module form
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])
    )
    # the tasks first, as a run looks them up: the package's import asks for a task, and a
    # deprecated entry point naming an object of a package still being imported cannot load
    probe = (
        "from winoscope.tasks import TASKS; from winoscope.backends import BACKENDS; "
        "print('demo-uk' in TASKS and 'demo' in BACKENDS)"
    )
    found = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env)
    assert found.stdout.strip() == "True", found.stderr


def test_run_with_plugin_task_and_backend(plugin: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    done = winoscope(plugin, "run", "demo-uk", "-m", "demo:last", "--out", str(out), "-q")
    assert done.returncode == 0, done.stderr
    with (out / "predictions.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 76  # the bundled WinoBias-UK sample
    # each row is asked in both option orders; the last option is the distractor when the
    # target comes first and the target when the distractor comes first
    assert {r["role_target_first"] for r in rows} == {"distractor"}
    assert {r["role_distractor_first"] for r in rows} == {"target"}
    with (out / "metrics.csv").open(encoding="utf-8") as f:
        consistency = [
            float(r["value"])
            for r in csv.DictReader(f)
            if r["metric"] == "option_order_consistency" and r["split"] == "macro"
        ]
    assert consistency == [0.0]
    manifest = (out / "manifest.json").read_text(encoding="utf-8")
    assert '"task": "demo-uk"' in manifest and '"spec": "demo:last"' in manifest


@pytest.mark.parametrize(
    ("group", "entry_points", "missing"),
    [
        ("winoscope.plugins", PLUGINS, "winoscope_plugin_demo.nowhere"),
        ("winoscope.tasks", DEPRECATED, "winoscope_plugin_demo.nowhere:TASK"),
    ],
    ids=["plugins", "deprecated"],
)
def test_broken_entry_point_is_one_clear_error(
    tmp_path: Path, group: str, entry_points: str, missing: str
) -> None:
    """The entry point that fails is named with its group and distribution (the worked
    example of docs/plugins.md, and its deprecated form)."""
    header = f"[{group}]\n"
    root = install_plugin(tmp_path, entry_points.replace(header, f"{header}missing = {missing}\n"))
    for args in (("tasks",), ("run", "winobias-uk", "-m", "baseline:first", "-q")):
        done = winoscope(root, *args)
        assert done.returncode == 2, done.stdout + done.stderr
        assert "Traceback" not in done.stderr
        err = " ".join(done.stderr.split())
        assert f"entry point 'missing = {missing}' (group {group})" in err
        assert "winoscope-plugin-demo 0.1.0" in err
        assert "No module named 'winoscope_plugin_demo.nowhere'" in err


def test_entry_point_task_must_carry_its_name(tmp_path: Path) -> None:
    root = install_plugin(tmp_path, DEPRECATED.replace("demo-uk =", "other-name ="))
    done = winoscope(root, "tasks")
    assert done.returncode == 2
    err = " ".join(done.stderr.split())
    assert "named 'other-name' but its task is 'demo-uk'" in err


def test_one_group_registers_a_task_a_metric_a_language_and_a_backend(tmp_path: Path) -> None:
    """A module named in ``winoscope.plugins`` is imported on the first look-up of any
    registry, whichever it is: the task, the metric, the language and the backend kind it
    registers are each found by the first look-up of their own registry."""
    root = install_plugin(tmp_path, ONE_GROUP)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(root), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    probes = {  # each the first look-up of a fresh process
        "from winoscope.scoring.metric import get_metric; print(get_metric('demo_lean').label)": (
            "demo lean"
        ),
        "from winoscope.languages import get_language; print(get_language('zz-demo').name)": (
            "Demo"
        ),
        "from winoscope.backends import BACKENDS; print('demo-one' in BACKENDS)": "True",
        "from winoscope.tasks import TASKS; print('demo-one' in TASKS, 'winobias-uk' in TASKS)": (
            "True True"
        ),
    }
    for probe, expected in probes.items():
        done = subprocess.run(
            [sys.executable, "-W", "error::DeprecationWarning", "-c", probe],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == expected, probe
    listed = winoscope(root, "tasks", "--json")
    assert listed.returncode == 0, listed.stderr
    assert "demo-one" in {r["task"] for r in json.loads(listed.stdout)}
    ran = winoscope(
        root, "run", "demo-one", "-m", "demo-one:last", "--out", str(tmp_path / "r"), "-q"
    )
    assert ran.returncode == 0, ran.stderr


def test_a_one_group_entry_point_naming_an_object_is_one_clear_error(tmp_path: Path) -> None:
    root = install_plugin(tmp_path, "[winoscope.plugins]\nbad = winoscope_plugin_demo:TASK\n")
    done = winoscope(root, "tasks")
    assert done.returncode == 2, done.stdout + done.stderr
    err = " ".join(done.stderr.split())
    assert "entry point 'bad = winoscope_plugin_demo:TASK' (group winoscope.plugins)" in err
    assert "expected a module, got Task" in err
