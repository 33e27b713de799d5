"""What every resolver-protocol (coreference) task shares, whatever its family.

A family supplies its gold documents (:class:`~winoscope.protocols.coref.CorefItem` s, from the
table) and the typed items the reference baselines read; :func:`coref_task` makes the requests
(one per document, the clean text), the join of the resolver's clusters back to the rows, and
the :class:`~winoscope.tasks.base.Task` record. Every ``baseline:*`` acts as a transparent
reference resolver by linking the pronoun to the mention it picks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd

from ..datasets.base import Dataset
from ..errors import DatasetError
from ..protocols import coref
from ..protocols.forced_choice import PromptTemplate
from ..records import Item, Request, Response
from ..scoring.base import ScoreResult
from .base import DatasetAccess, Task, task

# Reference resolvers for ``winoscope demo`` (a language model answers no coref request).
DEMO_MODELS = ("baseline:first", "baseline:stereotype", "baseline:agreement")

# The resolver sees the clean sentence only; the template records that in the manifest.
RESOLVER_INPUT = PromptTemplate(
    "{sentence}", name="resolver-input", allowed=frozenset({"sentence"})
)

Documents = Callable[..., list[coref.CorefItem]]  # (table, source="dataset") -> documents


def bracket_spans(
    row: Mapping[str, Any], annotated: str, pronoun: str, *, source: str, index: int
) -> tuple[coref.Span, coref.Span]:
    """(referent span, pronoun span) of a row's two-bracket annotation; a row without exactly
    two bracketed spans is an error naming the file, the row (1-based) and the column."""
    try:
        return coref.gold_spans(row[annotated], row[pronoun])
    except ValueError as exc:
        raise DatasetError(str(exc), file=source, row=index, field=annotated) from None


def coref_task(
    name: str,
    *,
    access: DatasetAccess,
    documents: Documents,
    items: Callable[[Dataset], list[Item]],
    metrics: tuple[str, ...],
    score: Callable[..., ScoreResult],
    description: str,
    family: str | None = None,
    register: bool = True,
    strata: tuple[str, ...] = (),
    demo_rank: int | None = None,
) -> Task:
    """A resolver-protocol task: ``documents(table, source)`` are the gold documents,
    ``items(ds)`` the typed annotations each request carries (by row id)."""

    def requests_for(ds: Dataset, template: PromptTemplate) -> list[Request]:
        annotations = {it.row_id: it for it in items(ds)}
        return coref.build_requests(documents(ds.table, ds.source.location), annotations)

    def predict(
        ds: Dataset, requests: Sequence[Request], responses: Mapping[str, Response]
    ) -> pd.DataFrame:
        return coref.attach_predictions(ds.table, documents(ds.table), requests, responses)

    t = Task(
        name=name,
        family=family or name,
        description=description,
        source=access.source,
        protocol="coref",
        metrics=metrics,
        load=access.load,
        validate=access.validate,
        build_requests=requests_for,
        predict=predict,
        score=score,
        from_frame=access.from_frame,
        default_template=RESOLVER_INPUT,
        prediction_column="predicted_clusters",
        extras={"demo_models": list(DEMO_MODELS)},
        review_status=access.review_status,
        strata=strata,
        demo_rank=demo_rank,
        documents=documents,
    )
    return task(t) if register else t
