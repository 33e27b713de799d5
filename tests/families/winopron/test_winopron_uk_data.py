"""WinoPron-UK: loading every source, the card's checks on broken copies, clear errors."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from winoscope import DatasetError, load_dataset, validate
from winoscope.families.winopron.dataset import CONFIGS
from winoscope.families.winopron.dataset import UK as winopron_uk

SENTENCE_FIELDS = [
    "row_id", "pair_id", "template_number", "occupation_group_uk", "occupation_uk",
    "participant_uk", "gold_role", "pronoun_type", "pronoun_set", "pronoun_uk", "sentence_uk",
    "sentence_annotated_uk", "gold_span_uk",
]  # fmt: skip
PROMPT_FIELDS = [
    "prompt_id", "row_id", "pair_id", "context", "option_order", "option_a_role",
    "option_b_role", "gold_role", "gold_option", "prompt_uk",
]  # fmt: skip


def raw(config: str) -> pd.DataFrame:
    return pd.read_csv(winopron_uk.sample_path(config), dtype=str, keep_default_na=False)


def write_configs(directory: Path, frames: dict[str, pd.DataFrame], suffix: str = ".csv") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for config, frame in frames.items():
        path = directory / f"{config}{suffix}"
        if suffix == ".csv":
            frame.to_csv(path, index=False)
        elif suffix == ".jsonl":
            frame.to_json(path, orient="records", lines=True, force_ascii=False)
        else:
            frame.to_parquet(path, index=False)
    return directory


def all_raw() -> dict[str, pd.DataFrame]:
    return {c: raw(c) for c in CONFIGS}


def checks(frames: dict[str, pd.DataFrame], tmp_path: Path) -> list[str]:
    ds = winopron_uk.load(write_configs(tmp_path / "broken", frames))
    return [i.format() for i in winopron_uk.validate(ds)]


def test_sample_has_every_card_field_typed_and_is_marked() -> None:
    ds = winopron_uk.load()
    assert ds.is_sample and "not the WinoPron-UK" in ds.metadata["note"]
    assert ds.source.kind == "sample"
    t = ds.table
    assert list(t.columns) == ["context", *SENTENCE_FIELDS, "row_key"]
    assert t["template_number"].dtype == "int64"
    assert list(t["pronoun_set"].cat.categories) == ["male", "female", "plural"]
    assert list(t["pronoun_type"].cat.categories) == ["nominative", "oblique", "possessive"]
    # the card's prompt fields, and (as in the released file) each prompt's pronoun type and set
    card = [c for c in ds.prompts.columns if c not in ("pronoun_type", "pronoun_set")]
    assert card[: len(PROMPT_FIELDS)] == PROMPT_FIELDS
    assert {"pronoun_type", "pronoun_set"} <= set(ds.prompts.columns)
    assert list(ds.prompts["gold_option"].cat.categories) == ["A", "B"]


def test_sample_coverage() -> None:
    ds = winopron_uk.load()
    t = ds.table
    assert t["pair_id"].nunique() >= 6
    assert set(t["context"].astype(str)) == {"double", "single"}
    assert set(t["pronoun_set"].astype(str)) == {"male", "female", "plural"}
    assert set(t["pronoun_type"].astype(str)) == {"nominative", "oblique", "possessive"}
    # every sentence has a prompt in both orders
    assert len(ds.prompts) == 2 * len(t)
    assert set(ds.prompts["row_key"]) == set(t["row_key"])


def test_sample_passes_every_check() -> None:
    assert winopron_uk.validate(winopron_uk.load()) == []
    assert validate("winopron-uk") == []


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_local_configuration_files_load_identically(tmp_path: Path, suffix: str) -> None:
    frames = all_raw()
    for name in ("double", "single"):
        frames[name] = frames[name].assign(
            template_number=frames[name]["template_number"].astype(int)
        )
    ds = load_dataset("winopron-uk", write_configs(tmp_path, frames, suffix))
    ref = winopron_uk.load()
    pd.testing.assert_frame_equal(ds.table, ref.table)
    pd.testing.assert_frame_equal(ds.prompts, ref.prompts)
    assert ds.source.kind == "file" and not ds.is_sample
    assert ds.source.sha256.count("=") == 3


def test_hub_like_directory_with_revision(tmp_path: Path) -> None:
    repo = tmp_path / "WinoPron-Uk"
    (repo / "data").mkdir(parents=True)
    readme = ["---", "configs:"]
    for config in CONFIGS:
        raw(config).to_parquet(repo / "data" / f"{config}-test.parquet", index=False)
        readme += [
            f"- config_name: {config}",
            "  data_files:",
            "  - split: test",
            f"    path: data/{config}-test.parquet",
        ]
    (repo / "README.md").write_text("\n".join([*readme, "---", "WinoPron-UK stand-in"]) + "\n")
    ds = winopron_uk.load(repo, revision="0123abc", cache_dir=str(tmp_path / "cache"))
    ref = winopron_uk.load()
    pd.testing.assert_frame_equal(ds.table, ref.table)
    pd.testing.assert_frame_equal(ds.prompts, ref.prompts)
    assert ds.source.kind == "hub" and ds.source.revision == "0123abc"
    assert ds.source.split == "test"


def test_one_sentence_file(tmp_path: Path) -> None:
    path = tmp_path / "double.csv"
    raw("double").to_csv(path, index=False)
    ds = winopron_uk.load(path)
    assert set(ds.table["context"].astype(str)) == {"double"} and ds.prompts is None
    both = pd.concat(
        [raw("double").assign(context="double"), raw("single").assign(context="single")]
    )
    path = tmp_path / "sentences.csv"
    both.to_csv(path, index=False)
    assert len(winopron_uk.load(path).table) == 72


def test_unnamed_file_and_forced_choice_alone_are_errors(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    raw("double").to_csv(path, index=False)
    with pytest.raises(DatasetError, match="cannot tell the configuration") as err:
        winopron_uk.load(path)
    assert err.value.field == "context"
    path = tmp_path / "forced_choice.csv"
    raw("forced_choice").to_csv(path, index=False)
    with pytest.raises(DatasetError, match="forced_choice file alone"):
        winopron_uk.load(path)
    with pytest.raises(DatasetError, match="no such file"):
        winopron_uk.load(tmp_path / "absent.csv")


def test_bad_value_names_file_row_and_field(tmp_path: Path) -> None:
    frames = all_raw()
    frames["single"].loc[4, "pronoun_set"] = "neuter"
    # a value outside the card's is a blocking finding naming file, row and field (the row is
    # left out of the table), not a load error
    ds = winopron_uk.load(write_configs(tmp_path, frames))
    (e,) = [i for i in winopron_uk.validate(ds) if i.check == "enum"]
    assert e.file.endswith("single.csv") and e.row == 5 and e.field == "pronoun_set"
    assert e.blocking and "'neuter'" in e.message
    frames = all_raw()
    frames["forced_choice"].loc[2, "gold_option"] = "C"
    ds = winopron_uk.load(write_configs(tmp_path / "b", frames))
    (e,) = [i for i in winopron_uk.validate(ds) if i.check == "enum"]
    assert e.row == 3 and e.field == "gold_option" and e.file.endswith("forced_choice.csv")
    frames = all_raw()
    frames["double"] = frames["double"].drop(columns=["gold_span_uk"])
    with pytest.raises(DatasetError, match="missing column") as err:
        winopron_uk.load(write_configs(tmp_path / "c", frames))
    assert err.value.field == "gold_span_uk"


def test_annotation_checks(tmp_path: Path) -> None:
    frames = all_raw()
    d = frames["double"]
    d.loc[0, "sentence_annotated_uk"] = d.loc[0, "sentence_annotated_uk"].replace("ремонт", "звіт")
    d.loc[1, "sentence_annotated_uk"] = d.loc[1, "sentence_annotated_uk"].replace("[вона]", "вона")
    d.loc[2, "gold_span_uk"] = "Клієнти"
    found = checks(frames, tmp_path)
    assert any("row 1" in f and "does not give sentence_uk" in f for f in found)
    assert any("row 2" in f and "exactly two bracketed spans, found 1" in f for f in found)
    assert any("row 3" in f and "not the gold span 'Клієнти'" in f for f in found)
    assert all(f.startswith("[annotation]") for f in found)


def test_pronoun_form_must_fit_set_and_type(tmp_path: Path) -> None:
    frames = all_raw()
    d = frames["double"]
    # row 13 is an oblique male sentence ("в нього"): write the feminine form instead
    assert d.loc[12, "pronoun_type"] == "oblique" and d.loc[12, "pronoun_set"] == "male"
    for col in ("pronoun_uk", "sentence_uk", "sentence_annotated_uk"):
        d.loc[12, col] = d.loc[12, col].replace("нього", "неї")
    fc = frames["forced_choice"]  # its prompts quote the sentence (prompt_integrity)
    mine = fc["row_id"] == d.loc[12, "row_id"]
    fc.loc[mine, "prompt_uk"] = fc.loc[mine, "prompt_uk"].str.replace("нього", "неї")
    found = checks(frames, tmp_path)
    assert found == [
        "[pronoun] row 13, item double:double-003-occupation-male: pronoun_uk 'неї' is not a "
        "male oblique form (expected one of його, йому, ним, нього, ньому, нім)"
    ]


def test_pair_completeness(tmp_path: Path) -> None:
    frames = all_raw()
    d = frames["double"]
    frames["double"] = d[d["row_id"] != "double-002-participant-female"]
    frames["forced_choice"] = frames["forced_choice"][
        frames["forced_choice"]["row_id"] != "double-002-participant-female"
    ]
    found = checks(frames, tmp_path)
    assert found == [
        "[pair] item double:p002: double pair needs one occupation- and one participant-"
        "reference sentence per pronoun set: missing participant/female"
    ]


def test_option_order_and_gold_option_checks(tmp_path: Path) -> None:
    frames = all_raw()
    fc = frames["forced_choice"]
    fc.loc[0, "gold_option"] = "B"  # row 1: occupation_first, gold occupation -> A
    fc.loc[3, "option_order"] = "occupation_first"  # row 4 duplicates an order
    fc.loc[5, "row_id"] = "double-999-occupation-male"  # row 6 links nowhere
    found = checks(frames, tmp_path)
    assert any("row 1" in f and "gold_option B does not match gold_role occupation" in f
               for f in found)  # fmt: skip
    assert any("row 4" in f and "option_order occupation_first but option_a_role is participant"
               in f for f in found)  # fmt: skip
    assert any("row 6" in f and "[link]" in f and "double-999-occupation-male" in f for f in found)
    balance = [f for f in found if f.startswith("[order_balance]")]
    assert any("double:double-001-occupation-female" in f for f in balance)  # rows 3-4
    assert any("double:double-001-occupation-plural" in f for f in balance)  # lost row 6


def test_cli_validate_lists_failures(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from winoscope.cli import app

    ok = CliRunner().invoke(app, ["validate", "winopron-uk"])
    assert ok.exit_code == 0 and "every check passed" in ok.output
    frames = all_raw()
    frames["forced_choice"].loc[0, "gold_option"] = "B"
    bad = CliRunner().invoke(
        app, ["validate", "winopron-uk", "--data", str(write_configs(tmp_path / "x", frames))]
    )
    assert bad.exit_code == 1 and "gold_option B" in bad.output


def test_builder_script_reproduces_the_shipped_sample() -> None:
    import runpy

    script = Path(__file__).resolve().parents[3] / "scripts" / "build_winopron_uk_sample.py"
    mod = runpy.run_path(str(script))
    sentences = {c: list(mod["sentence_rows"](c)) for c in ("double", "single")}
    built = {
        **{c: pd.DataFrame(rows).astype(str) for c, rows in sentences.items()},
        "forced_choice": pd.DataFrame(list(mod["prompt_rows"](sentences))).astype(str),
    }
    for config, frame in built.items():
        pd.testing.assert_frame_equal(frame, raw(config), check_dtype=False)


def test_sentences_without_the_forced_choice_file_are_a_finding(tmp_path: Path) -> None:
    """Without ``forced_choice`` every sentence is asked with the built-in prompt: validate
    says so, and a run's manifest and report carry the finding (not a clean dataset-prompts
    run); the complete sample has none."""
    import json

    import winoscope

    folder = write_configs(tmp_path / "wp", {c: raw(c) for c in ("double", "single")})
    (issue,) = winopron_uk.validate(winopron_uk.load(folder))
    assert issue.check == "prompts" and not issue.blocking
    assert "none of the 72 sentence(s) has a prompt of its own" in issue.message
    (one,) = winopron_uk.validate(winopron_uk.load(folder / "double.csv"))
    assert one.check == "prompts" and "36 sentence(s)" in one.message
    out = tmp_path / "run"
    winoscope.run("winopron-uk", "baseline:random", data=folder, n_boot=0, out=out, quiet=True)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["validation"]["failed_checks"] == {"prompts": 1}
    assert "(prompts: 1)" in (out / "report.md").read_text(encoding="utf-8")
