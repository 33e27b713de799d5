"""Tasks: a name bound to a loader, a protocol and a scorer (:mod:`.base`), and what every
forced-choice and resolver-protocol family task shares (:mod:`.choice_task`,
:mod:`.coref_task`). Every task comes in through the ``winoscope.tasks`` entry points, loaded
on the first look-up in :data:`TASKS`: winoscope's own families (declared in its pyproject) and
those of every installed plugin alike (see :mod:`winoscope.registry` and docs/plugins.md)."""

from typing import Any

from .base import TASKS, DatasetAccess, Demo, ProtocolBinding, Task, get_task, task

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


TASKS.discover_with(ENTRY_POINT_GROUP, _adopt, own=True)

__all__ = [
    "ENTRY_POINT_GROUP",
    "TASKS",
    "DatasetAccess",
    "Demo",
    "ProtocolBinding",
    "Task",
    "get_task",
    "task",
]
