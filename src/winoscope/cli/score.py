"""``winoscope score``: score predictions made elsewhere (the task's validation runs first)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..datasets.validation import ValidationFailed
from ..errors import WinoscopeError
from .common import (
    FAILED_HELP,
    SCORER_OPTION_HELP,
    SKIP_BAD_HELP,
    STRICT_HELP,
    err_console,
    fail,
    fail_validation,
    out_console,
    parse_scorer_args,
)
from .summary import (
    convention_lines,
    print_run_notes,
    print_summary,
    report_validation,
    unanswered_metrics,
    warn_degenerate,
)


def score(
    predictions: Annotated[
        Path,
        typer.Option(
            "--predictions",
            "-p",
            help="Dataset rows with the prediction column added (CSV/JSONL/Parquet).",
        ),
    ],
    task: Annotated[str, typer.Option(help="Task the predictions belong to.")] = "winobias-uk",
    out: Annotated[
        Path | None, typer.Option(help="Write metrics.csv and metrics.json here.")
    ] = None,
    overwrite: Annotated[
        bool,
        typer.Option(
            "--overwrite",
            help="Replace what --out holds: a run (its files removed, the predictions file kept) "
            "or the scores of other predictions (refused without it); scoring the same "
            "predictions file again replaces its scores either way.",
        ),
    ] = False,
    seed: Annotated[int, typer.Option(min=0, help="Bootstrap seed.")] = 0,
    bootstrap: Annotated[int, typer.Option(min=0, help="Bootstrap replicates.")] = 2000,
    strict: Annotated[bool, typer.Option("--strict", help=STRICT_HELP)] = False,
    skip_bad_rows: Annotated[bool, typer.Option("--skip-bad-rows", help=SKIP_BAD_HELP)] = False,
    failed: Annotated[
        str, typer.Option(help=FAILED_HELP + " An empty prediction cell is such a row.")
    ] = "exclude",
    scorer_option: Annotated[
        list[str] | None,
        typer.Option(
            "--scorer-option",
            "-S",
            metavar="KEY=VALUE",
            help=SCORER_OPTION_HELP + " SweWinogender's labels default to superlim here.",
        ),
    ] = None,
) -> None:
    """Score predictions made elsewhere (the task's validation runs on the rows first).

    Exit status: 0 success, 1 the data failed validation (or, with --strict, the scores are
    degenerate: at least half of the scored rows invalid), 2 a usage or configuration error,
    3 no row has a prediction (--out is still written).
    """
    from ..datasets.validation import write_validation_json
    from ..jsonio import atomic_path, write_json
    from ..runs.runner import score as score_api
    from ..scoring.answer_quality import answer_quality

    try:
        if out is not None:  # before the scoring, which may take a while
            from ..runs.run_folder import check_score_folder

            check_score_folder(out, task=task, predictions=predictions, overwrite=overwrite)
        result = score_api(
            task,
            predictions,
            n_boot=bootstrap,
            seed=seed,
            strict=strict,
            failed=failed,
            scorer_options=parse_scorer_args(scorer_option),
            skip_bad_rows=skip_bad_rows,
        )
    except ValidationFailed as exc:
        fail_validation(exc)
    except WinoscopeError as exc:
        fail(exc)
    report_validation(result.validation, result.notes)
    settings = result.settings
    print_run_notes(settings.get("left_out"), settings.get("partial"))
    print_summary(result.metrics, title=f"{task} · {predictions.name}")
    for line in convention_lines(settings.get("conventions"), settings.get("resolver_output")):
        err_console.print(line, highlight=False, markup=False, soft_wrap=True)
    unanswered = result.settings.get("failed_requests") or {}
    if unanswered.get("rows"):
        fate = "scored as wrong" if unanswered["policy"] == "wrong" else "left out"
        err_console.print(
            f"{unanswered['rows']} row(s) without a prediction (no answer): {fate} "
            f"(--failed {unanswered['policy']})",
            highlight=False,
        )
    written = f"{out} is written" if out is not None else ""
    degenerate_fails = warn_degenerate(answer_quality(result.counts), strict, written=written)
    if out is not None:
        if overwrite:
            from ..runs.run_folder import remove_run

            remove_run(out, keep=predictions)
        out.mkdir(parents=True, exist_ok=True)
        write_validation_json(out / "validation.json", result.validation, task=task)
        with atomic_path(out / "metrics.csv") as tmp:
            result.metrics.to_csv(tmp, index=False)
        write_json(
            out / "metrics.json",
            {
                "task": task,
                "predictions": str(predictions),
                "metrics": result.metrics.to_dict("records"),
                "tests": result.tests,
                "counts": result.counts.to_dict("records"),
                "settings": result.settings,
            },
        )
        out_console.print(f"wrote {out}", highlight=False)
    if unanswered.get("rows") and not unanswered.get("answered"):
        err_console.print(
            f"[bold red]no row has a prediction[/] ({unanswered['rows']} without one): "
            f"{unanswered_metrics(unanswered['policy'])}; exit status 3",
            highlight=False,
            soft_wrap=True,
        )
        raise typer.Exit(3)
    if degenerate_fails:
        raise typer.Exit(1)
