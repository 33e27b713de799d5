"""``winoscope.sweep`` and ``winoscope sweep``: a steering hook swept over its strength on the
tiny model, paired differences to the reference checked against the runs' own metrics and a
Holm adjustment written here, the figure in three formats, resuming point by point, utility
from a second task or a CSV, and the command line over baselines and checkpoint folders."""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import winoscope
from winoscope.cli import app
from winoscope.errors import DatasetError, TaskError

GAP = "signed_bias_gap"


def holm(p: list[float]) -> list[float]:
    """Holm's step-down adjustment, written out for the test."""
    order = sorted(range(len(p)), key=lambda i: p[i])
    out = [0.0] * len(p)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[i]))
        out[i] = running
    return out


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    torch = pytest.importorskip("torch")
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from tiny_lm import build_tiny_gpt2

    torch.set_num_threads(1)
    path = build_tiny_gpt2(tmp_path_factory.mktemp("tiny-sweep") / "model", seed=1)
    return AutoModelForCausalLM.from_pretrained(path), AutoTokenizer.from_pretrained(path)


def steering(tiny, fail_at=None):  # type: ignore[no-untyped-def]
    from steering import AddVector, gender_direction

    model, tok = tiny
    direction = gender_direction(model, tok)

    @contextlib.contextmanager
    def steered(alpha: float) -> Iterator[object]:
        if alpha == fail_at:
            raise RuntimeError("stopped")
        handle = model.transformer.ln_f.register_forward_hook(AddVector(direction, alpha))
        try:
            yield winoscope.hf_model(model, tok, mode="texts", label="tiny-steer")
        finally:
            handle.remove()

    return steered


def macro(run_dir: Path, metric: str) -> pd.Series:
    m = pd.read_csv(run_dir / "metrics.csv")
    return m[(m["split"] == "macro") & (m["metric"] == metric)].iloc[0]


def test_a_steering_sweep_compares_every_strength_with_the_base(tiny, tmp_path):
    out = tmp_path / "sweep"
    s = winoscope.sweep(
        "winobias-uk",
        steering(tiny),
        values=[10, 0, 2],
        key="alpha",
        reference=0,
        tags={"method": "steer"},
        out=out,
        n_boot=300,
    )
    assert s.points == [0, 2, 10] and s.reference == 0  # numeric order, not as given
    model, _ = tiny
    assert not model.transformer.ln_f._forward_hooks  # every hook removed after its point
    dirs = {v: out / "winobias-uk" / f"alpha={v}" for v in (0, 2, 10)}
    for v, d in dirs.items():
        manifest = json.loads((d / "manifest.json").read_text())
        assert manifest["tags"] == {"alpha": v, "method": "steer"}
        assert manifest["model"]["params"]["hooks"][0]["callable"] == "steering.AddVector"
    assert float(macro(dirs[0], GAP)["value"]) == pytest.approx(0.125)
    assert float(macro(dirs[2], GAP)["value"]) == pytest.approx(0.0)
    table = s.table
    for v in (2, 10):
        for metric in ("pro_accuracy", "anti_accuracy", "overall_accuracy", GAP):
            row = table[
                (table["point"] == v)
                & (table["metric"] == metric)
                & (table["measure"] == "point - reference")
            ].iloc[0]
            expected = float(macro(dirs[v], metric)["value"]) - float(
                macro(dirs[0], metric)["value"]
            )
            assert row["diff"] == pytest.approx(
                expected, abs=1e-12
            )  # point - reference, not reverse
            assert row["diff_low"] <= row["diff"] <= row["diff_high"]
    for (metric, measure), g in table[~table["reference"]].groupby(["metric", "measure"]):
        assert list(g["p_holm"]) == pytest.approx(holm(list(g["p_boot"]))), (metric, measure)
    # the gap's size is its declared twin (absolute_bias_gap): one row per quantity
    assert not (table["measure"] == "|point| - |reference|").any()
    size = table[(table["metric"] == "absolute_bias_gap") & ~table["reference"]]
    assert list(size["point"]) == [2, 10] and list(size["diff"]) == pytest.approx([-0.125, -0.125])
    for name in ("sweep.csv", "utility.csv", "sweep.md", "sweep.tex", "sweep.html", "sweep.json"):
        assert (out / name).is_file(), name
    stem = out / "plots" / "sweep_winobias-uk"
    assert stem.with_suffix(".pdf").read_bytes()[:5] == b"%PDF-"
    svg = stem.with_suffix(".svg").read_text()
    assert "<text" in svg and "bias gap" in svg  # text kept as text, not outlines
    assert stem.with_suffix(".png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = (out / "sweep.html").read_text()
    for v in (0, 2, 10):
        assert f'href="winobias-uk/alpha={v}/report.html"' in page
    md = (out / "sweep.md").read_text()
    assert md.index("| 2 |") < md.index("| 10 |")
    assert list(s.utility["utility"]) == [
        float(macro(dirs[v], "overall_accuracy")["value"]) for v in (0, 2, 10)
    ]
    assert len(repr(s)) < 300
    assert s._repr_html_().count("<tr>") == len(s.table) + 1


def test_a_stopped_sweep_resumes_point_by_point(tiny, tmp_path):
    out = tmp_path / "sweep"
    with pytest.raises(RuntimeError, match="stopped"):
        winoscope.sweep(
            "winobias-uk", steering(tiny, fail_at=5), values=[0, 2, 5], out=out, n_boot=50
        )
    done = {
        v: json.loads((out / "winobias-uk" / f"alpha={v}" / "manifest.json").read_text())
        for v in (0, 2)
    }
    assert not (out / "winobias-uk" / "alpha=5").exists()
    winoscope.sweep("winobias-uk", steering(tiny), values=[0, 2, 5], out=out, n_boot=50)
    for v in (0, 2):
        again = json.loads((out / "winobias-uk" / f"alpha={v}" / "manifest.json").read_text())
        n = done[v]["requests"]
        assert (again["responses"]["cached"], again["responses"]["asked"]) == (n, 0)
    last = json.loads((out / "winobias-uk" / "alpha=5" / "manifest.json").read_text())
    assert last["responses"]["cached"] == 0


def test_utility_from_a_second_task_or_from_a_csv(tmp_path):
    points = {"0": "baseline:first", "1": "baseline:stereotype"}
    s = winoscope.sweep(
        "winobias-uk", points, key="step", utility="winopron-uk", out=tmp_path / "a", n_boot=50
    )
    assert s.tasks == ["winobias-uk"] and set(s.utility["task"]) == {"winopron-uk"}
    # WinoPron has no overall score: its first headline score is the utility, and says so
    assert s.utility_source == "winopron-uk double_accuracy"
    for v in (0, 1):
        run_dir = tmp_path / "a" / "winopron-uk" / f"step={v}"
        assert (run_dir / "report.html").is_file()
        expected = float(macro(run_dir, "double_accuracy")["value"])
        assert float(s.utility[s.utility["point"] == v]["utility"].iloc[0]) == expected
    csv = tmp_path / "utility.csv"
    csv.write_text("point,utility\n0,0.61\n1,0.58\n")
    s = winoscope.sweep(
        "winobias-uk", points, key="step", utility=csv, out=tmp_path / "b", n_boot=50
    )
    assert list(s.utility["utility"]) == [0.61, 0.58] and s.utility_source == str(csv)
    assert "0.610" in (tmp_path / "b" / "sweep.md").read_text()
    csv.write_text("point,utility\n0,high\n1,0.58\n")
    with pytest.raises(DatasetError, match="row 2") as err:
        winoscope.sweep("winobias-uk", points, key="step", utility=csv, out=tmp_path / "c")
    assert err.value.field == "utility"
    csv.write_text("point,utility\n0,0.6\n")
    with pytest.raises(TaskError, match="no value for point '1'"):
        winoscope.sweep("winobias-uk", points, key="step", utility=csv, out=tmp_path / "d")


def test_bad_sweeps_are_clear_errors(tmp_path):
    with pytest.raises(TaskError, match="reference 7 is not one of the points"):
        winoscope.sweep("winobias-uk", {0: "baseline:first"}, reference=7, out=tmp_path)
    with pytest.raises(TaskError, match="needs values="):
        winoscope.sweep("winobias-uk", lambda v: "baseline:first", out=tmp_path)
    with pytest.raises(TaskError, match="share a value"):
        winoscope.sweep("winobias-uk", {2: "baseline:first", "2": "baseline:first"}, out=tmp_path)
    with pytest.raises(TaskError, match="leave it out of tags"):
        winoscope.sweep("winobias-uk", {0: "baseline:first"}, tags={"alpha": 1}, out=tmp_path)


def test_a_config_and_its_settings_given_twice_are_refused(tmp_path):
    """``config=`` gives every point's settings: ``n_boot``, ``seed`` or a run option given
    beside it is refused by name, not silently overruled; the config's own are used."""
    from winoscope.runs.config import RunConfig

    config = RunConfig("winobias-uk", "baseline:first", n_boot=30, seed=5, quiet=True)
    points = {0: "baseline:first", 1: "baseline:random"}
    for extra, named in (
        ({"n_boot": 100}, "n_boot"),
        ({"seed": 1}, "seed"),
        ({"limit": 1}, "limit"),
    ):
        with pytest.raises(TaskError, match=f"sweep: {named} given beside config="):
            winoscope.sweep("winobias-uk", points, out=tmp_path / "x", config=config, **extra)
    result = winoscope.sweep("winobias-uk", points, out=tmp_path / "ok", config=config)
    manifest = result.runs[("winobias-uk", 1)].manifest
    assert (manifest["bootstrap"]["replicates"], manifest["seed"]) == (30, 5)


def test_the_command_line_sweeps_specs_and_checkpoint_folders(tmp_path):
    runner = CliRunner()
    out = tmp_path / "cli"
    result = runner.invoke(
        app,
        [
            "sweep",
            "winobias-uk",
            "--key",
            "alpha",
            "-p",
            "10=baseline:stereotype",
            "-p",
            "2=baseline:first",
            "-p",
            "0=baseline:agreement",
            "--reference",
            "0",
            "--tag",
            "method=none",
            "--out",
            str(out),
            "--bootstrap",
            "50",
            "-q",
        ],
    )
    assert result.exit_code == 0, result.output
    meta = json.loads((out / "sweep.json").read_text())
    assert meta["points"] == [0, 2, 10] and meta["reference"] == 0
    tidy = pd.read_csv(out / "sweep.csv")
    assert set(tidy["point"]) == {0, 2, 10}
    gap0 = float(macro(out / "winobias-uk" / "alpha=0", GAP)["value"])
    gap10 = float(macro(out / "winobias-uk" / "alpha=10", GAP)["value"])
    row = tidy[
        (tidy["point"] == 10) & (tidy["metric"] == GAP) & (tidy["measure"] == "point - reference")
    ].iloc[0]
    assert math.isclose(row["diff"], gap10 - gap0, abs_tol=1e-12)
    bad = runner.invoke(app, ["sweep", "winobias-uk", "-p", "0baseline:first", "--out", str(out)])
    assert bad.exit_code == 2 and "expected VALUE=KIND:NAME" in bad.output
    none = runner.invoke(app, ["sweep", "winobias-uk", "--checkpoints", str(tmp_path / "no")])
    assert none.exit_code == 2 and "no such directory" in none.output


def test_checkpoint_folders_become_points_in_numeric_order(tmp_path):
    pytest.importorskip("torch")
    from tiny_lm import build_tiny_gpt2

    folder = tmp_path / "train"
    for step, seed in ((100, 1), (20, 2)):
        build_tiny_gpt2(folder / f"checkpoint-{step}", seed=seed)
    (folder / "runs").mkdir()  # a trainer's other folders are not points
    out = tmp_path / "sweep"
    result = CliRunner().invoke(
        app,
        [
            "sweep",
            "winobias-uk",
            "--checkpoints",
            str(folder),
            "--out",
            str(out),
            "--bootstrap",
            "20",
            "-q",
            "-M",
            "mode=texts",
            "--limit",
            "1",
        ],
    )
    assert result.exit_code == 0, result.output
    meta = json.loads((out / "sweep.json").read_text())
    assert meta["key"] == "checkpoint" and meta["points"] == [20, 100]
    manifest = json.loads((out / "winobias-uk" / "checkpoint=20" / "manifest.json").read_text())
    assert manifest["model"]["spec"] == f"hf:{folder / 'checkpoint-20'}"
    assert manifest["tags"] == {"checkpoint": 20}
