"""A local OpenAI-compatible server with injected latency and faults.

It answers ``/v1/chat/completions`` and ``/v1/completions`` for any model name, picking option
``A`` or ``B`` from a hash of the prompt (so answers are deterministic and differ across
prompts), and logs every call. Faults are injected per prompt by call number: with
``faults=("429", "500")`` the first call for each prompt gets a 429, the second a 500 and the
third the answer. Fault names:

``429`` (with ``Retry-After: retry_after``), ``500``, ``503``, ``400``, ``401``, ``timeout``
(sleeps ``hang`` seconds before answering), ``drop`` (closes the connection without a
response), ``garbage`` (200 with a body that is not JSON), ``empty`` (200 with no body),
``nochoices`` (200 with JSON that lacks ``choices``).

``poison`` lists prompt substrings whose every call gets the first fault (a request that can
never succeed). Run it in a thread (:func:`serve_in_thread`) or as a process::

    python -m winoscope.testing.openai_server --port 8000 --latency 0.05
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import hashlib
import json
import ssl
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import httptools


def pick_letter(prompt: str) -> str:
    """The stand-in's answer: ``A`` when the prompt's sha256 starts with an even byte."""
    return "A" if hashlib.sha256(prompt.encode("utf-8")).digest()[0] % 2 == 0 else "B"


@dataclass
class Call:
    path: str
    prompt: str
    model: str
    authorization: str | None
    outcome: str
    at: float


@dataclass
class StubBehaviour:
    latency: float = 0.0
    faults: Sequence[str] = ()
    poison: Sequence[str] = ()
    retry_after: str = "0"
    hang: float = 5.0
    calls: list[Call] = field(default_factory=list)
    per_prompt: Counter[str] = field(default_factory=Counter)
    log_calls: bool = True
    in_flight: int = 0
    max_in_flight: int = 0

    def fault_for(self, prompt: str) -> str | None:
        n = self.per_prompt[prompt]
        self.per_prompt[prompt] += 1
        if self.faults and any(p in prompt for p in self.poison):
            return self.faults[0]
        if n < len(self.faults):
            return self.faults[n]
        return None


def _prompt_of(body: dict[str, Any]) -> str:
    if "messages" in body:
        return str(body["messages"][-1]["content"])
    return str(body.get("prompt", ""))


def answer_body(path: str, model: str, letter: str, logprobs: bool) -> dict[str, Any]:
    """The JSON answer naming ``letter`` (log-probabilities -0.25 for it, -1.5 for the other)."""
    other = "B" if letter == "A" else "A"
    base = {"id": "cmpl-stub", "created": 0, "model": model}
    if path.endswith("/chat/completions"):
        choice: dict[str, Any] = {
            "index": 0,
            "message": {"role": "assistant", "content": letter},
            "finish_reason": "stop",
        }
        if logprobs:
            choice["logprobs"] = {
                "content": [
                    {
                        "token": letter,
                        "logprob": -0.25,
                        "top_logprobs": [
                            {"token": letter, "logprob": -0.25},
                            {"token": other, "logprob": -1.5},
                            {"token": "The", "logprob": -4.0},
                        ],
                    }
                ]
            }
        return {**base, "object": "chat.completion", "choices": [choice]}
    choice = {"index": 0, "text": " " + letter, "finish_reason": "length"}
    if logprobs:
        choice["logprobs"] = {
            "tokens": [" " + letter],
            "token_logprobs": [-0.25],
            "top_logprobs": [{" " + letter: -0.25, " " + other: -1.5, "\n": -3.0}],
        }
    return {**base, "object": "text_completion", "choices": [choice]}


def _read_request(raw: bytes) -> tuple[dict[str, Any], str] | None:
    """The JSON body of a request and its prompt; ``None`` when it is not an OpenAI request."""
    try:
        body = json.loads(raw)
        return body, _prompt_of(body)
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return None


def _answer_key(path: str, body: dict[str, Any], prompt: str) -> tuple[str, str, str, bool]:
    """What the answer depends on: endpoint, model, the letter picked, log-probabilities."""
    return path, str(body.get("model", "")), pick_letter(prompt), bool(body.get("logprobs"))


@functools.lru_cache(maxsize=256)
def _answer_reply(path: str, model: str, letter: str, logprobs: bool) -> StubReply:
    """The answer, built once per distinct answer (a shared object: never changed)."""
    return StubReply(200, json.dumps(answer_body(path, model, letter, logprobs)).encode("utf-8"))


@functools.lru_cache(maxsize=512)
def _answer_bytes(path: str, model: str, letter: str, logprobs: bool, keep_alive: bool) -> bytes:
    """The answer as sent, encoded once (keeps the benchmark's server off the hot path)."""
    return _answer_reply(path, model, letter, logprobs).encoded(keep_alive)


@dataclass
class StubRequest:
    path: str
    headers: dict[str, str]  # lower-case names
    body: bytes


@dataclass
class StubReply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    drop: bool = False  # close the connection without answering

    def encoded(self, keep_alive: bool) -> bytes:
        """Status line, headers and body as sent."""
        head = [f"HTTP/1.1 {self.status} {REASONS.get(self.status, 'Status')}",
                "Content-Type: application/json", f"Content-Length: {len(self.body)}",
                *(f"{k}: {v}" for k, v in self.headers.items())]  # fmt: skip
        if not keep_alive:
            head.append("Connection: close")
        return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + self.body


REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found",
           405: "Method Not Allowed", 429: "Too Many Requests", 500: "Internal Server Error",
           503: "Service Unavailable"}  # fmt: skip


def _json_reply(payload: dict[str, Any], status: int = 200, **headers: str) -> StubReply:
    return StubReply(status, json.dumps(payload).encode("utf-8"), headers)


async def answer(behaviour: StubBehaviour, request: StubRequest) -> StubReply:
    """The reply to one request: faults, injected latency, then the answer."""
    parsed = _read_request(request.body)
    if parsed is None:
        return _json_reply({"error": "request body is not an OpenAI request"}, 400)
    body, prompt = parsed
    fault = behaviour.fault_for(prompt)
    auth = request.headers.get("authorization")
    if behaviour.log_calls:
        behaviour.calls.append(
            Call(
                path=request.path,
                prompt=prompt,
                model=str(body.get("model", "")),
                authorization=auth,
                outcome=fault or "ok",
                at=time.time(),
            )
        )
    if behaviour.latency:
        await asyncio.sleep(behaviour.latency)
    if fault == "429":
        return _json_reply({"error": "rate limited"}, 429, **{"Retry-After": behaviour.retry_after})
    if fault in {"500", "503", "400"}:
        # Echo the caller's credentials back, as some proxies do: the client must mask them.
        return _json_reply({"error": f"fault {fault}", "auth": auth or ""}, int(fault))
    if fault == "401":
        return _json_reply({"error": "bad key", "auth": auth or ""}, 401)
    if fault == "timeout":
        await asyncio.sleep(behaviour.hang)
    if fault == "drop":
        return StubReply(drop=True)
    if fault == "garbage":
        return StubReply(200, b"<html>bad gateway")
    if fault == "empty":
        return StubReply(200, b"")
    if fault == "nochoices":
        return _json_reply({"object": "chat.completion"})
    return _answer_reply(*_answer_key(request.path, body, prompt))


PATHS = ("/v1/chat/completions", "/v1/completions")


class _StubConnection(asyncio.Protocol):
    """HTTP/1.1 on one connection: requests parsed by ``httptools``, replies written in order.

    Kept this small so the stand-in server costs little CPU next to the client measured
    against it (a benchmark on 2 cores shares them between the two).
    """

    def __init__(self, behaviour: StubBehaviour) -> None:
        self.behaviour = behaviour
        self.parser = httptools.HttpRequestParser(self)
        self.transport: asyncio.Transport | None = None
        self.url = b""
        self.raw_headers: list[tuple[bytes, bytes]] = []  # decoded only when a reply needs them
        self.chunks: list[bytes] = []
        self.tail: asyncio.Future[None] | None = None  # the reply written last, for ordering

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError:
            assert self.transport is not None
            self.transport.write(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
            self.transport.close()

    def on_url(self, url: bytes) -> None:
        self.url += url

    def on_header(self, name: bytes, value: bytes) -> None:
        self.raw_headers.append((name, value))

    def on_body(self, body: bytes) -> None:
        self.chunks.append(body)

    def on_message_complete(self) -> None:
        url = self.url
        path = (url if b"?" not in url else httptools.parse_url(url).path).decode("latin-1")
        body = self.chunks[0] if len(self.chunks) == 1 else b"".join(self.chunks)
        raw_headers = self.raw_headers
        method = self.parser.get_method()
        keep_alive = self.parser.should_keep_alive()
        self.url, self.raw_headers, self.chunks = b"", [], []
        beh = self.behaviour
        if (
            not beh.faults
            and not beh.log_calls
            and method == b"POST"
            and path in PATHS
            and (self.tail is None or self.tail.done())
        ):
            # the benchmark's path: no faults, no call log, so no task per request
            parsed = _read_request(body)
            if parsed is not None:
                data = _answer_bytes(*_answer_key(path, *parsed), keep_alive)
                asyncio.get_running_loop().call_later(beh.latency, self._send, data, keep_alive)
                return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in raw_headers}
        request = StubRequest(path, headers, body)
        self.tail = asyncio.ensure_future(self._reply(request, method, keep_alive, self.tail))

    async def _reply(
        self,
        request: StubRequest,
        method: bytes,
        keep_alive: bool,
        previous: asyncio.Future[None] | None,
    ) -> None:
        beh = self.behaviour
        beh.in_flight += 1
        beh.max_in_flight = max(beh.max_in_flight, beh.in_flight)
        try:
            if request.path not in PATHS:
                reply = _json_reply({"error": f"no route {request.path}"}, 404)
            elif method != b"POST":
                reply = _json_reply({"error": "POST only"}, 405)
            else:
                reply = await answer(beh, request)
        finally:
            beh.in_flight -= 1
        if previous is not None and not previous.done():
            await previous
        self._write(reply, keep_alive)

    def _write(self, reply: StubReply, keep_alive: bool) -> None:
        if reply.drop:
            if self.transport is not None:
                self.transport.abort()
            return
        self._send(reply.encoded(keep_alive), keep_alive)

    def _send(self, data: bytes, keep_alive: bool) -> None:
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        transport.write(data)
        if not keep_alive:
            transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None


async def start_server(
    behaviour: StubBehaviour,
    host: str = "127.0.0.1",
    port: int = 0,
    ssl_context: ssl.SSLContext | None = None,
) -> asyncio.AbstractServer:
    loop = asyncio.get_running_loop()
    return await loop.create_server(
        lambda: _StubConnection(behaviour),
        host,
        port,
        backlog=4096,
        reuse_address=True,
        ssl=ssl_context,
    )


@dataclass
class RunningServer:
    url: str
    behaviour: StubBehaviour

    @property
    def calls(self) -> list[Call]:
        return self.behaviour.calls


@contextlib.contextmanager
def serve_in_thread(
    behaviour: StubBehaviour | None = None, ssl_context: ssl.SSLContext | None = None
) -> Iterator[RunningServer]:
    """Serve on 127.0.0.1 (a free port) from a background thread; yields the base URL
    (``https://localhost:PORT/v1`` with an ``ssl_context``)."""
    beh = behaviour or StubBehaviour()
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    state: dict[str, Any] = {}

    async def start() -> None:
        server = await start_server(beh, ssl_context=ssl_context)
        state["port"] = cast(asyncio.Server, server).sockets[0].getsockname()[1]
        state["server"] = server

    def main() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(start())
        ready.set()
        loop.run_forever()
        state["server"].close()
        for task in asyncio.all_tasks(loop):
            task.cancel()
        loop.run_until_complete(asyncio.sleep(0))
        loop.close()

    thread = threading.Thread(target=main, name="openai-stub", daemon=True)
    thread.start()
    if not ready.wait(10):
        raise RuntimeError("stub server did not start")
    try:
        base = "https://localhost" if ssl_context else "http://127.0.0.1"
        yield RunningServer(f"{base}:{state['port']}/v1", beh)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--faults", default="", help="comma-separated fault names")
    parser.add_argument("--retry-after", default="0")
    args = parser.parse_args(argv)
    beh = StubBehaviour(
        latency=args.latency,
        faults=tuple(f for f in args.faults.split(",") if f),
        retry_after=args.retry_after,
        log_calls=False,
    )
    loop: asyncio.AbstractEventLoop
    try:
        import uvloop

        loop = uvloop.new_event_loop()
    except ImportError:
        loop = asyncio.new_event_loop()
    loop.run_until_complete(start_server(beh, "127.0.0.1", args.port))
    print(f"listening on http://127.0.0.1:{args.port}/v1", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        loop.run_forever()


if __name__ == "__main__":
    main()
