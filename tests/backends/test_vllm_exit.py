"""A finished ``vllm:`` run exits with its own status, never a signal.

vLLM's engine runs in a process of its own, watched by a thread of the parent. Left to the
interpreter's exit, the engine process is ended first, the watching thread reads that as an
engine that died and starts a cleanup while the interpreter tears itself down: on a loaded
machine the process then aborts (SIGABRT, exit status 134, "terminate called without an
active exception") after a run that did all its work. The command line shuts the engine down
itself at the run's end; these runs, two at a time so that each loads the machine for the
other, must all exit 0.

The runs are the command a user types, in a subprocess each: the tiny GPT-2 in cloze, letters
and generation modes, and the tiny Llama with a LoRA adapter (vLLM's GPT-2 takes none) in the
same three; and a study with one ``vllm:`` cell run by the local executor, whose job (a process
of its own) must read COMPLETED: its exit status is the job's, not a signal's.

Besides the exit statuses, which a quiet machine keeps at 0 even without the fix, each run's
log must show vLLM's client shut down on request ("[shutdown] MPClient: start", logged only by
its ``shutdown()``) and never the watching thread's "engine core exited unexpectedly".
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from vllm_helpers import lora_adapter

from tiny_lm import build_tiny_gpt2, build_tiny_llama

pytestmark = [pytest.mark.vllm, pytest.mark.timeout(3600)]

#: (label, model, mode, with the adapter) of each run; modes repeated to meet the race often (with
#: the study, ten commands: five rounds of two)
RUNS = [
    ("gpt2-cloze-1", "gpt2", "cloze", False),
    ("gpt2-letters-1", "gpt2", "letters", False),
    ("gpt2-cloze-2", "gpt2", "cloze", False),
    ("gpt2-letters-2", "gpt2", "letters", False),
    ("gpt2-generate", "gpt2", "generate", False),
    ("gpt2-cloze-3", "gpt2", "cloze", False),
    ("llama-lora-cloze", "llama", "cloze", True),
    ("llama-lora-letters", "llama", "letters", True),
    ("llama-lora-generate", "llama", "generate", True),
]


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    import torch

    torch.set_num_threads(1)
    root = tmp_path_factory.mktemp("exit-models")
    llama = build_tiny_llama(root / "llama")
    return {
        "gpt2": build_tiny_gpt2(root / "gpt2", n_embd=64),  # heads of 32, as vLLM's CPU needs
        "llama": llama,
        "adapter": lora_adapter(llama, root / "adapter", seed=1, rank=4),
    }


STUDY = """\
name = "vllm-exit"
out = "{out}"
key = "alpha"
tasks = ["winobias-uk"]
bootstrap = 20
limit = 1

[[models]]
name = "gpt2"
spec = "vllm:{model}"
model_args = {{mode = "cloze", enforce_eager = true}}
"""


def _command(models: dict[str, Path], model: str, mode: str, lora: bool, out: Path) -> list[str]:
    command = [
        sys.executable, "-m", "winoscope", "run", "winobias-uk",
        "--model", f"vllm:{models[model]}", "-M", f"mode={mode}", "-M", "enforce_eager=true",
        "--limit", "1", "--bootstrap", "20", "--out", str(out), "--quiet",
    ]  # fmt: skip
    if mode == "generate":
        command += ["-M", "max_new_tokens=4"]
    if lora:
        command += ["-M", f"lora={models['adapter']}"]
    return command


def _study_command(models: dict[str, Path], folder: Path) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    study = folder / "study.toml"
    text = STUDY.format(out=folder / "out", model=models["gpt2"])
    study.write_text(text, encoding="utf-8")
    return [sys.executable, "-m", "winoscope", "study", "run", str(study)]


def test_every_cli_run_exits_with_its_own_status(models: dict[str, Path], tmp_path: Path) -> None:
    env = {
        **os.environ,
        "VLLM_CPU_KVCACHE_SPACE": os.environ.get("VLLM_CPU_KVCACHE_SPACE", "1"),
        "VLLM_LOGGING_LEVEL": "INFO",  # the shutdown lines read below are INFO and WARNING
    }
    commands = {
        label: _command(models, m, mode, lora, tmp_path / label) for label, m, mode, lora in RUNS
    }
    commands["study-gpt2-cloze"] = _study_command(models, tmp_path / "study")

    def one(label: str) -> tuple[str, int, str]:
        started = time.monotonic()
        done = subprocess.run(commands[label], capture_output=True, text=True, timeout=900, env=env)
        print(f"{label}: exit {done.returncode} in {time.monotonic() - started:.0f} s", flush=True)
        return label, done.returncode, done.stdout + done.stderr

    with ThreadPoolExecutor(max_workers=2) as pool:  # two at a time: each loads the other
        results = list(pool.map(one, commands))
    statuses = {label: code for label, code, _ in results}
    print(f"\nvllm CLI runs' exit statuses: {statuses}")
    failed = [f"{label}: exit {code}\n{log[-4000:]}" for label, code, log in results if code != 0]
    assert not failed, f"{len(failed)} of {len(results)} did not exit 0:\n" + "\n".join(failed)
    for label, _, log in results[:-1]:  # each run did its work (every request answered)
        manifest = json.loads((tmp_path / label / "manifest.json").read_text(encoding="utf-8"))
        assert manifest["outcome"]["success"] is True, label
        assert "[shutdown] MPClient: start" in log, f"{label}: the engine was not shut down"
        assert "engine core exited unexpectedly" not in log, f"{label}:\n{log[-4000:]}"
    study_log = results[-1][2]
    assert "gpt2: COMPLETED" in study_log, study_log[-4000:]
    job_log = (tmp_path / "study" / "out" / "logs" / "gpt2.log").read_text(encoding="utf-8")
    assert "[shutdown] MPClient: start" in job_log, job_log[-4000:]
    assert "engine core exited unexpectedly" not in job_log, job_log[-4000:]


def test_close_ends_the_engine_processes_and_may_be_called_again(models: dict[str, Path]) -> None:
    """In process: a backend made by its maker, used by a run, then closed by the maker."""
    from vllm_helpers import ENGINE

    from winoscope.backends import close_backend, create_backend
    from winoscope.backends.vllm.engine import _HELD, engines_held
    from winoscope.runs.runner import run

    b = create_backend(f"vllm:{models['gpt2']}", mode="cloze", **ENGINE)
    rr = run("winobias-uk", b, n_boot=10, limit=1)
    assert rr.manifest["outcome"]["success"] is True
    assert engines_held() == 1  # a backend passed in stays open: its maker closes it
    processes = list(_HELD[0].llm.llm_engine.engine_core.resources.engine_manager.processes)
    assert processes and all(p.is_alive() for p in processes)
    close_backend(b)
    assert engines_held() == 0
    assert not any(p.is_alive() for p in processes)  # ended and waited for
    b.close()  # again: nothing held, nothing to do
    assert engines_held() == 0
