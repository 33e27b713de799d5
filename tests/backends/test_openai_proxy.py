"""Requests through a real forward HTTP proxy started in the test: from the environment
(``HTTP_PROXY``/``NO_PROXY``), from ``proxy=``, with credentials, and what the manifest says."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from aiohttp import ClientSession, web
from test_openai_backend import ask, make_requests

from winoscope.errors import BackendError
from winoscope.testing.openai_server import pick_letter, serve_in_thread

PROXY_VARS = ["http_proxy", "https_proxy", "all_proxy", "no_proxy"]


@dataclass
class Proxy:
    url: str
    seen: list[str] = field(default_factory=list)  # absolute URLs forwarded


HOP = {"connection", "keep-alive", "proxy-authorization", "proxy-connection", "te", "trailer",
       "transfer-encoding", "upgrade", "host", "content-length"}  # fmt: skip


@contextlib.contextmanager
def forward_proxy(user: str | None = None, password: str | None = None) -> Iterator[Proxy]:
    """A plain HTTP forward proxy (absolute-form requests) on aiohttp; with ``user``, it
    answers 407 unless the request carries those credentials."""
    loop = asyncio.new_event_loop()
    state: dict = {}
    ready = threading.Event()
    want = (
        None
        if user is None
        else "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
    )

    async def handle(request: web.Request) -> web.StreamResponse:
        if want is not None and request.headers.get("Proxy-Authorization") != want:
            return web.Response(status=407, headers={"Proxy-Authenticate": 'Basic realm="t"'})
        target = str(request.url)
        if not request.raw_path.startswith("http://"):
            return web.Response(status=400, text="not a proxy request")
        target = request.raw_path
        state["proxy"].seen.append(target)
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP}
        headers["Via"] = "1.1 test-proxy"
        async with state["session"].request(
            request.method, target, data=await request.read(), headers=headers,
            allow_redirects=False,
        ) as upstream:  # fmt: skip
            body = await upstream.read()
            out = {k: v for k, v in upstream.headers.items() if k.lower() not in HOP}
            out.pop("Content-Encoding", None)
            return web.Response(status=upstream.status, body=body, headers=out)

    async def start() -> None:
        state["session"] = ClientSession(auto_decompress=True)
        runner = web.AppRunner(web.Application(), handle_signals=False)
        runner.app.router.add_route("*", "/{tail:.*}", handle)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        state["runner"] = runner
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        state["proxy"] = Proxy(f"http://127.0.0.1:{port}")

    def main() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(start())
        ready.set()
        loop.run_forever()
        loop.run_until_complete(state["session"].close())
        loop.run_until_complete(state["runner"].cleanup())
        loop.close()

    thread = threading.Thread(target=main, daemon=True)
    thread.start()
    assert ready.wait(10)
    try:
        yield state["proxy"]
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)


@pytest.fixture(autouse=True)
def no_proxy_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


def test_http_proxy_from_the_environment_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    reqs = make_requests(3)
    with serve_in_thread() as srv, forward_proxy() as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        out = ask(srv.url, reqs)
        vias = {c.via for c in srv.calls}
    assert [out[r.request_id].text for r in reqs] == [pick_letter(r.prompt) for r in reqs]
    assert len(proxy.seen) == 6 and all(u.startswith(srv.url) for u in proxy.seen)
    assert vias == {"1.1 test-proxy"}


def test_no_proxy_and_no_environment_go_direct(monkeypatch: pytest.MonkeyPatch) -> None:
    reqs = make_requests(2)
    with serve_in_thread() as srv, forward_proxy() as proxy:
        out = ask(srv.url, reqs)  # proxy off: no variable set
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
        out.update(ask(srv.url, reqs))
        vias = {c.via for c in srv.calls}
    assert all(r.ok for r in out.values())
    assert proxy.seen == [] and vias == {None}


def test_the_proxy_option_overrides_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    reqs = make_requests(2)
    with serve_in_thread() as srv, forward_proxy() as used, forward_proxy() as ignored:
        monkeypatch.setenv("HTTP_PROXY", ignored.url)
        out = ask(srv.url, reqs, proxy=used.url)
    assert all(r.ok for r in out.values())
    assert len(used.seen) == 4 and ignored.seen == []


def test_proxy_credentials_are_sent_and_a_refusal_stops_the_run() -> None:
    reqs = make_requests(2)
    with serve_in_thread() as srv, forward_proxy("eval", "pr0xy-s3cret") as proxy:
        port = proxy.url.rsplit(":", 1)[1]
        out = ask(srv.url, reqs, proxy=f"http://eval:pr0xy-s3cret@127.0.0.1:{port}")
        assert all(r.ok for r in out.values()) and len(proxy.seen) == 4
        with pytest.raises(BackendError, match=r"HTTP 407 \(proxy authentication required\)"):
            ask(srv.url, reqs, proxy=proxy.url)


def test_the_manifest_says_a_proxy_was_used_and_never_its_credentials(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with serve_in_thread() as srv, forward_proxy("eval", "pr0xy-s3cret") as proxy:
        port = proxy.url.rsplit(":", 1)[1]
        env = {k: v for k, v in os.environ.items() if k.lower() not in PROXY_VARS}
        env["HTTP_PROXY"] = f"http://eval:pr0xy-s3cret@127.0.0.1:{port}"

        def cmd(where: Path) -> list[str]:
            return [sys.executable, "-m", "winoscope.cli", "run", "winobias-uk", "--model",
                    "openai:stub", "--base-url", srv.url, "--out", str(where), "--bootstrap",
                    "10", "--quiet"]  # fmt: skip

        proc = subprocess.run(cmd(out), capture_output=True, text=True, env=env, timeout=300)
        n_proxied = len(proxy.seen)
        direct = subprocess.run(
            cmd(tmp_path / "direct"),
            capture_output=True,
            text=True,
            env={**env, "NO_PROXY": "127.0.0.1"},
            timeout=300,
        )
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["transport"] == {"proxy": True, "proxy_source": "environment"}
    assert n_proxied == manifest["requests"]
    for p in out.rglob("*"):
        if p.is_file():
            assert b"pr0xy-s3cret" not in p.read_bytes(), p
    assert "pr0xy-s3cret" not in proc.stdout + proc.stderr
    assert direct.returncode == 0, direct.stderr
    direct_manifest = json.loads((tmp_path / "direct" / "manifest.json").read_text())
    assert direct_manifest["transport"] == {"proxy": False, "proxy_source": None}


@contextlib.contextmanager
def tinyproxy(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """Debian's tinyproxy in the foreground on a free port; yields its URL and its log."""
    import shutil
    import socket
    import time

    exe = shutil.which("tinyproxy")
    if exe is None:
        pytest.skip("tinyproxy is not installed (.ci/run installs it: apt-get install tinyproxy)")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = tmp_path / "tinyproxy.log"
    conf = tmp_path / "tinyproxy.conf"
    conf.write_text(
        f"Port {port}\nListen 127.0.0.1\nTimeout 30\nMaxClients 100\nLogLevel Info\n"
        f'LogFile "{log}"\nAllow 127.0.0.1\n'
    )
    proc = subprocess.Popen([exe, "-d", "-c", str(conf)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        deadline = time.time() + 10
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                break
            assert proc.poll() is None and time.time() < deadline, "tinyproxy did not start"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}", log
    finally:
        proc.terminate()
        proc.wait(10)


def test_https_through_tinyproxy_with_connect(tmp_path: Path, monkeypatch) -> None:
    import ssl

    import trustme

    ca = trustme.CA()
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("localhost", "127.0.0.1").configure_cert(server_ctx)
    pem = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(pem))
    monkeypatch.setenv("SSL_CERT_FILE", str(pem))
    reqs = make_requests(3)
    with tinyproxy(tmp_path) as (proxy_url, log), serve_in_thread(ssl_context=server_ctx) as srv:
        monkeypatch.setenv("HTTPS_PROXY", proxy_url)
        out = ask(srv.url, reqs)
    assert [out[r.request_id].text for r in reqs] == [pick_letter(r.prompt) for r in reqs]
    text = log.read_text()
    assert f"CONNECT localhost:{srv.port}" in text  # tunnelled through the proxy


def test_http_through_tinyproxy(tmp_path: Path, monkeypatch) -> None:
    reqs = make_requests(2)
    with tinyproxy(tmp_path) as (proxy_url, log), serve_in_thread() as srv:
        monkeypatch.setenv("HTTP_PROXY", proxy_url)
        out = ask(srv.url, reqs)
        vias = {c.via for c in srv.calls}
    assert all(r.ok for r in out.values())
    assert len(vias) == 1 and "tinyproxy" in str(vias.pop())
    assert f"POST {srv.url}/chat/completions" in log.read_text()
