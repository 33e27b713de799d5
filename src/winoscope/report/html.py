"""The self-contained HTML report of one run (``report.html``).

One file, no network: CSS is inline and figures are embedded as PNG data URIs (the SVG and PNG
files are written next to it under ``plots/`` for papers). The page is rendered with jinja2 and
autoescaping, so dataset sentences, model answers and prompt text can never inject markup.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
from jinja2 import Environment, PackageLoader, select_autoescape

from .._version import __version__
from ..jsonio import write_atomic
from ..scoring.metric import gap_meaning, headline_metrics
from .figures import SavedFigure, save_figure
from .plots import run_figures
from .tables import macro_cells, metric_tables, records_table

if TYPE_CHECKING:
    from ..results.run import RunResult

EXAMPLE_LIMIT = 12


def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("winoscope.report", "pages"),
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


# a forced-choice or cloze answer given as log-probabilities, one per option in the order asked
_LOGPROBS = re.compile(r"logprobs((?:\s+\S+)+)\s*")
_LETTERS = ("A", "B")
# role -> the prefix of its columns where they differ from the role's name
_ROLE_PREFIX = {"distractor": "other"}


def _language(cols: Sequence[str]) -> str:
    """The predictions' language suffix (``sentence_uk`` -> ``uk``); empty when none."""
    for c in cols:
        if c.startswith("sentence_") and "annotated" not in c:
            return c.removeprefix("sentence_")
    return ""


def _option_text(row: pd.Series, role: str, lang: str) -> str | None:
    """The option a role was offered as, from the row's columns: the name in the sentence's
    grammatical form (WinoPron), the mention in the nominative (WinoBias spans), the form the
    premise uses (SweWinogender), else the occupation; None when the row has none."""
    prefix = _ROLE_PREFIX.get(role, role)
    suffix = f"_{lang}" if lang else ""
    candidates = [
        (f"{role}{suffix}", False) if lang else None,
        (f"{prefix}_span{suffix}", True),
        (f"{role}_form", False),
        (f"{prefix}_occupation{suffix}", False),
    ]
    for cand in candidates:
        if cand is None or cand[0] not in row.index:
            continue
        value = row[cand[0]]
        if isinstance(value, str) and value.strip():
            if cand[1] and lang:
                from ..languages import get_language

                try:
                    return get_language(lang).nominative(value.strip())
                except Exception:  # an unknown language or a missing analyser
                    return value.strip()
            return value.strip()
    return None


def _logprob_text(values: Sequence[float]) -> list[str]:
    """Each value to two decimals, more where two of them would look equal; a minus sign."""
    digits = 2
    while digits < 4 and len({round(v, digits) for v in values}) < len(set(values)):
        digits += 1
    return [f"{v:.{digits}f}".replace("-", "−") for v in values]


def label_answer(text: object, options: Sequence[tuple[str | None, str]]) -> str | None:
    """An answer with each log-probability (or the letter picked) beside its option:
    ``A лікар −5.27 · B секретарка −4.87``; None when the answer is neither, or does not
    have one value per option.

    >>> label_answer("logprobs -5.2665 -4.8698", [("A", "лікар"), ("B", "секретарка")])
    'A лікар −5.27 · B секретарка −4.87'
    >>> label_answer("logprobs -5.3016 -5.3014", [("A", "x"), ("B", "y")])
    'A x −5.302 · B y −5.301'
    >>> label_answer("B", [("A", "лікар"), ("B", "секретарка")])
    'B секретарка'
    >>> label_answer("не знаю", [("A", "лікар"), ("B", "секретарка")]) is None
    True
    """
    if not isinstance(text, str):
        return None
    raw = text.strip()
    letters = [label for label, _ in options]
    if raw in letters and raw:
        return f"{raw} {options[letters.index(raw)][1]}"
    match = _LOGPROBS.fullmatch(raw)
    if match is None:
        return None
    try:
        values = [float(v) for v in match[1].split()]
    except ValueError:
        return None
    if len(values) != len(options):
        return None
    return " · ".join(
        " ".join(part for part in (label, name, shown) if part)
        for (label, name), shown in zip(options, _logprob_text(values), strict=True)
    )


def _answer_options(
    cols: Sequence[str], row: pd.Series, lang: str
) -> dict[str, list[tuple[str | None, str]]]:
    """Answer column -> its options in the order asked, (letter, text) each: ``answer_R_first``
    offers R as A and the other role as B; ``answer_cloze`` offers the roles of its
    ``logprob_<role>`` columns, unlettered. Columns whose options the row lacks are left out."""
    orders = [c.removeprefix("answer_").removesuffix("_first") for c in cols]
    roles = [o for o, c in zip(orders, cols, strict=True) if c.endswith("_first")]
    out: dict[str, list[tuple[str | None, str]]] = {}
    for col in cols:
        if col.endswith("_first") and len(roles) == 2:
            first = col.removeprefix("answer_").removesuffix("_first")
            asked = [first, *(r for r in roles if r != first)]
            texts = [_option_text(row, r, lang) for r in asked]
            if all(texts):
                out[col] = [(lab, str(t)) for lab, t in zip(_LETTERS, texts, strict=True)]
        elif col == "answer_cloze":
            asked = [c.removeprefix("logprob_") for c in row.index if c.startswith("logprob_")]
            texts = [_option_text(row, r, lang) for r in asked]
            if asked and all(texts):
                out[col] = [(None, str(t)) for t in texts]
    return out


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
    text), gold and predicted labels, and the raw answers. An answer given as log-probabilities
    (or a letter) shows each beside the option it scores, as the row offered it in that order
    (:func:`label_answer`); an answer whose options the row does not name stays as it was.
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
    lang = _language(cols)
    rows = []
    for _, r in picked.iterrows():
        options = _answer_options(answers, r, lang)
        cells = []
        for c in show:
            v = r[c]
            labelled = label_answer(v, options[c]) if c in options else None
            cells.append(labelled or ("–" if _missing(v) else str(v)))
        rows.append(cells)
    return show, rows


def _missing(value: object) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):  # a list or array cell
        return False


def render_run_html(rr: RunResult, figures: Sequence[SavedFigure]) -> str:
    from ..limit import partial_note
    from ..scoring.answer_quality import count_totals, degenerate_warning
    from .identity import identity_lines, store_note, tags_text
    from .markdown import answers_line, numbers_basis

    man, rec = rr.manifest, rr.record  # the page's template reads the manifest's keys
    metrics = rr.metrics
    names = list(dict.fromkeys(metrics["metric"].astype(str))) if not metrics.empty else []
    cells = macro_cells(metrics) if not metrics.empty else {}
    headline = [(m, cells[m]) for m in headline_metrics(names) if m in cells]
    counts = rr.result.counts.to_dict("records") if not rr.result.counts.empty else []
    from ..datasets.releases import release_line

    count_cols, count_rows = records_table(counts)
    test_cols, test_rows = records_table(rr.result.tests)
    ex_cols, ex_rows = example_rows(rr.predictions, rr.task.primary.prediction_column)
    totals: dict[str, Any] = count_totals(counts)
    quality = rec.quality(counts)
    warning = degenerate_warning(quality)
    return (
        environment()
        .get_template("run.html.j2")
        .render(
            title=f"{rr.task.name} · {rec.model.display}",
            man=man,
            ds=rec.dataset,
            src=(rec.dataset or {}).get("source", {}),
            release=release_line((rec.dataset or {}).get("release")),
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
            notes=rr.result.notes,
            partial_note=partial_note(rec.partial),
            left_out=numbers_basis(rec),
            identity=identity_lines(rec),
            tags=tags_text(rec),
            not_stored=store_note(rec),
            degenerate=warning[0].upper() + warning[1:] if warning else None,
            answers=answers_line(rec, quality),
            columns=[str(c) for c in rr.result.settings.get("columns") or ()],
        )
    )


def write_run_html(rr: RunResult, out: Path) -> Path:
    """Render the figures into ``out/plots`` and write ``out/report.html``."""
    figures = [save_figure(f, out / "plots") for f in run_figures(rr.metrics, rr.predictions)]
    path = out / "report.html"
    write_atomic(path, render_run_html(rr, figures))
    return path
