"""The self-contained HTML report of one run (``report.html``).

One file, no network: CSS is inline and figures are embedded as PNG data URIs (the SVG and PNG
files are written next to it under ``plots/`` for papers). The page is rendered with jinja2 and
autoescaping, so dataset sentences, model answers and prompt text can never inject markup.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
from jinja2 import Environment, PackageLoader, select_autoescape

from .._version import __version__
from ..scoring.metric import gap_meaning, headline_metrics
from .figures import SavedFigure, save_figure
from .plots import run_figures
from .tables import macro_cells, metric_tables, records_table

if TYPE_CHECKING:
    from ..results import RunResult

EXAMPLE_LIMIT = 12


def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("winoscope.report", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["gap_meaning"] = gap_meaning
    # plain JSON text; autoescaping still applies to it (unlike ``tojson``'s \u003c escapes)
    env.filters["as_json"] = lambda obj: json.dumps(obj, ensure_ascii=False, sort_keys=True)
    env.filters["data_uri"] = lambda png: (
        "data:image/png;base64," + base64.b64encode(png).decode("ascii")
    )
    return env


def _first_column(columns: Sequence[str], prefixes: Sequence[str]) -> str | None:
    for p in prefixes:
        for c in columns:
            if c.startswith(p) and "annotated" not in c:
                return c
    return None


def example_rows(
    pred: pd.DataFrame, prediction_column: str, limit: int = EXAMPLE_LIMIT
) -> tuple[list[str], list[list[str]]]:
    """Rows worth reading: invalid answers first, then wrong ones, then the rest.

    Columns are picked by name so every task family works: an id, the sentence (or premise /
    text), gold and predicted labels, and the raw answers.
    """
    cols = list(pred.columns)
    id_col = _first_column(cols, ("row_id", "id", "item_id"))
    text_col = _first_column(cols, ("sentence", "premise", "text", "prompt"))
    gold_col = _first_column(cols, ("coreference_role", "gold", "label", "answer_gold"))
    pred_col = prediction_column if prediction_column in cols else None
    answers = [c for c in cols if c.startswith("answer") and c != gold_col]
    show = [c for c in (id_col, text_col, gold_col, pred_col, *answers) if c]
    if not show or pred.empty:
        return show, []
    rank = pd.Series(2, index=pred.index)
    if pred_col is not None:
        p = pred[pred_col].astype("string")
        if gold_col is not None:
            rank = rank.mask(p.ne(pred[gold_col].astype("string")).fillna(True), 1)
        rank = rank.mask(p.eq("invalid").fillna(False) | p.isna(), 0)
    picked = pred.loc[rank.sort_values(kind="stable").index[:limit]]
    rows = [["–" if pd.isna(v) else str(v) for v in r] for r in picked[show].to_numpy()]
    return show, rows


def render_run_html(rr: RunResult, figures: Sequence[SavedFigure]) -> str:
    from ..limit import partial_note
    from ..scoring.winobias import unpaired_note
    from .identity import identity_lines, store_note, tags_text

    man = rr.manifest
    metrics = rr.metrics
    names = list(dict.fromkeys(metrics["metric"].astype(str))) if not metrics.empty else []
    cells = macro_cells(metrics) if not metrics.empty else {}
    headline = [(m, cells[m]) for m in headline_metrics(names) if m in cells]
    counts = rr.result.counts.to_dict("records") if not rr.result.counts.empty else []
    count_cols, count_rows = records_table(counts)
    test_cols, test_rows = records_table(rr.result.tests)
    ex_cols, ex_rows = example_rows(rr.predictions, rr.task.prediction_column)
    totals: dict[str, Any] = {}
    for key in ("rows", "scored", "invalid", "missing"):
        if counts and key in counts[0]:
            totals[key] = int(sum(int(c[key]) for c in counts))
    return (
        environment()
        .get_template("run.html.j2")
        .render(
            title=f"{rr.task.name} · {man['model']['spec']}",
            man=man,
            ds=man["dataset"],
            src=man["dataset"].get("source", {}),
            task=rr.task,
            headline=headline,
            tables=metric_tables(metrics),
            figures=figures,
            count_cols=count_cols,
            count_rows=count_rows,
            totals=totals,
            test_cols=test_cols,
            test_rows=test_rows,
            errors=rr.errors,
            ex_cols=ex_cols,
            ex_rows=ex_rows,
            version=__version__,
            unpaired_note=unpaired_note(rr.result.settings),
            partial_note=partial_note(man),
            identity=identity_lines(man),
            tags=tags_text(man),
            not_stored=store_note(man),
        )
    )


def write_run_html(rr: RunResult, out: Path) -> Path:
    """Render the figures into ``out/plots`` and write ``out/report.html``."""
    figures = [save_figure(f, out / "plots") for f in run_figures(rr.metrics, rr.predictions)]
    path = out / "report.html"
    path.write_text(render_run_html(rr, figures), encoding="utf-8")
    return path
