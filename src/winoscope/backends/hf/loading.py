"""Finding and loading a local causal LM: model directory, device, dtype, nested configs.

``device="auto"`` picks CUDA when available, else Apple MPS, else the CPU. ``dtype="auto"``
keeps the checkpoint's dtype on an accelerator (bfloat16 when the checkpoint does not say,
float32 when the device cannot do bfloat16) and uses float32 on the CPU, where half precision
is slow and changes answers for nothing. ``device_map`` (e.g. ``auto``) is handed to
``from_pretrained`` to spread a model over several GPUs; the inputs then go to the device of
the model's first parameters (its embeddings).

Multimodal checkpoints such as Gemma 3 12B keep the language model's settings in
``config.text_config``; the top-level ``max_position_embeddings`` and ``sliding_window`` are
None there, so both are read from ``text_config`` first (as lm-evaluation-harness does).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import BackendError

DEVICES = ("auto", "cpu", "cuda", "mps")
DTYPES = ("auto", "float32", "bfloat16", "float16")
CONTEXT_ATTRS = ("n_positions", "max_position_embeddings", "n_ctx")


def resolve_model_dir(name: str, revision: str | None = None) -> Path:
    """A local directory, or the local hub-cache snapshot of a model id (never downloads)."""
    path = Path(name).expanduser()
    if path.is_dir():
        if revision is not None:
            raise BackendError(f"hf:{name}: revision= applies to hub ids, not to a directory")
        return path.resolve()
    if path.exists():
        raise BackendError(f"hf:{name}: a model must be a directory (config.json, weights)")
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(name, revision=revision, local_files_only=True))
    except Exception:
        at = f" at revision {revision}" if revision else ""
        raise BackendError(
            f"hf:{name}: not a local directory and not in the local model cache{at}; winoscope "
            "never downloads models during a run: download it first, then pass its directory"
        ) from None


def resolve_device(device: str) -> str:
    """``auto`` -> cuda / mps / cpu, whichever this machine has; a named device is checked."""
    text = str(device).strip().lower()
    base = text.split(":")[0]
    if base not in DEVICES:
        raise BackendError(f"option device={device!r}: expected one of {', '.join(DEVICES)}")
    if base == "cpu":
        return "cpu"
    import torch

    has_cuda = torch.cuda.is_available()
    mps = getattr(torch.backends, "mps", None)
    has_mps = bool(mps is not None and mps.is_available())
    if base == "auto":
        return "cuda" if has_cuda else "mps" if has_mps else "cpu"
    if base == "cuda" and not has_cuda:
        raise BackendError(f"option device={device!r}: torch {torch.__version__} sees no CUDA")
    if base == "mps" and not has_mps:
        raise BackendError(f"option device={device!r}: MPS is not available here")
    return text


def checkpoint_dtype(config: dict[str, Any]) -> str | None:
    """The dtype a checkpoint's config.json names (top level or ``text_config``)."""
    for cfg in (config, config.get("text_config") or {}):
        if isinstance(cfg, dict):
            for key in ("dtype", "torch_dtype"):
                value = cfg.get(key)
                if isinstance(value, str) and value in DTYPES:
                    return value
    return None


def bf16_supported(device: str) -> bool:
    if device.startswith("cuda"):
        import torch

        return bool(torch.cuda.is_bf16_supported())
    return device.startswith("mps")


def resolve_dtype(dtype: str, device: str, config: dict[str, Any]) -> str:
    """``auto`` -> float32 on the CPU, the checkpoint's dtype (or bfloat16) on an accelerator."""
    text = str(dtype).strip().lower()
    if text not in DTYPES:
        raise BackendError(f"option dtype={dtype!r}: expected one of {', '.join(DTYPES)}")
    if text != "auto":
        return text
    if device == "cpu":
        return "float32"
    chosen = checkpoint_dtype(config) or "bfloat16"
    if chosen == "bfloat16" and not bf16_supported(device):
        return "float32"
    return chosen


def nested_setting(config: Any, names: tuple[str, ...]) -> Any:
    """The first of ``names`` set on ``config.text_config``, else on ``config`` itself."""
    for cfg in (getattr(config, "text_config", None), config):
        if cfg is None:
            continue
        for name in names:
            value = getattr(cfg, name, None)
            if value is not None:
                return value
    return None


def context_length(config: Any) -> int | None:
    value = nested_setting(config, CONTEXT_ATTRS)
    return int(value) if isinstance(value, int) and value > 0 else None


def sliding_window(config: Any) -> int | None:
    value = nested_setting(config, ("sliding_window",))
    return int(value) if isinstance(value, int) and value > 0 else None


@dataclass
class LoadedLM:
    """A model and tokenizer ready to score: the pieces the scoring functions need."""

    model: Any
    tokenizer: Any
    pad_id: int
    eos_ids: tuple[int, ...]
    max_positions: int | None
    sliding_window: int | None = None
    device: str = "cpu"
    dtype: str = "float32"


@dataclass(frozen=True)
class LoadOptions:
    """How to load: everything handed to ``from_pretrained`` besides the directory."""

    device: str = "cpu"
    dtype: str = "float32"
    device_map: Any = None
    attn_implementation: str | None = None
    trust_remote_code: bool = False
    #: a PEFT adapter directory put on the model after loading (``-M peft=DIR``)
    adapter: Path | None = None


def load_causal_lm(model_dir: Path, options: LoadOptions | None = None) -> LoadedLM:
    """Load a causal LM and its tokenizer from ``model_dir`` (local files only), in eval mode."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    opts = options or LoadOptions()
    torch_dtype = getattr(torch, opts.dtype, None)
    if not isinstance(torch_dtype, torch.dtype):
        raise BackendError(f"option dtype={opts.dtype!r}: not a torch dtype")
    extra: dict[str, Any] = {}
    if opts.device_map is not None:
        extra["device_map"] = opts.device_map
    if opts.attn_implementation is not None:
        extra["attn_implementation"] = opts.attn_implementation
    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()  # the run shows its own progress
    try:
        tok = AutoTokenizer.from_pretrained(
            model_dir, local_files_only=True, trust_remote_code=opts.trust_remote_code
        )
        model = _from_pretrained(
            AutoModelForCausalLM,
            model_dir,
            torch_dtype,
            local_files_only=True,
            trust_remote_code=opts.trust_remote_code,
            **extra,
        )
        if opts.adapter is not None:
            model = attach_adapter(model, opts.adapter)
        if opts.device_map is None and opts.device != "cpu":
            model = model.to(opts.device)
    except BackendError:
        raise
    except Exception as exc:
        raise BackendError(f"cannot load a causal language model from {model_dir}: {exc}") from exc
    finally:
        if bars:
            hf_logging.enable_progress_bar()
    model.eval()
    return loaded_lm(model, tok, opts.dtype)


def loaded_lm(model: Any, tok: Any, dtype: str) -> LoadedLM:
    """The scoring view of a model and its tokenizer: padding, end tokens, context limits."""
    eos = tok.eos_token_id
    eos_ids = tuple(eos) if isinstance(eos, list) else (() if eos is None else (int(eos),))
    pad = tok.pad_token_id
    if pad is None:
        pad = eos_ids[0] if eos_ids else 0
    return LoadedLM(
        model,
        tok,
        int(pad),
        eos_ids,
        context_length(model.config),
        sliding_window(model.config),
        device=str(model.device),
        dtype=dtype,
    )


ADAPTER_WEIGHTS = ("adapter_model.safetensors", "adapter_model.bin")


def adapter_dir(path: str | Path) -> Path:
    """A PEFT adapter directory (``adapter_config.json`` beside its weights), checked before
    the base model loads, so that a broken adapter is named as such."""
    import json

    found = Path(path).expanduser()
    if not found.is_dir():
        raise BackendError(f"option peft={path}: no such adapter directory")
    config_file = found / "adapter_config.json"
    if not config_file.is_file():
        raise BackendError(
            f"option peft={path}: not a PEFT adapter directory (no adapter_config.json; "
            "save one with model.save_pretrained(DIR) on a PeftModel)"
        )
    try:
        config = json.loads(config_file.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BackendError(f"option peft={path}: {config_file.name} is not JSON: {exc}") from exc
    if not isinstance(config, dict) or not config.get("peft_type"):
        raise BackendError(
            f"option peft={path}: {config_file.name} names no peft_type (not a PEFT adapter's "
            "configuration)"
        )
    if not any((found / name).is_file() for name in ADAPTER_WEIGHTS):
        raise BackendError(
            f"option peft={path}: no adapter weights ({' or '.join(ADAPTER_WEIGHTS)})"
        )
    return found.resolve()


def attach_adapter(model: Any, path: Path) -> Any:
    """The model with the adapter at ``path`` on it, for inference (peft's ``PeftModel``); an
    adapter that does not fit the model is reported as the adapter's fault."""
    from ...extras import require

    require("peft", f"option peft={path}")
    from peft import PeftModel

    try:
        return PeftModel.from_pretrained(model, str(path), is_trainable=False)
    except Exception as exc:
        raise BackendError(
            f"option peft={path}: the adapter cannot be put on the base model: {exc}"
        ) from exc


def _from_pretrained(auto: Any, model_dir: Path, torch_dtype: Any, **kwargs: Any) -> Any:
    """``dtype=`` on transformers >= 4.56, ``torch_dtype=`` on older releases."""
    try:
        return auto.from_pretrained(model_dir, dtype=torch_dtype, **kwargs)
    except TypeError as exc:
        if "dtype" not in str(exc):
            raise
        return auto.from_pretrained(model_dir, torch_dtype=torch_dtype, **kwargs)
