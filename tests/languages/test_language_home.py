"""A language lives in its folder: its record names the default wordings the protocols use and
the corpus lexicons the lexicon reader reads, so a new language needs no code elsewhere."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from winoscope.errors import DatasetError, TaskError
from winoscope.languages import LANGUAGES, Language, LexiconSpec, Wording, get_language
from winoscope.occupations.lexicons import (
    generate_forms,
    lexicon_languages,
    lexicon_spec,
    load_lexicon,
    write_forms,
)
from winoscope.protocols import cloze, forced_choice


def test_bundled_defaults_are_their_languages_wordings() -> None:
    for code in ("en", "sv", "uk"):
        lang = get_language(code)
        assert lang.default_prompt in lang.wordings and lang.default_cloze in lang.wordings
        assert forced_choice.default_template(code).text == lang.default_prompt.text
        assert cloze.default_template(code).name == lang.default_cloze.name
    assert forced_choice.UK_DEFAULT is forced_choice.default_template("uk")
    assert cloze.SV_CLOZE is cloze.default_template(get_language("sv"))


def test_a_default_of_the_wrong_kind_or_a_missing_one_is_refused() -> None:
    choice = Wording("xx-default-v1", "choice", "{sentence} {pronoun} {option_a} {option_b}")
    with pytest.raises(ValueError, match="default_cloze 'xx-default-v1' is a choice wording"):
        Language(code="xx", name="X", default_cloze=choice)
    bare = Language(code="xx", name="X")
    with pytest.raises(TaskError, match="declares no default prompt"):
        forced_choice.default_template(bare)
    with pytest.raises(TaskError, match="declares no default cloze"):
        cloze.default_template(bare)


def test_lexicon_languages_are_those_that_declare_lexicons() -> None:
    assert lexicon_languages() == ("sv", "uk")
    assert lexicon_spec("uk").ships_names and not lexicon_spec("sv").ships_names
    with pytest.raises(DatasetError, match="no lexicon for language 'en'; choose one of sv, uk"):
        load_lexicon("en")


def _words(row: Mapping[str, str]) -> list[tuple[str, str]]:
    """A toy paradigm: the lemma and its plural in -er, or the listed forms."""
    if row["forms"]:
        return [(f, "listed") for f in row["forms"].split()]
    return [(row["lemma"], "sg"), (row["lemma"] + "er", "pl")]


def test_the_reader_reads_whatever_a_new_language_declares(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "lexicon"
    folder.mkdir()
    (folder / "collocates.tsv").write_text(
        "lemma\tgender\tset\tforms\nhun\tfemale\tsmall\thun hende\nmand\tmale\tmedium\t\n",
        encoding="utf-8",
    )
    (folder / "occupations.tsv").write_text(
        "occupation\tlemma\tforms\nbaker\tbager\t\n", encoding="utf-8"
    )
    (folder / "names.tsv").write_text("name\tgender\nOle\tmale\n", encoding="utf-8")
    (folder / "name_homographs.txt").write_text("", encoding="utf-8")
    spec = LexiconSpec(
        folder=folder,
        collocate_forms=_words,
        occupation_forms=lambda row: [(row["lemma"], "sg")],
        name_forms=lambda name, gender: [(name, "name"), (name + "s", "name.gen")],
        ships_names=True,
    )
    monkeypatch.setitem(LANGUAGES._items, "zz", Language(code="zz", name="Toy", lexicon=spec))
    assert "zz" in lexicon_languages()
    table, dropped = generate_forms("zz")
    assert dropped == []
    assert set(zip(table["key"], table["form"], table["tag"], strict=True)) == {
        ("hun", "hun", "listed"),
        ("hun", "hende", "listed"),
        ("mand", "mand", "sg"),
        ("mand", "mander", "pl"),
        ("Ole", "Ole", "name"),
        ("Ole", "Oles", "name.gen"),
        ("baker", "bager", "sg"),
    }
    forms_path, _ = write_forms("zz")
    assert "and names.tsv" in forms_path.read_text(encoding="utf-8").splitlines()[0]
    lexicon = load_lexicon("zz")
    assert lexicon.occupations == ("baker",) and lexicon.notes == ()
