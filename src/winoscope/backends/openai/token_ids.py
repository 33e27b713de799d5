"""Exact scores from a server that takes token ids: prompts built with the model's tokenizer.

With ``-M tokenizer=DIR_OR_ID`` (the served model's tokenizer) the scoring modes send prompts
as lists of token ids to ``/completions`` with ``echo`` and read the echoed log-probability of
each scored position, so the split between what is given and what is scored is the one
``hf:`` makes on the same weights (vLLM, and lm-evaluation-harness's ``local-completions``,
work the same way):

- ``cloze``: each option is ``context_enc + continuation_enc`` from
  :class:`~winoscope.backends.hf.encoding.ClozeEncoder` (lm-eval's split: BOS as the tokenizer
  adds it, the context's trailing space moved to the continuation); its score is the sum over
  exactly the continuation's positions.
- ``letters`` / ``chat-letters``: the prompt's ids (``chat-letters``: the tokenizer's chat
  template rendered here, as ``hf:`` with ``chat=true`` does) followed by one letter token; one
  prompt per single-token spelling of each letter
  (:func:`~winoscope.backends.hf.encoding.letter_token_ids`: ``A``, `` A`` and, for a Cyrillic
  prompt, the look-alike ``А``), so both letters are scored exactly, however unlikely, never
  read from a top-k list. A letter with no single-token spelling is scored as the continuation
  `` A``, as ``hf:`` does.

The tokenizer is loaded with transformers (the ``hf`` extra) when the first request is built.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...errors import BackendError
from ...records import Request


@dataclass(frozen=True)
class EchoPlan:
    """One request as token-id prompts: each prompt's scored positions ``[start, end)`` and,
    per option, the prompts whose scores make it (letters: their probabilities add up)."""

    prompts: list[list[int]]
    spans: list[tuple[int, int]]
    groups: list[list[int]]
    letters: bool  # option scores are letter spellings (log-sum-exp; the mass is reported)
    mean: bool = False  # option scores are mean token log-probabilities (``sequence`` requests)

    def option_scores(
        self, sums: Sequence[float]
    ) -> tuple[tuple[float, ...], tuple[int, ...] | None, float | None]:
        """Per option: its score, its continuation's token count (cloze), the letter mass."""
        if not self.letters:
            counts = tuple(self.spans[g[0]][1] - self.spans[g[0]][0] for g in self.groups)
            firsts = tuple(sums[g[0]] for g in self.groups)
            if self.mean:
                firsts = tuple(v / n for v, n in zip(firsts, counts, strict=True))
            return firsts, counts, None
        scores = []
        for g in self.groups:
            values = [sums[i] for i in g]
            top = max(values)
            scores.append(top + math.log(sum(math.exp(v - top) for v in values)))
        single = all(self.spans[i][1] - self.spans[i][0] == 1 for g in self.groups for i in g)
        mass = min(1.0, sum(math.exp(v) for v in sums)) if single else None
        return tuple(scores), None, mass


class TokenPrompts:
    """Builds :class:`EchoPlan` s with one tokenizer (loaded once, on first use)."""

    def __init__(self, spec: str, *, chat: bool = False, system: str | None = None) -> None:
        self.spec = spec
        self.chat = chat
        self.system = system
        self._tok: Any = None
        self._letters: dict[tuple[tuple[str, ...], bool], list[list[int]] | None] = {}

    @property
    def tokenizer(self) -> Any:
        if self._tok is None:
            try:
                from transformers import AutoTokenizer
            except ImportError:
                raise BackendError(
                    "option tokenizer= needs transformers: pip install 'winoscope[hf]'"
                ) from None
            try:
                self._tok = AutoTokenizer.from_pretrained(self.spec)
            except Exception as exc:
                raise BackendError(
                    f"option tokenizer={self.spec!r}: cannot load it ({exc})"
                ) from None
            if self.chat and not getattr(self._tok, "chat_template", None):
                raise BackendError(
                    f"option tokenizer={self.spec!r} has no chat template, which mode "
                    "chat-letters needs: use mode=letters, or a tokenizer with a template"
                )
        return self._tok

    def plan(self, req: Request) -> EchoPlan:
        if req.kind == "sequence":
            return self.sequence(req)
        return self.cloze(req) if req.kind == "cloze" else self.letters(req)

    def sequence(self, req: Request) -> EchoPlan:
        """Each option's context and scored tokens as every backend builds them
        (:class:`~winoscope.backends.hf.sequences.SequenceWork`); one prompt per option, its
        score the mean over the scored positions. A request that cannot be built fails alone
        (``RequestFailed``)."""
        from ..hf.sequences import sequence_parts
        from .parse import RequestFailed

        parts = sequence_parts(self.tokenizer, req)
        if isinstance(parts, str):
            raise RequestFailed(parts, signature="sequence")
        prompts = [ctx + scored for ctx, scored in parts]
        spans = [(len(ctx), len(ctx) + len(scored)) for ctx, scored in parts]
        return EchoPlan(prompts, spans, [[i] for i in range(len(prompts))], False, mean=True)

    def cloze(self, req: Request) -> EchoPlan:
        from ..hf.encoding import ClozeEncoder

        enc = ClozeEncoder(self.tokenizer)
        prompts, spans = [], []
        for opt in req.options:
            context, cont = enc.pair(req.prompt, opt.text)
            prompts.append(context + cont)
            spans.append((len(context), len(context) + len(cont)))
        return EchoPlan(prompts, spans, [[i] for i in range(len(prompts))], letters=False)

    def letters(self, req: Request) -> EchoPlan:
        from ..hf.encoding import has_cyrillic, letter_token_ids, prompt_token_ids

        tok = self.tokenizer
        prompt = prompt_token_ids(tok, req.prompt, chat=self.chat, system=self.system)
        labels = tuple(o.label for o in req.options)
        key = (labels, has_cyrillic(req.prompt))
        if key not in self._letters:
            self._letters[key] = letter_token_ids(tok, *key)
        per_label = self._letters[key]
        if per_label is None:  # scored as continuations, as hf: does
            per_label = [[int(t) for t in tok(" " + label, add_special_tokens=False)["input_ids"]]
                         for label in labels]  # fmt: skip
            conts = [[ids] for ids in per_label]
        else:
            conts = [[[t] for t in ids] for ids in per_label]
        prompts: list[list[int]] = []
        spans: list[tuple[int, int]] = []
        groups: list[list[int]] = []
        for options in conts:
            group: list[int] = []
            for cont in options:
                group.append(len(prompts))
                prompts.append(prompt + cont)
                spans.append((len(prompt), len(prompt) + len(cont)))
            groups.append(group)
        return EchoPlan(prompts, spans, groups, letters=True)


def echo_sums(body: Any, plan: EchoPlan) -> list[float]:
    """Per prompt of ``plan``, the summed echoed log-probabilities over its scored positions."""
    from .parse import RequestFailed, logprob

    choices = body["choices"]
    if not isinstance(choices, list) or len(choices) != len(plan.prompts):
        raise ValueError(f"expected {len(plan.prompts)} choices")
    by_index = {int(c.get("index", i)): c for i, c in enumerate(choices)}
    sums = []
    for i, (start, end) in enumerate(plan.spans):
        lp = by_index[i].get("logprobs")
        values = lp.get("token_logprobs") if isinstance(lp, dict) else None
        if not values:
            raise RequestFailed(
                "the server returned no echoed log-probabilities (completions with echo and "
                "logprobs)",
                signature="no logprobs",
            )
        if len(values) < len(plan.prompts[i]):
            n = len(plan.prompts[i])
            raise ValueError(f"{len(values)} echoed log-probabilities for {n} prompt tokens")
        sums.append(sum(logprob(v, f"log-probability at token {k}")
                        for k, v in enumerate(values[start:end], start)))  # fmt: skip
    return sums
