"""The result of joining a Ukrainian and an English run (see :mod:`.across_languages`).

Both the join (:mod:`.across_languages`) and its writer (:mod:`.crosslingual_report`) use it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd


@dataclass(frozen=True)
class CrosslingualResult:
    """Per-language metrics on shared items, UK - EN with paired intervals, agreement."""

    run_uk: str
    run_en: str
    model_uk: str
    model_en: str
    table: pd.DataFrame
    agreement: pd.DataFrame
    occupations: pd.DataFrame
    settings: dict[str, Any] = field(default_factory=dict)
    # per language ("uk", "en"): task, model, run, data (dataset hash) and prompt
    runs: dict[str, dict[str, str]] = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """metric, split, type, uk, en, diff (UK - EN), ci_low, ci_high, p_boot, n_items."""
        return self.table.copy()
