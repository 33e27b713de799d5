"""The Slurm executor: one job array (submitit's ``map_array``), one array task per model,
``array_parallelism`` running at once. The submitting process writes the job script and
pickles (under ``OUT/slurm/``) and reads back files and ``sacct``: the nodes never connect to it.

Waiting has a limit (``slurm.wait`` minutes); each state query has one too. A job that ends
in any state but COMPLETED (CANCELLED, FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY...) is
reported with its state, job id and log; its finished cells stay finished, and rerunning the
study submits only the models with cells left.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import WinoscopeError
from ..jsonio import write_atomic
from .cells import Job
from .outcome import ACTIVE, JobOutcome, outcome_from
from .spec import SlurmOptions, Study

QUERY_TIMEOUT_S = 60.0
# the most seconds a new submission waits for the jobs of the last one to finish ending
COMPLETING_WAIT_S = 120.0


class SlurmError(WinoscopeError):
    """Submitting or querying Slurm failed."""


def submitit_parameters(o: SlurmOptions, name: str) -> dict[str, Any]:
    """``SlurmExecutor.update_parameters`` arguments from the study's Slurm options."""
    extra: dict[str, Any] = {}
    for line in o.extra:
        k, sep, v = line[2:].partition("=")
        extra[k.replace("-", "_")] = v if sep else True
    params: dict[str, Any] = {
        "job_name": name,
        "time": o.time,
        "cpus_per_task": o.cpus,
        "array_parallelism": o.array_parallelism,
        "additional_parameters": extra,
        "setup": list(o.setup),
        "stderr_to_stdout": True,
    }
    for key, value in (
        ("partition", o.partition),
        ("gpus_per_node", o.gpus),
        ("mem", o.mem),
        ("account", o.account),
    ):
        if value is not None:
            params[key] = value
    return params


def sacct_states(job_ids: Sequence[str], unlisted: str = "PENDING") -> dict[str, str]:
    """Each array task's state (``123_4`` -> ``CANCELLED``) from ``sacct``; a task not listed
    on its own reads ``unlisted`` (a task of a pending array is listed only once it starts)."""
    if not job_ids:
        return {}
    arrays = sorted({j.split("_")[0] for j in job_ids})
    cmd = ["sacct", "-X", "-n", "-P", "-o", "JobID,State", "-j", ",".join(arrays)]
    try:
        out = subprocess.run(
            cmd, capture_output=True, text=True, timeout=QUERY_TIMEOUT_S, check=True
        ).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        raise SlurmError(f"{' '.join(cmd)} failed: {exc}") from None
    states: dict[str, str] = {}
    waiting: dict[str, str] = {}  # an array's tasks that have not started: 123_[2-5%2]
    for line in out.splitlines():
        jid, _, state = line.partition("|")
        jid, got = jid.strip(), (state.split() or ["UNKNOWN"])[0]
        if "_[" in jid:
            waiting[jid.split("_")[0]] = got
        else:
            states[jid] = got
    return {j: states.get(j, waiting.get(j.split("_")[0], unlisted)) for j in job_ids}


def queued() -> dict[str, str]:
    """Every job the controller holds now (``squeue``, array tasks one by one): id -> state."""
    cmd = ["squeue", "-h", "-r", "-o", "%i|%T"]
    try:
        out = subprocess.run(
            cmd, capture_output=True, text=True, timeout=QUERY_TIMEOUT_S, check=True
        ).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        raise SlurmError(f"{' '.join(cmd)} failed: {exc}") from None
    return dict(line.strip().partition("|")[::2] for line in out.splitlines() if "|" in line)


def earlier_jobs_active(study: Study) -> list[str]:
    """The jobs of the study's last submission (``OUT/slurm/jobs.json``) still queued or
    running (``squeue``: accounting may not list a job just submitted): a second submission
    would run their cells twice."""
    path = study.out / "slurm" / "jobs.json"
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    now = queued()
    return [
        f"{model} (job {v['job_id']}, {now[str(v['job_id'])]})"
        for model, v in record.items()
        if now.get(str(v["job_id"]), "") in ACTIVE
    ]


def submit(study: Study, jobs: Sequence[Job]) -> list[Any]:
    from ..extras import require
    from .job import run_job

    submitit = require("submitit", "winoscope study run --executor slurm")
    folder = study.out / "slurm"
    executor = submitit.SlurmExecutor(folder=folder, max_num_timeout=0)
    executor.update_parameters(**submitit_parameters(study.slurm, f"winoscope-{study.name}"))
    try:
        submitted = executor.map_array(
            run_job, [str(study.source)] * len(jobs), [j.model.name for j in jobs]
        )
    except Exception as exc:  # sbatch refused (unknown partition, account ...)
        raise SlurmError(f"sbatch refused the study's jobs: {exc}") from None
    record = {
        j.model.name: {"job_id": s.job_id, "log": str(s.paths.stdout)}
        for j, s in zip(jobs, submitted, strict=True)
    }
    write_atomic(folder / "jobs.json", json.dumps(record, indent=2))
    return list(submitted)


def run_slurm(
    study: Study, jobs: Sequence[Job], *, poll_s: float = 3.0, on_submit: Any = None
) -> list[JobOutcome]:
    """Submit the jobs as one array and wait (at most ``study.slurm.wait`` minutes)."""
    active = earlier_jobs_active(study)
    ending = time.monotonic() + COMPLETING_WAIT_S  # jobs being cleaned up: wait a little
    while active and all("COMPLETING" in a for a in active) and time.monotonic() < ending:
        time.sleep(poll_s)
        active = earlier_jobs_active(study)
    if active:
        raise SlurmError(
            f"jobs of this study's last submission are still queued or running: "
            f"{', '.join(active)}; wait for them (winoscope study merge merges what they "
            "finish) or cancel them with scancel, then run the study again"
        )
    since = time.time()
    submitted = submit(study, jobs)
    ids = [str(s.job_id) for s in submitted]
    if on_submit is not None:
        on_submit(ids)
    deadline = time.monotonic() + study.slurm.wait * 60
    states: dict[str, str] = {}
    while True:
        try:
            states = sacct_states(ids)
        except SlurmError:  # a slow or restarting slurmdbd: ask again until the deadline
            states = states or dict.fromkeys(ids, "UNKNOWN")
            if time.monotonic() > deadline:
                break
            time.sleep(poll_s)
            continue
        if all(s not in ACTIVE for s in states.values()) or time.monotonic() > deadline:
            break
        time.sleep(poll_s)
    outcomes = []
    for j, s, jid in zip(jobs, submitted, ids, strict=True):
        state = states.get(jid, "UNKNOWN")
        log = str(Path(s.paths.stdout))
        o = outcome_from(study, j.model.name, state, jid, log, since)
        if state in ACTIVE:
            o.detail = "still in Slurm's queue when the wait ended: rerun the study when it ends"
        outcomes.append(o)
    return outcomes
