"""Requests and plain reference computations shared by the ``hf:`` backend tests."""

from __future__ import annotations

import math

import torch

from winoscope.backends.hf.local import HFLocalBackend
from winoscope.protocols.forced_choice import UK_DEFAULT
from winoscope.records import Option, Request


def make_requests(n: int = 7) -> list[Request]:
    """Prompts of different lengths; options whose texts take one or several tokens."""
    sentences = [
        "Лікар найняв секретарку, бо він мав багато пацієнтів.",
        "Кухар подякував прибиральниці, бо вона допомогла йому.",
        "The doctor hired the secretary.",
        "Речення.",
        "Лікар подякував кухарю, бо він допомогла.",
        "A",
        "Прочитайте речення і визначте, кого позначає займенник, бо вона мала багато справ.",
    ]
    pairs = [("лікар", "секретарка"), ("кухар", "прибиральниця"), ("doctor", "secretary")]
    out = []
    for i in range(n):
        a, b = pairs[i % len(pairs)]
        prompt = UK_DEFAULT.render(
            sentence=sentences[i % len(sentences)], pronoun="він", option_a=a, option_b=b
        )
        out.append(
            Request(
                request_id=f"r{i}",
                kind="choice",
                prompt=prompt,
                options=(Option("A", a, "target"), Option("B", b, "distractor")),
                row_id=f"row{i}",
                item_id=f"item{i}",
            )
        )
    return out


def by_id(backend: HFLocalBackend, requests: list[Request]) -> dict[str, tuple[float, ...]]:
    got = {}
    for r in backend.respond(requests):
        assert r.error is None, r.error
        assert r.option_logprobs is not None
        got[r.request_id] = r.option_logprobs
    assert set(got) == {r.request_id for r in requests}
    return got


def letter_reference(tok, model, prompt_ids: list[int], labels, cyrillic: bool):  # type: ignore[no-untyped-def]
    """Per label log(sum of p(spelling)) over its one-token spellings, and the total mass."""
    twins = {"A": "А", "B": "В"}
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([prompt_ids])).logits[0, -1]
    p = torch.softmax(logits.double(), dim=-1)
    values, mass = [], 0.0
    for label in labels:
        forms = [label, " " + label] + ([twins[label], " " + twins[label]] if cyrillic else [])
        ids = {
            t[0]
            for t in (tok(f, add_special_tokens=False)["input_ids"] for f in forms)
            if len(t) == 1
        }
        total = sum(float(p[i]) for i in ids)
        values.append(math.log(total))
        mass += total
    return values, mass
