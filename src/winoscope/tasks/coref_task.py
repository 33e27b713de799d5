"""What every resolver-protocol (coreference) task shares, whatever its family.

A family supplies its gold documents (:class:`~winoscope.protocols.coref.CorefItem` s, from the
table) and the typed items the reference baselines read; :func:`coref_protocols` makes the
binding: the requests (one per document, the clean text) and the join of the resolver's
clusters back to the rows; :func:`resolver_data` puts the documents beside the data. Every ``baseline:*`` acts as a transparent
reference resolver by linking the pronoun to the mention it picks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import pandas as pd

from ..datasets.base import Dataset
from ..errors import DatasetError
from ..protocols import coref
from ..protocols.forced_choice import PromptTemplate
from ..records import Item, Request, Response
from .base import DatasetAccess, Demo, ProtocolBinding

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


def resolver_data(access: DatasetAccess, documents: Documents) -> DatasetAccess:
    """The task's data, reading its gold documents with ``documents(table, source)``."""
    return replace(access, documents=documents)


def coref_protocols(
    documents: Documents, items: Callable[[Dataset], list[Item]], *, key: str = "row_id"
) -> dict[str, ProtocolBinding]:
    """The resolver-protocol binding: ``documents(table, source)`` are the gold documents,
    ``items(ds)`` the typed annotations each request carries (by row id); a document's
    ``doc_id`` is its row's ``key``."""

    def requests_for(ds: Dataset, template: PromptTemplate) -> list[Request]:
        annotations = {it.row_id: it for it in items(ds)}
        return coref.build_requests(documents(ds.table, ds.source.location), annotations)

    def answers(
        ds: Dataset, requests: Sequence[Request], responses: Mapping[str, Response]
    ) -> pd.DataFrame:
        return coref.coref_answers(documents(ds.table), requests, responses, key=key)

    binding = ProtocolBinding(
        requests_for, answers, RESOLVER_INPUT, prediction_column="predicted_clusters", key=key
    )
    return {"coref": binding}


def resolver_demo(rank: int) -> Demo:
    """A resolver-protocol task's place in ``winoscope demo``, on the reference resolvers."""
    return Demo(rank, tuple(DEMO_MODELS))
