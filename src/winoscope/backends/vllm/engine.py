"""One vLLM engine per process, shared by every ``vllm:`` backend on the same weights.

A sweep over LoRA adapters (or checkpoints saved as adapters) builds one backend per point;
they all answer through the same ``vllm.LLM``, which loads the base weights once and swaps
adapters per request (``LoRARequest``). A backend asking for other weights or other engine
options shuts the held engine down first: two engines on one GPU would not fit.

vLLM starts worker processes by spawning, so a script that builds an engine must keep its
top-level code under ``if __name__ == "__main__":`` (the ``winoscope`` command does).

An engine must be shut down before the interpreter exits. Left to the interpreter's exit, its
engine process is ended by the exit handlers while a thread of this process still watches it;
that thread reads the end as a crash and starts a cleanup of its own while the interpreter tears
down, and on a loaded machine the process then aborts (SIGABRT, exit status 134) after a run
that did all its work. :func:`release_engines` shuts every held engine down in order (the
engine client, which stops its watcher and ends the engine's processes, then vLLM's
distributed state); the backend's ``close()`` calls it, the runs that made a backend close it,
and an exit handler registered with the first engine calls it for any engine still held.
"""

from __future__ import annotations

import atexit
import gc
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import BackendError

#: LoRA ranks vLLM accepts for ``max_lora_rank``
LORA_RANKS = (1, 8, 16, 32, 64, 128, 256, 320, 512)


@dataclass
class Engine:
    """A started ``vllm.LLM`` with the options it was built with and its adapters' ids."""

    llm: Any
    key: tuple[Any, ...]
    max_model_len: int
    lora_rank: int | None
    adapters: dict[str, int] = field(default_factory=dict)

    def lora_request(self, adapter: Path | None) -> Any:
        """vLLM's ``LoRARequest`` for the adapter (None: the base model); ids are per engine."""
        if adapter is None:
            return None
        from vllm.lora.request import LoRARequest

        path = str(adapter)
        if path not in self.adapters:
            self.adapters[path] = len(self.adapters) + 1
        return LoRARequest(f"adapter-{self.adapters[path]}", self.adapters[path], path)


_HELD: list[Engine] = []
_STARTS = [0]


def engines_started() -> int:
    """How many engines this process has started (a sweep over adapters starts one)."""
    return _STARTS[0]


def adapter_rank(adapter: Path) -> int:
    """The LoRA rank ``r`` in the adapter's ``adapter_config.json``."""
    try:
        config = json.loads((adapter / "adapter_config.json").read_text(encoding="utf-8"))
        return int(config["r"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise BackendError(f"option lora={adapter}: cannot read its LoRA rank r: {exc}") from None


def lora_capacity(rank: int) -> int:
    """The smallest rank vLLM accepts that holds an adapter of ``rank``."""
    for allowed in LORA_RANKS:
        if allowed >= rank:
            return allowed
    raise BackendError(f"LoRA rank {rank} exceeds vLLM's largest ({LORA_RANKS[-1]})")


def get_engine(model_dir: Path, kwargs: Mapping[str, Any], lora_rank: int | None) -> Engine:
    """The held engine when it was built for these weights and options (and holds adapters of
    ``lora_rank``), else a new one (the held one shut down first)."""
    key = (str(model_dir), tuple(sorted((k, repr(v)) for k, v in kwargs.items())))
    for engine in _HELD:
        if engine.key == key and (
            lora_rank is None or (engine.lora_rank is not None and engine.lora_rank >= lora_rank)
        ):
            return engine
    release_engines()
    args = dict(kwargs)
    if lora_rank is not None:
        args["enable_lora"] = True
        args["max_lora_rank"] = lora_capacity(max(lora_rank, int(args.get("max_lora_rank", 1))))
        args.setdefault("max_loras", 1)
    from vllm import LLM

    try:
        llm = LLM(model=str(model_dir), tokenizer=str(model_dir), **args)
    except Exception as exc:
        raise BackendError(f"vLLM could not start on {model_dir}: {exc}") from exc
    if not _STARTS[0]:  # the last resort: run before vLLM's own exit handlers (registered earlier)
        atexit.register(release_engines)
    _STARTS[0] += 1
    engine = Engine(
        llm,
        key,
        int(llm.llm_engine.model_config.max_model_len),
        args.get("max_lora_rank") if lora_rank is not None else None,
    )
    _HELD.append(engine)
    return engine


def engines_held() -> int:
    """How many engines this process holds now (0 once they are released)."""
    return len(_HELD)


def release_engines() -> None:
    """Shut down every held engine, in order, and wait for its processes to end; nothing to do
    when none is held (it may be called any number of times).

    The engine client's ``shutdown()`` first (it tells its watching thread the end is expected,
    ends the engine's processes and closes its sockets), then vLLM's
    ``cleanup_dist_env_and_memory()`` for what the engine set up in this process. Every engine
    is released even when one fails to shut down; the failures are raised together after.
    """
    if not _HELD:
        return
    failures: list[str] = []
    while _HELD:
        engine = _HELD[-1]  # held until shut down: a Ctrl-C here leaves it to the exit handler
        core = getattr(engine.llm.llm_engine, "engine_core", None)
        shutdown = getattr(core, "shutdown", None)
        try:
            if callable(shutdown):
                shutdown()
        except Exception as exc:  # the others are still shut down
            failures.append(f"{engine.key[0]}: {type(exc).__name__}: {exc}")
        _HELD.pop()
        del engine, core, shutdown
    try:
        from vllm.distributed.parallel_state import cleanup_dist_env_and_memory

        cleanup_dist_env_and_memory()
    except Exception as exc:
        failures.append(f"vLLM's cleanup: {type(exc).__name__}: {exc}")
    gc.collect()
    if failures:
        raise BackendError(f"vLLM's engine did not shut down cleanly: {'; '.join(failures)}")


def prompt_logprobs(
    engine: Engine, prompts: Sequence[Sequence[int]], adapter: Path | None
) -> list[list[float]]:
    """Per prompt, the log-probability of each of its tokens after the first, given the ones
    before (``prompt_logprobs=0``: the prompt's own tokens, never a top-k list)."""
    from vllm import SamplingParams
    from vllm.inputs import TokensPrompt

    params = SamplingParams(max_tokens=1, temperature=0.0, prompt_logprobs=0, detokenize=False)
    outs = _run(engine, [TokensPrompt(prompt_token_ids=list(p)) for p in prompts], params, adapter)
    result: list[list[float]] = []
    for prompt, out in zip(prompts, outs, strict=True):
        rows = out.prompt_logprobs or []
        values = []
        for tok, row in zip(prompt[1:], rows[1:], strict=True):
            values.append(float(row[tok].logprob))
        result.append(values)
    return result


def sampled_logprobs(
    engine: Engine, prompts: Sequence[Sequence[int]], starts: Sequence[int], adapter: Path | None
) -> list[list[float]]:
    """As :func:`prompt_logprobs` for the tokens of each prompt from ``starts[i]`` on (the
    others read 0.0), through the sampler instead: one request per scored token, its prefix
    as the prompt and that token the only one allowed; the log-probability vLLM reports is the
    raw one (``logprobs_mode="raw_logprobs"``, before the restriction), so it is exact.

    vLLM's CPU LoRA layer fails on prompt log-probabilities (its logits path is sized for the
    sampled tokens only, an einsum shape error), with or without an adapter on the request, so
    an engine started with LoRA scores every request here.
    """
    from vllm import SamplingParams
    from vllm.inputs import TokensPrompt

    asks, params, where = [], [], []
    for i, (prompt, start) in enumerate(zip(prompts, starts, strict=True)):
        for pos in range(max(start, 1), len(prompt)):
            asks.append(TokensPrompt(prompt_token_ids=list(prompt[:pos])))
            params.append(
                SamplingParams(
                    max_tokens=1,
                    temperature=0.0,
                    logprobs=0,
                    allowed_token_ids=[int(prompt[pos])],
                    detokenize=False,
                )
            )
            where.append((i, pos))
    result = [[0.0] * max(len(p) - 1, 0) for p in prompts]
    if not asks:
        return result
    outs = _run(engine, asks, params, adapter)
    for (i, pos), out in zip(where, outs, strict=True):
        token = int(prompts[i][pos])
        step = out.outputs[0].logprobs[0]
        result[i][pos - 1] = float(step[token].logprob)
    return result


def generate(
    engine: Engine, prompts: Sequence[Sequence[int]], max_new_tokens: int, adapter: Path | None
) -> list[tuple[list[int], str | None]]:
    """Greedy continuation ids of each prompt (stopped at the end token) and why it stopped."""
    from vllm import SamplingParams
    from vllm.inputs import TokensPrompt

    params = SamplingParams(max_tokens=max_new_tokens, temperature=0.0, detokenize=False)
    outs = _run(engine, [TokensPrompt(prompt_token_ids=list(p)) for p in prompts], params, adapter)
    return [(list(o.outputs[0].token_ids), o.outputs[0].finish_reason) for o in outs]


def _run(engine: Engine, prompts: list[Any], params: Any, adapter: Path | None) -> list[Any]:
    """``LLM.generate``; an engine that fails is one error saying so (answers stored so far
    stay stored)."""
    try:
        return list(
            engine.llm.generate(
                prompts, params, use_tqdm=False, lora_request=engine.lora_request(adapter)
            )
        )
    except Exception as exc:
        raise BackendError(f"vLLM's engine failed: {type(exc).__name__}: {exc}") from exc
