"""The task registry: a task name bound to a loader, a protocol and a scorer.

A family (``families/winobias/tasks.py``, ``families/winopron/tasks.py`` ...) offers a factory that builds
the family's :class:`Task` from a dataset (:class:`DatasetAccess`), a language code and a prompt
template; the built-in tasks are calls of those factories. Adding a language adaptation of a
family is one such call (see ``docs/adding-a-dataset.md``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd

from ..datasets.base import Dataset, Issue
from ..protocols.cloze import ClozeTemplate
from ..protocols.forced_choice import PromptTemplate
from ..records import Request, Response
from ..registry import Registry
from ..scoring.base import ScoreResult
from ..scoring.options import ScorerOption


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
    # the task's place in ``winoscope demo`` (which runs every task with a bundled sample that
    # declares one, in this order); None: not in the demo
    demo_rank: int | None = None
    # the columns whose combination is a stratum (``--limit`` keeps the first items of each)
    strata: tuple[str, ...] = ()
    # the language its prompts are in (a registered Language's code): the prompt and cloze
    # templates of that language are the task's to vary; "" for a task without prompts
    language: str = ""
    # a resolver-protocol task's gold documents: (table, source) -> CorefItems, which
    # ``winoscope coref-export`` writes for an external resolver
    documents: Callable[..., list[Any]] | None = None

    @property
    def scorer_options(self) -> tuple[ScorerOption, ...]:
        """The options the task's scorer declares (:mod:`winoscope.scoring.options`)."""
        declared = getattr(self.score, "declarations", None)
        return tuple(declared.options) if declared is not None else ()

    def describe(self) -> dict[str, Any]:
        return {
            "task": self.name,
            "family": self.family,
            "source": self.source,
            "protocol": self.protocol,
            "protocols": [self.protocol] + (["cloze"] if self.build_cloze_requests else []),
            "metrics": list(self.metrics),
            "description": self.description,
            "language": self.language,
            "scorer_options": [o.describe() for o in self.scorer_options],
        }


@dataclass(frozen=True)
class DatasetAccess:
    """How a task reaches its data: the loader, the validation, the reader of a table written
    elsewhere (``from_frame``), where the data comes from and its review status.

    :meth:`of` takes them from a loader module (``load``, ``validate``, ``from_frame``,
    ``HUB_ID`` or ``DEFAULT_SOURCE``, ``REVIEW_STATUS``); :meth:`with_sample` makes a file the
    source that ``load()`` reads when no source is given.
    """

    load: Callable[..., Dataset]
    validate: Callable[[Dataset], list[Issue]]
    from_frame: Callable[..., Dataset] | None = None
    source: str = ""
    review_status: str = ""

    @classmethod
    def of(cls, module: Any) -> DatasetAccess:
        if isinstance(module, DatasetAccess):
            return module
        source = getattr(module, "HUB_ID", None) or getattr(module, "DEFAULT_SOURCE", "")
        return cls(
            load=module.load,
            validate=module.validate,
            from_frame=getattr(module, "from_frame", None),
            source=str(source),
            review_status=str(getattr(module, "REVIEW_STATUS", "")),
        )

    def with_sample(self, sample: str | Path) -> DatasetAccess:
        """The same access, loading ``sample`` when ``load()`` is given no source."""
        inner = self.load

        def load(source: str | Path | None = None, **kwargs: Any) -> Dataset:
            return inner(sample if source is None else source, **kwargs)

        return replace(self, load=load, source=self.source or str(sample))


TASKS: Registry[Task] = Registry("task")


def task(t: Task) -> Task:
    """Register a task (use at module level: ``TASK = task(Task(...))``)."""
    TASKS.add(t.name, t)
    return t


def get_task(name: str) -> Task:
    return TASKS.get(name)


def validate_dataset(t: Task, ds: Dataset) -> list[Issue]:
    """The task's checks, with what loading left out (``ds.findings``) first where the task's
    own ``validate`` does not report it (a plugin's)."""
    from ..datasets.base import in_source_lines, in_source_rows

    loaded = set(ds.findings)
    if ds.findings and ds.table.empty:  # loading left out every row: no row to check further
        return list(ds.findings)
    found = t.validate(ds)
    # loading's findings and the duplicates already name the file's rows; the rest number the
    # table's rows, which differ from the file's once loading left a row out
    issues = [
        i if i in loaded or i.check == "duplicate" else j
        for i, j in zip(found, in_source_rows(ds.table, found), strict=True)
    ]
    reported = set(issues)
    # rows read from the lines of a text file (bracket files): named by file and line
    return in_source_lines(ds.table, [f for f in ds.findings if f not in reported] + issues)


def load_predictions_table(path: str | Path) -> pd.DataFrame:
    from ..datasets.sources import read_table

    return read_table(path)
