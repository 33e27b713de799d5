"""Optional dependencies: import one on first use, or say which extra installs it.

A plain ``pip install winoscope`` leaves out what a single command needs (the hub reader
``datasets``, the corpus scanner's ``ahocorasick-rs`` and ``zstandard``, the local-model stack).
The code that needs one calls :func:`require`, which imports the module or raises
:class:`MissingExtra` naming the extra to install, e.g. ``pip install 'winoscope[hub]'``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from .errors import WinoscopeError

# module -> (extra that installs it, distribution name)
EXTRAS: dict[str, tuple[str, str]] = {
    "datasets": ("hub", "datasets"),
    "ahocorasick_rs": ("corpus", "ahocorasick-rs"),
    "zstandard": ("corpus", "zstandard"),
    "torch": ("hf", "torch"),
    "transformers": ("hf", "transformers"),
    "peft": ("peft", "peft"),
    "submitit": ("slurm", "submitit"),
    "yaml": ("", "pyyaml"),
    "vllm": ("vllm", "vllm"),
}


class MissingExtra(WinoscopeError):
    """An optional dependency is not installed; the message names the extra that installs it."""

    def __init__(self, module: str, purpose: str) -> None:
        extra, dist = EXTRAS.get(module, ("", module))
        self.module = module
        self.extra = extra
        self.purpose = purpose
        how = f"pip install 'winoscope[{extra}]'" if extra else f"pip install {dist}"
        super().__init__(f"{purpose} needs the package {dist}, which is not installed: {how}")

    def __reduce__(self) -> tuple[type[MissingExtra], tuple[str, str]]:
        # rebuilt from its arguments when it crosses a process boundary (scan workers)
        return (MissingExtra, (self.module, self.purpose))


def require(module: str, purpose: str) -> ModuleType:
    """Import ``module``; if it is missing, raise :class:`MissingExtra` saying what needs it."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != module and not (exc.name or "").startswith(module + "."):
            raise  # the module is there but one of its own dependencies is broken
        raise MissingExtra(module, purpose) from None
