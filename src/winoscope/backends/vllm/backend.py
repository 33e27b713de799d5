"""``vllm:PATH``: a local causal LM run in process by vLLM, answering as ``hf:PATH`` does.

Modes (``-M mode=``, as for ``hf:``):

- ``letters`` (default): each option letter's log-probability as the answer's first token,
  in the chat template when the tokenizer has one; every single-token spelling of a letter is
  scored itself (the prompt followed by that token), so both letters are exact wherever they
  rank, and their probabilities are summed as ``hf:`` sums them;
- ``texts``: the summed log-probability of each option's wording after the prompt;
- ``cloze``: lm-evaluation-harness's log-likelihood: context and continuation split exactly
  as ``hf:`` splits them (:class:`..hf.encoding.ClozeEncoder`), the continuation's prompt
  log-probabilities summed;
- ``generate``: greedy generation of ``max_new_tokens``.

The prompt and option token ids come from the same functions as ``hf:``'s
(:mod:`..hf.prompting`) and the same tokenizer files, so the two backends feed their models
identical ids. ``-M lora=DIR`` puts a PEFT LoRA adapter on every request (vLLM's
``LoRARequest``); backends on the same weights share one engine (:mod:`.engine`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...records import Request, Response
from ..base import Description
from ..hf.options import MODE_PROTOCOLS
from ..hf.prompting import LetterIds, cloze_ids, continuation_ids, prompt_ids
from .scoring import Item, option_values

#: requests handed to the engine at once: answers are stored chunk by chunk as they finish
CHUNK = 512


@dataclass
class VLLMBackend:
    """A model in an in-process vLLM engine answering optioned requests; see module doc."""

    model: str
    #: the options that change answers (mode, dtype, identity, vLLM version, adapter ...)
    params: dict[str, Any]
    model_dir: Path
    #: keyword arguments of ``vllm.LLM`` besides the model (dtype included)
    engine_args: dict[str, Any]
    adapter: Path | None = None
    #: the LoRA rank the engine must hold (the sweep's largest adapter), None without LoRA
    lora_rank: int | None = None
    kind: str = "vllm"
    cacheable: bool = True
    runtime: dict[str, Any] = field(default_factory=dict)
    _tokenizer: Any = field(default=None, repr=False)
    _letters: LetterIds = field(default_factory=LetterIds, repr=False)

    @property
    def mode(self) -> str:
        return str(self.params["mode"])

    @property
    def protocols(self) -> frozenset[str]:
        return MODE_PROTOCOLS[self.mode]

    @property
    def modes(self) -> Mapping[str, frozenset[str]]:
        return MODE_PROTOCOLS

    def describe(self) -> Description:
        from .engine import engines_started

        return Description(runtime={**self.runtime, "engines_started": engines_started()})

    @property
    def tokenizer(self) -> Any:
        if self._tokenizer is None:
            from transformers import AutoTokenizer

            self._tokenizer = AutoTokenizer.from_pretrained(self.model_dir, local_files_only=True)
        return self._tokenizer

    def engine(self) -> Any:
        from .engine import get_engine

        started = time.perf_counter()
        engine = get_engine(self.model_dir, self.engine_args, self.lora_rank)
        if not self.runtime.get("loaded"):
            self.runtime.update(
                loaded=True,
                engine_ready_s=round(time.perf_counter() - started, 3),
                max_model_len=engine.max_model_len,
            )
        return engine

    def close(self) -> None:
        """Shut the engine down in order and wait for its processes (:mod:`.engine`): the one
        every ``vllm:`` backend of this process shares, so it is for whoever owns the backends
        to call once they are done with all of them. Calling it again does nothing; a request
        after it starts a new engine."""
        from .engine import release_engines

        release_engines()

    def _error(self, req: Request, message: str) -> Response:
        return Response(req.request_id, backend=self.kind, model=self.model, error=message)

    # -- answering --------------------------------------------------------------------------

    def respond(self, requests: Sequence[Request]) -> Iterator[Response]:
        if not requests:
            return
        engine = self.engine()
        sequences = [r for r in requests if r.kind == "sequence"]
        requests = [r for r in requests if r.kind != "sequence"]
        if sequences:
            yield from self._sequences(engine, sequences)
        cloze = [r for r in requests if r.kind == "cloze" or self.mode == "cloze"]
        rest = [r for r in requests if not (r.kind == "cloze" or self.mode == "cloze")]
        if rest and self.mode == "generate":
            yield from self._generate(engine, rest)
        items: list[Item] = []
        label = f"{self.kind}:{self.model}"
        if cloze:
            from ..hf.encoding import ClozeEncoder

            enc = ClozeEncoder(self.tokenizer, self.params.get("add_bos_token"))
            for req in cloze:
                found = cloze_ids(enc, req)
                if isinstance(found, str):
                    yield self._error(req, found)
                    continue
                items.append(Item(req, found[0], [[c] for c in found[1]], counts=True))
        if rest and self.mode != "generate":
            for req in rest:
                ids = prompt_ids(self.tokenizer, req.prompt, self.params, label)
                letters = (
                    self._letters(self.tokenizer, req, self.params)
                    if self.mode == "letters"
                    else None
                )
                if letters is not None:
                    items.append(Item(req, ids, [[[t] for t in alt] for alt in letters], True))
                else:
                    conts = continuation_ids(self.tokenizer, req, self.params)
                    items.append(Item(req, ids, [[c] for c in conts]))
        yield from self._score(engine, items)

    def _sequences(self, engine: Any, requests: Sequence[Request]) -> Iterator[Response]:
        """Mean token log-probabilities of ``sequence`` requests: each option's context and
        scored tokens as :class:`~..hf.sequences.SequenceWork` builds them for every backend,
        every scored token read from vLLM's prompt log-probabilities."""
        from ..hf.sequences import SequenceWork

        work = SequenceWork.plan(self.tokenizer, requests)
        for req, why in work.failed:
            yield self._error(req, why)
        items = [
            Item(req, ctx, [[s] for s in scored], counts=True) for req, ctx, scored in work.units
        ]
        yield from work.finish(self._score(engine, items))

    def _score(self, engine: Any, items: Sequence[Item]) -> Iterator[Response]:
        from .engine import prompt_logprobs

        ready = []
        for item in items:
            problem = item.problem(engine.max_model_len)
            if problem is None:
                ready.append(item)
            else:
                yield self._error(item.req, problem)
        for first in range(0, len(ready), CHUNK):
            yield from self._score_chunk(engine, ready[first : first + CHUNK], prompt_logprobs)

    def _score_chunk(self, engine: Any, ready: Sequence[Item], score: Any) -> Iterator[Response]:
        sequences = [s for item in ready for s in item.sequences()]
        start = time.perf_counter()
        if engine.lora_rank is None:
            scored = score(engine, sequences, self.adapter)
        else:  # an engine with LoRA takes no prompt log-probabilities: see sampled_logprobs
            from .engine import sampled_logprobs

            starts = [len(item.prompt) for item in ready for _ in item.sequences()]
            scored = sampled_logprobs(engine, sequences, starts, self.adapter)
        each = (time.perf_counter() - start) / len(ready)
        k = 0
        for item in ready:
            n = len(item.sequences())
            values, mass = option_values(item, scored[k : k + n])
            k += n
            yield Response(
                item.req.request_id,
                backend=self.kind,
                model=self.model,
                option_logprobs=tuple(values),
                option_token_counts=(
                    tuple(len(alt[0]) for alt in item.options) if item.counts else None
                ),
                letter_mass=mass,
                latency_s=round(each, 6),
            )

    def _generate(self, engine: Any, requests: Sequence[Request]) -> Iterator[Response]:
        from .engine import generate

        label = f"{self.kind}:{self.model}"
        max_new = int(self.params["max_new_tokens"])
        ready, prompts = [], []
        for req in requests:
            ids = prompt_ids(self.tokenizer, req.prompt, self.params, label)
            if len(ids) + max_new > engine.max_model_len:
                yield self._error(
                    req,
                    f"{len(ids) + max_new} tokens (prompt and max_new_tokens) exceed the "
                    f"engine's max_model_len of {engine.max_model_len}",
                )
                continue
            ready.append(req)
            prompts.append(ids)
        if not ready:
            return
        start = time.perf_counter()
        outs = generate(engine, prompts, max_new, self.adapter)
        each = (time.perf_counter() - start) / len(ready)
        for req, (ids, reason) in zip(ready, outs, strict=True):
            yield Response(
                req.request_id,
                backend=self.kind,
                model=self.model,
                text=self.tokenizer.decode(ids, skip_special_tokens=True).strip(),
                finish_reason=reason,
                latency_s=round(each, 6),
            )
