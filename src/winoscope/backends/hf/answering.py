"""What the transformers backends set while a model answers, and restore after: torch's thread
count (a run's ``threads`` setting, not the process's) and eval mode (each module's own mode
given back), and whether a model folder's tokenizer has a chat template."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


@contextmanager
def torch_threads(n: int | None) -> Iterator[None]:
    """torch's intra-op thread count set to ``n`` while the backend answers, and restored
    after: ``threads`` is the run's setting, not the process's."""
    if n is None:
        yield
        return
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


@contextmanager
def eval_mode(model: Any) -> Iterator[None]:
    """The model in eval mode while it answers; each submodule's own mode restored after.

    A model handed over between training steps is in training mode (dropout on); answers
    are read without dropout, and training resumes with every module as it was.
    """
    modes = [(m, m.training) for m in model.modules()]
    if any(training for _, training in modes):
        model.eval()
    try:
        yield
    finally:
        for module, training in modes:
            if module.training != training:
                module.train(training)


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
