"""A server that echoes part of the API key: no fragment of 8 or more characters of the key
reaches a message, a file or a report (issue: the first 10 characters leaked everywhere)."""

from __future__ import annotations

import contextlib
import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path

from typer.testing import CliRunner

from winoscope.backends.openai.parse import redact
from winoscope.cli import app

SECRET = "sk-live-0123456789abcdefghij"


class EchoPrefix(http.server.BaseHTTPRequestHandler):
    """Every chat request fails with a 500 whose body quotes pieces of the bearer token."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        token = self.headers.get("authorization", "").removeprefix("Bearer ")
        body = json.dumps(
            {
                "error": f"invalid key {token[:10]}... (ends {token[-9:]}); "
                f"middle {token[5:17]}; answer: {token[:10]}",
            }
        ).encode()
        self.send_response(500)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@contextlib.contextmanager
def serve() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), EchoPrefix)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def fragments(key: str, n: int = 8) -> set[str]:
    return {key[i : i + n] for i in range(len(key) - n + 1)}


def test_redact_masks_every_fragment_of_eight_or_more() -> None:
    assert redact(f"x {SECRET[:10]} y", SECRET) == "x *** y"
    assert redact(f"{SECRET[3:11]}|{SECRET[-8:]}", SECRET) == "***|***"
    assert redact(f"only {SECRET[:7]} here", SECRET) == f"only {SECRET[:7]} here"  # 7: kept
    assert redact("short key abc", "abc") == "short key ***"


def test_echoed_key_prefix_is_masked_in_stderr_and_every_file(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    out = tmp_path / "run"
    with serve() as url:
        res = CliRunner().invoke(
            app,
            ["run", "winobias-uk", "-m", "openai:stub", "--base-url", url, "--out", str(out),
             "--max-retries", "0", "--bootstrap", "20", "--quiet", "--limit", "1"],
            catch_exceptions=False,
        )  # fmt: skip
    assert res.exit_code == 3, res.output  # nothing answered: the run says so
    assert "invalid key ***" in res.output  # the failure is shown, the key is not
    texts = {"terminal": res.output}
    files = [p for p in out.rglob("*") if p.is_file()]
    assert {"manifest.json", "metrics.json", "report.md"} <= {p.name for p in files}
    texts.update({str(p): p.read_bytes().decode("utf-8", "replace") for p in files})
    leaks = {(where, f) for where, text in texts.items() for f in fragments(SECRET) if f in text}
    assert not leaks, sorted(leaks)[:5]
