"""A ``transformers`` causal LM already held in Python, as a backend: :func:`hf_model`.

The model a mitigation study evaluates is usually not a directory: a base model with forward
hooks that steer its activations, a ``PeftModel`` with a LoRA adapter on it, a model between
training steps. ``hf_model(model, tokenizer, label=...)`` answers with that object as it is:
on its device and in its dtype, nothing copied, in every mode of ``hf:PATH``
(:mod:`.local`), with the same encoding, batching and ``batch_size=auto`` backoff, so the
same weights give the same responses either way. A model in training mode answers in eval
mode and is handed back in the mode each of its modules had.

What keys its stored answers is :attr:`HFLocalBackend.params`: these options, the ``label``
and the live identity (:mod:`.live_identity`: config, weights fingerprint, adapters,
hooks), read again at every run, so a hook added or an adapter swapped never reuses an
answer. Answers are stored only under an explicit ``label``; without one nothing is stored
and the manifest says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...errors import BackendError
from .local import HFLocalBackend
from .options import (
    as_batch_size,
    as_bool_or_auto,
    as_optional_bool,
    as_positive_int,
    as_verify,
    build_params,
)

__all__ = ["LIVE_OPTIONS", "hf_model"]

LIVE_OPTIONS = (
    "label",
    "mode",
    "batch_size",
    "max_new_tokens",
    "chat",
    "system",
    "prefix",
    "add_bos_token",
    "verify",
)
NO_LABEL = "no label: answers of a model held in Python are stored only under a label"


def _model_dtype(model: Any) -> str:
    for p in model.parameters():
        if p.is_floating_point():
            return str(p.dtype).removeprefix("torch.")
    return "float32"


def _check(model: Any, tokenizer: Any) -> None:
    import torch

    if not isinstance(model, torch.nn.Module) or getattr(model, "config", None) is None:
        raise BackendError(
            f"hf_model: expected a loaded transformers causal LM (a torch module with a "
            f"config), got {type(model).__name__}"
        )
    if not callable(tokenizer) or not hasattr(tokenizer, "decode"):
        raise BackendError(
            f"hf_model: expected the model's tokenizer, got {type(tokenizer).__name__}"
        )


def hf_model(
    model: Any,
    tokenizer: Any,
    *,
    label: str | None = None,
    mode: str = "letters",
    batch_size: Any = "auto",
    max_new_tokens: Any = 32,
    chat: Any = "auto",
    system: str | None = None,
    prefix: str = " ",
    add_bos_token: Any = None,
    verify: str = "fingerprint",
) -> HFLocalBackend:
    """A backend answering with ``model`` (a causal LM object) and its ``tokenizer``.

    >>> base = winoscope.hf_model(model, tok, label="gemma-12b")          # doctest: +SKIP
    >>> winoscope.run("winobias-uk", base, out="runs/base")               # doctest: +SKIP

    ``label`` names the model in reports and is required to store and resume answers. The
    options are those of ``hf:PATH`` that change answers (mode, chat, system, prefix,
    add_bos_token, max_new_tokens) and the batch size; device and dtype are the model's own.
    ``verify="full"`` hashes every weight byte for the identity instead of sampling.
    """
    from ...extras import require

    require("torch", "hf_model")
    _check(model, tokenizer)
    chat_flag = as_bool_or_auto(chat, "chat")
    has_template = bool(getattr(tokenizer, "chat_template", None))
    dtype = _model_dtype(model)
    params = build_params(
        mode=str(mode),
        prefix=str(prefix),
        dtype=dtype,
        chat=chat_flag,
        max_new_tokens=as_positive_int(max_new_tokens, "max_new_tokens"),
        has_chat_template=lambda: has_template,
        identity={"label": label},
        system=None if system is None else str(system),
        add_bos_token=as_optional_bool(add_bos_token, "add_bos_token"),
    )
    from .loading import LoadOptions, loaded_lm

    lm = loaded_lm(model, tokenizer, dtype)
    name = label if label else f"unlabelled-{type(model).__name__}"
    backend = HFLocalBackend(
        model=name,
        base_params=params,
        locate=_no_directory,
        batch_size=as_batch_size(batch_size),
        cacheable=label is not None,
        load_options=LoadOptions(device=lm.device, dtype=dtype),
        verify=as_verify(verify),
        live=True,
        _lm=lm,
    )
    backend.runtime.update(
        loaded=True,
        source="in memory",
        model_class=type(model).__name__,
        training_mode=bool(model.training),
        max_positions=lm.max_positions,
        sliding_window=lm.sliding_window,
    )
    if label is None:
        backend.runtime["store"] = NO_LABEL
    return backend


def _no_directory() -> Path:
    raise BackendError("a model held in Python has no directory to load from")
