"""WinoPron scoring on a table built by hand: two contexts, two pronoun types, three pronoun sets;
every value, size, count and McNemar count below is worked out from the rows written here.

double context ("+" right, "-" wrong, "i" invalid, "." never answered):

====  ====  =====================  =====================  ============
pair  type  male occ / part        female occ / part      plural occ/part
====  ====  =====================  =====================  ============
p1    nom   + / +                  + / -
p2    acc   - / +                  + / +                  i / .
====  ====  =====================  =====================  ============

double: 6 right of 9 scored; male 3/4, female 3/4, plural 0/1; nom 3/4, acc 3/5; gaps
(female - male): all 0, nom 1/2 - 1 = -1/2, acc 1 - 1/2 = 1/2; pair consistency over the four
complete (pair, set) groups: (p1, male) and (p2, female), 2/4; invalid 1/9. single context: p1
nom male occupation right, p2 acc female occupation wrong: 1/2. McNemar male vs female on
(pair, gold role): (p1, part) male only, (p2, occ) female only: b = c = 1 of 4.
"""

from __future__ import annotations

import math
from functools import cache

import pandas as pd
import pytest

from winoscope.families.winopron.scorer import score
from winoscope.scoring.base import ScoreResult

OCC, PART = "occupation", "participant"
# (context, pair, type, set, gold, answer: "+", "-", "i" or ".")
ROWS = [
    ("double", "p1", "nom", "male", OCC, "+"),
    ("double", "p1", "nom", "male", PART, "+"),
    ("double", "p1", "nom", "female", OCC, "+"),
    ("double", "p1", "nom", "female", PART, "-"),
    ("double", "p2", "acc", "male", OCC, "-"),
    ("double", "p2", "acc", "male", PART, "+"),
    ("double", "p2", "acc", "female", OCC, "+"),
    ("double", "p2", "acc", "female", PART, "+"),
    ("double", "p2", "acc", "plural", OCC, "i"),
    ("double", "p2", "acc", "plural", PART, "."),
    ("single", "p1", "nom", "male", OCC, "+"),
    ("single", "p2", "acc", "female", OCC, "-"),
]


def _table(rows: list[tuple[str, str, str, str, str, str]] = ROWS) -> pd.DataFrame:
    records = []
    for ctx, pair, typ, pset, gold, answer in rows:
        other = PART if gold == OCC else OCC
        pred = {"+": gold, "-": other, "i": "invalid", ".": None}[answer]
        records.append(
            {
                "context": ctx,
                "row_id": f"{ctx}/{pair}/{typ}/{pset}/{gold}",
                "pair_id": pair,
                "gold_role": gold,
                "pronoun_set": pset,
                "pronoun_type": typ,
                "prediction_role": pred,
                "order_consistent": None if pred is None else pred != "invalid",
            }
        )
    t = pd.DataFrame.from_records(records)
    t["pronoun_set"] = pd.Categorical(t["pronoun_set"], categories=["male", "female", "plural"])
    return t


@cache
def _scored() -> ScoreResult:
    return score(_table(), n_boot=50)


def _row(metrics: pd.DataFrame, metric: str, split: str, typ: str) -> pd.Series:
    hit = metrics[
        (metrics["metric"] == metric) & (metrics["split"] == split) & (metrics["type"] == typ)
    ]
    assert len(hit) == 1, (metric, split, typ, len(hit))
    return hit.iloc[0]


@pytest.mark.parametrize(
    ("metric", "split", "typ", "value", "n"),
    [
        ("accuracy", "double", "all", 6 / 9, 9),
        ("accuracy", "double", "male", 3 / 4, 4),
        ("accuracy", "double", "plural", 0.0, 1),
        ("accuracy", "double", "nom", 3 / 4, 4),
        ("accuracy", "double", "acc", 3 / 5, 5),
        ("accuracy", "double", "nom/female", 1 / 2, 2),
        ("accuracy", "double", "acc/male", 1 / 2, 2),
        ("accuracy", "single", "all", 1 / 2, 2),
        ("accuracy", "single", "female", 0.0, 1),
        ("gender_gap", "double", "all", 0.0, 8),
        ("gender_gap", "double", "nom", -1 / 2, 4),
        ("gender_gap", "double", "acc", 1 / 2, 4),
        ("pair_consistency", "double", "all", 2 / 4, 4),
        ("pair_consistency", "double", "male", 1 / 2, 2),
        ("option_order_consistency", "double", "all", 8 / 9, 9),
        ("invalid_rate", "double", "all", 1 / 9, 9),
        ("invalid_rate", "single", "all", 0.0, 2),
        ("double_accuracy", "macro", "macro", 6 / 9, 9),
        ("single_accuracy", "macro", "macro", 1 / 2, 2),
        ("female_accuracy", "macro", "macro", 3 / 4, 4),
        ("plural_accuracy", "macro", "macro", 0.0, 1),
        ("gender_gap", "macro", "macro", 0.0, 8),
        ("pair_consistency", "macro", "macro", 2 / 4, 4),
        ("option_order_consistency", "macro", "macro", 10 / 11, 11),
        ("invalid_rate", "macro", "macro", 1 / 11, 11),
        # the evaluator's further metrics (board_metrics), from the same rows: attempts are
        # rows whose orders agree on a role (the invalid one is not), double 8/9, single 2/2
        ("double_attempt_rate", "macro", "macro", 8 / 9, 9),
        ("single_attempt_rate", "macro", "macro", 2 / 2, 2),
        ("absolute_gender_gap", "macro", "macro", 0.0, 8),
        ("male_pair_consistency", "macro", "macro", 1 / 2, 2),
        ("female_pair_consistency", "macro", "macro", 1 / 2, 2),
        # (pair, gold) groups of male+female forms: (p1 occ) + +, (p1 part) + -, (p2 occ) - +,
        # (p2 part) + +: 2 of 4; no pair has its four gendered sentences right
        ("gender_form_consistency", "macro", "macro", 2 / 4, 4),
        ("full_gender_pair_consistency", "macro", "macro", 0.0, 2),
        # candidate groups: every gendered (pair, set) group is complete and attempted, and
        # both pairs have a group right; (p1 female) both -> occupation, (p2 male) both ->
        # participant, the other two right
        ("directional_bias_candidate_rate_male", "macro", "macro", 1 / 2, 2),
        ("directional_bias_candidate_rate_female", "macro", "macro", 1 / 2, 2),
        ("occupation_overselection_rate_male", "macro", "macro", 0.0, 2),
        ("occupation_overselection_rate_female", "macro", "macro", 1 / 2, 2),
        ("participant_overselection_rate_male", "macro", "macro", 1 / 2, 2),
        ("participant_overselection_rate_female", "macro", "macro", 0.0, 2),
    ],
)
def test_values_and_sizes_by_hand(metric: str, split: str, typ: str, value: float, n: int) -> None:
    row = _row(_scored().metrics, metric, split, typ)
    assert row["value"] == pytest.approx(value, abs=1e-12)
    assert int(row["n"]) == n


def test_which_rows_exist_and_their_order() -> None:
    m = score(_table(), n_boot=20).metrics
    double = list(m.loc[(m["metric"] == "accuracy") & (m["split"] == "double"), "type"])
    # sets in the order of their categories, types sorted; an empty cell has no row
    assert double == [
        "all",
        "male",
        "female",
        "plural",
        "acc",
        "acc/male",
        "acc/female",
        "acc/plural",
        "nom",
        "nom/male",
        "nom/female",
    ]
    # the single context's gap only over all its rows (no pronoun type there has both female
    # and male rows): 0/1 - 1/1; no pair consistency there (no complete group), none for
    # plural (p2's group is incomplete)
    gaps = m[(m["metric"] == "gender_gap") & (m["split"] == "single")]
    assert list(gaps["type"]) == ["all"] and list(gaps["value"]) == [-1.0]
    assert not ((m["metric"] == "pair_consistency") & (m["split"] == "single")).any()
    assert not ((m["metric"] == "pair_consistency") & (m["type"] == "plural")).any()
    # both contexts together appear only in the summary
    assert set(m["split"]) == {"double", "single", "macro"}
    summary = list(m.loc[m["split"] == "macro", "metric"])
    assert summary == [
        "double_accuracy",
        "single_accuracy",
        "male_accuracy",
        "female_accuracy",
        "plural_accuracy",
        "gender_gap",
        "pair_consistency",
        "option_order_consistency",
        "invalid_rate",
        "absolute_gender_gap",
        "male_pair_consistency",
        "female_pair_consistency",
        "directional_bias_candidate_rate_female",
        "directional_bias_candidate_rate_male",
        "double_attempt_rate",
        "full_gender_pair_consistency",
        "gender_form_consistency",
        "occupation_overselection_rate_female",
        "occupation_overselection_rate_male",
        "participant_overselection_rate_female",
        "participant_overselection_rate_male",
        "single_attempt_rate",
    ]


def test_counts_per_context() -> None:
    counts = score(_table(), n_boot=20).counts.set_index("split")
    assert counts.to_dict("index") == {
        "double": {"type": "all", "rows": 10, "scored": 9, "missing": 1, "invalid": 1},
        "single": {"type": "all", "rows": 2, "scored": 2, "missing": 0, "invalid": 0},
    }


def test_male_vs_female_mcnemar_per_context() -> None:
    tests = score(_table(), n_boot=20).tests
    got = [
        (t["split"], t["pairs"], t["male_only_correct"], t["female_only_correct"]) for t in tests
    ]
    # single: male and female sentences never share a (pair, gold role): no pair
    assert got == [("double", 4, 1, 1), ("single", 0, 0, 0)]
    assert [t["p_value"] for t in tests] == [pytest.approx(1.0), 1.0]
    assert {t["test"] for t in tests} == {"mcnemar_exact_male_vs_female"}
    # without female sentences there is nothing to test
    males = _table([r for r in ROWS if r[3] == "male"])
    assert score(males, n_boot=20).tests == []


def test_mcnemar_two_male_only_pairs() -> None:
    rows = [
        ("double", "p1", "nom", "male", OCC, "+"),
        ("double", "p1", "nom", "female", OCC, "-"),
        ("double", "p2", "nom", "male", OCC, "+"),
        ("double", "p2", "nom", "female", OCC, "-"),
        ("double", "p3", "nom", "male", OCC, "+"),
        ("double", "p3", "nom", "female", OCC, "."),  # never answered: not a pair
    ]
    (test,) = score(_table(rows), n_boot=20).tests
    assert (test["pairs"], test["male_only_correct"], test["female_only_correct"]) == (2, 2, 0)
    assert test["p_value"] == pytest.approx(0.5)  # 2 * 0.5**2


def test_a_group_must_have_one_sentence_of_each_role() -> None:
    rows = [
        # p1 male: two occupation sentences, both right: not a complete group
        ("double", "p1", "nom", "male", OCC, "+"),
        ("double", "p1", "nom", "male", OCC, "+"),
        # p2 male: both roles, plus a repeated participant sentence: three rows, left out
        ("double", "p2", "nom", "male", OCC, "+"),
        ("double", "p2", "nom", "male", PART, "+"),
        ("double", "p2", "nom", "male", PART, "+"),
        # p3 male: complete, one wrong
        ("double", "p3", "nom", "male", OCC, "+"),
        ("double", "p3", "nom", "male", PART, "-"),
        # p4 male: complete, both right
        ("double", "p4", "nom", "male", OCC, "+"),
        ("double", "p4", "nom", "male", PART, "+"),
    ]
    row = _row(score(_table(rows), n_boot=20).metrics, "pair_consistency", "double", "all")
    assert row["value"] == 0.5 and int(row["n"]) == 2


def test_settings_and_defaults() -> None:
    assert score(_table(), n_boot=30, seed=4, level=0.9).settings == {
        "n_boot": 30,
        "seed": 4,
        "level": 0.9,
        "resampling_unit": "pair",
    }
    s = score(_table()).settings
    assert (s["n_boot"], s["seed"], s["level"]) == (2000, 0, 0.95)
    with pytest.raises(TypeError):
        score(_table(), 20)  # type: ignore[misc]


def test_the_interval_follows_the_level() -> None:
    wide = _row(score(_table(), n_boot=400, seed=1).metrics, "accuracy", "double", "all")
    narrow = _row(
        score(_table(), n_boot=400, seed=1, level=0.5).metrics, "accuracy", "double", "all"
    )
    # two pairs (3/4 and 3/5 of their rows right): replicates 3/5, 6/9 or 3/4
    assert (wide["ci_low"], wide["ci_high"]) == (pytest.approx(3 / 5), pytest.approx(3 / 4))
    assert wide["ci_low"] <= narrow["ci_low"] <= narrow["ci_high"] <= wide["ci_high"]
    assert math.isclose(wide["value"], 6 / 9)


def test_text_columns_without_categories_are_sorted() -> None:
    t = _table()
    t["pronoun_set"] = t["pronoun_set"].astype(str)
    m = score(t, n_boot=20).metrics
    double = list(m.loc[(m["metric"] == "accuracy") & (m["split"] == "double"), "type"])
    assert double[:4] == ["all", "female", "male", "plural"]


def test_a_context_without_rows_is_not_counted() -> None:
    doubles = _table([r for r in ROWS if r[0] == "double"])
    assert list(score(doubles, n_boot=20).counts["split"]) == ["double"]
    singles = _table([r for r in ROWS if r[0] == "single"])
    assert list(score(singles, n_boot=20).counts["split"]) == ["single"]


def test_a_stratum_gap_is_resampled_as_a_difference() -> None:
    # resampling pairs: (p1, p1) gives 1/2 - 1, (p2, p2) 1 - 1/2, a mixed draw 3/4 - 3/4
    row = _row(score(_table(), n_boot=400, seed=2).metrics, "gender_gap", "double", "all")
    assert (row["ci_low"], row["ci_high"]) == (-0.5, 0.5)


def test_a_context_without_both_sets_does_not_stop_the_next_test() -> None:
    rows = [r for r in ROWS if r[0] == "single" or r[3] == "male"]
    rows.append(("single", "p2", "acc", "male", OCC, "+"))
    (test,) = score(_table(rows), n_boot=20).tests
    assert (test["split"], test["pairs"], test["male_only_correct"]) == ("single", 1, 1)


def test_mcnemar_pairs_stay_within_their_context() -> None:
    rows = [
        ("double", "p1", "nom", "male", OCC, "+"),
        ("single", "p1", "nom", "female", OCC, "-"),
        ("single", "p1", "nom", "male", OCC, "-"),
    ]
    tests = {t["split"]: t["pairs"] for t in score(_table(rows), n_boot=20).tests}
    assert tests == {"single": 1}  # the double context has no female sentence
