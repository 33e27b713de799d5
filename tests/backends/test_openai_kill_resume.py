"""`kill -9` of a real `winoscope run` at three moments (before the first answer is stored,
with the last requests in flight, and after every answer is stored but before the run
directory is written), then a rerun: nothing lost, nothing asked twice, a complete run.
(The middle of a run is covered by test_resume_after_kill.)"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from test_resume_after_kill import cli, stored_rows

from winoscope.backends.store import STORE_FILE
from winoscope.tasks import get_task
from winoscope.testing.openai_server import StubBehaviour, serve_in_thread


def command(url: str, out: Path, bootstrap: int) -> list[str]:
    cmd = cli(url, out)
    cmd[cmd.index("--bootstrap") + 1] = str(bootstrap)
    return cmd


MOMENTS: dict[str, tuple[float, int, Callable[[int, int, int], bool]]] = {
    # name: (server latency, bootstrap replicates, when to kill (stored, total, calls))
    "first-requests-in-flight": (0.5, 20, lambda stored, total, calls: calls >= 3),
    "last-requests-in-flight": (0.08, 20, lambda stored, total, calls: stored >= total - 5),
    "all-stored-run-dir-not-written": (0.02, 20_000, lambda stored, total, calls: stored == total),
}


@pytest.mark.parametrize("moment", list(MOMENTS))
def test_kill_9_then_resume_loses_and_repeats_nothing(tmp_path: Path, moment: str) -> None:
    latency, bootstrap, when = MOMENTS[moment]
    t = get_task("winobias-uk")
    requests = t.primary.build_requests(t.data.load(None), t.primary.template)
    prompt_of = {r.content_hash: r.prompt for r in requests}
    total = len(set(prompt_of))
    out = tmp_path / "run"
    db = out / STORE_FILE
    with serve_in_thread(StubBehaviour(latency=latency)) as srv:
        proc = subprocess.Popen(
            command(srv.url, out, bootstrap),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.time() + 120
        while not when(len(stored_rows(db)), total, len(srv.calls)):
            assert proc.poll() is None, proc.communicate()
            assert time.time() < deadline, "the moment never came"
            time.sleep(0.005)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
        assert proc.returncode == -signal.SIGKILL
        before = stored_rows(db)
        assert not (out / "manifest.json").exists(), "the kill came too late"
        if moment == "first-requests-in-flight":
            assert before == {}
        elif moment == "last-requests-in-flight":
            assert total - 5 <= len(before) < total
        else:
            assert len(before) == total
        asked_before = {c.prompt for c in srv.calls}
        assert {prompt_of[h] for h in before} <= asked_before
        n_before = len(srv.calls)
        done = subprocess.run(
            command(srv.url, out, 20), capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stderr
        resumed = [c.prompt for c in srv.calls[n_before:]]
    after = stored_rows(db)
    assert all(after[h] == row for h, row in before.items())  # nothing lost or rewritten
    stored_prompts = {prompt_of[h] for h in before}
    assert not stored_prompts & set(resumed)  # nothing asked twice
    assert len(resumed) == len(set(resumed)) == total - len(before)
    assert len(after) == total
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["responses"]["cached"] == len(before)
    assert manifest["outcome"]["status"] == "ok"
