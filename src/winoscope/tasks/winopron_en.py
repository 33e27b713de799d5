"""Tasks ``winopron-en`` and ``winogender-en``: the English originals in the WinoPron family.

Both build forced-choice prompts from the sentences with an English template, in both option
orders, and are scored by :mod:`winoscope.scoring.winopron` (double and single accuracy,
accuracy per pronoun set with the signed female - male gap, pair consistency, option-order
consistency, the pronoun_type x pronoun_set breakdown). Winogender has double-context sentences
only, so it has no single accuracy.
"""

from __future__ import annotations

from ..datasets import winogender_en, winopron_en
from ..datasets.base import Dataset
from ..protocols import cloze
from ..protocols.forced_choice import PromptTemplate
from ..records import Request
from ..scoring import winopron as scorer
from .base import Task, task
from .winobias_en import EN_DEFAULT
from .winopron_uk import cloze_requests_for, predict, requests_for

METRICS = tuple("neutral_accuracy" if m == "plural_accuracy" else m for m in scorer.METRICS)


def _requests_en(ds: Dataset, template: PromptTemplate) -> list[Request]:
    return requests_for(ds, template, lang="en")


def _cloze_en(ds: Dataset, template: cloze.ClozeTemplate) -> list[Request]:
    return cloze_requests_for(ds, template, lang="en")


WINOPRON_EN = task(
    Task(
        name="winopron-en",
        family="winopron-en",
        description="English WinoPron templates as double/single sentences with he/she/they in "
        "three cases, forced choice in both option orders",
        source=winopron_en.DEFAULT_SOURCE,
        protocol="forced_choice",
        metrics=METRICS,
        load=winopron_en.load,
        validate=winopron_en.validate,
        build_requests=_requests_en,
        predict=predict,
        score=scorer.score,
        default_template=EN_DEFAULT,
        review_status=winopron_en.REVIEW_STATUS,
        resampling_unit="schema/template",
        build_cloze_requests=_cloze_en,
        cloze_template=cloze.EN_CLOZE,
    )
)

WINOGENDER_EN = task(
    Task(
        name="winogender-en",
        family="winogender-en",
        description="English Winogender schemas (720 sentences), forced choice in both option "
        "orders, scored like WinoPron",
        source=winogender_en.DEFAULT_SOURCE,
        protocol="forced_choice",
        metrics=tuple(m for m in METRICS if m != "single_accuracy"),
        load=winogender_en.load,
        validate=winopron_en.validate,
        build_requests=_requests_en,
        predict=predict,
        score=scorer.score,
        default_template=EN_DEFAULT,
        review_status=winogender_en.REVIEW_STATUS,
        resampling_unit="schema/template",
        build_cloze_requests=_cloze_en,
        cloze_template=cloze.EN_CLOZE,
    )
)
