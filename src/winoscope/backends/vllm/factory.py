"""The ``vllm:PATH`` factory: options checked, identity and store key built, nothing started.

The engine starts at the first request, so a resumed run whose answers are all stored never
starts it. What keys the store (``params``) is what ``hf:`` keys it with - the mode and its
settings, the dtype, the checkpoint's commit and fingerprint
(:func:`..hf.identity.identity`) - plus the vLLM version and the adapter's fingerprint.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...errors import BackendError
from ...extras import require
from ..base import backend, reject_unknown
from ..hf.answering import tokenizer_has_chat_template
from ..hf.identity import identity, model_fingerprint, read_config
from ..hf.loading import resolve_model_dir
from ..hf.options import as_bool_or_auto, as_optional_bool, as_positive_int, build_params
from .backend import VLLMBackend
from .options import (
    ENGINE_OPTIONS,
    OWN_OPTIONS,
    engine_kwargs,
    refuse_live_only,
    resolve_dtype,
    vllm_on_cpu,
    vllm_version,
)

VLLM_OPTIONS = (*OWN_OPTIONS, "revision", *ENGINE_OPTIONS)


def lora_dir(path: str) -> Path:
    """A PEFT LoRA adapter directory (``adapter_config.json`` beside its weights), checked."""
    found = Path(path).expanduser()
    if not (found / "adapter_config.json").is_file():
        raise BackendError(
            f"option lora={path}: not a PEFT adapter directory (no adapter_config.json; save "
            "one with model.save_pretrained(DIR) on a PeftModel)"
        )
    return found.resolve()


@backend("vllm", VLLM_OPTIONS)
def make_vllm(
    name: str,
    *,
    mode: str = "letters",
    max_new_tokens: Any = 32,
    chat: Any = "auto",
    system: str | None = None,
    prefix: str = " ",
    add_bos_token: Any = None,
    lora: str | None = None,
    revision: str | None = None,
    dtype: str = "auto",
    **rest: Any,
) -> VLLMBackend:
    """``vllm:PATH_OR_ID``; winoscope's options as for ``hf:`` plus vLLM's engine options by
    their own names (:data:`.options.ENGINE_OPTIONS`); anything else is refused by name."""
    refuse_live_only(rest)
    if "peft" in rest:
        raise BackendError("vllm backend: give a LoRA adapter as -M lora=DIR (peft= is hf:'s)")
    engine_given = {k: v for k, v in rest.items() if k in ENGINE_OPTIONS}
    reject_unknown("vllm", {k: v for k, v in rest.items() if k not in ENGINE_OPTIONS}, VLLM_OPTIONS)
    if vllm_version() is None:
        require("vllm", f"vllm:{name}")
    model_dir = resolve_model_dir(name, None if revision is None else str(revision))
    run_dtype = resolve_dtype(dtype, read_config(model_dir), vllm_on_cpu())
    args = engine_kwargs(engine_given)
    args["dtype"] = run_dtype
    params = build_params(
        mode=str(mode),
        prefix=str(prefix),
        dtype=run_dtype,
        chat=as_bool_or_auto(chat, "chat"),
        max_new_tokens=as_positive_int(max_new_tokens, "max_new_tokens"),
        has_chat_template=lambda: tokenizer_has_chat_template(model_dir),
        identity=identity(model_dir),
        system=None if system is None else str(system),
        add_bos_token=as_optional_bool(add_bos_token, "add_bos_token"),
    )
    params["engine"] = f"vllm {vllm_version()}"
    adapter = None
    rank = None
    if lora is not None:
        from .engine import adapter_rank

        adapter = lora_dir(str(lora))
        rank = adapter_rank(adapter)
        params["adapter"] = {"fingerprint": model_fingerprint(adapter)}
    if "max_lora_rank" in args:  # LoRA capacity asked for: the base point of an adapter sweep
        rank = max(rank or 0, int(args["max_lora_rank"]))
    runtime = {k: v for k, v in args.items() if k != "dtype"}
    runtime["loaded"] = False
    if adapter is not None:
        runtime["adapter_path"] = str(adapter)
    return VLLMBackend(
        model=name,
        params=params,
        model_dir=model_dir,
        engine_args=args,
        adapter=adapter,
        lora_rank=rank,
        runtime=runtime,
    )
