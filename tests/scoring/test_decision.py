"""The decision rules (winoscope.scoring.decision), value by value: the tolerance, which side
an interval is on, better or worse by declared direction, a gap's declared size, and the Holm
family of each family's headline metrics."""

from __future__ import annotations

import math

import pytest

from winoscope.scoring.decision import (
    ALPHA,
    TOLERANCE,
    absolute_twin,
    describe_family,
    fmt_interval,
    fmt_signed,
    goodness,
    holm_family,
    side,
    snap,
)
from winoscope.scoring.metric import metric

NAN = math.nan


def test_the_constants_are_the_stated_ones() -> None:
    assert TOLERANCE == 1e-9 and ALPHA == 0.05


def test_snap_only_inside_the_tolerance() -> None:
    assert snap(1e-9) == 0.0 and snap(-1e-9) == 0.0 and snap(1.1e-16) == 0.0
    assert snap(1.0000001e-9) == 1.0000001e-9 and snap(-2e-9) == -2e-9
    assert snap(0.5) == 0.5 and math.isnan(snap(NAN))


@pytest.mark.parametrize(
    ("lo", "hi", "expected"),
    [
        (0.01, 0.2, 1),
        (-0.2, -0.01, -1),
        (-0.1, 0.1, 0),
        (1.1e-16, 0.4, 0),  # a rounding error above 0 includes 0
        (1e-9, 0.4, 0),  # the bound itself
        (2e-9, 0.4, 1),
        (-0.4, -1e-9, 0),
        (-0.4, -2e-9, -1),
        (0.0, 0.0, 0),
        (NAN, 0.2, 0),
        (0.1, NAN, 0),
    ],
)
def test_side_of_an_interval(lo: float, hi: float, expected: int) -> None:
    assert side(lo, hi) == expected


@pytest.mark.parametrize(
    ("direction", "change", "expected"),
    [
        ("higher", 1, 1),
        ("higher", -1, -1),
        ("one", 1, 1),
        ("one", -1, -1),
        ("lower", 1, -1),
        ("lower", -1, 1),
        ("zero", 1, 0),
        ("zero", -1, 0),
        ("none", 1, 0),
        ("higher", 0, 0),
        ("lower", 0, 0),
    ],
)
def test_better_or_worse_follows_the_declared_direction(
    direction: str, change: int, expected: int
) -> None:
    assert goodness(direction, change) == expected


def test_a_signed_gap_finds_its_declared_size() -> None:
    names = ["pro_accuracy", "anti_accuracy", "signed_bias_gap", "absolute_bias_gap"]
    assert absolute_twin("signed_bias_gap", names) == "absolute_bias_gap"
    assert absolute_twin("signed_bias_gap", names[:3]) is None  # not reported: none
    assert absolute_twin("gender_gap", ["gender_gap", "absolute_bias_gap"]) is None  # others' parts
    metric("tilt_gap", kind="gap", direction="zero", components=("a_score", "b_score"))
    metric("tilt_size", kind="gap", direction="lower", components=("a_score", "b_score"))
    metric("tilt_upward", kind="gap", direction="higher", components=("a_score", "b_score"))
    assert absolute_twin("tilt_gap", ["tilt_upward", "tilt_gap", "tilt_size"]) == "tilt_size"
    assert absolute_twin("tilt_gap", ["tilt_gap", "tilt_upward"]) is None  # not a size


WINOBIAS = [
    "pro_accuracy",
    "anti_accuracy",
    "overall_accuracy",
    "signed_bias_gap",
    "absolute_bias_gap",
    "pair_consistency",
    "agreement_control_accuracy",
    "cross_control_accuracy",
    "option_order_consistency",
]
WINOPRON = [
    "double_accuracy",
    "single_accuracy",
    "male_accuracy",
    "female_accuracy",
    "plural_accuracy",
    "gender_gap",
    "pair_consistency",
    "option_order_consistency",
    "invalid_rate",
]


def test_holm_families_of_the_built_in_families() -> None:
    # WinoBias: the gap by its declared size, pro and anti; not their mean, not diagnostics
    assert holm_family(WINOBIAS) == [
        ("absolute_bias_gap", "B - A"),
        ("pro_accuracy", "B - A"),
        ("anti_accuracy", "B - A"),
    ]
    assert holm_family(WINOBIAS, "cloze") == holm_family(WINOBIAS)
    # no declared size: the size change of the signed gap itself
    assert holm_family([m for m in WINOBIAS if m != "absolute_bias_gap"])[0] == (
        "signed_bias_gap",
        "|B| - |A|",
    )
    # WinoPron: its gap's size and the three pronoun sets' accuracy
    assert holm_family(WINOPRON) == [
        ("gender_gap", "|B| - |A|"),
        ("male_accuracy", "B - A"),
        ("female_accuracy", "B - A"),
        ("plural_accuracy", "B - A"),
    ]


def test_constant_metrics_and_diagnostics_never_enter() -> None:
    metric("steady_consistency", kind="consistency", direction="higher", constant_under=("cloze",))
    names = ["steady_consistency", "invalid_rate"]
    assert holm_family(names) == [("steady_consistency", "B - A")]
    assert holm_family(names, "cloze") == []  # fixed by construction under cloze
    assert holm_family(["invalid_rate", "option_order_consistency"]) == []
    # a mean of two members stays out only when both members are headline hypotheses
    assert ("overall_accuracy", "B - A") in holm_family(["overall_accuracy", "pro_accuracy"])


def test_the_family_as_the_page_states_it() -> None:
    assert describe_family(holm_family(WINOBIAS)) == (
        "|pro − anti| accuracy, pro accuracy, anti accuracy"
    )
    assert describe_family([("gender_gap", "|B| - |A|")]).startswith("size of ")
    assert describe_family([]) == ""


def test_printed_numbers_agree_with_the_decision() -> None:
    assert fmt_signed(1.1e-16) == "+0.000" and fmt_signed(-1e-17) == "+0.000"
    assert fmt_signed(0.1234) == "+0.123" and fmt_signed(-0.5, 1) == "-0.5"
    assert fmt_signed(NAN) == "–"
    assert fmt_interval(1.1e-16, 0.479) == "[+0.000, +0.479]"
    assert fmt_interval(-0.25, 0.125, 2) == "[-0.25, +0.12]"
    assert fmt_interval(NAN, 0.1) == "[–]" and fmt_interval(0.1, NAN) == "[–]"


def test_only_a_gap_can_be_a_gaps_size() -> None:
    """A lower-is-better score of the same components (kind accuracy) is no size of the gap."""
    metric(
        "tilt_miss_accuracy", kind="accuracy", direction="lower", components=("a_score", "b_score")
    )
    assert absolute_twin("tilt_gap", ["tilt_miss_accuracy", "tilt_gap"]) is None
    assert absolute_twin("tilt_gap", ["tilt_miss_accuracy", "tilt_size", "tilt_gap"]) == "tilt_size"


def test_shares_and_rates_are_hypotheses_like_scores() -> None:
    """SweWinogender's occupation share (kind share) is in the family; so is a headline rate."""
    assert ("occupation_share", "B - A") in holm_family(["accuracy", "occupation_share"])
    metric("pro_slip_rate", kind="rate", direction="lower", group="pro", measure="slip_rate")
    assert ("pro_slip_rate", "B - A") in holm_family(["pro_slip_rate", "pro_accuracy"])


def test_a_diagnostic_ranked_first_does_not_end_the_family() -> None:
    metric(
        "pro_echo_accuracy",
        kind="accuracy",
        direction="higher",
        group="pro",
        measure="echo_accuracy",
        role="diagnostic",
    )
    family = holm_family(["pro_echo_accuracy", "anti_accuracy", "pro_accuracy"])
    assert ("pro_echo_accuracy", "B - A") not in family
    assert ("anti_accuracy", "B - A") in family and ("pro_accuracy", "B - A") in family


def test_a_gaps_size_has_its_kind_direction_and_components_exactly() -> None:
    metric("tilt_slip_rate", kind="rate", direction="lower", components=("a_score", "b_score"))
    metric("tilt_other_gap", kind="gap", direction="zero", components=("a_score", "b_score"))
    metric("tilt_aa_size", kind="gap", direction="lower", components=("a_score", "a_score"))
    for impostor in ("tilt_slip_rate", "tilt_other_gap", "tilt_aa_size"):
        assert absolute_twin("tilt_gap", [impostor, "tilt_gap"]) is None, impostor


def test_every_page_prints_and_marks_by_the_same_rule() -> None:
    """The run report's cells, the diff's and crosslingual's rows use the tolerance too."""
    import pandas as pd

    from winoscope.report.crosslingual_page import ci_text, display_rows
    from winoscope.report.tables import Cell, fmt, fmt_ci

    assert fmt(-1e-17) == "0.000" and fmt_ci(1.1e-16, 0.5) == "[0.000, 0.500]"
    assert not Cell(0.2, 1.1e-16, 0.5, 10, True).excludes_zero
    assert Cell(0.2, 2e-9, 0.5, 10, True).direction == "pos"
    assert ci_text(1.1e-16, 0.479) == "[+0.000, +0.479]"
    row = {
        "metric": "pro_accuracy",
        "split": "macro",
        "type": "macro",
        "uk": 0.5,
        "en": 0.4,
        "diff": 0.1,
        "ci_low": 1.1e-16,
        "ci_high": 0.3,
        "p_boot": 0.1,
        "n_items": 8,
    }
    (shown,) = display_rows(pd.DataFrame([row]))
    assert shown["excludes"] == "" and shown["ci"] == "[+0.000, +0.300]"
    (shown,) = display_rows(pd.DataFrame([{**row, "ci_low": 0.01}]))
    assert shown["excludes"] == "yes"
