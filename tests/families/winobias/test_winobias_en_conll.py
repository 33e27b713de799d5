"""Loading the English WinoBias CoNLL files: local folder, URL prefix (a local HTTP server), zip."""

from __future__ import annotations

import json
import shutil
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers_http import serve_folder
from winoscope.errors import DatasetError
from winoscope.families.winobias import conll_key as en


@pytest.fixture(scope="module")
def conll(shared_data: Path) -> Path:
    return shared_data / "winobias-en" / "conll_format"


def test_local_folder(conll: Path) -> None:
    ds = en.load(conll)
    t = ds.table
    assert len(t) == 3168
    assert t.groupby(["split", "type", "condition"]).size().eq(396).all()
    assert t.row_id.is_unique
    assert t.distractor_span.ne("null").all()
    assert t.pronoun_gender.notna().all()
    assert set(t.target_stereotype) == {"male", "female"}
    first = t[t.row_id == "nw/dev_type1/stereotype//0"].iloc[0]
    assert first.doc_text.startswith("The developer argued with the designer because he")
    assert json.loads(first.gold_clusters) == [[[0, 13], [47, 49]]]
    assert first.doc_text[47:49] == "he"
    assert (first.target_text, first.distractor_text) == ("The developer", "the designer")
    assert (first.target_stereotype, first.distractor_stereotype) == ("male", "female")
    # pro and anti versions of one sentence share an item number
    anti = t[t.row_id == "nw/dev_type1/not_stereotype//0"].iloc[0]
    assert anti.item_number == first.item_number == 0
    assert anti.condition == "anti" and first.condition == "pro"
    assert len(ds.source.sha256.split(";")) == 10  # 8 CoNLL files + 2 occupation lists
    assert len(en.load(conll, split="validation").table) == 1584
    with pytest.raises(DatasetError, match="unknown split"):
        en.load(conll, split="train")


def test_missing_inputs(tmp_path: Path, conll: Path) -> None:
    with pytest.raises(DatasetError, match="not a folder"):
        en.load(tmp_path / "nowhere")
    shutil.copy(conll / en.file_name("dev", "type1", "pro"), tmp_path)
    with pytest.raises(DatasetError, match="no such file") as err:
        en.load(tmp_path)
    assert err.value.file.endswith("dev_type1_anti_stereotype.v4_auto_conll")


@pytest.fixture
def http_root(shared_data: Path) -> Iterator[str]:
    with serve_folder(shared_data / "winobias-en") as url:
        yield url


def test_url_prefix_equals_local_folder(http_root: str, conll: Path) -> None:
    remote = en.load(f"{http_root}/conll_format", split="test")
    local = en.load(conll, split="test")
    cols = ["row_id", "doc_text", "gold_clusters", "distractor_span", "target_stereotype"]
    assert remote.table[cols].equals(local.table[cols])
    assert remote.source.kind == "url"
    # the same bytes were read: one name=sha256 entry per file, equal on both sides
    assert set(remote.source.sha256.split(";")) == set(local.source.sha256.split(";"))
    assert len(remote.source.sha256.split(";")) == 6  # 4 test files + 2 occupation lists
    with pytest.raises(DatasetError, match="HTTP 404"):
        en.load(f"{http_root}/missing")


def test_zip_of_the_folder(tmp_path: Path, conll: Path) -> None:
    archive = tmp_path / "conll.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for p in sorted(conll.iterdir()):
            z.write(p, f"conll_format/{p.name}")
    t = en.load(archive, split="dev").table
    assert len(t) == 1584
    # no occupation lists in this archive: the other occupation cannot be found
    assert t.distractor_span.eq("null").all()
    assert t.target_stereotype.isna().all()


def test_validate(conll: Path, tmp_path: Path) -> None:
    ds = en.load(conll, split="test")
    assert en.validate(ds) == []
    ds.table = ds.table.drop(index=[0]).reset_index(drop=True)
    issues = en.validate(ds)
    assert [i.check for i in issues] == ["documents", "pairs"]
    assert "395 documents" in issues[0].message
    archive = tmp_path / "conll.zip"
    with zipfile.ZipFile(archive, "w") as z:
        name = en.file_name("dev", "type1", "pro")
        z.write(conll / name, name)
        for other in ("anti",):
            z.write(
                conll / en.file_name("dev", "type1", other), en.file_name("dev", "type1", other)
            )
        for ty in ("type2",):
            for co in ("pro", "anti"):
                z.write(conll / en.file_name("dev", ty, co), en.file_name("dev", ty, co))
    no_lists = en.load(archive, split="dev")
    found = en.validate(no_lists)
    assert {i.check for i in found} == {"entities"}
    assert len(found) == 1584
