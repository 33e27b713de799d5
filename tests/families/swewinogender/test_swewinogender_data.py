"""SweWinogender v2.0 loading from a file, a URL (real local HTTP server) and a hub-layout
directory; derived annotations; the mechanical checks on the real release and broken copies."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from helpers_http import serve_folder
from winoscope.datasets.sources import file_sha256
from winoscope.errors import DatasetError
from winoscope.families.swewinogender import dataset as sw


@pytest.fixture(scope="module")
def real_file(shared_data: Path) -> Path:
    return shared_data / "swewinogender-v2" / "swewinogender_test.jsonl"


@pytest.fixture(scope="module")
def real(real_file: Path) -> sw.Dataset:
    return sw.load(real_file)


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


@pytest.fixture()
def http_root(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A real HTTP server on 127.0.0.1 serving ``tmp_path/www``."""
    root = tmp_path / "www"
    root.mkdir()
    with serve_folder(root) as url:
        yield root, url


def test_real_file_shape_and_fields(real: sw.Dataset, real_file: Path) -> None:
    t = real.table
    assert len(t) == 624
    assert real.source.kind == "file" and real.source.sha256 is not None
    assert t["template_id"].nunique() == 104 and t["tuple_id"].nunique() == 208
    assert t["pronoun"].value_counts().to_dict() == {"han": 208, "hon": 208, "hen": 208}
    assert t["label"].value_counts().to_dict() == {"entailment": 312, "neutral": 312}
    first = _rows(real_file)[1]
    row = t[t["idx"] == first["idx"]].iloc[0]
    for key in sw.META_FIELDS:
        assert row[key] == first["meta"][key]
    assert row["premise"] == first["premise"] and row["hypothesis"] == first["hypothesis"]


def test_derived_annotations_on_known_rows(real: sw.Dataset) -> None:
    t = real.table.set_index("idx")
    r = t.loc[2]  # Teknikern sa till kunden att han kunde betala kontant. -> kunden
    assert (r["pronoun_form"], r["pronoun_start"]) == ("han", 29)
    assert r["premise"][29:32] == "han"
    assert (r["occupation_form"], r["participant_form"]) == ("teknikern", "kunden")
    assert (r["hypothesis_referent"], r["gold_referent"]) == ("participant", "participant")
    assert r["schema_id"] == "1" and r["pronoun_gender"] == "male"
    # possessive form: "... lämna in hennes skattedeklaration" (2B)
    assert t.loc[15, "pronoun_form"] == "hennes"
    # "att hen gav honom": the word that varies across the tuple is the pronoun, not "honom"
    r = t.loc[579]
    assert r["pronoun_form"] == "hen" and r["premise"][r["pronoun_start"] :].startswith("hen gav")
    # hypothesis naming both candidates: the first stands in for the pronoun
    assert t.loc[580, "hypothesis_referent"] == "participant"  # "att köparen gav målaren"
    # typo "erapeuten" in the hypothesis: the sibling hypothesis names the patient
    assert t.loc[80, "hypothesis_referent"] == "occupation"
    # gold per premise: 52 occupation and 52 participant referents for each pronoun
    per = real.table.drop_duplicates("premise_id").groupby("pronoun")["gold_referent"]
    for counts in per.value_counts().unstack().to_dict("records"):
        assert counts == {"occupation": 52, "participant": 52}


def test_validate_real_release_reports_only_template_27a(real: sw.Dataset) -> None:
    issues = sw.validate(real)
    # 27A's two hypotheses are the same sentence with opposite labels in the release
    assert sorted(i.item for i in issues) == ["27A/han", "27A/hen", "27A/hon"]
    assert all(i.check == "premises" for i in issues)


def test_load_from_url_with_real_http_server(real_file: Path, http_root) -> None:
    root, base = http_root
    (root / "swewinogender").mkdir()
    (root / "swewinogender" / "swewinogender_test.jsonl").write_bytes(real_file.read_bytes())
    ds = sw.load(f"{base}/swewinogender/swewinogender_test.jsonl")
    assert ds.source.kind == "url" and len(ds) == 624
    assert ds.source.sha256 == file_sha256(real_file)
    with pytest.raises(DatasetError, match="cannot download"):
        sw.load(f"{base}/missing.jsonl")


def test_url_with_broken_line_names_url_and_row(http_root) -> None:
    root, base = http_root
    (root / "bad.jsonl").write_text('{"idx": 1}\nnot json\n', encoding="utf-8")
    with pytest.raises(DatasetError) as exc:
        sw.load(f"{base}/bad.jsonl")
    assert exc.value.row == 2 and exc.value.file.endswith("/bad.jsonl")


def test_load_from_hub_layout_directory(real_file: Path, tmp_path: Path) -> None:
    repo = tmp_path / "superlim-2"
    (repo / "swewinogender").mkdir(parents=True)
    (repo / "swewinogender" / "test.jsonl").write_bytes(real_file.read_bytes())
    (repo / "README.md").write_text(
        "---\nconfigs:\n- config_name: swewinogender\n  data_files:\n"
        "  - split: test\n    path: swewinogender/test.jsonl\n---\n",
        encoding="utf-8",
    )
    ds = sw.load(str(repo), cache_dir=str(tmp_path / "cache"))
    assert ds.source.kind == "hub" and ds.source.config == "swewinogender"
    assert len(ds) == 624
    direct = sw.load(real_file).table
    cols = ["idx", "label", "tuple_id", "pronoun", "gold_referent", "pronoun_form"]
    pd.testing.assert_frame_equal(
        ds.table[cols].sort_values("idx").reset_index(drop=True),
        direct[cols].sort_values("idx").reset_index(drop=True),
        check_categorical=False,
    )


def test_bundled_sample_is_marked_and_valid() -> None:
    ds = sw.load()
    assert ds.is_sample and ds.source.kind == "sample"
    assert "not the SweWinogender dataset" in ds.metadata["note"]
    assert sw.validate(ds) == []
    assert len(ds) % 6 == 0 and set(ds.table["pronoun"]) == {"han", "hon", "hen"}


@pytest.mark.parametrize(
    ("edit", "row", "field"),
    [
        (lambda r: r["meta"].pop("tuple_id"), 3, "meta.tuple_id"),
        (lambda r: r.update(idx="x3"), 3, "idx"),
        (lambda r: r.update(meta="oops"), 3, "meta"),
    ],
)
def test_broken_copy_names_file_row_field(
    real_file: Path, tmp_path: Path, edit, row, field
) -> None:
    rows = _rows(real_file)[:12]
    edit(rows[row - 1])
    path = _write(tmp_path / "broken.jsonl", rows)
    try:
        ds = sw.load(path)
    except DatasetError as exc:
        assert (exc.file, exc.row, exc.field) == (str(path), row, field)
    else:  # a value of the wrong type is a blocking finding on its row (reported in one pass)
        [f] = [f for f in ds.findings if f.blocking]
        assert (f.file, f.row, f.field) == (str(path), row, field)


@pytest.mark.parametrize(
    ("edit", "row", "field"),
    [
        (lambda r: r.update(label="maybe"), 3, "label"),
        (lambda r: r["meta"].update(pronoun="de"), 3, "pronoun"),
    ],
)
def test_value_outside_the_schema_is_a_finding_naming_file_row_field(
    real_file: Path, tmp_path: Path, edit, row, field
) -> None:
    rows = _rows(real_file)[:12]
    edit(rows[row - 1])
    path = _write(tmp_path / "broken.jsonl", rows)
    ds = sw.load(path)  # the row is left out of the table and reported
    (enum,) = [i for i in sw.validate(ds) if i.check == "enum"]
    assert (enum.file, enum.row, enum.field, enum.blocking) == (str(path), row, field, True)
    assert len(ds.table) == 11


def test_validate_finds_incomplete_tuple_and_lost_candidate(
    real_file: Path, tmp_path: Path
) -> None:
    rows = _rows(real_file)[:12]
    del rows[4]  # idx 5: 1B-neutral / hon
    rows[6]["premise"] = rows[6]["premise"].replace("Teknikern", "Personen")  # idx 8
    ds = sw.load(_write(tmp_path / "cut.jsonl", rows))
    found = {(i.check, i.item) for i in sw.validate(ds)}
    assert ("tuples", "1B-neutral") in found
    assert ("templates", "1B") in found
    assert ("annotation", "8") in found


def test_missing_file_and_unknown_suffix(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="no such file"):
        sw.load(tmp_path / "nope.jsonl")


def test_find_noun_endings() -> None:
    assert sw.find_noun("Frågan gällde revisorns deklaration.", "revisor") == ("revisorns", 14)
    assert sw.find_noun("Hon kunde inte.", "kund") is None  # "kunde" is not a form of "kund"
    assert sw.find_noun("Barnet lekte.", "barn") == ("Barnet", 0)
    assert sw.schema_id("12A") == "12" and sw.schema_id("7") == "7"
