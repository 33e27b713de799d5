"""Comparing runs: paired differences (``diff``) and English-Ukrainian pairs (``crosslingual``).

Imported lazily, so ``winoscope --help`` does not load pandas and the report stack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .difference import DiffResult, diff

__all__ = ["DiffResult", "diff"]


def __getattr__(name: str) -> Any:
    if name in ("DiffResult", "diff"):
        from . import difference

        return getattr(difference, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
