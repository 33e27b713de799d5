"""Writing a run directory: predictions, metrics (JSON + tidy CSV), manifest, Markdown report.

``write_run`` is loaded on first use, so that importing one of the package's modules (a run
directory's reader, the figures) does not load the HTML report and its template engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .writer import write_run

__all__ = ["write_run"]


def __getattr__(name: str) -> Any:
    if name == "write_run":
        from .writer import write_run

        return write_run
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
