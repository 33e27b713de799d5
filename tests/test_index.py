"""``index.html``: one page linking the comparison and every run's report (compare and demo)."""

from __future__ import annotations

import re
from pathlib import Path

import winoscope
from winoscope.demo import run_demo
from winoscope.report.compare import compare_runs


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
    assert list(cmp.to_frame().columns)[:3] == ["task", "model", "run"]


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
