"""``winoscope crosslingual``: a Ukrainian and an English run joined on shared WinoBias items."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import winoscope
from helpers_crosslingual import matched_english
from winoscope.cli import app
from winoscope.compare.across_languages import crosslingual
from winoscope.compare.joins import agreement_table
from winoscope.errors import TaskError
from winoscope.families.winobias.crosslingual import metric_table, shared_rows


def _rows(lang: str, answers: dict[tuple[int, str], str], extra: list[dict]) -> pd.DataFrame:
    rows = [
        {
            "split": "test",
            "type": "type1",
            "item_number": item,
            "condition": cond,
            "score_group": "primary_balanced",
            "coreference_role": "target",
            "prediction_role": pred,
            f"target_occupation_{lang}": f"occ{item}-{lang}",
        }
        for (item, cond), pred in answers.items()
    ]
    return pd.DataFrame(rows + extra)


def test_hand_worked_join_interval_and_agreement() -> None:
    # UK: item 1 right twice, item 2 anti wrong; EN: every anti wrong. A UK control row and an
    # EN item without a UK counterpart are left out.
    uk = _rows(
        "uk",
        {
            (1, "pro"): "target",
            (1, "anti"): "target",
            (2, "pro"): "target",
            (2, "anti"): "distractor",
        },
        [
            {
                "split": "test",
                "type": "type1",
                "item_number": 1,
                "condition": "control",
                "score_group": "agreement_control",
                "coreference_role": "target",
                "prediction_role": "target",
                "target_occupation_uk": "occ1-uk",
            }
        ],
    )
    en = _rows(
        "en",
        {
            (1, "pro"): "target",
            (1, "anti"): "distractor",
            (2, "pro"): "target",
            (2, "anti"): "distractor",
            (3, "pro"): "target",
            (3, "anti"): "target",
        },
        [],
    )
    rows, counts = shared_rows(uk, en)
    assert counts["shared_rows"] == 4 and counts["uk_rows_without_en"] == 0
    assert counts["en_primary_rows"] == 6
    t = metric_table(rows, n_boot=4000, seed=0).set_index(["metric", "split"])
    anti = t.loc[("anti_accuracy", "macro")]
    assert (anti["uk"], anti["en"], anti["diff"]) == (0.5, 0.0, 0.5)
    # resample (1, 1): 1 - 0; (1, 2): 0.5 - 0; (2, 2): 0 - 0 -> interval [0, 1]
    assert (anti["ci_low"], anti["ci_high"]) == (0.0, 1.0)
    gap = t.loc[("signed_bias_gap", "macro")]
    assert (gap["uk"], gap["en"], gap["diff"]) == (0.5, 1.0, -0.5)
    assert (gap["ci_low"], gap["ci_high"]) == (-1.0, 0.0)
    pro = t.loc[("pro_accuracy", "macro")]
    assert (pro["diff"], pro["ci_low"], pro["ci_high"]) == (0.0, 0.0, 0.0)
    agree = agreement_table(rows).set_index("condition")
    assert agree.loc[
        "all", ["both_right", "only_en_right", "only_uk_right", "both_wrong"]
    ].tolist() == [
        2,
        0,
        1,
        1,
    ]
    assert agree.loc["all", "mcnemar_p"] == 1.0


def test_paired_draws_match_an_independent_resampling() -> None:
    """Six items; the interval from this test's own item draws agrees within noise."""
    rng = np.random.default_rng(3)
    answers_uk = {
        (i, c): rng.choice(["target", "distractor"]) for i in range(1, 7) for c in ("pro", "anti")
    }
    answers_en = {
        (i, c): rng.choice(["target", "distractor"]) for i in range(1, 7) for c in ("pro", "anti")
    }
    rows, _ = shared_rows(_rows("uk", answers_uk, []), _rows("en", answers_en, []))
    t = metric_table(rows, n_boot=4000, seed=1).set_index(["metric", "split"])
    own = np.random.default_rng(99)
    items = sorted(rows["item_number"].unique())
    per = rows.pivot_table(
        index="item_number", columns="condition", values=["right_uk", "right_en"]
    )
    diffs = []
    for _ in range(4000):
        idx = own.choice(items, len(items))
        sel = per.loc[idx]
        uk = sel[("right_uk", "pro")].mean() - sel[("right_uk", "anti")].mean()
        en = sel[("right_en", "pro")].mean() - sel[("right_en", "anti")].mean()
        diffs.append(uk - en)
    lo, hi = np.quantile(diffs, [0.025, 0.975])
    row = t.loc[("signed_bias_gap", "macro")]
    assert row["ci_low"] == pytest.approx(lo, abs=0.17)  # grid of 1/6 steps
    assert row["ci_high"] == pytest.approx(hi, abs=0.17)


def test_real_runs_and_cli(shared_data: Path, tmp_path: Path) -> None:
    uk = tmp_path / "uk"
    en = tmp_path / "en"
    winoscope.run("winobias-uk", "baseline:stereotype", out=uk, n_boot=50)
    winoscope.run(
        "winobias-en", "baseline:stereotype", data=shared_data / "winobias-en", out=en, n_boot=50
    )
    en = matched_english(uk, en, tmp_path / "en-matched")
    res = crosslingual(uk, en, n_boot=500, out=tmp_path / "xl")
    # every primary row of the sample (14 items x pro/anti) has its English source row
    assert res.settings["shared_rows"] == 28 and res.settings["uk_rows_without_en"] == 0
    assert res.settings["occupation_links"] == 28 and res.mismatches.empty and res.notes == []
    gap = res.to_frame().query("metric == 'signed_bias_gap' and split == 'macro'").iloc[0]
    assert gap["uk"] == 1.0 and gap["en"] == 1.0 and gap["diff"] == 0.0  # both stereotyped
    assert (tmp_path / "xl" / "crosslingual_agreement.csv").is_file()
    ok = CliRunner().invoke(app, ["crosslingual", str(uk), str(en), "--bootstrap", "200"])
    assert ok.exit_code == 0, ok.output
    assert "28 shared rows" in ok.output
    # English first: the error names the order to use, not a missing link
    with pytest.raises(TaskError, match="wrong order") as err:
        crosslingual(en, uk)
    text = str(err.value)
    assert "no cross-lingual link" not in text
    assert "Ukrainian run first and the English run second" in text
    assert f"Swap them: crosslingual({str(uk)!r}, {str(en)!r})" in text
