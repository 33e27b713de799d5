"""docs/mitigation.md's worked example runs as written: its settings pointed at the tiny test
model, a real LoRA adapter made with peft, and its layer; everything else is the page's code."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "mitigation.md"


def example_code() -> str:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    assert blocks, "docs/mitigation.md has no python example"
    return blocks[0]


def test_the_worked_example_runs_on_the_tiny_model(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    peft = pytest.importorskip("peft")
    from transformers import AutoModelForCausalLM

    from tiny_lm import build_tiny_gpt2

    torch.set_num_threads(1)
    model_dir = build_tiny_gpt2(tmp_path / "model", seed=1)
    torch.manual_seed(0)
    lora = peft.get_peft_model(
        AutoModelForCausalLM.from_pretrained(model_dir),
        peft.LoraConfig(r=4, lora_alpha=32, target_modules=["c_attn"], init_lora_weights=False),
    )
    lora.save_pretrained(tmp_path / "adapter")
    settings = {
        "MODEL_DIR": str(model_dir),
        "ADAPTER_DIR": str(tmp_path / "adapter"),
        "LAYER": "transformer.h.1",
        "DEVICE": "cpu",
    }
    code = example_code()
    for name, value in settings.items():
        code, n = re.subn(rf"^{name} = .*$", f"{name} = {value!r}", code, flags=re.M)
        assert n == 1, name
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    scope: dict[str, object] = {}
    exec(compile(code, str(DOC), "exec"), scope)

    def manifest(run: str) -> dict:
        return json.loads((work / run / "manifest.json").read_text())

    assert manifest("runs/base")["tags"] == {"method": "none"}
    steer = manifest("runs/steer-4")
    assert steer["tags"] == {"method": "steer", "layer": "transformer.h.1", "alpha": 4}
    hooks = steer["model"]["params"]["hooks"]
    assert [(h["module"], h["kind"]) for h in hooks] == [("transformer.h.1", "forward")]
    assert "add.<locals>.hook" in hooks[0]["callable"]
    assert manifest("runs/lora")["model"]["params"]["adapters"]["adapters"]["default"]
    assert "hooks" not in manifest("runs/base")["model"]["params"]
    assert (work / "sweeps/steer/sweep.html").is_file()
    points = json.loads((work / "sweeps/steer/sweep.json").read_text())["points"]
    assert points == [0, 1, 2, 4, 8]
    model = scope["model"]
    assert not any(m._forward_hooks for m in model.modules())  # type: ignore[attr-defined]
    assert not any("lora" in name for name, _ in model.named_parameters())  # type: ignore[attr-defined]
