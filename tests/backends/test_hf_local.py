"""The ``hf:`` backend on a tiny random GPT-2 built offline, against plain reference computations."""

from __future__ import annotations

import pytest

# the model stack: without torch (CI's Python 3.13 environment) this module is skipped
pytest.importorskip("torch")

import itertools
import math
from pathlib import Path

import torch
from hf_requests import by_id, letter_reference, make_requests
from transformers import AutoModelForCausalLM, AutoTokenizer

from tiny_lm import build_tiny_gpt2
from winoscope.backends import create_backend
from winoscope.backends.hf.batching import length_sorted_batches
from winoscope.backends.hf.identity import model_fingerprint
from winoscope.backends.hf.options import CLOZE_SCORING
from winoscope.errors import BackendError
from winoscope.protocols.forced_choice import answer_role
from winoscope.records import Option, Request
from winoscope.runs.runner import run

torch.set_num_threads(1)


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_gpt2(tmp_path_factory.mktemp("tiny-gpt2") / "model", seed=1)


@pytest.fixture(scope="module")
def tiny_chat_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_gpt2(tmp_path_factory.mktemp("tiny-chat") / "model", seed=2, chat=True)


@pytest.fixture(scope="module")
def reference(tiny_dir: Path):  # type: ignore[no-untyped-def]
    """Plain reference: one unbatched full-sequence pass per (prompt, continuation), no cache."""
    tok = AutoTokenizer.from_pretrained(tiny_dir)
    model = AutoModelForCausalLM.from_pretrained(tiny_dir)
    model.eval()

    def logprob(prompt: str, continuation: str) -> float:
        p = tok(prompt)["input_ids"]
        c = tok(continuation, add_special_tokens=False)["input_ids"]
        ids = torch.tensor([p + c])
        with torch.no_grad():
            logits = model(input_ids=ids).logits[0]
        logp = torch.log_softmax(logits, dim=-1)
        # token p+k is predicted by the logits at position p+k-1
        return sum(float(logp[len(p) + k - 1, c[k]]) for k in range(len(c)))

    return tok, logprob


@pytest.mark.parametrize("batch_size", [1, 3, 16, "auto"])
def test_letter_probabilities_sum_spellings_like_an_unbatched_reference(
    tiny_dir, reference, batch_size
):
    tok, _ = reference
    model = AutoModelForCausalLM.from_pretrained(tiny_dir).eval()
    reqs = make_requests()
    backend = create_backend(f"hf:{tiny_dir}", batch_size=batch_size)
    got = {r.request_id: r for r in backend.respond(reqs)}
    for req in reqs:
        cyr = any("\u0400" <= ch <= "\u04ff" for ch in req.prompt)
        values, mass = letter_reference(tok, model, tok(req.prompt)["input_ids"], "AB", cyr)
        r = got[req.request_id]
        assert r.option_logprobs == pytest.approx(values, abs=1e-5)
        assert r.letter_mass == pytest.approx(mass, abs=1e-6)
        assert 0 < r.letter_mass <= 1


def test_letter_spellings_follow_the_prompts_script(tiny_dir, reference):
    tok, _ = reference
    from winoscope.backends.hf.encoding import letter_spellings, letter_token_ids

    assert letter_spellings("A", cyrillic=False) == ["A", " A"]
    assert letter_spellings("B", cyrillic=True) == ["B", " B", "В", " В"]
    assert letter_spellings("Б", cyrillic=True) == ["Б", " Б"]
    one = {f: tok(f, add_special_tokens=False)["input_ids"] for f in ("A", " A", "В", " В")}
    ids = letter_token_ids(tok, ["A", "B"], cyrillic=True)
    assert ids is not None
    assert one["A"][0] in ids[0]
    # a spelling that is not one token in this vocabulary is not read from the distribution
    assert all(len(v) == 1 for f, v in one.items() if v[0] in ids[0] + ids[1])


def test_letters_are_one_token_so_one_pass_scores_both(tiny_dir, reference):
    tok, _ = reference
    assert len(tok(" A", add_special_tokens=False)["input_ids"]) == 1
    assert len(tok(" B", add_special_tokens=False)["input_ids"]) == 1


def test_letters_in_the_chat_template_read_the_assistant_turn(tiny_chat_dir):
    tok = AutoTokenizer.from_pretrained(tiny_chat_dir)
    model = AutoModelForCausalLM.from_pretrained(tiny_chat_dir).eval()
    reqs = make_requests(3)
    chat = create_backend(f"hf:{tiny_chat_dir}")
    assert chat.params["chat"] is True
    assert chat.load().tokenizer.decode(chat.prompt_ids("Речення.")) == (
        "<|user|>Речення.<|end|><|assistant|>"
    )
    got = {r.request_id: r for r in chat.respond(reqs)}
    raw = create_backend(f"hf:{tiny_chat_dir}", chat=False)
    assert raw.params["chat"] is False
    got_raw = {r.request_id: r for r in raw.respond(reqs)}
    for req in reqs:
        text = "<|user|>" + req.prompt + "<|end|><|assistant|>"
        ids = tok(text, add_special_tokens=False)["input_ids"]
        values, mass = letter_reference(tok, model, ids, "AB", True)
        assert got[req.request_id].option_logprobs == pytest.approx(values, abs=1e-5)
        assert got[req.request_id].letter_mass == pytest.approx(mass, abs=1e-6)
        raw_values, _ = letter_reference(tok, model, tok(req.prompt)["input_ids"], "AB", True)
        assert got_raw[req.request_id].option_logprobs == pytest.approx(raw_values, abs=1e-5)
    system = create_backend(f"hf:{tiny_chat_dir}", system="Відповідай однією літерою.")
    assert system.params["system"] == "Відповідай однією літерою."
    assert system.load().tokenizer.decode(system.prompt_ids("Речення.")) == (
        "<|user|>Відповідай однією літерою.<|end|><|user|>Речення.<|end|><|assistant|>"
    )
    assert system.params != chat.params  # a system text keys the store
    with pytest.raises(BackendError, match="system"):
        create_backend(f"hf:{tiny_chat_dir}", system="x", chat=False)


@pytest.mark.parametrize("batch_size", [1, 4])
def test_text_logprobs_reuse_prompt_cache_and_match_reference(tiny_dir, reference, batch_size):
    tok, logprob = reference
    # the fixture's vocabulary makes some option texts one token and others several
    lengths = {
        len(tok(" " + w, add_special_tokens=False)["input_ids"])
        for w in ("лікар", "секретарка", "прибиральниця")
    }
    assert min(lengths) == 1 and max(lengths) >= 3
    reqs = make_requests()
    backend = create_backend(f"hf:{tiny_dir}", mode="texts", batch_size=batch_size)
    got = by_id(backend, reqs)
    for req in reqs:
        expected = [logprob(req.prompt, " " + o.text) for o in req.options]
        assert got[req.request_id] == pytest.approx(expected, abs=1e-4)


def test_multi_token_letters_fall_back_to_the_cached_path(tiny_dir, reference):
    """A prefix that makes the labels multi-token still gives exact summed log-probabilities."""
    tok, logprob = reference
    prefix = " Відповідь:"
    assert len(tok(prefix + "A", add_special_tokens=False)["input_ids"]) > 1
    reqs = make_requests(3)
    got = by_id(create_backend(f"hf:{tiny_dir}", prefix=prefix), reqs)
    for req in reqs:
        expected = [logprob(req.prompt, prefix + o.label) for o in req.options]
        assert got[req.request_id] == pytest.approx(expected, abs=1e-4)


def test_option_order_follows_the_request(tiny_dir):
    req = make_requests(1)[0]
    swapped = Request(
        request_id="swapped",
        kind="choice",
        prompt=req.prompt,
        options=(Option("B", "секретарка", "distractor"), Option("A", "лікар", "target")),
        row_id="x",
        item_id="x",
    )
    got = by_id(create_backend(f"hf:{tiny_dir}"), [req, swapped])
    assert got["swapped"] == pytest.approx(tuple(reversed(got[req.request_id])), abs=1e-6)


def test_length_sorted_batches():
    assert length_sorted_batches([3, 9, 4, 8, 1], 2) == [[1, 3], [2, 0], [4]]
    assert length_sorted_batches([5, 5, 5], 2) == [[0, 1], [2]]
    assert length_sorted_batches([], 4) == []
    # every index exactly once, each batch's lengths no longer than the previous batch's
    lengths = [7, 2, 9, 9, 1, 4, 6]
    batches = length_sorted_batches(lengths, 3)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    assert all(
        min(lengths[i] for i in a) >= max(lengths[i] for i in b)
        for a, b in itertools.pairwise(batches)
    )


def test_generation_is_greedy_and_batching_does_not_change_it(tiny_dir):
    reqs = make_requests(5)
    one = create_backend(f"hf:{tiny_dir}", mode="generate", batch_size=1, max_new_tokens=6)
    many = create_backend(f"hf:{tiny_dir}", mode="generate", batch_size=5, max_new_tokens=6)
    texts_one = {r.request_id: r.text for r in one.respond(reqs)}
    texts_many = {r.request_id: r.text for r in many.respond(reqs)}
    assert texts_one == texts_many
    assert one.params == {
        "mode": "generate",
        "dtype": "float32",
        "commit": None,
        "fingerprint": model_fingerprint(tiny_dir),
        "decoding": "greedy",
        "max_new_tokens": 6,
        "chat": False,
        "cloze": CLOZE_SCORING,
    }
    assert one.params == many.params  # the batch size does not key the store
    assert (one.runtime["batch_size"], many.runtime["batch_size"]) == (1, 5)
    # the reference: plain argmax decoding, one token at a time, no cache
    tok = one.load().tokenizer
    model = one.load().model
    ids = tok(reqs[0].prompt)["input_ids"]
    new: list[int] = []
    with torch.no_grad():
        for _ in range(6):
            nxt = int(model(input_ids=torch.tensor([ids + new])).logits[0, -1].argmax())
            if nxt == tok.eos_token_id:
                break
            new.append(nxt)
    assert texts_one["r0"] == tok.decode(new, skip_special_tokens=True).strip()


def test_chat_template_is_used_when_the_tokenizer_has_one(tiny_chat_dir, tiny_dir):
    chat = create_backend(f"hf:{tiny_chat_dir}", mode="generate", max_new_tokens=3)
    assert chat.params["chat"] is True
    ids = chat.prompt_ids("Речення.")
    text = chat.load().tokenizer.decode(ids)
    assert text == "<|user|>Речення.<|end|><|assistant|>"
    plain = create_backend(f"hf:{tiny_chat_dir}", mode="generate", chat=False)
    assert plain.params["chat"] is False
    assert plain.load().tokenizer.decode(plain.prompt_ids("Речення.")) == "Речення."
    assert create_backend(f"hf:{tiny_dir}", mode="generate").params["chat"] is False
    # scoring option wordings never wraps the prompt in a chat template
    scorer = create_backend(f"hf:{tiny_chat_dir}", mode="texts")
    assert scorer.load().tokenizer.decode(scorer.prompt_ids("Речення.")) == "Речення."
    assert "chat" not in scorer.params
    assert all(r.text is not None for r in chat.respond(make_requests(2)))


def test_prompt_longer_than_the_context_is_an_error_response(tmp_path, reference):
    tok, _ = reference
    reqs = make_requests(7)
    lengths = {r.request_id: len(tok(r.prompt)["input_ids"]) for r in reqs}
    limit = sorted(lengths.values())[3]  # some requests fit, the longer ones do not
    model_dir = build_tiny_gpt2(tmp_path / "short", n_positions=limit)
    got = {r.request_id: r for r in create_backend(f"hf:{model_dir}").respond(reqs)}
    assert set(got) == set(lengths)
    too_long = {rid for rid, n in lengths.items() if n > limit}
    assert too_long and len(too_long) < len(reqs)
    assert {rid for rid, r in got.items() if r.error is not None} == too_long
    for rid in too_long:
        assert got[rid].error == f"{lengths[rid]} tokens exceed the model's context of {limit}"
        assert got[rid].option_logprobs is None
    for req in reqs:
        role = answer_role(req, got[req.request_id])
        assert (role == "error") == (req.request_id in too_long)


def test_a_flat_model_ties_every_option_and_scores_invalid(tmp_path):
    """Zero output embeddings give a uniform next-token distribution: every request ties."""
    model_dir = build_tiny_gpt2(tmp_path / "flat")
    model = AutoModelForCausalLM.from_pretrained(model_dir)
    with torch.no_grad():
        model.get_output_embeddings().weight.zero_()
    model.save_pretrained(model_dir)
    rr = run("winobias-uk", f"hf:{model_dir}", n_boot=20)
    vocab = model.config.vocab_size
    from winoscope.backends.hf.encoding import letter_token_ids

    tok = AutoTokenizer.from_pretrained(model_dir)
    ids = letter_token_ids(tok, ["A", "B"], cyrillic=True)
    assert ids is not None
    expected = [math.log(len(i) / vocab) for i in ids]
    lp = rr.predictions["answer_target_first"].iloc[0].split()[1:]
    assert [float(x) for x in lp] == pytest.approx(expected, abs=1e-4)
    assert (rr.predictions["prediction_role"] == "invalid").all()


def test_requests_beyond_a_sliding_window_run_alone_and_score_the_same(tiny_dir, reference):
    """Requests longer than the model's sliding attention window are not padded into batches."""
    _, logprob = reference
    reqs = make_requests()
    backend = create_backend(f"hf:{tiny_dir}", mode="texts", batch_size=4)
    lm = backend.load()
    lengths = sorted(len(backend.prompt_ids(r.prompt)) for r in reqs)
    lm.sliding_window = lengths[len(lengths) // 2]  # about half the requests exceed it
    got = by_id(backend, reqs)
    for req in reqs:
        expected = [logprob(req.prompt, " " + o.text) for o in req.options]
        assert got[req.request_id] == pytest.approx(expected, abs=1e-4)
