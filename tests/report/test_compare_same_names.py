"""`winoscope compare` of runs whose folders share a name: a row per run, each with its own
numbers, told apart by the shortest tail of the run's path."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from winoscope.report.compare import compare_runs
from winoscope.results.rundir import load_run_dir
from winoscope.runs.runner import run
from winoscope.scoring.answer_quality import short_text


def _cell(metrics: pd.DataFrame, metric: str) -> str:
    r = metrics[(metrics["metric"] == metric) & (metrics["split"] == "macro")].iloc[0]
    return f"{r['value']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"


def test_runs_in_same_named_folders_keep_their_own_rows(tmp_path: Path) -> None:
    a, b = tmp_path / "a" / "r1", tmp_path / "b" / "r1"
    run("winobias-uk", "baseline:random", out=a, n_boot=50, seed=0)
    run("winobias-uk", "baseline:random", out=b, n_boot=50, seed=1)
    cmp = compare_runs([a, b], tmp_path / "cmp")

    csv = pd.read_csv(tmp_path / "cmp" / "compare.csv")
    assert sorted(set(zip(csv["model"], csv["run"], strict=True))) == [
        ("baseline:random (a/r1)", "a/r1"),
        ("baseline:random (b/r1)", "b/r1"),
    ]
    md = (tmp_path / "cmp" / "compare.md").read_text(encoding="utf-8")
    rows = [ln for ln in md.splitlines() if ln.startswith("| baseline:random")]
    assert len(rows) == 2
    for folder, ln in zip(("a/r1", "b/r1"), rows, strict=True):
        cells = [c.strip() for c in ln.strip("|").split("|")]
        assert cells[0].startswith(f"baseline:random ({folder})")
        metrics = pd.read_csv(tmp_path / folder / "metrics.csv")
        assert cells[1] == _cell(metrics, "signed_bias_gap")
        assert cells[-1] == short_text(load_run_dir(tmp_path / folder).quality)
    assert "(0: a/r1; 1: b/r1)" in md  # the seeds note names the runs apart too
    tex = (tmp_path / "cmp" / "compare.tex").read_text(encoding="utf-8")
    assert "random (a/r1)" in tex and "random (b/r1)" in tex
    assert all(not d.startswith("winobias-uk: r1:") for d in cmp.degenerate)
