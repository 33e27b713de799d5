"""The task registry: a task name bound to a loader, a protocol and a scorer.

Adding a language adaptation means one loader module, one scorer (or reuse of one), one task
module that registers itself with :func:`task`, and their tests.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..datasets.base import Dataset, Issue
from ..protocols.cloze import ClozeTemplate
from ..protocols.forced_choice import PromptTemplate
from ..records import Request, Response
from ..registry import Registry
from ..scoring.base import ScoreResult


@dataclass(frozen=True)
class Task:
    """Everything needed to evaluate one dataset family under one protocol.

    ``predict`` joins the responses back to the dataset rows and returns the dataset table with
    prediction columns added (at least the column the scorer reads); ``score`` reads such a table,
    whether made here or elsewhere. ``build_cloze_requests`` (with ``cloze_template``) builds
    the cloze requests of ``--mode cloze`` (one per row, see ``protocols.cloze``); tasks without
    it have no cloze protocol.
    """

    name: str
    family: str
    description: str
    source: str
    protocol: str
    metrics: tuple[str, ...]
    load: Callable[..., Dataset]
    validate: Callable[[Dataset], list[Issue]]
    build_requests: Callable[[Dataset, PromptTemplate], list[Request]]
    predict: Callable[[Dataset, Sequence[Request], Mapping[str, Response]], pd.DataFrame]
    score: Callable[..., ScoreResult]
    from_frame: Callable[..., Dataset] | None = None
    default_template: PromptTemplate | None = None
    prediction_column: str = "prediction_role"
    review_status: str = ""
    extras: dict[str, Any] = field(default_factory=dict)
    # what the bootstrap resamples when the scorer serves several tasks (e.g. "schema/template"
    # for Winogender-style templates scored by the WinoPron scorer); "" keeps the scorer's own
    resampling_unit: str = ""
    build_cloze_requests: Callable[[Dataset, ClozeTemplate], list[Request]] | None = None
    cloze_template: ClozeTemplate | None = None

    def describe(self) -> dict[str, Any]:
        return {
            "task": self.name,
            "family": self.family,
            "source": self.source,
            "protocol": self.protocol,
            "protocols": [self.protocol] + (["cloze"] if self.build_cloze_requests else []),
            "metrics": list(self.metrics),
            "description": self.description,
        }


TASKS: Registry[Task] = Registry("task")


def task(t: Task) -> Task:
    """Register a task (use at module level: ``TASK = task(Task(...))``)."""
    TASKS.add(t.name, t)
    return t


def get_task(name: str) -> Task:
    return TASKS.get(name)


def load_predictions_table(path: str | Path) -> pd.DataFrame:
    from ..datasets.sources import read_table

    return read_table(path)
