"""``winoscope show``: a run directory's key table in the terminal (rich)."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text

from ..results.record import RunRecord
from ..results.rundir import RunDir
from ..scoring.metric import headline_metrics
from .tables import Cell, macro_cells, metric_tables


def _value_text(name: str, cell: Cell) -> Text:
    style = {"pos": "bold red", "neg": "bold blue"}.get(cell.direction, "")
    return Text(cell.text, style=style)


def strata_tables(rd: RunDir) -> list[Table]:
    """Every stratum: the report's metrics x strata grid (strata x metrics when there are many)."""
    out = []
    for caption, wide in metric_tables(rd.metrics):
        if caption == "Macro averages":
            continue
        grid = Table(wide.corner, *wide.labels, title=caption or None)
        for label, row in wide.rows:
            grid.add_row(
                label, *["–" if c is None or c.missing else f"{c.text} {c.ci}" for c in row]
            )
        out.append(grid)
    return out


def key_table(rd: RunDir) -> Table:
    """Macro metrics (headline ones first) with 95% CI and n."""
    rec = rd.record
    title = f"{rd.task} · {rd.model}"
    caption = (
        f"{(rec.dataset or {}).get('name', '?')} · {rd.dataset_key[:24]}"
        f"{'…' if len(rd.dataset_key) > 24 else ''} · prompt {rd.prompt_key} · "
        f"seed {'?' if rec.seed is None else rec.seed}"
    )
    if rec.source.get("kind") == "sample":
        caption += " · bundled sample (pipeline check only)"
    if rec.partial:
        caption += f" · partial run (--limit {rec.partial['limit']})"
    macro = macro_cells(rd.metrics)
    names = list(macro)
    order = list(dict.fromkeys(headline_metrics(names, limit=len(names)) + names))
    table = Table("metric", "value", "95% CI", "n", title=title, caption=caption)
    for name in order:
        c = macro[name]
        table.add_row(name, _value_text(name, c), c.ci, str(c.n))
    return table


def counts_line(rd: RunDir) -> Text:
    """``76 rows · 76 scored · 76 invalid · 0 missing · 0 request errors · answers: 0 reused,
    152 asked``."""
    from ..scoring.answer_quality import count_totals

    totals = count_totals(rd.counts)
    errors = rd.record.request_errors or 0
    parts = [f"{v} {k}" for k, v in totals.items()] + [f"{errors} request errors"]
    reuse = answers_text(rd.record)
    if reuse:
        parts.append(f"answers: {reuse}")
    return Text(" · ".join(parts), style="yellow" if errors or totals.get("invalid") else "")


def answers_text(record: RunRecord) -> str:
    """``12 reused, 140 asked`` from the record's ``responses`` (empty when not recorded)."""
    r = record.responses or {}
    if "cached" not in r and "asked" not in r:
        return ""
    return f"{r.get('cached', 0)} reused, {r.get('asked', 0)} asked"


def quality_lines(rd: RunDir) -> list[Text]:
    """The invalid and failed rates beside the key table; the degenerate-run warning first."""
    from ..scoring.answer_quality import degenerate_warning, quality_text

    q = rd.quality
    warning = degenerate_warning(q)
    out = [Text(f"warning: {warning}", style="bold yellow")] if warning else []
    return [*out, Text(quality_text(q), style="bold yellow" if warning else "")]


def show_renderable(rd: RunDir, *, strata: bool = False) -> Group:
    from ..datasets.base import left_out_note
    from ..limit import partial_note

    report = rd.path / "report.html"
    items: list[Table | Text] = []
    partial = partial_note(rd.record.partial)
    if partial:
        items.append(Text(partial, style="bold yellow"))
    left = left_out_note(rd.record.left_out)
    if left:
        items.append(Text(left, style="bold yellow"))
    from .identity import identity_lines, store_note, tags_text

    if rd.tags:
        items.append(Text(f"tags: {tags_text(rd.record)}", style="bold"))
    for line in identity_lines(rd.record):
        items.append(Text(line, style="dim"))
    note = store_note(rd.record)
    if note:
        items.append(Text(f"answers not stored: {note}", style="yellow"))
    for line in rd.notes:  # the scorer's notes for the reader
        items.append(Text(line, style="yellow"))
    quality = quality_lines(rd)
    items += quality[:-1]
    items.append(key_table(rd))
    items.append(quality[-1])
    if strata:
        items += strata_tables(rd)
    items.append(counts_line(rd))
    if report.exists():
        items.append(Text(f"full report: {report}", style="dim"))
    return Group(*items)


__all__ = ["counts_line", "key_table", "show_renderable"]
