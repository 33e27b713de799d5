"""``index.html``: one page linking every run's report and the comparison pages.

Written by ``winoscope compare`` (next to ``compare.html``) and ``winoscope demo`` (in the demo
folder), so a reader opens one page. Each run row shows the task's two headline macro numbers
(the signed gap and the main accuracy, as chosen by :func:`~.tables.headline_metrics`) with
their intervals; links are relative, so the folder can be moved or served as it is.

The tables fit a 1,300 px window without a horizontal scroll: a headline value keeps its
interval on its line, long model names and paths wrap, and data hashes are shortened
(:func:`short_key`; the full key is the cell's tooltip).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .._version import __version__
from ..jsonio import write_atomic
from ..results.rundir import RunDir
from ..scoring.metric import headline_metrics, signed_gap_metrics
from ..tags import format_tags
from .html import environment
from .tables import Cell, macro_cells


@dataclass(frozen=True)
class Page:
    """Another page to link from the index (``href`` relative to the index)."""

    title: str
    href: str
    description: str = ""


def _href(target: Path, folder: Path) -> str:
    return Path(os.path.relpath(target.resolve(), folder.resolve())).as_posix()


def summary_cells(metrics: pd.DataFrame) -> dict[str, Cell]:
    """Macro cells, else the whole-set rows (``split == "all"``) of families without strata."""
    cells = macro_cells(metrics)
    if cells or metrics.empty:
        return cells
    whole = metrics[
        (metrics["split"].astype(str) == "all") & (metrics["type"].astype(str) == "all")
    ]
    gaps = set(signed_gap_metrics(list(metrics["metric"].astype(str))))
    return {
        str(r.metric): Cell(
            float(r.value), float(r.ci_low), float(r.ci_high), int(r.n), str(r.metric) in gaps
        )
        for r in whole.itertuples(index=False)
    }


def short_key(key: str, digits: int = 12) -> str:
    """A data key as the index shows it: the kind and the first ``digits`` of each hash, one
    file named with a count of the rest (the full key is the cell's title).

    >>> short_key("sha256:db3ed98825b747dc5442ddd90264f39fe40b85ce4a313ae46cb1dacb8b38770e")
    'sha256:db3ed98825b7…'
    >>> short_key("sha256:a.tsv=950b4be43b2057aa11;b.tsv=3c5d9e0f11223344")
    'sha256:a.tsv=950b4be43b20… +1 file'
    >>> short_key("version:1.0")
    'version:1.0'
    """
    kind, sep, value = key.partition(":")
    if not sep:
        kind, value = "", key
    parts = [p for p in value.split(";") if p]

    def cut(part: str) -> str:
        name, eq, digest = part.rpartition("=")
        return f"{name}{eq}{digest[:digits]}…" if len(digest) > digits + 2 else part

    shown = cut(parts[0]) if parts else value
    more = len(parts) - 1
    tail = f" +{more} file{'s' if more > 1 else ''}" if more > 0 else ""
    return f"{kind}{sep}{shown}{tail}"


def short_prompt(key: str, limit: int = 32) -> str:
    """A prompt key (``name@hash``) of at most ``limit`` characters: a long name is cut, the
    hash kept.

    >>> short_prompt("uk-default-v1@953a427fd5")
    'uk-default-v1@953a427fd5'
    >>> short_prompt("a-template-file-with-a-very-long-name.txt@953a427fd5")
    'a-template-file-with…@953a427fd5'
    """
    if len(key) <= limit:
        return key
    name, at, digest = key.rpartition("@")
    if not at:
        return key[: limit - 1] + "…"
    return name[: max(1, limit - len(digest) - 2)] + "…@" + digest


def run_entries(runs: Sequence[RunDir], folder: Path) -> list[dict[str, object]]:
    """Per task (in first-seen order), its runs with label, link and headline cells."""
    by_task: dict[str, list[dict[str, object]]] = {}
    for r in runs:
        cells = summary_cells(r.metrics)
        heads = headline_metrics(list(cells), limit=2)
        shown: list[tuple[str, Cell]] = [(m, cells[m]) for m in heads if not cells[m].missing]
        report = r.path / "report.html"
        by_task.setdefault(r.task, []).append(
            {
                "model": r.model,
                "run": r.path.name,
                "dataset": r.dataset_key,
                "dataset_short": short_key(r.dataset_key),
                "tags": format_tags(r.tags),
                "prompt": r.prompt_key,
                "prompt_short": short_prompt(r.prompt_key),
                "cells": shown,
                "href": _href(report, folder) if report.is_file() else None,
                "path": str(r.path),
            }
        )
    return [{"task": t, "runs": rs} for t, rs in by_task.items()]


def write_index(
    runs: Sequence[RunDir], folder: Path, *, pages: Sequence[Page] = (), title: str = ""
) -> Path:
    """Write ``folder/index.html`` listing ``pages`` and every run grouped by task."""
    folder.mkdir(parents=True, exist_ok=True)
    html = (
        environment()
        .get_template("index.html.j2")
        .render(
            title=title or "winoscope runs",
            pages=pages,
            tasks=run_entries(runs, folder),
            n_runs=len(runs),
            sample_banner=sample_banner(runs),
            version=__version__,
        )
    )
    path = folder / "index.html"
    write_atomic(path, html)
    return path


def sample_banner(runs: Sequence[RunDir]) -> str | None:
    """The bundled-sample banner when any run is on a bundled sample (naming how many)."""
    from ..results.rundir import SAMPLE_BANNER

    n = sum(1 for r in runs if r.is_sample)
    if not n:
        return None
    which = "every run" if n == len(runs) else f"{n} of {len(runs)} runs"
    return f"{SAMPLE_BANNER} ({which})"
