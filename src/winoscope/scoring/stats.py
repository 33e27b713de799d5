"""Shared statistics: weighted ratios for the cluster bootstrap, percentile CIs, exact McNemar.

The bootstrap itself (drawing the resampling weights, evaluating a statistic on them) is
:mod:`winoscope.scoring.bootstrap`; :func:`weighted_ratio` is the ratio metric it evaluates,
``(W @ numerator) / (W @ denominator)``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np


def weighted_ratio(
    weights: np.ndarray, numerator: np.ndarray, denominator: np.ndarray
) -> np.ndarray:
    """Per-row ratio of weighted sums; NaN where the weighted denominator is 0 (undefined)."""
    num = weights @ numerator
    den = weights @ denominator
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def percentile_ci(replicates: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """Percentile interval over the defined (non-NaN) replicates; NaN when none is defined.

    The quantiles are numpy's default (``method="linear"``, Hyndman and Fan's type 7): the
    ``q``-quantile of ``n`` sorted replicates sits at position ``q * (n - 1)``, interpolated
    linearly between its neighbours.

    >>> [round(x, 12) for x in percentile_ci(np.arange(11.0))]  # positions 0.25 and 9.75
    [0.25, 9.75]
    """
    reps = np.asarray(replicates, dtype=float)
    reps = reps[~np.isnan(reps)]
    if reps.size == 0:
        return (math.nan, math.nan)
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(reps, [alpha, 1.0 - alpha])
    return (float(lo), float(hi))


def nanmean_rows(stack: list[np.ndarray]) -> np.ndarray:
    """Mean across arrays ignoring NaN (the macro average over the strata where defined)."""
    arr = np.vstack(stack)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=RuntimeWarning)
        return np.nanmean(arr, axis=0)


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts b and c.

    Under H0 the b discordant pairs of one kind among b + c are Binomial(b + c, 1/2). No
    discordant pairs means no evidence of a difference: p = 1.
    """
    if b + c == 0:
        return 1.0
    from scipy.stats import binomtest  # lazy: scipy.stats costs ~0.4 s at import

    return float(binomtest(b, b + c, 0.5, alternative="two-sided").pvalue)
