"""Step e of ``cuda_check.py``: the ``vllm:`` backend on a GPU with Gemma 3 12B's real text
configuration and random weights (``load_format="dummy"``: nothing is downloaded).

Letters and cloze throughput on a WinoBias-UK-sized workload (3,348 prompts: the preview's
1,674 rows in two option orders) and a WinoPron-UK-sized one (4,320), in bfloat16, through the
backend's own code path (:class:`winoscope.backends.vllm.backend.VLLMBackend`) and vLLM's
engine. Without CUDA or without vLLM the step is skipped with the reason (the CPU dry run of
``cuda_check.py --tiny`` skips it).
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from random_gemma import GEMMA3_12B_TEXT

WORKLOADS = {"WinoBias-UK-sized": 3348, "WinoPron-UK-sized": 4320}


def skip_reason() -> str | None:
    """Why the step cannot run here (None: it can)."""
    import importlib.util

    if importlib.util.find_spec("vllm") is None:
        return "vLLM is not installed"
    import torch

    if not torch.cuda.is_available():
        return "no CUDA device (vLLM's GPU section needs one)"
    return None


def gemma3_12b_dir(tokenizer_dir: str | None) -> Path:
    """A model folder with Gemma 3 12B's text config (every 6th layer global) and a tokenizer:
    the given Gemma 3 tokenizer's files, else the tests' byte-level one."""
    out = Path(tempfile.mkdtemp()) / "gemma3-12b-dummy"
    out.mkdir(parents=True)
    layers = int(GEMMA3_12B_TEXT["num_hidden_layers"])
    config = {
        "architectures": ["Gemma3ForCausalLM"],
        "model_type": "gemma3_text",
        **GEMMA3_12B_TEXT,
        "layer_types": [
            "full_attention" if (i + 1) % 6 == 0 else "sliding_attention" for i in range(layers)
        ],
        "rope_theta": 1_000_000.0,
        "rope_local_base_freq": 10_000.0,
        "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
        "bos_token_id": 2,
        "eos_token_id": 1,
        "pad_token_id": 0,
        "torch_dtype": "bfloat16",
    }
    (out / "config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    if tokenizer_dir:
        for name in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
            if (Path(tokenizer_dir) / name).is_file():
                shutil.copy(Path(tokenizer_dir) / name, out / name)
    else:
        from transformers import AutoTokenizer

        from tiny_lm import build_tiny_gpt2

        tok = AutoTokenizer.from_pretrained(build_tiny_gpt2(Path(tempfile.mkdtemp()) / "tok"))
        tok.save_pretrained(out)
    return out


def dummy_backend(path: Path, mode: str, tensor_parallel_size: int) -> Any:
    """The ``vllm:`` backend on ``path`` with random weights (no identity: nothing is stored)."""
    from winoscope.backends.hf.options import build_params
    from winoscope.backends.vllm.backend import VLLMBackend

    params = build_params(
        mode=mode,
        prefix=" ",
        dtype="bfloat16",
        chat=False,
        max_new_tokens=1,
        has_chat_template=lambda: False,
        identity={"weights": "random (load_format=dummy)"},
    )
    args = {
        "dtype": "bfloat16",
        "load_format": "dummy",
        "max_model_len": 1024,
        "gpu_memory_utilization": 0.85,
        "tensor_parallel_size": tensor_parallel_size,
        "enable_prefix_caching": True,
        "seed": 0,
    }
    return VLLMBackend(model="gemma3-12b-dummy", params=params, model_dir=path, engine_args=args)


def vllm_throughput(
    letters: list[Any],
    cloze: list[Any],
    cycle: Any,
    tokenizer_dir: str | None,
    tensor_parallel_size: int = 1,
) -> dict[str, Any]:
    """Requests/s and the time per workload for letters and cloze (see module doc)."""
    reason = skip_reason()
    if reason is not None:
        print(f"[e] vLLM section skipped: {reason}", flush=True)
        return {"skipped": reason}
    import vllm

    path = gemma3_12b_dir(tokenizer_dir)
    out: dict[str, Any] = {"vllm": vllm.__version__, "config": "Gemma 3 12B text", "runs": []}
    for mode, base in (("letters", letters), ("cloze", cloze)):
        backend = dummy_backend(path, mode, tensor_parallel_size)
        started = time.perf_counter()
        warm = list(backend.respond(cycle(base, 8)))
        out.setdefault("engine_start_s", round(time.perf_counter() - started, 1))
        if any(r.error for r in warm):
            raise SystemExit(f"vLLM warm-up failed: {next(r.error for r in warm if r.error)}")
        for name, n in WORKLOADS.items():
            reqs = cycle(base, n)
            t0 = time.perf_counter()
            got = list(backend.respond(reqs))
            secs = time.perf_counter() - t0
            failed = sum(1 for r in got if r.error)
            run = {
                "mode": mode,
                "workload": name,
                "prompts": n,
                "seconds": round(secs, 2),
                "requests_per_s": round(n / secs, 1),
                "failed": failed,
            }
            out["runs"].append(run)
            print(
                f"[e] vllm {mode:7s} {name}: {n} prompts in {secs:.1f} s "
                f"({n / secs:.1f} requests/s, {failed} failed)",
                flush=True,
            )
    from winoscope.backends.vllm.engine import release_engines

    release_engines()
    return out
