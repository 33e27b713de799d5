"""WinoPron-UK entity inflection and prompt integrity: each broken copy of the bundled sample
is caught by its own check and by no other, with row, field and reason."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from winoscope import validate
from winoscope.families.winopron.dataset import CONFIGS
from winoscope.families.winopron.dataset import UK as winopron_uk


def _frames() -> dict[str, pd.DataFrame]:
    return {
        c: pd.read_csv(winopron_uk.sample_path(c), dtype=str, keep_default_na=False)
        for c in CONFIGS
    }


def _issues(tmp_path: Path, frames: dict[str, pd.DataFrame]):
    d = tmp_path / "data"
    d.mkdir()
    for config, frame in frames.items():
        frame.to_csv(d / f"{config}.csv", index=False)
    return winopron_uk.validate(winopron_uk.load(d))


def _only(issues, check: str, row: int, field: str, reason: str) -> None:
    assert {i.check for i in issues} == {check}, [i.format() for i in issues]
    first = issues[0]
    assert first.row == row and first.field == field
    assert reason in first.message, first.message
    text = first.format()
    assert f"row {row}" in text and f"field '{field}'" in text


def _rename_option(frames: dict[str, pd.DataFrame], row_id: str, old: str, new: str) -> None:
    """Keep the prompts in step with a changed entity (so only the entity check can fire)."""
    fc = frames["forced_choice"]
    mine = fc["row_id"] == row_id
    fc.loc[mine, "prompt_uk"] = fc.loc[mine, "prompt_uk"].str.replace(
        f". {old}\n", f". {new}\n", regex=False
    )


def test_bundled_sample_passes_every_check() -> None:
    assert validate("winopron-uk") == []


def test_participant_of_the_wrong_gender(tmp_path: Path) -> None:
    frames = _frames()
    d = frames["double"]  # row 1: double-001-occupation-male, участник "клієнт"
    assert (d.loc[0, "pronoun_set"], d.loc[0, "participant_uk"]) == ("male", "клієнт")
    d.loc[0, "participant_uk"] = "клієнтка"
    _rename_option(frames, d.loc[0, "row_id"], "клієнт", "клієнтка")
    _only(
        _issues(tmp_path, frames),
        "entity_inflection",
        1,
        "participant_uk",
        "'клієнтка' is feminine singular, not masculine singular as pronoun_set male needs",
    )


def test_singular_occupation_in_a_plural_sentence(tmp_path: Path) -> None:
    frames = _frames()
    d = frames["double"]
    assert (d.loc[2, "pronoun_set"], d.loc[2, "occupation_uk"]) == ("plural", "техніки")
    d.loc[2, "occupation_uk"] = "технік"
    _rename_option(frames, d.loc[2, "row_id"], "техніки", "технік")
    _only(
        _issues(tmp_path, frames),
        "entity_inflection",
        3,
        "occupation_uk",
        "'технік' is masculine singular, not plural",
    )


def test_prompt_without_its_sentence(tmp_path: Path) -> None:
    frames = _frames()
    fc = frames["forced_choice"]
    fc.loc[0, "prompt_uk"] = fc.loc[0, "prompt_uk"].replace("уже завершив", "завершив")
    _only(
        _issues(tmp_path, frames),
        "prompt_integrity",
        1,
        "prompt_uk",
        "does not contain its sentence_uk",
    )


def test_prompt_with_a_and_b_swapped(tmp_path: Path) -> None:
    frames = _frames()
    fc = frames["forced_choice"]  # row 1: occupation_first, A. технік / B. клієнт
    assert "A. технік\nB. клієнт\n" in fc.loc[0, "prompt_uk"]
    fc.loc[0, "prompt_uk"] = fc.loc[0, "prompt_uk"].replace(
        "A. технік\nB. клієнт\n", "A. клієнт\nB. технік\n"
    )
    _only(_issues(tmp_path, frames), "prompt_integrity", 1, "prompt_uk", "A and B are swapped")


def test_prompt_naming_another_entity(tmp_path: Path) -> None:
    frames = _frames()
    fc = frames["forced_choice"]
    fc.loc[0, "prompt_uk"] = fc.loc[0, "prompt_uk"].replace("B. клієнт\n", "B. пацієнт\n")
    _only(
        _issues(tmp_path, frames),
        "prompt_integrity",
        1,
        "prompt_uk",
        "option B 'пацієнт' is not the participant 'клієнт'",
    )


def test_entity_readings_of_the_occupation_lexicon() -> None:
    """Every masculine and feminine form of the 40-entry occupation lexicon reads as its gender
    and each of its nominative plurals as plural only."""
    from winoscope.families.winobias.checks_uk import lexicon
    from winoscope.languages import get_language
    from winoscope.languages.uk.morphology import analyzer

    _readings = get_language("uk").noun_readings

    for masc, fem in lexicon().values():
        assert "male" in _readings(masc), masc
        assert "female" in _readings(fem), fem
        for form in (masc, fem):
            own = [p for p in analyzer().parse(form) if p.tag.POS == "NOUN"]
            lexeme = next(p for p in own if p.normal_form == form).lexeme
            for f in lexeme:
                if "plur" in f.tag and "nomn" in f.tag:
                    assert _readings(f.word) == {"plural"}, (form, f.word)


def test_a_prompt_whose_pronoun_set_is_not_its_sentences_is_a_finding(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The released forced_choice.csv carries pronoun_type and pronoun_set; the authors'
    evaluator checks them against the sentence's, and so does validate (row, field named)."""
    import csv
    import shutil

    from winoscope.families.winopron.dataset import UK
    from winoscope.tasks import get_task
    from winoscope.tasks.base import validate_dataset

    for config, path in UK.columns.sample_paths().items():
        shutil.copy(path, tmp_path / f"{config}.csv")
    fc = tmp_path / "forced_choice.csv"
    with fc.open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert {"pronoun_type", "pronoun_set"} <= set(rows[0])
    rows[4]["pronoun_type"] = "possessive" if rows[4]["pronoun_type"] != "possessive" else "oblique"
    with fc.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    task = get_task("winopron-uk")
    issues = validate_dataset(task, task.data.load(tmp_path))
    found = [i for i in issues if i.field == "pronoun_type"]
    assert len(found) == 1 and found[0].row == 5 and found[0].check == "link"
