"""A study's plan: its cells (model x value x task x template, :class:`~.grid.Cell`), grouped
into one job per model, each cell with its own run directory, and whether a cell is finished
(its marker, :data:`~.grid.MARKER`, describes the same cell).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..tags import tag_sort_key, tag_value
from .checkpoints import checkpoint_points
from .grid import Cell, cell_dir, template_dir
from .spec import ModelSpec, Study

__all__ = ["Job", "cell_tags", "model_points", "plan_cells"]


@dataclass(frozen=True)
class Job:
    """One model's cells: what one Slurm array task (or local process) runs."""

    model: ModelSpec
    points: dict[Any, str]
    reference: Any
    cells: list[Cell]

    def pending(self) -> list[Cell]:
        return [c for c in self.cells if not c.finished()]


def model_points(m: ModelSpec) -> dict[Any, str]:
    """Value -> what the job builds its backend from: a model spec, ``factory:module:function``,
    or ``adapter:PATH`` (applied to ``m.base``)."""
    if m.points is not None:
        return dict(m.points)
    if m.checkpoints is not None:
        hint = "list the adapters under the model's adapters, with its base"
        found = checkpoint_points(m.checkpoints, "checkpoints", hint)
        return {tag_value(n): spec for n, spec in found.items()}
    if m.adapters is not None:
        return {v: f"adapter:{p}" for v, p in m.adapters.items()}
    if m.factory is not None:
        return {v: f"factory:{m.factory}" for v in m.values or ()}
    assert m.spec is not None
    return {m.value: m.spec}


def plan_cells(study: Study) -> list[Job]:
    """Every job of the study with its cells, values in sorted order (the reference first)."""
    jobs = []
    for m in study.models:
        points = model_points(m)
        values = sorted(points, key=tag_sort_key)
        reference = m.reference if m.reference is not None else values[0]
        if reference not in points:
            from ..errors import TaskError

            raise TaskError(
                f"model {m.name}: reference {reference!r} is not one of its values "
                f"({', '.join(map(str, values))})"
            )
        cells = []
        for v in values:
            for template in study.templates:
                for t in study.tasks:
                    where = cell_dir(study.out / "runs" / m.name, t.name, study.key, v, template)
                    identity = {
                        "model": m.name,
                        "key": study.key,
                        "value": v,
                        "point": points[v],
                        "base": m.base,
                        "model_args": m.model_args,
                        "task": t.name,
                        "data": t.data,
                        "scorer_options": t.scorer_options,
                        "template": template,
                        "seed": study.seed,
                        "n_boot": study.n_boot,
                        "limit": study.limit,
                        "tags": study.tags,
                    }
                    cells.append(Cell(m.name, v, t.name, template, where, study.key, identity))
        jobs.append(Job(m, points, reference, cells))
    return jobs


def cell_tags(study: Study, cell: Cell) -> dict[str, Any]:
    tags: dict[str, Any] = {study.key: cell.value, "model": cell.model, **study.tags}
    if cell.template is not None:
        tags["template"] = template_dir(cell.template).partition("=")[2]
    return tags
