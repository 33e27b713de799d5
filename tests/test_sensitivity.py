"""Prompt sensitivity: runs over several named templates and the two-level bootstrap.

The spread (min, max, sd) is recomputed from the template runs' own metrics.csv files and the
two-level interval by an independent resampling written here (the scorer's item draws redone
from the seed, then the template draws), on a real tiny GPT-2 whose answers depend on the
prompt. baseline:random answers the same whatever the prompt, so its spread is 0 and its
two-level interval is its item interval.
"""

from __future__ import annotations

import statistics
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from tiny_lm import build_tiny_gpt2
from winoscope import prompt_templates as reg
from winoscope.cli import app
from winoscope.errors import TaskError
from winoscope.runs.runner import run
from winoscope.scoring.across_prompts import TEMPLATE_STREAM, two_level_interval
from winoscope.studies.sensitivity import run_templates
from winoscope.tasks import TASKS

UK3 = ["uk-default-v1", "uk-plain-v1", "uk-question-v1"]

N_BOOT = 300


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    return build_tiny_gpt2(tmp_path_factory.mktemp("tiny-templates") / "model", seed=1)


def test_two_level_interval_hand_worked() -> None:
    # two templates, two replicates; template 2 undefined in replicate 2
    reps = np.array([[0.2, 0.4], [0.6, np.nan]])
    counts = np.array([[2, 0], [1, 1]])
    # replicate 1: template 1 drawn twice -> 0.2; replicate 2: only template 1 defined -> 0.4
    lo, hi = two_level_interval(reps, counts)
    assert lo == pytest.approx(0.2 + 0.025 * 0.2) and hi == pytest.approx(0.2 + 0.975 * 0.2)
    same = np.array([[0.1, 0.3, 0.5], [0.1, 0.3, 0.5]])
    lo, hi = two_level_interval(same, np.array([[2, 0], [0, 2], [1, 1]]))
    assert (lo, hi) == pytest.approx(tuple(np.quantile([0.1, 0.3, 0.5], [0.025, 0.975])))


def test_prompt_independent_baseline_has_no_spread() -> None:
    res = run_templates("winobias-uk", "baseline:random", UK3, n_boot=N_BOOT)
    single = run("winobias-uk", "baseline:random", template="uk-plain-v1", n_boot=N_BOOT)
    macro = single.metrics[single.metrics["split"] == "macro"].set_index("metric")
    summary = res.to_frame().set_index("metric")
    assert list(summary.index) == list(dict.fromkeys(summary.index))
    for metric, row in summary.iterrows():
        assert row["sd"] == 0.0 and row["min"] == row["max"] == row["mean"]
        assert row["mean"] == pytest.approx(macro.loc[metric, "value"])
        # every template gives the same replicates: the two-level interval is the item interval
        assert row["ci_low"] == pytest.approx(macro.loc[metric, "ci_low"])
        assert row["ci_high"] == pytest.approx(macro.loc[metric, "ci_high"])
    man = res.manifest
    assert [t["name"] for t in man["prompt_templates"]] == UK3
    assert man["bootstrap"]["items_resampled_jointly"] is True
    assert [r.manifest["prompt_template"]["name"] for r in res.runs] == UK3


def independent_overall_accuracy(predictions: pd.DataFrame, seed: int, n_boot: int) -> np.ndarray:
    """Macro overall accuracy on ``n_boot`` item resamples, drawn as the scorer is documented
    to draw them: one multinomial per (split, type) stratum in sorted order, over its source
    items in sorted order, from one default_rng(seed)."""
    rng = np.random.default_rng(seed)
    rows = predictions[predictions["prediction_role"].notna()].copy()
    rows["correct"] = (rows["prediction_role"] == rows["coreference_role"]).astype(float)
    for col in ("split", "type", "score_group", "condition"):  # sorted as text, not categories
        rows[col] = rows[col].astype(str)
    per_stratum = []
    for (_split, _typ), sub in rows.groupby(["split", "type"], sort=True):
        primary = sub["score_group"] == "primary_balanced"
        sub = sub.assign(
            pro_n=(primary & (sub["condition"] == "pro")).astype(float),
            anti_n=(primary & (sub["condition"] == "anti")).astype(float),
        )
        sub = sub.assign(pro_k=sub["pro_n"] * sub["correct"], anti_k=sub["anti_n"] * sub["correct"])
        items = sub.groupby(["split", "type", "item_number"], sort=True)[
            ["pro_n", "pro_k", "anti_n", "anti_k"]
        ].sum()
        n = len(items)
        w = rng.multinomial(n, np.full(n, 1.0 / n), size=n_boot).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            pro = (w @ items["pro_k"].to_numpy()) / (w @ items["pro_n"].to_numpy())
            anti = (w @ items["anti_k"].to_numpy()) / (w @ items["anti_n"].to_numpy())
        per_stratum.append((pro + anti) / 2)
    with warnings.catch_warnings():  # a stratum without pro or anti rows is NaN
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(np.vstack(per_stratum), axis=0)


def test_tiny_model_spread_and_two_level_interval(tiny_dir: Path, tmp_path: Path) -> None:
    seed = 3
    res = run_templates(
        "winobias-uk",
        f"hf:{tiny_dir}",
        UK3,
        out=tmp_path,
        n_boot=N_BOOT,
        seed=seed,
        backend_options={"mode": "texts"},
    )
    # per template: the run directories' own metrics.csv, macro rows
    per = {
        name: pd.read_csv(tmp_path / name / "metrics.csv")
        .query("split == 'macro'")
        .set_index("metric")
        for name in UK3
    }
    table = pd.read_csv(tmp_path / "template_metrics.csv")
    assert sorted(set(table["template"])) == sorted(UK3)
    summary = pd.read_csv(tmp_path / "template_summary.csv").set_index("metric")
    spread = 0
    for metric in ("overall_accuracy", "signed_bias_gap", "anti_accuracy", "pair_consistency"):
        values = [float(per[name].loc[metric, "value"]) for name in UK3]
        row = summary.loc[metric]
        assert row["mean"] == pytest.approx(sum(values) / 3)
        assert row["min"] == pytest.approx(min(values)) and row["max"] == pytest.approx(max(values))
        assert row["sd"] == pytest.approx(statistics.stdev(values))
        assert row["min_template"] == UK3[values.index(min(values))]
        spread += statistics.stdev(values) > 0
    assert spread >= 1  # the prompt changes this model's answers
    # two-level interval of overall accuracy, resampled independently here
    reps = np.vstack([independent_overall_accuracy(r.predictions, seed, N_BOOT) for r in res.runs])
    for name, r in zip(UK3, reps, strict=True):  # the item level reproduces each run's CI
        lo, hi = np.quantile(r[~np.isnan(r)], [0.025, 0.975])
        assert (lo, hi) == pytest.approx(
            (
                per[name].loc["overall_accuracy", "ci_low"],
                per[name].loc["overall_accuracy", "ci_high"],
            )
        )
    rng = np.random.default_rng([seed, TEMPLATE_STREAM])
    counts = rng.multinomial(3, [1 / 3] * 3, size=N_BOOT)
    means = (counts * reps.T).sum(axis=1) / counts.sum(axis=1)
    lo, hi = np.quantile(means, [0.025, 0.975])
    row = summary.loc["overall_accuracy"]
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((lo, hi))
    assert row["ci_low"] <= row["mean"] <= row["ci_high"]
    # the report: small multiples, one row per template, linked runs
    assert (tmp_path / "plots" / "template_metrics.png").stat().st_size > 5000
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "data:image/png;base64," in html
    for name in UK3:
        assert f'href="{name}/report.html"' in html
    md = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "| overall_accuracy |" in md

    # resume: every template's answers come from the shared store; a new template is asked
    again = run_templates(
        "winobias-uk",
        f"hf:{tiny_dir}",
        [*UK3, "winopron-uk-v1"],
        store=tmp_path / "responses.sqlite",
        n_boot=N_BOOT,
        seed=seed,
        backend_options={"mode": "texts"},
    )
    by_name = {r["template"]: r["responses"] for r in again.manifest["runs"]}
    for name in UK3:
        assert by_name[name]["asked"] == 0 and by_name[name]["cached"] == 152
    assert by_name["winopron-uk-v1"]["asked"] == 152
    assert list((tmp_path).glob("*.sqlite")) == [tmp_path / "responses.sqlite"]
    old = res.per_template.set_index(["template", "metric", "split", "type"])["value"]
    new = again.per_template.set_index(["template", "metric", "split", "type"])["value"]
    pd.testing.assert_series_equal(old, new.loc[old.index])


def test_cli_repeated_template_and_directory(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "two"
    done = runner.invoke(
        app,
        [
            "run",
            "winobias-uk",
            "-m",
            "baseline:agreement",
            "--template",
            "uk-default-v1",
            "--template",
            "uk-question-v1",
            "--out",
            str(out),
            "--bootstrap",
            "50",
            "-q",
        ],
    )
    assert done.exit_code == 0, done.output
    assert "2 templates" in done.output and "overall_accuracy" in done.output
    assert (out / "uk-question-v1" / "report.html").is_file()
    done = runner.invoke(
        app, ["run", "winobias-uk", "-m", "baseline:agreement", "--template", "uk-plan-v1"]
    )
    assert done.exit_code == 2 and "uk-plain-v1" in done.output


def test_a_limited_run_says_so() -> None:
    res = run_templates("winobias-uk", "baseline:agreement", UK3[:2], n_boot=20, limit=1)
    assert res.manifest["partial"]["limit"] == 1
    assert res.notes[0].startswith("Partial run (--limit 1)")
    assert res.manifest["outcome"]["requests"] == 2 * res.manifest["partial"]["requests"]


def test_templates_directory_and_builtin(tmp_path: Path) -> None:
    d = tmp_path / "tmpl"
    d.mkdir()
    for i, name in enumerate(UK3[:2]):
        (d / f"t{i}.txt").write_text(reg.get(name).template.text, encoding="utf-8")
    (d / "notes.md").write_text("not a template", encoding="utf-8")
    values, many = reg.cli_templates(None, str(d))
    assert many and [Path(v).name for v in values] == ["t0.txt", "t1.txt"]
    res = run_templates("winobias-uk", "baseline:agreement", values, n_boot=20)
    assert [t["name"] for t in res.manifest["prompt_templates"]] == ["t0.txt", "t1.txt"]
    assert [t.text for t in res.templates] == [reg.get(n).template.text for n in UK3[:2]]
    assert reg.cli_templates(["uk-plain-v1"], None) == (["uk-plain-v1"], False)
    assert reg.cli_templates(None, "builtin") == (["builtin"], True)
    with pytest.raises(TaskError, match="no template files"):
        reg.cli_templates(None, str(tmp_path / "tmpl" / ".."))
    res = run_templates("swewinogender", "baseline:random", None, n_boot=20)  # NLI built-ins
    assert [t.name for t in res.templates] == reg.names("sv", "nli")
    assert set(res.summary["split"]) == {"all"} and (res.summary["sd"] == 0).all()


def test_cloze_mode_asks_the_cloze_templates(tiny_dir: Path) -> None:
    res = run_templates(
        "winobias-uk", f"hf:{tiny_dir}", None, n_boot=20, backend_options={"mode": "cloze"}
    )
    assert [t.name for t in res.templates] == reg.names("uk", "cloze")
    assert [r.manifest["protocol"] for r in res.runs] == ["cloze"] * 3
    assert [r.manifest["prompt_template"]["name"] for r in res.runs] == reg.names("uk", "cloze")
    assert (
        res.manifest["prompt_templates"][0]["text"]
        == TASKS.get("winobias-uk").protocols["cloze"].template.text
    )
    with pytest.raises(TaskError, match="is a choice template"):
        run_templates(
            "winobias-uk", f"hf:{tiny_dir}", UK3, n_boot=20, backend_options={"mode": "cloze"}
        )


def test_a_sensitivity_run_does_not_replace_another_runs_report(tmp_path: Path) -> None:
    """A single run's folder, or a prompt-sensitivity run of another model, is refused (exit
    2) with both runs' files intact; the same run resumes; --overwrite replaces the single run
    without leaving its manifest beside the new report."""
    cli = CliRunner()
    common = ["run", "winobias-uk", "--bootstrap", "20", "-q"]
    two = ["--template", "uk-plain-v1", "--template", "uk-question-v1"]
    single = tmp_path / "single"
    assert cli.invoke(app, [*common, "-m", "baseline:first", "--out", str(single)]).exit_code == 0
    report = (single / "report.md").read_text(encoding="utf-8")
    got = cli.invoke(app, [*common, "-m", "baseline:first", "--out", str(single), *two])
    assert got.exit_code == 2, got.output
    assert "holds a single run of winobias-uk" in got.output
    assert (single / "report.md").read_text(encoding="utf-8") == report
    assert not (single / "sensitivity.json").exists()

    many = tmp_path / "many"
    assert (
        cli.invoke(app, [*common, "-m", "baseline:first", "--out", str(many), *two]).exit_code == 0
    )
    summary = (many / "template_summary.csv").read_bytes()
    again = cli.invoke(app, [*common, "-m", "baseline:first", "--out", str(many), *two])
    assert again.exit_code == 0, again.output
    other = cli.invoke(app, [*common, "-m", "baseline:random", "--out", str(many), *two])
    assert other.exit_code == 2, other.output
    assert "prompt-sensitivity run of winobias-uk with baseline:first" in other.output
    assert (many / "template_summary.csv").read_bytes() == summary

    args = [*common, "-m", "baseline:first", "--out", str(single), *two, "--overwrite"]
    assert cli.invoke(app, args).exit_code == 0
    assert (single / "sensitivity.json").exists()
    assert not (single / "manifest.json").exists() and not (single / "metrics.csv").exists()
