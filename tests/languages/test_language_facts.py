"""The Language records hold the same pronoun facts as the dataset modules' own tables, so a
module can read them from the record (``get_language(code).pronoun_forms(...)``)."""

from __future__ import annotations

import importlib

import pytest

from winoscope.languages import get_language

# WinoPron-UK's pronoun_type -> the cases it covers (oblique: every case but the nominative)
UK_TYPES = {
    "nominative": ("nom",),
    "oblique": ("gen", "dat", "acc", "ins", "loc"),
    "possessive": ("poss",),
}


def _table(module: str, name: str) -> object:
    """The module's own table; a missing one fails (a moved table must move here too, and a
    table removed in favour of the Language takes its test with it)."""
    try:
        mod = importlib.import_module(module)
    except ImportError:
        pytest.fail(f"no module {module}")
    if not hasattr(mod, name):
        pytest.fail(f"{module} has no {name}")
    return getattr(mod, name)


def test_winopron_uk_pronoun_forms() -> None:
    forms = _table("winoscope.families.winopron.dataset", "UK_PRONOUN_FORMS")
    uk = get_language("uk")
    assert isinstance(forms, dict)
    for ptype, by_set in forms.items():
        for pset, words in by_set.items():
            assert uk.pronoun_forms(pset, UK_TYPES[ptype]) == words, (ptype, pset)


def test_english_bracket_pronouns() -> None:
    table = _table("winoscope.families.winobias.bracket_format", "ENGLISH_PRONOUNS")
    mine = get_language("en").pronoun_table(("male", "female"))
    assert mine == table
    assert list(mine) == list(table)  # the same order (it builds a regex alternation)


def test_winopron_en_pronouns() -> None:
    table = _table("winoscope.families.winopron.sentence_templates", "PRONOUNS")
    en = get_language("en")
    cases = {"nominative": "nom", "accusative": "acc", "possessive": "poss"}
    assert isinstance(table, dict)
    for ptype, by_set in table.items():
        for pset, word in by_set.items():
            assert word in en.pronoun_forms(pset, [cases[ptype]]), (ptype, pset)
            assert en.pronoun_gender(word) == pset


def test_swewinogender_pronoun_forms() -> None:
    forms = _table("winoscope.families.swewinogender.dataset", "PRONOUN_FORMS")
    genders = _table("winoscope.families.swewinogender.dataset", "PRONOUN_GENDER")
    sv = get_language("sv")
    assert isinstance(forms, dict) and isinstance(genders, dict)
    for nom, words in forms.items():
        assert sv.pronoun_forms(genders[nom]) == set(words), nom
        assert all(sv.pronoun_gender(w) == genders[nom] for w in words)
