"""What each point of a grid runs on, made the same way for a sweep and a study: a spec becomes
a backend (closed after the point), a context manager is entered, a backend is used as it is;
and adapters on one base share what they can (on ``vllm:`` one engine, with room for the
largest adapter's rank, each request naming its adapter; kept open until the grid ends)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from ..backends import close_backend, create_backend
from ..errors import TaskError
from .checkpoints import adapter_dirs

#: how each kind of backend takes an adapter directory
ADAPTER_OPTION = {"vllm": "lora", "hf": "peft"}


@dataclass(frozen=True)
class Point:
    """One point's backend source: a spec (made with ``options``), a backend or a context
    manager. ``shared``: a backend on an engine the other points share, so it is made once and
    closed when the grid ends rather than after its point."""

    made: Any
    options: Mapping[str, Any] = field(default_factory=dict)
    shared: bool = False


def lora_rank(adapter: Path, where: str) -> int:
    """The LoRA rank ``r`` an adapter's configuration declares."""
    try:
        return int(json.loads((adapter / "adapter_config.json").read_text("utf-8"))["r"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise TaskError(f"{where}: {adapter}: cannot read its LoRA rank r ({exc})") from None


def adapter_points(
    base: str,
    adapters: Mapping[Any, Path],
    options: Mapping[str, Any],
    where: str,
    *,
    base_value: Any = None,
) -> dict[Any, Point]:
    """A point per adapter on ``base`` (and the base alone as ``base_value`` when given). On
    ``vllm:`` they share one engine, made with ``max_lora_rank`` for the largest adapter."""
    kind = base.partition(":")[0]
    if kind not in ADAPTER_OPTION:
        raise TaskError(f"{where}: adapters go on vllm: or hf: models, not {base}")
    option = ADAPTER_OPTION[kind]
    if option in options:
        raise TaskError(f"{where} gives each point's adapter: leave the {option}= option out")
    shared = dict(options)
    if kind == "vllm" and adapters:
        shared.setdefault("max_lora_rank", max(lora_rank(p, where) for p in adapters.values()))
    one = kind == "vllm"
    points = {} if base_value is None else {base_value: Point(base, shared, one)}
    points.update({v: Point(base, {**shared, option: str(p)}, one) for v, p in adapters.items()})
    return points


def adapter_folder_points(folder: Path, base: str, options: Mapping[str, Any]) -> dict[Any, Point]:
    """``sweep --adapters DIR --base SPEC``: the base alone as point ``"0"`` (the reference by
    default) and each adapter folder under DIR (``checkpoint-N`` gives the value N, any other
    folder its name)."""
    return adapter_points(base, adapter_dirs(folder), options, "--adapters", base_value="0")


class PointBackends:
    """Opens each point's backend (:meth:`open`) and, on leaving, closes those kept open for
    points sharing an engine. ``seed`` is given to a backend made from a spec, as ``run``
    gives it."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.kept: dict[int, Any] = {}

    def __enter__(self) -> PointBackends:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        for backend in self.kept.values():
            close_backend(backend)
        self.kept.clear()

    @contextlib.contextmanager
    def open(self, point: Point) -> Iterator[Any]:
        """A spec is made and closed after the point (``vllm:``'s engine shut down before the
        next point's starts, and before the process ends: an engine left to the process's exit
        can abort it); a context manager is entered and left; a backend is used as it is."""
        made = point.made
        if isinstance(made, str) and point.shared:
            backend = create_backend(made, **point.options)
            self.kept[id(backend)] = backend
            yield backend
        elif isinstance(made, str):
            seed = {} if self.seed is None else {"seed": self.seed}
            backend = create_backend(made, **{**seed, **point.options})
            try:
                yield backend
            finally:
                close_backend(backend)
        elif hasattr(made, "__enter__") and hasattr(made, "__exit__"):
            with made as backend:
                yield backend
        else:
            yield made
