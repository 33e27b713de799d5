"""Reading WinoBias's bracket files into WinoBias family records (any language).

The English release (``WinoBias/wino/data`` of uclanlp/corefBias) has
``{pro,anti}_stereotyped_{type1,type2}.txt.{dev,test}``, one numbered bracket-annotated
sentence a line::

    1 [The developer] argued with the designer because [he] did not like the design.

plus ``male_occupations.txt`` / ``female_occupations.txt`` (the occupations whose majority
workers are men / women in the US labour statistics: the stereotype lists).

Mapping onto the family: line *n* of the pro file and line *n* of the anti file are one item
(the same sentence with the pronoun's gender swapped), ``item_number`` = *n*; ``split`` dev ->
``validation``; every row is ``score_group = primary_balanced`` with ``coreference_role =
target`` (the bracketed occupation). ``variant`` only records the pronoun: ``mm`` for a male
pronoun, ``ff`` for a female one, which makes the pair consistency "pro and anti sentence of an
item both correct". The other occupation is the first other listed occupation in the sentence.
Where a line brackets the pronoun twice (``[she] ... [her]``), the first is the one asked about.

What is language-specific is data in a :class:`BracketFormat`: the pronouns with their gender,
the articles an occupation may carry (both from the language's
:class:`~winoscope.languages.Language` with :meth:`BracketFormat.for_language`), the file names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ..errors import DatasetError
from ..languages import Language, get_language
from .annotation import bracket_mentions, strip_brackets
from .raw_files import RawFiles

_LINE = re.compile(r"^\s*(\d+)\s+(.*\S)\s*$")

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
        return self.file_pattern.format(condition=condition, type=typ, split=split)

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


def parse_list(text: str) -> list[str]:
    return [w.strip() for w in text.splitlines() if w.strip()]


def parse_line(
    line: str,
    *,
    fmt: BracketFormat,
    stereotypes: dict[str, str],
    pattern: re.Pattern[str],
    where: str,
    row: int,
) -> dict[str, object]:
    """One bracket line -> the record's fields (family names); DatasetError names the line."""
    m = _LINE.match(line)
    if not m:
        raise DatasetError("expected 'NUMBER sentence'", file=where, row=row)
    number, annotated = int(m.group(1)), m.group(2)
    try:
        mentions = bracket_mentions(annotated)
    except ValueError as exc:
        raise DatasetError(str(exc), file=where, row=row, field="sentence") from None
    pronouns = [x for x in mentions if x.text.strip().lower() in fmt.pronouns]
    entities = [x for x in mentions if x.text.strip().lower() not in fmt.pronouns]
    if not pronouns or len(entities) != 1:
        raise DatasetError(
            f"expected one bracketed occupation and a bracketed pronoun, found "
            f"{', '.join(repr(x.text) for x in mentions) or 'none'}",
            file=where,
            row=row,
            field="sentence",
        )
    gold, pron = entities[0], pronouns[0]
    target = fmt.strip_determiner(gold.text.strip()).lower()
    if target not in stereotypes:
        raise DatasetError(
            f"bracketed referent {gold.text!r} is not in the occupation lists",
            file=where,
            row=row,
            field="sentence",
        )
    sentence = strip_brackets(annotated)
    others = [
        o
        for o in pattern.finditer(sentence)
        if o.group(1).lower() != target and not (gold.start <= o.start() < gold.end)
    ]
    if not others:
        raise DatasetError(
            "no second occupation from the lists in the sentence",
            file=where,
            row=row,
            field="sentence",
        )
    other = others[0]
    genders = {fmt.pronouns[p.text.strip().lower()] for p in pronouns}
    if len(genders) != 1:
        raise DatasetError(
            "bracketed pronouns of both genders", file=where, row=row, field="sentence"
        )
    pg = genders.pop()
    return {
        "item_number": number,
        "target_occupation": target,
        "other_occupation": other.group(1).lower(),
        "target_stereotype": stereotypes[target],
        "other_stereotype": stereotypes[other.group(1).lower()],
        "pronoun_gender": pg,
        "variant": "mm" if pg == "male" else "ff",
        "coreference_role": "target",
        "score_group": "primary_balanced",
        "sentence": sentence,
        "sentence_annotated": annotated,
        "target_span": gold.text.strip(),
        "other_span": other.group(0),
        "pronoun_span": pron.text.strip(),
    }


def read_bracket_files(
    files: RawFiles, fmt: BracketFormat, *, split: str | None = None
) -> pd.DataFrame:
    """Every line of every split/type/condition file as one record (family field names).

    ``split`` keeps one split (its file name, ``dev``, or its family name, ``validation``).
    """
    stereotypes: dict[str, str] = {}
    for gender, name in fmt.list_files.items():
        for occ in parse_list(files.read_text(name)):
            stereotypes[occ.lower()] = gender
    pattern = fmt.occupation_pattern(list(stereotypes))
    want = None
    if split is not None:
        want = fmt.splits.get(split, split)
        if want not in fmt.splits.values():
            raise DatasetError(
                f"unknown split '{split}' (use validation/dev or test)", field="split"
            )
    records = []
    for raw_split, split_name in fmt.splits.items():
        if want is not None and split_name != want:
            continue
        for typ in fmt.types:
            for condition in fmt.conditions:
                name = fmt.file_name(condition, typ, raw_split)
                where = files.location(name)
                lines = [ln for ln in files.read_text(name).splitlines() if ln.strip()]
                for i, line in enumerate(lines, start=1):
                    rec = parse_line(
                        line, fmt=fmt, stereotypes=stereotypes, pattern=pattern, where=where, row=i
                    )
                    rec.update(split=split_name, type=typ, condition=condition, source_file=name)
                    records.append(rec)
    return pd.DataFrame.from_records(records)
