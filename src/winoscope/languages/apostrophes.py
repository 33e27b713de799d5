"""The letter apostrophe, however a text spells it.

A word such as Ukrainian *Дарʼя* may be written with U+02BC, the ASCII apostrophe or U+2019.
The lexicons store forms with U+02BC; a corpus scan matches each of the three spellings.
"""

from __future__ import annotations

import re

APOSTROPHE_SPELLINGS = ("ʼ", "'", "’")  # the three a text may use
_APOSTROPHE_BETWEEN_LETTERS = re.compile(r"(?<=[^\W\d_])['’ʼ](?=[^\W\d_])")


def normalise_apostrophes(text: str) -> str:
    """Write every apostrophe between two letters as U+02BC, the letter apostrophe.

    >>> normalise_apostrophes("Дар'я та сім’я, 'цитата'")
    "Дарʼя та сімʼя, 'цитата'"
    """
    return _APOSTROPHE_BETWEEN_LETTERS.sub("ʼ", text)


def apostrophe_variants(form: str) -> list[str]:
    """The form with each apostrophe spelling; a form without an apostrophe is returned alone."""
    form = normalise_apostrophes(form)
    if "ʼ" not in form:
        return [form]
    return [form.replace("ʼ", a) for a in APOSTROPHE_SPELLINGS]
