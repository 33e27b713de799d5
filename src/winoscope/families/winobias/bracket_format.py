"""How a set of WinoBias-style bracket files is laid out: :class:`BracketFormat`.

The English release's layout is the default (:mod:`.brackets` describes it); other releases
differ, and :class:`BracketFormat` says how:

- ``file_pattern`` names the sentence files, with ``{condition}``, ``{type}`` and ``{split}``
  replaced by the file tokens of each (``condition_tokens``/``type_tokens``: family value ->
  token, default the value itself; ``splits``: token -> family split);
- ``numbering``: ``"numbered"`` (``1 [The developer] ...``), ``"unnumbered"`` (the sentence
  alone; the item number is its position among the file's non-blank lines) or ``"auto"``
  (numbered when most lines start with a number);
- ``lists``: ``"auto"`` uses ``list_files`` when the release has them and otherwise derives
  the stereotypes from the pro/anti files (:func:`.brackets.derive_stereotypes`: an occupation form's
  stereotype is the majority over its labelled lines, where a pro line's pronoun has the
  stereotype's gender and an anti line's the other one; conflicts are findings); ``"lists"``
  requires the files; ``"derive"`` ignores them. The dataset's ``stereotype_lists`` metadata
  (in the manifest) says which.

What is language-specific is data in a :class:`BracketFormat`: the pronouns with their gender,
the articles an occupation may carry (both from the language's
:class:`~winoscope.languages.Language` with :meth:`BracketFormat.for_language`), the file names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...errors import DatasetError
from ...languages import Language, get_language

NUMBERINGS = ("auto", "numbered", "unnumbered")
LIST_MODES = ("auto", "lists", "derive")

ENGLISH_PRONOUNS = {
    **dict.fromkeys(["he", "him", "his", "himself"], "male"),
    **dict.fromkeys(["she", "her", "hers", "herself"], "female"),
}


@dataclass(frozen=True)
class BracketFormat:
    """The language-specific facts of a set of WinoBias-style bracket files."""

    pronouns: Mapping[str, str] = field(default_factory=lambda: dict(ENGLISH_PRONOUNS))
    determiners: tuple[str, ...] = ("the", "a", "an")
    list_files: Mapping[str, str] = field(
        default_factory=lambda: {"male": "male_occupations.txt", "female": "female_occupations.txt"}
    )
    splits: Mapping[str, str] = field(default_factory=lambda: {"dev": "validation", "test": "test"})
    types: tuple[str, ...] = ("type1", "type2")
    conditions: tuple[str, ...] = ("pro", "anti")
    file_pattern: str = "{condition}_stereotyped_{type}.txt.{split}"
    numbering: str = "auto"
    lists: str = "auto"
    condition_tokens: Mapping[str, str] = field(default_factory=dict)
    type_tokens: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.numbering not in NUMBERINGS:
            raise DatasetError(
                f"numbering {self.numbering!r}: choose {', '.join(NUMBERINGS)}", field="numbering"
            )
        if self.lists not in LIST_MODES:
            raise DatasetError(
                f"lists {self.lists!r}: choose {', '.join(LIST_MODES)}", field="lists"
            )
        if tuple(sorted(self.conditions)) != ("anti", "pro"):
            raise DatasetError("conditions must be pro and anti", field="conditions")

    @classmethod
    def for_language(cls, language: Language | str, **kw: Any) -> BracketFormat:
        """The format with ``language``'s male and female pronouns (every case) and articles:
        ``BracketFormat.for_language("en")`` is the English release's."""
        lang = get_language(language)
        pronouns = {
            form: gender for gender in ("male", "female") for form in lang.pronoun_forms(gender)
        }
        return cls(**{"pronouns": pronouns, "determiners": tuple(lang.determiners), **kw})

    def file_name(self, condition: str, typ: str, split: str) -> str:
        """The sentence file of a condition, type and split token: the pattern filled in with
        each one's file token."""
        return self.file_pattern.format(
            condition=self.condition_tokens.get(condition, condition),
            type=self.type_tokens.get(typ, typ),
            split=split,
        )

    def _det(self) -> str:
        return "|".join(re.escape(d) for d in self.determiners)

    def strip_determiner(self, text: str) -> str:
        if not self.determiners:
            return text
        return re.sub(rf"^(?:{self._det()})\s+", "", text, flags=re.IGNORECASE)

    def occupation_pattern(self, occupations: list[str]) -> re.Pattern[str]:
        alternatives = "|".join(re.escape(o) for o in sorted(occupations, key=len, reverse=True))
        det = rf"(?:(?:{self._det()})\s+)?" if self.determiners else ""
        return re.compile(rf"\b{det}({alternatives})\b", re.IGNORECASE)

    def mask_pronouns(self, annotated: str) -> str:
        """The annotated sentence with every bracketed pronoun as ``[PRON]``."""
        words = "|".join(re.escape(p) for p in self.pronouns)
        return re.sub(rf"\[(?:{words})\]", "[PRON]", annotated, flags=re.IGNORECASE)
