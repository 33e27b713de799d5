"""The files of a prompt-sensitivity run beside its per-template run directories.

``template_metrics.csv``, ``template_summary.csv``, ``sensitivity.json`` (the manifest),
``report.md`` (the summary table in Markdown), ``sensitivity.tex`` (the same as a booktabs
table), ``report.html`` (self-contained: the summary, the small multiples, every template's
text with a link to its own report) and ``plots/template_metrics.{png,svg,pdf}``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from .._version import __version__
from .tables import fmt, fmt_ci

if TYPE_CHECKING:
    from ..results.run import SensitivityResult

MANIFEST = "sensitivity.json"
DISPLAY_COLUMNS = ["metric", "mean [95% CI]", "min", "max", "sd", "templates"]


def display_rows(summary: pd.DataFrame, headline_only: bool = True) -> list[list[str]]:
    """The summary as display rows: metric, mean [CI], min (template), max (template), sd, n."""
    rows = summary[summary["headline"].astype(bool)] if headline_only else summary
    if rows.empty:
        rows = summary
    out = []
    for r in rows.itertuples(index=False):
        label = str(r.metric) if str(r.split) in ("macro", "all") else f"{r.metric} ({r.split})"
        out.append(
            [
                label,
                f"{fmt(r.mean)} {fmt_ci(r.ci_low, r.ci_high)}",
                f"{fmt(r.min)} ({r.min_template})" if not _nan(r.min) else "–",
                f"{fmt(r.max)} ({r.max_template})" if not _nan(r.max) else "–",
                fmt(r.sd),
                str(r.templates),
            ]
        )
    return out


def _nan(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def markdown_table(summary: pd.DataFrame, headline_only: bool = True) -> str:
    lines = ["| " + " | ".join(DISPLAY_COLUMNS) + " |", "|" + " --- |" * len(DISPLAY_COLUMNS)]
    lines += ["| " + " | ".join(r) + " |" for r in display_rows(summary, headline_only)]
    return "\n".join(lines)


def per_template_table(result: SensitivityResult) -> str:
    """Markdown: one row per template, one column per headline metric (value only)."""
    heads = result.headline()
    cols = [(str(r.metric), str(r.split), str(r.type)) for r in heads.itertuples(index=False)]
    pt = result.per_template
    lines = ["| template | " + " | ".join(c[0] for c in cols) + " |"]
    lines.append("|" + " --- |" * (len(cols) + 1))
    for tmpl in result.templates:
        vals = []
        for metric, split, typ in cols:
            sel = pt[
                (pt["template"] == tmpl.name)
                & (pt["metric"].astype(str) == metric)
                & (pt["split"].astype(str) == split)
                & (pt["type"].astype(str) == typ)
            ]
            vals.append(fmt(sel["value"].iloc[0]) if not sel.empty else "–")
        lines.append(f"| {tmpl.name} | " + " | ".join(vals) + " |")
    return "\n".join(lines)


def render_markdown(result: SensitivityResult) -> str:
    rec = result.record
    boot = rec.bootstrap or {}
    parts = [
        f"# Prompt sensitivity: {rec.task} · {rec.model.spec}",
        "",
        f"{len(result.templates)} templates, {boot['replicates']} bootstrap "
        "replicates; mean over templates with a two-level 95% interval (templates, then "
        f"{boot['resampling_unit']}s, resampled); sd across templates (ddof=1).",
        "",
        markdown_table(result.summary),
        "",
        "## Per template",
        "",
        per_template_table(result),
        "",
    ]
    parts += [f"> {note}" for note in result.notes]
    return "\n".join(parts) + "\n"


def latex_table(result: SensitivityResult) -> str:
    """booktabs: per headline metric (declared label), the mean over templates with its
    two-level 95% interval under it, the lowest and highest template's value and the sd."""
    from ..scoring.metric import get_metric
    from .latex import escape, interval, number, table, tex_label, wrap_left

    summary = result.summary
    rows = summary[summary["headline"].astype(bool)]
    if rows.empty:
        rows = summary
    body = []
    for r in rows.itertuples(index=False):
        label = get_metric(str(r.metric)).display
        if str(r.split) not in ("macro", "all"):
            label += f" ({r.split})"
        body.append(
            (
                [wrap_left(label), number(r.mean), number(r.min), number(r.max), number(r.sd)],
                ["", interval(r.ci_low, r.ci_high), "", "", ""],
            )
        )
    rec = result.record
    caption = (
        f"{escape(str(rec.task))}, {escape(str(rec.model.spec))}: {len(result.templates)} prompt "
        "templates; mean over templates with its two-level 95\\% interval under it "
        "(templates, then items, resampled), the lowest and highest template, and the sd."
    )
    return f"% winoscope {__version__}\n" + table(
        ["Metric", "Mean", "Min", "Max", "SD"],
        body,
        caption=caption,
        label=tex_label("sensitivity", str(rec.task)),
    )


def write_sensitivity(result: SensitivityResult, out: Path) -> Path:
    """Write the prompt-sensitivity files into ``out`` (the template runs are already there)."""
    from ..jsonio import write_atomic, write_csv, write_json
    from .figures import save_figure
    from .html import environment
    from .sensitivity_plots import template_report_figure

    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / "template_metrics.csv", result.per_template)
    write_csv(out / "template_summary.csv", result.summary)
    write_json(out / MANIFEST, result.manifest)
    write_atomic(out / "report.md", render_markdown(result))
    write_atomic(out / "sensitivity.tex", latex_table(result))
    figure = save_figure(template_report_figure(result.per_template, result.summary), out / "plots")
    templates = []
    record = result.record
    for entry, run in zip(record.runs or [], result.runs, strict=True):
        outcome = run.record.outcome.to_json()
        templates.append(
            {
                "name": entry["template"],
                "text": next(t.text for t in result.templates if t.name == entry["template"]),
                "dir": entry["dir"],
                "requests": outcome.get("requests", "–"),
                "answered": outcome.get("answered", "–"),
                "cached": (run.record.responses or {}).get("cached", "–"),
            }
        )
    html = (
        environment()
        .get_template("sensitivity.html.j2")
        .render(
            title=f"prompt sensitivity · {record.task}",
            man=result.manifest,
            notes=result.notes,
            summary_cols=DISPLAY_COLUMNS,
            summary_rows=display_rows(result.summary, headline_only=False),
            figure=figure,
            templates=templates,
            version=__version__,
        )
    )
    write_atomic(out / "report.html", html)
    return out


def print_sensitivity(result: SensitivityResult, console: Any) -> None:
    """The headline metrics across templates on the terminal (a rich console); the templates
    giving the minimum and maximum are in ``template_summary.csv`` and the reports."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(
        title=f"{result.record.task} · {result.record.model.spec} · "
        f"{len(result.templates)} templates",
        caption=escape("mean over templates [two-level 95% CI]; spread across templates"),
    )
    for i, col in enumerate(("metric", "mean", "95% CI", "min", "max", "sd")):
        table.add_column(col, justify="left" if i == 0 else "right", no_wrap=i > 0)
    for r in result.headline().itertuples(index=False):
        ci = escape(fmt_ci(r.ci_low, r.ci_high))
        table.add_row(str(r.metric), fmt(r.mean), ci, fmt(r.min), fmt(r.max), fmt(r.sd))
    console.print(table)
    for note in result.notes:
        console.print(f"[yellow]{escape(note)}[/]", highlight=False, soft_wrap=True)
