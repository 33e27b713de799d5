"""SweWinogender metrics on the real release with predictions of known structure, each checked
against an independent computation (the ``krippendorff`` package, formulas written out here)."""

from __future__ import annotations

from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest

from winoscope.errors import ScoringError
from winoscope.families.swewinogender import dataset as sw
from winoscope.families.swewinogender import resolution_scorer as resolution
from winoscope.families.swewinogender import scorer as sc

FLIP = {"entailment": "neutral", "neutral": "entailment"}


@pytest.fixture(scope="module")
def table(shared_data: Path) -> pd.DataFrame:
    return sw.load(shared_data / "swewinogender-v2" / "swewinogender_test.jsonl").table


def _value(result, metric: str, split: str = "all", typ: str = "all") -> float:
    m = result.metrics
    row = m[(m["metric"] == metric) & (m["split"] == split) & (m["type"] == typ)]
    assert len(row) == 1, (metric, split, typ)
    return float(row["value"].iloc[0])


def _alpha_by_hand(gold: list[str], pred: list[str]) -> float:
    """Two coders, no missing values: 1 - D_o / D_e with pairs drawn without replacement."""
    n_units = len(gold)
    d_obs = sum(g != p for g, p in zip(gold, pred, strict=True)) / n_units
    pooled = gold + pred
    n = len(pooled)
    counts = {c: pooled.count(c) for c in set(pooled)}
    d_exp = 1 - sum(k * (k - 1) for k in counts.values()) / (n * (n - 1))
    return 1 - d_obs / d_exp


def _alpha_package(gold: list[str], pred: list[str]) -> float:
    codes = {c: i for i, c in enumerate(sorted(set(gold) | set(pred)))}
    data = np.array([[codes[g] for g in gold], [codes[p] for p in pred]], dtype=float)
    return float(
        krippendorff.alpha(
            reliability_data=data,
            level_of_measurement="nominal",
            value_domain=list(range(len(codes))),
        )
    )


def _macro_f1_by_hand(gold: list[str], pred: list[str]) -> float:
    f1s = []
    for lab in ("entailment", "neutral"):
        tp = sum(g == lab and p == lab for g, p in zip(gold, pred, strict=True))
        fp = sum(g != lab and p == lab for g, p in zip(gold, pred, strict=True))
        fn = sum(g == lab and p != lab for g, p in zip(gold, pred, strict=True))
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
        f1s.append(2 * precision * recall / (precision + recall) if precision + recall else 0.0)
    return sum(f1s) / 2


def _parity_by_hand(t: pd.DataFrame, pred: pd.Series) -> float:
    same = t.assign(p=pred).groupby("tuple_id")["p"].agg(lambda s: s.nunique() == 1)
    return float(same.mean())


def _structured(t: pd.DataFrame) -> dict[str, pd.Series]:
    gold = t["label"].astype(str)
    rng = np.random.default_rng(20240611)
    return {
        "gold": gold,
        "all_entailment": pd.Series("entailment", index=t.index),
        # han: gold; hon: the opposite; hen: always entailment
        "pronoun_dependent": pd.Series(
            [
                g if p == "han" else FLIP[g] if p == "hon" else "entailment"
                for g, p in zip(gold, t["pronoun"].astype(str), strict=True)
            ],
            index=t.index,
        ),
        "random": pd.Series(rng.choice(["entailment", "neutral"], size=len(t)), index=t.index),
    }


def test_hand_worked_alpha_example() -> None:
    # gold E E N N, system E E E E: o[E,E]=4, o[E,N]=o[N,E]=2, n=8 -> alpha = 1 - 7*4/24 = -1/6
    alpha = sc.krippendorff_alpha(["E", "E", "N", "N"], ["E", "E", "E", "E"])
    assert alpha == pytest.approx(-1 / 6)
    assert sc.krippendorff_alpha(["E", "N"], ["E", "N"]) == pytest.approx(1.0)
    assert np.isnan(sc.krippendorff_alpha(["E", "E"], ["E", "E"]))  # no variation: undefined


@pytest.mark.parametrize("kind", ["gold", "all_entailment", "pronoun_dependent", "random"])
def test_every_metric_against_independent_computation(table: pd.DataFrame, kind: str) -> None:
    pred = _structured(table)[kind]
    result = sc.score_nli(table.assign(prediction=pred), n_boot=200, seed=1)
    gold, p = list(table["label"].astype(str)), list(pred)
    assert _value(result, "accuracy") == pytest.approx(
        np.mean([a == b for a, b in zip(gold, p, strict=True)])
    )
    assert _value(result, "macro_f1") == pytest.approx(_macro_f1_by_hand(gold, p))
    alpha = _value(result, "krippendorff_alpha")
    assert alpha == pytest.approx(_alpha_package(gold, p), abs=1e-12)
    assert alpha == pytest.approx(_alpha_by_hand(gold, p), abs=1e-12)
    assert _value(result, "gender_parity") == pytest.approx(_parity_by_hand(table, pred))
    assert _value(result, "entailment_rate") == pytest.approx(
        np.mean([x == "entailment" for x in p])
    )
    for pron in ("han", "hon", "hen"):
        mask = table["pronoun"].astype(str) == pron
        expected = float((pred[mask] == table["label"].astype(str)[mask]).mean())
        assert _value(result, "accuracy", "pronoun", pron) == pytest.approx(expected)
    gap = _value(result, "accuracy", "pronoun", "hon") - _value(
        result, "accuracy", "pronoun", "han"
    )
    assert _value(result, "accuracy_gap", "pronoun", "hon-han") == pytest.approx(gap)


def test_known_values_of_structured_predictions(table: pd.DataFrame) -> None:
    preds = _structured(table)
    gold = sc.score_nli(table.assign(prediction=preds["gold"]), n_boot=100)
    for metric in ("accuracy", "macro_f1", "krippendorff_alpha", "gender_parity"):
        assert _value(gold, metric) == 1.0
    row = gold.metrics.query("metric == 'accuracy' and split == 'all'").iloc[0]
    assert (row["ci_low"], row["ci_high"], row["n"]) == (1.0, 1.0, 624)

    ent = sc.score_nli(table.assign(prediction=preds["all_entailment"]), n_boot=100)
    assert _value(ent, "accuracy") == 0.5
    assert _value(ent, "macro_f1") == pytest.approx(1 / 3)  # F1(E) = 2/3, F1(N) = 0
    # n = 1248 values: n_E = 936, n_N = 312; mismatches 312 -> 1 - 1247 * 624 / (2 * 936 * 312)
    assert _value(ent, "krippendorff_alpha") == pytest.approx(1 - 1247 * 624 / (2 * 936 * 312))
    assert _value(ent, "gender_parity") == 1.0

    dep = sc.score_nli(table.assign(prediction=preds["pronoun_dependent"]), n_boot=100)
    assert [_value(dep, "accuracy", "pronoun", p) for p in ("han", "hon", "hen")] == [1, 0, 0.5]
    assert _value(dep, "gender_parity") == 0.0
    assert _value(dep, "accuracy_gap", "pronoun", "hon-han") == -1.0


def test_bootstrap_ci_is_seeded_and_covers_the_value(table: pd.DataFrame) -> None:
    t = table.assign(prediction=_structured(table)["random"])
    a = sc.score_nli(t, n_boot=300, seed=5).metrics
    b = sc.score_nli(t, n_boot=300, seed=5).metrics
    c = sc.score_nli(t, n_boot=300, seed=6).metrics
    pd.testing.assert_frame_equal(a, b)
    assert not np.allclose(a["ci_low"], c["ci_low"])
    rnd = a[a["split"] == "all"]
    assert ((rnd["ci_low"] <= rnd["value"]) & (rnd["value"] <= rnd["ci_high"])).all()
    acc = rnd[rnd["metric"] == "accuracy"].iloc[0]
    assert acc["ci_high"] - acc["ci_low"] > 0.03  # 624 items in 53 clusters: not degenerate


def test_invalid_missing_and_contradiction(table: pd.DataFrame) -> None:
    pred = table["label"].astype(str).copy()
    pred.iloc[0] = "invalid"  # idx 1, gold neutral: wrong, breaks its tuple's parity
    pred.iloc[1] = None  # idx 2: no answer, not scored; its tuple leaves the parity count
    pred.iloc[6] = "Contradiction"  # idx 7, gold entailment -> neutral: wrong
    pred.iloc[7] = "contradiction"  # idx 8, gold neutral -> neutral: right
    r = sc.score_nli(table.assign(prediction=pred), n_boot=50)
    assert _value(r, "accuracy") == pytest.approx(621 / 623)
    allrow = r.counts[r.counts["split"] == "all"].iloc[0]
    assert (allrow["scored"], allrow["missing"], allrow["invalid"]) == (623, 1, 1)
    assert allrow["read_as_neutral"] == 2
    # tuples: 1B-neutral (invalid) and 1A-entailment (E, N, E) off parity; 1B-entailment dropped
    assert _value(r, "gender_parity") == pytest.approx(205 / 207)
    gold, p = (
        list(table["label"].astype(str)),
        list(pred.str.lower().replace({"contradiction": "neutral"})),
    )
    keep = [i for i, x in enumerate(p) if x is not None and x == x]
    g2, p2 = [gold[i] for i in keep], [p[i] for i in keep]
    assert _value(r, "krippendorff_alpha") == pytest.approx(_alpha_package(g2, p2), abs=1e-12)


def test_bad_predictions_are_clear_errors(table: pd.DataFrame) -> None:
    pred = table["label"].astype(str).copy()
    pred.iloc[4] = "yes"
    with pytest.raises(ScoringError, match=r"row 5, field 'prediction': invalid value 'yes'"):
        sc.score_nli(table.assign(prediction=pred))
    with pytest.raises(ScoringError, match="no 'prediction' column"):
        sc.score_nli(table)
    with pytest.raises(ScoringError, match="missing column"):
        sc.score_nli(table[["label", "pronoun"]].assign(prediction="neutral"))
    with pytest.raises(ScoringError, match="no row has a prediction"):
        sc.score_nli(table.assign(prediction=None))


def _resolution_rows(t: pd.DataFrame) -> pd.DataFrame:
    return t.drop_duplicates("premise_id").reset_index(drop=True)


def test_resolution_scoring_by_hand(table: pd.DataFrame) -> None:
    rows = _resolution_rows(table)
    assert len(rows) == 312
    # always the occupation: right on the 156 occupation-referent premises
    r = resolution.score_resolution(rows.assign(prediction_role="occupation"), n_boot=100)
    assert _value(r, "accuracy") == 0.5
    assert _value(r, "occupation_share") == 1.0 and _value(r, "gender_parity") == 1.0
    # gold for han, the occupation for hon, the participant for hen
    pred = [
        g if p == "han" else "occupation" if p == "hon" else "participant"
        for g, p in zip(rows["gold_referent"], rows["pronoun"].astype(str), strict=True)
    ]
    r = resolution.score_resolution(rows.assign(prediction_role=pred), n_boot=100)
    assert [_value(r, "accuracy", "pronoun", p) for p in ("han", "hon", "hen")] == [1, 0.5, 0.5]
    assert [_value(r, "occupation_share", "pronoun", p) for p in ("han", "hon", "hen")] == [
        0.5,
        1,
        0,
    ]
    assert _value(r, "occupation_share_gap", "pronoun", "hon-han") == 0.5
    assert _value(r, "gender_parity") == 0.0  # hon and hen always differ
    assert _value(r, "accuracy") == pytest.approx((104 + 52 + 52) / 312)


def test_resolution_parity_and_order_consistency(table: pd.DataFrame) -> None:
    rows = _resolution_rows(table)
    pred = rows["gold_referent"].astype(str).copy()
    first_template = rows["template_id"] == rows["template_id"].iloc[0]
    pred[first_template & (rows["pronoun"] == "hon")] = "invalid"
    oc = pd.Series(True, index=rows.index)
    oc[first_template & (rows["pronoun"] == "hon")] = False
    r = resolution.score_resolution(
        rows.assign(prediction_role=pred, order_consistent=oc), n_boot=50
    )
    assert _value(r, "gender_parity") == pytest.approx(103 / 104)
    assert _value(r, "option_order_consistency") == pytest.approx(311 / 312)
    # occupation share among the 311 valid answers (the invalid one names neither candidate)
    valid = pred != "invalid"
    assert _value(r, "occupation_share") == pytest.approx((pred[valid] == "occupation").mean())
    hon = valid & (rows["pronoun"] == "hon")
    assert _value(r, "occupation_share", "pronoun", "hon") == pytest.approx(
        (pred[hon] == "occupation").sum() / 103
    )
    assert r.metrics.query("metric == 'occupation_share' and type == 'hon'")["n"].iloc[0] == 103
    with pytest.raises(ScoringError, match="field 'prediction_role'"):
        resolution.score_resolution(rows.assign(prediction_role="teknikern"))
