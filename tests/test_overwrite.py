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


def test_score_out_refuses_a_run_and_other_scores_rescoring_the_same_file_works(
    tmp_path: Path,
) -> None:
    """``score --out`` writes metrics.* and validation.json: into a run's folder they would put
    one run's numbers under another's manifest and report, so it is refused as ``run`` is."""
    r1, r2, scores = tmp_path / "r1", tmp_path / "r2", tmp_path / "scores"
    winoscope.run("winobias-uk", "baseline:agreement", out=r1, n_boot=20)
    winoscope.run("winobias-uk", "baseline:stereotype", out=r2, n_boot=20)
    before = {n: (r2 / n).read_bytes() for n in ("metrics.csv", "metrics.json", "validation.json")}
    preds1, preds2 = str(r1 / "predictions.csv"), str(r2 / "predictions.csv")
    code, text = cli("score", "-p", preds1, "--bootstrap", "20", "--out", str(r2))
    assert code == 2 and "Traceback" not in text
    assert text.startswith("error: ") and text.count("\n") == 1
    assert f"{r2} holds a run of winobias-uk with baseline:stereotype" in text
    assert "--overwrite" in text and "another --out" in text
    assert {n: (r2 / n).read_bytes() for n in before} == before  # nothing replaced
    # the user's own metrics.csv is not replaced either
    own = tmp_path / "own"
    own.mkdir()
    (own / "metrics.csv").write_text("mine\n")
    code, text = cli("score", "-p", preds1, "--bootstrap", "20", "--out", str(own))
    assert code == 2 and "did not write" in text and (own / "metrics.csv").read_text() == "mine\n"
    # score's own folder: the same predictions again (other settings) replace its scores ...
    assert cli("score", "-p", preds1, "--bootstrap", "20", "--out", str(scores))[0] == 0
    assert cli("score", "-p", preds1, "--bootstrap", "30", "--out", str(scores))[0] == 0
    assert json.loads((scores / "metrics.json").read_text())["settings"]["n_boot"] == 30
    # ... other predictions do not
    code, text = cli("score", "-p", preds2, "--bootstrap", "20", "--out", str(scores))
    assert code == 2 and "holds the scores of" in text
    assert json.loads((scores / "metrics.json").read_text())["predictions"] == preds1
    # --overwrite: the run's manifest and report go, the predictions scored stay
    code, text = cli("score", "-p", preds2, "--bootstrap", "20", "--overwrite", "--out", str(r2))
    assert code == 0, text
    assert not (r2 / "manifest.json").exists() and not (r2 / "report.md").exists()
    assert (r2 / "predictions.csv").is_file()
    assert json.loads((r2 / "metrics.json").read_text())["predictions"] == preds2
