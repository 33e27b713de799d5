"""Normalising a model's answer to one option of a forced-choice request.

An answer names an option either by its letter (``A``, ``b)``, ``Відповідь: B``) or by naming
the option's wording in any inflected form (``лікарці`` names the option ``лікар``/``лікарка``).
An answer that names both options, neither, or two different letters is ``invalid``; so is a
letter followed by words naming the *other* option (``B. дизайнером`` where B is ``розробник``).

The words come from the request's :class:`~winoscope.languages.Language` (``language``,
Ukrainian by default): the words that introduce an answer (``Відповідь:``, ``Answer:``), the
words joining two letters (``A або B``, ``A and B``: such an answer names two letters), the
letters of its alphabet read as option letters and the analyser whose lemmas match an option's
wording.

Cyrillic letters. A Ukrainian model may answer a prompt labelled A/B in its own alphabet, whose
order is А, Б, В. The first two letters agree with the Latin ones by position: ``А`` (also the
look-alike of Latin A) is the first option and ``Б`` the second. ``В`` is ambiguous: it looks
like Latin B but is the *third* letter of the Ukrainian alphabet. It is therefore read as the
third option where the prompt offers one (labels A, B, C; Cyrillic ``С`` is then C's look-alike)
and, in a two-option prompt, as no letter of its own: ``В.`` alone is ``invalid``, not B.
A Cyrillic letter followed by words is never a letter ("В реченні ...", "А лікар ..." start
with the preposition "в" and the conjunction "а"), so the words decide. Other languages declare
their own look-alikes (:attr:`Language.letter_lookalikes`, :attr:`Language.ambiguous_letters`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..languages import Language, get_language
from ..records import Option

INVALID = "invalid"
AMBIGUOUS = "ambiguous"
DEFAULT_LANGUAGE = "uk"

LanguageLike = Language | str


def _alternation(words: tuple[str, ...]) -> str:
    """``a|b|c`` of the escaped words, longest first (so "правильна відповідь" wins over a
    shorter word it starts with)."""
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


@lru_cache(maxsize=64)
def _lead(answer_words: tuple[str, ...]) -> re.Pattern[str]:
    """An optional answer word, then one letter followed by punctuation, a space or the end."""
    words = (
        rf"(?:(?:{_alternation(answer_words)})[*_]*\s*[:：\-–]?[*_]*\s*)?" if answer_words else ""
    )
    return re.compile(
        rf"^\s*[*_]*{words}[\(\[«\"'*_]*\s*([^\W\d_])\s*(?:[\)\]\.\:»\"',;*_]|$|\s)",
        re.IGNORECASE,
    )


@lru_cache(maxsize=64)
def _two_letters(joining: tuple[str, ...], lookalikes: str) -> re.Pattern[str]:
    """A letter, a joining word (or / and ,) and a second letter: "A або B"."""
    letters = "A-Za-z" + re.escape(lookalikes.upper() + lookalikes.lower())
    sep = "|".join([*(re.escape(w) for w in joining), "/", ","])
    return re.compile(rf"^\s*\S{{1,3}}\s*(?:{sep})\s*[\(\[]?([{letters}])\b", re.I)


def _as_label(raw: str, labels: tuple[str, ...], lang: Language) -> str | None:
    """The option label a single letter stands for, :data:`AMBIGUOUS`, or None (no label)."""
    up = raw.upper()
    if up in labels:
        return up
    mapped = lang.letter_lookalikes.get(up)
    if mapped is None:
        return None
    if mapped not in labels:
        looks = lang.ambiguous_letters.get(up)  # В: the third letter, or B's look-alike?
        return AMBIGUOUS if looks is not None and looks in labels else None
    return mapped


def letter_of(
    answer: str, labels: tuple[str, ...], language: LanguageLike = DEFAULT_LANGUAGE
) -> tuple[str, bool] | None:
    """The option letter an answer starts with (after an optional 'Відповідь:'), if any.

    Returns ``(letter, strong)``; ``letter`` may be :data:`AMBIGUOUS` (a standalone Cyrillic
    ``В`` in a two-option prompt). A letter is *strong* when punctuation or the end of the answer
    follows it ("B", "b)", "**A**", "B. дизайнером"), *weak* when words follow ("A лікар").
    Only a standalone letter counts: "Будівельник" has none. A weak look-alike letter is not a
    letter at all, since "В реченні ..." starts with the preposition "в", not with an option.
    """
    lang = get_language(language)
    text = answer.strip()
    if not text:
        return None
    m = _lead(tuple(lang.answer_words)).match(text)
    if not m:
        return None
    raw = m.group(1)
    letter = _as_label(raw, labels, lang)
    if letter is None:
        return None
    strong = not m.group(0)[-1:].isspace()
    if not strong and raw.upper() not in labels:
        return None
    return letter, strong


def _head_lemmas(text: str, lang: Language) -> set[str]:
    parts = text.split()
    return lang.phrase_lemmas(parts[-1]) if parts else set()


def option_named(
    answer: str, options: tuple[Option, ...], language: LanguageLike = DEFAULT_LANGUAGE
) -> Option | None:
    """The one option whose head noun (any inflected form, either gender) the answer names."""
    lang = get_language(language)
    said = lang.phrase_lemmas(answer)
    hits = [
        opt
        for opt in options
        if any(said & _head_lemmas(form, lang) for form in (opt.text, *opt.forms))
    ]
    return hits[0] if len(hits) == 1 else None


def normalise(
    answer: str | None, options: tuple[Option, ...], language: LanguageLike = DEFAULT_LANGUAGE
) -> str:
    """Return the role of the option the answer picks, or ``invalid``.

    A letter decides ("B.", "A лікар") unless the words after it name the other option ("B.
    дизайнером" where B is розробник; "B лікар" where A is лікар): such an answer contradicts
    itself and is invalid. Words naming both options or neither leave the letter's choice.
    Without a letter, the answer must name exactly one option. ``language`` (a code or a
    :class:`~winoscope.languages.Language`) gives the answer words, the joining words, the
    letter look-alikes and the lemmas.
    """
    if answer is None:
        return INVALID
    lang = get_language(language)
    labels = tuple(o.label for o in options)
    found = letter_of(answer, labels, lang)
    named = option_named(answer, options, lang)
    if found is not None:
        letter, _strong = found
        if letter == AMBIGUOUS:
            return INVALID
        joining = (*lang.or_words, *lang.and_words)
        two = _two_letters(joining, "".join(lang.letter_lookalikes)).match(answer)
        second = _as_label(two.group(1), labels, lang) if two else None
        if second is not None and second != letter:
            return INVALID  # "A або B"
        chosen = next(o for o in options if o.label == letter)
        if named is None or named.label == letter:
            return chosen.role
        return INVALID
    return named.role if named is not None else INVALID
