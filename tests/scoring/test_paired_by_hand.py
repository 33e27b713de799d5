"""The paired-comparison statistics on cases worked out by hand: the bootstrap p-value's tie and
NaN rules, and Holm's step-down with its cap at 1 and its NaN holes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from winoscope.scoring.paired import bootstrap_p, holm


@pytest.mark.parametrize(
    ("replicates", "expected"),
    [
        # no replicate at or below 0: tail 0, p = 2 * 1 / 4
        ([0.1, 0.2, 0.3], 0.5),
        # a NaN is not a replicate: still B = 3
        ([math.nan, 0.1, 0.2, 0.3], 0.5),
        # a 0 counts on both sides: #{<= 0} = 1, #{>= 0} = 4, p = 2 * 2 / 5
        ([0.0, 1.0, 2.0, 3.0], 0.8),
        ([0.0, -1.0, -2.0, -3.0], 0.8),
        # one below, two above: tail 1, 2 * 2 / 4 = 1, capped at 1 either way
        ([-1.0, 2.0, 3.0], 1.0),
        # all zero: tail 5, 2 * 6 / 6 = 2, capped at 1
        ([0.0] * 5, 1.0),
        # 4 of 9 below zero: 2 * 5 / 10
        ([-1.0] * 4 + [1.0] * 5, 1.0),
        ([-1.0] + [1.0] * 8, 0.4),
    ],
)
def test_bootstrap_p_by_hand(replicates: list[float], expected: float) -> None:
    assert bootstrap_p(np.array(replicates)) == pytest.approx(expected, abs=1e-15)


def test_bootstrap_p_without_a_defined_replicate_is_nan() -> None:
    assert math.isnan(bootstrap_p(np.array([])))
    assert math.isnan(bootstrap_p(np.array([math.nan, math.nan])))


def test_holm_by_hand() -> None:
    # sorted 0.01, 0.03, 0.04: 3 * 0.01, 2 * 0.03, max(0.06, 1 * 0.04)
    assert holm([0.01, 0.04, 0.03]) == [0.03, 0.06, 0.06]
    # 2 * 0.6 = 1.2 is capped at 1; the next, 0.9, is raised to the running 1
    assert holm([0.9, 0.6]) == [1.0, 1.0]
    # a NaN is left out of the family (m = 2) and stays NaN
    got = holm([math.nan, 0.02, 0.01])
    assert math.isnan(got[0]) and got[1:] == [0.02, 0.02]
    # ties: 2 * 0.02 for the first, the running 0.04 for the second
    assert holm([0.02, 0.02]) == [0.04, 0.04]
    # a single p-value is itself; 12 significant digits, not decimals
    assert holm([0.1 + 0.2]) == [0.3]
    assert holm([1e-26]) == [1e-26]
    assert holm([]) == []
