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
from ..jsonio import write_atomic, write_csv
from ..results.rundir import RunDir, load_run_dir
from ..scoring.metric import gap_meaning, signed_gap_metrics
from ..tags import format_tags, tag_sort_key
from .compare_tables import (
    answers_by_model,
    column_label,
    latex_tables,
    macro_rows,
    markdown_tables,
    table_cells,
)
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
from .index import sample_banner
from .tables import fmt_ci

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
    "invalid_rate",
    "failed_rate",
    "degenerate",
]


@dataclass
class Comparison:
    runs: list[RunDir]
    tidy: pd.DataFrame
    flags: list[str] = field(default_factory=list)
    out: Path | None = None
    degenerate: list[str] = field(default_factory=list)

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


def run_names(runs: Sequence[RunDir]) -> list[str]:
    """Each run's folder name; where two runs share it, the shortest tail of the run's path
    that no other run has (``a/r1`` and ``b/r1``), so that no two runs read alike."""
    parts = [r.path.parts for r in runs]
    names = []
    for i, p in enumerate(parts):
        n = 1
        while n < len(p) and any(q[-n:] == p[-n:] for j, q in enumerate(parts) if j != i):
            n += 1
        names.append(Path(*p[-n:]).as_posix())
    return names


def run_labels(runs: Sequence[RunDir]) -> list[str]:
    """The model spec with the run's tags (``hf:m [alpha=4]``), and the run's name
    (:func:`run_names`) after it when one task has that label twice."""
    names = [r.label for r in runs]
    seen: dict[tuple[str, str], int] = {}
    for r, name in zip(runs, names, strict=True):
        seen[(r.task, name)] = seen.get((r.task, name), 0) + 1
    return [
        name if seen[(r.task, name)] == 1 else f"{name} ({folder})"
        for r, name, folder in zip(runs, names, run_names(runs), strict=True)
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
    names = run_names(runs)
    by_task: dict[str, list[int]] = {}
    for i, r in enumerate(runs):
        by_task.setdefault(r.task, []).append(i)
    for idx in by_task.values():
        found_all = differences(
            [runs[i] for i in idx], skip=("partial runs",), names=[names[i] for i in idx]
        )
        for found in found_all:
            messages.append(found["note"])
            flagged.update(idx[k] for k in found["runs"])
    for i, r in enumerate(runs):  # a smoke test (--limit) is never a result to compare
        partial = r.record.partial or {}
        if partial:
            flagged.add(i)
            messages.append(
                f"{r.task}: {names[i]} is a partial run (--limit {partial.get('limit')}: "
                f"{partial.get('rows')} of {partial.get('rows_total')} rows)"
            )
    return messages, flagged


def tidy_table(runs: Sequence[RunDir], flagged: set[int] | None = None) -> pd.DataFrame:
    labels, names = run_labels(runs), run_names(runs)
    frames = []
    for i, (r, label, name) in enumerate(zip(runs, labels, names, strict=True)):
        m = r.metrics[
            ["metric", "split", "type", "value", "ci_low", "ci_high", "n", "n_strata"]
        ].copy()
        m.insert(0, "prompt", r.prompt_key)
        m.insert(0, "dataset", r.dataset_key)
        m.insert(0, "run", name)
        m.insert(0, "tags", format_tags(r.tags))
        m.insert(0, "model", label)
        m.insert(0, "task", r.task)
        m["flagged"] = i in (flagged or set())
        q = r.quality
        m["invalid_rate"], m["failed_rate"] = q.get("invalid_rate"), q.get("failed_rate")
        m["degenerate"] = bool(q.get("degenerate"))
        frames.append(m)
    if not frames:
        return pd.DataFrame(columns=TIDY_COLUMNS)
    return pd.concat(frames, ignore_index=True)[TIDY_COLUMNS]


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
    from ..outputs import check_out_folder

    check_out_folder(out)
    run_paths = expand_run_paths(paths)
    if not run_paths:
        raise DatasetError("no run directories given")
    runs = order_runs([load_run_dir(p) for p in run_paths])
    flags, flagged = consistency_flags(runs)
    tidy = tidy_table(runs, flagged)
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    write_csv(out_dir / "compare.csv", tidy)
    write_atomic(out_dir / "compare.md", markdown_tables(tidy, flags, degenerate_notes(runs)))
    write_atomic(out_dir / "compare.tex", latex_tables(tidy, flags))
    fig = forest_figure(tidy)
    figures: list[SavedFigure] = [save_figure(fig, out_dir / "plots")] if fig else []
    write_atomic(out_dir / "compare.html", render_compare_html(runs, tidy, flags, figures, out_dir))
    from .index import Page, write_index

    write_index(
        runs,
        out_dir,
        pages=[Page("Comparison", "compare.html", "headline tables and the forest plot of gaps")],
        title=f"winoscope: {len(runs)} runs",
    )
    return Comparison(runs, tidy, flags, out_dir, degenerate_notes(runs))


def degenerate_notes(runs: Sequence[RunDir]) -> list[str]:
    """``task: run: degenerate run (invalid 100% >= 50%): position bias ...`` per such run."""
    from ..scoring.answer_quality import short_warning

    return [
        f"{r.task}: {name}: {short_warning(r.quality)}"
        for r, name in zip(runs, run_names(runs), strict=True)
        if r.quality.get("degenerate")
    ]


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
        cols, rows = table_cells(macro, task)
        tasks.append(
            {"name": task, "cols": cols, "rows": rows, "answers": answers_by_model(macro, task)}
        )
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
            degenerate=degenerate_notes(runs),
            sample_banner=sample_banner(runs),
            figures=figures,
            runs=listing,
            fmt_ci=fmt_ci,
            version=__version__,
        )
    )
