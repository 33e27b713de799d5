"""The shipped Ukrainian occupation lexicon (``data/occupations_uk.csv``) as the tasks read it:
every spelling of an occupation (both grammatical genders) and its stereotyped gender."""

from __future__ import annotations

from functools import cache

from ..datasets.lexicon import occupation_lexicon


@cache
def occupation_table() -> dict[str, dict[str, str]]:
    """The lexicon's rows keyed by either gender's form."""
    table: dict[str, dict[str, str]] = {}
    for row in occupation_lexicon("uk"):
        table[row["occupation_uk"]] = row
        table[row["feminine_uk"]] = row
    return table


def forms(canonical: str) -> tuple[str, ...]:
    """The occupation as given, then its masculine and feminine forms (when in the lexicon)."""
    entry = occupation_table().get(canonical.lower())
    if entry is None:
        return (canonical,)
    return (canonical, entry["occupation_uk"], entry["feminine_uk"])


def stereotype(occupation: str) -> str | None:
    """The occupation's stereotyped gender by the lexicon; None when it is not listed."""
    entry = occupation_table().get(occupation.lower())
    return entry["stereotype"] if entry else None
