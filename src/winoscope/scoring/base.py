"""What every scorer returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

METRIC_COLUMNS = ["metric", "split", "type", "value", "ci_low", "ci_high", "n"]


@dataclass
class ScoreResult:
    """A scorer's output.

    ``metrics`` is tidy with at least :data:`METRIC_COLUMNS`; ``split``/``type`` hold the
    stratum labels (the card's split and type for WinoBias-UK; other families put their own
    stratum names there) and ``split == "macro"`` marks macro averages. ``tests`` lists
    significance tests, ``counts`` rows/scored/invalid/missing per stratum, ``settings`` the
    bootstrap settings.
    """

    metrics: pd.DataFrame
    tests: list[dict[str, Any]] = field(default_factory=list)
    counts: pd.DataFrame = field(default_factory=pd.DataFrame)
    settings: dict[str, Any] = field(default_factory=dict)
