"""``index.html``: one page linking the comparison and every run's report (compare and demo)."""

from __future__ import annotations

import re
from pathlib import Path

import winoscope
from winoscope.report.compare import compare_runs
from winoscope.studies.demo import run_demo


def _links(page: Path) -> list[str]:
    hrefs = re.findall(r'href="([^"#]+)"', page.read_text(encoding="utf-8"))
    return [h for h in hrefs if not h.startswith("data:")]  # the inline favicon


def test_compare_writes_an_index_whose_links_all_resolve(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    rr = winoscope.run("winobias-uk", "baseline:stereotype", out=runs / "a", n_boot=50)
    frame = rr.to_frame()
    assert frame.equals(rr.metrics) and frame is not rr.metrics
    assert rr.result.to_frame().equals(rr.metrics)
    winoscope.run("winopron-uk", "baseline:first", out=runs / "b", n_boot=50)
    out = tmp_path / "elsewhere" / "cmp"
    cmp = compare_runs([runs], out)
    links = _links(out / "index.html")
    assert "compare.html" in links
    reports = [h for h in links if h.endswith("report.html")]
    assert len(reports) == 2
    for href in links:
        assert (out / href).resolve().is_file(), href
    text = (out / "index.html").read_text(encoding="utf-8")
    assert "winobias-uk" in text and "winopron-uk" in text and "signed bias gap" in text
    assert list(cmp.to_frame().columns)[:4] == ["task", "model", "tags", "run"]


def test_demo_writes_one_page_to_open(tmp_path: Path) -> None:
    run_demo(tmp_path / "demo", quiet=True, tasks=("winobias-uk",), lm=False)
    index = tmp_path / "demo" / "index.html"
    links = _links(index)
    assert "comparison/compare.html" in links
    reports = [h for h in links if h.endswith("report.html")]
    assert len(reports) == len(
        [d for d in (tmp_path / "demo").iterdir() if (d / "manifest.json").is_file()]
    )
    for href in links:
        assert (index.parent / href).resolve().is_file(), href


def test_fast_metrics_reader_equals_the_checked_one(tmp_path: Path) -> None:
    """compare reads many metrics.csv files through a one-pass reader; it must give the checked
    reader's table, and a bad cell must still get the checked reader's error."""
    import pandas as pd
    import pytest

    from winoscope.errors import DatasetError
    from winoscope.results import rundir

    run = tmp_path / "run"
    winoscope.run("winopron-uk", "baseline:first", out=run, n_boot=50)
    path = run / "metrics.csv"
    fast = rundir._read_metrics_fast(path)
    assert fast is not None
    raw = pd.read_csv(path, dtype=str, keep_default_na=False)
    bad = tmp_path / "bad.csv"
    raw.to_csv(bad, index=False)
    checked_copy = tmp_path / "copy.csv"
    raw.assign(extra="x").to_csv(checked_copy, index=False)  # unknown column: checked path
    assert rundir._read_metrics_fast(checked_copy) is None
    checked = rundir.read_metrics_csv(checked_copy).drop(columns="extra")
    pd.testing.assert_frame_equal(rundir.read_metrics_csv(path), checked)
    raw.loc[2, "ci_low"] = "abc"
    raw.to_csv(bad, index=False)
    assert rundir._read_metrics_fast(bad) is None
    with pytest.raises(DatasetError, match=r"row 3, field 'ci_low'"):
        rundir.read_metrics_csv(bad)
