"""Backends for the study tests' factories (``study_models:steered``, ``study_models:seeded``):
a study job imports this module once and calls a factory per swept value.

The tiny models are built by the test into ``STUDY_TINY_DIR`` (``seed-N`` folders). With
``STUDY_GATE`` set, the last value of either factory waits (at most 300 s) for that file to
exist, so that a test can cancel or kill a job when it is known to be mid-way.
"""

from __future__ import annotations

import contextlib
import functools
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

LAST = 5


def _gate(value: Any) -> None:
    gate = os.environ.get("STUDY_GATE")
    if not gate or value != LAST:
        return
    deadline = time.monotonic() + 300
    while not Path(gate).exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"no {gate} after 300 s")
        time.sleep(0.2)


@functools.cache
def _tiny(seed: int) -> Any:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch.set_num_threads(1)
    path = Path(os.environ["STUDY_TINY_DIR"]) / f"seed-{seed}"
    return AutoModelForCausalLM.from_pretrained(path), AutoTokenizer.from_pretrained(path)


@contextlib.contextmanager
def steered(alpha: float) -> Iterator[Any]:
    """The steering hook of tests/steering.py at ``alpha`` on the seed-1 model (loaded once)."""
    import winoscope
    from steering import AddVector, gender_direction

    _gate(alpha)
    model, tok = _tiny(1)
    handle = model.transformer.ln_f.register_forward_hook(
        AddVector(gender_direction(model, tok), alpha)
    )
    try:
        yield winoscope.hf_model(model, tok, mode="texts", label="tiny-steer")
    finally:
        handle.remove()


def seeded(seed: int) -> Any:
    """The tiny model built with ``seed``, as ``hf:PATH`` makes it."""
    from winoscope.backends import create_backend

    _gate(seed)
    return create_backend(f"hf:{Path(os.environ['STUDY_TINY_DIR']) / f'seed-{seed}'}", mode="texts")
