"""How each job of a study ended, as the submitting process reads it from files and Slurm."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .job import job_report_path
from .spec import Study

# Slurm states of a job that has not ended yet (anything else is final)
ACTIVE = {
    "PENDING",
    "RUNNING",
    "REQUEUED",
    "REQUEUE_HOLD",
    "REQUEUE_FED",
    "COMPLETING",
    "CONFIGURING",
    "RESIZING",
    "SUSPENDED",
    "STAGE_OUT",
    "SIGNALING",
}


@dataclass
class JobOutcome:
    """One job: its state (Slurm's, or the local process's), id, log, and its cells."""

    model: str
    state: str
    job_id: str
    log: str
    done: list[str] = field(default_factory=list)
    failed: list[dict[str, Any]] = field(default_factory=list)
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.state == "COMPLETED" and not self.failed

    def line(self) -> str:
        cells = f"{len(self.done)} cells run" + (
            f", {len(self.failed)} failed" if self.failed else ""
        )
        extra = f"; {self.detail}" if self.detail else ""
        return f"{self.model}: {self.state} (job {self.job_id}; {cells}; log {self.log}){extra}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "state": self.state,
            "job_id": self.job_id,
            "log": self.log,
            "done": self.done,
            "failed": [{k: f[k] for k in ("cell", "error")} for f in self.failed],
            "detail": self.detail,
        }


def read_job_report(study: Study, model: str, since: float) -> dict[str, Any]:
    """The job's own report if it was written by this submission (``started`` >= ``since``)."""
    path = job_report_path(study, model)
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return report if float(report.get("started") or 0) >= since else {}


def outcome_from(
    study: Study, model: str, state: str, job_id: str, log: str, since: float
) -> JobOutcome:
    report = read_job_report(study, model, since)
    out = JobOutcome(
        model,
        state,
        job_id,
        log,
        done=[d["cell"] for d in report.get("done", [])],
        failed=list(report.get("failed", [])),
    )
    if state == "COMPLETED" and report.get("finished") is None:
        out.state, out.detail = "FAILED", "the job ended without finishing its report"
    return out
