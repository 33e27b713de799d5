"""The HTTP/1.1 client of the openai backend against real sockets: framing, encodings,
keep-alive, TLS, timeouts and broken servers."""

from __future__ import annotations

import asyncio
import gzip
import json
import ssl
import zlib
from collections.abc import Callable

import pytest
import trustme

from test_openai_backend import make_requests
from winoscope.backends import create_backend
from winoscope.backends.http1 import ConnectionPool, Endpoint, HttpProtocolError
from winoscope.errors import BackendError
from winoscope.records import Request
from winoscope.testing.openai_server import StubBehaviour, pick_letter, serve_in_thread

Replier = Callable[[int, bytes], bytes | None]  # (request number, request) -> raw answer


class RawServer(asyncio.Protocol):
    """Answers each request with the bytes ``reply`` gives (``None``: close at once)."""

    def __init__(self, reply: Replier, log: list[bytes]) -> None:
        self.reply, self.log, self.buf = reply, log, b""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buf += data
        while b"\r\n\r\n" in self.buf:
            head, rest = self.buf.split(b"\r\n\r\n", 1)
            length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
            if len(rest) < length:
                return
            request, self.buf = head + b"\r\n\r\n" + rest[:length], rest[length:]
            self.log.append(request)
            answer = self.reply(len(self.log), request)
            if answer is None:
                self.transport.close()  # type: ignore[attr-defined]
                return
            self.transport.write(answer)  # type: ignore[attr-defined]
            if answer.startswith(b"HTTP/1.0"):
                self.transport.close()  # type: ignore[attr-defined]


def run_against(reply: Replier, bodies: list[bytes], timeout: float = 5.0) -> tuple[list, list]:
    """POST each body in turn on one pool; returns the answers (or exceptions) and the log."""
    log: list[bytes] = []

    async def main() -> list:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(lambda: RawServer(reply, log), "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        endpoint = Endpoint.parse(f"http://127.0.0.1:{port}/v1/x", {"Authorization": "Bearer k"})
        pool = ConnectionPool(timeout)
        out: list = []
        for body in bodies:
            try:
                out.append(await pool.post(endpoint, body))
            except Exception as exc:  # the test inspects what was raised
                out.append(exc)
        pool.close()
        server.close()
        out.append(pool.opened)
        return out

    return asyncio.run(main()), log


def answer(body: bytes, *headers: str, status: str = "200 OK") -> bytes:
    head = [f"HTTP/1.1 {status}", *headers]
    if not any(h.lower().startswith("transfer-encoding") for h in headers):
        head.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def test_request_head_and_plain_answers_on_one_connection() -> None:
    out, log = run_against(lambda n, r: answer(b'{"n": %d}' % n), [b"{}", b'{"a": 1}'])
    first, second, opened = out
    assert (first.status, first.body, second.body) == (200, b'{"n": 1}', b'{"n": 2}')
    assert first.headers["content-length"] == "8"
    assert opened == 1  # kept alive
    head = log[0].decode()
    assert head.startswith("POST /v1/x HTTP/1.1\r\n")
    assert "Host: 127.0.0.1:" in head and "Authorization: Bearer k" in head
    assert "Content-Type: application/json" in head and head.endswith("\r\n\r\n{}")


def test_chunked_gzip_and_deflate_bodies_are_decoded() -> None:
    payload = json.dumps({"choices": [{"message": {"content": "Б"}}]}).encode()
    chunked = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        + b"%x\r\n%s\r\n" % (10, payload[:10])
        + b"%x\r\n%s\r\n" % (len(payload) - 10, payload[10:])
        + b"0\r\n\r\n"
    )
    replies = [
        chunked,
        answer(gzip.compress(payload), "Content-Encoding: gzip"),
        answer(zlib.compress(payload), "Content-Encoding: deflate"),
        answer(b"xx", "Content-Encoding: br"),
        answer(b"not gzip", "Content-Encoding: gzip"),
    ]
    out, _ = run_against(lambda n, r: replies[n - 1], [b"{}"] * 5)
    assert [o.body for o in out[:3]] == [payload] * 3
    assert isinstance(out[3], HttpProtocolError) and "br" in str(out[3])
    assert isinstance(out[4], HttpProtocolError) and "gzip" in str(out[4])


def test_connection_close_and_stale_keep_alive_open_fresh_connections() -> None:
    # 1: answered with Connection: close; 2: answered; 3: the server drops the kept-alive
    # connection without answering (as after an idle timeout) -> retried on a new one
    def reply(n: int, request: bytes) -> bytes | None:
        if n == 1:
            return answer(b"{}", "Connection: close")
        if n == 3:
            return None
        return answer(b'{"n": %d}' % n)

    out, log = run_against(reply, [b"{}", b"{}", b"{}"])
    assert [o.status for o in out[:3]] == [200, 200, 200]
    assert out[2].body == b'{"n": 4}' and len(log) == 4
    assert out[3] == 3  # connections opened: after the close, and after the drop


def test_interim_answers_are_skipped() -> None:
    interim = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 102 Processing\r\n\r\n"
    out, _ = run_against(lambda n, r: interim + answer(b'{"ok": 1}'), [b"{}", b"{}"])
    assert [(o.status, o.body) for o in out[:2]] == [(200, b'{"ok": 1}')] * 2
    assert out[2] == 1


def test_a_body_that_ends_with_the_connection() -> None:
    replies = [b'HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n{"a": 1}', answer(b"{}")]
    out, _ = run_against(lambda n, r: replies[n - 1], [b"{}", b"{}"])
    assert (out[0].status, out[0].body) == (200, b'{"a": 1}')
    assert out[1].body == b"{}" and out[2] == 2  # the closed connection is not reused


def test_broken_answers_raise_clear_errors() -> None:
    def reply(n: int, request: bytes) -> bytes | None:
        return b"SMTP ready\r\n\r\n" if n == 1 else None

    out, _ = run_against(reply, [b"{}", b"{}"])
    assert isinstance(out[0], HttpProtocolError) and "unreadable" in str(out[0])
    # a fresh connection closed before answering is not retried by the pool
    assert isinstance(out[1], ConnectionResetError)


def test_a_server_that_never_answers_times_out() -> None:
    out, _ = run_against(lambda n, r: b"", [b"{}"], timeout=0.2)
    assert isinstance(out[0], TimeoutError)


def test_endpoint_parsing() -> None:
    e = Endpoint.parse("https://api.example.org/v1/chat/completions?x=1")
    assert (e.tls, e.host, e.port) == (True, "api.example.org", 443)
    assert e.head.startswith(b"POST /v1/chat/completions?x=1 HTTP/1.1\r\nHost: api.example.org\r\n")
    e6 = Endpoint.parse("http://[::1]:8080/v1")
    assert (e6.host, e6.port) == ("::1", 8080) and b"Host: [::1]:8080\r\n" in e6.head
    with pytest.raises(ValueError, match="not an http"):
        Endpoint.parse("ftp://x/v1")


# ---------------------------------------------------------------------- the backend on top


def test_https_with_a_trusted_ca(tmp_path, monkeypatch) -> None:
    ca = trustme.CA()
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("localhost", "127.0.0.1").configure_cert(server_ctx)
    pem = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(pem))
    reqs = make_requests(3)
    with serve_in_thread(ssl_context=server_ctx) as srv:
        assert srv.url.startswith("https://localhost:")
        # without the CA the certificate is refused: the run stops with one clear error
        b = create_backend("openai:m", base_url=srv.url)
        with pytest.raises(BackendError, match=r"certificate is not trusted.*SSL_CERT_FILE"):
            list(b.respond(reqs))
        assert srv.calls == []
        monkeypatch.setenv("SSL_CERT_FILE", str(pem))
        b = create_backend("openai:m", base_url=srv.url, max_retries=0)
        out = {r.request_id: r for r in b.respond(reqs)}
    assert all(out[q.request_id].text == pick_letter(q.prompt) for q in reqs)


def test_spliced_request_bodies_equal_the_payload() -> None:
    tricky = Request(
        request_id="t",
        kind="forced_choice",
        prompt='лапки "так", \\ слеш, \u0000, табуляція\t, апостроф ʼ, emoji 🙂\n',
        options=(),
        row_id="r",
        item_id="i",
    )
    for mode in ("chat", "letters", "chat-letters"):
        b = create_backend("openai:m", base_url="http://x/v1", mode=mode, system='Ти "суддя"')
        for r in [*make_requests(2), tricky]:
            assert json.loads(b.encode(r)) == b.payload(r)


def test_stub_fast_path_answers_like_the_full_one() -> None:
    reqs = make_requests(20)
    with serve_in_thread(StubBehaviour(log_calls=False, latency=0.01)) as srv:
        out = {r.request_id: r for r in create_backend("openai:m", base_url=srv.url).respond(reqs)}
    assert all(out[q.request_id].text == pick_letter(q.prompt) for q in reqs)
