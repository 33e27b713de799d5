"""``sequence`` requests on ``hf:`` against plain forward passes written out here: a request
whose options' contexts differ (one letter merges with the prompt's trailing space, the other
does not), so it is scored option by option and joined back; and the ``start_token`` recipe
(each option's text after the tokenizer's start token)."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from pathlib import Path

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from tiny_lm import build_tiny_gpt2
from winoscope.backends import create_backend
from winoscope.protocols.scored_sequences import sequence_request
from winoscope.records import Option

torch.set_num_threads(1)
PROMPT = "Відповідь (A або B): "


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_gpt2(tmp_path_factory.mktemp("seq") / "model", seed=7)


def mean_after(model, ids: list[int], start: int) -> float:  # type: ignore[no-untyped-def]
    with torch.no_grad():
        logp = torch.log_softmax(model(torch.tensor([ids])).logits[0].double(), dim=-1)
    values = [float(logp[i - 1, ids[i]]) for i in range(start, len(ids))]
    return sum(values) / len(values)


def test_options_with_different_contexts_are_scored_apart_and_joined(tiny: Path) -> None:
    tok = AutoTokenizer.from_pretrained(tiny)
    model = AutoModelForCausalLM.from_pretrained(tiny).eval()
    base = tok.encode(PROMPT)
    expected, counts, starts = [], [], []
    for label in ("A", "Z"):
        full = tok.encode(PROMPT + label)
        k = next(i for i in range(len(full)) if i >= len(base) or full[i] != base[i])
        starts.append(k)
        expected.append(mean_after(model, full, k))
        counts.append(len(full) - k)
    assert starts[0] != starts[1]  # the case this test is for: one letter merges, one not
    opts = (Option("A", "x", "target"), Option("Z", "y", "distractor"))
    req = sequence_request(request_id="r|1", row_id="r", item_id="i", prompt=PROMPT,
                           options=opts, recipe="append_label:raw")  # fmt: skip
    (resp,) = list(create_backend(f"hf:{tiny}").respond([req]))
    assert resp.ok, resp.error
    assert resp.request_id == "r|1"
    assert resp.option_logprobs == pytest.approx(expected, abs=1e-5)
    assert resp.option_token_counts == tuple(counts)


def test_start_token_recipe_scores_each_text_after_the_start_token(tiny: Path) -> None:
    tok = AutoTokenizer.from_pretrained(tiny)
    model = AutoModelForCausalLM.from_pretrained(tiny).eval()
    texts = ["Лікар найняв секретарку.", "Кухар подякував прибиральниці."]
    start = tok.bos_token_id
    expected = [
        mean_after(model, [start, *tok.encode(t, add_special_tokens=False)], 1) for t in texts
    ]
    opts = tuple(Option(lab, t, role) for lab, t, role in zip("AB", texts, ("s", "a"), strict=True))
    req = sequence_request(request_id="s", row_id="s", item_id="s", prompt="", options=opts,
                           recipe="start_token")  # fmt: skip
    (resp,) = list(create_backend(f"hf:{tiny}").respond([req]))
    assert resp.ok, resp.error
    assert resp.option_logprobs == pytest.approx(expected, abs=1e-5)
    assert resp.option_token_counts == tuple(
        len(tok.encode(t, add_special_tokens=False)) for t in texts
    )


def test_a_chat_recipe_without_a_template_fails_that_request_alone(tiny: Path) -> None:
    opts = (Option("A", "x", "target"), Option("B", "y", "distractor"))
    bad = sequence_request(request_id="c", row_id="c", item_id="c", prompt=PROMPT, options=opts,
                           recipe="append_label:chat")  # fmt: skip
    good = sequence_request(request_id="g", row_id="g", item_id="g", prompt=PROMPT, options=opts,
                            recipe="append_label:auto")  # fmt: skip
    got = {r.request_id: r for r in create_backend(f"hf:{tiny}").respond([bad, good])}
    assert not got["c"].ok and "chat template" in str(got["c"].error)
    assert got["g"].ok
