"""Cloze scoring (lm-evaluation-harness's log-likelihood protocol) against plain references.

The reference tokenises each pair by lm-eval's rules written out here (trailing context
spaces move to the continuation; the continuation is what encoding context + continuation
adds after the context's own tokens), runs one unbatched full-sequence forward pass over
context + continuation and sums the log-softmax at the continuation's positions.
"""

from __future__ import annotations

import pytest

# the model stack: without torch (CI's Python 3.13 environment) this module is skipped
pytest.importorskip("torch")

import csv
import re
from pathlib import Path

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from tiny_lm import build_tiny_gpt2
from winoscope.backends import create_backend
from winoscope.backends.hf.encoding import ClozeEncoder
from winoscope.records import Option, Request

torch.set_num_threads(1)
PRONOUNS = re.compile(r"\b(he|she|they|his|her|their|him|them)\b")


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_gpt2(tmp_path_factory.mktemp("tiny-cloze") / "model", seed=4)


def winogender_cloze(sentences: list[tuple[str, str]], kind: str = "cloze") -> list[Request]:
    """lm-eval's winogender context and the two candidates as continuations."""
    reqs = []
    for sentid, sentence in sentences:
        occupation, participant = sentid.split(".")[:2]
        pronoun = PRONOUNS.search(sentence)
        assert pronoun is not None, sentence
        context = f"{sentence} ‘{pronoun.group(1).capitalize()}’ refers to the"
        reqs.append(
            Request(
                request_id=sentid,
                kind=kind,  # type: ignore[arg-type]
                prompt=context,
                options=(
                    Option("A", " " + occupation, "occupation"),
                    Option("B", " " + participant, "participant"),
                ),
                row_id=sentid,
                item_id=sentid,
            )
        )
    return reqs


@pytest.fixture(scope="module")
def winogender(shared_data: Path) -> list[tuple[str, str]]:
    with (shared_data / "winogender-en" / "all_sentences.tsv").open(encoding="utf-8") as fh:
        rows = [(r["sentid"], r["sentence"]) for r in csv.DictReader(fh, delimiter="\t")]
    return rows[::12]  # 60 sentences across all occupations


def reference_pair(tok, context: str, continuation: str):  # type: ignore[no-untyped-def]
    n = len(context) - len(context.rstrip())
    if n:
        context, continuation = context[:-n], context[-n:] + continuation
    whole = tok.encode(context + continuation)
    ctx = tok.encode(context)
    return ctx, whole[len(ctx) :]


def reference_logprob(model, ctx: list[int], cont: list[int]) -> float:  # type: ignore[no-untyped-def]
    ids = torch.tensor([ctx + cont])
    with torch.no_grad():
        logp = torch.log_softmax(model(input_ids=ids).logits[0].double(), dim=-1)
    return sum(float(logp[len(ctx) + k - 1, t]) for k, t in enumerate(cont))


@pytest.mark.parametrize(("mode", "batch_size"), [("cloze", 1), ("cloze", "auto"), ("letters", 5)])
def test_cloze_loglikelihoods_equal_an_unbatched_reference(tiny_dir, winogender, mode, batch_size):
    tok = AutoTokenizer.from_pretrained(tiny_dir)
    model = AutoModelForCausalLM.from_pretrained(tiny_dir).eval()
    reqs = winogender_cloze(winogender)
    # in any mode a cloze request is scored as a cloze
    backend = create_backend(f"hf:{tiny_dir}", mode=mode, batch_size=batch_size)
    got = {r.request_id: r for r in backend.respond(reqs)}
    assert set(got) == {r.request_id for r in reqs}
    multi = 0
    for req in reqs:
        r = got[req.request_id]
        assert r.error is None, r.error
        pairs = [reference_pair(tok, req.prompt, o.text) for o in req.options]
        expected = [reference_logprob(model, c, x) for c, x in pairs]
        assert r.option_logprobs == pytest.approx(expected, abs=1e-5)
        assert r.option_token_counts == tuple(len(x) for _, x in pairs)
        assert r.letter_mass is None
        multi += any(len(x) > 1 for _, x in pairs)
    assert multi > len(reqs) // 2  # most candidates take several tokens in this vocabulary


def test_mode_cloze_scores_choice_requests_as_cloze_and_keys_the_store(tiny_dir, winogender):
    reqs = winogender_cloze(winogender[:4], kind="choice")
    cloze = create_backend(f"hf:{tiny_dir}", mode="cloze")
    letters = create_backend(f"hf:{tiny_dir}")
    assert cloze.params["mode"] == "cloze" and cloze.params != letters.params
    assert all(r.option_token_counts for r in cloze.respond(reqs))
    assert all(r.option_token_counts is None for r in letters.respond(reqs))


def test_encoder_follows_lm_evals_rules(tiny_dir):
    tok = AutoTokenizer.from_pretrained(tiny_dir)
    enc = ClozeEncoder(tok)
    # trailing spaces of the context move to the continuation
    ctx, cont = enc.pair("The doctor hired the ", "secretary")
    assert (ctx, cont) == enc.pair("The doctor hired the", " secretary")
    assert ctx == tok.encode("The doctor hired the")
    assert tok.decode(cont) == " secretary"
    # the continuation is what the whole encoding adds after the context's tokens
    whole = tok.encode("The doctor hired the secretary")
    assert cont == whole[len(ctx) :]
    # an empty context is the BOS token (this tokenizer's BOS is <|endoftext|>)
    bos = tok.bos_token_id
    assert enc.pair("", " doctor") == ([bos], tok.encode(" doctor", add_special_tokens=False))
    assert enc.pair("", "<|endoftext|> doctor") == (
        [bos],
        tok.encode(" doctor", add_special_tokens=False),
    )
    # add_bos_token=True adds BOS to both encodings, unless the text already starts with it
    with_bos = ClozeEncoder(tok, add_bos_token=True)

    class Bos:
        """This tokenizer adds nothing by default; wrap it to add BOS as Gemma's does."""

        bos_token_id, eos_token_id = bos, tok.eos_token_id

        def encode(self, text: str, add_special_tokens: bool = True) -> list[int]:
            return ([bos] if add_special_tokens else []) + tok.encode(text)

        def decode(self, ids):  # type: ignore[no-untyped-def]
            return tok.decode(ids)

    gemma_like = ClozeEncoder(Bos())
    ctx_b, cont_b = gemma_like.pair("The doctor hired the", " secretary")
    assert ctx_b == [bos, *ctx] and cont_b == cont
    assert gemma_like.encode("<|endoftext|>The doctor") == tok.encode("<|endoftext|>The doctor")
    assert with_bos.encode("The doctor") == tok.encode("The doctor", add_special_tokens=True)


def test_a_cloze_that_does_not_fit_the_context_is_an_error_response(tmp_path, winogender):
    reqs = winogender_cloze(winogender[:6])
    small = build_tiny_gpt2(tmp_path / "short", n_positions=24)
    got = {r.request_id: r for r in create_backend(f"hf:{small}", mode="cloze").respond(reqs)}
    assert set(got) == {r.request_id for r in reqs}
    errors = [r for r in got.values() if r.error is not None]
    assert errors and all("exceed the model's context of 24" in (r.error or "") for r in errors)
