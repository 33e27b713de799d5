"""WinoBias scoring on a small table built by hand: every value, size and McNemar count below
is worked out from the rows written here, not from the scorer.

Stratum validation/type1 (items 1-5) and test/type2 (items 1-2); "+" correct, "-" wrong:

====  ============  ============  ==============================
item  mm            ff            notes
====  ============  ============  ==============================
v1    pro  +        anti -        pro only correct (b)
v2    anti +        pro  +        both correct, pair-consistent
v3    pro  -        anti +        anti only correct (c)
v4    pro  -        anti -        both wrong
v5    pro  +        (none)        no pair: not a McNemar pair
t1    pro  +        anti -        b
t2    pro  +        anti -        b
====  ============  ============  ==============================

validation/type1: pro 3/5, anti 2/4, overall 0.55, gap 0.1, pair consistency 1/4 (v1-v4);
McNemar b = 1, c = 1 over 4 pairs, p = 1. test/type2: pro 1, anti 0, gap 1, pair
consistency 0/2; b = 2, c = 0, p = 2 * 0.5**2 = 0.5. Pooled: b = 3, c = 1 over 6 pairs,
p = 2 * (1 + 4) / 16 = 0.625.
"""

from __future__ import annotations

import json
import math
from functools import cache

import numpy as np
import pandas as pd
import pytest

from winoscope.families.winobias.scorer import score, unpaired_items, unpaired_note
from winoscope.scoring.base import ScoreResult

# (split, type, item, variant, condition, correct)
PRIMARY = [
    ("validation", "type1", 1, "mm", "pro", True),
    ("validation", "type1", 1, "ff", "anti", False),
    ("validation", "type1", 2, "mm", "anti", True),
    ("validation", "type1", 2, "ff", "pro", True),
    ("validation", "type1", 3, "mm", "pro", False),
    ("validation", "type1", 3, "ff", "anti", True),
    ("validation", "type1", 4, "mm", "pro", False),
    ("validation", "type1", 4, "ff", "anti", False),
    ("validation", "type1", 5, "mm", "pro", True),
    ("test", "type2", 1, "mm", "pro", True),
    ("test", "type2", 1, "ff", "anti", False),
    ("test", "type2", 2, "mm", "pro", True),
    ("test", "type2", 2, "ff", "anti", False),
]


def _table(rows: list[tuple[str, str, int, str, str, bool | None]] = PRIMARY) -> pd.DataFrame:
    records = []
    for split, typ, item, variant, condition, correct in rows:
        group = "primary_balanced" if variant in ("mm", "ff") else condition
        records.append(
            {
                "split": split,
                "type": typ,
                "item_number": item,
                "variant": variant,
                "score_group": group,
                "condition": condition if group == "primary_balanced" else "control",
                "coreference_role": "target",
                "prediction_role": None
                if correct is None
                else "target"
                if correct
                else "distractor",
            }
        )
    return pd.DataFrame.from_records(records)


@cache
def _scored() -> ScoreResult:
    return score(_table(), n_boot=50)


def _row(metrics: pd.DataFrame, metric: str, split: str, typ: str) -> pd.Series:
    hit = metrics[
        (metrics["metric"] == metric) & (metrics["split"] == split) & (metrics["type"] == typ)
    ]
    assert len(hit) == 1, (metric, split, typ)
    return hit.iloc[0]


@pytest.mark.parametrize(
    ("metric", "split", "typ", "value", "n"),
    [
        ("pro_accuracy", "validation", "type1", 3 / 5, 5),
        ("anti_accuracy", "validation", "type1", 2 / 4, 4),
        ("overall_accuracy", "validation", "type1", (3 / 5 + 2 / 4) / 2, 9),
        ("signed_bias_gap", "validation", "type1", 3 / 5 - 2 / 4, 9),
        ("absolute_bias_gap", "validation", "type1", 3 / 5 - 2 / 4, 9),
        ("pair_consistency", "validation", "type1", 1 / 4, 4),
        ("pro_accuracy", "test", "type2", 1.0, 2),
        ("anti_accuracy", "test", "type2", 0.0, 2),
        ("signed_bias_gap", "test", "type2", 1.0, 4),
        ("pair_consistency", "test", "type2", 0.0, 2),
    ],
)
def test_values_and_sizes_by_hand(metric: str, split: str, typ: str, value: float, n: int) -> None:
    row = _row(_scored().metrics, metric, split, typ)
    assert row["value"] == pytest.approx(value, abs=1e-12)
    assert int(row["n"]) == n


def test_a_negative_gap_keeps_its_sign_and_its_size() -> None:
    # anti 1/1, pro 0/1 in one item: signed -1, absolute 1
    t = _table([("test", "type1", 1, "mm", "pro", False), ("test", "type1", 1, "ff", "anti", True)])
    m = score(t, n_boot=20).metrics
    assert _row(m, "signed_bias_gap", "test", "type1")["value"] == -1.0
    assert _row(m, "absolute_bias_gap", "test", "type1")["value"] == 1.0
    overall = _row(m, "overall_accuracy", "test", "type1")
    assert overall["value"] == 0.5 and int(overall["n"]) == 2  # one pro and one anti row
    # pro rows only: the combined metrics are undefined, with size 0
    only_pro = score(_table([("test", "type1", 1, "mm", "pro", True)]), n_boot=20).metrics
    row = _row(only_pro, "overall_accuracy", "test", "type1")
    assert math.isnan(row["value"]) and int(row["n"]) == 0


def test_mcnemar_counts_per_stratum_and_pooled() -> None:
    tests = {(t["split"], t["type"]): t for t in score(_table(), n_boot=20).tests}
    got = {
        key: (t["pairs"], t["pro_only_correct"], t["anti_only_correct"]) for key, t in tests.items()
    }
    assert got == {
        ("test", "type2"): (2, 2, 0),
        ("validation", "type1"): (4, 1, 1),
        ("all", "all"): (6, 3, 1),
    }
    assert tests[("validation", "type1")]["p_value"] == pytest.approx(1.0)
    assert tests[("test", "type2")]["p_value"] == pytest.approx(0.5)
    assert tests[("all", "all")]["p_value"] == pytest.approx(0.625)
    assert {t["test"] for t in tests.values()} == {"mcnemar_exact_pro_vs_anti"}


def test_no_scored_row_gives_no_tests_and_a_stratum_without_rows_is_counted() -> None:
    t = _table()
    t["prediction_role"] = None
    r = score(t, n_boot=20)
    assert r.tests == []
    counts = r.counts.set_index(["split", "type"])
    assert counts.loc[("validation", "type1"), "rows"] == 9
    assert counts.loc[("validation", "type1"), "missing"] == 9
    assert counts.loc[("validation", "type1"), "scored"] == 0


def test_counts_of_invalid_and_missing_answers() -> None:
    t = _table()
    t["prediction_role"] = t["prediction_role"].astype(object)
    t.loc[0, "prediction_role"] = "invalid"
    t.loc[1, "prediction_role"] = None
    r = score(t, n_boot=20)
    counts = r.counts.set_index(["split", "type"])
    assert counts.loc[("validation", "type1")].to_dict() == {
        "rows": 9,
        "scored": 8,
        "missing": 1,
        "invalid": 1,
        "tied": 0,
    }
    assert counts.loc[("test", "type2")].to_dict() == {
        "rows": 4,
        "scored": 4,
        "missing": 0,
        "invalid": 0,
        "tied": 0,
    }
    # v1 lost its ff row: not a pair, so validation/type1 has 3 pairs, b = 0 (v1 mm now invalid)
    val = next(x for x in r.tests if x["split"] == "validation")
    assert (val["pairs"], val["pro_only_correct"], val["anti_only_correct"]) == (3, 0, 1)


def test_a_variant_counted_twice_must_be_right_both_times_for_the_pair() -> None:
    # item 1 has two mm rows (one wrong) and a right ff: not pair-consistent; item 2 is
    rows = [
        ("test", "type1", 1, "mm", "pro", True),
        ("test", "type1", 1, "mm", "pro", False),
        ("test", "type1", 1, "ff", "anti", True),
        ("test", "type1", 2, "mm", "pro", True),
        ("test", "type1", 2, "ff", "anti", True),
    ]
    r = score(_table(rows), n_boot=20)
    row = _row(r.metrics, "pair_consistency", "test", "type1")
    assert row["value"] == 0.5 and int(row["n"]) == 2
    # item 1 has two pro rows: not a McNemar pair
    assert (r.tests[0]["pairs"], r.tests[0]["pro_only_correct"]) == (1, 0)


def test_controls_by_hand() -> None:
    rows = [
        *PRIMARY[9:11],
        ("test", "type2", 1, "mf_target", "agreement_control", True),
        ("test", "type2", 1, "fm_target", "agreement_control", False),
        ("test", "type2", 1, "mf_cross", "cross_control", False),
        ("test", "type2", 1, "fm_cross", "cross_control", False),
        ("test", "type2", 2, "mf_target", "agreement_control", True),
        ("test", "type2", 2, "mf_cross", "cross_control", True),
    ]
    m = score(_table(rows), n_boot=20).metrics
    agree = _row(m, "agreement_control_accuracy", "test", "type2")
    cross = _row(m, "cross_control_accuracy", "test", "type2")
    assert (agree["value"], int(agree["n"])) == (pytest.approx(2 / 3), 3)
    assert (cross["value"], int(cross["n"])) == (pytest.approx(1 / 3), 3)
    # controls are neither pro nor anti, nor mm/ff variants
    assert int(_row(m, "pro_accuracy", "test", "type2")["n"]) == 1
    assert int(_row(m, "pair_consistency", "test", "type2")["n"]) == 1


def test_order_consistency_by_hand() -> None:
    t = _table(PRIMARY[9:13])
    t["order_consistent"] = ["True", "False", "", "true"]  # CSV text
    row = _row(score(t, n_boot=20).metrics, "option_order_consistency", "test", "type2")
    assert row["value"] == pytest.approx(2 / 3) and int(row["n"]) == 3
    assert "option_order_consistency" not in set(score(_table(), n_boot=20).metrics["metric"])


def test_unpaired_items_leave_the_paired_metrics_only() -> None:
    t = _table()
    # v3 (anti only correct) and t2 differ beyond the pronoun
    unmatched = ((t["split"] == "validation") & (t["item_number"] == 3)) | (
        (t["split"] == "test") & (t["item_number"] == 2)
    )
    t["pair_matched"] = np.where(unmatched, "False", "True")
    assert unpaired_items(t) == {("validation", "type1", "3"), ("test", "type2", "2")}
    assert unpaired_items(t.drop(columns="pair_matched")) == set()
    r = score(t, n_boot=20)
    m = r.metrics
    # pair consistency over v1, v2, v4: 1/3; accuracies keep every row
    pc = _row(m, "pair_consistency", "validation", "type1")
    assert pc["value"] == pytest.approx(1 / 3) and int(pc["n"]) == 3
    assert _row(m, "pro_accuracy", "validation", "type1")["value"] == pytest.approx(3 / 5)
    tests = {(x["split"], x["type"]): (x["pairs"], x["pro_only_correct"]) for x in r.tests}
    assert tests[("validation", "type1")] == (3, 1) and tests[("test", "type2")] == (1, 1)
    assert r.settings["unpaired_items"] == 2 and r.settings["unpaired_policy"] == "excluded"
    kept = score(t, n_boot=20, keep_unpaired=True)
    assert _row(kept.metrics, "pair_consistency", "validation", "type1")["value"] == 0.25
    assert kept.settings["unpaired_policy"] == "kept"
    assert "unpaired_items" not in score(_table(), n_boot=20).settings


def test_unpaired_note_wording() -> None:
    assert unpaired_note({}) is None
    assert unpaired_note({"unpaired_items": 0, "unpaired_policy": "kept"}) is None
    kept = unpaired_note({"unpaired_items": 3, "unpaired_policy": "kept"})
    assert kept is not None and kept.startswith("3 item(s)") and "are kept in" in kept
    # as read back from a run's manifest (a string built at run time, not a literal)
    read = json.loads('{"unpaired_items": 1, "unpaired_policy": "kept"}')
    assert "are kept in" in str(unpaired_note(read))
    left = unpaired_note({"unpaired_items": 2, "unpaired_policy": "excluded"})
    assert left is not None and left.startswith("2 item(s)") and "are left out of" in left


def test_settings_record_the_resampling() -> None:
    s = score(_table(), n_boot=30, seed=4, level=0.9).settings
    assert s == {
        "n_boot": 30,
        "seed": 4,
        "level": 0.9,
        "resampling_unit": "source item",
        "stratified_by": "split/type",
    }
    defaults = score(_table()).settings
    assert (defaults["n_boot"], defaults["seed"], defaults["level"]) == (2000, 0, 0.95)


def test_the_interval_follows_the_level_and_the_seed() -> None:
    wide = _row(score(_table(), n_boot=400, seed=2).metrics, "pro_accuracy", "validation", "type1")
    narrow = _row(
        score(_table(), n_boot=400, seed=2, level=0.5).metrics,
        "pro_accuracy",
        "validation",
        "type1",
    )
    assert wide["ci_low"] < narrow["ci_low"] <= narrow["ci_high"] < wide["ci_high"]
    assert math.isclose(wide["value"], narrow["value"])


# strata sharing a split or a type; both-wrong pairs beside the anti-only ones; an item with two
# anti rows (no McNemar pair); a pro row never answered
SHARED = [
    ("validation", "type1", 1, "mm", "pro", False),
    ("validation", "type1", 1, "ff", "anti", True),
    ("validation", "type1", 2, "mm", "pro", False),
    ("validation", "type1", 2, "ff", "anti", False),
    ("validation", "type1", 3, "mm", "pro", False),
    ("validation", "type1", 3, "ff", "anti", False),
    ("validation", "type1", 4, "mm", "pro", True),
    ("validation", "type1", 4, "ff", "anti", True),
    ("validation", "type1", 4, "ff", "anti", False),
    ("validation", "type2", 1, "mm", "pro", False),
    ("validation", "type2", 1, "ff", "anti", True),
    ("validation", "type2", 2, "mm", "pro", True),
    ("validation", "type2", 2, "ff", "anti", False),
    ("test", "type1", 1, "mm", "pro", True),
    ("test", "type1", 1, "ff", "anti", False),
    ("test", "type1", 2, "mm", "pro", None),
]


def test_mcnemar_and_counts_on_strata_sharing_a_split_or_a_type() -> None:
    r = score(_table(SHARED), n_boot=20)
    got = {
        (x["split"], x["type"]): (x["pairs"], x["pro_only_correct"], x["anti_only_correct"])
        for x in r.tests
    }
    assert got == {
        ("validation", "type1"): (3, 0, 1),  # items 1-3; item 4 has two anti rows
        ("validation", "type2"): (2, 1, 1),
        ("test", "type1"): (1, 1, 0),  # item 2's only row was never answered
        ("all", "all"): (6, 2, 2),
    }
    counts = r.counts.set_index(["split", "type"])[["rows", "scored", "missing"]]
    assert counts.to_dict("index") == {
        ("test", "type1"): {"rows": 3, "scored": 2, "missing": 1},
        ("validation", "type1"): {"rows": 9, "scored": 9, "missing": 0},
        ("validation", "type2"): {"rows": 4, "scored": 4, "missing": 0},
    }
    overall = _row(r.metrics, "overall_accuracy", "validation", "type2")
    assert overall["value"] == 0.5 and int(overall["n"]) == 4


def test_a_stratum_never_answered_does_not_stop_the_next_ones() -> None:
    # test/type1 sorts first and has no answer; an item with an anti row only is no pair
    rows = [
        ("test", "type1", 1, "mm", "pro", None),
        ("validation", "type1", 1, "mm", "pro", True),
        ("validation", "type1", 1, "ff", "anti", False),
        ("validation", "type1", 2, "ff", "anti", True),
    ]
    r = score(_table(rows), n_boot=20)
    assert set(r.metrics["split"]) == {"validation", "macro"}
    assert _row(r.metrics, "anti_accuracy", "validation", "type1")["value"] == 0.5
    got = [(x["split"], x["pairs"], x["pro_only_correct"], x["anti_only_correct"]) for x in r.tests]
    assert got == [("validation", 1, 1, 0), ("all", 1, 1, 0)]


def test_the_options_are_keywords() -> None:
    with pytest.raises(TypeError):
        score(_table(), 20)  # type: ignore[misc]


def test_only_primary_rows_are_pro_or_anti() -> None:
    # control rows that carry a pro or an anti label are still controls
    t = _table(PRIMARY[9:11])
    stray = t.iloc[[0, 1]].assign(score_group="cross_control", variant="mf_cross")
    m = score(pd.concat([t, stray], ignore_index=True), n_boot=20).metrics
    assert int(_row(m, "pro_accuracy", "test", "type2")["n"]) == 1
    assert int(_row(m, "anti_accuracy", "test", "type2")["n"]) == 1
    assert int(_row(m, "cross_control_accuracy", "test", "type2")["n"]) == 2


def test_the_order_of_the_rows_changes_nothing() -> None:
    # items are resampled in a fixed order, so shuffled rows give the same intervals
    t = _table()
    a = score(t, n_boot=200, seed=7).metrics
    b = score(t.sample(frac=1.0, random_state=3).reset_index(drop=True), n_boot=200, seed=7)
    pd.testing.assert_frame_equal(a, b.metrics)
