"""The bootstrap's resampling unit per task in manifest and reports, and one meaning of the
macro ``n`` (rows summed over the averaged strata) with the strata counted in ``n_strata``."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import winoscope
from winoscope.scoring.base import METRIC_COLUMNS

UNITS = {
    "winobias-uk": "source item",
    "winobias-uk/coref": "source item",
    "winopron-uk": "pair",
    "winopron-uk/coref": "pair",
    "swewinogender": "schema/template",
}


@pytest.mark.parametrize(("task", "unit"), list(UNITS.items()))
def test_resampling_unit_comes_from_the_task(task: str, unit: str, tmp_path: Path) -> None:
    out = tmp_path / "run"
    rr = winoscope.run(task, "baseline:first", n_boot=10, out=out)
    assert rr.manifest["bootstrap"]["resampling_unit"] == unit
    assert rr.result.settings["resampling_unit"] == unit
    md = (out / "report.md").read_text()
    assert f"resampling unit: {unit}" in md
    assert f"resampling unit: {unit}" in (out / "report.html").read_text()
    assert json.loads((out / "manifest.json").read_text())["bootstrap"]["resampling_unit"] == unit


def test_english_units(shared_data: Path) -> None:
    for task, folder, unit in (
        ("winogender-en", "winogender-en", "schema/template"),
        ("winopron-en", "winopron-en", "schema/template"),
        ("winobias-en", "winobias-en", "source item"),
    ):
        rr = winoscope.run(task, "baseline:first", data=shared_data / folder, n_boot=10)
        assert rr.manifest["bootstrap"]["resampling_unit"] == unit, task


def _macro_means_rows(m: pd.DataFrame) -> None:
    assert list(m.columns) == METRIC_COLUMNS and "n_strata" in METRIC_COLUMNS
    strata = m[m["split"] != "macro"]
    assert (strata["n_strata"] == 1).all()
    for r in m[m["split"] == "macro"].itertuples(index=False):
        parts = strata[(strata["metric"] == r.metric) & strata["value"].notna()]
        assert r.n_strata == len(parts), r.metric
        assert r.n == int(parts["n"].sum()), r.metric


def test_forced_choice_macro_n_is_rows_over_strata() -> None:
    m = winoscope.run("winobias-uk", "baseline:first", n_boot=10).metrics
    _macro_means_rows(m)
    pro = m[(m.metric == "pro_accuracy") & (m.split == "macro")].iloc[0]
    assert pro["n_strata"] == 4 and pro["n"] == 14  # 4 + 2 + 6 + 2 pro rows in the sample


def test_coref_macro_n_is_rows_over_strata_not_the_strata_count() -> None:
    m = winoscope.run("winobias-uk/coref", "baseline:first", n_boot=10).metrics
    _macro_means_rows(m)
    f1 = m[(m.metric == "conll_f1_pro") & (m.split == "macro")].iloc[0]
    assert f1["n_strata"] == 4 and f1["n"] == 14


def test_summary_rows_without_averaging_have_one_stratum() -> None:
    m = winoscope.run("winopron-uk", "baseline:first", n_boot=10).metrics
    macro = m[m.split == "macro"]
    assert (macro["n_strata"] == 1).all()
    double = macro[macro.metric == "double_accuracy"].iloc[0]
    assert double["n"] == 36  # the double sentences of the sample
