"""Every paper table winoscope writes compiles with pdflatex and booktabs, fits its column
(no overfull box), and uses the metrics' declared labels rather than raw names."""

from __future__ import annotations

from pathlib import Path

import pytest

import winoscope
from latex_check import compile_tex
from winoscope.report.compare import compare_runs


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("latex-runs")
    for task, model in (
        ("winobias-uk", "baseline:first"),
        ("winobias-uk", "baseline:stereotype"),
        ("winopron-uk", "baseline:first"),
        ("swewinogender/nli", "nli-baseline:first-mention"),
        ("winobias-uk/coref", "baseline:first"),
    ):
        winoscope.run(
            task,
            model,
            out=root / f"{task.replace('/', '_')}-{model.split(':')[1]}",
            n_boot=50,
            tags={"method": "none"},
        )
    return root


def test_compare_tex_compiles_with_every_task_and_declared_labels(runs, tmp_path):
    cmp = compare_runs([runs], tmp_path / "cmp")
    tex = (tmp_path / "cmp" / "compare.tex").read_text(encoding="utf-8")
    for task in ("winobias-uk", "winopron-uk", "swewinogender/nli", "winobias-uk/coref"):
        assert f"\\caption{{{task.replace('_', chr(92) + '_')}:" in tex, task
    assert "accuracy\\\\{}hon -- han" in tex and "pro\\_accuracy" not in tex  # declared labels
    assert "\\begin{tabular}[b]{@{}c@{}}pro -- anti\\\\{}accuracy\\end{tabular}" in tex
    assert tex.count("\\begin{tabular}{lrrr}") == 4  # model + 3 metrics: one column wide
    assert len(cmp.runs) == 5
    compile_tex(tmp_path / "cmp" / "compare.tex", tmp_path / "tex")


def test_diff_tex_compiles_and_names_the_holm_family(runs, tmp_path):
    winoscope.diff(runs / "winobias-uk-first", runs / "winobias-uk-stereotype", out=tmp_path / "d")
    tex = (tmp_path / "d" / "diff.tex").read_text(encoding="utf-8")
    assert "\\begin{tabular}{lrrrr}" in tex and "\\textit{expl.}" in tex
    assert "pro accuracy, anti accuracy" in tex  # the family, by declared labels
    compile_tex(tmp_path / "d" / "diff.tex", tmp_path / "tex")


def test_sensitivity_tex_compiles(tmp_path):
    s = winoscope.run_templates("winobias-uk", "baseline:first", out=tmp_path / "s", n_boot=50)
    tex = (tmp_path / "s" / "sensitivity.tex").read_text(encoding="utf-8")
    assert "Mean & Min & Max & SD" in tex and len(s.templates) >= 2
    compile_tex(tmp_path / "s" / "sensitivity.tex", tmp_path / "tex")


def test_sweep_tex_compiles(tmp_path):
    winoscope.sweep(
        "winobias-uk",
        {0: "baseline:first", 1: "baseline:stereotype"},
        out=tmp_path / "sw",
        n_boot=50,
    )
    compile_tex(tmp_path / "sw" / "sweep.tex", tmp_path / "tex")


def test_crosslingual_tex_compiles(tmp_path, shared_data):
    from helpers_crosslingual import matched_english

    winoscope.run("winobias-uk", "baseline:stereotype", out=tmp_path / "uk", n_boot=50)
    winoscope.run(
        "winobias-en",
        "baseline:stereotype",
        data=shared_data / "winobias-en",
        out=tmp_path / "en-all",
        n_boot=50,
    )
    en = matched_english(tmp_path / "uk", tmp_path / "en-all", tmp_path / "en")
    winoscope.crosslingual(tmp_path / "uk", en, out=tmp_path / "x", n_boot=50)
    tex = (tmp_path / "x" / "crosslingual.tex").read_text(encoding="utf-8")
    assert "UK $-$ EN" in tex and "\\scriptsize" in tex
    compile_tex(tmp_path / "x" / "crosslingual.tex", tmp_path / "tex")


def test_flagged_runs_with_negative_intervals_still_fit_a_column(tmp_path):
    """Long stratum headers (occupation share hon − han), intervals below 0 and † marks: the
    full demo's SweWinogender table was 10.5 pt too wide before headers wrapped freely."""
    for name, seed in (("baseline:random", 0), ("baseline:stereotype-labels", 5)):
        winoscope.run(
            "swewinogender/resolution",
            name,
            out=tmp_path / name.split(":")[1],
            n_boot=50,
            seed=seed,
        )
    cmp = compare_runs([tmp_path / "random", tmp_path / "stereotype-labels"], tmp_path / "cmp")
    assert cmp.flags  # the seeds differ: every run carries the dagger
    tex = (tmp_path / "cmp" / "compare.tex").read_text(encoding="utf-8")
    assert "$^\\dagger$" in tex and "occupation\\\\{}share hon --\\\\{}han" in tex
    compile_tex(tmp_path / "cmp" / "compare.tex", tmp_path / "tex")
