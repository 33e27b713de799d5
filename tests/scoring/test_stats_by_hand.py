"""The statistics helpers on cases worked out by hand: weighted ratios with an empty
denominator, and the exact McNemar p-value (the resampling counts: test_bootstrap_by_hand)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from winoscope.scoring.stats import mcnemar_exact, weighted_ratio


def test_weighted_ratio_is_undefined_where_nothing_is_counted() -> None:
    weights = np.array([[1.0, 1.0], [2.0, 0.0], [0.0, 0.0]])
    num, den = np.array([1.0, 0.0]), np.array([1.0, 3.0])
    got = weighted_ratio(weights, num, den)
    assert got[0] == pytest.approx(1 / 4) and got[1] == pytest.approx(1.0)
    assert math.isnan(got[2])  # an empty resample: no ratio, not 0
    tiny = weighted_ratio(np.array([[1.0]]), np.array([0.5]), np.array([1e-12]))
    assert tiny[0] == pytest.approx(0.5e12)  # any positive denominator counts


def test_exact_mcnemar_by_hand() -> None:
    # b = 1, c = 6: two-sided, 2 * P(X <= 1) with X ~ Bin(7, 1/2) = 2 * (1 + 7) / 128
    assert mcnemar_exact(1, 6) == pytest.approx(16 / 128)
    assert mcnemar_exact(6, 1) == pytest.approx(16 / 128)  # symmetric
    assert mcnemar_exact(0, 5) == pytest.approx(2 / 32)
    assert mcnemar_exact(5, 0) == pytest.approx(2 / 32)  # all discordant pairs one way
    assert mcnemar_exact(3, 3) == 1.0
    assert mcnemar_exact(0, 0) == 1.0  # no discordant pairs: no evidence
    assert mcnemar_exact(0, 1) == 1.0
    assert mcnemar_exact(2, 10) == pytest.approx(2 * (1 + 12 + 66) / 4096)
