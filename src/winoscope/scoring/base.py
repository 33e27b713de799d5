"""What every scorer returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

# ``n``: the rows (or, for pair metrics, the pairs) a value is computed over; for a macro row
# the sum over the strata it averages, whose number is ``n_strata`` (1 for a stratum's row).
METRIC_COLUMNS = ["metric", "split", "type", "value", "ci_low", "ci_high", "n", "n_strata"]


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
    # the task's validation findings (``datasets.base.Issue``), set by ``run``/``score``
    validation: list[Any] = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        """The tidy metrics table, a copy."""
        return self.metrics.copy()


_TRUTH = {"true": True, "false": False, "1": True, "0": False, "1.0": True, "0.0": False}


def order_consistency(table: pd.DataFrame, source: str = "predictions") -> pd.Series:
    """``order_consistent`` as booleans with NA, whether it holds bools or CSV text.

    A predictions CSV stores the column as ``True``/``False``/empty text; ``astype(bool)`` on
    that text would read ``"False"`` as true, so it is parsed here. Anything else is a
    ScoringError naming the row.
    """
    from ..errors import ScoringError

    col = table["order_consistent"]
    text = col.astype("string").str.strip().str.lower()
    text = text.mask(text.eq(""), pd.NA)
    bad = text.notna() & ~text.isin(list(_TRUTH))
    if bool(bad.any()):
        i = int(bad.to_numpy().nonzero()[0][0])
        raise ScoringError(
            f"{source}, row {i + 1}, field 'order_consistent': invalid value {col.iloc[i]!r}; "
            "expected true, false or empty"
        )
    return text.map(_TRUTH, na_action="ignore").astype("boolean")


def prediction_labels(
    table: pd.DataFrame,
    allowed: tuple[str, ...],
    source: str = "predictions",
    column: str = "prediction_role",
) -> pd.Series:
    """The prediction column normalised (stripped, lower-cased, empty -> NA) and checked.

    NA means the model never answered (the row is excluded and counted, not scored as wrong);
    any value outside ``allowed`` is a ScoringError naming the source, row and field.
    """
    from ..errors import ScoringError

    if column not in table.columns:
        raise ScoringError(f"{source}: no '{column}' column to score")
    pred = table[column].astype("string").str.strip().str.lower()
    pred = pred.mask(pred.eq(""), pd.NA)
    bad = pred.notna() & ~pred.isin(allowed)
    if bool(bad.any()):
        i = int(bad.to_numpy().nonzero()[0][0])
        raise ScoringError(
            f"{source}, row {i + 1}, field '{column}': invalid value "
            f"{table[column].iloc[i]!r}; expected one of {', '.join(allowed)} or empty"
        )
    return pred


def metric_row(
    metric: str,
    split: str,
    typ: str,
    value: float,
    replicates: Any,
    n: int,
    level: float = 0.95,
    n_strata: int = 1,
) -> dict[str, Any]:
    """One tidy metrics row: the value with its percentile bootstrap interval over
    ``replicates`` (NaN bounds when the value itself is undefined)."""
    import math

    from .paired import record_replicates
    from .stats import percentile_ci

    record_replicates(metric, split, typ, replicates)  # for paired comparisons (``diff``)
    lo, hi = (math.nan, math.nan) if math.isnan(value) else percentile_ci(replicates, level)
    return {
        "metric": metric,
        "split": split,
        "type": typ,
        "value": value,
        "ci_low": lo,
        "ci_high": hi,
        "n": n,
        "n_strata": n_strata,
    }
