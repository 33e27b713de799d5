"""WinoBias-UK Natural: the card's construction checks beyond structure and annotation.

The card says the variants "were checked mechanically for occupation forms, pronoun gender,
participant roles, marker integrity, sentence length, duplicate occupations, and punctuation".
:func:`winoscope.families.winobias.checks.card_checks` covers roles, markers and duplicates; this
module adds the rest, each as its own check name:

- ``pronoun_gender``: ``pronoun_span_uk`` is a third-person singular pronoun of
  ``pronoun_gender`` (він/його/йому/ним/нього/ньому/нім vs вона/її/їй/нею/неї/ній: the male
  and female forms of the Ukrainian :class:`~winoscope.languages.Language`);
- ``occupation_forms``: the head word of ``target_span_uk`` / ``other_span_uk`` is, by
  the language's analyser (pymorphy3), an inflected form of the 40-entry lexicon's masculine or feminine form of the
  canonical label, and that form's gender is ``target_gender`` / ``other_gender``; the canonical
  labels themselves are lexicon entries;
- ``punctuation``: ``sentence_uk`` ends in terminal punctuation (. ! ? …, optionally followed
  by a closing quote or bracket), its quotes and brackets are balanced, and neither sentence
  field has doubled spaces, leading/trailing whitespace or a space before , . ! ? ; :;
- ``sentence_length``: a variant's word count differs from its item's ``mm`` variant by at
  most :data:`LENGTH_TOLERANCE` (30%) of the ``mm`` count.
"""

from __future__ import annotations

import re
from functools import cache

import pandas as pd

from ...datasets.base import Issue
from ...languages import Language, get_language
from ...languages.word_tables import occupation_lexicon

LENGTH_TOLERANCE = 0.30
LANGUAGE = "uk"
SINGULAR = ("male", "female")  # the pronoun genders a WinoBias-UK row may have
TERMINAL = re.compile(r"[.!?…][»”\"')\]]*$")
PAIRS = {"(": ")", "«": "»", "„": "“", "“": "”"}
SPACE_BEFORE = re.compile(r"\s[,.!?;:]")


@cache
def lexicon() -> dict[str, tuple[str, str]]:
    """Canonical (masculine) label -> (masculine form, feminine form), from the shipped table."""
    rows = occupation_lexicon("uk")
    return {r["occupation_uk"].strip(): (r["occupation_uk"], r["feminine_uk"]) for r in rows}


def pronouns(language: Language | str = LANGUAGE) -> dict[str, frozenset[str]]:
    """Gender -> every third-person singular form (all cases) of ``language``'s pronoun."""
    lang = get_language(language)
    return {g: lang.pronoun_forms(g) for g in SINGULAR}


def check_pronoun(
    row: dict,  # type: ignore[type-arg]
    i: int,
    iid: str,
    language: Language | str = LANGUAGE,
) -> list[Issue]:
    forms_of = pronouns(language)
    pron = str(row["pronoun_span_uk"]).strip().lower()
    want = str(row["pronoun_gender"])
    if pron in forms_of.get(want, frozenset()):
        return []
    other = next((g for g, forms in forms_of.items() if pron in forms), None)
    why = (
        f"'{row['pronoun_span_uk']}' is a {other} pronoun but pronoun_gender is {want}"
        if other
        else f"'{row['pronoun_span_uk']}' is not a third-person singular pronoun "
        f"(expected one of {', '.join(sorted(forms_of.get(want, ())))})"
    )
    return [Issue("pronoun_gender", why, row=i, item=iid, field="pronoun_span_uk")]


def check_occupation_forms(
    row: dict,  # type: ignore[type-arg]
    i: int,
    iid: str,
    language: Language | str = LANGUAGE,
) -> list[Issue]:
    lang = get_language(language)
    issues: list[Issue] = []
    lex = lexicon()
    for label_field, span_field, gender_field in (
        ("target_occupation_uk", "target_span_uk", "target_gender"),
        ("other_occupation_uk", "other_span_uk", "other_gender"),
    ):
        label = str(row[label_field]).strip()
        entry = lex.get(label) or lex.get(label.lower())
        if entry is None:
            issues.append(
                Issue(
                    "occupation_forms",
                    f"'{label}' is not a canonical label of the {len(lex)}-entry lexicon",
                    row=i,
                    item=iid,
                    field=label_field,
                )
            )
            continue
        span = str(row[span_field])
        head = (lang.words(span) or [span])[-1]
        lemmas = lang.noun_lemmas(head)
        by_form = {entry[0]: "male", entry[1]: "female"}
        genders = {by_form[lem] for lem in lemmas if lem in by_form}
        want = str(row[gender_field])
        if not genders:
            issues.append(
                Issue(
                    "occupation_forms",
                    f"'{span}' is not a form of the lexicon's '{entry[0]}'/'{entry[1]}' "
                    f"(pymorphy3 lemmas: {', '.join(sorted(lemmas)) or 'none'})",
                    row=i,
                    item=iid,
                    field=span_field,
                )
            )
        elif want not in genders:
            got = "/".join(sorted(genders))
            issues.append(
                Issue(
                    "occupation_forms",
                    f"'{span}' is grammatically {got} but {gender_field} is {want}",
                    row=i,
                    item=iid,
                    field=span_field,
                )
            )
    return issues


def _unbalanced(text: str) -> str | None:
    """What is unbalanced: « », ( ), „ “ and “ ” pair up (“ closes „, else opens ”), and
    straight double quotes come in pairs."""
    stack: list[str] = []
    closers = {v: k for k, v in PAIRS.items()}
    for ch in text:
        if ch == "“" and stack and stack[-1] == "„":
            stack.pop()  # „…“; otherwise “ opens the English-style “…”
        elif ch in PAIRS:
            stack.append(ch)
        elif ch in closers:
            if not stack or stack[-1] != closers[ch]:
                return f"'{ch}' closes nothing"
            stack.pop()
    if stack:
        return f"'{stack[-1]}' is never closed"
    if text.count('"') % 2:
        return 'an odd number of straight quotes (")'
    return None


def check_punctuation(row: dict, i: int, iid: str) -> list[Issue]:  # type: ignore[type-arg]
    issues: list[Issue] = []
    sent = str(row["sentence_uk"])

    def add(msg: str, field: str = "sentence_uk") -> None:
        issues.append(Issue("punctuation", msg, row=i, item=iid, field=field))

    if not TERMINAL.search(sent.rstrip()):
        add(f"no terminal punctuation (ends in {sent.rstrip()[-1:]!r})")
    bad = _unbalanced(sent)
    if bad:
        add(f"unbalanced quotes or brackets: {bad}")
    for field in ("sentence_uk", "sentence_annotated_uk"):
        text = str(row[field])
        if "  " in text:
            add(f"doubled space at character {text.index('  ') + 1}", field)
        if text != text.strip():
            add("leading or trailing whitespace", field)
        m = SPACE_BEFORE.search(text)
        if m:
            add(f"space before '{m.group(0)[-1]}' at character {m.start() + 1}", field)
    return issues


def check_lengths(
    table: pd.DataFrame, item_key: list[str], language: Language | str = LANGUAGE
) -> list[Issue]:
    """Flag variants whose word count differs from their item's mm variant by more than the
    tolerance (rows without an mm variant are left to the ``variants`` check)."""
    lang = get_language(language)
    issues: list[Issue] = []
    lengths = table["sentence_uk"].map(lambda s: len(lang.words(str(s))))
    keys = table[item_key].astype(str).agg("/".join, axis=1)
    is_mm = table["variant"].astype(str) == "mm"
    mm_len = dict(zip(keys[is_mm], lengths[is_mm], strict=True))
    for pos, (key, n, variant, iid) in enumerate(
        zip(keys, lengths, table["variant"].astype(str), table["item_id"], strict=True), start=1
    ):
        base = mm_len.get(key)
        if base is None or variant == "mm" or base == 0:
            continue
        if abs(n - base) > LENGTH_TOLERANCE * base:
            issues.append(
                Issue(
                    "sentence_length",
                    f"{n} words against {base} in the mm variant (more than "
                    f"{LENGTH_TOLERANCE:.0%} apart)",
                    row=pos,
                    item=str(iid),
                    field="sentence_uk",
                )
            )
    return issues


def check_rows(
    table: pd.DataFrame, item_key: list[str], language: Language | str = LANGUAGE
) -> list[Issue]:
    """Every check of this module over a typed WinoBias-UK table (rows numbered from 1)."""
    lang = get_language(language)
    issues: list[Issue] = []
    for i, row in enumerate(table.to_dict("records"), start=1):
        iid = str(row["item_id"])
        issues += check_pronoun(row, i, iid, lang)
        issues += check_occupation_forms(row, i, iid, lang)
        issues += check_punctuation(row, i, iid)
    return issues + check_lengths(table, item_key, lang)
