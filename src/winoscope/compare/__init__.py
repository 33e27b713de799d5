"""Comparing runs: paired differences (``diff``) and English-Ukrainian pairs (``crosslingual``).

Imported lazily, so ``winoscope --help`` does not load pandas and the report stack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..results.diff import DiffResult
    from .across_languages import CrosslingualResult, crosslingual
    from .difference import diff

__all__ = ["CrosslingualResult", "DiffResult", "crosslingual", "diff"]


def __getattr__(name: str) -> Any:
    if name == "DiffResult":
        from ..results.diff import DiffResult

        return DiffResult
    if name == "diff":
        from .difference import diff

        return diff
    if name in ("CrosslingualResult", "crosslingual"):
        from . import across_languages

        return getattr(across_languages, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
