"""Task ``winopron-uk``: WinoPron-UK under its own forced-choice configuration.

The requests are the dataset's ``forced_choice`` rows: each ``prompt_uk`` exactly as published,
option A standing for ``option_a_role`` and B for ``option_b_role``. With a custom prompt
template (or a source without prompts) the project builds the prompts itself from the sentences,
in both option orders, in the same way. ``Request.meta`` carries the sentence's annotations for
the reference baselines (never the gold answer).

The helpers take the language suffix of the text fields, so the English WinoPron and
Winogender tasks use them too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ..datasets import winopron_uk as data
from ..datasets.annotation import bracket_mentions
from ..datasets.base import Dataset
from ..errors import TaskError
from ..languages.uk_morphology import lemmas, nominative, words
from ..protocols import cloze
from ..protocols.forced_choice import (
    LABELS,
    ChoiceRow,
    PromptTemplate,
    build_requests,
    join_predictions,
)
from ..records import Option, Request, Response
from ..scoring import winopron as scorer
from .base import Task, task
from .winobias_uk import occupation_table

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
UK_FALLBACK = PromptTemplate(
    "Прочитайте речення і визначте, кого стосується займенник «{pronoun}».\n"
    "Речення: {sentence}\n"
    "A. {option_a}\n"
    "B. {option_b}\n"
    "Відповідайте лише літерою A або B.",
    name="winopron-uk-v1",
)
SET_GENDER = {"male": "male", "female": "female"}
_TOKEN = re.compile(r"[^\W\d_]+(?:[ʼ'’-][^\W\d_]+)*", re.UNICODE)


def _find_entity(sentence: str, name: str, lang: str) -> int | None:
    """Character offset of the entity ``name`` in ``sentence`` (any inflected form), or None."""
    pos = sentence.lower().find(name.lower())
    if pos >= 0:
        return pos
    if lang != "uk":
        return None
    heads = words(name)
    if not heads:
        return None
    want = lemmas(heads[-1])
    for m in _TOKEN.finditer(sentence):
        if lemmas(m.group(0)) & want:
            return m.start()
    return None


def _stereotype(occupation: str, lang: str) -> str | None:
    if lang == "uk":
        entry = occupation_table().get(occupation.lower())
        return entry["stereotype"] if entry else None
    return None


def option_texts(row: Mapping[str, Any], lang: str) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Role -> (option text, other forms that name it in a free-text answer)."""
    occ, part = row[f"occupation_{lang}"], row[f"participant_{lang}"]
    group = row.get(f"occupation_group_{lang}", occ)
    if lang == "uk":
        return {
            "occupation": (occ, tuple(dict.fromkeys((nominative(occ), group)))),
            "participant": (part, (nominative(part),)),
        }

    def the(noun: str) -> str:
        return noun if noun.lower() in {"someone", "somebody"} else f"the {noun}"

    return {"occupation": (the(occ), (occ, group)), "participant": (the(part), (part,))}


def sentence_meta(row: Mapping[str, Any], lang: str) -> dict[str, Any]:
    """The annotations a reference baseline may read (see ``backends.baselines``)."""
    sentence = row[f"sentence_{lang}"]
    gold_role = str(row["gold_role"])
    gold_span = row[f"gold_span_{lang}"]
    gold_start = None
    for m in bracket_mentions(row[f"sentence_annotated_{lang}"]):
        if m.text == gold_span:
            gold_start = m.start
            break
    pset = str(row["pronoun_set"])
    mentions: dict[str, dict[str, Any]] = {}
    for role in ("occupation", "participant"):
        name = row[f"{role}_{lang}"]
        if role == gold_role:
            start = gold_start
            text = gold_span
        elif str(row.get("context", "double")) == "single":
            start, text = None, name
        else:
            start, text = _find_entity(sentence, name, lang), name
        occupation = row.get(f"occupation_group_{lang}", name) if role == "occupation" else None
        stereo = row.get("occupation_stereotype") if role == "occupation" else None
        if role == "occupation" and not stereo:
            stereo = _stereotype(str(occupation), lang)
        mentions[role] = {
            "text": text,
            "start": start,
            "gender": SET_GENDER.get(pset),
            "stereotype": stereo if isinstance(stereo, str) and stereo else None,
            "occupation": occupation,
        }
    return {
        "sentence": sentence,
        "pronoun": row[f"pronoun_{lang}"],
        "pronoun_gender": SET_GENDER.get(pset),
        "condition": None,
        "context": str(row.get("context", "")),
        "mentions": mentions,
    }


def choice_rows(ds: Dataset, lang: str) -> list[ChoiceRow]:
    rows = []
    for r in ds.table.to_dict("records"):
        opts = option_texts(r, lang)
        rows.append(
            ChoiceRow(
                row_id=r["row_key"],
                item_id=str(r["pair_id"]),
                sentence=r[f"sentence_{lang}"],
                pronoun=r[f"pronoun_{lang}"],
                options=(
                    (opts["occupation"][0], "occupation", opts["occupation"][1]),
                    (opts["participant"][0], "participant", opts["participant"][1]),
                ),
                meta=sentence_meta(r, lang),
            )
        )
    return rows


def prompt_requests(ds: Dataset, lang: str) -> list[Request]:
    """One request per forced_choice row, its prompt exactly as the dataset gives it."""
    prompts = getattr(ds, "prompts", None)
    if prompts is None:
        raise TaskError("this dataset source has no forced_choice prompts")
    by_key = {r["row_key"]: r for r in ds.table.to_dict("records")}
    out: list[Request] = []
    for p in prompts.to_dict("records"):
        sent = by_key.get(p["row_key"])
        if sent is None:
            continue  # a prompt without its sentence is reported by validate, not scored
        opts = option_texts(sent, lang)
        roles = (str(p["option_a_role"]), str(p["option_b_role"]))
        options = tuple(
            Option(label=lab, text=opts[role][0], role=role, forms=opts[role][1])
            for lab, role in zip(LABELS, roles, strict=True)
        )
        out.append(
            Request(
                request_id=str(p["prompt_id"]),
                kind="choice",
                prompt=p[f"prompt_{lang}"],
                options=options,
                row_id=p["row_key"],
                item_id=str(p["pair_id"]),
                order=str(p["option_order"]),
                meta=sentence_meta(sent, lang),
            )
        )
    return out


def requests_for(ds: Dataset, template: PromptTemplate, *, lang: str = "uk") -> list[Request]:
    """The dataset's own prompts (default template) or prompts built from ``template``."""
    prompts = getattr(ds, "prompts", None)
    if template.name == DATASET_PROMPTS_NAME:
        if prompts is not None:
            with_prompt = set(prompts["row_key"])
            own = prompt_requests(ds, lang)
            rest = [r for r in choice_rows(ds, lang) if r.row_id not in with_prompt]
            fallback = UK_FALLBACK if lang == "uk" else template
            return own + build_requests(rest, fallback)
        template = UK_FALLBACK if lang == "uk" else template
    return build_requests(choice_rows(ds, lang), template)


def cloze_requests_for(
    ds: Dataset, template: cloze.ClozeTemplate, *, lang: str = "uk"
) -> list[Request]:
    """One cloze request per sentence. Ukrainian candidates are the dataset's nominative
    ``occupation_uk`` / ``participant_uk``; English ones the bare nouns (``technician``,
    ``someone``), as lm-evaluation-harness continues its ``... refers to the`` with them."""
    bare = None
    if lang != "uk":
        cols = ["row_key", f"occupation_{lang}", f"participant_{lang}"]
        bare = {
            r["row_key"]: {
                "occupation": r[f"occupation_{lang}"],
                "participant": r[f"participant_{lang}"],
            }
            for r in ds.table[cols].to_dict("records")
        }
    return cloze.build_requests(choice_rows(ds, lang), template, bare)


def predict(
    ds: Dataset, requests: Sequence[Request], responses: Mapping[str, Response]
) -> pd.DataFrame:
    return join_predictions(ds.table, requests, responses, key="row_key")


def _requests_uk(ds: Dataset, template: PromptTemplate) -> list[Request]:
    return requests_for(ds, template, lang="uk")


TASK = task(
    Task(
        name="winopron-uk",
        family="winopron-uk",
        description="WinoPron-UK (Ukrainian), the dataset's forced-choice prompts in both orders",
        source=data.HUB_ID,
        protocol="forced_choice",
        metrics=scorer.METRICS,
        load=data.load,
        validate=data.validate,
        build_requests=_requests_uk,
        predict=predict,
        score=scorer.score,
        from_frame=data.from_frame,
        default_template=DATASET_PROMPTS,
        review_status=data.REVIEW_STATUS,
        build_cloze_requests=cloze_requests_for,
        cloze_template=cloze.UK_CLOZE,
    )
)
