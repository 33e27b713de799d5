"""The sweep page: headline metrics and utility against the swept value (:mod:`winoscope.studies.sweep`).

``write_sweep(result, out)`` writes::

  OUT/
    sweep.csv      tidy: task, point, reference, run, metric, role, split, type, value, ci_low,
                   ci_high, n, measure, diff, diff_low, diff_high, p_boot, p_holm
    utility.csv    task, point, utility, ci_low, ci_high, source
    sweep.json     the sweep's key, points, reference, utility source, settings, run dirs
    sweep.md       per task: one row per point, each headline metric with its interval and its
                   paired change from the reference (interval, Holm p across the points)
    sweep.tex      the same as booktabs tables (one per task)
    sweep.html     the page: the figure, the tables, links to every point's report
    plots/sweep_<task>.png|svg|pdf   bias gap(s) and utility against the swept value
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._version import __version__
from ..jsonio import write_atomic, write_csv
from ..scoring.metric import get_metric
from .figures import BLUE, GREY, VERMILLION, ReportFigure, new_figure, plain, save_figure, styled
from .tables import fmt, fmt_ci, is_missing

if TYPE_CHECKING:
    from ..results.run import SweepResult

ALPHA = 0.05


def _label(metric: str) -> str:
    return get_metric(metric).display


def _p(x: Any) -> str:
    return "–" if is_missing(x) else f"{float(x):.3g}"


def _signed(x: Any) -> str:
    return "–" if is_missing(x) else f"{float(x):+.3f}"


def _signed_ci(lo: Any, hi: Any) -> str:
    return "–" if is_missing(lo) or is_missing(hi) else f"[{float(lo):+.3f}, {float(hi):+.3f}]"


def deciding_rows(table: pd.DataFrame) -> pd.DataFrame:
    """One row per task, point and metric: a gap's size change (``|point| - |reference|``),
    any other metric's change (``point - reference``); the reference's own row as it is."""
    is_size = table["measure"].astype(str).str.startswith("|")
    has_size = is_size.groupby([table["task"], table["metric"]]).transform("any").astype(bool)
    keep = table["reference"].astype(bool) | (is_size == has_size)
    return table[keep].reset_index(drop=True)


def utility_rows(util: pd.DataFrame, task: str) -> pd.DataFrame:
    """The utility shown beside ``task``: its own overall score, else the second task's, else
    the numbers the user supplied (task empty)."""
    if util.empty:
        return util
    own = util[util["task"] == task]
    return own if not own.empty else util[util["task"] == util["task"].iloc[0]]


def task_grid(result: SweepResult, task: str) -> tuple[list[str], list[dict[str, Any]]]:
    """The table of one task: its headline metrics as columns, one row per point."""
    from ..scoring.decision import absolute_twin
    from ..scoring.metric import headline_metrics

    sub = deciding_rows(result.table[result.table["task"] == task])
    names = list(dict.fromkeys(sub["metric"].astype(str)))
    metrics = []
    for m in headline_metrics(names, limit=len(names)):  # a gap, then its declared size
        twin = absolute_twin(m, names) if get_metric(m).signed_gap else None
        metrics += [x for x in (m, twin) if x is not None and x not in metrics]
    util = utility_rows(result.utility, task)
    from ..scoring.answer_quality import short_text

    ref_rows = sub[sub["point"] == result.reference]
    ref_bad = bool(len(ref_rows)) and bool(ref_rows.iloc[0].get("degenerate", False))
    rows = []
    for point in result.points:
        at = sub[sub["point"] == point]
        cells = {}
        for m in metrics:
            got = at[at["metric"] == m]
            if got.empty:
                continue
            r = got.iloc[0]
            ref = bool(r["reference"])
            cells[m] = {
                "value": fmt(r["value"]),
                "ci": fmt_ci(r["ci_low"], r["ci_high"]),
                "measure": "" if ref else str(r["measure"]),
                "diff": "reference" if ref else _signed(r["diff"]),
                "diff_ci": "" if ref else _signed_ci(r["diff_low"], r["diff_high"]),
                "p_holm": "" if ref else _p(r["p_holm"]),
                "significant": (not ref)
                and not is_missing(r["p_holm"])
                and float(r["p_holm"]) < ALPHA,
            }
        u = util[util["point"] == point].iloc[:1]
        first = at.iloc[0] if len(at) else None
        bad = first is not None and bool(first.get("degenerate", False))
        rows.append(
            {
                "point": point,
                "answers": "–" if first is None else short_text(first.to_dict()),
                "degenerate": bad,
                "built_on": bad or (point != result.reference and ref_bad),
                "reference": point == result.reference,
                "run": next((str(x) for x in at["run"]), ""),
                "cells": cells,
                "utility": None
                if u.empty
                else f"{fmt(u['utility'].iloc[0])} {fmt_ci(u['ci_low'].iloc[0], u['ci_high'].iloc[0])}".strip(),
            }
        )
    return metrics, rows


def markdown(result: SweepResult) -> str:
    out = [
        f"# Sweep over {result.key}",
        "",
        f"Reference point: {result.key}={result.reference}. Each cell: value [95% CI]; below it "
        "the paired change from the reference (for a signed gap the change of its size, "
        "|point| − |reference|) with its 95% paired bootstrap interval and Holm's p across the "
        f"sweep's {max(len(result.points) - 1, 0)} compared points. Utility: "
        f"{result.utility_source}.",
        "",
        *([f"Reference: {reference_text(result)}.", ""]),
    ]
    for task in result.tasks:
        metrics, rows = task_grid(result, task)
        out += [f"## {task}", ""]
        bad = [str(r["point"]) for r in rows if r["degenerate"]]
        if bad:
            out += [
                f"⚠ Degenerate run at {result.key} = {', '.join(bad)} (at least half of the "
                "scored rows invalid): every value and change marked ⚠ is built on it and "
                "describes the answer format, not the model.",
                "",
            ]
        for point, why in result.no_difference(task):
            out += [f"No paired change at {result.key} = {point}: {why}", ""]
        head = [result.key, *(_label(m) for m in metrics), "utility", "answers"]
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "---|" * len(head))
        for r in rows:
            cells = []
            for m in metrics:
                c = r["cells"].get(m)
                if c is None:
                    cells.append("–")
                elif r["reference"]:
                    cells.append(f"{c['value']} {c['ci']}<br>reference")
                else:
                    mark = " *" if c["significant"] else ""
                    cells.append(
                        f"{c['value']} {c['ci']}<br>Δ {c['diff']} {c['diff_ci']}, "
                        f"Holm p = {c['p_holm']}{mark}"
                    )
            mark = " ⚠" if r["built_on"] else ""
            out.append(
                f"| {r['point']}{mark} | "
                + " | ".join(cells)
                + f" | {r['utility'] or '–'} | {r['answers']} |"
            )
        out += ["", "\\* Holm-adjusted p < 0.05.", ""]
    return "\n".join(out)


#: metric columns of a sweep's LaTeX table (with utility beside them: one paper column)
LATEX_METRICS = 3


def latex(result: SweepResult) -> str:
    from .compare_tables import latex_escape
    from .latex import number, stack

    def tex_number(text: str, signed: bool = False) -> str:
        try:
            return number(float(text), signed=signed)
        except ValueError:
            return "--"

    out = [
        "% winoscope sweep tables; needs \\usepackage{booktabs}",
    ]
    for task in result.tasks:
        metrics, rows = task_grid(result, task)
        metrics = metrics[:LATEX_METRICS]
        cols = "l" + "r" * (len(metrics) + 1)
        out += [
            "\\begin{table}[t]",
            "\\centering",
            "\\small",
            "\\setlength{\\tabcolsep}{4pt}",
            f"\\begin{{tabular}}{{{cols}}}",
            "\\toprule",
            " & ".join([latex_escape(result.key), *(stack(_label(m)) for m in metrics), "utility"])
            + " \\\\",
            "\\midrule",
        ]
        for r in rows:
            top = [latex_escape(str(r["point"]))]
            bottom = [""]
            for m in metrics:
                c = r["cells"].get(m)
                top.append("--" if c is None else tex_number(c["value"]))
                if c is None or r["reference"]:
                    bottom.append("\\scriptsize ref." if c is not None else "")
                else:
                    star = "$^{*}$" if c["significant"] else ""
                    bottom.append(f"\\scriptsize $\\Delta$ {tex_number(c['diff'], True)}{star}")
            top.append(tex_number((r["utility"] or "–").split(" ")[0]))
            bottom.append("")
            out.append(" & ".join(top) + " \\\\")
            out.append(" & ".join(bottom) + " \\\\")
        out += [
            "\\bottomrule",
            "\\end{tabular}",
            f"\\caption{{{latex_escape(task)}: headline metrics against {latex_escape(result.key)}"
            f" (reference {latex_escape(str(result.reference))}). $\\Delta$: paired change from "
            "the reference (a gap: change of its size); $^{*}$ Holm-adjusted $p<0.05$ across "
            "the points.}",
            "\\end{table}",
            "",
        ]
    return "\n".join(out)


@styled
def sweep_figure(result: SweepResult, task: str) -> ReportFigure | None:
    """Signed gap(s) and utility against the swept value, with 95% intervals."""
    from ..scoring.decision import absolute_twin
    from ..tags import numeric_values

    everything = result.table[(result.table["task"] == task)]
    decide = deciding_rows(everything)
    sub = everything[everything["measure"].astype(str).isin(["", "point - reference"])]
    names = list(dict.fromkeys(sub["metric"].astype(str)))
    gaps = [m for m in names if get_metric(m).signed_gap]
    util = utility_rows(result.utility, task)
    if not gaps and util.empty:
        return None
    numeric = numeric_values(result.points)
    xs = np.asarray(numeric) if numeric is not None else np.arange(len(result.points), dtype=float)
    pos = {p: float(x) for p, x in zip(result.points, xs, strict=True)}
    fig, axes = new_figure(1, 2, figsize=(8.0, 3.2))
    gap_ax, util_ax = axes
    colours = [VERMILLION, BLUE, "#009E73", "#E69F00", "#CC79A7"]
    for k, m in enumerate(gaps):
        g = sub[sub["metric"] == m].drop_duplicates("point")
        g = g.assign(x=g["point"].map(pos)).sort_values("x")
        v, lo, hi = (g[c].to_numpy(float) for c in ("value", "ci_low", "ci_high"))
        yerr = np.vstack([np.nan_to_num(v - lo), np.nan_to_num(hi - v)])
        judge = absolute_twin(m, names) or m  # a gap is judged by the change of its size
        p_at = decide[decide["metric"] == judge].set_index("point")["p_holm"]
        significant = np.array([float(p_at.get(p, np.nan)) < ALPHA for p in g["point"]])
        colour = colours[k % len(colours)]
        gap_ax.errorbar(
            g["x"], v, yerr=yerr, color=colour, capsize=3, lw=1.4, label=plain(_label(m))
        )
        gap_ax.scatter(
            g["x"],
            v,
            s=36,
            zorder=3,
            color=colour,
            facecolors=[colour if s else "white" for s in significant],
        )
    gap_ax.axhline(0, color="black", lw=0.8)
    _frame(gap_ax, sub[sub["metric"].isin(gaps)], zero=True)
    gap_ax.set_title("bias gap")
    gap_ax.set_ylabel("signed gap (0: no bias)")
    if gaps:
        gap_ax.legend(fontsize=7, frameon=False)
    if not util.empty:
        u = util.assign(x=util["point"].map(pos)).sort_values("x")
        v, lo, hi = (u[c].to_numpy(float) for c in ("utility", "ci_low", "ci_high"))
        yerr = np.vstack([np.nan_to_num(v - lo), np.nan_to_num(hi - v)])
        util_ax.errorbar(u["x"], v, yerr=yerr, color=GREY, marker="o", capsize=3, lw=1.4)
        util_ax.set_title("utility")
        util_ax.set_ylabel(plain(_utility_label(u["source"].iloc[0])))
        frame = pd.DataFrame({"value": v, "ci_low": lo, "ci_high": hi})
        _frame(util_ax, frame, zero=False)
    for ax in axes:
        ax.set_xlabel(plain(result.key))
        if numeric is None:
            ax.set_xticks(xs, [plain(str(p)) for p in result.points])
        ax.axvline(pos[result.reference], color=GREY, lw=0.8, ls=":")
        ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    return ReportFigure(
        f"sweep_{task.replace('/', '_')}",
        f"{task}: bias gap and utility against {result.key}",
        "Values with 95% bootstrap intervals at each point; dotted line: the reference point. "
        "Filled markers: the paired change of the gap's size from the reference has "
        "Holm-adjusted p < 0.05 across the points; hollow: it does not.",
        fig,
    )


def _utility_label(source: str) -> str:
    """``winobias-uk overall_accuracy`` -> ``overall accuracy (winobias-uk)``; a file as is."""
    task, _, metric = str(source).partition(" ")
    if metric and get_metric(metric).declared:
        return f"{get_metric(metric).display} ({task})"
    return "utility (given per point)" if not metric else str(source)


def _frame(ax: Any, rows: pd.DataFrame, *, zero: bool) -> None:
    """Limits that hold every whisker (and 0 for gaps), with a margin."""
    values = rows[["value", "ci_low", "ci_high"]].to_numpy(float).ravel()
    values = values[np.isfinite(values)]
    if zero:
        values = np.append(values, 0.0)
    if values.size:
        lo, hi = float(values.min()), float(values.max())
        pad = max(0.05 * (hi - lo), 0.02)
        ax.set_ylim(lo - pad, hi + pad)


def write_sweep(result: SweepResult, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / "sweep.csv", result.table)
    write_csv(out / "utility.csv", result.utility)
    meta = {
        "winoscope_version": __version__,
        "key": result.key,
        "points": result.points,
        "reference": result.reference,
        "tasks": result.tasks,
        "utility": result.utility_source,
        "settings": result.settings,
        "runs": {
            f"{task} {result.key}={point}": os.path.relpath(path, out)
            for (task, point), path in sorted(result.run_dirs.items(), key=lambda kv: str(kv[0]))
        },
    }
    write_atomic(out / "sweep.json", json.dumps(meta, indent=2, ensure_ascii=False, default=str))
    write_atomic(out / "sweep.md", markdown(result))
    write_atomic(out / "sweep.tex", latex(result))
    figures = []
    for task in result.tasks:
        fig = sweep_figure(result, task)
        if fig is not None:
            figures.append(save_figure(fig, out / "plots"))
    write_atomic(out / "sweep.html", render_html(result, figures, out))


def reference_text(result: SweepResult) -> str:
    """``checkpoint=0: the base model given with --point beside --checkpoints``."""
    why = result.settings.get("reference_reason") or "the first point given"
    return f"{result.key}={result.reference} ({why})"


def render_html(result: SweepResult, figures: Sequence[Any], out: Path) -> str:
    from .html import environment

    tasks = []
    for task in result.tasks:
        metrics, rows = task_grid(result, task)
        for r in rows:
            where = result.run_dirs.get((task, r["point"]))
            report = where / "report.html" if where is not None else None
            r["href"] = (
                Path(os.path.relpath(report, out.resolve())).as_posix()
                if report is not None and report.exists()
                else None
            )
        named = [(m, _label(m)) for m in metrics]
        missing = result.no_difference(task)
        tasks.append({"name": task, "metrics": named, "rows": rows, "no_difference": missing})
    return (
        environment()
        .get_template("sweep.html.j2")
        .render(
            title=f"winoscope sweep over {result.key}",
            result=result,
            tasks=tasks,
            figures=figures,
            n_compared=max(len(result.points) - 1, 0),
            reference_text=reference_text(result),
            version=__version__,
            isnan=math.isnan,
        )
    )
