"""Square-bracket coreference annotation, as in WinoBias: ``[The developer] ... [he] ...``."""

from __future__ import annotations

import re
from dataclasses import dataclass

_BRACKET = re.compile(r"\[([^\[\]]*)\]")


@dataclass(frozen=True)
class Mention:
    text: str
    start: int  # character offset in the clean sentence
    end: int


def strip_brackets(annotated: str) -> str:
    return annotated.replace("[", "").replace("]", "")


def bracket_mentions(annotated: str) -> list[Mention]:
    """Mentions marked in ``annotated`` with their offsets in the clean sentence.

    Raises ValueError when brackets are nested or unbalanced.
    """
    depth = 0
    for ch in annotated:
        if ch == "[":
            depth += 1
            if depth > 1:
                raise ValueError("nested square brackets")
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise ValueError("a closing bracket without an opening one")
    if depth != 0:
        raise ValueError("an opening bracket is never closed")
    mentions: list[Mention] = []
    removed = 0
    for m in _BRACKET.finditer(annotated):
        start = m.start() - removed
        text = m.group(1)
        mentions.append(Mention(text=text, start=start, end=start + len(text)))
        removed += 2
    return mentions
