"""The ``vllm:`` factory's checks that need no engine (they run where vLLM is missing too):
unknown options refused by name, hooks and live models pointed at ``hf_model``, vLLM's engine
options parsed, and the adapter folders of ``sweep --adapters``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from winoscope.backends import create_backend
from winoscope.backends.vllm.engine import lora_capacity
from winoscope.backends.vllm.options import engine_kwargs
from winoscope.errors import BackendError, TaskError
from winoscope.studies.checkpoints import adapter_dirs


def test_an_unknown_option_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(BackendError) as err:
        create_backend(f"vllm:{tmp_path}", tensor_paralel_size=2)
    text = str(err.value)
    assert "unknown option(s) tensor_paralel_size" in text
    assert "tensor_parallel_size" in text and "gpu_memory_utilization" in text


@pytest.mark.parametrize("option", ["hooks", "steer"])
def test_hooks_are_refused_with_a_pointer_to_hf_model(tmp_path: Path, option: str) -> None:
    with pytest.raises(BackendError, match=r"hf_model\(model, tokenizer\)") as err:
        create_backend(f"vllm:{tmp_path}", **{option: "layer.5"})
    assert "cannot run inside vLLM" in str(err.value)


def test_a_model_object_is_refused_with_a_pointer_to_hf_model(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    with pytest.raises(BackendError, match="hf_model"):
        create_backend(f"vllm:{tmp_path}", model_object=torch.nn.Linear(2, 2))
    with pytest.raises(BackendError, match="hf_model"):
        create_backend(f"vllm:{tmp_path}", weights=torch.nn.Linear(2, 2))


def test_peft_points_at_lora(tmp_path: Path) -> None:
    with pytest.raises(BackendError, match="lora=DIR"):
        create_backend(f"vllm:{tmp_path}", peft=str(tmp_path))


def test_engine_options_are_parsed_by_their_own_names() -> None:
    got = engine_kwargs(
        {
            "tensor_parallel_size": "2",
            "data_parallel_size": 1,
            "gpu_memory_utilization": "0.85",
            "max_model_len": "4096",
            "enforce_eager": "true",
            "enable_prefix_caching": "false",
            "seed": "7",
            "dtype": "bfloat16",  # resolved by the factory, not here
            "max_lora_rank": None,  # unset
        }
    )
    assert got == {
        "tensor_parallel_size": 2,
        "data_parallel_size": 1,
        "gpu_memory_utilization": 0.85,
        "max_model_len": 4096,
        "enforce_eager": True,
        "enable_prefix_caching": False,
        "seed": 7,
    }


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("tensor_parallel_size", "0", "at least 1"),
        ("max_model_len", "long", "whole number"),
        ("gpu_memory_utilization", "1.5", r"\(0, 1\]"),
        ("gpu_memory_utilization", "0", r"\(0, 1\]"),
        ("enforce_eager", "auto", "true or false"),
        ("seed", "x", "whole number"),
    ],
)
def test_a_bad_engine_option_names_itself(name: str, value: str, message: str) -> None:
    with pytest.raises(BackendError, match=message) as err:
        engine_kwargs({name: value})
    assert name in str(err.value)


def test_data_parallelism_is_pointed_at_a_server() -> None:
    assert engine_kwargs({"data_parallel_size": 1}) == {"data_parallel_size": 1}
    with pytest.raises(BackendError, match="--data-parallel-size N") as err:
        engine_kwargs({"data_parallel_size": "2"})
    assert "openai:" in str(err.value)


def test_lora_capacity_is_the_smallest_rank_vllm_takes() -> None:
    assert [lora_capacity(r) for r in (1, 4, 8, 9, 64, 300, 512)] == [1, 8, 8, 16, 64, 320, 512]
    with pytest.raises(BackendError, match="exceeds"):
        lora_capacity(513)


def _adapter(path: Path, rank: int = 4) -> Path:
    path.mkdir(parents=True)
    (path / "adapter_config.json").write_text(json.dumps({"r": rank}), encoding="utf-8")
    return path


def test_adapter_folders_become_points(tmp_path: Path) -> None:
    a = _adapter(tmp_path / "checkpoint-100")
    b = _adapter(tmp_path / "strength-2")
    (tmp_path / "checkpoint-300").mkdir()  # no adapter in it: not a point
    (tmp_path / "notes.txt").write_text("x")
    assert adapter_dirs(tmp_path) == {"100": a, "strength-2": b}


def test_adapter_folders_errors(tmp_path: Path) -> None:
    with pytest.raises(TaskError, match="no such directory"):
        adapter_dirs(tmp_path / "missing")
    with pytest.raises(TaskError, match=r"no folder with an adapter_config\.json"):
        adapter_dirs(tmp_path)
    _adapter(tmp_path / "checkpoint-0")
    with pytest.raises(TaskError, match="value 0 is the base"):
        adapter_dirs(tmp_path)


def test_the_sweep_command_checks_adapters_and_base(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from winoscope.cli import app

    runner = CliRunner()
    _adapter(tmp_path / "adapters" / "checkpoint-5")
    alone = runner.invoke(app, ["sweep", "winobias-uk", "--adapters", str(tmp_path / "adapters")])
    assert (
        alone.exit_code == 2 and "--adapters DIR and --base KIND:NAME go together" in alone.output
    )
    both = runner.invoke(
        app,
        ["sweep", "winobias-uk", "--adapters", str(tmp_path / "adapters"), "--base",
         "baseline:first", "-p", "0=baseline:first"],
    )  # fmt: skip
    assert both.exit_code == 2 and "leave out --point" in both.output
    kind = runner.invoke(
        app,
        ["sweep", "winobias-uk", "--adapters", str(tmp_path / "adapters"), "--base",
         "baseline:first"],
    )  # fmt: skip
    assert kind.exit_code == 2 and "adapters go on vllm: or hf: models" in kind.output
