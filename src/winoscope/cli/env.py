"""``winoscope env``: what a bug report needs to say about the environment."""

from __future__ import annotations

import json
from typing import Annotated

import typer


def env(as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """Print the versions and devices a bug report needs: winoscope, Python, the platform,
    torch with its CUDA build and devices, transformers, peft, accelerate, vLLM, numpy,
    pandas, and which extras are usable (and why not). Every run's manifest holds the same
    block under "environment"."""
    from ..environment import environment, environment_text

    block = environment(devices=True)
    print(json.dumps(block, indent=2) if as_json else environment_text(block))
