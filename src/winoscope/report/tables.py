"""Metric tables shaped for display: shared by the HTML report, ``show`` and ``compare``.

Everything here is generic over metric names and strata: a stratum is a ``(split, type)`` pair
of the tidy metrics frame and ``split == "macro"`` marks the macro average.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from .plots import metrics_naming, signed_gap_metrics, strata, stratum_label

CONDITION_TOKENS = ("pro", "anti")


def is_missing(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x)) or x is pd.NA


def fmt(x: Any, digits: int = 3) -> str:
    return "–" if is_missing(x) else f"{float(x):.{digits}f}"


def fmt_ci(lo: Any, hi: Any, digits: int = 3) -> str:
    if is_missing(lo) or is_missing(hi):
        return "–"
    return f"[{float(lo):.{digits}f}, {float(hi):.{digits}f}]"


@dataclass(frozen=True)
class Cell:
    value: float
    ci_low: float
    ci_high: float
    n: int

    @property
    def missing(self) -> bool:
        return is_missing(self.value)

    @property
    def text(self) -> str:
        return fmt(self.value)

    @property
    def ci(self) -> str:
        return fmt_ci(self.ci_low, self.ci_high)

    @property
    def excludes_zero(self) -> bool:
        """The interval lies strictly on one side of zero (used to mark gaps)."""
        if is_missing(self.ci_low) or is_missing(self.ci_high):
            return False
        return self.ci_low > 0 or self.ci_high < 0


@dataclass(frozen=True)
class WideTable:
    """Metrics as rows, strata as columns, macro first."""

    strata: list[tuple[str, str]]
    labels: list[str]
    rows: list[tuple[str, list[Cell | None]]]


def wide_table(metrics: pd.DataFrame) -> WideTable:
    keys = strata(metrics)
    keys = [k for k in keys if k[0] == "macro"] + [k for k in keys if k[0] != "macro"]
    cells: dict[tuple[str, str, str], Cell] = {
        (str(r.metric), str(r.split), str(r.type)): Cell(
            float(r.value), float(r.ci_low), float(r.ci_high), int(r.n)
        )
        for r in metrics.itertuples(index=False)
    }
    names = list(dict.fromkeys(metrics["metric"].astype(str)))
    rows = [(m, [cells.get((m, s, t)) for s, t in keys]) for m in names]
    return WideTable(keys, [stratum_label(s, t) for s, t in keys], rows)


def headline_metrics(names: Sequence[str], limit: int = 6) -> list[str]:
    """The metrics a reader should see first: signed gaps, overall accuracy, per-group accuracy.

    >>> headline_metrics(["pro_accuracy", "anti_accuracy", "overall_accuracy", "signed_bias_gap",
    ...                   "absolute_bias_gap", "pair_consistency"])
    ['signed_bias_gap', 'overall_accuracy', 'pro_accuracy', 'anti_accuracy', 'pair_consistency']
    """
    from .plots import GENDER_TOKENS

    ordered = signed_gap_metrics(names)
    ordered += [m for m in names if m.startswith("overall") or m == "accuracy"]
    ordered += metrics_naming(names, CONDITION_TOKENS) + metrics_naming(names, GENDER_TOKENS)
    ordered += [m for m in names if "consistency" in m and "order" not in m]
    ordered += [m for m in names if "absolute" not in m]
    return list(dict.fromkeys(ordered))[:limit]


def macro_cells(metrics: pd.DataFrame) -> dict[str, Cell]:
    macro = metrics[metrics["split"].astype(str) == "macro"]
    if macro.empty:
        # tasks without strata: a single unlabelled stratum stands in for the macro row
        keys = strata(metrics)
        if len(keys) != 1:
            return {}
        macro = metrics
    return {
        str(r.metric): Cell(float(r.value), float(r.ci_low), float(r.ci_high), int(r.n))
        for r in macro.itertuples(index=False)
    }


def records_table(records: Sequence[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    """A list of dicts (tests, counts) as header + string rows, floats rounded."""
    columns = list(dict.fromkeys(k for r in records for k in r))
    rows = []
    for r in records:
        row = []
        for c in columns:
            v = r.get(c)
            if isinstance(v, float):
                row.append(fmt(v, 4))
            else:
                row.append("–" if is_missing(v) else str(v))
        rows.append(row)
    return columns, rows
