"""PEFT adapters: ``hf:BASE -M peft=ADAPTER_DIR`` on the command line and a ``PeftModel`` held
in Python answer alike; the adapter's fingerprint keys the store, so a swapped adapter, a
disabled one or a changed scale is asked again. A real tiny LoRA adapter, made with peft."""

from __future__ import annotations

import pytest

# the model stack: without torch (CI's Python 3.13 environment) this module is skipped
pytest.importorskip("torch")

import json
import shutil
from pathlib import Path

import torch
from hf_requests import make_requests
from transformers import AutoModelForCausalLM, AutoTokenizer
from typer.testing import CliRunner

import winoscope
from tiny_lm import build_tiny_gpt2
from winoscope.backends import create_backend
from winoscope.cli import app
from winoscope.errors import BackendError
from winoscope.extras import MissingExtra
from winoscope.runs.runner import run

peft = pytest.importorskip("peft")
torch.set_num_threads(1)


@pytest.fixture(scope="module")
def base_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_gpt2(tmp_path_factory.mktemp("tiny-peft") / "base", seed=1)


def make_adapter(base: Path, out: Path, seed: int) -> Path:
    """A LoRA adapter on the attention projections, with non-zero B so it changes answers."""
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_pretrained(base)
    config = peft.LoraConfig(
        r=4, lora_alpha=64, target_modules=["c_attn", "c_fc"], init_lora_weights=False
    )
    wrapped = peft.get_peft_model(model, config)
    wrapped.save_pretrained(out)
    return out


@pytest.fixture(scope="module")
def adapters(base_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("adapters")
    return make_adapter(base_dir, root / "lora-a", 0), make_adapter(base_dir, root / "lora-b", 1)


def logprobs(backend: object) -> dict[str, tuple]:
    out = {}
    for r in backend.respond(make_requests(7)):  # type: ignore[attr-defined]
        assert r.error is None, r.error
        out[r.request_id] = r.option_logprobs
    return out


def test_the_command_line_adapter_answers_as_the_peft_model_in_python(base_dir, adapters):
    a, _ = adapters
    from_cli = create_backend(f"hf:{base_dir}", peft=str(a), mode="texts")
    model = peft.PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(base_dir), a)
    live = winoscope.hf_model(model, AutoTokenizer.from_pretrained(base_dir), mode="texts")
    plain = create_backend(f"hf:{base_dir}", mode="texts")
    assert logprobs(from_cli) == logprobs(live)
    assert logprobs(from_cli) != logprobs(plain)  # the adapter changes answers
    assert from_cli.params["adapter"]["fingerprint"]
    assert from_cli.runtime["adapter_path"] == str(a.resolve())
    ids = live.params["adapters"]
    assert (
        list(ids["adapters"]) == ["default"] and ids["adapters"]["default"]["peft_type"] == "LORA"
    )
    assert ids["active"] == ["default"] and ids["disabled"] is False


def test_a_swapped_adapter_asks_again_from_the_command_line(base_dir, adapters, tmp_path):
    a, b = adapters
    out = tmp_path / "run"
    runner = CliRunner()
    args = [
        "run",
        "winobias-uk",
        "-m",
        f"hf:{base_dir}",
        "--out",
        str(out),
        "-q",
        "--bootstrap",
        "20",
        "-M",
        "mode=texts",
    ]
    # another adapter folder is another model: its run replaces the first only when asked to
    for adapter, all_cached in ((a, False), (a, True), (b, False)):
        extra = []
        if adapter == b:
            refused = runner.invoke(app, [*args, "-M", f"peft={b}"])
            assert refused.exit_code == 2, refused.output
            assert "refusing to overwrite" in refused.output
            assert f"peft:{a}" in refused.output and f"peft:{b}" in refused.output
            extra = ["--overwrite"]
        result = runner.invoke(app, [*args, "-M", f"peft={adapter}", *extra])
        assert result.exit_code == 0, result.output
        manifest = json.loads((out / "manifest.json").read_text())
        n = manifest["requests"]
        assert n == 152  # 76 rows, both option orders
        expected = (n, 0) if all_cached else (0, n)
        assert (manifest["responses"]["cached"], manifest["responses"]["asked"]) == expected
    assert "PEFT adapter fingerprint" in (out / "report.md").read_text()


def test_a_disabled_adapter_or_a_new_scale_is_another_model(base_dir, adapters, tmp_path):
    a, _ = adapters
    model = peft.PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(base_dir), a)
    live = winoscope.hf_model(
        model, AutoTokenizer.from_pretrained(base_dir), mode="texts", label="lora"
    )
    on = live.params
    with model.disable_adapter():
        off = live.params
        assert off["adapters"]["disabled"] is True
        disabled = logprobs(live)
    assert disabled == logprobs(create_backend(f"hf:{base_dir}", mode="texts"))
    for module in model.modules():
        if isinstance(getattr(module, "scaling", None), dict) and "default" in module.scaling:
            module.scaling["default"] *= 0.5
    scaled = live.params
    assert len({json.dumps(p, sort_keys=True) for p in (on, off, scaled)}) == 3


def test_adapter_errors_name_the_directory_and_the_extra(base_dir, tmp_path):
    with pytest.raises(BackendError, match="no such adapter directory"):
        create_backend(f"hf:{base_dir}", peft=str(tmp_path / "missing"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(BackendError, match=r"no adapter_config\.json"):
        create_backend(f"hf:{base_dir}", peft=str(tmp_path / "empty"))
    assert "pip install 'winoscope[peft]'" in str(MissingExtra("peft", "option peft=x"))


def _broken(good: Path, root: Path, kind: str) -> Path:
    out = root / kind
    shutil.copytree(good, out)
    config = out / "adapter_config.json"
    if kind == "config not JSON":
        config.write_text("{not json", encoding="utf-8")
    elif kind == "config without peft_type":
        config.write_text("{}", encoding="utf-8")
    elif kind == "weights not safetensors":
        (out / "adapter_model.safetensors").write_bytes(b"garbage" * 10)
    elif kind == "no weights":
        (out / "adapter_model.safetensors").unlink()
    elif kind == "modules the base lacks":
        data = json.loads(config.read_text(encoding="utf-8"))
        data["target_modules"] = ["no_such_module"]
        config.write_text(json.dumps(data), encoding="utf-8")
    return out


@pytest.mark.parametrize(
    ("kind", "says"),
    [
        ("config not JSON", "adapter_config.json is not JSON"),
        ("config without peft_type", "names no peft_type"),
        ("weights not safetensors", "adapter_model.safetensors: not a safetensors file"),
        ("no weights", "no adapter weights"),
        ("modules the base lacks", "cannot be put on the base model"),
    ],
)
def test_a_broken_adapter_is_named_not_the_base_model(
    base_dir: Path, adapters: tuple[Path, Path], tmp_path: Path, kind: str, says: str
) -> None:
    """One line naming the adapter's folder and what is wrong with it, exit 2; never the base
    model blamed, never the hub's "Repo id" words, never a traceback."""
    broken = _broken(adapters[0], tmp_path, kind)
    res = CliRunner().invoke(
        app,
        ["run", "winobias-uk", "-m", f"hf:{base_dir}", "-M", f"peft={broken}", "--limit", "1",
         "--bootstrap", "0", "-q", "--out", str(tmp_path / "out")],
        env={"COLUMNS": "400"},
    )  # fmt: skip
    text = " ".join(res.output.split())
    assert res.exit_code == 2, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    assert text.count("error:") == 1 and says in text and str(broken) in text, text
    assert "Repo id" not in text and "cannot load a causal language model" not in text


def test_a_run_with_the_adapter_records_it_in_the_manifest(base_dir, adapters, tmp_path):
    a, _ = adapters
    rr = run(
        "winobias-uk",
        f"hf:{base_dir}",
        backend_options={"peft": str(a), "mode": "texts"},
        out=tmp_path / "r",
        n_boot=20,
    )
    assert rr.manifest["model"]["params"]["adapter"]["fingerprint"]
    assert rr.manifest["model"]["runtime"]["adapter_path"] == str(a.resolve())


def _responses(out: Path) -> dict:
    return json.loads((out / "manifest.json").read_text())["responses"]


def test_the_base_after_unload_answers_as_the_base_and_reuses_its_store(
    base_dir, adapters, tmp_path
):
    """docs/mitigation.md's order: the base, the adapter on it, ``unload()``, the base again.
    With transformers 4.57 the unloaded model keeps transformers' PEFT state, whose
    ``active_adapters()`` raises "No adapter loaded"; the model is the base again, by
    its answers and by the key of its stored answers."""
    a, _ = adapters
    model = AutoModelForCausalLM.from_pretrained(base_dir)
    tok = AutoTokenizer.from_pretrained(base_dir)
    out = tmp_path / "run"
    base = winoscope.hf_model(model, tok, mode="texts", label="base")
    before_params, before = base.params, logprobs(base)
    first = run("winobias-uk", base, out=out, n_boot=20)
    n = first.manifest["requests"]
    assert (_responses(out)["cached"], _responses(out)["asked"]) == (0, n)
    lora = peft.PeftModel.from_pretrained(model, a)
    with_adapter = winoscope.hf_model(lora, tok, mode="texts", label="lora")
    assert logprobs(with_adapter) != before
    run("winobias-uk", with_adapter, out=tmp_path / "lora", n_boot=20)
    lora.unload()
    again = winoscope.hf_model(model, tok, mode="texts", label="base")
    assert again.params == before_params  # the identity the base had before the adapter
    assert "adapters" not in again.params
    assert logprobs(again) == before
    second = run("winobias-uk", again, out=out, n_boot=20)
    assert (_responses(out)["cached"], _responses(out)["asked"]) == (n, 0)
    assert second.metrics.equals(first.metrics)


def test_a_sweep_over_an_adapter_unloads_it_and_resumes_the_base(base_dir, adapters, tmp_path):
    """A sweep whose point 1 puts the adapter on and takes it off again: run twice into one
    folder, the second run evaluates the base after the unload and reuses every answer."""
    import contextlib

    a, _ = adapters
    model = AutoModelForCausalLM.from_pretrained(base_dir)
    tok = AutoTokenizer.from_pretrained(base_dir)

    @contextlib.contextmanager
    def point(value: int):  # type: ignore[no-untyped-def]
        if value == 0:
            yield winoscope.hf_model(model, tok, mode="texts", label="base")
            return
        lora = peft.PeftModel.from_pretrained(model, a)
        try:
            yield winoscope.hf_model(lora, tok, mode="texts", label="lora")
        finally:
            lora.unload()

    out = tmp_path / "sweep"
    runs = [
        winoscope.sweep("winobias-uk", point, values=[0, 1], key="lora", out=out, n_boot=20)
        for _ in range(2)
    ]
    assert runs[0].table.equals(runs[1].table)
    for v in (0, 1):
        manifest = json.loads((out / "winobias-uk" / f"lora={v}" / "manifest.json").read_text())
        assert (manifest["responses"]["cached"], manifest["responses"]["asked"]) == (152, 0)
        assert ("adapters" in manifest["model"]["params"]) == (v == 1)
    assert not any("lora" in name for name, _ in model.named_parameters())
