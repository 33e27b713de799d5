"""winoscope: measure gender bias in coreference on Winogender-style diagnostic sets.

>>> import winoscope
>>> result = winoscope.run("winobias-uk", "baseline:agreement", out="runs/agreement")
>>> result.metrics.query("split == 'macro'")[["metric", "value", "ci_low", "ci_high"]]
"""

from . import backends as _backends  # noqa: F401  (registers backends)
from . import tasks as _tasks  # noqa: F401  (registers tasks)
from ._version import __version__
from .api import list_tasks, load_dataset, validate
from .errors import BackendError, DatasetError, ScoringError, TaskError, WinoscopeError
from .runner import RunResult, run, score
from .sensitivity import SensitivityResult, run_templates

__all__ = [
    "BackendError",
    "DatasetError",
    "RunResult",
    "ScoringError",
    "SensitivityResult",
    "TaskError",
    "WinoscopeError",
    "__version__",
    "list_tasks",
    "load_dataset",
    "run",
    "run_templates",
    "score",
    "validate",
]
