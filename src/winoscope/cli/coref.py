"""``winoscope coref-export``: a coreference task's documents for an external resolver, and the
gold key (:func:`winoscope.protocols.coref_export.export_documents` writes them)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from ..protocols.coref import CorefItem


def task_items(task_name: str, data: str | None, split: str | None) -> list[CorefItem]:
    """The gold documents of a coreference task (``winobias-uk/coref`` ...)."""
    from ..errors import TaskError
    from ..tasks import TASKS

    able = [n for n in TASKS.names() if TASKS.get(n).data.documents is not None]
    t = TASKS.get(task_name) if task_name in TASKS else None
    if t is None or t.data.documents is None:
        raise TaskError(f"'{task_name}' is not a coreference task (one of {', '.join(able)})")
    ds = t.data.load(data, split=split)
    return t.data.documents(ds.table)


def coref_export(
    task: Annotated[str, typer.Argument(help="A coreference task, e.g. winobias-uk/coref.")],
    out: Annotated[Path, typer.Option(help="Folder to write.")] = Path("coref-export"),
    data: Annotated[
        str | None, typer.Option(help="The task's data source; default: its bundled sample.")
    ] = None,
    split: Annotated[str | None, typer.Option(help="Only this split.")] = None,
) -> None:
    """Write a coreference task's resolver input (ids, sentences, tokens) and gold key."""
    from ..errors import WinoscopeError
    from ..protocols.coref_export import export_documents

    try:
        paths = export_documents(task_items(task, data, split), out)
    except (WinoscopeError, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    for p in paths.values():
        typer.echo(f"wrote {p}")
