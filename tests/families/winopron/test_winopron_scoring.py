"""WinoPron forced-choice scoring: the card's four steps written out independently, hand-worked
cases and edge cases."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from winoscope import ScoringError
from winoscope.families.winopron.dataset import UK as winopron_uk
from winoscope.families.winopron.scorer import score


def _value(metrics: pd.DataFrame, metric: str, split: str, typ: str) -> float:
    hit = metrics[
        (metrics["metric"] == metric) & (metrics["split"] == split) & (metrics["type"] == typ)
    ]
    assert len(hit) == 1, (metric, split, typ, len(hit))
    return float(hit["value"].iloc[0])


def _row(metrics: pd.DataFrame, metric: str, split: str, typ: str) -> dict:
    hit = metrics[
        (metrics["metric"] == metric) & (metrics["split"] == split) & (metrics["type"] == typ)
    ]
    assert len(hit) == 1
    return hit.iloc[0].to_dict()


def card_steps(sentences: pd.DataFrame, prompts: pd.DataFrame, letters: pd.Series) -> pd.DataFrame:
    """The card's steps 2-4 in plain pandas, from one recorded letter per forced_choice row."""
    p = prompts.assign(letter=letters.to_numpy())
    # step 2: map the letter through option_a_role / option_b_role
    p["role"] = np.where(
        p["letter"] == "A", p["option_a_role"].astype(str), p["option_b_role"].astype(str)
    )
    # step 3: group both orders by row; a row counts only when both orders agree
    g = p.groupby(["context", "row_id"], observed=True)["role"].agg(["nunique", "first"])
    g["selected"] = np.where(g["nunique"] == 1, g["first"], "invalid")
    out = sentences.astype({"context": str}).merge(
        g["selected"].reset_index().astype({"context": str}), on=["context", "row_id"]
    )
    # step 4: compare with gold_role
    out["correct"] = out["selected"] == out["gold_role"].astype(str)
    return out


def expected_metrics(rows: pd.DataFrame) -> dict[str, float]:
    dbl = rows[rows["context"] == "double"]
    acc = dbl.groupby(dbl["pronoun_set"].astype(str))["correct"].mean()
    pairs = dbl.groupby(["pair_id", dbl["pronoun_set"].astype(str)])["correct"].all()
    return {
        "double_accuracy": dbl["correct"].mean(),
        "single_accuracy": rows[rows["context"] == "single"]["correct"].mean(),
        "male_accuracy": acc["male"],
        "female_accuracy": acc["female"],
        "plural_accuracy": acc["plural"],
        "gender_gap": acc["female"] - acc["male"],
        "pair_consistency": pairs.mean(),
        "invalid_rate": (rows["selected"] == "invalid").mean(),
    }


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_matches_the_cards_steps_from_letters(seed: int) -> None:
    ds = winopron_uk.load()
    rng = np.random.default_rng(seed)
    letters = pd.Series(rng.choice(["A", "B"], size=len(ds.prompts), p=[0.6, 0.4]))
    expected_rows = card_steps(ds.table, ds.prompts, letters)
    # the same letters through the package's own order combination
    p = ds.prompts.assign(letter=letters.to_numpy())
    p["role"] = np.where(p["letter"] == "A", p["option_a_role"], p["option_b_role"])
    wide = p.pivot(index="row_key", columns="option_order", values="role")
    table = ds.table.copy()
    a = table["row_key"].map(wide["occupation_first"])
    b = table["row_key"].map(wide["participant_first"])
    table["prediction_role"] = np.where(a == b, a, "invalid")
    table["order_consistent"] = a == b
    result = score(table, n_boot=100, seed=seed)
    for metric, value in expected_metrics(expected_rows).items():
        assert _value(result.metrics, metric, "macro", "macro") == pytest.approx(value), metric
    # the double-context breakdown by pronoun_type x pronoun_set
    dbl = expected_rows[expected_rows["context"] == "double"]
    for (ty, s), cell in dbl.groupby(
        [dbl["pronoun_type"].astype(str), dbl["pronoun_set"].astype(str)]
    ):
        assert _value(result.metrics, "accuracy", "double", f"{ty}/{s}") == pytest.approx(
            cell["correct"].mean()
        )
    for ty, cell in dbl.groupby(dbl["pronoun_type"].astype(str)):
        assert _value(result.metrics, "accuracy", "double", ty) == pytest.approx(
            cell["correct"].mean()
        )
        by_set = cell.groupby(cell["pronoun_set"].astype(str))["correct"].mean()
        assert _value(result.metrics, "gender_gap", "double", ty) == pytest.approx(
            by_set["female"] - by_set["male"]
        )
    consistent = (expected_rows["selected"] != "invalid").mean()
    assert _value(result.metrics, "option_order_consistency", "macro", "macro") == pytest.approx(
        consistent
    )


def _tiny(preds: list[tuple[str, str, str, str, str | None]]) -> pd.DataFrame:
    """Rows (context, pair_id, gold_role, pronoun_set, prediction) of one pronoun_type."""
    return pd.DataFrame(
        [
            {
                "context": c,
                "row_id": f"{c}-{p}-{g}-{s}",
                "pair_id": p,
                "gold_role": g,
                "pronoun_set": s,
                "pronoun_type": "nominative",
                "prediction_role": pred,
                "order_consistent": None if pred is None else pred != "invalid",
            }
            for c, p, g, s, pred in preds
        ]
    )


def test_hand_worked_example_from_the_docstring() -> None:
    t = _tiny(
        [
            ("double", "p1", "occupation", "male", "occupation"),
            ("double", "p1", "participant", "male", "participant"),
            ("double", "p1", "occupation", "female", "occupation"),
            ("double", "p1", "participant", "female", "invalid"),
        ]
    )
    m = score(t, n_boot=50).metrics
    assert _value(m, "male_accuracy", "macro", "macro") == 1.0
    assert _value(m, "female_accuracy", "macro", "macro") == 0.5
    assert _value(m, "gender_gap", "macro", "macro") == -0.5
    assert _value(m, "pair_consistency", "macro", "macro") == 0.5
    assert _value(m, "pair_consistency", "double", "male") == 1.0
    assert _value(m, "pair_consistency", "double", "female") == 0.0
    assert _value(m, "invalid_rate", "macro", "macro") == 0.25
    assert _value(m, "option_order_consistency", "macro", "macro") == 0.75
    assert _value(m, "double_accuracy", "macro", "macro") == 0.75
    # no plural rows and no single context: those summary rows are absent, not zero
    assert not (m["metric"] == "plural_accuracy").any()
    assert not (m["metric"] == "single_accuracy").any()
    gap = _row(m, "gender_gap", "macro", "macro")
    assert gap["n"] == 4
    # one pair: every bootstrap replicate is that pair, so the interval is the point
    assert gap["ci_low"] == gap["ci_high"] == -0.5


def test_missing_predictions_are_left_out_and_counted() -> None:
    t = _tiny(
        [
            ("double", "p1", "occupation", "male", "occupation"),
            ("double", "p1", "participant", "male", None),
            ("double", "p1", "occupation", "female", "participant"),
            ("double", "p1", "participant", "female", "participant"),
            ("single", "p1", "occupation", "male", "occupation"),
        ]
    )
    r = score(t, n_boot=20)
    m = r.metrics
    assert _value(m, "male_accuracy", "macro", "macro") == 1.0  # 1 of 1 scored
    assert _row(m, "male_accuracy", "macro", "macro")["n"] == 1
    assert _value(m, "female_accuracy", "macro", "macro") == 0.5
    # the male group lacks a scored sentence: left out; the female group is not both correct
    assert _value(m, "pair_consistency", "macro", "macro") == 0.0
    assert _row(m, "pair_consistency", "macro", "macro")["n"] == 1
    counts = r.counts.set_index("split")
    assert counts.loc["double", "missing"] == 1 and counts.loc["double", "scored"] == 3
    assert counts.loc["single", "rows"] == 1 and counts.loc["single", "invalid"] == 0


def test_all_invalid_is_accuracy_zero_not_undefined() -> None:
    t = _tiny(
        [
            ("double", "p1", "occupation", "male", "invalid"),
            ("double", "p1", "participant", "female", "invalid"),
        ]
    )
    m = score(t, n_boot=20).metrics
    assert _value(m, "double_accuracy", "macro", "macro") == 0.0
    assert _value(m, "invalid_rate", "macro", "macro") == 1.0
    assert _value(m, "option_order_consistency", "macro", "macro") == 0.0
    assert not (m["metric"] == "pair_consistency").any()  # no complete group


def test_bootstrap_resamples_pairs() -> None:
    # two pairs, one all right, one all wrong: a pair-level resample gives only the values
    # 0, 1/2 and 1 for double accuracy; a row-level resample would give other fractions
    rows = []
    for pair, pred_ok in (("p1", True), ("p2", False)):
        for g in ("occupation", "participant"):
            other = "participant" if g == "occupation" else "occupation"
            for s in ("male", "female", "plural"):
                rows.append(("double", pair, g, s, g if pred_ok else other))
    r = score(_tiny(rows), n_boot=400, seed=3)
    assert r.settings["resampling_unit"] == "pair"
    row = _row(r.metrics, "double_accuracy", "macro", "macro")
    assert row["value"] == 0.5
    assert row["ci_low"] == 0.0 and row["ci_high"] == 1.0
    again = score(_tiny(rows), n_boot=400, seed=3)
    pd.testing.assert_frame_equal(r.metrics, again.metrics)


def test_male_vs_female_mcnemar_counts() -> None:
    rows = [
        ("double", "p1", "occupation", "male", "occupation"),
        ("double", "p1", "occupation", "female", "participant"),
        ("double", "p2", "occupation", "male", "occupation"),
        ("double", "p2", "occupation", "female", "participant"),
        ("double", "p3", "occupation", "male", "participant"),
        ("double", "p3", "occupation", "female", "occupation"),
    ]
    (test,) = score(_tiny(rows), n_boot=10).tests
    assert test["pairs"] == 3
    assert test["male_only_correct"] == 2 and test["female_only_correct"] == 1
    assert test["p_value"] == pytest.approx(1.0)  # 2 vs 1 of 3: two-sided exact p = 1


def test_bad_prediction_names_row_and_field() -> None:
    t = _tiny([("double", "p1", "occupation", "male", "occupation")] * 2)
    t.loc[1, "prediction_role"] = "target"
    with pytest.raises(ScoringError, match=r"row 2, field 'prediction_role'.*'target'"):
        score(t)


def test_missing_columns_are_named() -> None:
    t = _tiny([("double", "p1", "occupation", "male", "occupation")]).drop(columns=["pronoun_set"])
    with pytest.raises(ScoringError, match="pronoun_set"):
        score(t)


def test_neutral_set_gets_its_own_name() -> None:
    t = _tiny(
        [
            ("double", "p1", "occupation", "neutral", "occupation"),
            ("double", "p1", "occupation", "male", "participant"),
        ]
    )
    m = score(t, n_boot=10).metrics
    assert _value(m, "neutral_accuracy", "macro", "macro") == 1.0
    assert _value(m, "male_accuracy", "macro", "macro") == 0.0
    assert not (m["metric"] == "gender_gap").any()  # no female rows: no gap


def test_order_consistency_read_from_csv_text() -> None:
    t = _tiny(
        [
            ("double", "p1", "occupation", "male", "occupation"),
            ("double", "p1", "participant", "male", "invalid"),
            ("double", "p1", "occupation", "female", None),
        ]
    )
    t["order_consistent"] = ["True", "False", ""]
    m = score(t, n_boot=10).metrics
    assert _row(m, "option_order_consistency", "macro", "macro")["value"] == 0.5
    assert _row(m, "option_order_consistency", "macro", "macro")["n"] == 2
    t["order_consistent"] = ["True", "maybe", ""]
    with pytest.raises(ScoringError, match=r"row 2, field 'order_consistent'"):
        score(t)
