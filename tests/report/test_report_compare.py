"""`winoscope compare` and `winoscope show`: tidy table, paper tables, flags, run-dir errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from winoscope.cli import app
from winoscope.errors import DatasetError
from winoscope.protocols.forced_choice import UK_DEFAULT, PromptTemplate
from winoscope.report.compare import compare_runs, expand_run_paths
from winoscope.report.compare_tables import latex_escape, latex_tables, markdown_tables
from winoscope.results.rundir import load_run_dir
from winoscope.runs.runner import run


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("runs")
    for model in ("baseline:stereotype", "baseline:agreement", "baseline:first"):
        run("winobias-uk", model, out=root / model.split(":")[1], n_boot=200, seed=0)
    return root


def _cell(metrics: pd.DataFrame, metric: str) -> str:
    r = metrics[(metrics["metric"] == metric) & (metrics["split"] == "macro")].iloc[0]
    return f"{r['value']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"


def test_tidy_table_stacks_every_run(runs: Path, tmp_path: Path) -> None:
    cmp = compare_runs([runs / "stereotype", runs / "agreement"], tmp_path / "cmp")
    csv = pd.read_csv(tmp_path / "cmp" / "compare.csv")
    a = pd.read_csv(runs / "stereotype" / "metrics.csv")
    b = pd.read_csv(runs / "agreement" / "metrics.csv")
    assert len(csv) == len(a) + len(b)
    assert list(csv.columns[:6]) == ["task", "model", "tags", "run", "dataset", "prompt"]
    assert set(csv["model"]) == {"baseline:stereotype", "baseline:agreement"}
    got = csv[csv["model"] == "baseline:agreement"].reset_index(drop=True)
    pd.testing.assert_frame_equal(got[list(b.columns)], b, check_dtype=False)
    assert not csv["flagged"].any() and cmp.flags == []
    for name in (
        "compare.md",
        "compare.tex",
        "compare.html",
        "plots/forest_gaps.png",
        "plots/forest_gaps.svg",
    ):
        assert (tmp_path / "cmp" / name).stat().st_size > 100


def test_markdown_table_cells_come_from_the_runs(runs: Path, tmp_path: Path) -> None:
    compare_runs([runs], tmp_path / "cmp")  # a folder of run directories
    md = (tmp_path / "cmp" / "compare.md").read_text(encoding="utf-8")
    lines = [ln for ln in md.splitlines() if ln.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    assert header[:3] == ["model", "pro − anti accuracy", "(pro + anti) / 2 accuracy"]
    assert len(lines) == 2 + 3
    for ln in lines[2:]:
        cells = [c.strip() for c in ln.strip("|").split("|")]
        metrics = pd.read_csv(runs / cells[0].split(":")[1] / "metrics.csv")
        assert cells[1] == _cell(metrics, "signed_bias_gap")
        assert cells[2] == _cell(metrics, "overall_accuracy")


def test_latex_is_booktabs_and_escaped(runs: Path) -> None:
    runs_ = [load_run_dir(runs / "stereotype")]
    from winoscope.report.compare import tidy_table

    tex = latex_tables(tidy_table(runs_))
    assert "\\toprule" in tex and "\\midrule" in tex and "\\bottomrule" in tex
    assert "\\begin{tabular}{lrrr}" in tex  # three metrics: one column of a paper
    lines = tex.splitlines()
    label = "\\begin{tabular}[t]{@{}l@{}}baseline:\\\\{}stereotype\\end{tabular}"  # wrapped
    row = next(i for i, ln in enumerate(lines) if ln.startswith(label + " & "))
    assert lines[row] == label + " & $1.00$ & $0.50$ & $1.00$ \\\\"
    assert lines[row + 1].startswith(" & {\\scriptsize $[1.00, 1.00]$} & ")  # interval under
    assert "pro -- anti\\\\{}accuracy" in tex and "signed\\_bias" not in tex
    assert latex_escape("a_b & 50% #1 {x} ~ ^ \\") == (
        "a\\_b \\& 50\\% \\#1 \\{x\\} \\textasciitilde{} \\textasciicircum{} \\textbackslash{}"
    )


def test_negative_numbers_in_latex_use_math_minus(runs: Path, tmp_path: Path) -> None:
    rd = tmp_path / "neg"
    shutil.copytree(runs / "agreement", rd)
    m = pd.read_csv(rd / "metrics.csv")
    m.loc[
        (m["metric"] == "signed_bias_gap") & (m["split"] == "macro"), ["value", "ci_low", "ci_high"]
    ] = [
        -0.25,
        -0.5,
        0.125,
    ]
    m.to_csv(rd / "metrics.csv", index=False)
    from winoscope.report.compare import tidy_table

    tex = latex_tables(tidy_table([load_run_dir(rd)]))
    lines = tex.splitlines()
    label = "\\begin{tabular}[t]{@{}l@{}}baseline:\\\\{}agreement\\end{tabular}"
    row = next(i for i, ln in enumerate(lines) if ln.startswith(label + " & "))
    assert lines[row].startswith(label + " & $-0.25$ & ")
    assert lines[row + 1].startswith(" & {\\scriptsize $[-0.50, 0.12]$} & ")
    md = markdown_tables(tidy_table([load_run_dir(rd)]))
    assert "-0.250 [-0.500, 0.125]" in md


def test_gap_by_stratum_is_labelled_as_the_gap_and_empty_columns_skip_latex(
    runs: Path, tmp_path: Path
) -> None:
    """A run without a macro gap (a half-failed one) adds its gap by type as columns: they are
    labelled as the gap, not its first component, and take no LaTeX slot when empty."""
    from winoscope.report.compare import tidy_table
    from winoscope.report.compare_tables import column_label

    rd = tmp_path / "half"
    shutil.copytree(runs / "agreement", rd)
    m = pd.read_csv(rd / "metrics.csv")
    m = m[(m["split"] != "macro") | (m["metric"] == "anti_accuracy")]
    m.loc[m["metric"] != "anti_accuracy", ["value", "ci_low", "ci_high"]] = float("nan")
    m.to_csv(rd / "metrics.csv", index=False)
    tidy = tidy_table([load_run_dir(runs / "agreement"), load_run_dir(rd)])
    header = markdown_tables(tidy).splitlines()
    header = next(ln for ln in header if ln.startswith("| model |"))
    assert "pro − anti accuracy (test/type2)" in header and "pro accuracy type2" not in header
    assert column_label("accuracy_gap (hon-han)") == "accuracy hon − han"
    tex = latex_tables(tidy)
    assert "type1" not in tex and "type2" not in tex  # empty in every row: no slot
    assert "(pro +\\\\{}anti) / 2" in tex and "pro\\\\{}accuracy\\end" in tex


def test_a_baseline_never_differs_in_prompt(runs: Path, tmp_path: Path) -> None:
    """Baselines answer from the items: another prompt template is no difference there."""
    other = PromptTemplate(name=UK_DEFAULT.name, text=UK_DEFAULT.text + "\n")
    run("winobias-uk", "baseline:random", out=tmp_path / "edited", template=other, n_boot=50)
    cmp = compare_runs([runs / "stereotype", tmp_path / "edited"], tmp_path / "cmp")
    assert cmp.flags == []


def test_different_prompts_are_flagged(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from tiny_lm import build_tiny_gpt2

    model = build_tiny_gpt2(tmp_path / "tiny", seed=1)
    other = PromptTemplate(name=UK_DEFAULT.name, text=UK_DEFAULT.text + "\n")  # same name, new text
    run("winobias-uk", f"hf:{model}", out=tmp_path / "plain", n_boot=50)
    run("winobias-uk", f"hf:{model}", out=tmp_path / "edited", template=other, n_boot=50)
    cmp = compare_runs([tmp_path / "plain", tmp_path / "edited"], tmp_path / "cmp")
    assert len(cmp.flags) == 1 and "different prompt templates" in cmp.flags[0]
    assert "edited" in cmp.flags[0] and "plain" in cmp.flags[0]
    csv = pd.read_csv(tmp_path / "cmp" / "compare.csv")
    assert csv["flagged"].all()
    assert csv.groupby("model")["prompt"].nunique().eq(1).all() and csv["prompt"].nunique() == 2
    md = (tmp_path / "cmp" / "compare.md").read_text(encoding="utf-8")
    assert "(edited) † |" in md and "Not directly comparable" in md
    assert "$^\\dagger$" in (tmp_path / "cmp" / "compare.tex").read_text(encoding="utf-8")
    html = (tmp_path / "cmp" / "compare.html").read_text(encoding="utf-8")
    assert 'id="flags"' in html and "different prompt templates" in html


def test_different_dataset_versions_are_flagged(runs: Path, tmp_path: Path) -> None:
    moved = tmp_path / "other-data"
    shutil.copytree(runs / "first", moved)
    manifest = json.loads((moved / "manifest.json").read_text(encoding="utf-8"))
    manifest["dataset"]["source"]["sha256"] = "0" * 64
    (moved / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    cmp = compare_runs([runs / "first", moved], tmp_path / "cmp")
    assert len(cmp.flags) == 1 and "different dataset versions" in cmp.flags[0]
    assert cmp.flags[0].startswith("winobias-uk: runs use different dataset versions (sha256:")
    # same model twice: told apart by run directory, never merged
    assert set(cmp.tidy["model"]) == {"baseline:first (first)", "baseline:first (other-data)"}


def test_hub_revision_identifies_the_data(runs: Path, tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    for path, rev in ((a, "abc123"), (b, "def456")):
        shutil.copytree(runs / "first", path)
        manifest = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
        manifest["dataset"]["source"] = {"kind": "hub", "location": "x/y", "revision": rev}
        (path / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    assert load_run_dir(a).dataset_key == "revision:abc123"
    assert "different dataset versions" in compare_runs([a, b], tmp_path / "cmp").flags[0]


def test_globs_and_folders_expand(runs: Path) -> None:
    assert [p.name for p in expand_run_paths([str(runs / "*")])] == [
        "agreement",
        "first",
        "stereotype",
    ]
    assert [p.name for p in expand_run_paths([runs])] == ["agreement", "first", "stereotype"]
    assert len(expand_run_paths([runs / "first", str(runs / "f*")])) == 1
    with pytest.raises(DatasetError, match="no run directory matches"):
        expand_run_paths([str(runs / "nothing*")])


def test_broken_metrics_file_names_file_row_and_field(runs: Path, tmp_path: Path) -> None:
    rd = tmp_path / "broken"
    shutil.copytree(runs / "first", rd)
    lines = (rd / "metrics.csv").read_text(encoding="utf-8").splitlines()
    parts = lines[3].split(",")
    parts[3] = "high"
    lines[3] = ",".join(parts)
    (rd / "metrics.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DatasetError) as err:
        load_run_dir(rd)
    assert (err.value.file, err.value.row, err.value.field) == (str(rd / "metrics.csv"), 3, "value")
    res = CliRunner().invoke(app, ["compare", str(rd), "--out", str(tmp_path / "cmp")])
    assert res.exit_code == 2
    assert "row 3" in res.output and "field 'value'" in res.output and "Traceback" not in res.output


def test_missing_manifest_is_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    res = CliRunner().invoke(app, ["show", str(tmp_path / "empty")])
    assert res.exit_code == 2
    assert "manifest.json is missing" in res.output


def test_cli_compare_and_show(runs: Path, tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["compare", str(runs / "*"), "--out", str(tmp_path / "cmp")])
    assert res.exit_code == 0, res.output
    assert "compared 3 runs" in res.output
    assert (tmp_path / "cmp" / "compare.html").exists()

    res = CliRunner().invoke(app, ["show", str(runs / "stereotype")])
    assert res.exit_code == 0, res.output
    metrics = pd.read_csv(runs / "stereotype" / "metrics.csv")
    macro = metrics[metrics["split"] == "macro"]
    for r in macro.itertuples(index=False):
        assert r.metric in res.output
    gap = macro[macro["metric"] == "signed_bias_gap"].iloc[0]
    assert f"[{gap.ci_low:.3f}, {gap.ci_high:.3f}]" in res.output
    assert "76 rows" in res.output and "0 request errors" in res.output
    # headline first: the signed gap is the first metric row
    first = next(ln for ln in res.output.splitlines() if "_" in ln and "│" in ln)
    assert "signed_bias_gap" in first


def test_forest_plot_has_a_panel_per_task_and_a_row_per_model(runs: Path, tmp_path: Path) -> None:
    from winoscope.report.compare import forest_figure, tidy_table

    run("winopron-uk", "baseline:first", out=tmp_path / "wp", n_boot=50)
    rds = [
        load_run_dir(runs / "stereotype"),
        load_run_dir(runs / "first"),
        load_run_dir(tmp_path / "wp"),
    ]
    fig = forest_figure(tidy_table(rds)).figure
    titles = [ax.get_title(loc="left") for ax in fig.axes]
    assert titles == ["winobias-uk: pro − anti accuracy", "winopron-uk: female − male accuracy"]
    ticks = [[t.get_text() for t in ax.get_yticklabels()] for ax in fig.axes]
    assert ticks == [["baseline:stereotype", "baseline:first"], ["baseline:first"]]
    # the stereotype baseline's gap (1.0) is drawn where it is
    xs = [line.get_xdata()[0] for line in fig.axes[0].lines if len(line.get_xdata()) == 1]
    assert 1.0 in xs


def test_show_strata_lists_every_stratum(runs: Path) -> None:
    res = CliRunner().invoke(
        app, ["show", str(runs / "stereotype"), "--strata"], env={"COLUMNS": "200"}
    )
    assert res.exit_code == 0, res.output
    metrics = pd.read_csv(runs / "stereotype" / "metrics.csv")
    for split, typ in metrics[["split", "type"]].drop_duplicates().itertuples(index=False):
        assert ("macro avg" if split == "macro" else f"{split}/{typ}") in res.output
    r = metrics[(metrics["metric"] == "pair_consistency") & (metrics["split"] == "test")].iloc[0]
    assert f"{r.value:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}]" in res.output


def test_a_gap_by_stratum_in_two_splits_keeps_a_column_per_split() -> None:
    """A run without macro rows whose gap is reported in two splits: each split's type1 gap is
    its own column (one column per type let the later split's value silently win)."""
    from winoscope.report.compare_tables import column_label, macro_rows

    rows = [
        ("signed_bias_gap", split, "type1", value)
        for split, value in (("validation", 0.25), ("test", -0.5))
    ] + [("pro_accuracy", "all", "all", 0.6)]
    tidy = pd.DataFrame(
        [
            {"task": "winobias-uk", "model": "m", "run": "r", "metric": m, "split": s,
             "type": t, "value": v, "ci_low": v, "ci_high": v, "n": 10}
            for m, s, t, v in rows
        ]
    )  # fmt: skip
    macro = macro_rows(tidy)
    gaps = macro[macro["metric"] == "signed_bias_gap"].set_index("column")["value"].to_dict()
    assert gaps == {
        "signed_bias_gap (validation/type1)": 0.25,
        "signed_bias_gap (test/type1)": -0.5,
    }
    assert column_label("signed_bias_gap (test/type1)").endswith("(test/type1)")
