"""Shared by the vLLM tests: the tasks by protocol, and one task's answers from two backends
compared item by item."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from shared_paths import SHARED_DATA
from winoscope.api import list_tasks
from winoscope.records import CHOICE_PROTOCOLS, Response
from winoscope.runs.config import RunConfig
from winoscope.runs.plan import plan
from winoscope.runs.runner import ask, predict

# vLLM's CPU build reserves this many GiB for its key/value cache (the tests' prompts are short)
os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")

#: engine options for the tests: small, eager (no compilation), one at a time
ENGINE: dict[str, Any] = {"enforce_eager": True, "seed": 0}


def tasks_with(protocols: set[str]) -> list[str]:
    """Every registered task with one of ``protocols`` (aliases of one task counted once)."""
    seen: dict[tuple[str, ...], str] = {}
    for t in list_tasks():
        if protocols & set(t["protocols"]):
            key = (t["family"], t["protocol"], tuple(t["metrics"]), t["source"])
            seen.setdefault(key, t["task"])
    return sorted(seen.values())


CHOICE_TASKS = tasks_with(set(CHOICE_PROTOCOLS))
CLOZE_TASKS = tasks_with({"cloze"})


@dataclass
class Comparison:
    """Two backends' answers to the same requests of one task."""

    requests: int = 0
    max_per_token: float = 0.0
    differing_predictions: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def task_data(task: str) -> Path | None:
    """The English tasks' real data (beside the project; no sample ships); None: the sample."""
    family = task.split("/")[0]
    return SHARED_DATA / family if family.endswith("-en") else None


def answers(
    task: str, backend: Any, protocol: str, max_requests: int | None = None
) -> tuple[dict[str, Response], Any, str]:
    """The task's answers (``limit=1``; the first ``max_requests`` of its requests when given),
    its predictions and the column holding them."""
    p = plan(
        RunConfig(task, backend, limit=1, store=False, protocol=protocol, data=task_data(task))
    )
    if max_requests is not None:
        p = replace(p, requests=p.requests[:max_requests])
    got = ask(p)
    column = "prediction_role" if protocol == "cloze" else p.task.primary.prediction_column
    return got.responses, predict(p, got).predictions, column


def compare(
    task: str, ref: Any, other: Any, protocol: str, max_requests: int | None = None
) -> Comparison:
    """Item by item: each option's log-probability per token, and each row's prediction (rows
    left unasked by ``max_requests`` are unanswered alike in both)."""
    a, pred_a, column = answers(task, ref, protocol, max_requests)
    b, pred_b, _ = answers(task, other, protocol, max_requests)
    assert set(a) == set(b)
    out = Comparison(requests=len(a))
    for rid, ra in a.items():
        rb = b[rid]
        if ra.error or rb.error:
            out.errors.append(f"{rid}: {ra.error} | {rb.error}")
            continue
        assert ra.option_logprobs is not None and rb.option_logprobs is not None
        counts = ra.option_token_counts or (1,) * len(ra.option_logprobs)
        assert rb.option_token_counts in (None, ra.option_token_counts)
        for x, y, n in zip(ra.option_logprobs, rb.option_logprobs, counts, strict=True):
            out.max_per_token = max(out.max_per_token, abs(x - y) / n)
    merged = pred_a[["row_id", column]].merge(pred_b[["row_id", column]], on="row_id")
    x, y = merged[f"{column}_x"], merged[f"{column}_y"]
    unasked = x.isna() & y.isna()  # rows left out by max_requests, alike in both
    differ = merged[~unasked & (x.isna() | y.isna() | (x.astype(object) != y.astype(object)))]
    out.differing_predictions = list(differ["row_id"].astype(str))
    return out


def lora_adapter(base: Path, out: Path, seed: int, rank: int) -> Path:
    """A real PEFT LoRA adapter of ``rank`` on ``base`` (random, nonzero B matrices: it
    changes the answers), saved to ``out``."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_pretrained(base)
    config = LoraConfig(
        r=rank,
        lora_alpha=2 * rank,
        target_modules=["q_proj", "k_proj", "v_proj", "o_proj"],
        init_lora_weights=False,  # random B: the adapter changes the answers
    )
    peft_model = get_peft_model(model, config)
    peft_model.save_pretrained(out)
    return out
