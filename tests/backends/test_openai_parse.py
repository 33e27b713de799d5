"""The openai backend's pure rules: reading bodies, log-probabilities, redaction, options and
the server's identity in the store key (values worked out by hand)."""

from __future__ import annotations

import asyncio
import json
import math
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from aiohttp import web
from test_openai_backend import ask

from winoscope.backends import create_backend
from winoscope.backends.openai.parse import (
    RequestFailed,
    RetryableError,
    chat_text,
    cloze_scores,
    letter_mass,
    load_json,
    logprob,
    snippet,
    top_from_chat,
)
from winoscope.backends.store import ResponseStore, plan_run
from winoscope.errors import BackendError
from winoscope.records import Option, Request

KEY = "sk-proj-Zq8W4x1T9vK2mN7r"


@pytest.mark.parametrize("start", range(200 - len(KEY) - 3, 203))
def test_the_key_is_masked_before_the_body_is_cut(start: int) -> None:
    body = ("x" * start + KEY + " and again " + KEY).encode()
    text = snippet(body, KEY, limit=200)
    for n in range(4, len(KEY) + 1):
        assert KEY[:n] not in text, (start, n)
    assert "***" in text or start + len("***") > 200


@contextmanager
def serve(handler: Any) -> Iterator[str]:
    """A one-route aiohttp server answering POST /v1/chat/completions with ``handler``."""
    loop = asyncio.new_event_loop()
    state: dict = {}
    ready = threading.Event()

    async def start() -> None:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", handler)
        runner = web.AppRunner(app, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        state["runner"] = runner
        state["port"] = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    def main() -> None:
        loop.run_until_complete(start())
        ready.set()
        loop.run_forever()
        loop.run_until_complete(state["runner"].cleanup())

    t = threading.Thread(target=main, daemon=True)
    t.start()
    ready.wait(10)
    try:
        yield f"http://127.0.0.1:{state['port']}/v1"
    finally:
        loop.call_soon_threadsafe(loop.stop)
        t.join(10)


def test_a_key_echoed_in_a_redirect_location_is_masked_in_the_stop(monkeypatch) -> None:
    async def redirect(request: web.Request) -> web.Response:
        auth = (request.headers.get("Authorization") or "").replace(" ", "+")
        return web.Response(status=301, headers={"Location": f"/elsewhere?auth={auth}"})

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with serve(redirect) as url, pytest.raises(BackendError) as info:
        ask(url, [Request("q", "choice", "p", (Option("A", "a", "t"),), "r", "i")])
    assert "HTTP 301" in str(info.value) and "/elsewhere?auth=Bearer+***" in str(info.value)
    assert KEY[:6] not in str(info.value)


def test_an_echoed_key_never_reaches_an_error_at_any_offset(monkeypatch) -> None:
    """A real server answers 400 with the Authorization header at a different offset for each
    request, around the 200-character cut: no prefix of the key survives in any error."""

    async def echo(request: web.Request) -> web.Response:
        body = json.loads(await request.read())
        pad = int(body["messages"][-1]["content"].split("#")[1])
        text = "x" * pad + (request.headers.get("Authorization") or "")
        return web.Response(status=400, text=text)

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    head = len("Bearer ")
    reqs = [
        Request(f"q{p}", "choice", f"pad#{p}", (Option("A", "a", "t"),), f"r{p}", f"i{p}")
        for p in range(200 - head - len(KEY) - 2, 202)
    ]
    out: dict = {}
    with serve(echo) as url:  # in batches under the early stop (the same failure 20 times)
        for k in range(0, len(reqs), 15):
            out.update(ask(url, reqs[k : k + 15], concurrency=4))
    assert len(out) == len(reqs)
    for r in out.values():
        assert r.error is not None and "HTTP 400" in r.error
        for n in range(4, len(KEY) + 1):
            assert KEY[:n] not in r.error, (r.request_id, n)


def test_logprob_values_must_be_finite_probabilities() -> None:
    assert logprob(-1.5, "x") == -1.5
    assert logprob(0.0005, "x") == 0.0  # rounding above 0 is allowed and clipped
    for bad in [math.nan, math.inf, -math.inf, 0.5, "−1", None, True]:
        with pytest.raises(ValueError):
            logprob(bad, "x")


def test_json_bodies_nested_too_deeply_or_broken_are_retryable() -> None:
    with pytest.raises(RetryableError, match="nested too deeply"):
        load_json(b"[" * 100_000 + b"]" * 100_000)
    with pytest.raises(RetryableError, match="empty"):
        load_json(b"  ")
    with pytest.raises(RetryableError, match="malformed"):
        load_json(b'{"choices": [')
    # Python's reader takes 1e400 as infinity and NaN as NaN: the log-probability check
    # catches both
    body = load_json(
        b'{"choices": [{"logprobs": {"content": [{"token": "A", "logprob": 1e400}]}}]}'
    )
    with pytest.raises(ValueError, match="not finite"):
        top_from_chat(body)


def test_chat_text_reads_the_answer_not_the_reasoning() -> None:
    def body(content: Any, finish: str = "stop", **extra: Any) -> dict:
        return {"choices": [{"message": {"content": content, **extra}, "finish_reason": finish}]}

    assert chat_text(body("B", reasoning_content="A is wrong")) == ("B", "stop")
    with pytest.raises(RequestFailed) as info:
        chat_text(body(None, "content_filter"))
    assert info.value.finish_reason == "content_filter"
    assert info.value.signature == "null answer (finish_reason=content_filter)"
    with pytest.raises(RequestFailed, match=r"empty answer.*11 characters of reasoning"):
        chat_text(body("  ", "length", reasoning_content="Hmm, A or B"))


def test_letter_mass_sums_every_tokenisation_of_the_letters() -> None:
    top = {" A": math.log(0.5), "A": math.log(0.1), " B": math.log(0.2), "The": math.log(0.05),
           "\n": math.log(0.05)}  # fmt: skip
    assert letter_mass(top, ["A", "B"]) == pytest.approx(0.8)
    assert letter_mass({" A": -0.1, " B": -2.0}, ["A", "B"]) is None  # too few candidates


def test_cloze_offsets_pick_the_continuation_tokens() -> None:
    req = Request("c", "cloze", "Ctx is", (Option("A", " ab", "t"), Option("B", " c d", "d")),
                  "r", "i")  # fmt: skip
    body = {
        "choices": [
            # "Ctx is ab" as "Ctx", " is", " a", "b", then a generated token after the end
            {"index": 0, "logprobs": {"tokens": ["Ctx", " is", " a", "b", "!"],
                                      "text_offset": [0, 3, 6, 8, 9],
                                      "token_logprobs": [None, -1.0, -0.5, -0.25, -9.0]}},
            {"index": 1, "logprobs": {"tokens": ["Ctx", " is", " c", " d"],
                                      "text_offset": [0, 3, 6, 8],
                                      "token_logprobs": [None, -1.0, -0.75, -0.5]}},
        ]
    }  # fmt: skip
    sums, counts = cloze_scores(body, req)
    assert sums == (-0.75, -1.25) and counts == (2, 2)


def test_unknown_options_are_an_error_naming_the_backend_and_the_known_ones() -> None:
    with pytest.raises(BackendError) as info:
        create_backend("openai:m", base_url="http://x/v1", temprature=0.7)
    msg = str(info.value)
    assert "openai backend" in msg and "temprature" in msg and "temperature" in msg
    assert "max_tokens" in msg and "proxy" in msg
    with pytest.raises(BackendError, match="token_param"):
        create_backend("openai:m", base_url="http://x/v1", token_param="tokens")


def test_the_server_is_part_of_the_store_key() -> None:
    def scope(**options: Any) -> str:
        b = create_backend("openai:m", **options)
        return plan_run(b, [], ResponseStore(":memory:"), template=None).scope

    a, b = "http://gpu1:8000/v1", "http://gpu2:8000/v1"
    # several servers of one model share answers, in whatever order they are given
    assert scope(base_url=[a, b]) == scope(base_url=[b, a + "/"])
    assert scope(base_url=[a]) != scope(base_url=[b])
    # a name given by the user replaces the addresses (a server that moved keeps its answers)
    assert scope(base_url=[a], server_id="qwen-7b") == scope(base_url=[b], server_id="qwen-7b")
    assert "server" not in create_backend("openai:m", base_url="https://api.openai.com/v1").params
