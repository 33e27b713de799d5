"""Reading a written run directory back (for ``compare``, ``show`` and every page on runs).

Only ``manifest.json`` and ``metrics.csv`` are needed; ``metrics.json`` adds the per-stratum
counts when present. A broken file raises one :class:`DatasetError` naming file, row and field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd

from ..datasets.schema import Field, Schema, coerce
from ..errors import DatasetError, RequestsFailed, not_utf8
from ..scoring.base import METRIC_COLUMNS
from .record import RunRecord

METRICS_SCHEMA = Schema(
    "run-metrics",
    (
        Field("metric"),
        Field("split", required=False),
        Field("type", required=False),
        Field("value", required=False),
        Field("ci_low", required=False),
        Field("ci_high", required=False),
        Field("n", dtype="int"),
        Field("n_strata", dtype="int", required=False),
    ),
)


#: the banner of every page built on a run of a bundled sample
SAMPLE_BANNER = (
    "Bundled sample written for winoscope, not the real dataset: numbers check the pipeline only."
)


@dataclass(frozen=True)
class RunDir:
    """A run directory read back: its record (``record``, typed; ``manifest``, the JSON object
    as read), metrics and the scorer's counts and notes."""

    path: Path
    manifest: dict[str, Any]
    metrics: pd.DataFrame
    counts: list[dict[str, Any]] = field(default_factory=list)
    # what the scorer told the reader (ScoreResult.notes, kept in metrics.json)
    notes: list[str] = field(default_factory=list)

    @cached_property
    def record(self) -> RunRecord:
        """The manifest as a typed record (read once)."""
        return RunRecord.from_json(self.manifest)

    @property
    def task(self) -> str:
        task = self.record.task
        return "?" if task is None else str(task)

    @property
    def model(self) -> str:
        """The model spec, with the PEFT adapter put on it (``hf:base + peft:out/lora``)."""
        return self.record.model.display

    @property
    def tags(self) -> dict[str, Any]:
        """What the run was tagged with (``--tag``, ``tags=``); empty for untagged runs."""
        return self.record.tag_map

    @property
    def label(self) -> str:
        """The model spec with the run's tags: ``hf:base [alpha=4 method=steer]``."""
        from ..tags import format_tags

        return f"{self.model} [{format_tags(self.tags)}]" if self.tags else self.model

    @property
    def is_sample(self) -> bool:
        """Whether the run is on a bundled sample (not the dataset)."""
        return self.record.is_sample

    @property
    def quality(self) -> dict[str, Any]:
        """Invalid and failed rates, and whether the run is degenerate
        (:mod:`winoscope.scoring.answer_quality`)."""
        return self.record.quality(self.counts)

    @property
    def dataset_key(self) -> str:
        """What identifies the data: hub revision, else file sha256, else location."""
        return self.record.dataset_key

    @property
    def table_key(self) -> str:
        """The sha256 of the loaded canonical table (``unrecorded`` for older runs)."""
        return self.record.table_key

    @property
    def prompt_key(self) -> str:
        """The template's name and a short hash of its text (same name, edited text: differs)."""
        return self.record.prompt_key


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise not_utf8(str(path)) from None
    except json.JSONDecodeError as exc:
        raise DatasetError(f"not valid JSON ({exc.msg})", file=str(path), line=exc.lineno) from None
    if not isinstance(data, dict):
        raise DatasetError("expected a JSON object", file=str(path))
    return data


_NUMBERS = ("value", "ci_low", "ci_high")
_KNOWN = {f.name for f in METRICS_SCHEMA.fields}


def _read_metrics_fast(path: Path) -> pd.DataFrame | None:
    """The common case in one typed read (``compare`` reads many runs): every column known,
    every number parses, no empty name. None sends the file to the checked reader, which names
    the bad cell."""
    try:
        table = pd.read_csv(
            path,
            dtype={"metric": str, "split": str, "type": str},
            keep_default_na=False,
            na_values={c: ["", "nan", "NaN", "NA", "null"] for c in _NUMBERS},
        )
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError):
        return None
    cols = set(table.columns)
    if not len(table) or not cols <= _KNOWN or not {"metric", "n"} <= cols:
        return None
    ints = [c for c in ("n", "n_strata") if c in cols]
    if any(table[c].dtype.kind not in "fi" for c in _NUMBERS if c in cols):
        return None
    if any(table[c].dtype.kind != "i" for c in ints) or bool(table["metric"].eq("").any()):
        return None
    for c in ("metric", "split", "type"):  # object columns, as the checked reader gives
        table[c] = table[c].astype(object) if c in cols else ""
    for c in _NUMBERS:
        table[c] = table[c].astype(float) if c in cols else float("nan")
    return table


def read_metrics_csv(path: Path) -> pd.DataFrame:
    fast = _read_metrics_fast(path)
    if fast is not None:
        if "n_strata" not in fast.columns:  # runs written before n_strata was a column
            fast["n_strata"] = pd.array(
                [pd.NA if s == "macro" else 1 for s in fast["split"]], dtype="Int64"
            )
        return fast[METRIC_COLUMNS + [c for c in fast.columns if c not in METRIC_COLUMNS]]
    try:
        raw = pd.read_csv(path, dtype=str, keep_default_na=False)
    except UnicodeDecodeError:
        raise not_utf8(str(path)) from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise DatasetError(f"cannot read the table ({exc})", file=str(path)) from None
    table = coerce(raw, METRICS_SCHEMA, source=str(path))
    table[["split", "type"]] = table[["split", "type"]].fillna("")
    if "n_strata" not in table.columns:  # runs written before n_strata was a column
        table["n_strata"] = pd.array(
            [pd.NA if s == "macro" else 1 for s in table["split"]], dtype="Int64"
        )
    for col in ("value", "ci_low", "ci_high"):
        text = table[col].astype("string").str.strip().fillna("")
        num = pd.to_numeric(text.mask(text.eq(""), None), errors="coerce")
        bad = num.isna() & text.ne("") & ~text.str.lower().isin(["nan", "na", "null"])
        if bool(bad.any()):
            i = int(bad.to_numpy().nonzero()[0][0])
            raise DatasetError(
                f"expected a number or empty, got {text.iloc[i]!r}",
                file=str(path),
                row=i + 1,
                field=col,
            )
        table[col] = num.astype(float)
    return table[METRIC_COLUMNS + [c for c in table.columns if c not in METRIC_COLUMNS]]


def load_run_dir(path: str | Path) -> RunDir:
    p = Path(path)
    manifest_path, metrics_path = p / "manifest.json", p / "metrics.csv"
    if not p.is_dir():
        raise DatasetError("not a directory", file=str(p))
    for need in (manifest_path, metrics_path):
        if not need.is_file():
            raise DatasetError(
                f"not a run directory: {need.name} is missing (written by `winoscope run`)",
                file=str(p),
            )
    manifest = _read_json(manifest_path)
    for key in ("task", "model"):
        if key not in manifest:
            raise DatasetError("missing key", file=str(manifest_path), field=key)
    outcome = RunRecord.from_json(manifest).outcome
    if outcome.requests and outcome.answered == 0:
        raise RequestsFailed(
            f"{p}: no request of this run was answered ({outcome.failed} failed, as its "
            "manifest.json says), so it has no metrics: rerun it when the model answers"
        )
    counts: list[dict[str, Any]] = []
    notes: list[str] = []
    if (p / "metrics.json").is_file():
        extra = _read_json(p / "metrics.json")
        counts = list(extra.get("counts") or [])
        notes = [str(n) for n in extra.get("notes") or []]
    return RunDir(p, manifest, read_metrics_csv(metrics_path), counts, notes)


def load_predictions(run: RunDir) -> pd.DataFrame:
    """The run's ``predictions.parquet`` (``predictions.csv`` when the parquet file is absent)."""
    parquet, csv = run.path / "predictions.parquet", run.path / "predictions.csv"
    if parquet.is_file():
        try:
            return pd.read_parquet(parquet)
        except Exception as exc:  # pyarrow raises several types for a damaged file
            raise DatasetError(f"cannot read the predictions ({exc})", file=str(parquet)) from None
    if csv.is_file():
        from ..datasets.sources import read_table

        table = read_table(csv)
        rows = (run.record.dataset or {}).get("rows")
        if isinstance(rows, int) and len(table) != rows:  # a CSV cut short reads without error
            raise DatasetError(
                f"{len(table)} rows, but the run wrote {rows} (its manifest.json): the file is "
                "cut short or edited; rerun the run, or restore predictions.parquet",
                file=str(csv),
            )
        return table
    raise DatasetError(
        "no predictions.parquet or predictions.csv (written by `winoscope run`)", file=str(run.path)
    )
