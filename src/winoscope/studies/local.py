"""The local executor: each job in a process of its own on this machine, at most
``parallelism`` at once, running the same :func:`~.job.run_job` a Slurm job runs."""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Sequence
from typing import Any

from .cells import Job
from .outcome import JobOutcome, outcome_from
from .spec import Study


def run_local(
    study: Study, jobs: Sequence[Job], *, parallelism: int = 1, wait_s: float = 86400.0
) -> list[JobOutcome]:
    """Run the jobs; a job still running after ``wait_s`` is ended (TIMEOUT)."""
    from .job import local_entry

    ctx = multiprocessing.get_context("spawn")  # a fresh interpreter, as on a node
    logs = study.out / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    since = time.time()
    deadline = time.monotonic() + wait_s
    waiting = list(jobs)
    running: dict[str, tuple[Any, str]] = {}
    outcomes: dict[str, JobOutcome] = {}
    while waiting or running:
        while waiting and len(running) < max(1, parallelism):
            j = waiting.pop(0)
            log = str(logs / f"{j.model.name}.log")
            p = ctx.Process(target=local_entry, args=(str(study.source), j.model.name, log))
            p.start()
            running[j.model.name] = (p, log)
        for name, (p, log) in list(running.items()):
            if p.exitcode is None:
                continue
            state = "COMPLETED" if p.exitcode == 0 else f"FAILED (exit {p.exitcode})"
            outcomes[name] = outcome_from(study, name, state, f"pid {p.pid}", log, since)
            del running[name]
        if time.monotonic() > deadline:
            for name, (p, log) in running.items():
                p.kill()
                p.join(10)
                outcomes[name] = outcome_from(study, name, "TIMEOUT", f"pid {p.pid}", log, since)
            for j in waiting:
                outcomes[j.model.name] = JobOutcome(j.model.name, "NOT STARTED", "-", "-")
            break
        time.sleep(0.2)
    return [outcomes[j.model.name] for j in jobs]
