"""Filling the hand-written templates of the bundled samples, and bracketing their mentions.

Both sample builders (``build_winobias_uk_sample.py``, ``build_winopron_uk_sample.py``) write
templates whose mention slots (a capital letter, group 1 of the builder's slot pattern) take a
word and record its character span, capitalised when it opens the sentence; every other slot
takes the word that agrees with the sentence's genders or set, which the builder picks.
"""

from __future__ import annotations

import re
from collections.abc import Callable

Span = tuple[int, int]


def fill_template(
    template: str,
    slot: re.Pattern[str],
    mention: Callable[[str], str],
    agreeing: Callable[[re.Match[str]], str],
) -> tuple[str, dict[str, Span]]:
    """The sentence, and the span of each mention slot by its letter."""
    out: list[str] = []
    spans: dict[str, Span] = {}
    pos = 0
    for m in slot.finditer(template):
        out.append(template[pos : m.start()])
        if m.group(1):
            who = m.group(1)
            word = mention(who)
            start = sum(len(s) for s in out)
            if start == 0:
                word = word[0].upper() + word[1:]
            spans[who] = (start, start + len(word))
            out.append(word)
        else:
            out.append(agreeing(m))
        pos = m.end()
    out.append(template[pos:])
    return "".join(out), spans


def bracketed(sentence: str, spans: list[Span]) -> str:
    """The sentence with each span in square brackets (the datasets' annotated column)."""
    annotated = sentence
    for start, end in sorted(spans, reverse=True):
        annotated = annotated[:start] + "[" + annotated[start:end] + "]" + annotated[end:]
    return annotated
