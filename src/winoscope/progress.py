"""Progress display: a rich bar on a terminal, silence otherwise or when asked to be quiet."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text


class RateColumn(ProgressColumn):
    """Completed items per second."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("-/s" if speed is None else f"{speed:,.1f}/s")


class Tracker:
    """Counts done/errors; updates a rich task when one is shown."""

    def __init__(self, progress: Progress | None, task_id: TaskID | None, done: int = 0) -> None:
        self._progress = progress
        self._task = task_id
        self.done = done
        self.errors = 0

    def advance(self, n: int = 1, *, error: bool = False) -> None:
        self.done += n
        if error:
            self.errors += 1
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, advance=n, errors=self.errors)


def should_show(quiet: bool) -> bool:
    return not quiet and sys.stderr.isatty()


@contextmanager
def track(
    description: str,
    total: int,
    *,
    quiet: bool = False,
    completed: int = 0,
    console: Console | None = None,
    errors: bool = True,
) -> Iterator[Tracker]:
    """A bar for ``total`` steps, ``completed`` of them already done (answers from the store).

    The bar counts only the steps left, so a resumed run's rate and ETA are honest; the
    description says how many were stored. ``console`` forces where the bar is drawn; by
    default it is drawn on stderr only when that is a terminal and ``quiet`` is False.
    ``errors=False`` leaves out the error count (for work that has no failed steps).
    """
    if console is None and not should_show(quiet):
        yield Tracker(None, None, completed)
        return
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        *([TextColumn("{task.fields[errors]} errors")] if errors else []),
        RateColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console or Console(stderr=True),
        transient=False,
    )
    if completed:
        description = f"{description} ({completed} stored)"
    with progress:
        tid = progress.add_task(description, total=total - completed, errors=0)
        yield Tracker(progress, tid, completed)
