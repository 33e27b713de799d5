"""Writing a run directory: predictions, metrics (JSON + tidy CSV), manifest, Markdown report."""

from .writer import write_run

__all__ = ["write_run"]
