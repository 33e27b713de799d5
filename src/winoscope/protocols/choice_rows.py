"""Choice rows: one scored dataset row as a question with two candidate answers.

The forced-choice and the cloze protocols both start from :class:`ChoiceRow`; this module is
below both of them, so neither imports the other to share it. :func:`choice_rows` is the one
builder that turns a family's typed items into choice rows: the option roles come from the
item's candidate mentions, the option wording (and the other spellings that name an option in
a free-text answer) from a :data:`Wording` the task supplies per language.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ..errors import TaskError
from ..records import Item, Mention

ERROR = "error"

OptionSpec = tuple[str, str, tuple[str, ...]]  # (text, role, other forms)
# a mention -> (option text, other forms naming it); ``plain_wording`` is the default
Wording = Callable[[Mention], tuple[str, tuple[str, ...]]]


@dataclass(frozen=True)
class ChoiceRow:
    """One scored row as a two-option question; ``options`` are (text, role, other forms)."""

    row_id: str
    item_id: str
    sentence: str
    pronoun: str
    options: tuple[OptionSpec, OptionSpec]
    item: Item | None = None


def plain_wording(m: Mention) -> tuple[str, tuple[str, ...]]:
    """The option is the mention's dictionary form, else its occupation, else its text as in
    the sentence; each of them also names it in a free-text answer."""
    text = m.name or m.occupation or m.text
    return text, tuple(dict.fromkeys(f for f in (text, m.occupation, m.text) if f))


def choice_rows(
    items: Iterable[Item], wording: Wording = plain_wording, *, roles: Sequence[str] | None = None
) -> list[ChoiceRow]:
    """One choice row per item: options in the order of ``roles`` (default: the item's
    candidate mentions in their order), each worded by ``wording``."""
    rows = []
    for it in items:
        want = roles if roles is not None else [m.role for m in it.mentions]
        options = []
        for role in want:
            mention = it.mention(role)
            if mention is None:
                raise TaskError(f"row {it.row_id} has no '{role}' mention to offer as an option")
            text, forms = wording(mention)
            options.append((text, role, forms))
        if len(options) != 2:
            raise TaskError(f"row {it.row_id} has {len(options)} candidates; a choice needs two")
        rows.append(
            ChoiceRow(
                row_id=it.row_id,
                item_id=it.item_id,
                sentence=it.sentence,
                pronoun=it.pronoun.text if it.pronoun is not None else "",
                options=(options[0], options[1]),
                item=it,
            )
        )
    return rows


def candidates(
    items: Iterable[Item], wording: Callable[[Mention], str]
) -> dict[str, dict[str, str]]:
    """Row id -> role -> the candidate's wording (cloze continuations other than the options)."""
    return {it.row_id: {m.role: wording(m) for m in it.mentions} for it in items}
