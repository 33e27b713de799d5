"""The published methods of this folder, of WinoBias-UK Controlled and of BBQ-UK (three cyclic
orders raw, and the fixed order under the chat template) through ``vllm:`` equal ``hf:`` item
by item on the same weights (float32): every option's mean token
log-probability within 1e-4, the same token counts and the same prediction for every row."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest

from tiny_lm import build_tiny_gpt2
from winoscope.backends import create_backend
from winoscope.backends.base import close_backend
from winoscope.runs.config import RunConfig
from winoscope.runs.plan import plan
from winoscope.runs.runner import ask, predict

pytestmark = [pytest.mark.vllm, pytest.mark.timeout(900)]
os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")

TOLERANCE = 1e-4
METHODS = [
    ("stereoset-uk", "causal_full_sentence_mean_token_logprob_v1", "prediction"),
    ("winobias-uk-controlled", "fixed_ab_mean_token_logprob_v1", "prediction_role"),
    ("bbq-uk", "abc_mean_token_logprob_cyclic_raw_v2", "prediction_role"),
    ("bbq-uk", "abc_mean_token_logprob_fixed_chat_v2", "prediction_role"),
]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import torch

    torch.set_num_threads(1)
    # heads of 32 dimensions (vLLM's CPU attention takes no smaller); a chat template and a
    # BOS-adding tokenizer, which the methods must not use and must use once, respectively
    return build_tiny_gpt2(
        tmp_path_factory.mktemp("tiny"), chat=True, bos=True, n_embd=64, n_positions=1024
    )


def answers(task: str, backend: object, protocol: str) -> tuple[dict, pd.DataFrame]:  # type: ignore[type-arg]
    p = plan(RunConfig(task, backend, store=False, protocol=protocol))  # type: ignore[arg-type]
    got = ask(p)
    return got.responses, predict(p, got).predictions


@pytest.mark.parametrize(("task", "method", "column"), METHODS)
def test_vllm_equals_hf_item_by_item(tiny: Path, task: str, method: str, column: str) -> None:
    hf = create_backend(f"hf:{tiny}")
    vl = create_backend(f"vllm:{tiny}", enforce_eager=True, seed=0)
    a, pred_a = answers(task, hf, method)
    try:
        b, pred_b = answers(task, vl, method)
    finally:
        close_backend(vl)
    assert set(a) == set(b) and len(a) > 0
    for rid, ra in a.items():
        rb = b[rid]
        assert ra.ok and rb.ok, (ra.error, rb.error)
        assert ra.option_token_counts == rb.option_token_counts
        assert ra.option_logprobs is not None and rb.option_logprobs is not None
        worst = max(abs(x - y) for x, y in zip(ra.option_logprobs, rb.option_logprobs, strict=True))
        assert worst <= TOLERANCE, rid
    both = pred_a[["row_id", column]].merge(pred_b[["row_id", column]], on="row_id")
    assert (both[f"{column}_x"].astype(str) == both[f"{column}_y"].astype(str)).all()
