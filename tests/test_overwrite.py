"""A run directory holding one run is not silently replaced by a run of another task or model:
refused with a line naming both, unless ``overwrite=True`` / ``--overwrite``; the same run
rerun into it resumes as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import winoscope
from winoscope.cli import app
from winoscope.errors import TaskError


def cli(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(
        app, list(args), catch_exceptions=False, env={"COLUMNS": "200", "TERM": "dumb"}
    )
    return res.exit_code, res.output


def spec(out: Path) -> str:
    return str(json.loads((out / "manifest.json").read_text())["model"]["spec"])


def test_another_model_is_refused_the_same_run_resumes(tmp_path: Path) -> None:
    out = tmp_path / "runs" / "lora"
    winoscope.run("winobias-uk", "baseline:agreement", out=out, n_boot=50)
    winoscope.run("winobias-uk", "baseline:agreement", out=out, n_boot=50)  # the same: fine
    report = (out / "report.md").read_text()
    with pytest.raises(TaskError) as exc:
        winoscope.run("winobias-uk", "baseline:stereotype", out=out, n_boot=50)
    msg = str(exc.value)
    assert "holds a run of winobias-uk with baseline:agreement" in msg
    assert "this run is winobias-uk with baseline:stereotype" in msg and "overwrite" in msg
    assert spec(out) == "baseline:agreement" and (out / "report.md").read_text() == report
    with pytest.raises(TaskError, match="holds a run of winobias-uk"):
        winoscope.run("winopron-uk", "baseline:agreement", out=out, n_boot=50)  # another task
    winoscope.run("winobias-uk", "baseline:stereotype", out=out, n_boot=50, overwrite=True)
    assert spec(out) == "baseline:stereotype"


def test_the_command_line_refuses_in_one_line_and_overwrite_replaces(tmp_path: Path) -> None:
    out = str(tmp_path / "run")
    assert cli("run", "winobias-uk", "-m", "baseline:agreement", "-q", "--bootstrap", "50",
               "--out", out)[0] == 0  # fmt: skip
    code, text = cli("run", "winobias-uk", "-m", "baseline:stereotype", "-q", "--bootstrap", "50",
                     "--out", out)  # fmt: skip
    assert code == 2 and "Traceback" not in text
    assert text.startswith("error: ") and "refusing to overwrite it" in text
    assert spec(Path(out)) == "baseline:agreement"
    code, text = cli("run", "winobias-uk", "-m", "baseline:stereotype", "-q", "--bootstrap", "50",
                     "--overwrite", "--out", out)  # fmt: skip
    assert code == 0 and spec(Path(out)) == "baseline:stereotype"
