"""Tasks. Importing this package registers every built-in task."""

from . import (
    coref,  # noqa: F401  (registers winobias-uk/coref, winobias-en/coref, winopron-uk/coref)
    swewinogender,  # noqa: F401  (registers swewinogender/nli, swewinogender/resolution)
    winobias_en,  # noqa: F401  (registers winobias-en)
    winobias_uk,  # noqa: F401  (registers winobias-uk)
    winopron_en,  # noqa: F401  (registers winopron-en, winogender-en)
    winopron_uk,  # noqa: F401  (registers winopron-uk)
)
from .base import TASKS, Task, get_task, task

__all__ = ["TASKS", "Task", "get_task", "task"]
