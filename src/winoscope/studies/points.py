"""What one point of a sweep or a study runs on, made the same way for both: a spec becomes a
backend (closed after the point), a context manager is entered, a backend is used as it is;
and adapters on one base share what they can (on ``vllm:`` one engine, with room for the
largest adapter's rank, each request naming its adapter)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ..backends import close_backend, create_backend
from ..errors import TaskError

#: how each kind of backend takes an adapter directory
ADAPTER_OPTION = {"vllm": "lora", "hf": "peft"}


def lora_rank(adapter: Path, where: str) -> int:
    """The LoRA rank ``r`` an adapter's configuration declares."""
    try:
        return int(json.loads((adapter / "adapter_config.json").read_text("utf-8"))["r"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise TaskError(f"{where}: {adapter}: cannot read its LoRA rank r ({exc})") from None


def adapter_options(
    base: str, adapters: Mapping[Any, Path], options: Mapping[str, Any], where: str
) -> tuple[dict[str, Any], dict[Any, dict[str, Any]]]:
    """The base's options shared by every point (on ``vllm:``, ``max_lora_rank`` for the
    largest adapter, so one engine serves them all) and each adapter point's own options."""
    kind = base.partition(":")[0]
    if kind not in ADAPTER_OPTION:
        raise TaskError(f"{where}: adapters go on vllm: or hf: models, not {base}")
    option = ADAPTER_OPTION[kind]
    if option in options:
        raise TaskError(f"{where} gives each point's adapter: leave the {option}= option out")
    shared = dict(options)
    if kind == "vllm" and adapters:
        shared.setdefault("max_lora_rank", max(lora_rank(p, where) for p in adapters.values()))
    return shared, {v: {**shared, option: str(p)} for v, p in adapters.items()}


@contextlib.contextmanager
def point_backend(made: Any, **options: Any) -> Iterator[Any]:
    """The backend of one point from what was given for it: a spec is made with ``options``
    and closed after the point (``vllm:``'s engine shut down before the next point's starts,
    and before the process ends: an engine left to the process's exit can abort it); a context
    manager is entered and left; a backend is used as it is (its maker closes it)."""
    if isinstance(made, str):
        backend = create_backend(made, **options)
        try:
            yield backend
        finally:
            close_backend(backend)
    elif hasattr(made, "__enter__") and hasattr(made, "__exit__"):
        with made as backend:
            yield backend
    else:
        yield made
