"""Prompt sensitivity: one task asked through several prompt templates.

:func:`run_templates` runs the ordinary single-template :func:`winoscope.runs.runner.run` once per
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

The mean's interval resamples templates and then the task's own units (a two-level bootstrap,
:mod:`winoscope.scoring.across_prompts`). It relies on every template's scorer drawing the same item
resamples (same rows, same seed); the digests of the drawn weights are compared and the
manifest's ``bootstrap.items_resampled_jointly`` says whether they agreed (they differ only when
templates scored different rows, e.g. after failed requests that ``--failed exclude`` left out).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from .. import prompt_templates as registry
from .._version import __version__
from ..backends import Backend, close_backend, model_label
from ..errors import TaskError
from ..protocols.cloze import ClozeTemplate
from ..protocols.forced_choice import PromptTemplate
from ..results.record import SCHEMA_VERSION, ModelInfo, Outcome, RunRecord
from ..results.run import RunResult, SensitivityResult
from ..runs.config import RunConfig
from ..runs.outcome import check_failed_share
from ..runs.plan import choose_protocol, load_data, make_backend, response_store_path
from ..runs.run_folder import check_sensitivity_folder
from ..runs.runner import run as run_one
from ..scoring.across_prompts import TEMPLATE_STREAM, summarise
from ..tasks import Task, get_task
from .grid import Cell, run_cells
from .points import Point

BUILTIN = "builtin"  # a templates entry that stands for the task's built-in set

Template = PromptTemplate | ClozeTemplate
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


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


def resolve_templates(
    t: Task, templates: Sequence[str | Path | Template] | None, *, protocol: str | None = None
) -> list[Template]:
    """Names, files, texts or template objects -> templates of the run's kind; none given:
    the task's built-in set for its language (:func:`prompt_templates.builtin_for`)."""
    kind = registry.task_kind(t, protocol)
    registry.task_language(t)  # a task without prompts fails here
    found: list[Template] = []
    for value in templates or [BUILTIN]:
        if isinstance(value, str) and value == BUILTIN:
            found.extend(registry.builtin_for(t, protocol))
        else:
            found.append(registry.resolve(value, kind))
    if len(found) < 2:
        raise TaskError("a prompt-sensitivity run needs at least two templates")
    return unique_names(found)


def run_templates(
    task: str | Task | RunConfig,
    model: str | Backend | None = None,
    templates: Sequence[str | Path | Template] | None = None,
    **settings: Any,
) -> SensitivityResult:
    """Evaluate ``model`` on ``task`` through every template (module docstring).

    >>> r = run_templates("winobias-uk", "baseline:random",
    ...                   ["uk-default-v1", "uk-plain-v1", "uk-question-v1"])  # doctest: +SKIP
    >>> r.to_frame()[["metric", "mean", "ci_low", "ci_high", "min", "max", "sd"]]  # doctest: +SKIP

    ``templates`` are registered names (:mod:`winoscope.prompt_templates`), files, texts or
    template objects; ``None`` (or the entry ``"builtin"``) asks the task's built-in templates.
    The settings are those of :func:`winoscope.run` (a :class:`~winoscope.runs.config.RunConfig`
    or its fields as keywords), applied to each template's run; ``out`` is the folder holding
    one run directory per template.
    """
    if isinstance(task, RunConfig):
        base = task.but(**settings) if settings else task
    else:
        if model is None:
            raise TypeError("run_templates() needs a task and a model (or one RunConfig)")
        base = RunConfig(task, model, **settings)
    started = time.time()
    check_failed_share(base.max_failed_share)
    t = get_task(base.task) if isinstance(base.task, str) else base.task
    backend = make_backend(base)
    protocol = choose_protocol(t, backend, base.protocol)
    chosen = resolve_templates(t, templates, protocol=protocol)
    if base.out is not None:  # before any template's run: its report replaces no other run's
        check_sensitivity_folder(
            base.out,
            task=t.name,
            model={
                "spec": model_label(backend),
                "runtime": getattr(backend, "runtime", None) or {},
            },
            overwrite=base.overwrite,
        )
    ds = load_data(t, base)  # once for every template's run
    out_dir = None if base.out is None else Path(base.out)
    store_path = response_store_path(base.store, out_dir) if backend.cacheable else None
    runs: list[RunResult] = []

    def run_cell(cell: Cell, made: Backend) -> None:
        runs.append(
            run_one(
                base.but(
                    task=t, model=made, data=ds, template=cell.template,
                    out=None if out_dir is None else out_dir / cell.run_dir,
                    protocol=protocol, store=store_path if store_path is not None else False,
                )
            )
        )  # fmt: skip

    cells = [Cell("", 0, t, tmpl, Path(run_dir_name(tmpl.name))) for tmpl in chosen]
    try:  # one point: the backend made here, for every template's run
        run_cells(cells, lambda _: Point(backend), run_cell)
    finally:  # made here from a spec: released after the last template, however it ends
        if isinstance(base.model, str):
            close_backend(backend)
    captured = [
        (c.template.name, rr.metrics, dict(rr.result.replicates.rows))
        for c, rr in zip(cells, runs, strict=True)
    ]
    seed, n_boot = base.seed, base.n_boot
    summary = summarise(captured, n_boot=n_boot, seed=seed)
    per_template = pd.concat(
        [m.assign(template=name) for name, m, _ in captured], ignore_index=True
    )[["template", *runs[0].metrics.columns]]
    draws = [rr.result.replicates.draws for rr in runs]  # the same draws: one item level
    joint = all(d == draws[0] for d in draws[1:])
    notes = [] if joint else [NOT_JOINT_NOTE]
    record = sensitivity_record(
        t,
        backend,
        chosen,
        runs,
        seed=seed,
        n_boot=n_boot,
        joint=joint,
        started=started,
        store=None if store_path is None else store_path.name,
    )
    if record.partial:  # --limit: every template asked the same part of the data
        from ..limit import partial_note

        notes.insert(0, str(partial_note(record.partial)))
    result = SensitivityResult(
        t, chosen, runs, per_template, summary, record.to_json(), notes=notes
    )
    if out_dir is not None:
        from ..report.sensitivity_page import write_sensitivity

        result.out_dir = write_sensitivity(result, out_dir)
    return result


NOT_JOINT_NOTE = (
    "templates scored different rows (failed requests left out), so their item resamples "
    "differ: the two-level interval treats each template's item replicates separately"
)


def combined_outcome(runs: Sequence[RunResult]) -> dict[str, Any]:
    """Requests, answered and failed summed over the templates; success only if every
    template's run succeeded."""
    outcomes = [r.record.outcome.to_json() for r in runs]
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


#: the keys of ``sensitivity.json`` in the order written (``partial`` only for --limit runs)
SENSITIVITY_KEYS = (
    *("schema_version", "winoscope_version", "kind", "created", "duration_s", "task"),
    *("protocol", "dataset", "model", "prompt_templates", "seed", "bootstrap", "spread", "runs"),
    *("validation", "outcome", "responses"),
)


def sensitivity_record(
    t: Task,
    backend: Backend,
    templates: Sequence[Template],
    runs: Sequence[RunResult],
    *,
    seed: int,
    n_boot: int,
    joint: bool,
    started: float,
    store: str | None,
) -> RunRecord:
    """The prompt-sensitivity run's record (``sensitivity.json``): the first template's run's
    data, model and validation, the two-level bootstrap, each template's run and outcome, the
    outcomes combined and the response store's file name."""
    first = runs[0].record
    return RunRecord(
        schema_version=SCHEMA_VERSION,
        winoscope_version=__version__,
        kind="prompt-sensitivity",
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        duration_s=round(time.time() - started, 3),
        task=t.name,
        protocol=first.protocol if "protocol" in first.keys else t.protocol,
        dataset=first.dataset,
        model=first.model if "model" in first.keys else ModelInfo(spec=model_label(backend)),
        prompt_templates=[
            {**d, "dir": run_dir_name(d["name"])} for d in registry.describe(templates)
        ],
        seed=seed,
        bootstrap={
            "method": "two-level: templates with replacement, then the task's own units",
            "replicates": n_boot,
            "level": 0.95,
            "resampling_unit": (first.bootstrap or {}).get("resampling_unit"),
            "template_seed": [seed, TEMPLATE_STREAM],
            "items_resampled_jointly": joint,
        },
        spread={"sd": "sample standard deviation across templates (ddof=1)"},
        runs=[
            {
                "template": tm.name,
                "dir": run_dir_name(tm.name),
                "outcome": r.record.outcome.to_json() or None,
                "responses": r.record.responses,
            }
            for tm, r in zip(templates, runs, strict=True)
        ],
        validation=first.validation,
        outcome=Outcome.from_json(combined_outcome(runs)),
        responses={"store": store},
        partial=first.partial or None,
        keys=SENSITIVITY_KEYS,
    )
