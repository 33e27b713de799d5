"""``winoscope sweep --adapters DIR --base SPEC``: the base model and each adapter on it.

Every folder under DIR holding an ``adapter_config.json`` is a point: ``checkpoint-N`` gives
the value N, any other folder its name; the base model without an adapter is the point 0 (the
reference by default). On ``vllm:`` every point answers through one engine - the base weights
load once, with room for the largest adapter's rank, and each request names its adapter - so
a sweep over a trainer's saved adapters costs one model load. On ``hf:`` each point loads the
base with its adapter (``-M peft=DIR``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..backends import Backend, create_backend
from ..errors import TaskError

#: a trainer's checkpoint folder (as ``--checkpoints`` reads it)
CHECKPOINT_DIR = re.compile(r"checkpoint[-_](\d+)$")
#: how each kind takes an adapter directory
ADAPTER_OPTION = {"vllm": "lora", "hf": "peft"}


def adapter_dirs(folder: Path) -> dict[str, Path]:
    """The adapter folders under ``folder``: their values (N of ``checkpoint-N``, else the
    folder's name) -> paths."""
    if not folder.is_dir():
        raise TaskError(f"--adapters {folder}: no such directory")
    found: dict[str, Path] = {}
    for child in sorted(folder.iterdir()):
        if child.is_dir() and (child / "adapter_config.json").is_file():
            m = CHECKPOINT_DIR.search(child.name)
            found[m.group(1) if m else child.name] = child
    if not found:
        raise TaskError(f"--adapters {folder}: no folder with an adapter_config.json in it")
    if "0" in found:
        raise TaskError(f"--adapters {folder}: the value 0 is the base model's; rename the folder")
    return found


def _rank(adapter: Path) -> int:
    try:
        return int(json.loads((adapter / "adapter_config.json").read_text("utf-8"))["r"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise TaskError(f"--adapters: {adapter}: cannot read its LoRA rank r ({exc})") from None


def adapter_points(folder: Path, base: str, options: dict[str, Any]) -> dict[str, Backend]:
    """Point 0 (the base) and one point per adapter, each a backend on ``base``."""
    kind = base.partition(":")[0]
    if kind not in ADAPTER_OPTION:
        raise TaskError(f"--base {base}: adapters go on vllm: or hf: models")
    option = ADAPTER_OPTION[kind]
    if option in options:
        raise TaskError(f"--adapters gives each point's adapter: leave -M {option}= out")
    dirs = adapter_dirs(folder)
    shared = dict(options)
    if kind == "vllm":  # one engine for every point: room for the largest adapter
        shared.setdefault("max_lora_rank", max(_rank(p) for p in dirs.values()))
    points: dict[str, Backend] = {"0": create_backend(base, **shared)}
    for value, path in dirs.items():
        points[value] = create_backend(base, **shared, **{option: str(path)})
    return points
