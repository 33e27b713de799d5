"""Tasks. Every module of this package, and every ``winoscope.tasks`` entry point of an
installed distribution, is imported on the first look-up in :data:`TASKS` (see
:mod:`winoscope.registry` and docs/plugins.md); each registers its tasks with :func:`task`."""

from typing import Any

from .base import TASKS, Task, get_task, task

ENTRY_POINT_GROUP = "winoscope.tasks"


def _adopt(name: str, obj: Any) -> None:
    """An entry point naming a :class:`Task` (or a list of them) registers it; a task's own name
    must be the entry point's name when it names one task."""
    tasks = list(obj) if isinstance(obj, list | tuple) else [obj]
    for t in tasks:
        if not isinstance(t, Task):
            raise TypeError(f"expected a winoscope Task or a module, got {type(t).__name__}")
    if len(tasks) == 1 and tasks[0].name != name:
        raise TypeError(f"the entry point is named '{name}' but its task is '{tasks[0].name}'")
    for t in tasks:
        TASKS.add(t.name, t)


# every module is imported: a module may register through ``task(Task(...))``, ``TASKS.add`` or
# a family factory (``winobias_task(...)``), and none of them is heavy to import
TASKS.discover_with(__name__, ENTRY_POINT_GROUP, _adopt)

__all__ = ["ENTRY_POINT_GROUP", "TASKS", "Task", "get_task", "task"]
