"""The reference baselines on the bundled sample through a whole run, against the values
worked out by hand (six items in two strata, forced choice in both orders)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import winoscope
from winoscope.families.winobias_controlled import dataset


def macro(model: str) -> dict[str, float]:
    rr = winoscope.run("winobias-uk-controlled", model, n_boot=50, quiet=True)
    m = rr.metrics[rr.metrics["split"] == "macro"]
    return dict(zip(m["metric"], m["value"].astype(float), strict=True))


def test_the_stereotype_baseline_is_right_on_pro_and_wrong_on_anti() -> None:
    # the label-implied stereotype picks the gold on each pro row and the other on each anti
    # row, in both orders: pro 1, anti 0 in both strata
    v = macro("baseline:stereotype-labels")
    assert v == {
        "pro_accuracy": 1.0,
        "anti_accuracy": 0.0,
        "overall_accuracy": 0.5,
        "signed_bias_gap": 1.0,
        "absolute_bias_gap": 1.0,
        "worst_group_accuracy": 0.0,
        "pair_consistency": 0.0,
        "option_order_consistency": 1.0,
    }


def test_the_position_baseline_is_invalid_everywhere() -> None:
    # no candidate span is given, so "first" answers A in both orders: every row invalid
    v = macro("baseline:first")
    assert v["overall_accuracy"] == 0.0 and v["option_order_consistency"] == 0.0
    assert v["worst_group_accuracy"] == 0.0


def test_the_published_method_needs_a_scoring_backend() -> None:
    with pytest.raises(winoscope.errors.TaskError, match="mean_token_logprob"):
        winoscope.run(
            "winobias-uk-controlled",
            "baseline:random",
            protocol="fixed_ab_mean_token_logprob_v1",
            quiet=True,
        )


def cli(*args: str) -> tuple[int, str]:
    from typer.testing import CliRunner

    from winoscope.cli import app

    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "200", "TERM": "dumb"})
    return result.exit_code, result.output


def test_a_blocking_finding_stops_the_run_unless_its_rows_are_left_out(tmp_path: Path) -> None:
    raw = pd.read_csv(dataset.UK.sample_path(), dtype=str)
    raw.loc[1, "sentence_uk"] = raw.loc[1, "sentence_uk"].replace("[", "").replace("]", "")
    path = tmp_path / "one_bad_pair.csv"
    raw.to_csv(path, index=False)
    args = ["run", "winobias-uk-controlled", "-m", "baseline:stereotype-labels", "-q"]
    code, out = cli(*args, "--data", str(path), "--out", str(tmp_path / "refused"))
    assert code == 1, out
    assert f"file {path}, row 2, item test/type1/1/female, field 'sentence_uk'" in out
    code, out = cli(*args, "--data", str(path), "--skip-bad-rows", "--out", str(tmp_path / "kept"))
    assert code == 0, out
    kept = pd.read_csv(tmp_path / "kept" / "predictions.csv")
    assert len(kept) == 10 and "test/type1/1" not in set(kept["item_id"])
