"""The openai backend with ``tokenizer=``: prompts sent as token ids, scores read from exactly
the scored positions; against the stand-in server, whose echoed log-probability of a token sent
as id ``t`` is ``-0.01 * (t % 100) - 0.01`` (so every expected number is worked out here from the
tokenizer alone). Without a tokenizer, cloze from text offsets refuses what it cannot do exactly,
and a refused connection stops the run at once."""

from __future__ import annotations

import math
import socket
import time
from pathlib import Path

import pytest

from tiny_lm import build_tiny_gpt2
from winoscope.backends import create_backend
from winoscope.backends.openai.parse import cloze_scores
from winoscope.errors import BackendError
from winoscope.records import Option, Request
from winoscope.testing.openai_server import StubBehaviour, serve_in_thread

CONTEXT = "Лікар найняв секретарку, бо він мав багато пацієнтів. «Він» — це"


def lp(t: int) -> float:
    return -0.01 * (t % 100) - 0.01


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_gpt2(tmp_path_factory.mktemp("tok") / "model", chat=True)


@pytest.fixture(scope="module")
def tok(tiny: Path):  # type: ignore[no-untyped-def]
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(tiny)


def cloze_req(context: str = CONTEXT) -> Request:
    opts = (Option("A", " лікар", "target"), Option("B", " секретарка", "distractor"))
    return Request("c0", prompt=context, options=opts, kind="cloze", row_id="r", item_id="i")


def letters_req() -> Request:
    opts = (Option("A", "лікар", "target"), Option("B", "секретарка", "distractor"))
    return Request("l0", kind="choice", prompt="Речення: Лікар найняв секретарку.\nВідповідь:", options=opts,
                   row_id="r", item_id="i")  # fmt: skip


def test_cloze_sends_ids_and_sums_exactly_the_continuation(tiny: Path, tok) -> None:  # type: ignore[no-untyped-def]
    with serve_in_thread(StubBehaviour()) as srv:
        b = create_backend("openai:m", base_url=srv.url, mode="cloze", tokenizer=str(tiny))
        (resp,) = list(b.respond([cloze_req(CONTEXT + " ")]))  # the trailing space moves
        body = srv.calls[0].body
    assert resp.ok, resp.error
    context = tok(CONTEXT)["input_ids"]
    expected, counts = [], []
    for i, word in enumerate([" лікар", " секретарка"]):
        whole = tok(CONTEXT + " " + word)["input_ids"]  # the context's space moved
        assert whole[: len(context)] == context  # the split is at a token boundary here
        assert body["prompt"][i] == whole
        cont = whole[len(context) :]
        expected.append(sum(lp(t) for t in cont))
        counts.append(len(cont))
    assert body["echo"] is True and body["max_tokens"] == 0
    assert resp.option_logprobs == pytest.approx(tuple(expected), abs=1e-12)
    assert resp.option_token_counts == tuple(counts)
    assert b.params["tokenizer"] == str(tiny) and "token ids" in b.params["scoring"]


@pytest.mark.parametrize("mode", ["letters", "chat-letters"])
def test_letters_score_every_spelling_of_each_letter(tiny: Path, tok, mode: str) -> None:  # type: ignore[no-untyped-def]
    req = letters_req()
    with serve_in_thread(StubBehaviour(reject_zero_max_tokens=True)) as srv:
        b = create_backend("openai:m", base_url=srv.url, mode=mode, tokenizer=str(tiny))
        (resp,) = list(b.respond([req]))
        calls = srv.calls
    assert resp.ok, resp.error
    assert [c.path.endswith("/completions") and "chat" not in c.path for c in calls] == [True] * 2
    assert [c.body["max_tokens"] for c in calls] == [0, 1]  # refused 0, asked with 1
    if mode == "letters":
        prompt = tok(req.prompt)["input_ids"]
    else:
        text = tok.apply_chat_template(
            [{"role": "user", "content": req.prompt}], add_generation_prompt=True, tokenize=False
        )
        assert text.startswith("<|user|>") and text.endswith("<|assistant|>")
        prompt = tok(text, add_special_tokens=False)["input_ids"]
    sent = calls[-1].body["prompt"]
    scores, mass, n_ids = [], 0.0, 0
    for label in ("A", "B"):
        ids = []
        for form in (
            label,
            " " + label,
            {"A": "А", "B": "В"}[label],
            " " + {"A": "А", "B": "В"}[label],
        ):
            enc = tok(form, add_special_tokens=False)["input_ids"]
            if len(enc) == 1 and enc[0] not in ids:
                ids.append(enc[0])
        assert ids
        n_ids += len(ids)
        for t in ids:
            assert [*prompt, t] in sent
        scores.append(math.log(sum(math.exp(lp(t)) for t in ids)))
        mass += sum(math.exp(lp(t)) for t in ids)
    assert len(sent) == n_ids  # one prompt per spelling, nothing else
    assert resp.option_logprobs == pytest.approx(tuple(scores), abs=1e-12)
    assert resp.letter_mass == pytest.approx(min(1.0, mass), abs=1e-12)


def test_tokenizer_option_checks(tiny: Path, tmp_path: Path) -> None:
    with pytest.raises(BackendError, match="tokenizer= is for the scoring modes"):
        create_backend("openai:m", base_url="http://127.0.0.1:9/v1", tokenizer=str(tiny))
    plain = build_tiny_gpt2(tmp_path / "plain")
    b = create_backend("openai:m", base_url="http://127.0.0.1:9/v1", mode="chat-letters",
                       tokenizer=str(plain))  # fmt: skip
    with pytest.raises(BackendError, match="has no chat template"):
        list(b.respond([letters_req()]))


def test_text_offsets_refuse_what_they_cannot_split_exactly() -> None:
    req = cloze_req()
    # a server that adds a BOS token and echoes its text: every offset is shifted by 5
    words = ["<bos>", *CONTEXT.split(" ")]

    def echo(cont: str) -> dict:
        toks = [words[0], words[1]] + [" " + w for w in words[2:]] + [cont]
        offs, pos = [], 0
        for t in toks:
            offs.append(pos)
            pos += len(t)
        return {
            "tokens": toks,
            "text_offset": offs,
            "token_logprobs": [None] + [-0.5] * (len(toks) - 1),
        }

    body = {"choices": [{"index": i, "logprobs": echo(o.text)} for i, o in enumerate(req.options)]}
    with pytest.raises(BackendError, match=r"not exact.*do not spell.*tokenizer="):
        cloze_scores(body, req)
    # the same without the BOS text: exact, one token per continuation
    for c in body["choices"]:
        lpb = c["logprobs"]
        lpb["tokens"] = lpb["tokens"][1:]
        lpb["token_logprobs"] = lpb["token_logprobs"][1:]
        lpb["text_offset"] = [o - 5 for o in lpb["text_offset"][1:]]
    assert cloze_scores(body, req) == ((-0.5, -0.5), (1, 1))
    # a token across the boundary ("це лікар" as one token): refused
    for c in body["choices"]:
        lpb = c["logprobs"]
        lpb["tokens"][-2:] = [lpb["tokens"][-2] + lpb["tokens"][-1]]
        lpb["token_logprobs"] = lpb["token_logprobs"][:-1]
        lpb["text_offset"] = lpb["text_offset"][:-1]
    with pytest.raises(BackendError, match="no token starts where the continuation does"):
        cloze_scores(body, req)


def test_a_refused_connection_stops_at_once_naming_the_url() -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    b = create_backend("openai:m", base_url=url, mode="letters", max_retries=5)
    started = time.monotonic()
    with pytest.raises(BackendError, match=rf"{url}/completions: connection refused"):
        list(b.respond([letters_req()]))
    assert time.monotonic() - started < 5


def test_sequence_requests_send_each_option_and_average_its_scored_tokens(tiny: Path, tok) -> None:  # type: ignore[no-untyped-def]
    """The leaderboard's methods: the prompt in the chat template, each letter appended, its
    tokens after the common prefix averaged; the means worked out here from the tokenizer."""
    from winoscope.protocols.scored_sequences import sequence_request

    opts = (Option("A", "лікар", "target"), Option("B", "секретарка", "distractor"))
    req = sequence_request(request_id="s0", row_id="r", item_id="i", prompt="Відповідь: ",
                           options=opts, recipe="append_label:auto")  # fmt: skip
    with serve_in_thread(StubBehaviour()) as srv:
        b = create_backend("openai:m", base_url=srv.url, mode="letters", tokenizer=str(tiny))
        assert "mean_token_logprob" in b.protocols
        (resp,) = list(b.respond([req]))
        body = srv.calls[0].body
    assert resp.ok, resp.error
    text = tok.apply_chat_template([{"role": "user", "content": "Відповідь: "}], tokenize=False,
                                   add_generation_prompt=True)  # fmt: skip
    base = tok.encode(text)
    means, counts = [], []
    for i, letter in enumerate("AB"):
        full = tok.encode(text + letter)
        k = next(j for j in range(len(full)) if j >= len(base) or full[j] != base[j])
        assert body["prompt"][i] == full
        means.append(sum(lp(t) for t in full[k:]) / len(full[k:]))
        counts.append(len(full) - k)
    assert resp.option_logprobs == pytest.approx(tuple(means), abs=1e-12)
    assert resp.option_token_counts == tuple(counts)


def test_sequence_requests_without_a_tokenizer_are_refused() -> None:
    from winoscope.protocols.scored_sequences import sequence_request

    opts = (Option("A", "x", "target"), Option("B", "y", "distractor"))
    req = sequence_request(request_id="s0", row_id="r", item_id="i", prompt="p", options=opts,
                           recipe="append_label:raw")  # fmt: skip
    b = create_backend("openai:m", base_url="http://127.0.0.1:9/v1")
    assert "mean_token_logprob" not in b.protocols
    with pytest.raises(BackendError, match="tokenizer="):
        list(b.respond([req]))
