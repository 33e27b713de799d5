"""The study directory's merged pages, read from the run directories whichever node wrote them:
for every model (and template) a sweep page over its values against its reference
(:mod:`winoscope.report.sweep_page`, the tables of :mod:`winoscope.studies.sweep_tables`), one
leaderboard and one comparison across every finished cell."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ..results.run import SweepResult
from .cells import Cell, Job, template_dir
from .spec import Study


def sweep_from_runs(study: Study, job: Job, template: str | None, out: Path) -> SweepResult | None:
    """One model's sweep from its finished cells (None when its reference is unfinished)."""
    from ..report.sweep_page import write_sweep
    from ..results.rundir import load_run_dir
    from .sweep_tables import (
        degenerate_points,
        point_table,
        sample_banner,
        sorted_table,
        utility_table,
    )

    cells = [c for c in job.cells if c.template == template and c.finished()]
    by: dict[tuple[str, Any], Cell] = {(c.task, c.value): c for c in cells}
    tasks = [t.name for t in study.tasks if (t.name, job.reference) in by]
    if not tasks:
        return None
    runs = {k: load_run_dir(c.run_dir) for k, c in by.items() if k[0] in tasks}
    dirs = {k: c.run_dir for k, c in by.items() if k[0] in tasks}
    values = list(dict.fromkeys(c.value for c in job.cells))
    same = {v: v for v in values}
    table = point_table(
        tasks, values, same, job.reference, runs, dirs, n_boot=study.n_boot, seed=study.seed
    )
    present = [v for v in values if all((t, v) in runs for t in tasks)]
    util, source = utility_table(tasks, present, same, runs, None)
    result = SweepResult(
        key=study.key,
        points=present,
        reference=job.reference,
        tasks=tasks,
        table=sorted_table(table),
        utility=util,
        runs=runs,
        run_dirs=dirs,
        utility_source=source,
        settings={
            "n_boot": study.n_boot,
            "seed": study.seed,
            "tags": {"model": job.model.name, **study.tags},
            "holm": "across the sweep's points, per task, metric and measure",
            "reference_reason": "the model's reference in the study file"
            if job.model.reference is not None
            else "the model's first value (the study file names no reference)",
            "degenerate": degenerate_points(table, job.reference),
            "sample_banner": sample_banner(runs.values()),
            "missing": sorted(
                f"{t} {study.key}={v}" for t in tasks for v in values if (t, v) not in runs
            ),
        },
        out=out,
    )
    write_sweep(result, out)
    return result


def merge_study(study: Study, jobs: list[Job]) -> dict[str, Any]:
    """Write ``OUT/sweeps/<model>[/template=T]/``, ``OUT/leaderboard/`` and
    ``OUT/comparison/`` from every finished cell; return what was written."""
    from ..outputs import check_out_folder
    from ..report.compare import compare_runs
    from ..report.leaderboard import leaderboard

    check_out_folder(study.out, option=f"{study.source}: out")
    started = time.time()
    written: dict[str, Any] = {"sweeps": [], "leaderboard": None, "comparison": None}
    for job in jobs:
        for template in study.templates:
            out = study.out / "sweeps" / job.model.name
            if template is not None:
                out = out / template_dir(template)
            if sweep_from_runs(study, job, template, out) is not None:
                written["sweeps"].append(str(out))
    finished = [c.run_dir for j in jobs for c in j.cells if c.finished()]
    if finished:
        leaderboard(finished, study.out / "leaderboard")
        written["leaderboard"] = str(study.out / "leaderboard")
        compare_runs(finished, study.out / "comparison")
        written["comparison"] = str(study.out / "comparison")
    written["seconds"] = round(time.time() - started, 3)
    return written
