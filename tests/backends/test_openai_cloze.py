"""Cloze scoring through ``/completions`` with echoed log-probabilities, against the stand-in
server (its made-up log-probability is -0.1 per non-space character of a token)."""

from __future__ import annotations

import pytest

from winoscope.backends import create_backend
from winoscope.errors import BackendError
from winoscope.records import Option, Request
from winoscope.testing.openai_server import StubBehaviour, serve_in_thread

CONTEXT = "Лікар сказав секретарці, що він запізниться. «Він» — це"


def cloze(i: int = 0, context: str = CONTEXT) -> Request:
    return Request(
        request_id=f"c{i}",
        kind="cloze",
        prompt=context,
        options=(
            Option("A", " лікар", "target"),
            Option("B", " секретарка особисто", "distractor"),
        ),
        row_id=f"r{i}",
        item_id=f"i{i}",
    )


def run(url: str, reqs: list[Request], **options: object) -> dict:
    b = create_backend("openai:stub", base_url=url, mode="cloze", backoff=0.01, **options)
    return {r.request_id: r for r in b.respond(reqs)}


@pytest.mark.parametrize("refuse_zero", [False, True])
def test_cloze_sums_the_continuation_tokens_only(refuse_zero: bool) -> None:
    reqs = [cloze(0), cloze(1, "Речення   з пробілами:")]
    beh = StubBehaviour(reject_zero_max_tokens=refuse_zero)
    with serve_in_thread(beh) as srv:
        out = run(srv.url, reqs)
        bodies = [c.body for c in srv.calls]
    for r in reqs:
        resp = out[r.request_id]
        assert resp.ok, resp.error
        # " лікар": one token of 5 letters; " секретарка особисто": 10 + 8 letters in 2 tokens
        assert resp.option_logprobs == pytest.approx((-0.5, -1.8))
        assert resp.option_token_counts == (1, 2)
    # the two requests are sent concurrently: the first call of the first request, wherever
    # it arrived
    first = next(b for b in bodies if b["prompt"][0].startswith(CONTEXT))
    assert first["echo"] is True and first["logprobs"] == 1 and first["max_tokens"] == 0
    assert first["prompt"] == [CONTEXT + " лікар", CONTEXT + " секретарка особисто"]
    if refuse_zero:  # asked again with one token; that token lies after the prompt
        sent = [b["max_tokens"] for b in bodies]
        assert sent.count(1) == len(reqs) and 1 <= sent.count(0) <= len(reqs)
    else:
        assert {b["max_tokens"] for b in bodies} == {0}


def test_cloze_params_and_kind_checks() -> None:
    b = create_backend("openai:m", base_url="http://127.0.0.1:9/v1", mode="cloze")
    assert b.params == {"mode": "cloze", "server": ["http://127.0.0.1:9/v1"]}
    with pytest.raises(BackendError, match=r"cannot answer cloze requests.*--mode cloze"):
        list(create_backend("openai:m", base_url="http://127.0.0.1:9/v1").respond([cloze()]))


def test_a_server_without_echoed_logprobs_is_a_clear_failure() -> None:
    reqs = [cloze(0)]
    with serve_in_thread(StubBehaviour(faults=("nologprobs",), poison=("Лікар",))) as srv:
        # the stand-in's "nologprobs" drops the logprobs of the first choice only
        out = run(srv.url, reqs, max_retries=2)
        n_calls = len(srv.calls)
    assert "no echoed log-probabilities" in (out["c0"].error or "")
    assert n_calls == 1
