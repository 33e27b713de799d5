"""The figures of a run report, chosen by what the task's metrics are declared to be.

Every metric is looked up with :func:`winoscope.scoring.metric.get_metric`; nothing is read
from its name:

- an *accuracy by condition* plot for scores (kind ``accuracy`` or ``f1``) declared for a
  condition group (``pro``/``anti``: ``pro_accuracy``, ``conll_f1_anti``);
- an *accuracy by pronoun gender* plot for scores declared for a pronoun group (``male``,
  ``female``, ``plural``, ``neutral``, ``han``/``hon``/``hen`` ...), or accuracy metrics whose
  stratum ``type`` ends in such a group (WinoPron-UK's ``accuracy`` with ``type ==
  "nominative/male"``);
- a *signed gap* plot for every metric declared ``kind="gap"`` with ``direction="zero"``;
- a *per-occupation* plot when the predictions carry occupations (see :mod:`.occupations`);
- an overview of every macro metric when none of the above applies.

Every plot shows 95% intervals as error bars, on explicit figures in the local report style
(:mod:`.figures`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ..scoring.metric import CONDITION_GROUPS, GENDER_GROUPS, gap_meaning, get_metric
from ..scoring.metric import signed_gap_metrics as signed_gaps
from .figures import (
    DPI,
    GENDER_COLOURS,
    GENDER_MARKERS,
    GREY,
    PALETTE,
    ReportFigure,
    err,
    forest,
    new_figure,
    plain,
    styled,
)
from .occupations import occupation_behaviour
from .plots_occupation import occupation_figure


def group_points(metrics: pd.DataFrame, group: Sequence[str]) -> pd.DataFrame:
    """Points for a by-group plot: columns ``x, series, value, ci_low, ci_high, macro``.

    A group member is the metric's declared ``group`` (``pro_accuracy``, ``conll_f1_anti``,
    ``male_accuracy``) or, for accuracy metrics declared for no group, the last part of the
    stratum's ``type`` (WinoPron-UK reports ``accuracy`` with ``type == "nominative/male"``).
    The x position is the stratum, prefixed by the measure when several measures are present
    (then only macro rows, or the only stratum, are used to keep the plot readable).
    """
    rows = []
    for r in metrics.itertuples(index=False):
        spec = get_metric(str(r.metric))
        if not spec.is_score:
            continue
        split, typ = str(r.split), str(r.type)
        if spec.group:
            if spec.group not in group:
                continue
            series = spec.group
            base = spec.measure or spec.name
            where = stratum_label(split, typ)
        else:
            parts = typ.split("/")
            if parts[-1] not in group or spec.kind != "accuracy":
                continue
            series = parts[-1]
            base = str(r.metric)
            prefix = "/".join(parts[:-1])
            where = split if prefix in ("", "all") else f"{split}/{prefix}"
        rows.append(
            {
                "base": base,
                "where": where,
                "series": series,
                "value": float(r.value),
                "ci_low": float(r.ci_low),
                "ci_high": float(r.ci_high),
                "macro": split == "macro",
            }
        )
    points = pd.DataFrame(
        rows, columns=["base", "where", "series", "value", "ci_low", "ci_high", "macro"]
    )
    points = points[points["value"].notna()]
    if points["base"].nunique() > 1:
        keep = points["macro"] | (points.groupby("base")["where"].transform("nunique") == 1)
        points = points[keep]
        points = points.assign(
            x=[
                b.replace("_", " ") + ("" if m else f" · {w}")
                for b, w, m in zip(points["base"], points["where"], points["macro"], strict=True)
            ]
        )
    else:
        points = points.assign(x=points["where"])
    order = {g: i for i, g in enumerate(group)}
    points = points.assign(_o=points["series"].map(order)).sort_values(
        ["macro", "_o"], kind="stable"
    )
    return points.drop(columns=["_o"]).reset_index(drop=True)


def strata(metrics: pd.DataFrame) -> list[tuple[str, str]]:
    """(split, type) strata in table order, macro last."""
    keys = list(
        dict.fromkeys(zip(metrics["split"].astype(str), metrics["type"].astype(str), strict=True))
    )
    return [k for k in keys if k[0] != "macro"] + [k for k in keys if k[0] == "macro"]


def stratum_label(split: str, typ: str) -> str:
    """A stratum's column or row label.

    >>> stratum_label("dev", "type1"), stratum_label("double", "all"), stratum_label("macro", "x")
    ('dev/type1', 'double', 'macro avg')
    """
    if split == "macro":
        return "macro avg"
    if typ in ("", "all", "nan", split):
        return split
    return f"{split}/{typ}"


def _lookup(metrics: pd.DataFrame) -> dict[tuple[str, str, str], tuple[float, float, float]]:
    return {
        (str(r.metric), str(r.split), str(r.type)): (
            float(r.value),
            float(r.ci_low),
            float(r.ci_high),
        )
        for r in metrics.itertuples(index=False)
    }


@styled
def group_figure(points: pd.DataFrame, title: str) -> Figure:
    """Dots with 95% intervals: one colour per group member, strata (or measures) along x.

    Macro averages come last on a shaded background; the dotted line marks 0.5.
    """
    xs = list(dict.fromkeys(points["x"]))
    series = list(dict.fromkeys(points["series"]))
    fig, ax = new_figure(
        figsize=(min(11.0, max(4.8, 0.35 * len(xs) * len(series) + 2.2)), 3.4), dpi=DPI
    )
    width = 0.72 / max(len(series), 1)
    pos = {x: i for i, x in enumerate(xs)}
    for i, name in enumerate(series):
        sub = points[points["series"] == name]
        offset = (i - (len(series) - 1) / 2) * width
        ax.errorbar(
            np.array([pos[x] for x in sub["x"]]) + offset,
            sub["value"],
            yerr=err(sub["value"].to_numpy(), sub["ci_low"].to_numpy(), sub["ci_high"].to_numpy()),
            fmt=GENDER_MARKERS.get(name, "o"),
            ms=6,
            capsize=3,
            color=GENDER_COLOURS.get(name, PALETTE[i % len(PALETTE)]),
            label=plain(name),
        )
    macro = sorted(pos[x] for x in points.loc[points["macro"], "x"])
    if macro and len(macro) < len(xs):  # shade the macro block only next to strata
        ax.axvspan(macro[0] - 0.5, macro[-1] + 0.5, color="#f0f0f0", zorder=-1)
    ax.set_xticks(
        range(len(xs)),
        [plain(x) for x in xs],
        rotation=25 if len(xs) > 3 else 0,
        ha="right" if len(xs) > 3 else "center",
    )
    ax.set_xlim(-0.6, len(xs) - 0.4)
    ax.set_ylim(-0.03, 1.03)
    measures = {str(b).replace("_", " ") for b in points["base"]}
    ax.set_ylabel((measures.pop() if len(measures) == 1 else "score") + " (95% CI)")
    ax.axhline(0.5, color=GREY, lw=0.8, ls=":", zorder=0)
    ax.set_title(title)
    ax.legend(frameon=False, fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    return fig


@styled
def gap_figure(metrics: pd.DataFrame, names: Sequence[str]) -> Figure:
    """Horizontal forest of signed gaps per stratum; filled dots: the interval excludes 0."""
    look = _lookup(metrics)
    keys = strata(metrics)
    rows = [
        (n, s, t)
        for n in names
        for s, t in keys
        if (n, s, t) in look and not np.isnan(look[(n, s, t)][0])
    ]
    # tall enough for the axis label under the ticks, however few the rows
    fig, ax = new_figure(figsize=(6.0, max(2.0, 1.0 + 0.32 * max(len(rows), 1))), dpi=DPI)
    forest(
        ax,
        labels=[
            (f"{n.replace('_', ' ')} · " if len(names) > 1 else "") + stratum_label(s, t)
            for n, s, t in rows
        ],
        values=np.array([look[r] for r in rows], dtype=float).reshape(-1, 3),
        emphasise=[s == "macro" for _, s, _ in rows],
        tone=[-1] * len(rows),  # a signed gap away from 0 is a bias, in either direction
    )
    import textwrap

    what = " · ".join(gap_meaning(n) for n in names) + " (95% CI)"
    ax.set_xlabel("\n".join(textwrap.wrap(what, 70)))  # a long label wraps, never clipped
    ax.set_title("Signed gap by stratum")
    fig.tight_layout()
    return fig


@styled
def overview_figure(metrics: pd.DataFrame) -> Figure:
    macro = metrics[metrics["split"] == "macro"]
    fig, ax = new_figure(figsize=(6.0, 0.9 + 0.3 * max(len(macro), 1)), dpi=DPI)
    forest(
        ax,
        labels=[m.replace("_", " ") for m in macro["metric"]],
        values=macro[["value", "ci_low", "ci_high"]].to_numpy(dtype=float),
        emphasise=[True] * len(macro),
    )
    ax.set_xlim(min(-0.05, float(macro["ci_low"].min(skipna=True) or 0) - 0.05), 1.05)
    ax.set_title("Macro metrics (95% CI)")
    fig.tight_layout()
    return fig


def run_figures(metrics: pd.DataFrame, predictions: pd.DataFrame | None) -> list[ReportFigure]:
    """The figures a run report shows, chosen by which metrics and columns exist."""
    names = list(metrics["metric"].astype(str)) if not metrics.empty else []
    out: list[ReportFigure] = []
    condition = group_points(metrics, CONDITION_GROUPS)
    if not condition.empty:
        out.append(
            ReportFigure(
                "accuracy_by_condition",
                "Pro- vs anti-stereotypical scores",
                "Scores on pro- and anti-stereotypical items per stratum and macro-averaged "
                "(shaded), with 95% bootstrap intervals over source items. The dotted line marks 0.5.",
                group_figure(condition, "Pro- vs anti-stereotypical"),
            )
        )
    gendered = group_points(metrics, GENDER_GROUPS)
    if not gendered.empty:
        out.append(
            ReportFigure(
                "accuracy_by_gender",
                "Scores by pronoun gender",
                "Scores per pronoun gender, per stratum and macro-averaged (shaded), with 95% "
                "bootstrap intervals.",
                group_figure(gendered, "By pronoun gender"),
            )
        )
    gaps = signed_gaps(names)
    if gaps:
        out.append(
            ReportFigure(
                "signed_gap",
                "Signed gap with 95% interval",
                "Signed gap per stratum; the macro average is the diamond. Vermillion, filled: "
                "the 95% interval excludes zero (a gap in either direction; the side says "
                "which); hollow grey: it includes zero.",
                gap_figure(metrics, gaps),
            )
        )
    behaviour = occupation_behaviour(predictions) if predictions is not None else None
    if behaviour is not None and not behaviour.empty:
        out.append(
            ReportFigure(
                "occupations",
                "Per-occupation behaviour",
                "For each occupation, the share of rows mentioning it where the pronoun was "
                "resolved to it, split by pronoun gender, with 95% Wilson intervals; occupations "
                "are grouped by the shipped occupation statistic.",
                occupation_figure(behaviour),
            )
        )
    if not out and not metrics.empty and bool((metrics["split"] == "macro").any()):
        out.append(
            ReportFigure(
                "macro_metrics",
                "Macro metrics",
                "Every macro-averaged metric with its 95% interval.",
                overview_figure(metrics),
            )
        )
    return out
