"""``winoscope tasks`` and ``winoscope validate``: what can be run, and the data checks."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.table import Table

from ..errors import WinoscopeError
from .common import err_console, fail, out_console


def tasks_cmd(as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """List every task with its dataset source, protocol and metrics."""
    from ..api import list_tasks

    try:
        rows = list_tasks()  # also loads the tasks of installed plugins
    except WinoscopeError as exc:
        fail(exc)
    if as_json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    table = Table("task", "source", "protocol", "metrics")
    for r in rows:
        protocols = ", ".join(r["protocols"])  # cloze where --mode cloze is available
        table.add_row(r["task"], r["source"], protocols, ", ".join(r["metrics"]))
    out_console.print(table)


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
    from ..api import validate as run_validate

    try:
        issues = run_validate(task, data, revision=revision)
    except WinoscopeError as exc:
        fail(exc)
    where = data or "bundled sample"
    if not issues:
        out_console.print(f"[green]ok[/] {task} ({where}): every check passed", highlight=False)
        return
    for issue in issues:
        out_console.print(issue.format(), highlight=False, markup=False, soft_wrap=True)
    err_console.print(f"[red]{len(issues)} check(s) failed[/] in {where}", highlight=False)
    raise typer.Exit(1)
