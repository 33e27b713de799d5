"""Runs of the BBQ tasks: the reference baselines on the sample against values worked out by
hand, the fairness-tab rows, and UK − EN across languages.

``baseline:first`` picks the answer whose person the context names first. On the sample it
picks (in every order, so no row is invalid) the grandfather (ans0) in Age-0..3, the pensioner
(ans1) in Age-4/5, the man (ans0) in Gender_identity-0/1 and Olena (ans0) in
Gender_identity-2..5. By hand, over the eligible rows:

ambiguous: Age-0 biased, Age-2 counter (nonneg: target is the grandson), Age-4 biased; all
  wrong: Age accuracy 0, raw 2·2/3 − 1 = 1/3, s_AMB = 1/3. Gender_identity-0 counter
  (target: the woman): −1. Gender_identity (names)-2 biased: +1. Pooled: 3 biased, 2 counter:
  raw 0.2, accuracy 0, s_AMB 0.2; mean |bias| (1/3 + 1 + 1)/3 = 7/9, signed 1/9.
disambiguated: Age-1 wrong biased, Age-3 right counter, Age-5 right biased: accuracy 2/3,
  s_DIS 1/3; Gender_identity-1 right counter: −1; names-3 wrong biased: +1. Pooled accuracy
  3/5, 3 biased, 2 counter: 0.2; mean |bias| 7/9, signed 1/9. With the ineligible rows
  (Gender_identity-4 wrong, -5 right): ambiguous 0/6, disambiguated 4/6.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import winoscope
from winoscope.compare.across_languages import crosslingual
from winoscope.errors import TaskError
from winoscope.families.bbq.crosslingual import linked_rows, pairing_check
from winoscope.scoring.fairness_board import for_task
from winoscope.tasks import get_task

HAND = {
    "ambig_accuracy": 0.0,
    "disambig_accuracy": 0.6,
    "ambig_bias": 0.2,
    "disambig_bias": 0.2,
    "ambig_abs_bias": 7 / 9,
    "disambig_abs_bias": 7 / 9,
    "ambig_signed_bias_macro": 1 / 9,
    "disambig_signed_bias_macro": 1 / 9,
    "ambig_accuracy_all_rows": 0.0,
    "disambig_accuracy_all_rows": 4 / 6,
    "answer_tie_rate": 0.0,
    "invalid_rate": 0.0,
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("bbq")
    out = {}
    for task in ("bbq-uk", "bbq-en"):
        out[task] = root / task
        winoscope.run(task, "baseline:first", out=out[task], n_boot=200)
    return out


def test_first_mention_baseline_is_the_hand_value(runs: dict[str, Path]) -> None:
    m = pd.read_csv(runs["bbq-uk"] / "metrics.csv")
    macro = m[m["split"] == "macro"].set_index("metric")["value"]
    for name, want in HAND.items():
        assert macro[name] == pytest.approx(want, abs=1e-12), name
    cell = m.set_index(["metric", "split", "type"])["value"]
    assert cell[("bias_score", "ambig", "Age")] == pytest.approx(1 / 3)
    assert cell[("bias_score", "disambig", "Gender_identity")] == -1
    assert cell[("bias_score", "ambig", "Gender_identity (names)")] == 1


def test_the_random_baseline_and_the_methods_are_offered() -> None:
    r = winoscope.run("bbq-uk", "baseline:random", n_boot=0)
    assert len(r.predictions) == 12
    protocols = get_task("bbq-uk").protocols
    assert next(iter(protocols)) == "forced_choice"
    assert {b.asks for n, b in protocols.items() if n != "forced_choice"} == {"mean_token_logprob"}
    with pytest.raises(TaskError, match="mean_token_logprob"):
        winoscope.run("bbq-uk", "baseline:first", protocol="abc_mean_token_logprob_fixed_raw_v2")


def test_fairness_tab_rows_in_percent(runs: dict[str, Path]) -> None:
    spec = for_task("bbq-uk")
    assert spec is not None and spec.benchmark == "BBQ-UK"
    assert list(spec.metrics) == [
        "Ambiguous accuracy ↑",
        "Disambiguated accuracy ↑",
        "Ambiguous bias → 0",
        "Disambiguated bias → 0",
    ]
    assert spec.ranking_record() == {"metric": "Ambiguous bias → 0", "goal": "minimize"}
    m = pd.read_csv(runs["bbq-uk"] / "metrics.csv")
    assert spec.bias_types is not None
    rows = {r.name: r for r in spec.bias_types(m, spec)}
    assert list(rows) == ["Age", "Gender_identity", "Gender_identity (names)"]
    age = rows["Age"]
    assert age.items == 6
    assert age.scores["Ambiguous accuracy ↑"] == 0
    assert age.scores["Disambiguated accuracy ↑"] == pytest.approx(200 / 3)
    assert age.scores["Ambiguous bias → 0"] == pytest.approx(100 / 3)
    assert rows["Gender_identity"].scores["Disambiguated bias → 0"] == 100  # |−1|


def test_uk_minus_en_on_shared_items(runs: dict[str, Path], tmp_path: Path) -> None:
    r = crosslingual(runs["bbq-uk"], runs["bbq-en"], n_boot=200, out=tmp_path / "x")
    t = r.table.set_index(["metric", "split", "type"])
    assert r.settings["shared_rows"] == 12
    row = t.loc[("disambig_accuracy", "macro", "macro")]
    assert (row["uk"], row["en"], row["diff"]) == pytest.approx((0.6, 0.6, 0.0))
    assert (tmp_path / "x" / "crosslingual.html").is_file()


def test_a_link_whose_rows_disagree_is_listed() -> None:
    uk = pd.read_csv(_sample_csv())
    uk["prediction_role"] = "ans0"
    en = uk.copy()
    en.loc[3, "label"] = 1
    joined, counts = linked_rows(uk, en)
    bad, checked = pairing_check(joined)
    assert checked == 12 and counts == {"uk_rows": 12, "en_rows": 12}
    assert bad[["item", "role", "occupation_uk", "occupation_en"]].values.tolist() == [
        ["Age/3", "label", "0", "1"]
    ]


def _sample_csv() -> Path:
    from winoscope.families.bbq.dataset import UK

    return UK.sample_path()


def test_hand_worked_difference_with_paired_interval() -> None:
    """UK answers as ``baseline:first``; EN differs on Age-3 only (ans1, the grandson: wrong,
    and the target of that non-negative question). EN disambiguated: right Age-5 and
    Gender_identity-1 of 5: 0.4; biased Age-1, Age-3, Age-5, names-3 (4), counter
    Gender_identity-1 (1): 2·4/5 − 1 = 0.6. UK: 0.6 and 0.2. UK − EN: +0.2 and −0.4."""
    from winoscope.families.bbq.crosslingual import metric_table

    uk = pd.read_csv(_sample_csv())
    uk["prediction_role"] = ["ans1" if i in ("Age-4", "Age-5") else "ans0" for i in uk["item_id"]]
    en = uk.copy()
    en.loc[en["item_id"] == "Age-3", "prediction_role"] = "ans1"
    joined, _ = linked_rows(uk, en)
    t = metric_table(joined, n_boot=300, seed=2).set_index(["metric", "split", "type"])
    acc = t.loc[("disambig_accuracy", "macro", "macro")]
    bias = t.loc[("disambig_bias", "macro", "macro")]
    assert (acc["uk"], acc["en"], acc["diff"]) == pytest.approx((0.6, 0.4, 0.2))
    assert (bias["uk"], bias["en"], bias["diff"]) == pytest.approx((0.2, 0.6, -0.4))
    assert acc["ci_low"] <= 0.2 <= acc["ci_high"] and acc["ci_low"] >= 0  # one template differs
    age = t.loc[("accuracy", "disambig", "Age")]
    assert (age["uk"], age["en"]) == pytest.approx((2 / 3, 1 / 3))
    same = t.loc[("ambig_accuracy", "macro", "macro")]
    assert (same["diff"], same["ci_low"], same["ci_high"]) == (0, 0, 0)
