"""BBQ-UK at the release's size, and a killed run that resumes without asking again.

The full-size test (``slow``) checks what the release's evaluator counts on a file of its shape
(58,492 rows, 29,246 pairs, 58,476 eligible, three requests per row for the cyclic methods) and
that loading, the checks, the requests, joining the answers and scoring with 1,000 bootstrap
draws stay within 2 GB of memory; the benchmark (``benchmarks/bench_bbq_full.py``) measures their
time. The resume test kills a real ``winoscope run`` process of ``bbq-uk`` and runs it again
into the same directory, as the answer store's own test does for WinoBias-UK.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bbq_shape import write_bbq_uk

from winoscope.backends.store import STORE_FILE
from winoscope.testing.openai_server import StubBehaviour, serve_in_thread

METHOD = "abc_mean_token_logprob_cyclic_raw_v2"


CHILD = """
import json, resource, sys
from pathlib import Path


def peak_kib():
    # this process's own peak (VmHWM): ru_maxrss keeps, across exec, the peak of the process
    # that forked it (pytest, with every model it loaded)
    try:
        with open("/proc/self/status") as fh:
            return next(int(l.split()[1]) for l in fh if l.startswith("VmHWM:"))
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

from bbq_shape import ScriptedScorer, write_bbq_uk
from winoscope.tasks import get_task

task = get_task("bbq-uk")
binding = task.protocols[sys.argv[2]]
ds = task.data.load(str(write_bbq_uk(Path(sys.argv[1]))))
problems = task.data.validate(ds)
t = ds.table
requests = binding.build_requests(ds, binding.template)
answers = {r.request_id: r for r in ScriptedScorer().respond(requests)}
predictions = binding.predict(ds, requests, answers)
result = task.scorer(predictions, n_boot=1000, seed=0)
macro = result.metrics[result.metrics["split"] == "macro"].set_index("metric")
print(json.dumps({
    "problems": [str(p) for p in problems],
    "rows": len(t),
    "pairs": int(t["pair_id"].nunique()),
    "eligible": int(t["bias_score_eligible"].sum()),
    "requests": len(requests),
    "ambig_n": int(macro.loc["ambig_accuracy_all_rows", "n"]),
    "maxrss_kib": peak_kib(),
}))
"""


@pytest.mark.slow
def test_the_release_shape_in_memory(tmp_path: Path) -> None:
    """In a fresh process, so that the peak resident memory is this work's alone (the time is
    the benchmark's to measure)."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(tmp_path / "test.csv"), METHOD],
        capture_output=True,
        text=True,
        cwd=Path(__file__).parent,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["problems"] == []
    assert (seen["rows"], seen["pairs"], seen["eligible"]) == (58492, 29246, 58476)
    assert seen["requests"] == 3 * 58492
    assert seen["ambig_n"] == 29246
    assert seen["maxrss_kib"] < 2 * 1024 * 1024, seen["maxrss_kib"]


def stored(db: Path) -> int:
    import sqlite3

    if not db.exists():
        return 0
    con = sqlite3.connect(db, timeout=5)
    try:
        return int(con.execute("SELECT count(*) FROM responses").fetchone()[0])
    except sqlite3.OperationalError:
        return 0
    finally:
        con.close()


def cli(url: str, data: Path, out: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "winoscope.cli",
        "run",
        "bbq-uk",
        "--data",
        str(data),
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


def test_a_killed_run_resumes_without_asking_again(tmp_path: Path) -> None:
    data = write_bbq_uk(tmp_path / "bbq.csv", pairs=40)  # 80 rows, 240 requests
    total = 240
    out = tmp_path / "run"
    db = out / STORE_FILE
    with serve_in_thread(StubBehaviour(latency=0.05)) as srv:
        proc = subprocess.Popen(
            cli(srv.url, data, out), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        deadline = time.time() + 120
        while stored(db) < 30:
            assert proc.poll() is None, proc.communicate()
            assert time.time() < deadline, "the run never stored 30 answers"
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
        before = stored(db)
        assert 30 <= before < total
        calls_before = len(srv.calls)
        done = subprocess.run(cli(srv.url, data, out), capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        resumed = [c.prompt for c in srv.calls[calls_before:]]
    assert len(resumed) == len(set(resumed)) == total - before
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["responses"]["cached"] == before
    assert manifest["responses"]["asked"] == total - before
    assert stored(db) == total
