"""Sweep pages merged from run directories, whichever process or node wrote them: one function
(:func:`merge_sweep`) for a sweep run here and for every model (and template) of a study, and a
study's leaderboard and comparison across every finished cell (:func:`merge_study`)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..results.run import SweepResult
from .cells import Job
from .grid import template_dir
from .spec import Study

HOLM = "across the sweep's points, per task, metric and measure"


def merge_sweep(
    dirs: Mapping[tuple[str, Any], Path],
    *,
    key: str,
    values: Sequence[Any],
    reference: Any,
    tasks: Sequence[str],
    out: Path,
    n_boot: int,
    seed: int,
    settings: Mapping[str, Any],
    runs: Mapping[tuple[str, Any], Any] | None = None,
    utility_task: str | None = None,
    supplied: tuple[dict[Any, tuple[float, float, float]], str] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> SweepResult:
    """The sweep over ``values`` (in order) of the runs in ``dirs`` ((task, value) -> run
    directory; ``runs`` the same runs already in memory, else read from ``dirs``), each point
    against ``reference``; written to ``out`` (:mod:`winoscope.report.sweep_page`).

    ``settings`` (tags and why the reference is the reference) and ``extra`` go into the
    result's settings around the numbers' own; ``utility_task`` is a task run at every point for
    its utility only; ``supplied`` the utility numbers the user measured elsewhere."""
    from ..report.sweep_page import write_sweep
    from ..results.rundir import load_run_dir
    from .sweep_tables import (
        degenerate_points,
        point_table,
        sample_banner,
        sorted_table,
        utility_table,
    )

    loaded = dict(runs) if runs is not None else {k: load_run_dir(p) for k, p in dirs.items()}
    failed_diffs: dict[tuple[str, Any], str] = {}
    table = point_table(
        tasks, values, reference, loaded, dirs, n_boot=n_boot, seed=seed, no_difference=failed_diffs
    )
    present = [v for v in values if all((t, v) in loaded for t in tasks)]
    util, source = utility_table(
        tasks if utility_task is None else [utility_task], present, loaded, supplied
    )
    result = SweepResult(
        key=key,
        points=present,
        reference=reference,
        tasks=[t for t in tasks if t != utility_task] or list(tasks),
        table=sorted_table(table),
        utility=util,
        runs=loaded,
        run_dirs=dict(dirs),
        utility_source=source,
        settings={
            "n_boot": n_boot,
            "seed": seed,
            "tags": settings["tags"],
            "holm": HOLM,
            "reference_reason": settings["reference_reason"],
            "degenerate": degenerate_points(table, reference),
            "sample_banner": sample_banner(loaded.values()),
            "no_difference": {f"{t} {key}={v}": why for (t, v), why in failed_diffs.items()},
            **(extra or {}),
        },
        out=out,
    )
    write_sweep(result, out)
    return result


def study_sweep(study: Study, job: Job, template: str | None, out: Path) -> SweepResult | None:
    """One model's sweep from its finished cells (None when its reference is unfinished)."""
    cells = [c for c in job.cells if c.template == template and c.finished()]
    done = {(c.task, c.value): c.run_dir for c in cells}
    tasks = [t.name for t in study.tasks if (t.name, job.reference) in done]
    if not tasks:
        return None
    values = list(dict.fromkeys(c.value for c in job.cells))
    why = "the model's reference in the study file"
    if job.model.reference is None:
        why = "the model's first value (the study file names no reference)"
    return merge_sweep(
        {k: p for k, p in done.items() if k[0] in tasks},
        key=study.key,
        values=values,
        reference=job.reference,
        tasks=tasks,
        out=out,
        n_boot=study.n_boot,
        seed=study.seed,
        settings={"tags": {"model": job.model.name, **study.tags}, "reference_reason": why},
        extra={
            "missing": sorted(
                f"{t} {study.key}={v}" for t in tasks for v in values if (t, v) not in done
            )
        },
    )


#: what :func:`~winoscope.report.sweep_page.write_sweep` writes into a sweep's folder
SWEEP_PAGE = ("sweep.csv", "utility.csv", "sweep.json", "sweep.md", "sweep.tex", "sweep.html")


def _remove_sweep_page(out: Path) -> bool:
    """Remove the sweep page an earlier merge wrote in ``out`` (its reference is unfinished
    now), so no page outlives the cells it came from; True when there was one."""
    import shutil

    if not (out / "sweep.json").is_file():
        return False
    for name in SWEEP_PAGE:
        (out / name).unlink(missing_ok=True)
    shutil.rmtree(out / "plots", ignore_errors=True)
    return True


def merge_study(study: Study, jobs: list[Job]) -> dict[str, Any]:
    """Write ``OUT/sweeps/<model>[/template=T]/``, ``OUT/leaderboard/`` and
    ``OUT/comparison/`` from every finished cell; return what was written."""
    from ..outputs import check_out_folder
    from ..report.compare import compare_runs
    from ..report.leaderboard import leaderboard

    check_out_folder(study.out, option=f"{study.source}: out")
    started = time.time()
    written: dict[str, Any] = {
        "sweeps": [],
        "removed": [],
        "leaderboard": None,
        "comparison": None,
    }
    for job in jobs:
        for template in study.templates:
            out = study.out / "sweeps" / job.model.name
            if template is not None:
                out = out / template_dir(template)
            if study_sweep(study, job, template, out) is not None:
                written["sweeps"].append(str(out))
            elif _remove_sweep_page(out):
                written["removed"].append(str(out))
    finished = [c.run_dir for j in jobs for c in j.cells if c.finished()]
    if finished:
        leaderboard(finished, study.out / "leaderboard")
        written["leaderboard"] = str(study.out / "leaderboard")
        compare_runs(finished, study.out / "comparison")
        written["comparison"] = str(study.out / "comparison")
    written["seconds"] = round(time.time() - started, 3)
    return written
