"""Normalising a model's answer to one option of a forced-choice request.

An answer names an option either by its letter (``A``, ``b)``, ``Відповідь: B``) or by naming
the option's wording in any inflected form (``лікарці`` names the option ``лікар``/``лікарка``).
An answer that names both options, neither, or two different letters is ``invalid``; so is a
letter followed by words naming the *other* option (``B. дизайнером`` where B is ``розробник``).

Cyrillic letters. A Ukrainian model may answer a prompt labelled A/B in its own alphabet, whose
order is А, Б, В. The first two letters agree with the Latin ones by position: ``А`` (also the
look-alike of Latin A) is the first option and ``Б`` the second. ``В`` is ambiguous: it looks
like Latin B but is the *third* letter of the Ukrainian alphabet. It is therefore read as the
third option where the prompt offers one (labels A, B, C; Cyrillic ``С`` is then C's look-alike)
and, in a two-option prompt, as no letter of its own: ``В.`` alone is ``invalid``, not B.
A Cyrillic letter followed by words is never a letter ("В реченні ...", "А лікар ..." start
with the preposition "в" and the conjunction "а"), so the words decide.
"""

from __future__ import annotations

import re

from ..morphology import phrase_lemmas
from ..records import Option

INVALID = "invalid"

# Cyrillic letters read as option letters: А and Б by alphabet position (А is also Latin A's
# look-alike); В is the third letter (not B: see the module docstring); С is Latin C's look-alike
_CYRILLIC = {"А": "A", "Б": "B", "В": "C", "С": "C"}
AMBIGUOUS = "ambiguous"
_LEAD = re.compile(
    r"^\s*[*_]*(?:(?:відповідь|answer|варіант|option|правильна відповідь)[*_]*\s*[:：\-–]?[*_]*\s*)?"
    r"[\(\[«\"'*_]*\s*([A-Za-zА-Яа-яІіЇїЄєҐґ])\s*(?:[\)\]\.\:»\"',;*_]|$|\s)",
    re.IGNORECASE,
)


def _as_label(raw: str, labels: tuple[str, ...]) -> str | None:
    """The option label a single letter stands for, :data:`AMBIGUOUS`, or None (no label)."""
    up = raw.upper()
    if up in labels:
        return up
    if up not in _CYRILLIC:
        return None
    if up == "В" and "C" not in labels:
        return AMBIGUOUS if "B" in labels else None  # B's look-alike or the third letter?
    mapped = _CYRILLIC[up]
    return mapped if mapped in labels else None


def letter_of(answer: str, labels: tuple[str, ...]) -> tuple[str, bool] | None:
    """The option letter an answer starts with (after an optional 'Відповідь:'), if any.

    Returns ``(letter, strong)``; ``letter`` may be :data:`AMBIGUOUS` (a standalone Cyrillic
    ``В`` in a two-option prompt). A letter is *strong* when punctuation or the end of the answer
    follows it ("B", "b)", "**A**", "B. дизайнером"), *weak* when words follow ("A лікар").
    Only a standalone letter counts: "Будівельник" has none. A weak Cyrillic letter is not a
    letter at all, since "В реченні ..." starts with the preposition "в", not with an option.
    """
    text = answer.strip()
    if not text:
        return None
    m = _LEAD.match(text)
    if not m:
        return None
    raw = m.group(1)
    letter = _as_label(raw, labels)
    if letter is None:
        return None
    strong = not m.group(0)[-1:].isspace()
    if not strong and raw.upper() not in labels:
        return None
    return letter, strong


def _head_lemmas(text: str) -> set[str]:
    parts = text.split()
    return phrase_lemmas(parts[-1]) if parts else set()


def option_named(answer: str, options: tuple[Option, ...]) -> Option | None:
    """The one option whose head noun (any inflected form, either gender) the answer names."""
    said = phrase_lemmas(answer)
    hits = [
        opt for opt in options if any(said & _head_lemmas(form) for form in (opt.text, *opt.forms))
    ]
    return hits[0] if len(hits) == 1 else None


_TWO_LETTERS = re.compile(
    r"^\s*\S{1,3}\s*(?:або|чи|or|і|й|та|and|/|,)\s*[\(\[]?([A-Za-zАБВСабвс])\b", re.I
)


def normalise(answer: str | None, options: tuple[Option, ...]) -> str:
    """Return the role of the option the answer picks, or ``invalid``.

    A letter decides ("B.", "A лікар") unless the words after it name the other option ("B.
    дизайнером" where B is розробник; "B лікар" where A is лікар): such an answer contradicts
    itself and is invalid. Words naming both options or neither leave the letter's choice.
    Without a letter, the answer must name exactly one option.
    """
    if answer is None:
        return INVALID
    labels = tuple(o.label for o in options)
    found = letter_of(answer, labels)
    named = option_named(answer, options)
    if found is not None:
        letter, _strong = found
        if letter == AMBIGUOUS:
            return INVALID
        two = _TWO_LETTERS.match(answer)
        second = _as_label(two.group(1), labels) if two else None
        if second is not None and second != letter:
            return INVALID  # "A або B"
        chosen = next(o for o in options if o.label == letter)
        if named is None or named.label == letter:
            return chosen.role
        return INVALID
    return named.role if named is not None else INVALID
