"""The same task and model through ``hf:``, ``vllm:`` (in process) and ``openai:`` against a
real vLLM server: requests per second, as ratios to ``hf:``, measured in one run.

Run on demand, in an environment with vLLM (on a CPU machine: CI's ``.venv-vllm``)::

    VLLM_CPU_KVCACHE_SPACE=1 .venv-vllm/bin/python benchmarks/bench_vllm.py
    VLLM_CPU_KVCACHE_SPACE=1 .venv-vllm/bin/python benchmarks/bench_vllm.py --model gemma

The workload is a task's cloze requests (default WinoBias-UK, the bundled sample, cloze mode:
every backend scores the same continuations). The model is the tests' tiny GPT-2 (built here,
seeded; heads of 32 dimensions, the smallest vLLM's CPU attention takes) or ``--model gemma``,
the demo's float32 copy of Gemma 3 270M. Engine and server start-up are timed apart from the
answering. Only one engine runs at a time: the in-process engine is shut down before the server
starts, and the server (``python -m vllm.entrypoints.openai.api_server``, started here and
stopped by its PID) is stopped before the script ends. A busy machine makes the figures noisy:
read the ratios, measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def say(text: str) -> None:
    print(text, flush=True)


def model_dir(which: str) -> Path:
    if which == "gemma":
        from winoscope.backends.hf import gemma

        return gemma.ensure_float_model()
    from tiny_lm import build_tiny_gpt2

    return build_tiny_gpt2(Path(tempfile.mkdtemp()) / "tiny", n_embd=64, n_positions=1024)


def timed_run(task: str, backend: Any, limit: int | None) -> dict[str, Any]:
    """Answer the task's cloze requests once (nothing stored); requests per second."""
    from winoscope.runs.config import RunConfig
    from winoscope.runs.plan import plan
    from winoscope.runs.runner import ask

    p = plan(RunConfig(task, backend, store=False, protocol="cloze", limit=limit))
    started = time.perf_counter()
    got = ask(p)
    seconds = time.perf_counter() - started
    failed = [r.error for r in got.responses.values() if r.error]
    n = len(got.responses)
    out = {"requests": n, "seconds": round(seconds, 3), "requests_per_s": round(n / seconds, 2)}
    if failed:  # counted and shown, not hidden: the rate is over every request asked
        out.update(failed=len(failed), first_error=str(failed[0])[:200])
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(path: Path, port: int, max_len: int, log: Path) -> subprocess.Popen[bytes]:
    """A real vLLM OpenAI-compatible server on ``path`` (the ``vllm`` console script does not
    work with the ``vllm-cpu`` distribution; the module does)."""
    command = [
        sys.executable, "-m", "vllm.entrypoints.openai.api_server",
        "--model", str(path), "--served-model-name", "bench", "--dtype", "float32",
        "--max-model-len", str(max_len), "--enforce-eager",
        "--host", "127.0.0.1", "--port", str(port),
    ]  # fmt: skip
    with log.open("wb") as out:
        return subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )


def wait_ready(proc: subprocess.Popen[bytes], port: int, limit_s: float, log: Path) -> None:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(
                f"the vLLM server exited ({proc.returncode}):\n{log.read_text()[-3000:]}"
            )
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(1)
    raise SystemExit(f"the vLLM server was not ready within {limit_s:.0f} s")


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop the server and its engine process (its own process group) by PID."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=("tiny", "gemma"), default="tiny")
    parser.add_argument("--task", default="winobias-uk")
    parser.add_argument("--limit", type=int, default=None, help="--limit of the run (default all)")
    parser.add_argument("--concurrency", type=int, default=64, help="openai: requests in flight")
    parser.add_argument("--server-start-limit", type=float, default=600.0)
    parser.add_argument("--out", default=None, help="write the figures to this JSON file")
    args = parser.parse_args()

    import torch

    torch.set_num_threads(1)
    from winoscope.backends import create_backend
    from winoscope.backends.vllm.engine import release_engines

    path = model_dir(args.model)
    max_len = 512 if args.model == "gemma" else 1024
    figures: dict[str, Any] = {"model": args.model, "task": args.task, "limit": args.limit}

    hf = create_backend(f"hf:{path}", mode="cloze")
    started = time.perf_counter()
    timed_run(args.task, hf, 1)
    figures["hf_load_and_first_s"] = round(time.perf_counter() - started, 2)
    figures["hf"] = timed_run(args.task, hf, args.limit)
    say(f"hf:      {figures['hf']}")
    del hf

    vl = create_backend(f"vllm:{path}", mode="cloze", enforce_eager=True, max_model_len=max_len)
    started = time.perf_counter()
    timed_run(args.task, vl, 1)
    figures["vllm_start_and_first_s"] = round(time.perf_counter() - started, 2)
    figures["vllm"] = timed_run(args.task, vl, args.limit)
    say(f"vllm:    {figures['vllm']}")
    release_engines()

    port = free_port()
    log = Path(tempfile.mkdtemp()) / "vllm-server.log"
    started = time.perf_counter()
    proc = start_server(path, port, max_len, log)
    try:
        wait_ready(proc, port, args.server_start_limit, log)
        figures["server_start_s"] = round(time.perf_counter() - started, 2)
        oa = create_backend(
            "openai:bench",
            base_url=f"http://127.0.0.1:{port}/v1",
            mode="cloze",
            concurrency=args.concurrency,
            # token-id prompts: the exact split hf: and vllm: make (text offsets refuse a
            # byte-level tokenizer's split characters rather than guess)
            tokenizer=str(path),
        )
        timed_run(args.task, oa, 1)  # warm-up
        figures["openai"] = timed_run(args.task, oa, args.limit)
        figures["openai"]["concurrency"] = args.concurrency
        say(f"openai:  {figures['openai']}")
    finally:
        stop(proc)

    base = figures["hf"]["requests_per_s"]
    figures["ratios_to_hf"] = {
        k: round(figures[k]["requests_per_s"] / base, 2) for k in ("hf", "vllm", "openai")
    }
    say(f"requests/s as ratios to hf: {figures['ratios_to_hf']}")
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
