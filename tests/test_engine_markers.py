"""The engine markers: a test marked with a missing engine skips, and fails where it is required."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from shared_paths import ROOT

PROBE = """
import pytest

@pytest.mark.vllm
def test_needs_engine():
    pass
"""


def _run(tmp_path: Path, require: str) -> subprocess.CompletedProcess[str]:
    test = tmp_path / "test_probe.py"
    test.write_text(PROBE)
    (tmp_path / "conftest.py").write_text((ROOT / "tests" / "conftest.py").read_text())
    env = {**os.environ, "WINOSCOPE_REQUIRE": require, "PYTHONPATH": str(ROOT / "tests")}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            str(test),
            "-o",
            "markers=vllm: engine",
            "--rootdir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )


def test_missing_engine_skips_or_fails_when_required(tmp_path: Path) -> None:
    import importlib.util

    if importlib.util.find_spec("vllm") is not None:
        # where vLLM is installed the probe passes either way
        assert _run(tmp_path, "vllm").returncode == 0
        return
    assert "1 skipped" in _run(tmp_path, "").stdout
    required = _run(tmp_path, "vllm")
    assert required.returncode == 1, required.stdout
    assert "required: WINOSCOPE_REQUIRE=vllm" in required.stdout
