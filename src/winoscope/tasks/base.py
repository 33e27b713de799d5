"""The task registry: a task is its data, the protocols it can be asked by and a scorer.

A :class:`Task` holds a :class:`DatasetAccess` (how the rows are loaded and checked), one
:class:`ProtocolBinding` per protocol it can be asked by (how the requests are built, the
template they take and how the answers join back to the rows) and the scorer; the rest is
metadata. Adding a protocol to a task is one more binding.

A family (``families/winobias/tasks.py``, ``families/winopron/tasks.py`` ...) offers a factory that builds
the family's :class:`Task` from a dataset, a language code and a prompt template; the built-in
tasks are calls of those factories. Adding a language adaptation of a family is one such call
(see ``docs/adding-a-dataset.md``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd

from ..datasets.base import Dataset, Issue
from ..errors import TaskError
from ..protocols.cloze import ClozeTemplate
from ..protocols.forced_choice import PromptTemplate
from ..records import Request, Response
from ..registry import Registry
from ..scoring.base import ScoreResult
from ..scoring.options import ScorerOption

Template = PromptTemplate | ClozeTemplate
Answers = Callable[[Dataset, Sequence[Request], Mapping[str, Response]], pd.DataFrame]


def join_answers(table: pd.DataFrame, answers: pd.DataFrame, key: str) -> pd.DataFrame:
    """The dataset's rows with their answers: ``answers`` (one row per dataset row at most,
    by ``key``) joined on, every row kept (a row without an answer gets missing values).

    The one place where a protocol's answers meet the rows. A column both have (data that is
    itself an earlier run's predictions file, with its ``prediction_role``) is this run's: the
    table's copy is dropped rather than kept beside it under another name.
    """
    stale = [c for c in answers.columns if c != key and c in table.columns]
    return table.drop(columns=stale).merge(answers, on=key, how="left", validate="one_to_one")


def template_kind(template: Template | None) -> str:
    """The kind of templates (:mod:`winoscope.prompt_templates`) a binding with this default
    takes: ``cloze`` for a cloze template, ``nli`` for a prompt with ``{hypothesis}``, else
    ``choice``."""
    if isinstance(template, ClozeTemplate):
        return "cloze"
    if isinstance(template, PromptTemplate) and "hypothesis" in template.allowed:
        return "nli"
    return "choice"


@dataclass(frozen=True)
class ProtocolBinding:
    """How a task is asked under one protocol.

    ``build_requests(ds, template)`` makes the requests, ``template`` is the default one and
    ``template_kind`` the kind of the templates it takes (by default the default's kind, see
    :func:`template_kind`); ``predict(ds, requests, responses)`` joins the answers back to the
    rows and returns the table with ``prediction_column`` (what the scorer reads) added:
    ``answers(ds, requests, responses)`` gives each row's answer columns by ``key`` (the
    dataset's column the requests' ``row_id`` names), and :func:`join_answers` joins them.
    ``asks`` is the protocol a backend must answer for these requests when it is not the
    binding's own name (a published scoring method, such as
    ``counterbalanced_ab_mean_token_logprob_v1``, asks ``mean_token_logprob``).
    """

    build_requests: Callable[[Dataset, Any], list[Request]]
    answers: Answers
    template: Template | None = None
    template_kind: str = ""
    prediction_column: str = "prediction_role"
    asks: str = ""
    key: str = "row_id"

    def __post_init__(self) -> None:
        if not self.template_kind:
            object.__setattr__(self, "template_kind", template_kind(self.template))

    def predict(
        self, ds: Dataset, requests: Sequence[Request], responses: Mapping[str, Response]
    ) -> pd.DataFrame:
        """The dataset's rows with their answers joined (:func:`join_answers`)."""
        return join_answers(ds.table, self.answers(ds, requests, responses), self.key)

    def answered_by(self, name: str) -> str:
        """The backend protocol the binding called ``name`` needs."""
        return self.asks or name


@dataclass(frozen=True)
class DatasetAccess:
    """How a task reaches its data: the loader, the validation, the reader of a table written
    elsewhere (``from_frame``), where the data comes from and its review status; for a task
    whose rows are coreference documents, ``documents(table, source)`` reads the gold
    documents (:class:`~winoscope.protocols.coref.CorefItem` s) that ``winoscope coref-export``
    writes for an external resolver.

    :meth:`of` takes them from a family's adaptation (:class:`~winoscope.datasets.loading.
    Adaptation`) or a loader module (``load``, ``validate``, ``from_frame``, ``HUB_ID`` or
    ``DEFAULT_SOURCE``, ``REVIEW_STATUS``); :meth:`with_sample` makes a file the source that
    ``load()`` reads when no source is given.
    """

    load: Callable[..., Dataset]
    validate: Callable[[Dataset], list[Issue]]
    from_frame: Callable[..., Dataset] | None = None
    source: str = ""
    review_status: str = ""
    documents: Callable[..., list[Any]] | None = None

    @classmethod
    def of(cls, module: Any) -> DatasetAccess:
        from ..datasets.loading import Adaptation

        if isinstance(module, DatasetAccess):
            return module
        if isinstance(module, Adaptation):
            source, review = module.source_text, module.review_status
        else:
            source = getattr(module, "HUB_ID", None) or getattr(module, "DEFAULT_SOURCE", "") or ""
            review = getattr(module, "REVIEW_STATUS", "")
        return cls(
            load=module.load,
            validate=module.validate,
            from_frame=getattr(module, "from_frame", None),
            source=str(source),
            review_status=str(review),
        )

    def with_sample(self, sample: str | Path) -> DatasetAccess:
        """The same access, loading ``sample`` when ``load()`` is given no source."""
        inner = self.load

        def load(source: str | Path | None = None, **kwargs: Any) -> Dataset:
            return inner(sample if source is None else source, **kwargs)

        return replace(self, load=load, source=self.source or str(sample))


@dataclass(frozen=True)
class Demo:
    """A task's place in ``winoscope demo``, which runs every task with a bundled sample that
    declares one, in ``rank`` order, on ``models`` (empty: the reference baselines, and Gemma 3
    270M where its extra is installed)."""

    rank: int
    models: tuple[str, ...] = ()


@dataclass(frozen=True)
class Task:
    """One dataset family's evaluation: its ``data``, the ``protocols`` it can be asked by
    (name -> :class:`ProtocolBinding`; the first is the task's own, :attr:`protocol`) and the
    ``scorer``, which reads a predictions table whether made here or elsewhere and declares
    its options (``scorer.declarations``). The other fields are metadata.
    """

    name: str
    data: DatasetAccess
    protocols: Mapping[str, ProtocolBinding]
    scorer: Callable[..., ScoreResult]
    metrics: tuple[str, ...]
    description: str
    family: str = ""
    # what the bootstrap resamples when the scorer serves several tasks (e.g. "schema/template"
    # for Winogender-style templates scored by the WinoPron scorer); "" keeps the scorer's own
    resampling_unit: str = ""
    # the task's place in ``winoscope demo`` and the models it runs there; None: not in it
    demo: Demo | None = None
    # the columns whose combination is a stratum (``--limit`` keeps the first items of each)
    strata: tuple[str, ...] = ()
    # the language its prompts are in (a registered Language's code): the prompt and cloze
    # templates of that language are the task's to vary; "" for a task without prompts
    language: str = ""

    def __post_init__(self) -> None:
        if not self.protocols:
            raise TaskError(f"task {self.name} binds no protocol")
        if not self.family:
            object.__setattr__(self, "family", self.name)

    @property
    def protocol(self) -> str:
        """The task's own protocol: its first binding."""
        return next(iter(self.protocols))

    @property
    def primary(self) -> ProtocolBinding:
        """The binding of the task's own protocol."""
        return self.protocols[self.protocol]

    @property
    def scorer_options(self) -> tuple[ScorerOption, ...]:
        """The options the task's scorer declares (:mod:`winoscope.scoring.options`)."""
        declared = getattr(self.scorer, "declarations", None)
        return tuple(declared.options) if declared is not None else ()

    def describe(self) -> dict[str, Any]:
        return {
            "task": self.name,
            "family": self.family,
            "source": self.data.source,
            "protocol": self.protocol,
            "protocols": list(self.protocols),
            "metrics": list(self.metrics),
            "description": self.description,
            "language": self.language,
            "scorer_options": [o.describe() for o in self.scorer_options],
        }


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
    found = t.data.validate(ds)
    # loading's findings and the duplicates already name the file's rows; the rest number the
    # table's rows, which differ from the file's once loading left a row out
    issues = [
        i if i in loaded or i.check == "duplicate" else j
        for i, j in zip(found, in_source_rows(ds.table, found), strict=True)
    ]
    reported = set(issues)
    # rows read from the lines of a text file (bracket files): named by file and line
    return in_source_lines(ds.table, [f for f in ds.findings if f not in reported] + issues)
