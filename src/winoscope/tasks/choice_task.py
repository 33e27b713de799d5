"""What every forced-choice family task shares, whatever its family and language.

A family factory (:func:`~winoscope.families.winobias.tasks.winobias_task`,
:func:`~winoscope.families.winopron.tasks.winopron_task`) supplies how its rows become typed items and
how an option is worded; :func:`choice_task` makes the rest: the two-order forced-choice
requests (by the one choice-row builder), the cloze requests, the join of the answers back to
the rows, and the :class:`~winoscope.tasks.base.Task` record, registered unless asked not to.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ..datasets.base import Dataset
from ..errors import TaskError
from ..languages import UnknownLanguageError, get_language
from ..protocols import cloze
from ..protocols.choice_rows import Wording, candidates, choice_rows
from ..protocols.forced_choice import PromptTemplate, build_requests, join_predictions
from ..records import Item, Mention, Request, Response
from ..scoring.base import ScoreResult
from .base import DatasetAccess, Task, task

Requests = Callable[[Dataset, PromptTemplate], list[Request]]


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


def access_of(dataset: DatasetAccess | Any, sample: str | Path | None) -> DatasetAccess:
    access = DatasetAccess.of(dataset)
    return access.with_sample(sample) if sample is not None else access


def choice_task(
    name: str,
    *,
    access: DatasetAccess,
    items: Callable[[Dataset], list[Item]],
    roles: Sequence[str],
    wording: Wording,
    template: PromptTemplate,
    metrics: tuple[str, ...],
    score: Callable[..., ScoreResult],
    description: str,
    family: str | None = None,
    key: str = "row_id",
    requests_for: Callable[[Dataset, PromptTemplate, list[Item]], list[Request]] | None = None,
    cloze_template: cloze.ClozeTemplate | None = None,
    cloze_wording: Callable[[Mention], str] | None = None,
    review_status: str | None = None,
    resampling_unit: str = "",
    register: bool = True,
    strata: tuple[str, ...] = (),
    language: str = "",
    demo_rank: int | None = None,
) -> Task:
    """A forced-choice task over ``items(ds)``; ``requests_for(ds, template, items)`` replaces
    the default requests (both orders of every row) where a family asks otherwise; ``key`` is
    the table column holding the requests' row ids."""

    def forced_choice(ds: Dataset, tmpl: PromptTemplate) -> list[Request]:
        its = items(ds)
        if requests_for is not None:
            return requests_for(ds, tmpl, its)
        return build_requests(choice_rows(its, wording, roles=roles), tmpl)

    def cloze_requests(ds: Dataset, tmpl: cloze.ClozeTemplate) -> list[Request]:
        its = items(ds)
        bare = candidates(its, cloze_wording) if cloze_wording is not None else None
        return cloze.build_requests(choice_rows(its, wording, roles=roles), tmpl, bare)

    def predict(
        ds: Dataset, requests: Sequence[Request], responses: Mapping[str, Response]
    ) -> pd.DataFrame:
        return join_predictions(ds.table, requests, responses, key=key)

    t = Task(
        name=name,
        family=family or name,
        description=description,
        source=access.source,
        protocol="forced_choice",
        metrics=metrics,
        load=access.load,
        validate=access.validate,
        build_requests=forced_choice,
        predict=predict,
        score=score,
        from_frame=access.from_frame,
        default_template=template,
        review_status=access.review_status if review_status is None else review_status,
        strata=strata,
        demo_rank=demo_rank,
        resampling_unit=resampling_unit,
        build_cloze_requests=cloze_requests if cloze_template is not None else None,
        cloze_template=cloze_template,
        language=language,
    )
    return task(t) if register else t
