"""The HTML reports opened in a real headless Chromium (Debian ``chromium``) over localhost.

Checks that the tables render, every image decodes (naturalWidth > 0), the console stays clean,
and nothing is fetched from anywhere but the local server (the page is self-contained). A
full-page screenshot is saved under ``test-artifacts/``. In CI (``CI=true``) a missing browser
is a failure, not a skip.
"""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from report_helpers import inject_markup
from shared_paths import ROOT, in_ci
from winoscope.report import write_run
from winoscope.report.compare import compare_runs
from winoscope.runs.runner import run

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _unavailable(message: str) -> None:
    if in_ci():
        pytest.fail(message + " (required in CI)")
    pytest.skip(message)


@pytest.fixture(scope="module")
def sync_playwright() -> Any:
    if not CHROMIUM.exists() and shutil.which("chromium") is None:
        _unavailable("chromium not installed (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright as sp
    except ImportError:
        _unavailable("the playwright package is not installed")
    return sp


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two runs (one with sentence and answer text that tries to inject markup) and their
    comparison."""
    root = tmp_path_factory.mktemp("reports")
    hostile = run("winobias-uk", "baseline:stereotype", n_boot=200, seed=1)
    inject_markup(hostile)
    write_run(hostile, root / "baseline_stereotype")
    run("winobias-uk", "baseline:random", out=root / "baseline_random", n_boot=200, seed=1)
    run("winopron-uk", "baseline:stereotype", out=root / "winopron", n_boot=200, seed=1)
    compare_runs([root / "baseline_stereotype", root / "baseline_random"], root / "cmp")
    return root


@pytest.fixture(scope="module")
def server(reports: Path) -> Iterator[str]:
    handler = functools.partial(QuietHandler, directory=str(reports))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def open_in_chromium(
    sync_playwright: Any, url: str, profile: Path, screenshot: Path
) -> dict[str, Any]:
    """Load ``url``, collect what the page did, save a full-page screenshot."""
    console_errors: list[str] = []
    foreign: list[str] = []
    origin = url.split("/", 3)[:3]
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            user_data_dir=str(profile),
            executable_path=str(CHROMIUM if CHROMIUM.exists() else shutil.which("chromium")),
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 900},
        )
        try:
            page = context.new_page()
            page.on(
                "console", lambda m: console_errors.append(m.text) if m.type == "error" else None
            )
            page.on("pageerror", lambda e: console_errors.append(str(e)))
            page.on(
                "request",
                lambda r: (
                    None
                    if r.url.startswith("data:") or r.url.split("/", 3)[:3] == origin
                    else foreign.append(r.url)
                ),
            )
            response = page.goto(url, wait_until="load")
            status = response.status if response else None
            images = page.evaluate(
                "Array.from(document.images).map(i => ({complete: i.complete, "
                "w: i.naturalWidth, h: i.naturalHeight, alt: i.alt}))"
            )
            tables = page.evaluate(
                "Array.from(document.querySelectorAll('table')).map(t => ({id: t.id, "
                "rows: t.querySelectorAll('tbody tr').length, visible: t.offsetHeight > 0}))"
            )
            scripts = page.evaluate("document.querySelectorAll('script').length")
            text = page.inner_text("body")
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(screenshot), full_page=True)
        finally:
            context.close()
    return {
        "status": status,
        "images": images,
        "tables": tables,
        "scripts": scripts,
        "text": text,
        "console_errors": console_errors,
        "foreign_requests": foreign,
    }


def macro_metrics(run_dir: Path) -> int:
    m = pd.read_csv(run_dir / "metrics.csv")
    return int(m.loc[m["split"] == "macro", "metric"].nunique())


def test_run_report_renders_in_chromium(
    sync_playwright: Any, server: str, reports: Path, tmp_path: Path
) -> None:
    seen = open_in_chromium(
        sync_playwright,
        f"{server}/baseline_stereotype/report.html",
        tmp_path / "profile",
        ARTIFACTS / "report.png",
    )
    assert seen["status"] == 200
    assert seen["console_errors"] == []
    assert seen["foreign_requests"] == []
    assert seen["scripts"] == 0  # the injected <script> stayed text
    assert "<script>alert(1)</script>" in seen["text"]
    # pro vs anti, signed gap and per-occupation plots, all decoded
    assert len(seen["images"]) == 3
    for img in seen["images"]:
        assert img["complete"] and img["w"] > 0 and img["h"] > 0, img
    tables = {t["id"]: t for t in seen["tables"]}
    # one row per macro metric of the run's metrics.csv
    assert tables["metrics"]["visible"]
    assert tables["metrics"]["rows"] == macro_metrics(reports / "baseline_stereotype") == 10
    assert tables["examples"]["rows"] > 0
    assert "signed_bias_gap" in seen["text"] and "Manifest" in seen["text"]
    assert (ARTIFACTS / "report.png").stat().st_size > 10_000


def test_compare_report_renders_in_chromium(
    sync_playwright: Any, server: str, tmp_path: Path
) -> None:
    seen = open_in_chromium(
        sync_playwright,
        f"{server}/cmp/compare.html",
        tmp_path / "profile",
        ARTIFACTS / "compare.png",
    )
    assert seen["status"] == 200
    assert seen["console_errors"] == []
    assert seen["foreign_requests"] == []
    assert len(seen["images"]) >= 1
    for img in seen["images"]:
        assert img["complete"] and img["w"] > 0 and img["h"] > 0, img
    assert any(t["rows"] >= 2 and t["visible"] for t in seen["tables"])
    assert "baseline:stereotype" in seen["text"] and "baseline:random" in seen["text"]


def test_winopron_report_renders_in_chromium(
    sync_playwright: Any, server: str, reports: Path, tmp_path: Path
) -> None:
    """Male/female/plural scores; many strata, so macro and by-stratum tables."""
    seen = open_in_chromium(
        sync_playwright,
        f"{server}/winopron/report.html",
        tmp_path / "profile",
        ARTIFACTS / "report-winopron.png",
    )
    assert seen["status"] == 200
    assert seen["console_errors"] == [] and seen["foreign_requests"] == []
    assert [i["alt"] for i in seen["images"]] == [
        "Scores by pronoun gender",
        "Signed gap with 95% interval",
        "Per-occupation behaviour",
    ]
    for img in seen["images"]:
        assert img["complete"] and img["w"] > 0 and img["h"] > 0, img
    tables = {t["id"]: t for t in seen["tables"]}
    assert tables["metrics"]["visible"] and tables["metrics-2"]["visible"]
    assert tables["metrics"]["rows"] == macro_metrics(reports / "winopron") == 17
    assert "female − male accuracy" in seen["text"]
