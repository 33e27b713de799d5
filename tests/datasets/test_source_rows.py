"""Findings name the file's rows even after loading left a row out (an enum value outside the
card's): every later check numbers the table's rows, which are one short of the file's."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

import winoscope
from helpers_winobias_uk import sample_frame


def test_findings_after_a_left_out_row_name_the_files_rows(tmp_path: Path) -> None:
    raw = sample_frame()
    raw.loc[2, "split"] = "train"  # data row 3: outside the card's splits, left out
    raw = pd.concat([raw.iloc[:10], raw.iloc[[9]], raw.iloc[10:]], ignore_index=True)
    raw.loc[20, "sentence_uk"] = raw.loc[20, "sentence_uk"].rstrip(".")  # data row 21
    path = tmp_path / "rows.csv"
    raw.to_csv(path, index=False)
    rows = {(i.check, i.row) for i in winoscope.validate("winobias-uk", path)}
    assert ("enum", 3) in rows
    assert ("duplicate", 11) in rows  # the file's row 11 repeats its row 10
    assert ("punctuation", 21) in rows and ("annotation", 21) in rows
    duplicate = next(i for i in winoscope.validate("winobias-uk", path) if i.check == "duplicate")
    assert duplicate.message.endswith("repeats row 10")


def test_without_a_left_out_row_the_numbers_are_the_tables() -> None:
    from winoscope.datasets.base import source_row

    frame = pd.DataFrame({"a": [1, 2, 3]})
    assert [source_row(frame, k) for k in (1, 2, 3)] == [1, 2, 3]
    frame.attrs["winoscope_source_rows"] = [1, 3, 4]
    assert [source_row(frame, k) for k in (1, 2, 3)] == [1, 3, 4]


def test_the_row_places_are_shared_by_the_frames_pandas_derives(tmp_path: Path) -> None:
    """pandas deep-copies ``attrs`` into every frame an operation returns; the per-row places
    are shared instead (a copied list made validating WinoBias's 3,168 lines take 94 s)."""
    from winoscope.datasets.base import SOURCE_ROWS
    from winoscope.families.winobias.dataset import UK

    raw = sample_frame()
    raw.loc[2, "split"] = "train"  # left out: the table carries its rows' places
    raw.to_csv(tmp_path / "rows.csv", index=False)
    ds = UK.load(tmp_path / "rows.csv")
    rows = ds.table.attrs[SOURCE_ROWS]
    assert rows[:3] == (1, 2, 4)
    derived = ds.table[["split"]].groupby("split", observed=True).head(1)
    assert derived.attrs[SOURCE_ROWS] is rows
