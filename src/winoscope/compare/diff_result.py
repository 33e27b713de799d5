"""The result of comparing two runs: B - A per metric and stratum (see :mod:`.difference`).

Both the comparison (:mod:`.difference`) and its writers (:mod:`.difference_report`) use it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

DIFF_COLUMNS = [
    "metric",
    "split",
    "type",
    "measure",
    "value_a",
    "value_b",
    "diff",
    "ci_low",
    "ci_high",
    "p_boot",
    "p_holm",
    "n_a",
    "n_b",
    "headline",
    "family",
]


@dataclass(frozen=True)
class DiffResult:
    """B - A for every metric and stratum, McNemar tests, verdicts and settings."""

    task: str
    run_a: str
    run_b: str
    model_a: str
    model_b: str
    data: str
    table: pd.DataFrame
    mcnemar: pd.DataFrame
    verdicts: list[str]
    settings: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    # bootstrap replicates of each difference, by (metric, split, type, measure)
    replicates: dict[tuple[str, str, str, str], np.ndarray] = field(
        default_factory=dict, repr=False
    )

    def to_frame(self) -> pd.DataFrame:
        """The tidy difference table (one row per metric, stratum and measure)."""
        return self.table.copy()

    def headline(self) -> pd.DataFrame:
        """The rows the verdicts speak about."""
        return self.table[self.table["headline"]].reset_index(drop=True)


def summary_rows(table: pd.DataFrame) -> pd.Series:
    """Rows of the summary stratum: macro averages, else the whole set (``all``), else the only
    stratum a metric has."""
    split = table["split"].astype(str)
    macro = split.eq("macro")
    if macro.any():
        return macro
    whole = split.eq("all") & table["type"].astype(str).isin(["all", ""])
    if whole.any():
        return whole
    return pd.Series(True, index=table.index)
