"""A local OpenAI-compatible server (on ``aiohttp.web``) with injected latency and faults.

It answers ``/v1/chat/completions`` and ``/v1/completions`` (and the same under ``/v2``, where
redirects point) for any model name, picking option ``A`` or ``B`` from a hash of the prompt (so
answers are deterministic and differ across prompts), and logs every call. Faults are injected
per prompt by call number: with ``faults=("429", "500")`` the first call for each prompt gets a
429, the second a 500 and the third the answer. ``poison`` lists prompt substrings whose every
call gets the first fault (a request that can never succeed); with ``poison`` set, other prompts
get no fault. Fault names are the keys of
:data:`FAULTS`. Run it in a thread (:func:`serve_in_thread`) or as a process::

    python -m winoscope.testing.openai_server --port 8000 --latency 0.05

``/completions`` with ``echo`` returns made-up but deterministic log-probabilities for the
prompt's own tokens (see :func:`echo_logprobs`), so cloze scoring can be checked by hand;
a prompt sent as token ids is echoed one token per id (see :func:`echo_id_logprobs`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gzip
import json
import ssl
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from .openai_answers import (
    FAULTS,
    answer_body,
    echo_id_logprobs,
    echo_logprobs,
    faulty_answer,
    pick_letter,
    prompt_of,
    token_logprob,
)

__all__ = [
    "FAULTS",
    "Call",
    "RunningServer",
    "StubBehaviour",
    "echo_id_logprobs",
    "echo_logprobs",
    "pick_letter",
    "serve_in_thread",
    "start_server",
    "token_logprob",
]


@dataclass
class Call:
    path: str
    prompt: str
    model: str
    authorization: str | None
    outcome: str
    at: float
    body: dict[str, Any] = field(default_factory=dict)
    via: str | None = None  # the Via header, set by forward proxies


@dataclass
class StubBehaviour:
    latency: float = 0.0
    faults: Sequence[str] = ()
    poison: Sequence[str] = ()
    retry_after: str = "0"
    hang: float = 5.0
    reject_zero_max_tokens: bool = False  # answer 400 to max_tokens=0, as some servers do
    calls: list[Call] = field(default_factory=list)
    per_prompt: Counter[str] = field(default_factory=Counter)
    log_calls: bool = True
    in_flight: int = 0
    max_in_flight: int = 0
    #: how the answer's letter is picked from the prompt (default: a hash of the prompt; a
    #: :class:`~winoscope.testing.prompt_reader.PromptReader`'s ``letter`` reads it)
    pick: Callable[[str], str] = pick_letter

    def fault_for(self, prompt: str) -> str | None:
        if not self.faults:
            return None
        n = self.per_prompt[prompt]
        self.per_prompt[prompt] += 1
        if self.poison:
            return self.faults[0] if any(p in prompt for p in self.poison) else None
        if n < len(self.faults):
            return self.faults[n]
        return None


def _json(payload: Any, status: int = 200, **headers: str) -> web.Response:
    return web.Response(
        body=json.dumps(payload).encode("utf-8"),
        status=status,
        content_type="application/json",
        headers=headers,
    )


async def _send_half(request: web.BaseRequest, data: bytes, reset: bool) -> web.StreamResponse:
    resp = web.StreamResponse(headers={"Content-Type": "application/json"})
    resp.content_length = len(data)
    await resp.prepare(request)
    await resp.write(data[: len(data) // 2])
    await asyncio.sleep(0.01)
    transport = request.transport
    if transport is not None:
        if reset:
            transport.abort()
        else:
            transport.close()
    return resp


async def answer(beh: StubBehaviour, request: web.BaseRequest) -> web.StreamResponse:
    """The reply to one request: faults, injected latency, then the answer."""
    path = request.path
    try:
        body = json.loads(await request.read())
        prompt = prompt_of(body)
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return _json({"error": "request body is not an OpenAI request"}, 400)
    fault = beh.fault_for(prompt)
    auth = request.headers.get("Authorization")
    if beh.log_calls:
        beh.calls.append(
            Call(
                path,
                prompt,
                str(body.get("model", "")),
                auth,
                fault or "ok",
                time.time(),
                body,
                request.headers.get("Via"),
            )
        )
    if beh.latency:
        await asyncio.sleep(beh.latency)
    if fault is None:
        if beh.reject_zero_max_tokens and body.get("max_tokens") == 0:
            return _json({"error": {"message": "max_tokens must be at least 1"}}, 400)
        return _json(answer_body(path, body, beh.pick(prompt)))
    if fault in {"429", "503-retry-after"}:
        return _json({"error": "slow down"}, int(fault[:3]), **{"Retry-After": beh.retry_after})
    if fault in {"429-bare", "503"}:
        return _json({"error": "slow down"}, int(fault[:3]))
    if fault in {"500", "400", "401"}:
        # Echo the caller's credentials back, as some proxies do: the client must mask them.
        return _json({"error": f"fault {fault}", "auth": auth or ""}, int(fault))
    if fault == "404":
        return _json({"error": {"message": f"model {body.get('model')!r} not found"}}, 404)
    if fault.startswith("redirect"):
        status = 307 if fault in {"redirect307", "redirect-cross"} else int(fault[-3:])
        where = path.replace("/v1/", "/v2/", 1)
        if fault == "redirect-cross":
            # the port from the socket: aiohttp 3.10.0's request.url fails with yarl 1.13+
            port = request.transport.get_extra_info("sockname")[1] if request.transport else 0
            where = f"http://localhost:{port}{where}"
        return web.Response(status=status, headers={"Location": where})
    if fault == "timeout":
        await asyncio.sleep(beh.hang)
        return _json(answer_body(path, body, beh.pick(prompt)))
    if fault == "drop":
        if request.transport is not None:
            request.transport.abort()
        return web.Response(status=500)
    good = answer_body(path, body, beh.pick(prompt))
    data = json.dumps(good).encode("utf-8")
    if fault in {"reset", "truncated"}:
        return await _send_half(request, data, reset=fault == "reset")
    if fault == "garbage":
        return web.Response(body=b"<html>bad gateway", content_type="text/html")
    if fault == "empty":
        return web.Response(body=b"", content_type="application/json")
    if fault == "nested":
        return web.Response(body=b"[" * 100_000 + b"]" * 100_000, content_type="application/json")
    if fault == "gzip":
        return web.Response(
            body=gzip.compress(data),
            headers={"Content-Type": "application/json", "Content-Encoding": "gzip"},
        )
    if fault == "chunked":
        resp = web.StreamResponse(headers={"Content-Type": "application/json"})
        resp.enable_chunked_encoding()
        await resp.prepare(request)
        for i in range(0, len(data), 7):
            await resp.write(data[i : i + 7])
        await resp.write_eof()
        return resp
    if fault == "close":
        resp = web.Response(body=data, content_type="application/json")
        resp.force_close()
        return resp
    changed = faulty_answer(fault, good, path.endswith("/chat/completions"))
    if changed is None:
        raise ValueError(f"unknown fault {fault!r} (known: {', '.join(FAULTS)})")
    if "__raw__" in changed:
        return web.Response(text=changed["__raw__"], content_type="application/json")
    return _json(changed)


PATHS = {f"/{v}/{e}" for v in ("v1", "v2") for e in ("chat/completions", "completions")}


def make_handler(beh: StubBehaviour) -> Any:
    """The request handler: one catch-all route (the few paths are checked by hand)."""

    async def handle(request: web.BaseRequest) -> web.StreamResponse:
        if request.path not in PATHS:
            return _json({"error": f"no route {request.path}"}, 404)
        if request.method != "POST":
            return _json({"error": "POST only"}, 405)
        beh.in_flight += 1
        beh.max_in_flight = max(beh.max_in_flight, beh.in_flight)
        try:
            return await answer(beh, request)
        finally:
            beh.in_flight -= 1

    return handle


@dataclass
class Serving:
    """A started server; ``await stop()`` closes it."""

    server: asyncio.AbstractServer
    handler: web.Server

    async def stop(self) -> None:
        self.server.close()
        await self.server.wait_closed()
        await self.handler.shutdown(1.0)


async def start_server(
    behaviour: StubBehaviour,
    host: str = "127.0.0.1",
    port: int = 0,
    ssl_context: ssl.SSLContext | None = None,
) -> tuple[Serving, int]:
    """Start serving on aiohttp's low-level server (no application router or middleware, so
    the stand-in costs less CPU next to a client measured against it); returns the server and
    its port."""
    handler = web.Server(make_handler(behaviour), access_log=None)
    loop = asyncio.get_running_loop()
    server = await loop.create_server(handler, host, port, ssl=ssl_context, backlog=4096)
    sockets = getattr(server, "sockets", None) or []
    return Serving(server, handler), int(sockets[0].getsockname()[1]) if sockets else port


@dataclass
class RunningServer:
    url: str
    behaviour: StubBehaviour

    @property
    def calls(self) -> list[Call]:
        return self.behaviour.calls

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1].split("/")[0])


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

    def main() -> None:
        asyncio.set_event_loop(loop)
        try:
            state["runner"], state["port"] = loop.run_until_complete(
                start_server(beh, ssl_context=ssl_context)
            )
        except BaseException as exc:
            state["error"] = exc
            ready.set()
            return
        ready.set()
        loop.run_forever()
        loop.run_until_complete(state["runner"].stop())
        loop.close()

    thread = threading.Thread(target=main, name="openai-stub", daemon=True)
    thread.start()
    if not ready.wait(10) or "error" in state:
        raise RuntimeError(f"stub server did not start: {state.get('error')}")
    try:
        base = "https://localhost" if ssl_context else "http://127.0.0.1"
        yield RunningServer(f"{base}:{state['port']}/v1", beh)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--host", default="127.0.0.1")
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
    loop = asyncio.new_event_loop()
    loop.run_until_complete(start_server(beh, args.host, args.port))
    print(f"listening on http://{args.host}:{args.port}/v1", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        loop.run_forever()


if __name__ == "__main__":
    main()
