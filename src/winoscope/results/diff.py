"""The result of comparing two runs: B - A per metric and stratum.

The comparison (:mod:`winoscope.compare.difference`) makes it and its pages
(:mod:`winoscope.report.diff_page`) draw it.
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

    def __repr__(self) -> str:
        lines = [f"DiffResult({self.task}: {self.model_b} - {self.model_a}"]
        lines += [f"  {v[:150]}" for v in self.verdicts[:4]]
        more = len(self.verdicts) - 4
        if more > 0:
            lines.append(f"  ... {more} more verdict(s)")
        rows = self.settings.get("rows_compared")
        lines.append(f"  {rows} rows compared; table: {len(self.table)} rows)")
        return "\n".join(lines)[:990]

    def _repr_html_(self) -> str:
        """The headline rows as a small table (notebooks)."""
        from html import escape

        head = self.headline()
        cells = "".join(
            "<tr>"
            + "".join(
                f"<td>{escape(str(x))}</td>"
                for x in (
                    r.metric,
                    r.measure,
                    f"{r.value_a:.3f}",
                    f"{r.value_b:.3f}",
                    f"{r.diff:+.3f}",
                    f"[{r.ci_low:+.3f}, {r.ci_high:+.3f}]",
                    "" if r.p_holm != r.p_holm else f"{r.p_holm:.3g}",
                )
            )
            + "</tr>"
            for r in head.itertuples(index=False)
        )
        verdicts = "".join(f"<li>{escape(v)}</li>" for v in self.verdicts)
        return (
            f"<p><b>{escape(self.task)}</b>: {escape(self.model_b)} &minus; "
            f"{escape(self.model_a)}</p><ul>{verdicts}</ul><table><tr><th>metric</th>"
            "<th>measure</th><th>A</th><th>B</th><th>B &minus; A</th><th>95% CI</th>"
            f"<th>Holm p</th></tr>{cells}</table>"
        )

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
