"""A randomly initialised Gemma 3 text model behind the ``hf`` backend, for timing on a device.

Weights do not change the cost of a forward pass, so a random model from Gemma 3 12B's text
configuration (or a 2-layer one of the same shape, ``tiny``) measures what the real one would,
with nothing to download. Used by ``cuda_check.py``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

GEMMA3_12B_TEXT = {
    "vocab_size": 262208,
    "hidden_size": 3840,
    "intermediate_size": 15360,
    "num_hidden_layers": 48,
    "num_attention_heads": 16,
    "num_key_value_heads": 8,
    "head_dim": 256,
    "query_pre_attn_scalar": 256,
    "sliding_window": 1024,
    "max_position_embeddings": 131072,
    "rms_norm_eps": 1e-6,
    "hidden_activation": "gelu_pytorch_tanh",
}
TINY_TEXT = {**GEMMA3_12B_TEXT, "hidden_size": 64, "intermediate_size": 128}
TINY_TEXT.update(num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1, head_dim=32)


def gemma3_text_model(cfg: dict[str, Any], device: str, vocab: int | None = None) -> Any:
    import torch
    from transformers import Gemma3ForCausalLM, Gemma3TextConfig

    if vocab is not None:
        cfg = {**cfg, "vocab_size": vocab}

    pattern = ["sliding_attention"] * 5 + ["full_attention"]
    layers = [pattern[i % 6] for i in range(cfg["num_hidden_layers"])]
    try:  # transformers 5: one rope setting per attention kind
        config = Gemma3TextConfig(
            **cfg,
            layer_types=layers,
            rope_parameters={
                "full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1e6},
                "sliding_attention": {"rope_type": "default", "rope_theta": 1e4},
            },
        )
    except TypeError:  # transformers 4.5x
        config = Gemma3TextConfig(
            **cfg,
            rope_theta=1e6,
            rope_local_base_freq=1e4,
            rope_scaling={"rope_type": "linear", "factor": 8.0},
        )
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.bfloat16)
    try:
        with torch.device(device):
            model = Gemma3ForCausalLM(config)
    finally:
        torch.set_default_dtype(previous)
    return model.eval()


def random_backend(model: Any, tokenizer: Any, device: str, batch_size: Any) -> Any:
    from winoscope.backends.hf.loading import LoadedLM, LoadOptions, context_length, sliding_window
    from winoscope.backends.hf.local import HFLocalBackend
    from winoscope.backends.hf.options import as_batch_size, build_params

    def no_files() -> Path:
        raise RuntimeError("the random model has no files")

    params = build_params(
        mode="letters",
        prefix=" ",
        dtype="bfloat16",
        chat=False,
        max_new_tokens=1,
        has_chat_template=lambda: False,
        identity={"weights": "random"},
    )
    b = HFLocalBackend(
        model="random-gemma3",
        params=params,
        locate=no_files,
        batch_size=as_batch_size(batch_size),
        load_options=LoadOptions(device=device, dtype="bfloat16"),
    )
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    b._lm = LoadedLM(
        model,
        tokenizer,
        int(pad),
        (),
        context_length(model.config),
        sliding_window(model.config),
        device=device,
        dtype="bfloat16",
    )
    return b


def load_tokenizer(path: str | None) -> Any:
    from transformers import AutoTokenizer

    if path:
        return AutoTokenizer.from_pretrained(path, local_files_only=True)
    from tiny_lm import build_tiny_gpt2

    return AutoTokenizer.from_pretrained(build_tiny_gpt2(Path(tempfile.mkdtemp()) / "tok"))


def model_config(tiny: bool, tok: Any, device: str) -> tuple[dict[str, Any], str, int | None]:
    """Gemma 3 12B's text config, or the tiny one with a vocabulary just big enough."""
    if not tiny:
        return GEMMA3_12B_TEXT, device, None
    return TINY_TEXT, device, max(len(tok), 512)
