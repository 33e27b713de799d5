"""The WinoBias family under the forced-choice protocol: ``winobias-uk`` and ``winobias-en``.

:func:`winobias_task` builds a WinoBias task for any language: a dataset with the family's
fields (the clean and the bracket-annotated sentence, the two occupation spans and occupations,
the pronoun span, ``condition``, ``pronoun_gender`` and ``coreference_role``; column names by
:class:`WinoBiasColumns`), a language code, a prompt template and how an option is worded.
The rows become typed :class:`~winoscope.records.Item` s (:func:`winobias_items`), the items
become choice rows by the one builder (:func:`~winoscope.protocols.choice_rows.choice_rows`),
and the WinoBias scorer scores them (pro/anti accuracy, gap, pair consistency per split/type,
macro averages). The two built-in tasks below are two calls of the factory.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from dataclasses import fields as dataclass_fields
from pathlib import Path
from typing import Any

import pandas as pd

from ...datasets.annotation import bracket_mentions
from ...datasets.base import Dataset
from ...languages.uk import occupations as uk_lexicon
from ...languages.uk.morphology import nominative
from ...protocols import cloze
from ...protocols.choice_rows import Wording, plain_wording
from ...protocols.forced_choice import EN_DEFAULT, UK_DEFAULT, PromptTemplate
from ...records import Item, Mention
from ...tasks.base import DatasetAccess, Demo, ProtocolBinding, Task, task
from ...tasks.choice_task import (
    ChoiceRows,
    access_of,
    choice_protocols,
    language_of,
    pronoun_case,
)
from . import board_method
from . import scorer as scorer
from .dataset import EN as en_data
from .dataset import FIELDS
from .dataset import UK as uk_data

FLIP = {"male": "female", "female": "male"}
ROLES = ("target", "distractor")
#: the family field of a :class:`WinoBiasColumns` attribute, where the two names differ
_FIELD_OF = {"annotated": "sentence_annotated", "pronoun": "pronoun_span"}


@dataclass(frozen=True)
class WinoBiasColumns:
    """The table columns holding the family's fields.

    Text columns carry the language suffix (``sentence_uk``); :meth:`suffixed` builds the usual
    map for a suffix. ``target_gender``/``other_gender`` (the occupations' grammatical genders)
    and ``target_stereotype``/``other_stereotype`` (their stereotyped genders) are read when
    the table has them: without the stereotype columns, stereotypes come from the task's
    occupation lookup and from the pro/anti labels.
    """

    sentence: str
    annotated: str
    pronoun: str
    target_span: str
    other_span: str
    target_occupation: str
    other_occupation: str
    target_gender: str = "target_gender"
    other_gender: str = "other_gender"
    target_stereotype: str = "target_stereotype"
    other_stereotype: str = "other_stereotype"
    pronoun_gender: str = "pronoun_gender"
    coreference_role: str = "coreference_role"
    condition: str = "condition"
    score_group: str = "score_group"

    @classmethod
    def suffixed(cls, suffix: str) -> WinoBiasColumns:
        """The columns of an adaptation in language ``suffix``, named as the family's fields
        name them (:data:`~.dataset.FIELDS`: the localised ones carry the suffix)."""
        column = {f.name: f.column(suffix) for f in FIELDS}
        return cls(**{a.name: column[_FIELD_OF.get(a.name, a.name)] for a in dataclass_fields(cls)})

    def role_columns(self, role: str) -> tuple[str, str, str, str]:
        """(span, occupation, gender, stereotype) columns of a candidate role."""
        if role == "target":
            return (
                self.target_span,
                self.target_occupation,
                self.target_gender,
                self.target_stereotype,
            )
        return self.other_span, self.other_occupation, self.other_gender, self.other_stereotype


def stereotypes_from_labels(table: pd.DataFrame, columns: WinoBiasColumns) -> dict[str, str]:
    """Occupation -> stereotyped gender implied by the pro/anti labels of primary rows.

    A pro row says the target occupation's stereotype is the pronoun's gender; an anti row says
    it is the other gender. WinoBias pairs a male- with a female-stereotyped occupation, so the
    other occupation gets the opposite stereotype where it never appears as a target.
    """
    c = columns
    out: dict[str, str] = {}
    if c.score_group in table.columns:
        prim = table[table[c.score_group] == "primary_balanced"]
    else:
        prim = table[table[c.condition].astype(str).isin(("pro", "anti"))]
    for cond, gender, target in (
        prim[[c.condition, c.pronoun_gender, c.target_occupation]]
        .astype(str)
        .itertuples(index=False)
    ):
        if gender in FLIP:
            out[target] = gender if cond == "pro" else FLIP[gender]
    for target, other in (
        prim[[c.target_occupation, c.other_occupation]].astype(str).itertuples(index=False)
    ):
        if other not in out and target in out:
            out[other] = FLIP[out[target]]
    return out


def _other_start(sentence: str, span: str, gold: tuple[int, int] | None) -> int | None:
    """First offset of ``span`` in ``sentence`` outside the gold mention, or None."""
    pos = sentence.find(span)
    while gold is not None and pos >= 0 and gold[0] <= pos < gold[1]:
        pos = sentence.find(span, pos + 1)
    return pos if pos >= 0 else None


def _end(start: int | None, text: str) -> int | None:
    return None if start is None else start + len(text)


def winobias_items(
    table: pd.DataFrame,
    columns: WinoBiasColumns,
    language: str,
    stereotypes: Callable[[str], str | None] | None = None,
) -> list[Item]:
    """One typed item per WinoBias row (rows keep their ``row_id`` and ``item_id``).

    The gold mention's offset is its bracket in the annotated sentence; the other occupation's
    is its first occurrence outside the gold mention (None where it does not occur).
    """
    c = columns
    own_stereotypes = c.target_stereotype in table.columns and c.other_stereotype in table.columns
    labels = {} if own_stereotypes else stereotypes_from_labels(table, c)
    items = []
    for r in table.to_dict("records"):
        sentence, annotated = str(r[c.sentence]), str(r[c.annotated])
        gold_role = str(r[c.coreference_role])
        gold_text = str(r[c.role_columns(gold_role)[0]])
        brackets = bracket_mentions(annotated)
        gold = next((m for m in brackets if m.text.strip() == gold_text.strip()), None)
        gold_span = (gold.start, gold.end) if gold is not None else None
        mentions = []
        for role in ROLES:
            span_col, occ_col, gender_col, stereo_col = c.role_columns(role)
            text, occupation = str(r[span_col]), str(r[occ_col])
            if role == gold_role:
                start = gold.start if gold is not None else _other_start(sentence, text, None)
            else:
                start = _other_start(sentence, text, gold_span)
            if own_stereotypes:
                table_stereo: str | None = str(r[stereo_col])
                label_stereo: str | None = table_stereo
            else:
                table_stereo = stereotypes(occupation) if stereotypes is not None else None
                label_stereo = labels.get(occupation)
            mentions.append(
                Mention(
                    text=text,
                    start=start,
                    end=_end(start, text),
                    role=role,
                    gender=str(r[gender_col]) if gender_col in r else None,
                    occupation=occupation,
                    stereotype=table_stereo,
                    stereotype_labels=label_stereo,
                )
            )
        pronoun_text = str(r[c.pronoun])
        pron = next(
            (m for m in brackets if m is not gold and m.text.strip() == pronoun_text.strip()), None
        )
        pronoun = Mention(
            text=pronoun_text,
            start=pron.start if pron is not None else None,
            end=pron.end if pron is not None else None,
            role="pronoun",
            gender=str(r[c.pronoun_gender]),
            case=pronoun_case(language, pronoun_text, str(r[c.pronoun_gender])),
        )
        items.append(
            Item(
                item_id=str(r["item_id"]),
                row_id=str(r["row_id"]),
                language=language,
                sentence=sentence,
                mentions=tuple(mentions),
                pronoun=pronoun,
                condition=str(r[c.condition]),
            )
        )
    return items


def winobias_task(
    name: str,
    *,
    dataset: DatasetAccess | Any,
    language: str | None = None,
    template: PromptTemplate,
    wording: Wording = plain_wording,
    cloze_template: cloze.ClozeTemplate | None = None,
    cloze_wording: Callable[[Mention], str] | None = None,
    stereotypes: Callable[[str], str | None] | None = None,
    controls: bool = False,
    description: str = "",
    family: str | None = None,
    sample: str | Path | None = None,
    review_status: str | None = None,
    register: bool = True,
    demo: Demo | None = None,
    methods: Mapping[str, ProtocolBinding] | None = None,
) -> Task:
    """A WinoBias-family task, forced choice in both option orders (cloze with a template).

    ``dataset`` is a :class:`DatasetAccess` or a loader (a module or an adaptation object with
    ``load``/``validate``/``from_frame``); ``language`` defaults to the dataset's ``language``;
    ``sample`` is the file ``load()`` reads without a source. The table's columns are the
    family's fields as the dataset's column map names them (``sentence_uk``): an adaptation
    whose card names them otherwise maps them there, once.
    ``wording`` turns a candidate mention into its option text and other forms (default: the
    occupation as given), ``cloze_wording`` into its cloze continuation (default: the option
    text). ``stereotypes`` looks up an occupation's stereotyped gender where the table has no
    stereotype columns. ``controls`` keeps the metrics of the agreement/cross controls.
    ``methods`` adds protocol bindings after the family's own (a published scoring method).
    """
    lang = language_of(name, language, dataset)
    cols = WinoBiasColumns.suffixed(lang)

    def items(ds: Dataset) -> list[Item]:
        return winobias_items(ds.table, cols, lang, stereotypes)

    t = Task(
        name,
        data=access_of(dataset, sample, review_status),
        protocols={
            **choice_protocols(
                ChoiceRows(items, ROLES, wording, cloze_wording=cloze_wording),
                template,
                cloze_template,
            ),
            **(methods or {}),
        },
        scorer=scorer.score,
        metrics=scorer.METRICS
        if controls
        else tuple(m for m in scorer.METRICS if "control" not in m),
        description=description or f"WinoBias ({lang}), forced choice in both option orders",
        family=family or name,
        demo=demo,
        strata=("split", "type"),
        language=lang,
    )
    return task(t) if register else t


# --- the built-in WinoBias tasks ---------------------------------------------------------


def uk_wording(m: Mention) -> tuple[str, tuple[str, ...]]:
    """The span in the nominative; every spelling of its occupation in the lexicon."""
    return nominative(m.text), uk_lexicon.forms(m.occupation or m.text)


def en_wording(m: Mention) -> tuple[str, tuple[str, ...]]:
    """``the developer``; the bare occupation also names it."""
    return f"the {m.occupation}", (str(m.occupation),)


WINOBIAS_UK = winobias_task(
    "winobias-uk",
    demo=Demo(1),
    language="uk",
    dataset=uk_data,
    template=UK_DEFAULT,
    wording=uk_wording,
    cloze_template=cloze.UK_CLOZE,
    stereotypes=uk_lexicon.stereotype,
    controls=True,
    description="WinoBias-UK Natural (Ukrainian), forced choice in both option orders",
    methods={board_method.METHOD: board_method.BINDING},
)
WINOBIAS_EN = winobias_task(
    "winobias-en",
    language="en",
    dataset=en_data,
    template=EN_DEFAULT,
    wording=en_wording,
    cloze_template=cloze.EN_CLOZE,
    # the English template ends with the article: the candidates are the bare occupations
    cloze_wording=lambda m: str(m.occupation),
    description="English WinoBias (pro/anti x type1/type2 x dev/test), forced choice in both "
    "option orders, scored like WinoBias-UK",
)
