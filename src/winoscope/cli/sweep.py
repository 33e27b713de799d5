"""``winoscope sweep``: one task (or several) at every point of an intervention, against its base."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import TaskError, WinoscopeError
from .common import err_console, fail, out_console, parse_scorer_args


def parse_point(item: str) -> tuple[str, str]:
    """``VALUE=SPEC`` (``4=hf:./steered``); the value is typed like a tag value."""
    value, sep, spec = item.partition("=")
    if not sep or not value.strip() or ":" not in spec:
        raise TaskError(
            f"--point {item!r}: expected VALUE=KIND:NAME, e.g. --point 0=hf:./base "
            "--point 800=hf:./out/checkpoint-800"
        )
    return value.strip(), spec.strip()


def _adapter_points(
    adapters: Path | None, base: str | None, points: dict[str, str], model_arg: list[str] | None
) -> dict[str, Any]:
    from ..backends.options import parse_model_args
    from ..studies.points import adapter_folder_points

    if adapters is None or base is None:
        raise TaskError("--adapters DIR and --base KIND:NAME go together")
    if points:
        raise TaskError("--adapters makes the points; leave out --point and --checkpoints")
    return adapter_folder_points(adapters, base, parse_model_args(model_arg))


def sweep(
    tasks: Annotated[list[str], typer.Argument(help="Task name(s), e.g. winobias-uk.")],
    point: Annotated[
        list[str] | None,
        typer.Option(
            "--point",
            "-p",
            help="A point: VALUE=KIND:NAME (repeatable): --point 0=hf:./base --point 4=hf:./steered.",
        ),
    ] = None,
    checkpoints: Annotated[
        Path | None,
        typer.Option(help="A folder of checkpoint-N folders: each is a point, N its value."),
    ] = None,
    adapters: Annotated[
        Path | None,
        typer.Option(
            help="A folder of adapters (checkpoint-N or named folders): each a point on --base, "
            "which is point 0; on vllm: one engine serves them all."
        ),
    ] = None,
    base: Annotated[
        str | None, typer.Option(help="The model the --adapters go on (vllm:DIR or hf:DIR).")
    ] = None,
    key: Annotated[
        str | None,
        typer.Option(
            help="Name of the swept value (default alpha; checkpoint with --checkpoints)."
        ),
    ] = None,
    reference: Annotated[
        str | None,
        typer.Option(
            help="The point to compare with (default: a --point given beside --checkpoints, "
            "the base model; else the first given)."
        ),
    ] = None,
    utility: Annotated[
        str | None,
        typer.Option(
            help="Utility beside the bias metrics: a second task's overall score (its name), or "
            "a CSV with columns point and utility. Default: the task's own overall score."
        ),
    ] = None,
    out: Annotated[Path, typer.Option(help="Sweep folder: one run directory per point.")] = Path(
        "sweep"
    ),
    data: Annotated[
        str | None, typer.Option(help="File or hub id (one task only); default: the sample.")
    ] = None,
    seed: Annotated[int, typer.Option(min=0, help="Seed for baselines and the bootstrap.")] = 0,
    bootstrap: Annotated[int, typer.Option(min=0, help="Bootstrap replicates.")] = 2000,
    limit: Annotated[
        int | None, typer.Option(min=1, help="Smoke test: the first N source items per stratum.")
    ] = None,
    tag: Annotated[
        list[str] | None, typer.Option("--tag", help="key=value added to every point's tags.")
    ] = None,
    scorer_option: Annotated[
        list[str] | None,
        typer.Option("--scorer-option", "-S", help="Scorer option key=value for every point."),
    ] = None,
    model_arg: Annotated[
        list[str] | None,
        typer.Option("--model-arg", "-M", help="Backend option key=value for every point."),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars.")] = False,
    overwrite: Annotated[
        bool,
        typer.Option(
            "--overwrite",
            help="Replace a point's run directory that holds a run of other settings (refused "
            "without it); rerunning the same sweep resumes either way.",
        ),
    ] = False,
    strict: Annotated[
        bool,
        typer.Option(
            "--strict",
            help="Exit status 1 when a point's run is degenerate (at least half of its scored "
            "rows invalid); every run directory and the sweep page are written first.",
        ),
    ] = False,
) -> None:
    """Run the task(s) at every point and write the sweep page: each headline metric against the
    swept value, its paired change from the reference with Holm across the points, and utility.

    Exit status: 0 every run answered, 1 with --strict a point's run is degenerate, 2 a usage
    error, 3 requests failed at some point.
    """
    from ..backends.options import parse_model_args
    from ..studies.checkpoints import checkpoint_points
    from ..studies.sweep import sweep as sweep_api
    from ..tags import parse_tags

    backends: dict[str, Any] = {}
    try:
        points: dict[str, str] = {}
        given: list[str] = []
        for item in point or ():
            value, spec = parse_point(item)
            if value in points:
                raise TaskError(f"--point {value} given twice")
            points[value] = spec
            given.append(value)
        if checkpoints is not None:
            hint = "give the folder as --adapters DIR with --base KIND:NAME"
            for value, spec in checkpoint_points(checkpoints, "--checkpoints", hint).items():
                if value in points:
                    raise TaskError(
                        f"--point {value} and {checkpoints}/checkpoint-{value} share the value "
                        f"{value}; give the base another one (--point 0=...)"
                    )
                points[value] = spec
        if adapters is not None or base is not None:
            backends = _adapter_points(adapters, base, points, model_arg)
        reason = None
        if reference is not None:
            reason = "given with --reference"
        elif checkpoints is not None and given:
            reference, reason = given[0], "the base model: the --point given beside --checkpoints"
        elif backends:
            reference, reason = "0", "the base model: point 0, --base without an adapter"
        else:
            reason = "the first point given"
        if not points and not backends:
            raise TaskError("give the points: --point VALUE=KIND:NAME or --checkpoints DIR")
        if data is not None and len(tasks) > 1:
            raise TaskError("--data applies to one task; run one sweep per task")
        options: dict[str, Any] = {
            "backend_options": parse_model_args(model_arg),
            "scorer_options": parse_scorer_args(scorer_option),
        }
        if data is not None:
            options["data"] = data
        if limit is not None:
            options["limit"] = limit
        if overwrite:
            options["overwrite"] = True
        if backends:
            del options["backend_options"]  # each point's backend is built with them
        result = sweep_api(
            tasks,
            backends or points,
            key=key or ("checkpoint" if (checkpoints or adapters) is not None else "alpha"),
            reference=reference,
            reference_reason=reason,
            utility=utility,
            tags=parse_tags(tag),
            out=out,
            n_boot=bootstrap,
            seed=seed,
            quiet=quiet,
            **options,
        )
    except WinoscopeError as exc:
        fail(exc)
    failed = [
        f"{task} {result.key}={value}"
        for (task, value), rr in result.runs.items()
        if not rr.record.outcome.success
    ]
    out_console.print(
        f"swept {result.key} over {len(result.points)} points "
        f"({', '.join(map(str, result.points))}; reference {result.reference}: "
        f"{result.settings['reference_reason']}); wrote "
        f"{out}/sweep.html, sweep.md, sweep.tex, sweep.csv and one run directory per point",
        highlight=False,
    )
    from .summary import warn_degenerate

    degenerate = [
        warn_degenerate(rr.record, strict, f"{task} {result.key}={value}", failed=bool(failed))
        for (task, value), rr in result.runs.items()
    ]
    for label, why in (result.settings.get("no_difference") or {}).items():
        err_console.print(f"[yellow]no paired change[/] at {label}: {why}", highlight=False)
    if failed:
        err_console.print(
            f"[red]requests failed[/] in {', '.join(failed)} (their run directories say which); "
            "rerun the same command to ask them again",
            highlight=False,
        )
        raise typer.Exit(3)
    if any(degenerate):
        raise typer.Exit(1)
