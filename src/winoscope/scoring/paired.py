"""Statistics for comparing two runs on the same items: the bootstrap p-value of a paired
difference, and Holm's adjustment.

Pairing works through the scorers themselves: every scorer resamples its own units (source
items, pairs, schemas) with :func:`~winoscope.scoring.bootstrap.bootstrap` from a seed and
returns its replicates by metric row in ``ScoreResult.replicates``
(:class:`~winoscope.scoring.bootstrap.Replicates`). Scoring two runs' predictions on the same
rows with the same seed therefore draws the *same* unit counts for both (their draws are
compared), and the difference is taken replicate by replicate:
``diff* = metric_B(resample*) - metric_A(resample*)``.

Worked example: units u1, u2 with correctness A = (1, 0) and B = (1, 1); the resample
(u2, u2) gives accuracy A* = 0 and B* = 1, so diff* = 1; the resample (u1, u1) gives diff* = 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def bootstrap_p(replicates: np.ndarray) -> float:
    """Two-sided bootstrap p-value for "the difference is 0".

    ``p = min(1, 2 * (min(#{d* <= 0}, #{d* >= 0}) + 1) / (B + 1))`` over the B defined
    replicates: the smallest level at which the percentile interval would exclude zero, with the
    usual +1 so that a finite number of replicates never gives p = 0. Replicates that are all 0
    (two runs with the same answers) give p = 1; no defined replicate gives NaN.

    >>> bootstrap_p(np.array([0.1, 0.2, 0.3]))
    0.5
    >>> bootstrap_p(np.zeros(5))
    1.0
    """
    reps = np.asarray(replicates, dtype=float)
    reps = reps[~np.isnan(reps)]
    if reps.size == 0:
        return math.nan
    tail = min(int((reps <= 0).sum()), int((reps >= 0).sum()))
    return float(min(1.0, 2.0 * (tail + 1) / (reps.size + 1)))


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment; NaN p-values are left out of the family and stay NaN.

    >>> holm([0.01, 0.04, 0.03])
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    idx = np.flatnonzero(~np.isnan(p))
    m = idx.size
    running = 0.0
    for rank, i in enumerate(idx[np.argsort(p[idx], kind="stable")]):
        running = max(running, min(1.0, (m - rank) * float(p[i])))
        out[i] = running
    # 12 significant digits (not decimals: a p of 1e-26 must not print as 0)
    return [float(f"{float(x):.12g}") if not math.isnan(x) else math.nan for x in out]
