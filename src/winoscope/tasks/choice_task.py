"""What every forced-choice family task shares, whatever its family and language.

A family factory (:func:`~winoscope.families.winobias.tasks.winobias_task`,
:func:`~winoscope.families.winopron.tasks.winopron_task`) supplies how its rows become typed items and
how an option is worded (a :class:`ChoiceRows`); :func:`choice_protocols` makes the rest: the
two-order forced-choice requests (by the one choice-row builder), the cloze requests and the
join of the answers back to the rows, as the task's protocol bindings. The family composes the
:class:`~winoscope.tasks.base.Task` from them, its data, its scorer and its metadata.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd

from ..datasets.base import Dataset
from ..errors import TaskError
from ..languages import UnknownLanguageError, get_language
from ..protocols import cloze
from ..protocols.choice_rows import Wording, candidates, choice_rows
from ..protocols.forced_choice import PromptTemplate, build_requests, row_answers
from ..records import Item, Mention, Request, Response
from .base import DatasetAccess, ProtocolBinding

RequestsFor = Callable[[Dataset, PromptTemplate, list[Item]], list[Request]]


def language_of(name: str, language: str | None, dataset: Any) -> str:
    """The task's language code: the one given, else the dataset adaptation's ``language``."""
    code = language or getattr(dataset, "language", None)
    if not code:
        raise TaskError(f"task '{name}': give the language code (the dataset names none)")
    return str(code)


def pronoun_case(language: str, text: str, gender: str | None) -> str | None:
    """The pronoun's grammatical case by the Language's pronoun table, where the form names
    one case for its gender (``він`` nom; ``його`` is gen, acc and poss: None); None for a
    language that is not registered."""
    try:
        table = get_language(language).pronouns
    except UnknownLanguageError:
        return None
    form = text.strip().lower()
    cases = {
        case
        for (g, case), forms in table.items()
        if (gender is None or g == gender) and form in {f.lower() for f in forms}
    }
    return cases.pop() if len(cases) == 1 else None


def access_of(
    dataset: DatasetAccess | Any, sample: str | Path | None, review_status: str | None = None
) -> DatasetAccess:
    """The task's data: ``dataset`` as a :class:`DatasetAccess`, loading ``sample`` when given
    no source, with ``review_status`` in place of the dataset's own where given."""
    access = DatasetAccess.of(dataset)
    access = access.with_sample(sample) if sample is not None else access
    return access if review_status is None else replace(access, review_status=review_status)


@dataclass(frozen=True)
class ChoiceRows:
    """How a family's rows become choice rows: ``items(ds)`` the typed items, ``roles`` the
    candidate roles in option order, ``wording`` a candidate's option text and forms,
    ``cloze_wording`` its cloze continuation (default: the option text). ``key`` is the table
    column holding the requests' row ids; ``requests_for(ds, template, items)`` replaces the
    default forced-choice requests (both orders of every row) where a family asks otherwise."""

    items: Callable[[Dataset], list[Item]]
    roles: Sequence[str]
    wording: Wording
    key: str = "row_id"
    requests_for: RequestsFor | None = None
    cloze_wording: Callable[[Mention], str] | None = None


def choice_protocols(
    rows: ChoiceRows,
    template: PromptTemplate,
    cloze_template: cloze.ClozeTemplate | None = None,
) -> dict[str, ProtocolBinding]:
    """The forced-choice binding (default ``template``) and, with a ``cloze_template``, the
    cloze binding of a task over ``rows``; both join the answers back by ``rows.key``."""

    def forced_choice(ds: Dataset, tmpl: PromptTemplate) -> list[Request]:
        its = rows.items(ds)
        if rows.requests_for is not None:
            return rows.requests_for(ds, tmpl, its)
        return build_requests(choice_rows(its, rows.wording, roles=rows.roles), tmpl)

    def cloze_requests(ds: Dataset, tmpl: cloze.ClozeTemplate) -> list[Request]:
        its = rows.items(ds)
        bare = candidates(its, rows.cloze_wording) if rows.cloze_wording is not None else None
        return cloze.build_requests(choice_rows(its, rows.wording, roles=rows.roles), tmpl, bare)

    def answers(
        ds: Dataset, requests: Sequence[Request], responses: Mapping[str, Response]
    ) -> pd.DataFrame:
        return row_answers(requests, responses, key=rows.key)

    bindings = {"forced_choice": ProtocolBinding(forced_choice, answers, template, key=rows.key)}
    if cloze_template is not None:
        bindings["cloze"] = ProtocolBinding(cloze_requests, answers, cloze_template, key=rows.key)
    return bindings
