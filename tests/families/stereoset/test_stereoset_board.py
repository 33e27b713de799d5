"""What the leaderboard's Fairness tab shows of StereoSet-UK Eval: its three metrics under the
tab's names, ICAT ranked up, values as the scorer gives them (0-100), one row per bias type."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from winoscope.families.stereoset import board, scorer
from winoscope.scoring.fairness_board import BOARD, BiasTypeRow, for_task


def test_the_benchmark_is_declared_as_the_tab_shows_it() -> None:
    b = BOARD.get("StereoSet-UK Eval")
    assert for_task("stereoset-uk") is b
    assert dict(b.metrics) == {"LMS ↑": "lms", "SS → 50": "ss", "ICAT ↑": "icat"}
    assert b.ranking_record() == {"metric": "ICAT ↑", "goal": "maximize"}
    assert b.scale == 1.0 and b.methods == ("causal_full_sentence_mean_token_logprob_v1",)


def test_bias_type_rows_carry_items_and_the_three_scores() -> None:
    # гендер: X (2 items) SS 50, LMS 50, ICAT 50; професія: Y (1 item) SS 0, LMS 100, ICAT 0
    t = pd.DataFrame(
        [
            ("i1", "X", "гендер", -1, -2, -3),
            ("i2", "X", "гендер", -2, -1, -1),
            ("i3", "Y", "професія", -1, -1, -2),
        ],
        columns=["item_id", "target_uk", "bias_type_uk", *scorer.SCORE_COLUMNS],
    )
    metrics = scorer.score(t, n_boot=0).metrics
    rows = board.bias_type_rows(metrics, BOARD.get("StereoSet-UK Eval"))
    assert rows == [
        BiasTypeRow("гендер", 2, {"LMS ↑": 50.0, "SS → 50": 50.0, "ICAT ↑": 50.0}),
        BiasTypeRow("професія", 1, {"LMS ↑": 100.0, "SS → 50": 0.0, "ICAT ↑": 0.0}),
    ]


def test_the_board_file_from_a_run(tmp_path: Path) -> None:
    """A run on the tiny model through ``winoscope fairness-board``: the overall scores are the
    run's macro rows, the bias-type rows its bias-type rows, the per-item details one row per
    item and candidate; the bundled sample is refused unless allowed, and then marked."""
    pytest.importorskip("torch")
    from typer.testing import CliRunner

    import winoscope
    from tiny_lm import build_tiny_gpt2
    from winoscope.cli import app

    model = build_tiny_gpt2(tmp_path / "model", seed=5)
    rr = winoscope.run("stereoset-uk", f"hf:{model}", n_boot=0, out=tmp_path / "run", quiet=True)
    out = tmp_path / "board.json"
    args = ["fairness-board", str(tmp_path / "run"), "--out", str(out), "--revision", "r1"]
    env = {"COLUMNS": "200", "TERM": "dumb"}
    refused = CliRunner().invoke(app, args, env=env)
    assert refused.exit_code == 2 and "scored the bundled sample" in refused.output
    written = CliRunner().invoke(app, [*args, "--allow-partial"], env=env)
    assert written.exit_code == 0, written.output
    (entry,) = json.loads(out.read_text(encoding="utf-8"))["benchmarks"]
    m = rr.metrics.set_index(["metric", "split"])["value"]
    assert entry["name"] == "StereoSet-UK Eval"
    assert entry["ranking"] == {"metric": "ICAT ↑", "goal": "maximize"}
    assert entry["scores"] == {
        "LMS ↑": m[("lms", "macro")],
        "SS → 50": m[("ss", "macro")],
        "ICAT ↑": m[("icat", "macro")],
    }
    assert [(b["name"], b["items"]) for b in entry["bias_types"]] == [
        ("гендер", 3),
        ("професія", 5),
        ("релігія", 2),
    ]
    assert entry["bias_types"][1]["scores"]["ICAT ↑"] == m[("icat", "професія")]
    details = pd.read_parquet(tmp_path / "board.details" / "stereoset-uk-eval.parquet")
    assert len(details) == 30 and set(details["option"]) == {
        "stereotype",
        "anti_stereotype",
        "unrelated",
    }
    assert details["method"].unique().tolist() == ["causal_full_sentence_mean_token_logprob_v1"]
