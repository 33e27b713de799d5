"""Shared statistics: cluster bootstrap by resampling weights, exact McNemar, percentile CIs.

The bootstrap resamples *source items* (clusters), not rows: every variant of an item moves
together, as the items are the independent units. Instead of materialising resampled tables it
draws multinomial count weights ``W`` (replicates x items) and evaluates each metric as a ratio
of weighted sums, ``(W @ numerator) / (W @ denominator)``, which equals the metric on the
resampled table exactly and costs one matrix product.
"""

from __future__ import annotations

import math
import warnings

import numpy as np


def resample_weights(n_items: int, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """Counts of each item in ``n_boot`` bootstrap resamples of ``n_items`` items."""
    from .paired import record_draw  # paired comparisons check both runs drew the same

    if n_items == 0:
        weights: np.ndarray = np.zeros((n_boot, 0))
    else:
        weights = rng.multinomial(n_items, np.full(n_items, 1.0 / n_items), size=n_boot)
        weights = weights.astype(float)
    record_draw(weights)
    return weights


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
