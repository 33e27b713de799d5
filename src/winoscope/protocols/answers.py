"""Normalising a model's answer to one option of a forced-choice request.

An answer names an option either by its letter (``A``, ``b)``, ``Відповідь: B``; the Cyrillic
look-alikes ``А``/``В`` count as the Latin letters) or by naming the option's wording in any
inflected form (``лікарці`` names the option ``лікар``/``лікарка``). An answer that names both
options, neither, or two different letters is ``invalid``.
"""

from __future__ import annotations

import re

from ..morphology import phrase_lemmas
from ..records import Option

INVALID = "invalid"

# Cyrillic letters that look like the Latin option letters
_LOOKALIKE = str.maketrans({"А": "A", "В": "B", "С": "C", "а": "a", "в": "b", "с": "c"})
_LEAD = re.compile(
    r"^\s*[*_]*(?:(?:відповідь|answer|варіант|option|правильна відповідь)[*_]*\s*[:：\-–]?[*_]*\s*)?"
    r"[\(\[«\"'*_]*\s*([A-Za-zА-Яа-яІіЇїЄєҐґ])\s*(?:[\)\]\.\:»\"',;*_]|$|\s)",
    re.IGNORECASE,
)


def letter_of(answer: str, labels: tuple[str, ...]) -> tuple[str, bool] | None:
    """The option letter an answer starts with (after an optional 'Відповідь:'), if any.

    Returns ``(letter, strong)``. A letter is *strong* when punctuation or the end of the answer
    follows it ("B", "b)", "**A**"), *weak* when words follow ("A лікар"). Only a standalone
    letter counts: "Будівельник" has none. A weak Cyrillic look-alike is not a letter at all,
    since "В реченні ..." starts with the preposition "в", not with option B.
    """
    text = answer.strip()
    if not text:
        return None
    m = _LEAD.match(text)
    if not m:
        return None
    raw = m.group(1)
    letter = raw.translate(_LOOKALIKE).upper()
    if letter not in labels:
        return None
    strong = not m.group(0)[-1:].isspace()
    if not strong and raw.upper() != letter:
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
    r"^\s*\S{1,3}\s*(?:або|чи|or|і|й|та|and|/|,)\s*[\(\[]?([A-Za-zАВав])\b", re.I
)


def normalise(answer: str | None, options: tuple[Option, ...]) -> str:
    """Return the role of the option the answer picks, or ``invalid``.

    A strong letter decides ("B."); a weak one ("A лікар") decides unless the words name the
    other option, which makes the answer contradictory and so invalid. Without a letter, the
    answer must name exactly one option.
    """
    if answer is None:
        return INVALID
    labels = tuple(o.label for o in options)
    found = letter_of(answer, labels)
    named = option_named(answer, options)
    if found is not None:
        letter, strong = found
        two = _TWO_LETTERS.match(answer)
        second = two.group(1).translate(_LOOKALIKE).upper() if two else None
        if second in labels and second != letter:
            return INVALID  # "A або B"
        chosen = next(o for o in options if o.label == letter)
        if strong or named is None or named.label == letter:
            return chosen.role
        return INVALID
    return named.role if named is not None else INVALID
