"""Prompt sensitivity: one task asked through several prompt templates.

:func:`run_templates` runs the ordinary single-template :func:`winoscope.runner.run` once per
template, with one backend and one response store (``OUT/responses.sqlite``; a template's name
and text are part of the stored answers' key, so every template keeps its own answers and a
rerun resumes each). Each template's run is a normal run directory ``OUT/<template>/``, so
``winoscope compare OUT`` lists them side by side. Beside them:

- ``template_metrics.csv``: every template's metrics (the runs' ``metrics.csv`` stacked with a
  ``template`` column);
- ``template_summary.csv``: per overall metric (the macro rows; tasks without strata macros:
  ``split == "all"``) the mean over templates with a two-level bootstrap interval, and the
  spread across templates: ``min``, ``max`` (with the templates that give them) and ``sd``,
  the sample standard deviation (``ddof=1``: the templates are a sample of possible wordings);
- ``sensitivity.json``: the manifest (``prompt_templates``: name and text of each, the
  bootstrap scheme, each run's directory and outcome), ``report.md``, ``report.html`` and
  ``plots/template_metrics.{png,svg}`` (one panel per headline metric, one row per template).

Two-level bootstrap (templates, then items). Every template is scored on the same rows with
the same seed, so its scorer draws the same resamples of the task's own units (source items,
pairs, schemas): replicate ``b`` of every template is the metric on item resample ``b``
(checked through the digests of the drawn weights; the manifest's
``items_resampled_jointly`` says whether they agreed, which fails only when templates scored
different rows, e.g. after failed requests). For each ``b`` the template level draws ``T`` of
the ``T`` templates with replacement (counts ``c_bt``, multinomial from
``numpy.random.default_rng([seed, 14])``, independent of the item stream) and takes
``mean*_b = sum_t c_bt * m_t(b) / sum_t c_bt`` over the templates where the metric is defined.
The interval is the 2.5 and 97.5 percentiles of ``mean*_b``. It answers "what would the mean
be over another sample of items and another sample of wordings like these", so it is wider
than any single template's item interval when the templates disagree, and equals the item
interval when all templates give the same answers.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import prompt_templates as registry
from ._version import __version__
from .backends import Backend, create_backend, model_label
from .errors import TaskError
from .protocols.cloze import ClozeTemplate
from .protocols.forced_choice import PromptTemplate
from .runner import RunResult, _store_path, check_failed_share
from .runner import run as run_one
from .tasks import Task, get_task

BUILTIN = "builtin"  # a templates entry that stands for the task's built-in set
TEMPLATE_STREAM = 14  # second word of the template-level seed: default_rng([seed, 14])
SUMMARY_COLUMNS = [
    "metric",
    "split",
    "type",
    "headline",
    "templates",
    "mean",
    "ci_low",
    "ci_high",
    "min",
    "min_template",
    "max",
    "max_template",
    "sd",
]
Template = PromptTemplate | ClozeTemplate
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass
class SensitivityResult:
    """A prompt-sensitivity run: the runs per template and the metrics across them.

    ``per_template``: tidy metrics with a ``template`` column; ``summary``: one row per overall
    metric (:data:`SUMMARY_COLUMNS`); ``runs``: the single-template :class:`RunResult` objects
    in template order."""

    task: Task
    templates: list[Template]
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
    def success(self) -> bool:
        return bool(self.manifest["outcome"]["success"])


def unique_names(templates: Sequence[Template]) -> list[Template]:
    """The templates with distinct names: the same name and text twice is an error; the same
    name with another text gets ``-<first 6 hex of the text's sha256>`` appended."""
    import hashlib

    seen: dict[str, str] = {}
    out: list[Template] = []
    for t in templates:
        if t.name in seen and seen[t.name] == t.text:
            raise TaskError(f"prompt template '{t.name}' is given twice")
        if t.name in seen:
            digest = hashlib.sha256(t.text.encode("utf-8")).hexdigest()[:6]
            t = replace(t, name=f"{t.name}-{digest}")
            if t.name in seen:
                raise TaskError(f"prompt template '{t.name}' is given twice")
        seen[t.name] = t.text
        out.append(t)
    return out


def run_dir_name(name: str) -> str:
    """A template name as a directory name (characters outside ``A-Za-z0-9._-`` become _)."""
    cleaned = _UNSAFE.sub("_", name).strip("._") or "template"
    return cleaned


def overall_rows(metrics: pd.DataFrame) -> pd.DataFrame:
    """The rows a task reports as its overall figures: macro rows, else ``split == 'all'``,
    else the only stratum there is."""
    split = metrics["split"].astype(str)
    for mask in (split == "macro", split == "all"):
        if bool(mask.any()):
            return metrics[mask]
    keys = metrics[["split", "type"]].astype(str).drop_duplicates()
    return metrics if len(keys) == 1 else metrics.iloc[0:0]


def two_level_interval(
    replicates: np.ndarray, template_counts: np.ndarray, level: float = 0.95
) -> tuple[float, float]:
    """Percentile interval of ``mean*_b`` (module docstring): ``replicates`` is templates x B
    (NaN where undefined), ``template_counts`` B x templates."""
    from .scoring.stats import percentile_ci

    reps = np.asarray(replicates, dtype=float).T  # B x T
    defined = ~np.isnan(reps)
    weights = np.where(defined, template_counts, 0.0)
    total = weights.sum(axis=1)
    num = weights * np.where(defined, reps, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(total > 0, num.sum(axis=1) / np.where(total > 0, total, 1), np.nan)
    return percentile_ci(means, level)


def template_counts(n_templates: int, n_boot: int, seed: int) -> np.ndarray:
    """The template level's draws: B x T counts of each template (see the module docstring)."""
    rng = np.random.default_rng([seed, TEMPLATE_STREAM])
    return rng.multinomial(n_templates, np.full(n_templates, 1.0 / n_templates), size=n_boot)


def summarise(
    runs: Sequence[tuple[str, pd.DataFrame, Mapping[tuple[str, str, str], np.ndarray]]],
    *,
    n_boot: int,
    seed: int,
    level: float = 0.95,
) -> pd.DataFrame:
    """The summary table from (template name, metrics, replicates by key) per template."""
    from .report.tables import headline_metrics

    names = [name for name, _, _ in runs]
    keys: list[tuple[str, str, str]] = []
    for _, metrics, _ in runs:
        for r in overall_rows(metrics).itertuples(index=False):
            key = (str(r.metric), str(r.split), str(r.type))
            if key not in keys:
                keys.append(key)
    headline = set(headline_metrics(list(dict.fromkeys(k[0] for k in keys))))
    counts = template_counts(len(runs), n_boot, seed)
    records = []
    for key in keys:
        values = np.full(len(runs), np.nan)
        reps = np.full((len(runs), n_boot), np.nan)
        for i, (_, metrics, replicates) in enumerate(runs):
            row = metrics[
                (metrics["metric"].astype(str) == key[0])
                & (metrics["split"].astype(str) == key[1])
                & (metrics["type"].astype(str) == key[2])
            ]
            if not row.empty:
                values[i] = float(row["value"].iloc[0])
            if key in replicates and replicates[key].size == n_boot:
                reps[i] = replicates[key]
        defined = ~np.isnan(values)
        reps[~defined] = np.nan  # an undefined value has no interval
        lo, hi = two_level_interval(reps, counts, level) if defined.any() else (math.nan,) * 2
        d = values[defined]
        kept = [n for n, ok in zip(names, defined, strict=True) if ok]
        records.append(
            {
                "metric": key[0],
                "split": key[1],
                "type": key[2],
                "headline": key[0] in headline,
                "templates": int(defined.sum()),
                "mean": float(d.mean()) if d.size else math.nan,
                "ci_low": lo,
                "ci_high": hi,
                "min": float(d.min()) if d.size else math.nan,
                "min_template": kept[int(d.argmin())] if d.size else "",
                "max": float(d.max()) if d.size else math.nan,
                "max_template": kept[int(d.argmax())] if d.size else "",
                "sd": _sd(d),
            }
        )
    frame = pd.DataFrame.from_records(records, columns=SUMMARY_COLUMNS)
    order = {m: i for i, m in enumerate(headline_metrics(list(dict.fromkeys(frame["metric"]))))}
    rank = [order.get(m, len(order)) for m in frame["metric"]]
    return frame.iloc[np.argsort(rank, kind="stable")].reset_index(drop=True)


def _sd(values: np.ndarray) -> float:
    """Sample standard deviation (ddof=1); exactly 0 when every value is the same (numpy's
    two-pass formula leaves rounding noise), NaN with fewer than two values."""
    if values.size < 2:
        return math.nan
    if bool(np.all(values == values[0])):
        return 0.0
    return float(values.std(ddof=1))


def resolve_templates(
    t: Task, templates: Sequence[str | Path | Template] | None, *, cloze_mode: bool
) -> list[Template]:
    """Names, files, texts or template objects -> templates of the run's kind; none given:
    the task's built-in set for its language (:func:`prompt_templates.builtin_for`)."""
    kind = registry.task_kind(t, cloze_mode)
    registry.task_language(t)  # a task without prompts fails here
    found: list[Template] = []
    for value in templates or [BUILTIN]:
        if isinstance(value, str) and value == BUILTIN:
            found.extend(registry.builtin_for(t, cloze_mode))
        else:
            found.append(registry.resolve(value, kind))
    if len(found) < 2:
        raise TaskError("a prompt-sensitivity run needs at least two templates")
    return unique_names(found)


def run_templates(
    task: str | Task,
    model: str | Backend,
    templates: Sequence[str | Path | Template] | None = None,
    *,
    data: str | Path | None = None,
    out: str | Path | None = None,
    seed: int = 0,
    n_boot: int = 2000,
    revision: str | None = None,
    split: str | None = None,
    quiet: bool = True,
    backend_options: Mapping[str, Any] | None = None,
    store: str | Path | bool | None = None,
    resume: bool = True,
    strict: bool = False,
    keep_unpaired: bool = False,
    failed: str = "exclude",
    labels: str | None = None,
    alpha_invalid: str | None = None,
    max_failed_share: float = 0.0,
    **options: Any,
) -> SensitivityResult:
    """Evaluate ``model`` on ``task`` through every template (module docstring).

    >>> r = run_templates("winobias-uk", "baseline:random",
    ...                   ["uk-default-v1", "uk-plain-v1", "uk-question-v1"])  # doctest: +SKIP
    >>> r.to_frame()[["metric", "mean", "ci_low", "ci_high", "min", "max", "sd"]]  # doctest: +SKIP

    ``templates`` are registered names (:mod:`winoscope.prompt_templates`), files, texts or
    template objects; ``None`` (or the entry ``"builtin"``) asks the task's built-in templates.
    Every other argument (``options`` too) is that of :func:`winoscope.run`, applied to each
    template's run.
    """
    from .scoring.paired import capture_replicates

    started = time.time()
    check_failed_share(max_failed_share)
    t = get_task(task) if isinstance(task, str) else task
    backend = (
        model
        if not isinstance(model, str)
        else create_backend(model, seed=seed, **dict(backend_options or {}))
    )
    cloze_mode = str(backend.params.get("mode", "")) == "cloze"
    chosen = resolve_templates(t, templates, cloze_mode=cloze_mode)
    out_dir = None if out is None else Path(out)
    store_path = _store_path(store, out_dir) if getattr(backend, "cacheable", True) else None
    runs: list[RunResult] = []
    captured: list[tuple[str, pd.DataFrame, dict[tuple[str, str, str], np.ndarray]]] = []
    draws: list[list[tuple[int, int, str]]] = []
    for tmpl in chosen:
        with capture_replicates() as sink:
            rr = run_one(
                t,
                backend,
                data=data,
                out=None if out_dir is None else out_dir / run_dir_name(tmpl.name),
                seed=seed,
                template=tmpl,
                n_boot=n_boot,
                revision=revision,
                split=split,
                quiet=quiet,
                store=store_path if store_path is not None else False,
                resume=resume,
                strict=strict,
                keep_unpaired=keep_unpaired,
                failed=failed,
                labels=labels,
                alpha_invalid=alpha_invalid,
                max_failed_share=max_failed_share,
                **options,
            )
        runs.append(rr)
        captured.append((tmpl.name, rr.metrics, dict(sink.replicates)))
        draws.append(list(sink.draws))
    summary = summarise(captured, n_boot=n_boot, seed=seed)
    per_template = pd.concat(
        [m.assign(template=name) for name, m, _ in captured], ignore_index=True
    )[["template", *runs[0].metrics.columns]]
    joint = all(d == draws[0] for d in draws[1:])
    notes = [] if joint else [NOT_JOINT_NOTE]
    manifest = sensitivity_manifest(
        t, backend, chosen, runs, seed=seed, n_boot=n_boot, joint=joint, started=started
    )
    manifest["responses"] = {"store": None if store_path is None else store_path.name}
    result = SensitivityResult(t, chosen, runs, per_template, summary, manifest, notes=notes)
    if out_dir is not None:
        from .report.sensitivity_page import write_sensitivity

        result.out_dir = write_sensitivity(result, out_dir)
    return result


NOT_JOINT_NOTE = (
    "templates scored different rows (failed requests left out), so their item resamples "
    "differ: the two-level interval treats each template's item replicates separately"
)


def combined_outcome(runs: Sequence[RunResult]) -> dict[str, Any]:
    """Requests, answered and failed summed over the templates; success only if every
    template's run succeeded."""
    outcomes = [r.manifest.get("outcome") or {} for r in runs]
    total = {k: sum(int(o.get(k, 0)) for o in outcomes) for k in ("requests", "answered", "failed")}
    statuses = {str(o.get("status", "ok")) for o in outcomes}
    status = "ok" if statuses == {"ok"} else ("failed" if statuses == {"failed"} else "partial")
    reasons: dict[str, int] = {}
    for o in outcomes:
        for k, v in (o.get("finish_reasons") or {}).items():
            reasons[k] = reasons.get(k, 0) + int(v)
    return {
        **total,
        "failed_share": round(total["failed"] / total["requests"], 6) if total["requests"] else 0.0,
        "max_failed_share": max(
            (float(o.get("max_failed_share", 0.0)) for o in outcomes), default=0.0
        ),
        "status": status,
        "success": all(bool(o.get("success", True)) for o in outcomes),
        "finish_reasons": dict(sorted(reasons.items())),
    }


def sensitivity_manifest(
    t: Task,
    backend: Backend,
    templates: Sequence[Template],
    runs: Sequence[RunResult],
    *,
    seed: int,
    n_boot: int,
    joint: bool,
    started: float,
) -> dict[str, Any]:
    first = runs[0].manifest
    return {
        "winoscope_version": __version__,
        "kind": "prompt-sensitivity",
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "duration_s": round(time.time() - started, 3),
        "task": t.name,
        "protocol": first.get("protocol", t.protocol),
        "dataset": first.get("dataset"),
        "model": first.get("model", {"spec": model_label(backend)}),
        "prompt_templates": [
            {**d, "dir": run_dir_name(d["name"])} for d in registry.describe(templates)
        ],
        "seed": seed,
        "bootstrap": {
            "method": "two-level: templates with replacement, then the task's own units",
            "replicates": n_boot,
            "level": 0.95,
            "resampling_unit": first.get("bootstrap", {}).get("resampling_unit"),
            "template_seed": [seed, TEMPLATE_STREAM],
            "items_resampled_jointly": joint,
        },
        "spread": {"sd": "sample standard deviation across templates (ddof=1)"},
        "runs": [
            {
                "template": tm.name,
                "dir": run_dir_name(tm.name),
                "outcome": r.manifest.get("outcome"),
                "responses": r.manifest.get("responses"),
            }
            for tm, r in zip(templates, runs, strict=True)
        ],
        "validation": first.get("validation"),
        "outcome": combined_outcome(runs),
    }


def run_for_cli(
    task: str, model: str, *, template: Sequence[str], **kwargs: Any
) -> SensitivityResult:
    """``winoscope run`` with several ``--template`` (or ``--templates``): the same keywords
    as :func:`winoscope.run`."""
    return run_templates(task, model, list(template) or None, **kwargs)


def print_sensitivity(result: SensitivityResult, console: Any) -> None:
    """The headline metrics across templates on the terminal (a rich console); the templates
    giving the minimum and maximum are in ``template_summary.csv`` and the reports."""
    from rich.markup import escape
    from rich.table import Table

    from .report.tables import fmt, fmt_ci

    table = Table(
        title=f"{result.manifest['task']} · {result.manifest['model']['spec']} · "
        f"{len(result.templates)} templates",
        caption=escape("mean over templates [two-level 95% CI]; spread across templates"),
    )
    for i, col in enumerate(("metric", "mean", "95% CI", "min", "max", "sd")):
        table.add_column(col, justify="left" if i == 0 else "right", no_wrap=i > 0)
    for r in result.headline().itertuples(index=False):
        ci = escape(fmt_ci(r.ci_low, r.ci_high))
        table.add_row(str(r.metric), fmt(r.mean), ci, fmt(r.min), fmt(r.max), fmt(r.sd))
    console.print(table)
    for note in result.notes:
        console.print(f"[yellow]{escape(note)}[/]", highlight=False, soft_wrap=True)
