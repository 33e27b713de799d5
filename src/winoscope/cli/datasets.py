"""``winoscope tasks``, ``winoscope templates`` and ``winoscope validate``: what can be run,
with which prompts, and the data checks."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.markup import escape
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
    # a task name is never cut (the other columns wrap and shorten around it)
    table.columns[0].min_width = max((len(r["task"]) for r in rows), default=4)
    table.columns[0].no_wrap = True
    for r in rows:
        protocols = ", ".join(r["protocols"])  # cloze where --mode cloze is available
        table.add_row(r["task"], r["source"], protocols, ", ".join(r["metrics"]))
    out_console.print(table)
    for r in rows:
        for line in r.get("scorer_options", []):
            out_console.print(f"{r['task']}: -S {line}", highlight=False, soft_wrap=True)


def templates_cmd(
    task: Annotated[
        str | None,
        typer.Argument(
            metavar="[TASK]",
            help="Only the templates this task can ask (its default first).",
            show_default=False,
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List the registered prompt and cloze templates with their text (names for --template)."""
    from .. import prompt_templates as pt
    from ..tasks import get_task

    try:
        entries = _template_entries(task, pt, get_task)
    except WinoscopeError as exc:
        fail(exc)
    if as_json:
        print(json.dumps(entries, ensure_ascii=False, indent=2))
        return
    for e in entries:
        head = f"[bold]{escape(e['name'])}[/] ({e['language']}, {e['kind']})"
        out_console.print(head, highlight=False)
        if e["description"]:
            out_console.print(f"  {escape(e['description'])}", highlight=False)
        for line in e["text"].splitlines():
            out_console.print(f"    {line}", highlight=False, markup=False)
        out_console.print()


def _template_entries(task: str | None, pt: Any, get_task: Any) -> list[dict[str, str]]:
    if task is None:
        return [
            {
                "name": e.name,
                "language": e.language,
                "kind": e.kind,
                "description": e.description,
                "text": e.template.text,
            }
            for e in pt.registry().values()
        ]
    t = get_task(task)
    out = []
    for protocol in t.protocols:
        for tmpl in pt.builtin_for(t, protocol):
            entry = pt.registry().get(tmpl.name, None)
            out.append(
                {
                    "name": tmpl.name,
                    "language": entry.language if entry else pt.task_language(t),
                    "kind": pt.task_kind(t, protocol),
                    "description": entry.description if entry else "the task's default",
                    "text": tmpl.text,
                }
            )
    return out


def validate(
    task: Annotated[str, typer.Argument(help="Task whose dataset to check, e.g. winobias-uk.")],
    data: Annotated[
        str | None,
        typer.Option(
            help="File (CSV/JSONL/Parquet), folder or hub id; default: the bundled sample."
        ),
    ] = None,
    revision: Annotated[
        str | None, typer.Option(help="Hub revision (commit, tag or branch) to pin.")
    ] = None,
    split: Annotated[str | None, typer.Option(help="Only this split.")] = None,
) -> None:
    """Run the dataset card's mechanical checks and list every failing row."""
    from ..datasets.validation import ValidationFailed
    from ..tasks import get_task
    from ..tasks.base import validate_dataset

    where = data or "bundled sample"
    try:
        t = get_task(task)
        issues = validate_dataset(t, t.data.load(data, revision=revision, split=split))
    except ValidationFailed as exc:  # nothing could be read: the findings say why
        issues = exc.issues
    except WinoscopeError as exc:
        fail(exc)
    if not issues:
        out_console.print(f"[green]ok[/] {task} ({where}): every check passed", highlight=False)
        return
    for issue in issues:
        out_console.print(issue.format(), highlight=False, markup=False, soft_wrap=True)
    n_block = sum(1 for i in issues if i.blocking)
    extra = f" ({n_block} blocking: `run` refuses them without --skip-bad-rows)" if n_block else ""
    err_console.print(f"[red]{len(issues)} check(s) failed[/] in {where}{extra}", highlight=False)
    raise typer.Exit(1)
