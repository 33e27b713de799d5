"""No global side effects: winoscope leaves the process as it found it (a notebook's plots,
garbage collector, warning filters, logging and environment), at import and after runs.

The matplotlib part (rcParams, backend, pyplot) is checked after drawing a run report and a
comparison in tests/report/test_figures.py; here the source is scanned for calls that change
process state, and a fresh interpreter compares that state before and after a run with a
baseline, one against the local OpenAI-compatible stand-in server and one with a local
``hf:`` model given its own thread count (torch's count must come back as it was).
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "winoscope"

# dotted call names that change the whole process (a benchmark may; the library may not)
FORBIDDEN_CALLS = {
    "matplotlib.use",
    "mpl.use",
    "plt.switch_backend",
    "plt.style.use",
    "matplotlib.style.use",
    "plt.rcdefaults",
    "matplotlib.rcdefaults",
    "gc.freeze",
    "gc.disable",
    "gc.set_threshold",
    "sys.setrecursionlimit",
    "sys.setswitchinterval",
    "logging.basicConfig",
    "signal.signal",
    "os.putenv",
    "locale.setlocale",
}
# allowed only inside ``with warnings.catch_warnings():`` (which restores the filters)
WARNING_FILTERS = {"warnings.filterwarnings", "warnings.simplefilter"}


def dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{dotted(node.value)}.{node.attr}"
    return ""


def findings(tree: ast.AST, where: str) -> list[str]:
    out: list[str] = []

    def visit(node: ast.AST, in_catch: bool) -> None:
        if isinstance(node, ast.With | ast.AsyncWith) and any(
            dotted(getattr(i.context_expr, "func", i.context_expr)).endswith("catch_warnings")
            for i in node.items
        ):
            in_catch = True
        if isinstance(node, ast.Call):
            name = dotted(node.func)
            if name in FORBIDDEN_CALLS or name.endswith(("rcParams.update", "os.environ.update")):
                out.append(f"{where}:{node.lineno}: {name}()")
            if name in WARNING_FILTERS and not in_catch:
                out.append(f"{where}:{node.lineno}: {name}() outside warnings.catch_warnings()")
        if isinstance(node, ast.Assign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Subscript) and dotted(t.value).endswith(
                    ("rcParams", "os.environ")
                ):
                    out.append(f"{where}:{node.lineno}: {dotted(t.value)}[...] = ...")
        for child in ast.iter_child_nodes(node):
            visit(child, in_catch)

    visit(tree, False)
    return out


def test_source_has_no_process_wide_calls() -> None:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += findings(tree, str(path.relative_to(SRC)))
    assert found == []


def test_the_scan_finds_what_it_looks_for() -> None:
    code = textwrap.dedent(
        """
        import gc, warnings, matplotlib
        matplotlib.use("Agg")
        matplotlib.rcParams["font.size"] = 9
        gc.freeze()
        warnings.simplefilter("ignore")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
        """
    )
    got = findings(ast.parse(code), "x.py")
    assert got == [
        "x.py:3: matplotlib.use()",
        "x.py:4: matplotlib.rcParams[...] = ...",
        "x.py:5: gc.freeze()",
        "x.py:6: warnings.simplefilter() outside warnings.catch_warnings()",
    ]


PROBE = """
import gc, json, logging, os, signal, sys, warnings

def state():
    return {
        "gc_enabled": gc.isenabled(),
        "gc_threshold": list(gc.get_threshold()),
        "gc_frozen": gc.get_freeze_count(),
        "warning_filters": [repr(f) for f in warnings.filters],
        "root_handlers": [repr(h) for h in logging.getLogger().handlers],
        "root_level": logging.getLogger().level,
        "sigint": repr(signal.getsignal(signal.SIGINT)),
        "environ": sorted(os.environ.items()),
        "recursion": sys.getrecursionlimit(),
        "torch_threads": torch.get_num_threads(),
    }

# third-party libraries set their own warning filters on import (numpy's RankWarning ...):
# imported first, so that what is compared is winoscope's doing
import aiohttp.web, httpx, jinja2, matplotlib, numpy, pandas, pyarrow, pymorphy3, rich, scipy.stats, typer
import torch, transformers
sys.path.insert(0, TESTS)
from tiny_lm import build_tiny_gpt2
tiny = build_tiny_gpt2(__import__("pathlib").Path(OUT) / "tiny", seed=1)
torch.set_num_threads(2)
before = state()
import winoscope
from winoscope.testing.openai_server import serve_in_thread
after_import = state()
winoscope.run("winobias-uk", "baseline:agreement", out=OUT + "/baseline", n_boot=20)
with serve_in_thread() as srv:
    winoscope.run(
        "winobias-uk", "openai:stub", out=OUT + "/openai", n_boot=20,
        backend_options={"base_url": [srv.url], "api_key_env": "WINOSCOPE_TEST_KEY"},
    )
# the local model with a thread count of its own: set for the run, restored after
winoscope.run("winobias-uk", f"hf:{tiny}", out=OUT + "/hf", n_boot=20,
              backend_options={"threads": 1, "mode": "texts"})
after_runs = state()
print(json.dumps({"import": after_import == before, "runs": after_runs == before,
                  "diff": {k: [before[k], after_runs[k]] for k in before if before[k] != after_runs[k]}}))
"""


def test_runs_leave_process_state_alone(tmp_path: Path) -> None:
    pytest.importorskip("torch")  # one of the runs is an hf: model
    env_key = "WINOSCOPE_TEST_KEY"
    tests = str(Path(__file__).resolve().parent)
    script = f"OUT = {str(tmp_path)!r}\nTESTS = {tests!r}\n" + PROBE
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=600,
        env=dict(os.environ, **{env_key: "sk-test"}),
    )
    assert done.returncode == 0, done.stderr
    res = json.loads(done.stdout.strip().splitlines()[-1])
    assert res == {"import": True, "runs": True, "diff": {}}
    manifest = json.loads((tmp_path / "openai" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["outcome"]["status"] == "ok"  # the openai path really ran
    hf = json.loads((tmp_path / "hf" / "manifest.json").read_text(encoding="utf-8"))
    assert hf["model"]["runtime"]["threads"] == 1 and hf["outcome"]["status"] == "ok"
