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

Inputs go to the model's device (``model.device``); only the scored entries come back to the
CPU, in one copy per pass.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from functools import cache
from typing import Any

import torch

from ...errors import BackendError


def model_device(model: Any) -> torch.device:
    """Where the model's inputs go (its first parameters' device under a device map)."""
    device = getattr(model, "device", None)
    return device if isinstance(device, torch.device) else torch.device("cpu")


def _right_pad(
    rows: Sequence[Sequence[int]], pad_id: int, device: torch.device | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-padded ids and attention mask, built on the CPU and moved in one copy each."""
    width = max(len(r) for r in rows)
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, r in enumerate(rows):
        ids[i, : len(r)] = torch.tensor(list(r), dtype=torch.long)
        mask[i, : len(r)] = 1
    if device is not None and device.type != "cpu":
        return ids.to(device), mask.to(device)
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
    ids, mask = _right_pad(prompts, pad_id, model_device(model))
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
    picked = out.logits[torch.arange(len(prompts), device=column.device), column].float()
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
    device = p_mask.device
    owner = [b for b, cs in enumerate(continuations) for _ in cs]
    flat = [c for cs in continuations for c in cs]
    heads = first[
        torch.tensor(owner, dtype=torch.long, device=device),
        torch.tensor([c[0] for c in flat], dtype=torch.long, device=device),
    ].tolist()
    it = iter(heads)
    totals = [[next(it) for _ in cs] for cs in continuations]
    if not flat or max(len(c) for c in flat) == 1:
        return totals
    kv.batch_select_indices(torch.tensor(owner, dtype=torch.long, device=device))
    # a continuation's last token is only predicted, never read: feed all but it
    c_ids, c_mask = _right_pad([c[:-1] for c in flat], pad_id, device)
    rows = p_mask[torch.tensor(owner, dtype=torch.long, device=device)]
    mask = torch.cat([rows, c_mask], dim=1)
    steps = torch.arange(c_ids.shape[1], device=device).unsqueeze(0)
    positions = rows.sum(dim=1, keepdim=True) + steps
    logits = model(
        input_ids=c_ids,
        attention_mask=mask,
        position_ids=positions,
        use_cache=True,
        **{_cache_argument(model.__class__): kv},
    ).logits
    logp = torch.log_softmax(logits.float(), dim=-1)
    # gather every scored entry on the device and copy them to the CPU once
    rows_k, cols_j, toks = [], [], []
    for k, c in enumerate(flat):
        for j in range(1, len(c)):
            rows_k.append(k)
            cols_j.append(j - 1)
            toks.append(c[j])
    picked = logp[
        torch.tensor(rows_k, device=device),
        torch.tensor(cols_j, device=device),
        torch.tensor(toks, device=device),
    ].tolist()
    n = 0
    for b, cs in enumerate(continuations):
        for i, c in enumerate(cs):
            for _ in range(1, len(c)):
                totals[b][i] += picked[n]
                n += 1
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
    device = model_device(model)
    if device.type != "cpu":
        ids, mask = ids.to(device), mask.to(device)
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
