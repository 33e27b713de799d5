"""Shared fixtures. Real data lives beside the project in ../shared/data."""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
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


# Engines some tests need: a test marked with one is skipped where the engine is missing, and
# fails instead (a skip included) when WINOSCOPE_REQUIRE names it (CI's environment for it sets it).
@functools.cache
def slurm_answers() -> bool:
    """Slurm's commands are installed and a controller answers (``sinfo``, at most 20 s): the
    packages alone, without a running cluster (CI's main suite after a first run), are not
    enough."""
    if shutil.which("sbatch") is None or shutil.which("sinfo") is None:
        return False
    try:
        done = subprocess.run(["sinfo", "-h", "-o", "%T"], capture_output=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def gemma_installed() -> bool:
    from winoscope.backends.hf.gemma import available

    return available()


ENGINES: dict[str, Callable[[], bool]] = {
    "vllm": lambda: importlib.util.find_spec("vllm") is not None,
    "slurm": slurm_answers,
    # the gemma extra: transformers 5, so not in the floor environment (transformers 4.56)
    "gemma": gemma_installed,
}


def required_engines() -> set[str]:
    return {
        name.strip() for name in os.environ.get("WINOSCOPE_REQUIRE", "").split(",") if name.strip()
    }


def pytest_runtest_setup(item: pytest.Item) -> None:
    for name, available in ENGINES.items():
        if item.get_closest_marker(name) is not None and not available():
            message = f"{name} is not installed or not answering here"
            if name in required_engines():
                pytest.fail(message + f" (required: WINOSCOPE_REQUIRE={name})")
            pytest.skip(message)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    required = [n for n in required_engines() if item.get_closest_marker(n) is not None]
    if report.skipped and required and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = f"skipped, but {', '.join(required)} is required here: {report.longrepr}"
