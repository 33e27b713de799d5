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
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web


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


@functools.lru_cache(maxsize=256)
def _encoded_answer(path: str, model: str, letter: str, logprobs: bool) -> bytes:
    """The answer body, encoded once per distinct answer (keeps the server off the hot path)."""
    return json.dumps(answer_body(path, model, letter, logprobs)).encode("utf-8")


def make_app(behaviour: StubBehaviour) -> web.Application:
    async def handle(request: web.Request) -> web.StreamResponse:
        behaviour.in_flight += 1
        behaviour.max_in_flight = max(behaviour.max_in_flight, behaviour.in_flight)
        try:
            return await answer(request)
        finally:
            behaviour.in_flight -= 1

    async def answer(request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        try:
            body = json.loads(raw)
        except ValueError:
            return web.json_response({"error": "request body is not JSON"}, status=400)
        prompt = _prompt_of(body)
        fault = behaviour.fault_for(prompt)
        if behaviour.log_calls:
            behaviour.calls.append(
                Call(
                    path=request.path,
                    prompt=prompt,
                    model=str(body.get("model", "")),
                    authorization=request.headers.get("Authorization"),
                    outcome=fault or "ok",
                    at=time.time(),
                )
            )
        if behaviour.latency:
            await asyncio.sleep(behaviour.latency)
        auth = request.headers.get("Authorization", "")
        if fault == "429":
            return web.json_response(
                {"error": "rate limited"},
                status=429,
                headers={"Retry-After": behaviour.retry_after},
            )
        if fault in {"500", "503", "400"}:
            # Echo the caller's credentials back, as some proxies do: the client must mask them.
            return web.json_response({"error": f"fault {fault}", "auth": auth}, status=int(fault))
        if fault == "401":
            return web.json_response({"error": "bad key", "auth": auth}, status=401)
        if fault == "timeout":
            await asyncio.sleep(behaviour.hang)
        if fault == "drop":
            assert request.transport is not None
            request.transport.abort()
            return web.Response(status=500)
        if fault == "garbage":
            return web.Response(body=b"<html>bad gateway", content_type="application/json")
        if fault == "empty":
            return web.Response(body=b"", content_type="application/json")
        if fault == "nochoices":
            return web.json_response({"object": "chat.completion"})
        encoded = _encoded_answer(
            request.path,
            str(body.get("model", "")),
            pick_letter(prompt),
            bool(body.get("logprobs")),
        )
        return web.Response(body=encoded, content_type="application/json")

    app = web.Application(client_max_size=8 * 1024 * 1024)
    for path in ("/v1/chat/completions", "/v1/completions"):
        app.router.add_post(path, handle)
    return app


@dataclass
class RunningServer:
    url: str
    behaviour: StubBehaviour

    @property
    def calls(self) -> list[Call]:
        return self.behaviour.calls


@contextlib.contextmanager
def serve_in_thread(behaviour: StubBehaviour | None = None) -> Iterator[RunningServer]:
    """Serve on 127.0.0.1 (a free port) from a background thread; yields the base URL."""
    beh = behaviour or StubBehaviour()
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    state: dict[str, Any] = {}

    async def start() -> None:
        runner = web.AppRunner(make_app(beh), access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0, backlog=1024)
        await site.start()
        server = site._server
        assert server is not None
        state["port"] = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]
        state["runner"] = runner

    def main() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(start())
        ready.set()
        loop.run_forever()
        loop.run_until_complete(state["runner"].cleanup())
        loop.close()

    thread = threading.Thread(target=main, name="openai-stub", daemon=True)
    thread.start()
    if not ready.wait(10):
        raise RuntimeError("stub server did not start")
    try:
        yield RunningServer(f"http://127.0.0.1:{state['port']}/v1", beh)
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
    loop: asyncio.AbstractEventLoop | None = None
    with contextlib.suppress(ImportError):
        import uvloop

        loop = uvloop.new_event_loop()
    web.run_app(
        make_app(beh),
        loop=loop,
        host="127.0.0.1",
        port=args.port,
        access_log=None,
        print=lambda *_: print(f"listening on http://127.0.0.1:{args.port}/v1", flush=True),
        backlog=4096,
    )


if __name__ == "__main__":
    main()
