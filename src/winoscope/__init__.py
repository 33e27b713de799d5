"""winoscope: measure gender bias in coreference on Winogender-style diagnostic sets.

>>> import winoscope
>>> result = winoscope.run("winobias-uk", "baseline:agreement", out="runs/agreement")
>>> result.metrics.query("split == 'macro'")[["metric", "value", "ci_low", "ci_high"]]

``import winoscope`` loads only the errors and the version: the public functions below are
imported on first use (module ``__getattr__``), so a command or a script that needs one part
does not pay for pandas, the tasks and the backends before it asks for them. The tasks and
backends themselves are found on the first look-up of a name (the built-in backends, winoscope's
own families by the explicit list of :mod:`winoscope.families`, which this module hands to the
registries, and installed plugins, docs/plugins.md).
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, Any

from ._version import __version__
from .errors import BackendError, DatasetError, ScoringError, TaskError, WinoscopeError
from .registry import builtin_families as _builtin_families

if TYPE_CHECKING:  # what the lazy names are, for type checkers and editors
    from .api import list_tasks, load_dataset, validate
    from .backends.hf.live import hf_model
    from .compare.across_languages import CrosslingualResult, crosslingual
    from .compare.difference import DiffResult, diff
    from .results.run import RunResult, SensitivityResult, SweepResult
    from .runs.config import RunConfig
    from .runs.runner import run, score
    from .studies.sensitivity import run_templates
    from .studies.sweep import sweep

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


# the public names above that are imported on first use
_LAZY = tuple(n for n in __all__ if n not in globals())


def _defining_module(name: str) -> ModuleType | None:
    """The module that defines the public ``name``, imported now (None for any other name)."""
    match name:
        case "list_tasks" | "load_dataset" | "validate":
            from . import api

            return api
        case "RunResult" | "SensitivityResult" | "SweepResult":
            from .results import run as results

            return results
        case "run" | "score":
            from .runs import runner

            return runner
        case "DiffResult" | "diff":
            from .compare import difference

            return difference
        case "CrosslingualResult" | "crosslingual":
            from .compare import across_languages

            return across_languages
        case "run_templates":
            from .studies import sensitivity

            return sensitivity
        case "hf_model":
            from .backends.hf import live

            return live
        case "RunConfig":
            from .runs import config as run_config

            return run_config
        case "sweep":
            from .studies import sweep as sweeps

            return sweeps
    return None


def _import_families() -> None:
    """winoscope's own families, imported by the registries on their first look-up (this module
    is the one above the families: no registry names them)."""
    from . import families

    families.register()


_builtin_families(_import_families)


def __getattr__(name: str) -> Any:
    module = _defining_module(name)
    if module is None:
        raise AttributeError(f"module 'winoscope' has no attribute {name!r}")
    value = getattr(module, name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
