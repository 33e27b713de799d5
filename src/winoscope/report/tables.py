"""Metric tables shaped for display: shared by the HTML report, ``show`` and ``compare``.

Everything here is generic over strata (a stratum is a ``(split, type)`` pair of the tidy
metrics frame and ``split == "macro"`` marks the macro average) and reads what a metric is from
its declaration (:mod:`winoscope.scoring.metric`), never from its name.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..scoring.metric import get_metric, signed_gap_metrics
from .plots import strata, stratum_label


def is_missing(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x)) or x is pd.NA


def fmt(x: Any, digits: int = 3) -> str:
    """A number; one within the decision tolerance of 0 prints as 0 (never -0.000)."""
    from ..scoring.decision import snap

    return "–" if is_missing(x) else f"{snap(float(x)):.{digits}f}"


def fmt_ci(lo: Any, hi: Any, digits: int = 3) -> str:
    if is_missing(lo) or is_missing(hi):
        return "–"
    return f"[{fmt(lo, digits)}, {fmt(hi, digits)}]"


@dataclass(frozen=True)
class Cell:
    value: float
    ci_low: float
    ci_high: float
    n: int
    signed: bool = False  # a signed difference: colour it when the interval excludes zero
    card: str = ""  # the metric's declared one-sentence meaning, for headline cards

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
        """The interval lies on one side of zero beyond the decision tolerance (marks gaps)."""
        if is_missing(self.ci_low) or is_missing(self.ci_high):
            return False
        from ..scoring.decision import side

        return side(float(self.ci_low), float(self.ci_high)) != 0

    @property
    def direction(self) -> str:
        """``pos`` / ``neg`` for a signed cell whose interval excludes zero, else ``""``."""
        if not self.signed or not self.excludes_zero:
            return ""
        return "pos" if self.value > 0 else "neg"


@dataclass(frozen=True)
class WideTable:
    """A grid of cells: metrics as rows and strata as columns (macro first), or transposed."""

    corner: str
    labels: list[str]
    rows: list[tuple[str, list[Cell | None]]]
    macro_column: int | None = None


def wide_table(metrics: pd.DataFrame, transpose: bool | None = None) -> WideTable:
    """Metrics x strata. ``transpose=None`` puts strata on rows when there are many (more than
    eight and more than metrics), so the page stays readable without sideways scrolling."""
    keys = strata(metrics)
    keys = [k for k in keys if k[0] == "macro"] + [k for k in keys if k[0] != "macro"]
    gaps = set(signed_gap_metrics(list(metrics["metric"].astype(str))))
    cells: dict[tuple[str, str, str], Cell] = {
        (str(r.metric), str(r.split), str(r.type)): Cell(
            float(r.value), float(r.ci_low), float(r.ci_high), int(r.n), str(r.metric) in gaps
        )
        for r in metrics.itertuples(index=False)
    }
    names = list(dict.fromkeys(metrics["metric"].astype(str)))
    labels = [stratum_label(s, t) for s, t in keys]
    if transpose is None:
        transpose = len(keys) > 8 and len(keys) > len(names)
    if transpose:
        rows = [
            (lab, [cells.get((m, s, t)) for m in names])
            for lab, (s, t) in zip(labels, keys, strict=True)
        ]
        return WideTable("stratum", names, [(lab, cs) for lab, cs in rows if any(cs)])
    rows = [(m, [cells.get((m, s, t)) for s, t in keys]) for m in names]
    has_macro = bool(keys) and keys[0][0] == "macro"
    return WideTable("metric", labels, rows, 0 if has_macro else None)


def metric_tables(metrics: pd.DataFrame) -> list[tuple[str, WideTable]]:
    """The tables a report shows: one metrics x strata grid, or, with many strata, the macro
    averages followed by a strata x metrics grid.

    >>> from winoscope.scoring.base import METRIC_COLUMNS
    >>> [t for t, _ in metric_tables(pd.DataFrame(columns=METRIC_COLUMNS))]
    []
    """
    if metrics.empty:
        return []
    keys = strata(metrics)
    names = list(dict.fromkeys(metrics["metric"].astype(str)))
    if not (len(keys) > 8 and len(keys) > len(names)):
        return [("", wide_table(metrics, transpose=False))]
    is_macro = metrics["split"].astype(str) == "macro"
    out = []
    if bool(is_macro.any()):
        out.append(("Macro averages", wide_table(metrics[is_macro], transpose=False)))
    out.append(("By stratum", wide_table(metrics[~is_macro], transpose=True)))
    return out


def macro_cells(metrics: pd.DataFrame) -> dict[str, Cell]:
    macro = metrics[metrics["split"].astype(str) == "macro"]
    if macro.empty:
        # tasks without strata: a single unlabelled stratum stands in for the macro row
        keys = strata(metrics)
        if len(keys) != 1:
            return {}
        macro = metrics
    gaps = set(signed_gap_metrics(list(macro["metric"].astype(str))))
    return {
        str(r.metric): Cell(
            float(r.value),
            float(r.ci_low),
            float(r.ci_high),
            int(r.n),
            str(r.metric) in gaps,
            get_metric(str(r.metric)).card,
        )
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
