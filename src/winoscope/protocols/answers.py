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
    r"^\s*(?:(?:відповідь|answer|варіант|option|правильна відповідь)\s*[:：\-–]?\s*)?"
    r"[\(\[«\"']?\s*([A-Za-zА-Яа-яІіЇїЄєҐґ])\s*(?:[\)\]\.\:»\"',;]|$|\s)",
    re.IGNORECASE,
)


def letter_of(answer: str, labels: tuple[str, ...]) -> str | None:
    """The option letter an answer starts with (after an optional 'Відповідь:'), if any.

    Only a standalone letter counts: "B" or "B) лікар" but not "Будівельник".
    """
    text = answer.strip()
    if not text:
        return None
    m = _LEAD.match(text)
    if not m:
        return None
    letter = m.group(1).translate(_LOOKALIKE).upper()
    return letter if letter in labels else None


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
    """Return the role of the option the answer picks, or ``invalid``."""
    if answer is None:
        return INVALID
    labels = tuple(o.label for o in options)
    letter = letter_of(answer, labels)
    if letter is not None:
        two = _TWO_LETTERS.match(answer)
        second = two.group(1).translate(_LOOKALIKE).upper() if two else None
        if second in labels and second != letter:
            return INVALID  # "A або B"
        for o in options:
            if o.label == letter:
                return o.role
    named = option_named(answer, options)
    return named.role if named is not None else INVALID
