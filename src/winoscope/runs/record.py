"""The last stages' records and the manifest, built once from them.

:class:`Answers` is what the ask stage got (every response by request id, with how many were
stored, asked and failed); :class:`Predicted` what the predict stage made of them (the rows
with their predictions, the rows the scorer reads after the failed-request policy, and how
many had no answer). :func:`run_record` builds the run's record (:class:`~winoscope.results.record.RunRecord`,
written as ``manifest.json``) from the plan, these two and the scorer's result, in one place:
nothing adds to it afterwards.
"""

from __future__ import annotations

import platform
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pandas as pd

from .._version import __version__
from ..backends.base import model_label
from ..datasets.validation import manifest_entry
from ..environment import environment
from ..protocols.answer_pattern import invalid_pattern
from ..protocols.cloze import ORDER_NOTE, ClozeTemplate
from ..protocols.forced_choice import letter_mass_summary
from ..records import Description, Response
from ..results.record import SCHEMA_VERSION, ModelInfo, Outcome, RunRecord
from ..scoring.answer_quality import answer_quality
from ..scoring.base import ScoreResult
from .outcome import dataset_record, run_outcome
from .plan import RunPlan


@dataclass(frozen=True)
class Answers:
    responses: dict[str, Response]
    counts: dict[str, Any]  # cached, asked, errors

    @property
    def n_errors(self) -> int:
        return sum(1 for r in self.responses.values() if r.error is not None)


@dataclass(frozen=True)
class Predicted:
    predictions: pd.DataFrame  # every row with its prediction (the run's predictions.csv)
    to_score: pd.DataFrame  # the rows the scorer reads after the failed-request policy
    unanswered: int


def why_not_stored(plan: RunPlan, description: Description) -> str:
    backend, cfg = plan.backend, plan.config
    if not backend.cacheable:
        runtime = description.runtime
        return str(runtime.get("store") or "the backend's answers cost nothing to recompute")
    if cfg.store is False:
        return "store=False"
    return "no run directory (out) and no store file given"


def run_record(
    plan: RunPlan, answers: Answers, predicted: Predicted, result: ScoreResult
) -> RunRecord:
    """The run's record (its ``manifest.json``), built here in one place: dataset, model
    (identity, runtime, transport), prompt, protocol, bootstrap, answers, outcome, validation,
    partial data, failed requests, conventions. Nothing adds to it afterwards."""
    cfg, backend, template = plan.config, plan.backend, plan.template
    description = backend.describe()
    n_errors = answers.n_errors
    settings = result.settings
    bootstrap: dict[str, Any] = {
        "replicates": cfg.n_boot,
        "level": 0.95,
        "resampling_unit": settings.get("resampling_unit") or "source item",
    }
    if settings.get("stratified_by"):
        bootstrap["stratified_by"] = settings["stratified_by"]
    responses: dict[str, Any] = {
        **answers.counts,
        "store": None if plan.store_path is None else plan.store_path.name,
    }
    if plan.store_path is None:
        responses["not_stored"] = why_not_stored(plan, description)
    outcome = run_outcome(answers.responses, len(plan.requests), cfg.max_failed_share)
    cloze = isinstance(template, ClozeTemplate)
    prompt: dict[str, Any] | None = None
    if isinstance(template, ClozeTemplate):
        prompt = dict(template.describe())
    elif template is not None:
        prompt = {"name": template.name, "text": template.text}
    return RunRecord(
        schema_version=SCHEMA_VERSION,
        winoscope_version=__version__,
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        duration_s=round(time.time() - plan.started, 3),
        task=plan.task.name,
        protocol=plan.protocol,  # the task's own, or the other binding it was asked by
        dataset=dataset_record(plan.task.name, plan.dataset),
        review_status=plan.dataset.review_status,
        model=ModelInfo(
            spec=model_label(backend),
            kind=backend.kind,
            name=backend.model,
            params=backend.params,
            # how the work was spread (device, batch size ...); not part of the store's key
            runtime=dict(description.runtime),
        ),
        prompt_template=prompt,
        seed=cfg.seed,
        bootstrap=bootstrap,
        requests=len(plan.requests),
        request_errors=n_errors,
        python=platform.python_version(),
        # what `winoscope env` prints: versions, platform, torch's build and devices, extras
        environment=environment(),
        tags=plan.tags,
        responses=responses,
        # instruct models that do not answer with the offered letters show (None: absent)
        letter_mass=letter_mass_summary(answers.responses.values()),
        outcome=Outcome.from_json(outcome),
        answer_quality=answer_quality(
            result.counts,
            outcome,
            invalid_pattern(plan.requests, answers.responses),
            predicted.unanswered if cfg.failed == "wrong" else 0,
        ),
        transport=None if description.transport is None else dict(description.transport),
        protocol_notes=[ORDER_NOTE] if cloze else None,
        validation=manifest_entry(plan.issues),
        partial=plan.partial,
        left_out=plan.left_out,
        failed_requests={"policy": cfg.failed, "requests": n_errors, "rows": predicted.unanswered},
        conventions=settings.get("conventions") or None,
        resolver_output=None if description.output is None else dict(description.output),
    )
