"""`winoscope run` / `score` end to end, from the CLI and from Python."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import winoscope
from helpers_winobias_uk import sample_frame
from winoscope.cli import app
from winoscope.datasets.sources import file_sha256


def test_cli_run_writes_the_run_directory(tmp_path: Path) -> None:
    out = tmp_path / "run"
    res = CliRunner().invoke(
        app, ["run", "winobias-uk", "--model", "baseline:agreement", "--out", str(out), "-q"]
    )
    assert res.exit_code == 0, res.output
    for name in (
        "predictions.parquet",
        "predictions.csv",
        "metrics.json",
        "metrics.csv",
        "report.md",
        "manifest.json",
    ):
        assert (out / name).is_file(), name
    csv = pd.read_csv(out / "predictions.csv")
    assert "prediction_role" in csv.columns and len(csv) == 76
    assert set(csv["prediction_role"]) <= {"target", "distractor", "invalid"}
    parquet = pd.read_parquet(out / "predictions.parquet")
    assert list(parquet["prediction_role"]) == list(csv["prediction_role"])
    tidy = pd.read_csv(out / "metrics.csv")
    assert list(tidy.columns) == [
        "metric",
        "split",
        "type",
        "value",
        "ci_low",
        "ci_high",
        "n",
        "n_strata",
    ]
    man = json.loads((out / "manifest.json").read_text())
    assert man["review_status"] == "preview; broader human review ongoing"
    assert man["protocol"] == "forced_choice"
    assert man["model"]["spec"] == "baseline:agreement"
    assert man["seed"] == 0 and man["winoscope_version"] == winoscope.__version__
    assert (
        man["prompt_template"]["name"] == "uk-default-v1"
        and "{sentence}" in man["prompt_template"]["text"]
    )
    assert man["dataset"]["is_sample"] is True and len(man["dataset"]["source"]["sha256"]) == 64
    report = (out / "report.md").read_text()
    assert "agreement_control_accuracy" in report and "not the real dataset" in report


def test_run_on_a_file_records_its_sha256(tmp_path: Path) -> None:
    data = tmp_path / "rows.csv"
    sample_frame().to_csv(data, index=False)
    r = winoscope.run(
        "winobias-uk", "baseline:first", data=data, out=tmp_path / "run", n_boot=100, seed=3
    )
    man = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert man["dataset"]["source"] == {
        "kind": "file",
        "location": str(data),
        "sha256": file_sha256(data),
    }
    assert man["seed"] == 3 and man["bootstrap"]["replicates"] == 100
    assert r.out_dir == tmp_path / "run"


def test_custom_template_is_recorded(tmp_path: Path) -> None:
    tmpl = tmp_path / "short.txt"
    tmpl.write_text("{sentence}\n{pronoun}: A={option_a} B={option_b}", encoding="utf-8")
    res = CliRunner().invoke(
        app,
        [
            "run",
            "winobias-uk",
            "-m",
            "baseline:first",
            "--template",
            str(tmpl),
            "--out",
            str(tmp_path / "r"),
            "-q",
        ],
    )
    assert res.exit_code == 0, res.output
    man = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert man["prompt_template"] == {"name": "short.txt", "text": tmpl.read_text(encoding="utf-8")}


def test_score_reproduces_the_run(tmp_path: Path) -> None:
    r = winoscope.run("winobias-uk", "baseline:random", out=tmp_path / "run", n_boot=200)
    again = winoscope.score("winobias-uk", tmp_path / "run" / "predictions.csv", n_boot=200)
    cols = ["metric", "split", "type", "value", "n"]
    expected = r.metrics[~r.metrics["metric"].eq("option_order_consistency")][cols].reset_index(
        drop=True
    )
    got = again.metrics[~again.metrics["metric"].eq("option_order_consistency")][cols].reset_index(
        drop=True
    )
    pd.testing.assert_frame_equal(got, expected)


def test_cli_score_on_rows_made_elsewhere(tmp_path: Path) -> None:
    rows = sample_frame()
    rows["prediction_role"] = "target"  # a model that always picks the target
    path = tmp_path / "preds.csv"
    rows.to_csv(path, index=False)
    res = CliRunner().invoke(
        app,
        ["score", "--predictions", str(path), "--out", str(tmp_path / "s"), "--bootstrap", "100"],
    )
    assert res.exit_code == 0, res.output
    tidy = pd.read_csv(tmp_path / "s" / "metrics.csv")
    macro = tidy[tidy["split"] == "macro"].set_index("metric")["value"]
    assert (
        macro["pro_accuracy"] == 1.0
        and macro["anti_accuracy"] == 1.0
        and macro["cross_control_accuracy"] == 0.0
    )


def test_cli_score_bad_prediction_is_one_line(tmp_path: Path) -> None:
    rows = sample_frame()
    rows["prediction_role"] = "target"
    rows.loc[4, "prediction_role"] = "maybe"
    path = tmp_path / "preds.csv"
    rows.to_csv(path, index=False)
    res = CliRunner().invoke(app, ["score", "--predictions", str(path)])
    assert res.exit_code == 2 and "row 5" in res.output and "prediction_role" in res.output
    assert "Traceback" not in res.output


def test_unknown_task_and_model_are_clear(tmp_path: Path) -> None:
    res = CliRunner().invoke(
        app, ["run", "winobias-xx", "-m", "baseline:first", "--out", str(tmp_path)]
    )
    assert res.exit_code == 2 and "unknown task 'winobias-xx'" in res.output
    with pytest.raises(winoscope.BackendError):
        winoscope.run("winobias-uk", "nosuchkind:x")


def test_tasks_listing() -> None:
    res = CliRunner().invoke(app, ["tasks", "--json"])
    assert res.exit_code == 0
    listed = {t["task"]: t for t in json.loads(res.output)}
    assert listed["winobias-uk"]["source"] == "FairForget/WinoBias-UK-Natural"
    assert "signed_bias_gap" in listed["winobias-uk"]["metrics"]


def test_demo_writes_a_report_folder(tmp_path: Path) -> None:
    res = CliRunner().invoke(
        app, ["demo", "--out", str(tmp_path / "demo"), "-q", "--baselines-only"]
    )
    assert res.exit_code == 0, res.output
    summary = (tmp_path / "demo" / "README.md").read_text()
    assert "baseline:agreement" in summary and "baseline:stereotype" in summary
    assert (tmp_path / "demo" / "winobias-uk__baseline_agreement" / "metrics.json").is_file()
