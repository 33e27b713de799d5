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


def annotation_problems(
    sentence: str,
    annotated: str,
    gold: str,
    pronoun: str,
    *,
    fields: tuple[str, str],
    gold_name: str = "gold span",
) -> list[str]:
    """What is wrong with a sentence's bracket annotation of its gold referent and pronoun.

    ``fields`` names the sentence and annotated-sentence columns in the messages; ``[]`` when
    removing the brackets gives the sentence and they mark exactly ``gold`` and ``pronoun``.
    """
    sentence_field, annotated_field = fields
    problems = []
    if strip_brackets(annotated) != sentence:
        problems.append(
            f"removing the square brackets from {annotated_field} does not give {sentence_field}"
        )
    try:
        mentions = bracket_mentions(annotated)
    except ValueError as exc:
        return [*problems, f"{annotated_field}: {exc}"]
    if len(mentions) != 2:
        problems.append(f"expected exactly two bracketed spans, found {len(mentions)}")
    elif sorted(m.text for m in mentions) != sorted([gold, pronoun]):
        found = " and ".join(f"'{m.text}'" for m in mentions)
        problems.append(
            f"bracketed spans {found} are not the {gold_name} '{gold}' and the pronoun '{pronoun}'"
        )
    return problems


def _head(text: str) -> str:
    words = re.findall(r"\w+", text.casefold())
    return words[-1] if words else ""


def _shared_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def entity_named(span: str, entities: dict[str, str]) -> str | None:
    """Which of ``entities`` (role -> its text) a span names, in any language: the role whose
    head word shares the longest beginning with the span's head word (``клієнтові`` names the
    ``клієнт``, not the ``технік``), so inflected forms count; None when no role wins."""
    head = _head(span)
    scores = {role: _shared_prefix(head, _head(text)) for role, text in entities.items()}
    best = max(scores.values(), default=0)
    winners = [r for r, v in scores.items() if v == best]
    return winners[0] if best > 0 and len(winners) == 1 else None
