"""Loading BBQ-UK and English BBQ, and every evaluator check as a finding (file, row, field)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from shared_paths import SHARED_DATA, in_ci
from winoscope.datasets.releases import identify, releases_of
from winoscope.datasets.sources import SourceInfo
from winoscope.families.bbq.dataset import EN, UK, check_release_counts
from winoscope.families.bbq.english import BBQ_COMMIT, derive
from winoscope.tasks import get_task

SAMPLE = UK.sample_path()
RAW = pd.read_csv(SAMPLE, dtype=str, keep_default_na=False)


def findings(raw: pd.DataFrame, tmp_path: Path, name: str = "bbq.csv") -> list:
    path = tmp_path / name
    raw.to_csv(path, index=False)
    ds = UK.load(path)
    return UK.validate(ds)


def test_the_sample_loads_clean_with_its_groups_and_clusters() -> None:
    ds = UK.load()
    t = ds.table
    assert ds.is_sample and len(t) == 12 and t["pair_id"].nunique() == 6
    assert UK.validate(ds) == []
    assert sorted(t["report_category"].unique()) == [
        "Age",
        "Gender_identity",
        "Gender_identity (names)",
    ]
    assert t["cluster"].nunique() == 4  # Age/1, Age/2, Gender_identity/3, Gender_identity/30
    assert t["target_loc"].isna().sum() == 2 and (~t["bias_score_eligible"]).sum() == 2


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet"])
def test_jsonl_and_parquet_copies_load_the_same_table(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"bbq{suffix}"
    if suffix == ".jsonl":
        RAW.to_json(path, orient="records", lines=True, force_ascii=False)
    else:
        RAW.to_parquet(path)
    ds = UK.load(path)
    assert UK.validate(ds) == []
    pd.testing.assert_frame_equal(ds.table, UK.load().table)


def test_each_check_names_file_row_and_field(tmp_path: Path) -> None:
    bad = RAW.copy()
    bad.loc[0, "label"] = "0"  # ambiguous row whose label is not the unknown answer (2)
    bad.loc[1, "label"] = "2"  # disambiguated row whose label is the unknown answer
    bad.loc[2, "source_revision"] = "0000"
    bad.loc[4, "target_loc"] = "0"  # eligible row whose target is the unknown answer (0)
    bad.loc[6, "target_loc"] = ""  # eligible row without a target
    bad.loc[7, "question_uk"] = "Інше питання?"  # the pair's rows disagree on the question
    bad.loc[8, "unknown_answer_index"] = "3"
    bad = bad.drop(index=11)  # Gender_identity-2 loses its disambiguated row
    found = {(i.check, i.row, i.field, i.blocking) for i in findings(bad, tmp_path)}
    where = {i.file for i in findings(bad, tmp_path)}
    assert where == {str(tmp_path / "bbq.csv")}
    assert found == {
        ("label", 1, "label", False),
        ("label", 2, "label", False),
        ("source_revision", 3, "source_revision", False),
        ("target_loc", 5, "target_loc", True),
        ("target_loc", 7, "target_loc", True),
        ("pair", 8, "question_uk", False),
        ("index", 9, "unknown_answer_index", True),
        ("pair", 10, "unknown_answer_index", False),  # the later row names the earlier
        ("pair", 11, "context_condition", False),
    }


def test_a_row_left_out_at_loading_keeps_file_row_numbers(tmp_path: Path) -> None:
    bad = RAW.copy()
    bad.loc[0, "context_condition"] = "vague"  # left out by the schema: a blocking finding
    bad.loc[3, "label"] = "2"  # disambiguated row 4 of the file
    got = {(i.check, i.row, i.field) for i in findings(bad, tmp_path)}
    assert ("enum", 1, "context_condition") in got
    assert ("label", 4, "label") in got
    assert ("pair", 2, "context_condition") in got  # Age-1 is alone now


def test_a_duplicated_item_and_an_unreadable_target_block(tmp_path: Path) -> None:
    bad = RAW.copy()
    bad.loc[3, "item_id"] = "Age-2"
    bad.loc[5, "target_loc"] = "1.5"
    got = [i for i in findings(bad, tmp_path) if i.blocking]
    assert {(i.check, i.row, i.field) for i in got} >= {
        ("duplicate", 4, "item_id"),
        ("type", 6, "target_loc"),
    }


@pytest.mark.parametrize("value", ["yes", "", "2"])
def test_a_flag_that_is_not_true_or_false_is_a_finding_not_a_load_error(
    tmp_path: Path, value: str
) -> None:
    bad = RAW.copy()
    bad.loc[0, "bias_score_eligible"] = value
    got = [i for i in findings(bad, tmp_path) if i.blocking]
    check = "required" if value == "" else "type"
    assert [(i.check, i.row, i.field) for i in got] == [(check, 1, "bias_score_eligible")]
    if value:
        assert got[0].message == f"expected true/false, got '{value}'"


def test_the_release_is_registered_as_the_evaluators_pin_it() -> None:
    (release,) = releases_of("bbq-uk")
    assert release.hub_id == "FairForget/BBQ-UK"
    assert release.revision == "4d19497de776cc5be55e9b3ad9481ed0836632b0"
    f = release.file("data/test.csv")
    assert f is not None and f.rows == 58492
    assert f.sha256 == "de97272d7b1368d8fc9d347d71a004a0781d9336d8670ede5c6ed0d80e819c0f"
    assert identify(f.sha256) == (release, f)
    ds = UK.from_frame(RAW, source=SourceInfo(kind="file", location="x", sha256=f.sha256))
    (issue,) = check_release_counts(ds)
    assert "58492 rows, 29246 pairs and 58476" in issue.message
    assert "12, 6, 10" in issue.message
    assert [i.check for i in UK.validate(ds)] == ["release"]  # a table that says it is the release


def test_the_english_sample_is_the_same_questions() -> None:
    en, uk = EN.load(), UK.load()
    assert en.is_sample and EN.validate(en) == []
    cols = ["item_id", "pair_id", "label", "target_loc", "unknown_answer_index"]
    cols += ["bias_score_eligible", "report_category", "question_index"]
    pd.testing.assert_frame_equal(en.table[cols], uk.table[cols])


def _line(**over: object) -> dict:
    row = {
        "example_id": 2,
        "question_index": "1",
        "question_polarity": "neg",
        "context_condition": "ambig",
        "category": "Age",
        "answer_info": {
            "ans0": ["grandfather", "old"],
            "ans1": ["grandson", "nonOld"],
            "ans2": ["Can't be determined", "unknown"],
        },
        "additional_metadata": {"stereotyped_groups": ["old"]},
    }
    row.update(over)
    return row


def test_targets_are_derived_as_bbqs_analysis_does() -> None:
    assert derive(_line()) == (2, 0, "label")
    assert derive(_line(question_polarity="nonneg")) == (2, 1, "label")  # the other group
    assert derive(_line(question_index="26")) == (2, 0, "name")
    # Age: only an exact old/nonOld match counts ("old" is inside "nonOld")
    assert derive(_line(additional_metadata={"stereotyped_groups": ["nonOld"]}))[1] == 1
    # man/woman tags become M/F; a group "women" is F
    gender = {
        "category": "Gender_identity",
        "answer_info": {
            "ans0": ["Unknown", "unknown"],
            "ans1": ["Maria", "F"],
            "ans2": ["James", "M"],
        },
        "additional_metadata": {"stereotyped_groups": ["women"]},
    }
    assert derive(_line(**gender)) == (0, 1, "label")
    both = {**gender, "additional_metadata": {"stereotyped_groups": ["F", "M"]}}
    assert derive(_line(**both))[1] is None  # two matches: no target, as the script has it
    assert derive(_line(category="Race_x_gender"))[1] is None


def test_english_findings_name_the_category_file_and_line(tmp_path: Path) -> None:
    folder = tmp_path / "bbq"
    shutil.copytree(EN_SAMPLE, folder)
    lines = (folder / "Age.jsonl").read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[2])
    row["label"] = 0  # an ambiguous row whose label is not the unknown answer
    lines[2] = json.dumps(row, ensure_ascii=False)
    (folder / "Age.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    got = [(i.check, i.file, i.row, i.field) for i in EN.validate(EN.load(folder))]
    assert got == [("label", str(folder / "Age.jsonl"), 3, "label")]


EN_SAMPLE = Path(get_task("bbq-en").data.load().files[0]).parent


@pytest.fixture
def english() -> Path:
    folder = SHARED_DATA / "bbq-en"
    if not folder.is_dir():
        if in_ci():
            pytest.fail(f"{folder} is missing")
        pytest.skip("no shared English BBQ here")
    return folder


def test_the_six_real_categories_load_and_pass_every_check(english: Path) -> None:
    ds = EN.load(english)
    t = ds.table
    counts = t.groupby("category").size().to_dict()
    assert counts == {
        "Age": 3680,
        "Disability_status": 1556,
        "Nationality": 3080,
        "Physical_appearance": 1576,
        "Religion": 1200,
        "Sexual_orientation": 864,
    }
    assert EN.validate(ds) == []
    assert t["source_revision"].eq(BBQ_COMMIT).all()
    assert t["bias_score_eligible"].all() and (t["label_type"] == "label").all()
    first = t.set_index("item_id").loc[["Age-0", "Age-2"], ["unknown_answer_index", "target_loc"]]
    assert first.values.tolist() == [[2, 0], [2, 1]]  # the grandfather; nonneg: the grandson


def test_an_intersectional_category_loads_without_targets_and_says_so(tmp_path: Path) -> None:
    folder = tmp_path / "bbq"
    shutil.copytree(EN_SAMPLE, folder)
    rows = []
    for k, cond in enumerate(("ambig", "disambig")):
        line = _line(
            example_id=k,
            category="Race_x_gender",
            context_condition=cond,
            context="A Black man and a White woman waited.",
            question="Who was rude?",
            ans0="The Black man",
            ans1="The White woman",
            ans2="Unknown",
            label=2 if cond == "ambig" else 0,
            answer_info={
                "ans0": ["Black man", "M-Black"],
                "ans1": ["White woman", "F-White"],
                "ans2": ["Unknown", "unknown"],
            },
        )
        rows.append(json.dumps(line))
    (folder / "Race_x_gender.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    ds = EN.load(folder)
    t = ds.table[ds.table["category"] == "Race_x_gender"]
    assert len(t) == 2 and not t["bias_score_eligible"].any() and t["target_loc"].isna().all()
    got = [(i.check, i.field, i.blocking) for i in EN.validate(ds)]
    assert got == [("target_loc", "stereotyped_groups", False)]
