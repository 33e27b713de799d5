"""Languages as data: the registry, each bundled language's pronouns and analyser, and the
answer normaliser reading its words from the Language record."""

from __future__ import annotations

import subprocess
import sys

import pytest

from winoscope.languages import (
    LANGUAGES,
    Language,
    UnknownLanguageError,
    get_language,
    register_language,
)
from winoscope.protocols.answers import letter_of, normalise
from winoscope.records import Option

# a made-up Danish record: its words exist nowhere else in the code
DANISH = Language(
    code="da-test",
    name="Danish (test)",
    answer_words=("svar", "korrekt svar"),
    or_words=("eller",),
    and_words=("og",),
    pronouns={
        ("male", "nom"): ("han",),
        ("male", "acc"): ("ham",),
        ("male", "poss"): ("hans",),
        ("female", "nom"): ("hun",),
        ("female", "acc"): ("hende",),
        ("female", "poss"): ("hendes",),
    },
)
DA_OPTS = (
    Option("A", "lægen", "target", ("lægen",)),
    Option("B", "sygeplejersken", "distractor", ("sygeplejersken",)),
)
UK_OPTS = (
    Option("A", "лікар", "target", ("лікар", "лікарка")),
    Option("B", "секретарка", "distractor", ("секретар", "секретарка")),
)


# registry ------------------------------------------------------------------------------------
def test_bundled_languages_are_registered() -> None:
    assert {"uk", "en", "sv"} <= set(LANGUAGES)
    uk = get_language("uk")
    assert (uk.code, uk.name) == ("uk", "Ukrainian")
    assert get_language("en").name == "English"
    assert get_language("sv").name == "Swedish"
    assert get_language(uk) is uk  # a Language passes through


def test_unknown_code_names_the_known_ones() -> None:
    with pytest.raises(UnknownLanguageError) as err:
        get_language("xx")
    msg = str(err.value)
    assert "unknown language 'xx'" in msg
    assert "en, sv, uk" in msg.replace("da-test, ", "")
    assert isinstance(err.value, KeyError) and isinstance(err.value, ValueError)


def test_register_a_language_and_refuse_a_silent_replacement() -> None:
    lang = Language(code="zz-test", name="Test")
    try:
        assert register_language(lang) is lang
        assert get_language("zz-test") is lang
        register_language(lang)  # the same record again is fine
        with pytest.raises(ValueError, match="already registered"):
            register_language(Language(code="zz-test", name="Other"))
        other = Language(code="zz-test", name="Other")
        register_language(other, replace=True)
        assert get_language("zz-test") is other
    finally:
        LANGUAGES.remove("zz-test")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"code": ""}, "needs a code"),
        ({"pronouns": {("masc", "nom"): ("x",)}}, "pronoun gender 'masc'"),
        ({"pronouns": {("male", "nominative"): ("x",)}}, "pronoun case 'nominative'"),
        ({"pronouns": {("male", "nom"): "he"}}, "not the string 'he'"),
        ({"pronouns": {("male", "nom"): ()}}, "has no forms"),
        ({"answer_words": "svar"}, "not the string 'svar'"),
        ({"letter_lookalikes": {"а": "A"}}, "one upper-case letter"),
        ({"letter_lookalikes": {"Б": "b"}}, "not to an option letter"),
        ({"ambiguous_letters": {"В": "B"}}, "not a letter look-alike"),
    ],
)
def test_a_malformed_language_is_refused(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {"code": "bad", "name": "Bad", **kwargs}
    with pytest.raises(ValueError, match=message):
        Language(**args)  # type: ignore[arg-type]


def test_a_record_keeps_its_own_copies() -> None:
    pronouns = {("male", "nom"): ["han"]}
    lang = Language(code="cp", name="Copy", answer_words=["svar"], pronouns=pronouns)  # type: ignore[arg-type]
    pronouns["female", "nom"] = ["hun"]
    assert lang.answer_words == ("svar",)
    assert dict(lang.pronouns) == {("male", "nom"): ("han",)}
    assert lang.pronoun_gender("hun") is None


def test_the_contract_fields() -> None:
    uk = get_language("uk")
    assert uk.or_words == ("або", "чи", "or")
    assert dict(uk.letter_lookalikes) == {"А": "A", "Б": "B", "В": "C", "С": "C"}
    assert "відповідь" in uk.answer_words and "answer" in uk.answer_words
    assert dict(get_language("en").letter_lookalikes) == {}
    assert dict(get_language("sv").letter_lookalikes) == {}
    assert get_language("uk").pronouns["male", "nom"] == ("він",)
    assert get_language("en").pronouns["female", "poss"] == ("her", "hers")
    assert get_language("sv").pronouns["neutral", "acc"] == ("henom", "hen")


# pronouns ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("code", "word", "gender"),
    [
        ("uk", "він", "male"),
        ("uk", "Його", "male"),  # genitive/accusative/possessive, any capitalisation
        ("uk", "ньому", "male"),
        ("uk", "нім", "male"),
        ("uk", "вона", "female"),
        ("uk", "її", "female"),
        ("uk", "нею", "female"),
        ("uk", "вони", "plural"),
        ("uk", "їхньою", "plural"),
        ("uk", "ним", None),  # male instrumental and plural dative: the table cannot tell
        ("uk", "лікар", None),
        ("en", "he", "male"),
        ("en", "himself", "male"),
        ("en", "her", "female"),  # accusative and possessive, one gender
        ("en", "hers", "female"),
        ("en", "They", "neutral"),
        ("en", "themself", "neutral"),
        ("en", "it", None),
        ("sv", "han", "male"),
        ("sv", "honom", "male"),
        ("sv", "hans", "male"),
        ("sv", "hon", "female"),
        ("sv", "henne", "female"),
        ("sv", "hennes", "female"),
        ("sv", "hen", "neutral"),
        ("sv", "henom", "neutral"),
        ("sv", "hens", "neutral"),
        ("sv", "den", None),
    ],
)
def test_pronoun_gender(code: str, word: str, gender: str | None) -> None:
    assert get_language(code).pronoun_gender(word) == gender


def test_pronoun_forms_by_case() -> None:
    uk = get_language("uk")
    assert uk.pronoun_forms("male") == {"він", "його", "нього", "йому", "ним", "ньому", "нім"}
    assert uk.pronoun_forms("female") == {"вона", "її", "неї", "їй", "нею", "ній"}
    # oblique = every case but nominative and possessive (the WinoPron-UK pronoun_type)
    oblique = ("gen", "dat", "acc", "ins", "loc")
    assert uk.pronoun_forms("plural", oblique) == {"їх", "них", "їм", "ним", "ними"}
    assert uk.pronoun_genders("ним") == {"male", "plural"}
    assert get_language("en").pronoun_forms("male") == {"he", "him", "his", "himself"}
    assert get_language("en").pronoun_forms("female", ["acc"]) == {"her"}
    assert get_language("sv").pronoun_forms("neutral") == {"hen", "henom", "hens"}


# analyser ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "gender"),
    [
        ("лікарка", "female"),
        ("лікар", "male"),
        ("лікарці", "female"),  # dative
        ("секретарем", "male"),  # instrumental
        ("молода вчителька", "female"),  # the head noun decides
        ("вона", "female"),  # a pronoun, from the table
        ("його", "male"),
    ],
)
def test_ukrainian_phrase_gender(text: str, gender: str) -> None:
    assert get_language("uk").phrase_gender(text) == gender


def test_ukrainian_lemmas_and_readings() -> None:
    uk = get_language("uk")
    assert {"лікарка"} <= uk.phrase_lemmas("лікарці")
    assert "лікар" in uk.phrase_lemmas("Лікаря")
    assert "лікарка" in uk.noun_lemmas("лікарки")
    assert uk.noun_readings("лікарі") == {"plural"}
    assert uk.noun_readings("лікарка") == {"female"}
    assert uk.words("Лікар найняв секретарку.") == ["Лікар", "найняв", "секретарку"]


def test_without_an_analyser() -> None:
    en = get_language("en")
    assert en.phrase_lemmas("The Doctor’s nurse") == {"the", "doctor's", "nurse"}
    assert en.phrase_gender("the nurse") is None
    assert en.noun_lemmas("Nurse") == {"nurse"}
    assert en.noun_readings("nurse") == set()


def test_importing_the_package_does_not_load_pymorphy3() -> None:
    probe = (
        "import sys; from winoscope.languages import get_language; get_language('uk'); "
        "get_language('en').phrase_lemmas('a nurse'); "
        "print(sorted({'pymorphy3', 'pandas', 'numpy'} & set(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


# the normaliser reads the record ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("answer", "role"),
    [
        ("Svar: B", "distractor"),
        ("korrekt svar: A", "target"),
        ("**Svar:** a)", "target"),
        ("A eller B", "invalid"),  # two letters joined by the Danish "or"
        ("A og B", "invalid"),
        ("A / B", "invalid"),
        ("sygeplejersken", "distractor"),  # the wording, without an analyser
        ("B. lægen", "invalid"),  # the letter B, then words naming option A
        ("Answer: B", "invalid"),  # not a Danish answer word, no option named
        ("Відповідь: B", "invalid"),
        ("А", "invalid"),  # Cyrillic А is no letter for Danish
    ],
)
def test_normaliser_takes_its_words_from_the_language(answer: str, role: str) -> None:
    assert normalise(answer, DA_OPTS, DANISH) == role


def test_normaliser_default_is_ukrainian() -> None:
    for answer, role in [
        ("Відповідь: B", "distractor"),
        ("А", "target"),
        ("В.", "invalid"),
        ("Б", "distractor"),
        ("A або B", "invalid"),
        ("лікарці", "target"),
        ("Svar: B", "invalid"),
    ]:
        assert normalise(answer, UK_OPTS) == role, answer
        assert normalise(answer, UK_OPTS, "uk") == role, answer
        assert normalise(answer, UK_OPTS, get_language("uk")) == role, answer


def test_cyrillic_v_with_three_options() -> None:
    labels = ("A", "B", "C")
    assert letter_of("В.", labels) == ("C", True)
    assert letter_of("В.", ("A", "B")) == ("ambiguous", True)
    assert letter_of("В.", ("A", "C")) == ("C", True)
    assert letter_of("В.", labels, "en") is None  # English: no look-alikes


def test_a_language_with_its_own_lookalikes() -> None:
    greek = Language(
        code="el-test",
        name="Greek (test)",
        answer_words=("απάντηση",),
        letter_lookalikes={"Α": "A", "Β": "B"},
    )
    assert letter_of("Απάντηση: Β", ("A", "B"), greek) == ("B", True)
    assert normalise("Α. ή Β", DA_OPTS, greek) == "target"  # "ή" is no or-word of this record
    assert normalise("Α. / Β", DA_OPTS, greek) == "invalid"
    assert normalise("Α λέξη", DA_OPTS, greek) == "invalid"  # a weak look-alike is no letter


class _SuffixAnalyser:
    """A toy analyser with the three required methods only: strips the -n of a Danish definite noun (lægen -> læge)."""

    def words(self, text: str) -> list[str]:
        return text.split()

    def phrase_lemmas(self, text: str) -> set[str]:
        return {w.lower().removesuffix("n") for w in self.words(text)} | {
            w.lower() for w in self.words(text)
        }

    def phrase_gender(self, text: str) -> str | None:
        return None


def test_a_third_party_analyser_is_made_once_and_optional_methods_fall_back() -> None:
    made: list[int] = []

    def factory() -> _SuffixAnalyser:
        made.append(1)
        return _SuffixAnalyser()

    lang = Language(code="da-an", name="Danish (analyser)", analyser=factory)
    assert made == []  # nothing is made before it is needed
    assert "læge" in lang.phrase_lemmas("lægen")
    assert lang.words("to ord") == ["to", "ord"]
    assert lang.noun_lemmas("Lægen") == {"lægen"}  # no noun_lemmas: the casefolded word
    assert lang.noun_readings("lægen") == set()
    assert lang.nominative("lægen") == "lægen"
    assert made == [1]
    # the normaliser reads a wording through the record's analyser: "læge" names "lægen"
    assert normalise("en læge", DA_OPTS, lang) == "target"
    assert normalise("en læge", DA_OPTS, DANISH) == "invalid"  # no analyser: no lemma


def test_ukrainian_nominative() -> None:
    uk = get_language("uk")
    assert uk.nominative("лікарці") == "лікарка"
    assert uk.nominative("лікареві") == "лікар"
    assert get_language("en").nominative("the doctor's") == "the doctor's"


def test_pickling_keeps_registered_records_and_drops_a_made_analyser() -> None:
    import pickle

    uk = get_language("uk")
    uk.phrase_gender("лікар")  # the analyser is made and memoised
    assert pickle.loads(pickle.dumps(uk)) is uk
    copy = pickle.loads(pickle.dumps(DANISH))
    assert copy is not DANISH and copy.answer_words == DANISH.answer_words
    assert normalise("Svar: B", DA_OPTS, copy) == "distractor"


def test_the_documented_danish_declaration() -> None:
    """The example of docs/adding-a-dataset.md, run as written (then unregistered; a Danish
    record registered elsewhere in the session is put back)."""
    before = LANGUAGES.remove("da")
    try:
        danish = register_language(
            Language(
                code="da",
                name="Danish",
                answer_words=("svar", "korrekt svar", "answer"),  # "Svar: B"
                or_words=("eller", "or"),  # "A eller B" names two letters: invalid
                and_words=("og", "and"),
                letter_lookalikes={},  # a Latin alphabet: no look-alikes
                pronouns={
                    ("male", "nom"): ("han",),
                    ("male", "acc"): ("ham",),
                    ("male", "poss"): ("hans",),
                    ("female", "nom"): ("hun",),
                    ("female", "acc"): ("hende",),
                    ("female", "poss"): ("hendes",),
                    ("neutral", "nom"): ("hen",),
                    ("neutral", "poss"): ("hens",),
                },
                determiners=("en", "et", "den", "det"),
            )
        )
        assert get_language("da") is danish
        assert danish.pronoun_gender("hende") == "female"
        assert danish.pronoun_table(("male", "female")) == {
            "han": "male",
            "ham": "male",
            "hans": "male",
            "hun": "female",
            "hende": "female",
            "hendes": "female",
        }
        assert normalise("Svar: B", DA_OPTS, "da") == "distractor"
        assert normalise("A eller B", DA_OPTS, "da") == "invalid"
    finally:
        LANGUAGES.remove("da")
        if before is not None:
            LANGUAGES.add("da", before)


def test_registering_the_same_record_twice_is_harmless() -> None:
    import pytest

    from winoscope.languages import Language, get_language, register_language
    from winoscope.languages.base import LANGUAGES

    facts = dict(code="xq", name="Test", answer_words=("svar",), or_words=("eller",))
    first = register_language(Language(**facts))  # type: ignore[arg-type]
    try:
        assert register_language(first) is first
        assert register_language(Language(**facts)) is first  # an equal record: kept  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="already registered"):
            register_language(Language(**{**facts, "name": "Other"}))  # type: ignore[arg-type]
        assert get_language("xq") is first
    finally:
        LANGUAGES.remove("xq")
