"""Tests needing ../shared/data skip locally when it is missing, but fail in CI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
def test_needs_data(shared_data):
    assert shared_data.is_dir()
"""


def _run(tmp_path: Path, ci: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_probe.py").write_text(PROBE)
    (tmp_path / "conftest.py").write_text((ROOT / "tests" / "conftest.py").read_text())
    env = {**os.environ, "CI": ci, "WINOSCOPE_SHARED_DATA": str(tmp_path / "missing")}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            str(tmp_path / "test_probe.py"),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_missing_shared_data_fails_in_ci(tmp_path: Path) -> None:
    res = _run(tmp_path, "true")
    assert res.returncode == 1, res.stdout
    assert "1 error" in res.stdout and "required in CI" in res.stdout  # a fixture failure


def test_missing_shared_data_skips_locally(tmp_path: Path) -> None:
    res = _run(tmp_path, "")
    assert res.returncode == 0, res.stdout
    assert "1 skipped" in res.stdout
