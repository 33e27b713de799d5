"""``hf:PATH_OR_ID``: a local ``transformers`` causal language model.

Four modes (the ``mode`` option, recorded in ``params``):

- ``letters`` (default): the probability of each option's letter as the next token. An
  instruct model is asked the way it is used: when the tokenizer has a chat template
  (``chat=auto``) the prompt becomes the user turn (after an optional ``system`` turn) and the
  distribution is read at the start of the assistant turn. Each option's probability sums its
  single-token spellings (``A``, `` A``, the Cyrillic look-alike ``А`` for a Cyrillic prompt;
  see :mod:`.encoding`), and ``Response.letter_mass`` records the total on the offered
  letters: a low mass means the model does not answer in the offered format. One forward
  pass per batch of prompts scores every option.
- ``texts``: log-likelihood of each option's wording (``" лікар"``), summed over its tokens;
  the prompt's key/value cache is computed once and reused for every option.
- ``cloze``: lm-evaluation-harness's log-likelihood protocol: the prompt is the context and
  each option's text its continuation, tokenised exactly as lm-eval's ``HFLM`` does. Requests
  of kind ``cloze`` are scored this way in every mode. ``option_token_counts`` gives each
  continuation's length.
- ``generate``: greedy generation (``max_new_tokens``), in the chat template when there is one.

Models are read from a local directory, or from the local hub cache by id (``revision``);
nothing is ever downloaded at run time. torch and transformers are imported when needed and
the model is loaded at the first request, so a resumed run whose answers are all stored
never loads it. Device, dtype, device map and batch size (``auto`` halves on out-of-memory):
:mod:`.loading`, :mod:`.batching`; what keys the store: :mod:`.options`; model
identity: :mod:`.identity`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...extras import require
from ...records import Request, Response
from ..base import Description, backend, reject_unknown
from .answering import eval_mode, tokenizer_has_chat_template, torch_threads
from .batching import AUTO_START_CUDA, AUTO_START_OTHER, BatchSizer
from .identity import config_commit, identity, model_fingerprint, read_config, weights_sha256
from .loading import (
    LoadedLM,
    LoadOptions,
    adapter_dir,
    load_causal_lm,
    resolve_device,
    resolve_dtype,
    resolve_model_dir,
)
from .options import (
    MODE_PROTOCOLS,
    as_batch_size,
    as_bool_or_auto,
    as_optional_bool,
    as_positive_int,
    as_verify,
    build_params,
)
from .prompting import LetterIds, chat_text, cloze_ids, continuation_ids, prompt_ids
from .scoring import Prepared, score_prepared
from .sequence_scoring import score_sequences

__all__ = ["HFLocalBackend", "make_hf"]


@dataclass
class HFLocalBackend:
    """A local causal LM answering optioned requests (forced choice, cloze); see module doc."""

    model: str
    #: the options that change answers, fixed when the backend is made (see ``params``)
    base_params: dict[str, Any]
    locate: Callable[[], Path]
    batch_size: int | str = "auto"
    threads: int | None = None
    kind: str = "hf"
    cacheable: bool = True
    load_options: LoadOptions = field(default_factory=LoadOptions)
    verify: str = "fingerprint"
    #: a model handed over in Python (:func:`.live.hf_model`), not loaded from ``locate``
    live: bool = False
    #: the live weights' fingerprint right after loading from a path (an in-place edit shows)
    loaded_weights: str | None = None
    #: how the work is spread (device, batch size ...): the manifest's ``model.runtime``
    runtime: dict[str, Any] = field(default_factory=dict)
    _lm: LoadedLM | None = field(default=None, repr=False)
    _sizer: BatchSizer | None = field(default=None, repr=False)
    _letters: LetterIds = field(default_factory=LetterIds, repr=False)

    def __post_init__(self) -> None:
        self.runtime.update(
            device=self.load_options.device,
            device_map=self.load_options.device_map,
            attn_implementation=self.load_options.attn_implementation,
            batch_size=self.batch_size,
            threads=self.threads,
            loaded=False,
        )

    @property
    def params(self) -> dict[str, Any]:
        """What keys the store and the manifest: ``base_params`` and what the model is now.

        A model held in Python adds its live identity (:mod:`.live_identity`: config,
        weights, adapters, hooks); a model loaded from a path adds the hooks registered on it
        since, and a live weights fingerprint once its weights differ from the loaded ones.
        Computed on each read, so a hook added between two runs keys the second one apart.
        """
        out = dict(self.base_params)
        if self._lm is None:
            return out
        from .live_identity import hook_inventory, live_identity, weights_fingerprint

        model = self._lm.model
        if self.live:
            out.update(live_identity(model, full=self.verify == "full"))
            return out
        hooks = hook_inventory(model)
        if hooks:
            out["hooks"] = hooks
        if self.loaded_weights is not None:
            now = weights_fingerprint(model)
            if now != self.loaded_weights:
                out["weights_modified"] = now
        return out

    @property
    def protocols(self) -> frozenset[str]:
        return MODE_PROTOCOLS[self.mode]

    @property
    def modes(self) -> Mapping[str, frozenset[str]]:
        return MODE_PROTOCOLS

    def describe(self) -> Description:
        return Description(runtime=dict(self.runtime))

    @property
    def mode(self) -> str:
        return str(self.base_params["mode"])

    @property
    def sizer(self) -> BatchSizer:
        if self._sizer is None:
            if self.batch_size == "auto":
                cuda = self.load_options.device.startswith("cuda")
                start = AUTO_START_CUDA if cuda else AUTO_START_OTHER
                self._sizer = BatchSizer(start, auto=True)
            else:
                self._sizer = BatchSizer(int(self.batch_size))
        return self._sizer

    def load(self) -> LoadedLM:
        if self._lm is None:
            model_dir = self.locate()
            self._lm = load_causal_lm(model_dir, self.load_options)
            from .live_identity import weights_fingerprint

            self.loaded_weights = weights_fingerprint(self._lm.model)
            self.runtime.update(
                loaded=True,
                device=self._lm.device,
                config_commit=config_commit(self._lm.model.config),
                max_positions=self._lm.max_positions,
                sliding_window=self._lm.sliding_window,
            )
            if self.verify == "full":
                self.runtime["weights_sha256"] = weights_sha256(model_dir)
        return self._lm

    # -- encoding ---------------------------------------------------------------------------

    def chat_text(self, prompt: str) -> str:
        """The prompt as the user turn of the chat template, ready for the assistant's answer."""
        return chat_text(self.load().tokenizer, prompt, self.base_params, self._label)

    def prompt_ids(self, prompt: str) -> list[int]:
        """Token ids of the prompt as the model reads it (in the chat template when on)."""
        return prompt_ids(self.load().tokenizer, prompt, self.base_params, self._label)

    def continuation_ids(self, req: Request) -> list[list[int]]:
        return continuation_ids(self.load().tokenizer, req, self.base_params)

    def letter_ids(self, req: Request) -> list[list[int]] | None:
        """Per option, the token ids of its letter's spellings (None: read as continuations)."""
        return self._letters(self.load().tokenizer, req, self.base_params)

    @property
    def _label(self) -> str:
        return f"{self.kind}:{self.model}"

    # -- answering --------------------------------------------------------------------------

    def respond(self, requests: Sequence[Request]) -> Iterator[Response]:
        if not requests:
            return
        lm = self.load()
        sequences = [r for r in requests if r.kind == "sequence"]
        requests = [r for r in requests if r.kind != "sequence"]
        cloze = [r for r in requests if r.kind == "cloze" or self.mode == "cloze"]
        rest = [r for r in requests if not (r.kind == "cloze" or self.mode == "cloze")]
        with torch_threads(self.threads), eval_mode(lm.model):
            if sequences:
                yield from score_sequences(self, lm, sequences)
            if cloze:
                yield from self._cloze(lm, cloze)
            if rest and self.mode == "generate":
                yield from self._generate(lm, rest)
            elif rest:
                yield from self._choice(lm, rest)
        self.runtime.update(batch_size_used=self.sizer.size, oom_retries=self.sizer.oom_retries)

    def _error(self, req: Request, message: str) -> Response:
        return Response(req.request_id, backend=self.kind, model=self.model, error=message)

    def _choice(self, lm: LoadedLM, requests: Sequence[Request]) -> Iterator[Response]:
        items = []
        for req in requests:
            letters = self.letter_ids(req) if self.mode == "letters" else None
            conts = [] if letters is not None else self.continuation_ids(req)
            items.append(Prepared(req, self.prompt_ids(req.prompt), conts, letters))
        yield from score_prepared(self, lm, items)

    def _cloze(self, lm: LoadedLM, requests: Sequence[Request]) -> Iterator[Response]:
        from .encoding import ClozeEncoder

        enc = ClozeEncoder(lm.tokenizer, self.base_params.get("add_bos_token"))
        items = []
        for req in requests:
            found = cloze_ids(enc, req)
            if isinstance(found, str):
                yield self._error(req, found)
                continue
            items.append(Prepared(req, found[0], found[1], None, counts=True))
        yield from score_prepared(self, lm, items)

    def _generate(self, lm: LoadedLM, requests: Sequence[Request]) -> Iterator[Response]:
        from .lm_scoring import greedy_generate

        max_new = int(self.base_params["max_new_tokens"])
        prompts: list[list[int]] = []
        ready: list[int] = []
        for i, req in enumerate(requests):
            p = self.prompt_ids(req.prompt)
            prompts.append(p)
            n = len(p) + max_new
            if lm.max_positions is not None and n > lm.max_positions:
                yield self._error(
                    req, f"{n} tokens exceed the model's context of {lm.max_positions}"
                )
            else:
                ready.append(i)

        def work(idx: list[int]) -> list[tuple[str, float]]:
            start = time.perf_counter()
            outs = greedy_generate(
                lm.model,
                [prompts[i] for i in idx],
                pad_id=lm.pad_id,
                eos_ids=lm.eos_ids,
                max_new_tokens=max_new,
            )
            each = (time.perf_counter() - start) / len(idx)
            return [
                (lm.tokenizer.decode(ids, skip_special_tokens=True).strip(), each) for ids in outs
            ]

        def fail(i: int, message: str) -> tuple[str, float]:
            return message, -1.0

        for idx, outs in self.sizer.run(ready, [len(prompts[i]) for i in ready], work, fail):
            for i, (text, each) in zip(idx, outs, strict=True):
                if each < 0:
                    yield self._error(requests[i], text)
                    continue
                yield Response(
                    requests[i].request_id,
                    backend=self.kind,
                    model=self.model,
                    text=text,
                    latency_s=round(each, 6),
                )


HF_OPTIONS = (
    "mode",
    "batch_size",
    "max_new_tokens",
    "chat",
    "system",
    "prefix",
    "device",
    "device_map",
    "dtype",
    "attn_implementation",
    "revision",
    "trust_remote_code",
    "add_bos_token",
    "verify",
    "threads",
    "peft",
)


@backend("hf", HF_OPTIONS)
def make_hf(
    name: str,
    *,
    mode: str = "letters",
    batch_size: Any = "auto",
    max_new_tokens: Any = 32,
    chat: Any = "auto",
    system: str | None = None,
    prefix: str = " ",
    device: str = "auto",
    device_map: Any = None,
    dtype: str = "auto",
    attn_implementation: str | None = None,
    revision: str | None = None,
    trust_remote_code: Any = False,
    add_bos_token: Any = None,
    verify: str = "fingerprint",
    threads: Any = None,
    peft: str | None = None,
    seed: int = 0,
    **unknown: Any,
) -> HFLocalBackend:
    """``hf:PATH_OR_ID``; options are listed in ``HF_OPTIONS`` and the README.

    ``peft=ADAPTER_DIR`` puts a PEFT adapter on the model when it loads; the adapter's files
    are fingerprinted like the model's and key the store (``params["adapter"]``).
    ``seed`` is accepted and unused: greedy decoding and scoring are deterministic.
    """
    del seed
    reject_unknown("hf", unknown, HF_OPTIONS)
    require("torch", f"hf:{name}")  # a missing local-model stack names the extra to install
    model_dir = resolve_model_dir(name, None if revision is None else str(revision))
    chat_flag = as_bool_or_auto(chat, "chat")
    adapter = None
    if peft is not None:
        adapter = adapter_dir(str(peft))
        require("peft", f"hf:{name} -M peft={peft}")
    run_device = resolve_device(str(device))
    run_dtype = resolve_dtype(str(dtype), run_device, read_config(model_dir))
    params = build_params(
        mode=str(mode),
        prefix=str(prefix),
        dtype=run_dtype,
        chat=chat_flag,
        max_new_tokens=as_positive_int(max_new_tokens, "max_new_tokens"),
        has_chat_template=lambda: tokenizer_has_chat_template(model_dir),
        identity=identity(model_dir),
        system=None if system is None else str(system),
        add_bos_token=as_optional_bool(add_bos_token, "add_bos_token"),
    )
    if adapter is not None:
        params["adapter"] = {"fingerprint": model_fingerprint(adapter)}
    options = LoadOptions(
        device=run_device,
        dtype=run_dtype,
        device_map=device_map,
        attn_implementation=None if attn_implementation is None else str(attn_implementation),
        trust_remote_code=as_bool_or_auto(trust_remote_code, "trust_remote_code") is True,
        adapter=adapter,
    )
    backend = HFLocalBackend(
        model=name,
        base_params=params,
        locate=lambda: model_dir,
        batch_size=as_batch_size(batch_size),
        threads=None if threads is None else as_positive_int(threads, "threads"),
        load_options=options,
        verify=as_verify(verify),
    )
    if adapter is not None:
        backend.runtime["adapter_path"] = str(adapter)
    return backend
