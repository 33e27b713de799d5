"""LoRA adapters on one vLLM engine: ``vllm:BASE -M lora=DIR`` equals ``hf:BASE -M peft=DIR``,
and a sweep over adapters starts the engine once.

vLLM's GPT-2 takes no LoRA adapters, so these tests build the tiny model as a Llama (same
tokenizer, heads of 32 dimensions) and two real PEFT LoRA adapters on it (random, nonzero B
matrices, so each changes the answers).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from vllm_helpers import ENGINE, compare

from tiny_lm import build_tiny_llama
from winoscope.backends import create_backend

pytestmark = [pytest.mark.vllm, pytest.mark.timeout(900)]


def _adapter(base: Path, out: Path, seed: int, rank: int) -> Path:
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


@pytest.fixture(scope="module")
def llama(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    import torch

    torch.set_num_threads(1)
    root = tmp_path_factory.mktemp("llama")
    base = build_tiny_llama(root / "base")
    return {
        "base": base,
        "a": _adapter(base, root / "adapters" / "checkpoint-100", seed=1, rank=4),
        "b": _adapter(base, root / "adapters" / "checkpoint-200", seed=2, rank=8),
    }


@pytest.mark.parametrize(("mode", "protocol"), [("letters", "forced_choice"), ("cloze", "cloze")])
def test_a_lora_adapter_scores_as_peft_does(
    llama: dict[str, Path], mode: str, protocol: str
) -> None:
    base = llama["base"]
    hf = create_backend(f"hf:{base}", mode=mode, peft=str(llama["a"]))
    vl = create_backend(f"vllm:{base}", mode=mode, lora=str(llama["a"]), **ENGINE)
    got = compare("winobias-uk", hf, vl, protocol)
    print(f"\nllama+lora winobias-uk {mode}: {got.requests} requests, max {got.max_per_token:.3g}")
    assert not got.errors and got.requests > 0
    assert got.max_per_token <= 1e-4
    assert got.differing_predictions == []
    # the adapter changes the answers: the base model's differ from the adapter's
    plain = create_backend(f"vllm:{base}", mode=mode, **ENGINE)
    moved = compare("winobias-uk", vl, plain, protocol)
    assert moved.max_per_token > 1e-3


def test_the_adapter_keys_the_store(llama: dict[str, Path]) -> None:
    base = llama["base"]
    plain = create_backend(f"vllm:{base}", **ENGINE)
    a = create_backend(f"vllm:{base}", lora=str(llama["a"]), **ENGINE)
    b = create_backend(f"vllm:{base}", lora=str(llama["b"]), **ENGINE)
    assert "adapter" not in plain.params
    assert a.params["adapter"] != b.params["adapter"]
    assert {k: v for k, v in a.params.items() if k != "adapter"} == plain.params


def test_a_sweep_over_adapters_starts_one_engine(llama: dict[str, Path], tmp_path: Path) -> None:
    """``winoscope sweep --adapters DIR --base vllm:BASE`` as a user runs it (its own process:
    the engine's spawned workers import ``winoscope.__main__`` again)."""
    import json
    import os
    import subprocess
    import sys

    out = tmp_path / "sweep"
    command = [
        sys.executable, "-m", "winoscope", "sweep", "winobias-uk",
        "--adapters", str(llama["a"].parent), "--base", f"vllm:{llama['base']}",
        "-M", "mode=cloze", "-M", "enforce_eager=true",
        "--limit", "1", "--bootstrap", "50", "--out", str(out), "--quiet",
    ]  # fmt: skip
    env = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": os.environ.get("VLLM_CPU_KVCACHE_SPACE", "1")}
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    manifests = {
        d.name: json.loads((d / "manifest.json").read_text())
        for d in sorted((out / "winobias-uk").iterdir())
    }
    assert sorted(manifests) == ["checkpoint=0", "checkpoint=100", "checkpoint=200"]
    runtimes = [m["model"]["runtime"] for m in manifests.values()]
    assert [r["engines_started"] for r in runtimes] == [1, 1, 1]
    adapters = [m["model"]["params"].get("adapter") for m in manifests.values()]
    assert adapters[0] is None and None not in adapters[1:] and adapters[1] != adapters[2]
    assert (out / "sweep.csv").is_file()
