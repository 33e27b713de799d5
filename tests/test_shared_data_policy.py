"""Tests needing ../shared/data skip locally when it is missing, but fail in CI; every test
finds it through one helper (tests/shared_paths.py), which honours WINOSCOPE_SHARED_DATA."""

from __future__ import annotations

import json
import os
import re
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
    (tmp_path / "shared_paths.py").write_text((ROOT / "tests" / "shared_paths.py").read_text())
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


def hard_coded_paths(text: str) -> list[int]:
    """Lines of a test module that build the shared-data path themselves."""
    pattern = re.compile(r"""["']shared["']\s*/\s*["']data["']|shared/data["']""")
    return [i for i, line in enumerate(text.splitlines(), 1) if pattern.search(line)]


def test_no_test_builds_the_shared_data_path_itself() -> None:
    planted = 'path = Path(__file__).parents[2] / "shared" / "data" / "winobias-en"'
    assert hard_coded_paths(planted) == [1]
    assert hard_coded_paths("from shared_paths import SHARED_DATA") == []
    found = {
        str(p.relative_to(ROOT)): hard_coded_paths(p.read_text(encoding="utf-8"))
        for p in sorted((ROOT / "tests").rglob("*.py"))
        if p.name not in {"shared_paths.py", "test_shared_data_policy.py"}
    }
    assert {k: v for k, v in found.items() if v} == {}


def test_the_variable_alone_moves_the_coref_reference_suite(tmp_path: Path) -> None:
    """With only WINOSCOPE_SHARED_DATA pointing elsewhere, the CoNLL reference cases are read
    from there (a fixed ../shared/data path collected the other copy's 36 cases)."""
    suite = tmp_path / "data" / "coref-scorer-tests"
    suite.mkdir(parents=True)
    (suite / "expected.json").write_text(json.dumps([{"id": "only-this-case"}]))
    env = {**os.environ, "WINOSCOPE_SHARED_DATA": str(tmp_path / "data")}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--collect-only",
            "tests/scoring/test_coref_metrics.py::test_reference_scorer_suite",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "test_reference_scorer_suite[only-this-case]" in done.stdout
    assert done.stdout.count("test_reference_scorer_suite[") == 1
