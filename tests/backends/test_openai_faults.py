"""Every fault an OpenAI-compatible server can show, against a real local server (no mocked
transport): what the backend does with each."""

from __future__ import annotations

import math
import ssl
import time

import pytest
import trustme
from test_openai_backend import ask, make_requests

from winoscope.backends import create_backend
from winoscope.backends.openai.backend import EARLY_STOP
from winoscope.errors import BackendError
from winoscope.protocols.forced_choice import answer_role
from winoscope.testing.openai_server import StubBehaviour, pick_letter, serve_in_thread


@pytest.mark.parametrize(
    "fault", ["reset", "truncated", "nested", "429-bare", "503", "garbage", "empty"]
)
def test_broken_transfers_and_bodies_are_retried_then_answered(fault: str) -> None:
    reqs = make_requests(3)
    with serve_in_thread(StubBehaviour(faults=(fault,))) as srv:
        out = ask(srv.url, reqs, max_retries=2)
        outcomes = [c.outcome for c in srv.calls]
    assert [out[r.request_id].text for r in reqs] == [pick_letter(r.prompt) for r in reqs]
    assert outcomes.count(fault) == len(reqs) and outcomes.count("ok") == len(reqs)


@pytest.mark.parametrize("fault", ["gzip", "chunked", "close", "redirect307", "redirect308"])
def test_encodings_closed_connections_and_same_origin_redirects_are_answers(fault: str) -> None:
    reqs = make_requests(4)
    with serve_in_thread(StubBehaviour(faults=(fault,))) as srv:
        out = ask(srv.url, reqs, max_retries=0)
        calls = list(srv.calls)
    assert [out[r.request_id].text for r in reqs] == [pick_letter(r.prompt) for r in reqs]
    if fault.startswith("redirect"):
        # the POST was re-sent, body and key included, to the Location on the same server
        assert sorted({c.path for c in calls}) == ["/v1/chat/completions", "/v2/chat/completions"]
        assert all(c.body["messages"][-1]["content"] for c in calls)
    else:
        assert len(calls) == len(reqs)


def test_503_waits_for_retry_after_not_the_backoff() -> None:
    reqs = make_requests(1)[:1]
    with serve_in_thread(StubBehaviour(faults=("503-retry-after",), retry_after="0.6")) as srv:
        t0 = time.perf_counter()
        out = ask(srv.url, reqs, backoff=30.0)
        elapsed = time.perf_counter() - t0
        first, second = srv.calls
    assert out[reqs[0].request_id].ok
    assert second.at - first.at >= 0.55 and elapsed < 5.0


@pytest.mark.parametrize(
    ("fault", "where"),
    [("redirect301", "/v2/chat/completions"), ("redirect-cross", "http://localhost:")],
)
def test_other_redirects_stop_the_run_naming_the_location(fault: str, where: str) -> None:
    with serve_in_thread(StubBehaviour(faults=(fault,), poison=("Лікар",))) as srv:
        with pytest.raises(BackendError) as info:
            ask(srv.url, make_requests(3))
        n_calls = len(srv.calls)
    msg = str(info.value)
    assert f"HTTP {fault[-3:] if fault != 'redirect-cross' else '307'}" in msg
    assert where in msg and "--base-url" in msg
    assert n_calls <= 6  # stopped at once, not after retries per request


def test_a_redirect_loop_stops_the_run() -> None:
    with serve_in_thread(StubBehaviour(faults=("redirect307",), poison=("Лікар",))) as srv:
        with pytest.raises(BackendError, match="redirect loop"):
            ask(srv.url, make_requests(1)[:1])
        assert len(srv.calls) == 6  # the first call and five redirects followed


@pytest.mark.parametrize("fault", ["nan", "overflow"])
@pytest.mark.parametrize("mode", ["letters", "chat-letters"])
def test_non_finite_logprobs_are_retried_and_never_pick_a(fault: str, mode: str) -> None:
    reqs = make_requests(6)
    with serve_in_thread(StubBehaviour(faults=(fault,))) as srv:
        out = ask(srv.url, reqs, mode=mode, max_retries=1)
    for r in reqs:  # retried, then the real answer
        assert answer_role(r, out[r.request_id]) == r.option(pick_letter(r.prompt)).role  # type: ignore[union-attr]
    with serve_in_thread(StubBehaviour(faults=(fault,), poison=("Лікар",))) as srv:
        out = ask(srv.url, reqs, mode=mode, max_retries=1)
    for r in reqs:  # never readable: an error for that request, not option A, not a crash
        resp = out[r.request_id]
        assert resp.error is not None and "malformed" in resp.error and "2 attempts" in resp.error
        assert resp.option_logprobs is None and answer_role(r, resp) == "error"


def test_deeply_nested_json_every_time_is_an_error_not_the_end_of_the_run() -> None:
    reqs = make_requests(3)
    with serve_in_thread(StubBehaviour(faults=("nested",), poison=(reqs[0].prompt,))) as srv:
        out = ask(srv.url, reqs, max_retries=1)
    assert "nested too deeply" in (out[reqs[0].request_id].error or "")
    assert all(out[r.request_id].ok for r in reqs[1:])


@pytest.mark.parametrize(("fault", "finish"), [("null", "content_filter"), ("blank", "length")])
def test_empty_or_null_content_is_a_failed_answer_with_its_finish_reason(
    fault: str, finish: str
) -> None:
    reqs = make_requests(2)
    with serve_in_thread(StubBehaviour(faults=(fault,), poison=(reqs[0].prompt,))) as srv:
        out = ask(srv.url, reqs, max_retries=3)
        n_calls = sum(1 for c in srv.calls if c.prompt == reqs[0].prompt)
    bad = out[reqs[0].request_id]
    assert n_calls == 1  # another attempt would give the same: not retried
    assert bad.error is not None and f"finish_reason={finish}" in bad.error
    assert bad.finish_reason == finish and bad.text is None
    if fault == "blank":  # the reasoning is measured, never read as the answer
        assert "280 characters of reasoning" in bad.error and "--max-tokens" in bad.error
    assert all(out[r.request_id].ok for r in reqs[1:])


def test_a_length_finish_is_an_answer_that_says_so() -> None:
    reqs = make_requests(2)
    with serve_in_thread(StubBehaviour(faults=("length",))) as srv:
        out = ask(srv.url, reqs)
    assert {r.finish_reason for r in out.values()} == {"length"}
    assert all(r.ok and r.text for r in out.values())


def test_max_completion_tokens_is_sent_for_servers_that_want_it() -> None:
    with serve_in_thread() as srv:
        ask(srv.url, make_requests(1), token_param="max_completion_tokens", max_tokens=40)
        bodies = [c.body for c in srv.calls]
    assert all(b["max_completion_tokens"] == 40 and "max_tokens" not in b for b in bodies)
    b = create_backend("openai:m", base_url=srv.url, token_param="max_completion_tokens")
    assert b.params["token_param"] == "max_completion_tokens"


@pytest.mark.parametrize(
    ("fault", "mode", "why"),
    [("400", "chat", "HTTP 400"), ("nologprobs", "chat-letters", "no log-probabilities")],
)
def test_the_same_deterministic_failure_from_the_first_answers_stops_the_run(
    fault: str, mode: str, why: str
) -> None:
    reqs = make_requests(100)  # 200 requests
    with serve_in_thread(StubBehaviour(faults=(fault,), poison=("Лікар",))) as srv:
        with pytest.raises(BackendError) as info:
            ask(srv.url, reqs, mode=mode, concurrency=4, max_retries=5)
        n_calls = len(srv.calls)
    assert f"first {EARLY_STOP} answers all failed" in str(info.value) and why in str(info.value)
    assert n_calls < EARLY_STOP + 10  # not 200 requests x 6 attempts


def test_mixed_failures_do_not_stop_the_run() -> None:
    reqs = make_requests(15)  # 30 requests, a third fail for good
    poison = tuple(r.prompt for r in reqs[::3])
    with serve_in_thread(StubBehaviour(faults=("400",), poison=poison)) as srv:
        out = ask(srv.url, reqs, concurrency=2)
    assert sum(not r.ok for r in out.values()) == len(poison) and len(out) == 30


def test_an_untrusted_certificate_stops_and_a_trusted_ca_works(tmp_path, monkeypatch) -> None:
    ca = trustme.CA()
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("localhost", "127.0.0.1").configure_cert(server_ctx)
    pem = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(pem))
    reqs = make_requests(3)
    with serve_in_thread(ssl_context=server_ctx) as srv:
        assert srv.url.startswith("https://localhost:")
        b = create_backend("openai:m", base_url=srv.url)
        with pytest.raises(BackendError, match=r"certificate is not trusted.*SSL_CERT_FILE"):
            list(b.respond(reqs))
        assert srv.calls == []
        monkeypatch.setenv("SSL_CERT_FILE", str(pem))
        b = create_backend("openai:m", base_url=srv.url, max_retries=0)
        out = {r.request_id: r for r in b.respond(reqs)}
    assert all(out[q.request_id].text == pick_letter(q.prompt) for q in reqs)


def test_404_names_the_model_and_stops() -> None:
    with (
        serve_in_thread(StubBehaviour(faults=("404",), poison=("Лікар",))) as srv,
        pytest.raises(BackendError, match=r"HTTP 404 \(not found\).*model name 'stub'"),
    ):
        ask(srv.url, make_requests(2))


def test_letter_mass_needs_enough_candidates() -> None:
    reqs = make_requests(2)
    with serve_in_thread() as srv:
        few = ask(srv.url, reqs, mode="letters", top_logprobs=2)
        many = ask(srv.url, reqs, mode="letters", top_logprobs=20)
    assert {r.letter_mass for r in few.values()} == {None}
    expected = math.exp(-0.3) + math.exp(-1.6)  # "The" and the fillers are not letters
    assert [r.letter_mass for r in many.values()] == [pytest.approx(expected)] * 4


def test_empty_answers_are_not_stored_and_are_asked_again_on_resume(tmp_path) -> None:
    from test_response_store import collect

    db = tmp_path / "responses.sqlite"
    beh = StubBehaviour(faults=("null",), poison=("Лікар",))
    with serve_in_thread(beh) as srv:
        first = collect(srv.url, db)
        assert first["errors"] > 0
        beh.poison = ()
        beh.faults = ()  # the server now answers them
        second = collect(srv.url, db)
    assert second["asked"] == first["errors"] and second["errors"] == 0
    assert second["cached"] == first["asked"] - first["errors"]


def test_spliced_request_bodies_equal_the_payload() -> None:
    from winoscope.records import Request

    tricky = Request(
        request_id="t",
        kind="choice",
        prompt='лапки "так", \\ слеш, \u0000, табуляція\t, апостроф ʼ, emoji 🙂\n',
        options=(),
        row_id="r",
        item_id="i",
    )
    import json

    for mode in ("chat", "letters", "chat-letters"):
        for token_param in ("max_tokens", "max_completion_tokens"):
            b = create_backend(
                "openai:m",
                base_url="http://x/v1",
                mode=mode,
                system='Ти "суддя"',
                token_param=token_param,
            )
            for r in [*make_requests(2), tricky]:
                assert json.loads(b.encode(r)) == b.payload(r)  # type: ignore[attr-defined]
