"""Small multiples of a prompt-sensitivity run: one panel per headline metric, one row per
template.

Each panel shows every template's value with its item-level 95% interval (that template's own
bootstrap), a vertical line at the mean over templates and a band for the two-level interval
(templates and items resampled, see :mod:`winoscope.studies.sensitivity`). Signed gaps get a dotted
zero line. Drawn on an explicit :class:`~matplotlib.figure.Figure` inside the report style's
local ``rc_context``: no backend is selected and no global rcParams change.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ..scoring.metric import signed_gap_metrics
from .figures import BLUE, GREY, ReportFigure, new_figure, plain, styled

KEY = "template_metrics"
MAX_PANELS = 6


@styled
def template_figure(per_template: pd.DataFrame, summary: pd.DataFrame) -> Figure:
    """The small multiples from ``template_metrics.csv`` and ``template_summary.csv`` frames."""
    heads = summary[summary["headline"].astype(bool)].head(MAX_PANELS)
    if heads.empty:
        heads = summary.head(MAX_PANELS)
    templates = list(dict.fromkeys(per_template["template"].astype(str)))
    n = max(1, len(heads))
    ncols = min(3, n)
    nrows = math.ceil(n / ncols)
    label_width = max((len(t) for t in templates), default=8)
    fig, axes = new_figure(
        nrows,
        ncols,
        figsize=(
            1.2 + 0.06 * label_width + 2.6 * ncols,
            0.9 + (0.32 * len(templates) + 0.9) * nrows,
        ),
        squeeze=False,
        sharey=True,
    )
    gaps = set(signed_gap_metrics(list(heads["metric"].astype(str))))
    y = np.arange(len(templates))[::-1]
    for ax, row in zip(axes.flat, heads.itertuples(index=False), strict=False):
        sel = per_template[
            (per_template["metric"].astype(str) == str(row.metric))
            & (per_template["split"].astype(str) == str(row.split))
            & (per_template["type"].astype(str) == str(row.type))
        ].set_index("template")
        vals = np.array([_get(sel, t, "value") for t in templates])
        lo = np.array([_get(sel, t, "ci_low") for t in templates])
        hi = np.array([_get(sel, t, "ci_high") for t in templates])
        if not (math.isnan(row.ci_low) or math.isnan(row.ci_high)):
            ax.axvspan(row.ci_low, row.ci_high, color=BLUE, alpha=0.12, lw=0)
        if not math.isnan(row.mean):
            ax.axvline(row.mean, color=BLUE, lw=1.2)
        if str(row.metric) in gaps:
            ax.axvline(0.0, color=GREY, lw=0.8, ls=":")
        err = np.vstack([np.clip(vals - lo, 0, None), np.clip(hi - vals, 0, None)])
        ok = ~np.isnan(vals)
        ax.errorbar(
            vals[ok],
            y[ok],
            xerr=np.nan_to_num(err[:, ok]),
            fmt="o",
            color="black",
            ms=4,
            capsize=2,
            lw=1,
        )
        ax.set_title(plain(str(row.metric)))
        sd = "–" if math.isnan(row.sd) else f"{row.sd:.3f}"
        ax.set_xlabel(f"mean {row.mean:.3f}, sd {sd}", fontsize=8)
        ax.set_yticks(y, templates)
        ax.set_ylim(-0.6, len(templates) - 0.4)  # half a row of room above and below
        ax.grid(axis="x", color="#dddddd", lw=0.6)
        ax.set_axisbelow(True)
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    fig.tight_layout()
    return fig


def _get(frame: pd.DataFrame, template: str, column: str) -> float:
    if template not in frame.index:
        return math.nan
    value = frame.loc[template, column]
    if isinstance(value, pd.Series):
        value = value.iloc[0]
    return float(value) if value is not None and not pd.isna(value) else math.nan


def template_report_figure(per_template: pd.DataFrame, summary: pd.DataFrame) -> ReportFigure:
    return ReportFigure(
        KEY,
        "Headline metrics per prompt template",
        "Each row is one template: its value with the item-level 95% interval. The line is the "
        "mean over templates; the band its two-level 95% interval (templates and items "
        "resampled).",
        template_figure(per_template, summary),
    )
