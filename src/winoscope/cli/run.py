"""``winoscope run``: evaluate a model on a task (``winoscope score``, for predictions made
elsewhere, is :mod:`.score`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

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

# the panels of `run --help`
DATA, MODEL, PROTOCOL, STATISTICS, OUTPUT = "Data", "Model", "Protocol", "Statistics", "Output"
OPENAI = "OpenAI server (openai:NAME only)"

from .summary import (  # noqa: E402
    exit_on_outcome,
    outcome_fails,
    print_run_notes,
    print_summary,
    report_request_errors,
    report_validation,
    warn_degenerate,
)


def run(
    task: Annotated[
        str,
        typer.Argument(metavar="TASK", help="Task name, e.g. winobias-uk (see `winoscope tasks`)."),
    ],
    model: Annotated[
        str,
        typer.Option(
            "--model",
            "-m",
            metavar="KIND:NAME",
            help="The model, e.g. baseline:agreement, hf:NAME, openai:NAME.",
            rich_help_panel=MODEL,
        ),
    ],
    data: Annotated[
        str | None,
        typer.Option(
            metavar="SOURCE",
            help="File, folder or hub id; default: the bundled sample.",
            rich_help_panel=DATA,
        ),
    ] = None,
    revision: Annotated[
        str | None,
        typer.Option(metavar="REV", help="Hub revision to pin.", rich_help_panel=DATA),
    ] = None,
    split: Annotated[
        str | None,
        typer.Option(metavar="SPLIT", help="Only this split.", rich_help_panel=DATA),
    ] = None,
    limit: Annotated[
        int | None,
        typer.Option(
            min=1,
            metavar="N",
            help="Smoke test: only the first N source items of every stratum (all their variants "
            "and option orders); the manifest and the reports mark the run as partial.",
            rich_help_panel=DATA,
        ),
    ] = None,
    strict: Annotated[
        bool, typer.Option("--strict", metavar="", help=STRICT_HELP, rich_help_panel=DATA)
    ] = False,
    skip_bad_rows: Annotated[
        bool,
        typer.Option("--skip-bad-rows", metavar="", help=SKIP_BAD_HELP, rich_help_panel=DATA),
    ] = False,
    mode: Annotated[
        str | None,
        typer.Option(
            metavar="MODE",
            help="Backend mode; hf: letters (default), texts, cloze, generate; gemma: cloze "
            "(default), texts, letters; openai: chat (default), letters, chat-letters, cloze.",
            rich_help_panel=MODEL,
        ),
    ] = None,
    model_arg: Annotated[
        list[str] | None,
        typer.Option(
            "--model-arg",
            "-M",
            metavar="KEY=VALUE",
            help="Backend option (repeatable), the value read as JSON when it parses: "
            "-M dtype=bfloat16 -M batch_size=16. An option the backend does not know is an error.",
            rich_help_panel=MODEL,
        ),
    ] = None,
    tag: Annotated[
        list[str] | None,
        typer.Option(
            "--tag",
            metavar="KEY=VALUE",
            help="What was done to the model (repeatable): --tag method=steer --tag alpha=4. "
            "Recorded in the manifest and every report; numbers sort numerically.",
            rich_help_panel=MODEL,
        ),
    ] = None,
    template: Annotated[
        list[str] | None,
        typer.Option(
            metavar="TEMPLATE",
            help="Prompt template: a registered name (`winoscope templates`), a .txt file or "
            "the template text. Repeat it to ask every template and report the spread.",
            rich_help_panel=PROTOCOL,
        ),
    ] = None,
    templates: Annotated[
        str | None,
        typer.Option(
            "--templates",
            metavar="DIR",
            help="Ask every template file (*.txt) of this directory, or `builtin`: the task's "
            "registered templates; writes per-template runs and the summary across them.",
            rich_help_panel=PROTOCOL,
        ),
    ] = None,
    protocol: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            help="How the task is asked: forced_choice, nli_forced_choice, coref or cloze (a "
            "protocol of the task that the backend answers); default: the task's own, or cloze "
            "for a backend in mode cloze.",
            rich_help_panel=PROTOCOL,
        ),
    ] = None,
    seed: Annotated[
        int,
        typer.Option(
            min=0,
            metavar="N",
            help="Seed for baselines, sampling and the bootstrap.",
            rich_help_panel=STATISTICS,
        ),
    ] = 0,
    bootstrap: Annotated[
        int,
        typer.Option(min=0, metavar="N", help="Bootstrap replicates.", rich_help_panel=STATISTICS),
    ] = 2000,
    scorer_option: Annotated[
        list[str] | None,
        typer.Option(
            "--scorer-option",
            "-S",
            metavar="KEY=VALUE",
            help=SCORER_OPTION_HELP,
            rich_help_panel=STATISTICS,
        ),
    ] = None,
    failed: Annotated[
        str, typer.Option(metavar="POLICY", help=FAILED_HELP, rich_help_panel=STATISTICS)
    ] = "exclude",
    out: Annotated[
        Path | None,
        typer.Option(metavar="DIR", help="Run directory to write.", rich_help_panel=OUTPUT),
    ] = None,
    quiet: Annotated[
        bool,
        typer.Option("--quiet", "-q", metavar="", help="No progress bar.", rich_help_panel=OUTPUT),
    ] = False,
    overwrite: Annotated[
        bool,
        typer.Option(
            "--overwrite",
            metavar="",
            help="Replace a run directory that holds a run of another task or model (refused "
            "without it); rerunning the same run resumes either way.",
            rich_help_panel=OUTPUT,
        ),
    ] = False,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume/--no-resume",
            metavar="",
            help="Reuse answers stored in the run directory (responses.sqlite); "
            "--no-resume asks every request again.",
            rich_help_panel=OUTPUT,
        ),
    ] = True,
    max_failed_share: Annotated[
        float,
        typer.Option(
            metavar="SHARE",
            help="Share of requests that may fail (after retries) with exit status 0; above "
            "it, or when none is answered, the run exits 3 (the run directory is still written).",
            rich_help_panel=OUTPUT,
        ),
    ] = 0.0,
    base_url: Annotated[
        list[str] | None,
        typer.Option(
            "--base-url",
            metavar="URL",
            help="Server base URL, e.g. http://127.0.0.1:8000/v1; repeat it to spread "
            "requests over several servers.",
            rich_help_panel=OPENAI,
        ),
    ] = None,
    concurrency: Annotated[
        int | None,
        typer.Option(
            metavar="N", help="Requests in flight at once (default 32).", rich_help_panel=OPENAI
        ),
    ] = None,
    max_retries: Annotated[
        int | None,
        typer.Option(
            metavar="N",
            help="Retries per request before it counts as failed (default 5).",
            rich_help_panel=OPENAI,
        ),
    ] = None,
    timeout: Annotated[
        float | None,
        typer.Option(
            metavar="SECONDS", help="Seconds per HTTP attempt (default 60).", rich_help_panel=OPENAI
        ),
    ] = None,
    api_key_env: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            help="Environment variable holding the API key (default OPENAI_API_KEY).",
            rich_help_panel=OPENAI,
        ),
    ] = None,
    max_tokens: Annotated[
        int | None,
        typer.Option(
            metavar="N", help="Token limit of a chat answer (default 16).", rich_help_panel=OPENAI
        ),
    ] = None,
    proxy: Annotated[
        str | None,
        typer.Option(
            metavar="URL",
            help="HTTP(S) proxy URL; default: HTTP(S)_PROXY/NO_PROXY.",
            rich_help_panel=OPENAI,
        ),
    ] = None,
    server_id: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            help="Name of the server (part of the stored answers' key instead of the base URLs).",
            rich_help_panel=OPENAI,
        ),
    ] = None,
) -> None:
    """Evaluate a model on a task and write predictions, metrics, manifest and report.

    Exit status: 0 success (no more requests failed than --max-failed-share),
    1 the data failed validation (or, with --strict, the run is degenerate: at least half
    of its scored rows invalid), 2 a usage or configuration error, 3 requests failed after
    retries.
    """
    from ..backends.options import backend_options
    from ..runs.config import RunConfig
    from ..runs.runner import run as run_api
    from ..tags import parse_tags

    out_dir = (
        out
        or Path("runs") / f"{task.replace('/', '_')}__{model.replace(':', '_').replace('/', '_')}"
    )
    try:
        from ..prompt_templates import cli_templates

        chosen, many = cli_templates(template, templates)
        config = RunConfig(
            task,
            model,
            data=data,
            out=out_dir,
            seed=seed,
            template=None if many else (chosen[0] if chosen else None),
            protocol=protocol,
            n_boot=bootstrap,
            revision=revision,
            split=split,
            quiet=quiet,
            resume=resume,
            strict=strict,
            failed=failed,
            scorer_options=parse_scorer_args(scorer_option),
            max_failed_share=max_failed_share,
            limit=limit,
            tags=parse_tags(tag),
            skip_bad_rows=skip_bad_rows,
            overwrite=overwrite,
            backend_options=backend_options(
                model_arg,
                mode=mode,
                base_url=base_url or None,
                concurrency=concurrency,
                max_retries=max_retries,
                timeout=timeout,
                api_key_env=api_key_env,
                max_tokens=max_tokens,
                proxy=proxy,
                server_id=server_id,
            ),
        )
        rr: Any
        if many:  # several templates: one run per template and the spread across them
            from ..studies.sensitivity import run_templates

            rr = run_templates(config, templates=list(chosen) or None)
        else:
            rr = run_api(config)
    except ValidationFailed as exc:
        fail_validation(exc)
    except WinoscopeError as exc:
        fail(exc)
    except KeyboardInterrupt:
        err_console.print(
            f"interrupted; the answers received so far are stored in {out_dir}: "
            "rerun the same command to resume",
            highlight=False,
            soft_wrap=True,
        )
        raise typer.Exit(130) from None
    if many:
        from ..report.sensitivity_page import print_sensitivity

        report_validation(rr.runs[0].validation, rr.runs[0].result.notes)
        print_sensitivity(rr, out_console)
        first = rr.runs[0].record
        print_run_notes(first.left_out, first.partial)
        fails = [
            warn_degenerate(
                r.record, strict, f"template {t.name}", failed=outcome_fails(rr.record.outcome)
            )
            for t, r in zip(rr.templates, rr.runs, strict=True)
        ]
        out_console.print(f"wrote {out_dir}", highlight=False)
        exit_on_outcome(rr.record.outcome, failed)
        if any(fails):
            raise typer.Exit(1)
        return
    report_validation(rr.validation, rr.result.notes)
    record = rr.record
    print_summary(rr.metrics, title=f"{task} · {record.model.display}", record=record)
    report_request_errors(record, rr.errors)
    print_run_notes(record.left_out, record.partial)
    degenerate_fails = warn_degenerate(record, strict, failed=outcome_fails(record.outcome))
    out_console.print(f"wrote {out_dir}", highlight=False)
    exit_on_outcome(record.outcome, failed)
    if degenerate_fails:
        raise typer.Exit(1)
