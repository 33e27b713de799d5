"""Tiny GPT-2 checkpoints built offline for the backend tests (torch is imported when one is
built, not when the folder is collected)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tiny_lm import build_tiny_gpt2


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_gpt2(tmp_path_factory.mktemp("tiny-gpt2") / "model", seed=1)


@pytest.fixture(scope="module")
def tiny_chat_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_gpt2(tmp_path_factory.mktemp("tiny-chat") / "model", seed=2, chat=True)
