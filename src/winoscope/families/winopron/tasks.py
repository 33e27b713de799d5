"""The WinoPron family under forced choice: ``winopron-uk``, ``winopron-en``, ``winogender-en``.

:func:`winopron_task` builds a WinoPron-style task for any language: a dataset with the
family's fields (``sentence_{lang}``, ``sentence_annotated_{lang}``, ``pronoun_{lang}``,
``occupation_{lang}``, ``participant_{lang}``, ``gold_span_{lang}``, ``gold_role``,
``pronoun_set``, ``context``, ``row_key``, ``pair_id``), a language code and a prompt template.
Rows become typed :class:`~winoscope.records.Item` s (:func:`winopron_items`), items become
choice rows by the one builder, and the WinoPron scorer scores them (double and single accuracy,
accuracy per pronoun set with the signed female - male gap, pair and option-order consistency).

WinoPron-UK's requests are the dataset's ``forced_choice`` rows: each ``prompt_uk`` exactly as
published, option A standing for ``option_a_role`` and B for ``option_b_role``. With a custom
prompt template (or a source without prompts) the prompts are built from the sentences, in both
option orders, in the same way. Winogender has double-context sentences only, so it has no
single accuracy.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ...datasets.annotation import bracket_mentions
from ...datasets.base import Dataset
from ...errors import TaskError
from ...languages import get_language
from ...languages.uk import occupations as uk_lexicon
from ...languages.uk import prompts as uk_prompts
from ...languages.uk.morphology import nominative
from ...protocols import cloze
from ...protocols.choice_rows import Wording, choice_rows, plain_wording
from ...protocols.forced_choice import (
    EN_DEFAULT,
    LABELS,
    PromptTemplate,
    build_requests,
    from_wording,
)
from ...records import Item, Mention, Option, Request
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
from .dataset import EN as winopron_en
from .dataset import UK as uk_data
from .dataset import WINOGENDER as winogender_en

ROLES = ("occupation", "participant")
DATASET_PROMPTS_NAME = "dataset-prompts"
DATASET_PROMPTS = PromptTemplate(
    "(each row's own prompt from the forced_choice configuration; this text is used only for "
    "sentences without one)\n"
    "Прочитайте речення і визначте, кого стосується займенник «{pronoun}».\n"
    "Речення: {sentence}\n"
    "A. {option_a}\n"
    "B. {option_b}\n"
    "Відповідайте лише літерою A або B.",
    name=DATASET_PROMPTS_NAME,
)
UK_FALLBACK = from_wording(uk_prompts.WINOPRON)
SET_GENDER = {"male": "male", "female": "female"}
_TOKEN = re.compile(r"[^\W\d_]+(?:[ʼ'’-][^\W\d_]+)*", re.UNICODE)


def find_entity(sentence: str, name: str, language: str) -> int | None:
    """Character offset of the entity ``name`` in ``sentence``, or None: the name itself
    (any case), else, where the language has a morphological analyser, a word sharing a lemma
    with the name's last word (an inflected form)."""
    pos = sentence.lower().find(name.lower())
    if pos >= 0:
        return pos
    analyser = get_language(language).get_analyser()
    if analyser is None:
        return None
    heads = analyser.words(name)
    if not heads:
        return None
    want = analyser.phrase_lemmas(heads[-1])
    for m in _TOKEN.finditer(sentence):
        if analyser.phrase_lemmas(m.group(0)) & want:
            return m.start()
    return None


def winopron_items(
    table: pd.DataFrame, language: str, stereotypes: Callable[[str], str | None] | None = None
) -> list[Item]:
    """One typed item per sentence (named by ``row_key``; ``item_id`` is the ``pair_id``).

    The gold mention is located by its bracket, the other entity by :func:`find_entity` (a
    single-context sentence has none). A mention's ``name`` is the dataset's form of the entity
    and ``occupation`` the occupation group; the stereotype is the row's
    ``occupation_stereotype``, else the ``stereotypes`` lookup.
    """
    lang = language
    items = []
    for row in table.to_dict("records"):
        sentence = row[f"sentence_{lang}"]
        gold_role = str(row["gold_role"])
        gold_span = row[f"gold_span_{lang}"]
        brackets = bracket_mentions(row[f"sentence_annotated_{lang}"])
        gold = next((m for m in brackets if m.text == gold_span), None)
        pronoun_text = row[f"pronoun_{lang}"]
        pron = next((m for m in brackets if m is not gold and m.text == pronoun_text), None)
        gender = SET_GENDER.get(str(row["pronoun_set"]))
        context = str(row.get("context", ""))
        mentions = []
        for role in ROLES:
            name = row[f"{role}_{lang}"]
            if role == gold_role:
                start, text = (gold.start if gold is not None else None), gold_span
            elif str(row.get("context", "double")) == "single":
                start, text = None, name
            else:
                start, text = find_entity(sentence, name, lang), name
            occupation = row.get(f"occupation_group_{lang}", name) if role == "occupation" else None
            stereo = row.get("occupation_stereotype") if role == "occupation" else None
            if role == "occupation" and not stereo and stereotypes is not None:
                stereo = stereotypes(str(occupation))
            mentions.append(
                Mention(
                    text=text,
                    start=start,
                    end=None if start is None else start + len(text),
                    role=role,
                    gender=gender,
                    name=name,
                    occupation=occupation,
                    stereotype=stereo if isinstance(stereo, str) and stereo else None,
                )
            )
        items.append(
            Item(
                item_id=str(row["pair_id"]),
                row_id=str(row["row_key"]),
                language=lang,
                sentence=sentence,
                mentions=tuple(mentions),
                pronoun=Mention(
                    pronoun_text,
                    pron.start if pron is not None else None,
                    pron.end if pron is not None else None,
                    role="pronoun",
                    gender=gender,
                    case=pronoun_case(lang, pronoun_text, gender),
                ),
                context=context,
            )
        )
    return items


def prompt_requests(
    ds: Dataset, items: Sequence[Item], wording: Wording, language: str
) -> list[Request]:
    """One request per forced_choice row of the dataset, its prompt exactly as given."""
    prompts = getattr(ds, "prompts", None)
    if prompts is None:
        raise TaskError("this dataset source has no forced_choice prompts")
    by_key = {it.row_id: it for it in items}
    out: list[Request] = []
    for p in prompts.to_dict("records"):
        item = by_key.get(str(p["row_key"]))
        if item is None:
            continue  # a prompt without its sentence is reported by validate, not scored
        options = []
        roles = (str(p["option_a_role"]), str(p["option_b_role"]))
        for lab, role in zip(LABELS, roles, strict=True):
            mention = item.mention(role)
            if mention is None:
                raise TaskError(f"prompt {p['prompt_id']} offers an unknown role {role!r}")
            text, forms = wording(mention)
            options.append(Option(label=lab, text=text, role=role, forms=forms))
        out.append(
            Request(
                request_id=str(p["prompt_id"]),
                kind="choice",
                prompt=p[f"prompt_{language}"],
                options=tuple(options),
                row_id=p["row_key"],
                item_id=str(p["pair_id"]),
                order=str(p["option_order"]),
                item=item,
            )
        )
    return out


def winopron_task(
    name: str,
    *,
    dataset: DatasetAccess | Any,
    language: str | None = None,
    template: PromptTemplate,
    metrics: tuple[str, ...] = scorer.METRICS,
    wording: Wording = plain_wording,
    fallback_template: PromptTemplate | None = None,
    cloze_template: cloze.ClozeTemplate | None = None,
    cloze_wording: Callable[[Mention], str] | None = None,
    stereotypes: Callable[[str], str | None] | None = None,
    resampling_unit: str = "",
    description: str = "",
    family: str | None = None,
    sample: str | Path | None = None,
    review_status: str | None = None,
    register: bool = True,
    demo: Demo | None = None,
    methods: Mapping[str, ProtocolBinding] | None = None,
) -> Task:
    """A WinoPron-family task, forced choice in both option orders (cloze with a template).

    ``dataset`` is a :class:`DatasetAccess` or a loader (a module or an adaptation object);
    ``language`` defaults to the dataset's ``language``; ``sample`` is the file ``load()`` reads
    without a source. With the ``dataset-prompts`` template the dataset's own prompts are
    asked and sentences without one get ``fallback_template`` (default: ``template``).
    ``wording`` turns a candidate mention into its option text and other forms, ``cloze_wording``
    into its cloze continuation (default: the option text). ``methods`` adds protocol bindings
    after the family's own (the leaderboard's published scoring methods).
    """
    lang = language_of(name, language, dataset)

    def items(ds: Dataset) -> list[Item]:
        return winopron_items(ds.table, lang, stereotypes)

    def requests_for(ds: Dataset, tmpl: PromptTemplate, its: list[Item]) -> list[Request]:
        prompts = getattr(ds, "prompts", None)
        if tmpl.name == DATASET_PROMPTS_NAME:
            fallback = fallback_template or tmpl
            if prompts is None:
                return build_requests(choice_rows(its, wording, roles=ROLES), fallback)
            with_prompt = set(prompts["row_key"])
            own = prompt_requests(ds, its, wording, lang)
            rest = [it for it in its if it.row_id not in with_prompt]
            return own + build_requests(choice_rows(rest, wording, roles=ROLES), fallback)
        return build_requests(choice_rows(its, wording, roles=ROLES), tmpl)

    rows = ChoiceRows(
        items, ROLES, wording, key="row_key", requests_for=requests_for, cloze_wording=cloze_wording
    )
    t = Task(
        name,
        data=access_of(dataset, sample, review_status),
        protocols={**choice_protocols(rows, template, cloze_template), **(methods or {})},
        scorer=scorer.score,
        metrics=metrics,
        description=description or f"WinoPron ({lang}), forced choice in both option orders",
        family=family or name,
        resampling_unit=resampling_unit,
        demo=demo,
        strata=("context", "pronoun_type"),
        language=lang,
    )
    return task(t) if register else t


# --- the built-in WinoPron tasks ---------------------------------------------------------


def uk_wording(m: Mention) -> tuple[str, tuple[str, ...]]:
    """The dataset's (nominative) form; its nominative and, for the occupation, its group."""
    name = str(m.name)
    if m.role == "occupation":
        return name, tuple(dict.fromkeys((nominative(name), m.occupation)))  # type: ignore[arg-type]
    return name, (nominative(name),)


def en_wording(m: Mention) -> tuple[str, tuple[str, ...]]:
    """``the technician`` (``someone`` as it is); the bare noun and its group name it too."""
    name = str(m.name)
    text = name if name.lower() in {"someone", "somebody"} else f"the {name}"
    if m.role == "occupation":
        return text, (name, m.occupation)  # type: ignore[return-value]
    return text, (name,)


WINOPRON_UK = winopron_task(
    "winopron-uk",
    demo=Demo(2),
    language="uk",
    dataset=uk_data,
    template=DATASET_PROMPTS,
    wording=uk_wording,
    fallback_template=UK_FALLBACK,
    cloze_template=cloze.UK_CLOZE,
    stereotypes=uk_lexicon.stereotype,
    description="WinoPron-UK (Ukrainian), the dataset's forced-choice prompts in both orders",
    methods={
        board_method.method_name(form): board_method.binding(form, DATASET_PROMPTS)
        for form in board_method.FORMS
    },
)
EN_METRICS = tuple("neutral_accuracy" if m == "plural_accuracy" else m for m in scorer.METRICS)
# the English template ends with the article: cloze candidates are the bare nouns
_EN = {
    "language": "en",
    "template": EN_DEFAULT,
    "wording": en_wording,
    "cloze_template": cloze.EN_CLOZE,
    "cloze_wording": lambda m: str(m.name),
    "resampling_unit": "schema/template",
}
WINOPRON_EN = winopron_task(
    "winopron-en",
    dataset=DatasetAccess(
        load=winopron_en.load,
        validate=winopron_en.validate,
        source=winopron_en.source_text,
        review_status=winopron_en.review_status,
    ),
    metrics=EN_METRICS,
    description="English WinoPron templates as double/single sentences with he/she/they in "
    "three cases, forced choice in both option orders",
    **_EN,  # type: ignore[arg-type]
)
WINOGENDER_EN = winopron_task(
    "winogender-en",
    dataset=DatasetAccess(
        load=winogender_en.load,
        validate=winopron_en.validate,
        source=winogender_en.source_text,
        review_status=winogender_en.review_status,
    ),
    metrics=tuple(m for m in EN_METRICS if m != "single_accuracy"),
    description="English Winogender schemas (720 sentences), forced choice in both option "
    "orders, scored like WinoPron",
    **_EN,  # type: ignore[arg-type]
)
