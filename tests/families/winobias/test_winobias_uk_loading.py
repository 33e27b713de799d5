"""Loading WinoBias-UK Natural from every source, and the errors bad input must give."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from helpers_winobias_uk import sample_frame
from winoscope import DatasetError, load_dataset
from winoscope.families.winobias.dataset import UK as winobias_uk
from winoscope.families.winobias.dataset import VARIANTS

CARD_FIELDS = [
    "item_number", "split", "type", "variant", "score_group", "condition",
    "target_occupation_uk", "other_occupation_uk", "target_gender", "other_gender",
    "pronoun_gender", "coreference_role", "sentence_uk", "sentence_annotated_uk",
    "target_span_uk", "other_span_uk", "pronoun_span_uk",
]  # fmt: skip


def test_sample_has_every_card_field_typed() -> None:
    ds = winobias_uk.load()
    assert ds.is_sample and "not the WinoBias-UK" in ds.metadata["note"]
    assert ds.metadata["sample"] is True and ds.metadata["is_dataset"] is False
    assert ds.review_status == "preview; broader human review ongoing"
    t = ds.table
    assert list(t.columns[: len(CARD_FIELDS)]) == CARD_FIELDS
    assert t["item_number"].dtype == "int64"
    assert set(t["variant"].cat.categories) == set(VARIANTS)
    assert isinstance(t["sentence_uk"].iloc[0], str)


def test_sample_size_and_coverage() -> None:
    t = winobias_uk.load().table
    type1 = t[t["type"] == "type1"]
    type2 = t[t["type"] == "type2"]
    assert type1.groupby(["split", "item_number"], observed=True).ngroups >= 10
    assert len(type1) >= 60
    assert type2.groupby(["split", "item_number"], observed=True).ngroups >= 4
    assert set(t["split"].astype(str)) == {"validation", "test"}


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_local_files_load_identically(tmp_path: Path, suffix: str) -> None:
    raw = sample_frame()
    path = tmp_path / f"rows{suffix}"
    if suffix == ".csv":
        raw.to_csv(path, index=False)
    elif suffix == ".jsonl":
        raw.assign(item_number=raw["item_number"].astype(int)).to_json(
            path, orient="records", lines=True, force_ascii=False
        )
    else:
        raw.assign(item_number=raw["item_number"].astype(int)).to_parquet(path, index=False)
    ds = load_dataset("winobias-uk", path)
    reference = winobias_uk.load().table
    pd.testing.assert_frame_equal(ds.table, reference)
    assert ds.source.kind == "file" and ds.source.sha256 and len(ds.source.sha256) == 64
    assert not ds.is_sample


def _hub_standin(root: Path) -> Path:
    """A directory laid out like the hub repository: data/<split>-*.parquet per split."""
    raw = sample_frame().assign(item_number=lambda d: d["item_number"].astype(int))
    (root / "data").mkdir(parents=True)
    for split in ("validation", "test"):
        part = raw[raw["split"] == split].drop(columns=["split"])
        part.to_parquet(root / "data" / f"{split}-00000-of-00001.parquet", index=False)
    return root


def test_hub_path_through_datasets_with_revision(tmp_path: Path) -> None:
    repo = _hub_standin(tmp_path / "WinoBias-UK-Natural")
    ds = winobias_uk.load(repo, revision="0123abc", cache_dir=str(tmp_path / "cache"))
    assert ds.source.kind == "hub" and ds.source.revision == "0123abc"
    assert len(ds.table) == 76
    assert ds.table.groupby("split", observed=True).size().to_dict() == {
        "validation": 44,
        "test": 32,
    }
    only_test = winobias_uk.load(repo, split="test", cache_dir=str(tmp_path / "cache"))
    assert set(only_test.table["split"].astype(str)) == {"test"} and len(only_test.table) == 32


def test_unreachable_hub_id_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DatasetError) as err:
        winobias_uk.load("FairForget/WinoBias-UK-Natural", cache_dir=str(tmp_path))
    assert "FairForget/WinoBias-UK-Natural" in str(err.value)


def _write(tmp_path: Path, frame: pd.DataFrame, name: str = "rows.csv") -> Path:
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return path


def test_missing_column_names_file_and_field(tmp_path: Path) -> None:
    path = _write(tmp_path, sample_frame().drop(columns=["pronoun_span_uk"]))
    with pytest.raises(DatasetError) as err:
        winobias_uk.load(path)
    e = err.value
    assert e.file == str(path) and e.field == "pronoun_span_uk"
    assert "missing column" in str(e)


def test_bad_enum_names_row_and_field(tmp_path: Path) -> None:
    raw = sample_frame()
    raw.loc[6, "variant"] = "mx"
    path = _write(tmp_path, raw)
    # a value outside the card's is a blocking finding (the row is left out), not a load error
    ds = winobias_uk.load(path)
    (e,) = [i for i in winobias_uk.validate(ds) if i.check == "enum"]
    assert (e.file, e.row, e.field, e.blocking) == (str(path), 7, "variant", True)
    assert "'mx'" in e.message and "mf_target" in e.message


def test_non_integer_item_number(tmp_path: Path) -> None:
    """A blocking finding naming row and field (the row left out), so that every problem of
    the file is reported in one pass."""
    raw = sample_frame()
    raw.loc[2, "item_number"] = "three"
    ds = winobias_uk.load(_write(tmp_path, raw))
    [f] = ds.findings
    assert (f.check, f.row, f.field, f.blocking) == ("type", 3, "item_number", True)
    assert "expected an integer, got 'three'" in f.message and len(ds) == len(raw) - 1


def test_empty_value_names_row(tmp_path: Path) -> None:
    raw = sample_frame()
    raw.loc[10, "sentence_uk"] = ""
    ds = winobias_uk.load(_write(tmp_path, raw))
    [f] = ds.findings
    assert (f.check, f.row, f.field, f.blocking) == ("required", 11, "sentence_uk", True)
    assert len(ds) == len(raw) - 1


def test_empty_files(tmp_path: Path) -> None:
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(DatasetError, match="empty"):
        winobias_uk.load(empty)
    header_only = tmp_path / "header.csv"
    header_only.write_text(",".join(CARD_FIELDS) + "\n")
    with pytest.raises(DatasetError, match="empty"):
        winobias_uk.load(header_only)
    blank_jsonl = tmp_path / "blank.jsonl"
    blank_jsonl.write_text("\n")
    with pytest.raises(DatasetError, match="empty"):
        winobias_uk.load(blank_jsonl)


def test_broken_jsonl_line(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text('{"item_number": 1}\n{not json}\n', encoding="utf-8")
    with pytest.raises(DatasetError) as err:
        winobias_uk.load(path)
    assert err.value.row == 2 and err.value.file == str(path)


def test_missing_file_and_unknown_type(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="no such file"):
        winobias_uk.load(tmp_path / "nope.csv")
    odd = tmp_path / "rows.xlsx"
    odd.write_text("x")
    with pytest.raises(DatasetError, match="unsupported file type"):
        load_dataset("winobias-uk", odd)


def test_gender_aliases_and_other_role_alias(tmp_path: Path) -> None:
    raw = sample_frame()
    raw["target_gender"] = raw["target_gender"].map({"male": "masculine", "female": "feminine"})
    raw["coreference_role"] = raw["coreference_role"].replace({"distractor": "other"})
    t = winobias_uk.load(_write(tmp_path, raw)).table
    assert set(t["target_gender"].astype(str)) == {"male", "female"}
    assert set(t["coreference_role"].astype(str)) == {"target", "distractor"}
