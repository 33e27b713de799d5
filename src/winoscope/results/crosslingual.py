"""The result of joining a Ukrainian and an English run.

The join (:mod:`winoscope.compare.across_languages`) makes it and its pages
(:mod:`winoscope.report.crosslingual_page`) draw it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from .run import _number, _summary_html, _summary_repr, _with_interval


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
    # per language ("uk", "en"): task, model, run, data (dataset hash), prompt, dataset name
    runs: dict[str, dict[str, str]] = field(default_factory=dict)
    # linked rows whose occupations are not translations (item, role, occupation_uk,
    # occupation_en, expected, rows); empty unless allow_mismatched let them through
    mismatches: pd.DataFrame = field(default_factory=pd.DataFrame)
    # what a reader must know: an allowed model difference, allowed mismatched occupations
    notes: list[str] = field(default_factory=list)
    # the languages whose run is on a bundled sample ("uk", "en")
    sample_runs: list[str] = field(default_factory=list)
    # where the CSV files and pages were written (None: not written)
    out_dir: str | None = None

    def to_frame(self) -> pd.DataFrame:
        """metric, split, type, uk, en, diff (UK - EN), ci_low, ci_high, p_boot, n_items."""
        return self.table.copy()

    def _title(self) -> str:
        return f"{self.runs.get('uk', {}).get('task', '?')} / {self.runs.get('en', {}).get('task', '?')}"

    def _summary_rows(self) -> list[tuple[str, str]]:
        from ..scoring.metric import headline_metrics, signed_gap_metrics

        rows = []
        for lang, r in self.runs.items():
            digest = str(r.get("data", "")).rpartition("=")[2][:12]
            where = r.get("dataset", "?") + (f", {digest}" if digest else "")
            sample = " (bundled sample)" if lang in self.sample_runs else ""
            rows.append((f"{lang.upper()} run", f"{r.get('model', '?')} · {where}{sample}"))
        s = self.settings
        rows.append(
            ("shared rows", f"{s.get('shared_rows', '?')} on {', '.join(s.get('join', []))}")
        )
        macro = self.table[self.table["split"] == "macro"] if "split" in self.table else self.table
        names = list(dict.fromkeys(macro["metric"].astype(str))) if len(macro) else []
        gaps = set(signed_gap_metrics(names))
        for name in headline_metrics(names, limit=4):
            m = macro[macro["metric"].astype(str) == name].iloc[0]
            signed = name in gaps
            rows.append(
                (
                    name,
                    f"UK {_number(m['uk'], signed)} · EN {_number(m['en'], signed)} · UK − EN "
                    + _with_interval(m["diff"], m["ci_low"], m["ci_high"], True),
                )
            )
        rows.append(
            (
                "errors",
                f"{s.get('unanswered_shared_rows', 0)} shared rows unanswered; "
                f"{len(self.mismatches)} mismatched occupation links",
            )
        )
        if self.notes:
            rows.append(("notes", "; ".join(n.split(" (")[0] for n in self.notes) + " allowed"))
        if self.out_dir is not None:
            rows.append(("out dir", self.out_dir))
        return rows

    def __repr__(self) -> str:
        """Both runs (model, data), the shared rows, the headline macro metrics per language
        with UK - EN and its interval, errors, what was allowed and the output folder."""
        return _summary_repr("CrosslingualResult", self._title(), self._summary_rows())

    def _repr_html_(self) -> str:
        return _summary_html("CrosslingualResult", self._title(), self._summary_rows())
