"""Tasks: a name bound to a loader, a protocol and a scorer (:mod:`.base`), and what every
forced-choice and resolver-protocol family task shares (:mod:`.choice_task`,
:mod:`.coref_task`). Every task is registered by a module imported on the first look-up in
:data:`TASKS`: winoscope's own families (the explicit list of :mod:`winoscope.families`), then
every installed plugin's (the ``winoscope.plugins`` entry points, and the deprecated
``winoscope.tasks`` group, whose entry points may also name a task; see
:mod:`winoscope.registry` and docs/plugins.md)."""

from typing import Any

from ..registry import load_families
from .base import TASKS, DatasetAccess, Demo, ProtocolBinding, Task, get_task, task

#: the deprecated entry-point group of tasks (plugins now declare ``winoscope.plugins``)
ENTRY_POINT_GROUP = "winoscope.tasks"


def _adopt(name: str, obj: Any) -> None:
    """An entry point of the deprecated group naming a :class:`Task` (or a list of them)
    registers it; a task's own name must be the entry point's name when it names one task."""
    tasks = list(obj) if isinstance(obj, list | tuple) else [obj]
    for t in tasks:
        if not isinstance(t, Task):
            raise TypeError(f"expected a winoscope Task or a module, got {type(t).__name__}")
    if len(tasks) == 1 and tasks[0].name != name:
        raise TypeError(f"the entry point is named '{name}' but its task is '{tasks[0].name}'")
    for t in tasks:
        TASKS.add(t.name, t)


TASKS.discover_with(load_families, plugins=True, deprecated=ENTRY_POINT_GROUP, adopt=_adopt)

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
