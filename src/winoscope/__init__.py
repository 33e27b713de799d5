"""winoscope: measure gender bias in coreference on Winogender-style diagnostic sets.

>>> import winoscope
>>> result = winoscope.run("winobias-uk", "baseline:agreement", out="runs/agreement")
>>> result.metrics.query("split == 'macro'")[["metric", "value", "ci_low", "ci_high"]]

``import winoscope`` loads only the errors and the version: the public functions below are
imported on first use (module ``__getattr__``), so a command or a script that needs one part
does not pay for pandas, the tasks and the backends before it asks for them. The tasks and
backends themselves are found on the first look-up of a name (the modules of ``winoscope.tasks``
and ``winoscope.backends`` plus the entry points of installed plugins, docs/plugins.md).
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

from ._version import __version__
from .errors import BackendError, DatasetError, ScoringError, TaskError, WinoscopeError

if TYPE_CHECKING:  # what the lazy names are, for type checkers and editors
    from .api import list_tasks, load_dataset, validate
    from .backends.hf.live import hf_model
    from .compare.across_languages import CrosslingualResult, crosslingual
    from .compare.difference import DiffResult, diff
    from .results import RunResult, SensitivityResult, SweepResult
    from .run_config import RunConfig
    from .runner import run, score
    from .sensitivity import run_templates
    from .sweeps import sweep

# public name -> the module that defines it
_LAZY = {
    "list_tasks": ".api",
    "load_dataset": ".api",
    "validate": ".api",
    "RunResult": ".results",
    "run": ".runner",
    "score": ".runner",
    "SensitivityResult": ".results",
    "DiffResult": ".compare.difference",
    "diff": ".compare.difference",
    "CrosslingualResult": ".compare.across_languages",
    "crosslingual": ".compare.across_languages",
    "run_templates": ".sensitivity",
    "hf_model": ".backends.hf.live",
    "RunConfig": ".run_config",
    "sweep": ".sweeps",
    "SweepResult": ".results",
}

__all__ = [
    "BackendError",
    "CrosslingualResult",
    "DatasetError",
    "DiffResult",
    "RunConfig",
    "RunResult",
    "ScoringError",
    "SensitivityResult",
    "SweepResult",
    "TaskError",
    "WinoscopeError",
    "__version__",
    "crosslingual",
    "diff",
    "hf_model",
    "list_tasks",
    "load_dataset",
    "run",
    "run_templates",
    "score",
    "sweep",
    "validate",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        # a submodule used as an attribute (``winoscope.tasks.TASKS`` after ``import winoscope``)
        if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}"):
            return importlib.import_module(f".{name}", __name__)
        raise AttributeError(f"module 'winoscope' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
