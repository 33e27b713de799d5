"""The paper tables of a comparison: one Markdown and one booktabs LaTeX table per task.

Rows are runs (models), columns the task's headline summary metrics under their declared
labels, each value with its 95% interval; :func:`macro_rows` chooses each run's summary rows.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from .._version import __version__
from ..scoring.metric import get_metric, headline_metrics, signed_gap_metrics
from .latex import escape
from .tables import Cell


def macro_rows(tidy: pd.DataFrame) -> pd.DataFrame:
    """Each run's summary rows, with a ``column`` naming each one's table column.

    The summary is the macro stratum; a run without one contributes its whole-set stratum
    (``all``), or its single stratum; a signed gap that a task reports only by stratum
    (SweWinogender's ``hon-han``) is added as its own column, ``accuracy_gap (hon-han)``,
    named by split and stratum (``signed_bias_gap (test/type1)``) where it is reported in
    several splits.
    """
    if tidy.empty:
        return tidy.assign(column=pd.Series(dtype=str)).iloc[0:0]
    parts = []
    for _, g in tidy.groupby(["task", "model", "run"], sort=False):
        split, typ = g["split"].astype(str), g["type"].astype(str)
        macro = split.eq("macro")
        whole = split.eq("all") & typ.isin(["all", ""])
        strata = (split + "\x00" + typ).nunique()
        chosen = (
            macro
            if macro.any()
            else whole
            if whole.any()
            else pd.Series(strata == 1, index=g.index)
        )
        rows = g[chosen].assign(column=g.loc[chosen, "metric"].astype(str))
        present = set(rows["metric"].astype(str))
        gaps = set(signed_gap_metrics(list(g["metric"].astype(str)))) - present
        extra = g[~chosen & g["metric"].isin(gaps)]
        stratum = extra["type"].astype(str)
        if extra["split"].nunique() > 1:  # one cell per split and type, none written over
            stratum = extra["split"].astype(str) + "/" + stratum
        extra = extra.assign(column=extra["metric"].astype(str) + " (" + stratum + ")")
        parts += [rows, extra]
    return pd.concat(parts, ignore_index=True)


def task_metrics(macro: pd.DataFrame, task: str) -> list[str]:
    """The task's table columns: headline metrics first, then gaps reported by stratum."""
    sub = macro[macro["task"] == task]
    names = list(dict.fromkeys(sub["metric"].astype(str)))
    order = headline_metrics(names, limit=6)
    by_metric: dict[str, list[str]] = {}
    for metric, column in zip(sub["metric"].astype(str), sub["column"].astype(str), strict=True):
        by_metric.setdefault(metric, [])
        if column not in by_metric[metric]:
            by_metric[metric].append(column)
    return [c for m in order for c in by_metric.get(m, [])]


def column_label(column: str) -> str:
    """A column's declared label (``pro − anti accuracy``); a gap reported by stratum is named
    by its measure and stratum where the stratum names the two groups of one measure
    (``accuracy hon − han``), else by its label and stratum (``pro − anti accuracy (type2)``)."""
    metric, _, stratum = column.partition(" (")
    spec = get_metric(metric)
    if not stratum:
        return spec.display
    stratum = stratum.removesuffix(")")
    if len(set(spec.components)) == 1 and "-" in stratum:
        measure = spec.components[0].replace("_", " ")
        return f"{measure} {stratum.replace('-', ' − ')}"
    return f"{spec.display} ({stratum})"


def table_cells(
    macro: pd.DataFrame, task: str
) -> tuple[list[str], list[tuple[str, bool, dict[str, Cell]]]]:
    """A task's columns, and a row per model: its label, whether it is flagged, its cells."""
    cols = task_metrics(macro, task)
    sub = macro[macro["task"] == task]
    gaps = set(signed_gap_metrics(list(sub["metric"].astype(str))))
    rows = []
    for (model, _run), g in sub.groupby(["model", "run"], sort=False):  # a row per run
        cells = {
            str(r.column): Cell(
                float(r.value), float(r.ci_low), float(r.ci_high), int(r.n), str(r.metric) in gaps
            )
            for r in g.itertuples(index=False)
        }
        rows.append((str(model), bool(g["flagged"].any()), cells))
    return cols, rows


def answers_by_model(macro: pd.DataFrame, task: str) -> dict[str, str]:
    """Each model's ``invalid 100%, failed 0%`` (``DEGENERATE:`` in front for a degenerate run)
    in a task's table, from the tidy table's answer-quality columns."""
    from ..scoring.answer_quality import short_text

    sub = macro[macro["task"] == task]
    if "invalid_rate" not in sub.columns:
        return {}
    out = {}
    for (model, _run), g in sub.groupby(["model", "run"], sort=False):
        r = g.iloc[0]
        q = {
            "invalid_rate": None if pd.isna(r["invalid_rate"]) else float(r["invalid_rate"]),
            "failed_rate": None if pd.isna(r["failed_rate"]) else float(r["failed_rate"]),
            "degenerate": bool(r["degenerate"]),
        }
        out[str(model)] = short_text(q)
    return out


def markdown_tables(
    tidy: pd.DataFrame, flags: Sequence[str] = (), degenerate: Sequence[str] = ()
) -> str:
    """One Markdown table per task: models as rows, headline macro metrics as columns."""
    macro = macro_rows(tidy)
    out = [
        "# Comparison",
        "",
        "Summary metrics, value [95% CI]: macro averages, or the whole set where a task has no "
        "macro stratum; a gap a task reports by stratum has a column per stratum.",
        "",
    ]
    for task in dict.fromkeys(macro["task"]):
        cols, rows = table_cells(macro, task)
        answers = answers_by_model(macro, task)
        out += [f"## {task}", ""]
        out.append("| model | " + " | ".join(column_label(c) for c in cols) + " | answers |")
        out.append("|---|" + "---|" * (len(cols) + 1))
        for model, flag, cells in rows:
            vals = [
                "–" if c not in cells or cells[c].missing else f"{cells[c].text} {cells[c].ci}"
                for c in cols
            ]
            vals.append(answers.get(model, "–"))
            out.append(f"| {model}{' †' if flag else ''} | " + " | ".join(vals) + " |")
        out.append("")
    if degenerate:
        out += ["Degenerate runs (at least half of the scored rows invalid):", ""]
        out += [f"- {d}" for d in degenerate] + [""]
    if flags:
        out += ["† Not directly comparable:", ""] + [f"- {f}" for f in flags] + [""]
    return "\n".join(out)


def latex_escape(text: str) -> str:
    """Text for LaTeX (:func:`.latex.escape`; the name other modules import)."""
    return escape(text)


#: metric columns of a LaTeX table, so that it fits one column of a two-column paper
LATEX_COLUMNS = 3


def latex_tables(tidy: pd.DataFrame, flags: Sequence[str] = ()) -> str:
    """booktabs tables (``\\usepackage{booktabs}``), one per task: the first
    :data:`LATEX_COLUMNS` headline metrics under their declared labels, each value with its
    95% interval under it (:func:`.latex.table`)."""
    from .latex import interval, number, row_label, stack, table, tex_label

    macro = macro_rows(tidy)
    out = [f"% winoscope {__version__}: summary metrics with 95% bootstrap intervals"]
    for task in dict.fromkeys(macro["task"]):
        cols, rows = table_cells(macro, task)
        filled = [c for c in cols if any(c in cells and not cells[c].missing for *_, cells in rows)]
        cols = filled[:LATEX_COLUMNS]  # a column empty in every row takes no slot
        body = []
        for model, flag, cells in rows:
            values, below = [row_label(model) + (r"$^\dagger$" if flag else "")], [""]
            for c in cols:
                cell = cells.get(c)
                if cell is None or cell.missing:
                    values.append("--")
                    below.append("")
                    continue
                values.append(number(cell.value))
                below.append(interval(cell.ci_low, cell.ci_high))
            body.append((values, below))
        caption = (
            f"{escape(task)}: summary metrics, each with its 95\\% bootstrap interval under it "
            "(two decimals; compare.csv has them in full)."
        )
        if any(f for _, f, _ in rows):
            caption += r" $^\dagger$Runs differ in data, prompt or protocol (see compare.md)."
        out.append(
            table(
                ["Model", *(stack(column_label(c)) for c in cols)],
                body,
                caption=caption,
                label=tex_label(task),
            )
        )
    return "\n".join(out)
