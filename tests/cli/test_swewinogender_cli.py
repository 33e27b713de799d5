"""The command line on SweWinogender: run, score (SuperLim submission), correlate, tasks."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from typer.testing import CliRunner

from winoscope.cli import app


def test_tasks_lists_the_swewinogender_tasks() -> None:
    res = CliRunner().invoke(app, ["tasks", "--json"])
    assert res.exit_code == 0, res.output
    names = {t["task"] for t in json.loads(res.output)}
    assert {"swewinogender", "swewinogender/nli", "swewinogender/resolution"} <= names


def test_score_superlim_submission(shared_data: Path, tmp_path: Path) -> None:
    src = shared_data / "swewinogender-v2" / "swewinogender_test.jsonl"
    rows = [json.loads(x) for x in src.read_text("utf-8").splitlines() if x]
    sub = tmp_path / "submission.jsonl"
    sub.write_text(
        "".join(
            json.dumps(dict(r, prediction="entailment"), ensure_ascii=False) + "\n" for r in rows
        ),
        encoding="utf-8",
    )
    out = tmp_path / "scored"
    res = CliRunner().invoke(
        app,
        [
            "score",
            "--task",
            "swewinogender",
            "-p",
            str(sub),
            "--bootstrap",
            "50",
            "--out",
            str(out),
        ],
    )
    assert res.exit_code == 0, res.output
    assert "krippendorff_alpha" in res.output and "accuracy (hon)" in res.output
    metrics = pd.read_csv(out / "metrics.csv")
    acc = metrics.query("metric == 'accuracy' and split == 'all'")["value"].iloc[0]
    assert acc == 0.5
    rows[0]["prediction"] = "ja"
    sub.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    res = CliRunner().invoke(app, ["score", "--task", "swewinogender", "-p", str(sub)])
    assert res.exit_code == 2
    assert "row 1, field 'prediction'" in res.output and "Traceback" not in res.output


def test_run_then_correlate(shared_data: Path, tmp_path: Path) -> None:
    data = shared_data / "swewinogender-v2" / "swewinogender_test.jsonl"
    run_dir = tmp_path / "run"
    res = CliRunner().invoke(
        app,
        [
            "run",
            "swewinogender/resolution",
            "-m",
            "baseline:first",
            "--data",
            str(data),
            "--out",
            str(run_dir),
            "-q",
            "--bootstrap",
            "50",
        ],
    )
    assert res.exit_code == 0, res.output
    occs = sorted(pd.read_csv(run_dir / "predictions.csv")["occupation_participant"].unique())
    aux = tmp_path / "aux.tsv"
    aux.write_text(
        "".join(f"{o}\t{10 + i}\t{5 + i}\t{6 + i}\t{7 + i}\n" for i, o in enumerate(occs)), "utf-8"
    )
    res = CliRunner().invoke(
        app, ["correlate", str(run_dir), "--stats", str(aux), "--bootstrap", "50"]
    )
    assert res.exit_code == 0, res.output
    assert (run_dir / "occupation_correlation.png").is_file()
    corr = pd.read_csv(run_dir / "occupation_correlations.csv")
    # baseline:first ignores the pronoun: no gender preference, so no correlation is defined
    assert corr.query("measure == 'female_minus_male'")["value"].isna().all()
    assert set(corr["statistic"]) == {"scb", "corpus_small", "corpus_medium", "corpus_large"}
    res = CliRunner().invoke(
        app, ["correlate", str(run_dir), "--stats", str(tmp_path / "nope.tsv")]
    )
    assert res.exit_code == 2 and "no such file" in res.output
