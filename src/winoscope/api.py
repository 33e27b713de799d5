"""Small public helpers around the task registry."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .datasets.base import Dataset, Issue
from .tasks import TASKS, get_task


def load_dataset(
    task: str,
    source: str | Path | None = None,
    *,
    revision: str | None = None,
    split: str | None = None,
) -> Dataset:
    """Load a task's dataset from a file, a hub id (pinned with ``revision``) or the bundled sample."""
    return get_task(task).data.load(source, revision=revision, split=split)


def validate(task: str, source: str | Path | Dataset | None = None, **kwargs: Any) -> list[Issue]:
    """Run the dataset card's mechanical checks; an empty list means every check passed."""
    from .tasks.base import validate_dataset

    t = get_task(task)
    ds = source if isinstance(source, Dataset) else t.data.load(source, **kwargs)
    return validate_dataset(t, ds)


def list_tasks() -> list[dict[str, Any]]:
    return [TASKS.get(name).describe() for name in TASKS.names()]
