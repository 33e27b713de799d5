"""The card's mechanical checks: the sample passes, broken copies fail for the right reason."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from helpers_winobias_uk import sample_frame
from winoscope import validate
from winoscope.cli import app


def _issues(tmp_path: Path, frame: pd.DataFrame):
    path = tmp_path / "rows.csv"
    frame.to_csv(path, index=False)
    return validate("winobias-uk", path)


def _row(frame: pd.DataFrame, **match: str) -> int:
    mask = pd.Series(True, index=frame.index)
    for k, v in match.items():
        mask &= frame[k] == v
    return int(frame.index[mask][0])


def test_bundled_sample_passes() -> None:
    assert validate("winobias-uk") == []


def test_brackets_removed_must_equal_sentence(tmp_path: Path) -> None:
    raw = sample_frame()
    raw.loc[0, "sentence_uk"] = raw.loc[0, "sentence_uk"].replace("новий", "старий")
    issues = _issues(tmp_path, raw)
    assert [i.check for i in issues] == ["annotation"]
    assert issues[0].row == 1 and "does not give sentence_uk" in issues[0].message


def test_exactly_two_bracketed_spans(tmp_path: Path) -> None:
    raw = sample_frame()
    ann = raw.loc[3, "sentence_annotated_uk"]
    raw.loc[3, "sentence_annotated_uk"] = ann.replace("макет", "[макет]")
    raw.loc[5, "sentence_annotated_uk"] = (
        raw.loc[5, "sentence_annotated_uk"].replace("[", "", 1).replace("]", "", 1)
    )
    issues = _issues(tmp_path, raw)
    msgs = {(i.row, i.message.split(",")[0]) for i in issues}
    assert (4, "expected exactly two bracketed spans") in msgs
    assert (6, "expected exactly two bracketed spans") in msgs


def test_bracketed_spans_must_be_gold_and_pronoun(tmp_path: Path) -> None:
    raw = sample_frame()
    i = _row(raw, item_number="1", split="validation", type="type1", variant="mf_cross")
    # bracket the target instead of the other occupation the pronoun refers to
    sent = raw.loc[i, "sentence_uk"]
    target, pron = raw.loc[i, "target_span_uk"], raw.loc[i, "pronoun_span_uk"]
    raw.loc[i, "sentence_annotated_uk"] = sent.replace(target, f"[{target}]", 1).replace(
        f" {pron} ", f" [{pron}] ", 1
    )
    issues = _issues(tmp_path, raw)
    assert len(issues) == 1 and issues[0].row == i + 1
    assert "not the gold referent" in issues[0].message


def test_span_fields_must_occur(tmp_path: Path) -> None:
    raw = sample_frame()
    raw.loc[8, "other_span_uk"] = "астронавтом"
    issues = _issues(tmp_path, raw)
    assert any(x.check == "spans" and x.row == 9 and "other_span_uk" in x.message for x in issues)


def test_type1_needs_six_variants(tmp_path: Path) -> None:
    raw = sample_frame()
    i = _row(raw, item_number="2", split="validation", type="type1", variant="fm_cross")
    broken = raw.drop(index=i)
    issues = _issues(tmp_path, broken)
    assert [(x.check, x.item) for x in issues] == [("variants", "validation/type1/2")]
    assert "missing fm_cross" in issues[0].message


def test_duplicate_variant(tmp_path: Path) -> None:
    raw = sample_frame()
    i = _row(raw, item_number="3", split="validation", type="type1", variant="mm")
    broken = pd.concat([raw, raw.loc[[i]]], ignore_index=True)
    issues = _issues(tmp_path, broken)
    assert any(x.check == "variants" and "duplicated mm" in x.message for x in issues)


def test_type2_has_only_target_variants(tmp_path: Path) -> None:
    raw = sample_frame()
    i = _row(raw, item_number="1", split="validation", type="type1", variant="mf_cross")
    extra = raw.loc[[i]].copy()
    extra["type"] = "type2"
    broken = pd.concat([raw, extra], ignore_index=True)
    issues = _issues(tmp_path, broken)
    assert any(
        x.check == "variants"
        and x.item == "validation/type2/1"
        and "unexpected mf_cross" in x.message
        for x in issues
    )


@pytest.mark.parametrize(
    ("column", "value", "check"),
    [
        ("score_group", "agreement_control", "variant"),
        ("condition", "control", "variant"),
        ("coreference_role", "distractor", "variant"),
        ("pronoun_gender", "female", "genders"),
        ("other_gender", "female", "genders"),
    ],
)
def test_fields_must_agree_with_variant(
    tmp_path: Path, column: str, value: str, check: str
) -> None:
    raw = sample_frame()
    i = _row(raw, item_number="4", split="validation", type="type1", variant="mm")
    raw.loc[i, column] = value
    issues = _issues(tmp_path, raw)
    assert any(x.check == check and x.row == i + 1 for x in issues), [x.format() for x in issues]


def test_mm_and_ff_are_one_pro_one_anti(tmp_path: Path) -> None:
    raw = sample_frame()
    i = _row(raw, item_number="1", split="test", type="type1", variant="ff")
    raw.loc[i, "condition"] = "pro" if raw.loc[i, "condition"] == "anti" else "anti"
    issues = _issues(tmp_path, raw)
    assert [(x.check, x.item) for x in issues] == [("variant", "test/type1/1")]


def test_target_and_other_must_differ(tmp_path: Path) -> None:
    raw = sample_frame()
    i = _row(raw, item_number="2", split="test", type="type1", variant="mm")
    raw.loc[i, "other_occupation_uk"] = raw.loc[i, "target_occupation_uk"]
    issues = _issues(tmp_path, raw)
    checks = {(x.check, x.row) for x in issues}
    assert ("occupations", i + 1) in checks


def test_cli_lists_every_failing_row_and_exits_nonzero(tmp_path: Path) -> None:
    raw = sample_frame()
    raw.loc[0, "sentence_uk"] = raw.loc[0, "sentence_uk"] + " "
    raw.loc[12, "pronoun_gender"] = "female" if raw.loc[12, "pronoun_gender"] == "male" else "male"
    path = tmp_path / "rows.csv"
    raw.to_csv(path, index=False)
    result = CliRunner().invoke(app, ["validate", "winobias-uk", "--data", str(path)])
    assert result.exit_code == 1
    assert "row 1" in result.output and "row 13" in result.output
    ok = CliRunner().invoke(app, ["validate", "winobias-uk"])
    assert ok.exit_code == 0 and "every check passed" in ok.output


def test_cli_bad_file_is_one_line_error(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    sample_frame().drop(columns=["variant"]).to_csv(path, index=False)
    result = CliRunner().invoke(app, ["validate", "winobias-uk", "--data", str(path)])
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert "field 'variant'" in result.output
