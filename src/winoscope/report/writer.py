"""The run directory layout.

OUT/
  validation.json      the task's checks run on the data first: every failing row
  manifest.json        dataset id + revision or sha256, review status, protocol, prompt
                       template, model and parameters, seed, package version
  predictions.parquet  dataset rows + prediction columns (``prediction_role`` ...)
  predictions.csv      the same, for spreadsheets and ``winoscope score``
  metrics.json         metrics, significance tests, counts, settings
  metrics.csv          tidy: metric, split, type, value, ci_low, ci_high, n
  report.md            the human-readable summary
  report.html          self-contained page: manifest, metric tables with CIs, counts, plots
  plots/               the report's figures as PNG and SVG
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from ..datasets.validation import write_validation_json
from ..jsonio import atomic_path, write_atomic, write_json
from .html import write_run_html
from .markdown import render_markdown

if TYPE_CHECKING:
    from ..results.run import RunResult


def predictions_for_export(pred: pd.DataFrame) -> pd.DataFrame:
    out = pred.copy()
    for col in out.columns:
        if isinstance(out[col].dtype, pd.CategoricalDtype):
            out[col] = out[col].astype(str)
    return out


def write_run(rr: RunResult, out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    pred = predictions_for_export(rr.predictions)
    # each file whole or not at all: an interrupted write leaves the earlier one
    with atomic_path(out / "predictions.parquet") as tmp:
        pred.to_parquet(tmp, index=False)
    with atomic_path(out / "predictions.csv") as tmp:
        pred.to_csv(tmp, index=False)
    with atomic_path(out / "metrics.csv") as tmp:
        rr.metrics.to_csv(tmp, index=False)
    write_json(
        out / "metrics.json",
        {
            "task": rr.task.name,
            "model": rr.record.model.spec,
            "metrics": rr.metrics.to_dict("records"),
            "tests": rr.result.tests,
            "counts": rr.result.counts.to_dict("records"),
            "settings": rr.result.settings,
            "notes": rr.result.notes,
            # how much of the next-token probability sat on the offered letters (None: not
            # letter-scored); a low mass means the model does not answer in the offered format
            "letter_mass": rr.record.letter_mass,
            "request_errors": rr.errors,
        },
    )
    write_json(out / "manifest.json", rr.manifest)
    write_validation_json(out / "validation.json", rr.validation, task=rr.task.name)
    write_atomic(out / "report.md", render_markdown(rr))
    write_run_html(rr, out)
    return out
