"""What the Ukrainian fairness leaderboard shows of a benchmark, declared by the family.

The leaderboard (``lang-uk/ukrainian-llm-leaderboard``, its Fairness tab) reads one JSON file
per model: per benchmark its ranking metric and goal, its scores under the tab's own metric
names (with their arrows: ``"Worst-group accuracy ↑"``), and optionally rows per bias type. A
family that has such a benchmark registers a :class:`BoardBenchmark` saying which task it is,
which scoring methods (protocol bindings) give the published numbers, and which winoscope
metric each shown name is; ``winoscope fairness-board`` writes the file from runs
(:mod:`winoscope.report.fairness_board`).

Values are written in percent: a metric whose winoscope value is a share (accuracy, rate,
gap of shares) is multiplied by 100, one already on the 0-100 scale (StereoSet's LMS, SS and
ICAT) is written as it is (``scale``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ..registry import Registry, ignore_objects, load_families

__all__ = ["BOARD", "BiasTypeRow", "BoardBenchmark", "board_benchmark"]

GOALS = ("maximize", "minimize", "target")


@dataclass(frozen=True)
class BiasTypeRow:
    """One row of a benchmark's "By bias type" table: its name, items and scores (shown
    names, percent values)."""

    name: str
    items: int
    scores: Mapping[str, float]


@dataclass(frozen=True)
class BoardBenchmark:
    """A benchmark of the fairness tab as a winoscope task gives it.

    ``metrics`` maps each shown name to the winoscope metric (its macro row); ``ranking`` is
    the shown name the tab ranks by, ``goal`` one of maximize/minimize/target (``target``: the
    value ranked by its distance from ``target``). ``methods`` are the protocol bindings whose
    numbers are the published ones. ``scale`` multiplies every value (100: shares to percent).
    ``bias_types``, where the tab has them, reads a run's metrics table into rows.
    """

    benchmark: str
    task: str
    methods: tuple[str, ...]
    metrics: Mapping[str, str]
    ranking: str
    goal: str = "maximize"
    target: float | None = None
    scale: float = 100.0
    bias_types: Callable[[pd.DataFrame, BoardBenchmark], list[BiasTypeRow]] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.goal not in GOALS:
            raise ValueError(f"{self.benchmark}: goal {self.goal!r} is not one of {GOALS}")
        if self.ranking not in self.metrics:
            raise ValueError(f"{self.benchmark}: the ranking metric {self.ranking!r} is not shown")
        if (self.goal == "target") != (self.target is not None):
            raise ValueError(f"{self.benchmark}: a target goal needs a target, and only it")

    def ranking_record(self) -> dict[str, Any]:
        out: dict[str, Any] = {"metric": self.ranking, "goal": self.goal}
        if self.target is not None:
            out["target"] = self.target
        return out


BOARD: Registry[BoardBenchmark] = Registry("fairness-board benchmark")
BOARD.discover_with(load_families, plugins=True, deprecated="winoscope.tasks", adopt=ignore_objects)


def board_benchmark(b: BoardBenchmark) -> BoardBenchmark:
    """Register a benchmark of the fairness tab (a family does, when imported)."""
    BOARD.add(b.benchmark, b)
    return b


def for_task(task: str) -> BoardBenchmark | None:
    """The fairness-tab benchmark a task gives, or None."""
    for name in BOARD.names():
        b = BOARD.get(name)
        if b.task == task:
            return b
    return None
