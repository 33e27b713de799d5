"""Comparing runs: paired differences (``diff``) and English-Ukrainian pairs (``crosslingual``).

Imported lazily, so ``winoscope --help`` does not load pandas and the report stack.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .across_languages import CrosslingualResult, crosslingual
    from .diff_result import DiffResult
    from .difference import diff

_LAZY = {
    "DiffResult": ".diff_result",
    "diff": ".difference",
    "CrosslingualResult": ".across_languages",
    "crosslingual": ".across_languages",
}
__all__ = ["CrosslingualResult", "DiffResult", "crosslingual", "diff"]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module, __name__), name)
