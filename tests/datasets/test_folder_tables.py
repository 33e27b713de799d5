"""A folder of table files for a family with one table: every file of the data formats
directly in it, in name order, read as one table of one format; findings name the file and
its row, not the folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import winoscope
from winoscope.errors import DatasetError
from winoscope.families.winobias.dataset import UK


def test_a_side_file_of_another_format_is_refused_by_name(tmp_path: Path) -> None:
    shutil.copy(UK.sample_path(), tmp_path / "data.csv")
    (tmp_path / "meta.json").write_text('{"x": 1}\n')
    with pytest.raises(DatasetError) as err:
        UK.load(tmp_path)
    text = str(err.value)
    assert "data.csv" in text and "meta.json" in text and "one format" in text
    assert "missing column" not in text


def test_findings_name_the_file_in_the_folder_and_its_row(tmp_path: Path) -> None:
    for name in ("a.csv", "b.csv"):
        shutil.copy(UK.sample_path(), tmp_path / name)
    found = [i for i in winoscope.validate("winobias-uk", tmp_path) if i.check == "duplicate"]
    first = found[0]
    assert (first.file, first.row) == (str(tmp_path / "b.csv"), 1)
    assert first.message.endswith(f"repeats row 1 of {tmp_path / 'a.csv'}")
    assert f"file {tmp_path / 'b.csv'}, row 1," in first.format()


def test_one_file_in_a_folder_reads_as_that_file(tmp_path: Path) -> None:
    shutil.copy(UK.sample_path(), tmp_path / "data.csv")
    ds = UK.load(tmp_path)
    assert len(ds) == len(UK.load(UK.sample_path()))
    assert ds.source.sha256 == UK.load(tmp_path / "data.csv").source.sha256


def test_a_file_with_other_columns_is_named(tmp_path: Path) -> None:
    shutil.copy(UK.sample_path(), tmp_path / "a.csv")
    (tmp_path / "b.csv").write_text("x,y\n1,2\n")
    with pytest.raises(DatasetError) as err:
        UK.load(tmp_path)
    assert str(tmp_path / "b.csv") in str(err.value) and "columns differ" in str(err.value)


def test_a_folder_of_split_files_stays_with_the_hub_folder_reader(tmp_path: Path) -> None:
    """``validation.csv`` and ``test.csv`` are splits (the hub's folder reader gives each row
    its ``split``), and a load that names a split picks one: neither is read as one table."""
    from winoscope.datasets.loading import folder_table

    for name in ("validation.csv", "test.csv"):
        (tmp_path / name).write_text("a,b\n1,2\n", encoding="utf-8")
    assert folder_table(tmp_path) is None
    (tmp_path / "validation.csv").rename(tmp_path / "part1.csv")
    (tmp_path / "test.csv").rename(tmp_path / "part2.csv")
    assert folder_table(tmp_path, split_files=True) is None
    loaded = folder_table(tmp_path)
    assert loaded is not None and len(loaded.tables["table"][0]) == 2
