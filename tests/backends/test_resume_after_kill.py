"""A real `winoscope run` process killed mid-run (kill -9, Ctrl-C) loses and repeats nothing."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from winoscope.backends.store import STORE_FILE
from winoscope.tasks import get_task
from winoscope.testing.openai_server import StubBehaviour, serve_in_thread


def stored_rows(db: Path) -> dict[str, tuple[str, float]]:
    """content_hash -> (text, created) of every committed row, read by another connection."""
    if not db.exists():
        return {}
    con = sqlite3.connect(db, timeout=5)
    try:
        return {
            h: (p, c)
            for h, p, c in con.execute("SELECT content_hash, text, created FROM responses")
        }
    except sqlite3.OperationalError:  # the table is not created yet
        return {}
    finally:
        con.close()


def cli(url: str, out: Path) -> list[str]:
    return [
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
        "--concurrency",
        "3",
        "--bootstrap",
        "20",
        "--quiet",
    ]


def interruptible() -> None:
    """In the child before it starts: SIGINT handled as in a terminal. A suite started in the
    background by a non-interactive shell inherits SIGINT ignored, and Python then leaves it
    ignored, so Ctrl-C would never reach the run."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGINT], ids=["kill-9", "ctrl-c"])
def test_killed_run_resumes_without_losing_or_repeating_answers(
    tmp_path: Path, how: signal.Signals
) -> None:
    t = get_task("winobias-uk")
    requests = t.primary.build_requests(t.data.load(None), t.primary.template)
    prompt_of = {r.content_hash: r.prompt for r in requests}
    total = len(requests)
    out = tmp_path / "run"
    db = out / STORE_FILE
    beh = StubBehaviour(latency=0.08)
    with serve_in_thread(beh) as srv:
        proc = subprocess.Popen(
            cli(srv.url, out),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=interruptible,
        )
        deadline = time.time() + 120
        while len(stored_rows(db)) < 30:
            assert proc.poll() is None, proc.communicate()
            assert time.time() < deadline, "the run never stored 30 answers"
            time.sleep(0.05)
        proc.send_signal(how)
        _, err = proc.communicate(timeout=60)
        if how == signal.SIGKILL:
            assert proc.returncode == -signal.SIGKILL
        else:
            assert proc.returncode == 130, err
            assert "rerun the same command to resume" in err
        before = stored_rows(db)
        assert 30 <= len(before) < total, "the kill came too late to test resuming"
        assert not (out / "manifest.json").exists()
        calls_before = len(srv.calls)
        # every stored answer was asked; in-flight requests at the kill were not stored
        asked_prompts = {c.prompt for c in srv.calls}
        assert {prompt_of[h] for h in before} <= asked_prompts

        done = subprocess.run(cli(srv.url, out), capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        resumed_calls = srv.calls[calls_before:]

    after = stored_rows(db)
    # nothing lost: every answer stored before the kill is still there, untouched
    for h, row in before.items():
        assert after[h] == row
    # nothing repeated: the resumed run asked only for prompts without a stored answer
    resumed_prompts = [c.prompt for c in resumed_calls]
    stored_before = {prompt_of[h] for h in before}
    assert not stored_before & set(resumed_prompts)
    assert len(resumed_prompts) == len(set(resumed_prompts)) == total - len(before)
    # and the run is complete: one row per request, a manifest that says what was reused
    assert len(after) == total
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["responses"]["cached"] == len(before)
    assert manifest["responses"]["asked"] == total - len(before)
    assert manifest["request_errors"] == 0
