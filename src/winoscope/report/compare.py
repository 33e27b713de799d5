"""Comparing run directories: one tidy table, paper tables (Markdown, LaTeX) and ``compare.html``.

``compare_runs([...], out)`` writes::

  OUT/
    compare.csv    tidy: task, model, tags, run, dataset, prompt, metric, split, type, value,
                   ci_low, ci_high, n, n_strata, flagged
    compare.md     one Markdown table per task (macro averages, value [95% CI])
    compare.tex    the same as booktabs LaTeX tables
    compare.html   self-contained page with a forest plot of signed gaps per model and task
    index.html     one page linking compare.html and every run's report.html
    plots/forest_gaps.png, plots/forest_gaps.svg

Runs of one task made on different data (revision / commit / file sha256, or a different sha256
of the loaded canonical table) or with different prompt templates (name or text) are *flagged*: every output marks them and lists what differs. They are kept apart
by their run label, never averaged together.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from .._version import __version__
from ..errors import DatasetError
from ..scoring.metric import gap_meaning, get_metric, headline_metrics, signed_gap_metrics
from ..tags import format_tags, tag_sort_key
from .figures import (
    DPI,
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
from .latex import escape
from .rundir import RunDir, load_run_dir
from .tables import Cell, fmt_ci

TIDY_COLUMNS = [
    "task",
    "model",
    "tags",
    "run",
    "dataset",
    "prompt",
    "metric",
    "split",
    "type",
    "value",
    "ci_low",
    "ci_high",
    "n",
    "n_strata",
    "flagged",
]


@dataclass
class Comparison:
    runs: list[RunDir]
    tidy: pd.DataFrame
    flags: list[str] = field(default_factory=list)
    out: Path | None = None

    def to_frame(self) -> pd.DataFrame:
        """The tidy table: task, model, run, dataset, prompt, metric, stratum, value, CI, n."""
        return self.tidy.copy()


def expand_run_paths(args: Iterable[str | Path]) -> list[Path]:
    """Run directories from paths or globs; a folder of run directories (``winoscope demo``
    output) expands to its children. Order is kept, duplicates dropped."""
    found: list[Path] = []
    for arg in args:
        text = str(arg)
        matches = sorted(Path(m) for m in glob.glob(text)) if glob.has_magic(text) else [Path(text)]
        if not matches:
            raise DatasetError("no run directory matches this pattern", file=text)
        for m in matches:
            if m.is_dir() and not (m / "manifest.json").exists():
                children = sorted(c for c in m.iterdir() if (c / "manifest.json").is_file())
                found.extend(children or [m])
            else:
                found.append(m)
    return list(dict.fromkeys(p.resolve() for p in found))


def run_labels(runs: Sequence[RunDir]) -> list[str]:
    """The model spec with the run's tags (``hf:m [alpha=4]``), and the directory's name
    after it when one task has that label twice."""
    names = [r.label for r in runs]
    seen: dict[tuple[str, str], int] = {}
    for r, name in zip(runs, names, strict=True):
        seen[(r.task, name)] = seen.get((r.task, name), 0) + 1
    return [
        name if seen[(r.task, name)] == 1 else f"{name} ({r.path.name})"
        for r, name in zip(runs, names, strict=True)
    ]


def order_runs(runs: Sequence[RunDir]) -> list[RunDir]:
    """Runs grouped by task (in order of first appearance) and, within a task, by model and
    then by tag values, numbers in numeric order (``alpha=2`` before ``alpha=10``)."""
    first: dict[str, int] = {}
    for r in runs:
        first.setdefault(r.task, len(first))
    keys = sorted({k for r in runs for k in r.tags})

    def key(r: RunDir) -> tuple[object, ...]:
        return (first[r.task], r.model, tuple(tag_sort_key(r.tags.get(k)) for k in keys))

    return sorted(runs, key=key)


def consistency_flags(runs: Sequence[RunDir]) -> tuple[list[str], set[int]]:
    """Notes for tasks whose runs differ in anything but the model (:mod:`.comparability`:
    protocol, prompt, mode, data, a partial run, seed), and the indices of those runs."""
    from .comparability import differences

    messages: list[str] = []
    flagged: set[int] = set()
    by_task: dict[str, list[int]] = {}
    for i, r in enumerate(runs):
        by_task.setdefault(r.task, []).append(i)
    for idx in by_task.values():
        for found in differences([runs[i] for i in idx], skip=("partial runs",)):
            messages.append(found["note"])
            flagged.update(idx[k] for k in found["runs"])
    for i, r in enumerate(runs):  # a smoke test (--limit) is never a result to compare
        partial = r.manifest.get("partial") or {}
        if partial:
            flagged.add(i)
            messages.append(
                f"{r.task}: {r.path.name} is a partial run (--limit {partial.get('limit')}: "
                f"{partial.get('rows')} of {partial.get('rows_total')} rows)"
            )
    return messages, flagged


def tidy_table(runs: Sequence[RunDir], flagged: set[int] | None = None) -> pd.DataFrame:
    labels = run_labels(runs)
    frames = []
    for i, (r, label) in enumerate(zip(runs, labels, strict=True)):
        m = r.metrics[
            ["metric", "split", "type", "value", "ci_low", "ci_high", "n", "n_strata"]
        ].copy()
        m.insert(0, "prompt", r.prompt_key)
        m.insert(0, "dataset", r.dataset_key)
        m.insert(0, "run", r.path.name)
        m.insert(0, "tags", format_tags(r.tags))
        m.insert(0, "model", label)
        m.insert(0, "task", r.task)
        m["flagged"] = i in (flagged or set())
        frames.append(m)
    if not frames:
        return pd.DataFrame(columns=TIDY_COLUMNS)
    return pd.concat(frames, ignore_index=True)[TIDY_COLUMNS]


def macro_rows(tidy: pd.DataFrame) -> pd.DataFrame:
    """Each run's summary rows, with a ``column`` naming each one's table column.

    The summary is the macro stratum; a run without one contributes its whole-set stratum
    (``all``), or its single stratum; a signed gap that a task reports only by stratum
    (SweWinogender's ``hon-han``) is added as its own column, ``accuracy_gap (hon-han)``.
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
        extra = extra.assign(
            column=extra["metric"].astype(str) + " (" + extra["type"].astype(str) + ")"
        )
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
    by its measure and stratum (``accuracy hon − han``)."""
    metric, _, stratum = column.partition(" (")
    spec = get_metric(metric)
    if not stratum:
        return spec.display
    measure = spec.components[0].replace("_", " ") if spec.components else spec.display
    return f"{measure} {stratum.rstrip(')').replace('-', ' − ')}"


def _cells(
    macro: pd.DataFrame, task: str
) -> tuple[list[str], list[tuple[str, bool, dict[str, Cell]]]]:
    cols = task_metrics(macro, task)
    sub = macro[macro["task"] == task]
    gaps = set(signed_gap_metrics(list(sub["metric"].astype(str))))
    rows = []
    for model, g in sub.groupby("model", sort=False):
        cells = {
            str(r.column): Cell(
                float(r.value), float(r.ci_low), float(r.ci_high), int(r.n), str(r.metric) in gaps
            )
            for r in g.itertuples(index=False)
        }
        rows.append((str(model), bool(g["flagged"].any()), cells))
    return cols, rows


def markdown_tables(tidy: pd.DataFrame, flags: Sequence[str] = ()) -> str:
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
        cols, rows = _cells(macro, task)
        out += [f"## {task}", ""]
        out.append("| model | " + " | ".join(column_label(c) for c in cols) + " |")
        out.append("|---|" + "---|" * len(cols))
        for model, flag, cells in rows:
            vals = [
                "–" if c not in cells or cells[c].missing else f"{cells[c].text} {cells[c].ci}"
                for c in cols
            ]
            out.append(f"| {model}{' †' if flag else ''} | " + " | ".join(vals) + " |")
        out.append("")
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
        cols, rows = _cells(macro, task)
        cols = cols[:LATEX_COLUMNS]
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


@styled
def forest_figure(tidy: pd.DataFrame) -> ReportFigure | None:
    """Signed gaps (macro) with 95% intervals: one panel per task and gap, one row per model."""
    macro = macro_rows(tidy)
    gaps = signed_gap_metrics(list(macro["metric"].astype(str)))
    sub = macro[macro["metric"].isin(gaps)]
    if sub.empty:
        return None
    panels = list(dict.fromkeys(zip(sub["task"], sub["column"], strict=True)))
    sizes = [int(((sub["task"] == t) & (sub["column"] == m)).sum()) for t, m in panels]
    bound = forest_bound(sub[["value", "ci_low", "ci_high"]].to_numpy(dtype=float))
    fig, axes = new_figure(
        len(panels),
        1,
        figsize=(6.4, 0.5 + sum(0.3 * n + 0.55 for n in sizes)),
        dpi=DPI,
        sharex=True,
        gridspec_kw={"height_ratios": [n + 0.8 for n in sizes]},
        squeeze=False,
    )
    for ax, (task, column) in zip(axes[:, 0], panels, strict=True):
        rows = sub[(sub["task"] == task) & (sub["column"] == column)]
        forest(
            ax,
            [
                f"{m}{' †' if f else ''}"
                for m, f in zip(rows["model"], rows["flagged"], strict=True)
            ],
            rows[["value", "ci_low", "ci_high"]].to_numpy(dtype=float),
            [True] * len(rows),
            tone=[-1] * len(rows),
            bound=bound,
        )
        metric = str(column).partition(" (")[0]
        what = column_label(str(column)) if " (" in str(column) else gap_meaning(metric)
        ax.set_title(plain(f"{task}: {what}"), loc="left", fontsize=9)
    axes[-1, 0].set_xlabel("signed gap, macro average (95% CI)")
    fig.tight_layout()
    return ReportFigure(
        "forest_gaps",
        "Signed gaps per model and task",
        "Macro-averaged signed gap of each run with its 95% bootstrap interval, one panel per "
        "task, all on one axis. Vermillion, filled: the interval excludes zero (a gap in "
        "either direction); hollow grey: it includes zero. † marks runs whose data or prompt "
        "differ from other runs of the task.",
        fig,
    )


def compare_runs(paths: Iterable[str | Path], out: str | Path) -> Comparison:
    run_paths = expand_run_paths(paths)
    if not run_paths:
        raise DatasetError("no run directories given")
    runs = order_runs([load_run_dir(p) for p in run_paths])
    flags, flagged = consistency_flags(runs)
    tidy = tidy_table(runs, flagged)
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    tidy.to_csv(out_dir / "compare.csv", index=False)
    (out_dir / "compare.md").write_text(markdown_tables(tidy, flags), encoding="utf-8")
    (out_dir / "compare.tex").write_text(latex_tables(tidy, flags), encoding="utf-8")
    fig = forest_figure(tidy)
    figures: list[SavedFigure] = [save_figure(fig, out_dir / "plots")] if fig else []
    (out_dir / "compare.html").write_text(
        render_compare_html(runs, tidy, flags, figures, out_dir), encoding="utf-8"
    )
    from .index import Page, write_index

    write_index(
        runs,
        out_dir,
        pages=[Page("Comparison", "compare.html", "headline tables and the forest plot of gaps")],
        title=f"winoscope: {len(runs)} runs",
    )
    return Comparison(runs, tidy, flags, out_dir)


def render_compare_html(
    runs: Sequence[RunDir],
    tidy: pd.DataFrame,
    flags: Sequence[str],
    figures: Sequence[SavedFigure],
    out_dir: Path,
) -> str:
    macro = macro_rows(tidy)
    tasks = []
    for task in dict.fromkeys(macro["task"]):
        cols, rows = _cells(macro, task)
        tasks.append({"name": task, "cols": cols, "rows": rows})
    labels = run_labels(runs)
    listing = []
    for r, label in zip(runs, labels, strict=True):
        report = r.path / "report.html"
        href = Path(os.path.relpath(report, out_dir.resolve())).as_posix()
        listing.append(
            {
                "task": r.task,
                "model": label,
                "tags": format_tags(r.tags),
                "dataset": r.dataset_key,
                "prompt": r.prompt_key,
                "path": str(r.path),
                "href": href if report.exists() else None,
            }
        )
    return (
        environment()
        .get_template("compare.html.j2")
        .render(
            title="winoscope comparison",
            tasks=tasks,
            flags=flags,
            figures=figures,
            runs=listing,
            fmt_ci=fmt_ci,
            version=__version__,
        )
    )
