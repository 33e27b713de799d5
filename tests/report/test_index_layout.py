"""``index.html`` read in a 1,300 px window of headless Chromium: nothing scrolls sideways (not
the page, not a table's scroll box), every headline value keeps its interval on its line, a
long model name wraps inside its cell and data hashes are shortened."""

from __future__ import annotations

import doctest
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from test_report_browser import CHROMIUM, CHROMIUM_ARGS, sync_playwright  # noqa: F401

import winoscope
from winoscope.report import index
from winoscope.report.index import write_index
from winoscope.results.rundir import load_run_dir

WIDTH = 1300
LONG_MODEL = "hf:/models/some-organisation/a-very-long-model-name-with-many-parts-70b-instruct-v0.3"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Baseline runs of three tasks, one of them copied under a long model name with tags and
    without its report."""
    root = tmp_path_factory.mktemp("index")
    runs = []
    for name, task, model in (
        ("stereotype", "winobias-uk", "baseline:stereotype"),
        ("random", "winobias-uk", "baseline:random"),
        ("winopron", "winopron-uk", "baseline:first"),
        ("swewinogender", "swewinogender", "baseline:first"),
    ):
        winoscope.run(task, model, out=root / name, n_boot=20)
        runs.append(root / name)
    long = root / "long"
    shutil.copytree(root / "stereotype", long)
    manifest = json.loads((long / "manifest.json").read_text(encoding="utf-8"))
    manifest["model"]["spec"] = LONG_MODEL
    manifest["tags"] = {"alpha": 4, "method": "steer"}
    (long / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    (long / "report.html").unlink()
    runs.append(long)
    write_index([load_run_dir(r) for r in runs], root / "site")
    return root / "site" / "index.html"


LAYOUT = """() => {
  const line = e => parseFloat(getComputedStyle(e).lineHeight);
  return {
    page: document.documentElement.scrollWidth,
    boxes: Array.from(document.querySelectorAll('.scroll')).map(
      e => [e.scrollWidth, e.clientWidth]),
    intervals: Array.from(document.querySelectorAll('table.index .interval')).map(e => ({
      text: e.textContent,
      lines: new Set(Array.from(e.getClientRects()).map(r => Math.round(r.top))).size,
      height: e.getBoundingClientRect().height, line: line(e)})),
    models: Array.from(document.querySelectorAll('table.index tbody th')).map(e => ({
      text: e.textContent, height: e.getBoundingClientRect().height,
      right: e.getBoundingClientRect().right,
      table: e.closest('table').getBoundingClientRect().right})),
    data: Array.from(document.querySelectorAll('table.index td.data')).map(
      e => [e.textContent.trim(), e.title]),
  };
}"""


def _layout(launcher: Any, url: str, profile: Path) -> dict[str, Any]:
    with launcher() as p:
        context = p.chromium.launch_persistent_context(
            user_data_dir=str(profile),
            executable_path=str(CHROMIUM if CHROMIUM.exists() else shutil.which("chromium")),
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": WIDTH, "height": 900},
        )
        try:
            page = context.new_page()
            page.goto(url, wait_until="load")
            return dict(page.evaluate(LAYOUT))
        finally:
            context.close()


def test_index_fits_1300_px_with_intervals_on_one_line(
    sync_playwright: Any,  # noqa: F811
    site: Path,
    tmp_path: Path,
) -> None:
    got = _layout(sync_playwright, site.as_uri(), tmp_path / "profile")
    assert got["page"] <= WIDTH
    assert got["boxes"] and all(scroll <= client for scroll, client in got["boxes"]), got["boxes"]
    # two headline cells per run, each "name value [lo, hi]" on one line
    assert len(got["intervals"]) == 2 * 5
    for cell in got["intervals"]:
        assert "[" in cell["text"] and "]" in cell["text"], cell
        assert cell["lines"] == 1 and cell["height"] < 1.5 * cell["line"], cell
    # the long model name wraps inside its cell, which stays inside the table
    long = next(m for m in got["models"] if LONG_MODEL in m["text"])
    line = got["intervals"][0]["line"]
    assert long["height"] > 1.5 * line and long["right"] <= long["table"] + 0.5
    assert "[alpha=4 method=steer]" in long["text"]
    # hashes shortened; the whole key is the cell's title
    for shown, full in got["data"]:
        assert len(shown) <= 40 and "…" in shown and len(full) > len(shown)
        assert full.startswith(shown.split("…")[0])


def test_short_key_and_prompt_examples() -> None:
    result = doctest.testmod(index, raise_on_error=False)
    assert result.attempted >= 5 and result.failed == 0
