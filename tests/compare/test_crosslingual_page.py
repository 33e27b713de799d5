"""``crosslingual.html`` and ``crosslingual.md``: the page shows the CSV's numbers, the figure is
a real PNG and SVG, and the page renders in headless Chromium without console errors."""

from __future__ import annotations

import functools
import http.server
import importlib.util
import re
import shutil
import sys
import threading
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import winoscope
from helpers_crosslingual import matched_english


@pytest.fixture(scope="module")
def written(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled WinoBias-UK sample (random answers) against the English items it adapts
    (stereotyped answers), joined into ``xl``; two baselines, so the different models are
    allowed (and said)."""
    root = tmp_path_factory.mktemp("xl")
    winoscope.run("winobias-uk", "baseline:random", out=root / "uk", n_boot=20, seed=3)
    winoscope.run(
        "winobias-en",
        "baseline:stereotype",
        data=shared_data / "winobias-en",
        out=root / "en-release",
        n_boot=20,
    )
    matched_english(root / "uk", root / "en-release", root / "en")
    winoscope.crosslingual(
        root / "uk", root / "en", n_boot=300, out=root / "xl", allow_different_models=True
    )
    return root


def _cells(html: str, table_id: str) -> list[list[str]]:
    body = html.split(f'<table id="{table_id}">', 1)[1].split("</table>", 1)[0]
    body = body.split("<tbody>", 1)[1]
    return [
        [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", tr)]
        for tr in re.findall(r"<tr>(.*?)</tr>", body, flags=re.S)
    ]


def test_page_shows_the_csv_numbers(written: Path) -> None:
    xl = written / "xl"
    html = (xl / "crosslingual.html").read_text(encoding="utf-8")
    md = (xl / "crosslingual.md").read_text(encoding="utf-8")
    table = pd.read_csv(xl / "crosslingual.csv")
    macro = table[table["split"] == "macro"].reset_index(drop=True)
    rows = _cells(html, "summary")
    assert [r[0] for r in rows] == list(macro["metric"])
    for r, m in zip(rows, macro.itertuples(index=False), strict=True):
        diff, ci = f"{m.diff:+.3f}", f"[{m.ci_low:+.3f}, {m.ci_high:+.3f}]"
        assert r[2:6] == [f"{m.uk:.3f}", f"{m.en:.3f}", diff, ci]
        assert f"| {m.metric} | macro avg | {m.uk:.3f} | {m.en:.3f} | {diff} | {ci} |" in md
    # English stereotyped: gap 1 on every stratum; the Ukrainian random run's is lower
    gap = macro.set_index("metric").loc["signed_bias_gap"]
    assert gap["en"] == 1.0 and gap["diff"] == pytest.approx(gap["uk"] - 1.0)
    strata = _cells(html, "strata")
    assert len(strata) == len(table) - len(macro)


def test_agreement_occupations_and_identities(written: Path) -> None:
    xl = written / "xl"
    html = (xl / "crosslingual.html").read_text(encoding="utf-8")
    agree = pd.read_csv(xl / "crosslingual_agreement.csv")
    rows = _cells(html, "agreement")
    cols = ["condition", "rows", "both_right", "only_en_right", "only_uk_right", "both_wrong"]
    assert [r[:6] for r in rows] == [[str(v) for v in a] for a in agree[cols].to_numpy()]
    total = agree.set_index("condition").loc["all"]
    assert total["rows"] == 28 == total[cols[2:]].sum()
    occ = pd.read_csv(xl / "crosslingual_occupations.csv")
    shown = _cells(html, "occupations")
    assert [r[0] for r in shown] == list(occ["occupation"])
    assert [r[5] for r in shown] == [f"{d:+.3f}" for d in occ["diff"]]
    for lang in ("uk", "en"):
        manifest = winoscope.results.rundir.load_run_dir(written / lang).manifest
        assert manifest["dataset"]["table_sha256"] in html
        assert f"<code>winobias-{lang}</code>" in html
    assert "baseline:random" in html and "baseline:stereotype" in html
    # two baselines, allowed: the page says so before any number
    assert html.index("Different models (allowed by allow_different_models)") < html.index(
        'id="summary"'
    )


def test_figure_files_are_a_png_and_an_svg(written: Path) -> None:
    plots = written / "xl" / "plots"
    png = (plots / "forest_crosslingual.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert width > 600 and height > 200
    root = ET.parse(plots / "forest_crosslingual.svg").getroot()
    assert root.tag.endswith("svg")
    html = (written / "xl" / "crosslingual.html").read_text(encoding="utf-8")
    assert html.count('<img src="data:image/png;base64,') == 1


def _browser_helpers() -> Any:
    """tests/report/test_report_browser.py (on the path only when that folder is collected)."""
    name = "test_report_browser"
    if name not in sys.modules:
        path = Path(__file__).resolve().parents[1] / "report" / f"{name}.py"
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        sys.modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[name])
    return sys.modules[name]


def test_page_renders_in_chromium(written: Path, tmp_path: Path) -> None:
    h = _browser_helpers()
    ARTIFACTS, CHROMIUM, QuietHandler, _unavailable, open_in_chromium = (
        h.ARTIFACTS, h.CHROMIUM, h.QuietHandler, h._unavailable, h.open_in_chromium
    )  # fmt: skip
    if not CHROMIUM.exists() and shutil.which("chromium") is None:
        _unavailable("chromium not installed (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the playwright package is not installed")
    handler = functools.partial(QuietHandler, directory=str(written / "xl"))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/crosslingual.html"
        got = open_in_chromium(
            sync_playwright, url, tmp_path / "profile", ARTIFACTS / "crosslingual.png"
        )
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert got["status"] == 200 and got["console_errors"] == [] and got["foreign_requests"] == []
    assert [i["complete"] and i["w"] > 0 for i in got["images"]] == [True]
    visible = {t["id"]: t["visible"] and t["rows"] > 0 for t in got["tables"]}
    assert visible == {"summary": True, "agreement": True, "occupations": True, "strata": True}
