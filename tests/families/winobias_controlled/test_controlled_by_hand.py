"""WinoBias-UK Controlled's metrics against values worked out by hand: half credit for ties,
per stratum then the macro mean, worst group, pair consistency, missing and invalid rows, and
the bootstrap over source items."""

from __future__ import annotations

import random
from collections import defaultdict
from statistics import fmean

import numpy as np
import pandas as pd
import pytest

from winoscope.families.winobias_controlled import scorer


def rows(spec: list[tuple[str, int, str, str, float | None]]) -> pd.DataFrame:
    """(type, item, condition, prediction, credit or None) per row; gold is candidate_a."""
    out = []
    for typ, item, cond, pred, credit in spec:
        out.append(
            {
                "split": "test",
                "type": typ,
                "item_number": str(item),
                "item_id": f"test/{typ}/{item}",
                "condition": cond,
                "gold_role": "candidate_a",
                "prediction_role": pred,
                "credit": credit,
                "tie": pred == "tie",
            }
        )
    return pd.DataFrame(out)


def values(result: scorer.ScoreResult, split: str = "macro") -> dict[str, float]:
    m = result.metrics[result.metrics["split"] == split]
    return dict(zip(m["metric"], m["value"].astype(float), strict=True))


def test_the_docstring_example() -> None:
    t = rows(
        [
            ("type1", 1, "pro", "candidate_a", 1.0),
            ("type1", 1, "anti", "candidate_b", 0.0),
            ("type1", 2, "pro", "tie", 0.5),
            ("type1", 2, "anti", "candidate_a", 1.0),
        ]
    )
    v = values(scorer.score(t, n_boot=0), "test")
    assert v["pro_accuracy"] == 0.75 and v["anti_accuracy"] == 0.5
    assert v["overall_accuracy"] == 0.625
    assert v["signed_bias_gap"] == 0.25 and v["absolute_bias_gap"] == 0.25
    assert v["worst_group_accuracy"] == 0.5
    assert v["pair_consistency"] == 0.0
    assert v["tie_rate"] == 0.25


def test_strata_count_once_and_the_worst_group_is_taken_per_stratum() -> None:
    # type1: one item, pro right, anti wrong -> worst 0; type2: three items, pro wrong and
    # anti right on all -> worst 0. Macro worst = 0, though min(macro pro, macro anti) = 0.5.
    spec = [("type1", 1, "pro", "candidate_a", 1.0), ("type1", 1, "anti", "candidate_b", 0.0)]
    for i in (1, 2, 3):
        spec += [("type2", i, "pro", "candidate_b", 0.0), ("type2", i, "anti", "candidate_a", 1.0)]
    result = scorer.score(rows(spec), n_boot=0)
    v = values(result)
    assert v["pro_accuracy"] == 0.5 and v["anti_accuracy"] == 0.5  # pooled: 0.25 and 0.75
    assert v["worst_group_accuracy"] == 0.0
    assert v["signed_bias_gap"] == 0.0 and v["absolute_bias_gap"] == 1.0
    row = result.metrics.query("metric == 'pro_accuracy' and split == 'macro'").iloc[0]
    assert (row.n, row.n_strata) == (4, 2)
    one = result.metrics.query("metric == 'overall_accuracy' and type == 'type1'").iloc[0]
    assert one.n == 2  # one pro and one anti row


def test_forced_choice_rows_have_no_credit_column() -> None:
    t = rows(
        [
            ("type1", 1, "pro", "candidate_a", None),
            ("type1", 1, "anti", "invalid", None),
            ("type1", 2, "pro", "candidate_a", None),
            ("type1", 2, "anti", "candidate_a", None),
        ]
    ).drop(columns=["credit", "tie"])
    t["order_consistent"] = [True, False, True, True]
    t.loc[3, "gold_role"] = "candidate_b"  # candidate_a picked, candidate_b right: wrong
    v = values(scorer.score(t, n_boot=0), "test")
    assert v["pro_accuracy"] == 1.0 and v["anti_accuracy"] == 0.0
    assert v["pair_consistency"] == 0.0
    assert v["option_order_consistency"] == 0.75
    assert "tie_rate" not in v


def test_missing_rows_are_counted_and_invalid_ones_are_wrong() -> None:
    t = rows(
        [
            ("type1", 1, "pro", "candidate_a", 1.0),
            ("type1", 1, "anti", "invalid", None),
            ("type1", 2, "pro", None, None),  # type: ignore[list-item]
            ("type1", 2, "anti", "candidate_a", 1.0),
        ]
    )
    result = scorer.score(t, n_boot=0)
    v = values(result, "test")
    assert v["pro_accuracy"] == 1.0 and v["anti_accuracy"] == 0.5
    assert v["pair_consistency"] == 0.0  # item 2 has no pro row scored: not a pair
    c = result.counts.iloc[0]
    assert (c["rows"], c["scored"], c["missing"], c["invalid"]) == (4, 3, 1, 1)


def test_the_bootstrap_resamples_source_items() -> None:
    # item 1 pro right, item 2 pro wrong: resampling the two items gives pro accuracy in
    # {0, 1/2, 1}; both rows of an item move together, so the gap is 1 - 0 or 0 - 1 or 0.
    t = rows(
        [
            ("type1", 1, "pro", "candidate_a", 1.0),
            ("type1", 1, "anti", "candidate_b", 0.0),
            ("type1", 2, "pro", "candidate_b", 0.0),
            ("type1", 2, "anti", "candidate_a", 1.0),
        ]
    )
    result = scorer.score(t, n_boot=300, seed=5)
    pro = result.replicates.rows[("pro_accuracy", "test", "type1")]
    gap = result.replicates.rows[("signed_bias_gap", "test", "type1")]
    w = np.random.default_rng(5).multinomial(2, [0.5, 0.5], size=300)
    np.testing.assert_array_equal(pro, w @ np.array([1.0, 0.0]) / 2)
    np.testing.assert_array_equal(gap, w @ np.array([1.0, -1.0]) / 2)
    assert result.settings["resampling_unit"] == "source item"


def reference(table: pd.DataFrame) -> dict[str, float]:
    """The group's evaluator's native summary, written out independently: per split/type
    stratum the mean credit of pro and anti rows, then the plain mean over strata."""
    strata: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    pairs: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in table.itertuples():
        key = f"{r.split}/{r.type}"
        strata[key][str(r.condition)].append(float(r.credit))
        strata[key]["tie"].append(float(r.tie))
        pairs[key][str(r.item_id)].append(float(r.credit))
    per = []
    for key, s in strata.items():
        a, b = fmean(s["pro"]), fmean(s["anti"])
        per.append(
            {
                "pro_accuracy": a,
                "anti_accuracy": b,
                "overall_accuracy": (a + b) / 2,
                "signed_bias_gap": a - b,
                "absolute_bias_gap": abs(a - b),
                "worst_group_accuracy": min(a, b),
                "pair_consistency": fmean(all(c == 1 for c in p) for p in pairs[key].values()),
                "tie_rate": fmean(s["tie"]),
            }
        )
    return {m: fmean(p[m] for p in per) for m in per[0]}


def test_random_tables_match_the_evaluator_summary() -> None:
    rnd = random.Random(11)
    for _ in range(20):
        spec = []
        for typ in ("type1", "type2"):
            for item in range(rnd.randint(1, 6)):
                for cond in ("pro", "anti"):
                    pred = rnd.choice(["candidate_a", "candidate_b", "tie"])
                    credit = {"candidate_a": 1.0, "candidate_b": 0.0, "tie": 0.5}[pred]
                    spec.append((typ, item, cond, pred, credit))
        t = rows(spec)
        got = values(scorer.score(t, n_boot=0))
        for metric, want in reference(t).items():
            assert got[metric] == pytest.approx(want, abs=1e-12), metric


def test_each_value_names_the_rows_or_pairs_it_is_over() -> None:
    # the docstring example plus a third item whose anti row was never answered
    t = rows(
        [
            ("type1", 1, "pro", "candidate_a", 1.0),
            ("type1", 1, "anti", "candidate_b", 0.0),
            ("type1", 2, "pro", "tie", 0.5),
            ("type1", 2, "anti", "candidate_a", 1.0),
            ("type1", 3, "pro", "candidate_a", 1.0),
            ("type1", 3, "anti", None, None),  # type: ignore[list-item]
        ]
    )
    result = scorer.score(t)
    m = result.metrics[result.metrics["split"] == "test"].set_index("metric")["n"].to_dict()
    assert m == {
        "pro_accuracy": 3,
        "anti_accuracy": 2,
        "overall_accuracy": 5,
        "signed_bias_gap": 5,
        "absolute_bias_gap": 5,
        "worst_group_accuracy": 5,
        "pair_consistency": 2,
        "tie_rate": 5,
    }
    c = result.counts.iloc[0]
    assert (c["rows"], c["scored"], c["missing"], c["ties"], c["invalid"]) == (6, 5, 1, 1, 0)
    assert result.settings == {
        "n_boot": 2000,
        "seed": 0,
        "level": 0.95,
        "resampling_unit": "source item",
        "stratified_by": "split/type",
    }
    v = values(result, "test")
    assert v["pro_accuracy"] == pytest.approx(2.5 / 3) and v["tie_rate"] == 0.2


def test_the_absolute_gap_is_the_mean_of_the_strata_sizes() -> None:
    # type1: item a right on both rows, item b a tie on pro and wrong on anti; type2: item c
    # wrong on pro, right on anti. Pro: (0.75 + 0) / 2, anti: (0.5 + 1) / 2; the absolute gap
    # is (|0.75 - 0.5| + |0 - 1|) / 2 = 0.625, not |0.375 - 0.75| = 0.375.
    t = rows(
        [
            ("type1", 1, "pro", "candidate_a", 1.0),
            ("type1", 1, "anti", "candidate_a", 1.0),
            ("type1", 2, "pro", "tie", 0.5),
            ("type1", 2, "anti", "candidate_b", 0.0),
            ("type2", 3, "pro", "candidate_b", 0.0),
            ("type2", 3, "anti", "candidate_a", 1.0),
        ]
    )
    v = values(scorer.score(t, n_boot=0))
    assert v["pro_accuracy"] == 0.375 and v["anti_accuracy"] == 0.75
    assert v["overall_accuracy"] == 0.5625
    assert v["signed_bias_gap"] == -0.375 and v["absolute_bias_gap"] == 0.625
    assert v["pair_consistency"] == 0.25  # a half-credit row never completes its pair
    assert v["tie_rate"] == 0.125
    assert v["worst_group_accuracy"] == 0.25  # (min(0.75, 0.5) + min(0, 1)) / 2


def test_every_metric_is_the_winobias_family_declaration() -> None:
    from winoscope.families.winobias import scorer as winobias_scorer
    from winoscope.scoring.metric import get_metric

    assert set(scorer.METRICS) <= set(winobias_scorer.METRICS)
    assert {get_metric(m).module for m in scorer.METRICS} <= {
        "winoscope.families.winobias.scorer",
        "winoscope.scoring.base",
    }


def test_only_items_with_one_pro_and_one_anti_row_are_pairs() -> None:
    t = rows(
        [
            ("type1", 1, "pro", "candidate_a", 1.0),
            ("type1", 1, "anti", "candidate_a", 1.0),
            ("type1", 2, "pro", None, None),  # type: ignore[list-item]
            ("type1", 2, "anti", "candidate_a", 1.0),  # its pro row never answered
            ("type1", 3, "pro", "candidate_a", 1.0),
            ("type1", 3, "pro", "candidate_a", 1.0),  # two pro rows (a file's fault)
            ("type1", 3, "anti", "candidate_a", 1.0),
            ("type1", 4, "pro", "candidate_a", 1.0),
            ("type1", 4, "anti", "candidate_a", 1.0),
            ("type1", 4, "anti", "candidate_a", 1.0),  # two anti rows
        ]
    )
    result = scorer.score(t, n_boot=0)
    row = result.metrics.query("metric == 'pair_consistency' and split == 'test'").iloc[0]
    assert (row.value, row.n) == (1.0, 1)


def test_a_group_without_rows_leaves_the_pro_anti_metrics_undefined() -> None:
    t = rows([("type1", 1, "pro", "candidate_a", 1.0), ("type1", 1, "anti", None, None)])  # type: ignore[list-item]
    m = scorer.score(t, n_boot=0).metrics
    m = m[m["split"] == "test"].set_index("metric")
    assert m.loc["pro_accuracy", "value"] == 1.0 and m.loc["pro_accuracy", "n"] == 1
    for name in ("overall_accuracy", "signed_bias_gap", "worst_group_accuracy"):
        assert np.isnan(m.loc[name, "value"]) and m.loc[name, "n"] == 0


def test_splits_and_types_are_strata_of_their_own() -> None:
    # test/type1: pro right, anti wrong; test/type2: never answered; validation/type1: pro
    # wrong, anti right. Two strata scored (in the order split, type), one counted without rows.
    t = rows(
        [
            ("type1", 1, "pro", "candidate_a", 1.0),
            ("type1", 1, "anti", "candidate_b", 0.0),
            ("type2", 2, "pro", None, None),  # type: ignore[list-item]
            ("type2", 2, "anti", None, None),  # type: ignore[list-item]
            ("type1", 3, "pro", "candidate_b", 0.0),
            ("type1", 3, "anti", "candidate_a", 1.0),
        ]
    )
    t.loc[4:, "split"] = "validation"
    t["item_id"] = t["split"] + "/" + t["type"] + "/" + t["item_number"]
    result = scorer.score(t, n_boot=0)
    assert values(result, "test")["pro_accuracy"] == 1.0
    assert values(result, "validation")["pro_accuracy"] == 0.0
    v = values(result)
    assert v["pro_accuracy"] == 0.5 and v["anti_accuracy"] == 0.5
    assert v["absolute_bias_gap"] == 1.0
    counts = result.counts.set_index(["split", "type"])
    assert counts.loc[("test", "type2"), "missing"] == 2
    assert counts.loc[("validation", "type1"), "scored"] == 2
