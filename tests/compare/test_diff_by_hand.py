"""The comparison of two runs on cases worked out by hand, without running a pipeline.

``difference_table`` gets metrics and replicates built here (B - A, the size change of a gap
without its declared twin, Holm over the family, the headlines); ``verdicts`` gets difference
tables built here, one branch of its wording at a time; ``diff`` runs on run directories
written here with a small stand-in task whose scorer resamples four rows with weight matrices
written out below, so every replicate, interval and p-value is computed here from them.
Values are chosen asymmetric: A - B would give other numbers than B - A.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
import pytest

from winoscope.compare.difference import diff, difference_table, verdicts
from winoscope.errors import DatasetError, ScoringError, TaskError
from winoscope.results.diff import DIFF_COLUMNS
from winoscope.results.rundir import RunDir
from winoscope.scoring.bootstrap import Draw, Replicates

NAN = math.nan
MACRO = ("macro", "macro")


def _p(d: list[float]) -> float:
    """The bootstrap p written out: 2 (min(#<=0, #>=0) + 1) / (B + 1), capped at 1."""
    below = sum(1 for x in d if x <= 0)
    above = sum(1 for x in d if x >= 0)
    return min(1.0, 2 * (min(below, above) + 1) / (len(d) + 1))


def _q(d: Any, level: float = 0.95) -> tuple[float, float]:
    a = (1 - level) / 2
    lo, hi = np.quantile(np.asarray(d, dtype=float), [a, 1 - a])
    return float(lo), float(hi)


def _metrics(rows: list[tuple[str, str, str, float, int]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["metric", "split", "type", "value", "n"])


def _get(t: pd.DataFrame, metric: str, measure: str = "B - A", split: str = "macro") -> pd.Series:
    sel = t[(t["metric"] == metric) & (t["measure"] == measure) & (t["split"] == split)]
    assert len(sel) == 1, sel
    return sel.iloc[0]


# --- difference_table ------------------------------------------------------------------------

# nine paired replicates per metric; B's are A's plus the difference wanted
RA = {
    "pro_accuracy": [0.5] * 9,
    "anti_accuracy": [0.7, 0.6, 0.8, 0.7, 0.9, 0.6, 0.7, 0.8, 0.7],
    "signed_bias_gap": [-0.2, 0.2, 0.1, -0.1, 0.0, 0.3, -0.3, 0.1, 0.2],
}
DIFFS = {
    "pro_accuracy": [0.1, 0.2, 0.3, 0.4, 0.5, 0.1, 0.2, 0.3, 0.4],  # all above 0: p 2/10
    "anti_accuracy": [-0.1, -0.2, -0.1, -0.3, 0.2, -0.1, -0.2, -0.1, -0.3],  # one above: 4/10
}
RB = {m: [a + d for a, d in zip(RA[m], DIFFS[m], strict=True)] for m in DIFFS}
# the gap's signs change: |B| - |A| is 0 twice (B = -A), above 0 otherwise
RB["signed_bias_gap"] = [0.2, -0.2, 0.3, 0.4, 0.5, 0.4, 0.5, -0.6, 0.7]


def _hand_tables() -> tuple[pd.DataFrame, pd.DataFrame, dict, dict]:
    ma = _metrics(
        [
            ("pro_accuracy", *MACRO, 0.5, 4),
            ("anti_accuracy", *MACRO, 0.7, 6),
            ("signed_bias_gap", *MACRO, -0.1, 10),
            ("overall_accuracy", *MACRO, 0.6, 10),
            ("pair_consistency", *MACRO, 0.4, 5),
            ("only_in_a", *MACRO, 1.0, 1),  # left out; the rows after it are not
            ("pro_accuracy", "test", "t1", 0.25, 2),
            ("anti_accuracy", "test", "t1", 0.5, 2),  # B's is undefined
        ]
    )
    mb = _metrics(
        [
            ("anti_accuracy", *MACRO, 0.55, 7),
            ("pro_accuracy", *MACRO, 0.75, 3),
            ("signed_bias_gap", *MACRO, 0.3, 10),
            ("overall_accuracy", *MACRO, 0.65, 10),
            ("pair_consistency", *MACRO, 0.6, 5),
            ("pro_accuracy", "test", "t1", 1.0, 2),
            ("anti_accuracy", "test", "t1", NAN, 0),
            ("only_in_b", *MACRO, 1.0, 1),
        ]
    )
    reps_a = {(m, *MACRO): np.array(v) for m, v in RA.items()}
    reps_b = {(m, *MACRO): np.array(v) for m, v in RB.items()}
    reps_a[("overall_accuracy", *MACRO)] = np.array([0.6] * 9)  # B has none: no interval
    reps_a[("pair_consistency", *MACRO)] = np.array([0.4, 0.5, 0.3])
    reps_b[("pair_consistency", *MACRO)] = np.array([0.6, 0.4, 0.7])
    reps_a[("anti_accuracy", "test", "t1")] = np.array([0.5, 1.0, 0.0])
    reps_b[("anti_accuracy", "test", "t1")] = np.array([NAN, NAN, NAN])
    return ma, mb, reps_a, reps_b


def test_difference_table_by_hand() -> None:
    ma, mb, reps_a, reps_b = _hand_tables()
    kept: dict = {}
    t = difference_table(ma, mb, reps_a, reps_b, keep=kept)
    assert list(t.columns) == DIFF_COLUMNS
    # A's rows in A's order, each once; a row either run lacks is left out; a twin-less gap
    # gets its size change right after it
    assert list(zip(t["metric"], t["split"], t["measure"], strict=True)) == [
        ("pro_accuracy", "macro", "B - A"),
        ("anti_accuracy", "macro", "B - A"),
        ("signed_bias_gap", "macro", "B - A"),
        ("signed_bias_gap", "macro", "|B| - |A|"),
        ("overall_accuracy", "macro", "B - A"),
        ("pair_consistency", "macro", "B - A"),
        ("pro_accuracy", "test", "B - A"),
        ("anti_accuracy", "test", "B - A"),
    ]
    pro = _get(t, "pro_accuracy")
    assert (pro["value_a"], pro["value_b"], pro["n_a"], pro["n_b"]) == (0.5, 0.75, 4, 3)
    assert pro["diff"] == pytest.approx(0.25)
    assert (pro["ci_low"], pro["ci_high"]) == pytest.approx(_q(DIFFS["pro_accuracy"]))
    assert pro["ci_low"] == pytest.approx(0.1) and pro["ci_high"] == pytest.approx(0.48)
    assert pro["p_boot"] == pytest.approx(0.2) == _p(DIFFS["pro_accuracy"])
    anti = _get(t, "anti_accuracy")
    assert (anti["value_a"], anti["value_b"], anti["n_a"], anti["n_b"]) == (0.7, 0.55, 6, 7)
    assert anti["diff"] == pytest.approx(-0.15)
    assert (anti["ci_low"], anti["ci_high"]) == pytest.approx(_q(DIFFS["anti_accuracy"]))
    assert anti["p_boot"] == pytest.approx(0.4)
    gap = _get(t, "signed_bias_gap")
    signed_d = np.array(RB["signed_bias_gap"]) - np.array(RA["signed_bias_gap"])
    assert (gap["value_a"], gap["value_b"]) == (-0.1, 0.3)
    assert gap["diff"] == pytest.approx(0.4)
    assert (gap["ci_low"], gap["ci_high"]) == pytest.approx(_q(signed_d))
    assert gap["p_boot"] == pytest.approx(0.6)  # two of nine below 0
    size = _get(t, "signed_bias_gap", "|B| - |A|")
    size_d = [0.0, 0.0, 0.2, 0.3, 0.5, 0.1, 0.2, 0.5, 0.5]  # |B*| - |A*| by hand
    assert (size["value_a"], size["value_b"], size["n_a"], size["n_b"]) == (0.1, 0.3, 10, 10)
    assert size["diff"] == pytest.approx(0.2)
    assert (size["ci_low"], size["ci_high"]) == pytest.approx(_q(size_d))
    assert size["p_boot"] == pytest.approx(0.6)  # the two zeros count on both sides
    np.testing.assert_allclose(kept[("signed_bias_gap", *MACRO, "|B| - |A|")], size_d, atol=1e-12)
    np.testing.assert_allclose(kept[("signed_bias_gap", *MACRO, "B - A")], signed_d)
    # replicates on one side only: a difference without interval or p, and none kept
    overall = _get(t, "overall_accuracy")
    assert overall["diff"] == pytest.approx(0.05)
    assert all(math.isnan(overall[c]) for c in ("ci_low", "ci_high", "p_boot", "p_holm"))
    assert ("overall_accuracy", *MACRO, "B - A") not in kept
    # an undefined value: no interval or p either, but its replicates are kept
    undefined = _get(t, "anti_accuracy", split="test")
    assert math.isnan(undefined["diff"]) and (undefined["n_a"], undefined["n_b"]) == (2, 0)
    assert all(math.isnan(undefined[c]) for c in ("ci_low", "ci_high", "p_boot"))
    assert np.isnan(kept[("anti_accuracy", "test", "t1", "B - A")]).all()
    # a stratum row decided by three replicates
    stratum = _get(t, "pro_accuracy", split="test")
    assert stratum["diff"] == 0.75 and math.isnan(stratum["ci_low"])  # no replicates there
    consistency = _get(t, "pair_consistency")
    assert (consistency["ci_low"], consistency["ci_high"]) == pytest.approx(_q([0.2, -0.1, 0.4]))
    assert consistency["p_boot"] == pytest.approx(1.0)  # 2 (1 + 1) / 4
    assert sorted(kept) == sorted(
        [
            ("pro_accuracy", *MACRO, "B - A"),
            ("anti_accuracy", *MACRO, "B - A"),
            ("signed_bias_gap", *MACRO, "B - A"),
            ("signed_bias_gap", *MACRO, "|B| - |A|"),
            ("pair_consistency", *MACRO, "B - A"),
            ("anti_accuracy", "test", "t1", "B - A"),
        ]
    )


def test_difference_table_family_holm_and_headlines_by_hand() -> None:
    ma, mb, reps_a, reps_b = _hand_tables()
    t = difference_table(ma, mb, reps_a, reps_b)
    key = list(zip(t["metric"], t["split"], t["measure"], strict=True))
    # the family: pro, anti and the gap's size, in the summary stratum only
    family = [k for k, f in zip(key, t["family"], strict=True) if f]
    assert family == [
        ("pro_accuracy", "macro", "B - A"),
        ("anti_accuracy", "macro", "B - A"),
        ("signed_bias_gap", "macro", "|B| - |A|"),
    ]
    # Holm by hand: p 0.2, 0.4, 0.6 -> 3 * 0.2, 2 * 0.4, max(0.8, 1 * 0.6)
    fam = t[t["family"]]
    assert fam["p_holm"].tolist() == pytest.approx([0.6, 0.8, 0.8])
    assert t.loc[~t["family"], "p_holm"].isna().all()
    # headlines: the four first of the summary (gap, overall, pro, anti); pair consistency
    # is fifth; stratum rows are none
    heads = [k for k, h in zip(key, t["headline"], strict=True) if h]
    assert heads == key[:5]
    assert t["headline"].dtype == bool and t["family"].dtype == bool


def test_a_declared_twin_is_the_gap_size_and_the_headline_through_the_family() -> None:
    ma = _metrics(
        [
            ("signed_bias_gap", *MACRO, 0.3, 8),
            ("absolute_bias_gap", *MACRO, 0.3, 8),
            ("pro_accuracy", *MACRO, 0.8, 4),
            ("anti_accuracy", *MACRO, 0.5, 4),
        ]
    )
    mb = ma.assign(value=[-0.1, 0.1, 0.6, 0.7])
    reps_a = {
        ("signed_bias_gap", *MACRO): np.array([0.3, 0.4, -0.2]),
        ("absolute_bias_gap", *MACRO): np.array([0.3, 0.4, 0.2]),
        ("pro_accuracy", *MACRO): np.array([0.8, 0.7, 0.9]),
        ("anti_accuracy", *MACRO): np.array([0.5, 0.3, 0.7]),
    }
    reps_b = {
        ("signed_bias_gap", *MACRO): np.array([-0.1, 0.1, 0.3]),
        ("absolute_bias_gap", *MACRO): np.array([0.1, 0.1, 0.3]),
        ("pro_accuracy", *MACRO): np.array([0.6, 0.6, 0.6]),
        ("anti_accuracy", *MACRO): np.array([0.7, 0.7, 0.6]),
    }
    t = difference_table(ma, mb, reps_a, reps_b)
    assert (t["measure"] == "B - A").all() and len(t) == 4  # no |B| - |A| row
    twin = _get(t, "absolute_bias_gap")
    assert twin["diff"] == pytest.approx(-0.2)
    assert (twin["ci_low"], twin["ci_high"]) == pytest.approx(_q([-0.2, -0.3, 0.1]))
    assert t["family"].tolist() == [False, True, True, True]
    # Holm by hand: p = 2 (1 + 1) / 4 = 1 for the twin, 1 for pro (all below: 2 / 4 = 0.5
    # capped by the running max) ...
    p = [_p([-0.2, -0.3, 0.1]), _p([-0.2, -0.1, -0.3]), _p([0.2, 0.4, -0.1])]
    assert t.loc[t["family"], "p_boot"].tolist() == pytest.approx(p) == [1.0, 0.5, 1.0]
    assert t.loc[t["family"], "p_holm"].tolist() == pytest.approx([1.0, 1.0, 1.0])
    # the absolute gap is no headline metric of its own, but it is in the family
    assert t["headline"].tolist() == [True, True, True, True]
    assert math.isnan(t["p_holm"].iloc[0])


def test_a_gap_reported_only_by_stratum_is_a_headline_in_every_stratum() -> None:
    rows = [
        ("pro_accuracy", *MACRO, 0.8, 4),
        ("anti_accuracy", *MACRO, 0.5, 4),
        ("signed_bias_gap", "test", "t1", 0.2, 4),
        ("signed_bias_gap", "test", "t2", -0.2, 4),
        ("pro_accuracy", "test", "t1", 0.9, 2),
    ]
    ma = _metrics(rows)
    mb = ma.assign(value=[0.7, 0.6, -0.1, -0.3, 0.8])
    only_a = {("signed_bias_gap", "test", "t1"): np.array([0.1, -0.2])}  # B has none
    t = difference_table(ma, mb, only_a, {})
    assert list(zip(t["metric"], t["type"], t["measure"], t["headline"], strict=True)) == [
        ("pro_accuracy", "macro", "B - A", True),
        ("anti_accuracy", "macro", "B - A", True),
        ("signed_bias_gap", "t1", "B - A", True),
        ("signed_bias_gap", "t1", "|B| - |A|", True),
        ("signed_bias_gap", "t2", "B - A", True),
        ("signed_bias_gap", "t2", "|B| - |A|", True),
        ("pro_accuracy", "t1", "B - A", False),
    ]
    sizes = t[t["measure"] == "|B| - |A|"]["diff"].tolist()
    assert sizes == pytest.approx([0.1 - 0.2, 0.3 - 0.2])
    assert t["family"].tolist() == [True, True, False, False, False, False, False]
    # no replicates on both sides anywhere: every p is NaN, Holm of NaNs stays NaN
    assert t["p_boot"].isna().all() and t["p_holm"].isna().all()


def test_the_level_sets_the_interval() -> None:
    ma = _metrics([("pro_accuracy", *MACRO, 0.5, 4)])
    mb = _metrics([("pro_accuracy", *MACRO, 0.6, 4)])
    d = np.arange(11.0) / 10  # B - A replicates 0, 0.1, ..., 1
    t = difference_table(
        ma, mb, {("pro_accuracy", *MACRO): np.zeros(11)}, {("pro_accuracy", *MACRO): d}, 0.5
    )
    # the 25% and 75% quantiles of 0..1 in steps of 0.1: positions 2.5 and 7.5
    assert (t["ci_low"].iloc[0], t["ci_high"].iloc[0]) == pytest.approx((0.25, 0.75))


def _constant_under_made(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Declare ``name`` fixed by construction under protocol ``made``, for one test."""
    from winoscope.scoring.metric import METRICS, get_metric

    made = dataclasses.replace(get_metric(name), constant_under=("made",))
    monkeypatch.setitem(METRICS._items, name, made)  # put back after the test


def test_n_missing_from_b_is_zero_and_a_protocol_constant_metric_leaves_the_family(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ma = _metrics([("pro_accuracy", *MACRO, 0.5, 4), ("anti_accuracy", *MACRO, 0.6, 4)])
    mb = ma.assign(value=[0.7, 0.2]).drop(columns="n").assign(n=[3, 2])
    reps = {(m, *MACRO): np.array([0.1, 0.2, 0.3]) for m in ("pro_accuracy", "anti_accuracy")}
    t = difference_table(ma, mb, reps, reps)
    assert t["family"].tolist() == [True, True]
    assert t["n_b"].tolist() == [3, 2]
    _constant_under_made(monkeypatch, "pro_accuracy")
    assert difference_table(ma, mb, reps, reps)["family"].tolist() == [True, True]
    t2 = difference_table(ma, mb, reps, reps, protocol="made")
    assert t2["family"].tolist() == [False, True]
    assert t2["headline"].tolist() == [True, True]  # still a headline, not a hypothesis
    assert math.isnan(t2["p_holm"].iloc[0]) and t2["p_holm"].iloc[1] == 1.0


def test_the_four_first_headlines_are_headlines_in_the_family_or_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Gap, overall, pro, anti, then pair consistency: the fifth is no headline, and the
    fourth (anti, here constant under the run's protocol, so outside the family) is one."""
    _constant_under_made(monkeypatch, "anti_accuracy")
    names = ["signed_bias_gap", "overall_accuracy", "pro_accuracy", "anti_accuracy"]
    ma = _metrics([(m, *MACRO, 0.5, 4) for m in [*names, "pair_consistency"]])
    mb = ma.assign(value=[0.1, 0.6, 0.7, 0.2, 0.9])
    t = difference_table(ma, mb, {}, {}, protocol="made")
    assert list(zip(t["metric"], t["measure"], strict=True))[:2] == [
        ("signed_bias_gap", "B - A"),
        ("signed_bias_gap", "|B| - |A|"),
    ]
    assert t["headline"].tolist() == [True, True, True, True, True, False]
    assert t["family"].tolist() == [False, True, False, True, False, False]


def test_nothing_in_common_gives_an_empty_table_with_every_column() -> None:
    ma = _metrics([("pro_accuracy", *MACRO, 0.5, 4)])
    mb = _metrics([("anti_accuracy", *MACRO, 0.5, 4)])
    t = difference_table(ma, mb, {}, {})
    assert t.empty and list(t.columns) == DIFF_COLUMNS
    assert t["headline"].dtype == bool and t["family"].dtype == bool


# --- verdicts --------------------------------------------------------------------------------


def _v(
    metric: str,
    diff_: float,
    lo: float,
    hi: float,
    *,
    measure: str = "B - A",
    a: float = 0.5,
    b: float = 0.75,
    p_boot: float = 0.04,
    p_holm: float = NAN,
    family: bool = False,
    headline: bool = True,
    split: str = "macro",
    typ: str = "macro",
) -> dict[str, Any]:
    return {
        "metric": metric,
        "split": split,
        "type": typ,
        "measure": measure,
        "value_a": a,
        "value_b": b,
        "diff": diff_,
        "ci_low": lo,
        "ci_high": hi,
        "p_boot": p_boot,
        "p_holm": p_holm,
        "n_a": 4,
        "n_b": 4,
        "headline": headline,
        "family": family,
    }


def test_verdicts_of_the_family_by_hand() -> None:
    rows = [
        _v("pro_accuracy", 0.25, 0.1, 0.4, p_holm=0.01, family=True),
        _v("anti_accuracy", -0.25, -0.4, -0.1, a=0.75, b=0.5, p_holm=0.02, family=True),
        # the interval excludes 0 but Holm's p is not below 0.05
        _v("pro_accuracy", 0.25, 0.1, 0.4, p_holm=0.05, family=True, split="test", typ="t1"),
        _v("anti_accuracy", -0.2, -0.3, -0.1, p_holm=NAN, family=True, split="all", typ="all"),
        _v("pro_accuracy", 0.05, -0.1, 0.2, p_holm=0.5, family=True, split="dev", typ="t2"),
        _v("overall_accuracy", 0.3, 0.2, 0.4, headline=False),
    ]
    lines = verdicts(pd.DataFrame(rows))
    assert lines == [
        "pro_accuracy: 0.500 -> 0.750; higher: +0.250 [+0.100, +0.400], Holm p = 0.01",
        "anti_accuracy: 0.750 -> 0.500; lower: -0.250 [-0.400, -0.100], Holm p = 0.02",
        "pro_accuracy (test/t1): 0.500 -> 0.750; no detectable change after Holm's adjustment "
        "for the 5 headline hypotheses: +0.250 [+0.100, +0.400] (unadjusted 95% interval), "
        "Holm p = 0.05",
        "anti_accuracy: 0.500 -> 0.750; no detectable change after Holm's adjustment for the 5 "
        "headline hypotheses: -0.200 [-0.300, -0.100] (unadjusted 95% interval), Holm p = nan",
        "pro_accuracy (dev/t2): 0.500 -> 0.750; no detectable change (+0.050, 95% interval "
        "[-0.100, +0.200] includes 0; Holm p = 0.5)",
    ]


def test_verdicts_of_exploratory_rows_by_hand() -> None:
    rows = [
        _v("overall_accuracy", 0.25, 0.1, 0.4, p_boot=0.04),
        _v("anti_accuracy", NAN, NAN, NAN),  # an undefined row ends no list
        _v("pair_consistency", -0.25, -0.4, -0.1, a=0.6, b=0.35, p_boot=0.03),
        _v("pro_accuracy", 0.05, -0.1, 0.2, p_boot=0.6, split="test", typ="t1"),
    ]
    lines = verdicts(pd.DataFrame(rows))
    assert lines == [
        "overall_accuracy: 0.500 -> 0.750; higher: +0.250 [+0.100, +0.400], p = 0.04 "
        "(exploratory, not in the Holm family)",
        "anti_accuracy: not defined in both runs",
        "pair_consistency: 0.600 -> 0.350; lower: -0.250 [-0.400, -0.100], p = 0.03 "
        "(exploratory, not in the Holm family)",
        "pro_accuracy (test/t1): 0.500 -> 0.750; no detectable change (+0.050, 95% interval "
        "[-0.100, +0.200] includes 0; exploratory)",
    ]
    # without a family column every row is exploratory
    table = pd.DataFrame(rows).drop(columns="family").iloc[:1]
    assert verdicts(table) == [lines[0]]


def test_verdicts_of_a_gap_without_a_twin_by_hand() -> None:
    gap = "signed_bias_gap"

    def pair(size: tuple[float, float, float], signed: tuple[float, float, float], **kw: Any):
        return [
            _v(gap, *signed, a=-0.1, b=0.2, p_boot=0.3),
            _v(gap, *size, measure="|B| - |A|", a=0.1, b=0.2, **kw),
        ]

    rows = [
        # the size grows and the signed change excludes 0: larger
        *pair((0.1, 0.05, 0.15), (0.3, 0.02, 0.5), p_holm=0.01, family=True),
        # the size grows but the signed change includes 0: no change
        *[
            {**r, "split": "test", "type": "t1"}
            for r in pair((0.1, 0.05, 0.15), (0.3, -0.02, 0.5), p_holm=0.01, family=True)
        ],
        # exploratory size that shrinks
        *[
            {**r, "split": "test", "type": "t2"}
            for r in pair((-0.1, -0.15, -0.05), (-0.3, -0.5, -0.2), p_boot=0.02)
        ],
        # exploratory size that grows (the signed change excludes 0) and one that includes 0
        *[
            {**r, "split": "dev", "type": "t1"}
            for r in pair((0.1, 0.05, 0.15), (0.3, 0.1, 0.5), p_boot=0.02)
        ],
        *[
            {**r, "split": "dev", "type": "t2"}
            for r in pair((0.1, -0.05, 0.15), (0.3, 0.1, 0.5), p_boot=0.5)
        ],
    ]
    lines = verdicts(pd.DataFrame(rows))
    signed_tail = "; signed change +0.300 [+0.020, +0.500]"
    assert lines == [
        "signed_bias_gap: -0.100 -> 0.200; larger gap: |gap| +0.100 [+0.050, +0.150], "
        "Holm p = 0.01" + signed_tail,
        "signed_bias_gap (test/t1): -0.100 -> 0.200; no detectable change (|gap| +0.100, 95% "
        "interval [+0.050, +0.150] includes 0; Holm p = 0.01); signed change +0.300 "
        "[-0.020, +0.500]",
        "signed_bias_gap (test/t2): -0.100 -> 0.200; smaller gap: |gap| -0.100 [-0.150, "
        "-0.050], p = 0.02 (exploratory, not in the Holm family); signed change -0.300 "
        "[-0.500, -0.200]",
        "signed_bias_gap (dev/t1): -0.100 -> 0.200; larger gap: |gap| +0.100 [+0.050, +0.150], "
        "p = 0.02 (exploratory, not in the Holm family); signed change +0.300 [+0.100, +0.500]",
        "signed_bias_gap (dev/t2): -0.100 -> 0.200; no detectable change (|gap| +0.100, 95% "
        "interval [-0.050, +0.150] includes 0; exploratory); signed change +0.300 "
        "[+0.100, +0.500]",
    ]


def test_a_family_gap_that_shrinks_and_a_gap_without_a_size_row() -> None:
    rows = [
        _v("signed_bias_gap", 0.2, 0.1, 0.3, a=-0.3, b=-0.1, p_boot=0.2),
        _v("signed_bias_gap", -0.2, -0.3, -0.1, measure="|B| - |A|", p_holm=0.03, family=True),
        # a gap with no size row speaks through its signed change
        _v("signed_bias_gap", -0.2, -0.3, -0.1, a=0.3, b=0.1, p_boot=0.02, split="s", typ="t"),
        # an undefined size
        _v("signed_bias_gap", 0.2, 0.1, 0.3, split="u", typ="t"),
        _v("signed_bias_gap", NAN, NAN, NAN, measure="|B| - |A|", split="u", typ="t"),
        # the size shrinks while the signed change includes 0: smaller all the same (the size
        # row first: each row is found by its measure, not its place)
        _v("signed_bias_gap", -0.2, -0.3, -0.1, measure="|B| - |A|", split="v", typ="t"),
        _v("signed_bias_gap", 0.4, -0.1, 0.9, a=-0.3, b=0.1, p_boot=0.3, split="v", typ="t"),
        # the size grows and the signed change lies below 0: larger
        _v("signed_bias_gap", -0.3, -0.5, -0.1, a=-0.1, b=-0.4, p_boot=0.02, split="w", typ="t"),
        _v("signed_bias_gap", 0.3, 0.1, 0.5, measure="|B| - |A|", split="w", typ="t"),
    ]
    lines = verdicts(pd.DataFrame(rows))
    assert lines == [
        "signed_bias_gap: -0.300 -> -0.100; smaller gap: |gap| -0.200 [-0.300, -0.100], "
        "Holm p = 0.03; signed change +0.200 [+0.100, +0.300]",
        "signed_bias_gap (s/t): 0.300 -> 0.100; smaller gap: |gap| -0.200 [-0.300, -0.100], "
        "p = 0.02 (exploratory, not in the Holm family); signed change -0.200 [-0.300, -0.100]",
        "signed_bias_gap (u/t): not defined in both runs",
        "signed_bias_gap (v/t): -0.300 -> 0.100; smaller gap: |gap| -0.200 [-0.300, -0.100], "
        "p = 0.04 (exploratory, not in the Holm family); signed change +0.400 [-0.100, +0.900]",
        "signed_bias_gap (w/t): -0.100 -> -0.400; larger gap: |gap| +0.300 [+0.100, +0.500], "
        "p = 0.04 (exploratory, not in the Holm family); signed change -0.300 [-0.500, -0.100]",
    ]


def test_verdicts_of_a_gap_with_its_declared_twin_by_hand() -> None:
    rows = [
        _v("signed_bias_gap", -0.2, -0.35, -0.05, a=0.3, b=0.1, p_boot=0.2),
        _v("absolute_bias_gap", -0.25, -0.3, -0.1, a=0.35, b=0.1, p_holm=0.01, family=True),
        _v("pro_accuracy", 0.1, 0.05, 0.2, p_holm=0.02, family=True),
        # in this stratum the twin is a headline and the signed gap is not: its own line
        _v("signed_bias_gap", 0.1, 0.05, 0.2, headline=False, split="test", typ="t1"),
        _v("absolute_bias_gap", 0.1, 0.05, 0.2, a=0.2, b=0.3, split="test", typ="t1"),
        # the twin's row is the one of the same split and type, named exactly
        _v("absolute_bias_gap", 0.5, 0.3, 0.6, headline=False, split="cat", typ="t1"),
        _v("absolute_bias_gap", 0.4, 0.3, 0.5, headline=False, split="dev", typ="t2"),
        _v("absolute_bias_gap", 0.6, 0.5, 0.7, headline=False, split="dev", typ="t0"),
        _v("aardvark", 0.7, 0.6, 0.8, headline=False, split="dev", typ="t1"),
        # the size grows from a gap of 0, the signed change excludes 0 as well: larger
        _v("signed_bias_gap", 0.1, 0.02, 0.2, a=0.0, b=0.1, split="dev", typ="t1"),
        _v("absolute_bias_gap", 0.1, 0.02, 0.2, a=0.0, b=0.1, split="dev", typ="t1"),
    ]
    lines = verdicts(pd.DataFrame(rows))
    assert lines == [
        "signed_bias_gap: 0.300 -> 0.100; smaller gap: |pro − anti| accuracy -0.250 "
        "[-0.300, -0.100], Holm p = 0.01; signed change -0.200 [-0.350, -0.050]",
        "pro_accuracy: 0.500 -> 0.750; higher: +0.100 [+0.050, +0.200], Holm p = 0.02",
        "absolute_bias_gap (test/t1): 0.200 -> 0.300; higher: +0.100 [+0.050, +0.200], p = 0.04 "
        "(exploratory, not in the Holm family)",
        "signed_bias_gap (dev/t1): 0.000 -> 0.100; larger gap: |pro − anti| accuracy +0.100 "
        "[+0.020, +0.200], p = 0.04 (exploratory, not in the Holm family); signed change "
        "+0.100 [+0.020, +0.200]",
    ]


# --- diff with a stand-in task ---------------------------------------------------------------

# counts of the four rows (pro, pro, anti, anti) in four resamples; each resample draws two
# pro and two anti rows, so a resampled accuracy is (w1 r1 + w2 r2) / 2
WEIGHTS = {
    0: np.array([[2, 0, 1, 1], [0, 2, 2, 0], [1, 1, 0, 2], [2, 0, 2, 0]], dtype=float),
    1: np.array([[0, 2, 0, 2], [1, 1, 1, 1], [2, 0, 2, 0], [1, 1, 0, 2]], dtype=float),
}


class StandIn:
    """A task whose scorer reports pro and anti accuracy (macro) with hand-drawn resamples."""

    def __init__(self, *, column: str = "prediction_role", from_frame: Any = None) -> None:
        self.name = "stand-in"
        self.prediction_column = column
        self.from_frame = from_frame
        self.calls: list[dict[str, Any]] = []
        self.settings: dict[str, Any] | None = {"resampling_unit": "row"}
        self.replicates = True
        self.extra_draw_on = 0  # the call (1: A, 2: B) that draws once more

    @property
    def scorer(self) -> Any:
        return self.score

    @property
    def data(self) -> Any:
        return SimpleNamespace(from_frame=self.from_frame)

    @property
    def primary(self) -> Any:
        return SimpleNamespace(prediction_column=self.prediction_column)

    def score(self, table: pd.DataFrame, n_boot: int, seed: int, source: str) -> Any:
        col = self.prediction_column
        self.calls.append(
            {"seed": seed, "n_boot": n_boot, "source": source, "pred": table[col].tolist()}
        )
        w = WEIGHTS[seed % 2]
        returned = Replicates(draws=[Draw.of(w)])
        if len(self.calls) == self.extra_draw_on:
            returned.draws.append(Draw.of(w))
        if col == "predicted_clusters":  # the coreference stand-in: values by call
            right = np.array([1.0, 0.0, 1.0, 1.0]) if len(self.calls) == 1 else np.ones(4)
        else:
            right = (table[col] == table["coreference_role"]).to_numpy(dtype=float)
        rows = []
        for name, cols in (("pro_accuracy", [0, 1]), ("anti_accuracy", [2, 3])):
            reps = w[:, cols] @ right[cols] / 2
            if self.replicates:
                returned.keep(name, "macro", "macro", reps)
            n = int(table[col].iloc[cols].notna().sum())
            rows.append((name, "macro", "macro", float(right[cols].mean()), n))
        return SimpleNamespace(metrics=_metrics(rows), settings=self.settings, replicates=returned)


def _predictions(preds: list[Any], gold_column: str = "coreference_role") -> pd.DataFrame:
    return pd.DataFrame(
        {
            "row_id": ["r1", "r2", "r3", "r4"],
            "split": ["test"] * 4,
            "type": ["t1", "t1", "t2", "t2"],
            "condition": ["pro", "pro", "anti", "anti"],
            gold_column: ["target", "target", "distractor", "target"],
            "prediction_role": preds,
        }
    )


def _write(tmp: Path, name: str, pred: pd.DataFrame, **manifest: Any) -> RunDir:
    path = tmp / name
    path.mkdir()
    pred.to_parquet(path / "predictions.parquet", index=False)
    base: dict[str, Any] = {
        "task": "stand-in",
        "model": {"spec": f"model-{name}", "kind": "baseline"},
        "dataset": {"table_sha256": "t"},
    }
    return RunDir(path, {**base, **manifest}, pd.DataFrame())


# A: r1 right, r2 wrong, r3 right, r4 right; B: r1, r2 right, r3 wrong, r4 right
PRED_A = ["target", "distractor", "distractor", "target"]
PRED_B = ["target", "target", "target", "target"]
# by hand with WEIGHTS[0]: pro A* (1, 0, .5, 1), B* (1, 1, 1, 1); anti A* (1, 1, 1, 1),
# B* (.5, 0, 1, 0)
PRO_D = [0.0, 1.0, 0.5, 0.0]
ANTI_D = [-0.5, -1.0, 0.0, -1.0]


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch) -> StandIn:
    task = StandIn()
    monkeypatch.setattr("winoscope.tasks.get_task", lambda name: task)
    return task


def test_diff_by_hand(stand_in: StandIn, tmp_path: Path) -> None:
    a = _write(tmp_path, "a", _predictions(PRED_A), seed=4, bootstrap={"replicates": 4})
    b = _write(
        tmp_path,
        "b",
        _predictions(PRED_B),
        seed=4,
        tags={"method": "steer"},
        prompt_template={"name": "p", "text": "hello"},
    )
    d = diff(a, b)
    # both scored with A's seed and replicate count, each from its own directory
    assert [(c["seed"], c["n_boot"], c["source"]) for c in stand_in.calls] == [
        (4, 4, str(a.path)),
        (4, 4, str(b.path)),
    ]
    assert (d.task, d.run_a, d.run_b) == ("stand-in", str(a.path), str(b.path))
    assert (d.model_a, d.model_b) == ("model-a", "model-b [method=steer]")
    assert d.data == "dataset.table_sha256=t"
    t = d.table
    assert t["metric"].tolist() == ["pro_accuracy", "anti_accuracy"]
    assert t["diff"].tolist() == [0.5, -0.5]  # pro 0.5 -> 1, anti 1 -> 0.5
    assert (t["value_a"].tolist(), t["value_b"].tolist()) == ([0.5, 1.0], [1.0, 0.5])
    np.testing.assert_allclose(d.replicates[("pro_accuracy", *MACRO, "B - A")], PRO_D)
    np.testing.assert_allclose(d.replicates[("anti_accuracy", *MACRO, "B - A")], ANTI_D)
    assert (t["ci_low"].iloc[0], t["ci_high"].iloc[0]) == pytest.approx(_q(PRO_D))
    assert (t["ci_low"].iloc[1], t["ci_high"].iloc[1]) == pytest.approx(_q(ANTI_D))
    assert t["p_boot"].tolist() == [1.0, 0.8]  # 2 * 3 / 5 capped; 2 * 2 / 5
    assert t["p_holm"].tolist() == [1.0, 1.0]  # 2 * 0.8 capped, then the running 1
    assert t["family"].tolist() == [True, True]
    assert d.verdicts == [
        "pro_accuracy: 0.500 -> 1.000; no detectable change (+0.500, 95% interval "
        "[+0.000, +0.962] includes 0; Holm p = 1)",
        "anti_accuracy: 1.000 -> 0.500; no detectable change after Holm's adjustment for the 2 "
        "headline hypotheses: -0.500 [-1.000, -0.038] (unadjusted 95% interval), Holm p = 1",
    ]
    # McNemar on row correctness: r1 both right, r2 only B, r3 only A, r4 both
    assert d.mcnemar[
        ["split", "type", "rows", "both_right", "only_a_right", "only_b_right"]
    ].values.tolist() == [
        ["test", "t1", 2, 1, 0, 1],
        ["test", "t2", 2, 1, 1, 0],
        ["all", "all", 4, 2, 1, 1],
    ]
    assert d.notes == []
    assert d.settings == {
        "n_boot": 4,
        "seed": 4,
        "level": 0.95,
        "paired": True,
        "resampling_unit": "row",
        "rows": 4,
        "rows_compared": 4,
        "rows_unanswered_a": 0,
        "rows_unanswered_b": 0,
        "prompt_a": "none",
        "prompt_b": "p@" + hashlib.sha256(b"hello").hexdigest()[:10],
        "tags_a": {},
        "tags_b": {"method": "steer"},
        "comparability": [],
        "p_boot": "two-sided bootstrap p of B - A = 0",
        "holm_family": "pro accuracy, anti accuracy",
        "p_holm": "Holm across the headline hypotheses (holm_family); other rows exploratory",
        "mcnemar": "exact, on row correctness of rows both runs answered; Holm across strata",
        # the stand-in runs record no counts and no outcome: no rate to give, neither degenerate
        "answers_a": "invalid – (0 of 0 scored rows) · failed – (0 of 0 requests)",
        "answers_b": "invalid – (0 of 0 scored rows) · failed – (0 of 0 requests)",
        "degenerate": [],
        "sample_banner": None,
    }


def test_diff_unpaired_uses_the_next_seed_and_the_defaults(
    stand_in: StandIn, tmp_path: Path
) -> None:
    a = _write(tmp_path, "a", _predictions(PRED_A))  # no seed, no bootstrap recorded
    b = _write(tmp_path, "b", _predictions(PRED_B), seed=9)
    stand_in.settings = None
    d = diff(a, b, paired=False, level=0.5)
    assert [(c["seed"], c["n_boot"]) for c in stand_in.calls] == [(0, 2000), (1, 2000)]
    # B resampled with WEIGHTS[1]: anti B* (1, .5, 0, 1) against A* (1, 1, 1, 1)
    unpaired = [0.0, -0.5, -1.0, 0.0]
    np.testing.assert_allclose(d.replicates[("anti_accuracy", *MACRO, "B - A")], unpaired)
    anti = _get(d.table, "anti_accuracy")
    assert (anti["ci_low"], anti["ci_high"]) == pytest.approx(_q(unpaired, 0.5))
    assert (anti["ci_low"], anti["ci_high"]) == pytest.approx((-0.625, 0.0))
    assert (d.settings["paired"], d.settings["level"], d.settings["seed"]) == (False, 0.5, 0)
    assert d.settings["n_boot"] == 2000 and d.settings["resampling_unit"] == ""
    assert d.settings["comparability"] == []  # only B records a seed: nothing differs
    # explicit values win over the manifest's
    stand_in.calls.clear()
    a2 = _write(tmp_path, "a2", _predictions(PRED_A), seed=2, bootstrap={"replicates": 7})
    d2 = diff(a2, b, n_boot=3, seed=5)
    assert [(c["seed"], c["n_boot"]) for c in stand_in.calls] == [(5, 3), (5, 3)]
    assert d2.settings["comparability"] == ["stand-in: runs use different seeds (2: a2; 9: b)"]
    stand_in.calls.clear()
    diff(a2, b, seed=0)  # a seed of 0 is a seed, not "unset"
    assert [(c["seed"], c["n_boot"]) for c in stand_in.calls] == [(0, 7), (0, 7)]
    stand_in.calls.clear()
    diff(a2, b, seed=5, paired=False)  # the next seed, from an odd one too
    assert [c["seed"] for c in stand_in.calls] == [5, 6]


def test_rows_either_run_left_unanswered_are_left_out_of_both(
    stand_in: StandIn, tmp_path: Path
) -> None:
    a = _write(tmp_path, "a", _predictions(["target", "distractor", "distractor", " "]))
    b = _write(tmp_path, "b", _predictions(["target", None, "target", ""]))
    d = diff(a, b)
    assert [[None if pd.isna(x) else x for x in c["pred"]] for c in stand_in.calls] == [
        ["target", None, "distractor", None],
        ["target", None, "target", None],
    ]
    assert (d.settings["rows"], d.settings["rows_compared"]) == (4, 2)
    assert (d.settings["rows_unanswered_a"], d.settings["rows_unanswered_b"]) == (1, 2)
    assert d.notes == ["rows unanswered: 1 in A, 2 in B; 2 row(s) left out of both"]
    assert d.table["n_a"].tolist() == [1, 1] and d.table["n_b"].tolist() == [1, 1]
    allrows = d.mcnemar[d.mcnemar["split"] == "all"].iloc[0]
    assert (allrows["rows"], allrows["both_right"], allrows["only_a_right"]) == (2, 1, 1)


def test_a_task_s_own_table_is_scored_and_compared(stand_in: StandIn, tmp_path: Path) -> None:
    """With ``from_frame`` the task builds its table from the predictions: the gold label is
    the table's (the predictions call it ``gold`` here), and its source is the file."""
    seen: list[str] = []

    def from_frame(raw: pd.DataFrame, source: Any) -> Any:
        seen.append(source.location)
        assert source.kind == "file"
        return SimpleNamespace(table=raw.rename(columns={"gold": "coreference_role"}))

    stand_in.from_frame = from_frame
    a = _write(tmp_path, "a", _predictions(PRED_A, "gold"))
    b = _write(tmp_path, "b", _predictions(PRED_B, "gold"))
    d = diff(a, b)
    assert seen == [str(a.path / "predictions.parquet"), str(b.path / "predictions.parquet")]
    assert d.table["diff"].tolist() == [0.5, -0.5]
    assert d.mcnemar["rows"].tolist() == [2, 2, 4]
    # without from_frame the predictions are the table: no gold label, no McNemar
    stand_in.from_frame = None
    with pytest.raises(KeyError):  # the stand-in scorer itself needs the gold column
        diff(a, b)


def test_no_gold_label_per_row_means_no_mcnemar(stand_in: StandIn, tmp_path: Path) -> None:
    stand_in.prediction_column = "prediction"
    pa = _predictions(PRED_A).rename(columns={"prediction_role": "prediction"})
    pb = _predictions(PRED_B).rename(columns={"prediction_role": "prediction"})
    d = diff(_write(tmp_path, "a", pa), _write(tmp_path, "b", pb))
    assert d.mcnemar.empty and list(d.mcnemar.columns)[:3] == ["split", "type", "rows"]
    assert d.notes == ["stand-in has no gold label per row: no McNemar test"]
    # one run with a gold label is not enough: both need one
    d = diff(_write(tmp_path, "a2", pa.assign(label="target")), _write(tmp_path, "b2", pb))
    assert d.mcnemar.empty
    assert d.notes == ["stand-in has no gold label per row: no McNemar test"]
    d = diff(_write(tmp_path, "a3", pa), _write(tmp_path, "b3", pb.assign(label="target")))
    assert d.mcnemar.empty
    assert d.notes == ["stand-in has no gold label per row: no McNemar test"]


def test_coreference_rows_are_compared_by_their_pronoun_link(
    stand_in: StandIn, tmp_path: Path
) -> None:
    """The pronoun link comes from the predictions' standard columns (the task's table lacks
    them here, and numbers its rows otherwise); a failed request leaves a row out of both."""
    stand_in.prediction_column = "".join(["predicted", "_clusters"])  # known by its value

    def from_frame(raw: pd.DataFrame, source: Any) -> Any:
        table = raw[["split", "type"]].set_axis(raw.index + 100)
        return SimpleNamespace(table=table.assign(predicted_clusters="[]"))

    stand_in.from_frame = from_frame
    gold = "[[[0, 1], [4, 5]], [[2, 3]]]"
    target, distractor = "[[[0, 1], [4, 5]]]", "[[[2, 3], [4, 5]]]"

    def run(name: str, clusters: list[str], status: list[str]) -> RunDir:
        pred = pd.DataFrame(
            {
                "row_id": ["d1", "d2", "d3", "d4"],
                "split": ["test"] * 4,
                "type": ["t1"] * 4,
                "gold_clusters": [gold] * 4,
                "pronoun_span": ["[4, 5]"] * 4,
                "target_span": ["[0, 1]"] * 4,
                "distractor_span": ["[2, 3]"] * 4,
                "referent_role": ["target"] * 4,
                "predicted_clusters": clusters,
                "response_status": status,
            }
        )
        return _write(tmp_path, name, pred)

    a = run("a", [target, distractor, target, target], ["ok"] * 4)
    b = run("b", [distractor, target, "[]", target], ["ok", "ok", "error", "ok"])
    d = diff(a, b)
    assert stand_in.calls[0]["pred"] == ["[]"] * 4  # the task's own table was scored
    assert (d.settings["rows_compared"], d.settings["rows_unanswered_b"]) == (3, 1)
    assert d.notes == ["rows unanswered: 0 in A, 1 in B; 1 row(s) left out of both"]
    # d1 only A right, d2 only B right, d4 both right; d3 left out
    assert d.mcnemar[
        ["split", "rows", "both_right", "only_a_right", "only_b_right", "both_wrong"]
    ].values.tolist() == [
        ["test", 3, 1, 1, 1, 0],
        ["all", 3, 1, 1, 1, 0],
    ]


def test_refusals(stand_in: StandIn, tmp_path: Path) -> None:
    a = _write(tmp_path, "a", _predictions(PRED_A))
    other = _write(tmp_path, "o", _predictions(PRED_B), task="another")
    with pytest.raises(
        TaskError, match="the runs are of different tasks: a is stand-in, o is another"
    ):
        diff(a, other)
    with pytest.raises(TaskError, match="different tasks: o is another, a is stand-in"):
        diff(other, a)
    part = _write(
        tmp_path, "p", _predictions(PRED_B), partial={"limit": 2, "rows": 4, "rows_total": 8}
    )
    with pytest.raises(TaskError, match=r"^not comparable: a is a full run and p is a partial run"):
        diff(a, part)
    same_part = _write(tmp_path, "p2", _predictions(PRED_A), partial={"limit": 2})
    assert diff(same_part, part).settings["rows"] == 4  # the same part: compared
    moved = _write(tmp_path, "m", _predictions(PRED_B), dataset={"table_sha256": "u"})
    with pytest.raises(DatasetError, match="different data"):
        diff(a, moved)
    with pytest.raises(TypeError):  # every option is named: a third run is no option
        diff(a, same_part, None)  # type: ignore[misc]
    fewer = _write(tmp_path, "f", _predictions(PRED_B).iloc[:3])
    with pytest.raises(DatasetError, match="cover different rows"):
        diff(a, fewer)
    assert stand_in.calls == [
        {"seed": 0, "n_boot": 2000, "source": str(tmp_path / "p2"), "pred": PRED_A},
        {"seed": 0, "n_boot": 2000, "source": str(tmp_path / "p"), "pred": PRED_B},
    ]


def test_the_protocol_of_run_a_decides_which_metrics_are_constant(
    stand_in: StandIn, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:

    _constant_under_made(monkeypatch, "pro_accuracy")
    a = _write(tmp_path, "a", _predictions(PRED_A), protocol="made")
    b = _write(tmp_path, "b", _predictions(PRED_B), protocol="made")
    d = diff(a, b)
    assert d.table["family"].tolist() == [False, True]
    assert d.settings["holm_family"] == "anti accuracy"
    assert d.table["p_holm"].iloc[1] == 0.8  # a family of one: its own p


@pytest.mark.parametrize("which", ["a", "b"])
def test_a_missing_prediction_column_is_refused_naming_the_file(
    which: str, stand_in: StandIn, tmp_path: Path
) -> None:
    good, bad = _predictions(PRED_A), _predictions(PRED_B).drop(columns="prediction_role")
    a = _write(tmp_path, "a", bad if which == "a" else good)
    b = _write(tmp_path, "b", bad if which == "b" else good)
    with pytest.raises(DatasetError, match="no 'prediction_role' column to compare") as err:
        diff(a, b)
    assert err.value.file == str(tmp_path / which / "predictions.parquet")


def test_a_scorer_without_replicates_or_with_other_draws_is_refused(
    stand_in: StandIn, tmp_path: Path
) -> None:
    a = _write(tmp_path, "a", _predictions(PRED_A))
    b = _write(tmp_path, "b", _predictions(PRED_B))
    stand_in.replicates = False
    with pytest.raises(TaskError, match="task stand-in: no bootstrap replicates on the"):
        diff(a, b)
    stand_in.replicates = True
    stand_in.extra_draw_on = 2
    stand_in.calls.clear()
    with pytest.raises(ScoringError, match=r"not resampled identically .*; 1 vs 2 draws"):
        diff(a, b)
    stand_in.extra_draw_on = 1
    stand_in.calls.clear()
    with pytest.raises(ScoringError, match=r"not resampled identically .*; 2 vs 1 draws"):
        diff(a, b)
    stand_in.calls.clear()
    assert len(diff(a, b, paired=False).table) == 2  # unpaired: the draws need not match


def test_run_directories_by_path_and_by_run_result(
    stand_in: StandIn, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    a = _write(tmp_path, "a", _predictions(PRED_A), seed=4)
    b = _write(tmp_path, "b", _predictions(PRED_B), seed=4)
    for run in (a, b):
        (run.path / "manifest.json").write_text(json.dumps(run.manifest), encoding="utf-8")
        (run.path / "metrics.csv").write_text("metric,n\nx,1\n", encoding="utf-8")
    written: list[tuple[Any, Path]] = []
    monkeypatch.setattr(
        "winoscope.report.diff_page.write_diff", lambda r, out: written.append((r, out))
    )
    d = diff(str(a.path), SimpleNamespace(out_dir=b.path), out=str(tmp_path / "out"))
    assert (d.run_a, d.run_b, d.settings["seed"]) == (str(a.path), str(b.path), 4)
    assert written == [(d, tmp_path / "out")] and isinstance(written[0][1], Path)
    assert diff(a.path, b).run_a == str(a.path)
    with pytest.raises(DatasetError, match="not a directory"):
        diff(SimpleNamespace(out_dir=tmp_path / "gone"), b)
