"""Swedish corpus lexicons (``lexicon/``): every row's forms by the reviewed paradigms.

A collocate row with ``forms`` lists them: a pronoun's forms as they are, a noun's as fixed
forms that still get their genitives; a row without lists its paradigm. Swedish ships no names:
the large set needs a names table such as Statistics Sweden's.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..base import LexiconSpec
from .morphology import swedish_name_forms, swedish_noun_forms


def collocate_forms(row: Mapping[str, str]) -> list[tuple[str, str]]:
    """The (form, tag) pairs of one ``collocates.tsv`` row."""
    if row["forms"]:
        if row["paradigm"] != "pronoun":
            return swedish_noun_forms(row["lemma"], "fixed", row["forms"].split())
        return [(f, "pronoun") for f in row["forms"].split()]
    return swedish_noun_forms(row["lemma"], row["paradigm"])


def occupation_forms(row: Mapping[str, str]) -> list[tuple[str, str]]:
    """The (form, tag) pairs of one ``occupations.tsv`` row (its paradigm and extra forms)."""
    return swedish_noun_forms(row["lemma"], row["paradigm"], row.get("forms", "").split())


def name_forms(name: str, gender: str) -> list[tuple[str, str]]:
    """A first name and its genitive (the gender does not change them)."""
    return swedish_name_forms(name)


LEXICON = LexiconSpec(
    folder=Path(__file__).parent / "lexicon",
    collocate_forms=collocate_forms,
    occupation_forms=occupation_forms,
    name_forms=name_forms,
)
