"""Half credit for ties, worst-group accuracy and tie rate (the leaderboard's WinoBias-UK
metrics), on a table built by hand; "+" right, "-" wrong, "=" a tie (half credit).

validation/type1 (all six variants):

====  ==========  ==========  =====================  =====================
item  mm          ff          mf_target / fm_target  mf_cross / fm_cross
====  ==========  ==========  =====================  =====================
1     pro  +      anti =      + / -                  + / =
2     anti +      pro  -      + / +                  - / -
====  ==========  ==========  =====================  =====================

pro 1/2, anti (0.5 + 1)/2 = 3/4, worst 1/2, overall 5/8, signed gap -1/4, pair consistency
0/2 (a tie is not right), agreement 3/4, cross 1.5/4 = 3/8, ties 2 of 12 rows.

test/type2 (no cross controls, as WinoBias type 2 has none):

====  ==========  ==========  =====================
item  mm          ff          mf_target / fm_target
====  ==========  ==========  =====================
1     pro  +      anti -      = / +
2     anti +      pro  +      + / +
====  ==========  ==========  =====================

pro 1, anti 1/2, worst 1/2, overall 3/4, signed gap 1/2, pair consistency 1/2, agreement
3.5/4, no cross-control row at all, ties 1 of 8.

Macro rows average the strata where a metric is defined: pro 3/4, anti 5/8, overall 11/16,
signed gap 1/8, absolute gap 3/8, pair consistency 1/4, agreement 13/16, cross 3/8 (type 1
alone), tie rate (1/6 + 1/8)/2 = 7/48; worst-group is the lower of the macro pro and anti,
5/8 (the mean of the strata's minima would be 1/2).
"""

from __future__ import annotations

import pandas as pd
import pytest

from winoscope.families.winobias.scorer import score

GROUP = {
    "mm": "primary_balanced",
    "ff": "primary_balanced",
    "mf_target": "agreement_control",
    "fm_target": "agreement_control",
    "mf_cross": "cross_control",
    "fm_cross": "cross_control",
}
# (split, type, item, variant, condition, answer)
ROWS = [
    ("validation", "type1", 1, "mm", "pro", "+"),
    ("validation", "type1", 1, "ff", "anti", "="),
    ("validation", "type1", 1, "mf_target", "control", "+"),
    ("validation", "type1", 1, "fm_target", "control", "-"),
    ("validation", "type1", 1, "mf_cross", "control", "+"),
    ("validation", "type1", 1, "fm_cross", "control", "="),
    ("validation", "type1", 2, "mm", "anti", "+"),
    ("validation", "type1", 2, "ff", "pro", "-"),
    ("validation", "type1", 2, "mf_target", "control", "+"),
    ("validation", "type1", 2, "fm_target", "control", "+"),
    ("validation", "type1", 2, "mf_cross", "control", "-"),
    ("validation", "type1", 2, "fm_cross", "control", "-"),
    ("test", "type2", 1, "mm", "pro", "+"),
    ("test", "type2", 1, "ff", "anti", "-"),
    ("test", "type2", 1, "mf_target", "control", "="),
    ("test", "type2", 1, "fm_target", "control", "+"),
    ("test", "type2", 2, "mm", "anti", "+"),
    ("test", "type2", 2, "ff", "pro", "+"),
    ("test", "type2", 2, "mf_target", "control", "+"),
    ("test", "type2", 2, "fm_target", "control", "+"),
]


def table() -> pd.DataFrame:
    records = []
    for split, typ, item, variant, condition, answer in ROWS:
        gold = "distractor" if variant.endswith("cross") else "target"
        other = "target" if gold == "distractor" else "distractor"
        pred = {"+": gold, "-": other, "=": "tie"}[answer]
        records.append(
            {
                "split": split,
                "type": typ,
                "item_number": item,
                "variant": variant,
                "score_group": GROUP[variant],
                "condition": condition,
                "coreference_role": gold,
                "prediction_role": pred,
                "tied": answer == "=",
            }
        )
    return pd.DataFrame.from_records(records)


def value(metric: str, split: str, typ: str) -> tuple[float, int]:
    m = score(table(), n_boot=50).metrics
    hit = m[(m["metric"] == metric) & (m["split"] == split) & (m["type"] == typ)]
    assert len(hit) == 1, (metric, split, typ)
    return float(hit["value"].iloc[0]), int(hit["n"].iloc[0])


@pytest.mark.parametrize(
    ("metric", "split", "typ", "expected", "n"),
    [
        ("pro_accuracy", "validation", "type1", 1 / 2, 2),
        ("anti_accuracy", "validation", "type1", 3 / 4, 2),
        ("worst_group_accuracy", "validation", "type1", 1 / 2, 4),
        ("overall_accuracy", "validation", "type1", 5 / 8, 4),
        ("signed_bias_gap", "validation", "type1", -1 / 4, 4),
        ("pair_consistency", "validation", "type1", 0.0, 2),
        ("agreement_control_accuracy", "validation", "type1", 3 / 4, 4),
        ("cross_control_accuracy", "validation", "type1", 3 / 8, 4),
        ("tie_rate", "validation", "type1", 2 / 12, 12),
        ("pro_accuracy", "test", "type2", 1.0, 2),
        ("anti_accuracy", "test", "type2", 1 / 2, 2),
        ("worst_group_accuracy", "test", "type2", 1 / 2, 4),
        ("pair_consistency", "test", "type2", 1 / 2, 2),
        ("agreement_control_accuracy", "test", "type2", 7 / 8, 4),
        ("tie_rate", "test", "type2", 1 / 8, 8),
        ("pro_accuracy", "macro", "macro", 3 / 4, 4),
        ("anti_accuracy", "macro", "macro", 5 / 8, 4),
        ("worst_group_accuracy", "macro", "macro", 5 / 8, 8),
        ("overall_accuracy", "macro", "macro", 11 / 16, 8),
        ("signed_bias_gap", "macro", "macro", 1 / 8, 8),
        ("absolute_bias_gap", "macro", "macro", 3 / 8, 8),
        ("pair_consistency", "macro", "macro", 1 / 4, 4),
        ("agreement_control_accuracy", "macro", "macro", 13 / 16, 8),
        ("cross_control_accuracy", "macro", "macro", 3 / 8, 4),
        ("tie_rate", "macro", "macro", 7 / 48, 20),
    ],
)
def test_by_hand(metric: str, split: str, typ: str, expected: float, n: int) -> None:
    got, size = value(metric, split, typ)
    assert got == pytest.approx(expected, abs=1e-12)
    assert size == n


def test_type2_cross_control_is_undefined_and_ties_are_counted() -> None:
    import math

    r = score(table(), n_boot=50)
    m = r.metrics
    cross = m[(m["metric"] == "cross_control_accuracy") & (m["type"] == "type2")]
    assert len(cross) == 1 and math.isnan(cross["value"].iloc[0]) and cross["n"].iloc[0] == 0
    counts = r.counts.set_index(["split", "type"])
    assert counts.loc[("validation", "type1"), "tied"] == 2
    assert counts.loc[("test", "type2"), "tied"] == 1


def test_worst_group_interval_is_the_lower_of_the_macro_replicates() -> None:
    r = score(table(), n_boot=200, seed=5)
    reps = r.replicates.rows
    import numpy as np

    low = np.minimum(
        reps[("pro_accuracy", "macro", "macro")], reps[("anti_accuracy", "macro", "macro")]
    )
    assert np.array_equal(reps[("worst_group_accuracy", "macro", "macro")], low)


def test_without_a_tied_column_there_is_no_tie_rate() -> None:
    t = table().drop(columns="tied")
    t["prediction_role"] = t["prediction_role"].replace("tie", "invalid")
    m = score(t, n_boot=20).metrics
    assert "tie_rate" not in set(m["metric"])
    assert "worst_group_accuracy" in set(m["metric"])
