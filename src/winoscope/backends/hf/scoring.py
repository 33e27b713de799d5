"""From tokenised requests to scored responses: the next-token path and the continuation path.

A request whose options are all read from one next-token distribution (option letters, or
option texts of one token each) joins the next-token path: one forward pass per batch of
prompts. The rest take the continuation path (:func:`.lm_scoring.continuation_logprobs`):
each prompt computed once, its cache reused for every option.

Beyond a sliding attention window padding would shift what each layer keeps, so a batch whose
padded prompt and continuation widths exceed the window runs one request at a time (unpadded),
exactly as the model runs each alone.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ...records import Request, Response

if TYPE_CHECKING:
    from .batching import BatchSizer
    from .loading import LoadedLM


class ScoringBackend(Protocol):
    """What scoring asks of the backend (:class:`~.local.HFLocalBackend` has it): its name
    and model for the responses, the batch sizer, and how it reports a request it cannot run."""

    kind: str
    model: str

    @property
    def sizer(self) -> BatchSizer: ...

    def _error(self, req: Request, message: str) -> Response: ...


@dataclass
class Prepared:
    """One request in token ids: its prompt, and per option a continuation or letter ids."""

    req: Request
    prompt: list[int]
    conts: list[list[int]]
    letters: list[list[int]] | None = None
    counts: bool = False  # report each continuation's token count (cloze)

    @property
    def next_token_ids(self) -> list[list[int]] | None:
        """Token ids read from the next-token distribution, per option (None: continuation)."""
        if self.letters is not None:
            return self.letters
        if self.conts and all(len(c) == 1 for c in self.conts):
            return [[c[0]] for c in self.conts]
        return None

    @property
    def n_tokens(self) -> int:
        """Tokens the model reads: the prompt, and every continuation token but the last."""
        if self.next_token_ids is not None:
            return len(self.prompt)
        return len(self.prompt) + max(len(c) for c in self.conts) - 1


def _problem(item: Prepared, max_positions: int | None) -> str | None:
    if not item.req.options:
        return "the request has no options to score"
    if not item.prompt:
        return "the prompt is empty after tokenisation"
    if item.letters is None and any(len(c) == 0 for c in item.conts):
        return "an option is empty after tokenisation"
    if max_positions is not None and item.n_tokens > max_positions:
        return f"{item.n_tokens} tokens exceed the model's context of {max_positions}"
    return None


def _logsumexp(values: Sequence[float]) -> float:
    top = max(values)
    return top + math.log(sum(math.exp(v - top) for v in values))


def score_prepared(
    backend: ScoringBackend, lm: LoadedLM, items: Sequence[Prepared]
) -> Iterator[Response]:
    """Score every item (errors for those that cannot be); responses come as batches finish."""
    from .lm_scoring import continuation_logprobs, next_token_logprobs

    ready: list[Prepared] = []
    for item in items:
        problem = _problem(item, lm.max_positions)
        if problem is not None:
            yield backend._error(item.req, problem)
        else:
            ready.append(item)
    nexts = [k for k, it in enumerate(ready) if it.next_token_ids is not None]
    multi = [k for k, it in enumerate(ready) if it.next_token_ids is None]

    def next_work(batch: list[int]) -> list[tuple[list[float], float | None, float]]:
        start = time.perf_counter()
        logp = next_token_logprobs(lm.model, [ready[k].prompt for k in batch], lm.pad_id)
        rows, cols = [], []
        for r, k in enumerate(batch):
            for ids in ready[k].next_token_ids or []:
                rows.extend([r] * len(ids))
                cols.extend(ids)
        import torch

        picked = logp[
            torch.tensor(rows, device=logp.device), torch.tensor(cols, device=logp.device)
        ].tolist()
        each = (time.perf_counter() - start) / len(batch)
        out = []
        n = 0
        for k in batch:
            values: list[float] = []
            mass = 0.0
            for ids in ready[k].next_token_ids or []:
                lps = picked[n : n + len(ids)]
                n += len(ids)
                values.append(lps[0] if len(lps) == 1 else _logsumexp(lps))
                mass += sum(math.exp(v) for v in lps)
            out.append((values, mass if ready[k].letters is not None else None, each))
        return out

    def multi_work(batch: list[int]) -> list[tuple[list[float], float | None, float]]:
        window = lm.sliding_window
        width = max(len(ready[k].prompt) for k in batch) + max(
            len(c) for k in batch for c in ready[k].conts
        )
        groups = [batch] if window is None or width - 1 <= window else [[k] for k in batch]
        out: list[tuple[list[float], float | None, float]] = []
        for group in groups:
            start = time.perf_counter()
            scored = continuation_logprobs(
                lm.model,
                [ready[k].prompt for k in group],
                [ready[k].conts for k in group],
                lm.pad_id,
            )
            each = (time.perf_counter() - start) / len(group)
            out.extend((v, None, each) for v in scored)
        return out

    failures: dict[int, str] = {}

    def fail(k: int, message: str) -> tuple[list[float], float | None, float]:
        failures[k] = message
        return ([], None, -1.0)

    sizer = backend.sizer
    for group, work in ((nexts, next_work), (multi, multi_work)):
        lengths = [ready[k].n_tokens for k in group]
        for batch, results in sizer.run(group, lengths, work, fail):
            for k, (values, mass, each) in zip(batch, results, strict=True):
                item = ready[k]
                if each < 0:
                    yield backend._error(item.req, failures.get(k, "out of memory"))
                    continue
                yield _scored(backend, item, values, mass, each)


def _scored(
    backend: ScoringBackend,
    item: Prepared,
    values: Sequence[float],
    mass: float | None,
    latency: float,
) -> Response:
    scores = [float(v) for v in values]
    if any(math.isnan(v) or v == math.inf for v in scores):
        # NaN (or +inf) log-probabilities are a broken forward pass, not an answer: a hook
        # that writes NaN, a half-precision overflow at a large steering strength
        return backend._error(
            item.req,
            "the model gave non-finite log-probabilities "
            f"({', '.join(f'{v:g}' for v in scores)}): check hooks, adapters and the dtype",
        )
    return Response(
        item.req.request_id,
        backend=backend.kind,
        model=backend.model,
        option_logprobs=tuple(float(v) for v in values),
        option_token_counts=tuple(len(c) for c in item.conts) if item.counts else None,
        letter_mass=mass,
        latency_s=round(latency, 6),
    )
