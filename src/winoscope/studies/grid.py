"""The grid every batch of runs is: points (models, checkpoints, adapters, factory values) x
tasks x templates, one run directory per cell.

A sweep runs its grid in this process; a study runs one job per model, in a local process or a
Slurm array task, and each job runs its cells here too (:func:`run_cells`); prompt sensitivity
is one point and one task through several templates. Whatever ran them, the sweep pages are
merged from the run directories by :func:`winoscope.studies.merge.merge_sweep`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..tags import format_tags
from .points import Point, PointBackends

#: the file a study's job writes into a cell's run directory once its run is done
MARKER = "study-cell.json"


def point_dir_name(key: str, value: Any) -> str:
    """``alpha=4``; characters a folder name should not hold become ``_``."""
    text = format_tags({key: value})
    return re.sub(r"[^A-Za-z0-9_.=+\-]", "_", text)


def template_dir(template: str | None) -> str:
    if template is None:
        return ""
    name = Path(template).stem if ("/" in template or "." in template) else template
    return f"template={name}"


def cell_dir(root: Path, task: str, key: str, value: Any, template: str | None = None) -> Path:
    """``ROOT[/template=T]/<task>/<key>=<value>``: where a cell's run is written."""
    where = root / template_dir(template) if template is not None else root
    return where / task.replace("/", "_") / point_dir_name(key, value)


@dataclass(frozen=True)
class Cell:
    """One run of a grid. ``identity`` (a study's cells) is what its marker holds: a cell is
    finished when its run directory's marker describes the same cell (same model spec, data,
    settings), so a changed setting runs it again, reusing the answers its store holds."""

    model: str
    value: Any
    task: Any
    template: Any
    run_dir: Path
    key: str = "alpha"
    identity: dict[str, Any] | None = None

    @property
    def task_name(self) -> str:
        return self.task if isinstance(self.task, str) else str(self.task.name)

    @property
    def label(self) -> str:
        t = f" template={self.template}" if isinstance(self.template, str) else ""
        model = f"{self.model} " if self.model else ""
        return f"{model}{self.key}={self.value} {self.task_name}{t}"

    def finished(self) -> bool:
        """The marker describes this cell and its run can be merged (:func:`run_problem`)."""
        marker = self.run_dir / MARKER
        if self.identity is None or not marker.is_file():
            return False
        try:
            same = json.loads(marker.read_text(encoding="utf-8")) == self.identity
        except (OSError, ValueError):
            return False
        return same and run_problem(self.run_dir) is None

    def replaces(self) -> bool:
        """The run directory holds this study's cell with another identity (its marker has the
        identity's keys, with other values): a changed setting or model spec, so the cell's run
        replaces the folder's. A folder without such a marker is never replaced."""
        try:
            marker = json.loads((self.run_dir / MARKER).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False
        ours = self.identity is not None and isinstance(marker, dict)
        return ours and set(marker) == set(self.identity or {}) and marker != self.identity


def run_problem(run_dir: Path) -> str | None:
    """Why the run in ``run_dir`` cannot count as a finished cell (some of its requests failed,
    or it has no metrics), None when it can. Such a cell runs again, asking only what its store
    does not hold, and is left out of the merged pages."""
    try:
        manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
        outcome = manifest.get("outcome") or {}
    except (OSError, ValueError, AttributeError):
        return "its manifest.json cannot be read"
    if outcome.get("success") is False:
        return (
            f"{outcome.get('failed')} of {outcome.get('requests')} requests failed "
            f"(failed share {outcome.get('failed_share')})"
        )
    try:
        with (run_dir / "metrics.csv").open(encoding="utf-8") as table:
            next(table, None)  # the header
            rows = any(line.strip() for line in table)
    except OSError:
        rows = False
    return None if rows else "its metrics table has no data rows"


def run_cells(
    cells: Sequence[Cell],
    point_of: Callable[[Any], Point],
    run_cell: Callable[[Cell, Any], None],
    *,
    seed: int | None = None,
    on_error: Callable[[Cell, BaseException], None] | None = None,
) -> None:
    """The in-process executor: each point's backend made once (``point_of(value)``) and every
    cell of that point run on it, one point after another, in the cells' order.

    Without ``on_error`` the first error ends the grid; with it, a cell's error is reported and
    the other cells go on, and a point whose backend cannot be made reports each of its cells
    that is not finished."""
    with PointBackends(seed) as backends:
        for value in dict.fromkeys(c.value for c in cells):
            mine = [c for c in cells if c.value == value]
            try:
                with backends.open(point_of(value)) as backend:
                    for cell in mine:
                        try:
                            run_cell(cell, backend)
                        except Exception as exc:  # one cell's error does not stop the others
                            if on_error is None:
                                raise
                            on_error(cell, exc)
            except Exception as exc:  # the point's backend could not be made
                if on_error is None:
                    raise
                for cell in mine:
                    if not cell.finished():
                        on_error(cell, exc)
