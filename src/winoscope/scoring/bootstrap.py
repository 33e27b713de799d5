"""The cluster bootstrap every scorer runs: one draw of resampling weights, a statistic evaluated
on it, and the replicates handed back as values.

The bootstrap resamples *units* (clusters: source items, pairs, schemas), not rows: every row
of a unit moves with it, as the units are the independent observations. A resampling is drawn
as multinomial count weights ``W`` (replicates x units) and a scorer's statistic is a function
of weights, vectorised over their rows: ``statistic(W)`` gives one value per replicate, and
``statistic(ones((1, n_units)))`` the value on the data as they are. A ratio metric is
``(W @ numerator) / (W @ denominator)`` over per-unit sums, which equals the metric on the
resampled table exactly and costs one matrix product (:func:`~.stats.weighted_ratio`).

:func:`bootstrap` draws ``W`` once, evaluates the statistic and returns a :class:`Bootstrap`:
the point values, the replicates and the draw's fingerprint (:class:`Draw`). A scorer keeps the
replicates of its metric rows in a :class:`Replicates` (``ScoreResult.replicates``), which is
what a paired comparison reads: scoring two runs on the same units with the same seed draws the
same ``W`` for both (their :class:`Draw` lists are equal), so the difference is taken replicate
by replicate, ``metric_B(W_b) - metric_A(W_b)``.

Worked example: two units with per-unit correct counts k = (1, 0) over n = (1, 1); the draw
``W = [[2, 0], [0, 2], [1, 1]]`` gives accuracy replicates ``W @ k / W @ n = (1, 0, 0.5)``.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, NamedTuple, TypeVar

import numpy as np

from .stats import percentile_ci

S = TypeVar("S")
Key = tuple[str, str, str]  # (metric, split, type): a metric row


class Draw(NamedTuple):
    """A resampling's fingerprint: its shape and a digest of its counts (in row order)."""

    n_boot: int
    n_units: int
    digest: str

    @classmethod
    def of(cls, weights: np.ndarray) -> Draw:
        digest = hashlib.sha256(weights.tobytes()).hexdigest()[:16]  # C order, as laid out or not
        return cls(int(weights.shape[0]), int(weights.shape[1]), digest)


def resample_weights(n_units: int, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """Counts of each unit in ``n_boot`` bootstrap resamples of ``n_units`` units."""
    if n_units == 0:
        return np.zeros((n_boot, 0))
    weights = rng.multinomial(n_units, np.full(n_units, 1.0 / n_units), size=n_boot)
    return weights.astype(float)


def interval(value: float, replicates: Any, level: float = 0.95) -> tuple[float, float]:
    """The percentile interval of ``replicates``; NaN bounds when ``value`` is undefined."""
    return (math.nan, math.nan) if math.isnan(value) else percentile_ci(replicates, level)


@dataclass(frozen=True)
class Bootstrap(Generic[S]):
    """What :func:`bootstrap` returns: the statistic on the data (``point``) and on every
    resample (``replicates``, one value per replicate), and the ``draw`` behind them."""

    point: S
    replicates: S
    draw: Draw

    def value(self, key: Hashable | None = None) -> float:
        """The point value (of ``key`` when the statistic returns a mapping), as a float."""
        v = self.point if key is None else self.point[key]  # type: ignore[index]
        return float(np.asarray(v, dtype=float).reshape(-1)[0])

    def interval(self, key: Hashable | None = None, level: float = 0.95) -> tuple[float, float]:
        """The percentile interval of the replicates (of ``key``), NaN where the value is."""
        reps = self.replicates if key is None else self.replicates[key]  # type: ignore[index]
        return interval(self.value(key), reps, level)


def bootstrap(
    statistic: Callable[[np.ndarray], S],
    n_units: int,
    *,
    n_boot: int,
    rng: np.random.Generator | int,
    point: S | None = None,
) -> Bootstrap[S]:
    """Draw ``n_boot`` resamples of ``n_units`` units once and evaluate ``statistic`` on them.

    ``rng`` is a seed or a generator (a scorer that bootstraps several strata in turn passes
    one generator, so the strata's draws follow each other). ``point`` is the statistic's value
    on the data when the scorer computes it another way; by default it is ``statistic`` of one
    row of ones. ``n_boot`` may be 0 (no replicates).
    """
    gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    weights = resample_weights(n_units, n_boot, gen)
    replicates = statistic(weights)
    if point is None:
        point = statistic(np.ones((1, n_units)))
    return Bootstrap(point, replicates, Draw.of(weights))


@dataclass(eq=False)
class Replicates:
    """A scorer's bootstrap replicates by metric row (metric, split, type), flat float arrays,
    and the draws they came from in the order drawn (two runs paired only if these agree)."""

    rows: dict[Key, np.ndarray] = field(default_factory=dict)
    draws: list[Draw] = field(default_factory=list)

    def keep(self, metric: str, split: str, typ: str, replicates: Any) -> None:
        """Keep a flat float copy of one row's replicates."""
        key = (str(metric), str(split), str(typ))
        self.rows[key] = np.array(replicates, dtype=float, copy=True).reshape(-1)

    def renamed(self, pairs: Sequence[tuple[Key, Key]]) -> Replicates:
        """The replicates under new row names: ``new`` gets those of ``old`` for each pair,
        for a scorer whose rows are renamed after scoring; the draws stay."""
        rows = {new: self.rows[old] for old, new in pairs if old in self.rows}
        return Replicates(rows, list(self.draws))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Replicates):
            return NotImplemented
        return (
            self.draws == other.draws
            and self.rows.keys() == other.rows.keys()
            and all(np.array_equal(v, other.rows[k], equal_nan=True) for k, v in self.rows.items())
        )

    __hash__ = None  # type: ignore[assignment]
