"""The prompt-sensitivity report page in headless Chromium (next to the run report's browser
checks, whose helpers it uses)."""

from __future__ import annotations

from pathlib import Path

from winoscope.studies.sensitivity import run_templates


def test_report_page_in_a_real_browser(tmp_path: Path) -> None:
    """The page opens in headless Chromium: figure decoded, tables shown, nothing fetched from
    elsewhere, and a template's text that holds markup is shown as text."""
    import functools
    import http.server
    import shutil
    import threading

    from test_report_browser import ARTIFACTS, CHROMIUM, QuietHandler, _unavailable

    if not CHROMIUM.exists() and shutil.which("chromium") is None:
        _unavailable("chromium not installed (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the playwright package is not installed")
    from test_report_browser import open_in_chromium

    hostile = "<script>alert(1)</script>{sentence}\nA. {option_a}\nB. {option_b}\n<b>Answer</b>:"
    out = tmp_path / "site"
    run_templates("winobias-uk", "baseline:random", ["uk-default-v1", hostile], out=out, n_boot=50)
    handler = functools.partial(QuietHandler, directory=str(out))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/report.html"
        got = open_in_chromium(
            sync_playwright, url, tmp_path / "profile", ARTIFACTS / "sensitivity_report.png"
        )
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert got["status"] == 200 and got["console_errors"] == [] and got["foreign_requests"] == []
    assert got["scripts"] == 0 and "<script>alert(1)</script>" in got["text"]
    assert [i["w"] > 0 for i in got["images"]] == [True]
    visible = {t["id"]: t["visible"] for t in got["tables"]}
    assert visible["summary"] and visible["templates"]
    assert "custom" in got["text"] and "two-level" in got["text"]
