"""Log-likelihood scoring and greedy generation with a causal language model (torch).

Everything here works on token ids, so it can be checked against a plain reference
computation independently of any tokenizer. Callers import this module lazily: importing
torch takes seconds and ``import winoscope`` must stay fast.

Scoring a forced-choice request asks for ``log P(continuation | prompt)`` for each option:

- **single-token continuations** (``" A"``, ``" B"``): one forward pass over the prompt gives
  the next-token distribution, and each option is one entry of it. Prompts are batched with
  right padding, so real tokens never attend to padding and keep their unbatched positions;
  the distribution is read at each prompt's last real token.
- **multi-token continuations** (option texts such as ``" лікар"``): a batch of prompts runs
  once with the key/value cache on; each prompt's cache is repeated once per option and the
  continuations (right-padded) run on top of it. The first continuation token is scored from
  the prompt's last logits, every later one from the continuation pass.

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
def _cache_argument(forward_type: Any) -> str:
    """The forward argument that takes a key/value cache (``cache`` in newer transformers)."""
    params = inspect.signature(forward_type.forward).parameters
    return "cache" if "cache" in params else "past_key_values"


@cache
def _takes_logits_to_keep(forward_type: Any) -> bool:
    return "logits_to_keep" in inspect.signature(forward_type.forward).parameters


def _returned_cache(output: Any) -> Any:
    value = getattr(output, "cache", None)
    return value if value is not None else output.past_key_values


def _prompt_pass(
    model: Any, prompts: Sequence[Sequence[int]], pad_id: int, *, use_cache: bool
) -> tuple[torch.Tensor, torch.Tensor, Any]:
    """Right-padded forward pass: next-token log-probabilities per prompt, the mask, the cache."""
    if not prompts or any(len(p) == 0 for p in prompts):
        raise BackendError("cannot score an empty prompt (no tokens)")
    ids, mask = _right_pad(prompts, pad_id)
    last = mask.sum(dim=1) - 1
    if _takes_logits_to_keep(model.__class__):
        # Project only the positions that are read: with a large vocabulary the output layer
        # over every position costs more than the rest of the model.
        keep = torch.unique(last)
        out = model(input_ids=ids, attention_mask=mask, use_cache=use_cache, logits_to_keep=keep)
        column = torch.searchsorted(keep, last)
    else:
        out = model(input_ids=ids, attention_mask=mask, use_cache=use_cache)
        column = last
    picked = out.logits[torch.arange(len(prompts)), column].float()
    cache = _returned_cache(out) if use_cache else None
    return torch.log_softmax(picked, dim=-1), mask, cache


@torch.inference_mode()
def next_token_logprobs(model: Any, prompts: Sequence[Sequence[int]], pad_id: int) -> torch.Tensor:
    """``[len(prompts), vocab]`` log-probabilities of the token after each prompt (one pass)."""
    return _prompt_pass(model, prompts, pad_id, use_cache=False)[0]


@torch.inference_mode()
def continuation_logprobs(
    model: Any,
    prompts: Sequence[Sequence[int]],
    continuations: Sequence[Sequence[Sequence[int]]],
    pad_id: int,
) -> list[list[float]]:
    """Summed log-probability of each prompt's continuations, computing each prompt once.

    ``continuations[b]`` lists the candidate continuations of ``prompts[b]``. The prompts run
    as one right-padded batch with the cache on; each prompt's cache rows are repeated once per
    candidate, and all candidates run in one pass on top, their attention mask hiding the
    prompts' padding and their positions continuing each prompt's own length.
    """
    if len(prompts) != len(continuations):
        raise BackendError("one list of continuations per prompt is needed")
    if any(len(c) == 0 for cs in continuations for c in cs):
        raise BackendError("cannot score an empty continuation (no tokens)")
    first, p_mask, kv = _prompt_pass(model, prompts, pad_id, use_cache=True)
    totals = [[float(first[b, c[0]]) for c in cs] for b, cs in enumerate(continuations)]
    owner = [b for b, cs in enumerate(continuations) for _ in cs]
    flat = [c for cs in continuations for c in cs]
    if not flat or max(len(c) for c in flat) == 1:
        return totals
    kv.batch_select_indices(torch.tensor(owner, dtype=torch.long))
    c_ids, c_mask = _right_pad(flat, pad_id)
    rows = p_mask[owner]
    mask = torch.cat([rows, c_mask], dim=1)
    positions = rows.sum(dim=1, keepdim=True) + torch.arange(c_ids.shape[1]).unsqueeze(0)
    logits = model(
        input_ids=c_ids,
        attention_mask=mask,
        position_ids=positions,
        use_cache=True,
        **{_cache_argument(model.__class__): kv},
    ).logits
    logp = torch.log_softmax(logits.float(), dim=-1)
    k = 0
    for b, cs in enumerate(continuations):
        for i, c in enumerate(cs):
            for j in range(1, len(c)):
                totals[b][i] += float(logp[k, j - 1, c[j]])
            k += 1
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
