"""A leaderboard over many runs: per task, one table of runs ranked by a chosen metric.

``leaderboard([...], out, sort="overall_accuracy")`` writes::

  OUT/
    leaderboard.csv    tidy: task, rank, model, tags, run, metric, value, ci_low, ci_high, n
    leaderboard.md     one Markdown table per task, value [95% CI]
    leaderboard.tex    one booktabs table per task: the value, its interval on a second line
    leaderboard.html   self-contained page; a click on a column header re-sorts its table

A task's columns are its headline metrics (:func:`~winoscope.scoring.metric.headline_metrics`)
in the summary stratum (:func:`~.index.summary_cells`): macro averages, else a run's only
stratum (as :func:`~.compare.macro_rows`), else the whole set (``all``, SweWinogender).
Rows are ranked by the sort metric in its declared direction, best first (``zero``: closest to
0, ``one``: closest to 1, ``none``: highest), ties by model and then tags (numbers numerically),
missing values last. Runs that ``compare`` flags (:func:`~.compare.consistency_flags`) are
marked, and so are runs on a bundled sample.
"""

from __future__ import annotations

import os
import textwrap
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import pandas as pd

from .._version import __version__
from ..errors import DatasetError, WinoscopeError
from ..jsonio import write_atomic, write_csv
from ..results.rundir import RunDir, load_run_dir
from ..scoring.metric import get_metric, headline_metrics
from ..tags import format_tags
from .compare import consistency_flags, expand_run_paths, order_runs
from .compare_tables import latex_escape
from .html import environment
from .index import summary_cells
from .latex import interval, number, row_label, table, tex_label
from .tables import Cell

COLUMNS = ["task", "rank", "model", "tags", "run", "metric", "value", "ci_low", "ci_high", "n"]
QUALITY_COLUMNS = ["invalid_rate", "failed_rate", "degenerate"]
HEADLINE_LIMIT = 5
SAMPLE_NOTE = "bundled sample, not the real dataset: numbers check the pipeline only"
DIRECTION_TEXT = {
    "higher": "higher is better",
    "lower": "lower is better",
    "zero": "closer to 0 is better",
    "one": "closer to 1 is better",
    "none": "no better value",
}


class SortError(WinoscopeError):
    """A sort metric that no task's leaderboard has."""


@dataclass(frozen=True)
class Row:
    """One run in a task's table."""

    rank: int
    run: RunDir
    cells: dict[str, Cell]
    flagged: bool = False
    sample: bool = False
    href: str | None = None

    @property
    def tags(self) -> str:
        return format_tags(self.run.tags)

    @property
    def answers(self) -> str:
        """``invalid 100%, failed 0%`` (``DEGENERATE:`` in front for a degenerate run)."""
        from ..scoring.answer_quality import short_text

        return short_text(self.run.quality)


@dataclass(frozen=True)
class Board:
    """One task's table: its metric columns, the sort metric and order, the ranked rows."""

    task: str
    metrics: list[str]
    sort: str | None
    descending: bool
    rows: list[Row]

    @property
    def order_text(self) -> str:
        """How the rows are ordered, for captions: ``closest to 0 first``."""
        if self.sort is None:
            return "in model and tag order"
        return order_text(get_metric(self.sort).direction, self.descending)

    @property
    def has_tags(self) -> bool:
        return any(r.run.tags for r in self.rows)


@dataclass
class Leaderboard:
    """The tables of :func:`leaderboard`, one per task, and where they were written."""

    boards: list[Board]
    flags: list[str] = field(default_factory=list)
    out: Path | None = None

    @property
    def runs(self) -> list[RunDir]:
        return [r.run for b in self.boards for r in b.rows]

    def __repr__(self) -> str:
        tasks = ", ".join(f"{b.task} ({len(b.rows)} by {b.sort})" for b in self.boards)
        return f"Leaderboard({tasks}; out={str(self.out)!r})"

    def to_frame(self) -> pd.DataFrame:
        """The tidy table: task, rank, model, tags, run, metric, value, ci_low, ci_high, n."""
        records = [
            (*ids, m, c.value, c.ci_low, c.ci_high, c.n, *(q.get(k) for k in QUALITY_COLUMNS))
            for b in self.boards
            for r in b.rows
            for ids in [(b.task, r.rank, r.run.model, r.tags, r.run.path.name)]
            for q in [r.run.quality]
            for m in b.metrics
            if (c := r.cells.get(m)) is not None
        ]
        return pd.DataFrame(records, columns=COLUMNS + QUALITY_COLUMNS)


def order_text(direction: str, descending: bool) -> str:
    """``highest first``, ``closest to 0 first``, ``farthest from 1 first`` ..."""
    if direction in ("zero", "one"):
        target = "0" if direction == "zero" else "1"
        return f"farthest from {target} first" if descending else f"closest to {target} first"
    return "highest first" if descending else "lowest first"


def sort_value(value: float, direction: str) -> float:
    """What the rows are ordered by: the value, or its distance from 0 or 1."""
    target = {"zero": 0.0, "one": 1.0}.get(direction)
    return value if target is None else abs(value - target)


def default_descending(direction: str) -> bool:
    """Best first: higher values for ``higher`` (and ``none``), else smaller ones."""
    return direction in ("higher", "none")


def rank_rows(rows: Sequence[Row], metric: str | None, descending: bool) -> list[Row]:
    """``rows`` (in :func:`order_runs` order, which breaks ties) ranked by ``metric``."""

    def key(row: Row) -> tuple[int, float]:
        cell = row.cells.get(metric) if metric else None
        if cell is None or cell.missing:
            return (1, 0.0)
        x = round(sort_value(cell.value, get_metric(str(metric)).direction), 12)
        return (0, -x if descending else x)

    ranked = sorted(rows, key=key)  # stable: equal values keep the model and tag order
    return [replace(r, rank=i) for i, r in enumerate(ranked, start=1)]


def _sort_metrics(columns: dict[str, list[str]], sort: str | None) -> dict[str, str | None]:
    if sort is not None and not any(sort in ms for ms in columns.values()):
        known = "; ".join(f"{t}: {', '.join(ms) or '(none)'}" for t, ms in columns.items())
        raise SortError(f"no leaderboard has the metric {sort!r} to sort by; known: {known}")
    return {t: sort if sort in ms else (ms[0] if ms else None) for t, ms in columns.items()}


def _href(run: RunDir, out_dir: Path) -> str | None:
    report = run.path / "report.html"
    if not report.is_file():
        return None
    return Path(os.path.relpath(report.resolve(), out_dir.resolve())).as_posix()


def build_boards(
    runs: Sequence[RunDir],
    out_dir: Path,
    *,
    sort: str | None = None,
    descending: bool | None = None,
    flagged: set[int] | None = None,
) -> list[Board]:
    """One ranked :class:`Board` per task, tasks in order of first appearance in ``runs``."""
    position = {id(r): i for i, r in enumerate(runs)}
    by_task: dict[str, list[Row]] = {}
    for i, run in enumerate(order_runs(runs)):
        is_flagged = position[id(run)] in (flagged or set())
        sample = run.record.source.get("kind") == "sample"
        cells = summary_cells(run.metrics)
        row = Row(i, run, cells, is_flagged, sample, _href(run, out_dir))
        by_task.setdefault(run.task, []).append(row)
    columns = {
        task: headline_metrics(
            list(dict.fromkeys(m for r in rows for m in r.cells)), limit=HEADLINE_LIMIT
        )
        for task, rows in by_task.items()
    }
    chosen = _sort_metrics(columns, sort)
    boards = []
    for task, rows in by_task.items():
        metric = chosen[task]
        desc = default_descending(get_metric(metric).direction) if metric else False
        if descending is not None and (sort is None or metric == sort):
            desc = descending
        boards.append(Board(task, columns[task], metric, desc, rank_rows(rows, metric, desc)))
    return boards


def leaderboard(
    runs: Iterable[str | Path | RunDir],
    out: str | Path,
    *,
    sort: str | None = None,
    descending: bool | None = None,
) -> Leaderboard:
    """Rank runs per task by ``sort`` (default: each task's first headline metric) and write
    ``leaderboard.csv``, ``.md``, ``.tex`` and ``.html`` into ``out``.

    ``sort`` must be a column of at least one task's table; a task without it is ranked by its
    own first headline metric. ``descending`` overrides the metric's declared direction (for
    the tasks ranked by ``sort``). Raises :class:`SortError` for an unknown metric, listing each
    task's metrics, and :class:`DatasetError` for a path that is not a run directory.
    """
    from ..outputs import check_out_folder

    check_out_folder(out)
    given = list(runs)
    paths = expand_run_paths([r for r in given if not isinstance(r, RunDir)])
    all_runs = [r for r in given if isinstance(r, RunDir)] + [load_run_dir(p) for p in paths]
    if not all_runs:
        raise DatasetError("no run directories given")
    flags, flagged = consistency_flags(all_runs)
    out_dir = Path(out)
    boards = build_boards(all_runs, out_dir, sort=sort, descending=descending, flagged=flagged)
    board = Leaderboard(boards, flags, out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    write_csv(out_dir / "leaderboard.csv", board.to_frame())
    write_atomic(out_dir / "leaderboard.md", markdown_leaderboard(board))
    write_atomic(out_dir / "leaderboard.tex", latex_leaderboard(board))
    write_atomic(out_dir / "leaderboard.html", render_leaderboard_html(board))
    return board


def _names(board: Board) -> dict[int, str]:
    """The model spec, and the run directory after it where model and tags repeat in a task."""
    seen = Counter((r.run.model, r.tags) for r in board.rows)
    twice = {r.rank: f" ({r.run.path.name})" for r in board.rows if seen[r.run.model, r.tags] > 1}
    return {r.rank: r.run.model + twice.get(r.rank, "") for r in board.rows}


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def markdown_leaderboard(board: Leaderboard) -> str:
    """One Markdown table per task: rank, model, tags, run, then each metric's value [95% CI]."""
    out = ["# Leaderboard", "", "Summary stratum (macro averages), value [95% CI].", ""]
    for b in board.boards:
        label = get_metric(b.sort).display if b.sort else "model"
        out += [f"## {b.task}", "", f"Ranked by {_md(label)} ({b.order_text}).", ""]
        head = ["rank", "model", *(["tags"] if b.has_tags else []), "run"]
        head += [_md(get_metric(m).display) for m in b.metrics] + ["answers"]
        out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for r in b.rows:
            mark = (" †" if r.flagged else "") + (" ‡" if r.sample else "")
            cells = [str(r.rank), _md(r.run.model) + mark, *([_md(r.tags)] if b.has_tags else [])]
            cells.append(_md(r.run.path.name))
            for m in b.metrics:
                c = r.cells.get(m)
                cells.append("–" if c is None or c.missing else f"{c.text} {c.ci}")
            out.append("| " + " | ".join([*cells, r.answers]) + " |")
        out.append("")
    for title, notes in (
        ("DEGENERATE runs", degenerate_notes(board)),
        ("† Not directly comparable", board.flags),
        (f"‡ {SAMPLE_NOTE}", sample_notes(board)),
    ):
        out += ([f"{title}:", ""] + [f"- {_md(n)}" for n in notes] + [""]) if notes else []
    return "\n".join(out)


def _tex_head(label: str, width: int = 14) -> str:
    """A header on lines of about ``width`` characters (a nested tabular, no package needed),
    so a long label does not widen its column beyond its numbers."""
    lines = textwrap.wrap(label, width, break_long_words=False, break_on_hyphens=False)
    body = r"\\".join(latex_escape(line) for line in lines)
    return body if len(lines) < 2 else rf"\begin{{tabular}}[b]{{@{{}}r@{{}}}}{body}\end{{tabular}}"


def latex_leaderboard(board: Leaderboard) -> str:
    """booktabs tables (``\\usepackage{booktabs}``, :func:`.latex.table`), one per task: rank,
    model, tags, then each metric under its declared label with its 95% interval under it."""
    out = [f"% winoscope {__version__}: leaderboard tables (table*: both columns of a paper)"]
    for b in board.boards:
        names = _names(b)
        lead = ["\\#", "Model", *(["Tags"] if b.has_tags else [])]
        body = []
        for r in b.rows:
            mark = (r"$^\dagger$" if r.flagged else "") + (r"$^\ddagger$" if r.sample else "")
            mark += r"$^{\S}$" if r.run.quality.get("degenerate") else ""
            values = [str(r.rank), row_label(names[r.rank]) + mark]
            values += [row_label(r.tags, width=12)] if b.has_tags else []
            below = [""] * len(values)
            for m in b.metrics:
                c = r.cells.get(m)
                values.append("--" if c is None else number(c.value))
                below.append("" if c is None or c.missing else interval(c.ci_low, c.ci_high))
            body.append((values, below))
        label = latex_escape(get_metric(b.sort).display) if b.sort else "model"
        caption = (
            f"{latex_escape(b.task)}: runs ranked by {label} ({b.order_text}); value and 95\\% CI."
        )
        if any(r.flagged for r in b.rows):
            caption += r" $^\dagger$Runs differ in data, prompt or protocol, or are partial."
        if any(r.sample for r in b.rows):
            caption += r" $^\ddagger$Bundled sample, not the real dataset."
        if any(r.run.quality.get("degenerate") for r in b.rows):
            caption += r" $^{\S}$Degenerate run: at least half of its scored rows invalid."
        out.append(
            table(
                lead + [_tex_head(get_metric(m).display) for m in b.metrics],
                body,
                caption=caption,
                label=tex_label("leaderboard", b.task),
                align="r" + "l" * (len(lead) - 1) + "r" * len(b.metrics),
                wide=True,
            )
        )
    return "\n".join(out)


def degenerate_notes(board: Leaderboard) -> list[str]:
    """``task: run`` with its warning, for every degenerate run (at least half its rows
    invalid: its numbers describe the answer format)."""
    from ..scoring.answer_quality import short_warning

    return [
        f"{b.task}: {r.run.path.name}: {short_warning(r.run.quality)}"
        for b in board.boards
        for r in b.rows
        if r.run.quality.get("degenerate")
    ]


def sample_notes(board: Leaderboard) -> list[str]:
    """``task: run, run`` for each task with runs on a bundled sample."""
    notes = []
    for b in board.boards:
        names = [r.run.path.name for r in b.rows if r.sample]
        if names:
            notes.append(f"{b.task}: {', '.join(names)}")
    return notes


def render_leaderboard_html(board: Leaderboard) -> str:
    """The self-contained ``leaderboard.html``: one sortable table per task."""
    tasks = []
    for b in board.boards:
        specs = {m: get_metric(m) for m in b.metrics}
        keys = [
            [
                "" if c is None or c.missing else repr(sort_value(c.value, specs[m].direction))
                for m in b.metrics
                for c in [r.cells.get(m)]
            ]
            for r in b.rows
        ]
        tasks.append({"board": b, "specs": specs, "sort_keys": keys})
    return (
        environment()
        .get_template("leaderboard.html.j2")
        .render(
            title="winoscope leaderboard",
            tasks=tasks,
            n_runs=len(board.runs),
            flags=board.flags,
            samples=sample_notes(board),
            degenerate=degenerate_notes(board),
            sample_note=SAMPLE_NOTE,
            directions=DIRECTION_TEXT,
            default_descending=default_descending,
            version=__version__,
        )
    )
