"""LoRA adapters on one vLLM engine: ``vllm:BASE -M lora=DIR`` equals ``hf:BASE -M peft=DIR``,
and a sweep over adapters, or a study's adapters on one base, starts the engine once.

vLLM's GPT-2 takes no LoRA adapters, so these tests build the tiny model as a Llama (same
tokenizer, heads of 32 dimensions) and two real PEFT LoRA adapters on it (random, nonzero B
matrices, so each changes the answers).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from vllm_helpers import ENGINE, compare, lora_adapter

from tiny_lm import build_tiny_llama
from winoscope.backends import create_backend

pytestmark = [pytest.mark.vllm, pytest.mark.timeout(900)]


@pytest.fixture(scope="module")
def llama(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    import torch

    torch.set_num_threads(1)
    root = tmp_path_factory.mktemp("llama")
    base = build_tiny_llama(root / "base")
    return {
        "base": base,
        "a": lora_adapter(base, root / "adapters" / "checkpoint-100", seed=1, rank=4),
        "b": lora_adapter(base, root / "adapters" / "checkpoint-200", seed=2, rank=8),
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


STUDY = """\
name = "adapters"
out = "{out}"
key = "checkpoint"
tasks = ["winobias-uk"]
bootstrap = 20
limit = 1

[[models]]
name = "llama"
base = "vllm:{base}"
adapters = {{100 = "{a}", 200 = "{b}"}}
model_args = {{mode = "cloze", enforce_eager = true}}
"""


def test_a_studys_adapters_share_one_engine(llama: dict[str, Path], tmp_path: Path) -> None:
    """A study's adapters on a ``vllm:`` base, run by the local executor: both points answer
    through the engine the first one started (as the sweep's adapters do), each request
    naming its adapter, and the job ends COMPLETED."""
    import json
    import os
    import subprocess
    import sys

    study = tmp_path / "study.toml"
    out = tmp_path / "out"
    text = STUDY.format(out=out, base=llama["base"], a=llama["a"], b=llama["b"])
    study.write_text(text, encoding="utf-8")
    env = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": os.environ.get("VLLM_CPU_KVCACHE_SPACE", "1")}
    done = subprocess.run(
        [sys.executable, "-m", "winoscope", "study", "run", str(study)],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    manifests = sorted(out.glob("runs/llama/*/*/manifest.json"))
    assert len(manifests) == 2, sorted(p.relative_to(out) for p in out.rglob("manifest.json"))
    models = [json.loads(p.read_text())["model"] for p in manifests]
    assert [m["runtime"]["engines_started"] for m in models] == [1, 1]
    adapters = [m["params"].get("adapter") for m in models]
    assert None not in adapters and adapters[0] != adapters[1]
