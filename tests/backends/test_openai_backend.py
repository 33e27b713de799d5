"""The OpenAI-compatible backend against a real local HTTP server that injects faults."""

from __future__ import annotations

import math
import random
import time

import pytest

from winoscope.backends import create_backend
from winoscope.backends.openai.backend import (
    backoff_delay,
    label_scores,
    normalise_base_url,
    parse_retry_after,
)
from winoscope.backends.options import backend_options
from winoscope.errors import BackendError
from winoscope.protocols.choice_rows import ChoiceRow
from winoscope.protocols.forced_choice import UK_DEFAULT, answer_role, build_requests
from winoscope.records import Request
from winoscope.testing.openai_server import StubBehaviour, pick_letter, serve_in_thread


def make_requests(n: int) -> list[Request]:
    rows = [
        ChoiceRow(
            row_id=f"r{i}",
            item_id=f"i{i}",
            sentence=f"Лікар {i} найняв секретарку, бо він мав багато пацієнтів.",
            pronoun="він",
            options=(("лікар", "target", ()), ("секретарка", "distractor", ())),
        )
        for i in range(n)
    ]
    return build_requests(rows, UK_DEFAULT)


def ask(url: str | list[str], requests: list[Request], **options: object) -> dict:
    options.setdefault("backoff", 0.01)
    b = create_backend("openai:stub", base_url=url, **options)
    return {r.request_id: r for r in b.respond(requests)}


# ----------------------------------------------------------------------- pure helpers


def test_parse_retry_after_seconds_date_and_junk() -> None:
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after(" 0.25 ") == 0.25
    # 07:28:05 GMT is 25 s after 07:27:40 GMT (1445412460 is 2015-10-21 07:27:40 UTC).
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:05 GMT", now=1445412460.0) == 25.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:05 GMT", now=1445412500.0) == 0.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    assert parse_retry_after("") is None


def test_backoff_is_full_jitter_under_an_exponential_cap() -> None:
    rng = random.Random(1)
    for attempt, cap in [(0, 0.5), (1, 1.0), (3, 4.0), (10, 20.0)]:
        draws = [backoff_delay(attempt, 0.5, 20.0, rng) for _ in range(400)]
        assert min(draws) >= 0.0
        assert max(draws) <= cap
        assert max(draws) > 0.8 * cap  # the range is used, not a constant


def test_label_scores_sum_variants_and_mark_missing() -> None:
    top = {" A": math.log(0.3), "A": math.log(0.1), " B": math.log(0.2), "The": -0.5}
    a, b = label_scores(top, ["A", "B"])
    assert a == pytest.approx(math.log(0.4))
    assert b == pytest.approx(math.log(0.2))
    assert label_scores({"x": -1.0}, ["A", "B"]) == (-math.inf, -math.inf)


def test_base_url_normalised_and_checked() -> None:
    assert normalise_base_url("http://h:8000/v1/") == "http://h:8000/v1"
    assert normalise_base_url("http://h/v1/chat/completions") == "http://h/v1"
    with pytest.raises(BackendError, match="http"):
        normalise_base_url("localhost:8000")


def test_factory_rejects_bad_options_and_keeps_key_out_of_params(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-in-params")
    b = create_backend("openai:m", base_url="http://127.0.0.1:1/v1")
    assert b.params == {
        "mode": "chat",
        "temperature": 0.0,
        "max_tokens": 16,
        "server": ["http://127.0.0.1:1/v1"],
    }
    assert "sk-not-in-params" not in repr(b.params)
    # the seed only matters (and is only part of the key) when sampling
    assert "seed" in create_backend("openai:m", base_url="http://x/v1", temperature=0.7).params
    with pytest.raises(BackendError, match="mode"):
        create_backend("openai:m", base_url="http://x/v1", mode="beam")
    with pytest.raises(BackendError, match="concurrency"):
        create_backend("openai:m", base_url="http://x/v1", concurrency=0)
    with pytest.raises(BackendError, match="timeout"):
        create_backend("openai:m", base_url="http://x/v1", timeout="soon")


def test_the_run_flags_are_openai_options_with_its_defaults() -> None:
    opts = backend_options(None, base_url=["http://a/v1", "http://b/v1"], concurrency=4)
    backend = create_backend("openai:m", **opts)
    assert backend.base_urls == ("http://a/v1", "http://b/v1")
    assert backend.concurrency == 4
    # flags left out: the backend's own defaults, the ones --help names
    backend = create_backend("openai:m", **backend_options(None, base_url=["http://a/v1"]))
    assert (backend.concurrency, backend.max_retries, backend.timeout) == (32, 5, 60.0)
    assert backend.api_key_env == "OPENAI_API_KEY" and backend.params["max_tokens"] == 16


# ------------------------------------------------------------------ against the server


def test_chat_answers_every_request_with_the_servers_letter() -> None:
    reqs = make_requests(10)
    with serve_in_thread() as srv:
        out = ask(srv.url, reqs)
        assert {c.path for c in srv.calls} == {"/v1/chat/completions"}
        assert {c.model for c in srv.calls} == {"stub"}
    assert len(out) == len(reqs)
    for req in reqs:
        assert out[req.request_id].text == pick_letter(req.prompt)
        assert out[req.request_id].latency_s is not None


@pytest.mark.parametrize("fault", ["500", "503", "drop", "garbage", "empty", "nochoices", "429"])
def test_each_transient_fault_is_retried_then_answered(fault: str) -> None:
    reqs = make_requests(4)
    with serve_in_thread(StubBehaviour(faults=(fault, fault))) as srv:
        out = ask(srv.url, reqs, max_retries=2)
        outcomes = [c.outcome for c in srv.calls]
    assert all(r.ok for r in out.values()), [r.error for r in out.values()]
    assert [out[r.request_id].text for r in reqs] == [pick_letter(r.prompt) for r in reqs]
    # two failed calls then one answer for each of the 8 requests
    assert outcomes.count(fault) == 2 * len(reqs)
    assert outcomes.count("ok") == len(reqs)


def test_timeout_is_retried_without_waiting_for_the_hung_call() -> None:
    reqs = make_requests(2)
    with serve_in_thread(StubBehaviour(faults=("timeout",), hang=3.0)) as srv:
        t0 = time.perf_counter()
        out = ask(srv.url, reqs, timeout=0.3)
        elapsed = time.perf_counter() - t0
        outcomes = [c.outcome for c in srv.calls]
    assert all(r.ok for r in out.values())
    assert outcomes.count("timeout") == len(reqs)
    assert elapsed < 2.5


def test_429_waits_for_retry_after_not_the_backoff() -> None:
    reqs = make_requests(1)[:1]
    with serve_in_thread(StubBehaviour(faults=("429",), retry_after="0.6")) as srv:
        t0 = time.perf_counter()
        out = ask(srv.url, reqs, backoff=30.0)  # a backoff would take up to 30 s
        elapsed = time.perf_counter() - t0
        first, second = srv.calls
    assert out[reqs[0].request_id].ok
    assert second.at - first.at >= 0.55
    assert elapsed < 5.0


def test_persistent_failure_becomes_an_error_after_max_retries() -> None:
    reqs = make_requests(3)
    poisoned = reqs[0].prompt
    with serve_in_thread(StubBehaviour(faults=("500",), poison=(poisoned,))) as srv:
        out = ask(srv.url, reqs, max_retries=3)
        calls_for_poison = sum(1 for c in srv.calls if c.prompt == poisoned)
    bad = out[reqs[0].request_id]
    assert bad.error is not None and "HTTP 500" in bad.error and "4 attempts" in bad.error
    assert bad.text is None and bad.choice is None
    assert calls_for_poison == 4  # the first try plus three retries
    # the error is reported as an error, not scored as a wrong answer
    assert answer_role(reqs[0], bad) == "error"
    # the other requests, including the second order of the same row, are answered
    assert all(out[r.request_id].ok for r in reqs[1:])


def test_client_errors_are_not_retried() -> None:
    reqs = make_requests(1)
    with serve_in_thread(StubBehaviour(faults=("400",), poison=("Лікар",))) as srv:
        out = ask(srv.url, reqs, max_retries=5)
        n_calls = len(srv.calls)
    assert n_calls == len(reqs)
    assert all("HTTP 400" in (r.error or "") for r in out.values())


def test_unauthorised_stops_the_run_with_one_clear_error(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong-key-77")
    with (
        serve_in_thread(StubBehaviour(faults=("401",), poison=("Лікар",))) as srv,
        pytest.raises(BackendError) as info,
    ):
        ask(srv.url, make_requests(5))
    msg = str(info.value)
    assert "HTTP 401" in msg and "OPENAI_API_KEY" in msg
    assert "sk-wrong-key-77" not in msg


def test_api_key_is_sent_but_masked_in_errors(monkeypatch) -> None:
    monkeypatch.setenv("MY_KEY", "sk-live-abc123")
    reqs = make_requests(1)
    with serve_in_thread(StubBehaviour(faults=("500",), poison=("Лікар",))) as srv:
        out = ask(srv.url, reqs, api_key_env="MY_KEY", max_retries=0)
        auths = {c.authorization for c in srv.calls}
    assert auths == {"Bearer sk-live-abc123"}
    for r in out.values():
        assert r.error is not None and "Bearer ***" in r.error
        assert "sk-live-abc123" not in r.error


def test_no_key_sends_no_authorization_header(monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with serve_in_thread() as srv:
        ask(srv.url, make_requests(1))
        assert {c.authorization for c in srv.calls} == {None}


def test_requests_spread_over_several_servers() -> None:
    reqs = make_requests(20)
    with serve_in_thread() as a, serve_in_thread() as b:
        out = ask([a.url, b.url], reqs)
        n_a, n_b = len(a.calls), len(b.calls)
    assert len(out) == 40 and all(r.ok for r in out.values())
    assert n_a == n_b == 20


def test_a_retry_moves_to_the_next_server() -> None:
    reqs = make_requests(1)[:1]
    with (
        serve_in_thread(StubBehaviour(faults=("500",), poison=("Лікар",))) as broken,
        serve_in_thread() as healthy,
    ):
        out = ask([broken.url, healthy.url], reqs, max_retries=1)
        assert len(broken.calls) == 1 and len(healthy.calls) == 1
    assert out[reqs[0].request_id].ok


def test_concurrency_limit_is_respected_and_used() -> None:
    reqs = make_requests(24)
    with serve_in_thread(StubBehaviour(latency=0.25)) as srv:
        ask(srv.url, reqs, concurrency=6)
        peak = srv.behaviour.max_in_flight
    assert peak == 6


@pytest.mark.parametrize("mode", ["letters", "chat-letters"])
def test_logprob_modes_score_the_option_letters(mode: str) -> None:
    reqs = make_requests(6)
    with serve_in_thread() as srv:
        out = ask(srv.url, reqs, mode=mode, top_logprobs=5)
        paths = {c.path for c in srv.calls}
    assert paths == {"/v1/completions" if mode == "letters" else "/v1/chat/completions"}
    for req in reqs:
        resp = out[req.request_id]
        win = pick_letter(req.prompt)
        lp = dict(zip(["A", "B"], resp.option_logprobs or (), strict=True))
        assert lp[win] == pytest.approx(-0.3)
        assert lp["B" if win == "A" else "A"] == pytest.approx(-1.6)
        # five candidates: the two letters, "The" and two fillers; the mass is on the letters
        assert resp.letter_mass == pytest.approx(math.exp(-0.3) + math.exp(-1.6))
        assert answer_role(req, resp) == req.option(win).role  # type: ignore[union-attr]


def test_closing_the_iterator_early_cancels_the_rest() -> None:
    reqs = make_requests(50)
    with serve_in_thread(StubBehaviour(latency=0.2)) as srv:
        b = create_backend("openai:stub", base_url=srv.url, concurrency=4)
        it = b.respond(reqs)
        next(it)
        it.close()
        time.sleep(0.5)
        n = len(srv.calls)
    assert n < 20


def test_servers_that_are_not_there_give_errors_not_a_crash() -> None:
    """Several base URLs, all refusing: retried on the next URL, then per-request errors (one
    refusing URL alone stops the run at once: test_openai_token_ids)."""
    import socket

    ports = []
    for _ in range(2):
        with socket.socket() as s:  # a port nobody listens on
            s.bind(("127.0.0.1", 0))
            ports.append(s.getsockname()[1])
    reqs = make_requests(2)
    out = ask([f"http://127.0.0.1:{p}/v1" for p in ports], reqs, max_retries=2)
    assert len(out) == len(reqs)
    for r in out.values():
        assert r.error is not None and "3 attempts" in r.error
        assert "Connect" in r.error or "connect" in r.error
