"""What one job runs, on a node or in a local process: one model's pending cells.

:func:`run_job` reads the study file itself (the submitting process passes only its path and
the model's name), builds each point's backend once and runs every task and template at that
point into the cell's run directory, then marks the cell finished. The job's report
(``OUT/jobs/<model>.json``) is rewritten after every cell, so a job that is cancelled or killed
leaves what it finished on disk; the rerun skips those cells and resumes a half-asked one from
its response store.
"""

from __future__ import annotations

import importlib
import json
import os
import socket
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from ..jsonio import write_atomic
from .cells import Job, cell_tags, plan_cells
from .grid import MARKER, Cell, run_cells, run_problem
from .load import load_study
from .points import Point, adapter_points
from .spec import Study

SLURM_ENV = ("SLURM_JOB_ID", "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID", "SLURMD_NODENAME")


def job_report_path(study: Study, model: str) -> Path:
    return study.out / "jobs" / f"{model}.json"


def load_factory(text: str, pythonpath: list[Path]) -> Any:
    """``module:function`` imported (the study's ``pythonpath`` folders searched first)."""
    for p in reversed(pythonpath):
        if str(p) not in sys.path:
            sys.path.insert(0, str(p))
    module, _, name = text.partition(":")
    fn = getattr(importlib.import_module(module), name, None)
    if not callable(fn):
        from ..errors import TaskError

        raise TaskError(f"factory {text}: {module} has no function {name}")
    return fn


def _point_of(study: Study, job: Job) -> Any:
    """Value -> the point's :class:`~.points.Point`: a factory's backend for the value, an
    adapter on the base (on ``vllm:`` all on one engine), or the spec with the model's
    options."""
    m = job.model
    adapters = {}
    if m.adapters is not None and m.base is not None:
        dirs = {v: Path(p) for v, p in m.adapters.items()}
        adapters = adapter_points(m.base, dirs, m.model_args, f"model {m.name}: adapters")

    def point_of(value: Any) -> Point:
        source = job.points[value]
        if source.startswith("factory:"):
            return Point(load_factory(source.partition(":")[2], study.pythonpath)(value))
        if source.startswith("adapter:"):
            return adapters[value]
        return Point(source, dict(m.model_args))

    return point_of


def _run_cell(study: Study, cell: Cell, backend: Any) -> dict[str, Any]:
    from ..runs.config import RunConfig
    from ..runs.runner import run

    task = next(t for t in study.tasks if t.name == cell.task)
    settings: dict[str, Any] = {
        "out": cell.run_dir,
        "n_boot": study.n_boot,
        "seed": study.seed,
        "tags": cell_tags(study, cell),
        "scorer_options": task.scorer_options,
        "template": cell.template,
        "limit": study.limit,
        "overwrite": cell.replaces(),  # this study's cell with another identity
    }
    if task.data is not None:
        settings["data"] = task.data
    started = time.time()
    rr = run(RunConfig(task.name, backend, **settings))
    write_atomic(cell.run_dir / MARKER, json.dumps(cell.identity, indent=2))
    problem = run_problem(cell.run_dir)
    if problem is not None:  # reported as the cell's failure; the rerun asks again
        from ..errors import TaskError

        raise TaskError(f"{problem}: the cell stays unfinished; rerun to ask again")
    return {
        "cell": cell.label,
        "run_dir": str(cell.run_dir),
        "success": bool(rr.record.outcome.success),
        "seconds": round(time.time() - started, 3),
    }


def run_job(study_file: str, model: str) -> dict[str, Any]:
    """Run the model's pending cells; return (and write) the job's report."""
    study = load_study(study_file)
    job = next(j for j in plan_cells(study) if j.model.name == model)
    path = job_report_path(study, model)
    path.parent.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {
        "model": model,
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "slurm": {k: os.environ[k] for k in SLURM_ENV if k in os.environ},
        "started": time.time(),
        "skipped": [c.label for c in job.cells if c.finished()],
        "done": [],
        "failed": [],
        "finished": None,
    }

    def save() -> None:
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(report, indent=2, default=str), encoding="utf-8")
        tmp.replace(path)

    save()
    pending = job.pending()

    def run_cell(cell: Cell, backend: Any) -> None:
        report["done"].append(_run_cell(study, cell, backend))
        save()

    def failed(cell: Cell, exc: BaseException) -> None:
        report["failed"].append(_failure(cell, exc))
        save()

    try:
        point_of = _point_of(study, job)
    except Exception as exc:  # the adapters' options could not be read
        report["failed"] += [_failure(c, exc) for c in pending]
    else:
        run_cells(pending, point_of, run_cell, seed=study.seed, on_error=failed)
    report["finished"] = time.time()
    save()
    return report


def _failure(cell: Cell, exc: BaseException) -> dict[str, Any]:
    return {
        "cell": cell.label,
        "run_dir": str(cell.run_dir),
        "error": f"{type(exc).__name__}: {exc}",
        "traceback": traceback.format_exc(limit=8),
    }


def local_entry(study_file: str, model: str, log: str) -> None:
    """A local job process: output to its log file, then :func:`run_job`."""
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
    sys.stderr = os.fdopen(2, "w", buffering=1, closefd=False)
    run_job(study_file, model)
