"""Statistics for comparing two runs on the same items: paired bootstrap differences and Holm.

Pairing works through the scorers themselves. Every scorer draws its bootstrap resamples with
:func:`~winoscope.scoring.stats.resample_weights` from ``default_rng(seed)`` over its own
resampling units (source items, pairs, schemas), and builds each metric row with
:func:`~winoscope.scoring.base.metric_row`. Scoring two runs' predictions on the same rows with
the same seed therefore draws the *same* unit counts for both; :func:`capture_replicates`
records each metric's replicates and a digest of every weight matrix drawn, so the caller can
check that both runs were resampled identically and subtract replicate by replicate:
``diff* = metric_B(resample*) - metric_A(resample*)``.

Worked example: units u1, u2 with correctness A = (1, 0) and B = (1, 1); the resample
(u2, u2) gives accuracy A* = 0 and B* = 1, so diff* = 1; the resample (u1, u1) gives diff* = 0.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

import numpy as np


@dataclass
class ReplicateSink:
    """What one scorer call drew: replicates per (metric, split, type) and weight digests."""

    replicates: dict[tuple[str, str, str], np.ndarray] = field(default_factory=dict)
    draws: list[tuple[int, int, str]] = field(default_factory=list)


_SINK: ContextVar[ReplicateSink | None] = ContextVar("winoscope_replicates", default=None)


@contextmanager
def capture_replicates() -> Iterator[ReplicateSink]:
    """Record, for the scorer calls inside the block, every metric's bootstrap replicates."""
    sink = ReplicateSink()
    token = _SINK.set(sink)
    try:
        yield sink
    finally:
        _SINK.reset(token)


def record_replicates(metric: str, split: str, typ: str, replicates: object) -> None:
    """Called by ``metric_row``: keep a copy of the replicates when a capture is active."""
    sink = _SINK.get()
    if sink is not None:
        sink.replicates[(str(metric), str(split), str(typ))] = np.array(
            replicates, dtype=float, copy=True
        ).reshape(-1)


def alias_replicates(pairs: Sequence[tuple[tuple[str, str, str], tuple[str, str, str]]]) -> None:
    """Record the replicates of ``old`` (metric, split, type) under ``new`` too, for a scorer
    whose rows are renamed after scoring (WinoPron's coreference layout), so a paired
    comparison finds them under the names it reports."""
    sink = _SINK.get()
    if sink is None:
        return
    for old, new in pairs:
        if old in sink.replicates:
            sink.replicates[new] = sink.replicates[old]


def record_draw(weights: np.ndarray) -> None:
    """Called by ``resample_weights``: a digest of the drawn counts when a capture is active."""
    sink = _SINK.get()
    if sink is not None:
        digest = hashlib.sha256(np.ascontiguousarray(weights).tobytes()).hexdigest()[:16]
        sink.draws.append((int(weights.shape[0]), int(weights.shape[1]), digest))


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
