"""The result objects of a run, below both the runner that makes them and the report that
writes them (so ``report`` never imports ``runner`` or ``sensitivity``).

:class:`RunResult` is one task asked of one model; :class:`SensitivityResult` is one task asked
through several prompt templates (:func:`winoscope.sensitivity.run_templates`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from .datasets.base import Dataset, Issue
    from .protocols.cloze import ClozeTemplate
    from .protocols.forced_choice import PromptTemplate
    from .scoring.base import ScoreResult
    from .tasks.base import Task


@dataclass
class RunResult:
    """One evaluation: the dataset, the predictions, the scorer's result and the manifest.

    ``errors`` holds a few failed requests (``request_id``, ``error``) for the terminal;
    ``validation`` every finding of the task's checks on the data."""

    task: Task
    dataset: Dataset
    predictions: pd.DataFrame
    result: ScoreResult
    manifest: dict[str, Any]
    out_dir: Path | None = None
    errors: list[dict[str, Any]] = field(default_factory=list)
    validation: list[Issue] = field(default_factory=list)

    @property
    def metrics(self) -> pd.DataFrame:
        return self.result.metrics

    def to_frame(self) -> pd.DataFrame:
        """The tidy metrics (metric, split, type, value, ci_low, ci_high, n, ...), a copy."""
        return self.result.metrics.copy()


@dataclass
class SensitivityResult:
    """A prompt-sensitivity run: the runs per template and the metrics across them.

    ``per_template``: tidy metrics with a ``template`` column; ``summary``: one row per overall
    metric (``winoscope.scoring.templates.SUMMARY_COLUMNS``); ``runs``: the single-template
    :class:`RunResult` objects in template order."""

    task: Task
    templates: list[PromptTemplate | ClozeTemplate]
    runs: list[RunResult]
    per_template: pd.DataFrame
    summary: pd.DataFrame
    manifest: dict[str, Any]
    out_dir: Path | None = None
    notes: list[str] = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        """The summary table (mean, two-level interval, min, max, sd per overall metric)."""
        return self.summary.copy()

    def headline(self) -> pd.DataFrame:
        return self.summary[self.summary["headline"]].reset_index(drop=True)

    @property
    def success(self) -> bool:
        return bool(self.manifest["outcome"]["success"])


@dataclass
class SweepResult:
    """Every point's runs, the table against the swept value, and the utility per point."""

    key: str
    points: list[Any]
    reference: Any
    tasks: list[str]
    table: pd.DataFrame
    utility: pd.DataFrame
    runs: dict[tuple[str, Any], Any] = field(default_factory=dict, repr=False)
    run_dirs: dict[tuple[str, Any], Path] = field(default_factory=dict)
    utility_source: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    out: Path | None = None

    def __repr__(self) -> str:
        return (
            f"SweepResult({self.key}: {', '.join(map(str, self.points))}; reference "
            f"{self.reference}; tasks {', '.join(self.tasks)}; {len(self.table)} rows"
            + (f"; {self.out}" if self.out else "")
            + ")"
        )

    def to_frame(self) -> pd.DataFrame:
        return self.table.copy()
