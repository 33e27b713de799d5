"""A CSV or TSV line pandas cannot split is named by file and line, in one line of text."""

from __future__ import annotations

from pathlib import Path

import pytest

from winoscope.datasets.sources import read_table
from winoscope.errors import DatasetError


@pytest.mark.parametrize("sep", [",", "\t"])
def test_a_line_with_a_field_too_many_names_its_line(tmp_path: Path, sep: str) -> None:
    path = tmp_path / ("rows.csv" if sep == "," else "rows.tsv")
    path.write_text(sep.join("abc") + "\n" + sep.join("123") + "\n" + sep.join("4567") + "\n")
    with pytest.raises(DatasetError) as err:
        read_table(path)
    assert str(err.value) == f"file {path}, line 3: expected 3 fields, saw 4"
    assert "\n" not in str(err.value)
