"""A study from plan to merged pages: :func:`plan_text` says what each job will run,
:func:`run_study` runs the pending jobs on an executor and merges every finished cell."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..jsonio import write_atomic
from .cells import Job, plan_cells
from .outcome import JobOutcome
from .spec import Study

EXECUTORS = ("local", "slurm")


@dataclass
class StudyRun:
    """What a study run did: each submitted job's outcome, the cells, the merged pages."""

    study: Study
    jobs: list[Job]
    outcomes: list[JobOutcome]
    merged: dict[str, Any]

    @property
    def cells(self) -> int:
        return sum(len(j.cells) for j in self.jobs)

    @property
    def unfinished(self) -> list[str]:
        return [c.label for j in self.jobs for c in j.cells if not c.finished()]

    @property
    def ok(self) -> bool:
        return not self.unfinished and all(o.ok for o in self.outcomes)


def plan_text(study: Study) -> list[str]:
    """One line per job (its model, points and pending cells), then one per cell."""
    jobs = plan_cells(study)
    n = sum(len(j.cells) for j in jobs)
    # each cell's marker, manifest and metrics are read once
    to_run = [j.pending() for j in jobs]
    lines = [
        f"study {study.name}: {n} cells in {len(jobs)} jobs (one per model), "
        f"{sum(map(len, to_run))} to run; out {study.out}"
    ]
    for i, (j, pending) in enumerate(zip(jobs, to_run, strict=True)):
        lines.append(
            f"job {i} {j.model.name} ({j.model.kind}): {study.key} = "
            f"{', '.join(map(str, j.points))} (reference {j.reference}); "
            f"{len(j.cells)} cells, {len(pending)} to run"
        )
        for c in j.cells:
            state = "to run" if c in pending else "finished"
            lines.append(f"  {c.label}: {j.points[c.value]} -> {c.run_dir} [{state}]")
    return lines


def check_study_out(study: Study) -> None:
    """The study's ``out`` folder can be made and written, before any job starts."""
    from ..outputs import check_out_folder

    check_out_folder(study.out, option=f"{study.source}: out")


def run_study(
    study: Study,
    executor: str = "local",
    *,
    parallelism: int | None = None,
    on_submit: Callable[[list[str]], None] | None = None,
) -> StudyRun:
    """Run every job with cells left, then merge (module doc). Finished cells are skipped; a
    job whose cells are all finished is not started."""
    if executor not in EXECUTORS:
        from ..errors import TaskError

        raise TaskError(f"executor {executor!r}: expected one of {', '.join(EXECUTORS)}")
    from .checks import check_study

    check_study(study)
    check_study_out(study)
    jobs = plan_cells(study)
    todo = [j for j in jobs if j.pending()]
    outcomes: list[JobOutcome] = []
    started = time.time()
    if todo and executor == "local":
        from .local import run_local

        outcomes = run_local(
            study,
            todo,
            parallelism=parallelism or study.slurm.array_parallelism,
            wait_s=study.slurm.wait * 60,
        )
    elif todo:
        from .slurm import run_slurm

        outcomes = run_slurm(study, todo, on_submit=on_submit)
    from .merge import merge_study

    merged = merge_study(study, jobs)
    result = StudyRun(study, jobs, outcomes, merged)
    summary = {
        "study": study.name,
        "source": str(study.source),
        "executor": executor,
        "cells": result.cells,
        "jobs": len(jobs),
        "submitted": [o.to_dict() for o in outcomes],
        "unfinished": result.unfinished,
        "merged": merged,
        "seconds": round(time.time() - started, 3),
    }
    study.out.mkdir(parents=True, exist_ok=True)
    write_atomic(study.out / "study.json", json.dumps(summary, indent=2, default=str))
    return result
