"""Ukrainian corpus lexicons (``lexicon/``): every row's forms from pymorphy3's lexeme.

A collocate row with ``forms`` (the pronouns) lists them as they are; every other row is
inflected by :func:`.morphology.ukrainian_forms`. Ukrainian ships its names (``names.tsv``,
singular forms only) as the large set.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..base import LexiconSpec


def ukrainian_forms(
    lemma: str, gender: str, *, name: bool = False, singular_only: bool = False
) -> list[tuple[str, str]]:
    """:func:`.morphology.ukrainian_forms`, imported on the first call: the morphology module
    reads this language's registered record, which is made after this module."""
    from .morphology import ukrainian_forms as forms

    return forms(lemma, gender, name=name, singular_only=singular_only)


def collocate_forms(row: Mapping[str, str]) -> list[tuple[str, str]]:
    """The (form, tag) pairs of one ``collocates.tsv`` row."""
    if row["forms"]:
        return [(f, "pronoun") for f in row["forms"].split()]
    return ukrainian_forms(row["lemma"], row["gender"])


def occupation_forms(row: Mapping[str, str]) -> list[tuple[str, str]]:
    """The (form, tag) pairs of one ``occupations.tsv`` row (the lemma in its gender)."""
    return ukrainian_forms(row["lemma"], row["gender"])


def name_forms(name: str, gender: str) -> list[tuple[str, str]]:
    """A first name's singular forms."""
    return ukrainian_forms(name, gender, name=True, singular_only=True)


LEXICON = LexiconSpec(
    folder=Path(__file__).parent / "lexicon",
    collocate_forms=collocate_forms,
    occupation_forms=occupation_forms,
    name_forms=name_forms,
    ships_names=True,
)
