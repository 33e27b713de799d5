"""``winoscope study plan|run|merge``: a grid of models x swept values x tasks x templates from
a study file, one job per model, run here or on Slurm, merged in the study directory."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import TaskError, WinoscopeError
from .common import err_console, fail, out_console

app = typer.Typer(
    no_args_is_help=True,
    help="A study: models x swept values x tasks x templates from a TOML or YAML file, one "
    "job per model, run here or as a Slurm job array, resumed cell by cell and merged.",
)

FILE = Annotated[Path, typer.Argument(help="The study file (.toml, .yaml or .yml).")]
SLURM_HELP = (
    "Slurm setting KEY=VALUE over the study file's slurm table (repeatable): partition, gpus, "
    "cpus, time (minutes), mem, account, array_parallelism, extra (an #SBATCH option, "
    "e.g. extra=--qos=high), setup (a shell line), wait (minutes to wait for the jobs)."
)


def _load(file: Path, slurm: list[str] | None = None):  # type: ignore[no-untyped-def]
    from ..studies.checks import checked
    from ..studies.load import load_study, with_slurm_overrides

    return checked(with_slurm_overrides(load_study(file), slurm))


@app.command("plan")
def plan(file: FILE) -> None:
    """List the study's jobs and cells: what each job runs, where each cell's run directory is,
    and which cells are finished."""
    from ..studies.run import plan_text

    try:
        lines = plan_text(_load(file))
    except WinoscopeError as exc:
        fail(exc)
    for line in lines:
        out_console.print(line, highlight=False, markup=False, soft_wrap=True)


@app.command("run")
def run(
    file: FILE,
    executor: Annotated[
        str, typer.Option(help="local: processes on this machine; slurm: a Slurm job array.")
    ] = "local",
    slurm: Annotated[list[str] | None, typer.Option("--slurm", "-S", help=SLURM_HELP)] = None,
    parallelism: Annotated[
        int | None,
        typer.Option(min=1, help="Local jobs at once (default: the array_parallelism setting)."),
    ] = None,
) -> None:
    """Run every job with cells left (finished cells are skipped, a half-asked cell resumes from
    its stored answers), then merge: sweep pages per model, leaderboard, comparison.

    Exit status: 0 every cell finished and answered, 2 a usage error, 3 a job did not complete
    (its Slurm state, job id and log are printed; rerun to finish it) or a cell failed.
    """
    from ..studies.run import run_study

    try:
        study = _load(file, slurm)
        result = run_study(study, executor, parallelism=parallelism)
    except WinoscopeError as exc:
        fail(exc)
    for o in result.outcomes:
        style = "green" if o.ok else "red"
        err_console.print(f"[{style}]job[/] {o.line()}", highlight=False, soft_wrap=True)
        for f in o.failed:
            err_console.print(f"  [red]cell failed:[/] {f['cell']}: {f['error']}", highlight=False)
    n_done = result.cells - len(result.unfinished)
    out_console.print(
        f"study {study.name}: {n_done} of {result.cells} cells finished in {len(result.jobs)} "
        f"jobs ({len(result.outcomes)} run now); merged into {study.out} (sweeps/, "
        "leaderboard/, comparison/, study.json)",
        highlight=False,
        markup=False,
    )
    if not result.ok:
        err_console.print(
            f"[red]{len(result.unfinished)} cells unfinished[/]; rerun the same command to "
            "finish them",
            highlight=False,
        )
        raise typer.Exit(3)


@app.command("merge")
def merge(file: FILE) -> None:
    """Merge the finished cells only (no job is started): sweep pages per model, leaderboard,
    comparison."""
    from ..studies.cells import plan_cells
    from ..studies.merge import merge_study

    try:
        study = _load(file)
        jobs = plan_cells(study)
        n = sum(len(j.cells) for j in jobs)
        done = sum(c.finished() for j in jobs for c in j.cells)
        if not done:
            raise TaskError(
                f"{file}: none of the {n} cells is finished, so there is nothing to merge: run "
                f"`winoscope study run {file}` first"
            )
        written = merge_study(study, jobs)
    except WinoscopeError as exc:
        fail(exc)
    out_console.print(
        f"merged {done} of {n} cells: {len(written['sweeps'])} sweep pages, leaderboard and "
        f"comparison in {study.out}",
        highlight=False,
        markup=False,
    )
