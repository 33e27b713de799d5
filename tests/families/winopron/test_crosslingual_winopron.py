"""``winoscope crosslingual`` for WinoPron-UK against English WinoPron, and the pairs it refuses.

The hand-worked case: two source pairs (templates 1-2 and 3-4, nominative and oblique /
accusative), three pronoun sets, the double context and one single-context row. The English
run answers every double row right; the Ukrainian run misses template 1's feminine row and
template 2's plural row, so per pair (the resampling unit) feminine accuracy is 1/2 (p001) and
1 (p002).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

import winoscope
from winoscope.compare.across_languages import crosslingual
from winoscope.errors import DatasetError, TaskError
from winoscope.families.winopron.crosslingual import (
    agreement_table,
    linked_rows,
    metric_table,
    occupation_check,
    shared_rows,
)

TEMPLATES = {  # template -> (pair, gold role, UK pronoun type, EN pronoun type)
    1: ("p001", "occupation", "nominative", "nominative"),
    2: ("p001", "participant", "nominative", "nominative"),
    3: ("p002", "occupation", "oblique", "accusative"),
    4: ("p002", "participant", "oblique", "accusative"),
}
UK_SET = {"male": "male", "female": "female", "plural": "neutral"}
OTHER = {"occupation": "participant", "participant": "occupation"}


def _frame(lang: str, wrong: set, single: dict, extra: list | None = None) -> pd.DataFrame:
    rows = []
    for t, (pair, role, type_uk, type_en) in TEMPLATES.items():
        for set_uk, set_en in UK_SET.items():
            pset = set_uk if lang == "uk" else set_en
            rows.append(
                {
                    "context": "double",
                    "template_number": t,
                    "pair_id": pair if lang == "uk" else f"occ{pair}/{type_en}",
                    "gold_role": role,
                    "pronoun_type": type_uk if lang == "uk" else type_en,
                    "pronoun_set": pset,
                    f"occupation_group_{lang}": f"occ-{pair}-{lang}",
                    "prediction_role": OTHER[role] if (t, set_uk) in wrong else role,
                }
            )
    for (t, set_uk), pred in single.items():
        pair, role, type_uk, type_en = TEMPLATES[t]
        rows.append(
            {
                "context": "single",
                "template_number": t,
                "pair_id": pair,
                "gold_role": role,
                "pronoun_type": type_uk if lang == "uk" else type_en,
                "pronoun_set": set_uk if lang == "uk" else UK_SET[set_uk],
                f"occupation_group_{lang}": f"occ-{pair}-{lang}",
                "prediction_role": pred,
            }
        )
    return pd.DataFrame(rows + (extra or []))


def _pair() -> tuple[pd.DataFrame, pd.DataFrame]:
    uk = _frame(
        "uk",
        {(1, "female"), (2, "plural")},
        {(1, "male"): "occupation", (2, "male"): None},  # template 2's single row: no answer
    )
    en_extra = {  # an English template without a Ukrainian row
        "context": "double",
        "template_number": 5,
        "pair_id": "x/nominative",
        "gold_role": "participant",
        "pronoun_type": "nominative",
        "pronoun_set": "male",
        "occupation_group_en": "x",
        "prediction_role": "participant",
    }
    en = _frame("en", set(), {(1, "male"): "participant", (2, "male"): "participant"}, [en_extra])
    return uk, en


def test_hand_worked_join_interval_and_agreement() -> None:
    rows, counts = shared_rows(*_pair())
    assert counts["linked_templates"] == 4 and counts["shared_rows"] == 14
    assert counts["unanswered_shared_rows"] == 1 and counts["en_rows"] == 15
    assert len(rows) == 13
    # plural joins singular they; the joined row keeps the Ukrainian set name
    assert set(rows["pronoun_set"]) == {"male", "female", "plural"}
    t = metric_table(rows, n_boot=4000, seed=0).set_index("metric")
    # UK double: p001 4/6 right, p002 6/6 -> 10/12; EN 12/12
    assert t.loc["double_accuracy", ["uk", "en"]].tolist() == pytest.approx([10 / 12, 1.0])
    # feminine: UK 3/4, EN 1; resamples (p001, p001) 0.5 - 1, mixed 0.75 - 1, (p002, p002) 0
    fem = t.loc["female_accuracy"]
    assert (fem["uk"], fem["en"], fem["diff"]) == (0.75, 1.0, -0.25)
    assert (fem["ci_low"], fem["ci_high"]) == (-0.5, 0.0)
    # the card's gap, female - male: UK 0.75 - 1, EN 0; the same interval (male always 1)
    gap = t.loc["gender_gap"]
    assert (gap["uk"], gap["en"], gap["diff"]) == (-0.25, 0.0, -0.25)
    assert (gap["ci_low"], gap["ci_high"]) == (-0.5, 0.0)
    plural = t.loc["plural_accuracy"]
    assert (plural["uk"], plural["en"]) == (0.75, 1.0)
    assert t.loc["male_accuracy", "diff"] == 0.0
    # single: one answered row (p001); UK right, EN wrong; a resample without p001 is undefined
    single = t.loc["single_accuracy"]
    assert (single["uk"], single["en"], single["diff"]) == (1.0, 0.0, 1.0)
    assert (single["ci_low"], single["ci_high"]) == (1.0, 1.0)
    assert t.loc["double_accuracy", "n_items"] == 2
    agree = agreement_table(rows).set_index("condition")
    cells = ["both_right", "only_en_right", "only_uk_right", "both_wrong"]
    assert agree.loc["double", cells].tolist() == [10, 2, 0, 0]
    assert agree.loc["single", cells].tolist() == [0, 0, 1, 0]
    assert agree.loc["all", cells].tolist() == [10, 2, 1, 0]
    assert agree.loc["all", "mcnemar_p"] == 1.0  # exact, 2 against 1 discordant rows


@pytest.mark.parametrize(
    ("column", "template", "value", "said"),
    [
        ("gold_role", 2, "occupation", "template 2: UK participant/nominative, EN occupation"),
        ("pronoun_type", 3, "possessive", "template 3: UK occupation/oblique, EN occupation/poss"),
    ],
)
def test_a_template_number_that_links_no_translation_is_refused(
    column: str, template: int, value: str, said: str
) -> None:
    uk, en = _pair()
    en.loc[en["template_number"] == template, column] = value
    with pytest.raises(DatasetError, match="1 of 4 linked template numbers") as err:
        shared_rows(uk, en)
    assert said in str(err.value)


def test_a_template_linking_another_occupation_is_listed() -> None:
    """No WinoPron occupation table ships, so an English occupation must be one Ukrainian
    occupation group in all its templates; template 3 planted with pair p001's group leaves
    occ-p002-en without a majority, and both its templates are listed."""
    uk, en = _pair()
    mismatches, checked = occupation_check(linked_rows(uk, en)[0])
    assert mismatches.empty and checked == 4
    uk.loc[uk["template_number"] == 3, "occupation_group_uk"] = "occ-p001-uk"
    mismatches, checked = occupation_check(linked_rows(uk, en)[0])
    assert checked == 4
    assert list(mismatches["item"]) == ["template 3", "template 4"]
    assert set(mismatches["occupation_en"]) == {"occ-p002-en"}
    assert mismatches["expected"].iloc[0] == (
        "one Ukrainian occupation for occ-p002-en, not occ-p001-uk, occ-p002-uk"
    )
    assert list(mismatches["rows"]) == [3, 3]


def test_real_english_against_the_bundled_sample(shared_data: Path, tmp_path: Path) -> None:
    """The bundled sample is the project's own text, not a translation: its numbering (1 and 2
    are one pair's occupation and participant templates) is not WinoPron's data lines (line 1
    is technician/customer's participant template), so the real join is refused, naming it."""
    uk, en = tmp_path / "uk", tmp_path / "en"
    winoscope.run("winopron-uk", "baseline:stereotype", out=uk, n_boot=20)
    winoscope.run(
        "winopron-en", "baseline:stereotype", data=shared_data / "winopron-en", out=en, n_boot=20
    )
    with pytest.raises(DatasetError, match="template 1: UK occupation/nominative, EN participant"):
        crosslingual(uk, en, n_boot=50)
    with pytest.raises(TaskError, match=r"wrong order.*Ukrainian run first"):
        crosslingual(en, uk, n_boot=50)
    # mechanics on real files: the English run's rows, renumbered so the sample's templates are
    # English lines with the same role and pronoun type, each sample occupation standing for
    # one English occupation throughout (the links then pass the occupation check)
    pred_en = pd.read_parquet(en / "predictions.parquet")
    pred_uk = pd.read_parquet(uk / "predictions.parquet")
    type_en = {"nominative": "nominative", "oblique": "accusative", "possessive": "possessive"}
    wanted = pred_uk.drop_duplicates("template_number").assign(
        type_en=lambda t: t["pronoun_type"].map(type_en)
    )
    lines = pred_en.drop_duplicates("template_number")
    renumbered = []
    used: set[str] = set()
    for _, group in wanted.groupby("occupation_group_uk", sort=True):
        need = set(zip(group["gold_role"], group["type_en"], strict=True))
        occupation = next(
            o
            for o, t in lines.groupby("occupation_group_en", sort=True)
            if o not in used and need <= set(zip(t["gold_role"], t["pronoun_type"], strict=True))
        )
        used.add(occupation)
        for r in group.itertuples(index=False):
            source = lines[
                (lines["occupation_group_en"] == occupation)
                & (lines["gold_role"] == r.gold_role)
                & (lines["pronoun_type"] == r.type_en)
            ]["template_number"].iloc[0]
            renumbered.append(
                pred_en[pred_en["template_number"] == source].assign(
                    template_number=r.template_number
                )
            )
    en2 = tmp_path / "en2"
    shutil.copytree(en, en2)
    pd.concat(renumbered).to_parquet(en2 / "predictions.parquet", index=False)
    res = crosslingual(uk, en2, n_boot=200, out=tmp_path / "xl")
    assert res.settings["shared_rows"] == 72 and res.settings["uk_rows_without_en"] == 0
    assert set(res.to_frame()["metric"]) >= {"double_accuracy", "gender_gap", "single_accuracy"}
    assert (tmp_path / "xl" / "crosslingual.csv").is_file()


def test_swewinogender_and_english_winogender_are_refused_with_the_reason(
    shared_data: Path, tmp_path: Path
) -> None:
    sv, en = tmp_path / "sv", tmp_path / "en"
    data = shared_data / "swewinogender-v2" / "swewinogender_test.jsonl"
    winoscope.run("swewinogender", "baseline:first", data=data, out=sv, n_boot=20)
    winoscope.run(
        "winogender-en", "baseline:first", data=shared_data / "winogender-en", out=en, n_boot=20
    )
    with pytest.raises(TaskError) as err:
        crosslingual(sv, en)
    text = str(err.value)
    assert "does not say which Winogender schema or sentence" in text
    assert "template_id" in text and "winoscope compare" in text
    assert json.loads((sv / "manifest.json").read_text())["task"] == "swewinogender"
