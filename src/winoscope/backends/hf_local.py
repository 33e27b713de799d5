"""``hf:PATH_OR_ID``: a local ``transformers`` causal language model.

Three modes (the ``mode`` option, recorded in ``params``):

- ``letters`` (default): log-likelihood of each option's label after the prompt
  (``" A"`` vs ``" B"``); one forward pass per batch of prompts reads the next-token
  distribution. Answers land in ``Response.option_logprobs``, one per option in the request's
  order; forced choice picks the larger and treats a tie as invalid.
- ``texts``: log-likelihood of each option's wording (``" лікар"``), summed over its tokens;
  the prompt's key/value cache is computed once and reused for every option.
- ``generate``: greedy generation (``max_new_tokens``), wrapped in the tokenizer's chat
  template when it has one (``chat="auto"``); the answer text is normalised by the protocol.

Models are read from a local directory, or from the local hub cache by id; nothing is ever
downloaded at run time. torch and transformers are imported when the model is first used, so
creating the backend (and ``import winoscope``) stays fast. Requests are processed in batches
of similar prompt length (``batch_size``) to cut padding; a request whose prompt does not fit
the model's context gets an error response instead of stopping the run.

``params`` also records ``weights_sha256``, a hash of the model's files, so a changed
checkpoint at the same path never shares cached answers with the old one.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import BackendError
from ..records import Request, Response
from .base import backend, reject_unknown

MODES = ("letters", "texts", "generate")
MODEL_FILE_SUFFIXES = (".json", ".safetensors", ".bin", ".model", ".txt", ".jinja")


def as_bool_or_auto(value: Any, name: str) -> bool | str:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text == "auto":
        return "auto"
    if text in {"1", "true", "yes", "on"}:
        return True
    if text in {"0", "false", "no", "off"}:
        return False
    raise BackendError(f"option {name}={value!r}: expected auto, true or false")


def as_positive_int(value: Any, name: str) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise BackendError(f"option {name}={value!r}: expected a whole number") from None
    if number < 1:
        raise BackendError(f"option {name}={value!r}: must be at least 1")
    return number


def resolve_model_dir(name: str) -> Path:
    """A local directory, or the local hub-cache snapshot of a model id (never downloads)."""
    path = Path(name).expanduser()
    if path.is_dir():
        return path.resolve()
    if path.exists():
        raise BackendError(f"hf:{name}: a model must be a directory (config.json, weights)")
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(name, local_files_only=True))
    except Exception:
        raise BackendError(
            f"hf:{name}: not a local directory and not in the local model cache; winoscope "
            "never downloads models during a run: download it first, then pass its directory"
        ) from None


def weights_sha256(model_dir: Path) -> str:
    """sha256 over the names and contents of the model's config, tokenizer and weight files."""
    digest = hashlib.sha256()
    files = sorted(
        p for p in model_dir.rglob("*") if p.is_file() and p.suffix in MODEL_FILE_SUFFIXES
    )
    for p in files:
        digest.update(p.relative_to(model_dir).as_posix().encode())
        with p.open("rb") as fh:
            digest.update(hashlib.file_digest(fh, "sha256").digest())
    return digest.hexdigest()


@dataclass
class LoadedLM:
    """A model and tokenizer ready to score: the pieces the scoring functions need."""

    model: Any
    tokenizer: Any
    pad_id: int
    eos_ids: tuple[int, ...]
    max_positions: int | None
    sliding_window: int | None = None


def load_causal_lm(model_dir: Path, *, dtype: str = "float32") -> LoadedLM:
    """Load a causal LM and its tokenizer from ``model_dir`` (local files only), in eval mode."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch_dtype = getattr(torch, dtype, None)
    if not isinstance(torch_dtype, torch.dtype):
        raise BackendError(f"option dtype={dtype!r}: not a torch dtype (float32, bfloat16 ...)")
    from transformers.utils import logging as hf_logging

    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()  # the run shows its own progress
    try:
        tok = AutoTokenizer.from_pretrained(model_dir, local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(
            model_dir, local_files_only=True, dtype=torch_dtype
        )
    except Exception as exc:
        raise BackendError(f"cannot load a causal language model from {model_dir}: {exc}") from exc
    finally:
        if bars:
            hf_logging.enable_progress_bar()
    model.eval()
    eos = tok.eos_token_id
    eos_ids = tuple(eos) if isinstance(eos, list) else (() if eos is None else (int(eos),))
    pad = tok.pad_token_id
    if pad is None:
        pad = eos_ids[0] if eos_ids else 0
    cfg = model.config
    max_pos = getattr(cfg, "max_position_embeddings", None) or getattr(cfg, "n_positions", None)
    window = getattr(cfg, "sliding_window", None)
    return LoadedLM(
        model,
        tok,
        int(pad),
        eos_ids,
        int(max_pos) if max_pos else None,
        int(window) if isinstance(window, int) and window > 0 else None,
    )


def length_sorted_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices grouped into batches of similar length (longest first), to cut padding.

    >>> length_sorted_batches([3, 9, 4, 8, 1], 2)
    [[1, 3], [2, 0], [4]]
    """
    order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
    return [order[i : i + batch_size] for i in range(0, len(order), batch_size)]


@dataclass
class HFLocalBackend:
    """A local causal LM answering forced-choice (or any optioned) requests; see module doc."""

    model: str
    params: dict[str, Any]
    locate: Callable[[], Path]
    batch_size: int = 8
    threads: int | None = None
    kind: str = "hf"
    cacheable: bool = True
    dtype: str = "float32"
    _lm: LoadedLM | None = field(default=None, repr=False)

    @property
    def mode(self) -> str:
        return str(self.params["mode"])

    def load(self) -> LoadedLM:
        if self._lm is None:
            if self.threads is not None:
                import torch

                torch.set_num_threads(self.threads)
            self._lm = load_causal_lm(self.locate(), dtype=self.dtype)
        return self._lm

    # -- encoding ---------------------------------------------------------------------------

    def prompt_ids(self, prompt: str) -> list[int]:
        """Token ids of the prompt as the model reads it (chat template in chat generation)."""
        tok = self.load().tokenizer
        if self.mode == "generate" and self.params.get("chat"):
            text = tok.apply_chat_template(
                [{"role": "user", "content": prompt}], add_generation_prompt=True, tokenize=False
            )
            return list(tok(text, add_special_tokens=False)["input_ids"])
        return list(tok(prompt)["input_ids"])

    def continuation_ids(self, req: Request) -> list[list[int]]:
        tok = self.load().tokenizer
        prefix = str(self.params.get("prefix", " "))
        texts = [o.label if self.mode == "letters" else o.text for o in req.options]
        return [list(tok(prefix + t, add_special_tokens=False)["input_ids"]) for t in texts]

    # -- answering --------------------------------------------------------------------------

    def respond(self, requests: Sequence[Request]) -> Iterator[Response]:
        if not requests:
            return
        lm = self.load()
        if self.mode == "generate":
            yield from self._generate(lm, requests)
        else:
            yield from self._score(lm, requests)

    def _error(self, req: Request, message: str) -> Response:
        return Response(req.request_id, backend=self.kind, model=self.model, error=message)

    def _too_long(self, lm: LoadedLM, n_tokens: int) -> str | None:
        if lm.max_positions is not None and n_tokens > lm.max_positions:
            return f"{n_tokens} tokens exceed the model's context of {lm.max_positions}"
        return None

    def _score(self, lm: LoadedLM, requests: Sequence[Request]) -> Iterator[Response]:
        from .lm_scoring import continuation_logprobs, next_token_logprobs

        prompts: list[list[int]] = []
        conts: list[list[list[int]]] = []
        ready: list[int] = []
        for i, req in enumerate(requests):
            p, c = self.prompt_ids(req.prompt), self.continuation_ids(req)
            prompts.append(p)
            conts.append(c)
            problem = (
                "the request has no options to score"
                if not c
                else "an option is empty after tokenisation"
                if any(len(x) == 0 for x in c)
                else self._too_long(lm, len(p) + max(len(x) for x in c))
            )
            if problem is not None:
                yield self._error(req, problem)
            else:
                ready.append(i)
        single = [i for i in ready if all(len(x) == 1 for x in conts[i])]
        chosen = set(single)
        multi = [i for i in ready if i not in chosen]
        for batch in length_sorted_batches([len(prompts[i]) for i in single], self.batch_size):
            idx = [single[b] for b in batch]
            start = time.perf_counter()
            logp = next_token_logprobs(lm.model, [prompts[i] for i in idx], lm.pad_id)
            each = (time.perf_counter() - start) / len(idx)
            for row, i in enumerate(idx):
                values = tuple(float(logp[row, c[0]]) for c in conts[i])
                yield self._scored(requests[i], values, each)
        # Beyond a sliding attention window, padding would shift what each layer keeps: a batch
        # whose padded prompt and continuation widths exceed the window runs one request at a
        # time (unpadded), exactly as the model runs each alone.
        window = lm.sliding_window
        runs: list[list[int]] = []
        for batch in length_sorted_batches([len(prompts[i]) for i in multi], self.batch_size):
            idx = [multi[b] for b in batch]
            width = max(len(prompts[i]) for i in idx) + max(len(x) for i in idx for x in conts[i])
            fits = window is None or width <= window
            runs.extend([idx] if fits else [[i] for i in idx])
        for idx in runs:
            start = time.perf_counter()
            scored = continuation_logprobs(
                lm.model, [prompts[i] for i in idx], [conts[i] for i in idx], lm.pad_id
            )
            each = (time.perf_counter() - start) / len(idx)
            for i, v in zip(idx, scored, strict=True):
                yield self._scored(requests[i], tuple(v), each)

    def _scored(self, req: Request, values: tuple[float, ...], latency: float) -> Response:
        return Response(
            req.request_id,
            backend=self.kind,
            model=self.model,
            option_logprobs=values,
            latency_s=round(latency, 6),
        )

    def _generate(self, lm: LoadedLM, requests: Sequence[Request]) -> Iterator[Response]:
        from .lm_scoring import greedy_generate

        max_new = int(self.params["max_new_tokens"])
        prompts: list[list[int]] = []
        ready: list[int] = []
        for i, req in enumerate(requests):
            p = self.prompt_ids(req.prompt)
            prompts.append(p)
            problem = self._too_long(lm, len(p) + max_new)
            if problem is not None:
                yield self._error(req, problem)
            else:
                ready.append(i)
        for batch in length_sorted_batches([len(prompts[i]) for i in ready], self.batch_size):
            idx = [ready[b] for b in batch]
            start = time.perf_counter()
            outs = greedy_generate(
                lm.model,
                [prompts[i] for i in idx],
                pad_id=lm.pad_id,
                eos_ids=lm.eos_ids,
                max_new_tokens=max_new,
            )
            each = (time.perf_counter() - start) / len(idx)
            for i, ids in zip(idx, outs, strict=True):
                text = lm.tokenizer.decode(ids, skip_special_tokens=True).strip()
                yield Response(
                    requests[i].request_id,
                    backend=self.kind,
                    model=self.model,
                    text=text,
                    latency_s=round(each, 6),
                )


def build_params(
    *,
    mode: str,
    prefix: str,
    dtype: str,
    chat: bool | str,
    max_new_tokens: int,
    has_chat_template: Callable[[], bool],
    identity: dict[str, Any],
) -> dict[str, Any]:
    """The parameters that change answers (the manifest's record and the store's key)."""
    if mode not in MODES:
        raise BackendError(f"option mode={mode!r}: expected one of {', '.join(MODES)}")
    params: dict[str, Any] = {"mode": mode, "dtype": dtype, **identity}
    if mode == "generate":
        params["decoding"] = "greedy"
        params["max_new_tokens"] = max_new_tokens
        params["chat"] = has_chat_template() if chat == "auto" else bool(chat)
    else:
        params["prefix"] = prefix
    return params


def tokenizer_has_chat_template(model_dir: Path) -> bool:
    """Whether the tokenizer files define a chat template (read without loading transformers)."""
    import json

    if any(model_dir.glob("chat_template.*")):
        return True
    cfg = model_dir / "tokenizer_config.json"
    if cfg.is_file():
        try:
            return bool(json.loads(cfg.read_text(encoding="utf-8")).get("chat_template"))
        except (OSError, ValueError):
            return False
    return False


HF_OPTIONS = ("mode", "batch_size", "max_new_tokens", "chat", "prefix", "dtype", "threads")


@backend("hf")
def make_hf(
    name: str,
    *,
    mode: str = "letters",
    batch_size: Any = 8,
    max_new_tokens: Any = 32,
    chat: Any = "auto",
    prefix: str = " ",
    dtype: str = "float32",
    threads: Any = None,
    seed: int = 0,
    **unknown: Any,
) -> HFLocalBackend:
    """``hf:PATH_OR_ID`` with options mode, batch_size, max_new_tokens, chat, prefix, dtype, threads.

    ``seed`` is accepted and unused: greedy decoding and scoring are deterministic.
    """
    del seed
    reject_unknown("hf", unknown, HF_OPTIONS)
    model_dir = resolve_model_dir(name)
    params = build_params(
        mode=str(mode),
        prefix=str(prefix),
        dtype=str(dtype),
        chat=as_bool_or_auto(chat, "chat"),
        max_new_tokens=as_positive_int(max_new_tokens, "max_new_tokens"),
        has_chat_template=lambda: tokenizer_has_chat_template(model_dir),
        identity={"weights_sha256": weights_sha256(model_dir)},
    )
    return HFLocalBackend(
        model=name,
        params=params,
        locate=lambda: model_dir,
        batch_size=as_positive_int(batch_size, "batch_size"),
        threads=None if threads is None else as_positive_int(threads, "threads"),
        dtype=str(dtype),
    )
