"""Writing a :class:`~winoscope.compare.difference.DiffResult`: tidy CSV, Markdown, LaTeX, HTML.

``write_diff(result, out)`` writes::

  OUT/
    diff.csv            tidy: metric, split, type, measure, value_a, value_b, diff, ci_low,
                        ci_high, p_boot, p_holm, n_a, n_b, headline
    diff_mcnemar.csv    exact McNemar on row correctness per stratum and over all rows
    diff.md, diff.tex   verdicts and the summary table (Markdown; booktabs LaTeX)
    diff.json           settings, verdicts, notes and both tables
    diff.html           self-contained page with the forest plot of the differences
    plots/forest_diff.png, plots/forest_diff.svg
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._version import __version__
from ..jsonio import write_atomic, write_csv, write_json
from ..results.diff import DiffResult, summary_rows
from ..scoring.decision import fmt_interval, fmt_signed, goodness, side
from ..scoring.metric import get_metric
from .figures import (
    ReportFigure,
    SavedFigure,
    forest,
    forest_bound,
    new_figure,
    plain,
    save_figure,
    styled,
)
from .html import environment
from .plots import stratum_label


def _num(x: Any, digits: int = 3, signed: bool = False) -> str:
    """A number for the tables (``–`` when missing), by the shared formatters: a value within
    the decision tolerance of 0 prints as 0."""
    from ..scoring.decision import fmt_signed
    from .tables import fmt

    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return fmt_signed(x, digits) if signed else fmt(x, digits)


def _p(x: Any) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{float(x):.3g}"


def _label(row: Any) -> str:
    """The declared label; ``size of ...`` for the change of a signed gap's size."""
    label = get_metric(str(row.metric)).display
    return f"size of {label}" if row.measure == "|B| - |A|" else label


def row_tone(row: Any) -> int:
    """1 better, -1 worse, 2 a shift with no better side, 0 interval includes 0."""
    where = side(float(row.ci_low), float(row.ci_high))
    if where == 0:
        return 0
    spec = get_metric(str(row.metric))
    direction = "lower" if row.measure == "|B| - |A|" else spec.direction
    return goodness(direction, where) or 2


TONE_CLASS = {1: "better", -1: "worse", 2: "shift", 0: ""}


def display_rows(table: pd.DataFrame, summary_only: bool = True) -> list[dict[str, str]]:
    """Rows as display strings: label, stratum, A, B, B - A, [CI], p, Holm p or exploratory."""
    sub = table[summary_rows(table)] if summary_only else table
    return [
        {
            "metric": _label(r),
            "name": str(r.metric),
            "stratum": stratum_label(str(r.split), str(r.type)),
            "a": _num(r.value_a),
            "b": _num(r.value_b),
            "diff": fmt_signed(r.diff),
            "ci": fmt_interval(r.ci_low, r.ci_high).replace("[–]", "–"),
            "p": _p(r.p_boot),
            "holm": _p(r.p_holm) if bool(getattr(r, "family", False)) else "exploratory",
            "family": "yes" if bool(getattr(r, "family", False)) else "",
            "tone": TONE_CLASS[row_tone(r)],
            "headline": "yes" if r.headline else "",
        }
        for r in sub.itertuples(index=False)
    ]


def markdown(result: DiffResult) -> str:
    out = [
        f"# {result.task}: B - A",
        "",
        f"A: `{result.model_a}` ({Path(result.run_a).name}); B: `{result.model_b}` "
        f"({Path(result.run_b).name}); data {result.data}.",
        f"Answers of A: {result.settings.get('answers_a', '–')}; of B: "
        f"{result.settings.get('answers_b', '–')}.",
        *(
            [f"> {result.settings['sample_banner']}", ""]
            if result.settings.get("sample_banner")
            else []
        ),
        f"95% paired bootstrap intervals ({result.settings['n_boot']} resamples of "
        f"{result.settings['resampling_unit'] or 'the task unit'}s, seed {result.settings['seed']}); "
        "p: two-sided bootstrap p-value. A bound within 1e-9 of 0 includes 0.",
        "",
        f"Holm family (the headline hypotheses, adjusted together): "
        f"{result.settings.get('holm_family') or 'none'}. Every other row is exploratory: "
        "its p is unadjusted.",
        "",
        *[f"Not comparable: {n}" for n in result.settings.get("comparability", [])],
        "",
        "## Verdicts",
        "",
        *[f"- {v}" for v in result.verdicts],
        "",
        "| metric | stratum | A | B | B − A | 95% CI | p | p (Holm) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in display_rows(result.table):
        out.append(
            f"| {r['metric']} | {r['stratum']} | {r['a']} | {r['b']} | {r['diff']} | {r['ci']} "
            f"| {r['p']} | {r['holm']} |"
        )
    if len(result.mcnemar):
        out += [
            "",
            "Exact McNemar on row correctness (rows both runs answered):",
            "",
            "| stratum | rows | both right | only A right | only B right | both wrong | p | p (Holm) |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for m in result.mcnemar.itertuples(index=False):
            out.append(
                f"| {stratum_label(str(m.split), str(m.type))} | {m.rows} | {m.both_right} | "
                f"{m.only_a_right} | {m.only_b_right} | {m.both_wrong} | {_p(m.p_value)} | "
                f"{_p(m.p_holm)} |"
            )
    out += [""] + [f"Note: {n}" for n in result.notes]
    return "\n".join(out).rstrip() + "\n"


def latex(result: DiffResult) -> str:
    """One booktabs table: declared labels, A, B, the change with its interval under it, and
    Holm's p for the headline hypotheses (``expl.``: exploratory, unadjusted p in the CSV)."""
    from .latex import escape, interval, number, table, tex_label, wrap_left

    rows = []
    sub = result.table[summary_rows(result.table)]
    for r, shown in zip(sub.itertuples(index=False), display_rows(result.table), strict=True):
        family = bool(getattr(r, "family", False))
        holm = f"${_p(r.p_holm)}$" if family else r"\textit{expl.}"
        rows.append(
            (
                [
                    wrap_left(shown["metric"]),
                    number(r.value_a),
                    number(r.value_b),
                    number(r.diff, signed=True),
                    holm,
                ],
                ["", "", "", interval(r.ci_low, r.ci_high, signed=True), ""],
            )
        )
    caption = (
        f"{escape(result.task)}: {escape(result.model_b)} minus {escape(result.model_a)} on "
        "the same items, with 95\\% paired bootstrap intervals under each change. Holm's "
        f"adjustment over the headline hypotheses ({escape(result.settings.get('holm_family') or 'none')})."
    )
    return f"% winoscope {__version__}\n" + table(
        ["Metric", "A", "B", "$B-A$", "$p_\\mathrm{Holm}$"],
        rows,
        caption=caption,
        label=tex_label("diff", result.task),
    )


@styled
def forest_figure(result: DiffResult) -> ReportFigure | None:
    """B - A with 95% paired intervals: the summary metrics, then every stratum's signed gaps."""
    table = result.table
    summary = table[summary_rows(table)]
    summary = summary[~summary["diff"].isna()]
    gaps = table[(table["measure"] == "B - A") & ~summary_rows(table)]
    from ..scoring.metric import signed_gap_metrics

    gaps = gaps[gaps["metric"].isin(signed_gap_metrics(list(table["metric"])))]
    gaps = gaps[~gaps["diff"].isna()]
    panels = [(summary, "Summary metrics")] + (
        [(gaps, "Signed gaps by stratum")] if len(gaps) else []
    )
    panels = [(p, t) for p, t in panels if len(p)]
    if not panels:
        return None
    sizes = [len(p) for p, _ in panels]
    bound = forest_bound(
        np.vstack([p[["diff", "ci_low", "ci_high"]].to_numpy(dtype=float) for p, _ in panels])
    )
    fig, axes = new_figure(
        len(panels),
        1,
        figsize=(6.4, 0.9 + sum(0.28 * n + 0.6 for n in sizes)),
        gridspec_kw={"height_ratios": [n + 1.2 for n in sizes]},
        squeeze=False,
    )
    for ax, (rows, title) in zip(axes[:, 0], panels, strict=True):
        labels = [
            _label(r)
            if title.startswith("Summary")
            else f"{_label(r)} · {stratum_label(str(r.split), str(r.type))}"
            for r in rows.itertuples(index=False)
        ]
        forest(
            ax,
            labels,
            rows[["diff", "ci_low", "ci_high"]].to_numpy(dtype=float),
            [bool(h) for h in rows["headline"]],
            tone=[row_tone(r) for r in rows.itertuples(index=False)],
            bound=bound,
        )
        ax.set_title(plain(title), loc="left", fontsize=9)
    axes[-1, 0].set_xlabel("B − A (95% paired bootstrap interval)")
    fig.tight_layout()
    return ReportFigure(
        "forest_diff",
        f"{result.model_b} minus {result.model_a}",
        "Differences B − A on the same items with 95% paired bootstrap intervals, both panels "
        'on one axis. "size of" rows are the change in the size of a signed gap (negative: '
        "smaller). Filled markers: the interval excludes zero; blue: better, vermillion: worse "
        "by the metric's declared direction, purple: a shift of a signed gap (no better side by "
        "itself); hollow grey: the interval includes zero. Diamonds: headline metrics.",
        fig,
    )


def write_diff(result: DiffResult, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    files = [out / n for n in ("diff.csv", "diff_mcnemar.csv", "diff.md", "diff.tex", "diff.json")]
    write_csv(files[0], result.table)
    write_csv(files[1], result.mcnemar)
    write_atomic(files[2], markdown(result))
    write_atomic(files[3], latex(result))
    write_json(
        files[4],
        {
            "task": result.task,
            "run_a": result.run_a,
            "run_b": result.run_b,
            "model_a": result.model_a,
            "model_b": result.model_b,
            "data": result.data,
            "settings": result.settings,
            "verdicts": result.verdicts,
            "notes": result.notes,
            "table": result.table.replace({np.nan: None}).to_dict("records"),
            "mcnemar": result.mcnemar.to_dict("records"),
        },
    )
    fig = forest_figure(result)
    figures: list[SavedFigure] = [save_figure(fig, out / "plots")] if fig else []
    html = out / "diff.html"
    write_atomic(
        html,
        environment()
        .get_template("diff.html.j2")
        .render(
            title=f"winoscope diff: {result.task}",
            result=result,
            summary=display_rows(result.table),
            strata=display_rows(result.table[~summary_rows(result.table)], summary_only=False),
            mcnemar=[
                {
                    **m,
                    "stratum": stratum_label(str(m["split"]), str(m["type"])),
                    "p": _p(m["p_value"]),
                    "holm": _p(m["p_holm"]),
                }
                for m in result.mcnemar.to_dict("records")
            ],
            figures=figures,
            version=__version__,
        ),
    )
    return [*files, html, *(f.png_path for f in figures)]
