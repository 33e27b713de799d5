"""Log-likelihood scoring and greedy generation with a causal language model (torch).

Everything here works on token ids, so it can be checked against a plain reference
computation independently of any tokenizer. Callers import this module lazily: importing
torch takes seconds and ``import winoscope`` must stay fast.

Scoring a forced-choice request asks for ``log P(continuation | prompt)`` for each option:

- **single-token continuations** (``" A"``, ``" B"``): one forward pass over the prompt gives
  the next-token distribution, and each option is one entry of it. Prompts are batched with
  right padding, so real tokens never attend to padding and keep their unbatched positions;
  the distribution is read at each prompt's last real token.
- **multi-token continuations** (option texts such as ``" лікар"``): the prompt runs once
  with the key/value cache on; the cache is repeated once per option and the continuations
  (right-padded) run on top of it. The first continuation token is scored from the prompt's
  last logits, every later one from the continuation pass.

Worked example: with prompt ids ``[5, 9, 2]`` and continuations ``[[7], [8, 3]]``, option 0 is
``log p(7 | 5 9 2)`` and option 1 is ``log p(8 | 5 9 2) + log p(3 | 5 9 2 8)``.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from functools import cache
from typing import Any

import torch

from ..errors import BackendError


def _right_pad(rows: Sequence[Sequence[int]], pad_id: int) -> tuple[torch.Tensor, torch.Tensor]:
    width = max(len(r) for r in rows)
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, r in enumerate(rows):
        ids[i, : len(r)] = torch.tensor(list(r), dtype=torch.long)
        mask[i, : len(r)] = 1
    return ids, mask


@cache
def _cache_argument(forward_type: type) -> str:
    """The forward argument that takes a key/value cache (``cache`` in newer transformers)."""
    params = inspect.signature(forward_type.forward).parameters
    return "cache" if "cache" in params else "past_key_values"


@cache
def _takes_logits_to_keep(forward_type: type) -> bool:
    return "logits_to_keep" in inspect.signature(forward_type.forward).parameters


def _returned_cache(output: Any) -> Any:
    value = getattr(output, "cache", None)
    return value if value is not None else output.past_key_values


@torch.inference_mode()
def next_token_logprobs(model: Any, prompts: Sequence[Sequence[int]], pad_id: int) -> torch.Tensor:
    """``[len(prompts), vocab]`` log-probabilities of the token after each prompt (one pass)."""
    if any(len(p) == 0 for p in prompts):
        raise BackendError("cannot score an empty prompt (no tokens)")
    ids, mask = _right_pad(prompts, pad_id)
    last = mask.sum(dim=1) - 1
    if _takes_logits_to_keep(type(model)):
        # Project only the positions that are read: with a large vocabulary the output layer
        # over every position costs more than the rest of the model.
        keep = torch.unique(last)
        logits = model(
            input_ids=ids, attention_mask=mask, use_cache=False, logits_to_keep=keep
        ).logits
        column = torch.searchsorted(keep, last)
    else:
        logits = model(input_ids=ids, attention_mask=mask, use_cache=False).logits
        column = last
    picked = logits[torch.arange(len(prompts)), column].float()
    return torch.log_softmax(picked, dim=-1)


@torch.inference_mode()
def continuation_logprobs(
    model: Any, prompt: Sequence[int], continuations: Sequence[Sequence[int]], pad_id: int
) -> list[float]:
    """Summed log-probability of each continuation after ``prompt``, reusing the prompt's cache."""
    if not prompt:
        raise BackendError("cannot score an empty prompt (no tokens)")
    if any(len(c) == 0 for c in continuations):
        raise BackendError("cannot score an empty continuation (no tokens)")
    n = len(continuations)
    p_ids = torch.tensor([list(prompt)], dtype=torch.long)
    extra = {"logits_to_keep": 1} if _takes_logits_to_keep(type(model)) else {}
    out = model(input_ids=p_ids, use_cache=True, **extra)
    first = torch.log_softmax(out.logits[0, -1].float(), dim=-1)
    totals = [float(first[c[0]]) for c in continuations]
    if max(len(c) for c in continuations) == 1:
        return totals
    kv = _returned_cache(out)
    kv.batch_repeat_interleave(n)
    c_ids, c_mask = _right_pad(continuations, pad_id)
    mask = torch.cat([torch.ones((n, len(prompt)), dtype=torch.long), c_mask], dim=1)
    positions = torch.arange(len(prompt), len(prompt) + c_ids.shape[1]).expand(n, -1)
    logits = model(
        input_ids=c_ids,
        attention_mask=mask,
        position_ids=positions,
        use_cache=True,
        **{_cache_argument(type(model)): kv},
    ).logits
    logp = torch.log_softmax(logits.float(), dim=-1)
    for i, c in enumerate(continuations):
        for j in range(1, len(c)):
            totals[i] += float(logp[i, j - 1, c[j]])
    return totals


@torch.inference_mode()
def greedy_generate(
    model: Any,
    prompts: Sequence[Sequence[int]],
    *,
    pad_id: int,
    eos_ids: Sequence[int],
    max_new_tokens: int,
) -> list[list[int]]:
    """Greedy continuation ids of each prompt, batched with left padding, stopped at EOS."""
    width = max(len(p) for p in prompts)
    ids = torch.full((len(prompts), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(prompts), width), dtype=torch.long)
    for i, p in enumerate(prompts):
        ids[i, width - len(p) :] = torch.tensor(list(p), dtype=torch.long)
        mask[i, width - len(p) :] = 1
    out = model.generate(
        input_ids=ids,
        attention_mask=mask,
        do_sample=False,
        max_new_tokens=max_new_tokens,
        pad_token_id=pad_id,
        eos_token_id=list(eos_ids) or None,
    )
    result: list[list[int]] = []
    stop = set(eos_ids)
    for row in out[:, width:].tolist():
        kept: list[int] = []
        for tok in row:
            if tok in stop:
                break
            kept.append(tok)
        result.append(kept)
    return result
