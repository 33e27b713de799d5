"""Shared fixtures. Real data lives beside the project in ../shared/data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Tests never reach the hub: hub-shaped code paths run against local stand-ins.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from shared_paths import ROOT, SHARED_DATA, in_ci

__all__ = ["ROOT", "SHARED_DATA", "in_ci"]


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """../shared/data; skipped locally when absent, a failure in CI (CI=true)."""
    if not SHARED_DATA.is_dir():
        message = f"real test data not found at {SHARED_DATA}"
        if in_ci():
            pytest.fail(message + " (required in CI)")
        pytest.skip(message)
    return SHARED_DATA
