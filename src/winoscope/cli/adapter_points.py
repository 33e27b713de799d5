"""``winoscope sweep --adapters DIR --base SPEC``: the base model and each adapter on it.

Every folder under DIR holding an ``adapter_config.json`` is a point: ``checkpoint-N`` gives
the value N, any other folder its name; the base model without an adapter is the point 0 (the
reference by default). On ``vllm:`` every point answers through one engine - the base weights
load once, with room for the largest adapter's rank, and each request names its adapter - so
a sweep over a trainer's saved adapters costs one model load. On ``hf:`` each point loads the
base with its adapter (``-M peft=DIR``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..backends import Backend, create_backend
from ..studies.checkpoints import adapter_dirs


def adapter_points(folder: Path, base: str, options: dict[str, Any]) -> dict[str, Backend]:
    """Point 0 (the base) and one point per adapter, each a backend on ``base``."""
    from ..studies.points import adapter_options

    shared, own = adapter_options(base, adapter_dirs(folder), options, "--adapters")
    points: dict[str, Backend] = {"0": create_backend(base, **shared)}
    for value, kwargs in own.items():
        points[value] = create_backend(base, **kwargs)
    return points
