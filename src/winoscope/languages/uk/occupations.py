"""The Ukrainian occupation lexicon (``languages/uk/occupations.csv``) as tasks read it: every
spelling of an occupation (both grammatical genders) and its stereotyped gender."""

from __future__ import annotations

from ..word_tables import occupation_forms
from ..word_tables import stereotype as _stereotype


def forms(canonical: str) -> tuple[str, ...]:
    """The occupation as given, then its masculine and feminine forms (when in the lexicon)."""
    return occupation_forms(canonical, "uk")


def stereotype(occupation: str) -> str | None:
    """The occupation's stereotyped gender by the lexicon; None when it is not listed."""
    return _stereotype(occupation, "uk")
