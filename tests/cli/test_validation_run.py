"""Validation runs first in `run` and `score`: summary, validation.json, manifest, banners,
--strict; English WinoBias's unpaired items are left out of the paired metrics."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import winoscope
from helpers_winobias_uk import sample_frame
from winoscope.cli import app
from winoscope.datasets.validation import ValidationFailed, summarize


def _broken(tmp_path: Path) -> Path:
    """The sample with item 1's six sentences missing their final full stop (six rows fail)."""
    raw = sample_frame()
    one = (raw["item_number"] == "1") & (raw["split"] == "validation") & (raw["type"] == "type1")
    for col in ("sentence_uk", "sentence_annotated_uk"):
        raw.loc[one, col] = raw.loc[one, col].str.removesuffix(".")
    path = tmp_path / "rows.csv"
    raw.to_csv(path, index=False)
    return path


def test_summary_counts_checks_and_keeps_first_rows() -> None:
    from winoscope.datasets.base import Issue

    issues = [Issue("a", "x", row=i) for i in range(1, 6)] + [Issue("b", "y", item="it")]
    s = summarize(issues, examples=2)
    assert s["passed"] is False and s["n_issues"] == 6
    assert s["failed_checks"] == {"a": 5, "b": 1}
    assert [e["row"] for e in s["examples"]["a"]] == [1, 2]
    assert summarize([])["passed"] is True


def test_run_writes_validation_json_manifest_and_banners(tmp_path: Path) -> None:
    out = tmp_path / "run"
    rr = winoscope.run("winobias-uk", "baseline:first", data=_broken(tmp_path), out=out, n_boot=20)
    man = json.loads((out / "manifest.json").read_text())
    assert man["validation"] == {
        "passed": False,
        "failed_checks": {"punctuation": 6},
        "n_issues": 6,
    }
    doc = json.loads((out / "validation.json").read_text())
    assert doc["passed"] is False and len(doc["issues"]) == 6
    first = doc["issues"][0]
    assert first["check"] == "punctuation" and first["row"] == 1
    assert first["field"] == "sentence_uk" and "no terminal punctuation" in first["message"]
    md = (out / "report.md").read_text()
    assert "**Validation failed**" in md and "punctuation: 6" in md
    html = (out / "report.html").read_text()
    assert 'id="validation-banner"' in html and "punctuation: 6" in html
    assert rr.manifest["validation"]["n_issues"] == 6


def test_clean_run_records_passed_validation(tmp_path: Path) -> None:
    out = tmp_path / "run"
    winoscope.run("winobias-uk", "baseline:first", out=out, n_boot=20)
    man = json.loads((out / "manifest.json").read_text())
    assert man["validation"] == {"passed": True, "failed_checks": {}, "n_issues": 0}
    assert json.loads((out / "validation.json").read_text())["issues"] == []
    assert "Validation failed" not in (out / "report.md").read_text()
    assert 'id="validation-banner"' not in (out / "report.html").read_text()


def test_strict_stops_before_the_model_is_asked(tmp_path: Path) -> None:
    data = _broken(tmp_path)
    out = tmp_path / "run"
    with pytest.raises(ValidationFailed, match="punctuation"):
        winoscope.run("winobias-uk", "baseline:first", data=data, out=out, strict=True)
    assert not (out / "responses.sqlite").exists() and not (out / "predictions.csv").exists()
    res = CliRunner().invoke(
        app,
        [
            "run",
            "winobias-uk",
            "-m",
            "baseline:first",
            "--data",
            str(data),
            "--out",
            str(out),
            "-q",
            "--strict",
        ],
    )
    assert res.exit_code == 1, res.output
    assert "punctuation: 6" in res.output and "row 1" in res.output
    assert not (out / "predictions.csv").exists()


def test_cli_run_prints_the_summary_and_continues(tmp_path: Path) -> None:
    out = tmp_path / "run"
    res = CliRunner().invoke(
        app,
        [
            "run",
            "winobias-uk",
            "-m",
            "baseline:first",
            "--data",
            str(_broken(tmp_path)),
            "--out",
            str(out),
            "-q",
            "--bootstrap",
            "20",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "validation: 6 issue(s)" in res.output and "punctuation: 6" in res.output
    assert "row 1" in res.output
    assert (out / "validation.json").is_file()


def test_score_validates_first(tmp_path: Path) -> None:
    raw = pd.read_csv(_broken(tmp_path), dtype=str, keep_default_na=False)
    raw["prediction_role"] = "target"
    pred = tmp_path / "pred.csv"
    raw.to_csv(pred, index=False)
    out = tmp_path / "scored"
    res = CliRunner().invoke(
        app,
        ["score", "-p", str(pred), "--task", "winobias-uk", "--out", str(out), "--bootstrap", "20"],
    )
    assert res.exit_code == 0, res.output
    assert "punctuation: 6" in res.output
    doc = json.loads((out / "validation.json").read_text())
    assert doc["failed_checks"] == {"punctuation": 6}
    strict = CliRunner().invoke(
        app, ["score", "-p", str(pred), "--task", "winobias-uk", "--strict"]
    )
    assert strict.exit_code == 1 and "punctuation: 6" in strict.output
    with pytest.raises(ValidationFailed):
        winoscope.score("winobias-uk", pred, strict=True)


# --- English WinoBias: items whose pro and anti lines differ beyond the pronoun -------------


def test_winobias_en_unpaired_items_leave_the_paired_metrics(shared_data: Path) -> None:
    data = shared_data / "winobias-en"
    rr = winoscope.run("winobias-en", "baseline:stereotype", data=data, n_boot=20)
    assert rr.result.settings["unpaired_items"] == 22
    assert rr.result.settings["unpaired_policy"] == "excluded"
    assert rr.manifest["validation"]["failed_checks"] == {"item": 22}
    pooled = next(t for t in rr.result.tests if t["split"] == "all")
    assert pooled["pairs"] == 1584 - 22
    m = rr.metrics
    pc = m[(m.metric == "pair_consistency") & (m.split != "macro")]
    assert int(pc["n"].sum()) == 1584 - 22
    kept = winoscope.run(
        "winobias-en",
        "baseline:stereotype",
        data=data,
        n_boot=20,
        scorer_options={"keep_unpaired": True},
    )
    assert kept.result.settings["unpaired_policy"] == "kept"
    assert next(t for t in kept.result.tests if t["split"] == "all")["pairs"] == 1584
    # accuracy is not a paired metric: unchanged
    acc = m[(m.metric == "pro_accuracy") & (m.split == "macro")]["n"].iloc[0]
    km = kept.metrics
    assert km[(km.metric == "pro_accuracy") & (km.split == "macro")]["n"].iloc[0] == acc


def test_winobias_en_unpaired_count_in_report(shared_data: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    res = CliRunner().invoke(
        app,
        [
            "run",
            "winobias-en",
            "-m",
            "baseline:stereotype",
            "--data",
            str(shared_data / "winobias-en"),
            "--out",
            str(out),
            "-q",
            "--bootstrap",
            "20",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "22 item(s) whose pro and anti lines differ" in res.output
    md = (out / "report.md").read_text()
    assert "22 item(s) whose pro and anti lines differ" in md
    assert "22 item(s) whose pro and anti lines differ" in (out / "report.html").read_text()
    # the scorer's note comes back in the result (no report imports the family) and in show
    shown = CliRunner().invoke(app, ["show", str(out)])
    assert shown.exit_code == 0 and "22 item(s) whose pro and anti lines differ" in shown.output
    notes = json.loads((out / "metrics.json").read_text(encoding="utf-8"))["notes"]
    assert len(notes) == 1 and notes[0].startswith("22 item(s)")
    rescored = CliRunner().invoke(
        app,
        [
            "score",
            "-p",
            str(out / "predictions.csv"),
            "--task",
            "winobias-en",
            "--bootstrap",
            "20",
            "-S",
            "keep_unpaired=true",
        ],
    )
    assert rescored.exit_code == 0, rescored.output
    assert "kept" in rescored.output
