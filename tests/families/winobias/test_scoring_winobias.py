"""WinoBias-UK scoring against the card's formula and hand-worked cases."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from helpers_winobias_uk import card_formula
from winoscope import ScoringError
from winoscope.families.winobias.dataset import UK as winobias_uk
from winoscope.families.winobias.scorer import score
from winoscope.scoring.stats import mcnemar_exact


def _table() -> pd.DataFrame:
    return winobias_uk.load().table


def _value(metrics: pd.DataFrame, metric: str, split: str, typ: str) -> float:
    hit = metrics[
        (metrics["metric"] == metric) & (metrics["split"] == split) & (metrics["type"] == typ)
    ]
    assert len(hit) == 1, (metric, split, typ)
    return float(hit["value"].iloc[0])


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, abs=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_matches_card_formula_per_stratum_and_macro(seed: int) -> None:
    t = _table()
    rng = np.random.default_rng(seed)
    t["prediction_role"] = rng.choice(
        ["target", "distractor", "invalid"], size=len(t), p=[0.5, 0.4, 0.1]
    )
    result = score(t, n_boot=200, seed=seed)
    plain = t.astype(
        {c: str for c in ["split", "type", "score_group", "condition", "coreference_role"]}
    )
    per_stratum: dict[str, list[float]] = {}
    for (split, typ), rows in plain.groupby(["split", "type"]):
        expected = card_formula(rows)
        for metric, value in expected.items():
            assert _same(_value(result.metrics, metric, split, typ), float(value)), (
                metric,
                split,
                typ,
            )
            if not math.isnan(value):
                per_stratum.setdefault(metric, []).append(float(value))
    for metric, values in per_stratum.items():
        assert _value(result.metrics, metric, "macro", "macro") == pytest.approx(np.mean(values))


def _three_items() -> pd.DataFrame:
    """validation/type1 items 1-3, primary rows only, with hand-chosen correctness.

    item 1 (target male-stereotyped): mm=pro correct, ff=anti correct
    item 2 (target female-stereotyped): ff=pro correct, mm=anti wrong
    item 3 (target female-stereotyped): ff=pro correct, mm=anti wrong
    pro = 3/3, anti = 1/3, overall = 2/3, gap = 2/3, pair consistency = 1/3,
    McNemar: b (pro only) = 2, c = 0, p = 2 * 0.5**2 = 0.5.
    """
    t = _table()
    t = t[(t["split"] == "validation") & (t["type"] == "type1") & (t["item_number"] <= 3)]
    t = t[t["score_group"] == "primary_balanced"].copy()
    assert len(t) == 6
    wrong = (t["item_number"] > 1) & (t["variant"] == "mm")
    t["prediction_role"] = np.where(wrong, "distractor", "target")
    return t


def test_hand_worked_three_items() -> None:
    t = _three_items()
    # the sample's own labels are what the docstring assumes
    assert list(t.loc[t["variant"] == "mm", "condition"].astype(str)) == ["pro", "anti", "anti"]
    r = score(t, n_boot=500, seed=1)
    m = r.metrics
    assert _value(m, "pro_accuracy", "validation", "type1") == 1.0
    assert _value(m, "anti_accuracy", "validation", "type1") == pytest.approx(1 / 3)
    assert _value(m, "overall_accuracy", "validation", "type1") == pytest.approx(2 / 3)
    assert _value(m, "signed_bias_gap", "validation", "type1") == pytest.approx(2 / 3)
    assert _value(m, "absolute_bias_gap", "validation", "type1") == pytest.approx(2 / 3)
    assert _value(m, "pair_consistency", "validation", "type1") == pytest.approx(1 / 3)
    assert math.isnan(_value(m, "agreement_control_accuracy", "validation", "type1"))
    test = next(x for x in r.tests if x["split"] == "validation")
    assert (test["pairs"], test["pro_only_correct"], test["anti_only_correct"]) == (3, 2, 0)
    assert test["p_value"] == pytest.approx(0.5)
    n = (
        m[m["split"] == "validation"]
        .set_index("metric")
        .loc[["pro_accuracy", "anti_accuracy", "pair_consistency"], "n"]
    )
    assert list(n) == [3, 3, 3]


def test_stratum_with_no_anti_rows() -> None:
    t = _three_items()
    t = t[t["condition"] == "pro"]
    m = score(t, n_boot=100).metrics
    assert _value(m, "pro_accuracy", "validation", "type1") == 1.0
    for metric in ("anti_accuracy", "overall_accuracy", "signed_bias_gap", "absolute_bias_gap"):
        assert math.isnan(_value(m, metric, "validation", "type1"))
    # an item without both mm and ff cannot be pair-consistent or inconsistent: undefined
    assert math.isnan(_value(m, "pair_consistency", "validation", "type1"))
    macro = m[m["split"] == "macro"].set_index("metric")
    assert "anti_accuracy" not in macro.index and macro.loc["pro_accuracy", "value"] == 1.0


def test_all_invalid() -> None:
    t = _table()
    t["prediction_role"] = "invalid"
    r = score(t, n_boot=100)
    values = r.metrics[
        r.metrics["metric"].str.endswith("accuracy") | (r.metrics["metric"] == "pair_consistency")
    ]
    assert (values["value"].dropna() == 0.0).all()
    gap = r.metrics[r.metrics["metric"] == "signed_bias_gap"]["value"]
    assert (gap == 0.0).all()
    assert r.counts["invalid"].sum() == len(t) == r.counts["scored"].sum()


def test_single_item_gives_degenerate_interval() -> None:
    t = _table()
    t = t[(t["split"] == "test") & (t["type"] == "type1") & (t["item_number"] == 2)].copy()
    t["prediction_role"] = ["target", "distractor", "target", "target", "invalid", "distractor"]
    m = score(t, n_boot=300).metrics
    # mm correct (pro or anti per label), ff wrong; controls: 2/2 agreement, 1/2 cross (fm_cross ok)
    mm_condition = str(t.loc[t["variant"] == "mm", "condition"].iloc[0])
    pro = 1.0 if mm_condition == "pro" else 0.0
    assert _value(m, "pro_accuracy", "test", "type1") == pro
    assert _value(m, "anti_accuracy", "test", "type1") == 1.0 - pro
    assert _value(m, "pair_consistency", "test", "type1") == 0.0
    assert _value(m, "agreement_control_accuracy", "test", "type1") == 1.0
    assert _value(m, "cross_control_accuracy", "test", "type1") == 0.5
    row = m[(m["metric"] == "cross_control_accuracy") & (m["split"] == "test")].iloc[0]
    assert row["ci_low"] == row["ci_high"] == 0.5


def test_missing_predictions_are_excluded_and_counted() -> None:
    t = _three_items()
    t["prediction_role"] = t["prediction_role"].astype(object)
    drop = (t["item_number"] == 1) & (t["variant"] == "ff")
    t.loc[drop, "prediction_role"] = None
    r = score(t, n_boot=100)
    m = r.metrics
    # anti rows left: items 2 and 3 mm, both wrong
    assert _value(m, "anti_accuracy", "validation", "type1") == 0.0
    assert _value(m, "pair_consistency", "validation", "type1") == 0.0  # items 2, 3 only
    assert m[(m["metric"] == "pair_consistency") & (m["split"] == "validation")]["n"].iloc[0] == 2
    assert int(r.counts["missing"].sum()) == 1


def test_bad_prediction_value_names_row_and_field() -> None:
    t = _three_items()
    t["prediction_role"] = t["prediction_role"].astype(object)
    t.iloc[4, t.columns.get_loc("prediction_role")] = "occupation"
    with pytest.raises(ScoringError) as err:
        score(t, source="preds.csv")
    assert (
        "preds.csv" in str(err.value)
        and "row 5" in str(err.value)
        and "prediction_role" in str(err.value)
    )
    with pytest.raises(ScoringError, match="no 'prediction_role' column"):
        score(t.drop(columns=["prediction_role"]))


def test_bootstrap_is_seeded_and_brackets_the_value() -> None:
    t = _table()
    rng = np.random.default_rng(5)
    t["prediction_role"] = rng.choice(["target", "distractor"], size=len(t))
    a = score(t, n_boot=400, seed=11).metrics
    b = score(t, n_boot=400, seed=11).metrics
    c = score(t, n_boot=400, seed=12).metrics
    pd.testing.assert_frame_equal(a, b)
    assert not a["ci_low"].equals(c["ci_low"])
    ok = a.dropna(subset=["value"])
    assert ((ok["ci_low"] <= ok["value"] + 1e-12) & (ok["value"] <= ok["ci_high"] + 1e-12)).all()


def test_bootstrap_two_items_by_hand() -> None:
    """Two pro rows from two items, one correct: resamples give 1, 0.5 or 0 with p 1/4, 1/2, 1/4.

    So the 95% percentile interval is [0, 1] and the replicate mean is 0.5.
    """
    t = _three_items()
    t = t[(t["item_number"] <= 2) & (t["condition"] == "pro")].copy()
    t["prediction_role"] = ["target", "distractor"]
    row = (
        score(t, n_boot=4000, seed=3)
        .metrics.query("metric == 'pro_accuracy' and split == 'validation'")
        .iloc[0]
    )
    assert row["value"] == 0.5 and row["ci_low"] == 0.0 and row["ci_high"] == 1.0


@pytest.mark.parametrize(
    ("b", "c", "p"),
    [(0, 0, 1.0), (3, 0, 0.25), (0, 3, 0.25), (5, 5, 1.0), (1, 4, 0.375), (10, 0, 2 * 0.5**10)],
)
def test_exact_mcnemar_by_hand(b: int, c: int, p: float) -> None:
    # p = 2 * P(X <= min(b, c)), X ~ Binomial(b + c, 1/2), capped at 1
    assert mcnemar_exact(b, c) == pytest.approx(p)
