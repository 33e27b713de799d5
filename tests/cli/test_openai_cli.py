"""`winoscope run --model openai:...` end to end in a real process against a real local server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from winoscope.testing.openai_server import StubBehaviour, serve_in_thread

SECRET = "sk-test-5f0c1e9a7b3d"


def winoscope_run(url: str, out: Path, *extra: str, env_key: str = "OPENAI_API_KEY"):
    env = dict(os.environ, **{env_key: SECRET})
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "winoscope.cli",
            "run",
            "winobias-uk",
            "--model",
            "openai:stub",
            "--base-url",
            url,
            "--out",
            str(out),
            "--bootstrap",
            "20",
            *extra,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def test_api_key_never_reaches_files_logs_or_the_store(tmp_path: Path) -> None:
    out = tmp_path / "run"
    # every request about a doctor fails with a 500 whose body echoes the Authorization header
    beh = StubBehaviour(faults=("500",), poison=("Лікар",))
    with serve_in_thread(beh) as srv:
        proc = winoscope_run(
            srv.url, out, "--max-retries", "1", "--api-key-env", "EVAL_KEY", env_key="EVAL_KEY"
        )
        sent = {c.authorization for c in srv.calls}
    assert proc.returncode == 3, proc.stderr  # some requests failed: the run says so
    assert sent == {f"Bearer {SECRET}"}  # the key was used ...
    # ... and appears nowhere: stdout, stderr, or any byte of any file in the run directory
    assert SECRET not in proc.stdout + proc.stderr
    files = [p for p in out.rglob("*") if p.is_file()]
    assert {p.name for p in files} >= {
        "manifest.json",
        "metrics.json",
        "report.md",
        "responses.sqlite",
    }
    for p in files:
        assert SECRET.encode() not in p.read_bytes(), p
    # the failures are reported with a count and examples, with the echoed key masked
    manifest = json.loads((out / "manifest.json").read_text())
    n_failed = manifest["request_errors"]
    assert n_failed > 0
    assert f"{n_failed} request(s) failed after retries" in proc.stderr
    assert "Bearer ***" in proc.stderr
    assert manifest["model"]["params"] == {
        "mode": "chat",
        "temperature": 0.0,
        "max_tokens": 16,
        "server": [srv.url],
    }
    assert manifest["outcome"]["status"] == "partial"
    assert manifest["outcome"]["failed"] == n_failed


def test_rerun_in_the_same_directory_reuses_answers_and_no_resume_does_not(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with serve_in_thread() as srv:
        first = winoscope_run(srv.url, out, "--quiet")
        n1 = len(srv.calls)
        again = winoscope_run(srv.url, out, "--quiet")
        n2 = len(srv.calls)
        fresh = winoscope_run(srv.url, out, "--quiet", "--no-resume")
        first_prompts = {c.prompt for c in srv.calls[:n1]}
        fresh_prompts = {c.prompt for c in srv.calls[n2:]}
    assert first.returncode == again.returncode == fresh.returncode == 0, fresh.stderr
    n = json.loads((out / "manifest.json").read_text())["requests"]
    assert len(first_prompts) == n
    assert n2 == n1, (first.stderr, again.stderr)  # the rerun sent nothing
    assert f"{n} answers reused from the run directory's store, 0 asked" in again.stderr
    assert fresh_prompts == first_prompts  # --no-resume asked every request again


def test_wrong_key_is_one_clear_error_and_exit_2(tmp_path: Path) -> None:
    with serve_in_thread(StubBehaviour(faults=("401",), poison=("Лікар", "Речення"))) as srv:
        proc = winoscope_run(srv.url, tmp_path / "run", "--quiet")
    assert proc.returncode == 2
    assert "HTTP 401" in proc.stderr and "OPENAI_API_KEY" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert SECRET not in proc.stderr
