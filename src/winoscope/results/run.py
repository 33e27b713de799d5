"""The result objects of a run, below both the runner that makes them and the report that
writes them (so ``report`` never imports ``runner`` or ``sensitivity``).

:class:`RunResult` is one task asked of one model; :class:`SensitivityResult` is one task asked
through several prompt templates (:func:`winoscope.studies.sensitivity.run_templates`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .record import RunRecord

if TYPE_CHECKING:
    import pandas as pd

    from ..datasets.base import Dataset, Issue
    from ..protocols.cloze import ClozeTemplate
    from ..protocols.forced_choice import PromptTemplate
    from ..scoring.base import ScoreResult
    from ..tasks.base import Task


@dataclass(eq=False)
class RunResult:
    """One evaluation: the dataset, the predictions, the scorer's result and the manifest.

    ``errors`` holds a few failed requests (``request_id``, ``error``) for the terminal;
    ``validation`` every finding of the task's checks on the data."""

    task: Task
    dataset: Dataset
    predictions: pd.DataFrame
    result: ScoreResult
    manifest: dict[str, Any]
    out_dir: Path | None = None
    errors: list[dict[str, Any]] = field(default_factory=list)
    validation: list[Issue] = field(default_factory=list)

    @property
    def record(self) -> RunRecord:
        """The manifest as a typed record (read from ``manifest`` on each call)."""
        return RunRecord.from_json(self.manifest or {})

    @property
    def metrics(self) -> pd.DataFrame:
        return self.result.metrics

    @property
    def counts(self) -> pd.DataFrame:
        """The scorer's counts per stratum, as a run directory read back has them."""
        return self.result.counts

    def to_frame(self) -> pd.DataFrame:
        """The tidy metrics (metric, split, type, value, ci_low, ci_high, n, ...), a copy."""
        return self.result.metrics.copy()

    def _summary_rows(self) -> list[tuple[str, str]]:
        man = self.record
        invalid = len(self.validation)
        return [
            ("model", _model_text(man)),
            ("data", _data_text(man)),
            *_headline_rows(self.result.metrics if self.result is not None else None),
            *_quality_rows(man, self.result),
            (
                "errors",
                f"{_failed_text(man, len(self.errors))}; {invalid} validation "
                + ("issue" if invalid == 1 else "issues"),
            ),
            *([("run dir", str(self.out_dir))] if self.out_dir is not None else []),
        ]

    def __eq__(self, other: object) -> bool:
        """Field by field as a tuple, as dataclasses compared before Python 3.13 (whose
        field-wise ``==`` asks a DataFrame for its truth value and raises)."""
        if other.__class__ is not self.__class__:
            return NotImplemented
        mine = tuple(getattr(self, f.name) for f in fields(self))
        return mine == tuple(getattr(other, f.name) for f in fields(other))  # type: ignore[arg-type]

    __hash__ = None  # type: ignore[assignment]  # mutable, as with eq=True

    def __repr__(self) -> str:
        """Task, model (and tags), data, headline macro metrics with intervals, errors and the
        run directory, in a few lines (the full record is in ``manifest``)."""
        return _summary_repr("RunResult", self.task.name, self._summary_rows())

    def _repr_html_(self) -> str:
        return _summary_html("RunResult", self.task.name, self._summary_rows())


@dataclass
class SensitivityResult:
    """A prompt-sensitivity run: the runs per template and the metrics across them.

    ``per_template``: tidy metrics with a ``template`` column; ``summary``: one row per overall
    metric (``winoscope.scoring.across_prompts.SUMMARY_COLUMNS``); ``runs``: the single-template
    :class:`RunResult` objects in template order."""

    task: Task
    templates: list[PromptTemplate | ClozeTemplate]
    runs: list[RunResult]
    per_template: pd.DataFrame
    summary: pd.DataFrame
    manifest: dict[str, Any]
    out_dir: Path | None = None
    notes: list[str] = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        """The summary table (mean, two-level interval, min, max, sd per overall metric)."""
        return self.summary.copy()

    def headline(self) -> pd.DataFrame:
        return self.summary[self.summary["headline"]].reset_index(drop=True)

    @property
    def record(self) -> RunRecord:
        """The manifest (``sensitivity.json``) as a typed record."""
        return RunRecord.from_json(self.manifest or {})

    @property
    def success(self) -> bool:
        return bool(self.record.outcome.success)

    def _summary_rows(self) -> list[tuple[str, str]]:
        man = self.record
        names = [str(getattr(t, "name", t)) for t in self.templates]
        heads = self.summary[self.summary["headline"].astype(bool)].head(_HEADLINES)
        from ..scoring.metric import signed_gap_metrics

        gaps = set(signed_gap_metrics(list(heads["metric"].astype(str))))
        failed = sum(int(r.record.outcome.failed or 0) for r in self.runs)
        return [
            ("model", _model_text(man)),
            ("data", _data_text(man)),
            ("templates", f"{len(names)}: {', '.join(names)}"),
            *[
                (
                    str(r.metric),
                    f"{_with_interval(r.mean, r.ci_low, r.ci_high, r.metric in gaps)} "
                    f"(templates {_number(r.min, r.metric in gaps)} to "
                    f"{_number(r.max, r.metric in gaps)})",
                )
                for r in heads.itertuples(index=False)
            ],
            (
                "errors",
                f"{failed} failed requests over {len(self.runs)} runs; {len(self.notes)} "
                + ("note" if len(self.notes) == 1 else "notes"),
            ),
            *([("run dir", str(self.out_dir))] if self.out_dir is not None else []),
        ]

    def __repr__(self) -> str:
        """Task, model, data, templates, the headline metrics' mean over templates with the
        two-level interval and the range, errors and the output directory."""
        return _summary_repr("SensitivityResult", self.task.name, self._summary_rows())

    def _repr_html_(self) -> str:
        return _summary_html("SensitivityResult", self.task.name, self._summary_rows())


@dataclass
class SweepResult:
    """Every point's runs, the table against the swept value, and the utility per point."""

    key: str
    points: list[Any]
    reference: Any
    tasks: list[str]
    table: pd.DataFrame
    utility: pd.DataFrame
    runs: dict[tuple[str, Any], Any] = field(default_factory=dict, repr=False)
    run_dirs: dict[tuple[str, Any], Path] = field(default_factory=dict)
    utility_source: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    out: Path | None = None

    def __repr__(self) -> str:
        return (
            f"SweepResult({self.key}: {', '.join(map(str, self.points))}; reference "
            f"{self.reference}; tasks {', '.join(self.tasks)}; {len(self.table)} rows"
            + "".join(
                f"; DEGENERATE {t} {self.key}={', '.join(map(str, ps))}"
                for t, ps in (self.settings.get("degenerate") or {}).items()
            )
            + (f"; {self.out}" if self.out else "")
            + ")"
        )

    def no_difference(self, task: str) -> list[tuple[str, str]]:
        """The task's points whose paired change could not be computed, each with why."""
        prefix = f"{task} {self.key}="
        notes = self.settings.get("no_difference") or {}
        return [(k.removeprefix(prefix), why) for k, why in notes.items() if k.startswith(prefix)]

    def to_frame(self) -> pd.DataFrame:
        return self.table.copy()

    def _repr_html_(self) -> str:
        """Each point's headline values and changes from the reference (notebooks)."""
        from html import escape

        rows = "".join(
            "<tr>"
            + "".join(
                f"<td>{escape(str(x))}</td>"
                for x in (
                    r.task,
                    r.point,
                    r.metric,
                    r.measure or "reference",
                    f"{r.value:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}]",
                    "" if r.reference else f"{r.diff:+.3f} [{r.diff_low:+.3f}, {r.diff_high:+.3f}]",
                    "" if r.p_holm != r.p_holm else f"{r.p_holm:.3g}",
                )
            )
            + "</tr>"
            for r in self.table.itertuples(index=False)
        )
        return (
            f"<p><b>sweep over {escape(self.key)}</b> (reference {escape(str(self.reference))})"
            f"{'; ' + escape(str(self.out)) if self.out else ''}</p><table><tr><th>task</th>"
            f"<th>{escape(self.key)}</th><th>metric</th><th>measure</th><th>value</th>"
            f"<th>change</th><th>Holm p</th></tr>{rows}</table>"
        )


# --- short summaries for the terminal and notebooks (``repr`` and ``_repr_html_``) ----------

REPR_LIMIT = 1000  # characters of a summary ``repr`` at most
_VALUE_LIMIT = 160  # characters of one summary value at most
_HEADLINES = 4  # headline metrics a summary shows


def _clip(text: object, limit: int = _VALUE_LIMIT) -> str:
    s = " ".join(str(text).split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


def _number(x: object, signed: bool = False) -> str:
    try:
        v = float(x)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return "–"
    if v != v:  # NaN
        return "–"
    return f"{v:+.3f}" if signed else f"{v:.3f}"


def _with_interval(value: object, lo: object, hi: object, signed: bool) -> str:
    """``0.812 [0.700, 0.900]``; signed values (gaps) with their sign."""
    interval = f" [{_number(lo, signed)}, {_number(hi, signed)}]" if _number(lo) != "–" else ""
    return _number(value, signed) + interval


def _model_text(record: RunRecord) -> str:
    """The model spec with the run's tags: ``hf:base [alpha=4 method=steer]``."""
    from ..tags import format_tags

    spec, tags = record.model.display, record.tag_map
    return f"{spec} [{format_tags(tags)}]" if tags else spec


def _data_text(record: RunRecord) -> str:
    """The data's name and a prefix of its strongest hash (table, else file or revision)."""
    ds, src = record.dataset or {}, record.source
    name = str(ds.get("name") or ds.get("family") or "?")
    for label, digest in (
        ("table", ds.get("table_sha256")),
        ("revision", src.get("revision")),
        ("sha256", src.get("sha256")),
    ):
        if digest:
            name += f", {label} {str(digest)[:12]}"
            break
    return name + (" (bundled sample: checks the pipeline only)" if record.is_sample else "")


def _headline_rows(metrics: pd.DataFrame | None) -> list[tuple[str, str]]:
    """The headline macro metrics with their intervals, from the tidy metrics table (metric,
    split, type, value, ci_low, ci_high); the single stratum of a task without a macro row."""
    from ..scoring.metric import headline_metrics, signed_gap_metrics

    if metrics is None or metrics.empty or "metric" not in metrics.columns:
        return [("headline", "no metrics")]
    split, typ = metrics["split"].astype(str), metrics["type"].astype(str)
    rows = metrics[split == "macro"]
    if rows.empty:
        whole = metrics[(split == "all") & (typ == "all")]
        rows = metrics if len(set(zip(split, typ, strict=True))) == 1 else whole
    names = list(dict.fromkeys(rows["metric"].astype(str)))
    gaps = set(signed_gap_metrics(names))
    out = []
    for name in headline_metrics(names, limit=_HEADLINES):
        r = rows[rows["metric"].astype(str) == name].iloc[0]
        out.append((name, _with_interval(r["value"], r["ci_low"], r["ci_high"], name in gaps)))
    return out or [("headline", "no macro metrics")]


def _quality_rows(record: RunRecord, result: Any) -> list[tuple[str, str]]:
    """The invalid and failed rates, the reused and asked answers, and the degenerate-run
    warning (first, when there is one)."""
    from ..scoring.answer_quality import quality_text, short_warning

    q = record.quality(getattr(result, "counts", ()))
    warning = short_warning(q)
    r = record.responses or {}
    answers = quality_text(q)
    if "cached" in r or "asked" in r:
        answers += f" · {r.get('cached', 0)} reused, {r.get('asked', 0)} asked"
    return ([("WARNING", warning)] if warning else []) + [("answers", answers)]


def _failed_text(record: RunRecord, shown: int) -> str:
    outcome = record.outcome
    if outcome.failed is not None:
        requests = "?" if outcome.requests is None else outcome.requests
        return f"{outcome.failed} of {requests} requests failed"
    return f"{shown} failed requests"


def _summary_repr(kind: str, title: str, rows: list[tuple[str, str]]) -> str:
    """``Kind(title`` then one ``  key: value`` line per row, at most :data:`REPR_LIMIT`."""
    width = max((len(k) for k, _ in rows), default=0)
    text = "\n".join(
        [f"{kind}({_clip(title)}", *(f"  {k.ljust(width)}  {_clip(v)}" for k, v in rows)]
    )
    text += ")"
    return text if len(text) <= REPR_LIMIT else text[: REPR_LIMIT - 2] + "…)"


def _summary_html(kind: str, title: str, rows: list[tuple[str, str]]) -> str:
    """The same summary as a small self-contained HTML table, every text escaped."""
    from html import escape

    cells = "".join(
        f'<tr><th style="text-align:left;padding:2px 10px 2px 0">{escape(k)}</th>'
        f'<td style="text-align:left;font-variant-numeric:tabular-nums">{escape(_clip(v))}</td>'
        "</tr>"
        for k, v in rows
    )
    return (
        f'<table class="winoscope-summary"><caption style="text-align:left;font-weight:600">'
        f"{escape(kind)}: {escape(_clip(title))}</caption><tbody>{cells}</tbody></table>"
    )
