"""A lean HTTP/1.1 client for many small JSON POSTs to a few OpenAI-compatible servers.

Why not a general client: with hundreds of requests in flight, a general asyncio HTTP client
spends 100-150 us of CPU on each request (request and response objects, header multidicts,
cookie jars, tracing hooks, per-request timers), which caps one core at a few thousand requests
per second and holds 256 in-flight requests at 50 ms latency to about 0.8 of the rate the server
allows. This client keeps one :class:`asyncio.Protocol` per keep-alive connection, sends each
request as one write of a pre-encoded head and the body, and leaves HTTP parsing to
``httptools`` (llhttp, the parser of Node.js), so a request costs about 40 us.

What it does: keep-alive pools per origin, ``Content-Length`` and chunked bodies, gzip/deflate
bodies (although it asks for none), TLS through :mod:`ssl` with the system's trust store
(``SSL_CERT_FILE`` honoured), a stale keep-alive connection retried once on a fresh one, a total
timeout per request. What it leaves out, as the OpenAI endpoints need none of it: proxies,
redirects, cookies, HTTP/2.
"""

from __future__ import annotations

import asyncio
import ssl
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple
from urllib.parse import urlsplit

import httptools


class HttpProtocolError(Exception):
    """The server's bytes are not a readable HTTP/1.1 response."""


class HttpAnswer(NamedTuple):
    status: int
    headers: dict[str, str]  # lower-case names
    body: bytes


@dataclass(frozen=True)
class Endpoint:
    """One URL to POST to, with the head of every request to it encoded once."""

    url: str
    tls: bool
    host: str
    port: int
    head: bytes = field(repr=False)

    @property
    def origin(self) -> tuple[bool, str, int]:
        return (self.tls, self.host, self.port)

    @classmethod
    def parse(cls, url: str, headers: Mapping[str, str] | None = None) -> Endpoint:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {url!r}")
        tls = parts.scheme == "https"
        port = parts.port or (443 if tls else 80)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        host = parts.hostname
        host_header = f"[{host}]" if ":" in host else host
        if parts.port is not None:
            host_header += f":{port}"
        lines = [
            f"POST {target} HTTP/1.1",
            f"Host: {host_header}",
            "User-Agent: winoscope",
            "Accept: application/json",
            "Accept-Encoding: identity",
            "Content-Type: application/json",
            *(f"{k}: {v}" for k, v in (headers or {}).items()),
        ]
        head = ("\r\n".join(lines) + "\r\nContent-Length: ").encode("latin-1")
        return cls(url=url, tls=tls, host=host, port=port, head=head)


class _Connection(asyncio.Protocol):
    """One keep-alive connection; at most one request on it at a time."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.parser = httptools.HttpResponseParser(self)
        self.waiter: asyncio.Future[HttpAnswer] | None = None
        self.headers: dict[str, str] = {}
        self.chunks: list[bytes] = []
        self.got_bytes = False
        self.closed = False
        self.keep_alive = True
        self.until_close = False  # the answer's body runs to the end of the connection

    # asyncio callbacks
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.got_bytes = True
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self._fail(HttpProtocolError("the server switched protocols"))
        except httptools.HttpParserError as exc:
            self._fail(HttpProtocolError(f"unreadable HTTP response: {exc}"))

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.until_close and exc is None:
            # a body without length or chunks ends where the server closes (HTTP/1.0 style)
            self.keep_alive = False
            self.on_message_complete()
        if self.waiter is not None and not self.waiter.done():
            what = "the server closed the connection before answering"
            self.waiter.set_exception(ConnectionResetError(f"{what}{f': {exc}' if exc else ''}"))

    # httptools callbacks
    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers[name.decode("latin-1").lower()] = value.decode("latin-1")

    def on_headers_complete(self) -> None:
        h = self.headers
        self.until_close = (
            "content-length" not in h
            and "transfer-encoding" not in h
            and self.parser.get_status_code() not in (204, 304)
        )

    def on_body(self, body: bytes) -> None:
        self.chunks.append(body)

    def on_message_complete(self) -> None:
        self.until_close = False
        chunks, headers = self.chunks, self.headers
        self.chunks, self.headers = [], {}
        status = self.parser.get_status_code()
        if 100 <= status < 200:  # an interim answer: the real one follows
            return
        body = chunks[0] if len(chunks) == 1 else b"".join(chunks)
        self.keep_alive = self.parser.should_keep_alive()
        waiter, self.waiter = self.waiter, None
        if waiter is None or waiter.done():
            return
        try:
            body = _decode_body(body, headers.get("content-encoding", ""))
        except HttpProtocolError as exc:
            waiter.set_exception(exc)
            return
        waiter.set_result(HttpAnswer(status, headers, body))

    # ours
    def _fail(self, exc: Exception) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_exception(exc)
        self.abort()

    def abort(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.abort()

    async def request(self, data: bytes) -> HttpAnswer:
        assert self.transport is not None
        self.waiter = asyncio.get_running_loop().create_future()
        self.got_bytes = False
        self.transport.write(data)
        return await self.waiter


def _decode_body(body: bytes, encoding: str) -> bytes:
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return body
    try:
        if encoding in ("gzip", "x-gzip"):
            return zlib.decompress(body, 16 + zlib.MAX_WBITS)
        if encoding == "deflate":
            try:
                return zlib.decompress(body)
            except zlib.error:
                return zlib.decompress(body, -zlib.MAX_WBITS)  # raw deflate, as some servers send
    except zlib.error as exc:
        raise HttpProtocolError(f"cannot decode a {encoding} body: {exc}") from None
    raise HttpProtocolError(f"unsupported Content-Encoding {encoding!r}")


class ConnectionPool:
    """Keep-alive connections per origin for one event loop; ``post`` is safe to run
    concurrently, each call using a connection no other call holds.

    Timeouts are kept by one watchdog per pool that wakes a few times per ``timeout`` and
    fails the requests past their deadline, instead of a timer per request (a timer costs
    as much CPU as parsing the response). A request therefore times out between ``timeout``
    and ``1.25 * timeout`` seconds after it started.
    """

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._idle: dict[tuple[bool, str, int], list[_Connection]] = {}
        self._busy: dict[_Connection, float] = {}  # deadline of the request on each
        self._ssl: ssl.SSLContext | None = None
        self._watchdog: asyncio.Task[None] | None = None
        self.opened = 0

    async def post(self, endpoint: Endpoint, body: bytes) -> HttpAnswer:
        """POST ``body``; raises ``TimeoutError``, ``OSError``/``ConnectionError`` or
        :class:`HttpProtocolError`. The timeout covers connecting, sending and reading."""
        loop = asyncio.get_running_loop()
        if self._watchdog is None:
            self._watchdog = loop.create_task(self._watch())
        deadline = loop.time() + self.timeout
        data = endpoint.head + b"%d\r\n\r\n" % len(body) + body
        for attempt in (0, 1):
            conn, reused = await self._acquire(endpoint, deadline)
            self._busy[conn] = deadline
            try:
                answer = await conn.request(data)
            except ConnectionError:
                conn.abort()
                # a keep-alive connection the server had closed meanwhile: it never read the
                # request, so one more try on a fresh connection is safe
                if reused and not conn.got_bytes and attempt == 0:
                    continue
                raise
            except BaseException:
                conn.abort()  # cancelled or timed out mid-request: its state is unknown
                raise
            finally:
                self._busy.pop(conn, None)
            if conn.keep_alive and not conn.closed:
                self._idle.setdefault(endpoint.origin, []).append(conn)
            else:
                conn.abort()
            return answer
        raise AssertionError("unreachable")  # pragma: no cover

    async def _watch(self) -> None:
        loop = asyncio.get_running_loop()
        period = min(1.0, self.timeout / 4)
        while True:
            await asyncio.sleep(period)
            now = loop.time()
            late = [c for c, deadline in self._busy.items() if deadline <= now]
            for conn in late:
                self._busy.pop(conn, None)
                conn._fail(TimeoutError(f"no answer within {self.timeout:g} s"))

    async def _acquire(self, endpoint: Endpoint, deadline: float) -> tuple[_Connection, bool]:
        idle = self._idle.get(endpoint.origin)
        while idle:
            conn = idle.pop()
            if not conn.closed:
                return conn, True
        loop = asyncio.get_running_loop()
        context = self._ssl_context() if endpoint.tls else None
        async with asyncio.timeout_at(deadline):
            _, conn = await loop.create_connection(
                _Connection,
                endpoint.host,
                endpoint.port,
                ssl=context,
                server_hostname=endpoint.host if context else None,
            )
        self.opened += 1
        return conn, False

    def _ssl_context(self) -> ssl.SSLContext:
        if self._ssl is None:
            self._ssl = ssl.create_default_context()
        return self._ssl

    def close(self) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
        for conn in list(self._busy):
            conn.abort()
        for conns in self._idle.values():
            for conn in conns:
                conn.abort()
        self._idle.clear()
