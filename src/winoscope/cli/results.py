"""Commands that read run directories: ``show``, ``compare``, ``leaderboard``, ``diff`` and
``crosslingual``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from ..errors import WinoscopeError
from .common import err_console, fail, out_console


def show(
    run_dir: Annotated[Path, typer.Argument(help="A run directory written by `winoscope run`.")],
    strata: Annotated[
        bool, typer.Option("--strata", help="Every stratum, not just macro averages.")
    ] = False,
) -> None:
    """Print a run's key metrics (macro averages with 95% CIs) and its counts."""
    from ..report.terminal import show_renderable
    from ..results.rundir import load_run_dir

    try:
        rd = load_run_dir(run_dir)
    except WinoscopeError as exc:
        fail(exc)
    out_console.print(show_renderable(rd, strata=strata))


def compare(
    runs: Annotated[
        list[str],
        typer.Argument(help="Run directories, globs (quote them) or folders of run directories."),
    ],
    out: Annotated[Path, typer.Option(help="Comparison folder to write.")] = Path("comparison"),
) -> None:
    """Compare runs: tidy CSV, Markdown and LaTeX tables, compare.html with a forest plot."""
    from ..report.compare import compare_runs

    try:
        cmp = compare_runs(runs, out)
    except WinoscopeError as exc:
        fail(exc)
    for flag in cmp.flags:
        err_console.print(f"[yellow]not comparable:[/] {flag}", highlight=False)
    for note in cmp.degenerate:
        err_console.print(f"[bold yellow]degenerate:[/] {escape(note)}", highlight=False)
    out_console.print(
        f"compared {len(cmp.runs)} runs; wrote {out}/compare.csv, compare.md, compare.tex, "
        "compare.html",
        highlight=False,
    )


def leaderboard(
    runs: Annotated[
        list[str],
        typer.Argument(help="Run directories, globs (quote them) or folders of run directories."),
    ],
    sort: Annotated[
        str | None,
        typer.Option(
            help="Metric to rank by (default: each task's first headline metric); a task "
            "without it is ranked by its own first headline metric."
        ),
    ] = None,
    descending: Annotated[
        bool | None,
        typer.Option(
            "--descending/--ascending",
            help="Override the metric's declared direction (default: best first).",
            show_default=False,
        ),
    ] = None,
    out: Annotated[Path, typer.Option(help="Leaderboard folder to write.")] = Path("leaderboard"),
) -> None:
    """Rank runs per task by a metric: leaderboard.csv, .md, .tex (booktabs) and a sortable
    leaderboard.html linking each run's report."""
    from ..report.leaderboard import leaderboard as write_leaderboard

    try:
        board = write_leaderboard(runs, out, sort=sort, descending=descending)
    except WinoscopeError as exc:
        fail(exc)
    for flag in board.flags:
        err_console.print(f"[yellow]not comparable:[/] {escape(flag)}", highlight=False)
    from ..report.leaderboard import degenerate_notes

    for note in degenerate_notes(board):
        err_console.print(f"[bold yellow]degenerate:[/] {escape(note)}", highlight=False)
    for b in board.boards:
        by = f"by {b.sort} ({b.order_text})" if b.sort else "by model"
        out_console.print(
            f"{b.task}: {len(b.rows)} runs ranked {by}", highlight=False, markup=False
        )
    out_console.print(
        f"wrote {out}/leaderboard.csv, leaderboard.md, leaderboard.tex, leaderboard.html",
        highlight=False,
        markup=False,
    )


def diff(
    run_a: Annotated[Path, typer.Argument(help="Run A (the reference, e.g. the base model).")],
    run_b: Annotated[Path, typer.Argument(help="Run B (e.g. the mitigated model): B - A.")],
    out: Annotated[
        Path | None,
        typer.Option(
            help="Write diff.csv, .md, .tex, .json and diff.html with a forest plot here."
        ),
    ] = None,
    bootstrap: Annotated[
        int | None,
        typer.Option(min=1, help="Bootstrap replicates (default: run A's; at least 1)."),
    ] = None,
    seed: Annotated[
        int | None, typer.Option(min=0, help="Bootstrap seed (default: run A's).")
    ] = None,
    unpaired: Annotated[
        bool, typer.Option("--unpaired", help="Resample B independently of A (for comparison).")
    ] = False,
) -> None:
    """B - A for every metric and stratum of two runs of one task on the same data, with 95%
    paired bootstrap intervals, Holm-adjusted p-values, McNemar tests and verdicts."""
    from ..compare.difference import diff as diff_runs

    try:
        res = diff_runs(run_a, run_b, out=out, n_boot=bootstrap, seed=seed, paired=not unpaired)
    except WinoscopeError as exc:
        fail(exc)
    head = res.headline()
    table = Table(
        "metric",
        "A",
        "B",
        "B − A",
        "95% CI",
        "p (Holm)",
        title=f"{res.task}: B − A",
        caption=f"A: {res.settings['answers_a']}\nB: {res.settings['answers_b']}",
    )
    for r in head.itertuples(index=False):
        name = f"abs({r.metric})" if r.measure == "|B| - |A|" else str(r.metric)
        ci = "–" if r.ci_low != r.ci_low else f"[{r.ci_low:+.3f}, {r.ci_high:+.3f}]"
        table.add_row(
            name, f"{r.value_a:.3f}", f"{r.value_b:.3f}", f"{r.diff:+.3f}", ci, f"{r.p_holm:.3g}"
        )
    out_console.print(table)
    for line in res.verdicts:
        out_console.print(line, highlight=False, markup=False, soft_wrap=True)
    for note in res.notes:
        err_console.print(f"[yellow]note:[/] {escape(note)}", highlight=False, soft_wrap=True)
    if out is not None:
        out_console.print(
            f"wrote {out}/diff.csv, diff.md, diff.tex, diff.json, diff.html", highlight=False
        )


def crosslingual(
    run_uk: Annotated[Path, typer.Argument(help="A WinoBias-UK or WinoPron-UK run.")],
    run_en: Annotated[Path, typer.Argument(help="The same model on English WinoBias or WinoPron.")],
    out: Annotated[
        Path | None,
        typer.Option(
            help="Write crosslingual.csv, _agreement.csv, _occupations.csv, crosslingual.md "
            "and crosslingual.html with a forest plot here."
        ),
    ] = None,
    bootstrap: Annotated[int, typer.Option(min=1, help="Bootstrap replicates.")] = 2000,
    seed: Annotated[int, typer.Option(min=0, help="Bootstrap seed.")] = 0,
    allow_different_models: Annotated[
        bool,
        typer.Option(
            "--allow-different-models",
            help="Compare runs of different models deliberately (stated on the pages).",
        ),
    ] = False,
    allow_mismatched: Annotated[
        bool,
        typer.Option(
            "--allow-mismatched",
            help="Keep linked items whose occupations are not translations of each other "
            "(listed on the pages).",
        ),
    ] = False,
) -> None:
    """Join a Ukrainian and an English run of one model on their shared source items (WinoBias
    items, WinoPron templates): accuracy and gap per language, UK - EN with paired intervals,
    per-item agreement. SweWinogender cannot be linked to English Winogender (said why)."""
    from ..compare.across_languages import crosslingual as join_runs

    try:
        res = join_runs(
            run_uk,
            run_en,
            out=out,
            n_boot=bootstrap,
            seed=seed,
            allow_different_models=allow_different_models,
            allow_mismatched=allow_mismatched,
        )
    except WinoscopeError as exc:
        fail(exc)
    macro = res.table[res.table["split"] == "macro"]
    table = Table("metric", "UK", "EN", "UK − EN", "95% CI", title="shared items, macro")
    for r in macro.itertuples(index=False):
        ci = "–" if r.ci_low != r.ci_low else f"[{r.ci_low:+.3f}, {r.ci_high:+.3f}]"
        table.add_row(str(r.metric), f"{r.uk:.3f}", f"{r.en:.3f}", f"{r.diff:+.3f}", ci)
    out_console.print(table)
    a = res.agreement[res.agreement["condition"] == "all"].iloc[0]
    out_console.print(
        f"{res.settings['shared_rows']} shared rows: {a.both_right} both right, "
        f"{a.only_en_right} only EN right, {a.only_uk_right} only UK right, {a.both_wrong} both "
        f"wrong (McNemar p = {a.mcnemar_p:.3g})",
        highlight=False,
    )
    if out is not None:
        out_console.print(
            f"wrote {out}/crosslingual.csv and its tables, crosslingual.md, crosslingual.html",
            highlight=False,
        )
