"""Command line: a thin shell over the Python API (``winoscope.run``, ``winoscope.score`` ...)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .compare.cli_diff import crosslingual_command, diff_command
from .datasets.validation import ValidationFailed
from .errors import WinoscopeError
from .occupations.cli_associate import COMBINE_HELP, associate_command
from .protocols.coref_export import coref_export_command

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Measure gender bias in coreference on Winogender-style diagnostic sets.",
)
STRICT_HELP = "Stop with exit status 1, before a model is asked, if any validation check fails."
UNPAIRED_HELP = (
    "Keep items whose variants differ beyond the pronoun (English WinoBias: 22) in pair "
    "consistency and McNemar; by default they are left out and counted."
)
out_console = Console()
err_console = Console(stderr=True)


FAILED_HELP = (
    "A request that never got an answer: 'exclude' leaves its row out of every denominator, "
    "'wrong' scores it as a wrong answer (the WinoBias-UK card's formula)."
)
LABELS_HELP = (
    "SweWinogender NLI labels: 'binary' reads contradiction as neutral (the set's labels are "
    "binary); 'superlim' compares labels exactly, as SuperLim's evaluation script does, and "
    "adds its published parity formula."
)
ALPHA_INVALID_HELP = (
    "SweWinogender: how an 'invalid' answer enters Krippendorff's alpha: 'value' (a category "
    "of its own, the default) or 'missing' (the item is left out of alpha)."
)


def _fail(exc: Exception) -> None:
    err_console.print(
        f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True, markup=True
    )
    raise typer.Exit(2)


@app.command("tasks")
def tasks_cmd(as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """List every task with its dataset source, protocol and metrics."""
    from .api import list_tasks

    rows = list_tasks()
    if as_json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    table = Table("task", "source", "protocol", "metrics")
    for r in rows:
        protocols = ", ".join(r["protocols"])  # cloze where --mode cloze is available
        table.add_row(r["task"], r["source"], protocols, ", ".join(r["metrics"]))
    out_console.print(table)


@app.command()
def validate(
    task: Annotated[str, typer.Argument(help="Task whose dataset to check, e.g. winobias-uk.")],
    data: Annotated[
        str | None,
        typer.Option(help="File (CSV/JSONL/Parquet) or hub id; default: the bundled sample."),
    ] = None,
    revision: Annotated[
        str | None, typer.Option(help="Hub revision (commit, tag or branch) to pin.")
    ] = None,
) -> None:
    """Run the dataset card's mechanical checks and list every failing row."""
    from .api import validate as run_validate

    try:
        issues = run_validate(task, data, revision=revision)
    except WinoscopeError as exc:
        _fail(exc)
        return
    where = data or "bundled sample"
    if not issues:
        out_console.print(f"[green]ok[/] {task} ({where}): every check passed", highlight=False)
        return
    for issue in issues:
        out_console.print(issue.format(), highlight=False, markup=False, soft_wrap=True)
    err_console.print(f"[red]{len(issues)} check(s) failed[/] in {where}", highlight=False)
    raise typer.Exit(1)


@app.command()
def run(
    ctx: typer.Context,
    task: Annotated[
        str, typer.Argument(help="Task name, e.g. winobias-uk (see `winoscope tasks`).")
    ],
    model: Annotated[
        str, typer.Option("--model", "-m", help="KIND:NAME, e.g. baseline:agreement.")
    ],
    data: Annotated[
        str | None, typer.Option(help="File or hub id; default: the bundled sample.")
    ] = None,
    out: Annotated[Path | None, typer.Option(help="Run directory to write.")] = None,
    seed: Annotated[int, typer.Option(help="Seed for baselines, sampling and the bootstrap.")] = 0,
    template: Annotated[
        list[str] | None,
        typer.Option(
            help="Prompt template: a registered name (uk-plain-v1; see README), a .txt file or "
            "the template text. Repeat it to ask every template and report the spread."
        ),
    ] = None,
    templates: Annotated[
        str | None,
        typer.Option(
            "--templates",
            help="Ask every template file (*.txt) of this directory, or `builtin`: the task's "
            "registered templates; writes per-template runs and the summary across them.",
        ),
    ] = None,
    revision: Annotated[str | None, typer.Option(help="Hub revision to pin.")] = None,
    split: Annotated[str | None, typer.Option(help="Only this split.")] = None,
    bootstrap: Annotated[int, typer.Option(help="Bootstrap replicates.")] = 2000,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    base_url: Annotated[
        list[str] | None,
        typer.Option(
            "--base-url",
            help="openai: server base URL, e.g. http://127.0.0.1:8000/v1; repeat to spread "
            "requests over several servers.",
        ),
    ] = None,
    mode: Annotated[
        str | None,
        typer.Option(
            help="Backend mode; hf: letters (default), texts, cloze, generate; gemma: cloze "
            "(default), texts, letters; openai: chat (default), letters, chat-letters, cloze."
        ),
    ] = None,
    concurrency: Annotated[int, typer.Option(help="openai: requests in flight at once.")] = 32,
    max_retries: Annotated[
        int, typer.Option(help="openai: retries per request before it counts as failed.")
    ] = 5,
    timeout: Annotated[float, typer.Option(help="openai: seconds per HTTP attempt.")] = 60.0,
    api_key_env: Annotated[
        str, typer.Option(help="openai: environment variable holding the API key.")
    ] = "OPENAI_API_KEY",
    resume: Annotated[
        bool,
        typer.Option(
            "--resume/--no-resume",
            help="Reuse answers stored in the run directory (responses.sqlite); "
            "--no-resume asks every request again.",
        ),
    ] = True,
    strict: Annotated[bool, typer.Option("--strict", help=STRICT_HELP)] = False,
    keep_unpaired: Annotated[bool, typer.Option("--keep-unpaired", help=UNPAIRED_HELP)] = False,
    failed: Annotated[str, typer.Option(help=FAILED_HELP)] = "exclude",
    labels: Annotated[str | None, typer.Option(help=LABELS_HELP + " Default: binary.")] = None,
    alpha_invalid: Annotated[str | None, typer.Option(help=ALPHA_INVALID_HELP)] = None,
    max_failed_share: Annotated[
        float,
        typer.Option(
            help="Share of requests that may fail (after retries) with exit status 0; above "
            "it, or when none is answered, the run exits 3 (the run directory is still written)."
        ),
    ] = 0.0,
    max_tokens: Annotated[
        int | None, typer.Option(help="openai: token limit of a chat answer (default 16).")
    ] = None,
    proxy: Annotated[
        str | None,
        typer.Option(help="openai: HTTP(S) proxy URL; default: HTTP(S)_PROXY/NO_PROXY."),
    ] = None,
    server_id: Annotated[
        str | None,
        typer.Option(
            help="openai: name of the server (part of the stored answers' key instead of the "
            "base URLs)."
        ),
    ] = None,
    model_arg: Annotated[
        list[str] | None,
        typer.Option(
            "--model-arg",
            "-M",
            help="Backend option key=value (repeatable), the value read as JSON when it parses: "
            "-M dtype=bfloat16 -M batch_size=16. An option the backend does not know is an error.",
        ),
    ] = None,
    limit: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Smoke test: only the first N source items of every stratum (all their variants "
            "and option orders); the manifest and the reports mark the run as partial.",
        ),
    ] = None,
) -> None:
    """Evaluate a model on a task and write predictions, metrics, manifest and report.

    Exit status: 0 every request answered (or no more failed than --max-failed-share), 1 the
    data failed validation, 2 a usage or configuration error, 3 requests failed after retries.
    """
    from .backends.openai_compat import cli_backend_options
    from .backends.options import given_on_command_line, merge_backend_options, parse_model_args
    from .runner import run as run_api

    out_dir = (
        out
        or Path("runs") / f"{task.replace('/', '_')}__{model.replace(':', '_').replace('/', '_')}"
    )
    try:
        from .prompt_templates import cli_templates

        chosen, many = cli_templates(template, templates)
        run_fn: Any = run_api
        if many:  # several templates: one run per template and the spread across them
            from .sensitivity import run_for_cli

            run_fn = run_for_cli
        rr = run_fn(
            task,
            model,
            data=data,
            out=out_dir,
            seed=seed,
            template=chosen if many else (chosen[0] if chosen else None),
            n_boot=bootstrap,
            revision=revision,
            split=split,
            quiet=quiet,
            resume=resume,
            strict=strict,
            keep_unpaired=keep_unpaired,
            failed=failed,
            labels=labels,
            alpha_invalid=alpha_invalid,
            max_failed_share=max_failed_share,
            limit=limit,
            backend_options=merge_backend_options(
                cli_backend_options(
                    model,
                    base_url=base_url,
                    mode=mode,
                    concurrency=concurrency,
                    max_retries=max_retries,
                    timeout=timeout,
                    api_key_env=api_key_env,
                    max_tokens=max_tokens,
                    proxy=proxy,
                    server_id=server_id,
                ),
                parse_model_args(model_arg),
                explicit=given_on_command_line(ctx),
            ),
        )
    except ValidationFailed as exc:
        _fail_validation(exc)
        return
    except WinoscopeError as exc:
        _fail(exc)
        return
    except KeyboardInterrupt:
        err_console.print(
            f"interrupted; the answers received so far are stored in {out_dir}: "
            "rerun the same command to resume",
            highlight=False,
            soft_wrap=True,
        )
        raise typer.Exit(130) from None
    if many:
        from .report.sensitivity_page import print_sensitivity

        report_validation(rr.runs[0].validation, rr.runs[0].result.settings)
        print_sensitivity(rr, out_console)
        out_console.print(f"wrote {out_dir}", highlight=False)
        exit_on_outcome(rr.manifest.get("outcome") or {})
        return
    report_validation(rr.validation, rr.result.settings)
    print_summary(rr.metrics, title=f"{task} · {model}")
    report_request_errors(rr.manifest, rr.errors)
    out_console.print(f"wrote {out_dir}", highlight=False)
    exit_on_outcome(rr.manifest.get("outcome") or {})


def exit_on_outcome(outcome: dict) -> None:  # type: ignore[type-arg]
    """Exit 3 (after the run directory is written) when the run is not a success."""
    reasons = outcome.get("finish_reasons") or {}
    if reasons.get("length"):
        err_console.print(
            f"[yellow]{reasons['length']} answer(s) cut off by the token limit[/] "
            "(finish_reason=length)",
            highlight=False,
            soft_wrap=True,
        )
    if outcome.get("success", True):
        return
    if outcome.get("status") == "failed":
        err_console.print(
            f"[bold red]no request was answered[/] ({outcome['failed']} failed): the metrics "
            "are empty; exit status 3",
            highlight=False,
            soft_wrap=True,
        )
    else:
        err_console.print(
            f"[red]{outcome['failed']} of {outcome['requests']} request(s) failed[/] "
            f"({outcome['failed_share']:.1%}, more than --max-failed-share "
            f"{outcome['max_failed_share']:g}): exit status 3",
            highlight=False,
            soft_wrap=True,
        )
    raise typer.Exit(3)


@app.command()
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
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = 0,
    bootstrap: Annotated[int, typer.Option(help="Bootstrap replicates.")] = 2000,
    strict: Annotated[bool, typer.Option("--strict", help=STRICT_HELP)] = False,
    keep_unpaired: Annotated[bool, typer.Option("--keep-unpaired", help=UNPAIRED_HELP)] = False,
    failed: Annotated[
        str, typer.Option(help=FAILED_HELP + " An empty prediction cell is such a row.")
    ] = "exclude",
    labels: Annotated[
        str | None, typer.Option(help=LABELS_HELP + " Default here: superlim.")
    ] = None,
    alpha_invalid: Annotated[str | None, typer.Option(help=ALPHA_INVALID_HELP)] = None,
) -> None:
    """Score predictions made elsewhere (the task's validation runs on the rows first)."""
    from .datasets.validation import write_validation_json
    from .report.writer import write_json
    from .runner import score as score_api

    try:
        result = score_api(
            task,
            predictions,
            n_boot=bootstrap,
            seed=seed,
            strict=strict,
            keep_unpaired=keep_unpaired,
            failed=failed,
            labels=labels,
            alpha_invalid=alpha_invalid,
        )
    except ValidationFailed as exc:
        _fail_validation(exc)
        return
    except WinoscopeError as exc:
        _fail(exc)
        return
    report_validation(result.validation, result.settings)
    print_summary(result.metrics, title=f"{task} · {predictions.name}")
    for line in convention_lines(result.settings):
        err_console.print(line, highlight=False, markup=False, soft_wrap=True)
    unanswered = result.settings.get("failed_requests") or {}
    if unanswered.get("rows"):
        fate = "scored as wrong" if unanswered["policy"] == "wrong" else "left out"
        err_console.print(
            f"{unanswered['rows']} row(s) without a prediction (no answer): {fate} "
            f"(--failed {unanswered['policy']})",
            highlight=False,
        )
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        write_validation_json(out / "validation.json", result.validation, task=task)
        result.metrics.to_csv(out / "metrics.csv", index=False)
        write_json(
            out / "metrics.json",
            {
                "metrics": result.metrics.to_dict("records"),
                "tests": result.tests,
                "counts": result.counts.to_dict("records"),
                "settings": result.settings,
            },
        )
        out_console.print(f"wrote {out}", highlight=False)


@app.command()
def demo(
    out: Annotated[Path, typer.Option(help="Report folder to write.")] = Path("winoscope-demo"),
    quiet: Annotated[bool, typer.Option("--quiet", "-q")] = False,
    baselines_only: Annotated[
        bool,
        typer.Option("--baselines-only", help="Skip the offline language model (Gemma 3 270M)."),
    ] = False,
) -> None:
    """Evaluate the reference baselines and the offline Gemma 3 270M (when installed) on the
    bundled samples and write a report folder (offline)."""
    from .demo import run_demo

    try:
        summary = run_demo(out, quiet=quiet, lm=not baselines_only)
    except WinoscopeError as exc:
        _fail(exc)
        return
    print(summary)
    out_console.print(
        f"wrote {out}/index.html (open it), README.md, comparison/ and one run directory per "
        "model",
        highlight=False,
    )


@app.command()
def compare(
    runs: Annotated[
        list[str],
        typer.Argument(help="Run directories, globs (quote them) or folders of run directories."),
    ],
    out: Annotated[Path, typer.Option(help="Comparison folder to write.")] = Path("comparison"),
) -> None:
    """Compare runs: tidy CSV, Markdown and LaTeX tables, compare.html with a forest plot."""
    from .report.compare import compare_runs

    try:
        cmp = compare_runs(runs, out)
    except WinoscopeError as exc:
        _fail(exc)
        return
    for flag in cmp.flags:
        err_console.print(f"[yellow]not comparable:[/] {flag}", highlight=False)
    out_console.print(
        f"compared {len(cmp.runs)} runs; wrote {out}/compare.csv, compare.md, compare.tex, "
        "compare.html",
        highlight=False,
    )


@app.command()
def show(
    run_dir: Annotated[Path, typer.Argument(help="A run directory written by `winoscope run`.")],
    strata: Annotated[
        bool, typer.Option("--strata", help="Every stratum, not just macro averages.")
    ] = False,
) -> None:
    """Print a run's key metrics (macro averages with 95% CIs) and its counts."""
    from .report.rundir import load_run_dir
    from .report.terminal import show_renderable

    try:
        rd = load_run_dir(run_dir)
    except WinoscopeError as exc:
        _fail(exc)
        return
    out_console.print(show_renderable(rd, strata=strata))


def report_validation(issues: list, settings: dict) -> None:  # type: ignore[type-arg]
    """The validation summary (count per check, first rows) and the unpaired-items note."""
    from .datasets.validation import summary_lines
    from .scoring.winobias import unpaired_note

    if issues:
        err_console.print(
            f"[yellow]validation: {len(issues)} issue(s)[/] (all in validation.json; --strict "
            "makes them an error):",
            highlight=False,
        )
        for line in summary_lines(issues):
            err_console.print(line, highlight=False, markup=False, soft_wrap=True)
    note = unpaired_note(settings)
    if note:
        err_console.print(note, highlight=False, markup=False, soft_wrap=True)


def convention_lines(manifest: dict) -> list[str]:  # type: ignore[type-arg]
    """Scoring conventions that change numbers: the SweWinogender labels, alpha's invalid."""
    conv = manifest.get("conventions") or {}
    out = [f"convention: {k} = {v}" for k, v in conv.items()]
    ro = manifest.get("resolver_output") or {}
    if ro.get("unmatched"):
        out.append(
            f"resolver output: {ro['unmatched']} of {ro['documents']} document(s) match no key "
            f"document, e.g. {', '.join(ro['unmatched_ids'][:5])}"
        )
    if ro.get("missing"):
        out.append(
            f"resolver output: {ro['missing']} key document(s) absent (scored as misses), "
            f"e.g. {', '.join(ro['missing_ids'][:5])}"
        )
    return out


def _fail_validation(exc: Exception) -> None:
    err_console.print(
        f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True, markup=True
    )
    raise typer.Exit(1)


def report_request_errors(manifest: dict, examples: list[dict]) -> None:  # type: ignore[type-arg]
    """Failed requests: how many, and a few examples (they are excluded, not scored wrong)."""
    answers = manifest.get("responses") or {}
    if answers.get("cached"):
        err_console.print(
            f"{answers['cached']} answers reused from the run directory's store, "
            f"{answers.get('asked', 0)} asked",
            highlight=False,
        )
    for line in convention_lines(manifest):
        err_console.print(line, highlight=False, markup=False, soft_wrap=True)
    n = manifest.get("request_errors", 0)
    if not n:
        return
    policy = (manifest.get("failed_requests") or {}).get("policy", "exclude")
    fate = "scored as wrong (--failed wrong)" if policy == "wrong" else "excluded from scoring"
    err_console.print(
        f"[yellow]{n} request(s) failed after retries[/] and their rows are {fate}; "
        "rerun the same command to retry them. Examples:",
        highlight=False,
    )
    for ex in examples:
        if "request_id" in ex:
            err_console.print(f"  {ex['request_id']}: {ex['error']}", highlight=False, markup=False)


@app.command()
def correlate(
    run_dir: Annotated[Path, typer.Argument(help="A run directory written by `winoscope run`.")],
    stats: Annotated[
        Path,
        typer.Option(
            "--stats",
            help="Occupation statistics: Winogender's occupations-stats.tsv, a SweWinogender "
            "auxiliary TSV, or a table with occupation and women/men or pct_female.",
        ),
    ],
    out: Annotated[
        Path | None, typer.Option(help="Folder for the tables and the plot (default: RUN_DIR).")
    ] = None,
    mapping: Annotated[
        Path | None,
        typer.Option(help="category,occupation table: official categories -> occupations."),
    ] = None,
    combine: Annotated[str | None, typer.Option(help=COMBINE_HELP)] = None,
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = 0,
    bootstrap: Annotated[int, typer.Option(help="Bootstrap replicates (over occupations).")] = 2000,
) -> None:
    """Correlate per-occupation resolution shares with occupation statistics (Rudinger et al.)."""
    from .scoring.occupation_correlation import correlate_run

    try:
        res = correlate_run(
            run_dir,
            stats,
            out=out,
            n_boot=bootstrap,
            seed=seed,
            mapping=mapping,
            percent_combine=combine,
        )
    except WinoscopeError as exc:
        _fail(exc)
        return
    table = Table("measure", "statistic", "method", "value", "95% CI", "p", "n", title=run_dir.name)
    for r in res.correlations.itertuples(index=False):
        ci = "–" if r.ci_low != r.ci_low else f"[{r.ci_low:.3f}, {r.ci_high:.3f}]"
        value = "–" if r.value != r.value else f"{r.value:.3f}"
        p = "–" if r.p_value != r.p_value else f"{r.p_value:.3g}"
        table.add_row(r.measure, r.statistic, r.method, value, ci, p, str(r.n))
    out_console.print(table)
    for key, names in res.unmatched.items():
        if names:
            err_console.print(f"[yellow]{key}:[/] {', '.join(names)}", highlight=False)
    out_console.print("wrote " + ", ".join(str(p) for p in res.files), highlight=False)


app.command("associate")(associate_command)
app.command("coref-export")(coref_export_command)
app.command("diff")(diff_command)
app.command("crosslingual")(crosslingual_command)


def print_summary(metrics, title: str) -> None:  # type: ignore[no-untyped-def]
    macro = metrics[metrics["split"] == "macro"]
    if macro.empty:  # families without macro averages: whole-set rows, then the breakdowns
        macro = metrics.assign(
            metric=[
                m if s == "all" else f"{m} ({t})"
                for m, s, t in zip(
                    metrics["metric"], metrics["split"], metrics["type"], strict=True
                )
            ]
        )
    table = Table("metric", "value", "95% CI", "n", title=title)
    for r in macro.itertuples(index=False):
        ci = "–" if r.ci_low != r.ci_low else f"[{r.ci_low:.3f}, {r.ci_high:.3f}]"
        table.add_row(r.metric, "–" if r.value != r.value else f"{r.value:.3f}", ci, str(r.n))
    out_console.print(table)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        err_console.print("interrupted")
        sys.exit(130)


if __name__ == "__main__":
    main()
