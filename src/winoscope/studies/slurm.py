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
from .cells import Job
from .outcome import ACTIVE, JobOutcome, outcome_from
from .spec import SlurmOptions, Study

QUERY_TIMEOUT_S = 60.0


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


def sacct_states(job_ids: Sequence[str]) -> dict[str, str]:
    """Each array task's state (``123_4`` -> ``CANCELLED``) from ``sacct``; a task not yet
    listed on its own is pending."""
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
    states = {}
    for line in out.splitlines():
        jid, _, state = line.partition("|")
        states[jid.strip()] = state.split()[0] if state.strip() else "UNKNOWN"
    return {j: states.get(j, "PENDING") for j in job_ids}


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
    (folder / "jobs.json").write_text(json.dumps(record, indent=2), encoding="utf-8")
    return list(submitted)


def run_slurm(
    study: Study, jobs: Sequence[Job], *, poll_s: float = 3.0, on_submit: Any = None
) -> list[JobOutcome]:
    """Submit the jobs as one array and wait (at most ``study.slurm.wait`` minutes)."""
    since = time.time()
    submitted = submit(study, jobs)
    ids = [str(s.job_id) for s in submitted]
    if on_submit is not None:
        on_submit(ids)
    deadline = time.monotonic() + study.slurm.wait * 60
    states: dict[str, str] = {}
    while True:
        states = sacct_states(ids)
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
