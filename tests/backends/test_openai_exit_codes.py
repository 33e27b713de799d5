"""`winoscope run`'s exit status and the outcome it records, in a real process against a real
local server: 0 all answered, 3 some or all failed (run directory still written), 2 a
configuration error (the same deterministic failure from the first answers)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from winoscope.testing.openai_server import StubBehaviour, serve_in_thread


def run_cli(url: str, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "winoscope.cli", "run", "winobias-uk", "--model", "openai:stub",
           "--base-url", url, "--out", str(out), "--bootstrap", "10", "--quiet",
           "--max-retries", "0", *extra]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)


def test_a_run_where_every_request_failed_exits_3_and_says_so(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with serve_in_thread(StubBehaviour(faults=("500",), poison=("",))) as srv:  # every prompt
        proc = run_cli(srv.url, out)
    assert proc.returncode == 3, proc.stderr
    assert "no request was answered" in proc.stderr and "Traceback" not in proc.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    outcome = manifest["outcome"]
    assert outcome["status"] == "failed" and outcome["success"] is False
    assert outcome["answered"] == 0 and outcome["failed"] == outcome["requests"] > 0
    assert outcome["failed_share"] == 1.0
    assert "FAILED: none of the" in (out / "report.md").read_text()


def test_every_request_failed_under_failed_wrong_says_the_rows_are_scored_wrong(
    tmp_path: Path,
) -> None:
    """--failed wrong scores every unanswered row as wrong: the metrics are zeros, not empty,
    and the degenerate run's cause is the failed requests, not the option orders."""
    out = tmp_path / "run"
    with serve_in_thread(StubBehaviour(faults=("500",), poison=("",))) as srv:
        proc = run_cli(srv.url, out, "--failed", "wrong", "--max-failed-share", "1.0")
    assert proc.returncode == 3, proc.stderr
    said = "no request was answered (152 failed): the metrics score every unanswered row as wrong"
    assert said in proc.stderr and "are empty" not in proc.stderr
    assert "likely cause: failed requests: 76 of 76 invalid rows" in proc.stderr
    assert "option orders chose different options" not in proc.stderr
    report = (out / "report.md").read_text()
    assert "the metrics below score every unanswered row as wrong" in report
    assert "are empty" not in report and "option orders chose different" not in report
    quality = json.loads((out / "manifest.json").read_text())["answer_quality"]
    assert quality["degenerate"] and quality["cause"] == "failed requests"


def test_some_failed_exits_3_unless_the_share_is_allowed(tmp_path: Path) -> None:
    beh = StubBehaviour(faults=("500",), poison=("Лікар",))
    with serve_in_thread(beh) as srv:
        strict = run_cli(srv.url, tmp_path / "strict", "--no-resume")
        lenient = run_cli(srv.url, tmp_path / "lenient", "--max-failed-share", "0.5")
    assert strict.returncode == 3, strict.stderr
    outcome = json.loads((tmp_path / "strict" / "manifest.json").read_text())["outcome"]
    assert outcome["status"] == "partial" and 0 < outcome["failed"] < outcome["requests"]
    assert outcome["failed"] + outcome["answered"] == outcome["requests"]
    assert outcome["failed_share"] == round(outcome["failed"] / outcome["requests"], 6)
    assert "request(s) failed" in strict.stderr and "exit status 3" in strict.stderr
    assert (tmp_path / "strict" / "metrics.csv").exists()
    assert "partial:" in (tmp_path / "strict" / "report.md").read_text()
    assert lenient.returncode == 0, lenient.stderr
    lenient_outcome = json.loads((tmp_path / "lenient" / "manifest.json").read_text())["outcome"]
    assert lenient_outcome["success"] is True and lenient_outcome["max_failed_share"] == 0.5


def test_strict_with_failed_requests_states_only_the_exit_status_returned(
    tmp_path: Path,
) -> None:
    """A degenerate run (always "A") under --strict whose requests partly failed exits 3, and
    says so: not "exit status 1" from --strict beside "exit status 3"."""
    beh = StubBehaviour(faults=("500",), poison=("Лікар",), pick=lambda _prompt: "A")
    with serve_in_thread(beh) as srv:
        proc = run_cli(srv.url, tmp_path / "run", "--strict")
    assert proc.returncode == 3, proc.stderr
    assert "warning: degenerate run" in proc.stderr
    assert "--strict: a degenerate run is an error, but requests failed too: exit status 3" in (
        proc.stderr
    )
    assert "exit status 1" not in proc.stderr


def test_the_same_client_error_from_the_first_answers_stops_with_exit_2(tmp_path: Path) -> None:
    with serve_in_thread(StubBehaviour(faults=("400",), poison=("",))) as srv:
        proc = run_cli(srv.url, tmp_path / "run", "--concurrency", "2")
        n_calls = len(srv.calls)
    assert proc.returncode == 2, proc.stderr
    assert "first 20 answers all failed the same way" in proc.stderr and "HTTP 400" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert n_calls <= 22


def test_a_share_outside_0_1_is_a_usage_error(tmp_path: Path) -> None:
    proc = run_cli("http://127.0.0.1:9/v1", tmp_path / "run", "--max-failed-share", "1.5")
    assert proc.returncode == 2 and "max_failed_share" in proc.stderr


def test_run_outcome_counts_by_hand() -> None:
    from winoscope.records import Response
    from winoscope.runs.outcome import run_outcome

    def resp(i: int, error: str | None = None, finish: str | None = "stop") -> Response:
        return Response(f"q{i}", "openai", "m", text=None if error else "A", error=error,
                        finish_reason=finish)  # fmt: skip

    answers = {f"q{i}": resp(i) for i in range(6)}
    answers["q6"] = resp(6, finish="length")
    answers["q7"] = resp(7, error="null answer (finish_reason=content_filter)",
                         finish="content_filter")  # fmt: skip
    out = run_outcome(answers, 8)
    assert out == {
        "requests": 8,
        "answered": 7,
        "failed": 1,
        "failed_share": 0.125,
        "max_failed_share": 0.0,
        "status": "partial",
        "success": False,
        "finish_reasons": {"content_filter": 1, "length": 1, "stop": 6},
    }
    assert run_outcome(answers, 8, max_failed_share=0.125)["success"] is True
    assert run_outcome(answers, 8, max_failed_share=0.1)["success"] is False
    failed = {k: resp(0, error="HTTP 500") for k in answers}
    everything_failed = run_outcome(failed, 8, max_failed_share=1.0)
    assert everything_failed["status"] == "failed" and everything_failed["success"] is False
    assert run_outcome({}, 0)["status"] == "ok"


def test_a_refused_connection_stops_in_seconds_naming_the_url(tmp_path: Path) -> None:
    """Nothing listens at the base URL: not retried for 46 s; one line naming the URL."""
    import socket
    import time

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    started = time.monotonic()
    proc = run_cli(url, tmp_path / "run", "--max-retries", "5")
    elapsed = time.monotonic() - started
    assert proc.returncode == 2, proc.stderr
    assert f"{url}/chat/completions: connection refused" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert elapsed < 30  # the interpreter's start included; retrying took 46 s before
