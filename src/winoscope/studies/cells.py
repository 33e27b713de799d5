"""A study's plan: its cells (model x value x task x template), grouped into one job per model,
each cell with its own run directory, and whether a cell is finished.

A cell is finished when its run directory holds the marker the job writes after the run
(:data:`MARKER`) and the marker describes the same cell (same model spec, data, settings):
change a setting and the cell runs again, reusing the answers its store already holds.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..tags import tag_sort_key, tag_value
from .checkpoints import checkpoint_models
from .spec import ModelSpec, Study
from .sweep import point_dir_name

MARKER = "study-cell.json"


@dataclass(frozen=True)
class Cell:
    """One run of a study."""

    model: str
    value: Any
    task: str
    template: str | None
    run_dir: Path
    identity: dict[str, Any]

    @property
    def label(self) -> str:
        t = f" template={self.template}" if self.template else ""
        return f"{self.model} {self.identity['key']}={self.value} {self.task}{t}"

    def finished(self) -> bool:
        marker = self.run_dir / MARKER
        if not marker.is_file():
            return False
        try:
            return bool(json.loads(marker.read_text(encoding="utf-8")) == self.identity)
        except (OSError, ValueError):
            return False


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
        return checkpoint_points(m.checkpoints)
    if m.adapters is not None:
        return {v: f"adapter:{p}" for v, p in m.adapters.items()}
    if m.factory is not None:
        return {v: f"factory:{m.factory}" for v in m.values or ()}
    assert m.spec is not None
    return {m.value: m.spec}


def checkpoint_points(folder: Path) -> dict[Any, str]:
    """``checkpoint-N`` folders with a ``config.json`` (as a trainer saves them): N -> hf:PATH."""
    hint = "list the adapters under the model's adapters, with its base"
    found = checkpoint_models(folder, "checkpoints", hint)
    return {tag_value(n): f"hf:{p}" for n, p in found.items()}


def template_dir(template: str | None) -> str:
    if template is None:
        return ""
    name = Path(template).stem if ("/" in template or "." in template) else template
    return f"template={name}"


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
                    where = study.out / "runs" / m.name
                    if template is not None:
                        where = where / template_dir(template)
                    where = where / t.name.replace("/", "_") / point_dir_name(study.key, v)
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
                    cells.append(Cell(m.name, v, t.name, template, where, identity))
        jobs.append(Job(m, points, reference, cells))
    return jobs


def cell_tags(study: Study, cell: Cell) -> dict[str, Any]:
    tags: dict[str, Any] = {study.key: cell.value, "model": cell.model, **study.tags}
    if cell.template is not None:
        tags["template"] = template_dir(cell.template).partition("=")[2]
    return tags
