"""WinoPron-UK: the card's entity-inflection check and the integrity of the released prompts.

The card's automated validation covers "pair completeness, pronoun forms, entity inflection,
annotation integrity, option-order balance, and exact reconstruction of clean sentences";
:mod:`winoscope.families.winopron.checks` has the structural ones, this module adds:

- ``entity_inflection``: ``occupation_uk`` and ``participant_uk`` agree with ``pronoun_set``
  where Ukrainian marks it: by the Ukrainian :class:`~winoscope.languages.Language`'s analyser
  (pymorphy3), the head word has a nominative noun reading that is
  masculine singular (``male``), feminine singular (``female``) or plural (``plural``). A word
  with no nominative noun reading (unknown to the dictionary) is not judged.
- ``prompt_integrity``: ``prompt_uk`` contains its sentence's ``sentence_uk``, and its option
  lines (``A. …``, ``B. …``) name the entities of ``option_a_role`` / ``option_b_role``
  (compared case-insensitively with ``occupation_uk`` / ``participant_uk``), so a prompt with A
  and B swapped, or one naming another sentence's entities, is caught.
"""

from __future__ import annotations

import re

import pandas as pd

from ...datasets.base import Issue
from ...languages import Language, get_language
from .checks import first_by

OPTION_LINE = re.compile(r"^\s*([AB])\s*[.)]\s*(.+?)\s*$", re.MULTILINE)
MARKS = {"male": "masculine singular", "female": "feminine singular", "plural": "plural"}
LANGUAGE = "uk"


def check_entities(
    rows: pd.DataFrame, context: str, language: Language | str = LANGUAGE
) -> list[Issue]:
    """``entity_inflection`` over one sentence configuration (rows numbered from 1)."""
    lang = get_language(language)
    issues: list[Issue] = []
    for i, row in enumerate(rows.to_dict("records"), start=1):
        want = str(row["pronoun_set"])
        for field in ("occupation_uk", "participant_uk"):
            text = str(row[field])
            head = (lang.words(text) or [text])[-1]
            readings = lang.noun_readings(head)
            if not readings or want in readings:
                continue
            got = " or ".join(MARKS[r] for r in sorted(readings))
            issues.append(
                Issue(
                    "entity_inflection",
                    f"'{text}' is {got}, not {MARKS.get(want, want)} as pronoun_set {want} needs",
                    row=i,
                    item=f"{context}:{row['row_id']}",
                    field=field,
                )
            )
    return issues


def check_prompts(sentences: pd.DataFrame, prompts: pd.DataFrame) -> list[Issue]:
    """``prompt_integrity`` over the forced-choice rows (numbered from 1)."""
    issues: list[Issue] = []
    by_key = first_by(sentences, "row_key", ["sentence_uk", "occupation_uk", "participant_uk"])
    for i, row in enumerate(prompts.to_dict("records"), start=1):
        sent = by_key.get(row["row_key"])
        if sent is None:
            continue  # the ``link`` check reports it
        where = f"forced_choice:{row['prompt_id']}"
        prompt = str(row["prompt_uk"])

        def add(msg: str, *, _i: int = i, _w: str = where) -> None:
            issues.append(Issue("prompt_integrity", msg, row=_i, item=_w, field="prompt_uk"))

        if str(sent["sentence_uk"]) not in prompt:
            add(f"does not contain its sentence_uk '{sent['sentence_uk']}'")
        options = {m.group(1): m.group(2) for m in OPTION_LINE.finditer(prompt)}
        if set(options) != {"A", "B"}:
            add("has no 'A. …' and 'B. …' option lines")
            continue
        entity = {
            "occupation": str(sent["occupation_uk"]),
            "participant": str(sent["participant_uk"]),
        }
        roles = {"A": str(row["option_a_role"]), "B": str(row["option_b_role"])}
        named = {
            letter: next((r for r, e in entity.items() if e.casefold() == text.casefold()), None)
            for letter, text in options.items()
        }
        if named == {"A": roles["B"], "B": roles["A"]} and roles["A"] != roles["B"]:
            add(
                f"A and B are swapped: A names the {roles['B']} '{options['A']}' and B the "
                f"{roles['A']} '{options['B']}', but option_a_role is {roles['A']}"
            )
            continue
        for letter in ("A", "B"):
            if named[letter] != roles[letter]:
                add(
                    f"option {letter} '{options[letter]}' is not the {roles[letter]} "
                    f"'{entity.get(roles[letter], '?')}' (option_{letter.lower()}_role)"
                )
    return issues
