"""WinoBias-UK checks the card lists (pronoun gender, occupation forms, punctuation, sentence
length): each broken copy of the bundled sample is caught by its own check and by no other."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from helpers_winobias_uk import sample_frame
from winoscope import validate
from winoscope.families.winobias.checks_uk import LENGTH_TOLERANCE, lexicon


def _issues(tmp_path: Path, frame: pd.DataFrame):
    path = tmp_path / "rows.csv"
    frame.to_csv(path, index=False)
    return validate("winobias-uk", path)


def _edit(raw: pd.DataFrame, row: int, old: str, new: str, *fields: str) -> pd.DataFrame:
    for f in ("sentence_uk", "sentence_annotated_uk", *fields):
        assert old in raw.loc[row, f], (f, raw.loc[row, f])
        raw.loc[row, f] = raw.loc[row, f].replace(old, new)
    return raw


def _only(issues, check: str, row: int | None, field: str, reason: str) -> None:
    assert {i.check for i in issues} == {check}, [i.format() for i in issues]
    first = issues[0]
    assert first.row == row and first.field == field
    assert reason in first.message, first.message
    text = first.format()
    assert f"row {row}" in text and f"field '{field}'" in text and reason in text


def test_the_lexicon_has_40_entries() -> None:
    lex = lexicon()
    assert len(lex) == 40 and lex["лікар"] == ("лікар", "лікарка")


def test_bundled_sample_passes_every_check() -> None:
    assert validate("winobias-uk") == []


def test_pronoun_of_the_wrong_gender(tmp_path: Path) -> None:
    raw = sample_frame()  # row 1: mm, pronoun він
    raw = _edit(raw, 0, "він", "вона", "pronoun_span_uk")
    _only(
        _issues(tmp_path, raw),
        "pronoun_gender",
        1,
        "pronoun_span_uk",
        "'вона' is a female pronoun but pronoun_gender is male",
    )


def test_pronoun_that_is_no_pronoun(tmp_path: Path) -> None:
    raw = sample_frame()
    raw = _edit(raw, 0, "він", "воно", "pronoun_span_uk")
    _only(_issues(tmp_path, raw), "pronoun_gender", 1, "pronoun_span_uk", "not a third-person")


def test_occupation_span_of_the_wrong_gender(tmp_path: Path) -> None:
    raw = sample_frame()  # row 1: mm, other occupation дизайнер (male)
    raw = _edit(raw, 0, "дизайнером", "дизайнеркою", "other_span_uk")
    _only(
        _issues(tmp_path, raw),
        "occupation_forms",
        1,
        "other_span_uk",
        "'дизайнеркою' is grammatically female but other_gender is male",
    )


def test_occupation_span_that_is_another_occupation(tmp_path: Path) -> None:
    raw = sample_frame()
    raw = _edit(raw, 0, "Розробник", "Програміст", "target_span_uk")
    _only(
        _issues(tmp_path, raw),
        "occupation_forms",
        1,
        "target_span_uk",
        "'Програміст' is not a form of the lexicon's 'розробник'/'розробниця'",
    )


def test_canonical_label_outside_the_lexicon(tmp_path: Path) -> None:
    raw = sample_frame()
    item = (raw["item_number"] == "1") & (raw["split"] == "validation") & (raw["type"] == "type1")
    raw.loc[item, "target_occupation_uk"] = "програміст"
    issues = _issues(tmp_path, raw)
    _only(issues, "occupation_forms", 1, "target_occupation_uk", "not a canonical label")
    assert len(issues) == int(item.sum())


@pytest.mark.parametrize(
    ("old", "new", "reason"),
    [
        ("новий макет.", "новий макет", "no terminal punctuation"),
        ("з дизайнером", "з  дизайнером", "doubled space"),
        ("новий макет.", "«новий макет.", "'«' is never closed"),
        ("новий макет.", "новий макет).", "')' closes nothing"),
        ("дизайнером,", "дизайнером ,", "space before ','"),
    ],
)
def test_punctuation(tmp_path: Path, old: str, new: str, reason: str) -> None:
    raw = _edit(sample_frame(), 0, old, new)
    issues = _issues(tmp_path, raw)
    _only(issues, "punctuation", 1, "sentence_uk", reason)


def test_sentence_length_against_the_mm_variant(tmp_path: Path) -> None:
    raw = sample_frame()  # row 2: the ff variant of item 1 (10 words, as its mm variant)
    longer = "новий макет учора ввечері після довгої виснажливої наради."
    raw = _edit(raw, 1, "новий макет.", longer)
    issues = _issues(tmp_path, raw)
    _only(issues, "sentence_length", 2, "sentence_uk", "16 words against 10 in the mm variant")
    assert f"{LENGTH_TOLERANCE:.0%}" in issues[0].message
    # within the tolerance: three words more on ten is not flagged
    ok = _edit(sample_frame(), 1, "новий макет.", "новий макет учора ввечері знову.")
    assert _issues(tmp_path, ok) == []


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("a „b“ c", None),
        ("a “b” c", None),
        ("a «b» (c)", None),
        ('"a" b', None),
        ("a «b", "'«' is never closed"),
        ("a b»", "'»' closes nothing"),
        ("(a «b)»", "')' closes nothing"),
        ("a „b” c", "'”' closes nothing"),
        ('"a b', 'an odd number of straight quotes (")'),
    ],
)
def test_quote_and_bracket_pairs(text: str, problem: str | None) -> None:
    from winoscope.families.winobias.checks_uk import _unbalanced

    assert _unbalanced(text) == problem


def test_every_singular_case_form_of_the_lexicon_reads_back() -> None:
    """The occupation-forms check on every singular case form (vocative aside) of all 80
    lexicon forms: each reads back to its own form and never to the other gender's."""
    from winoscope.languages import get_language
    from winoscope.languages.uk.morphology import analyzer

    _noun_lemmas = get_language("uk").noun_lemmas

    checked = 0
    for masc, fem in lexicon().values():
        for form, other in ((masc, fem), (fem, masc)):
            own = [p for p in analyzer().parse(form) if p.tag.POS == "NOUN"]
            own = [p for p in own if p.normal_form == form]
            assert own, form
            for f in own[0].lexeme:
                if "plur" in f.tag or "voct" in f.tag:
                    continue
                lemmas = _noun_lemmas(f.word)
                assert form in lemmas and other not in lemmas, (form, f.word, lemmas)
                checked += 1
    assert checked > 400
