"""``winoscope fairness-board``: the Ukrainian fairness leaderboard's file, read back by a checker
written from the leaderboard loader's rules (``fairness.py`` of lang-uk/ukrainian-llm-leaderboard:
a goal of maximize/minimize/target, a target for the last, finite values it rounds to two
decimals, the ranking metric in every score set, a benchmark once per file, a model once over
files), with the tab's own benchmark and metric names; and every refusal, one line each."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

import json
import math
import shutil
from pathlib import Path

import pandas as pd
from typer.testing import CliRunner

import winoscope
from tiny_lm import build_tiny_gpt2
from winoscope.cli.app import app
from winoscope.datasets import releases
from winoscope.datasets.releases import Release, ReleaseFile
from winoscope.datasets.sources import file_sha256
from winoscope.families.winobias import board

METHOD = "counterbalanced_ab_mean_token_logprob_v1"
# the tab's names (FAIRNESS_BENCHMARK_METRICS in the leaderboard's fairness.py)
TAB = {
    "WinoBias-UK Natural": {
        "Worst-group accuracy ↑",
        "Primary accuracy ↑",
        "Pro/anti gap → 0",
        "Pair consistency ↑",
        "Agreement control ↑",
        "Cross control ↑",
        "Tie rate → 0",
    },
    "WinoPron-UK": {
        "Double accuracy ↑",
        "Single accuracy ↑",
        "Gender accuracy gap → 0",
        "Gender-form consistency ↑",
        "Option-order consistency ↑",
        "Tie rate → 0",
    },
}
runner = CliRunner()


def check_board_files(paths: list[Path]) -> dict[str, dict[str, float]]:
    """The loader's rules; returns benchmark -> rounded scores of the last file."""
    models: list[str] = []
    out: dict[str, dict[str, float]] = {}
    for path in paths:
        payload = json.loads(path.read_text(encoding="utf-8"))
        models.append(payload["model"]["name"])
        assert isinstance(payload["model"].get("revision"), str)
        names = set()
        for b in payload["benchmarks"]:
            assert b["name"] not in names
            names.add(b["name"])
            ranking = b["ranking"]
            assert ranking["goal"] in {"maximize", "minimize", "target"}
            if ranking["goal"] == "target":
                float(ranking["target"])
            scores = {}
            for metric, value in b["scores"].items():
                assert math.isfinite(float(value))
                scores[metric] = round(float(value), 2)
            assert ranking["metric"] in scores
            for bt in b.get("bias_types", []):
                int(bt["items"])
                assert ranking["metric"] in bt["scores"]
                assert all(math.isfinite(float(v)) for v in bt["scores"].values())
            if b["name"] in TAB:
                assert set(scores) <= TAB[b["name"]] and ranking["metric"] in TAB[b["name"]]
            out[b["name"]] = scores
    assert len(models) == len(set(models))
    return out


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("board")
    model = build_tiny_gpt2(root / "model", seed=2)
    sample = board_sample()
    copy = root / "copy.csv"
    text = sample.read_text(encoding="utf-8")
    copy.write_text(text.replace("\n", "\r\n", 1), encoding="utf-8")  # same rows, other bytes
    runs = {
        "sample": dict(),
        "copied": dict(data=copy),
        "letters": dict(protocol="forced_choice"),
        "limit": dict(limit=1),
    }
    out = {"model": model, "copy": copy}
    for name, extra in runs.items():
        kw = {"protocol": METHOD, **extra}
        winoscope.run("winobias-uk", f"hf:{model}", n_boot=20, out=root / name, **kw)
        out[name] = root / name
    return out


def board_sample() -> Path:
    from winoscope.families.winobias.dataset import UK

    return Path(UK.columns.sample_paths()["table"])


def invoke(*args: str) -> tuple[int, str]:
    r = runner.invoke(app, ["fairness-board", *args])
    return r.exit_code, r.output


def test_a_sample_run_is_refused_then_written_and_marked_when_allowed(
    made: dict[str, Path], tmp_path: Path
) -> None:
    code, text = invoke(str(made["sample"]), "--out", str(tmp_path / "m.json"), "--revision", "r1")
    assert code == 2 and "bundled sample" in text and "--allow-partial" in text
    assert not (tmp_path / "m.json").exists()
    code, text = invoke(
        str(made["sample"]),
        "--out",
        str(tmp_path / "m.json"),
        "--revision",
        "r1",
        "--allow-partial",
    )
    assert code == 0, text
    payload = json.loads((tmp_path / "m.json").read_text(encoding="utf-8"))
    assert payload["winoscope"]["not_for_publication"]
    scores = check_board_files([tmp_path / "m.json"])["WinoBias-UK Natural"]
    metrics = pd.read_csv(made["sample"] / "metrics.csv")
    macro = metrics[metrics["split"] == "macro"].set_index("metric")["value"]
    assert scores["Worst-group accuracy ↑"] == round(100 * macro["worst_group_accuracy"], 2)
    assert scores["Primary accuracy ↑"] == round(100 * macro["overall_accuracy"], 2)
    assert scores["Tie rate → 0"] == round(100 * macro["tie_rate"], 2)
    detail = pd.read_parquet(tmp_path / "m.details" / "winobias-uk-natural.parquet")
    pred = pd.read_parquet(made["sample"] / "predictions.parquet")
    assert len(detail) == 2 * len(pred)
    assert set(detail["method"]) == {METHOD}
    assert detail["mean_logprob"].notna().all() and (detail["token_count"] >= 1).all()


def test_the_published_release_is_written_without_caveats(
    made: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A release whose file is the local copy (registered here as if published) is named as
    that release in the manifest and written as it is."""
    digest = file_sha256(made["copy"])
    fake = Release("test-release", "WinoBias-UK Natural", "x/y", "0" * 40,
                   (ReleaseFile("data/validation.csv", digest, 76),), task="winobias-uk")  # fmt: skip
    monkeypatch.setattr(
        releases, "releases_of", lambda task: [fake] if task == "winobias-uk" else []
    )
    out = tmp_path / "run"
    winoscope.run(
        "winobias-uk", f"hf:{made['model']}", protocol=METHOD, data=made["copy"], n_boot=20, out=out
    )
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["dataset"]["release"]["status"] == "published"
    assert manifest["dataset"]["release"]["release"] == "test-release"
    code, text = invoke(
        str(out), "--out", str(tmp_path / "m.json"), "--model-name", "org/tiny", "--revision", "abc"
    )
    assert code == 0, text
    payload = json.loads((tmp_path / "m.json").read_text(encoding="utf-8"))
    assert payload["model"] == {"name": "org/tiny", "revision": "abc"}
    assert "not_for_publication" not in payload["winoscope"]
    check_board_files([tmp_path / "m.json"])


@pytest.mark.parametrize(
    ("run", "says"),
    [
        ("copied", "not the published release"),
        ("letters", "not by the leaderboard's method"),
        ("limit", "--limit 1"),
    ],
)
def test_refusals_one_line_each(made: dict[str, Path], tmp_path: Path, run: str, says: str) -> None:
    code, text = invoke(str(made[run]), "--out", str(tmp_path / "m.json"), "--revision", "r")
    assert code == 2, text
    assert says in text and len(text.strip().splitlines()) <= 3  # one line, wrapped by the console
    assert not (tmp_path / "m.json").exists()


def test_a_degenerate_run_and_a_benchmark_twice_are_refused(
    made: dict[str, Path], tmp_path: Path
) -> None:
    bad = tmp_path / "degenerate"
    shutil.copytree(made["sample"], bad)
    manifest = json.loads((bad / "manifest.json").read_text(encoding="utf-8"))
    manifest["answer_quality"]["degenerate"] = True
    (bad / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    code, text = invoke(
        str(bad), "--out", str(tmp_path / "m.json"), "--revision", "r", "--allow-partial"
    )
    assert code == 2 and "degenerate" in text
    code, text = invoke(
        str(made["sample"]),
        str(made["sample"]),
        "--out",
        str(tmp_path / "m.json"),
        "--revision",
        "r",
        "--allow-partial",
    )
    assert code == 2 and "already given" in text


def test_the_checker_refuses_what_the_loader_refuses(tmp_path: Path) -> None:
    good = {"model": {"name": "m", "revision": "r"}, "benchmarks": [
        {"name": "WinoBias-UK Natural", "ranking": {"metric": "Worst-group accuracy ↑", "goal": "maximize"},
         "scores": {"Worst-group accuracy ↑": 50.0}}]}  # fmt: skip
    for breaks in (
        lambda p: p["benchmarks"][0]["scores"].update({"Worst-group accuracy ↑": float("nan")}),
        lambda p: p["benchmarks"][0]["ranking"].update({"goal": "best"}),
        lambda p: p["benchmarks"][0]["scores"].pop("Worst-group accuracy ↑"),
        lambda p: p["benchmarks"].append(dict(p["benchmarks"][0])),
    ):
        payload = json.loads(json.dumps(good))
        breaks(payload)
        path = tmp_path / "bad.json"
        path.write_text(json.dumps(payload), encoding="utf-8")
        with pytest.raises((AssertionError, ValueError)):
            check_board_files([path])
    (tmp_path / "a.json").write_text(json.dumps(good), encoding="utf-8")
    with pytest.raises(AssertionError):
        check_board_files([tmp_path / "a.json", tmp_path / "a.json"])
    assert board.BENCHMARK.ranking == "Worst-group accuracy ↑"


def test_a_run_with_rows_left_out_is_refused(
    made: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--skip-bad-rows`` numbers are not the benchmark's, even on the published file: the
    run record's ``left_out`` (where a run keeps it) makes the board refuse the run."""
    import csv

    from winoscope.report.fairness_board import BoardRefused, check_run
    from winoscope.results.rundir import load_run_dir

    with board_sample().open(newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    rows[3][rows[0].index("condition")] = "PRO"  # a value outside the card's: blocking
    bad = tmp_path / "bad.csv"
    with bad.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(rows)
    fake = Release("test-release", "WinoBias-UK Natural", "x/y", "0" * 40,
                   (ReleaseFile("data/validation.csv", file_sha256(bad), 76),), task="winobias-uk")  # fmt: skip
    monkeypatch.setattr(
        releases, "releases_of", lambda task: [fake] if task == "winobias-uk" else []
    )
    out = tmp_path / "run"
    winoscope.run(
        "winobias-uk", f"hf:{made['model']}", protocol=METHOD, data=bad, n_boot=20, out=out,
        skip_bad_rows=True, quiet=True,
    )  # fmt: skip
    rd = load_run_dir(out)
    assert rd.record.left_out and rd.record.left_out["rows"] == 1
    with pytest.raises(BoardRefused, match="left out of the data"):
        check_run(rd, allow_partial=True)
